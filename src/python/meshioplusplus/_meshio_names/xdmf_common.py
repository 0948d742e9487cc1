"""meshio's ``meshio.xdmf.common`` (``meshioplusplus.xdmf.common``): XDMF topology names and
Mixed-topology ids <-> cell type names, XDMF number types <-> numpy dtypes, and meshio's
helpers for both.

The topology tables are the core XDMF format's own (``_tables``), made on first use; the
number types follow from the dtypes the core's arrays hold (``Int``/``UInt``/``Float`` and the
size in bytes, as the core's XDMF writer names them). ``dtype_to_format_string`` is meshio's
printf table for inline (``XML``) data; the core has none (it writes the shortest exact text),
so it is kept here for code that formats XDMF text itself. Changing these dicts does not change
what the core reads or writes."""

import numpy as np

from .._exceptions import ReadError
from .._mesh import CellBlock
from . import _tables

__all__ = [
    "numpy_to_xdmf_dtype",
    "xdmf_to_numpy_type",
    "dtype_to_format_string",
    "meshio_to_xdmf_type",
    "xdmf_to_meshio_type",
    "xdmf_idx_to_meshio_type",
    "meshio_type_to_xdmf_index",
    "translate_mixed_cells",
    "attribute_type",
]

# The numeric dtypes of the core's arrays (include/meshioplusplus/ndarray.hpp, DType).
_CORE_DTYPES = [np.dtype(f"{kind}{size}") for kind in "iu" for size in (1, 2, 4, 8)] + [
    np.dtype("float32"), np.dtype("float64")]
_NUMBER_TYPES = {"i": "Int", "u": "UInt", "f": "Float"}

numpy_to_xdmf_dtype = {dtype.name: (_NUMBER_TYPES[dtype.kind], str(dtype.itemsize)) for dtype in _CORE_DTYPES}
xdmf_to_numpy_type = {number_type: name for name, number_type in numpy_to_xdmf_dtype.items()}

dtype_to_format_string = {
    "int32": "%d",
    "int64": "%d",
    "uint32": "%d",
    "uint64": "%d",
    "float32": "%.7e",
    "float64": "%.16e",
}


def _meshio_to_xdmf_type():
    names = {}
    for xdmf, name in _tables.xdmf_topology_names():
        names.setdefault(name, []).append(xdmf)
    return names


def _xdmf_to_meshio_type():
    return {xdmf: name for xdmf, name in _tables.xdmf_topology_names()}


def _xdmf_idx_to_meshio_type():
    return {index: name for index, name, _ in _tables.xdmf_mixed_ids()}


def _meshio_type_to_xdmf_index():
    return {name: index for index, name, _ in _tables.xdmf_mixed_ids()}


_TABLES = {
    "meshio_to_xdmf_type": _tables._once(_meshio_to_xdmf_type),
    "xdmf_to_meshio_type": _tables._once(_xdmf_to_meshio_type),
    "xdmf_idx_to_meshio_type": _tables._once(_xdmf_idx_to_meshio_type),
    "meshio_type_to_xdmf_index": _tables._once(_meshio_type_to_xdmf_index),
}


__getattr__, __dir__ = _tables.module_attributes_made_on_first_use(globals(), _TABLES)


def translate_mixed_cells(data):
    """Cell blocks from the stream of a Mixed topology: per cell its id, for Polyvertex,
    Polyline and Polygon the node count, then the nodes. One block per run of equal type (and,
    for polygons, equal node count); lines must have 2 nodes and vertices 1."""
    data = np.asarray(data)
    kinds = {index: (name, nodes) for index, name, nodes in _tables.xdmf_mixed_ids()}
    runs = []  # [cell type, node count, first-node positions]
    at = 0
    while at < len(data):
        index = int(data[at])
        if index not in kinds:
            raise ReadError(f"XDMF reader: unknown Mixed topology id {index}")
        name, nodes = kinds[index]
        at += 1
        if nodes == 0:  # the node count follows the id
            nodes = int(data[at])
            at += 1
            fixed = {"vertex": 1, "line": 2}.get(name)
            if fixed is not None and nodes != fixed:
                kind = "lines" if name == "line" else "vertices"
                raise ReadError(f"XDMF reader: Only supports {fixed}-point {kind} for now")
        if runs and runs[-1][0] == name and runs[-1][1] == nodes:
            runs[-1][2].append(at)
        else:
            runs.append([name, nodes, [at]])
        at += nodes
    return [CellBlock(name, data[np.add.outer(np.asarray(starts), np.arange(nodes))]) for name, nodes, starts in runs]


def attribute_type(data):
    """The XDMF ``AttributeType`` of an array: Scalar (n,) or (n, 1), Vector (n, 2|3), Tensor
    (n, 9) or (n, 3, 3), Tensor6 (n, 6), Matrix (other 3-d); ``ReadError`` otherwise."""
    shape = np.shape(data)
    if len(shape) == 1 or (len(shape) == 2 and shape[1] == 1):
        return "Scalar"
    if len(shape) == 2 and shape[1] in (2, 3):
        return "Vector"
    if (len(shape) == 2 and shape[1] == 9) or (len(shape) == 3 and shape[1:] == (3, 3)):
        return "Tensor"
    if len(shape) == 2 and shape[1] == 6:
        return "Tensor6"
    if len(shape) != 3:
        raise ReadError()
    return "Matrix"
