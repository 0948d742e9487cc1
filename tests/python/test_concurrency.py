"""Concurrency and write faults, as an outside reliability run measured them (issue 18):
8 threads reading one file; 6 readers and 1 writer rewriting the same files (0 errors,
0 mismatches, no temporary files left); atomic writes keep the old file on ENOSPC, in read-only
folders and when the writing process is killed with SIGKILL. docs/reliability.md."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core


def grid_mesh(n, shift=0.0):
    """An n x n triangulated square (2 (n-1)^2 triangles) with point data."""
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    points = np.column_stack([x.ravel() + shift, y.ravel(), np.zeros(n * n)])
    ids = np.arange(n * n).reshape(n, n)
    a, b, c, d = ids[:-1, :-1].ravel(), ids[:-1, 1:].ravel(), ids[1:, 1:].ravel(), ids[1:, :-1].ravel()
    triangles = np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])])
    return mio.Mesh(points, [("triangle", triangles)], point_data={"u": points[:, 0] * 2.0 + shift})


def same(mesh, expected):
    return (
        mesh.points.shape == expected.points.shape
        and np.array_equal(mesh.points, expected.points)
        and np.array_equal(mesh.cells[0].data, expected.cells[0].data)
        and np.array_equal(mesh.point_data["u"], expected.point_data["u"])
    )


def leftovers(folder, keep):
    return sorted(name for name in os.listdir(folder) if name not in keep)


def run_threads(workers):
    threads = [threading.Thread(target=work) for work in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_eight_threads_read_one_file(tmp_path):
    expected = grid_mesh(120)
    path = str(tmp_path / "shared.vtu")
    mio.write(path, expected)
    errors, mismatches, reads = [], [], []

    def reader():
        for _ in range(15):
            try:
                mesh = mio.read(path)
            except Exception as error:  # noqa: BLE001 - every failure counts
                errors.append(repr(error))
                continue
            reads.append(1)
            if not same(mesh, expected):
                mismatches.append(1)

    run_threads([reader] * 8)
    assert errors == []
    assert mismatches == []
    assert len(reads) == 8 * 15


# HDF5 and netCDF files (single-file formats only: XDMF's pair of files is not replaced atomically as a
# pair), large enough for the paths that read past HDF5 on every core — VTKHDF (uncompressed:
# pread at H5Dget_offset) and HMF (gzip: H5Dread_chunk + inflate) — which must read the file
# HDF5 opened even when the writer renames a new one over it meanwhile.
LIBRARY_SINGLE_FILE = [".vtkhdf", ".hmf"] if _core.hdf5_available() else []
# Exodus goes through netCDF, which opens files by name: the reader must check sizes against
# the file the library opened (through /proc/self/fd), not one put under the path since.
LIBRARY_SINGLE_FILE += [".exo"] if _core.features()["netcdf"] else []


@pytest.mark.parametrize("extension", [".vtu", ".msh", ".vtk"] + LIBRARY_SINGLE_FILE)
def test_six_readers_one_writer(tmp_path, extension):
    n = 600 if extension in LIBRARY_SINGLE_FILE else 80  # 718,802 triangles: 17 MB of cells
    versions = [grid_mesh(n, shift=0.0), grid_mesh(n, shift=0.5)]
    paths = [str(tmp_path / f"file{k}{extension}") for k in range(3)]
    for path in paths:
        mio.write(path, versions[0])
    stop = threading.Event()
    errors, mismatches, reads, writes = [], [], [], []

    def writer():
        k = 0
        while not stop.is_set():
            k += 1
            try:
                mio.write(paths[k % len(paths)], versions[k % 2])
                writes.append(1)
            except Exception as error:  # noqa: BLE001
                errors.append(repr(error))

    def reader():
        k = 0
        while not stop.is_set():
            k += 1
            try:
                mesh = mio.read(paths[k % len(paths)])
            except Exception as error:  # noqa: BLE001
                errors.append(repr(error))
                continue
            reads.append(1)
            if not (same(mesh, versions[0]) or same(mesh, versions[1])):
                mismatches.append(1)

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(6)]
    for thread in threads:
        thread.start()
    time.sleep(2.0)
    stop.set()
    for thread in threads:
        thread.join()
    assert errors == []
    assert mismatches == []
    assert len(reads) > 0 and len(writes) > 0
    assert leftovers(tmp_path, {os.path.basename(p) for p in paths}) == []


def _mount_available():
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("mount") and shutil.which("umount")


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 256 KiB tmpfs (root only): a real ENOSPC, and a filesystem that can turn read-only."""
    if not _mount_available():
        pytest.skip("needs root and mount(8) to create a small tmpfs")
    mount_point = tmp_path / "tiny"
    mount_point.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount_point)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def test_enospc_keeps_old_file(tiny_tmpfs):
    path = str(tiny_tmpfs / "keep.vtu")
    old = grid_mesh(10)
    mio.write(path, old)
    before = open(path, "rb").read()
    with pytest.raises(mio.WriteError) as error:
        mio.write(path, grid_mesh(400), binary=False)  # ascii, megabytes: cannot fit
    assert "No space left" in str(error.value)
    assert open(path, "rb").read() == before
    assert same(mio.read(path), old)
    assert leftovers(tiny_tmpfs, {"keep.vtu"}) == []


def test_read_only_filesystem_keeps_old_file(tiny_tmpfs):
    path = str(tiny_tmpfs / "keep.msh")
    old = grid_mesh(10)
    mio.write(path, old)
    before = open(path, "rb").read()
    remount = subprocess.run(["mount", "-o", "remount,ro", str(tiny_tmpfs)], capture_output=True, text=True)
    if remount.returncode != 0:
        pytest.skip(f"cannot remount read-only: {remount.stderr.strip()}")
    with pytest.raises(mio.WriteError):
        mio.write(path, grid_mesh(20))
    assert open(path, "rb").read() == before
    assert leftovers(tiny_tmpfs, {"keep.msh"}) == []


def test_read_only_folder_keeps_old_file(tmp_path):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("permissions do not restrict root (the read-only filesystem test covers it)")
    folder = tmp_path / "locked"
    folder.mkdir()
    path = str(folder / "keep.vtu")
    mio.write(path, grid_mesh(10))
    before = open(path, "rb").read()
    folder.chmod(0o555)
    try:
        with pytest.raises(mio.WriteError):
            mio.write(path, grid_mesh(20))
    finally:
        folder.chmod(0o755)
    assert open(path, "rb").read() == before
    assert leftovers(folder, {"keep.vtu"}) == []


def test_kill_9_during_write_keeps_old_file(tmp_path):
    path = str(tmp_path / "keep.vtu")
    old = grid_mesh(10)
    mio.write(path, old)
    before = open(path, "rb").read()
    # The child rewrites the file with a large ascii mesh in a loop; it is killed mid-write.
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        import meshioplusplus as mio
        n = 1200
        points = np.random.default_rng(1).random((n * n, 3))
        cells = np.arange(3 * (n * n // 3)).reshape(-1, 3)
        mesh = mio.Mesh(points, [("triangle", cells)])
        print("writing", flush=True)
        while True:
            mio.write({path!r}, mesh, binary=False)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=dict(os.environ))
    try:
        assert child.stdout.readline().strip() == b"writing"
        time.sleep(0.3)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    after = open(path, "rb").read()
    # Either the old file or one complete new one (if a write finished before the kill).
    if after != before:
        assert mio.read(path).points.shape == (1200 * 1200, 3)
    assert leftovers(tmp_path, {"keep.vtu"}) == [], "SIGKILL left a temporary file"


@pytest.mark.parametrize("name", ["pipe.vtk", "pipe.msh"])
def test_fifo_read_fails_at_once(tmp_path, name):
    """.msh is claimed by two formats, so its first bytes would be sniffed: a FIFO must not be
    opened for that (the open would wait for a writer)."""
    fifo = tmp_path / name
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(mio.ReadError, match="not a regular file"):
        mio.read(str(fifo))
    assert time.monotonic() - start < 5


# The writers of HDF5, netCDF and CGNS files let their library create the file: they take a
# temporary name beside the target the same way (it used to be "<name>.tmp-<pid>", too long
# for such a name).
LIBRARY_WRITTEN = [(".hmf", "hdf5"), (".h5m", "hdf5"), (".vtkhdf", "hdf5"), (".med", "hdf5"),
                   (".exo", "netcdf"), (".cgns", "cgns")]


@pytest.mark.parametrize("extension,library", [(".vtu", None)] + LIBRARY_WRITTEN)
def test_longest_legal_name_is_writable(tmp_path, extension, library):
    if library and not mio._core.features()[library]:
        pytest.skip(f"this build has no {library}")
    name = "n" * (254 - len(extension)) + extension  # 254 bytes; NAME_MAX is 255
    path = str(tmp_path / name)
    mesh = grid_mesh(5)
    mio.write(path, mesh)
    mio.write(path, mesh)  # a replacement goes through a temporary name beside it
    assert same(mio.read(path), mesh)
    assert os.listdir(tmp_path) == [name]


@pytest.mark.parametrize("extension,library", [(".vtu", None)] + LIBRARY_WRITTEN)
def test_replaced_large_file_is_deleted_and_no_name_is_left(tmp_path, extension, library):
    """A replaced file of 4 MiB or more loses its name at once and is freed by a background
    thread (docs/reliability.md): the old inode has no link left when write() returns."""
    if library and not mio._core.features()[library]:
        pytest.skip(f"this build has no {library}")
    path = str(tmp_path / ("big" + extension))
    first, second = grid_mesh(600), grid_mesh(600, shift=1.0)
    mio.write(path, first)
    assert os.path.getsize(path) >= 4 << 20
    with open(path, "rb") as old:
        mio.write(path, second)
        assert os.fstat(old.fileno()).st_nlink == 0
    assert same(mio.read(path), second)
    assert os.listdir(tmp_path) == ["big" + extension]


def test_truncation_during_read_is_a_read_error_not_sigbus(tmp_path):
    """Files of 1 MiB and more are memory-mapped; another process truncating one while it is
    read used to kill the interpreter with SIGBUS. Now each read returns a mesh or raises
    ReadError ("file changed size while being read" when the truncation hit the mapping)."""
    path = str(tmp_path / "shrinking.vtk")
    mio.write(path, grid_mesh(300), binary=False)  # ascii, several MiB
    original = open(path, "rb").read()
    assert len(original) > 2 << 20
    stop = threading.Event()

    def vandal():
        while not stop.is_set():
            with open(path, "r+b") as handle:
                handle.truncate(4096)
            time.sleep(0.002)
            with open(path, "wb") as handle:
                handle.write(original)
            time.sleep(0.004)

    thread = threading.Thread(target=vandal)
    thread.start()
    outcomes = {"mesh": 0, "error": 0}
    try:
        for _ in range(40):
            try:
                mio.read(path)
                outcomes["mesh"] += 1
            except mio.ReadError:
                outcomes["error"] += 1
    finally:
        stop.set()
        thread.join()
    assert outcomes["mesh"] + outcomes["error"] == 40
