"""PCD through meshio++ and pypcd4 (PCL's format in Python), both directions, and against
meshio++ 17.21's reader where it is installed."""

import pathlib
import re
import subprocess

import numpy as np
import pytest

import meshioplusplus as mio

pypcd4 = pytest.importorskip("pypcd4", reason="pypcd4 (requirements-test.txt) cross-checks PCD files")

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "pcd"
FILES = sorted(DATA.glob("*.pcd"))
PEER = pathlib.Path(__file__).resolve().parents[3] / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"


def ours_for(mesh, name):
    if name in ("x", "y", "z"):
        return np.ascontiguousarray(mesh.points[:, "xyz".index(name)])
    return mesh.point_data[name]


def assert_matches_pypcd4(mesh, path):
    cloud = pypcd4.PointCloud.from_path(str(path))
    assert cloud.points == len(mesh.points)
    data = cloud.pc_data
    counted = {}
    for name in data.dtype.names:
        reference = np.ascontiguousarray(data[name])
        component = re.match(r"(.*)__(\d+)$", name)
        if component:
            counted.setdefault(component.group(1), []).append(reference)
            continue
        ours = ours_for(mesh, name)
        if name in ("rgb", "rgba") and ours.dtype == np.float32 and cloud.metadata.data == "ascii":
            # PCL's ascii writer prints a float "rgb" as its uint32 bits; PCL's and pypcd4's
            # ascii readers then read that integer as a float value, we read the bits back.
            assert np.array_equal(ours.view(np.uint32).astype(np.float32), reference), name
            continue
        assert ours.dtype == reference.dtype, name
        assert ours.tobytes() == reference.tobytes(), name
    for name, columns in counted.items():
        ours = mesh.point_data[name]
        assert ours.shape == (len(mesh.points), len(columns))
        if cloud.metadata.data == "binary_compressed":
            # pypcd4 reads each component as a plane of its own; PCL (and we) keep a field's
            # COUNT values together per point in its plane: the same bytes, transposed.
            assert np.concatenate(columns).tobytes() == ours.tobytes(), name
        else:
            assert np.array_equal(np.stack(columns, axis=1), ours), name


@pytest.mark.parametrize("path", [p for p in FILES if p.name != "bunny.pcd"], ids=lambda p: p.name)
def test_real_files_equal_pypcd4(path):
    assert_matches_pypcd4(mio.read(str(path)), path)


def test_version_05_file_pypcd4_refuses():
    # pypcd4 accepts only VERSION .7/0.7; PCL's bunny.pcd is .5. Its points as numbers:
    mesh = mio.read(str(DATA / "bunny.pcd"))
    text = (DATA / "bunny.pcd").read_text().splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith("DATA")) + 1
    expected = np.loadtxt(text[start:], dtype=np.float32)
    assert np.array_equal(mesh.points, expected)


@pytest.mark.parametrize("data", ["ascii", "binary", "binary_compressed"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_pypcd4_reads_what_we_write(tmp_path, path, data):
    mesh = mio.read(str(path))
    out = tmp_path / f"out_{data}.pcd"
    mio.write(str(out), mesh, data=data)
    back = mio.read(str(out))
    assert back.points.tobytes() == mesh.points.tobytes()
    for name, array in mesh.point_data.items():
        assert back.point_data[name].tobytes() == array.tobytes()
    assert_matches_pypcd4(back, out)


@pytest.mark.parametrize("data", ["ascii", "binary", "binary_compressed"])
def test_we_read_what_pypcd4_writes(tmp_path, data):
    rng = np.random.default_rng(4)
    xyz = rng.random((1000, 3)).astype(np.float32)
    intensity = rng.random(1000).astype(np.float32)
    label = rng.integers(0, 1 << 31, 1000, dtype=np.uint32)
    cloud = pypcd4.PointCloud.from_points([xyz[:, 0], xyz[:, 1], xyz[:, 2], intensity, label],
                                          ("x", "y", "z", "intensity", "label"),
                                          (np.float32, np.float32, np.float32, np.float32, np.uint32))
    path = tmp_path / f"pypcd4_{data}.pcd"
    cloud.save(str(path), encoding=getattr(pypcd4.Encoding, data.upper()))
    mesh = mio.read(str(path))
    assert_matches_pypcd4(mesh, path)  # pypcd4's ascii prints floats rounded: compare what it reads
    if data != "ascii":
        assert mesh.points.tobytes() == xyz.tobytes()
        assert mesh.point_data["intensity"].tobytes() == intensity.tobytes()
    assert np.array_equal(mesh.point_data["label"], label)


@pytest.mark.skipif(not PEER.exists(), reason="meshio++ 17.21 is installed in bench/.venv-meshioplusplus-17 by bench setup")
def test_point_counts_equal_meshioplusplus_17():
    script = (
        "import sys, meshioplusplus as m\n"
        "for p in sys.argv[1:]:\n"
        "    try: print(len(m.read(p).points), float(m.read(p).points.astype('f8').sum()))\n"
        "    except Exception: print(-1, 0)\n"
    )
    out = subprocess.run([str(PEER), "-c", script, *map(str, FILES)], capture_output=True, text=True, check=True).stdout.split("\n")
    compared = 0
    for path, line in zip(FILES, out):
        count, total = line.split()
        mesh = mio.read(str(path))
        if int(count) < 0:  # 17.21 refuses clouds without x (brisk descriptors): we read them
            assert path.name == "brisk_descriptors_gt.pcd"
            continue
        assert int(count) == len(mesh.points), path.name
        assert float(total) == pytest.approx(float(np.nansum(mesh.points.astype(np.float64))), rel=1e-12), path.name
        compared += 1
    assert compared >= len(FILES) - 1


def large_cloud(n=300_000):
    """Noise (random coordinates) and runs (constant stretches, a repeated pattern): every
    LZF block, the encoder's skipping over noise and the decoder's wide copies."""
    rng = np.random.default_rng(34)
    xyz = (rng.random((n, 3), dtype=np.float32) * 100).astype(np.float32)
    xyz[n // 4 : n // 2] = 1.5
    xyz[n // 2 : 3 * n // 4] = np.tile(rng.random((37, 3), dtype=np.float32), (n // 4 // 37 + 1, 1))[: n // 4]
    intensity = rng.random(n, dtype=np.float32)
    label = (np.arange(n) // 1000).astype(np.uint32)
    return xyz, intensity, label


@pytest.mark.parametrize("data", ["ascii", "binary", "binary_compressed"])
def test_large_cloud_pypcd4_reads_ours_and_threads_agree(tmp_path, data):
    from meshioplusplus import _core

    xyz, intensity, label = large_cloud()
    mesh = mio.Mesh(xyz, [("vertex", np.arange(len(xyz)).reshape(-1, 1))], point_data={"intensity": intensity, "label": label})
    written = []
    try:
        for threads in (1, 2):
            _core.set_thread_count(threads)
            out = tmp_path / f"large_{threads}.pcd"
            mio.write(str(out), mesh, data=data)
            written.append(out.read_bytes())
            back = mio.read(str(out))
            assert back.points.tobytes() == xyz.tobytes()
            assert back.point_data["intensity"].tobytes() == intensity.tobytes()
            assert np.array_equal(back.point_data["label"], label)
    finally:
        _core.set_thread_count(0)
    assert written[0] == written[1]
    assert_matches_pypcd4(mio.read(str(tmp_path / "large_1.pcd")), tmp_path / "large_1.pcd")


def test_large_cloud_we_read_pypcd4_compressed(tmp_path):
    xyz, intensity, label = large_cloud()
    cloud = pypcd4.PointCloud.from_points([xyz[:, 0], xyz[:, 1], xyz[:, 2], intensity, label],
                                          ("x", "y", "z", "intensity", "label"),
                                          (np.float32, np.float32, np.float32, np.float32, np.uint32))
    path = tmp_path / "pypcd4_large.pcd"
    cloud.save(str(path), encoding=pypcd4.Encoding.BINARY_COMPRESSED)
    mesh = mio.read(str(path))
    assert mesh.points.tobytes() == xyz.tobytes()
    assert mesh.point_data["intensity"].tobytes() == intensity.tobytes()
    assert np.array_equal(mesh.point_data["label"], label)
    assert_matches_pypcd4(mesh, path)
