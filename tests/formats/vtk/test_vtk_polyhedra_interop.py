"""Legacy VTK polyhedra (type 42) against VTK's own legacy reader and writer
(vtkUnstructuredGridReader/Writer): VTK writes 4.2 and 5.1, ASCII and binary, and we read the
same faces; we write every variant and VTK reads the same faces (GetFaceStream per cell); real
files written by VTK/ParaView (SimuCell3D's meshes, tests/data/vtk/) read cell by cell as VTK
reads them. meshio 5.3.5 refuses legacy polyhedra ("cells that meshio cannot handle")."""

import os

import numpy as np
import pytest

import meshioplusplus as mio
from interop import CUBE, POLYHEDRA_POINTS, PRISM, PYRAMID, face_stream, meshio_module, vtk_cells

vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
from vtk.util.numpy_support import numpy_to_vtk, vtk_to_numpy  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "data", "vtk")
VARIANTS = [("4.2", False), ("4.2", True), ("5.1", False), ("5.1", True)]


def _vtk_grid():
    """tetra, cube, pyramid, triangle, prism, cube — with a cell data 'id' = the cell number."""
    grid = vtk.vtkUnstructuredGrid()
    points = vtk.vtkPoints()
    points.SetData(numpy_to_vtk(POLYHEDRA_POINTS, deep=True))
    grid.SetPoints(points)
    cells = [(10, [1, 8, 2, 5]), (42, face_stream(CUBE)), (42, face_stream(PYRAMID)), (5, [8, 9, 5]), (42, face_stream(PRISM)),
             (42, face_stream(CUBE))]
    for kind, ids in cells:
        id_list = vtk.vtkIdList()
        for i in ids:
            id_list.InsertNextId(i)
        grid.InsertNextCell(kind, id_list)
    ids = numpy_to_vtk(np.arange(len(cells), dtype=np.int32), deep=True)
    ids.SetName("id")
    grid.GetCellData().AddArray(ids)
    return grid


def _vtk_read(path):
    reader = vtk.vtkUnstructuredGridReader()
    reader.SetFileName(os.fspath(path))
    reader.Update()
    return reader.GetOutput()


def _our_cells(mesh, order_by=None):
    """The same per cell, from our Python mesh (polyhedron<N> blocks hold per cell its faces);
    in the order of cell data `order_by` when given (blocks are grouped by type and size)."""
    vtk_ids = {"tetra": 10, "triangle": 5, "hexahedron": 12, "pyramid": 14, "wedge": 13, "quad": 9}
    cells = []
    for block in mesh.cells:
        for cell in block.data:
            if block.type.startswith("polyhedron"):
                cells.append(("polyhedron", [list(np.asarray(face)) for face in cell]))
            else:
                cells.append((vtk_ids[block.type], list(np.asarray(cell))))
    if order_by is None:
        return cells
    order = np.concatenate(mesh.cell_data[order_by])
    return [cell for _, cell in sorted(zip(order.tolist(), cells), key=lambda pair: pair[0])]


@pytest.mark.parametrize("version,binary", VARIANTS)
def test_vtk_written_polyhedra_read_with_the_same_faces(tmp_path, version, binary):
    path = tmp_path / "from_vtk.vtk"
    writer = vtk.vtkUnstructuredGridWriter()
    writer.SetInputData(_vtk_grid())
    writer.SetFileVersion(42 if version == "4.2" else 51)
    if binary:
        writer.SetFileTypeToBinary()
    writer.SetFileName(os.fspath(path))
    assert writer.Write() == 1
    mesh = mio.read(path)
    np.testing.assert_array_equal(mesh.points, POLYHEDRA_POINTS)
    expected = vtk_cells(_vtk_read(path))
    assert [kind for kind, _ in expected].count("polyhedron") == 4
    assert _our_cells(mesh, order_by="id") == expected


@pytest.mark.parametrize("version,binary", VARIANTS)
def test_our_polyhedra_read_in_vtk_with_the_same_faces(tmp_path, version, binary):
    path = tmp_path / "from_vtk.vtk"
    writer = vtk.vtkUnstructuredGridWriter()
    writer.SetInputData(_vtk_grid())
    writer.SetFileName(os.fspath(path))
    writer.Write()
    mesh = mio.read(path)
    ours = tmp_path / "ours.vtk"
    mio.vtk.write(ours, mesh, binary=binary, fmt_version=version)
    grid = _vtk_read(ours)
    np.testing.assert_array_equal(vtk_to_numpy(grid.GetPoints().GetData()), POLYHEDRA_POINTS)
    assert vtk_cells(grid) == _our_cells(mesh)
    np.testing.assert_array_equal(vtk_to_numpy(grid.GetCellData().GetArray("id")), np.concatenate(mesh.cell_data["id"]))
    # The faces are those VTK wrote in the first place.
    assert sorted(map(str, vtk_cells(grid))) == sorted(map(str, vtk_cells(_vtk_grid())))


@pytest.mark.parametrize("name,cells,faces", [("simucell3d_2_cubes.vtk", 2, 24),
                                              ("simucell3d_hexagonal_cell_layer.vtk", 25, 200)])
def test_real_files_read_cell_by_cell_as_vtk_reads_them(name, cells, faces):
    path = os.path.join(DATA, name)
    grid = _vtk_read(path)
    expected = vtk_cells(grid)
    assert len(expected) == cells and sum(len(f) for _, f in expected) == faces
    mesh = mio.read(path)
    np.testing.assert_array_equal(mesh.points, vtk_to_numpy(grid.GetPoints().GetData()))
    assert _our_cells(mesh) == expected
    cell_data = grid.GetCellData()
    for k in range(cell_data.GetNumberOfArrays()):
        array = cell_data.GetArray(k)
        np.testing.assert_array_equal(np.concatenate(mesh.cell_data[array.GetName()]).ravel(),
                                      vtk_to_numpy(array).ravel())


def test_meshio_refuses_legacy_polyhedra_that_we_read(tmp_path):
    meshio = meshio_module()
    path = tmp_path / "from_vtk.vtk"
    writer = vtk.vtkUnstructuredGridWriter()
    writer.SetInputData(_vtk_grid())
    writer.SetFileName(os.fspath(path))
    writer.Write()
    with pytest.raises(Exception):  # meshio 5.3.5: "cells that meshio cannot handle" or KeyError
        meshio.vtk.read(path)
    assert len(_our_cells(mio.read(path))) == 6
    real = os.path.join(DATA, "simucell3d_hexagonal_cell_layer.vtk")
    with pytest.raises(Exception):
        meshio.vtk.read(real)
    assert sum(len(block.data) for block in mio.read(real).cells) == 25
