"""STL through meshio++ and meshio, both directions, ascii and binary."""

import warnings

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module

VARIANTS = {"ascii": {"binary": False}, "binary": {"binary": True}}


def strip_mesh(num_points=12, with_normals=True):
    """A triangle strip over points in general position: every point is used and the points
    appear in the cells in index order. STL stores corners, not points, and both readers
    merge equal corners in order of first appearance, so this mesh reads back as it is."""
    rng = np.random.default_rng(3)
    points = rng.random((num_points, 3))
    triangles = np.array([[i, i + 1, i + 2] if i % 2 == 0 else [i + 1, i, i + 2] for i in range(num_points - 2)])
    cell_data = {}
    if with_normals:
        # Stored normals need not be the geometric ones; any value must come back unchanged.
        cell_data["facet_normals"] = [rng.standard_normal((len(triangles), 3))]
    return mio.Mesh(points, [("triangle", triangles)], cell_data=cell_data)


def geometric_normals(points, triangles):
    corners = np.asarray(points, dtype=float)[triangles]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    return normals / np.linalg.norm(normals, axis=1)[:, None]


def read_meshio(meshio, path):
    # meshio 5.3.5 first takes every file of 80 bytes or more for binary and multiplies the
    # uint32 it finds at byte 80 by 50; for an ascii file that overflows and numpy warns
    # (RuntimeWarning, harmless: the size test then fails and the ascii reader runs).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return meshio.read(path)


@pytest.mark.parametrize("with_normals", [True, False])
@pytest.mark.parametrize("variant", VARIANTS)
def test_our_files_read_equal_in_meshio(tmp_path, variant, with_normals):
    meshio = meshio_module()
    mesh = strip_mesh(with_normals=with_normals)
    triangles = np.asarray(mesh.cells[0].data)
    path = tmp_path / f"ours_{variant}.stl"
    mio.stl.write(path, mesh, **VARIANTS[variant])
    theirs = read_meshio(meshio, path)
    ours = mio.read(path)
    points = np.asarray(mesh.points)
    if variant == "binary":
        points = points.astype(np.float32)  # binary STL stores float32: exact after that rounding
    for read in (theirs, ours):
        assert [c.type for c in read.cells] == ["triangle"]
        np.testing.assert_array_equal(np.asarray(read.cells[0].data), triangles)
        np.testing.assert_array_equal(np.asarray(read.points), points)
        assert np.asarray(read.points).dtype == points.dtype
    if variant == "binary":
        # meshio's binary reader discards the normals (and the attribute words); there is
        # nothing to compare there.
        assert theirs.cell_data == {}
        return
    normals = np.asarray(theirs.cell_data["facet_normals"][0])
    np.testing.assert_array_equal(np.asarray(ours.cell_data["facet_normals"][0]), normals)
    if with_normals:
        # Stored normals are written in full precision: exact.
        np.testing.assert_array_equal(normals, np.asarray(mesh.cell_data["facet_normals"][0]))
    else:
        # Computed by us (C++) and here (numpy) from the same corners: the same formula, but
        # not necessarily the same rounding in the last bits.
        np.testing.assert_allclose(normals, geometric_normals(mesh.points, triangles), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("variant", VARIANTS)
def test_meshio_files_read_equal_in_ours(tmp_path, variant):
    meshio = meshio_module()
    mesh = strip_mesh()
    path = tmp_path / f"theirs_{variant}.stl"
    normals = np.asarray(mesh.cell_data["facet_normals"][0])
    meshio.stl.write(
        path,
        meshio.Mesh(np.asarray(mesh.points), [("triangle", np.asarray(mesh.cells[0].data))],
                    cell_data={"facet_normals": [normals]}),
        **VARIANTS[variant],
    )
    ours = mio.read(path)
    assert [c.type for c in ours.cells] == ["triangle"]
    np.testing.assert_array_equal(np.asarray(ours.cells[0].data), np.asarray(mesh.cells[0].data))
    if variant == "binary":
        np.testing.assert_array_equal(np.asarray(ours.points), np.asarray(mesh.points).astype(np.float32))
    else:
        # meshio writes "{}".format(np.float64): the shortest round-trip text, so exact.
        np.testing.assert_array_equal(np.asarray(ours.points), np.asarray(mesh.points))
        np.testing.assert_array_equal(np.asarray(ours.cell_data["facet_normals"][0]), normals)
    assert "stl:attribute" not in ours.cell_data  # meshio writes zero attribute words


@pytest.mark.parametrize("variant", VARIANTS)
def test_quads_and_polygons_reach_meshio_as_fans(tmp_path, variant):
    # STL holds triangles only: meshio++ fan-triangulates 2-D cells of any corner count.
    meshio = meshio_module()
    rng = np.random.default_rng(5)
    points = rng.random((9, 3))
    mesh = mio.Mesh(points, [("quad", np.array([[0, 1, 2, 3]])), ("polygon", np.array([[3, 2, 4, 5, 6, 7, 8]]))])
    path = tmp_path / f"fans_{variant}.stl"
    mio.stl.write(path, mesh, **VARIANTS[variant])
    theirs = read_meshio(meshio, path)
    expected = np.array([[0, 1, 2], [0, 2, 3], [3, 2, 4], [3, 4, 5], [3, 5, 6], [3, 6, 7], [3, 7, 8]])
    assert [c.type for c in theirs.cells] == ["triangle"]
    np.testing.assert_array_equal(theirs.cells[0].data, expected)
    np.testing.assert_array_equal(theirs.points, points.astype(np.float32) if variant == "binary" else points)


def test_volume_cells_reach_meshio_as_outward_boundary(tmp_path):
    meshio = meshio_module()
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    # Two tetrahedra sharing face (1, 2, 3): six boundary triangles, the shared face left out.
    mesh = mio.Mesh(points, [("tetra", np.array([[0, 1, 2, 3], [4, 2, 1, 3]]))])
    path = tmp_path / "volume.stl"
    mio.stl.write(path, mesh)
    theirs = read_meshio(meshio, path)
    faces = theirs.points[theirs.cells[0].data]
    assert len(faces) == 6
    # meshio numbers the points by first appearance: map them back by position.
    original = [int(np.flatnonzero((points == p).all(axis=1))[0]) for p in theirs.points]
    corners = np.asarray(original)[theirs.cells[0].data]
    assert sorted(map(tuple, np.sort(corners, axis=1).tolist())) == [
        (0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)
    ]
    normals = theirs.cell_data["facet_normals"][0]
    np.testing.assert_allclose(normals, geometric_normals(theirs.points, theirs.cells[0].data), rtol=1e-13, atol=1e-15)
    # Outward: from the solid's inside (a point inside both tetrahedra's union) to each face.
    inside = points[[1, 2, 3]].mean(axis=0)
    assert np.all(np.einsum("ij,ij->i", normals, faces.mean(axis=1) - inside) > 0)


def test_solids_from_regions_all_reach_meshio(tmp_path):
    # Our ascii writer puts each Cell region into a solid of its name; meshio reads every
    # solid of the file (it skips the solid lines), so all triangles come back.
    meshio = meshio_module()
    mesh = strip_mesh()
    mesh.cell_sets = {"left": [np.arange(0, 4)], "right": [np.arange(4, 10)]}
    path = tmp_path / "solids.stl"
    mio.stl.write(path, mesh)
    text = path.read_text()
    assert "solid left" in text and "solid right" in text
    theirs = read_meshio(meshio, path)
    np.testing.assert_array_equal(theirs.points, np.asarray(mesh.points))
    np.testing.assert_array_equal(theirs.cells[0].data, np.asarray(mesh.cells[0].data))
    np.testing.assert_array_equal(theirs.cell_data["facet_normals"][0], np.asarray(mesh.cell_data["facet_normals"][0]))
    ours = mio.read(path)
    assert set(ours.cell_sets) >= {"left", "right"}


def test_meshio_drops_non_triangles(tmp_path, capsys):
    # meshio 5.3.5's STL writer keeps triangle blocks only (a message on stderr, no Python
    # warning): a quad mesh becomes an empty solid, which we read as an empty mesh.
    meshio = meshio_module()
    points = np.random.default_rng(1).random((4, 3))
    path = tmp_path / "quads.stl"
    meshio.stl.write(path, meshio.Mesh(points, [("quad", np.array([[0, 1, 2, 3]]))]))
    assert "No triangle cells found" in capsys.readouterr().err
    ours = mio.read(path)
    assert len(ours.points) == 0
    assert sum(len(c.data) for c in ours.cells) == 0
