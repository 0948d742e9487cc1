"""meshio's ``meshio._common`` (``_meshio_names/common.py`` has the implementation)."""

from ._meshio_names.common import (  # noqa: F401
    _pick_first_int_data,
    cell_data_from_raw,
    error,
    info,
    is_in_any,
    join_strings,
    num_nodes_per_cell,
    raw_from_cell_data,
    replace_space,
    warn,
    write_xml,
)
