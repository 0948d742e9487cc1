"""Neuroglancer precomputed meshes through meshio++ and meshio, both directions."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module


def fragment():
    rng = np.random.default_rng(3)
    points = rng.random((12, 3)).astype(np.float32)
    triangles = rng.integers(0, 12, size=(9, 3))
    return points, triangles


def test_our_files_read_equal_in_meshio(tmp_path):
    meshio = meshio_module()
    points, triangles = fragment()
    path = tmp_path / "ours"
    mio.write(path, mio.Mesh(points, [("triangle", triangles)]), file_format="neuroglancer")
    theirs = meshio.read(path, file_format="neuroglancer")
    np.testing.assert_array_equal(theirs.points, points)
    np.testing.assert_array_equal(theirs.cells[0].data, triangles)


def test_meshio_files_read_equal_in_ours(tmp_path):
    meshio = meshio_module()
    points, triangles = fragment()
    path = tmp_path / "theirs"
    meshio.neuroglancer.write(path, meshio.Mesh(points.astype(np.float64), [("triangle", triangles)]))
    ours = mio.neuroglancer.read(path)
    assert ours.points.dtype == np.float32
    np.testing.assert_array_equal(ours.points, points)
    np.testing.assert_array_equal(ours.cells[0].data, triangles)


def test_other_cells_are_refused_not_dropped(tmp_path):
    # meshio skips them with a warning: a script would lose cells unnoticed.
    points, _ = fragment()
    mesh = mio.Mesh(points, [("quad", np.array([[0, 1, 2, 3]]))])
    with pytest.raises(mio.WriteError, match="triangles only"):
        mio.neuroglancer.write(tmp_path / "quad", mesh)
