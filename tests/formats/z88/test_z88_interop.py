"""Z88 structure files through the Python API: the Z88OS examples against meshio++ 17.21's
z88 reader (node for node) and the fixed file names. meshio has no Z88 format."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_large_deck_reads_alike_on_one_thread_and_two

REPO = pathlib.Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data" / "z88"
EXAMPLES = ["b1", "b2", "b5", "b18", "b24"]
PEER_PYTHON = REPO / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"
PEER_SCRIPT = """
import json, sys
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path, file_format="z88")
    out[path] = {"module": m.__file__, "points": mesh.points.tolist(),
                 "cells": [[c.type, c.data.tolist()] for c in mesh.cells],
                 "types": [a.tolist() for a in mesh.cell_data["z88:type"]]}
print(json.dumps(out))
"""


def test_same_mesh_as_meshioplusplus_17():
    if not PEER_PYTHON.exists():
        pytest.skip("meshio++ 17.21 is not installed at bench/.venv-meshioplusplus-17 (bench/setup)")
    paths = [str(DATA / name / "z88i1.txt") for name in EXAMPLES]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([str(PEER_PYTHON), "-c", PEER_SCRIPT, *paths], capture_output=True, text=True, timeout=300,
                            cwd="/", env=env)
    assert result.returncode == 0, result.stderr
    peer = json.loads(result.stdout)
    assert all(".venv-meshioplusplus-17" in v["module"] for v in peer.values())
    for path in paths:
        ours = mio.read(path, file_format="z88")
        points = np.asarray(ours.points)
        peer_points = np.asarray(peer[path]["points"])
        # 17.21 pads 2-D models with z = 0; we keep the file's dimension.
        assert np.array_equal(points, peer_points[:, : points.shape[1]]), path
        assert not peer_points[:, points.shape[1]:].any()
        assert [np.asarray(c.data).tolist() for c in ours.cells] == [data for _, data in peer[path]["cells"]], path
        assert [np.asarray(a).tolist() for a in ours.cell_data["z88:type"]] == peer[path]["types"]


def test_round_trip_by_extension(tmp_path):
    mesh = mio.read(str(DATA / "b5" / "z88i1.txt"), file_format="z88")
    out = tmp_path / "model.z88"
    mio.write(str(out), mesh)
    back = mio.z88.read(str(out))
    assert np.asarray(back.points).tobytes() == np.asarray(mesh.points).tobytes()
    assert np.array_equal(np.asarray(back.cells[0].data), np.asarray(mesh.cells[0].data))


def test_large_deck_reads_the_same_on_one_thread_and_two(tmp_path):
    assert_large_deck_reads_alike_on_one_thread_and_two(tmp_path / "large.z88", "z88")
