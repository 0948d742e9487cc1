"""Mesh objects of other libraries: PyVista (``to_pyvista``/``from_pyvista``) and trimesh
(``to_trimesh``/``from_trimesh``). Both libraries are optional and imported on first use.

Neither library has a slot for a named group, so regions travel by the mask-plus-sidecar
convention: each Point region becomes a ``uint8`` point array ``region:<name>`` (1 = member), each
Cell region a cell array of the same name, and a JSON sidecar (``field_data`` for PyVista,
``metadata`` for trimesh) under ``meshioplusplus:regions`` keeps name, kind, dim and tag. The
``from_`` functions turn masks named in the sidecar back into regions and remove them from the
data. Side regions ((cell, facet) pairs) have no mask form; they are left out with an
``InteropWarning`` naming them.

Copies: PyVista shares point and data arrays with VTK where VTK can take them as they are
(float/integer, C-contiguous); VTK's cell layout (offsets + connectivity as vtkIdType) is always
built anew. Reading a grid back adopts VTK's point and data arrays without a copy.
"""

import json
import warnings

import numpy as np

from . import _core
from ._gpu import InteropError, InteropWarning
from ._mesh import CellBlock, Mesh
from ._regions import Region, RegionKind, block_bases

SIDECAR = "meshioplusplus:regions"
MASK_PREFIX = "region:"

_VTK_ID = {name: vtk for name, _, _, vtk in _core.cell_types()}
_VTK_POLYGON, _VTK_POLYHEDRON = 7, 42
_VTK_LAGRANGE = {"VTK_LAGRANGE_CURVE": 68, "VTK_LAGRANGE_TRIANGLE": 69, "VTK_LAGRANGE_QUADRILATERAL": 70,
                 "VTK_LAGRANGE_TETRAHEDRON": 71, "VTK_LAGRANGE_HEXAHEDRON": 72, "VTK_LAGRANGE_WEDGE": 73,
                 "VTK_LAGRANGE_PYRAMID": 74}


def _require(module):
    try:
        return __import__(module)
    except ImportError as error:
        raise ImportError(f"this function needs {module}: pip install {module}") from error


def _region_masks(mesh, num_cells):
    """(point masks, cell masks, sidecar records); Side regions are reported and skipped."""
    point_masks, cell_masks, records, skipped = {}, {}, [], []
    for region in mesh.regions:
        if region.kind == RegionKind.SIDE:
            skipped.append(region.name)
            continue
        array_name = MASK_PREFIX + region.name
        size = len(mesh.points) if region.kind == RegionKind.POINT else num_cells
        mask = np.zeros(size, dtype=np.uint8)
        mask[np.asarray(region.entries, dtype=np.int64)] = 1
        (point_masks if region.kind == RegionKind.POINT else cell_masks)[array_name] = mask
        records.append({"name": region.name, "kind": region.kind.name.lower(), "dim": region.dim,
                        "tag": region.tag, "array": array_name})
    if skipped:
        warnings.warn(f"side regions {skipped} have no mask form and were left out", InteropWarning, stacklevel=3)
    return point_masks, cell_masks, records


def _regions_from_masks(records, point_data, cell_data):
    """Regions back from the sidecar; their masks are removed from the data dicts."""
    regions = []
    for record in records:
        kind = RegionKind[record["kind"].upper()]
        source = point_data if kind == RegionKind.POINT else cell_data
        mask = source.pop(record["array"], None)
        if mask is None:
            continue
        regions.append(Region(record["name"], kind, record.get("dim", -1), record.get("tag", -1),
                              np.flatnonzero(np.asarray(mask).reshape(-1)).astype(np.int64)))
    return regions


# --- PyVista --------------------------------------------------------------------------------


def _vtk_type(block):
    if block.type in _VTK_LAGRANGE:
        return _VTK_LAGRANGE[block.type]
    vtk = _VTK_ID.get("polyhedron" if block.type.startswith("polyhedron") else block.type, -1)
    if vtk < 0:
        raise InteropError(f"cells of type {block.type!r} have no VTK cell type")
    return vtk


def _vtk_cells(block):
    """One block in VTK's legacy cell layout ([n, ids…] per cell) and its VTK type id."""
    vtk = _vtk_type(block)
    if block.type.startswith("polyhedron"):
        stream = []
        for cell in block.data:
            record = [len(cell)]
            for face in cell:
                record += [len(face), *np.asarray(face).tolist()]
            stream += [len(record), *record]
        return np.asarray(stream, dtype=np.int64), vtk
    if isinstance(block.data, list):  # ragged polygons
        stream = np.concatenate([np.concatenate(([len(cell)], cell)) for cell in block.data]) if block.data else []
        return np.asarray(stream, dtype=np.int64), vtk
    data = np.asarray(block.data, dtype=np.int64)
    counts = np.full((len(data), 1), data.shape[1] if data.ndim == 2 else 0, dtype=np.int64)
    return np.hstack((counts, data.reshape(len(data), -1))).reshape(-1), vtk


def to_pyvista(mesh):
    """A ``pyvista.UnstructuredGrid`` of ``mesh``: cells in block order, point and cell data
    (cell data joined over blocks), field data, regions as masks + sidecar (module docstring)."""
    pv = _require("pyvista")
    pieces, types = [], []
    for block in mesh.cells:
        stream, vtk = _vtk_cells(block)
        pieces.append(stream)
        types.append(np.full(len(block), vtk, dtype=np.uint8))
    num_cells = int(sum(len(block) for block in mesh.cells))
    points = np.asarray(mesh.points)
    if points.ndim == 2 and points.shape[1] < 3:
        points = np.hstack((points, np.zeros((len(points), 3 - points.shape[1]), dtype=points.dtype)))
    if points.dtype.kind != "f":
        points = points.astype(np.float64)
    cells = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    celltypes = np.concatenate(types) if types else np.zeros(0, dtype=np.uint8)
    grid = pv.UnstructuredGrid(cells, celltypes, points)
    for name, values in mesh.point_data.items():
        grid.point_data[name] = values
    for name, per_block in mesh.cell_data.items():
        grid.cell_data[name] = np.concatenate([np.asarray(v) for v in per_block]) if per_block else []
    for name, values in mesh.field_data.items():
        grid.field_data[name] = values
    point_masks, cell_masks, records = _region_masks(mesh, num_cells)
    for name, mask in point_masks.items():
        grid.point_data[name] = mask
    for name, mask in cell_masks.items():
        grid.cell_data[name] = mask
    if records:
        grid.field_data[SIDECAR] = [json.dumps(records)]
    return grid


_AXIS_ALIGNED = {8: ("quad", [0, 1, 3, 2]), 11: ("hexahedron", [0, 1, 3, 2, 4, 5, 7, 6])}


def _vtk_name(vtk, count):
    for name, nodes, _, vtk_id in _core.cell_types():
        if vtk_id == vtk and (nodes == count or nodes == 0):
            return name
    for name, vtk_id in _VTK_LAGRANGE.items():
        if vtk_id == vtk:
            return name
    raise InteropError(f"VTK cell type {vtk} with {count} nodes has no meshio++ name")


def from_pyvista(dataset):
    """A Mesh from any PyVista dataset (cast to an unstructured grid first when it is not one).
    Runs of equal cell type (and, for polygons, equal corner count) become blocks; point/cell
    data come along (cell data split per block), masks named in the sidecar become regions."""
    pv = _require("pyvista")
    grid = dataset if isinstance(dataset, pv.UnstructuredGrid) else dataset.cast_to_unstructured_grid()
    types = np.asarray(grid.celltypes)
    offsets = np.asarray(grid.cell_offsets if hasattr(type(grid), "cell_offsets") else grid.offset, dtype=np.int64)
    connectivity = np.asarray(grid.cell_connectivity, dtype=np.int64)
    sizes = np.diff(offsets)
    blocks, ranges = [], []
    if len(types):
        key_change = (types[1:] != types[:-1]) | (sizes[1:] != sizes[:-1])
        starts = np.concatenate(([0], np.flatnonzero(key_change) + 1, [len(types)]))
        for first, last in zip(starts[:-1], starts[1:]):
            vtk, count = int(types[first]), int(sizes[first])
            if vtk == _VTK_POLYHEDRON:
                raise InteropError("polyhedral cells: write the grid to .vtu and read that instead")
            rows = connectivity[offsets[first] : offsets[last]].reshape(last - first, count)
            if vtk in _AXIS_ALIGNED:  # VTK_PIXEL / VTK_VOXEL: a quad / hexahedron in another order
                name, order = _AXIS_ALIGNED[vtk]
                blocks.append(CellBlock(name, rows[:, order]))
            else:
                blocks.append(CellBlock(_vtk_name(vtk, count), rows))
            ranges.append((first, last))
    point_data = {name: np.asarray(grid.point_data[name]) for name in grid.point_data.keys()}
    joined = {name: np.asarray(grid.cell_data[name]) for name in grid.cell_data.keys()}
    field_data = {name: np.asarray(grid.field_data[name]) for name in grid.field_data.keys()}
    sidecar = field_data.pop(SIDECAR, None)
    records = json.loads(str(sidecar[0])) if sidecar is not None and len(sidecar) else []
    regions = _regions_from_masks(records, point_data, joined)
    cell_data = {name: [values[a:b] for a, b in ranges] for name, values in joined.items()}
    point_data.pop("vtkOriginalPointIds", None)
    for name in ("vtkOriginalCellIds",):
        cell_data.pop(name, None)
    return Mesh(np.asarray(grid.points), blocks, point_data=point_data, cell_data=cell_data,
                field_data=field_data, regions=regions)


# --- trimesh --------------------------------------------------------------------------------


def to_trimesh(mesh, process=False):
    """A ``trimesh.Trimesh`` of the mesh's surface cells: triangles as they are, quads and
    rectangular polygons fanned into triangles (noted in ``metadata``). Point data become
    ``vertex_attributes``; cell data and Cell-region masks of the surface blocks become
    ``face_attributes`` (one value per triangle). Other blocks are left out with a warning.
    ``process=False`` keeps vertices as they are (trimesh would merge and reorder them)."""
    trimesh = _require("trimesh")
    faces, source_cell, left_out = [], [], []
    bases = block_bases(mesh.cells)
    for b, block in enumerate(mesh.cells):
        data = block.data
        if block.type in ("triangle", "quad", "polygon") and isinstance(data, np.ndarray) and data.ndim == 2:
            k = data.shape[1]
            cells = np.arange(len(data), dtype=np.int64) + int(bases[b])
            for corner in range(1, k - 1):  # fan: (0, c, c+1)
                faces.append(np.column_stack((data[:, 0], data[:, corner], data[:, corner + 1])))
                source_cell.append(cells)
        elif len(block):
            left_out.append(block.type)
    if left_out:
        warnings.warn(f"blocks {sorted(set(left_out))} are not surface cells; left out", InteropWarning, stacklevel=2)
    if faces:
        order = np.argsort(np.concatenate(source_cell), kind="stable")
        face_array = np.concatenate(faces)[order]
        face_cell = np.concatenate(source_cell)[order]
    else:
        face_array, face_cell = np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
    points = np.asarray(mesh.points)
    if points.shape[1] < 3:
        points = np.hstack((points, np.zeros((len(points), 3 - points.shape[1]))))
    result = trimesh.Trimesh(vertices=points, faces=face_array, process=process)
    for name, values in mesh.point_data.items():
        result.vertex_attributes[name] = values
    num_cells = int(bases[-1])
    for name, per_block in mesh.cell_data.items():
        joined = np.concatenate([np.asarray(v) for v in per_block]) if per_block else np.zeros(0)
        if len(joined) == num_cells:
            result.face_attributes[name] = joined[face_cell]
    point_masks, cell_masks, records = _region_masks(mesh, num_cells)
    result.vertex_attributes.update(point_masks)
    for name, mask in cell_masks.items():
        result.face_attributes[name] = mask[face_cell]
    result.metadata[SIDECAR] = json.dumps(records)
    result.metadata["meshioplusplus:triangulated"] = bool(len(face_cell) != len(np.unique(face_cell)))
    return result


def from_trimesh(geometry):
    """A Mesh with one triangle block from a ``trimesh.Trimesh`` (vertices and faces are
    adopted without a copy when they are int64/float64); vertex/face attributes become
    point/cell data, masks named in the sidecar become regions."""
    vertices = np.asarray(geometry.vertices)
    faces = np.asarray(geometry.faces)
    point_data = {name: np.asarray(values) for name, values in geometry.vertex_attributes.items()}
    cell_data = {name: np.asarray(values) for name, values in geometry.face_attributes.items()}
    records = json.loads(geometry.metadata.get(SIDECAR, "[]"))
    regions = _regions_from_masks(records, point_data, cell_data)
    cells = [CellBlock("triangle", faces)] if len(faces) else []
    cell_data = {name: [values] for name, values in cell_data.items()} if cells else {}
    return Mesh(vertices, cells, point_data=point_data, cell_data=cell_data, regions=regions)


__all__ = ["from_pyvista", "from_trimesh", "to_pyvista", "to_trimesh"]
