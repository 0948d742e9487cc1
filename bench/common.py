"""Shared pieces of the benchmarks: the test mesh, peer runners, timing and reporting.

Every measurement runs in a fresh subprocess (one tool, one operation, one file) so that
peak RSS and import costs of one tool never leak into another's numbers.
"""

import json
import os
import pathlib
import platform
import subprocess

import numpy as np

BENCH_DIR = pathlib.Path(__file__).resolve().parent
DATA_DIR = BENCH_DIR / "data"
WORKER = BENCH_DIR / "_worker.py"
#: meshio++ 17.21 from PyPI lives in its own venv (same import name as ours).
OLD_MPP_PYTHON = BENCH_DIR / ".venv-meshioplusplus-17" / "bin" / "python"


def tet_box(cubes_per_side):
    """A unit cube split into cubes_per_side**3 cubes of 6 tetrahedra each (Kuhn split),
    with a float64 point field and an int32 cell field."""
    n = cubes_per_side + 1
    axis = np.linspace(0.0, 1.0, n)
    x, y, z = np.meshgrid(axis, axis, axis, indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    i, j, k = np.meshgrid(*(np.arange(cubes_per_side),) * 3, indexing="ij")
    base = (i * n * n + j * n + k).ravel()
    corner = [base + di * n * n + dj * n + dk for di in (0, 1) for dj in (0, 1) for dk in (0, 1)]
    # corners indexed by (di, dj, dk) bits: 0=000 1=001 2=010 3=011 4=100 5=101 6=110 7=111
    kuhn = [(0, 4, 6, 7), (0, 4, 5, 7), (0, 1, 5, 7), (0, 1, 3, 7), (0, 2, 3, 7), (0, 2, 6, 7)]
    tets = np.concatenate([np.column_stack([corner[a], corner[b], corner[c], corner[d]]) for a, b, c, d in kuhn])
    temperature = np.sin(points[:, 0] * 3.0) + points[:, 1] ** 2
    material = (np.arange(len(tets)) % 7).astype(np.int32)
    return points, tets.astype(np.int64), temperature, material


def machine_description():
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores, THP {transparent_huge_pages()}, kernel {platform.release()}, "
            f"Python {platform.python_version()}")


def transparent_huge_pages():
    """The kernel's THP mode (always / madvise / never): our large arrays ask for huge pages,
    so figures from machines in different modes are not one run."""
    try:
        text = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
        return text[text.index("[") + 1 : text.index("]")]
    except (OSError, ValueError):
        return "unknown"


def run_worker(python, tool, operation, variant, path, repeat, timeout=900, threads=None, package_dir=None):
    """Runs one measurement in a subprocess; returns the worker's JSON dict or an error dict.
    `threads` caps meshio++'s threads (MESHIOPLUSPLUS_NUM_THREADS), for one-core figures;
    `package_dir` puts a folder holding another build of meshioplusplus first on the path
    (bench/ab_packages.py: before/after of one change, in one run)."""
    command = [str(python), str(WORKER), tool, operation, variant, str(path), str(repeat)]
    env = dict(os.environ)
    if threads is not None:
        env["MESHIOPLUSPLUS_NUM_THREADS"] = str(threads)
    env.pop("PYTHONPATH", None)
    if package_dir is not None:
        env["PYTHONPATH"] = str(package_dir)
    # numpy's OpenBLAS threads spin after start-up and steal a core from whatever is timed on
    # this 2-core machine; no tool here uses BLAS.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    # Earlier runs' written files are flushed first, so no tool pays for another's writeback.
    os.sync()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s", "timeout": timeout}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["failed"])[-1]
        return {"error": last[:120]}
    return json.loads(done.stdout.strip().splitlines()[-1])


# A peer whose single run takes less than this gets best of 3 too, like meshio++: a fast
# path's first call carries one-time costs (lazy imports, first page faults) that the best of
# several runs leaves out, and comparing a best of 3 with a first run would flatter us.
QUICK_PEER_SECONDS = 2.0


def run_peer(python, tool, operation, variant, path, timeout=900):
    """One run of a slow peer; best of 3 (in one process) when that run was quick."""
    first = run_worker(python, tool, operation, variant, path, 1, timeout=timeout)
    if "error" in first or first["seconds"] >= QUICK_PEER_SECONDS:
        return first
    again = run_worker(python, tool, operation, variant, path, 3, timeout=timeout)
    return again if "error" not in again and again["seconds"] < first["seconds"] else first


def format_seconds(result):
    if result is None:
        return "n/a"
    if "timeout" in result:
        return f"> {result['timeout']} s"
    if "error" in result:
        return "fails"
    seconds = result["seconds"]
    return f"{seconds * 1e3:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def ratio(reference, ours):
    if reference and ours and "timeout" in reference and "error" not in ours:
        return f"> {reference['timeout'] / ours['seconds']:.0f}×"
    if not reference or not ours or "error" in reference or "error" in ours:
        return "—"
    return f"{reference['seconds'] / ours['seconds']:.1f}×"


def best_of(repeat, function):
    """The shortest of ``repeat`` timed calls of ``function`` (seconds), in this process."""
    import time

    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best
