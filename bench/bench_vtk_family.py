#!/usr/bin/env python3
"""VTU (ascii / base64 / zlib / appended raw) and legacy VTK: meshio++ against meshio,
VTK's own C++ readers/writers and meshio++ 17.21 from PyPI, side by side in one run.

usage: python bench/bench_vtk_family.py [CUBES_PER_SIDE=56] [--quick]
  56 cubes per side -> 1,053,696 tetrahedra, 185,193 points.
Input files are written by VTK (the reference producer). Each cell of the table is the
best of several runs in a fresh process; peak RSS is measured on our read.
"""

import datetime
import sys

import numpy as np

from common import (DATA_DIR, OLD_MPP_PYTHON, format_seconds, machine_description, ratio, run_peer, run_worker,
                    tet_box)

VARIANTS = ["vtu-ascii", "vtu-base64", "vtu-zlib", "vtu-raw", "vtk-binary"]
TOOLS = [("meshioplusplus", sys.executable), ("meshio", sys.executable), ("vtk", sys.executable),
         ("meshioplusplus17", OLD_MPP_PYTHON)]


def vtk_grid(points, tets, temperature, material):
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray

    grid = vtk.vtkUnstructuredGrid()
    vtk_points = vtk.vtkPoints()
    vtk_points.SetData(numpy_to_vtk(points, deep=True))
    grid.SetPoints(vtk_points)
    offsets = numpy_to_vtkIdTypeArray(np.arange(0, 4 * len(tets) + 1, 4, dtype=np.int64), deep=True)
    connectivity = numpy_to_vtkIdTypeArray(tets.ravel().astype(np.int64), deep=True)
    cells = vtk.vtkCellArray()
    cells.SetData(offsets, connectivity)
    grid.SetCells(vtk.VTK_TETRA, cells)
    t = numpy_to_vtk(temperature, deep=True)
    t.SetName("T")
    grid.GetPointData().AddArray(t)
    m = numpy_to_vtk(material, deep=True)
    m.SetName("material")
    grid.GetCellData().AddArray(m)
    return grid


def write_inputs(cubes):
    import vtk

    DATA_DIR.mkdir(exist_ok=True)
    paths = {v: DATA_DIR / f"box{cubes}-{v}.{v.split('-')[0]}" for v in VARIANTS}
    if all(p.exists() for p in paths.values()):
        return paths
    grid = vtk_grid(*tet_box(cubes))
    for variant, path in paths.items():
        if variant.startswith("vtu"):
            writer = vtk.vtkXMLUnstructuredGridWriter()
            {"vtu-ascii": writer.SetDataModeToAscii, "vtu-base64": writer.SetDataModeToBinary,
             "vtu-zlib": writer.SetDataModeToBinary, "vtu-raw": writer.SetDataModeToAppended}[variant]()
            writer.EncodeAppendedDataOff()
            if variant == "vtu-zlib":
                writer.SetCompressorTypeToZLib()
            else:
                writer.SetCompressorTypeToNone()
        else:
            writer = vtk.vtkUnstructuredGridWriter()
            writer.SetFileTypeToBinary()
        writer.SetFileName(str(path))
        writer.SetInputData(grid)
        writer.Write()
    return paths


def measure(python, tool, operation, variant, path):
    """Best of 3 for every tool; the slow pure-Python VTU ascii paths get run_peer's rule."""
    if tool in ("meshio", "meshioplusplus17") and variant == "vtu-ascii":
        return run_peer(python, tool, operation, variant, path)
    return run_worker(python, tool, operation, variant, path, 3)


def main():
    cubes = int(next((a for a in sys.argv[1:] if a.isdigit()), 56))
    paths = write_inputs(cubes)
    num_cells = 6 * cubes**3
    print(f"# VTK family benchmark — {num_cells:,} tetrahedra, {(cubes + 1) ** 3:,} points")
    print(f"# {machine_description()}, {datetime.date.today()}")
    tools = [t for t in TOOLS if t[0] != "meshioplusplus17" or OLD_MPP_PYTHON.exists()]
    header = "| variant | op | " + " | ".join(t for t, _ in tools) + " | vs meshio | vs VTK | MB/s (ours) | peak RSS / arrays | (peak − mapped file) / arrays |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for variant in VARIANTS:
        for operation in ("read", "write"):
            results = {}
            for tool, python in tools:
                if operation == "write" and tool in ("meshio", "meshioplusplus17") and variant == "vtu-raw":
                    results[tool] = None  # meshio has no appended-raw writer
                    continue
                results[tool] = measure(python, tool, operation, variant, paths[variant])
            ours = results["meshioplusplus"]
            speed = "—"
            memory = anonymous = "—"
            if ours and "error" not in ours:
                speed = f"{ours['file_bytes'] / ours['seconds'] / 1e6:.0f}" if operation == "read" else "—"
                if operation == "read" and ours["array_bytes"]:
                    memory = f"{ours['peak_rss_over_baseline_bytes'] / ours['array_bytes']:.2f}"
                    # The input is memory-mapped: its pages count in RSS but are page cache
                    # the kernel can drop, not memory the read holds on to.
                    owned = ours['peak_rss_over_baseline_bytes'] - ours['file_bytes']
                    anonymous = f"{max(owned, 0) / ours['array_bytes']:.2f}"
            cells = " | ".join(format_seconds(results[t]) for t, _ in tools)
            print(f"| {variant} | {operation} | {cells} | {ratio(results['meshio'], ours)} | "
                  f"{ratio(results['vtk'], ours)} | {speed} | {memory} | {anonymous} |", flush=True)


if __name__ == "__main__":
    main()
