"""Reading less from Gmsh MSH and legacy VTK (issue 35): read_metadata answers from the
headers and equals the summary of the full read; read(arrays=[one]) and points_only equal the
same subset of the full read, bit for bit. On every real .msh / .vtk file of tests/data (the
Gmsh ones: Fluent and FreeFem share the extension), meshio's own test meshes where the suite's
sdist is unpacked, and our writer's other MSH versions and encodings of the real files, with
data views (one step, several steps) added so that the data paths are exercised."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

_core = pytest.importorskip("meshioplusplus._core", reason="the meshio++ extension is not built")

REPO = Path(__file__).resolve().parents[2]
MESHIO_MESHES = REPO / "build" / "meshio-suite" / "meshio-5.3.5" / "tests" / "meshes"


def tracked(pattern):
    listed = subprocess.run(["git", "ls-files", "tests/data"], cwd=REPO, capture_output=True, text=True).stdout
    return [REPO / name for name in listed.split() if name.endswith(pattern) and "fuzz-regressions" not in name]


def gmsh_files():
    files = [path for path in tracked(".msh") if path.read_bytes()[:64].lstrip().startswith(b"$MeshFormat")]
    files += sorted(MESHIO_MESHES.glob("msh/*.msh"))
    return files


def vtk_files():
    return tracked(".vtk") + sorted(MESHIO_MESHES.glob("vtk/*.vtk"))


def same(a, b, where):
    """Bit-for-bit equality of two values of the core's mesh dicts."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for key in a:
            same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{where}: lengths differ"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes(), f"{where}: values differ"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def check_metadata(path, fmt):
    metadata = _core.read_metadata(str(path), fmt)
    full = _core.read(str(path), fmt)
    summary = _core.summarize(full, fmt)
    # Legacy VTK answers from the headers for UNSTRUCTURED_GRID; its other datasets are read whole.
    unstructured = fmt != "vtk" or b"UNSTRUCTURED_GRID" in path.read_bytes()[:4096].upper()
    assert metadata["header_only"] is unstructured
    for key in ("num_points", "point_dim", "cell_blocks", "arrays"):
        assert metadata[key] == summary[key], f"{path.name}: {key}: {metadata[key]} != {summary[key]}"
    # The steps as the time-series reader (which reads the whole file) finds them.
    if fmt == "gmsh":
        series = _core.open_time_series(str(path), fmt)
        assert metadata["times"] == [series.time(step) for step in range(series.num_steps)], path.name
    else:
        assert metadata["times"] == [], path.name
    assert len(metadata["regions"]) == len(summary["regions"]), path.name
    for stated, read in zip(metadata["regions"], summary["regions"]):
        # A size the header does not state is -1 (a Gmsh Point region: its distinct nodes).
        if stated["count"] == -1:
            stated = dict(stated, count=read["count"])
        assert stated == read, f"{path.name}: region {stated} != {read}"
    return full


def array_names(mesh):
    return [name for key in ("point_data", "cell_data", "field_data") for name in mesh.get(key, {})]


def check_selected(path, fmt, full):
    names = array_names(full)
    for name in names:
        selected = _core.read_selected(str(path), fmt, arrays=[name])
        same(selected, _core.apply_read_request(full, arrays=[name], source=str(path)), f"{path.name}[{name}]")
    points = _core.read_selected(str(path), fmt, points_only=True)
    same(points, _core.apply_read_request(full, points_only=True, source=str(path)), f"{path.name}[points_only]")
    assert np.array_equal(points["points"], full["points"])
    if names:
        both = _core.read_selected(str(path), fmt, points_only=True, arrays=names[:1])
        same(both, _core.apply_read_request(full, points_only=True, arrays=names[:1], source=str(path)),
             f"{path.name}[points_only, {names[0]}]")
    return len(names)


@pytest.mark.parametrize("path", gmsh_files(), ids=lambda p: p.name)
def test_gmsh_real_file(path):
    full = check_metadata(path, "gmsh")
    assert full["points"].shape[0] > 0
    check_selected(path, "gmsh", full)


@pytest.mark.parametrize("path", vtk_files(), ids=lambda p: p.name)
def test_vtk_real_file(path):
    full = check_metadata(path, "vtk")
    check_selected(path, "vtk", full)


def with_views(mesh):
    """The mesh with a one-step node view, a three-step node view and element data added."""
    mesh = dict(mesh)
    n = mesh["points"].shape[0]
    point_data = dict(mesh.get("point_data", {}))
    point_data["temperature"] = np.arange(n, dtype=np.float64)
    for step in range(3):
        point_data[f"velocity[step {step}, time {0.5 * (step + 1)}]"] = np.full((n, 3), step + 0.25)
    mesh["point_data"] = point_data
    cell_data = dict(mesh.get("cell_data", {}))
    cell_data["pressure"] = [np.arange(len(block[1]), dtype=np.float64) for block in mesh["cells"]]
    mesh["cell_data"] = cell_data
    return mesh


GMSH_VARIANTS = [(version, binary) for version in ("4.1", "4.0", "2.2") for binary in ("true", "false")]


@pytest.mark.parametrize("version,binary", GMSH_VARIANTS)
@pytest.mark.parametrize("source", ["insulated-4.1.msh", "quadratic_sphere_tet.msh"])
def test_gmsh_written_variants(tmp_path, source, version, binary):
    mesh = with_views(_core.read(str(REPO / "tests/data/corpus/gmsh" / source), "gmsh"))
    path = tmp_path / f"out-{version}-{binary}.msh"
    _core.write(str(path), mesh, "gmsh", {"fmt_version": version, "binary": binary})
    full = check_metadata(path, "gmsh")
    assert len(_core.read_metadata(str(path), "gmsh")["times"]) == 3  # velocity's steps (0 is also the plain views')
    assert check_selected(path, "gmsh", full) >= 6


def test_gmsh_truncated_headers_are_read_errors(tmp_path):
    source = (REPO / "tests/data/corpus/gmsh_generated/insulated-4.1-binary.msh").read_bytes()
    for cut in range(0, len(source), max(1, len(source) // 97)):
        path = tmp_path / "cut.msh"
        path.write_bytes(source[:cut])
        try:
            _core.read_metadata(str(path), "gmsh")
        except Exception as error:  # noqa: BLE001 - the type is checked below
            assert type(error).__name__ == "ReadError", f"cut at {cut}: {type(error).__name__}: {error}"


VTK_VARIANTS = [(version, binary) for version in ("4.2", "5.1") for binary in ("true", "false")]


@pytest.mark.parametrize("version,binary", VTK_VARIANTS)
@pytest.mark.parametrize("source", ["insulated-4.1.msh", "quadratic_sphere_tet.msh"])
def test_vtk_written_variants(tmp_path, source, version, binary):
    mesh = _core.read(str(REPO / "tests/data/corpus/gmsh" / source), "gmsh")
    mesh["point_data"] = {"temperature": np.arange(mesh["points"].shape[0], dtype=np.float64),
                          "velocity": np.ones((mesh["points"].shape[0], 3), dtype=np.float32)}
    mesh["cell_data"] = {"geometrical": mesh["cell_data"]["gmsh:geometrical"],
                         "pressure": [np.arange(len(block[1]), dtype=np.float64) for block in mesh["cells"]]}
    mesh["field_data"], mesh["regions"] = {}, []
    path = tmp_path / f"out-{version}-{binary}.vtk"
    _core.write(str(path), mesh, "vtk", {"fmt_version": version, "binary": binary})
    full = check_metadata(path, "vtk")
    assert sum(len(block[1]) for block in full["cells"]) == sum(len(block[1]) for block in mesh["cells"])
    assert check_selected(path, "vtk", full) >= 3


def test_vtk_truncated_headers_are_read_errors(tmp_path):
    mesh = _core.read(str(REPO / "tests/data/corpus/gmsh/insulated-4.1.msh"), "gmsh")
    mesh["point_data"] = {"temperature": np.arange(mesh["points"].shape[0], dtype=np.float64)}
    mesh["cell_data"], mesh["field_data"], mesh["regions"] = {}, {}, []
    whole = tmp_path / "whole.vtk"
    _core.write(str(whole), mesh, "vtk", {"binary": "true"})
    source = whole.read_bytes()
    for cut in range(0, len(source), max(1, len(source) // 97)):
        path = tmp_path / "cut.vtk"
        path.write_bytes(source[:cut])
        try:
            _core.read_metadata(str(path), "vtk")
        except Exception as error:  # noqa: BLE001 - the type is checked below
            assert type(error).__name__ == "ReadError", f"cut at {cut}: {type(error).__name__}: {error}"
