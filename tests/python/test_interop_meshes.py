"""to_pyvista/from_pyvista and to_trimesh/from_trimesh with the real libraries (PyPI)."""

import warnings

import numpy as np
import pytest

import meshioplusplus as mio

POINTS = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 1], [2, 0, 0]], dtype=float)


def sample():
    mesh = mio.Mesh(
        POINTS,
        [("tetra", [[0, 1, 2, 4]]), ("triangle", [[0, 1, 2], [0, 2, 3]]), ("quad", [[1, 5, 2, 2]])],
        point_data={"T": np.arange(6.0)},
        cell_data={"id": [np.array([7]), np.array([8, 9]), np.array([10])]},
        field_data={"answer": np.array([42])},
    )
    mesh.regions = [
        mio.Region("base", mio.RegionKind.POINT, 2, 3, [0, 1, 2, 3]),
        mio.Region("skin", mio.RegionKind.CELL, 2, 5, [1, 2]),
    ]
    return mesh


def test_pyvista_round_trip_keeps_cells_data_and_regions():
    pyvista = pytest.importorskip("pyvista", reason="pyvista is in requirements-test.txt")
    mesh = sample()
    grid = mio.to_pyvista(mesh)
    assert isinstance(grid, pyvista.UnstructuredGrid)
    assert list(grid.celltypes) == [10, 5, 5, 9]
    np.testing.assert_array_equal(grid.cell_data["id"], [7, 8, 9, 10])
    np.testing.assert_array_equal(grid.point_data["region:base"], [1, 1, 1, 1, 0, 0])
    back = mio.from_pyvista(grid)
    assert [(b.type, len(b)) for b in back.cells] == [("tetra", 1), ("triangle", 2), ("quad", 1)]
    np.testing.assert_array_equal(back.points, POINTS)
    assert [a.tolist() for a in back.cell_data["id"]] == [[7], [8, 9], [10]]
    assert "region:base" not in back.point_data and "region:skin" not in back.cell_data
    assert back.regions == mesh.regions
    np.testing.assert_array_equal(back.field_data["answer"], [42])


def test_pyvista_side_regions_are_reported_not_silently_lost():
    pytest.importorskip("pyvista", reason="pyvista is in requirements-test.txt")
    mesh = sample()
    mesh.regions.append(mio.Region("faces", mio.RegionKind.SIDE, 2, -1, [[0, 1]]))
    with pytest.warns(mio.InteropWarning, match="faces"):
        mio.to_pyvista(mesh)


def test_pyvista_grid_from_a_vtk_source_reads_into_blocks():
    pyvista = pytest.importorskip("pyvista", reason="pyvista is in requirements-test.txt")
    grid = pyvista.ImageData(dimensions=(3, 3, 2)).cast_to_unstructured_grid()
    mesh = mio.from_pyvista(grid)
    assert sum(len(b) for b in mesh.cells) == grid.n_cells == 4
    assert {b.type for b in mesh.cells} == {"hexahedron"}  # voxels come as VTK_VOXEL=11


def test_trimesh_round_trip():
    trimesh = pytest.importorskip("trimesh", reason="trimesh is in requirements-test.txt")
    mesh = sample()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        geometry = mio.to_trimesh(mesh)
    assert any("tetra" in str(w.message) for w in caught)
    assert isinstance(geometry, trimesh.Trimesh)
    assert geometry.faces.shape == (4, 3)  # 2 triangles + a quad fanned into 2
    np.testing.assert_array_equal(geometry.face_attributes["id"], [8, 9, 10, 10])
    back = mio.from_trimesh(geometry)
    np.testing.assert_array_equal(back.points, POINTS)
    assert back.cells[0].type == "triangle" and len(back.cells[0]) == 4
    np.testing.assert_array_equal(back.point_data["T"], np.arange(6.0))
    assert back.region("base").entries.tolist() == [0, 1, 2, 3]
    # Cell region entries are now triangle numbers (the quad became triangles 2 and 3)
    assert back.region("skin").entries.tolist() == [0, 1]
