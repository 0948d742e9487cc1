"""Abaqus .fil against pybaqus (the maintained Python reader of ASCII .fil files): nodes,
displacements, element results averaged per element; the binary form (make_binary_fil.py)
equal to the ASCII file; meshio++ 17.21's abaqus_fil reader as a peer for counts."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE.parents[1] / "data" / "abaqus_fil"
ASCII_FILES = ["hex_C3D8.fil", "quad_CPS4.fil", "tri_CPE3.fil", "discontinuous_numbering_2D.fil", "model_results.fil"]
PEER = HERE.parents[2] / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"


def pybaqus_model(name):
    pybaqus = pytest.importorskip("pybaqus", reason="pybaqus is the reference reader of ASCII .fil files")
    return pybaqus.open_fil(str(DATA / name))


@pytest.mark.parametrize("name", ASCII_FILES)
def test_nodes_and_displacements_match_pybaqus(name):
    model = pybaqus_model(name)
    mesh = meshioplusplus.read(DATA / name)
    coords = np.asarray(model.get_node_coords())
    np.testing.assert_array_equal(mesh.points, coords[:, : mesh.points.shape[1]])
    assert sum(len(block.data) for block in mesh.cells) == len(model.elements)
    u = mesh.point_data["U"]
    for c in range(u.shape[1]):
        np.testing.assert_array_equal(u[:, c], np.asarray(model.get_nodal_result(f"U{c + 1}", 1, 1)))


@pytest.mark.parametrize("name", [n for n in ASCII_FILES if n != "model_results.fil"])
def test_element_results_are_pybaqus_averages(name):
    model = pybaqus_model(name)
    mesh = meshioplusplus.read(DATA / name)
    ids = np.concatenate(mesh.cell_data["abaqus_fil:element_id"])
    for variable in ("S", "E"):
        ours = np.concatenate(mesh.cell_data[variable])
        for c in range(ours.shape[1]):
            per_point = model.elem_output[1][1][f"{variable}{c + 1}"]
            reference = np.array([np.mean(per_point[int(i)]) for i in ids])
            # The same values summed in another order: equal to rounding of the largest one.
            scale = max(np.abs(np.concatenate(list(per_point.values()))).max(), 1e-300)
            np.testing.assert_allclose(ours[:, c], reference, rtol=0, atol=1e-14 * scale)


def test_binary_form_equals_ascii(tmp_path):
    sys.path.insert(0, str(HERE))
    try:
        import make_binary_fil
    finally:
        sys.path.pop(0)
    target = tmp_path / "hex.fil"
    make_binary_fil.main(DATA / "hex_C3D8.fil", target)
    assert target.read_bytes() == (DATA / "hex_C3D8_binary.fil").read_bytes()
    ascii_mesh, binary_mesh = meshioplusplus.read(DATA / "hex_C3D8.fil"), meshioplusplus.read(target)
    np.testing.assert_array_equal(ascii_mesh.points, binary_mesh.points)
    for name in ("U", "COORD"):
        np.testing.assert_array_equal(ascii_mesh.point_data[name], binary_mesh.point_data[name])
    np.testing.assert_array_equal(ascii_mesh.cell_data["S"][0], binary_mesh.cell_data["S"][0])


def test_time_series_python_reader():
    with meshioplusplus.abaqus_fil.TimeSeriesReader(DATA / "hex_C3D8_3increments_binary.fil") as reader:
        points, cells = reader.read_points_cells()
        assert reader.num_steps == 3 and reader.times == [1.0, 2.0, 3.0]
        first = reader.read_data(0)[1]["U"]
        t, point_data, cell_data = reader.read_data(2)
        np.testing.assert_allclose(point_data["U"], 3 * first, rtol=1e-15)
        assert cell_data["S"][0].shape == (1, 6)
    last = meshioplusplus.read(DATA / "hex_C3D8_3increments_binary.fil")
    np.testing.assert_array_equal(last.point_data["U"], point_data["U"])


@pytest.mark.skipif(not PEER.exists(), reason="meshio++ 17.21 (bench/.venv-meshioplusplus-17) is not installed")
@pytest.mark.parametrize("name", ASCII_FILES + ["hex_C3D8_binary.fil"])
def test_counts_match_meshioplusplus_17(name):
    script = ("import sys, meshioplusplus as m; mesh = m.read(sys.argv[1], file_format='abaqus_fil'); "
              "print(len(mesh.points), sum(len(c.data) for c in mesh.cells))")
    run = subprocess.run([str(PEER), "-c", script, str(DATA / name)], capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    mesh = meshioplusplus.read(DATA / name)
    ours = f"{len(mesh.points)} {sum(len(c.data) for c in mesh.cells)}"
    if run.returncode != 0:
        pytest.xfail(f"meshio++ 17.21 cannot read {name}: {run.stderr.strip().splitlines()[-1:]}")
    assert run.stdout.split() == ours.split()
