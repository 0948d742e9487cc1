"""code_aster .mail through meshio++ and meshio++ 17.21 (run in its own interpreter: the same
import name). code_aster's test meshes (tests/data/code_aster) read the same points, cells
and groups in both (17.21 fails on comp001a's lower-case keywords and sdnd108a's missing
FINSF, which code_aster accepts); what we write, 17.21 reads back bit for bit and the other
way round.
"""

import json
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from interop import run_meshioplusplus_17

TESTS = pathlib.Path(__file__).resolve().parents[2]
DATA = TESTS / "data" / "code_aster"
FILES = sorted(DATA.glob("*.mail"))
PEER_FAILS = {"comp001a.mail", "sdnd108a.mail"}

PEER_READ = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    try:
        mesh = m.read(path, file_format="code_aster")
    except Exception as error:
        out[path] = {"error": str(error)}
        continue
    out[path] = {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "regions": sorted([r.name, {"0": "point", "1": "cell", "2": "side"}.get(str(getattr(r.kind, "value", r.kind)), str(r.kind)).lower(),
                           sorted(np.asarray(r.entries).tolist())] for r in mesh.regions),
    }
print(json.dumps(out))
"""


def peer(script, *args):
    return run_meshioplusplus_17(script, *args)


def summary(mesh):
    return {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "regions": sorted([r.name, kind_name(r.kind), sorted(np.asarray(r.entries).tolist())] for r in mesh.regions),
    }


def kind_name(kind):
    return {"0": "point", "1": "cell", "2": "side"}.get(str(getattr(kind, "value", kind)), str(kind)).lower()


def test_real_files_read_as_meshioplusplus_17_reads_them():
    theirs = json.loads(peer(PEER_READ, *FILES))
    compared = 0
    for path in FILES:
        t = theirs[str(path)]
        if path.name in PEER_FAILS:
            assert "error" in t, path.name
            continue
        assert summary(mio.read(path)) == t, path.name
        compared += 1
    assert compared == len(FILES) - len(PEER_FAILS)


def test_group_members_keep_the_files_order():
    mesh = mio.read(DATA / "sdld104b.mail")
    groups = {r.name: np.asarray(r.entries).tolist() for r in mesh.regions}
    assert groups == {"ENCAS": [0, 3], "TOUT": [2, 3, 4]}


def test_what_we_write_17_reads_bit_for_bit(tmp_path):
    for name in ("zzzz366a.mail", "zzzz366b.mail", "ssnv247a.mail", "sslv115a.mail"):
        mesh = mio.read(DATA / name)
        rng = np.random.default_rng(5)
        mesh.points = rng.standard_normal(mesh.points.shape) * 1e3
        path = tmp_path / name
        mio.code_aster.write(path, mesh)
        assert max(len(line) for line in path.read_text().splitlines()) <= 80
        t = json.loads(peer(PEER_READ, path))[str(path)]
        assert t == summary(mesh), name


def test_what_17_writes_we_read(tmp_path):
    for name in ("zzzz366a.mail", "zzzz366c.mail", "ssnp02b.mail", "sslv115a.mail"):
        path = tmp_path / name
        peer("import sys, meshioplusplus as m; m.write(sys.argv[2], m.read(sys.argv[1], file_format='code_aster'), "
             "file_format='code_aster')", DATA / name, path)
        assert summary(mio.read(path)) == summary(mio.read(DATA / name)), name


def test_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.mail"
    path.write_text("COOR_2D\nN1 0 0\nN2 1 0\nFINSF\nSEG2\nS1 N1 N3\nFINSF\nFIN\n")
    with pytest.raises(mio.ReadError, match="node N3 is not defined") as info:
        mio.read(path)
    assert ":6" in str(info.value)
    with pytest.raises(mio.WriteError):
        mio.code_aster.write(tmp_path / "p.mail", mio.Mesh(np.zeros((3, 2)), [("polygon", np.array([[0, 1, 2]]))]))


def test_large_deck_writes_and_reads_the_same_on_one_thread_and_two(tmp_path):
    """The node and element sections are written on all cores: the same bytes at one thread
    and two, every line within 80 columns, and the mesh reads back alike at both."""
    from interop import assert_large_deck_reads_alike_on_one_thread_and_two, kuhn_tet_box

    points, tets = kuhn_tet_box(30)
    mesh = mio.Mesh(points * np.pi, [("tetra", tets)])
    written = []
    for threads in (1, 2):
        mio._core.set_thread_count(threads)
        try:
            mio.write(tmp_path / f"t{threads}.mail", mesh, file_format="code_aster")
        finally:
            mio._core.set_thread_count(0)
        written.append((tmp_path / f"t{threads}.mail").read_bytes())
    assert written[0] == written[1]
    assert max(len(line) for line in written[0].splitlines()) <= 80
    back = mio.read(tmp_path / "t2.mail")
    assert np.array_equal(back.points, mesh.points) and np.array_equal(back.cells[0].data, tets)
    assert_large_deck_reads_alike_on_one_thread_and_two(tmp_path / "large.mail", "code_aster")
