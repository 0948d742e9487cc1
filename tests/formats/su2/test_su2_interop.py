"""SU2 through meshio++ and meshio, both directions."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module


def su2_mesh():
    """A 3-D mesh SU2 can hold: volume blocks in meshio's read order (ascending VTK id) and
    boundary triangles/quads tagged by "su2:tag". No wedges: meshio keeps VTK's wedge node
    order, meshio++ converts it (see test_wedge_order_differs_from_meshio_by_design)."""
    rng = np.random.default_rng(7)
    points = rng.random((30, 3))
    cells = [
        ("tetra", rng.integers(0, 30, size=(4, 4))),
        ("hexahedron", rng.integers(0, 30, size=(2, 8))),
        ("pyramid", rng.integers(0, 30, size=(3, 5))),
        ("triangle", rng.integers(0, 30, size=(5, 3))),
        ("quad", rng.integers(0, 30, size=(2, 4))),
    ]
    tags = [np.zeros(4, np.int32), np.zeros(2, np.int32), np.zeros(3, np.int32),
            np.array([3, 3, 3, 3, 3], np.int32), np.array([3, 3], np.int32)]
    return mio.Mesh(points, cells, cell_data={"su2:tag": tags})


def test_our_files_read_equal_in_meshio(tmp_path):
    meshio = meshio_module()
    mesh = su2_mesh()
    path = tmp_path / "ours.su2"
    mio.su2.write(path, mesh)
    theirs = meshio.read(path)
    ours = mio.read(path)
    assert_same_mesh(theirs, mesh, check_dtypes=False)
    assert_same_mesh(ours, mesh, check_dtypes=False)
    # meshio++ also names the marker as a region.
    assert [r.name for r in ours.regions] == ["3"]


def test_meshio_files_read_equal_in_ours(tmp_path):
    meshio = meshio_module()
    mesh = su2_mesh()
    volume = [(b.type, b.data) for b in mesh.cells if b.type not in ("triangle", "quad")]
    path = tmp_path / "theirs.su2"
    # meshio 5.3.5's SU2 writer unpacks CellBlocks as tuples once it reaches the markers, so it
    # can only write meshes without boundary cells (docs/meshio-compatibility.md).
    meshio.su2.write(path, meshio.Mesh(mesh.points, volume))
    # meshio writes "%.18e": exact for float64.
    assert_same_mesh(mio.read(path), meshio.read(path), check_dtypes=False)
    with pytest.raises(TypeError):
        meshio.su2.write(tmp_path / "markers.su2", meshio.Mesh(mesh.points, [(b.type, b.data) for b in mesh.cells]))


def test_two_dimensional_markers_with_string_tags(tmp_path):
    meshio = meshio_module()
    path = tmp_path / "flat.su2"
    path.write_text(
        "NDIME= 2\nNELEM= 2\n5 0 1 2 0\n9 0 2 3 4 1\nNPOIN= 5\n0 0 0\n1 0 1\n1 1 2\n0 1 3\n-1 0.5 4\n"
        "NMARK= 2\nMARKER_TAG= wall\nMARKER_ELEMS= 2\n3 0 1\n3 1 2\nMARKER_TAG= farfield\nMARKER_ELEMS= 1\n3 3 4\n"
    )
    ours, theirs = mio.read(path), meshio.read(path)
    assert_same_mesh(ours, theirs, check_dtypes=False)
    assert ours.cell_sets.keys() >= {"wall", "farfield"}


def test_wedge_order_differs_from_meshio_by_design(tmp_path):
    meshio = meshio_module()
    path = tmp_path / "wedge.su2"
    path.write_text("NDIME= 3\nNELEM= 1\n13 0 1 2 3 4 5\nNPOIN= 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 0 1\n0 1 1\nNMARK= 0\n")
    ours, theirs = mio.read(path), meshio.read(path)
    np.testing.assert_array_equal(np.asarray(ours.cells[0].data), np.asarray(theirs.cells[0].data)[:, [0, 2, 1, 3, 5, 4]])
