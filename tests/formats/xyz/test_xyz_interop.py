"""XYZ-family files through meshio++ and numpy.loadtxt (the reference for whitespace/comma
separated columns), both directions, and against meshio++ 17.21's reader where installed."""

import pathlib
import subprocess

import numpy as np
import pytest

import meshioplusplus as mio

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "xyz"
PEER = pathlib.Path(__file__).resolve().parents[3] / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"

# file, rows loadtxt skips, the columns we name
FILES = [
    ("test.pts", 1, ["intensity", "red", "green", "blue"]),
    ("autzen.pts", 1, ["intensity", "red", "green", "blue"]),
    ("site_56_8.pts", 1, ["intensity"]),
    ("bunny_8.pts", 1, []),
    ("data.xyz", 0, []),
    ("utm17_1.txt", 1, []),
]


@pytest.mark.parametrize("name,skip,columns", FILES, ids=[f[0] for f in FILES])
def test_real_files_equal_loadtxt(name, skip, columns):
    path = DATA / name
    mesh = mio.read(str(path), "xyz")
    reference = np.loadtxt(path, skiprows=skip, delimiter="," if name.endswith(".txt") else None, ndmin=2)
    assert len(mesh.points) == len(reference)
    assert np.array_equal(mesh.points, reference[:, :3])
    assert list(mesh.point_data) == columns
    for k, column in enumerate(columns):
        assert np.array_equal(mesh.point_data[column].astype(np.float64), reference[:, 3 + k]), column


@pytest.mark.parametrize("extension", [".xyz", ".asc", ".xyzn", ".xyzrgb", ".pts"])
def test_loadtxt_reads_what_we_write(tmp_path, extension):
    rng = np.random.default_rng(3)
    n = 500
    points = rng.random((n, 3)) * 1000 - 500
    normals = rng.random((n, 3))
    colours = rng.integers(0, 256, (n, 3), dtype=np.uint8)
    point_data = {"nx": normals[:, 0], "ny": normals[:, 1], "nz": normals[:, 2],
                  "red": colours[:, 0], "green": colours[:, 1], "blue": colours[:, 2]}
    mesh = mio.Mesh(points, [("vertex", np.arange(n).reshape(-1, 1))], point_data=point_data)
    path = tmp_path / f"cloud{extension}"
    mio.write(str(path), mesh)
    table = np.loadtxt(path, comments="//", skiprows=1 if extension == ".pts" else 0)
    assert np.array_equal(table[:, :3], points)
    back = mio.read(str(path))
    assert np.array_equal(back.points, points)
    for name, values in point_data.items():
        if name in back.point_data:
            assert np.array_equal(back.point_data[name], values), name


@pytest.mark.skipif(not PEER.exists(), reason="meshio++ 17.21 is installed in bench/.venv-meshioplusplus-17 by bench setup")
def test_point_counts_equal_meshioplusplus_17():
    files = [DATA / f[0] for f in FILES if not f[0].endswith(".txt")]
    script = (
        "import sys, meshioplusplus as m\n"
        "for p in sys.argv[1:]:\n"
        "    x = m.read(p, 'xyz'); print(len(x.points), float(x.points.sum()))\n"
    )
    out = subprocess.run([str(PEER), "-c", script, *map(str, files)], capture_output=True, text=True, check=True).stdout.split("\n")
    for path, line in zip(files, out):
        count, total = line.split()
        mesh = mio.read(str(path))
        assert int(count) == len(mesh.points), path.name
        assert float(total) == pytest.approx(float(mesh.points.sum()), rel=1e-12), path.name


def test_columns_from_python(tmp_path):
    # meshioplusplus.xyz.read(columns=...) names what neither a header nor the extension does.
    path = tmp_path / "scan.xyz"
    path.write_text("1 2 3 9 0.5 0 0 1\n4 5 6 9 0.25 0 1 0\n")
    mesh = mio.xyz.read(path, columns="x,y,z,_,intensity,nx,ny,nz")
    np.testing.assert_array_equal(mesh.points, [[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(mesh.point_data["intensity"], [0.5, 0.25])
    assert set(mesh.point_data) == {"intensity", "nx", "ny", "nz"}
    same = mio.xyz.read(path, columns=["x", "y", "z", "_", "intensity", "nx", "ny", "nz"])
    np.testing.assert_array_equal(same.point_data["nz"], mesh.point_data["nz"])
    with pytest.raises(mio.ReadError):
        mio.xyz.read(path, columns="x,y,z")
