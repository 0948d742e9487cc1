"""XDMF polyhedra against VTK's XDMF reader (vtkXdmfReader, XDMF 2 library, in the vtk wheel):
it reads a Mixed topology's id 16 entries (face count, then each face as count + point ids) and
refuses TopologyType="Polyhedron" ("Bad Topology Type"), so our writer puts polyhedra into a
Mixed topology; we read both. VTK's vtkXdmfWriter cannot write polyhedra (it writes their cells
as type 0 with the point list, losing the faces), so VTK's side of "they write, we read" is a
hand-written Mixed file VTK reads. meshio 5.3.5 has no XDMF polyhedra (its id table lacks 16)."""

import os

import numpy as np
import pytest

import meshioplusplus as mio
from interop import CUBE, POLYHEDRA_POINTS, PRISM, PYRAMID, face_stream, vtk_cells
from meshioplusplus import _core

vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
if not hasattr(vtk, "vtkXdmfReader"):
    pytest.skip("this vtk wheel has no vtkXdmfReader", allow_module_level=True)


def _vtk_cells(path):
    reader = vtk.vtkXdmfReader()
    reader.SetFileName(os.fspath(path))
    reader.Update()
    grid = reader.GetOutputDataObject(0)
    if grid.IsA("vtkMultiBlockDataSet"):
        grid = grid.GetBlock(0)
    cells = vtk_cells(grid)
    points = np.array([grid.GetPoint(i) for i in range(grid.GetNumberOfPoints())])
    return points, cells, grid.GetCellData()


def _our_cells(mesh):
    vtk_ids = {"tetra": 10, "triangle": 5, "hexahedron": 12}
    cells = []
    for block in mesh.cells:
        for cell in block.data:
            if block.type.startswith("polyhedron"):
                cells.append(("polyhedron", [list(np.asarray(face)) for face in cell]))
            else:
                cells.append((vtk_ids[block.type], list(np.asarray(cell))))
    return cells


def _mesh():
    return mio.Mesh(POLYHEDRA_POINTS, [("tetra", [[1, 8, 2, 5]]), ("polyhedron8", [CUBE, CUBE]), ("polyhedron5", [PYRAMID]),
                             ("triangle", [[8, 9, 5]]), ("polyhedron6", [PRISM])],
                    cell_data={"id": [np.array([0]), np.array([1, 2]), np.array([3]), np.array([4]), np.array([5])]})


@pytest.mark.parametrize("data_format", ["XML", "Binary", "HDF"])
def test_our_polyhedra_read_in_vtk_with_the_same_faces(tmp_path, data_format):
    if data_format == "HDF" and not _core.hdf5_available():
        pytest.skip("built without HDF5 (install libhdf5-dev and rebuild)")
    mesh = _mesh()
    path = tmp_path / "ours.xdmf"
    mio.write(path, mesh, data_format=data_format)
    points, cells, cell_data = _vtk_cells(path)
    np.testing.assert_array_equal(points, POLYHEDRA_POINTS)
    assert cells == _our_cells(mesh)
    assert [kind for kind, _ in cells].count("polyhedron") == 4
    from vtk.util.numpy_support import vtk_to_numpy

    np.testing.assert_array_equal(vtk_to_numpy(cell_data.GetArray("id")), np.arange(6))
    back = mio.read(path)
    assert _our_cells(back) == _our_cells(mesh)
    np.testing.assert_array_equal(np.concatenate(back.cell_data["id"]), np.arange(6))


def _document(topology):
    coordinates = " ".join(str(v) for v in POLYHEDRA_POINTS.ravel())
    return (f'<?xml version="1.0"?><Xdmf Version="3.0"><Domain><Grid Name="g" GridType="Uniform">{topology}'
            f'<Geometry GeometryType="XYZ"><DataItem Dimensions="{len(POLYHEDRA_POINTS)} 3" NumberType="Float" Precision="8" '
            f'Format="XML">{coordinates}</DataItem></Geometry></Grid></Domain></Xdmf>')


def test_a_mixed_file_vtk_reads_reads_the_same_here(tmp_path):
    values = [6, 1, 8, 2, 5] + [16] + face_stream(CUBE) + [16] + face_stream(PYRAMID) + [4, 8, 9, 5] + [16] + face_stream(PRISM)
    path = tmp_path / "mixed.xmf"
    path.write_text(_document(f'<Topology TopologyType="Mixed" NumberOfElements="5"><DataItem Dimensions="{len(values)}" '
                              f'NumberType="Int" Precision="8" Format="XML">{" ".join(map(str, values))}</DataItem></Topology>'))
    points, cells, _ = _vtk_cells(path)
    assert [kind for kind, _ in cells] == [10, "polyhedron", "polyhedron", 5, "polyhedron"]
    mesh = mio.read(path)
    np.testing.assert_array_equal(mesh.points, points)
    assert _our_cells(mesh) == cells


def test_polyhedron_topology_reads_here(tmp_path):
    # XDMF 3's uniform Polyhedron topology; VTK's XDMF 2 reader refuses it ("Bad Topology Type").
    values = face_stream(CUBE) + face_stream(PYRAMID) + face_stream(PRISM)
    path = tmp_path / "uniform.xmf"
    path.write_text(_document(f'<Topology TopologyType="Polyhedron" NumberOfElements="3"><DataItem Dimensions="{len(values)}" '
                              f'NumberType="Int" Precision="8" Format="XML">{" ".join(map(str, values))}</DataItem></Topology>'))
    mesh = mio.read(path)
    assert _our_cells(mesh) == [("polyhedron", CUBE), ("polyhedron", PYRAMID), ("polyhedron", PRISM)]


def test_meshio_has_no_xdmf_polyhedra(tmp_path):
    meshio = pytest.importorskip("meshio")
    path = tmp_path / "ours.xdmf"
    mio.write(path, _mesh(), data_format="XML")
    with pytest.raises(KeyError):  # meshio 5.3.5's Mixed id table stops before 16
        meshio.xdmf.read(path)
    assert len(_our_cells(mio.read(path))) == 6
