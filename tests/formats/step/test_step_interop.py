"""STEP through the Python API: the Gmsh repository's files against Gmsh's own OpenCASCADE
import (CAD faces and volumes, surface area, the bounding box of its 2-D mesh) and against
meshio++ 17.21's step reader (same OCCT tessellation defaults: same triangles); the namespace's
tessellation options; hostile input. meshio has no STEP reader."""

import json
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from interop import gmsh_cad_view, run_meshioplusplus_17

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "step"
FILES = ["t20_data.step", "as1-tu-203.stp", "step_boundary_colors.stp"]

HAVE_OCCT = mio._core.features().get("occt", False)
needs_occt = pytest.mark.skipif(not HAVE_OCCT, reason="built without OpenCASCADE (Debian: libocct-data-exchange-dev …; "
                                "the wheel leaves it out: scripts/test_wheel.sh)")


def area_of(mesh):
    tri = mesh.points[mesh.cells[0].data]
    return 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()


@needs_occt
@pytest.mark.parametrize("name", FILES)
def test_matches_gmsh_import(name):
    path = DATA / name
    view = gmsh_cad_view(path)
    surfaces, volumes, area, low, high = (view[k] for k in ("surfaces", "volumes", "area", "low", "high"))
    mesh = mio.read(path)
    face_ids = np.unique(mesh.cell_data["cad:face_id"][0])
    assert len(face_ids) == surfaces
    assert len(np.unique(mesh.cell_data["cad:solid_id"][0])) == volumes
    assert sum(1 for r in mesh.regions if r.name.startswith("face ")) == surfaces
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
    tri = mesh.points[mesh.cells[0].data]
    import numpy as np
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1).sum()
    out[path] = {"points": len(mesh.points), "triangles": len(mesh.cells[0].data), "area": float(area)}
print(json.dumps(out))
"""


@needs_occt
def test_same_tessellation_as_meshioplusplus_17():
    paths = [str(DATA / name) for name in FILES]
    peer = json.loads(run_meshioplusplus_17(PEER, *paths))
    for path in paths:
        mesh = mio.read(path)
        assert len(mesh.cells[0].data) == peer[path]["triangles"], path
        assert area_of(mesh) == pytest.approx(peer[path]["area"], rel=1e-9), path
        # 17.21 also merges equal coordinates of different parts (touching parts of an
        # assembly); we keep parts apart: never fewer points than it.
        assert len(mesh.points) >= peer[path]["points"], path
    assert len(mio.read(DATA / "t20_data.step").points) == peer[paths[0]]["points"]


@needs_occt
def test_options_and_named_regions():
    path = DATA / "as1-tu-203.stp"
    default = mio.read(path)
    coarse = mio.step.read(path, linear_deflection=2.0, angular_deflection=1.0)
    fine = mio.step.read(path, linear_deflection=0.05, angular_deflection=0.2)
    assert len(coarse.cells[0].data) < len(default.cells[0].data) < len(fine.cells[0].data)
    assert len(mio.step.read(path, relative=True, linear_deflection=0.01).cells[0].data) > 0
    # Products by name, every instance together; all 4688 default triangles in one of them.
    named = {r.name: r for r in default.regions if not r.name.startswith("face ")}
    assert set(named) == {"bolt", "l-bracket", "nut", "plate", "rod"}
    assert sum(len(r.entries) for r in named.values()) == len(default.cells[0].data)
    assert "nut" in default.cell_sets
    with pytest.raises(ValueError):
        mio.step.read(path, angular_deflection=0)
    with pytest.raises(ValueError):
        mio.step.read(path, linear_deflection=-1)


@needs_occt
def test_hostile_files_are_read_errors_naming_the_file(tmp_path):
    whole = (DATA / "t20_data.step").read_bytes()
    cases = {"truncated.step": whole[: len(whole) // 3], "not_step.step": b"solid cube\nendsolid\n",
             "binary.stp": bytes(range(256)) * 4}
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(mio.ReadError, match=name):
            mio.read(path)
    with pytest.raises(mio.ReadError, match="Line"):
        mio.read(tmp_path / "truncated.step")
    # OCCT dereferences a null handle on these (mutated test files): survived in-process.
    for path in (DATA / "fault-bspline-point.step", DATA.parent / "iges" / "fault-curve-on-surface.igs"):
        try:
            assert len(mio.read(path).points) > 0
        except mio.ReadError as error:
            assert path.name in str(error)


@pytest.mark.skipif(HAVE_OCCT, reason="this build has OpenCASCADE: the files are read")
def test_without_occt_a_read_error_names_the_library():
    for path in (DATA / "t20_data.step", pathlib.Path(__file__).resolve().parents[2] / "data" / "iges" / "cube1000.igs"):
        with pytest.raises(mio.ReadError, match="OpenCASCADE"):
            mio.read(path)
