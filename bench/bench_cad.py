#!/usr/bin/env python3
"""STEP / IGES tessellation (issue 34): meshio++ (io/occt: OpenCASCADE's BRepMesh) against
Gmsh's OpenCASCADE import tessellated the same way (occ.importShapes + mesh.importStl, with
Gmsh's STL deflection set to ours: 0.001 × the bounding-box diagonal, absolute, 0.5 rad), Gmsh's
own 2-D mesher on the same import (mesh.generate(2), Mesh.MeshSizeMax = diagonal / 20: a real
surface mesh, a different product, listed for scale) and meshio++ 17.21. Each tool runs in a
fresh process per repetition; the time is the read/import + tessellation only (not the
interpreter's start or the module's import), best of N.

usage: python bench/bench_cad.py [--repeat N] [FILE ...]
  default files: bench/data/cad/*.stp|step|igs (git-ignored). Get them from Gmsh's repository
  (github:live-clones/gmsh, commit fa207ce84b468654a2153f77c8da039688093736):
  benchmarks/statreport/linkrods.step (1.8 MB), benchmarks/step/U_Joint_2.stp (1.2 MB),
  benchmarks/step/Block.stp (0.9 MB), benchmarks/step/SampleCrankshaft4A.stp (0.7 MB); the test
  files of tests/data/step and tests/data/iges are added.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys

from common import DATA_DIR, OLD_MPP_PYTHON, machine_description

REPO = pathlib.Path(__file__).resolve().parents[1]

OURS = """
import sys, time, json
import meshioplusplus as m
t = time.perf_counter()
mesh = m.read(sys.argv[1])
t = time.perf_counter() - t
print(json.dumps({"seconds": t, "points": len(mesh.points), "triangles": sum(len(c.data) for c in mesh.cells)}))
"""

GMSH = """
import sys, time, json
import gmsh
import numpy as np
mode = sys.argv[2]
gmsh.initialize(["", "-noenv"])
gmsh.option.setNumber("General.Terminal", 0)
gmsh.option.setNumber("General.NumThreads", int(sys.argv[3]))
t = time.perf_counter()
gmsh.model.occ.importShapes(sys.argv[1])
gmsh.model.occ.synchronize()
box = np.array(gmsh.model.getBoundingBox(-1, -1))
diagonal = float(np.linalg.norm(box[3:] - box[:3]))
if mode == "stl":
    gmsh.option.setNumber("Mesh.StlLinearDeflectionRelative", 0)
    gmsh.option.setNumber("Mesh.StlLinearDeflection", 0.001 * diagonal)
    gmsh.option.setNumber("Mesh.StlAngularDeflection", 0.5)
    gmsh.model.mesh.importStl()
else:
    gmsh.option.setNumber("Mesh.MeshSizeMax", diagonal / 20)
    gmsh.model.mesh.generate(2)
t = time.perf_counter() - t
nodes = len(gmsh.model.mesh.getNodes()[0])
types, tags, _ = gmsh.model.mesh.getElements(2)
triangles = sum(len(x) for e, x in zip(types, tags) if e == 2)
gmsh.finalize()
print(json.dumps({"seconds": t, "points": nodes, "triangles": triangles}))
"""


def run(python, script, args, environment):
    done = subprocess.run([str(python), "-c", script, *map(str, args)], capture_output=True, text=True, timeout=900,
                          env=environment, cwd="/")
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def best(repeat, function):
    results = [function() for _ in range(repeat)]
    good = [r for r in results if "seconds" in r]
    return min(good, key=lambda r: r["seconds"]) if good else results[-1]


def cell(result):
    if "seconds" not in result:
        return f"{'failed':>9} {'':>9}"
    return f"{result['seconds']:8.3f}s {result['triangles']:>9}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("files", nargs="*")
    options = parser.parse_args()
    files = [pathlib.Path(f).resolve() for f in options.files]
    if not files:
        files = sorted(p for p in (DATA_DIR / "cad").glob("*") if p.suffix.lower() in {".stp", ".step", ".igs", ".iges"})
        tests = sorted((REPO / "tests" / "data" / "step").glob("*")) + sorted((REPO / "tests" / "data" / "iges").glob("*"))
        files += [p for p in tests if not p.name.startswith("fault-")]  # hostile-input files
    if not files:
        sys.exit(__doc__)

    # Ours: the PYTHONPATH given to this script (a dev build) or the installed package.
    ours_env = dict(os.environ)
    peer_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    threads = os.cpu_count() or 1
    print(machine_description())
    print(f"best of {options.repeat}, fresh processes; time = read + tessellation; Gmsh threads = {threads}")
    header = (f"{'file':<28}{'MB':>6} | {'meshio++':>19} | {'gmsh occ+stl':>19} {'ratio':>6} | "
              f"{'meshio++ 17.21':>19} {'ratio':>6} | {'gmsh generate(2)':>19}")
    print(header)
    print("-" * len(header))
    for path in files:
        ours = best(options.repeat, lambda: run(sys.executable, OURS, [path], ours_env))
        stl = best(options.repeat, lambda: run(sys.executable, GMSH, [path, "stl", threads], peer_env))
        old = (best(options.repeat, lambda: run(OLD_MPP_PYTHON, OURS, [path], peer_env))
               if OLD_MPP_PYTHON.exists() else {"error": "not installed"})
        mesher = best(1, lambda: run(sys.executable, GMSH, [path, "mesh", threads], peer_env))

        def speedup(other):
            if "seconds" not in other or "seconds" not in ours:
                return f"{'-':>6}"
            return f"{other['seconds'] / ours['seconds']:5.2f}x"

        print(f"{path.name[:27]:<28}{path.stat().st_size / 1e6:6.2f} | {cell(ours)} | {cell(stl)} {speedup(stl)} | "
              f"{cell(old)} {speedup(old)} | {cell(mesher)}")
    print("columns: seconds and triangles; ratio = the other's time / ours (> 1: we are faster)")


if __name__ == "__main__":
    main()
