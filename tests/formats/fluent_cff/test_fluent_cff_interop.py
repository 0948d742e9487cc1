"""Fluent CFF (.cas.h5/.dat.h5/.msh.h5) through meshio++, cross-checked with VTK's vtkFLUENTCFFReader.

The files are Fluent's own (ansys/example-data, MIT; tests/data/MANIFEST.tsv). VTK gives one
block per cell zone, in file order; we give one block per cell type, so cells are matched by
their node sets, then types, sizes (signed, so orientation is checked) and data compared cell by cell.
"""

import pathlib

import numpy as np
import pytest

import meshioplusplus as mio

ROOT = pathlib.Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "fluent_cff"
# 3 MB each: too large for tests/data; bench/data/fluent_cff (from ansys/example-data,
# pyfluent/mixing_elbow/mixing_elbow.{cas,dat}.h5 at 246c578).
ELBOW = ROOT / "bench" / "data" / "fluent_cff" / "mixing_elbow.cas.h5"

VTK_TYPES = {5: "triangle", 9: "quad", 10: "tetra", 12: "hexahedron", 13: "wedge", 14: "pyramid", 42: "polyhedron"}
# Faces of VTK's linear cells, oriented out of a positive cell.
OUTWARD_FACES = {
    "tetra": [(0, 2, 1), (0, 1, 3), (1, 2, 3), (0, 3, 2)],
    "pyramid": [(0, 3, 2, 1), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)],
    "wedge": [(0, 2, 1), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (0, 3, 5, 2)],
    "hexahedron": [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)],
}


def signed_size(points, cell_type, cell):
    """Area (2-D, counter-clockwise positive) or volume (3-D, outward faces positive)."""
    if cell_type in ("triangle", "quad", "polygon"):
        xy = points[np.asarray(cell)]
        x, y = xy[:, 0], xy[:, 1]
        return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    faces = [np.asarray(f) for f in cell] if cell_type.startswith("polyhedron") else [
        np.asarray(cell)[list(f)] for f in OUTWARD_FACES[cell_type]]
    return sum(face_volume(points[face]) for face in faces)


def face_volume(p):
    """The face's share of a volume by the divergence theorem: triangles fanned around its
    centroid, so a face shared by two cells cancels exactly, however far from planar."""
    centroid = p.mean(axis=0)
    return float(np.dot(centroid, np.cross(p, np.roll(p, -1, axis=0)).sum(axis=0))) / 6.0


def boundary_volume(path):
    """The volume the file's boundary faces (no c1) enclose, from the raw datasets (h5py)."""
    h5py = pytest.importorskip("h5py", reason="h5py reads the raw datasets for the check")
    with h5py.File(path) as f:
        mesh = f["meshes/1"]
        points = np.concatenate([d[()] for d in mesh["nodes/coords"].values()])
        c1 = np.zeros(int(mesh.attrs["faceCount"][0]), dtype=np.int64)
        for d in mesh["faces/c1"].values():
            first = int(d.attrs["minId"][0]) - 1
            c1[first:first + len(d)] = d[()]
        volume = 0.0
        for section in mesh["faces/nodes"].values():
            first = int(section.attrs["minId"][0]) - 1
            counts = section["nnodes"][()].astype(np.int64)
            nodes = section["nodes"][()].astype(np.int64) - 1
            offsets = np.concatenate([[0], np.cumsum(counts)])
            for i in np.flatnonzero(c1[first:first + len(counts)] == 0):
                # A face's normal points into c0: reversed, out of the domain.
                volume += face_volume(points[nodes[offsets[i]:offsets[i + 1]][::-1]])
    return volume


def our_cells(mesh):
    """(type, node set, signed size, block, row) of every cell, in block order."""
    cells = []
    for b, block in enumerate(mesh.cells):
        for row, cell in enumerate(block.data):
            nodes = np.unique(np.concatenate(cell)) if block.type.startswith("polyhedron") else np.unique(cell)
            kind = "polyhedron" if block.type.startswith("polyhedron") else block.type
            cells.append((kind, tuple(nodes), signed_size(mesh.points, block.type, cell), b, row))
    return cells


def vtk_reference(path):
    vtk = pytest.importorskip("vtk", reason="VTK (vtkFLUENTCFFReader) is the reference reader")
    from vtk.util.numpy_support import vtk_to_numpy

    reader = vtk.vtkFLUENTCFFReader()
    reader.SetFileName(str(path))
    reader.EnableAllCellArrays()
    reader.Update()
    output = reader.GetOutput()
    cells, data, points = [], {}, None
    for b in range(output.GetNumberOfBlocks()):
        grid = output.GetBlock(b)
        points = vtk_to_numpy(grid.GetPoints().GetData())
        for i in range(grid.GetNumberOfCells()):
            ids = grid.GetCell(i).GetPointIds()
            nodes = tuple(sorted({ids.GetId(k) for k in range(ids.GetNumberOfIds())}))
            cells.append((VTK_TYPES[grid.GetCellType(i)], nodes))
        cell_data = grid.GetCellData()
        for k in range(cell_data.GetNumberOfArrays()):
            data.setdefault(cell_data.GetArrayName(k), []).append(vtk_to_numpy(cell_data.GetArray(k)))
    return points, cells, {name: np.concatenate(parts) for name, parts in data.items()}


# Local facets of include/meshioplusplus/side_regions.hpp (Exodus order, VTK node order).
FACETS = {
    "triangle": [(0, 1), (1, 2), (2, 0)],
    "quad": [(0, 1), (1, 2), (2, 3), (3, 0)],
    "hexahedron": [(0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (0, 4, 7, 3), (0, 3, 2, 1), (4, 5, 6, 7)],
}


def check_side_regions(mesh, path):
    """Every face zone's Side region lists, face by face, the c0 cell's facet on that face's nodes."""
    h5py = pytest.importorskip("h5py", reason="h5py reads the raw datasets for the check")
    bases = np.cumsum([0] + [len(block.data) for block in mesh.cells])
    with h5py.File(path) as f:
        faces = {}
        for section in f["meshes/1/faces/nodes"].values():
            first = int(section.attrs["minId"][0])
            counts = section["nnodes"][()].astype(np.int64)
            nodes = section["nodes"][()].astype(np.int64) - 1
            offsets = np.concatenate([[0], np.cumsum(counts)])
            for i in range(len(counts)):
                faces[first + i] = sorted(nodes[offsets[i]:offsets[i + 1]])
        topology = f["meshes/1/faces/zoneTopology"]
        ranges = {int(z): (int(a), int(b)) for z, a, b in zip(topology["id"], topology["minId"], topology["maxId"])}
    sides = [r for r in mesh.regions if int(r.kind) == 2]
    assert sorted(r.tag for r in sides) == sorted(ranges)
    for region in sides:
        first, last = ranges[region.tag]
        assert len(region.entries) == last - first + 1
        for face_id, (cell, facet) in zip(range(first, last + 1), np.asarray(region.entries)):
            b = int(np.searchsorted(bases, cell, side="right")) - 1
            block = mesh.cells[b]
            corners = np.asarray(block.data[cell - bases[b]])[list(FACETS[block.type][facet])]
            assert sorted(corners) == faces[face_id], (region.name, face_id)


def cross_check(path, expected_types):
    mesh = mio.read(path)
    vtk_points, vtk_cells, vtk_data = vtk_reference(path)
    dim = mesh.points.shape[1]
    # VTK keeps points in float32; ours are the file's float64.
    np.testing.assert_array_equal(mesh.points.astype(np.float32), vtk_points[:, :dim])
    ours = our_cells(mesh)
    assert len(ours) == len(vtk_cells)
    position = {nodes: i for i, (_, nodes) in enumerate(vtk_cells)}
    assert len(position) == len(vtk_cells)  # node sets tell the cells apart
    order = np.array([position[nodes] for _, nodes, _, _, _ in ours])  # KeyError: a cell VTK lacks
    counts = {}
    for kind, _, _, _, _ in ours:
        counts[kind] = counts.get(kind, 0) + 1
    assert counts == expected_types
    sizes = np.array([size for _, _, size, _, _ in ours])
    assert sizes.min() > 0, "every cell comes out positively oriented"
    for name, reference in vtk_data.items():
        values = np.concatenate(mesh.cell_data[name])
        np.testing.assert_array_equal(values, reference[order], err_msg=name)
    return mesh, sizes, vtk_cells, order


def test_2d_case_with_data_equals_vtk():
    mesh, sizes, vtk_cells, order = cross_check(DATA / "FFF.cas.h5", {"quad": 1344})
    check_side_regions(mesh, DATA / "FFF.cas.h5")
    assert all(vtk_cells[i][0] == "quad" for i in order)
    assert len(mesh.cell_data) == 28  # ansys:zone and Fluent's 27 cell fields, every component
    assert mesh.cell_data["SV_Y"][0].shape == (1344, 4)
    assert sizes.sum() == pytest.approx(6.000000523e-05, rel=1e-6)  # VTK's vtkCellSizeFilter area (float32 points)
    assert np.unique(np.concatenate(mesh.cell_data["ansys:zone"])).tolist() == [1]
    names = [(r.name, int(r.kind), r.dim, r.tag, len(r.entries)) for r in mesh.regions]
    assert names == [("fluid-1", 1, 2, 1, 1344), ("interior-3", 2, 1, 3, 2603), ("symmetry-4", 2, 1, 4, 64),
                     ("pressure-outlet-5", 2, 1, 5, 21), ("wall-6", 2, 1, 6, 70), ("velocity-inlet-7", 2, 1, 7, 15)]


def test_reading_the_data_file_reads_its_case():
    by_case, by_data = mio.read(DATA / "FFF.cas.h5"), mio.read(DATA / "FFF.dat.h5")
    np.testing.assert_array_equal(by_case.points, by_data.points)
    assert list(by_case.cell_data) == list(by_data.cell_data)
    np.testing.assert_array_equal(by_case.cell_data["SV_P"][0], by_data.cell_data["SV_P"][0])


def test_2d_mixed_case_equals_vtk():
    mesh, sizes, _, _ = cross_check(DATA / "nozzle-2D-WB.cas.h5", {"quad": 4182, "triangle": 8})
    check_side_regions(mesh, DATA / "nozzle-2D-WB.cas.h5")
    assert sizes.sum() == pytest.approx(0.08541859476, rel=1e-6)  # VTK's vtkCellSizeFilter area (float32 points)
    assert list(mesh.cell_data) == ["ansys:zone"]  # no data file beside it
    assert [r.name for r in mesh.regions] == ["geom_fluid", "interior-geom_fluid", "inlet", "outlet", "walls"]


def test_fluent_meshing_mesh_file():
    """simple-duct.msh.h5: Fluent Meshing's layout (one section per face zone). VTK 9.7's reader
    refuses it (it opens nodes/coords/<node zone id>, here 8, where the file has section 1), so
    this is checked against the raw datasets."""
    h5py = pytest.importorskip("h5py", reason="h5py reads the raw datasets for the check")
    path = DATA / "simple-duct.msh.h5"
    mesh = mio.read(path)
    with h5py.File(path) as f:
        np.testing.assert_array_equal(mesh.points, f["meshes/1/nodes/coords/1"][()])
    assert [c.type for c in mesh.cells] == ["hexahedron"]
    sizes = np.array([signed_size(mesh.points, "hexahedron", c) for c in mesh.cells[0].data])
    assert sizes.min() > 0
    lo, hi = mesh.points.min(axis=0), mesh.points.max(axis=0)
    assert sizes.sum() == pytest.approx(np.prod(hi - lo), rel=1e-12)  # a box filled exactly
    check_side_regions(mesh, path)
    assert [(r.name, len(r.entries)) for r in mesh.regions] == [
        ("fluid", 10), ("default-interior", 9), ("symm", 40), ("inlet", 1), ("outflow", 1)]


@pytest.mark.skipif(not ELBOW.exists(), reason=f"{ELBOW} (3 MB, ansys/example-data) is not in bench/data")
def test_3d_polyhedral_case_with_data_equals_vtk():
    # VTK keeps Fluent's own types: 729 hexahedra, 17093 polyhedra. 43 of those polyhedra have
    # six quadrilateral faces on eight nodes, which we recognise as hexahedra.
    mesh, sizes, vtk_cells, order = cross_check(ELBOW, {"hexahedron": 772, "polyhedron": 17050})
    # VTK's vtkCellSizeFilter sums to 0.002549874405 here; its polyhedron volumes differ from the
    # divergence theorem's by up to 36 % per cell (its hexahedra by up to 7 %), so the reference
    # for the total is the volume the boundary faces enclose.
    assert sizes.sum() == pytest.approx(boundary_volume(ELBOW), rel=1e-9)
    assert mesh.cell_data["SV_BF_V"][0].shape[1] == 3
