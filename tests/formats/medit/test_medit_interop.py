"""Medit (.mesh / .meshb) through meshio++ and meshio, both directions, every version."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module

# The element sections meshio reads, in the order our writer writes them (mesh order).
LINEAR = ("line", "triangle", "quad", "tetra", "wedge", "pyramid", "hexahedron")
# Sections meshio++ also writes (EdgesP2, TrianglesP2, TetrahedraP2), unknown to meshio.
SECOND_ORDER = ("line3", "triangle6", "tetra10")

VARIANTS = {
    # (suffix, options); version None = chosen by the writer (2 for float64, int32-range data).
    "ascii": (".mesh", {}),
    "ascii-v1": (".mesh", {"version": 1}),
    "ascii-v2": (".mesh", {"version": 2}),
    "binary": (".meshb", {}),
    "binary-v1": (".meshb", {"version": 1}),
    "binary-v2": (".meshb", {"version": 2}),
    "binary-v3": (".meshb", {"version": 3}),
    "binary-v4": (".meshb", {"version": 4}),
    "binary-v2-big-endian": (".meshb", {"version": 2, "big_endian": True}),
    "binary-v4-big-endian": (".meshb", {"version": 4, "big_endian": True}),
}


def medit_mesh(cell_types=LINEAR, dim=3):
    rng = np.random.default_rng(13)
    points = rng.random((30, dim))
    cells = [(t, rng.integers(0, 30, size=(3, mio.num_nodes_per_cell[t]), dtype=np.int64)) for t in cell_types]
    return mio.Mesh(
        points,
        cells,
        point_data={"medit:ref": rng.integers(0, 5, 30).astype(np.int32)},
        cell_data={"medit:ref": [rng.integers(1, 9, 3).astype(np.int32) for _ in cells]},
    )


def assert_same_medit(read, mesh, points):
    np.testing.assert_array_equal(np.asarray(read.points), points)
    # Same kind and width; meshio keeps a big-endian file's byte order (">f8").
    assert np.asarray(read.points).dtype.newbyteorder("=") == points.dtype
    assert [c.type for c in read.cells] == [c.type for c in mesh.cells]
    for x, y in zip(read.cells, mesh.cells):
        np.testing.assert_array_equal(np.asarray(x.data), np.asarray(y.data))
    # meshio reads refs as int64 (ascii) or in the file's integer width (binary): values only.
    np.testing.assert_array_equal(np.asarray(read.point_data["medit:ref"]), np.asarray(mesh.point_data["medit:ref"]))
    for x, y in zip(read.cell_data["medit:ref"], mesh.cell_data["medit:ref"]):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize("dim", [3, 2])
@pytest.mark.parametrize("variant", VARIANTS)
def test_our_files_read_equal_in_meshio(tmp_path, variant, dim):
    meshio = meshio_module()
    suffix, options = VARIANTS[variant]
    mesh = medit_mesh(LINEAR if dim == 3 else ("line", "triangle", "quad"), dim=dim)
    path = tmp_path / f"ours{suffix}"
    mio.medit.write(path, mesh, **options)
    # Version 1 stores float32 reals (exact after that rounding); the others float64. Ascii
    # numbers are the shortest round-trip text of the stored precision: exact either way.
    points = np.asarray(mesh.points)
    if options.get("version") == 1:
        points = points.astype(np.float32)
    assert_same_medit(meshio.read(path), mesh, points)
    assert_same_medit(mio.read(path), mesh, points)


@pytest.mark.parametrize("version", [3, 4])
def test_meshio_ascii_reader_knows_versions_1_and_2_only(tmp_path, version):
    # meshio 5.3.5 maps "MeshVersionFormatted" 0/1/2 to a float type and raises KeyError for
    # 3 and 4 (valid libMeshb versions: 64-bit positions / integers), ascii only.
    meshio = meshio_module()
    mesh = medit_mesh()
    path = tmp_path / "ours.mesh"
    mio.medit.write(path, mesh, version=version)
    assert path.read_text().startswith(f"MeshVersionFormatted {version}\n")
    with pytest.raises(KeyError, match=str(version)):
        meshio.read(path)
    assert_same_medit(mio.read(path), mesh, np.asarray(mesh.points))


@pytest.mark.parametrize("suffix", [".mesh", ".meshb"])
def test_meshio_skips_or_refuses_second_order_sections(tmp_path, suffix):
    # meshio 5.3.5 knows the seven linear sections only: its ascii reader raises a bare
    # ReadError on "EdgesP2" (it takes any keyword that is not all letters for a syntax
    # error); its binary reader skips the P2 sections (with a message), so those cells are
    # lost.
    meshio = meshio_module()
    mesh = medit_mesh(("triangle",) + SECOND_ORDER)
    path = tmp_path / f"ours{suffix}"
    mio.medit.write(path, mesh)
    if suffix == ".mesh":
        with pytest.raises(meshio.ReadError):
            meshio.medit.read(path)
    else:
        theirs = meshio.read(path)
        assert [c.type for c in theirs.cells] == ["triangle"]
        np.testing.assert_array_equal(theirs.cells[0].data, np.asarray(mesh.cells[0].data))
    assert_same_medit(mio.read(path), mesh, np.asarray(mesh.points))


def meshio_copy(mesh, points=None, index_dtype=np.int64):
    meshio = meshio_module()
    return meshio.Mesh(
        np.asarray(mesh.points) if points is None else points,
        [(b.type, np.asarray(b.data).astype(index_dtype)) for b in mesh.cells],
        point_data={"medit:ref": np.asarray(mesh.point_data["medit:ref"])},
        cell_data={"medit:ref": [np.asarray(a) for a in mesh.cell_data["medit:ref"]]},
    )


@pytest.mark.parametrize("dim", [3, 2])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])  # meshio: version 3 / 4 .meshb
@pytest.mark.parametrize("suffix", [".mesh", ".meshb"])
def test_meshio_files_read_equal_in_ours(tmp_path, suffix, index_dtype, dim):
    meshio = meshio_module()
    mesh = medit_mesh(LINEAR if dim == 3 else ("line", "triangle", "quad"), dim=dim)
    path = tmp_path / f"theirs{suffix}"
    meshio.medit.write(path, meshio_copy(mesh, index_dtype=index_dtype))
    # meshio's ascii writer uses "%.16e" (17 significant digits): exact for float64.
    assert_same_medit(mio.read(path), mesh, np.asarray(mesh.points))


@pytest.mark.parametrize("suffix", [".mesh", ".meshb"])
def test_meshio_float32_files_read_equal_in_ours(tmp_path, suffix):
    meshio = meshio_module()
    mesh = medit_mesh()
    points = np.asarray(mesh.points).astype(np.float32)
    path = tmp_path / f"theirs32{suffix}"
    meshio.medit.write(path, meshio_copy(mesh, points=points))
    ours = mio.read(path)
    if suffix == ".mesh":
        # Version 1 ascii ("%.16e" of each float32): float32 points, exact.
        assert_same_medit(ours, mesh, points)
    else:
        # meshio's binary writer always writes version 3/4 (float64 reals): widened, exact.
        assert_same_medit(ours, mesh, points.astype(np.float64))


def test_dimension_one_as_meshio_writes_and_reads_it(tmp_path):
    # meshio writes "Dimension 1" for 1-D points (libMeshb refuses it) and reads it back as
    # points (n, 1); meshio++ does the same, ASCII only, both ways.
    meshio = meshio_module()
    mesh = medit_mesh(("line",), dim=1)
    theirs = tmp_path / "theirs.mesh"
    meshio.medit.write(theirs, meshio_copy(mesh))
    assert "Dimension 1\n" in theirs.read_text()
    assert_same_medit(mio.read(theirs), mesh, np.asarray(mesh.points))
    ours = tmp_path / "ours.mesh"
    mio.medit.write(ours, mesh)
    assert_same_medit(meshio.read(ours), mesh, np.asarray(mesh.points))
