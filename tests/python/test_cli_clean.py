"""The CLI's `clean` subcommand and convert's --drop / --crop / --crop-region (docs/cli.md,
docs/clean-up.md), on real files from tests/data: the counts and arrays equal what the Python API
gives for the same steps, and the native C++ CLI (src/cli) writes the same mesh as the Python one."""

import os
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus._cli import main
from meshioplusplus._operations import drop_cell_types, extract_region, remove_cells

DATA = Path(__file__).resolve().parents[1] / "data"
BUILDING = DATA / "gltf" / "no_indices_3storybuilding.glb"  # 216 points, each triangle its own 3
CAVITY = DATA / "ensight" / "cavity_binary" / "cavity.case"  # OpenFOAM cavity: hexahedra + boundary quads
BIRD = DATA / "lsdyna" / "bird" / "mesh.k"  # 13 nodes no element uses


def _read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mio.read(path)


def _cells(mesh):
    return sum(len(block) for block in mesh.cells)


def _api_clean(mesh):
    """What `clean` does by default, through the Python API."""
    mesh.merge_points(0.0)
    found = mesh.check()
    mesh = remove_cells(mesh, np.union1d(found.degenerate, found.duplicate))
    mesh.remove_orphaned_nodes()
    return mesh


def _run_native(command, **options):
    """The native CLI in a child without this interpreter's LD_PRELOAD: under the sanitizer lane
    Python preloads the shared ASan runtime, which the CLI (its own runtime linked in) refuses."""
    environment = {key: value for key, value in os.environ.items() if key != "LD_PRELOAD"}
    return subprocess.run(command, env=environment, **options)


def _native_cli():
    path = Path(os.environ.get("MESHIOPLUSPLUS_CLI", Path(mio.__file__).parents[2] / "src" / "cli" / "meshioplusplus-cli"))
    if not path.is_file():
        pytest.skip(f"no native CLI at {path} (build with MESHIOPLUSPLUS_BUILD_TESTS=ON or set MESHIOPLUSPLUS_CLI)")
    return str(path)


def test_clean_welds_the_copies_and_drops_the_duplicate_triangles(tmp_path, capsys):
    assert main(["clean", str(BUILDING), str(tmp_path / "out.vtu")]) == 0
    assert "points 216 -> 24, cells 72 -> 64" in capsys.readouterr().err
    cleaned = mio.read(tmp_path / "out.vtu")
    expected = _api_clean(_read(BUILDING))
    assert (len(cleaned.points), _cells(cleaned)) == (len(expected.points), _cells(expected)) == (24, 64)
    np.testing.assert_array_equal(cleaned.points, expected.points)
    np.testing.assert_array_equal(cleaned.cells[0].data, expected.cells[0].data)
    found = mio.check(cleaned)  # nothing left that clean removes (the floors' shared edges stay non-manifold)
    assert len(found.degenerate) == len(found.duplicate) == len(found.unused_points) == 0
    # Each default step can be left out.
    assert main(["clean", str(BUILDING), str(tmp_path / "kept.vtu"), "--keep-duplicate-cells"]) == 0
    assert (len(mio.read(tmp_path / "kept.vtu").points), _cells(mio.read(tmp_path / "kept.vtu"))) == (24, 72)
    assert main(["clean", str(BUILDING), str(tmp_path / "raw.vtu"), "--no-merge-points"]) == 0
    assert (len(mio.read(tmp_path / "raw.vtu").points), _cells(mio.read(tmp_path / "raw.vtu"))) == (216, 72)


def test_clean_in_place_removes_the_orphans(tmp_path, capsys):
    path = tmp_path / "mesh.k"
    shutil.copy(BIRD, path)
    assert main(["clean", str(path)]) == 0
    assert "13 orphaned points removed" in capsys.readouterr().err
    cleaned, source = _read(path), _read(BIRD)
    assert source.remove_orphaned_nodes() == 13
    assert (len(cleaned.points), _cells(cleaned)) == (len(source.points), _cells(source)) == (1768, 828)
    np.testing.assert_allclose(cleaned.points, source.points)
    assert main(["clean", str(path), "--keep-orphans"]) == 0  # nothing left to do: same counts
    assert len(_read(path).points) == 1768


def test_clean_merges_the_ensight_parts_shared_points(tmp_path):
    assert main(["clean", str(CAVITY), str(tmp_path / "cavity.vtu")]) == 0
    cleaned, expected = mio.read(tmp_path / "cavity.vtu"), _api_clean(_read(CAVITY))
    assert len(_read(CAVITY).points) == 1046 and len(cleaned.points) == len(expected.points) == 882
    assert _cells(cleaned) == 480
    np.testing.assert_array_equal(cleaned.get_cells_type("hexahedron"), expected.get_cells_type("hexahedron"))


def test_convert_drop_crop_and_crop_region(tmp_path, capsys):
    source = _read(CAVITY)
    assert main(["convert", str(CAVITY), str(tmp_path / "hex.vtu"), "--drop", "quad"]) == 0
    assert "dropped cell blocks of type quad" in capsys.readouterr().err
    hexes, expected = mio.read(tmp_path / "hex.vtu"), drop_cell_types(source, {"quad"})
    assert [b.type for b in hexes.cells] == ["hexahedron"] and _cells(hexes) == 400
    np.testing.assert_array_equal(hexes.cells[0].data, expected.cells[0].data)
    np.testing.assert_array_equal(hexes.cell_data["p"][0], source.cell_data["p"][0])  # data follow

    assert main(["convert", str(CAVITY), str(tmp_path / "box.vtu"), "--drop", "quad",
                 "--crop", "0", "0", "0", "0.05", "0.05", "1"]) == 0
    assert "kept 81 of 400 cells" in capsys.readouterr().err
    box = mio.read(tmp_path / "box.vtu")
    expected = mio.crop(drop_cell_types(source, {"quad"}), [0, 0, 0], [0.05, 0.05, 1])
    assert _cells(box) == _cells(expected) == 81 and len(box.points) == len(expected.points) == 200
    assert box.points[:, :2].max() <= 0.05

    assert main(["convert", str(CAVITY), str(tmp_path / "lid.vtu"), "--crop-region", "movingWall"]) == 0
    lid, expected = mio.read(tmp_path / "lid.vtu"), extract_region(source, "movingWall")
    assert [b.type for b in lid.cells] == ["quad"] and _cells(lid) == _cells(expected) == 20
    np.testing.assert_allclose(lid.points[:, 1], 0.1)  # the lid of the cavity


def test_bad_arguments_are_clear_errors(tmp_path, capsys):
    assert main(["convert", str(CAVITY), str(tmp_path / "x.vtu"), "--crop-region", "nope"]) == 1
    err = capsys.readouterr().err
    assert "--crop-region: no cell region 'nope'" in err and "'movingWall'" in err
    assert main(["convert", str(CAVITY), str(tmp_path / "x.vtu"), "--crop", "1", "0", "0", "0", "1", "1"]) == 1
    assert "each min <= its max" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:  # argparse: exit status 2
        main(["convert", str(CAVITY), str(tmp_path / "x.vtu"), "--crop", "0", "0", "0", "1", "1"])
    assert usage.value.code == 2
    assert main(["convert", str(CAVITY), str(tmp_path / "x.vtu"), "--drop", ","]) == 1
    assert "--drop takes comma-separated cell types" in capsys.readouterr().err
    assert main(["clean", str(BUILDING), str(tmp_path / "x.vtu"), "--merge-points", "-1"]) == 1
    assert "--merge-points takes a tolerance >= 0" in capsys.readouterr().err
    assert main(["clean", str(tmp_path / "missing.vtu")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["clean", str(CAVITY), str(tmp_path / "x.unknownext")]) == 1
    assert "-o/--output-format" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["clean", str(BUILDING), "--merge-points", "0", "--no-merge-points"])
    assert usage.value.code == 2
    assert not (tmp_path / "x.vtu").exists()


@pytest.mark.parametrize("args", [
    ["clean", "{building}", "{out}"],
    ["convert", "{cavity}", "{out}", "--drop", "quad", "--crop", "0", "0", "0", "0.05", "0.05", "1", "--merge-points", "0"],
    ["convert", "{cavity}", "{out}", "--crop-region", "fixedWalls", "--extract-surface"],
])
def test_native_cli_writes_what_the_python_cli_writes(tmp_path, args):
    native = _native_cli()
    fill = lambda out: [a.format(building=BUILDING, cavity=CAVITY, out=out) for a in args]
    assert main(fill(tmp_path / "python.vtu")) == 0
    done = _run_native([native, *fill(tmp_path / "native.vtu")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    python, cpp = mio.read(tmp_path / "python.vtu"), mio.read(tmp_path / "native.vtu")
    np.testing.assert_array_equal(python.points, cpp.points)
    assert [(b.type, len(b)) for b in python.cells] == [(b.type, len(b)) for b in cpp.cells]
    for a, b in zip(python.cells, cpp.cells):
        np.testing.assert_array_equal(a.data, b.data)


def test_native_cli_errors_match(tmp_path):
    native = _native_cli()
    done = _run_native([native, "convert", str(CAVITY), str(tmp_path / "x.vtu"), "--crop-region", "nope"],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "--crop-region: no cell region 'nope'" in done.stderr
    done = _run_native([native, "convert", str(CAVITY), str(tmp_path / "x.vtu"), "--crop", "0", "0"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "expected 6 arguments" in done.stderr
    done = _run_native([native, "clean", str(BUILDING), str(tmp_path / "x.vtu"), "--merge-points", "-1"],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "--merge-points takes a tolerance >= 0" in done.stderr
    path = tmp_path / "mesh.k"
    shutil.copy(BIRD, path)
    done = _run_native([native, "clean", str(path)], capture_output=True, text=True)
    assert done.returncode == 0 and "points 1781 -> 1768" in done.stderr, done.stderr
