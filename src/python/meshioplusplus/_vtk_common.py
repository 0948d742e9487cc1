"""meshio's ``meshio._vtk_common``, whose type maps PyVista's ``from_meshio``/``to_meshio``
import (``_meshio_names/vtk_common.py`` has the implementation)."""

from ._meshio_names.vtk_common import (  # noqa: F401
    CellBlock,
    Info,
    ReadError,
    meshio_to_vtk_order,
    meshio_to_vtk_type,
    num_nodes_per_cell,
    vtk_cells_from_data,
    vtk_to_meshio_order,
    vtk_to_meshio_type,
    warn,
)
