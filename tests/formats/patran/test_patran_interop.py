"""MSC Patran neutral files through meshio++ and meshio++ 17.21.

The real files (tests/data/patran: two files P3/PATRAN 3.0 wrote, from Tahoe's test data) read
with the same points, cells and node regions in 17.21; where 17.21 drops element members of
type 108 (the second-order quad of Patran's numbering, +100 per order) we read them, as the
format's documentation says (docs/formats.md). What we write reads back in 17.21.
"""

import json
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from interop import data_files, run_meshioplusplus_17

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "patran"
FILES = data_files(DATA)
CYLINDER = next(path for path in FILES if path.name == "tahoe_cyl_cyl.out")

PEER_SCRIPT = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path, file_format="patran")
    out[path] = {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "regions": [[r.name, str(r.kind).lower(), sorted(np.asarray(r.entries).ravel().tolist()), int(r.tag)]
                    for r in mesh.regions],
        "property": [np.asarray(a).tolist() for a in mesh.cell_data.get("patran:property", [])],
    }
print(json.dumps(out))
"""


def kind_name(kind):
    return getattr(kind, "name", str(kind)).lower()


def test_real_files_read_as_meshioplusplus_17_reads_them():
    peer = json.loads(run_meshioplusplus_17(PEER_SCRIPT, *FILES))
    for path in FILES:
        ours = mio.read(path)
        theirs = peer[str(path)]
        assert np.asarray(ours.points).tolist() == theirs["points"], path.name
        assert [[b.type, np.asarray(b.data).tolist()] for b in ours.cells] == theirs["cells"], path.name
        assert [np.asarray(a).tolist() for a in ours.cell_data["patran:property"]] == theirs["property"]
        our_points = {r.name: (sorted(np.asarray(r.entries).tolist()), r.tag) for r in ours.regions if kind_name(r.kind) == "point"}
        their_points = {n: (e, t) for n, k, e, t in theirs["regions"] if "point" in k}
        assert our_points == their_points, path.name
        # Cell members of types 6..12 are read alike; ours add the +100 (quadratic) members.
        for name, kind, entries, tag in theirs["regions"]:
            if "cell" in kind and not name.startswith("property_"):
                ours_cells = [r for r in ours.regions if r.name == name and kind_name(r.kind) == "cell"]
                assert ours_cells and set(entries) <= set(np.asarray(ours_cells[0].entries).tolist()), name


def test_cylinder_counts():
    mesh = mio.read(CYLINDER)
    assert [(b.type, len(b.data)) for b in mesh.cells] == [("quad9", 272), ("line", 1280)]
    zone = [r for r in mesh.regions if r.name == "ZONE1" and kind_name(r.kind) == "cell"][0]
    assert len(zone.entries) == 272  # every quad9, listed as type 108


def test_our_files_round_trip_and_read_in_meshioplusplus_17(tmp_path):
    mesh = mio.read(CYLINDER)
    path = tmp_path / "out.pat"
    mio.write(path, mesh)
    back = mio.read(path)
    np.testing.assert_allclose(back.points, mesh.points, rtol=5e-10, atol=0)
    assert [(b.type, np.asarray(b.data).tolist()) for b in back.cells] == [
        (b.type, np.asarray(b.data).tolist()) for b in mesh.cells]
    peer = json.loads(run_meshioplusplus_17(PEER_SCRIPT, path))[str(path)]
    assert [[b.type, np.asarray(b.data).tolist()] for b in back.cells] == peer["cells"]
    np.testing.assert_array_equal(np.asarray(peer["points"]), back.points)


def test_malformed_file_raises_read_error_with_line(tmp_path):
    text = (DATA / "tahoe_square.pat").read_text().splitlines(keepends=True)
    text[5] = "  0.000000000E+0  zzz  0.0\n"
    path = tmp_path / "bad.pat"
    path.write_text("".join(text))
    with pytest.raises(mio.ReadError, match=r"bad\.pat:6 "):
        mio.read(path)
