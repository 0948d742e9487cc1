"""File sequences (``mio.read_sequence`` / ``mio.write_sequence``): numbered files written by VTK
read step by step, ours read back by PyVista's PVD reader and by VTK file by file, a mesh that
changes between steps, one step read without touching the others, the errors."""

import json
import os

import numpy as np
import pytest

import meshioplusplus as mio


def strip(n, value):
    points = np.array([[k // 2, k % 2, 0.0] for k in range(n + 2)])
    cells = [("triangle", np.array([[k, k + 1, k + 2] for k in range(n)]))]
    return points, cells, {"phi": np.full(n + 2, float(value))}, {"c": [np.full(n, 10.0 * value)]}


def test_vtk_written_sequence_read_step_by_step(tmp_path):
    vtk = pytest.importorskip("vtk", reason="VTK writes the reference sequence")
    from vtk.util.numpy_support import numpy_to_vtk

    expected = []
    for k in (0, 1, 2, 10):  # out_10 after out_2: natural order
        points, cells, point_data, _ = strip(k + 1, k)
        grid = vtk.vtkUnstructuredGrid()
        vtk_points = vtk.vtkPoints()
        vtk_points.SetData(numpy_to_vtk(points))
        grid.SetPoints(vtk_points)
        for triangle in cells[0][1]:
            grid.InsertNextCell(vtk.VTK_TRIANGLE, 3, [int(i) for i in triangle])
        array = numpy_to_vtk(point_data["phi"] * 2)
        array.SetName("phi")
        grid.GetPointData().AddArray(array)
        writer = vtk.vtkXMLUnstructuredGridWriter()
        writer.SetFileName(str(tmp_path / f"out_{k}.vtu"))
        writer.SetInputData(grid)
        assert writer.Write() == 1
        expected.append((k, points, cells[0][1], point_data["phi"] * 2))

    with mio.read_sequence(tmp_path / "out_*.vtu") as reader:
        assert reader.num_steps == 4
        assert reader.times == [0.0, 1.0, 2.0, 10.0]
        points, cells = reader.read_points_cells()
        np.testing.assert_array_equal(points, expected[0][1])
        for step, (k, points, triangles, phi) in enumerate(expected):
            t, point_data, cell_data = reader.read_data(step)
            assert t == float(k)
            np.testing.assert_array_equal(point_data["phi"], phi)
            np.testing.assert_array_equal(reader.mesh.points, points)  # the mesh follows the step
            np.testing.assert_array_equal(reader.cells[0].data, triangles)
            mesh = reader.read_mesh_at(step)
            np.testing.assert_array_equal(mesh.point_data["phi"], phi)


def test_written_sequence_with_series_and_pvd_indexes(tmp_path):
    for index in ("run.vtu.series", "run.pvd"):
        with mio.write_sequence(tmp_path / "run_{:04d}.vtu", index=tmp_path / index, binary=False) as writer:
            for k in range(3):
                points, cells, point_data, cell_data = strip(k + 1, k)
                writer.write_points_cells(points, cells)
                writer.write_data(0.25 * k, point_data=point_data, cell_data=cell_data)
        assert sorted(p.name for p in tmp_path.glob("run_*.vtu")) == ["run_0000.vtu", "run_0001.vtu", "run_0002.vtu"]
        assert b"ascii" in (tmp_path / "run_0001.vtu").read_bytes()  # the format's option reached the writer
        with mio.read_sequence(tmp_path / index) as reader:
            assert reader.times == [0.0, 0.25, 0.5]
            t, point_data, cell_data = reader.read_data(2)
            np.testing.assert_array_equal(cell_data["c"][0], np.full(3, 20.0))
            assert len(reader.mesh.points) == 5
    series = json.loads((tmp_path / "run.vtu.series").read_text())
    assert series["file-series-version"] == "1.0"
    assert [entry["name"] for entry in series["files"]] == ["run_0000.vtu", "run_0001.vtu", "run_0002.vtu"]

    # The same steps as VTK and PyVista see them.
    vtk = pytest.importorskip("vtk", reason="VTK reads the steps back")
    from vtk.util.numpy_support import vtk_to_numpy

    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(str(tmp_path / "run_0002.vtu"))
    reader.Update()
    np.testing.assert_array_equal(vtk_to_numpy(reader.GetOutput().GetCellData().GetArray("c")), np.full(3, 20.0))
    pv = pytest.importorskip("pyvista", reason="PyVista reads the PVD index")
    pvd = pv.get_reader(str(tmp_path / "run.pvd"))
    assert list(pvd.time_values) == [0.0, 0.25, 0.5]
    pvd.set_active_time_value(0.5)
    block = pvd.read()[0]
    np.testing.assert_array_equal(np.asarray(block.point_data["phi"]), np.full(5, 2.0))


def test_other_formats_lists_and_given_times(tmp_path):
    with mio.write_sequence(str(tmp_path / "s_%03d.msh"), file_format="gmsh", first_number=1) as writer:
        points, cells, point_data, _ = strip(2, 1)
        writer.write_points_cells(points, cells)
        for t in (1.0, 2.0):
            writer.write_data(t, point_data={"phi": point_data["phi"] * t})
    files = [tmp_path / "s_001.msh", tmp_path / "s_002.msh"]
    assert all(f.exists() for f in files)
    with mio.read_sequence(files, times=[10.0, 20.0]) as reader:
        assert reader.times == [10.0, 20.0]
        _, point_data, _ = reader.read_data(1)
        np.testing.assert_array_equal(point_data["phi"], np.full(4, 2.0))
    with mio.read_sequence(str(tmp_path / "s_%03d.msh")) as reader:
        assert reader.times == [1.0, 2.0]


def test_one_step_of_a_hundred_reads_only_its_file(tmp_path):
    points, cells, point_data, _ = strip(4, 0)
    with mio.write_sequence(tmp_path / "big_{}.vtu") as writer:
        writer.write_points_cells(points, cells)
        for k in range(100):
            writer.write_data(k, point_data={"phi": np.full(len(points), float(k))})
    reader = mio.read_sequence(tmp_path / "big_*.vtu")
    assert reader.num_steps == 100
    # Every other file removed: reading step 57 needs its own file only.
    for k in range(100):
        if k != 57:
            os.remove(tmp_path / f"big_{k}.vtu")
    t, point_data, _ = reader.read_data(57)
    assert t == 57.0
    np.testing.assert_array_equal(point_data["phi"], np.full(len(points), 57.0))
    with pytest.raises(mio.ReadError, match="big_58.vtu"):
        reader.read_data(58)


def test_errors(tmp_path):
    with pytest.raises(mio.ReadError, match="no file matches"):
        mio.read_sequence(tmp_path / "none_*.vtu")
    with pytest.raises(mio.ReadError, match="names no sequence"):
        mio.read_sequence(tmp_path / "plain.vtu")
    (tmp_path / "a_1.vtu").write_text("x")
    with pytest.raises(mio.ReadError, match="times for"):
        mio.read_sequence(tmp_path / "a_*.vtu", times=[1, 2])
    with pytest.raises(mio.ReadError):
        mio.read_sequence([])
    with pytest.raises(mio.WriteError, match="step-number field"):
        with mio.write_sequence(tmp_path / "plain.vtu"):
            pass
    with pytest.raises(mio.WriteError, match="unknown write option"):
        with mio.write_sequence(tmp_path / "b_{}.vtu", no_such_option=1):
            pass
    # A run that stops keeps the steps it wrote, and its index lists them.
    with pytest.raises(RuntimeError):
        with mio.write_sequence(tmp_path / "c_{}.vtu", index=tmp_path / "c.series") as writer:
            points, cells, point_data, _ = strip(1, 0)
            writer.write_points_cells(points, cells)
            writer.write_data(0.0, point_data=point_data)
            raise RuntimeError("the solver stopped")
    assert (tmp_path / "c_0.vtu").exists()
    assert [entry["name"] for entry in json.loads((tmp_path / "c.series").read_text())["files"]] == ["c_0.vtu"]
    assert mio.read(tmp_path / "c_0.vtu").points.shape == (3, 3)


@pytest.mark.parametrize("writer_of", ["sequence", "pvd", "ensight"])
def test_a_mesh_given_as_temporaries_is_kept(tmp_path, writer_of):
    # The writers keep the mesh until the steps come: arrays the caller frees right after
    # write_points_cells (here temporaries) must not be read from freed memory then.
    import gc

    points, cells, point_data, _ = strip(50, 1)
    make = {"sequence": lambda: mio.write_sequence(tmp_path / "t_{}.vtu"),
            "pvd": lambda: mio.pvd.TimeSeriesWriter(tmp_path / "t.pvd"),
            "ensight": lambda: mio.ensight.TimeSeriesWriter(tmp_path / "t.case")}[writer_of]
    with make() as writer:
        writer.write_points_cells(points * 1.0 + 0.0, [(cells[0][0], cells[0][1].copy())])
        gc.collect()
        np.ones(10_000_000)  # reuse the freed memory
        writer.write_data(1.0, point_data=point_data)
    source = {"sequence": tmp_path / "t_0.vtu", "pvd": tmp_path / "t.pvd", "ensight": tmp_path / "t.case"}[writer_of]
    mesh = mio.read(source)
    np.testing.assert_allclose(mesh.points, points)
    np.testing.assert_array_equal(mesh.cells[0].data, cells[0][1])
