"""Elmer mesh directories through the Python API: elmerfem's ElmerGrid meshes against
meshio++ 17.21's elmer reader (node for node), the parents our writer finds against the ones
ElmerGrid wrote, and the registry's directory rule. meshio has no Elmer format."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import meshioplusplus as mio

REPO = pathlib.Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data" / "elmer"
MESHES = ["unitelems", "cubes", "strain01", "wire_pair", "springs_beam"]
PEER_PYTHON = REPO / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"
PEER_SCRIPT = """
import json, sys
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path, file_format="elmer")
    out[path] = {"module": m.__file__, "points": mesh.points.tolist(),
                 "cells": [[c.type, c.data.tolist()] for c in mesh.cells]}
print(json.dumps(out))
"""


def mio_dim(cell_type):
    return {"vertex": 0, "line": 1, "triangle": 2, "quad": 2}.get(cell_type.rstrip("0123456789"), 3)


def mio_dim_of_code(code):
    return {1: 0, 2: 1, 3: 2, 4: 2}.get(code // 100, 3)


def boundary_records(directory):
    """(tag, parents, type, nodes) of every line of mesh.boundary, each parent as its bulk
    element's sorted nodes (element ids differ once elements are grouped by type)."""
    elements = {0: ()}
    for line in (directory / "mesh.elements").read_text().split("\n"):
        values = [int(v) for v in line.split()]
        if values:
            elements[values[0]] = tuple(sorted(values[3:]))
    records = []
    for line in (directory / "mesh.boundary").read_text().split("\n"):
        values = [int(v) for v in line.split()]
        if values:
            records.append((values[1], tuple(sorted(elements[p] for p in values[2:4])), values[4], tuple(values[5:])))
    return records


def test_same_mesh_as_meshioplusplus_17():
    if not PEER_PYTHON.exists():
        pytest.skip("meshio++ 17.21 is not installed at bench/.venv-meshioplusplus-17 (bench/setup)")
    paths = [str(DATA / name) for name in MESHES]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # its own meshioplusplus, not ours
    result = subprocess.run([str(PEER_PYTHON), "-c", PEER_SCRIPT, *paths], capture_output=True, text=True, timeout=300,
                            cwd="/", env=env)
    assert result.returncode == 0, result.stderr
    peer = json.loads(result.stdout)
    assert all(".venv-meshioplusplus-17" in v["module"] for v in peer.values())
    for path in paths:
        ours = mio.read(path)  # by the directory
        assert np.array_equal(np.asarray(ours.points), np.asarray(peer[path]["points"])), path
        ours_cells = sorted((c.type, np.asarray(c.data).tolist()) for c in ours.cells)
        peer_cells = {}
        for cell_type, data in peer[path]["cells"]:
            peer_cells.setdefault(cell_type, []).extend(data)
        merged = {}
        for cell_type, data in ours_cells:
            merged.setdefault(cell_type, []).extend(data)
        assert merged == peer_cells, path


@pytest.mark.parametrize("name", ["cubes", "strain01", "springs_beam", "wire_pair"])
def test_writer_finds_the_parents_elmergrid_wrote(tmp_path, name):
    """Facets get ElmerGrid's parents; ElmerGrid also gives edges of 3-D meshes and points of
    2-D ones a bulk element holding them, which our writer leaves at 0 0 (documented)."""
    mesh = mio.read(str(DATA / name))
    out = tmp_path / name
    mio.write(str(out), mesh, file_format="elmer")
    top = max(mio_dim(c.type) for c in mesh.cells)
    expected = [record if mio_dim_of_code(record[2]) == top - 1 else (record[0], ((), ()), *record[2:])
                for record in boundary_records(DATA / name)]
    # Boundary elements come back grouped by type (a block each): compare them as sets.
    assert sorted(boundary_records(out)) == sorted(expected)
    assert (out / "mesh.nodes").read_text().count("\n") == len(mesh.points)


def test_round_trip_keeps_cell_data_and_regions(tmp_path):
    mesh = mio.read(str(DATA / "wire_pair" / "mesh.header"), file_format="elmer")
    out = tmp_path / "wire_pair"
    mio.elmer.write(str(out), mesh)
    back = mio.read(str(out))
    assert np.asarray(back.points).tobytes() == np.asarray(mesh.points).tobytes()
    for name in ("elmer:body", "elmer:boundary"):
        assert [np.asarray(a).tolist() for a in back.cell_data[name]] == [np.asarray(a).tolist() for a in mesh.cell_data[name]]
    assert [(r.name, r.tag, np.asarray(r.entries).tolist()) for r in back.regions] == [
        (r.name, r.tag, np.asarray(r.entries).tolist()) for r in mesh.regions]
    assert "$ coil_t2 = 21" in (out / "mesh.names").read_text()


def test_unmapped_type_is_a_read_error():
    with pytest.raises(mio.ReadError, match="412"):
        mio.read(str(DATA / "l2nd"))
