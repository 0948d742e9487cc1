#!/usr/bin/env python3
"""Issue 36: every text reader against the number-parsing floor (bench/floor.py), in one run.

usage: python bench/floor_text_rows.py [--only NAME[,NAME…]] [--size N] [--sheet N] [--before DIR] [--after DIR]
  Inputs are bench_formats.py's (meshio / Gmsh writes them once, into bench/data). Each read is
  the best of 3 in a fresh process (bench/_worker.py), at every core and at 1 thread; the floor
  is the best of 3 of bench/floor/text_floor.cpp on the same file at every core. --before and
  --after name folders holding two builds of meshioplusplus (a before/after of one change, in
  one run); without them the build on the default path is timed.
"""

import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_formats import SURFACE, VOLUME, write_inputs  # noqa: E402
from _worker import input_bytes  # noqa: E402
from common import machine_description, run_worker  # noqa: E402
from floor import floor_seconds  # noqa: E402

TEXT_ROWS = ["msh41-ascii", "msh22-ascii", "medit-ascii", "abaqus", "nastran", "su2", "ugrid-ascii", "tetgen", "avsucd",
             "tecplot", "dolfin", "flac3d-ascii", "mdpa", "permas", "netgen", "stl-ascii", "ply-ascii", "obj", "off"]


def best_read(variant, path, package_dir, threads=None):
    result = run_worker(sys.executable, "meshioplusplus", "read", variant, path, 3, threads=threads,
                        package_dir=package_dir)
    return None if "error" in result else result["seconds"]


def cell(seconds, floor):
    return "fails | —" if seconds is None else f"{seconds * 1e3:.0f} | {seconds / floor:.2f}×"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--sheet", type=int, default=710)
    parser.add_argument("--before", default=None)
    parser.add_argument("--after", default=None)
    args = parser.parse_args()
    chosen = args.only.split(",") if args.only else []
    rows = [v for v in TEXT_ROWS if not chosen or v in chosen or v.split("-")[0] in chosen]
    paths = write_inputs(rows, args.size, args.sheet)
    builds = [(name, folder) for name, folder in (("before", args.before), ("after", args.after)) if folder]
    builds = builds or [("ours", None)]
    print(f"# text reads vs the floor — volume {6 * args.size ** 3:,} tets, surface {2 * args.sheet ** 2:,} triangles")
    print(f"# {machine_description()}, {datetime.date.today()}, load at start {os.getloadavg()}")
    header = " | ".join(f"{name} ms | {name} / floor | {name} 1 thread ms" for name, _ in builds)
    print(f"| variant | MB | floor ms | {header} |")
    print("|---|---|---|" + "---|---|---|" * len(builds))
    for variant in rows:
        path = paths[variant]
        floor = floor_seconds(path)
        if str(path).endswith(".node"):  # TetGen's read parses the .ele beside the .node too
            floor += floor_seconds(str(path)[: -len(".node")] + ".ele")
        parts = []
        for _, folder in builds:
            every_core = best_read(variant, path, folder)
            one_thread = best_read(variant, path, folder, threads=1)
            parts.append(f"{cell(every_core, floor)} | " + ("fails" if one_thread is None else f"{one_thread * 1e3:.0f}"))
        print(f"| {variant} | {input_bytes(str(path)) / 1e6:.0f} | {floor * 1e3:.0f} | {' | '.join(parts)} |", flush=True)
    print(f"# load at end {os.getloadavg()}")


if __name__ == "__main__":
    assert set(TEXT_ROWS) <= set(VOLUME + SURFACE)
    main()
