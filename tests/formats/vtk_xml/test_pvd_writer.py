"""meshioplusplus.pvd.TimeSeriesWriter (the XDMF writer's shape over the core's PVD writer):
steps read back by our reader and by VTK's own .vtu reader, step files by name, options
passed to the step files, and the usual misuse errors."""

import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

import meshioplusplus as mio


def _square():
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    return points, [("triangle", np.array([[0, 1, 2], [0, 2, 3]]))]


def test_steps_round_trip_and_vtk_reads_each_step_file(tmp_path):
    points, cells = _square()
    target = tmp_path / "run.pvd"
    times = [0.0, 0.25, 1.5]
    with mio.pvd.TimeSeriesWriter(target, binary=True, compression=None) as writer:
        writer.write_points_cells(points, cells)
        for k, t in enumerate(times):
            writer.write_data(t, point_data={"phi": points[:, 0] * (k + 1)},
                              cell_data={"a": [np.array([k, 10 * k], dtype=np.int32)]})
    with mio.pvd.TimeSeriesReader(target) as reader:
        assert reader.times == times
        read_points, read_cells = reader.read_points_cells()
        np.testing.assert_array_equal(read_points, points)
        np.testing.assert_array_equal(read_cells[0].data, cells[0][1])
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)
            assert t == times[k]
            np.testing.assert_array_equal(point_data["phi"], points[:, 0] * (k + 1))
            np.testing.assert_array_equal(cell_data["a"][0], [k, 10 * k])
    # The collection names one .vtu per step; VTK's own reader reads each (uncompressed, as asked).
    datasets = ElementTree.parse(target).getroot().iter("DataSet")
    files = [(float(d.get("timestep")), tmp_path / d.get("file")) for d in datasets]
    assert [t for t, _ in files] == times
    vtk = pytest.importorskip("vtk", reason="VTK's Python wheel (pip install vtk) is the reference")
    from vtk.util.numpy_support import vtk_to_numpy

    for k, (_, step_file) in enumerate(files):
        assert b'compressor="' not in step_file.read_bytes()
        vtk_reader = vtk.vtkXMLUnstructuredGridReader()
        vtk_reader.SetFileName(str(step_file))
        vtk_reader.Update()
        grid = vtk_reader.GetOutput()
        np.testing.assert_array_equal(vtk_to_numpy(grid.GetPointData().GetArray("phi")), points[:, 0] * (k + 1))


def test_misuse_is_a_write_error(tmp_path):
    target = tmp_path / "bad.pvd"
    with pytest.raises(mio.WriteError, match="before write_points_cells"):
        with mio.pvd.TimeSeriesWriter(target) as writer:
            writer.write_data(0.0, point_data={"phi": np.zeros(4)})
    # As meshio's writers, leaving the with-block closes the series with the steps written so
    # far (none here): no step file was written.
    assert not (tmp_path / "bad").exists() or not any((tmp_path / "bad").iterdir())
    with pytest.raises(mio.WriteError, match="option"):
        with mio.pvd.TimeSeriesWriter(target, no_such_option=3):
            pass
