"""UGRID through meshio++ and meshio, both directions, every variant the file name chooses."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module

VARIANTS = ["", ".b8", ".b4", ".lb8", ".lb4", ".b8l", ".lb8l", ".r8", ".r4", ".lr8", ".lr4"]


def ugrid_mesh():
    """One block per UGRID section, in UGRID's order, with surface ids."""
    rng = np.random.default_rng(11)
    points = rng.random((30, 3))
    sizes = {"triangle": 3, "quad": 4, "tetra": 4, "pyramid": 5, "wedge": 6, "hexahedron": 8}
    cells = [(t, rng.integers(0, 30, size=(3, n))) for t, n in sizes.items()]
    refs = [np.array([1, 2, 2], np.int32), np.array([3, 1, 1], np.int32)] + [np.zeros(3, np.int32)] * 4
    return mio.Mesh(points, cells, cell_data={"ugrid:ref": refs})


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.strip(".") or "ascii")
def test_our_files_read_equal_in_meshio(tmp_path, variant):
    meshio = meshio_module()
    mesh = ugrid_mesh()
    path = tmp_path / f"grid{variant}.ugrid"
    mio.ugrid.write(path, mesh)
    # 4-byte-real variants store float32 points; compare at that precision.
    rtol = 1e-7 if "4" in variant else 0.0
    theirs = meshio.read(path)
    if variant == "":
        # meshio 5.3.5 parses ASCII UGRID coordinates as float32 (its "ascii" entry has
        # float_type "f"), although our file holds them to full float64 precision (pinned in
        # test_meshio_reads_ascii_points_as_float32). Compare with our points rounded the same way.
        expected = mio.Mesh(np.asarray(mesh.points).astype(np.float32), mesh.cells, cell_data=mesh.cell_data)
        assert_same_mesh(theirs, expected, check_dtypes=False)
    else:
        assert_same_mesh(theirs, mesh, check_dtypes=False, rtol=rtol)
    assert_same_mesh(mio.read(path), mesh, check_dtypes=False, rtol=rtol)


def test_meshio_reads_ascii_points_as_float32(tmp_path):
    """meshio 5.3.5 bug: the ASCII UGRID reader parses coordinates with dtype float32, so the
    full-precision text we write loses digits in meshio (meshio++ reads float64)."""
    meshio = meshio_module()
    mesh = ugrid_mesh()
    path = tmp_path / "grid.ugrid"
    mio.ugrid.write(path, mesh)
    theirs = np.asarray(meshio.read(path).points)
    assert theirs.dtype == np.float32
    assert not np.array_equal(theirs.astype(np.float64), np.asarray(mesh.points))
    ours = np.asarray(mio.read(path).points)
    assert ours.dtype == np.float64
    np.testing.assert_array_equal(ours, np.asarray(mesh.points))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.strip(".") or "ascii")
def test_meshio_files_read_equal_in_ours(tmp_path, variant):
    meshio = meshio_module()
    mesh = ugrid_mesh()
    path = tmp_path / f"theirs{variant}.ugrid"
    # meshio's writer fails on any integer cell data (it reshapes the per-block list), so it
    # gets none and writes surface id 1 everywhere.
    meshio.ugrid.write(path, meshio.Mesh(mesh.points, [(b.type, b.data) for b in mesh.cells]))
    if variant == "" and int(np.__version__.split(".")[0]) >= 2:
        # meshio 5.3.5's ascii writer formats with %r, which numpy 2 spells 'np.float64(...)':
        # the file is not UGRID, and we say where.
        assert "np.float64(" in path.read_text()
        with pytest.raises(mio.ReadError, match=r"line \d+|byte \d+"):
            mio.read(path)
        return
    ours, theirs = mio.read(path), meshio.read(path)
    assert_same_mesh(ours, theirs, check_dtypes=False)
    assert [r.name for r in ours.regions] == ["ugrid:ref 1"]
