"""meshio++ in one screen: read a Gmsh mesh, convert it, inspect it, hand it to an array
framework without copying, and write the result back out.

Run with `bash scripts/demo.sh` (sets everything up) or `python examples/demo.py`.
"""
import pathlib
import tempfile
import time

import numpy as np

import meshioplusplus as mio
from meshioplusplus._cli import info_text

SAMPLE = pathlib.Path(__file__).resolve().parent.parent / "samples" / "bracket.msh"
out_dir = pathlib.Path(tempfile.mkdtemp(prefix="meshioplusplus-demo-"))

# 1. Read (arrays adopt the C++ buffers: no copy), derive boundary sides, convert.
started = time.perf_counter()
mesh = mio.read(SAMPLE)
seconds = time.perf_counter() - started
report = mio.derive_side_regions(mesh)    # 'inlet'/'walls' triangles -> (tet, facet) pairs
print(info_text(mesh, SAMPLE, seconds))
print(f"  side regions derived: {report.region_names} (unmatched facets: {report.unmatched_counts})")
print()
mio.write(out_dir / "bracket.vtu", mesh)  # VTU has no slot for regions; data and cells go
converted = out_dir / "bracket.vtu"
started = time.perf_counter()
print(info_text(mio.read(converted), converted, time.perf_counter() - started))
print()

# 2. The GPU handoff: a temperature field goes to the device (or, without one, to any
#    DLPack consumer on the host), gets scaled there, and comes back once.
mesh.point_data["T"] = 20.0 + 5.0 * mesh.points[:, 0]
if mio.has_cuda_device():
    payload = mio.to_cupy(mesh)            # one host->device transfer per array
    payload.point_data["T"] *= 2.0         # any CuPy / RAPIDS kernel
    where = "the GPU (CuPy)"
else:
    payload = mio.to_dlpack(mesh)          # host payload: shares the mesh's buffers
    temperature = np.from_dlpack(payload.point_data["T"])   # adopted in place
    temperature *= 2.0
    where = "the host via DLPack (no CUDA device here)"
back = mio.from_cupy(payload)
mio.write(out_dir / "scaled.vtu", back)
scaled = mio.read(out_dir / "scaled.vtu").point_data["T"]
print(f"handoff through {where}: T max {mesh.points[:, 0].max() * 5 + 20:.2f} -> {scaled.max():.2f}")
print(f"outputs in {out_dir}")
