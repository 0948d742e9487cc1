"""Tecplot binary .plt: a file written by Tecplot 360 against meshio++ 17.21, our writer's files
read back by batread (BATSRUS' pure-Python .plt reader) and 17.21, and the time-series API."""

import pathlib
import subprocess

import numpy as np
import pytest

import meshioplusplus as mio
from interop import unpacked

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "tecplot_binary"
PEER = pathlib.Path(__file__).resolve().parents[3] / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"
PEER_CODE = (
    "import sys, numpy as np, meshioplusplus as m\n"
    "me = m.read(sys.argv[1])\n"
    "np.savez(sys.argv[2], points=me.points, **{f'conn{k}': c.data for k, c in enumerate(me.cells)},"
    " **{'pd_' + k: v for k, v in me.point_data.items()},"
    " **{f'cd{b}_' + k: a for k, v in me.cell_data.items() for b, a in enumerate(v)})\n"
)


def peer_read(path, tmp_path):
    if not PEER.exists():
        pytest.skip("meshio++ 17.21 (bench/.venv-meshioplusplus-17) is not installed")
    out = tmp_path / "peer.npz"
    subprocess.run([str(PEER), "-c", PEER_CODE, str(path), str(out)], check=True, capture_output=True)
    return np.load(out)


def assert_same_as_peer(mesh, peer):
    np.testing.assert_array_equal(mesh.points, peer["points"])
    for k, block in enumerate(mesh.cells):
        np.testing.assert_array_equal(block.data, peer[f"conn{k}"])
    compared = 0
    for key in peer.files:
        if key.startswith("pd_"):
            np.testing.assert_array_equal(mesh.point_data[key[3:]], peer[key])
            compared += 1
        elif key.startswith("cd"):
            block, name = key[2:].split("_", 1)
            np.testing.assert_array_equal(mesh.cell_data[name][int(block)], peer[key])
            compared += 1
    return compared


def test_tecplot_360_file_matches_meshioplusplus_17(tmp_path):
    path = unpacked(DATA / "NASA_Blended_Wing.plt.gz", tmp_path)
    mesh = mio.read(path)
    assert mesh.points.shape == (17744, 3)
    assert [(c.type, len(c.data)) for c in mesh.cells] == [("triangle", 35484)]
    assert assert_same_as_peer(mesh, peer_read(path, tmp_path)) == 1  # Cp
    with mio.tecplot_binary.TimeSeriesReader(path) as reader:
        assert reader.num_steps == 1
        t, point_data, _ = reader.read_data(0)
        np.testing.assert_array_equal(point_data["Cp"], mesh.point_data["Cp"])


def bracket_like_mesh():
    rng = np.random.default_rng(7)
    points = rng.random((30, 3))
    hexes = rng.integers(0, 30, (6, 8))
    tets = rng.integers(0, 30, (5, 4))
    return mio.Mesh(points, [("hexahedron", hexes), ("tetra", tets)],
                    point_data={"T": rng.random(30), "u": rng.random((30, 3))},
                    cell_data={"p": [rng.random(6), rng.random(5)]})


def test_what_we_write_reads_back_in_17_21(tmp_path):
    mesh = bracket_like_mesh()
    path = tmp_path / "ours.plt"
    mio.write(path, mesh)
    back = mio.read(path)
    np.testing.assert_array_equal(back.points, mesh.points)
    np.testing.assert_array_equal(back.point_data["u_2"], mesh.point_data["u"][:, 2])
    np.testing.assert_array_equal(back.cell_data["p"][1], mesh.cell_data["p"][1])
    assert assert_same_as_peer(back, peer_read(path, tmp_path)) >= 5


def test_what_we_write_reads_in_batread(tmp_path):
    read_plt = pytest.importorskip("batread.read_plt", reason="batread (requirements-test.txt) reads .plt files").read_plt
    mesh = bracket_like_mesh()
    one_block = mio.Mesh(mesh.points, [mesh.cells[0]], point_data={"T": mesh.point_data["T"]})
    path = tmp_path / "single.plt"
    mio.write(path, one_block, float32=True)  # batread reads float32 FEBRICK zones
    values, corners, _, _, variables, _ = read_plt(str(path))
    assert variables == ["X", "Y", "Z", "T"]
    np.testing.assert_array_equal(values[:, :3], mesh.points.astype(np.float32))
    np.testing.assert_array_equal(values[:, 3], mesh.point_data["T"].astype(np.float32))
    np.testing.assert_array_equal(corners, mesh.cells[0].data)


def test_szplt_is_refused_by_name(tmp_path):
    path = tmp_path / "a.szplt"
    path.write_bytes(b"#!SZPLT" + bytes(64))
    with pytest.raises(mio.ReadError, match="SZL"):
        mio.read(path)
