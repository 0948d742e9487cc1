"""VTKHDF Steps and partitions against VTK itself: temporal files vtkHDFWriter writes read by
meshioplusplus.vtkhdf.TimeSeriesReader step by step into the arrays vtkHDFReader gives; the
files our TimeSeriesWriter writes read by vtkHDFReader step by step; a forged Steps offset; a
partitioned file (one file per partition + virtual datasets) read by vtkHDFReader."""

import os

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

pytestmark = pytest.mark.skipif(not _core.hdf5_available(), reason="built without HDF5")
vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402


def _vtk_step(path, k):
    reader = vtk.vtkHDFReader()
    reader.SetFileName(os.fspath(path))
    reader.UpdateInformation()
    reader.SetStep(k)
    reader.Update()
    output = reader.GetOutputDataObject(0)
    if output.IsA("vtkPartitionedDataSet"):
        append = vtk.vtkAppendFilter()
        for p in range(output.GetNumberOfPartitions()):
            append.AddInputData(output.GetPartition(p))
        append.Update()
        output = append.GetOutput()
    return reader, output


def _arrays(data):
    return {data.GetArrayName(i): vtk_to_numpy(data.GetArray(i)) for i in range(data.GetNumberOfArrays())}


def _vtk_temporal(path, growing, polydata=False):
    source = vtk.vtkTimeSourceExample()
    source.SetXAmplitude(1.0)
    source.SetGrowing(1 if growing else 0)
    writer = vtk.vtkHDFWriter()
    if polydata:  # the hexahedra's outer faces: quads in Polygons
        surface = vtk.vtkGeometryFilter()
        surface.SetInputConnection(source.GetOutputPort())
        source = surface
    writer.SetInputConnection(source.GetOutputPort())
    writer.SetFileName(os.fspath(path))
    writer.SetWriteAllTimeSteps(True)
    assert writer.Write() == 1


@pytest.mark.parametrize("growing,polydata", [(False, False), (True, False), (True, True)],
                         ids=["static", "growing", "growing-polydata"])
def test_we_read_vtk_temporal_files_step_by_step(tmp_path, growing, polydata):
    path = tmp_path / "vtk.vtkhdf"
    _vtk_temporal(path, growing, polydata)
    with mio.vtkhdf.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        vtk_reader, _ = _vtk_step(path, 0)
        assert reader.num_steps == vtk_reader.GetNumberOfSteps() == 10
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)
            _, grid = _vtk_step(path, k)
            assert t == pytest.approx(vtk_reader.GetOutputInformation(0).Get(vtk.vtkStreamingDemandDrivenPipeline.TIME_STEPS())[k])
            np.testing.assert_array_equal(reader.mesh.points, vtk_to_numpy(grid.GetPoints().GetData()))
            assert sum(len(b) for b in reader.cells) == grid.GetNumberOfCells()
            for name, values in _arrays(grid.GetPointData()).items():
                np.testing.assert_array_equal(point_data[name], values)
            for name, values in _arrays(grid.GetCellData()).items():
                np.testing.assert_array_equal(np.concatenate(cell_data[name]), values)
            # VTK voxels become hexahedra (node order converted, as for .vtu): compare node sets
            cells = grid.GetPolys() if polydata else grid.GetCells()
            width = 4 if polydata else 8
            connectivity = vtk_to_numpy(cells.GetConnectivityArray()).reshape(-1, width)
            ours = np.concatenate([b.data for b in reader.cells])
            np.testing.assert_array_equal(np.sort(ours, axis=1), np.sort(connectivity, axis=1))
    # a plain read is the first step
    first = mio.read(path)
    _, grid = _vtk_step(path, 0)
    np.testing.assert_array_equal(first.points, vtk_to_numpy(grid.GetPoints().GetData()))


def _tetra_mesh(shift=0.0):
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.float64) + shift
    return points, [("tetra", np.array([[0, 1, 2, 3], [1, 2, 3, 4]]))]


@pytest.mark.parametrize("changing", [False, True], ids=["static", "changing"])
def test_vtk_reads_our_steps(tmp_path, changing):
    path = tmp_path / "ours.vtkhdf"
    times = [0.0, 0.25, 1.0]
    expected = []
    with mio.vtkhdf.TimeSeriesWriter(path) as writer:
        for k, t in enumerate(times):
            if k == 0 or changing:
                points, cells = _tetra_mesh(shift=float(k) if changing else 0.0)
                writer.write_points_cells(points, cells)
            phi = np.arange(5, dtype=np.float64) * (k + 1)
            a = np.array([k, 10 * k], dtype=np.int32)
            writer.write_data(t, point_data={"phi": phi}, cell_data={"a": [a]})
            expected.append((points.copy(), phi, a))
    reader = vtk.vtkHDFReader()
    reader.SetFileName(os.fspath(path))
    reader.UpdateInformation()
    assert reader.GetNumberOfSteps() == len(times)
    for k, t in enumerate(times):
        _, grid = _vtk_step(path, k)
        points, phi, a = expected[k]
        np.testing.assert_array_equal(vtk_to_numpy(grid.GetPoints().GetData()), points)
        np.testing.assert_array_equal(vtk_to_numpy(grid.GetPointData().GetArray("phi")), phi)
        np.testing.assert_array_equal(vtk_to_numpy(grid.GetCellData().GetArray("a")), a)
        assert grid.GetNumberOfCells() == 2
    # and by time value
    reader.UpdateTimeStep(times[2])
    grid = reader.GetOutputDataObject(0)
    np.testing.assert_array_equal(vtk_to_numpy(grid.GetPointData().GetArray("phi")), expected[2][1])
    # and we read it back
    with mio.vtkhdf.TimeSeriesReader(path) as ours:
        ours.read_points_cells()
        assert ours.times == times
        for k in range(len(times)):
            _, point_data, cell_data = ours.read_data(k)
            np.testing.assert_array_equal(ours.mesh.points, expected[k][0])
            np.testing.assert_array_equal(point_data["phi"], expected[k][1])
            np.testing.assert_array_equal(cell_data["a"][0], expected[k][2])


def test_a_steps_offset_past_the_end_is_a_read_error_naming_file_and_dataset(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "forged.vtkhdf"
    with mio.vtkhdf.TimeSeriesWriter(path) as writer:
        writer.write_points_cells(*_tetra_mesh())
        for t in (0.0, 1.0):
            writer.write_data(t, point_data={"phi": np.zeros(5)})
    with h5py.File(path, "r+") as f:
        f["VTKHDF/Steps/PointDataOffsets/phi"][1] = 1000
    with mio.vtkhdf.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        reader.read_data(0)
        with pytest.raises(mio.ReadError) as error:
            reader.read_data(1)
    assert str(path) in str(error.value)
    assert "/VTKHDF/PointData/phi" in str(error.value)


def test_vtk_reads_our_partitioned_file(tmp_path):
    from meshioplusplus import _parallel

    mesh = mio.read(os.path.join(os.path.dirname(__file__), "..", "..", "..", "samples", "bracket.msh"))
    pieces = mio.partition(mesh, 3, method="geometric")
    path = tmp_path / "parts.vtkhdf"
    _parallel.write_pieces(path, pieces)
    assert sorted(os.listdir(tmp_path)) == ["parts.vtkhdf", "parts_part0.vtkhdf", "parts_part1.vtkhdf",
                                            "parts_part2.vtkhdf"]
    reader = vtk.vtkHDFReader()
    reader.SetFileName(os.fspath(path))
    reader.Update()
    output = reader.GetOutputDataObject(0)
    assert output.GetNumberOfPartitions() == 3
    for p, piece in enumerate(pieces):
        part = output.GetPartition(p)
        np.testing.assert_array_equal(vtk_to_numpy(part.GetPoints().GetData()), np.asarray(piece.points))
        np.testing.assert_array_equal(vtk_to_numpy(part.GetPointData().GetArray("global_ids")),
                                      piece.point_data["global_ids"])
    # we read it whole (all partitions merged) and one partition or a range
    whole = mio.read(path)
    assert len(whole.points) == sum(len(p.points) for p in pieces)
    second = mio.vtkhdf.read_partitions(path, 1)
    np.testing.assert_array_equal(second.points, pieces[1].points)
    np.testing.assert_array_equal(second.point_data["global_ids"], pieces[1].point_data["global_ids"])
    last_two = mio.vtkhdf.read_partitions(path, 1, 2)
    assert len(last_two.points) == len(pieces[1].points) + len(pieces[2].points)
    with pytest.raises(mio.ReadError, match="partitions"):
        mio.vtkhdf.read_partitions(path, 2, 2)
    os.remove(tmp_path / "parts_part2.vtkhdf")
    with pytest.raises(mio.ReadError, match="parts_part2.vtkhdf"):
        mio.read(path)


def test_partitioned_polydata_cell_data_follows_the_blocks(tmp_path):
    from vtk.util.numpy_support import numpy_to_vtk

    partitioned = vtk.vtkPartitionedDataSet()
    for p in range(2):
        poly = vtk.vtkPolyData()
        points = vtk.vtkPoints()
        for x, y in [(0, 0), (1, 0), (0, 1), (1, 1)]:
            points.InsertNextPoint(x + 5 * p, y, 0)
        poly.SetPoints(points)
        verts, polys = vtk.vtkCellArray(), vtk.vtkCellArray()
        verts.InsertNextCell(1, [3])
        polys.InsertNextCell(3, [0, 1, 2])
        poly.SetVerts(verts)
        poly.SetPolys(polys)
        ids = numpy_to_vtk(np.array([10 * p, 10 * p + 1], dtype=np.int64), deep=True)
        ids.SetName("id")
        poly.GetCellData().AddArray(ids)
        partitioned.SetPartition(p, poly)
    path = tmp_path / "poly.vtkhdf"
    writer = vtk.vtkHDFWriter()
    writer.SetInputData(partitioned)
    writer.SetFileName(os.fspath(path))
    assert writer.Write() == 1
    mesh = mio.read(path)
    assert [(b.type, len(b)) for b in mesh.cells] == [("vertex", 2), ("triangle", 2)]
    np.testing.assert_array_equal(np.concatenate(mesh.cell_data["id"]), [0, 10, 1, 11])
    second = mio.vtkhdf.read_partitions(path, 1)
    np.testing.assert_array_equal(np.concatenate(second.cell_data["id"]), [10, 11])
    np.testing.assert_array_equal(second.points[:, 0], [5, 6, 5, 6])


READ_FIELD_DATA = """
import sys, vtk
reader = vtk.vtkHDFReader()
reader.SetFileName(sys.argv[1])
reader.Update()
fields = reader.GetOutput().GetFieldData()
for i in range(fields.GetNumberOfArrays()):
    array = fields.GetAbstractArray(i)
    values = [array.GetValue(k) if array.IsA("vtkStringArray") else array.GetTuple1(k)
              for k in range(array.GetNumberOfValues())]
    print(array.GetName(), array.GetClassName(), repr(values))
"""


def test_vtk_reads_our_string_field_data(tmp_path):
    """String field data (can.vtu's Title, converted to VTKHDF) is written as vtkHDFWriter writes
    a vtkStringArray — variable-length strings — which vtkHDFReader reads; a fixed-length string
    dataset made VTK 9.7's reader fail in H5Dread and crash. Run in a child: a crash is a fail."""
    import subprocess
    import sys

    mesh = mio.Mesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]), [("tetra", [[0, 1, 2, 3]])],
                    field_data={"Title": np.array(["can (Exodus, 1990s)", "second line"]), "n": np.array([2.5])})
    path = tmp_path / "strings.vtkhdf"
    mio.write(path, mesh)
    done = subprocess.run([sys.executable, "-c", READ_FIELD_DATA, str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["Title"] == "vtkStringArray ['can (Exodus, 1990s)', 'second line']"
    back = mio.read(path)
    assert list(back.field_data["Title"]) == ["can (Exodus, 1990s)", "second line"]
    assert back.field_data["n"].tolist() == [2.5]
