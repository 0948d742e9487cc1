"""AVS-UCD through meshio++ and meshio, both directions."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module, sample_mesh, to_meshio

CELL_TYPES = ["vertex", "line", "triangle", "quad", "tetra", "pyramid", "wedge", "hexahedron"]


def avs_mesh(cell_types):
    """sample_mesh in the shape AVS-UCD keeps: float64 data, the material as int64."""
    mesh = sample_mesh(cell_types)
    del mesh.point_data["id"]
    mesh.cell_data["avsucd:material"] = mesh.cell_data.pop("m")
    return mesh


@pytest.mark.parametrize("cell_type", CELL_TYPES)
def test_our_files_read_equal_in_meshio(tmp_path, cell_type):
    # One block per file: meshio 5.3.5 cannot read cell data of a file with several blocks
    # (its reader indexes CellBlock objects like tuples), whoever wrote it.
    meshio = meshio_module()
    mesh = avs_mesh((cell_type,))
    path = tmp_path / "ours.avs"
    mio.avsucd.write(path, mesh)
    assert_same_mesh(meshio.read(path), mesh)
    assert_same_mesh(mio.read(path), mesh)


def test_our_multi_block_files_read_equal_in_meshio_without_cell_fields(tmp_path):
    meshio = meshio_module()
    mesh = avs_mesh(CELL_TYPES)
    del mesh.cell_data["c"]
    path = tmp_path / "ours.avs"
    mio.avsucd.write(path, mesh)
    assert_same_mesh(meshio.read(path), mesh)


def test_meshio_files_read_equal_in_ours(tmp_path):
    meshio = meshio_module()
    mesh = avs_mesh(CELL_TYPES)
    path = tmp_path / "from_meshio.avs"
    meshio.avsucd.write(path, to_meshio(mesh))
    # meshio writes data with 15 significant digits and points exactly.
    ours = mio.read(path)
    np.testing.assert_array_equal(np.asarray(ours.points), mesh.points)
    assert_same_mesh(ours, mesh, rtol=1e-13)
