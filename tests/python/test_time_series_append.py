"""Time-series writers in append mode (``TimeSeriesWriter(..., append=True)``: XDMF, PVD, VTKHDF,
Exodus) and where ``xdmf.TimeSeriesWriter`` puts its heavy data: meshio's placement (the working
directory) by default, so code written for meshio — including code that moves the ``.h5`` beside
the ``.xdmf`` afterwards — runs unchanged; ``heavy_data_beside=True`` writes it beside at once."""

import os
import shutil

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

POINTS = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.0]])
CELLS = [("triangle", np.array([[0, 1, 2], [1, 3, 2]]))]

FORMATS = {"xdmf": ".xdmf", "pvd": ".pvd", "vtkhdf": ".vtkhdf", "exodus": ".e"}


def _needs(name):
    if name in ("xdmf", "vtkhdf") and not _core.hdf5_available():
        pytest.skip("built without HDF5")


def _options(name):
    return {"heavy_data_beside": True} if name == "xdmf" else {}


def _write(writer, times):
    for t in times:
        writer.write_data(t, point_data={"phi": np.arange(4.0) + t, "u": np.full((4, 3), t)},
                          cell_data={"c": [np.array([t, -t])]})


def _steps(name, path):
    with getattr(mio, name).TimeSeriesReader(path) as reader:
        points, cells = reader.read_points_cells()
        steps = [reader.read_data(k) for k in range(reader.num_steps)]
    return points, cells, steps


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_append_continues_the_series(tmp_path, name):
    _needs(name)
    path = tmp_path / f"run{FORMATS[name]}"
    writer_class = getattr(mio, name).TimeSeriesWriter
    with writer_class(path, **_options(name)) as writer:
        writer.write_points_cells(POINTS, CELLS)
        _write(writer, [0.0, 0.5])
    with writer_class(path, append=True, **_options(name)) as writer:  # a restarted run
        _write(writer, [1.0])
    with writer_class(path, append=True, **_options(name)) as writer:
        writer.write_points_cells(POINTS, CELLS)  # the same mesh again: accepted, not rewritten
        _write(writer, [1.5, 2.0])
    points, cells, steps = _steps(name, path)
    np.testing.assert_array_equal(points[:, :2], POINTS[:, :2])
    assert [(c.type, c.data.tolist()) for c in cells] == [("triangle", [[0, 1, 2], [1, 3, 2]])]
    assert [t for t, _, _ in steps] == [0.0, 0.5, 1.0, 1.5, 2.0]
    for t, point_data, cell_data in steps:
        np.testing.assert_array_equal(point_data["phi"], np.arange(4.0) + t)
        np.testing.assert_array_equal(point_data["u"], np.full((4, 3), t))
        np.testing.assert_array_equal(cell_data["c"][0], [t, -t])


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_append_refuses_another_mesh_and_leaves_the_file(tmp_path, name):
    _needs(name)
    path = tmp_path / f"run{FORMATS[name]}"
    writer_class = getattr(mio, name).TimeSeriesWriter
    with writer_class(path, **_options(name)) as writer:
        writer.write_points_cells(POINTS, CELLS)
        _write(writer, [0.0])
    with pytest.raises(mio.WriteError, match="append: the mesh given has 3 points, the file's has 4"):
        with writer_class(path, append=True, **_options(name)) as writer:
            writer.write_points_cells(POINTS[:3], [("triangle", np.array([[0, 1, 2]]))])
    assert [t for t, _, _ in _steps(name, path)[2]] == [0.0]
    # An error inside the block (a run that stops): the steps written so far land, as with
    # meshio's writers and ours without append (the C++ test: a writer dropped unclosed changes
    # nothing).
    with pytest.raises(RuntimeError, match="stop"):
        with writer_class(path, append=True, **_options(name)) as writer:
            _write(writer, [1.0])
            raise RuntimeError("stop")
    assert [t for t, _, _ in _steps(name, path)[2]] == [0.0, 1.0]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_append_to_a_missing_file_starts_it(tmp_path, name):
    _needs(name)
    path = tmp_path / f"new{FORMATS[name]}"
    with getattr(mio, name).TimeSeriesWriter(path, append=True, **_options(name)) as writer:
        writer.write_points_cells(POINTS, CELLS)
        _write(writer, [3.0])
    assert [t for t, _, _ in _steps(name, path)[2]] == [3.0]


def test_exodus_append_keeps_the_declared_variables(tmp_path):
    _needs("exodus")
    path = tmp_path / "run.e"
    with mio.exodus.TimeSeriesWriter(path) as writer:
        writer.write_points_cells(POINTS, CELLS)
        _write(writer, [0.0])
    with pytest.raises(mio.WriteError, match="every step must have the same ones"):
        with mio.exodus.TimeSeriesWriter(path, append=True) as writer:
            writer.write_data(1.0, point_data={"other": np.zeros(4)})


def test_appended_xdmf_reads_in_meshio(tmp_path):
    _needs("xdmf")
    meshio = pytest.importorskip("meshio")
    path = tmp_path / "run.xdmf"
    with mio.xdmf.TimeSeriesWriter(path, heavy_data_beside=True) as writer:
        writer.write_points_cells(POINTS, CELLS)
        _write(writer, [0.0])
    with mio.xdmf.TimeSeriesWriter(path, heavy_data_beside=True, append=True) as writer:
        _write(writer, [1.0])
    with meshio.xdmf.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        assert reader.num_steps == 2
        t, point_data, _ = reader.read_data(1)
        assert t == 1.0
        np.testing.assert_array_equal(point_data["phi"], np.arange(4.0) + 1)


def test_appended_pvd_and_binary_xdmf_number_new_files_after_the_old(tmp_path, monkeypatch):
    path = tmp_path / "run.pvd"
    for append in (False, True):
        with mio.pvd.TimeSeriesWriter(path, append=append) as writer:
            if not append:
                writer.write_points_cells(POINTS, CELLS)
            _write(writer, [float(append)])
    assert sorted(os.listdir(tmp_path / "run")) == ["run_0.vtu", "run_1.vtu"]
    monkeypatch.chdir(tmp_path)
    for append in (False, True):
        with mio.xdmf.TimeSeriesWriter("b.xdmf", data_format="Binary", append=append) as writer:
            if not append:
                writer.write_points_cells(POINTS, CELLS)
            _write(writer, [float(append)])
    # mesh (points, cells) and three arrays a step: eight files, none written over
    assert sorted(name for name in os.listdir(".") if name.endswith(".bin")) == [f"b{k}.bin" for k in range(8)]
    assert [t for t, _, _ in _steps("xdmf", "b.xdmf")[2]] == [0.0, 1.0]


# ---- where the .h5 goes -------------------------------------------------------------------


def _series(path, **options):
    with mio.xdmf.TimeSeriesWriter(path, **options) as writer:
        writer.write_points_cells(POINTS, CELLS)
        _write(writer, [0.0, 1.0])


def test_heavy_data_goes_to_the_working_directory_as_meshio_puts_it(tmp_path, monkeypatch):
    _needs("xdmf")
    meshio = pytest.importorskip("meshio")
    work, out = tmp_path / "work", tmp_path / "out"
    work.mkdir(), out.mkdir()
    monkeypatch.chdir(work)
    _series(out / "ours.xdmf")
    with meshio.xdmf.TimeSeriesWriter(out / "theirs.xdmf") as writer:
        writer.write_points_cells(POINTS, CELLS)
        _write(writer, [0.0, 1.0])
    assert sorted(os.listdir(work)) == ["ours.h5", "theirs.h5"]  # the same place for both
    assert sorted(os.listdir(out)) == ["ours.xdmf", "theirs.xdmf"]
    assert "ours.h5:/data0" in (out / "ours.xdmf").read_text()  # named without a folder, as meshio does
    # the code written for meshio: move the .h5 beside the .xdmf, then read
    for stem in ("ours", "theirs"):
        shutil.move(f"{stem}.h5", out)
    for reader in (meshio.xdmf.TimeSeriesReader, mio.xdmf.TimeSeriesReader):
        with reader(out / "ours.xdmf") as series:
            series.read_points_cells()
            assert series.num_steps == 2
            np.testing.assert_array_equal(series.read_data(1)[1]["phi"], np.arange(4.0) + 1)


def test_heavy_data_beside_writes_it_next_to_the_xdmf(tmp_path, monkeypatch):
    _needs("xdmf")
    work, out = tmp_path / "work", tmp_path / "out"
    work.mkdir(), out.mkdir()
    monkeypatch.chdir(work)
    _series(out / "ours.xdmf", heavy_data_beside=True)
    assert os.listdir(work) == []
    assert sorted(os.listdir(out)) == ["ours.h5", "ours.xdmf"]
    assert [t for t, _, _ in _steps("xdmf", out / "ours.xdmf")[2]] == [0.0, 1.0]
    with pytest.raises(mio.WriteError, match="unknown heavy_data_location"):
        with _core.create_time_series(str(out / "x.xdmf"), "xdmf", {"heavy_data_location": "elsewhere"}):
            pass
