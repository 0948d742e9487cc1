#!/usr/bin/env python3
"""Partitioned I/O scaling: collective write and partitioned read of a >= 10 M-cell tet mesh on
1, 2 and 4 MPI ranks, for PVTU and partitioned VTKHDF (docs/parallel.md, "Scaling").

    python bench/parallel.py                      # 120^3 cubes x 6 = 10.4 M tets, ranks 1 2 4
    python bench/parallel.py --cubes 60 --ranks 1 2   # quick run (1.3 M tets)

The mesh is bench/common.py's tet_box (a unit cube of cubes**3 Kuhn-split cubes, 6 tets each,
a float64 point field and an int32 cell field). With N ranks it is cut into N slabs along x:
every rank builds its own slab (untimed, no disk), with the global point and cell numbers of the
whole box as ``global_ids``, so no rank ever holds the whole mesh. Then, per format and rank
count, under ``mpirun -n N``:

  write: barrier, ``mio.write(path, slab, comm=comm)`` (collective), barrier  -> wall time
  read:  barrier, ``mio.read(path, comm=comm)`` (this rank's share), barrier   -> wall time

Times are the slowest rank's (barrier to barrier), best of --repeat. The table gives the
scaling t1/tN and the bytes each rank read (``_parallel.bytes_read``: the reader's own
accounting). The files go to bench/data/parallel/ (git-ignored) and are removed afterwards
unless --keep. The read follows the write, so it reads from the page cache (no cache drop: it
needs privileges we do not have); it measures parsing + copying, not the disk.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import DATA_DIR, machine_description  # noqa: E402

KUHN = [(0, 4, 6, 7), (0, 4, 5, 7), (0, 1, 5, 7), (0, 1, 3, 7), (0, 2, 3, 7), (0, 2, 6, 7)]


def box_slab(cubes, size, rank):
    """Rank ``rank``'s slab of the tet_box(cubes) mesh cut into ``size`` slabs along x, with the
    whole box's numbers as global_ids (same point/cell numbering as common.tet_box)."""
    import meshioplusplus as mio

    n = cubes + 1
    i0, i1 = rank * cubes // size, (rank + 1) * cubes // size  # cube layers [i0, i1)
    axis = np.linspace(0.0, 1.0, n)
    x, y, z = np.meshgrid(axis[i0:i1 + 1], axis, axis, indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    point_ids = (np.arange(i0 * n * n, (i1 + 1) * n * n)).astype(np.int64)
    i, j, k = np.meshgrid(np.arange(i1 - i0), np.arange(cubes), np.arange(cubes), indexing="ij")
    base = (i * n * n + j * n + k).ravel()
    corner = [base + di * n * n + dj * n + dk for di in (0, 1) for dj in (0, 1) for dk in (0, 1)]
    tets = np.concatenate([np.column_stack([corner[a], corner[b], corner[c], corner[d]]) for a, b, c, d in KUHN])
    cube_ids = ((i + i0) * cubes * cubes + j * cubes + k).ravel()
    cell_ids = np.concatenate([cube_ids + q * cubes ** 3 for q in range(len(KUHN))]).astype(np.int64)
    temperature = np.sin(points[:, 0] * 3.0) + points[:, 1] ** 2
    material = (cell_ids % 7).astype(np.int32)
    return mio.Mesh(points, [mio.CellBlock("tetra", tets.astype(np.int64))],
                    point_data={"temperature": temperature, "global_ids": point_ids},
                    cell_data={"material": [material], "global_ids": [cell_ids]})


def worker(args):
    """One mpirun: write then read one format on this communicator; rank 0 prints JSON."""
    from mpi4py import MPI

    import meshioplusplus as mio
    from meshioplusplus import _parallel

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    slab = box_slab(args.cubes, size, rank)
    options = {"compression": None} if args.format == "pvtu" else {}  # xdmf, vtkhdf: defaults
    target = os.path.join(args.folder, f"box{size}.{args.format}")
    writes, reads = [], []
    cells = bytes_read = files = 0
    for _ in range(args.repeat):
        comm.Barrier()
        start = MPI.Wtime()
        mio.write(target, slab, comm=comm, **options)
        comm.Barrier()
        writes.append(MPI.Wtime() - start)
        comm.Barrier()
        start = MPI.Wtime()
        piece = mio.read(target, comm=comm)
        comm.Barrier()
        reads.append(MPI.Wtime() - start)
        cells = sum(len(b) for b in piece.cells)
        bytes_read, files = _parallel.bytes_read, len(_parallel.files_read)
        del piece
    per_rank = comm.gather({"cells": cells, "bytes_read": bytes_read, "files_read": files}, root=0)
    if rank == 0:
        written = sum(os.path.getsize(os.path.join(root, f))
                      for root, _, names in os.walk(args.folder) for f in names
                      if f.startswith(f"box{size}"))
        print("RESULT " + json.dumps({"format": args.format, "ranks": size, "write": min(writes),
                                      "read": min(reads), "per_rank": per_rank, "bytes_written": written}))


def run_one(args, fmt, ranks, folder):
    mpirun = shutil.which("mpirun")
    command = [mpirun, "-n", str(ranks), "--oversubscribe", "--bind-to", "none"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    command += [sys.executable, os.path.abspath(__file__), "--worker", "--format", fmt, "--cubes", str(args.cubes),
                "--repeat", str(args.repeat), "--folder", folder]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    os.sync()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=args.timeout)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"format": fmt, "ranks": ranks, "error": (done.stdout + done.stderr)[-2000:]}


def mib(count):
    return f"{count / 2 ** 20:.0f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cubes", type=int, default=120, help="cubes per side (cells = 6 * cubes**3)")
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--formats", nargs="+", default=["pvtu", "vtkhdf"], choices=["pvtu", "vtkhdf", "xdmf"],
                        help="formats to time (xdmf: the spatial-collection layout, not in the default run)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=1800)
    parser.add_argument("--keep", action="store_true", help="keep the written files")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--format", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)

    folder = str(DATA_DIR / "parallel")
    os.makedirs(folder, exist_ok=True)
    cells = 6 * args.cubes ** 3
    points = (args.cubes + 1) ** 3
    print(f"# partitioned I/O: tet_box({args.cubes}) = {cells:,} tets, {points:,} points "
          f"(slabs along x, one per rank; PVTU uncompressed, VTKHDF and XDMF (gzip 4) with their defaults)")
    print(f"# machine: {machine_description()}")
    print(f"# date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    results = []
    for fmt in args.formats:
        for ranks in args.ranks:
            result = run_one(args, fmt, ranks, folder)
            result["load"] = os.getloadavg()[0]
            results.append(result)
            if "error" in result:
                print(f"# {fmt} on {ranks} ranks failed:\n{result['error']}", file=sys.stderr)
            if not args.keep:
                for name in os.listdir(folder):
                    path = os.path.join(folder, name)
                    shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    print()
    print("| format | ranks | write s | write t1/tN | read s | read t1/tN | MiB written | MiB read per rank "
          "| files per rank | cells per rank | load avg |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base = {}
    for r in results:
        if "error" in r:
            print(f"| {r['format']} | {r['ranks']} | failed | | | | | | | | |")
            continue
        if r["ranks"] == 1 or r["format"] not in base:
            base[r["format"]] = r
        b = base[r["format"]]
        per = r["per_rank"]
        print(f"| {r['format']} | {r['ranks']} | {r['write']:.2f} | {b['write'] / r['write']:.2f} | {r['read']:.2f} | "
              f"{b['read'] / r['read']:.2f} | {mib(r['bytes_written'])} | "
              f"{' / '.join(mib(p['bytes_read']) for p in per)} | {' / '.join(str(p['files_read']) for p in per)} | "
              f"{' / '.join(str(p['cells']) for p in per)} | {r['load']:.1f} |")
        if sum(p["cells"] for p in per) != cells:
            print(f"# WARNING: {r['format']} on {r['ranks']} ranks read "
                  f"{sum(p['cells'] for p in per)} cells, not {cells}")
    print(f"\n# load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
