"""FEBio .xplt plot files (febio-python's samples, written by FEBio 3.7 and 4.7) against
febio-python's Xplt reader and meshio++ 17.21, and the time-series API."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "xplt"
PEER = pathlib.Path(__file__).resolve().parents[3] / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"
FILES = ["sample2d_v4.xplt", "sample_cfd.xplt"]


@pytest.mark.parametrize("name", FILES)
def test_mesh_and_every_state_match_febio_python(name):
    xplt = pytest.importorskip("febio_python.xplt", reason="febio-python (requirements-test.txt) is the reference reader")
    reference = xplt.Xplt(str(DATA / name))
    with mio.xplt.TimeSeriesReader(DATA / name) as reader:
        points, cells = reader.read_points_cells()
        np.testing.assert_allclose(points, np.asarray(reference.nodes[0].coordinates), rtol=0, atol=0)
        ref_blocks = [np.asarray(e.connectivity) for e in reference.elements]
        assert [c.data.shape for c in cells] == [b.shape for b in ref_blocks]
        for ours, theirs in zip(cells, ref_blocks):
            np.testing.assert_array_equal(ours.data, theirs)
        times = np.asarray(reference.states.timesteps)
        assert reader.num_steps == len(times)
        compared = 0
        for k in range(reader.num_steps):
            t, point_data, cell_data = reader.read_data(k)
            assert t == pytest.approx(times[k])
            for state in reference.states.nodes:
                values = np.asarray(state.data)[k]
                np.testing.assert_array_equal(point_data[state.name].reshape(values.shape), values)
                compared += 1
            for state in reference.states.elements:
                values = np.asarray(state.data)[k]
                np.testing.assert_array_equal(cell_data[state.name][0].reshape(values.shape), values)
                compared += 1
        assert compared > 0


@pytest.mark.parametrize("name", FILES)
def test_first_state_matches_meshioplusplus_17(name):
    if not PEER.exists():
        pytest.skip("meshio++ 17.21 (bench/.venv-meshioplusplus-17) is not installed")
    code = (
        "import sys, numpy as np, meshioplusplus as m\n"
        "me = m.read(sys.argv[1])\n"
        "np.savez(sys.argv[2], points=me.points, conn=me.cells[0].data,"
        " **{'pd_' + k: v for k, v in me.point_data.items()}, **{'cd_' + k: v[0] for k, v in me.cell_data.items()})\n"
    )
    out = pathlib.Path(pytest.importorskip("tempfile").mkdtemp()) / "peer.npz"
    subprocess.run([str(PEER), "-c", code, str(DATA / name), str(out)], check=True, capture_output=True)
    peer = np.load(out)
    mesh = mio.read(DATA / name)
    np.testing.assert_array_equal(mesh.points, peer["points"])
    np.testing.assert_array_equal(mesh.cells[0].data, peer["conn"])
    for key in peer.files:
        if key.startswith("pd_"):
            np.testing.assert_allclose(mesh.point_data[key[3:]], peer[key].reshape(mesh.point_data[key[3:]].shape))
        if key.startswith("cd_"):
            np.testing.assert_allclose(mesh.cell_data[key[3:]][0], peer[key].reshape(mesh.cell_data[key[3:]][0].shape))
