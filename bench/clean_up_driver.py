#!/usr/bin/env python3
"""extract_surface / merge_points outside the bench table: for a profiler (perf record -g) and
for comparing two builds' outputs bit for bit.

    python bench/clean_up_driver.py profile OP [--cubes 56] [--times 5]
    python bench/clean_up_driver.py dump OUT.npz [--cubes 56]   # then compare two dumps
    (extract_surface, merge_points at several tolerances, check, split by type)
    python bench/clean_up_driver.py compare A.npz B.npz
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import tet_box  # noqa: E402


def cases(cubes):
    import meshioplusplus as mio

    points, tets, temperature, material = tet_box(cubes)
    whole = lambda: mio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}, cell_data={"m": [material]})
    exploded_points = points[tets.ravel()]
    exploded = lambda: mio.Mesh(exploded_points, [("tetra", np.arange(tets.size).reshape(tets.shape))])
    rng = np.random.default_rng(5)
    jitter = exploded_points + rng.uniform(-1e-3, 1e-3, exploded_points.shape)
    jittered = lambda: mio.Mesh(jitter, [("tetra", np.arange(tets.size).reshape(tets.shape))])
    # two blocks of tets (split), a hexahedron block, cell data on every block
    half = len(tets) // 3
    split = lambda: mio.Mesh(points, [("tetra", tets[:half]), ("tetra", tets[half:])],
                             cell_data={"m": [material[:half], material[half:]]})
    cloud = rng.integers(0, 40, (300000, 2)).astype(np.float64) * 0.5
    flat = lambda: mio.Mesh(cloud, [("vertex", np.arange(len(cloud)).reshape(-1, 1))])
    f32 = lambda: mio.Mesh(jitter.astype(np.float32), [("tetra", np.arange(tets.size).reshape(tets.shape))])
    n = cubes // 2 + 1  # hexahedra (quad facets) beside a wedge block
    g = np.arange(n ** 3).reshape(n, n, n)
    c = g[:-1, :-1, :-1].ravel()
    hexes = np.column_stack([c, c + n * n, c + n * n + n, c + n, c + 1, c + n * n + 1, c + n * n + n + 1, c + n + 1])
    axis = np.linspace(0.0, 1.0, n)
    hex_points = np.column_stack([a.ravel() for a in np.meshgrid(axis, axis, axis, indexing="ij")])
    wedges = hexes[: len(hexes) // 4][:, [0, 1, 2, 4, 5, 6]]
    hexed = lambda: mio.Mesh(hex_points, [("hexahedron", hexes[len(hexes) // 4:]), ("wedge", wedges)],
                             cell_data={"m": [np.arange(len(hexes) - len(hexes) // 4), np.arange(len(wedges)) * 2]})
    return {"hexed": hexed, "whole": whole, "exploded": exploded, "jittered": jittered, "split": split, "flat": flat, "f32": f32}


def flatten(prefix, mesh, out):
    out[prefix + "points"] = np.asarray(mesh.points)
    for i, block in enumerate(mesh.cells):
        out[f"{prefix}cells{i}_{block.type}"] = np.asarray(block.data)
    for name, arrays in mesh.cell_data.items():
        for i, array in enumerate(arrays):
            out[f"{prefix}cd_{name}_{i}"] = np.asarray(array)
    for name, array in mesh.point_data.items():
        out[f"{prefix}pd_{name}"] = np.asarray(array)


def dump(path, cubes):
    import meshioplusplus as mio

    made = cases(cubes)
    out = {}
    for name in ("whole", "split", "hexed", "exploded"):
        flatten(f"surface_{name}_", mio.extract_surface(made[name]()), out)
    for name, tol in (("exploded", 1e-8), ("exploded", 0.0), ("jittered", 2e-3), ("jittered", 1e-2),
                      ("flat", 0.0), ("flat", 0.6), ("f32", 2e-3), ("whole", 1e-8)):
        mesh = made[name]()
        removed = mesh.merge_points(tol)
        out[f"merge_{name}_{tol}_removed"] = np.array(removed)
        flatten(f"merge_{name}_{tol}_", mesh, out)
    def half_twice(mesh):  # the first half of the first block again: duplicates, non-manifold facets
        first = mesh.cells[0]
        mesh.cells.append(type(first)(first.type, np.asarray(first.data)[: len(first.data) // 2]))
        mesh.cell_data = {}
        return mesh

    for name in ("whole", "split", "hexed", "exploded"):  # check()
        for label, mesh in ((name, made[name]()), (f"{name}_twice", half_twice(made[name]()))):
            found = mio.check(mesh)
            for field in found._fields:
                out[f"check_{label}_{field}"] = np.asarray(getattr(found, field))
    two_types = made["whole"]()  # split by type: the tetrahedra and triangles on a quarter of them
    two_types.cells.append(type(two_types.cells[0])("triangle", np.asarray(two_types.cells[0].data)[: len(two_types.cells[0].data) // 4, :3]))
    two_types.cell_data = {}
    for cell_type, part in mio.split(two_types, by="type").items():
        flatten(f"split_{cell_type}_", part, out)
    np.savez(path, **out)
    print(path, len(out), "arrays")


def compare(a, b):
    x, y = np.load(a), np.load(b)
    bad = sorted(set(x.files) ^ set(y.files))
    for key in sorted(set(x.files) & set(y.files)):
        if x[key].dtype != y[key].dtype or x[key].shape != y[key].shape or x[key].tobytes() != y[key].tobytes():
            bad.append(key)
    print("identical" if not bad else f"DIFFERENT: {bad}", f"({len(x.files)} arrays)")
    return 1 if bad else 0


def profile(op, cubes, times):
    import meshioplusplus as mio

    made = cases(cubes)
    for _ in range(times):
        mesh = made["whole" if op == "extract_surface" else "exploded"]()
        start = time.perf_counter()
        mio.extract_surface(mesh) if op == "extract_surface" else mesh.merge_points(1e-8)
        print(f"{op} {time.perf_counter() - start:.3f} s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["profile", "dump", "compare"])
    parser.add_argument("args", nargs="+")
    parser.add_argument("--cubes", type=int, default=56)
    parser.add_argument("--times", type=int, default=5)
    o = parser.parse_args()
    if o.mode == "profile":
        profile(o.args[0], o.cubes, o.times)
    elif o.mode == "dump":
        dump(o.args[0], o.cubes)
    else:
        sys.exit(compare(*o.args))


if __name__ == "__main__":
    main()
