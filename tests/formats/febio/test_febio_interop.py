"""FEBio .feb: febio-python's sample files (specs 2.5, 3.0, 4.0; tests/data/febio) against
febio-python's own reader (nodes, elements, node sets) and meshio++ 17.21 (run in its own
interpreter; it fails on the file with repeated element ids, which FEBio numbers in file
order); round trips through both written specs, and febio-python reading what we write."""

import json
import re
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_large_deck_reads_alike_on_one_thread_and_two, data_files, run_meshioplusplus_17

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "febio"
FILES = data_files(DATA, [".feb"])
PEER_FAILS = {"hex_half_ellipsoid_with_discrete_set.feb"}

PEER_READ = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    try:
        mesh = m.read(path, file_format="febio")
    except Exception as error:
        out[path] = {"error": str(error)}
        continue
    out[path] = {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "regions": sorted([r.name, str(getattr(r.kind, "value", r.kind)).lower(), sorted(np.asarray(r.entries).tolist())]
                          for r in mesh.regions),
    }
print(json.dumps(out))
"""


def regions(mesh):
    kinds = {0: "point", 1: "cell", 2: "side"}
    return sorted([r.name, kinds[int(r.kind)], sorted(np.asarray(r.entries).tolist())] for r in mesh.regions)


def test_real_files_read_as_meshioplusplus_17_reads_them():
    theirs = json.loads(run_meshioplusplus_17(PEER_READ, *map(str, FILES)))
    compared = 0
    for path in FILES:
        t = theirs[str(path)]
        if path.name in PEER_FAILS:
            assert "error" in t, path.name
            continue
        mesh = mio.read(path)
        assert np.asarray(mesh.points, dtype=float).tolist() == t["points"], path.name
        assert [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells] == t["cells"], path.name
        # 17.21 adds a Point region of every <Nodes> section's nodes; we do where there are several.
        nodes_sections = set(re.findall(r'<Nodes name="([^"]*)"', path.read_text())) if "<Nodes" in path.read_text() else set()
        if len(nodes_sections) > 1:
            nodes_sections = set()
        assert regions(mesh) == [r for r in t["regions"] if r[0] not in nodes_sections or r[1] != "point"], path.name
        compared += 1
    assert compared == len(FILES) - len(PEER_FAILS)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_nodes_elements_and_node_sets_as_febio_python_reads_them(path):
    feb = pytest.importorskip("febio_python.feb", reason="febio-python (requirements-test.txt) is the maintained reader")
    reference = feb.Feb(filepath=str(path))
    mesh = mio.read(path)
    points = np.concatenate([n.coordinates for n in reference.get_nodes(dtype=float)])
    np.testing.assert_array_equal(mesh.points, points)
    elements = reference.get_elements()
    assert [b.num_cells if hasattr(b, "num_cells") else len(b.data) for b in mesh.cells] == [len(e.connectivity) for e in elements]
    for block, element in zip(mesh.cells, elements):
        np.testing.assert_array_equal(np.asarray(block.data), element.connectivity)
    ours = {r.name: sorted(np.asarray(r.entries).tolist()) for r in mesh.regions if int(r.kind) == 0}
    for node_set in reference.get_nodesets():
        assert ours[node_set.name] == sorted(np.asarray(node_set.ids).tolist()), node_set.name


@pytest.mark.parametrize("spec", ["3.0", "4.0"])
def test_round_trip_and_febio_python_reads_ours(tmp_path, spec):
    mesh = mio.read(DATA / "hexbeam_with_pressure_load_v30.feb")
    out = tmp_path / "out.feb"
    mio.write(out, mesh, spec=spec)
    back = mio.read(out)
    np.testing.assert_array_equal(back.points, mesh.points)
    np.testing.assert_array_equal(back.cells[0].data, mesh.cells[0].data)
    assert regions(back) == regions(mesh)
    feb = pytest.importorskip("febio_python.feb", reason="febio-python (requirements-test.txt) is the maintained reader")
    reference = feb.Feb(filepath=str(out))
    np.testing.assert_allclose(reference.get_nodes(dtype=float)[0].coordinates, mesh.points)
    np.testing.assert_array_equal(reference.get_elements()[0].connectivity, mesh.cells[0].data)


def test_malformed_file_names_the_file(tmp_path):
    bad = tmp_path / "bad.feb"
    bad.write_text('<febio_spec version="4.0"><Mesh><Nodes><node id="1">0,0</node></Nodes></Mesh></febio_spec>')
    with pytest.raises(mio.ReadError, match="bad.feb"):
        mio.read(bad)


def test_large_deck_reads_the_same_on_one_thread_and_two(tmp_path):
    assert_large_deck_reads_alike_on_one_thread_and_two(tmp_path / "large.feb", "febio")
