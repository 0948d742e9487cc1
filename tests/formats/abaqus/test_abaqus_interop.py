"""Abaqus .inp through meshio++ and meshio, both directions, with and without translated
element names."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module

# Every type both sides name in 3-D (we write T3D2 T3D3 S3 STRI65 S4 S8R S9R5 C3D4 C3D10 C3D6
# C3D15 C3D8 C3D20), without pyramid (C3D5, unknown to meshio: test_meshio_has_no_pyramid).
SPATIAL = ("line", "line3", "triangle", "triangle6", "quad", "quad8", "quad9", "tetra", "tetra10",
           "wedge", "wedge15", "hexahedron", "hexahedron20")
# With 2-D points we write T2D2 T2D3 CPS3 CPS6 CPS4 CPS8 M3D9; meshio knows the first three
# (and T2D3, which it does not reorder).
PLANAR = ("line", "triangle", "quad")
PLANAR_UNKNOWN_TO_MESHIO = {"triangle6": "CPS6", "quad8": "CPS8", "quad9": "M3D9"}


def abaqus_mesh(cell_types=SPATIAL, dim=3, with_sets=True):
    rng = np.random.default_rng(17)
    points = rng.random((40, dim))
    cells = [(t, rng.integers(0, 40, size=(3, mio.num_nodes_per_cell[t]), dtype=np.int64)) for t in cell_types]
    point_sets, cell_sets = {}, {}
    if with_sets:
        point_sets = {"fixed": np.array([0, 3, 4, 17, 39]), "load": np.arange(5, 30)}
        cell_sets = {"steel": [np.array([0, 2]) if k % 2 else np.array([1], dtype=np.int64) for k in range(len(cells))],
                     "first": [np.arange(3) if k == 0 else np.array([], dtype=np.int64) for k in range(len(cells))]}
    return mio.Mesh(points, cells, point_sets=point_sets, cell_sets=cell_sets)


def assert_same_abaqus(read, mesh, line3_as_written=False):
    # Both writers use full precision (shortest round-trip text; meshio "%.16e"): exact.
    np.testing.assert_array_equal(np.asarray(read.points), np.asarray(mesh.points))
    assert [c.type for c in read.cells] == [c.type for c in mesh.cells]
    for x, y in zip(read.cells, mesh.cells):
        expected = np.asarray(y.data)
        if line3_as_written and y.type == "line3":
            # meshio 5.3.5 does not reorder 3-node trusses/beams: Abaqus numbers the middle
            # node second, meshio's (VTK's) line3 has it last.
            expected = expected[:, [0, 2, 1]]
        np.testing.assert_array_equal(np.asarray(x.data), expected)
    assert set(read.point_sets) == set(mesh.point_sets)
    for name, value in mesh.point_sets.items():
        np.testing.assert_array_equal(np.asarray(read.point_sets[name]), np.asarray(value))
    assert set(read.cell_sets) == set(mesh.cell_sets)
    for name, arrays in mesh.cell_sets.items():
        assert len(read.cell_sets[name]) == len(arrays)
        for x, y in zip(read.cell_sets[name], arrays):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_our_files_read_equal_in_meshio(tmp_path, meshio_knows_wedge15_pyramid13):
    meshio = meshio_module()
    mesh = abaqus_mesh()
    path = tmp_path / "ours.inp"
    mio.abaqus.write(path, mesh)  # translate_cell_names=True is the default, as in meshio
    assert_same_abaqus(meshio.read(path), mesh, line3_as_written=True)
    assert_same_abaqus(mio.read(path), mesh)


def test_our_planar_files_read_equal_in_meshio(tmp_path):
    meshio = meshio_module()
    mesh = abaqus_mesh(PLANAR, dim=2)
    path = tmp_path / "planar.inp"
    mio.abaqus.write(path, mesh, translate_cell_names=True)
    assert_same_abaqus(meshio.read(path), mesh)
    assert_same_abaqus(mio.read(path), mesh)


@pytest.mark.parametrize("cell_type", PLANAR_UNKNOWN_TO_MESHIO)
def test_meshio_lacks_planar_second_order_names(tmp_path, cell_type):
    # meshio 5.3.5's table has CPE6 but not CPS6, and neither CPS8 nor M3D9.
    meshio = meshio_module()
    mesh = abaqus_mesh((cell_type,), dim=2, with_sets=False)
    path = tmp_path / "planar.inp"
    mio.abaqus.write(path, mesh)
    name = PLANAR_UNKNOWN_TO_MESHIO[cell_type]
    assert f"*ELEMENT, TYPE={name}\n" in path.read_text()
    with pytest.raises(meshio.ReadError, match=name):
        meshio.abaqus.read(path)
    assert_same_abaqus(mio.read(path), mesh)


def test_meshio_has_no_pyramid(tmp_path):
    # meshio 5.3.5 has no Abaqus name for pyramids either way: its reader does not know C3D5,
    # its writer raises KeyError.
    meshio = meshio_module()
    mesh = abaqus_mesh(("pyramid",), with_sets=False)
    path = tmp_path / "pyramid.inp"
    mio.abaqus.write(path, mesh)
    with pytest.raises(meshio.ReadError, match="C3D5"):
        meshio.abaqus.read(path)
    assert_same_abaqus(mio.read(path), mesh)
    with pytest.raises(KeyError, match="pyramid"):
        meshio.abaqus.write(tmp_path / "theirs.inp", meshio.Mesh(np.asarray(mesh.points), [("pyramid", np.asarray(mesh.cells[0].data))]))


def test_meshio_cannot_read_untranslated_names(tmp_path, meshio_knows_wedge15_pyramid13):
    # translate_cell_names=False writes meshio's own names (TYPE=line, …), as meshio's writer
    # does; meshio 5.3.5's reader knows Abaqus names only, so it cannot read such a file,
    # its own included. We read them (in meshio's node order, no line3 permutation).
    meshio = meshio_module()
    mesh = abaqus_mesh(SPATIAL + ("pyramid",))
    path = tmp_path / "untranslated.inp"
    mio.abaqus.write(path, mesh, translate_cell_names=False)
    assert "*ELEMENT, TYPE=line3\n" in path.read_text()
    with pytest.raises(meshio.ReadError, match="line"):
        meshio.abaqus.read(path)
    assert_same_abaqus(mio.read(path), mesh)


def meshio_copy(mesh):
    meshio = meshio_module()
    return meshio.Mesh(
        np.asarray(mesh.points),
        [(b.type, np.asarray(b.data)) for b in mesh.cells],
        point_sets={k: np.asarray(v) for k, v in mesh.point_sets.items()},
        cell_sets={k: [np.asarray(a) for a in v] for k, v in mesh.cell_sets.items()},
    )


@pytest.mark.parametrize("translate", [True, False])
def test_meshio_files_read_equal_in_ours(tmp_path, translate, meshio_knows_wedge15_pyramid13):
    meshio = meshio_module()
    # meshio names line3 "B33H" (a 2-node beam in Abaqus): test_meshio_writes_line3_as_b33h.
    types = tuple(t for t in SPATIAL if t != "line3") if translate else SPATIAL
    mesh = abaqus_mesh(types)
    # meshio writes one *ELSET per block for a set over several blocks, and its own reader
    # keeps only the last (test_meshio_reads_back_the_last_elset_only); single-block sets
    # here, so both readers agree.
    mesh.cell_sets = {"steel": [np.array([0, 2]) if k == 1 else np.array([], dtype=np.int64) for k in range(len(types))]}
    path = tmp_path / "theirs.inp"
    meshio.abaqus.write(path, meshio_copy(mesh), translate_cell_names=translate)
    assert_same_abaqus(mio.read(path), mesh)


def test_meshio_writes_line3_as_b33h(tmp_path):
    # meshio 5.3.5 inverts its name table, so line3 is written as the last name mapped to it,
    # B33H, which Abaqus defines as a 2-node (cubic) beam; we refuse the 3-node rows.
    meshio = meshio_module()
    mesh = abaqus_mesh(("line3",), with_sets=False)
    path = tmp_path / "theirs.inp"
    meshio.abaqus.write(path, meshio_copy(mesh))
    assert "*ELEMENT, TYPE=B33H\n" in path.read_text()
    with pytest.raises(mio.ReadError, match="B33H"):
        mio.read(path)


def test_meshio_reads_back_the_last_elset_only(tmp_path):
    # A set over two blocks: meshio 5.3.5 writes "*ELSET, ELSET=steel" once per block and its
    # reader replaces the set at each, so meshio loses all but the last block's members. We
    # merge repeated sets.
    meshio = meshio_module()
    mesh = abaqus_mesh(("triangle", "quad"), with_sets=False)
    mesh.cell_sets = {"steel": [np.array([0, 2]), np.array([1])]}
    path = tmp_path / "theirs.inp"
    meshio.abaqus.write(path, meshio_copy(mesh))
    assert path.read_text().count("*ELSET, ELSET=steel\n") == 2
    theirs = meshio.read(path)
    assert [a.tolist() for a in theirs.cell_sets["steel"]] == [[], [1]]
    ours = mio.read(path)
    assert [np.asarray(a).tolist() for a in ours.cell_sets["steel"]] == [[0, 2], [1]]


def test_meshio_cannot_build_wedge15(tmp_path):
    # Pins the meshio 5.3.5 bug the fixture meshio_knows_wedge15_pyramid13 works around: C3D15
    # reads as wedge15, which meshio.Mesh rejects (no topological dimension).
    meshio = meshio_module()
    mesh = abaqus_mesh(("wedge15",), with_sets=False)
    path = tmp_path / "wedge15.inp"
    mio.abaqus.write(path, mesh)
    with pytest.raises(KeyError, match="wedge15"):
        meshio.read(path)
