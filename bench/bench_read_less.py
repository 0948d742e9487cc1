#!/usr/bin/env python3
"""Reading less (docs/read-less.md): read_metadata, points_only and arrays=[one] against the full
read of the same ≥ 1 M-tetrahedron file, ours and meshio++ 17.21's (its own venv, a subprocess:
same import name), best of N wall-clock seconds in fresh processes, the CPU model and load
printed beside the table. Issue 35's targets: read_metadata ≤ 1 % of a full read on binary
formats; points_only reads no more than the points and the header.

    python bench/bench_read_less.py [--cubes 56] [--repeat 3] [--formats vtu,msh,vtk,exodus,xdmf,vtkhdf]

17.21's points_only keeps the cells (it means "no data"): its row is the like-for-like of our
arrays=[]; both are shown.
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import OLD_MPP_PYTHON, machine_description, tet_box  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "read_less")
# name -> (file name, write options)
FILES = {
    "vtu": ("box.vtu", {"binary": True, "compression": None, "appended": True}),
    "vtu-zlib": ("box-zlib.vtu", {"binary": True, "compression": "zlib"}),
    "msh": ("box.msh", {"binary": True}),
    "vtk": ("box.vtk", {"binary": True}),
    "exodus": ("box.e", {}),
    "xdmf": ("box.xdmf", {}),
    "vtkhdf": ("box.vtkhdf", {}),
}

PROGRAM = """
import json, sys, time
import meshioplusplus as mio
path, old, repeat = sys.argv[1], sys.argv[2] == "old", int(sys.argv[3])
def best(run):
    times = []
    for _ in range(repeat):
        start = time.perf_counter(); run(); times.append(time.perf_counter() - start)
    return min(times)
out = {}
for name, run in (("full", lambda: mio.read(path)), ("metadata", lambda: mio.read_metadata(path)),
                  ("arrays=[T]", lambda: mio.read(path, arrays=["T"])),
                  ("no data", lambda: mio.read(path, points_only=True) if old else mio.read(path, arrays=[])),
                  ("points_only", None if old else (lambda: mio.read(path, points_only=True)))):
    if run is None:
        continue
    try:
        out[name] = best(run)
    except Exception as error:
        out[name] = f"{type(error).__name__}: {str(error)[:80]}"
print(json.dumps(out))
"""


def make_files(cubes, names):
    os.makedirs(DATA, exist_ok=True)
    import meshioplusplus as mio
    mesh = None
    for name in names:
        file_name, options = FILES[name]
        path = os.path.join(DATA, f"{cubes}-{file_name}")
        if not os.path.exists(path):
            if mesh is None:
                points, tets, temperature, material = tet_box(cubes)
                rng = np.random.default_rng(1)
                mesh = mio.Mesh(points, [("tetra", tets)],
                                point_data={"T": temperature, "U": rng.random((len(points), 3)),
                                            "V": rng.random((len(points), 3))},
                                cell_data={"m": [material.astype(np.int32)]})
            mio.write(path, mesh, **options)
        yield name, path


def run(python, path, old, repeat, package_path=None):
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if package_path:
        env["PYTHONPATH"] = package_path
    result = subprocess.run([str(python), "-c", PROGRAM, path, "old" if old else "ours", str(repeat)],
                            capture_output=True, text=True, timeout=3600, env=env)
    if result.returncode != 0:
        return {"error": (result.stderr.strip().splitlines() or [f"rc {result.returncode}"])[-1]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cubes", type=int, default=56, help="tet_box size (56: 1.05 M tetrahedra)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default=",".join(FILES))
    args = parser.parse_args()
    names = [name for name in args.formats.split(",") if name]
    print(f"machine: {machine_description()}; load {os.getloadavg()[0]:.1f}; "
          f"{6 * args.cubes ** 3:,} tetrahedra, {(args.cubes + 1) ** 3:,} points; best of {args.repeat}")
    columns = ("full", "metadata", "arrays=[T]", "no data", "points_only")
    print(f"{'file':<10}{'tool':<8}" + "".join(f"{c:>13}" for c in columns) + f"{'meta/full':>11}")
    for name, path in make_files(args.cubes, names):
        ours = run(sys.executable, path, False, args.repeat, os.environ.get("PYTHONPATH"))
        old = run(OLD_MPP_PYTHON, path, True, args.repeat) if OLD_MPP_PYTHON.exists() else {"error": "no 17.21 venv"}
        for tool, result in (("ours", ours), ("17.21", old)):
            if "error" in result:
                print(f"{name:<10}{tool:<8}{result['error'][:100]}")
                continue
            cells = []
            for column in columns:
                value = result.get(column)
                cells.append(f"{value * 1e3:>10.1f} ms" if isinstance(value, float) else f"{'-' if value is None else 'fails':>13}")
            share = (f"{100 * result['metadata'] / result['full']:>10.2f}%"
                     if isinstance(result.get("metadata"), float) and isinstance(result.get("full"), float) else f"{'-':>11}")
            print(f"{name:<10}{tool:<8}" + "".join(cells) + share)


if __name__ == "__main__":
    main()
