"""Time-series writers of Gmsh MSH and MED (``meshioplusplus.gmsh.TimeSeriesWriter``,
``meshioplusplus.med.TimeSeriesWriter``): three steps of point and cell data read back exactly
by our ``TimeSeriesReader`` and by ``meshioplusplus.read``, checked against the references —
Gmsh itself (``gmsh.view.getModelData`` per step) and, for MED, the HDF5 layout (h5py) and
meshio's reading of step 0."""

import os

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus._format_extras._time_series import TimeSeriesWriter as SharedWriter

TIMES = [0.0, 0.1234567891, 2.5]
POINTS = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [2, 0, 0]])
# MED gives blocks back in the order of its type names (SE2 before TR3): this order round-trips.
CELLS = [("line", np.array([[1, 4]])), ("triangle", np.array([[0, 1, 2], [0, 2, 3]]))]


def step_arrays(k):
    """Point data: a scalar and a 3-vector; cell data: a scalar and a 2-component array per block."""
    point_data = {
        "T": np.arange(5.0) * (k + 1) + 0.25,
        "U": np.arange(15.0).reshape(5, 3) - k,
    }
    cell_data = {
        "p": [np.array([10.0 + k]), np.array([-1.5, 2.0]) * (k + 1)],
        "q": [np.array([[1.0, 2.0]]) + k, np.array([[3.0, 4.0], [5.0, 6.0]]) * (k + 2)],
    }
    return point_data, cell_data


def write_series(writer_class, path, **options):
    with writer_class(path, **options) as writer:
        writer.write_points_cells(POINTS, CELLS)
        for k, t in enumerate(TIMES):
            writer.write_data(t, *step_arrays(k))
    return path


def check_reader(reader_class, path):
    with reader_class(path) as reader:
        assert reader.num_steps == len(TIMES)
        assert reader.times == TIMES  # exact
        points, cells = reader.read_points_cells()
        np.testing.assert_array_equal(points, POINTS)
        assert [block.type for block in cells] == [kind for kind, _ in CELLS]
        for block, (_, connectivity) in zip(cells, CELLS):
            np.testing.assert_array_equal(block.data, connectivity)
        assert not [name for name in reader.mesh.point_data if not name.startswith("gmsh:")]
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


def test_one_shared_writer_class():
    assert issubclass(mio.gmsh.TimeSeriesWriter, SharedWriter)
    assert issubclass(mio.med.TimeSeriesWriter, SharedWriter)
    assert mio.gmsh.TimeSeriesWriter.write_data is SharedWriter.write_data
    assert mio.med.TimeSeriesWriter.write_data is SharedWriter.write_data


# ---- Gmsh ------------------------------------------------------------------------------------

GMSH_VARIANTS = [
    {},
    {"binary": False},
    {"fmt_version": "2.2"},
    {"fmt_version": "2.2", "binary": False},
    {"fmt_version": "4.0", "binary": False},
]


@pytest.mark.parametrize("options", GMSH_VARIANTS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_gmsh_round_trip(tmp_path, options):
    path = write_series(mio.gmsh.TimeSeriesWriter, tmp_path / "steps.msh", **options)
    check_reader(mio.gmsh.TimeSeriesReader, path)
    head = path.read_bytes()[:40]
    version = options.get("fmt_version", "4.1")
    binary = options.get("binary", True)
    assert head.startswith(f"$MeshFormat\n{version} {1 if binary else 0} 8\n".encode())

    mesh = mio.read(path)  # every step, as "view[step k, time t]"
    for k, t in enumerate(TIMES):
        expected_points, expected_cells = step_arrays(k)
        suffix = f"[step {k}]" if t == k else f"[step {k}, time {t!r}]"
        for name, values in expected_points.items():
            np.testing.assert_array_equal(mesh.point_data[name + suffix], values)
        for name, per_block in expected_cells.items():
            for got, values in zip(mesh.cell_data[name + suffix], per_block):
                np.testing.assert_array_equal(got, values)


def test_gmsh_sections_carry_view_time_and_step(tmp_path):
    path = write_series(mio.gmsh.TimeSeriesWriter, tmp_path / "steps.msh", binary=False)
    lines = path.read_text().splitlines()
    headers = []
    for i, line in enumerate(lines):
        if line in ("$NodeData", "$ElementData"):
            assert lines[i + 1] == "1" and lines[i + 3] == "1" and lines[i + 5] == "4"
            headers.append((line, lines[i + 2], float(lines[i + 4]), [int(v) for v in lines[i + 6:i + 10]]))
    expected = []
    for k, t in enumerate(TIMES):
        expected += [("$NodeData", '"T"', t, [k, 1, 5, 0]), ("$NodeData", '"U"', t, [k, 3, 5, 0]),
                     ("$ElementData", '"p"', t, [k, 1, 3, 0]), ("$ElementData", '"q"', t, [k, 2, 3, 0])]
    assert headers == expected
    assert lines.count("$Nodes") == 1 and lines.count("$Elements") == 1  # the mesh once


@pytest.mark.parametrize("options", [{}, {"fmt_version": "2.2", "binary": False}], ids=["4.1-binary", "2.2-ascii"])
def test_gmsh_reads_our_file(tmp_path, options):
    gmsh = pytest.importorskip("gmsh")
    path = write_series(mio.gmsh.TimeSeriesWriter, tmp_path / "steps.msh", **options)
    gmsh.initialize(readConfigFiles=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.open(str(path))
        views = {}
        for tag in gmsh.view.getTags():
            name = gmsh.option.getString(f"View[{gmsh.view.getIndex(tag)}].Name")
            views[name] = tag
        assert sorted(views) == ["T", "U", "p", "q"]
        # MSH data sections make model-based views (getModelData); list-based ones
        # (getListData) come from .pos files, which this writer does not write.
        for k, t in enumerate(TIMES):
            expected_points, expected_cells = step_arrays(k)
            for name, values in expected_points.items():
                kind, tags, data, time, components = gmsh.view.getModelData(views[name], k)
                assert (kind, time) == ("NodeData", t)
                assert components == (values.shape[1] if values.ndim == 2 else 1)
                got = np.empty((len(POINTS), components))
                got[np.asarray(tags, dtype=np.int64) - 1] = np.asarray(data)
                np.testing.assert_array_equal(got.reshape(values.shape), values)
            for name, per_block in expected_cells.items():
                kind, tags, data, time, components = gmsh.view.getModelData(views[name], k)
                assert (kind, time) == ("ElementData", t)
                flat = np.concatenate([v.reshape(len(v), -1) for v in per_block])
                got = np.empty_like(flat)
                got[np.asarray(tags, dtype=np.int64) - 1] = np.asarray(data)  # element tags are block-major 1..n
                np.testing.assert_array_equal(got, flat)
    finally:
        gmsh.finalize()


def test_gmsh_element_node_data(tmp_path):
    path = tmp_path / "elno.msh"
    values = [np.arange(2.0).reshape(1, 2, 1), np.arange(6.0).reshape(2, 3, 1) + 10]
    with mio.gmsh.TimeSeriesWriter(path, binary=False) as writer:
        writer.write_points_cells(POINTS, CELLS)
        writer.write_data(0.5, cell_data={"e": values})
    assert "$ElementNodeData" in path.read_text()
    with mio.gmsh.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        _, _, cell_data = reader.read_data(0)
        for got, expected in zip(cell_data["e"], values):
            np.testing.assert_array_equal(got.reshape(expected.shape), expected)


# ---- MED -------------------------------------------------------------------------------------

needs_hdf5 = pytest.mark.skipif(not mio._core.features().get("hdf5"), reason="this build has no HDF5")


@needs_hdf5
def test_med_round_trip(tmp_path):
    path = write_series(mio.med.TimeSeriesWriter, tmp_path / "steps.med")
    check_reader(mio.med.TimeSeriesReader, path)
    mesh = mio.read(path)  # meshio's names: "name[i] - t"
    for k, t in enumerate(TIMES):
        expected_points, expected_cells = step_arrays(k)
        for name, values in expected_points.items():
            np.testing.assert_array_equal(mesh.point_data[f"{name}[{k}] - {t:g}"], values)
        for name, per_block in expected_cells.items():
            for got, values in zip(mesh.cell_data[f"{name}[{k}] - {t:g}"], per_block):
                np.testing.assert_array_equal(got, values)


@needs_hdf5
def test_med_layout(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = write_series(mio.med.TimeSeriesWriter, tmp_path / "steps.med")
    with h5py.File(path, "r") as f:
        assert list(f["ENS_MAA"]) == ["mesh"]
        assert list(f["ENS_MAA/mesh"]) == ["-0000000000000000001-0000000000000000001"]
        assert sorted(f["CHA"]) == ["T", "U", "p", "q"]
        components = {"T": 1, "U": 3, "p": 1, "q": 2}
        supports = {"T": ["NOE"], "U": ["NOE"], "p": ["MAI.SE2", "MAI.TR3"], "q": ["MAI.SE2", "MAI.TR3"]}
        for name, field in f["CHA"].items():
            assert field.attrs["NCO"] == components[name]
            assert field.attrs["MAI"] == b"mesh"
            assert field.attrs["TYP"] == 6
            assert list(field) == [f"{k:020d}{-1:020d}" for k in range(len(TIMES))]
            for k, (group_name, step) in enumerate(field.items()):
                assert group_name == f"{k:020d}-{1:019d}"
                assert (step.attrs["NDT"], step.attrs["NOR"], step.attrs["PDT"]) == (k, -1, TIMES[k])
                assert (step.attrs["RDT"], step.attrs["ROR"]) == (-1, -1)
                assert list(step) == supports[name]
                for support in step.values():
                    assert support.attrs["PFL"] == b"MED_NO_PROFILE_INTERNAL"
                    data = support["MED_NO_PROFILE_INTERNAL"]
                    assert data.attrs["NGA"] == 1
                    assert data["CO"].shape == (data.attrs["NBR"] * components[name],)
        # Fortran order: U at step 1 is (5, 3) column-major
        co = f["CHA/U"][f"{1:020d}{-1:020d}"]["NOE/MED_NO_PROFILE_INTERNAL/CO"][()]
        np.testing.assert_array_equal(co, step_arrays(1)[0]["U"].flatten(order="F"))


@needs_hdf5
def test_meshio_reads_step_zero(tmp_path):
    meshio = pytest.importorskip("meshio")
    path = write_series(mio.med.TimeSeriesWriter, tmp_path / "steps.med")
    mesh = meshio.read(path)
    np.testing.assert_array_equal(mesh.points, POINTS)
    assert [block.type for block in mesh.cells] == ["line", "triangle"]
    expected_points, expected_cells = step_arrays(0)
    key = f"[0] - {TIMES[0]:g}"
    for name, values in expected_points.items():
        np.testing.assert_array_equal(mesh.point_data[name + key], values)
    for name, per_block in expected_cells.items():
        for got, values in zip(mesh.cell_data[name + key], per_block):
            np.testing.assert_array_equal(got.reshape(values.shape), values)
    assert len([name for name in mesh.point_data if name.startswith("T[")]) == len(TIMES)


@needs_hdf5
def test_med_element_node_data(tmp_path):
    path = tmp_path / "elno.med"
    values = [np.arange(2.0).reshape(1, 2, 1), np.arange(6.0).reshape(2, 3, 1) + 10]
    with mio.med.TimeSeriesWriter(path) as writer:
        writer.write_points_cells(POINTS, CELLS)
        writer.write_data(0.5, cell_data={"e": values})
        writer.write_data(1.5, cell_data={"e": [v * 2 for v in values]})
    with mio.med.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        for k in range(2):
            _, _, cell_data = reader.read_data(k)
            for got, expected in zip(cell_data["e"], values):
                np.testing.assert_array_equal(got, expected * (k + 1))


# ---- bad use -----------------------------------------------------------------------------------

WRITERS = [pytest.param(("gmsh", "msh"), id="gmsh"), pytest.param(("med", "med"), id="med", marks=needs_hdf5)]


@pytest.mark.parametrize("format_", WRITERS)
def test_cell_data_block_count_mismatch(tmp_path, format_):
    name, extension = format_
    path = tmp_path / f"bad.{extension}"
    with pytest.raises(mio.WriteError, match="cell data 'p' has 1 arrays for 2 cell blocks") as raised:
        with getattr(mio, name).TimeSeriesWriter(path) as writer:
            writer.write_points_cells(POINTS, CELLS)
            writer.write_data(0.0, cell_data={"p": [np.array([1.0])]})
    assert str(path) in str(raised.value)
    assert raised.value.path == str(path)


@pytest.mark.parametrize("format_", WRITERS)
def test_rows_must_match(tmp_path, format_):
    name, extension = format_
    path = tmp_path / f"bad.{extension}"
    with getattr(mio, name).TimeSeriesWriter(path) as writer:
        writer.write_points_cells(POINTS, CELLS)
        with pytest.raises(mio.WriteError, match="point data 'T'") as raised:
            writer.write_data(0.0, point_data={"T": np.zeros(4)})
        assert raised.value.path == str(path)
        with pytest.raises(mio.WriteError, match="cell data 'p' block 1"):
            writer.write_data(0.0, cell_data={"p": [np.zeros(1), np.zeros(3)]})
        writer.write_data(0.0, point_data={"T": np.ones(5)})  # a rejected step wrote nothing
    with getattr(mio, name).TimeSeriesReader(path) as reader:
        assert reader.times == [0.0]
        reader.read_points_cells()
        np.testing.assert_array_equal(reader.read_data(0)[1]["T"], np.ones(5))


@pytest.mark.parametrize("format_", WRITERS)
def test_write_data_before_write_points_cells(tmp_path, format_):
    name, extension = format_
    path = tmp_path / f"bad.{extension}"
    writer = getattr(mio, name).TimeSeriesWriter(path)
    with pytest.raises(mio.WriteError, match="write_data\\(\\) before write_points_cells\\(\\)") as raised:
        with writer:
            writer.write_data(0.0, point_data={"T": np.zeros(5)})
    assert str(path) in str(raised.value)
    assert raised.value.path == str(path)
    assert not path.exists()
    # The core says the same when called directly.
    core = mio._core.create_time_series(str(path), name)
    with pytest.raises(mio.WriteError, match="write_data\\(\\) before write_points_cells\\(\\)") as raised:
        core.write_step(0.0, {"T": np.zeros(5)}, {})
    assert raised.value.path == str(path)
    del core
    assert not path.exists()


@pytest.mark.parametrize("format_", WRITERS)
def test_nothing_before_close(tmp_path, format_):
    name, extension = format_
    path = tmp_path / f"series.{extension}"
    path.write_bytes(b"old")
    writer = mio._core.create_time_series(str(path), name)
    writer.write_mesh(mio._conversion.to_core(mio.Mesh(POINTS, CELLS)))
    writer.write_step(0.0, {"T": np.zeros(5)}, {})
    assert path.read_bytes() == b"old"  # the target is replaced on close() only
    writer.close()
    assert path.read_bytes() != b"old"
    path.unlink()
    abandoned = mio._core.create_time_series(str(path), name)
    abandoned.write_mesh(mio._conversion.to_core(mio.Mesh(POINTS, CELLS)))
    del abandoned
    assert not path.exists()
    assert not [entry for entry in os.listdir(tmp_path) if entry != "series." + extension]


def test_gmsh_bad_options(tmp_path):
    with pytest.raises(mio.WriteError, match="fmt_version"):
        with mio.gmsh.TimeSeriesWriter(tmp_path / "x.msh", fmt_version="3.0"):
            pass
    with pytest.raises(mio.WriteError, match="unknown write option 'compression'"):
        mio._core.create_time_series(str(tmp_path / "x.msh"), "gmsh", {"compression": "gzip"})
    assert not (tmp_path / "x.msh").exists()
