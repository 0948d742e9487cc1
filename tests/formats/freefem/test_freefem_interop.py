"""FreeFEM 2-D .msh through meshio++, a plain token parse of the file and meshio++ 17.21.

FreeFEM's own files (tests/data/freefem) read with the arrays a direct parse of their tokens
gives and with what 17.21 reads (run in its own interpreter: the same import name); what we
write, 17.21 reads back bit for bit, and what 17.21 writes we read; .msh files of Gmsh,
Fluent and FreeFEM are told apart by content.
"""

import json
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from interop import run_meshioplusplus_17

TESTS = pathlib.Path(__file__).resolve().parents[2]
DATA = TESTS / "data" / "freefem"
FILES = sorted(p for p in DATA.glob("*.msh") if p.name != "gmsh_mesh.msh")

PEER_READ = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path, file_format="freefem")
    out[path] = {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "point_refs": np.asarray(mesh.point_data["freefem:ref"]).tolist(),
        "cell_refs": [np.asarray(a).tolist() for a in mesh.cell_data["freefem:ref"]],
    }
print(json.dumps(out))
"""


def peer(script, *args):
    return run_meshioplusplus_17(script, *args)


def parse_tokens(path):
    """The file as FreeFEM reads it: a stream of numbers."""
    tokens = path.read_text().split()
    nv, nt, nbe = map(int, tokens[:3])
    at = 3
    vertices = np.array(tokens[at:at + 3 * nv], dtype=float).reshape(nv, 3)
    at += 3 * nv
    triangles = np.array(tokens[at:at + 4 * nt], dtype=np.int64).reshape(nt, 4)
    at += 4 * nt
    edges = np.array(tokens[at:at + 3 * nbe], dtype=np.int64).reshape(nbe, 3)
    assert at + 3 * nbe == len(tokens)
    return vertices, triangles, edges


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_real_files_equal_a_direct_parse(path):
    vertices, triangles, edges = parse_tokens(path)
    mesh = mio.read(path)  # no format name: the .msh sniff picks FreeFEM
    np.testing.assert_array_equal(mesh.points, vertices[:, :2])
    np.testing.assert_array_equal(mesh.point_data["freefem:ref"], vertices[:, 2].astype(np.int64))
    assert [b.type for b in mesh.cells] == ["triangle", "line"]
    np.testing.assert_array_equal(mesh.cells[0].data, triangles[:, :3] - 1)
    np.testing.assert_array_equal(mesh.cells[1].data, edges[:, :2] - 1)
    np.testing.assert_array_equal(mesh.cell_data["freefem:ref"][0], triangles[:, 3])
    np.testing.assert_array_equal(mesh.cell_data["freefem:ref"][1], edges[:, 2])


def test_real_files_read_as_meshioplusplus_17_reads_them():
    theirs = json.loads(peer(PEER_READ, *FILES))
    for path in FILES:
        ours = mio.read(path, file_format="freefem")
        t = theirs[str(path)]
        assert np.asarray(ours.points).tolist() == t["points"], path.name
        assert [[b.type, np.asarray(b.data).tolist()] for b in ours.cells] == t["cells"], path.name
        assert np.asarray(ours.point_data["freefem:ref"]).tolist() == t["point_refs"], path.name
        assert [np.asarray(a).tolist() for a in ours.cell_data["freefem:ref"]] == t["cell_refs"], path.name


def test_what_we_write_17_reads_bit_for_bit(tmp_path):
    mesh = mio.read(DATA / "lac-leman-v4.msh")
    rng = np.random.default_rng(3)
    mesh.points = rng.standard_normal(mesh.points.shape) * 1e3  # digits a fixed format would lose
    path = tmp_path / "ours.msh"
    mio.freefem.write(path, mesh)
    assert path.read_text().startswith("726 1287 163\n")
    t = json.loads(peer(PEER_READ, path))[str(path)]
    assert np.array_equal(np.array(t["points"]), mesh.points)
    assert [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells] == t["cells"]
    assert t["cell_refs"] == [np.asarray(a).tolist() for a in mesh.cell_data["freefem:ref"]]
    back = mio.read(path)
    assert np.array_equal(back.points, mesh.points)


def test_what_17_writes_we_read(tmp_path):
    path = tmp_path / "theirs.msh"
    peer(
        "import sys, meshioplusplus as m; mesh = m.read(sys.argv[1], file_format='freefem'); "
        "m.write(sys.argv[2], mesh, file_format='freefem')",
        DATA / "aile.msh", path)
    ours = mio.read(path, file_format="freefem")
    original = mio.read(DATA / "aile.msh")
    np.testing.assert_array_equal(ours.points, original.points)
    for a, b in zip(ours.cells, original.cells):
        assert a.type == b.type
        np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(ours.point_data["freefem:ref"], original.point_data["freefem:ref"])


def test_msh_sniff_and_default_writer(tmp_path):
    assert "freefem:ref" in mio.read(DATA / "Th.msh").point_data
    gmsh = mio.read(DATA / "gmsh_mesh.msh")
    assert len(gmsh.points) == 64 and "freefem:ref" not in gmsh.point_data
    fluent = mio.read(TESTS / "data" / "ansys" / "elbow.msh")
    assert "freefem:ref" not in fluent.point_data and len(fluent.points) > 0
    mesh = mio.read(DATA / "Th.msh")
    path = tmp_path / "default.msh"
    mio.write(path, mesh)
    assert path.read_bytes().startswith(b"$MeshFormat")
    mio.write(path, mesh, file_format="freefem")
    assert path.read_text().splitlines()[0] == "9 8 8"
    neither = tmp_path / "neither.msh"
    neither.write_text("9 8\n")
    with pytest.raises(mio.ReadError, match="gmsh, ansys, freefem"):
        mio.read(neither)


def test_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.msh"
    path.write_text("3 1 0\n0 0 1\n1 0 1\n0 1 1\n1 2 4 0\n")
    with pytest.raises(mio.ReadError, match=r"line 5.*|refers to vertex 4") as info:
        mio.read(path)
    assert "refers to vertex 4, outside 1..3" in str(info.value)
    assert "5" in str(info.value)
    with pytest.raises(mio.WriteError):
        mio.freefem.write(tmp_path / "q.msh", mio.Mesh(np.zeros((4, 2)), [("quad", np.array([[0, 1, 2, 3]]))]))
