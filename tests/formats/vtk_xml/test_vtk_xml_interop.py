"""VTK's XML family against VTK's own Python readers and writers (the `vtk` wheel): files we
write read in VTK into equal arrays, files VTK writes read here into equal arrays — PolyData,
StructuredGrid, RectilinearGrid, ImageData, partitioned and multiblock files, every
compressor."""

import numpy as np
import pytest

import meshioplusplus as mio

vtk = pytest.importorskip("vtk", reason="VTK's Python wheel (pip install vtk) is the reference")
from vtk.util import numpy_support  # noqa: E402

COMPRESSIONS = [None, "zlib", "lzma", "lz4"]


def np_of(array):
    return numpy_support.vtk_to_numpy(array)


def generic_read(path):
    reader = vtk.vtkXMLGenericDataObjectReader()
    reader.SetFileName(str(path))
    reader.Update()
    return reader.GetOutput()


def surface_mesh():
    rng = np.random.default_rng(3)
    points = rng.random((9, 3))
    cells = [("vertex", np.array([[0], [8]])), ("line", np.array([[0, 1], [1, 2]])),
             ("triangle", np.array([[0, 1, 2], [2, 3, 4]])), ("quad", np.array([[4, 5, 6, 7]]))]
    return mio.Mesh(points, cells, point_data={"t": rng.random(9)},
                    cell_data={"id": [np.arange(len(b), dtype=np.int32) + 10 * i for i, (_, b) in enumerate(cells)]})


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("appended", [False, True])
def test_our_polydata_reads_equal_in_vtk(tmp_path, compression, appended):
    mesh = surface_mesh()
    path = tmp_path / "s.vtp"
    mio.write(path, mesh, binary=True, compression=compression, appended=appended)
    poly = generic_read(path)
    assert poly.IsA("vtkPolyData")
    np.testing.assert_array_equal(np_of(poly.GetPoints().GetData()), mesh.points)
    np.testing.assert_array_equal(np_of(poly.GetVerts().GetConnectivityArray()), [0, 8])
    np.testing.assert_array_equal(np_of(poly.GetLines().GetConnectivityArray()), [0, 1, 1, 2])
    np.testing.assert_array_equal(np_of(poly.GetPolys().GetConnectivityArray()), [0, 1, 2, 2, 3, 4, 4, 5, 6, 7])
    np.testing.assert_array_equal(np_of(poly.GetPointData().GetArray("t")), mesh.point_data["t"])
    np.testing.assert_array_equal(np_of(poly.GetCellData().GetArray("id")), np.concatenate(mesh.cell_data["id"]))


@pytest.mark.parametrize("compression", ["zlib", "lzma", "lz4"])
def test_vtk_polydata_with_strips_reads_equal(tmp_path, compression):
    sphere = vtk.vtkSphereSource()
    sphere.SetThetaResolution(12)
    sphere.SetPhiResolution(9)
    stripper = vtk.vtkStripper()
    stripper.SetInputConnection(sphere.GetOutputPort())
    stripper.Update()
    poly = stripper.GetOutput()
    assert poly.GetNumberOfStrips() > 0
    path = tmp_path / "strips.vtp"
    writer = vtk.vtkXMLPolyDataWriter()
    writer.SetFileName(str(path))
    writer.SetInputData(poly)
    getattr(writer, {"zlib": "SetCompressorTypeToZLib", "lzma": "SetCompressorTypeToLZMA",
                     "lz4": "SetCompressorTypeToLZ4"}[compression])()
    writer.Write()
    mesh = mio.read(path)
    np.testing.assert_array_equal(mesh.points, np_of(poly.GetPoints().GetData()))
    # VTK's own triangulation of the strips, triangle by triangle.
    triangles = vtk.vtkTriangleFilter()
    triangles.SetInputData(poly)
    triangles.Update()
    expected = np_of(triangles.GetOutput().GetPolys().GetConnectivityArray()).reshape(-1, 3)
    ours = np.concatenate([b.data for b in mesh.cells if b.type == "triangle"])
    assert sorted(map(tuple, np.sort(ours, axis=1))) == sorted(map(tuple, np.sort(expected, axis=1)))


def image():
    source = vtk.vtkRTAnalyticSource()
    source.SetWholeExtent(-3, 4, 0, 5, 1, 3)
    source.Update()
    return source.GetOutput()


def test_vtk_structured_kinds_read_equal(tmp_path):
    data = image()
    for writer_class, suffix, dataset in [
        (vtk.vtkXMLImageDataWriter, "vti", data),
        (vtk.vtkXMLStructuredGridWriter, "vts", None),
        (vtk.vtkXMLRectilinearGridWriter, "vtr", None),
    ]:
        if suffix == "vts":
            convert = vtk.vtkImageDataToPointSet()
            convert.SetInputData(data)
            convert.Update()
            dataset = convert.GetOutput()
        elif suffix == "vtr":
            dims = data.GetDimensions()
            dataset = vtk.vtkRectilinearGrid()
            dataset.SetExtent(data.GetExtent())
            for axis, setter in enumerate([dataset.SetXCoordinates, dataset.SetYCoordinates, dataset.SetZCoordinates]):
                start = data.GetExtent()[2 * axis]
                values = data.GetOrigin()[axis] + data.GetSpacing()[axis] * np.arange(start, start + dims[axis])
                setter(numpy_support.numpy_to_vtk(values.astype(np.float64), deep=True))
            dataset.GetPointData().AddArray(data.GetPointData().GetArray("RTData"))
        path = tmp_path / f"g.{suffix}"
        writer = writer_class()
        writer.SetFileName(str(path))
        writer.SetInputData(dataset)
        writer.SetCompressorTypeToLZMA()
        writer.Write()
        mesh = mio.read(path)
        vtk_points = np.array([dataset.GetPoint(i) for i in range(dataset.GetNumberOfPoints())])
        np.testing.assert_allclose(mesh.points, vtk_points, rtol=0, atol=0)
        assert sum(len(b.data) for b in mesh.cells) == dataset.GetNumberOfCells()
        np.testing.assert_array_equal(mesh.point_data["RTData"], np_of(dataset.GetPointData().GetArray("RTData")))
        np.testing.assert_array_equal(mesh.field_data["vtk:WholeExtent"], dataset.GetExtent())
        # Cell 0's corners: the voxel's corners, in hexahedron order.
        ids = vtk.vtkIdList()
        dataset.GetCellPoints(0, ids)
        voxel = [ids.GetId(k) for k in range(ids.GetNumberOfIds())]
        assert sorted(mesh.cells[0].data[0]) == sorted(voxel)


@pytest.mark.parametrize("suffix", ["vti", "vts", "vtr"])
def test_our_structured_files_read_equal_in_vtk(tmp_path, suffix):
    data = image()
    path = tmp_path / "src.vti"
    writer = vtk.vtkXMLImageDataWriter()
    writer.SetFileName(str(path))
    writer.SetInputData(data)
    writer.Write()
    mesh = mio.read(path)
    out = tmp_path / f"ours.{suffix}"
    mio.write(out, mesh, compression="lz4")
    grid = generic_read(out)
    assert grid.GetExtent() == data.GetExtent()
    points = np.array([grid.GetPoint(i) for i in range(grid.GetNumberOfPoints())])
    np.testing.assert_array_equal(points, mesh.points)
    np.testing.assert_array_equal(np_of(grid.GetPointData().GetArray("RTData")), mesh.point_data["RTData"])


def test_our_pvtu_reads_equal_in_vtk(tmp_path):
    mesh = surface_mesh()
    path = tmp_path / "p.pvtu"
    mio.write(path, mesh, pieces=2)
    reader = vtk.vtkXMLPUnstructuredGridReader()
    reader.SetFileName(str(path))
    reader.Update()
    grid = reader.GetOutput()
    assert grid.GetNumberOfCells() == sum(len(b.data) for b in mesh.cells)
    np.testing.assert_array_equal(np_of(grid.GetCellData().GetArray("id")), np.concatenate(mesh.cell_data["id"]))
    ours = mio.read(path)
    assert sum(len(b.data) for b in ours.cells) == grid.GetNumberOfCells()
    assert len(ours.points) == grid.GetNumberOfPoints()


def test_our_vtm_reads_in_vtk(tmp_path):
    mesh = surface_mesh()
    path = tmp_path / "m.vtm"
    mio.write(path, mesh)
    reader = vtk.vtkXMLMultiBlockDataReader()
    reader.SetFileName(str(path))
    reader.Update()
    blocks = reader.GetOutput()
    assert blocks.GetNumberOfBlocks() == 1
    assert blocks.GetBlock(0).GetNumberOfCells() == sum(len(b.data) for b in mesh.cells)


def test_corpus_files(corpus):
    for name, points, cells in [("vtk_xml/StructuredGrid.vts", 648, 440), ("vtk_xml/vase.vti", 871125, 843600),
                                ("vtk_xml/Bunny.vtp", 872, 1502)]:
        mesh = mio.read(corpus / name)
        assert len(mesh.points) == points
        assert sum(len(b.data) for b in mesh.cells) == cells
        reference = generic_read(corpus / name)
        assert reference.GetNumberOfPoints() == points
