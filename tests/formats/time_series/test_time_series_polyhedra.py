"""Time series of meshes with polyhedra of several sizes: meshio shows them as one Python block
per size (polyhedron8, polyhedron5), the core as one polyhedron block; read_data must split a
step's cell data the way read_points_cells split the blocks."""

import numpy as np
import pytest

import meshioplusplus as mio

CUBE = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]]
PYRAMID = [[4, 7, 6, 5], [4, 5, 8], [5, 6, 8], [6, 7, 8], [7, 4, 8]]  # on the cube's top, apex 8


def two_sizes_of_polyhedra():
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1],
                       [0.5, 0.5, 2.0]], dtype=float)
    cells = [("polyhedron8", [[np.array(f) for f in CUBE]]), ("polyhedron5", [[np.array(f) for f in PYRAMID]])]
    return points, cells


@pytest.mark.parametrize("extension", [".e", ".xdmf"])
def test_cell_data_of_a_step_follows_the_polyhedron_blocks(tmp_path, monkeypatch, extension):
    monkeypatch.chdir(tmp_path)  # XDMF's TimeSeriesWriter puts its .h5 in the working directory, as meshio
    if extension == ".e" and not mio._core.features().get("netcdf", True):
        pytest.skip("built without netCDF")
    points, cells = two_sizes_of_polyhedra()
    path = tmp_path / f"series{extension}"
    module = mio.xdmf if extension == ".xdmf" else mio.exodus
    with module.TimeSeriesWriter(path) as writer:
        writer.write_points_cells(points, cells)
        for t in (0.0, 1.0):
            writer.write_data(t, cell_data={"p": [np.array([10.0 + t]), np.array([20.0 + t])]})
    reader = module.TimeSeriesReader(path)
    with reader:
        _, blocks = reader.read_points_cells()
        assert [(b.type, len(b)) for b in blocks] == [("polyhedron8", 1), ("polyhedron5", 1)]
        for k, t in enumerate((0.0, 1.0)):
            time, _, cell_data = reader.read_data(k)
            assert time == pytest.approx(t)
            assert [len(values) for values in cell_data["p"]] == [1, 1]
            assert [float(values[0]) for values in cell_data["p"]] == [10.0 + t, 20.0 + t]
