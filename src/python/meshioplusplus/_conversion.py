"""Mesh <-> the plain containers the C++ bindings speak (no array copies where avoidable).

To the core, canonical arrays (C-contiguous, native byte order, a supported dtype) travel
as-is — the bindings wrap them as views. Only arrays that the core cannot take as they are
are converted, and those conversions are listed in ``_CONVERSIONS`` below.
"""

import numpy as np

from . import _core
from ._allocation import python_allocator_active
from ._format_tables import pop_tables, table_fields
from ._gmsh import periodic_fields, pop_periodic
from ._mesh import CellBlock, DeferredCellBlock, DeferredArray, Mesh, PolyhedronCellBlock, _as_cell_block, is_ragged_type
from ._regions import Region, RegionKind, block_bases, join_blocks

_SUPPORTED_KINDS = "iuf"

# What is converted on the way to the core, and why:
#   * non-contiguous or foreign-byte-order arrays: the core reads raw C-order native memory;
#   * bool arrays: reinterpreted as uint8 (a view, no copy);
#   * connectivity and region entries of another integer type: widened to int64, the core's
#     index type;
#   * integer points: converted to float64;
#   * ragged polygon/polyhedron lists: packed into CSR arrays.


def host_array(values, name):
    """``values`` as an array the core can view without copying (copies only when needed)."""
    array = np.asarray(values)
    if array.dtype == np.bool_:
        array = array.view(np.uint8)
    if array.dtype.kind not in _SUPPORTED_KINDS or array.dtype.itemsize > 8 or array.dtype == np.float16:
        raise TypeError(f"{name}: dtype {array.dtype} cannot be written (numeric arrays only)")
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return array


def index_array(values, name):
    array = np.asarray(values)
    if array.dtype.kind not in "iu" and array.size:
        raise TypeError(f"{name}: indices must be integers, got {array.dtype}")
    if array.dtype != np.int64:
        array = array.astype(np.int64)
    return host_array(array, name)


def _points(points):
    points = np.asarray(points)
    if points.ndim != 2:
        raise ValueError(f"points must be a 2-D array (n, dim), got shape {points.shape}")
    if points.dtype.kind != "f" or points.dtype.itemsize not in (4, 8):
        points = points.astype(np.float64)
    return host_array(points, "points")


def _core_cells(block, index):
    name = f"cells[{index}] ({block.type})"
    core_type = "polyhedron" if block.type.startswith("polyhedron") else block.type
    if not is_ragged_type(block.type):
        return (core_type, index_array(block.data, name), None, None)
    csr = getattr(block, "csr", None)
    if csr is not None:  # a read's polyhedra never unpacked into lists: its arrays as they are
        connectivity, faces_per_cell, nodes_per_face = csr
        return (core_type, index_array(connectivity, name), faces_per_cell, nodes_per_face)
    data = block.data
    if core_type == "polygon":
        if isinstance(data, np.ndarray):
            n, k = data.shape
            return (core_type, index_array(data.reshape(-1), name), np.arange(0, (n + 1) * k, k, dtype=np.int64), None)
        lengths = np.fromiter((len(cell) for cell in data), dtype=np.int64, count=len(data))
        flat = np.concatenate([np.asarray(cell).reshape(-1) for cell in data]) if data else np.zeros(0, np.int64)
        return (core_type, index_array(flat, name), _offsets(lengths), None)
    faces = [np.asarray(face).reshape(-1) for cell in data for face in cell]
    faces_per_cell = np.fromiter((len(cell) for cell in data), dtype=np.int64, count=len(data))
    nodes_per_face = np.fromiter((len(face) for face in faces), dtype=np.int64, count=len(faces))
    flat = np.concatenate(faces) if faces else np.zeros(0, np.int64)
    return (core_type, index_array(flat, name), _offsets(faces_per_cell), _offsets(nodes_per_face))


def _offsets(lengths):
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def _split_field_data(field_data):
    numeric, strings = {}, {}
    for name, values in field_data.items():
        array = np.asarray(values)
        if array.dtype.kind in "USO":
            strings[name] = [str(v) for v in array.reshape(-1)]
        else:
            numeric[name] = host_array(array, f"field_data[{name!r}]")
    return numeric, strings


def _regions_of(mesh, cells):
    """``mesh.regions``, or — for a mesh that has none (a real ``meshio.Mesh``, or anything
    shaped like one) — Point and Cell regions made from its ``point_sets``/``cell_sets``."""
    regions = getattr(mesh, "regions", None)
    if regions is not None:
        return regions
    made = []
    for name, indices in (getattr(mesh, "point_sets", None) or {}).items():
        made.append(Region(name, RegionKind.POINT, entries=np.asarray(indices).reshape(-1)))
    cell_sets = getattr(mesh, "cell_sets", None) or {}
    if cell_sets:
        bases = block_bases([len(block) for block in cells])
        for name, per_block in cell_sets.items():
            made.append(Region(name, RegionKind.CELL, entries=join_blocks(per_block, bases, name)))
    return made


def to_core(mesh):
    """The bindings' container for ``mesh`` (ours, meshio's, or any object with meshio's
    attributes); canonical arrays are shared, not copied."""
    cells = [_as_cell_block(block) for block in mesh.cells]
    regions = _regions_of(mesh, cells)
    field_data = dict(getattr(mesh, "field_data", None) or {})
    info = getattr(mesh, "info", None)
    if isinstance(info, dict):
        field_data.update({name: info[name] for name in INFO_FIELDS if name in info and name not in field_data})
    numeric_fields, string_fields = _split_field_data(field_data)
    numeric_fields.update(periodic_fields(getattr(mesh, "gmsh_periodic", None)))  # _gmsh.py
    string_fields.update(table_fields(mesh))  # MED families (_format_tables.py)
    point_data = getattr(mesh, "point_data", None) or {}
    cell_data = getattr(mesh, "cell_data", None) or {}
    return {
        "points": _points(mesh.points),
        "cells": [_core_cells(block, i) for i, block in enumerate(cells)],
        "point_data": {k: host_array(v, f"point_data[{k!r}]") for k, v in point_data.items()},
        "cell_data": {
            k: [host_array(a, f"cell_data[{k!r}][{b}]") for b, a in enumerate(v)] for k, v in cell_data.items()
        },
        "field_data": numeric_fields,
        "string_field_data": string_fields,
        "regions": [
            (r.name, int(r.kind), r.dim, r.tag, index_array(r.entries, f"region {r.name!r}")) for r in regions
        ],
    }


def _python_blocks(cell_type, connectivity, offsets, face_offsets):
    """The Python blocks for one core block, as meshio shows them, and the cell ranges each
    covers. Rectangular blocks pass through (the array is the C++ buffer). A ragged polygon
    block becomes one rectangular ``polygon`` block per run of equal corner count (views into
    the one connectivity buffer, no copy); a polyhedron block becomes one ``polyhedron<N>``
    block per run of equal node count N. Cells keep their order, so block-major cell numbers
    (and with them every region) are unchanged."""
    if offsets is None:
        return [(CellBlock(cell_type, connectivity), 0, len(connectivity))]
    count = len(offsets) - 1
    if count <= 0:
        name = "polygon" if face_offsets is None else "polyhedron"
        empty = np.zeros((0, 0), dtype=connectivity.dtype) if face_offsets is None else []
        return [(_raw_block(name, empty), 0, 0)]
    if face_offsets is None:
        sizes = np.diff(offsets)
        starts = np.concatenate(([0], np.flatnonzero(sizes[1:] != sizes[:-1]) + 1, [count]))
        blocks = []
        for first, last in zip(starts[:-1], starts[1:]):
            corners = int(sizes[first])
            rows = connectivity[offsets[first] : offsets[last]].reshape(last - first, corners)
            blocks.append((_raw_block("polygon", rows), int(first), int(last)))
        return blocks
    # One lazily unpacked block per run of cells of equal node count, each with its own slice
    # of the arrays rebased to 0 (views where the slice starts at 0, a small copy of offsets).
    node_counts = _core.polyhedron_node_counts(connectivity, offsets, face_offsets)
    starts = np.concatenate(([0], np.flatnonzero(node_counts[1:] != node_counts[:-1]) + 1, [count]))
    blocks = []
    for first, last in zip(starts[:-1].tolist(), starts[1:].tolist()):
        cell_offsets = offsets[first:last + 1]
        face_slice = face_offsets[cell_offsets[0]:cell_offsets[-1] + 1]
        nodes = connectivity[face_slice[0]:face_slice[-1]]
        block = PolyhedronCellBlock(f"polyhedron{int(node_counts[first])}", nodes,
                                    cell_offsets - cell_offsets[0] if first else cell_offsets,
                                    face_slice - face_slice[0] if first else face_slice)
        blocks.append((block, first, last))
    return blocks


def _raw_block(cell_type, data):
    block = CellBlock.__new__(CellBlock)
    block.type, block.tags, block.data = cell_type, [], data
    block.dim = 3 if cell_type.startswith("polyhedron") else 2
    return block


#: Format records that meshio keeps in ``mesh.info`` rather than ``field_data`` (the core
#: carries them as field data; they move to ``info`` on the way to Python and back on writes).
INFO_FIELDS = ("netgen:identifications", "netgen:identificationtypes")


def split_cell_data(cell_data, block_ranges):
    """The core's cell data (one array per core block) split as from_core splits the blocks:
    ``block_ranges[b]`` lists the (first, last) cell ranges of core block b's Python blocks
    (more than one for polygons and polyhedra of several sizes). Slices are views."""
    return {name: [values if len(pieces) == 1 else values[first:last]
                   for values, pieces in zip(per_block, block_ranges) for first, last in pieces]
            for name, per_block in cell_data.items()}


def python_block_ranges(core_cells):
    """For each core block (bindings' tuple), the cell ranges of the Python blocks it becomes."""
    return [[(first, last) for _, first, last in _python_blocks(*core_block)] for core_block in core_cells]


def from_core(container):
    """A Mesh adopting the core's arrays (every array shares the C++ buffer)."""
    field_data = dict(container["field_data"])
    for name, strings in container["string_field_data"].items():
        field_data[name] = np.array(strings)
    info = {name: field_data.pop(name) for name in INFO_FIELDS if name in field_data}
    cells, ranges = [], []
    for core_block in container["cells"]:
        pieces = _python_blocks(*core_block)
        cells.extend(block for block, _, _ in pieces)
        ranges.append([(first, last) for _, first, last in pieces])
    cell_data = split_cell_data(container["cell_data"], ranges)
    mesh = Mesh(
        container["points"],
        cells,
        point_data=container["point_data"],
        cell_data=cell_data,
        field_data=field_data,
        regions=[Region(name, RegionKind(kind), dim, tag, entries) for name, kind, dim, tag, entries in container["regions"]],
        gmsh_periodic=pop_periodic(field_data),  # before Mesh copies field_data (_gmsh.py)
        info=info or None,
    )
    for attribute, value in pop_tables(mesh.field_data).items():  # MED families, Exodus records
        setattr(mesh, attribute, value)
    return mesh


#: Formats whose readers can leave the geometry a structured grid implies for later.
STRUCTURED_FORMATS = ("vts", "vtr", "vti")
_STRUCTURED_CELL_TYPES = {1: "line", 2: "quad", 3: "hexahedron"}


def from_structured_core(container):
    """A Mesh from ``_core.read_structured_implicit``: the data arrays now; the points of a
    .vtr/.vti and the cells of all three made on first use (VTK's own readers return these
    grids without them). The recipe is taken from the file at read time, so editing
    ``field_data`` before first use does not move the points."""
    dims = tuple(int(d) for d in container["dims"])
    points = container["points"]
    field_data = dict(container["field_data"])
    if points is None:
        count = dims[0] * dims[1] * dims[2]
        if container["axes"]:
            x, y, z = (np.array(axis) for axis in container["axes"])
            points = DeferredArray(count, _core.rectilinear_grid_points, x, y, z, bool(container["points_float32"]))
        else:
            points = DeferredArray(count, _core.image_grid_points,
                                    [int(v) for v in field_data["vtk:WholeExtent"]],
                                    [float(v) for v in field_data["vtk:Origin"]],
                                    [float(v) for v in field_data["vtk:Spacing"]],
                                    [float(v) for v in field_data["vtk:Direction"]])
    spanned = [d for d in dims if d > 1]
    cells = []
    if spanned:
        count = int(np.prod([d - 1 for d in spanned], dtype=np.int64))
        cells.append(DeferredCellBlock(_STRUCTURED_CELL_TYPES[len(spanned)], count,
                                       DeferredArray(count, _structured_cells, dims)))
    for name, strings in container["string_field_data"].items():
        field_data[name] = np.array(strings)
    mesh = Mesh(points, cells, point_data=container["point_data"], cell_data=dict(container["cell_data"]),
                field_data=field_data)
    if python_allocator_active():
        # Inside pinned_reads() (or any allocator block) every array a read returns comes from
        # that allocator: made now, not after the block has closed.
        mesh.points  # noqa: B018
        for block in mesh.cells:
            block.data  # noqa: B018
    return mesh


def _structured_cells(dims):
    return _core.structured_grid_cells(list(dims))[1]


def _grid_rows(dims, less=0):
    counts = [int(d) - less for d in dims if int(d) > 1] if less else [int(d) for d in dims]
    return int(np.prod(counts, dtype=np.int64)) if counts else (0 if less else 1)


# The recipes a structured grid's deferred arrays use, by name: an isolated read ships them to
# its caller as recipes (a .vti of a few kB implies millions of points and cells).
DeferredArray.register_recipe("image_grid_points", _core.image_grid_points,
                              lambda extent, *_: _grid_rows([extent[2 * k + 1] - extent[2 * k] + 1 for k in range(3)]))
DeferredArray.register_recipe("rectilinear_grid_points", _core.rectilinear_grid_points,
                              lambda x, y, z, *_: len(x) * len(y) * len(z))
DeferredArray.register_recipe("structured_grid_cells", _structured_cells, lambda dims: _grid_rows(dims, less=1))

