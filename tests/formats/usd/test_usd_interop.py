"""USD: the core's .usda reader against Pixar's usd-core (the reference implementation), the
usd-core path for binary .usdc, and our writer's files opened by usd-core."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import meshioplusplus

DATA = Path(__file__).resolve().parents[2] / "data" / "usd"
FILES = sorted(DATA.glob("*.usda"))


def _assert_same(ours, reference, rtol=1e-12):
    np.testing.assert_allclose(ours.points, reference.points, rtol=rtol, atol=1e-6 if rtol > 1e-9 else 0)
    assert [c.type for c in ours.cells] == [c.type for c in reference.cells]
    for a, b in zip(ours.cells, reference.cells):
        if a.type == "polygon":
            assert [list(x) for x in a.data] == [list(x) for x in b.data]
        else:
            np.testing.assert_array_equal(a.data, b.data)
    assert sorted(ours.point_data) == sorted(reference.point_data)
    for name in ours.point_data:
        assert ours.point_data[name].dtype == reference.point_data[name].dtype, name
        np.testing.assert_array_equal(ours.point_data[name], reference.point_data[name])
    assert sorted(ours.cell_data) == sorted(reference.cell_data)
    for name in ours.cell_data:
        for a, b in zip(ours.cell_data[name], reference.cell_data[name]):
            assert a.dtype == b.dtype, name
            np.testing.assert_array_equal(a, b)
    assert [(r.name, int(r.kind)) for r in ours.regions] == [(r.name, int(r.kind)) for r in reference.regions]
    for a, b in zip(ours.regions, reference.regions):
        np.testing.assert_array_equal(a.entries, b.entries)
    for name, values in reference.field_data.items():
        np.testing.assert_array_equal(np.asarray(ours.field_data[name]).reshape(-1), np.asarray(values).reshape(-1))


def test_real_files_have_content():
    sedan = meshioplusplus.read(DATA / "sedanGeo.usda")
    assert len(sedan.points) == 218 and [(c.type, len(c.data)) for c in sedan.cells] == [("triangle", 415)]
    assert sedan.point_data == {} and sedan.cell_data["map1"][0].shape == (415, 6)
    assert [r.name for r in sedan.regions][:2] == ["/sedan", "/sedan/_4_frontLightMax"]
    np.testing.assert_array_equal(sedan.regions[1].entries, [403, 404, 405, 406])
    primvars = meshioplusplus.read(DATA / "primvar_interpolation.usda")
    assert [len(c.data) for c in primvars.cells] == [2] * 7 and len(primvars.points) == 42
    assert primvars.point_data["displayColor"].shape == (42, 3)
    assert np.isnan(primvars.point_data["displayColor"][:12]).all()  # constant and uniform prims
    np.testing.assert_allclose(primvars.field_data["/World/constant:displayColor"], [[1, 0.3, 0.3]], rtol=1e-7)
    mixed = meshioplusplus.read(DATA / "mixed.usda")
    assert [(c.type, len(c.data)) for c in mixed.cells] == [("quad", 1), ("triangle", 10)]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_usda_matches_usd_core(path):
    pytest.importorskip("pxr", reason="usd-core (Pixar's USD, pip install usd-core) is the reference reader")
    from meshioplusplus._format_extras.usd import read_with_usd_core
    # usd-core composes float3 xformOps in float precision: the placed points agree to ~1e-6.
    _assert_same(meshioplusplus.read(path), read_with_usd_core(path), rtol=1e-5)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_usdc_written_by_usd_core_reads_as_the_usda(tmp_path, path):
    pxr = pytest.importorskip("pxr", reason="usd-core (Pixar's USD, pip install usd-core) writes .usdc")
    from pxr import Sdf
    crate = tmp_path / (path.stem + ".usdc")
    layer = Sdf.Layer.FindOrOpen(str(path))
    assert layer.Export(str(crate))
    assert crate.read_bytes().startswith(b"PXR-USDC")
    _assert_same(meshioplusplus.usd.read(crate), meshioplusplus.read(path), rtol=1e-5)


def test_usdc_in_the_core_names_usd_core(tmp_path):
    crate = tmp_path / "binary.usdc"
    crate.write_bytes(b"PXR-USDC" + bytes(80))
    with pytest.raises(meshioplusplus.ReadError, match="usd-core"):
        meshioplusplus.read(crate)


def _surface_mesh():
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [2, 0, 0.5], [2, 1, 0.25]], dtype=np.float64)
    cells = [("triangle", np.array([[0, 1, 2], [0, 2, 3]])), ("quad", np.array([[1, 4, 5, 2]]))]
    mesh = meshioplusplus.Mesh(points, cells,
                               point_data={"temperature": np.arange(6, dtype=np.float64) / 3,
                                           "velocity": np.arange(18, dtype=np.float32).reshape(6, 3)},
                               cell_data={"material": [np.array([1, 2], dtype=np.int32), np.array([3], dtype=np.int32)],
                                          "pressure": [np.array([0.5, 1.5]), np.array([2.5])]})
    mesh.cell_sets = {"left": [np.array([1]), np.array([], dtype=np.int64)], "right side": [np.array([], dtype=np.int64), np.array([0])]}
    return mesh


def test_round_trip(tmp_path):
    mesh = _surface_mesh()
    path = tmp_path / "surface.usda"
    meshioplusplus.write(path, mesh)
    back = meshioplusplus.read(path)
    np.testing.assert_array_equal(back.points, mesh.points.astype(np.float32))
    assert [(c.type, c.data.tolist()) for c in back.cells] == [(c.type, c.data.tolist()) for c in mesh.cells]
    np.testing.assert_array_equal(back.point_data["temperature"], mesh.point_data["temperature"])
    assert back.point_data["velocity"].dtype == np.float32
    np.testing.assert_array_equal(back.point_data["velocity"], mesh.point_data["velocity"])
    for name in ("material", "pressure"):
        for a, b in zip(back.cell_data[name], mesh.cell_data[name]):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
    regions = {r.name: r.entries.tolist() for r in back.regions}
    assert regions["left"] == [1] and regions["right side"] == [2] and regions["/mesh"] == [0, 1, 2]


def test_usd_core_opens_what_we_write(tmp_path):
    pytest.importorskip("pxr", reason="usd-core (Pixar's USD, pip install usd-core) is the reference reader")
    from pxr import Usd, UsdGeom
    mesh = _surface_mesh()
    path = tmp_path / "surface.usda"
    meshioplusplus.write(path, mesh)
    stage = Usd.Stage.Open(str(path))
    prim = UsdGeom.Mesh(stage.GetPrimAtPath("/mesh"))
    np.testing.assert_array_equal(np.asarray(prim.GetPointsAttr().Get()), mesh.points.astype(np.float32))
    assert list(prim.GetFaceVertexCountsAttr().Get()) == [3, 3, 4]
    assert list(prim.GetFaceVertexIndicesAttr().Get()) == [0, 1, 2, 0, 2, 3, 1, 4, 5, 2]
    primvars = UsdGeom.PrimvarsAPI(prim.GetPrim())
    temperature = primvars.GetPrimvar("temperature")
    assert temperature.GetInterpolation() == "vertex"
    np.testing.assert_array_equal(np.asarray(temperature.Get()), mesh.point_data["temperature"])
    material = primvars.GetPrimvar("material")
    assert material.GetInterpolation() == "uniform" and list(material.Get()) == [1, 2, 3]
    subsets = {s.GetPrim().GetAttribute("meshioplusplus:region").Get(): list(s.GetIndicesAttr().Get())
               for s in UsdGeom.Subset.GetAllGeomSubsets(prim)}
    assert subsets == {"left": [1], "right side": [2]}
    assert UsdGeom.GetStageUpAxis(stage) == "Z"


def test_volume_cells_are_refused(tmp_path):
    mesh = meshioplusplus.Mesh(np.zeros((4, 3)), [("tetra", np.array([[0, 1, 2, 3]]))])
    with pytest.raises(meshioplusplus.WriteError, match="tetra"):
        meshioplusplus.write(tmp_path / "volume.usda", mesh)


def test_peer_17_21_counts():
    peer = Path(__file__).resolve().parents[3] / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"
    if not peer.exists():
        pytest.skip("meshio++ 17.21 peer venv (bench/.venv-meshioplusplus-17) not installed")
    path = DATA / "sedanGeo.usda"
    code = ("import sys, meshioplusplus as m; mesh = m.read(sys.argv[1]); "
            "print(len(mesh.points), sum(len(c.data) for c in mesh.cells))")
    result = subprocess.run([str(peer), "-c", code, str(path)], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    if result.returncode != 0:
        pytest.skip(f"17.21 cannot read it: {result.stderr.strip().splitlines()[-1:]}")
    points, cells = map(int, result.stdout.split())
    ours = meshioplusplus.read(path)
    assert cells == sum(len(c.data) for c in ours.cells)
