"""MED fields with several time steps through the time-series interface
(``meshioplusplus.med.TimeSeriesReader``): a file meshio writes, given more steps with h5py the
way MED lays them out (one group per (NDT, NOR) with the time in PDT), read here and by meshio."""

import numpy as np
import pytest

import meshioplusplus as mio

meshio = pytest.importorskip("meshio")
h5py = pytest.importorskip("h5py")

if not mio._core.features().get("hdf5"):
    pytest.skip("this build has no HDF5", allow_module_level=True)

TIMES = [0.0, 0.1234567891, 2.5]


@pytest.fixture()
def stepped_med(tmp_path):
    points = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]])
    mesh = meshio.Mesh(points, [("triangle", np.array([[0, 1, 2], [0, 2, 3]]))],
                       point_data={"T": np.arange(4.0)}, cell_data={"P": [np.array([1.0, 2.0])]})
    path = tmp_path / "steps.med"
    meshio.write(path, mesh)
    with h5py.File(path, "r+") as f:
        for field, support in [("T", "NOE"), ("P", "MAI.TR3")]:
            group = f["CHA"][field]
            first = group["0000000000000000000100000000000000000001"]
            for k, t in enumerate(TIMES[1:], start=2):
                name = f"{k:020d}{1:020d}"
                group.copy(first, name)
                group[name].attrs["NDT"] = np.int64(k)
                group[name].attrs["PDT"] = np.float64(t)
                values = group[name][support]["MED_NO_PROFILE_INTERNAL"]["CO"]
                values[...] = values[...] * 10 * k
    return path


def test_steps_times_and_arrays(stepped_med):
    reference = meshio.read(stepped_med)  # "T[i] - t" keys, t with 6 digits
    with mio.med.TimeSeriesReader(stepped_med) as reader:
        assert reader.num_steps == 3
        assert reader.times == TIMES  # exact, not 6 digits
        points, cells = reader.read_points_cells()
        np.testing.assert_array_equal(points, reference.points)
        assert "T" not in reader.mesh.point_data and not [n for n in reader.mesh.point_data if n.startswith("T[")]
        for k, t in enumerate(TIMES):
            time, point_data, cell_data = reader.read_data(k)
            assert time == t
            key = f"[{k}] - {t:g}"
            np.testing.assert_array_equal(point_data["T"], reference.point_data["T" + key])
            np.testing.assert_array_equal(cell_data["P"][0], reference.cell_data["P" + key][0])
        np.testing.assert_array_equal(reader.read_data(2)[1]["T"], np.arange(4.0) * 30)
        with pytest.raises(IndexError):
            reader.read_data(3)
    with pytest.raises(mio.ReadError, match="step 3 out of range"):
        mio._core.open_time_series(str(stepped_med), "med").read_step(3)


def test_single_step_file(tmp_path):
    path = tmp_path / "one.med"
    mesh = meshio.Mesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]), [("triangle", np.array([[0, 1, 2]]))],
                       point_data={"phi": np.array([1.0, 2.0, 3.0])})
    meshio.write(path, mesh)
    with mio.med.TimeSeriesReader(path) as reader:
        assert reader.times == [0.0]
        reader.read_points_cells()
        np.testing.assert_array_equal(reader.read_data(0)[1]["phi"], [1.0, 2.0, 3.0])


def test_not_a_med_file(tmp_path):
    path = tmp_path / "x.med"
    with h5py.File(path, "w") as f:
        f.create_group("nothing")
    with pytest.raises(mio.ReadError, match="ENS_MAA"):
        mio.med.TimeSeriesReader(path)
