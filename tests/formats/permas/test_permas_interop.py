"""PERMAS through meshio++ and meshio, both directions, plain and gzip."""

import gzip

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module

LINEAR = ("line", "triangle", "quad", "tetra", "hexahedron", "wedge", "pyramid")


def permas_mesh(cell_types=LINEAR, **kwargs):
    """PERMAS carries points, cells and sets only: no data."""
    rng = np.random.default_rng(7)
    points = rng.random((30, 3))
    cells = [(t, rng.integers(0, 30, size=(3, mio.num_nodes_per_cell[t]), dtype=np.int64)) for t in cell_types]
    return mio.Mesh(points, cells, **kwargs)


def meshio_copy(mesh):
    meshio = meshio_module()
    return meshio.Mesh(np.asarray(mesh.points), [(b.type, np.asarray(b.data)) for b in mesh.cells])


@pytest.mark.parametrize("suffix", [".dato", ".post"])
def test_our_files_read_equal_in_meshio(tmp_path, suffix):
    meshio = meshio_module()
    mesh = permas_mesh()
    path = tmp_path / f"ours{suffix}"
    mio.permas.write(path, mesh)
    assert_same_mesh(meshio.read(path), mesh)
    assert_same_mesh(mio.read(path), mesh)


def test_our_gzip_files_are_gzip(tmp_path):
    mesh = permas_mesh()
    path = tmp_path / "ours.dato.gz"
    mio.write(path, mesh)
    with gzip.open(path, "rt") as f:
        assert f.readline().startswith("!PERMAS")
    assert_same_mesh(mio.read(path), mesh)


def test_meshio_files_read_equal_in_ours(tmp_path):
    meshio = meshio_module()
    mesh = permas_mesh()
    path = tmp_path / "theirs.dato"
    meshio.permas.write(path, meshio_copy(mesh))
    # meshio writes Python's repr of each float, which round-trips exactly.
    assert_same_mesh(mio.read(path), mesh)
    assert_same_mesh(mio.read(path), meshio.read(path))


def test_meshio_gz_named_plain_files_are_read(tmp_path):
    # meshio 5.3.5 writes plain text even to .dato.gz; the content decides, not the name.
    meshio = meshio_module()
    mesh = permas_mesh(("triangle",))
    path = tmp_path / "theirs.dato.gz"
    meshio.permas.write(path, meshio_copy(mesh))
    assert_same_mesh(mio.read(path), mesh)


def test_meshio_cannot_build_wedge15(tmp_path):
    # Pins the meshio 5.3.5 bug worked around by ``meshio_knows_wedge15_pyramid13``: neither a mesh
    # with a wedge15 block nor a PERMAS file with PENTA15 elements can be made in meshio.
    meshio = meshio_module()
    mesh = permas_mesh(("wedge15",))
    with pytest.raises(KeyError, match="wedge15"):
        meshio_copy(mesh)
    path = tmp_path / "penta15.dato"
    mio.permas.write(path, mesh)
    with pytest.raises(KeyError, match="wedge15"):
        meshio.read(path)


def test_second_order_node_order_follows_meshios_writer(tmp_path, meshio_knows_wedge15_pyramid13):
    # meshio's writer puts TRIMS6/TET10/QUAMS9/PENTA15 nodes in PERMAS order but its reader
    # does not undo it; meshio++ undoes it, so meshio's own files come back as written.
    meshio = meshio_module()
    mesh = permas_mesh(("triangle6", "tetra10", "quad9", "wedge15", "quad8", "hexahedron20"))
    path = tmp_path / "second_order.dato"
    meshio.permas.write(path, meshio_copy(mesh))
    assert_same_mesh(mio.read(path), mesh)
    ours = tmp_path / "ours_second_order.dato"
    mio.permas.write(ours, mesh)

    def element_records(file):
        text = open(file).read()
        return [line for line in text[text.index("$ELEMENT"):].splitlines() if line[:1].isdigit() or line.startswith("$EL")]

    assert element_records(ours) == element_records(path)


def test_sets_round_trip_in_ours(tmp_path):
    mesh = permas_mesh(point_sets={"fixed": np.array([0, 4, 7])})
    path = tmp_path / "sets.dato"
    mio.permas.write(path, mesh)
    back = mio.read(path)
    np.testing.assert_array_equal(back.point_sets["fixed"], [0, 4, 7])
