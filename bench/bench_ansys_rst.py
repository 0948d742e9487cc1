#!/usr/bin/env python3
"""ANSYS MAPDL results (.rst/.rth): meshio++ against ansys-mapdl-reader and meshio++ 17.21, the
mesh plus the first set's nodal solution, and one set read alone through the time series.

There is no .rst writer (MAPDL writes them), so no >= 1 M-cell file can be made: the files are
the largest public ones, from ansys/pymapdl-reader's test files (MIT), fetched into
bench/data/ansys_rst/ by the caller (git show from a clone; see docs/benchmarks.md).

usage: python bench/bench_ansys_rst.py [--repeat 5] FILE...
Each timing runs in a fresh process (import excluded), best of --repeat.
"""

import argparse
import os
import pathlib
import subprocess
import sys

from common import OLD_MPP_PYTHON, machine_description

READ = {
    "meshio++": "import meshioplusplus as m; t=time.perf_counter(); x=m.read(P, file_format='ansys_rst'); n=sum(len(c.data) for c in x.cells)",
    "ansys-mapdl-reader": "import warnings; warnings.filterwarnings('ignore'); from ansys.mapdl import reader as r; t=time.perf_counter(); x=r.read_binary(P); s=x.nodal_solution(0); n=x.mesh.n_elem",
    "meshio++ 17.21": "import meshioplusplus as m; t=time.perf_counter(); x=m.read(P, file_format='ansys_rst'); n=sum(len(c.data) for c in x.cells)",
}
LAST_SET = "import meshioplusplus as m; r=m.ansys_rst.TimeSeriesReader(P); r.read_points_cells(); t=time.perf_counter(); r.read_data({k}); n=r.num_steps"


def timed(python, statement, path, env_path):
    code = f"import time; P={str(path)!r}\n{statement}\nprint(time.perf_counter()-t, n)"
    env = {**os.environ, "PYTHONPATH": env_path}  # the 17.21 peer must not see our build
    result = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=900)
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[-1][:120]
    seconds, count = result.stdout.split()[-2:]
    return float(seconds), int(count)


def best(repeat, python, statement, path, env_path):
    runs = [timed(python, statement, path, env_path) for _ in range(repeat)]
    ok = [r for r in runs if r[0] is not None]
    return min(ok) if ok else runs[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("files", nargs="+", type=pathlib.Path)
    args = parser.parse_args()
    ours_path = os.environ.get("PYTHONPATH", "")
    print(machine_description())
    for path in args.files:
        print(f"\n{path.name} ({path.stat().st_size / 1e6:.2f} MB)")
        results = {}
        for tool, statement in READ.items():
            python = str(OLD_MPP_PYTHON) if tool == "meshio++ 17.21" else sys.executable
            results[tool] = best(args.repeat, python, statement, path, "" if tool == "meshio++ 17.21" else ours_path)
        ours = results["meshio++"][0]
        for tool, (seconds, count) in results.items():
            if seconds is None:
                print(f"  {tool:20s} failed: {count}")
            else:
                print(f"  {tool:20s} {seconds * 1e3:9.2f} ms  {count} cells  x{seconds / ours:.2f} of ours")
        first = best(args.repeat, sys.executable, LAST_SET.format(k=0), path, ours_path)
        sets = first[1]
        last = best(args.repeat, sys.executable, LAST_SET.format(k=sets - 1), path, ours_path)
        print(f"  one set alone: set 1 {first[0] * 1e3:.3f} ms, set {sets} {last[0] * 1e3:.3f} ms ({sets} sets)")


if __name__ == "__main__":
    main()
