"""Polyhedra that meshio++ writes to CGNS (NFACE_n over one NGON_n face section), read by VTK's
vtkCGNSReader (the reference: the same cells with the same faces up to order and rotation, the
same volumes and cell values), checked in the HDF5 back end's node layout with h5py, and by
CGNS's own cgnscheck where Debian's cgns-convert is installed."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

pytestmark = pytest.mark.skipif("cgns" not in {row["name"] for row in _core.formats()}, reason="built without the CGNS library")

POINTS = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1],
                   [0.5, 0.5, 2], [2, 0, 0], [2, 1, 0], [2, 0, 1], [2, 1, 1]], dtype=float)
CUBE = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]]
PYRAMID = [[4, 7, 6, 5], [4, 5, 8], [5, 6, 8], [6, 7, 8], [7, 4, 8]]
# A hexagonal prism: no standard shape, 8 faces.
_ANGLES = np.arange(6) * np.pi / 3
PRISM_POINTS = np.array([[3 + np.cos(a), np.sin(a), z] for z in (0, 1) for a in _ANGLES])
PRISM = [[5, 4, 3, 2, 1, 0], [6, 7, 8, 9, 10, 11]] + [[i, (i + 1) % 6, (i + 1) % 6 + 6, i + 6] for i in range(6)]


def _canonical_face(face):
    face = [int(n) for n in face]
    k = face.index(min(face))
    return tuple(face[k:] + face[:k])


def _canonical_cell(faces):
    """A cell as its set of oriented faces (order and rotation do not matter)."""
    return tuple(sorted(_canonical_face(face) for face in faces))


def _volume(faces, points):
    """Signed volume by the divergence theorem: positive for outward faces."""
    total = 0.0
    for face in faces:
        p = points[list(face)]
        for i in range(1, len(face) - 1):
            total += np.dot(p[0], np.cross(p[i], p[i + 1]))
    return total / 6


def _hexahedron_faces(nodes):
    """VTK's hexahedron faces, outward (as vtkHexahedron lists them)."""
    return [[nodes[i] for i in face] for face in
            ([0, 4, 7, 3], [1, 2, 6, 5], [0, 1, 5, 4], [3, 7, 6, 2], [0, 3, 2, 1], [4, 5, 6, 7])]


def _vtk_read(path):
    vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
    if not hasattr(vtk, "vtkCGNSReader"):
        pytest.skip("this vtk wheel has no vtkCGNSReader")
    from vtk.util.numpy_support import vtk_to_numpy

    reader = vtk.vtkCGNSReader()
    reader.SetFileName(os.fspath(path))
    reader.UpdateInformation()
    reader.EnableAllCellArrays()
    reader.Update()
    iterator = reader.GetOutput().NewIterator()
    iterator.InitTraversal()
    grid = iterator.GetCurrentDataObject()
    points = vtk_to_numpy(grid.GetPoints().GetData())
    cells = []
    for c in range(grid.GetNumberOfCells()):
        cell = grid.GetCell(c)
        faces = [[cell.GetFace(k).GetPointId(j) for j in range(cell.GetFace(k).GetNumberOfPoints())]
                 for k in range(cell.GetNumberOfFaces())]
        cells.append((grid.GetCellType(c), faces))
    data = {grid.GetCellData().GetArrayName(i): vtk_to_numpy(grid.GetCellData().GetArray(i))
            for i in range(grid.GetCellData().GetNumberOfArrays())}
    return points, cells, data, vtk


def _our_cells(mesh):
    """(cell as faces, block index) for every cell of every block, block-major."""
    out = []
    for b, block in enumerate(mesh.cells):
        for cell in block.data:
            if block.type.startswith("polyhedron"):
                out.append(([list(np.asarray(face)) for face in cell], b))
            elif block.type == "hexahedron":
                out.append((_hexahedron_faces(list(cell)), b))
    return out


def test_vtk_reads_our_polyhedra_beside_hexahedra(tmp_path):
    path = tmp_path / "mixed.cgns"
    mesh = mio.Mesh(POINTS, [("polyhedron8", [CUBE]), ("polyhedron5", [PYRAMID]),
                             ("hexahedron", np.array([[1, 9, 10, 2, 5, 11, 12, 6]]))],
                    cell_data={"p": [np.array([1.5]), np.array([2.5]), np.array([3.5])]})
    mio.write(path, mesh)
    ours = mio.read(path)
    points, vtk_cells, vtk_data, vtk = _vtk_read(path)
    np.testing.assert_allclose(points, POINTS)
    assert sorted(t for t, _ in vtk_cells) == sorted([vtk.VTK_POLYHEDRON, vtk.VTK_POLYHEDRON, vtk.VTK_HEXAHEDRON])
    # The same cells (faces up to order and rotation), each with its value, in both readers.
    vtk_by_cell = {_canonical_cell(faces): value for (_, faces), value in zip(vtk_cells, vtk_data["p"])}
    our_values = np.concatenate(ours.cell_data["p"])
    our_cells = _our_cells(ours)
    assert len(our_cells) == 3
    for (faces, _), value in zip(our_cells, our_values):
        assert vtk_by_cell[_canonical_cell(faces)] == value
    # Written cells are the cells read (the shared cube-top face reversed in the pyramid).
    assert {_canonical_cell(faces) for faces, _ in our_cells} == {
        _canonical_cell(CUBE), _canonical_cell(PYRAMID), _canonical_cell(_hexahedron_faces([1, 9, 10, 2, 5, 11, 12, 6]))}
    volumes = sorted(_volume(faces, points) for t, faces in vtk_cells if t == vtk.VTK_POLYHEDRON)
    np.testing.assert_allclose(volumes, [1 / 3, 1.0], rtol=1e-12)


def test_vtk_reads_a_lone_general_polyhedron(tmp_path):
    path = tmp_path / "prism.cgns"
    mio.write(path, mio.Mesh(PRISM_POINTS, [("polyhedron12", [PRISM])]))
    points, vtk_cells, _, vtk = _vtk_read(path)
    assert [t for t, _ in vtk_cells] == [vtk.VTK_POLYHEDRON]
    assert _canonical_cell(vtk_cells[0][1]) == _canonical_cell(PRISM)
    area = 6 * np.sqrt(3) / 4
    np.testing.assert_allclose(_volume(vtk_cells[0][1], points), area, rtol=1e-12)
    ours = mio.read(path)
    assert [block.type for block in ours.cells] == ["polyhedron12"]
    assert _canonical_cell(ours.cells[0].data[0]) == _canonical_cell(PRISM)


def test_hdf5_nodes_are_the_sections_sids_names(tmp_path):
    h5py = pytest.importorskip("h5py", reason="h5py is in requirements-test.txt")
    path = tmp_path / "layout.cgns"
    mio.write(path, mio.Mesh(POINTS, [("polyhedron8", [CUBE]), ("polyhedron5", [PYRAMID])]))
    with h5py.File(path, "r") as f:
        zone = f["Base/Zone1"]
        assert list(zone[" data"][:, 0]) == [13, 2, 0]  # vertices, cells, boundary vertices
        cells, faces = zone["GridElements"], zone["GridElements_2"]
        assert list(cells[" data"]) == [23, 0] and list(faces[" data"]) == [23, 0]  # NFACE_n
        ngon = zone["PolyhedronFaces"]
        assert list(ngon[" data"]) == [22, 0]  # NGON_n
        assert list(ngon["ElementRange/ data"]) == [3, 12]  # 10 faces after the 2 cells
        assert list(ngon["ElementStartOffset/ data"])[-1] == len(ngon["ElementConnectivity/ data"])
        # The cube owns all its faces (positive); the pyramid lists the shared one negative.
        cube = list(cells["ElementConnectivity/ data"])
        assert sorted(cube) == list(range(3, 9))
        pyramid = list(faces["ElementConnectivity/ data"])
        assert [x for x in pyramid if x < 0] == [-3] and sorted(x for x in pyramid if x > 0) == [9, 10, 11, 12]


def test_cgnscheck_accepts_our_polyhedra(tmp_path):
    cgnscheck = os.environ.get("MESHIOPLUSPLUS_CGNSCHECK") or shutil.which("cgnscheck")
    if not cgnscheck:
        pytest.skip("cgnscheck (Debian's cgns-convert) is not installed")
    path = tmp_path / "checked.cgns"
    mio.write(path, mio.Mesh(POINTS, [("polyhedron8", [CUBE]), ("polyhedron5", [PYRAMID]),
                                      ("hexahedron", np.array([[1, 9, 10, 2, 5, 11, 12, 6]]))]))
    result = subprocess.run([cgnscheck, "-w1", os.fspath(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ERROR" not in result.stdout.upper(), result.stdout
