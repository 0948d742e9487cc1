"""FLAC3D through meshio++ and meshio, both directions, ASCII and binary."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module


def grid_mesh():
    """Positively oriented zones of every FLAC3D type (meshio 5.3.5 cannot write face
    blocks: its zone translation asserts on them) and a zone group."""
    points = np.array(
        [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1], [0.5, 0.5, 2.0]],
        dtype=np.float64,
    ) + np.random.default_rng(3).random((9, 3)) * 1e-3
    cells = [
        ("tetra", np.array([[0, 1, 3, 4]])),
        ("pyramid", np.array([[4, 5, 6, 7, 8]])),
        ("hexahedron", np.array([[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 4, 5, 6, 7]])),
    ]
    return points, cells


def meshio_set_to_block_local(mesh, cell_set):
    """meshio 5.3.5's FLAC3D reader stores cell_sets as indices into the concatenation of
    all blocks (it splits the global indices per block but never subtracts the block's
    start), while meshio's own convention — what its writer and Mesh.cell_sets_to_data
    expect — is indices local to each block. Subtract the block starts to compare."""
    starts = np.cumsum([0] + [len(block) for block in mesh.cells[:-1]])
    return [np.asarray(x) - start for x, start in zip(cell_set, starts)]


def test_meshio_reader_cell_sets_are_not_block_local(tmp_path):
    """Pins the meshio 5.3.5 bug worked around above: a zone group holding the second
    hexahedron (zone 4 after a tetra and a pyramid) reads back as index 3 in the hexahedron
    block of two, so meshio's own cell_sets_to_data indexes out of bounds."""
    meshio = meshio_module()
    points, cells = grid_mesh()
    mesh = mio.Mesh(points, cells)
    mesh.cell_sets["zone:soil:Default"] = [np.array([0]), np.array([], dtype=np.int64), np.array([1])]
    path = tmp_path / "ours.f3grid"
    mio.flac3d.write(path, mesh)
    assert "ZGROUP \"soil\" SLOT Default\n1 4\n" in path.read_text()
    theirs = meshio.read(path)
    np.testing.assert_array_equal(theirs.cell_sets["zone:soil:Default"][2], [3])  # block-local would be [1]
    with pytest.raises(IndexError):
        theirs.cell_sets_to_data()


def test_meshio_writer_shifts_callers_cell_sets(tmp_path):
    """Pins a second meshio 5.3.5 FLAC3D bug: write() turns the caller's block-local
    cell_sets arrays into global ones in place (split_f_z does `block += gid`)."""
    meshio = meshio_module()
    points, cells = grid_mesh()
    rock = [np.array([0]), np.array([0]), np.array([0, 1])]
    meshio.flac3d.write(tmp_path / "theirs.f3grid", meshio.Mesh(points, cells, cell_sets={"rock": rock}))
    for x, y in zip(rock, [[0], [1], [2, 3]]):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("binary", [False, True])
def test_our_files_read_equal_in_meshio(tmp_path, binary):
    meshio = meshio_module()
    points, cells = grid_mesh()
    mesh = mio.Mesh(points, cells)
    soil = [np.array([0]), np.array([], dtype=np.int64), np.array([1])]
    mesh.cell_sets["zone:soil:Default"] = soil
    path = tmp_path / "ours.f3grid"
    mio.flac3d.write(path, mesh, binary=binary)
    theirs = meshio.read(path)
    ours = mio.read(path)
    assert_same_mesh(theirs, ours)
    np.testing.assert_array_equal(theirs.points, points)
    for block, (_, data) in zip(ours.cells, cells):
        np.testing.assert_array_equal(block.data, data)
    assert set(theirs.cell_sets) == set(ours.cell_sets) == {"zone:soil:Default"}
    # meshio's reader leaves the indices global: see meshio_set_to_block_local.
    their_soil = meshio_set_to_block_local(theirs, theirs.cell_sets["zone:soil:Default"])
    for x, y, z in zip(their_soil, ours.cell_sets["zone:soil:Default"], soil, strict=True):
        np.testing.assert_array_equal(x, np.asarray(y))
        np.testing.assert_array_equal(np.asarray(y), z)


@pytest.mark.parametrize("binary", [False, True])
def test_meshio_files_read_equal_in_ours(tmp_path, binary):
    meshio = meshio_module()
    points, cells = grid_mesh()
    rock = [[0], [0], [0, 1]]
    # Fresh arrays: meshio's writer shifts them in place (test_meshio_writer_shifts_callers_cell_sets).
    mesh = meshio.Mesh(points, cells, cell_sets={"rock": [np.array(x) for x in rock]})
    path = tmp_path / "theirs.f3grid"
    meshio.flac3d.write(path, mesh, binary=binary)
    theirs = meshio.read(path)
    ours = mio.read(path)
    # meshio's ASCII writer uses float_fmt=".16e", which round-trips float64.
    assert_same_mesh(ours, theirs)
    # meshio names the slot "1" in ASCII and "Default" in binary.
    name = "zone:rock:" + ("Default" if binary else "1")
    assert set(ours.cell_sets) == set(theirs.cell_sets) == {name}
    # meshio's reader leaves the indices global: see meshio_set_to_block_local.
    their_rock = meshio_set_to_block_local(theirs, theirs.cell_sets[name])
    for x, y, z in zip(ours.cell_sets[name], their_rock, rock, strict=True):
        np.testing.assert_array_equal(np.asarray(x), y)
        np.testing.assert_array_equal(np.asarray(x), z)


def test_meshio_wedge_convention_is_kept(tmp_path):
    """A wedge goes through meshio's FLAC3D numbering the same way in both tools."""
    meshio = meshio_module()
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1]], dtype=np.float64)
    path = tmp_path / "wedge.f3grid"
    meshio.flac3d.write(path, meshio.Mesh(points, [("wedge", np.array([[0, 1, 2, 3, 4, 5]]))]))
    np.testing.assert_array_equal(mio.read(path).cells[0].data, meshio.read(path).cells[0].data)
    ours = tmp_path / "ours_wedge.f3grid"
    mio.write(ours, mio.Mesh(points, [("wedge", np.array([[0, 1, 2, 3, 4, 5]]))]))
    np.testing.assert_array_equal(meshio.read(ours).cells[0].data, meshio.read(path).cells[0].data)
