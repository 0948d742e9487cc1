"""TetGen through meshio++ and meshio, both directions, named by either file of the pair."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module


def tetgen_mesh():
    rng = np.random.default_rng(5)
    points = rng.random((20, 3))
    cells = [("tetra", rng.integers(0, 20, size=(6, 4)))]
    return mio.Mesh(
        points,
        cells,
        point_data={"tetgen:ref": rng.integers(0, 4, 20).astype(np.int32), "tetgen:attr1": rng.random(20)},
        cell_data={"tetgen:ref": [rng.integers(1, 3, 6).astype(np.int64)]},
    )


@pytest.mark.parametrize("suffix", [".node", ".ele"])
def test_our_files_read_equal_in_meshio(tmp_path, suffix):
    meshio = meshio_module()
    mesh = tetgen_mesh()
    path = tmp_path / f"ours{suffix}"
    mio.tetgen.write(path, mesh)
    # meshio reads markers as float64; meshio++ as int32 (TetGen's markers are integers).
    assert_same_mesh(meshio.read(path), mesh, check_dtypes=False)
    ours = mio.read(path)
    assert_same_mesh(ours, mesh)
    assert sorted(r.name for r in ours.regions) == ["tetgen:ref 1", "tetgen:ref 2"]


def test_meshio_files_read_equal_in_ours(tmp_path):
    meshio = meshio_module()
    mesh = tetgen_mesh()
    path = tmp_path / "theirs.ele"
    meshio.tetgen.write(
        path,
        meshio.Mesh(mesh.points, [(b.type, b.data) for b in mesh.cells],
                    point_data=dict(mesh.point_data), cell_data=dict(mesh.cell_data)),
    )
    # meshio writes "%.16e", which round-trips float64 exactly.
    assert_same_mesh(mio.read(path), meshio.read(path), check_dtypes=False)
