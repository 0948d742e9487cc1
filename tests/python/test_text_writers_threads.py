"""Issue 36: the text writers that format their rows on all cores (io/output/parallel_rows.hpp)
write the same bytes on 1 and 2 threads, and every row reads back (sections above the
4096-row threshold, so the parallel path is taken)."""

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core


def mesh_with_odd_numbers():
    rng = np.random.default_rng(36)
    points = rng.standard_normal((9000, 3)) * np.array([1e-7, 1e5, 1.0])
    points[:4] = [[0, 0, 0], [1, 2, 3], [-1.5, 1e20, 1e-300], [123456789.0, -0.0, 5e-5]]
    tetra = rng.integers(0, len(points), (12000, 4))
    return mio.Mesh(points, [("tetra", tetra)], cell_data={"mat": [np.arange(12000, dtype=np.int32)]})


@pytest.mark.parametrize(
    "file_format, suffix, kwargs",
    [
        ("nastran", "bdf", {}),
        ("nastran", "bdf", {"point_format": "free", "cell_format": "free"}),
        ("nastran", "bdf", {"point_format": "fixed-small", "cell_format": "fixed-large"}),
        ("abaqus", "inp", {}),
        ("abaqus", "inp", {"float_fmt": ".6E"}),
        ("su2", "su2", {}),
        ("dolfin-xml", "xml", {}),
        ("gmsh22", "msh", {"binary": False}),
        ("gmsh22", "msh", {"binary": False, "float_fmt": ".6e"}),
        ("avsucd", "avs", {}),
        ("mdpa", "mdpa", {}),
        ("mdpa", "mdpa", {"float_fmt": ".9g"}),
        ("tetgen", "node", {}),
        ("tetgen", "node", {"float_fmt": ".6e"}),
        ("flac3d", "f3grid", {}),
        ("flac3d", "f3grid", {"float_fmt": ".6e"}),
    ],
)
def test_same_bytes_on_one_and_two_threads(tmp_path, file_format, suffix, kwargs):
    mesh = mesh_with_odd_numbers()
    written = {}
    for threads in (1, 2):
        _core.set_thread_count(threads)
        try:
            folder = tmp_path / str(threads)
            folder.mkdir()
            mio.write(folder / f"mesh.{suffix}", mesh, file_format=file_format, **kwargs)
            written[threads] = {p.name: p.read_bytes() for p in sorted(folder.iterdir())}
        finally:
            _core.set_thread_count(0)
    assert written[1] == written[2]
    back = mio.read(tmp_path / "2" / f"mesh.{suffix}", file_format=file_format)
    assert len(back.points) == 9000
    assert sum(len(block.data) for block in back.cells) == 12000
    if file_format == "flac3d":  # zones get a right-handed corner order: the same corners, maybe mirrored
        np.testing.assert_array_equal(np.sort(back.cells[0].data, axis=1), np.sort(mesh.cells[0].data, axis=1))
    else:
        np.testing.assert_array_equal(back.cells[0].data, mesh.cells[0].data)
    if (not kwargs or kwargs == {"binary": False}) and file_format != "nastran":  # the shortest round-trip form: every coordinate reads back exactly
        np.testing.assert_array_equal(back.points, mesh.points)
    elif file_format == "nastran" and not kwargs:  # 16-column fields: 12 or more significant digits
        np.testing.assert_allclose(back.points, mesh.points, rtol=1e-10)


def test_off_same_bytes_on_one_and_two_threads(tmp_path):
    """OFF: vertex colours and normals, polygons of several sizes and face colours with NaN padding."""
    rng = np.random.default_rng(37)
    points = rng.standard_normal((9000, 3))
    points[1] = [np.nan, np.inf, -0.0]
    triangles = rng.integers(0, len(points), (12000, 3))
    polygons = rng.integers(0, len(points), (5000, 5))
    colors = rng.random((5000, 4))
    colors[::3, 3] = np.nan  # an RGB face among RGBA faces: the padding is left out
    mesh = mio.Mesh(
        points,
        [("triangle", triangles), ("polygon", polygons)],
        point_data={"off:color": rng.random((9000, 3)), "off:normal": rng.standard_normal((9000, 3))},
        cell_data={"off:color": [rng.random((12000, 4)), colors]},
    )
    written = {}
    for threads in (1, 2):
        _core.set_thread_count(threads)
        try:
            path = tmp_path / f"mesh{threads}.off"
            mio.write(path, mesh, file_format="off")
            written[threads] = path.read_bytes()
        finally:
            _core.set_thread_count(0)
    assert written[1] == written[2]
    back = mio.read(tmp_path / "mesh2.off", file_format="off")
    np.testing.assert_array_equal(back.points, points)
    np.testing.assert_array_equal(back.cells[0].data, triangles)
    np.testing.assert_array_equal(back.cells[1].data, polygons)
    np.testing.assert_array_equal(back.point_data["off:normal"], mesh.point_data["off:normal"])
