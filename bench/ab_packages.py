#!/usr/bin/env python3
"""Before/after of one change in one run: two builds of meshioplusplus (each a folder holding a
``meshioplusplus`` package with its ``_core`` extension), the same files, interleaved fresh
worker processes, best of N each; prints the medians and the after/before ratio per row.

usage: python bench/ab_packages.py BEFORE_DIR AFTER_DIR [--rounds N] [--repeat R] [--size N]
  Rows: MSH 4.1 binary and 2.2 ASCII, VTU (zlib base64 and raw appended), VTKHDF and XDMF
  (HDF5), read and write, on the tet box of common.tet_box (N=56: 1,053,696 tets).
"""

import argparse
import datetime
import statistics
import sys

from common import DATA_DIR, format_seconds, machine_description, run_worker, tet_box

ROWS = [("msh41-binary", "msh"), ("msh22-ascii", "msh"), ("vtu-zlib", "vtu"), ("vtu-raw", "vtu"),
        ("vtkhdf", "vtkhdf"), ("xdmf", "xdmf")]
WRITE_OPTIONS = {"msh41-binary": {"fmt_version": "4.1", "binary": True},
                 "msh22-ascii": {"fmt_version": "2.2", "binary": False},
                 "vtu-zlib": {"binary": True, "compression": "zlib"},
                 "vtu-raw": {"binary": True, "compression": None, "appended": True},
                 "vtkhdf": {}, "xdmf": {}}


def inputs(size, package_dir):
    sys.path.insert(0, package_dir)  # the inputs are written once, by the "after" build
    import meshioplusplus as mio

    points, tets, temperature, material = tet_box(size)
    mesh = mio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}, cell_data={"material": [material]})
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    paths = {}
    for variant, extension in ROWS:
        path = DATA_DIR / f"ab-{variant}-{size}.{extension}"
        if not path.exists():
            mio.write(path, mesh, **WRITE_OPTIONS[variant])
        paths[variant] = path
    return paths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=5, help="worker processes per build and row")
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per worker (best kept)")
    parser.add_argument("--size", type=int, default=56)
    args = parser.parse_args()
    paths = inputs(args.size, args.after)
    builds = {"before": args.before, "after": args.after}
    print(f"# A/B of two meshioplusplus builds — {datetime.date.today()}, {machine_description()}")
    print(f"# before: {args.before}\n# after:  {args.after}")
    print(f"# {args.rounds} interleaved worker processes per build and row, best of {args.repeat} calls each; medians")
    print(f"{'row':<24}{'before':>10}{'after':>10}{'after/before':>14}")
    for variant, _ in ROWS:
        for operation in ("read", "write"):
            times = {name: [] for name in builds}
            for _ in range(args.rounds):
                for name, folder in builds.items():
                    result = run_worker(sys.executable, "meshioplusplus", operation, variant, paths[variant],
                                        args.repeat, package_dir=folder)
                    if "error" in result:
                        raise SystemExit(f"{name} {operation} {variant}: {result['error']}")
                    times[name].append(result["seconds"])
            before, after = (statistics.median(times[name]) for name in builds)
            print(f"{operation + ' ' + variant:<24}{format_seconds({'seconds': before}):>10}"
                  f"{format_seconds({'seconds': after}):>10}"
                  f"{after / before:>14.2f}")


if __name__ == "__main__":
    main()
