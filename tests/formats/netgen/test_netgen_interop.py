"""Netgen through meshio++ and meshio, both directions, plain and gzip."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module

# Surface sections come first in a written file, then volumes, edges and point elements, so
# blocks listed in that order come back in the same order.
TYPES = ("triangle", "quad", "triangle6", "quad8", "tetra", "hexahedron", "wedge", "pyramid",
         "tetra10", "pyramid13", "wedge15", "hexahedron20", "line", "vertex")


def netgen_mesh(cell_types=TYPES, dim=3, field_data=None):
    rng = np.random.default_rng(11)
    points = rng.random((40, dim))
    cells = [(t, rng.integers(0, 40, size=(4, mio.num_nodes_per_cell[t]), dtype=np.int64)) for t in cell_types]
    return mio.Mesh(
        points,
        cells,
        cell_data={"netgen:index": [rng.integers(1, 4, 4).astype(np.int64) for _ in cells]},
        field_data=field_data or {},
    )


def meshio_copy(mesh):
    meshio = meshio_module()
    return meshio.Mesh(
        np.asarray(mesh.points),
        [(b.type, np.asarray(b.data)) for b in mesh.cells],
        cell_data={k: [np.asarray(a) for a in v] for k, v in mesh.cell_data.items()},
        field_data=dict(mesh.field_data),
    )


@pytest.mark.parametrize("suffix", [".vol", ".vol.gz"])
def test_our_files_read_equal_in_meshio(tmp_path, suffix, meshio_knows_wedge15_pyramid13):
    meshio = meshio_module()
    mesh = netgen_mesh()
    path = tmp_path / f"ours{suffix}"
    mio.netgen.write(path, mesh)
    theirs = meshio.read(path)
    assert_same_mesh(theirs, mesh, check_dtypes=False)  # meshio reads uint32 connectivity
    ours = mio.read(path)
    assert_same_mesh(ours, mesh)
    assert set(theirs.field_data) == set(ours.field_data)


@pytest.mark.parametrize("suffix", [".vol", ".vol.gz"])
def test_meshio_files_read_equal_in_ours(tmp_path, suffix, meshio_knows_wedge15_pyramid13):
    meshio = meshio_module()
    mesh = netgen_mesh(field_data={"steel": np.array([2, 3]), "inlet": np.array([1, 2])})
    path = tmp_path / f"theirs{suffix}"
    meshio.netgen.write(path, meshio_copy(mesh))
    # meshio writes "%.16e", which round-trips float64 exactly.
    ours = mio.read(path)
    assert_same_mesh(ours, mesh)
    for name, value in meshio.read(path).field_data.items():
        np.testing.assert_array_equal(ours.field_data[name], value)
    steel = next(r for r in ours.regions if r.name == "steel")
    assert steel.dim == 3 and steel.tag == 2


@pytest.mark.parametrize("cell_type", ["wedge15", "pyramid13"])
def test_meshio_cannot_build_wedge15_or_pyramid13(tmp_path, cell_type):
    # Pins the meshio 5.3.5 bug worked around by ``meshio_knows_wedge15_pyramid13``: neither a mesh
    # with such a block nor a Netgen file with such volume elements can be made in meshio.
    meshio = meshio_module()
    mesh = netgen_mesh((cell_type,))
    with pytest.raises(KeyError, match=cell_type):
        meshio_copy(mesh)
    path = tmp_path / "ours.vol"
    mio.netgen.write(path, mesh)
    with pytest.raises(KeyError, match=cell_type):
        meshio.read(path)


def test_planar_mesh_both_ways(tmp_path):
    meshio = meshio_module()
    mesh = netgen_mesh(("triangle", "quad", "line"), dim=2)
    ours = tmp_path / "planar.vol"
    mio.netgen.write(ours, mesh)
    assert_same_mesh(meshio.read(ours), mesh, check_dtypes=False)
    theirs = tmp_path / "planar_meshio.vol"
    meshio.netgen.write(theirs, meshio_copy(mesh))
    assert_same_mesh(mio.read(theirs), mesh)
