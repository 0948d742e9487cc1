"""COMSOL .mphtxt through meshio++ and meshio++ 17.21 (its own interpreter: the same import
name). COMSOL-written files (tests/data/mphtxt, FEconv's test data) read the same points,
cells (node orders included) and geometric entity indices in both (17.21 names them
"mphtxt:geom"); what we write 17.21 reads back bit for bit, and the other way round.
"""

import json
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_large_deck_reads_alike_on_one_thread_and_two, run_meshioplusplus_17

TESTS = pathlib.Path(__file__).resolve().parents[2]
DATA = TESTS / "data" / "mphtxt"
FILES = sorted(DATA.glob("*.mphtxt"))

PEER_READ = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path, file_format="mphtxt")
    out[path] = {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "entities": [np.asarray(a).tolist() for a in mesh.cell_data["mphtxt:geom"]],
    }
print(json.dumps(out))
"""


def peer(script, *args):
    return run_meshioplusplus_17(script, *args)


def summary(mesh):
    return {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "entities": [np.asarray(a).tolist() for a in mesh.cell_data["mphtxt:geometric_entity"]],
    }


def test_real_files_read_as_meshioplusplus_17_reads_them():
    theirs = json.loads(peer(PEER_READ, *FILES))
    for path in FILES:
        assert summary(mio.read(path)) == theirs[str(path)], path.name


def test_what_we_write_17_reads_bit_for_bit(tmp_path):
    for name in ("hexap2.mphtxt", "tetrap2.mphtxt", "prismp1.mphtxt", "quadp2.mphtxt"):
        mesh = mio.read(DATA / name)
        mesh.points = np.random.default_rng(2).standard_normal(mesh.points.shape) * 1e3
        path = tmp_path / name
        mio.mphtxt.write(path, mesh)
        assert json.loads(peer(PEER_READ, path))[str(path)] == summary(mesh), name


def test_what_17_writes_we_read(tmp_path):
    for name in ("hexap2.mphtxt", "4quads.mphtxt", "triap2.mphtxt"):
        path = tmp_path / name
        peer("import sys, meshioplusplus as m; m.write(sys.argv[2], m.read(sys.argv[1], file_format='mphtxt'), "
             "file_format='mphtxt')", DATA / name, path)
        assert summary(mio.read(path)) == summary(mio.read(DATA / name)), name


def test_entity_regions_and_errors(tmp_path):
    mesh = mio.read(DATA / "prismp1.mphtxt")
    names = {r.name for r in mesh.regions}
    assert "dim 3 entity 1" in names and "dim 0 entity 7" in names
    path = tmp_path / "bad.mphtxt"
    path.write_text("0 1\n1\n5 mesh1\n1\n3 obj\n0 0 1\n5 Geom2 # class\n")
    with pytest.raises(mio.ReadError, match="not a Mesh"):
        mio.read(path)


def test_large_deck_reads_the_same_on_one_thread_and_two(tmp_path):
    assert_large_deck_reads_alike_on_one_thread_and_two(tmp_path / "large.mphtxt", "mphtxt")


def test_large_deck_writes_the_same_on_one_thread_and_two(tmp_path):
    """Points, elements and entity indices are written on all cores: the same bytes at one
    thread and two, read back as written."""
    from interop import kuhn_tet_box

    points, tets = kuhn_tet_box(30)
    entity = (np.arange(len(tets)) % 7).astype(np.int32)
    mesh = mio.Mesh(points * np.pi, [("tetra", tets)], cell_data={"mphtxt:geometric_entity": [entity]})
    written = []
    for threads in (1, 2):
        mio._core.set_thread_count(threads)
        try:
            mio.write(tmp_path / f"t{threads}.mphtxt", mesh)
        finally:
            mio._core.set_thread_count(0)
        written.append((tmp_path / f"t{threads}.mphtxt").read_bytes())
    assert written[0] == written[1]
    back = mio.read(tmp_path / "t2.mphtxt")
    assert np.array_equal(back.points, mesh.points) and np.array_equal(back.cells[0].data, tets)
    assert np.array_equal(back.cell_data["mphtxt:geometric_entity"][0], entity)
