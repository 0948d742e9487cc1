#!/usr/bin/env python3
"""FEniCS/DOLFINx XDMF output: ``meshioplusplus.xdmf.write_dolfinx`` against the meshio recipe
FEniCS users paste (``create_mesh(msh, "tetra")`` + ``create_mesh(msh, "triangle")``, two
``meshio.write`` calls) run with meshio and with meshio++ 17.21, on make_bracket.py's ~1 M-tet
mesh (bench/data/bracket/bracket-4.1-binary.msh). Each run is a fresh process that reads the
.msh with its own reader (not timed) and times the write of both files (gzip 4, the default of
all three). Best of N.

Usage: bench/bench_xdmf_dolfinx.py [--repeat N] [MSH]
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import machine_description  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
PEER = ROOT / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"

OURS = r"""
import sys, time, meshioplusplus as mio
mesh = mio.read(sys.argv[1])
start = time.perf_counter()
mio.xdmf.write_dolfinx(sys.argv[2] + "/mesh.xdmf", mesh)
print(time.perf_counter() - start)
"""

RECIPE = r"""
import sys, time
import {module} as meshio
msh = meshio.read(sys.argv[1])
def create_mesh(mesh, cell_type, prune_z=False):
    cells = mesh.get_cells_type(cell_type)
    cell_data = mesh.get_cell_data("gmsh:physical", cell_type)
    points = mesh.points[:, :2] if prune_z else mesh.points
    return meshio.Mesh(points=points, cells={{cell_type: cells}}, cell_data={{"name_to_read": [cell_data]}})
start = time.perf_counter()
meshio.write(sys.argv[2] + "/mesh.xdmf", create_mesh(msh, "tetra"))
meshio.write(sys.argv[2] + "/mt.xdmf", create_mesh(msh, "triangle"))
print(time.perf_counter() - start)
"""


def run(python, script, msh, env=None):
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([python, "-c", script, msh, folder], capture_output=True, text=True, env=env, timeout=900)
        if done.returncode != 0:
            return None, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
        return float(done.stdout.strip().splitlines()[-1]), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("msh", nargs="?", default=str(ROOT / "bench" / "data" / "bracket" / "bracket-4.1-binary.msh"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tools = [("meshio++ write_dolfinx", sys.executable, OURS, None),
             ("meshio recipe", sys.executable, RECIPE.format(module="meshio"), None)]
    if PEER.exists():
        peer_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        tools.append(("meshio++ 17.21 recipe", str(PEER), RECIPE.format(module="meshioplusplus"), peer_env))
    print(machine_description())
    print(f"input: {args.msh}")
    best = {}
    for name, python, script, env in tools:
        times, error = [], None
        for _ in range(args.repeat):
            seconds, error = run(python, script, args.msh, env)
            if seconds is None:
                break
            times.append(seconds)
        best[name] = min(times) if times else None
        print(f"{name:26s} {'failed: ' + error if not times else f'{best[name]:.3f} s'}")
    ours = best["meshio++ write_dolfinx"]
    for name, seconds in best.items():
        if seconds and ours and name != "meshio++ write_dolfinx":
            print(f"  {name} / ours: {seconds / ours:.1f}x")


if __name__ == "__main__":
    main()
