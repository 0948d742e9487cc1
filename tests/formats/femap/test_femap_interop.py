"""Femap neutral files through meshio++ and meshio++ 17.21.

No redistributable file written by Femap itself was found, so the files here are ours (every
Femap topology, property titles, nodal and elemental output vectors) and a deck laid out as the
Femap Neutral File reference gives the blocks; 17.21 reads both with the same points, cells,
property regions and output data.
"""

import json

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_large_deck_reads_alike_on_one_thread_and_two, run_meshioplusplus_17

PEER_SCRIPT = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path, file_format="femap")
    out[path] = {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "regions": sorted([r.name, sorted(np.asarray(r.entries).ravel().tolist()), int(r.tag)] for r in mesh.regions),
        "property": [np.asarray(a).tolist() for a in mesh.cell_data.get("femap:property", [])],
        "point_data": {k: np.nan_to_num(np.asarray(v, dtype=float), nan=-999).tolist() for k, v in mesh.point_data.items()},
        "cell_data": {k: [np.nan_to_num(np.asarray(a, dtype=float), nan=-999).tolist() for a in v]
                      for k, v in mesh.cell_data.items() if not k.startswith("femap:")},
    }
print(json.dumps(out))
"""


def written_mesh():
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [2, 0.5, 1 / 3]], dtype=float)
    cells = [("tetra", [[0, 1, 2, 3], [1, 4, 2, 3]]), ("triangle", [[0, 1, 5]]), ("line", [[4, 5]])]
    mesh = mio.Mesh(points, cells,
                    point_data={"T": np.linspace(0, 1, 6)},
                    cell_data={"femap:property": [np.array([3, 3]), np.array([5]), np.array([5])],
                               "S": [np.array([1.5, -2.0]), np.array([0.25]), np.array([7.0])]})
    return mesh


def test_our_files_read_alike_in_meshioplusplus_17(tmp_path):
    mesh = written_mesh()
    path = tmp_path / "model.neu"
    mio.write(path, mesh)
    ours = mio.read(path)
    np.testing.assert_array_equal(ours.points, mesh.points)
    assert [(b.type, np.asarray(b.data).tolist()) for b in ours.cells] == [
        (b.type, np.asarray(b.data).tolist()) for b in mesh.cells]
    np.testing.assert_array_equal(ours.point_data["T"], mesh.point_data["T"])
    for a, b in zip(ours.cell_data["S"], mesh.cell_data["S"]):
        np.testing.assert_array_equal(a, b)
    peer = json.loads(run_meshioplusplus_17(PEER_SCRIPT, path))[str(path)]
    assert peer["points"] == np.asarray(ours.points).tolist()
    assert peer["cells"] == [[b.type, np.asarray(b.data).tolist()] for b in ours.cells]
    assert peer["property"] == [np.asarray(a).tolist() for a in ours.cell_data["femap:property"]]
    assert peer["regions"] == sorted([r.name, sorted(np.asarray(r.entries).tolist()), int(r.tag)] for r in ours.regions)
    assert peer["point_data"]["T"] == np.asarray(ours.point_data["T"]).tolist()
    assert peer["cell_data"]["S"] == [np.asarray(a).tolist() for a in ours.cell_data["S"]]


def test_gambit_neutral_file_is_refused_by_name(tmp_path):
    path = tmp_path / "gambit.neu"
    path.write_text("        CONTROL INFO 2.4.6\n** GAMBIT NEUTRAL FILE\n")
    with pytest.raises(mio.ReadError, match="Gambit"):
        mio.read(path)


def test_malformed_file_raises_read_error_with_line(tmp_path):
    path = tmp_path / "bad.neu"
    path.write_text("   -1\n   100\n<NULL>\n8.2,\n   -1\n   -1\n   403\n1,0,0,1,46,0,0,0,0,0,0,0.,y,0.,\n   -1\n")
    with pytest.raises(mio.ReadError, match=r"bad\.neu:8 "):
        mio.read(path)


def test_large_deck_reads_the_same_on_one_thread_and_two(tmp_path):
    assert_large_deck_reads_alike_on_one_thread_and_two(tmp_path / "large.neu", "femap")
