"""MED files with several meshes (``meshioplusplus.med.read(path, mesh_name=)``,
``meshioplusplus.med.mesh_names``): two meshes meshio writes to files of their own, put into one
file with h5py in MED's layout (each mesh under ENS_MAA and FAS by its name, each field under CHA
naming its mesh in MAI), the way Salome and code_aster files hold several meshes.

meshio 5.3.5 refuses such a file ("Must only contain exactly 1 mesh"); it reads each source
file, and each named mesh read here must be what meshio reads from that mesh's own file."""

import io

import numpy as np
import pytest

import meshioplusplus as mio

meshio = pytest.importorskip("meshio")
h5py = pytest.importorskip("h5py")

if not mio._core.features().get("hdf5"):
    pytest.skip("this build has no HDF5", allow_module_level=True)


def _plate():
    points = np.array([[0.0, 0.0], [1, 0], [1, 1], [0, 1], [2, 0.5]])
    mesh = meshio.Mesh(points, [("quad", np.array([[0, 1, 2, 3]])), ("triangle", np.array([[1, 4, 2]]))],
                       point_data={"T": np.arange(5.0), "point_tags": np.array([0, 0, 1, 1, 0])},
                       cell_data={"P": [np.array([1.5]), np.array([2.5])],
                                  "cell_tags": [np.array([-1]), np.array([0])]})
    mesh.point_tags = {1: ["Top"]}
    mesh.cell_tags = {-1: ["Square"]}
    return mesh


def _block():
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    return meshio.Mesh(points, [("tetra", np.array([[0, 1, 2, 3]]))],
                       point_data={"U": np.arange(12.0).reshape(4, 3)})


MESHES = {"Mesh_2D": _plate, "Mesh_3D": _block}


def _merge(sources, target, names=None):
    """One MED file holding the (single) mesh of each source file under its name in `names`."""
    with h5py.File(target, "w") as out:
        for key, source in sources.items():
            name = (names or {}).get(key, key)
            with h5py.File(source, "r") as f:
                if "INFOS_GENERALES" not in out:
                    f.copy(f["INFOS_GENERALES"], out)
                f.copy(f["ENS_MAA/mesh"], out.require_group("ENS_MAA"), name=name)
                f.copy(f["FAS/mesh"], out.require_group("FAS"), name=name)
                for field in f.get("CHA", {}):
                    f.copy(f["CHA"][field], out.require_group("CHA"), name=field)
                    out["CHA"][field].attrs["MAI"] = np.bytes_(name if isinstance(name, bytes) else name.encode())


@pytest.fixture()
def two_meshes(tmp_path):
    """(the two-mesh file, {mesh name: the file meshio wrote it to}); Mesh_3D written first."""
    sources = {}
    for name in reversed(list(MESHES)):
        sources[name] = tmp_path / f"{name}.med"
        meshio.write(sources[name], MESHES[name]())
    path = tmp_path / "study.med"
    _merge(sources, path)
    return path, sources


def _assert_same(mesh, reference):
    np.testing.assert_array_equal(mesh.points, reference.points)
    assert [(c.type, c.data.tolist()) for c in mesh.cells] == [(c.type, c.data.tolist()) for c in reference.cells]
    assert sorted(mesh.point_data) == sorted(reference.point_data)
    for name, values in reference.point_data.items():
        np.testing.assert_array_equal(mesh.point_data[name], values)
    assert sorted(mesh.cell_data) == sorted(reference.cell_data)
    for name, blocks in reference.cell_data.items():
        for ours, theirs in zip(mesh.cell_data[name], blocks):
            np.testing.assert_array_equal(ours, theirs)
    # meshio sets both (empty dicts where the file has no families): so does meshio++
    assert mesh.point_tags == reference.point_tags
    assert mesh.cell_tags == reference.cell_tags


def test_a_file_without_families_has_empty_tags_as_in_meshio(tmp_path):
    meshio = pytest.importorskip("meshio")
    path = tmp_path / "plain.med"
    mio.write(path, mio.Mesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.0]]), [("triangle", np.array([[0, 1, 2]]))]))
    reference = meshio.read(path)
    assert reference.point_tags == reference.cell_tags == {}
    for mesh in (mio.read(path), mio.med.read(path), mio.read(path, file_format="med")):
        assert mesh.point_tags == {} and mesh.cell_tags == {}


def test_mesh_names_in_file_order(two_meshes):
    path, _ = two_meshes
    with h5py.File(path, "r") as f:
        listed = list(f["ENS_MAA"])
    assert mio.med.mesh_names(path) == listed == ["Mesh_2D", "Mesh_3D"]
    assert mio.med.mesh_names(str(path)) == listed


def test_each_named_mesh_is_what_meshio_reads_from_its_own_file(two_meshes):
    path, sources = two_meshes
    for name, source in sources.items():
        _assert_same(mio.med.read(path, mesh_name=name), meshio.read(source))


def test_only_the_named_meshs_fields(two_meshes):
    path, _ = two_meshes
    plate, block = (mio.med.read(path, mesh_name=name) for name in MESHES)
    assert "T" in plate.point_data and "U" not in plate.point_data and "P" in plate.cell_data
    assert "U" in block.point_data and "T" not in block.point_data and "P" not in block.cell_data
    assert block.point_data["U"].shape == (4, 3)
    assert set(plate.point_sets) == {"Top"} and not block.point_sets


def test_the_first_mesh_by_default_where_meshio_refuses(two_meshes):
    path, sources = two_meshes
    first = mio.med.read(path)
    _assert_same(first, meshio.read(sources["Mesh_2D"]))
    _assert_same(mio.read(path), meshio.read(sources["Mesh_2D"]))
    with pytest.raises(meshio.ReadError, match="exactly 1 mesh"):
        meshio.med.read(path)  # (meshio.read prints this and exits)
    # A buffer, as the package's read takes one: the first mesh.
    _assert_same(mio.med.read(io.BytesIO(path.read_bytes())), meshio.read(sources["Mesh_2D"]))
    with pytest.raises(mio.ReadError, match="file path"):
        mio.med.read(io.BytesIO(path.read_bytes()), mesh_name="Mesh_3D")


def test_an_unknown_name_lists_the_meshes(two_meshes):
    path, _ = two_meshes
    with pytest.raises(mio.ReadError, match="no mesh named 'Mesh_4D'; the file's meshes: 'Mesh_2D', 'Mesh_3D'") as caught:
        mio.med.read(path, mesh_name="Mesh_4D")
    assert str(path) in str(caught.value)
    assert caught.value.path == str(path)
    with pytest.raises(mio.ReadError, match="'Mesh_2D', 'Mesh_3D'"):
        mio.med.TimeSeriesReader(path, mesh_name="Mesh_4D")
    with pytest.raises(mio.MissingFileError):
        mio.med.read(path.with_name("absent.med"), mesh_name="Mesh_2D")
    with pytest.raises(mio.MissingFileError):
        mio.med.mesh_names(path.with_name("absent.med"))


def test_time_series_of_a_named_mesh(two_meshes):
    path, sources = two_meshes
    with mio.med.TimeSeriesReader(path, mesh_name="Mesh_3D") as reader:
        assert reader.num_steps == 1
        points, cells = reader.read_points_cells()
        np.testing.assert_array_equal(points, meshio.read(sources["Mesh_3D"]).points)
        t, point_data, cell_data = reader.read_data(0)
        assert list(point_data) == ["U"] and not cell_data
    with mio.med.TimeSeriesReader(path) as reader:  # the first mesh's
        reader.read_points_cells()
        assert reader.mesh.cells[0].type == "quad"
        assert sorted(reader.read_data(0)[1]) == ["T"]


def test_time_series_of_a_named_mesh_isolated(two_meshes):
    """``mesh_name=`` travels to the worker: the isolated series is the named mesh's, equal to the
    in-process one, and an unknown name is the same ReadError from the worker."""
    from meshioplusplus import _isolation

    path, _ = two_meshes
    with mio.med.TimeSeriesReader(path, mesh_name="Mesh_3D") as here, \
            mio.med.TimeSeriesReader(path, mesh_name="Mesh_3D", isolate=True, timeout=60) as there:
        assert isinstance(there._reader, _isolation.IsolatedSeries)
        assert there.num_steps == here.num_steps == 1 and there.times == here.times
        np.testing.assert_array_equal(there.read_points_cells()[0], here.read_points_cells()[0])
        assert [b.type for b in there.mesh.cells] == [b.type for b in here.mesh.cells]
        t_here, point_here, _ = here.read_data(0)
        t_there, point_there, cell_there = there.read_data(0)
        assert t_there == t_here and list(point_there) == ["U"] and not cell_there
        np.testing.assert_array_equal(point_there["U"], point_here["U"])
    with mio.med.TimeSeriesReader(path, isolate=True) as first:  # no name: the first mesh's
        first.read_points_cells()
        assert first.mesh.cells[0].type == "quad" and sorted(first.read_data(0)[1]) == ["T"]
    with pytest.raises(mio.ReadError, match="'Mesh_2D', 'Mesh_3D'"):
        mio.med.TimeSeriesReader(path, mesh_name="Mesh_4D", isolate=True)


def test_a_latin1_mesh_name_read_back_by_its_listed_name(tmp_path):
    """Names are decoded UTF-8, else Latin-1 (docs/errors.md); the listed name reads its mesh."""
    source = tmp_path / "block.med"
    meshio.write(source, _block())
    path = tmp_path / "latin1.med"
    _merge({"Mesh_3D": source}, path, names={"Mesh_3D": b"maillage_\xe9"})
    assert mio.med.mesh_names(path) == ["maillage_\xe9"]
    _assert_same(mio.med.read(path, mesh_name="maillage_\xe9"), meshio.read(source))
