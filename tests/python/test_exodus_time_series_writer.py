"""The Exodus II time-series writer (``meshioplusplus.exodus.TimeSeriesWriter``, the core's
``create_time_series(path, "exodus")``): three steps of point and cell data read back exactly by
our ``TimeSeriesReader``, checked against the references — the netCDF layout (netCDF4-python),
meshio 5.3.5's reader (step 0) and VTK's vtkExodusIIReader step by step — and its errors."""

import gc
import os

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core
from meshioplusplus._format_extras._time_series import TimeSeriesWriter as SharedWriter

TIMES = [0.0, 0.1234567891, 2.5]
POINTS = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [2, 0, 0]])
CELLS = [("line", np.array([[1, 4]])), ("triangle", np.array([[0, 1, 2], [0, 2, 3]]))]


def step_arrays(k):
    """Point data: a scalar and a 3-vector (three Exodus variables UX/UY/UZ); cell data: a scalar."""
    point_data = {
        "T": np.arange(5.0) * (k + 1) + 0.25,
        "U": np.arange(15.0).reshape(5, 3) - k,
    }
    cell_data = {"p": [np.array([10.0 + k]), np.array([-1.5, 2.0]) * (k + 1)]}
    return point_data, cell_data


def write_series(path, **options):
    with mio.exodus.TimeSeriesWriter(path, **options) as writer:
        writer.write_points_cells(POINTS, CELLS)
        for k, t in enumerate(TIMES):
            writer.write_data(t, *step_arrays(k))
    return str(path)


def test_shared_writer_class():
    assert issubclass(mio.exodus.TimeSeriesWriter, SharedWriter)
    assert mio.exodus.TimeSeriesWriter.write_data is SharedWriter.write_data


@pytest.mark.parametrize("netcdf_format", ["NETCDF4", "NETCDF3_64BIT_OFFSET", "NETCDF3_CLASSIC"])
def test_read_back_by_our_reader(tmp_path, netcdf_format):
    path = write_series(tmp_path / "series.e", netcdf_format=netcdf_format)
    assert sorted(os.listdir(tmp_path)) == ["series.e"]  # no temporary left beside it
    with mio.exodus.TimeSeriesReader(path) as reader:
        assert reader.num_steps == len(TIMES)
        assert reader.times == TIMES  # exact (float64 points: float64 time_whole)
        points, cells = reader.read_points_cells()
        np.testing.assert_array_equal(points, POINTS)
        assert [block.type for block in cells] == [kind for kind, _ in CELLS]
        for block, (_, connectivity) in zip(cells, CELLS):
            np.testing.assert_array_equal(block.data, connectivity)
        assert not reader.mesh.point_data and not reader.mesh.cell_data
        for k, t in enumerate(TIMES):
            time, point_data, cell_data = reader.read_data(k)
            expected_points, expected_cells = step_arrays(k)
            assert time == t
            assert sorted(point_data) == sorted(expected_points)
            assert sorted(cell_data) == sorted(expected_cells)
            for name, values in expected_points.items():
                np.testing.assert_array_equal(point_data[name], values, err_msg=name)
            for name, per_block in expected_cells.items():
                assert len(cell_data[name]) == len(per_block)
                for got, values in zip(cell_data[name], per_block):
                    np.testing.assert_array_equal(got, values, err_msg=name)


def test_netcdf_structure(tmp_path):
    netCDF4 = pytest.importorskip("netCDF4")
    path = write_series(tmp_path / "series.exo")
    with netCDF4.Dataset(path) as nc:
        assert nc.dimensions["time_step"].isunlimited()
        assert len(nc.dimensions["time_step"]) == len(TIMES)
        np.testing.assert_array_equal(nc["time_whole"][:], TIMES)
        names = [bytes(row.compressed()).decode() for row in nc["name_nod_var"][:]]
        assert names == ["T", "UX", "UY", "UZ"]
        assert [bytes(row.compressed()).decode() for row in nc["name_elem_var"][:]] == ["p"]
        for k in range(len(TIMES)):
            point_data, cell_data = step_arrays(k)
            np.testing.assert_array_equal(nc["vals_nod_var1"][k], point_data["T"])
            for c in range(3):
                np.testing.assert_array_equal(nc[f"vals_nod_var{c + 2}"][k], point_data["U"][:, c])
            for b, values in enumerate(cell_data["p"]):
                np.testing.assert_array_equal(nc[f"vals_elem_var1eb{b + 1}"][k], values)
        assert nc["vals_nod_var1"].dimensions == ("time_step", "num_nodes")
        assert nc["vals_elem_var1eb2"].dimensions == ("time_step", "num_el_in_blk2")


def test_meshio_reads_step_0(tmp_path):
    meshio = pytest.importorskip("meshio")
    path = write_series(tmp_path / "series.e")
    mesh = meshio.read(path)  # meshio keeps the first step
    np.testing.assert_array_equal(mesh.points, POINTS)
    point_data, cell_data = step_arrays(0)
    assert sorted(mesh.point_data) == ["T", "U"]  # meshio joins UX/UY/UZ
    for name, values in point_data.items():
        np.testing.assert_array_equal(mesh.point_data[name], values)
    for got, values in zip(mesh.cell_data["p"], cell_data["p"]):
        np.testing.assert_array_equal(got, values)


def test_vtk_reads_every_step(tmp_path):
    exodus = pytest.importorskip("vtkmodules.vtkIOExodus", reason="the vtk wheel lacks vtkIOExodus")
    if not hasattr(exodus, "vtkExodusIIReader"):
        pytest.skip("the vtk wheel lacks vtkExodusIIReader")
    from vtkmodules.util.numpy_support import vtk_to_numpy

    path = write_series(tmp_path / "series.e")
    reader = exodus.vtkExodusIIReader()
    reader.SetFileName(path)
    reader.UpdateInformation()
    assert reader.GetNumberOfTimeSteps() == len(TIMES)
    reader.SetAllArrayStatus(exodus.vtkExodusIIReader.NODAL, 1)
    reader.SetAllArrayStatus(exodus.vtkExodusIIReader.ELEM_BLOCK, 1)
    for k in range(len(TIMES)):
        reader.SetTimeStep(k)
        reader.UpdateTimeStep(TIMES[k])
        point_data, cell_data = step_arrays(k)
        blocks = reader.GetOutput().GetBlock(0)
        assert blocks.GetNumberOfBlocks() == len(CELLS)
        for b in range(blocks.GetNumberOfBlocks()):
            grid = blocks.GetBlock(b)
            points = vtk_to_numpy(grid.GetPoints().GetData())
            # VTK keeps a block's own nodes (squeezed): map them back by their coordinates.
            ours = [int(np.flatnonzero((POINTS == p).all(axis=1))[0]) for p in points]
            np.testing.assert_array_equal(vtk_to_numpy(grid.GetPointData().GetArray("T")), point_data["T"][ours])
            np.testing.assert_array_equal(vtk_to_numpy(grid.GetPointData().GetArray("U")), point_data["U"][ours])
            np.testing.assert_array_equal(vtk_to_numpy(grid.GetCellData().GetArray("p")), cell_data["p"][b])


def test_float32_and_integer_arrays(tmp_path):
    path = str(tmp_path / "typed.e")
    with mio.exodus.TimeSeriesWriter(path) as writer:
        writer.write_points_cells(POINTS, CELLS)
        for k in range(2):
            point_data = {"f": np.arange(5, dtype=np.float32) + k}
            cell_data = {"i": [np.array([k], dtype=np.int32), np.array([k, -k], dtype=np.int32)]}
            writer.write_data(float(k), point_data, cell_data)
    with mio.exodus.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        _, point_data, cell_data = reader.read_data(1)
        assert point_data["f"].dtype == np.float32
        np.testing.assert_array_equal(point_data["f"], np.arange(5) + 1)
        assert cell_data["i"][1].dtype == np.int32
        np.testing.assert_array_equal(cell_data["i"][1], [1, -1])


def test_mesh_without_steps(tmp_path):
    path = str(tmp_path / "mesh.e")
    with mio.exodus.TimeSeriesWriter(path) as writer:
        writer.write_points_cells(POINTS, CELLS)
    with mio.exodus.TimeSeriesReader(path) as reader:
        assert reader.num_steps == 0
        points, _ = reader.read_points_cells()
        np.testing.assert_array_equal(points, POINTS)


def test_steps_without_variables_keep_their_times(tmp_path):
    path = str(tmp_path / "times.e")
    with mio.exodus.TimeSeriesWriter(path) as writer:
        writer.write_points_cells(POINTS, CELLS)
        for t in TIMES:
            writer.write_data(t)
    with mio.exodus.TimeSeriesReader(path) as reader:
        assert reader.times == TIMES


def test_no_close_leaves_no_file(tmp_path):
    path = tmp_path / "dropped.e"
    writer = mio.exodus.TimeSeriesWriter(path).__enter__()
    writer.write_points_cells(POINTS, CELLS)
    writer.write_data(0.0, *step_arrays(0))
    del writer
    gc.collect()
    assert os.listdir(tmp_path) == []


# ---- errors ----------------------------------------------------------------------------------


def test_write_data_before_points_cells(tmp_path):
    path = str(tmp_path / "early.e")
    with pytest.raises(mio.WriteError, match="before write_points_cells") as error:
        with mio.exodus.TimeSeriesWriter(path) as writer:
            writer.write_data(0.0, *step_arrays(0))
    assert path in str(error.value)
    # The core says the same without the Python-side check.
    writer = _core.create_time_series(path, "exodus")
    with pytest.raises(mio.WriteError, match="write_data\\(\\) before write_points_cells") as error:
        writer.write_step(0.0, {"T": np.zeros(5)}, {})
    assert path in str(error.value)
    assert not os.path.exists(path)


def test_cell_data_block_count(tmp_path):
    path = str(tmp_path / "blocks.e")
    with pytest.raises(mio.WriteError, match="cell data 'p' has 1 arrays for 2 cell blocks") as error:
        with mio.exodus.TimeSeriesWriter(path) as writer:
            writer.write_points_cells(POINTS, CELLS)
            writer.write_data(0.0, {}, {"p": [np.zeros(1)]})
    assert path in str(error.value)


def test_rows_that_disagree(tmp_path):
    path = str(tmp_path / "rows.e")
    with pytest.raises(mio.WriteError, match="point data 'T' has shape \\(4,\\), the mesh has 5 points") as error:
        with mio.exodus.TimeSeriesWriter(path) as writer:
            writer.write_points_cells(POINTS, CELLS)
            writer.write_data(0.0, {"T": np.zeros(4)})
    assert path in str(error.value)
    with pytest.raises(mio.WriteError, match="cell data 'p' block 1 has shape \\(3,\\), the block has 2 cells"):
        with mio.exodus.TimeSeriesWriter(path) as writer:
            writer.write_points_cells(POINTS, CELLS)
            writer.write_data(0.0, {}, {"p": [np.zeros(1), np.zeros(3)]})


def test_different_variables_than_step_0(tmp_path):
    path = str(tmp_path / "vars.e")
    message = "step 1: point data \\{'S'\\} differs from step 0's \\{'T'\\}: Exodus declares its variables once"
    with pytest.raises(mio.WriteError, match=message) as error:
        with mio.exodus.TimeSeriesWriter(path) as writer:
            writer.write_points_cells(POINTS, CELLS)
            writer.write_data(0.0, {"T": np.zeros(5)})
            writer.write_data(1.0, {"S": np.zeros(5)})
    assert path in str(error.value)
    with pytest.raises(mio.WriteError, match="step 1: point data 'T' has dtype float32"):
        with mio.exodus.TimeSeriesWriter(path) as writer:
            writer.write_points_cells(POINTS, CELLS)
            writer.write_data(0.0, {"T": np.zeros(5)})
            writer.write_data(1.0, {"T": np.zeros(5, dtype=np.float32)})
    with pytest.raises(mio.WriteError, match="step 2: cell data \\{\\} differs from step 0's \\{'p'\\}"):
        with mio.exodus.TimeSeriesWriter(path) as writer:
            writer.write_points_cells(POINTS, CELLS)
            writer.write_data(0.0, *step_arrays(0))
            writer.write_data(1.0, *step_arrays(1))
            writer.write_data(2.0, step_arrays(2)[0])


def test_unknown_options(tmp_path):
    path = str(tmp_path / "options.e")
    with pytest.raises(mio.WriteError, match="unknown write option 'bogus'") as error:
        _core.create_time_series(path, "exodus", {"bogus": "1"})
    assert path in str(error.value)
    with pytest.raises(mio.WriteError, match="netcdf_format 'NETCDF5' is not one of"):
        with mio.exodus.TimeSeriesWriter(path, netcdf_format="NETCDF5"):
            pass
    with pytest.raises(TypeError):
        mio.exodus.TimeSeriesWriter(path, binary=True)
    assert not os.path.exists(path)


def test_global_variables_from_field_data(tmp_path):
    """A step's scalar field_data become Exodus global variables, read back per step (the
    reader puts them in field_data) and seen by netCDF as name_glo_var / vals_glo_var."""
    path = tmp_path / "globals.e"
    energies = [1.5, 2.25, -0.125]
    with mio.exodus.TimeSeriesWriter(path) as writer:
        writer.write_points_cells(POINTS, CELLS)
        for k, t in enumerate(TIMES):
            writer.write_data(t, *step_arrays(k), field_data={"energy": np.array([energies[k]])})
    with mio.exodus.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        for k in range(reader.num_steps):
            reader.read_data(k)
            np.testing.assert_array_equal(np.ravel(reader.field_data["energy"]), [energies[k]])
    netCDF4 = pytest.importorskip("netCDF4", reason="netCDF4 is in requirements-test.txt")
    with netCDF4.Dataset(path) as dataset:
        dataset.set_auto_mask(False)
        names = ["".join(c.decode() for c in row if c) for row in dataset.variables["name_glo_var"][:]]
        assert names == ["energy"]
        np.testing.assert_array_equal(dataset.variables["vals_glo_var"][:, 0], energies)
