#!/usr/bin/env python3
"""OpenFOAM polyMesh cases: meshio++ against VTK's vtkOpenFOAMReader and meshio++ 17.21.

usage: python bench/bench_cfd.py [--repeat N] [--size MESH_SIZE]
  The case is make_bracket.py's bracket (Gmsh, MESH_SIZE 0.02 -> ~975 k tetrahedra plus ~66 k
  boundary triangles, patches 'inlet' and 'walls'; bench/data/bracket/, made when missing),
  written by our OpenFOAM writer as bench/data/openfoam/bracket-{ascii,binary}/ (ignored by
  git). Every measurement runs in a fresh process: meshio++ (this interpreter's package, as
  PYTHONPATH gives it), VTK (internal mesh only, 64-bit floats and labels as read) and 17.21
  (bench/.venv-meshioplusplus-17); best of N in that process. Our write is timed too (the mesh
  read untimed first).
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys

from common import DATA_DIR, OLD_MPP_PYTHON, machine_description

SHARED_TOOLS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "tools"

READ = {
    "meshioplusplus": "import meshioplusplus as m\ndef run(path):\n    x = m.read(path)\n    return sum(len(b.data) for b in x.cells)\n",
    "meshioplusplus17": "import meshioplusplus as m\ndef run(path):\n    x = m.read(path)\n    return sum(len(b.data) for b in x.cells)\n",
    "vtk": ("import vtk\ndef run(path):\n    r = vtk.vtkOpenFOAMReader()\n    r.SetFileName(path)\n    r.Use64BitFloatsOn()\n"
            "    r.UpdateInformation()\n    r.Update()\n    it = r.GetOutput().NewIterator()\n    it.InitTraversal()\n"
            "    return it.GetCurrentDataObject().GetNumberOfCells()\n"),
}
TIMER = """
import json, sys, time
best, cells = float("inf"), None
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    cells = run(sys.argv[1])
    best = min(best, time.perf_counter() - start)
print(json.dumps({"seconds": best, "cells": cells}))
"""
WRITE = """
import json, sys, time, shutil, os
import meshioplusplus as m
mesh = m.read(sys.argv[1])
best = float("inf")
for _ in range(int(sys.argv[3])):
    shutil.rmtree(sys.argv[2], ignore_errors=True)
    os.makedirs(sys.argv[2])
    os.sync()
    start = time.perf_counter()
    m.write(sys.argv[2] + "/bracket.foam", mesh, file_format="openfoam", binary=sys.argv[4] == "binary")
    best = min(best, time.perf_counter() - start)
print(json.dumps({"seconds": best}))
"""


def run(python, code, *args, keep_pythonpath=True, timeout=900):
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    if not keep_pythonpath:
        env.pop("PYTHONPATH", None)
    os.sync()
    try:
        done = subprocess.run([str(python), "-c", code, *map(str, args)], capture_output=True, text=True, env=env,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def shown(result):
    if "error" in result:
        return f"fails ({result['error']})"
    seconds = result["seconds"]
    return f"{seconds * 1e3:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--size", default="0.02")
    parser.add_argument("--timeout", type=int, default=600, help="seconds one measurement may take")
    options = parser.parse_args()
    msh = DATA_DIR / "bracket" / "bracket-4.1-binary.msh"
    if not msh.exists():
        subprocess.run([sys.executable, str(SHARED_TOOLS / "make_bracket.py"), str(msh.parent), options.size], check=True)
    print(f"machine: {machine_description()}")
    rows = []
    for variant in ("ascii", "binary"):
        case = DATA_DIR / "openfoam" / f"bracket-{variant}"
        limit = options.timeout
        write = run(sys.executable, WRITE, msh, case, options.repeat, variant, timeout=limit)
        marker = case / "bracket.foam"
        ours = run(sys.executable, READ["meshioplusplus"] + TIMER, marker, options.repeat, timeout=limit)
        vtk = run(sys.executable, READ["vtk"] + TIMER, marker, options.repeat, keep_pythonpath=False, timeout=limit)
        old = (run(OLD_MPP_PYTHON, READ["meshioplusplus17"] + TIMER, marker, options.repeat, keep_pythonpath=False,
                   timeout=limit)
               if OLD_MPP_PYTHON.exists() else {"error": "17.21 not installed"})
        cells = ours.get("cells")
        rows.append((variant, shown(write), shown(ours), shown(vtk), shown(old), cells, vtk.get("cells")))
    print("| case | our write | our read | vtkOpenFOAMReader | meshio++ 17.21 | cells (ours / VTK) |")
    print("|---|---|---|---|---|---|")
    for variant, write, ours, vtk, old, cells, vtk_cells in rows:
        print(f"| bracket {variant} | {write} | {ours} | {vtk} | {old} | {cells} / {vtk_cells} |")


if __name__ == "__main__":
    main()
