"""libMesh .xda/.xdr: libMesh's own files (tests/data/libmesh) against meshio++ 17.21 (run in
its own interpreter) and against the Exodus II twins libMesh's tests write of the same
meshes (our Exodus reader, which converts Exodus's node orders to VTK's independently);
round trips through both encodings."""

import json
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from interop import assert_large_deck_reads_alike_on_one_thread_and_two, run_meshioplusplus_17

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "libmesh"
FILES = sorted(p for p in DATA.iterdir() if p.suffix in (".xda", ".xdr"))

PEER_READ = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path, file_format="libmesh")
    out[path] = {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "subdomain": [np.asarray(a).tolist() for a in mesh.cell_data["libmesh:subdomain"]],
        "regions": sorted([r.name, str(getattr(r.kind, "value", r.kind)).lower(), int(r.tag),
                           sorted(np.asarray(r.entries).tolist())] for r in mesh.regions),
    }
print(json.dumps(out))
"""


VOLUME_TYPES = {"tetra", "tetra10", "hexahedron", "hexahedron20", "hexahedron27", "wedge", "wedge15", "wedge18",
                "pyramid", "pyramid13", "pyramid14"}
# Our local facets (include/meshioplusplus/side_regions.hpp), corner nodes.
FACETS = {
    "hexahedron": [(0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (0, 4, 7, 3), (0, 3, 2, 1), (4, 5, 6, 7)],
    "wedge": [(0, 1, 4, 3), (1, 2, 5, 4), (0, 3, 5, 2), (0, 2, 1), (3, 4, 5)],
    "tetra": [(0, 1, 3), (1, 2, 3), (0, 3, 2), (0, 2, 1)],
    "pyramid": [(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4), (0, 3, 2, 1)],
}


def summary(mesh):
    kinds = {0: "point", 1: "cell", 2: "side"}
    return {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "subdomain": [np.asarray(a).tolist() for a in mesh.cell_data["libmesh:subdomain"]],
        "regions": sorted([r.name, kinds[int(r.kind)], int(r.tag), sorted(np.asarray(r.entries).tolist())]
                          for r in mesh.regions),
    }


def test_real_files_read_as_meshioplusplus_17_reads_them():
    theirs = json.loads(run_meshioplusplus_17(PEER_READ, *map(str, FILES)))
    for path in FILES:
        ours = summary(mio.read(path))
        t = theirs[str(path)]
        assert ours["points"] == t["points"], path.name
        assert ours["cells"] == t["cells"], path.name
        assert ours["subdomain"] == t["subdomain"], path.name
        # 17.21 keeps libMesh's side numbers of 3-D cells as they are, which are not ours
        # (libmesh_types.hpp; test_sides_are_boundary_facets checks ours on the geometry).
        volume = any(b[0] in VOLUME_TYPES for b in ours["cells"])
        comparable = [r[:2] + r[3:] for r in ours["regions"] if not (volume and r[1] == "side")]
        assert comparable == [r[:2] + r[3:] for r in t["regions"] if not (volume and r[1] == "side")], path.name


@pytest.mark.parametrize("name", ["lshaped3D.xda", "read_xdrio_HEX27.xdr", "read_xdrio_PRISM18.xda", "read_xdrio_TET10.xdr",
                                  "read_xdrio_PYRAMID14.xda", "one_hex.xda"])
def test_sides_are_boundary_facets(name):
    """Every side of a sideset is a facet on the mesh's boundary (no other cell shares it)."""
    mesh = mio.read(DATA / name)
    facets = []
    for block in mesh.cells:
        family = block.type.rstrip("0123456789")
        for cell in np.asarray(block.data):
            facets.append([frozenset(cell[list(f)]) for f in FACETS[family]])
    counts = {}
    for cell_facets in facets:
        for f in cell_facets:
            counts[f] = counts.get(f, 0) + 1
    checked = 0
    for region in mesh.regions:
        if int(region.kind) != 2:
            continue
        for cell, facet in np.asarray(region.entries):
            assert counts[facets[cell][facet]] == 1, (region.name, cell, facet)
            checked += 1
    assert checked > 0


# Exodus's (and libMesh's) node order -> VTK's: ours[i] = file[ORDER[i]]. Our Exodus reader,
# as meshio's, keeps HEX27 and WEDGE18 in the file's order, so the twin is permuted here.
ORDER = {
    "HEX27": list(range(12)) + [16, 17, 18, 19, 12, 13, 14, 15] + list(range(20, 27)),
    "PRISM18": list(range(9)) + [12, 13, 14, 9, 10, 11, 15, 16, 17],
}


@pytest.mark.parametrize("kind", ["HEX27", "PRISM18"])
def test_cells_match_the_exodus_twin(kind):
    try:
        exodus = mio.read(DATA / f"read_exodus_{kind}.e")
    except Exception as error:  # a build without netCDF
        pytest.skip(f"no Exodus reader in this build: {error}")
    xdr = mio.read(DATA / f"read_xdrio_{kind}.xda")
    np.testing.assert_array_equal(xdr.points, exodus.points)
    ours = np.asarray(xdr.cells[0].data)
    twin = np.concatenate([np.asarray(b.data) for b in exodus.cells])[:, ORDER[kind]]
    if kind == "HEX27":  # Exodus numbers the centre and face nodes of HEX27 in its own way again
        key = lambda cell: (tuple(cell[:20]), tuple(sorted(cell[20:])))  # noqa: E731
        assert sorted(map(key, ours)) == sorted(map(key, twin))
    else:
        assert sorted(map(tuple, ours)) == sorted(map(tuple, twin))
    # And VTK's order on the geometry: a top-ring mid-edge node halfway between its corners.
    p = np.asarray(xdr.points)
    for cell in ours:
        if kind == "HEX27":
            np.testing.assert_allclose(p[cell[12]], (p[cell[4]] + p[cell[5]]) / 2)
            np.testing.assert_allclose(p[cell[20]], p[cell[[0, 3, 7, 4]]].mean(0))  # x- face centre
            np.testing.assert_allclose(p[cell[24]], p[cell[[0, 1, 2, 3]]].mean(0))  # z- face centre
        else:
            np.testing.assert_allclose(p[cell[9]], (p[cell[3]] + p[cell[4]]) / 2)
            np.testing.assert_allclose(p[cell[12]], (p[cell[0]] + p[cell[3]]) / 2)


@pytest.mark.parametrize("suffix", [".xda", ".xdr"])
def test_round_trip(tmp_path, suffix):
    mesh = mio.read(DATA / "read_xdrio_TET10.xdr")
    out = tmp_path / f"out{suffix}"
    mio.write(out, mesh)
    back = mio.read(out)
    np.testing.assert_array_equal(back.points, mesh.points)
    np.testing.assert_array_equal(back.cells[0].data, mesh.cells[0].data)
    assert summary(back)["regions"] == summary(mesh)["regions"]
    if suffix == ".xdr":
        assert out.read_bytes()[:4] == b"\0\0\0\x0d"


def test_meshioplusplus_17_reads_what_we_write(tmp_path):
    mesh = mio.read(DATA / "read_xdrio_QUAD4.xda")
    paths = []
    for suffix in (".xda", ".xdr"):
        paths.append(tmp_path / f"out{suffix}")
        mio.write(paths[-1], mesh)
    theirs = json.loads(run_meshioplusplus_17(PEER_READ, *map(str, paths)))
    for path in paths:
        t = theirs[str(path)]
        assert t["cells"] == summary(mesh)["cells"]
        assert t["points"] == summary(mesh)["points"]
        assert [r[:2] + r[3:] for r in t["regions"]] == [r[:2] + r[3:] for r in summary(mesh)["regions"]]


def test_malformed_file_names_the_file(tmp_path):
    bad = tmp_path / "bad.xda"
    bad.write_text("libMesh-1.3.0\n4 # number of elements\nnot-a-number\n")
    with pytest.raises(mio.ReadError, match="bad.xda"):
        mio.read(bad)


def test_large_deck_reads_the_same_on_one_thread_and_two(tmp_path):
    assert_large_deck_reads_alike_on_one_thread_and_two(tmp_path / "large.xda", "libmesh")
