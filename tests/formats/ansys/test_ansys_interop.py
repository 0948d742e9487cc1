"""ANSYS Fluent .msh through meshio++ and meshio, both directions, and the .msh content sniff."""

import pathlib
import warnings

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "ansys"
CELL_TYPES = ("triangle", "quad", "tetra", "hexahedron", "wedge", "pyramid")


def ansys_mesh():
    rng = np.random.default_rng(7)
    points = rng.random((20, 3))
    cells = [(t, rng.integers(0, 20, size=(3, mio.num_nodes_per_cell[t]), dtype=np.int64)) for t in CELL_TYPES]
    return points, cells


def read_quietly(meshio, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # meshio warns about every zone-name section
        return meshio.ansys.read(path)


@pytest.mark.parametrize("binary", [False, True])
def test_our_files_read_equal_in_meshio(tmp_path, binary):
    meshio = meshio_module()
    points, cells = ansys_mesh()
    path = tmp_path / "ours.msh"
    mio.ansys.write(path, mio.Mesh(points, cells), binary=binary)
    theirs = read_quietly(meshio, path)
    np.testing.assert_array_equal(theirs.points, points)  # shortest round-trip text or float64 bytes
    assert [c.type for c in theirs.cells] == list(CELL_TYPES)
    for block, (_, data) in zip(theirs.cells, cells):
        np.testing.assert_array_equal(block.data, data)


@pytest.mark.parametrize("binary", [False, True])
def test_meshio_files_read_equal_in_ours(tmp_path, binary):
    meshio = meshio_module()
    points, cells = ansys_mesh()
    path = tmp_path / "theirs.msh"
    meshio.ansys.write(path, meshio.Mesh(points, cells), binary=binary)
    for ours in (mio.read(path), mio.read(path, "ansys")):  # by content, and by name
        # meshio's ascii writer prints %.16e: 17 significant digits, exact for float64.
        np.testing.assert_array_equal(np.asarray(ours.points), points)
        assert [c.type for c in ours.cells] == list(CELL_TYPES)
        for block, (_, data) in zip(ours.cells, cells):
            np.testing.assert_array_equal(np.asarray(block.data), data)


@pytest.mark.parametrize("name", ["rotate_sphere.msh", "hron_turek_solid.msh"])
def test_real_files_read_as_meshio_reads_them(name):
    meshio = meshio_module()
    path = DATA / name
    if not path.exists():
        pytest.skip(f"tests/data/ansys/{name} absent (foam-extend-4.0 tutorials)")
    theirs, ours = read_quietly(meshio, path), mio.read(path)
    np.testing.assert_array_equal(np.asarray(ours.points), theirs.points)
    assert [c.type for c in ours.cells] == [c.type for c in theirs.cells]
    for a, b in zip(ours.cells, theirs.cells):
        np.testing.assert_array_equal(np.asarray(a.data), b.data)


def test_elbow_that_meshio_refuses():
    # Node zones out of id order and a cell header without an element type: meshio raises.
    meshio = meshio_module()
    path = DATA / "elbow.msh"
    if not path.exists():
        pytest.skip("tests/data/ansys/elbow.msh absent (foam-extend-4.0 tutorials)")
    with pytest.raises(meshio.ReadError):
        read_quietly(meshio, path)
    mesh = mio.read(path)
    assert mesh.points.shape == (0x219, 2)
    assert sum(len(c.data) for c in mesh.cells) == 0x5AE
    assert "wall-4" in mesh.cell_sets


def test_msh_sniffing_and_default_writer(tmp_path):
    points, cells = ansys_mesh()
    mesh = mio.Mesh(points, cells[:1])
    path = tmp_path / "default.msh"
    mio.write(path, mesh)  # no file_format: .msh stays Gmsh
    assert path.read_bytes().startswith(b"$MeshFormat")
    assert len(mio.read(path).points) == 20
    mio.write(path, mesh, file_format="ansys")
    assert path.read_bytes().startswith(b"(1 ")
    np.testing.assert_array_equal(mio.read(path).cells[0].data, cells[0][1])
    freefem = tmp_path / "freefem.msh"
    freefem.write_text("3 1 0\n0 0 1\n1 0 1\n0 1 1\n1 2 3 0\n")
    # Three counts on the first line: FreeFEM's .msh (tests/formats/freefem covers it).
    assert mio.read(freefem).cells[0].type == "triangle"
    neither = tmp_path / "neither.msh"
    neither.write_text("mesh 3\n")
    with pytest.raises(mio.ReadError, match="gmsh, ansys, freefem"):
        mio.read(neither)
