#!/usr/bin/env python3
"""Issue 36 / 32: the text writers (issue 36's list and the FE decks of issue 32) against the
number-formatting floor and meshio++ 17.21, in one run.

usage: python bench/floor_text_writers.py [--only NAME[,NAME…]] [--size N] [--package-dir DIR]
  Inputs are bench_formats.py's (bench/data, written once). Each write is the best of 3 in a
  fresh process (bench/_worker.py); 17.21 writes once (its own venv). The floor
  (bench/floor/text_write_floor.cpp, bench/floor.py) prints the numbers of the file our writer
  wrote again with std::to_chars on every core and writes them (best of 3); for a writer that
  writes several files (Elmer's folder, TetGen's .node and .ele) the floors of its files are added.
"""

import argparse
import datetime
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_formats import input_path, write_inputs, VOLUME, SURFACE  # noqa: E402
from _worker import OUR_WRITE_OPTIONS, extension_of  # noqa: E402
from common import OLD_MPP_PYTHON, format_seconds, machine_description, run_worker  # noqa: E402
from floor import write_floor_seconds  # noqa: E402

# Issue 36's text formats, then issue 32's FE decks; named as bench/_worker.py names them.
WRITER_ROWS = ["msh22-ascii", "msh41-ascii", "vtu-ascii", "vtk-ascii", "abaqus", "nastran", "su2", "medit-ascii",
               "stl-ascii", "obj", "off", "ply-ascii", "avsucd", "tetgen", "ugrid-ascii", "tecplot", "mdpa", "permas",
               "netgen", "flac3d-ascii", "dolfin",
               "ansys_cdb", "unv", "femap", "patran", "febio", "elmer", "z88"]
# Rows bench_formats.py has no input for: they write the tet box read from another row's input.
INPUT_OF = {"vtu-ascii": "medit-ascii", "vtk-ascii": "medit-ascii"}


def written_by_us(variant, path, target, package_dir):
    """Writes `path`'s mesh as `variant` to `target` with our build (a fresh process)."""
    file_format, kwargs = OUR_WRITE_OPTIONS[variant]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    if package_dir:
        env["PYTHONPATH"] = str(package_dir)
    code = ("import sys, meshioplusplus as m; m.write(sys.argv[2], m.read(sys.argv[1]), file_format=sys.argv[3], "
            f"**{kwargs!r})")
    subprocess.run([sys.executable, "-c", code, str(path), str(target), file_format], env=env, check=True)


def floor_of(folder, scratch):
    """The floors of every file the writer wrote into `folder` (its own, empty before), added."""
    files = sorted(p for p in pathlib.Path(folder).rglob("*") if p.is_file())
    return sum(write_floor_seconds(f, scratch) for f in files)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--package-dir", default=None)
    args = parser.parse_args()
    variants = [v for v in WRITER_ROWS if not args.only or v in args.only.split(",")]
    known = set(VOLUME + SURFACE)
    inputs = sorted({INPUT_OF.get(v, v) for v in variants})
    paths = write_inputs([v for v in inputs if v in known], args.size, 710)
    print(f"# text writers vs the to_chars floor and meshio++ 17.21 — {machine_description()}, {datetime.date.today()}, "
          f"load {os.getloadavg()[0]:.1f}")
    print("| variant | ours | 17.21 | 17.21 / ours | floor | ours / floor |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(dir=pathlib.Path(__file__).resolve().parent / "data") as scratch_dir:
        for variant in variants:
            source = INPUT_OF.get(variant, variant)
            path = paths.get(source, input_path(source, args.size))
            ours = run_worker(sys.executable, "meshioplusplus", "write", variant, path, 3, package_dir=args.package_dir)
            old = run_worker(OLD_MPP_PYTHON, "meshioplusplus17", "write", variant, path, 1) if OLD_MPP_PYTHON.exists() else None
            folder = pathlib.Path(scratch_dir) / variant
            folder.mkdir()
            target = folder / f"written.{extension_of(variant)}"
            written_by_us(variant, path, target, args.package_dir)
            floor = floor_of(folder, pathlib.Path(scratch_dir) / "floor.out")
            timed = "seconds" in ours
            versus_old = f"{old['seconds'] / ours['seconds']:.1f}×" if timed and old and "seconds" in old else "—"
            versus_floor = f"{ours['seconds'] / floor:.1f}×" if timed and floor > 0 else "—"
            print(f"| {variant} | {format_seconds(ours)} | {format_seconds(old)} | {versus_old} | {floor * 1e3:.0f} ms | "
                  f"{versus_floor} |", flush=True)
    print(f"# load after: {os.getloadavg()[0]:.1f} (1-minute average; other jobs on the machine count)")


if __name__ == "__main__":
    main()
