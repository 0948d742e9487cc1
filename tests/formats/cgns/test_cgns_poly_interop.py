"""CGNS NGON_n / NFACE_n sections (polygons, polyhedra) against VTK's vtkCGNSReader. The files are
written with h5py in the CGNS/HDF5 layout the CGNS library itself writes (node groups with
name/label/type/flags attributes, values in " data", ElementStartOffset for the poly sections), so
the test needs no CGNS Python binding; meshio++ reads them through libcgns."""

import os
import sys

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

h5py = pytest.importorskip("h5py")
pytestmark = pytest.mark.skipif("cgns" not in {row["name"] for row in _core.formats()}, reason="built without the CGNS library")


def _text(value):
    """A NUL-terminated fixed string, as the CGNS library writes its attributes."""
    return np.array(value.encode(), dtype=f"S{len(value) + 1}")


def _node(parent, name, label, kind, data=None):
    group = parent.create_group(name)
    group.attrs["name"] = _text(name)
    group.attrs["label"] = _text(label)
    group.attrs["type"] = _text(kind)
    group.attrs["flags"] = np.array([1], dtype=np.int32)
    if data is not None:
        if isinstance(data, str):
            data = np.frombuffer(data.encode(), dtype=np.int8)
        group.create_dataset(" data", data=data)
    return group


def _write_cgns(path, coordinates, sections, cell_solution=None):
    """One base, one unstructured zone; sections: (name, type code, start, connectivity, offsets)."""
    cell_dim = 3 if any(code == 23 for _, code, *_ in sections) else len(coordinates)
    with h5py.File(path, "w") as f:
        f.attrs["label"] = _text("Root Node of HDF5 File")
        f.attrs["name"] = _text("HDF5 MotherNode")
        f.attrs["type"] = _text("MT")
        f.create_dataset(" format", data=np.frombuffer(b"IEEE_LITTLE_32\0", dtype=np.int8))
        f.create_dataset(" hdf5version", data=np.frombuffer(b"HDF5 Version 1.10.8".ljust(33, b"\0"), dtype=np.int8))
        _node(f, "CGNSLibraryVersion", "CGNSLibraryVersion_t", "R4", np.array([3.4], dtype=np.float32))
        base = _node(f, "Base", "CGNSBase_t", "I4", np.array([cell_dim, len(coordinates)], dtype=np.int32))
        n_points = len(coordinates[0])
        n_cells = sum(len(offsets) - 1 for _, code, _, _, offsets in sections if code == 23 or cell_dim == 2)
        zone = _node(base, "Zone", "Zone_t", "I4", np.array([[n_points], [n_cells], [0]], dtype=np.int32))
        _node(zone, "ZoneType", "ZoneType_t", "C1", "Unstructured")
        grid = _node(zone, "GridCoordinates", "GridCoordinates_t", "MT")
        for axis, values in zip("XYZ", coordinates):
            _node(grid, "Coordinate" + axis, "DataArray_t", "R8", np.asarray(values, dtype=np.float64))
        for name, code, start, connectivity, offsets in sections:
            section = _node(zone, name, "Elements_t", "I4", np.array([code, 0], dtype=np.int32))
            _node(section, "ElementRange", "IndexRange_t", "I4", np.array([start, start + len(offsets) - 2], dtype=np.int32))
            _node(section, "ElementConnectivity", "DataArray_t", "I4", np.asarray(connectivity, dtype=np.int32))
            _node(section, "ElementStartOffset", "DataArray_t", "I4", np.asarray(offsets, dtype=np.int32))
        if cell_solution is not None:
            solution = _node(zone, "S", "FlowSolution_t", "MT")
            _node(solution, "GridLocation", "GridLocation_t", "C1", "CellCenter")
            for field, values in cell_solution.items():
                _node(solution, field, "DataArray_t", "R8", np.asarray(values, dtype=np.float64))


def _vtk_cells(path):
    vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
    if not hasattr(vtk, "vtkCGNSReader"):
        pytest.skip("this vtk wheel has no vtkCGNSReader")
    reader = vtk.vtkCGNSReader()
    reader.SetFileName(os.fspath(path))
    reader.UpdateInformation()
    reader.EnableAllCellArrays()
    reader.Update()
    blocks = reader.GetOutput()
    iterator = blocks.NewIterator()
    iterator.InitTraversal()
    data = iterator.GetCurrentDataObject()
    cells = []
    for c in range(data.GetNumberOfCells()):
        cell = data.GetCell(c)
        if data.GetCellType(c) == vtk.VTK_POLYHEDRON:
            cells.append([[cell.GetFace(k).GetPointId(j) for j in range(cell.GetFace(k).GetNumberOfPoints())]
                          for k in range(cell.GetNumberOfFaces())])
        else:
            cells.append([cell.GetPointId(j) for j in range(cell.GetNumberOfPoints())])
    points = np.array([data.GetPoint(i) for i in range(data.GetNumberOfPoints())])
    return points, cells, data.GetCellData()


def test_nface_polyhedra_match_vtk(tmp_path):
    path = tmp_path / "nface.cgns"
    x = [0, 1, 1, 0, 0, 1, 1, 0, 0.5]
    y = [0, 0, 1, 1, 0, 0, 1, 1, 0.5]
    z = [0, 0, 0, 0, 1, 1, 1, 1, 2]
    faces = [1, 4, 3, 2, 1, 2, 6, 5, 2, 3, 7, 6, 3, 4, 8, 7, 4, 1, 5, 8, 5, 6, 7, 8, 5, 6, 9, 6, 7, 9, 7, 8, 9, 8, 5, 9]
    face_offsets = [0, 4, 8, 12, 16, 20, 24, 27, 30, 33, 36]
    _write_cgns(path, [x, y, z],
                [("Faces", 22, 1, faces, face_offsets), ("Cells", 23, 11, [1, 2, 3, 4, 5, 6, -6, 7, 8, 9, 10], [0, 6, 11])],
                cell_solution={"p": [10.0, 20.0]})
    mesh = mio.read(path)
    points, vtk_cells, cell_data = _vtk_cells(path)
    np.testing.assert_allclose(mesh.points, points)
    # meshio's polyhedron<N> blocks (N nodes per cell): per cell a list of faces (point arrays).
    assert [block.type for block in mesh.cells] == ["polyhedron8", "polyhedron5"]
    ours = [[list(np.asarray(face)) for face in cell] for block in mesh.cells for cell in block.data]
    assert ours == vtk_cells
    from vtk.util.numpy_support import vtk_to_numpy

    np.testing.assert_array_equal(np.concatenate(mesh.cell_data["p"]), vtk_to_numpy(cell_data.GetArray("p")))


def test_ngon_polygons_match_vtk(tmp_path):
    path = tmp_path / "ngon.cgns"
    x = [0, 1, 2, 1.5, 0.5, 3]
    y = [0, 0, 1, 2, 1, 0]
    _write_cgns(path, [x, y], [("Polygons", 22, 1, [1, 2, 3, 4, 5, 2, 6, 3], [0, 5, 8])])
    mesh = mio.read(path)
    points, vtk_cells, _ = _vtk_cells(path)
    np.testing.assert_allclose(mesh.points, points[:, :2])
    # meshio's polygon blocks: one per corner count (a triangle is a "triangle" cell of VTK's).
    ours = [list(np.asarray(cell)) for block in mesh.cells for cell in block.data]
    assert ours == vtk_cells


def test_unterminated_node_attributes_are_a_read_error_not_a_crash(tmp_path, monkeypatch):
    # h5py's np.bytes_ attributes carry no NUL: libcgns 3.4 reads past them (a crash inside
    # cg_open); meshio++ checks the nodes through HDF5 first.
    if not _core.hdf5_available():
        pytest.skip("built without HDF5")
    monkeypatch.setattr(sys.modules[__name__], "_text", np.bytes_)
    path = tmp_path / "unterminated.cgns"
    _write_cgns(path, [[0, 1, 0], [0, 0, 1]], [("Polygons", 22, 1, [1, 2, 3], [0, 3])])
    with pytest.raises(mio.ReadError, match="not NUL-terminated") as info:
        mio.read(path)
    assert "unterminated.cgns" in str(info.value) and "/Base" in str(info.value)
