"""The command line, run as a user would."""

import subprocess
import sys

import numpy as np

import meshioplusplus as mio
from interop import sample_mesh


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "meshioplusplus", *map(str, args)], capture_output=True, text=True)


def test_convert_and_info(tmp_path):
    source = tmp_path / "in.vtu"
    mio.write(source, sample_mesh())
    target = tmp_path / "out.vtk"
    done = run_cli("convert", source, target, "--ascii")
    assert done.returncode == 0, done.stderr
    assert target.read_bytes().startswith(b"# vtk DataFile Version")
    assert b"ASCII" in target.read_bytes()[:200]
    np.testing.assert_array_equal(mio.read(target).points, mio.read(source).points)
    info = run_cli("info", target)
    assert info.returncode == 0, info.stderr
    for text in ("points: 30", "tetra", "bounding box", "point data", "T: float64[30]", "read in"):
        assert text in info.stdout, text


def test_errors_name_the_file_and_exit_1(tmp_path):
    bad = tmp_path / "bad.vtu"
    bad.write_text("<VTKFile type='UnstructuredGrid'><UnstructuredGrid><Piece NumberOfPoints='x'")
    done = run_cli("info", bad)
    assert done.returncode == 1
    assert "bad.vtu" in done.stderr


def test_help_lists_registered_formats():
    done = run_cli("--help")
    assert done.returncode == 0
    assert "vtu" in done.stdout and "vtk" in done.stdout
