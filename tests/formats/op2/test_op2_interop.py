"""Nastran OP2 through Python: counts and results against pyNastran (the maintained OP2 reader)
when it is importable, against the numbers pyNastran 1.4.1 gives otherwise, and the time-series
reader's steps."""

import pathlib

import numpy as np
import pytest

import meshioplusplus

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "op2"

# pyNastran 1.4.1: GRID count, element count, per mode/subcase sum of |T1..T3|, time values.
EXPECTED = {
    "plate.op2": (36, 25, [0.000617753], [1.0]),
    "solid_bending.op2": (72, 186, [0.4519537], [1.0]),
    "mode_solid_shell_bar.op2": (25, 21, [20.535332, 21.407920, 20.621778], [200517.71875, 227772.15625, 624644.375]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts_and_steps(name):
    points, elements, magnitudes, times = EXPECTED[name]
    mesh = meshioplusplus.read(DATA / name)
    assert len(mesh.points) == points
    assert sum(len(block.data) for block in mesh.cells) == elements
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / name)) as reader:
        assert reader.num_steps == len(times)
        for k, (magnitude, time) in enumerate(zip(magnitudes, times)):
            t, point_data, _ = reader.read_data(k)
            assert t == pytest.approx(time)
            total = np.abs(point_data["displacement"]).sum() + (
                np.abs(point_data["rotation"]).sum() if name != "mode_solid_shell_bar.op2" else 0
            )
            assert total == pytest.approx(magnitude, rel=1e-5)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_against_pynastran(name):
    op2_geom = pytest.importorskip("pyNastran.op2.op2_geom", reason="pyNastran (the reference OP2 reader) not installed")
    try:
        model = op2_geom.read_op2_geom(str(DATA / name), debug=None, build_dataframe=False)
    except AttributeError as error:  # pyNastran 1.4 uses numpy functions numpy 2.4 removed
        pytest.skip(f"pyNastran does not run with this numpy: {error}")
    mesh = meshioplusplus.read(DATA / name)
    assert len(mesh.points) == len(model.nodes)
    assert sum(len(block.data) for block in mesh.cells) == len(model.elements)
    ids = mesh.point_data["nastran:grid_id"]
    xyz = np.array([model.nodes[i].xyz for i in ids])
    np.testing.assert_allclose(mesh.points, xyz, rtol=1e-6)
    results = model.eigenvectors or model.displacements
    (result,) = results.values()
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / name)) as reader:
        for k in range(result.data.shape[0]):
            _, point_data, _ = reader.read_data(k)
            rows = np.searchsorted(ids, result.node_gridtype[:, 0])
            np.testing.assert_allclose(point_data["displacement"][rows], result.data[k, :, :3], rtol=1e-6)
