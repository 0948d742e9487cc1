"""Clean-up against meshio++ 17.21's own (issue 35: "clean-up results compared ... with 17.21's
clean on the same meshes"): welding with orphan removal and surface extraction on real files give
the same geometry — the same points and the same cells by their corners' coordinates (the two
number them their own ways). 17.21 runs in its venv (tests/interop.py); without it these skip."""

import json
import pathlib
import sys

import numpy as np
import pytest

import meshioplusplus as mio

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from interop import run_meshioplusplus_17  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"

PEER = """
import json, sys
import meshioplusplus as m
mesh = m.read(sys.argv[2])
if sys.argv[1] == "weld":
    mesh = m.clean(mesh, weld=True, atol=1e-12, remove_orphans=True, drop_degenerate=False, drop_duplicate_cells=False)
else:
    mesh = m.extract_surface(mesh)
print(json.dumps({"points": mesh.points.tolist(),
                  "cells": [[b.type, b.data.tolist()] for b in mesh.cells]}))
"""


def geometry(points, cells):
    """Points as a sorted list of rows; each block's cells as sorted tuples of corner coordinates."""
    points = np.asarray(points, dtype=float)
    rows = sorted(map(tuple, points.tolist()))
    blocks = {}
    for cell_type, data in cells:
        corners = [tuple(sorted(tuple(points[i].tolist()) for i in cell)) for cell in np.asarray(data)]
        blocks.setdefault(cell_type, []).extend(corners)
    return rows, {cell_type: sorted(corners) for cell_type, corners in blocks.items()}


def peer(operation, path):
    result = json.loads(run_meshioplusplus_17(PEER, operation, path).strip().splitlines()[-1])
    return geometry(result["points"], result["cells"])


@pytest.mark.parametrize("path", [DATA / "gltf" / "no_indices_3storybuilding.glb", DATA / "lsdyna" / "bird" / "mesh.k"],
                         ids=lambda p: p.name)
def test_welding_and_orphan_removal_equal_17_21s_clean(path):
    mesh = mio.read(path)
    mesh.merge_points(0.0)
    mesh.remove_orphaned_nodes()
    ours = geometry(mesh.points, [(b.type, b.data) for b in mesh.cells])
    theirs = peer("weld", path)
    assert len(ours[0]) == len(theirs[0]) and ours == theirs


# Linear and second-order cells: both keep a quadratic cell's facets quadratic (tetra10 ->
# triangle6 with its mid-edge nodes).
@pytest.mark.parametrize("path", [DATA / "corpus" / "gmsh" / "beams.msh", DATA / "corpus" / "gmsh" / "insulated-4.1.msh",
                                  DATA / "corpus" / "gmsh" / "quadratic_sphere_tet.msh"],
                         ids=lambda p: p.name)
def test_extract_surface_equals_17_21s(path):
    surface = mio.extract_surface(mio.read(path))
    ours = geometry(surface.points, [(b.type, b.data) for b in surface.cells])
    assert ours == peer("surface", path)
