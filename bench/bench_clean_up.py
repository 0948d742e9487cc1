#!/usr/bin/env python3
"""Clean-up operations (docs/clean-up.md): meshio++ against meshio++ 17.21 (its own venv, a
subprocess: same import name) and PyVista's VTK filters, on the same ≥ 1 M-tetrahedron mesh
(common.tet_box), best of N wall-clock seconds in one run, the CPU model and load printed
beside the table.

    python bench/bench_clean_up.py [--cubes 56] [--repeat 3]

Operations: extract_surface (17.21 `extract_surface`, VTK `extract_surface`), merge_points on the
mesh with every tetrahedron given points of its own (17.21 `clean(weld=True)`, VTK `clean`),
remove_orphaned_nodes on the mesh plus as many unused points (17.21 `clean(remove_orphans=True)`),
transform by an affine matrix (17.21 `transform(matrix=)`, VTK `transform`), crop to the box
[0.2, 0.8]³ keeping the cells with all corners inside (17.21 `crop(bbox=, mode="all")`, VTK
`extract_points(adjacent_cells=False)` of the points inside, found with numpy in the timing),
merge of the mesh and a copy, no welding (17.21 `merge(weld=False)`, VTK `pyvista.merge(merge_points=False)`),
split by cell type of the tetrahedra plus their surface triangles (17.21 `split(by="type")`), check
(inverted, degenerate, duplicate cells, unused points, non-manifold facets; 17.21's nearest is
`clean(drop_degenerate=True, drop_duplicate_cells=True, return_report=True)`).

Like for like? crop, split and merge_points give the same meshes in both (points, cells, data:
checked on tet_box(20), session 23). check does not: 17.21's `clean` finds degenerate (a repeated
corner or a near-zero volume, so it computes the volumes as ours does) and duplicate cells and
builds a new mesh; ours finds those, the inverted cells (from the same volumes) and unused points,
and the non-manifold facets — a count of all 4 M facets, the work of extract_surface, which
17.21's `clean` does not do. The row `check+surface` times 17.21's `clean` plus its
`extract_surface` (which counts the facets) against the same check of ours: the nearer measure
of like work, though 17.21 then builds two meshes where ours builds none.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import OLD_MPP_PYTHON, machine_description, tet_box  # noqa: E402

MATRIX = np.array([[0.0, -1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 2.0], [0.0, 0.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0]])

# Builds the inputs the same way in both interpreters (ours here, 17.21 in its venv).
SETUP = """
import numpy as np, sys, time, json
sys.path.insert(0, {bench!r})
from common import tet_box
import meshioplusplus as mio
points, tets, temperature, material = tet_box({cubes})
def whole():
    return mio.Mesh(points, [("tetra", tets)], point_data={{"T": temperature}}, cell_data={{"m": [material]}})
def exploded():
    return mio.Mesh(points[tets.ravel()], [("tetra", np.arange(tets.size).reshape(tets.shape))])
def with_orphans():
    return mio.Mesh(np.vstack([points, points + 2.0]), [("tetra", tets)])
def two_types():
    return mio.Mesh(points, [("tetra", tets), ("triangle", tets[: len(tets) // 4, :3])])
LOW, HIGH = np.full(3, 0.2), np.full(3, 0.8)
def best(make, run, repeat):
    times = []
    for _ in range(repeat):
        mesh = make()
        start = time.perf_counter()
        run(mesh)
        times.append(time.perf_counter() - start)
    return min(times)
"""

OURS = {
    "extract_surface": ("whole", "lambda m: mio.extract_surface(m)"),
    "merge_points": ("exploded", "lambda m: m.merge_points(1e-8)"),
    "remove_orphaned_nodes": ("with_orphans", "lambda m: m.remove_orphaned_nodes()"),
    "transform": ("whole", "lambda m: m.transform(MATRIX)"),
    "crop": ("whole", "lambda m: mio.crop(m, LOW, HIGH, mode='all')"),
    "merge": ("whole", "lambda m: mio.merge([m, m])"),
    "split": ("two_types", "lambda m: mio.split(m, by='type')"),
    "check": ("whole", "lambda m: mio.check(m)"),
    "check+surface": ("whole", "lambda m: mio.check(m)"),
}
OLD = {
    "extract_surface": ("whole", "lambda m: mio.extract_surface(m)"),
    "merge_points": ("exploded", "lambda m: mio.clean(m, weld=True, atol=1e-8, remove_orphans=False, "
                                 "drop_degenerate=False, drop_duplicate_cells=False)"),
    "remove_orphaned_nodes": ("with_orphans", "lambda m: mio.clean(m, weld=False, remove_orphans=True, "
                                              "drop_degenerate=False, drop_duplicate_cells=False)"),
    "transform": ("whole", "lambda m: mio.transform(m, matrix=MATRIX)"),
    "crop": ("whole", "lambda m: mio.crop(m, bbox=(LOW, HIGH), mode='all')"),
    "merge": ("whole", "lambda m: mio.merge([m, m], weld=False)"),
    "split": ("two_types", "lambda m: mio.split(m, by='type')"),
    "check": ("whole", "lambda m: mio.clean(m, weld=False, remove_orphans=False, drop_degenerate=True, "
                       "drop_duplicate_cells=True, return_report=True)"),
    "check+surface": ("whole", "lambda m: (mio.clean(m, weld=False, remove_orphans=False, drop_degenerate=True, "
                               "drop_duplicate_cells=True, return_report=True), mio.extract_surface(m))"),
}
VTK = {
    "extract_surface": ("whole", "lambda g: g.extract_surface(algorithm='dataset_surface')"),
    "merge_points": ("exploded", "lambda g: g.clean(tolerance=1e-8, produce_merge_map=False, average_point_data=False)"),
    "remove_orphaned_nodes": None,  # VTK's clean always merges too: no like-for-like filter
    "transform": ("whole", "lambda g: g.transform(MATRIX, inplace=True)"),
    "crop": ("whole", "lambda g: g.extract_points(np.flatnonzero(np.all((g.points >= LOW) & (g.points <= HIGH), axis=1)), "
                      "adjacent_cells=False)"),
    "merge": ("whole", "lambda g: pv.merge([g, g], merge_points=False)"),
    "split": None,  # no one-filter equivalent (a threshold per type)
    "check": None,  # no one-filter equivalent
    "check+surface": None,
}


def _program(cubes, table, repeat, pyvista=False):
    lines = [SETUP.format(bench=os.path.dirname(os.path.abspath(__file__)), cubes=cubes),
             f"MATRIX = np.array({MATRIX.tolist()!r})", "out = {}"]
    if pyvista:
        lines.append("import pyvista as pv")
    for name, entry in table.items():
        if entry is None:
            continue
        make, run = entry
        maker = f"(lambda: pv.from_meshio({make}()))" if pyvista else make
        lines.append(f"out[{name!r}] = best({maker}, {run}, {repeat})")
    lines.append("print(json.dumps(out))")
    return "\n".join(lines)


def _run(python, program, package_path=None):
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if package_path:  # ours from a source tree (a dev build): 17.21's venv must not see it
        env["PYTHONPATH"] = package_path
    result = subprocess.run([str(python), "-c", program], capture_output=True, text=True, timeout=3600, env=env)
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1] if result.stderr.strip() else f"rc {result.returncode}"}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cubes", type=int, default=56, help="tet_box size (56: 1.05 M tetrahedra)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {machine_description()}; load {os.getloadavg()[0]:.1f}; "
          f"{6 * args.cubes ** 3:,} tetrahedra, {(args.cubes + 1) ** 3:,} points; best of {args.repeat}")
    ours_path = os.environ.get("PYTHONPATH")
    ours = _run(sys.executable, _program(args.cubes, OURS, args.repeat), ours_path)
    old = _run(OLD_MPP_PYTHON, _program(args.cubes, OLD, args.repeat)) if OLD_MPP_PYTHON.exists() else {"error": "no 17.21 venv"}
    vtk = _run(sys.executable, _program(args.cubes, VTK, args.repeat, pyvista=True), ours_path)
    print(f"{'operation':<24}{'meshio++ s':>12}{'17.21 s':>12}{'x 17.21':>9}{'VTK s':>10}{'x VTK':>8}")
    for name in OURS:
        mine = ours.get(name)
        theirs, filt = old.get(name), vtk.get(name)
        cell = lambda t: f"{t:.3f}" if isinstance(t, float) else "-"
        times = lambda t: f"{t / mine:.1f}" if isinstance(t, float) and isinstance(mine, float) else "-"
        print(f"{name:<24}{cell(mine):>12}{cell(theirs):>12}{times(theirs):>9}{cell(filt):>10}{times(filt):>8}")
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    for label, result in (("meshio++", ours), ("17.21", old), ("VTK", vtk)):
        if "error" in result:
            print(f"{label}: {result['error']}")


if __name__ == "__main__":
    main()
