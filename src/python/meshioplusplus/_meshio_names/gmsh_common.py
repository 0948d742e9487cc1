"""meshio's ``meshio.gmsh.common`` (``meshioplusplus.gmsh.common``): Gmsh element ids <-> cell
type names, the node orders that differ from ours, and the MSH section helpers code that reads
or writes MSH pieces itself imports (sgio, …).

``_gmsh_to_meshio_type`` / ``_meshio_to_gmsh_type`` (also ``meshioplusplus.gmsh.
gmsh_to_meshio_type`` / ``meshio_to_gmsh_type``, which pygmsh uses) and the orders are the core
Gmsh format's own table (``_tables``), made on first use. Changing them does not change what
the core reads or writes."""

import shlex

import numpy as np

from .._exceptions import ReadError, WriteError
from . import _tables
from .common import warn

__all__ = [
    "c_int",
    "c_double",
    "_gmsh_to_meshio_type",
    "_meshio_to_gmsh_type",
    "_gmsh_to_meshio_order",
    "_meshio_to_gmsh_order",
    "_fast_forward_to_end_block",
    "_fast_forward_over_blank_lines",
    "_read_physical_names",
    "_read_data",
    "_write_physical_names",
    "_write_data",
]

c_int = np.dtype("int32")
c_double = np.dtype("float64")

_TABLES = {"_gmsh_to_meshio_type": _tables.gmsh_to_meshio_type, "_meshio_to_gmsh_type": _tables.meshio_to_gmsh_type}


__getattr__, __dir__ = _tables.module_attributes_made_on_first_use(globals(), _TABLES)


def _reordered(cell_type, idx, which):
    idx = np.asarray(idx)
    orders = _tables.gmsh_orders().get(cell_type)
    return idx if orders is None else idx[:, list(orders[which])]


def _gmsh_to_meshio_order(cell_type, idx):
    """Rows of Gmsh-ordered node indices of ``cell_type`` cells in our (meshio's) order."""
    return _reordered(cell_type, idx, 0)


def _meshio_to_gmsh_order(cell_type, idx):
    """Rows of our node indices of ``cell_type`` cells in Gmsh's order."""
    return _reordered(cell_type, idx, 1)


def _text(line):
    if isinstance(line, bytes):
        try:
            return line.decode()
        except UnicodeDecodeError:
            return line
    return line


def _fast_forward_to_end_block(f, block):
    """Skips the lines of ``f`` up to and including ``$End<block>`` (warns if there is none)."""
    for line in f:
        line = _text(line)
        if line.strip() == f"$End{block}":  # bytes that do not decode never match
            return
    warn(f"${block} not closed by $End{block}.")


def _fast_forward_over_blank_lines(f):
    """``(line, is_eof)``: the next line of ``f`` that is not blank (decoded), or ``("", True)``."""
    while True:
        line = _text(f.readline())
        if not line:
            return line, True
        if line.strip():
            return line, False


def _read_physical_names(f, field_data):
    """The ``$PhysicalNames`` section (after its header line) into ``field_data``:
    ``name -> [tag, dim]``."""
    count = int(_text(f.readline()))
    for _ in range(count):
        dim, tag, name = shlex.split(_text(f.readline()))[:3]
        field_data[name] = np.array([tag, dim], dtype=int)
    _fast_forward_to_end_block(f, "PhysicalNames")


def _read_data(f, tag, data_dict, data_size, is_ascii):
    """A ``$NodeData``/``$ElementData`` section (after its header line) into ``data_dict``
    under its first string tag: an ``(n,)`` array for one component, else ``(n, components)``.
    The real tags (the time) are skipped."""
    string_tags = [_text(f.readline()).strip().replace('"', "") for _ in range(int(_text(f.readline())))]
    for _ in range(int(_text(f.readline()))):
        f.readline()
    integer_tags = [int(_text(f.readline())) for _ in range(int(_text(f.readline())))]
    num_components, num_items = integer_tags[1], integer_tags[2]
    if is_ascii:
        data = np.fromfile(f, count=num_items * (1 + num_components), sep=" ")
        data = data.reshape((num_items, 1 + num_components))[:, 1:]  # the first column: the item number
    else:
        records = np.fromfile(f, count=num_items, dtype=[("index", c_int), ("values", c_double, (num_components,))])
        if not np.array_equal(records["index"], np.arange(1, num_items + 1)):
            raise ReadError()
        data = np.ascontiguousarray(records["values"])
    _fast_forward_to_end_block(f, tag)
    data_dict[string_tags[0]] = data[:, 0] if data.shape[1] == 1 else data


def _write_physical_names(fh, field_data):
    """``$PhysicalNames`` from the ``name -> [tag, dim]`` entries of ``field_data`` (others are
    skipped with a warning), sorted by dim and tag; nothing when there are none."""
    entries = []
    for name, value in field_data.items():
        try:
            tag, dim = value
            entries.append((int(dim), int(tag), name))
        except (ValueError, TypeError):
            warn("Field data contains entry that cannot be processed.")
    if not entries:
        return
    fh.write(b"$PhysicalNames\n")
    fh.write(f"{len(entries)}\n".encode())
    for dim, tag, name in sorted(entries):
        fh.write(f'{dim} {tag} "{name}"\n'.encode())
    fh.write(b"$EndPhysicalNames\n")


def _write_data(fh, tag, name, data, binary):
    """A ``$<tag>`` section (``NodeData``/``ElementData``) holding ``data`` (1, 3 or 9
    components) as view ``name`` at time 0, step 0."""
    data = np.asarray(data)
    num_components = data.shape[1] if data.ndim > 1 else 1
    if num_components not in (1, 3, 9):
        raise WriteError("Gmsh only permits 1, 3, or 9 components per data field.")
    if data.ndim > 1 and data.shape[1] == 1:
        data = data[:, 0]
    fh.write(f'${tag}\n1\n"{name}"\n1\n{0.0}\n3\n0\n{num_components}\n{data.shape[0]}\n'.encode())
    if binary:
        shape = () if num_components == 1 else (num_components,)
        records = np.empty(len(data), dtype=[("index", c_int), ("data", c_double, shape)])
        records["index"] = np.arange(1, len(data) + 1)
        records["data"] = data
        fh.write(records.tobytes())  # also to in-memory buffers (meshio's tofile needs a real file)
        fh.write(b"\n")
    else:
        for k, values in enumerate(data.reshape(len(data), -1)):
            fh.write((" ".join([str(k + 1)] + [repr(x) for x in values.tolist()]) + "\n").encode())
    fh.write(f"$End{tag}\n".encode())
