"""OFF through meshio++ and meshio, both directions."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module


def off_mesh(cells=None, dim=3):
    rng = np.random.default_rng(12)
    points = rng.standard_normal((8, dim))
    if cells is None:
        cells = [("triangle", rng.integers(0, 8, size=(6, 3)))]
    return mio.Mesh(points, cells)


def test_our_files_read_equal_in_meshio(tmp_path):
    meshio = meshio_module()
    mesh = off_mesh()
    path = tmp_path / "ours.off"
    mio.off.write(path, mesh)
    # Shortest round-trip numbers: exact.
    for read in (meshio.read(path), mio.read(path)):
        np.testing.assert_array_equal(np.asarray(read.points), np.asarray(mesh.points))
        assert [c.type for c in read.cells] == ["triangle"]
        np.testing.assert_array_equal(np.asarray(read.cells[0].data), np.asarray(mesh.cells[0].data))


def test_planar_points_get_zero_z(tmp_path):
    meshio = meshio_module()
    mesh = off_mesh(dim=2)
    path = tmp_path / "planar.off"
    mio.off.write(path, mesh)
    theirs = meshio.read(path)
    np.testing.assert_array_equal(theirs.points, np.column_stack([np.asarray(mesh.points), np.zeros(8)]))
    np.testing.assert_array_equal(theirs.cells[0].data, np.asarray(mesh.cells[0].data))


def test_meshio_files_read_equal_in_ours(tmp_path):
    meshio = meshio_module()
    mesh = off_mesh()
    path = tmp_path / "theirs.off"
    meshio.off.write(path, meshio.Mesh(np.asarray(mesh.points), [("triangle", np.asarray(mesh.cells[0].data))]))
    # meshio writes "{}".format(np.float64): shortest round-trip text, exact.
    ours = mio.read(path)
    np.testing.assert_array_equal(np.asarray(ours.points), np.asarray(mesh.points))
    assert [c.type for c in ours.cells] == ["triangle"]
    np.testing.assert_array_equal(np.asarray(ours.cells[0].data), np.asarray(mesh.cells[0].data))


@pytest.mark.parametrize("cell_type, cells", [
    ("quad", np.array([[0, 1, 2, 3], [4, 5, 6, 7]])),
    ("polygon", np.array([[0, 1, 2, 3, 4, 5, 6]])),
    ("line", np.array([[0, 1], [2, 3]])),
    ("vertex", np.array([[0], [5]])),
])
def test_meshio_reads_triangles_only(tmp_path, cell_type, cells):
    # meshio 5.3.5 reads every face as "3 a b c" and refuses any other corner count
    # (ReadError, or ValueError where the numbers do not fill whole 4-value rows). We write and
    # read every face kind OFF holds.
    meshio = meshio_module()
    mesh = off_mesh([(cell_type, cells)])
    path = tmp_path / f"{cell_type}.off"
    mio.off.write(path, mesh)
    # meshio.read would turn the ReadError into SystemExit (it prints and exits when the
    # one format it deduced fails), so the format's reader is called directly.
    with pytest.raises((meshio.ReadError, ValueError)):
        meshio.off.read(path)
    ours = mio.read(path)
    assert [c.type for c in ours.cells] == [cell_type]
    np.testing.assert_array_equal(np.asarray(ours.cells[0].data), cells)
    np.testing.assert_array_equal(np.asarray(ours.points), np.asarray(mesh.points))


@pytest.mark.parametrize("name, keyword", [("off:normal", "NOFF"), ("off:color", "COFF"), ("off:texcoord", "STOFF")])
def test_meshio_reads_plain_off_only(tmp_path, name, keyword):
    # Vertex normals/colours/texture coordinates make the keyword NOFF/COFF/STOFF; meshio
    # 5.3.5 accepts nothing but "OFF" on the first line.
    meshio = meshio_module()
    mesh = off_mesh()
    width = {"off:normal": 3, "off:color": 3, "off:texcoord": 2}[name]
    mesh.point_data[name] = np.random.default_rng(1).random((8, width))
    path = tmp_path / "extra.off"
    mio.off.write(path, mesh)
    assert path.read_text().startswith(keyword + "\n")
    with pytest.raises(meshio.ReadError, match="OFF"):
        meshio.off.read(path)
    with pytest.raises(SystemExit):  # meshio.read exits the interpreter on a ReadError
        meshio.read(path)
    np.testing.assert_array_equal(np.asarray(mio.read(path).point_data[name]), mesh.point_data[name])


def test_meshio_writer_drops_non_triangles(tmp_path, capsys):
    # meshio 5.3.5's writer keeps triangles only (message on stderr, no exception).
    meshio = meshio_module()
    mesh = off_mesh()
    quads = np.array([[0, 1, 2, 3]])
    path = tmp_path / "theirs.off"
    meshio.off.write(path, meshio.Mesh(np.asarray(mesh.points), [("triangle", np.asarray(mesh.cells[0].data)), ("quad", quads)]))
    assert "Skipping quad" in capsys.readouterr().err
    ours = mio.read(path)
    assert [c.type for c in ours.cells] == ["triangle"]
