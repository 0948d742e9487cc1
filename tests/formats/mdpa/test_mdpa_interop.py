"""Kratos MDPA through meshio++ and meshio, both directions. meshio 5.3.5 reads only points
and cells (no data, no SubModelParts), so data and regions are checked on our side only."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module, sample_mesh, to_meshio

# Types meshio 5.3.5 can both write and read back by name (it has no pyramid name, and it
# never applies its hexahedron20/27 reordering, so those are left out here).
TYPES = ("line", "triangle", "quad", "tetra", "wedge", "hexahedron", "triangle6", "quad8", "quad9", "tetra10")


def without_ours(mesh):
    """Our reader's extras (property ids, nothing meshio reads) removed for comparison."""
    mesh.cell_data.pop("mdpa:property", None)
    return mesh


def test_our_files_read_equal_in_meshio(tmp_path):
    meshio = meshio_module()
    mesh = sample_mesh(TYPES)
    path = tmp_path / "ours.mdpa"
    mio.mdpa.write(path, mesh)
    theirs = meshio.read(path)
    # meshio merges nothing here (every block has its own type) and reads no data.
    np.testing.assert_array_equal(theirs.points, mesh.points)
    assert [c.type for c in theirs.cells] == [c.type for c in mesh.cells]
    for x, y in zip(theirs.cells, mesh.cells):
        np.testing.assert_array_equal(x.data, y.data)


def test_our_files_round_trip_data_and_regions(tmp_path):
    mesh = sample_mesh(TYPES + ("pyramid", "hexahedron20", "hexahedron27", "wedge15"))
    del mesh.point_data["id"]  # integer data read back as float64
    mesh.cell_data.pop("m")
    mesh.point_sets["inlet"] = np.array([0, 5, 7])
    path = tmp_path / "ours.mdpa"
    mio.mdpa.write(path, mesh)
    back = without_ours(mio.read(path))
    assert_same_mesh(back, mesh)
    np.testing.assert_array_equal(back.point_sets["inlet"], [0, 5, 7])


def test_meshio_files_read_equal_in_ours(tmp_path):
    meshio = meshio_module()
    mesh = sample_mesh(TYPES)
    path = tmp_path / "theirs.mdpa"
    # meshio writes data rows without Kratos' fixed flag; its NodalData is not what Kratos
    # (or we) read, so only the geometry is compared.
    meshio.mdpa.write(path, meshio.Mesh(mesh.points, [(b.type, b.data) for b in mesh.cells]))
    ours = without_ours(mio.read(path))
    theirs = meshio.read(path)
    # meshio's float_fmt=".16e" round-trips float64.
    np.testing.assert_array_equal(ours.points, theirs.points)
    assert [c.type for c in ours.cells] == [c.type for c in theirs.cells]
    for x, y in zip(ours.cells, theirs.cells):
        np.testing.assert_array_equal(np.asarray(x.data), np.asarray(y.data))
    assert not ours.cell_data and not ours.point_data
