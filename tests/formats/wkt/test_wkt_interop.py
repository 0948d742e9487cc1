"""WKT through meshio++ and meshio, both directions."""

import numpy as np

import meshioplusplus as mio
from interop import meshio_module, sample_mesh, to_meshio


def wkt_mesh():
    """Triangles only. Coordinates in [0.5, 1.5): their shortest text has no exponent, which
    meshio's WKT reader cannot parse."""
    mesh = sample_mesh(("triangle",))
    mesh.points = mesh.points + 0.5
    for data in (mesh.point_data, mesh.cell_data):
        for name in list(data):
            del data[name]
    return mesh


def assert_same_reading(a, b):
    np.testing.assert_array_equal(np.asarray(a.points), np.asarray(b.points))
    assert [c.type for c in a.cells] == [c.type for c in b.cells]
    for x, y in zip(a.cells, b.cells):
        np.testing.assert_array_equal(np.asarray(x.data, dtype=np.int64), np.asarray(y.data, dtype=np.int64))


def assert_same_triangles(read, mesh):
    """The same triangles at the same positions (a TIN stores positions, not indices)."""
    np.testing.assert_array_equal(
        np.asarray(read.points)[np.asarray(read.cells[0].data, dtype=np.int64)], mesh.points[mesh.cells[0].data]
    )


def test_our_files_read_equal_in_meshio(tmp_path):
    meshio = meshio_module()
    mesh = wkt_mesh()
    path = tmp_path / "ours.wkt"
    mio.wkt.write(path, mesh)
    theirs, ours = meshio.read(path), mio.read(path)
    assert_same_reading(theirs, ours)
    assert_same_triangles(ours, mesh)


def test_meshio_files_read_equal_in_ours(tmp_path):
    meshio = meshio_module()
    mesh = wkt_mesh()
    path = tmp_path / "from_meshio.wkt"
    meshio.wkt.write(path, to_meshio(mesh))
    theirs, ours = meshio.read(path), mio.read(path)
    assert_same_reading(ours, theirs)
    assert_same_triangles(ours, mesh)
