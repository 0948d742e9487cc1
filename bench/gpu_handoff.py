#!/usr/bin/env python3
"""read + to_cupy on a CUDA device: pageable, pinned staging and pinned_reads, against the bus.

usage: python bench/gpu_handoff.py [--cells 10e6,100e6] [--repeat 2] [--dir DIR] [--budget 480]

For each size a tet box (6 tetrahedra per cube, with a float64 point field and an int32 cell
field) is generated in memory and written once as an appended-raw VTU into a temporary
directory. Then, best of --repeat runs each:

  pageable      mio.read(path)                                  + mio.to_cupy(mesh)
  staged        mio.read(path)                                  + mio.to_cupy(mesh, pinned=True)
  pinned_reads  with mio.pinned_reads(): mio.read(path)         + mio.to_cupy(mesh, pinned=True)

and, once per card, the raw host->device cudaMemcpy bandwidth from pinned and from pageable
memory. Upload GB/s is payload bytes / to_cupy seconds (allocation, copies and the final
synchronize included); "of raw" is its ratio to the raw pinned bandwidth.

The file is read from the page cache (it was just written): read times are parse times, not
disk times. If the VTU reader or writer is still a stub, or the disk is too small, the
benchmark says so and times to_cupy on the in-memory mesh instead ("read-free"); the
pinned_reads path needs a real reader and is then reported as n/a.

Needs CuPy and a CUDA device; fails with exit code 2 and the install command otherwise.
One invocation is sized for < 9 minutes on a 16-core H200 machine; --budget (seconds) skips
remaining repeats when time runs short.
"""

from __future__ import annotations

import argparse
import gc
import os
import pathlib
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import machine_description, tet_box  # noqa: E402

INSTALL = "pip install cupy-cuda13x (CUDA 13) / cupy-cuda12x (CUDA 12), on a machine with an NVIDIA GPU"
PATHS = ("pageable", "staged", "pinned_reads")


def import_cupy_or_exit():
    try:
        import cupy
    except Exception as error:  # ImportError or a CUDA library failing to load
        fail(f"bench/gpu_handoff.py needs CuPy, which could not be imported ({error}). Install it: {INSTALL}")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # no driver
        fail(f"bench/gpu_handoff.py: CuPy imports but no CUDA device answers ({error})")
    if count < 1:
        fail("bench/gpu_handoff.py: CuPy imports but the machine has no CUDA device")
    return cupy


def fail(message):
    print(message, file=sys.stderr)
    raise SystemExit(2)


# --- the card's limit ---------------------------------------------------------------------------


def raw_bandwidth(cupy, nbytes=1 << 30, repeat=5):
    """Best host->device GB/s of one cudaMemcpyAsync + synchronize, from pinned and pageable memory."""
    import cupyx

    device = cupy.empty(nbytes, dtype=np.uint8)
    stream = cupy.cuda.Stream(non_blocking=True)
    sources = {"pinned": cupyx.empty_pinned(nbytes, dtype=np.uint8), "pageable": np.empty(nbytes, dtype=np.uint8)}
    best = {}
    for kind, source in sources.items():
        source[:] = 1  # touch every page before timing
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            cupy.cuda.runtime.memcpyAsync(device.data.ptr, source.ctypes.data, nbytes,
                                          cupy.cuda.runtime.memcpyHostToDevice, stream.ptr)
            stream.synchronize()
            times.append(time.perf_counter() - start)
        best[kind] = nbytes / min(times) / 1e9
    del device, sources
    cupy.get_default_memory_pool().free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()
    return best


# --- inputs -------------------------------------------------------------------------------------


def cubes_for(cells):
    return max(1, round((cells / 6) ** (1 / 3)))


def build_mesh(mio, cubes):
    points, tets, temperature, material = tet_box(cubes)
    return mio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}, cell_data={"material": [material]})


def estimated_file_bytes(mesh):
    cells = len(mesh.cells[0].data)
    return mesh.points.nbytes + mesh.point_data["T"].nbytes + cells * (4 * 8 + 8 + 1 + 4) + 4096


def write_input(mio, mesh, folder):
    """The appended-raw VTU path, or (None, reason) when the read-free variant must run."""
    free = shutil.disk_usage(folder).free
    needed = estimated_file_bytes(mesh)
    if free < 1.5 * needed:
        return None, f"disk too small ({free / 1e9:.1f} GB free, {needed / 1e9:.1f} GB needed)"
    if not vtu_round_trip_works(mio, folder):
        return None, "the VTU reader or writer is still a stub in this build"
    path = pathlib.Path(folder) / f"box-{len(mesh.cells[0].data)}.vtu"
    # UInt64 block headers: a 100 M-tet connectivity block is close to UInt32's 4 GiB limit.
    mio.write(path, mesh, binary=True, compression=None, appended=True, header_type="UInt64")
    return path, ""


def vtu_round_trip_works(mio, folder):
    """Checked on a tiny mesh, so a big file is never read just to find a stub."""
    probe = pathlib.Path(folder) / "probe.vtu"
    tiny = mio.Mesh(np.eye(4, 3), [("tetra", np.array([[0, 1, 2, 3]]))])
    try:
        mio.write(probe, tiny, binary=True, compression=None, appended=True)
        return len(mio.read(probe).cells[0].data) == 1
    except RuntimeError as error:
        if str(error) == "stub":
            return False
        raise


# --- one measurement ---------------------------------------------------------------------------


def payload_bytes(mio, mesh):
    return sum(array.nbytes for _, array in mio.to_dlpack(mesh).named_arrays())


def measure(mio, cupy, path_kind, source, in_memory_mesh):
    """(read s, upload s, events) for one run; ``source`` is a VTU path or None (read-free)."""
    gc.collect()
    start = time.perf_counter()
    if source is None:
        mesh = in_memory_mesh
    elif path_kind == "pinned_reads":
        with mio.pinned_reads():
            mesh = mio.read(source)
    else:
        mesh = mio.read(source)
    read_seconds = time.perf_counter() - start
    if len(mesh.cells[0].data) != len(in_memory_mesh.cells[0].data):
        raise RuntimeError(f"{source}: read {len(mesh.cells[0].data)} cells, wrote {len(in_memory_mesh.cells[0].data)}")
    with mio.count_transfers() as counter:
        start = time.perf_counter()
        payload = mio.to_cupy(mesh, pinned=path_kind != "pageable")
        upload_seconds = time.perf_counter() - start
    events = (counter.to_device, counter.host_staging, counter.bytes_to_device)
    # CuPy's pools keep the freed blocks: a repeat allocates nothing new on either side, as in
    # a pipeline that uploads mesh after mesh ("first" in the table includes the allocations).
    del payload, mesh
    return read_seconds, upload_seconds, events


def run_size(mio, cupy, cells, args, deadline, raw):
    cubes = cubes_for(cells)
    start = time.perf_counter()
    mesh = build_mesh(mio, cubes)
    n_cells = len(mesh.cells[0].data)
    print(f"\n== {n_cells:,} tetrahedra, {len(mesh.points):,} points ({cubes} cubes per side; "
          f"generated in {time.perf_counter() - start:.1f} s)")
    nbytes = payload_bytes(mio, mesh)
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        start = time.perf_counter()
        source, reason = write_input(mio, mesh, folder)
        if source is None:
            print(f"   read-free variant: {reason}; timing to_cupy on the in-memory mesh")
        else:
            print(f"   wrote {source.name}: {source.stat().st_size / 1e9:.2f} GB appended raw in "
                  f"{time.perf_counter() - start:.1f} s (reads below hit the page cache)")
        print(f"   payload: {nbytes / 1e9:.2f} GB in {len(list(mio.to_dlpack(mesh).named_arrays()))} arrays")
        print(f"   {'path':<13} {'read s':>8} {'to_cupy s':>10} {'total s':>8} {'GB/s':>7} {'of raw':>7}  "
              f"{'staged arrays':>13}  runs")
        for path_kind in PATHS:
            if source is None and path_kind == "pinned_reads":
                print(f"   {path_kind:<13} {'n/a':>8}  (needs a real reader: {reason})")
                continue
            runs = []
            for attempt in range(args.repeat):
                if attempt and time.monotonic() > deadline:
                    break  # keep the first run; skip repeats when the budget runs short
                runs.append(measure(mio, cupy, path_kind, source, mesh))
            best_read = min(run[0] for run in runs)
            best_upload = min(run[1] for run in runs)
            to_device, staged, moved = runs[-1][2]
            rate = moved / best_upload / 1e9
            first = f"first {runs[0][0] + runs[0][1]:.2f} s"
            print(f"   {path_kind:<13} {best_read:>8.2f} {best_upload:>10.3f} {best_read + best_upload:>8.2f} "
                  f"{rate:>7.1f} {rate / raw['pinned']:>6.0%}  {staged:>6}/{to_device:<6}  {len(runs)} ({first})")
            if path_kind == "pinned_reads" and staged > 1:  # block_bases is computed, so always staged
                print(f"   !! pinned_reads staged {staged} arrays: the fast path did not apply")
    del mesh
    gc.collect()
    cupy.get_default_memory_pool().free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", default="10e6,100e6", help="comma-separated target cell counts")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--dir", default=None, help="where the temporary VTU files go (default: $TMPDIR)")
    parser.add_argument("--budget", type=float, default=480.0, help="seconds before remaining repeats are skipped")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.budget

    cupy = import_cupy_or_exit()
    import meshioplusplus as mio

    properties = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = properties["name"].decode() if isinstance(properties["name"], bytes) else properties["name"]
    print(f"meshio++ {mio.__version__} from {os.path.dirname(mio.__file__)}")
    print(f"{machine_description()}; GPU {name}, CuPy {cupy.__version__}, "
          f"CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}")
    raw = raw_bandwidth(cupy)
    print(f"raw host->device cudaMemcpy, 1 GiB: pinned {raw['pinned']:.1f} GB/s, pageable {raw['pageable']:.1f} GB/s")
    for cells in (float(text) for text in args.cells.split(",")):
        run_size(mio, cupy, int(cells), args, deadline, raw)
    print("\n'staged arrays' = host_staging events / to_device events of the last run "
          "(block_bases is computed, so it is always staged under pinned=True)")


if __name__ == "__main__":
    main()
