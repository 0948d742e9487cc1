"""meshio's Python surface, as meshio code uses it: Mesh/CellBlock construction from anything
meshio accepts, sets <-> data, the format registry, exceptions, buffers, CLI, and PyVista's
meshio bridge (meshio 5.3.5 and PyVista from PyPI)."""

import io
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio

meshio = pytest.importorskip("meshio", reason="meshio 5.3.5 is in requirements-test.txt")

POINTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [2.0, 0.5, 0.0]])


def two_block_mesh():
    return mio.Mesh(POINTS, [("triangle", [[0, 1, 2], [0, 2, 3]]), ("line", [[1, 4], [4, 2], [0, 1]])])


# --- Mesh and CellBlock -------------------------------------------------------------------


def test_custom_and_lagrange_cell_types_are_kept():
    mesh = mio.Mesh(POINTS, [("VTK_LAGRANGE_TRIANGLE", [[0, 1, 2, 3, 4, 4]]), ("my_element", [[0, 1]])])
    assert [block.type for block in mesh.cells] == ["VTK_LAGRANGE_TRIANGLE", "my_element"]
    assert mesh.cells[0].dim == 2 and mesh.cells[1].dim is None
    assert mesh.cells[0].data.shape == (1, 6)


def test_meshio_cellblocks_and_lists_are_accepted():
    block = meshio.CellBlock("triangle", np.array([[0, 1, 2]]))
    mesh = mio.Mesh(POINTS.tolist(), [block, ["line", [[0, 1]]]])
    assert isinstance(mesh.cells[0], mio.CellBlock)
    assert mesh.cells[0].type == "triangle" and mesh.cells[1].type == "line"
    assert mesh.points.dtype == np.float64


def test_write_a_real_meshio_mesh_with_sets(tmp_path):
    theirs = meshio.Mesh(
        POINTS,
        [("triangle", np.array([[0, 1, 2], [0, 2, 3]])), ("line", np.array([[1, 4], [4, 2], [0, 1]]))],
        cell_data={"id": [np.array([1, 2]), np.array([3, 4, 5])]},
        point_sets={"corner": np.array([0, 4])},
        cell_sets={"left": [np.array([1]), np.array([0, 2])]},
    )
    target = tmp_path / "m.inp"
    mio.write(target, theirs)
    back = mio.read(target)
    assert sorted(back.point_sets) == ["corner"]
    np.testing.assert_array_equal(back.point_sets["corner"], [0, 4])
    assert [np.asarray(a).tolist() for a in back.cell_sets["left"]] == [[1], [0, 2]]
    # and the VTU writer turns the sets into integer data, as meshio does, without touching theirs
    mio.write(tmp_path / "m.vtu", theirs)
    assert "corner" in theirs.point_sets and not theirs.point_data
    vtu = mio.read(tmp_path / "m.vtu")
    np.testing.assert_array_equal(vtu.point_data["corner"], [0, -1, -1, -1, 0])
    assert [a.tolist() for a in vtu.cell_data["left"]] == [[-1, 0], [0, -1, 0]]


def test_writers_take_any_array_like(tmp_path):
    fortran = np.asfortranarray(POINTS)
    strided = np.array([[0, 9, 1, 9, 2], [0, 9, 2, 9, 3]], dtype=np.int32)[:, ::2]
    mesh = mio.Mesh(fortran, [("triangle", strided)], point_data={"T": np.arange(5, dtype=np.float32)[::-1]})
    mio.write(tmp_path / "a.vtu", mesh)
    back = mio.read(tmp_path / "a.vtu")
    np.testing.assert_array_equal(back.points, POINTS)
    np.testing.assert_array_equal(back.cells[0].data, [[0, 1, 2], [0, 2, 3]])
    np.testing.assert_array_equal(back.point_data["T"], [4, 3, 2, 1, 0])
    mio.write_points_cells(tmp_path / "b.vtk", POINTS.tolist(), {"triangle": [[0, 1, 2]]})
    assert len(mio.read(tmp_path / "b.vtk").cells[0]) == 1


def test_sets_are_dicts_that_write_through():
    mesh = two_block_mesh()
    mesh.cell_sets = {"a": [np.array([0]), np.array([1, 2])]}
    assert isinstance(mesh.cell_sets, dict)
    np.testing.assert_equal(mesh.cell_sets, {"a": [[0], [1, 2]]})
    assert [r.name for r in mesh.regions] == ["a"]
    np.testing.assert_array_equal(mesh.regions[0].entries, [0, 3, 4])  # block-major numbers
    mesh.cell_sets.pop("a")
    assert mesh.regions == [] and mesh.cell_sets == {}
    mesh.point_sets.update({"p": [1, 2]})
    assert mesh.region("p").kind == mio.RegionKind.POINT


def test_sets_to_data_and_back():
    mesh = two_block_mesh()
    mesh.point_sets = {"fixed": np.array([0, 1]), "loose": np.array([2, 3, 4])}
    mesh.cell_sets = {"g0": [np.array([0]), np.array([0, 1])], "g1": [np.array([1]), np.array([2])]}
    mesh.point_sets_to_data()
    mesh.cell_sets_to_data()
    assert mesh.point_sets == {} and mesh.cell_sets == {}
    np.testing.assert_array_equal(mesh.point_data["fixed-loose"], [0, 0, 1, 1, 1])
    assert [a.tolist() for a in mesh.cell_data["g0-g1"]] == [[0, 1], [0, 0, 1]]
    mesh.cell_data_to_sets("g0-g1")
    mesh.point_data_to_sets("fixed-loose")
    np.testing.assert_equal(mesh.cell_sets, {"g0": [[0], [0, 1]], "g1": [[1], [2]]})
    np.testing.assert_equal(mesh.point_sets, {"fixed": [0, 1], "loose": [2, 3, 4]})
    with pytest.raises(RuntimeError):
        mesh.point_data["x"] = np.zeros(5)
        mesh.point_data_to_sets("x")


def test_sets_to_data_warns_for_cells_in_no_set():
    mesh = two_block_mesh()
    mesh.cell_sets = {"only": [np.array([0]), None]}
    with pytest.warns(UserWarning, match="not part of any cell set"):
        mesh.cell_sets_to_data()
    assert [a.tolist() for a in mesh.cell_data["only"]] == [[0, -1], [-1, -1, -1]]


def test_meshio_helpers(tmp_path):
    mesh = mio.Mesh(POINTS, [("triangle", [[0, 1, 2]]), ("line", [[0, 1]]), ("triangle", [[0, 2, 3]])],
                    cell_data={"a": [[1.0], [2.0], [3.0]]})
    np.testing.assert_array_equal(mesh.get_cells_type("triangle"), [[0, 1, 2], [0, 2, 3]])
    assert mesh.get_cells_type("tetra").shape == (0, 4)
    np.testing.assert_array_equal(mesh.get_cell_data("a", "triangle"), [1.0, 3.0])
    np.testing.assert_equal(mesh.cells_dict["triangle"], [[0, 1, 2], [0, 2, 3]])
    np.testing.assert_equal(mesh.cell_data_dict, {"a": {"triangle": [1.0, 3.0], "line": [2.0]}})
    mesh.cell_sets = {"s": [np.array([0]), np.array([], dtype=int), np.array([0])]}
    np.testing.assert_equal(mesh.cell_sets_dict, {"s": {"triangle": [0, 1]}})
    copy = mesh.copy()
    assert not np.may_share_memory(copy.points, mesh.points)
    assert "Cell sets: s" in repr(mesh)
    mio.write(tmp_path / "m.vtu", mesh)
    with pytest.warns(DeprecationWarning):
        assert len(mio.Mesh.read(tmp_path / "m.vtu").cells) == 3


# --- polygons and polyhedra as meshio shows them --------------------------------------------


def test_polygons_come_back_rectangular_one_block_per_corner_count(tmp_path):
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [2, 0, 0], [2, 1, 0], [3, 0.5, 0]], dtype=float)
    ragged = [[0, 1, 2, 3], [1, 4, 5, 2], [4, 6, 5], [2, 5, 6, 3, 0]]
    mesh = mio.Mesh(points, [("polygon", ragged)], cell_data={"id": [np.arange(4)]})
    mesh.cell_sets = {"odd": [np.array([1, 3])]}
    mio.write(tmp_path / "p.vtu", mesh)
    back = mio.read(tmp_path / "p.vtu")
    assert [(b.type, b.data.shape) for b in back.cells] == [("polygon", (2, 4)), ("polygon", (1, 3)), ("polygon", (1, 5))]
    assert back.cells[0].data[0, 0] == 0
    assert [a.tolist() for a in back.cell_data["id"]] == [[0, 1], [2], [3]]
    assert [a.tolist() for a in back.cell_data["odd"]] == [[-1, 0], [-1], [0]]
    # meshio reads the same blocks
    theirs = meshio.read(tmp_path / "p.vtu")
    assert [(b.type, b.data.shape) for b in theirs.cells] == [(b.type, b.data.shape) for b in back.cells]


def test_polyhedra_are_named_by_node_count(tmp_path):
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)
    tet = [[1, 2, 5], [1, 2, 7], [1, 5, 7], [2, 5, 7]]
    pyramid = [[0, 1, 2, 3], [0, 1, 7], [1, 2, 7], [2, 3, 7], [3, 0, 7]]
    mesh = mio.Mesh(points, [("polyhedron4", [tet]), ("polyhedron5", [pyramid])])
    mio.write(tmp_path / "p.vtu", mesh)
    back = mio.read(tmp_path / "p.vtu")
    assert [b.type for b in back.cells] == ["polyhedron4", "polyhedron5"]
    assert [face.tolist() for face in back.cells[1].data[0]] == pyramid


# --- the format registry, exceptions, buffers ----------------------------------------------


def test_missing_file_is_read_error_and_file_not_found():
    with pytest.raises(mio.ReadError) as caught:
        mio.read("no/such/file.vtu")
    assert isinstance(caught.value, FileNotFoundError)


def test_unknown_extension_is_read_error_on_read_and_write(tmp_path):
    (tmp_path / "x.unknown").write_text("x")
    with pytest.raises(mio.ReadError):
        mio.read(tmp_path / "x.unknown")
    with pytest.raises(mio.ReadError):
        mio.write(tmp_path / "y.unknown", two_block_mesh())
    with pytest.raises(mio.WriteError):
        mio.write(tmp_path / "y.vtu", two_block_mesh(), file_format="no-such-writer")


def test_register_and_deregister_a_python_format(tmp_path):
    from meshioplusplus import _helpers

    def reader(path):
        return mio.Mesh(np.loadtxt(path).reshape(-1, 3), [])

    def writer(path, mesh, **options):
        np.savetxt(path, mesh.points)

    mio.register_format("pointlist", [".pointlist"], reader, {"pointlist": writer})
    try:
        assert "pointlist" in _helpers.reader_map and "pointlist" in _helpers._writer_map
        mio.write(tmp_path / "p.pointlist", two_block_mesh())
        np.testing.assert_array_equal(mio.read(tmp_path / "p.pointlist").points, POINTS)
    finally:
        mio.deregister_format("pointlist")
    assert "pointlist" not in _helpers.reader_map
    with pytest.raises(mio.ReadError):
        mio.read(tmp_path / "p.pointlist")
    assert "vtu" in _helpers.reader_map and "vtk42" in _helpers._writer_map


def test_vtk42_and_vtk51_writer_names(tmp_path):
    mio.write(tmp_path / "a.vtk", two_block_mesh(), file_format="vtk42", binary=False)
    mio.write(tmp_path / "b.vtk", two_block_mesh(), file_format="vtk51", binary=False)
    assert (tmp_path / "a.vtk").read_text().splitlines()[0].endswith("4.2")
    assert (tmp_path / "b.vtk").read_text().splitlines()[0].endswith("5.1")


def test_text_and_binary_buffers(tmp_path):
    mesh = two_block_mesh()
    text = io.StringIO()
    mio.write(text, mesh, file_format="obj")
    back = mio.read(io.StringIO(text.getvalue()), file_format="obj")
    np.testing.assert_array_equal(back.points, POINTS)
    mio.write(tmp_path / "m.ply", mesh, binary=False)
    with open(tmp_path / "m.ply") as handle:  # text mode, as meshio users open ASCII files
        assert len(mio.read(handle, "ply").points) == 5
    binary = io.BytesIO()
    mio.write(binary, mesh, file_format="vtu")
    binary.seek(0)
    assert len(mio.read(binary, "vtu").cells) == 2
    with pytest.raises(mio.WriteError, match="binary mode"):
        mio.write(io.StringIO(), mesh, file_format="stl", binary=True)


# --- command line -------------------------------------------------------------------------


def test_meshio_cli_subcommands(tmp_path, capsys):
    target = tmp_path / "m.vtu"
    mio.write(target, two_block_mesh())
    assert mio._cli.main(["decompress", str(target)]) == 0
    assert b'compressor="' not in target.read_bytes()
    assert mio._cli.main(["compress", str(target)]) == 0
    assert b"vtkZLibDataCompressor" in target.read_bytes()
    assert mio._cli.main(["ascii", str(target)]) == 0
    assert b'format="ascii"' in target.read_bytes()
    assert mio._cli.main(["binary", str(target)]) == 0
    assert b'format="ascii"' not in target.read_bytes()
    out = tmp_path / "o.vtk"
    assert mio._cli.main(["convert", str(target), str(out), "-o", "vtk", "--sets-to-int-data"]) == 0
    assert mio._cli.main(["info", str(out), "-i", "vtk"]) == 0
    assert "points: 5" in capsys.readouterr().out


def test_cli_speaks_cli(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "meshioplusplus", *map(str, args)], capture_output=True, text=True)

    version = run("--version")
    assert version.returncode == 0 and mio.__version__ in version.stdout
    mio.write(tmp_path / "m.vtu", two_block_mesh())
    done = run("convert", tmp_path / "m.vtu", tmp_path / "m.unknownext")
    assert done.returncode == 1 and "-o/--output-format" in done.stderr
    done = run("info", tmp_path)
    assert done.returncode == 1 and "is a directory" in done.stderr
    done = run("convert", tmp_path / "m.vtu", tmp_path / "m.obj", "--ascii")  # text-only: ignored
    assert done.returncode == 0, done.stderr
    done = run("convert", tmp_path / "m.vtu", tmp_path / "m.inp", "--drop", "line")
    assert done.returncode == 0 and "dropped cell blocks of type line" in done.stderr
    assert [b.type for b in mio.read(tmp_path / "m.inp").cells] == ["triangle"]


# --- PyVista's meshio bridge --------------------------------------------------------------


def test_pyvista_bridge_both_ways(tmp_path):
    pyvista = pytest.importorskip("pyvista", reason="pyvista is in requirements-test.txt")
    mesh = two_block_mesh()
    mesh.cell_sets = {"left": [np.array([0]), np.array([1])]}
    mesh.point_data["T"] = np.arange(5.0)
    grid = pyvista.from_meshio(mesh)
    assert grid.n_points == 5 and grid.n_cells == 5
    np.testing.assert_array_equal(grid.point_data["T"], np.arange(5.0))
    back = pyvista.to_meshio(grid)
    mio.write(tmp_path / "from_pyvista.vtu", back)
    again = mio.read(tmp_path / "from_pyvista.vtu")
    assert sum(len(b) for b in again.cells) == 5
    np.testing.assert_array_equal(again.point_data["T"], np.arange(5.0))


def test_info_formats_lists_the_optional_libraries(capsys):
    assert mio._cli.main(["info", "--formats"]) == 0
    out = capsys.readouterr().out
    for name in ("hdf5", "netcdf", "cgns", "zlib", "lzma", "lz4", "xdmf", "exodus"):
        assert name in out


def test_pvd_time_series_reader_reads_steps_lazily():
    from conftest import corpus_file

    path = corpus_file("pvd/singleSphereAnimation.pvd")
    with mio.pvd.TimeSeriesReader(path) as reader:
        points, cells = reader.read_points_cells()
        assert reader.num_steps == 11 and reader.times[:3] == [0.0, 1.0, 2.0]
        t, point_data, cell_data = reader.read_data(3)
        assert t == 3.0 and "Normals" in point_data
        assert len(point_data["Normals"]) == len(points)
        with pytest.raises(IndexError):
            reader.read_data(11)
