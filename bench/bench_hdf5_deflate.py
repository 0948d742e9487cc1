#!/usr/bin/env python3
"""Compressed (gzip 4) XDMF and HMF on the tet box: meshio against the meshio++ on the path and
against h5py's read_direct floor, in process CPU time (all threads summed: time.process_time)
beside wall time, for machines too loaded for wall-clock ratios to mean much.

usage: PYTHONPATH=build/X/python python bench/bench_hdf5_deflate.py [--size N] [--repeat R] [--threads T]
  N=56 -> 1,053,696 tets, 185,193 points, a float64 point field and an int32 cell field.
Inputs are written by meshio (h5py's chunk shapes); each cell is the best of R runs in this
process. --threads sets meshio++'s thread count (0: its default). Run it once per build to
compare builds under the same load; the load average is printed before and after.
"""

import argparse
import os
import pathlib
import platform
import subprocess
import tempfile
import time
import warnings

import numpy as np

from bench_hdf5 import h5py_floor
from common import tet_box

FORMATS = {"xdmf": ".xdmf", "hmf": ".hmf"}


def best(repeat, fn):
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return min(cpu), min(wall)


def model_name():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        return next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except Exception:
        return platform.processor()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()

    import meshio

    import meshioplusplus as mio
    from meshioplusplus import _core

    _core.set_thread_count(args.threads)
    points, tets, temperature, material = tet_box(args.size)
    theirs_mesh = meshio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}, cell_data={"m": [material]})
    our_mesh = mio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}, cell_data={"m": [material]})
    print(f"# {len(tets):,} tets / {len(points):,} points, gzip 4; meshio++ {pathlib.Path(mio.__file__).parent}")
    print(f"# {model_name()}, {os.cpu_count()} cores, meshio++ threads {_core.thread_count()}, "
          f"load average before {os.getloadavg()}")
    print("| format | op | meshio CPU | meshio++ CPU | h5py floor CPU | vs meshio (CPU) | vs floor (CPU) "
          "| meshio wall | meshio++ wall | h5py floor wall |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name, extension in FORMATS.items():
            theirs = pathlib.Path(folder) / f"theirs{extension}"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                meshio.write(theirs, theirs_mesh, file_format=name, compression="gzip", compression_opts=4)
                m_read = best(args.repeat, lambda: meshio.read(theirs, file_format=name))
                m_write = best(args.repeat, lambda: meshio.write(f"{folder}/m{extension}", theirs_mesh, file_format=name,
                                                                 compression="gzip", compression_opts=4))
            o_read = best(args.repeat, lambda: mio.read(theirs, file_format=name))
            f_read = best(args.repeat, lambda: h5py_floor(theirs.with_suffix(".h5") if name == "xdmf" else theirs, None))
            o_write = best(args.repeat, lambda: mio.write(f"{folder}/o{extension}", our_mesh, file_format=name,
                                                          compression="gzip", compression_opts=4))
            for op, m, o, f in (("read", m_read, o_read, f_read), ("write", m_write, o_write, None)):
                fc = f"{f[0] * 1e3:.0f} ms" if f else "—"
                fw = f"{f[1] * 1e3:.0f} ms" if f else "—"
                vs_floor = f"{o[0] / f[0]:.2f}x" if f else "—"
                print(f"| {name} | {op} | {m[0] * 1e3:.0f} ms | {o[0] * 1e3:.0f} ms | {fc} | {m[0] / o[0]:.2f}x "
                      f"| {vs_floor} | {m[1] * 1e3:.0f} ms | {o[1] * 1e3:.0f} ms | {fw} |", flush=True)
    print(f"# load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
