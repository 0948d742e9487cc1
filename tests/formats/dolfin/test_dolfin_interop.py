"""DOLFIN XML through meshio++ and meshio, both directions."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module, sample_mesh, to_meshio

# meshio reads triangle and tetrahedron meshes only.
CELL_TYPES = ["triangle", "tetra"]


def dolfin_mesh(cell_type):
    """sample_mesh as DOLFIN keeps it: one cell type, scalar cell functions."""
    mesh = sample_mesh((cell_type,))
    for name in list(mesh.point_data):
        del mesh.point_data[name]
    return mesh


@pytest.mark.parametrize("cell_type", CELL_TYPES)
def test_our_files_read_equal_in_meshio(tmp_path, cell_type):
    meshio = meshio_module()
    mesh = dolfin_mesh(cell_type)
    path = tmp_path / "ours.xml"
    mio.dolfin.write(path, mesh)
    assert (tmp_path / "ours_c.xml").exists() and (tmp_path / "ours_m.xml").exists()
    assert_same_mesh(meshio.read(path), mesh, check_dtypes=False)
    assert_same_mesh(mio.read(path), mesh)


@pytest.mark.parametrize("cell_type", CELL_TYPES)
def test_our_point_data_reads_back(tmp_path, cell_type):
    # Point data is written as vertex functions (dim 0); meshio would take them for cell data.
    mesh = sample_mesh((cell_type,))
    del mesh.point_data["v"]
    path = tmp_path / "ours.xml"
    mio.dolfin.write(path, mesh)
    back = mio.read(path)
    np.testing.assert_array_equal(back.point_data["T"], mesh.point_data["T"])
    np.testing.assert_array_equal(back.point_data["id"], mesh.point_data["id"])


@pytest.mark.parametrize("cell_type", CELL_TYPES)
def test_meshio_files_read_equal_in_ours(tmp_path, cell_type):
    meshio = meshio_module()
    mesh = dolfin_mesh(cell_type)
    path = tmp_path / "from_meshio.xml"
    meshio.dolfin.write(path, to_meshio(mesh))
    # meshio writes repr() of each value: exact, and under numpy 2 "np.float64(…)", which
    # meshio itself then cannot read back; meshio++ can.
    assert_same_mesh(mio.read(path), mesh, check_dtypes=False)
