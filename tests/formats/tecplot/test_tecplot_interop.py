"""Tecplot ASCII through meshio++ and meshio, both directions."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_same_mesh, meshio_module, sample_mesh, to_meshio

# Single types keep their own zone type; the mixed sets become degenerate quads / bricks.
CELL_SETS = {
    "line": ("line",),
    "triangle": ("triangle",),
    "quad": ("quad",),
    "tetra": ("tetra",),
    "hexahedron": ("hexahedron",),
    "wedge": ("wedge",),
    "pyramid": ("pyramid",),
    "surface": ("triangle", "quad"),
    "volume": ("tetra", "hexahedron", "wedge", "pyramid"),
}


def tecplot_mesh(cell_types):
    """sample_mesh as Tecplot keeps it: every value a float64 scalar variable."""
    mesh = sample_mesh(cell_types)
    mesh.point_data["id"] = mesh.point_data["id"].astype(np.float64)
    mesh.cell_data["m"] = [m.astype(np.float64) for m in mesh.cell_data["m"]]
    return mesh


def assert_same_reading(a, b):
    """Both readers see the same one-zone file the same way (meshio splits vectors into _0 …)."""
    assert_same_mesh(a, b, check_dtypes=False)


@pytest.mark.parametrize("cells", CELL_SETS)
def test_our_files_read_equal_in_meshio(tmp_path, cells):
    meshio = meshio_module()
    mesh = tecplot_mesh(CELL_SETS[cells])
    path = tmp_path / "ours.dat"
    mio.tecplot.write(path, mesh)
    theirs, ours = meshio.read(path), mio.read(path)
    assert_same_reading(theirs, ours)
    np.testing.assert_array_equal(np.asarray(ours.points), mesh.points)
    np.testing.assert_array_equal(np.asarray(ours.point_data["v_2"]), mesh.point_data["v"][:, 2])
    np.testing.assert_array_equal(np.asarray(ours.cell_data["c"][0]), np.concatenate(mesh.cell_data["c"]))
    if len(CELL_SETS[cells]) == 1 and cells not in ("wedge", "pyramid"):
        np.testing.assert_array_equal(np.asarray(ours.cells[0].data), mesh.cells[0].data)


@pytest.mark.parametrize("cells", CELL_SETS)
def test_meshio_files_read_equal_in_ours(tmp_path, cells):
    meshio = meshio_module()
    mesh = tecplot_mesh(CELL_SETS[cells])
    path = tmp_path / "from_meshio.dat"
    meshio.tecplot.write(path, to_meshio(mesh))
    # meshio writes repr(float): exact.
    assert_same_reading(mio.read(path), meshio.read(path))
