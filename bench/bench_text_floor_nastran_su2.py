"""Nastran .bdf and SU2 reads against the text floor (issue 36): best of `repeat` reads, each
in a fresh process, beside bench/floor.py's floor on the same file. "1 thread" runs the sequential
path, which is the readers' whole former algorithm (the parallel paths fall back to it).
Usage: python bench/bench_text_floor_nastran_su2.py BUILD_PYTHON_DIR FILE..."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from floor import floor_seconds  # noqa: E402

CODE = """
import sys, time, meshioplusplus as m
t = time.perf_counter(); m.read(sys.argv[1]); print(time.perf_counter() - t)
"""


def best_read(python_path, path, repeat=5, threads=None):
    env = dict(os.environ, PYTHONPATH=python_path)
    if threads:
        env["MESHIOPLUSPLUS_NUM_THREADS"] = str(threads)
    times = [float(subprocess.run([sys.executable, "-c", CODE, path], env=env, capture_output=True, text=True,
                                  check=True).stdout) for _ in range(repeat)]
    return min(times)


if __name__ == "__main__":
    python_path, files = sys.argv[1], sys.argv[2:]
    print(os.popen("lscpu | grep 'Model name'").read().strip(), "| load", os.getloadavg())
    print("| file | MB | ours, 1 thread (ms) | ours (ms) | floor (ms) | ours / floor |")
    for path in files:
        sequential = best_read(python_path, path, threads=1)
        ours = best_read(python_path, path)
        floor = floor_seconds(path, repeat=5)
        print(f"| {os.path.basename(path)} | {os.path.getsize(path) / 1e6:.0f} | {sequential * 1e3:.0f} | {ours * 1e3:.0f} | "
              f"{floor * 1e3:.0f} | {ours / floor:.1f}× |")
