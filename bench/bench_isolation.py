"""Overhead of ``read(path, isolate=True)`` against an in-process read (docs/isolation.md).

    PYTHONPATH=build/<dir>/python python bench/bench_isolation.py [--repeat 25]

Small files: the reused worker, median per read. Large: the 1 M-tet bracket (made by
../shared/tools/make_bracket.py into bench/data/bracket/) written by our writer as raw binary
VTU and as VTKHDF into bench/data/isolation/, median of alternating reads; also with a first
pass over every array (the caller's first touch of the shared pages) and the bytes that came
back copied (0: the arrays are the worker's shared memory, mapped here).
"""

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

import meshioplusplus as mio
from meshioplusplus import _isolation

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import machine_description  # noqa: E402

BENCH = pathlib.Path(__file__).resolve().parent
REPO = BENCH.parent
SMALL = [REPO / "tests/data/corpus/exodus/box-noglom.ex2", REPO / "tests/data/corpus/med/box.med",
         REPO / "tests/data/corpus/gmsh/insulated-4.1.msh", REPO / "tests/data/corpus/vtk_xml/vase.vti"]
BRACKET = BENCH / "data" / "bracket" / "bracket-4.1-binary.msh"
OUT = BENCH / "data" / "isolation"


def _touch(mesh):
    total = float(np.asarray(mesh.points).sum())
    for block in mesh.cells:
        total += float(np.asarray(block.data).sum())
    return total


def _time(function, repeat):
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _pair(path, repeat, touch=False, best=False):
    """Median (or best) in-process and isolated times, alternating so both see the same page
    cache. Each read's arrays die before the next: its pages go back to the worker."""
    inside, isolated = [], []
    for _ in range(repeat):
        for isolate, samples in ((False, inside), (True, isolated)):
            start = time.perf_counter()
            mesh = mio.read(path, isolate=isolate)
            if touch:
                _touch(mesh)
            samples.append(time.perf_counter() - start)
            del mesh
    pick = min if best else statistics.median
    return pick(inside), pick(isolated)


def _fresh_memory_pair(path, repeat):
    """Best in-process and isolated times when every read's memory is fresh: the results are
    kept alive, so neither the heap nor the worker can hand a dead read's pages to the next.
    (The alternating pairs above let both reuse them.)"""
    inside, isolated = [], []
    for isolate, samples in ((False, inside), (True, isolated)):
        kept = []
        for _ in range(repeat):
            start = time.perf_counter()
            kept.append(mio.read(path, isolate=isolate))
            samples.append(time.perf_counter() - start)
        del kept
    return min(inside), min(isolated)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=25)
    args = parser.parse_args()
    print(machine_description())
    mio.read(SMALL[0], isolate=True)  # start the worker
    print("small files (reused worker), median ms per read:")
    for path in SMALL:
        if not path.exists():
            continue
        inside, isolated = _pair(path, max(args.repeat, 30))
        print(f"  {path.name:28s} in-process {inside * 1e3:7.2f}  isolated {isolated * 1e3:7.2f}  "
              f"overhead {(isolated - inside) * 1e3:+.2f} ms")
    if not BRACKET.exists():
        print(f"no {BRACKET}: run ../shared/tools/make_bracket.py {BRACKET.parent} 0.02")
        return
    OUT.mkdir(parents=True, exist_ok=True)
    targets = {"bracket-binary.vtu": {"binary": True, "compression": None}, "bracket.vtkhdf": {}}
    mesh = None
    for name, options in targets.items():
        if not (OUT / name).exists():
            mesh = mesh or mio.read(BRACKET)
            mio.write(OUT / name, mesh, **options)
    del mesh
    for name in targets:
        path = OUT / name
        cells = sum(len(block) for block in mio.read(path).cells)
        before = _isolation.stats()
        inside, isolated = _pair(path, args.repeat)
        after = _isolation.stats()
        reads = after["reads"] - before["reads"]
        copied = (after["bytes_copied"] - before["bytes_copied"]) / reads
        shared = (after["bytes_shared"] - before["bytes_shared"]) / reads
        kept = after["reads_into_kept_pages"] - before["reads_into_kept_pages"]
        print(f"{name} ({cells} cells, {path.stat().st_size / 1e6:.0f} MB): in-process {inside * 1e3:.1f} ms, "
              f"isolated {isolated * 1e3:.1f} ms ({(isolated / inside - 1) * 100:+.1f} %); per read "
              f"{shared / 1e6:.1f} MB shared, {copied:.0f} B copied; {kept} of {reads} reads into kept pages")
        inside, isolated = _pair(path, args.repeat, best=True)
        print(f"  best of {args.repeat}: in-process {inside * 1e3:.1f} ms, isolated {isolated * 1e3:.1f} ms "
              f"({(isolated / inside - 1) * 100:+.1f} %)")
        inside, isolated = _fresh_memory_pair(path, min(args.repeat, 4))
        print(f"  fresh memory each read (results kept), best: in-process {inside * 1e3:.1f} ms, isolated "
              f"{isolated * 1e3:.1f} ms ({(isolated / inside - 1) * 100:+.1f} %)")
        inside, isolated = _pair(path, args.repeat, touch=True)
        print(f"  read + first pass over the arrays: in-process {inside * 1e3:.1f} ms, isolated "
              f"{isolated * 1e3:.1f} ms ({(isolated / inside - 1) * 100:+.1f} %)")


if __name__ == "__main__":
    main()
