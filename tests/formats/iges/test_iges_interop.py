"""IGES through the Python API: the Gmsh repository's files against Gmsh's own OpenCASCADE
import (surfaces, surface area, its 2-D mesh's box) and meshio++ 17.21's iges reader; the
namespace's options; hostile input. meshio has no IGES reader."""

import json
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from interop import gmsh_cad_view, run_meshioplusplus_17

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "iges"
FILES = ["cube1000.igs", "sphere_Rhino3D_default.igs", "model1.igs"]

pytestmark = pytest.mark.skipif(not mio._core.features().get("occt", False),
                                reason="built without OpenCASCADE (Debian: libocct-data-exchange-dev …)")


def area_of(mesh):
    tri = mesh.points[mesh.cells[0].data]
    return 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()


@pytest.mark.parametrize("name", FILES)
def test_matches_gmsh_import(name):
    path = DATA / name
    view = gmsh_cad_view(path)
    surfaces, area, low, high = view["surfaces"], view["area"], view["low"], view["high"]
    mesh = mio.read(path)
    assert len(np.unique(mesh.cell_data["cad:face_id"][0])) == surfaces
    # Gmsh's getMass integrates the trimmed surface (the Rhino sphere: 12.5956 against 4π).
    assert area_of(mesh) == pytest.approx(area, rel=0.02)
    diagonal = np.linalg.norm(high - low)
    np.testing.assert_allclose(mesh.points.min(0), low, atol=0.01 * diagonal)
    np.testing.assert_allclose(mesh.points.max(0), high, atol=0.01 * diagonal)


PEER = """
import json, sys
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path)
    out[path] = {"points": len(mesh.points), "triangles": len(mesh.cells[0].data)}
print(json.dumps(out))
"""


def test_counts_of_meshioplusplus_17():
    paths = [str(DATA / name) for name in FILES]
    peer = json.loads(run_meshioplusplus_17(PEER, *paths))
    for name in FILES[:2]:  # the cube (welded corners) and the sphere: node for node
        mesh = mio.read(DATA / name)
        assert (len(mesh.points), len(mesh.cells[0].data)) == tuple(peer[str(DATA / name)].values()), name
    # model1: 17.21 takes its default deflection from another bounding box; within 10 %.
    mesh = mio.read(DATA / "model1.igs")
    assert len(mesh.cells[0].data) == pytest.approx(peer[paths[2]]["triangles"], rel=0.1)


def test_options_and_hostile_input(tmp_path):
    coarse = mio.iges.read(DATA / "sphere_Rhino3D_default.igs", linear_deflection=0.05)
    assert 0 < len(coarse.cells[0].data) < len(mio.read(DATA / "sphere_Rhino3D_default.igs").cells[0].data)
    for name, content in {"text.igs": b"hello\n", "empty.iges": b"", "binary.igs": bytes(range(256)) * 8}.items():
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(mio.ReadError, match=name):
            mio.read(path)
