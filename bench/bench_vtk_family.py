#!/usr/bin/env python3
"""VTU (ascii / base64 / zlib / appended raw) and legacy VTK: meshio++ against meshio,
VTK's own C++ readers/writers and meshio++ 17.21 from PyPI, side by side in one run; then the
rest of VTK's family (VTP, VTS, VTR, VTI, a 4-piece PVTU, VTKHDF), each on >= 1 M cells.

usage: python bench/bench_vtk_family.py [CUBES_PER_SIDE=56] [--family-only | --vtu-only]
  56 cubes per side -> 1,053,696 tetrahedra, 185,193 points.
  Family inputs: a triangulated square of 708 x 708 cells (1,002,528 triangles) for VTP;
  100^3 hexahedra (101^3 points) for VTS/VTR/VTI; the tet box in 4 slabs for PVTU; the tet
  box for VTKHDF. Every file carries one float64 point field and one int32 cell field.
Input files are written by VTK (the reference producer). Each cell of the table is the
best of several runs in each of three fresh processes; peak RSS is measured on our read. meshio reads none
of the family formats (n/a).
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


FAMILY_VARIANTS = ["vtp-raw", "vtp-zlib", "vts-raw", "vtr-raw", "vti-raw", "pvtu-raw", "vtkhdf"]
HEXES_PER_SIDE = 100
TRIANGLE_SQUARES_PER_SIDE = 708
PVTU_PIECES = 4


def add_fields(data_set, temperature, material):
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk

    for attributes, name, values in ((data_set.GetPointData(), "T", temperature),
                                     (data_set.GetCellData(), "material", material)):
        array = numpy_to_vtk(values, deep=True)
        array.SetName(name)
        attributes.AddArray(array)
    return data_set


def vtk_surface(squares):
    """A unit square of squares x squares cells, each cut into two triangles."""
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray

    n = squares + 1
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n), indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), np.sin(3 * x.ravel()) * y.ravel()])
    i, j = np.meshgrid(np.arange(squares), np.arange(squares), indexing="ij")
    a = (i * n + j).ravel()
    triangles = np.concatenate([np.column_stack([a, a + n, a + n + 1]), np.column_stack([a, a + n + 1, a + 1])])
    surface = vtk.vtkPolyData()
    vtk_points = vtk.vtkPoints()
    vtk_points.SetData(numpy_to_vtk(points, deep=True))
    surface.SetPoints(vtk_points)
    polys = vtk.vtkCellArray()
    polys.SetData(numpy_to_vtkIdTypeArray(np.arange(0, 3 * len(triangles) + 1, 3, dtype=np.int64), deep=True),
                  numpy_to_vtkIdTypeArray(triangles.ravel().astype(np.int64), deep=True))
    surface.SetPolys(polys)
    return add_fields(surface, points[:, 0] ** 2 + points[:, 1], (np.arange(len(triangles)) % 7).astype(np.int32))


def vtk_structured(kind, cells):
    """vtkStructuredGrid (points bent so the grid is not rectilinear), vtkRectilinearGrid
    (graded coordinates) or vtkImageData of cells^3 hexahedra."""
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk

    n = cells + 1
    axis = np.linspace(0.0, 1.0, n)
    if kind == "vti":
        grid = vtk.vtkImageData()
        grid.SetDimensions(n, n, n)
        grid.SetSpacing(1.0 / cells, 1.0 / cells, 1.0 / cells)
        grid.SetOrigin(0.0, 0.0, 0.0)
    elif kind == "vtr":
        grid = vtk.vtkRectilinearGrid()
        grid.SetDimensions(n, n, n)
        for setter, values in ((grid.SetXCoordinates, axis**2), (grid.SetYCoordinates, axis),
                               (grid.SetZCoordinates, np.sqrt(axis))):
            setter(numpy_to_vtk(values, deep=True))
    else:
        grid = vtk.vtkStructuredGrid()
        grid.SetDimensions(n, n, n)
        z, y, x = np.meshgrid(axis, axis, axis, indexing="ij")  # VTK order: x fastest
        points = np.column_stack([x.ravel() + 0.1 * np.sin(3 * y.ravel()), y.ravel(), z.ravel()])
        vtk_points = vtk.vtkPoints()
        vtk_points.SetData(numpy_to_vtk(points, deep=True))
        grid.SetPoints(vtk_points)
    flat = np.arange(n**3, dtype=np.float64)
    return add_fields(grid, np.sin(flat * 1e-3), (np.arange(cells**3) % 7).astype(np.int32))


def write_pvtu_input(cubes, path):
    """The tet box cut into PVTU_PIECES slabs of whole cubes along x, each piece with only the
    points it uses, written piece by piece by VTK's serial writer plus the index."""
    import vtk

    points, tets, temperature, material = tet_box(cubes)
    slab = np.minimum((points[tets, 0].mean(axis=1) * PVTU_PIECES).astype(int), PVTU_PIECES - 1)
    stem = path.stem
    for k in range(PVTU_PIECES):
        mine = np.flatnonzero(slab == k)
        used = np.unique(tets[mine])
        renumber = np.full(len(points), -1, dtype=np.int64)
        renumber[used] = np.arange(len(used))
        piece = vtk_grid(points[used], renumber[tets[mine]], temperature[used], material[mine])
        writer = vtk.vtkXMLUnstructuredGridWriter()
        writer.SetDataModeToAppended()
        writer.EncodeAppendedDataOff()
        writer.SetCompressorTypeToNone()
        writer.SetFileName(str(path.parent / f"{stem}_{k}.vtu"))
        writer.SetInputData(piece)
        writer.Write()
    pieces = "\n".join(f'    <Piece Source="{stem}_{k}.vtu"/>' for k in range(PVTU_PIECES))
    path.write_text(f"""<?xml version="1.0"?>
<VTKFile type="PUnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">
  <PUnstructuredGrid GhostLevel="0">
    <PPointData><PDataArray type="Float64" Name="T"/></PPointData>
    <PCellData><PDataArray type="Int32" Name="material"/></PCellData>
    <PPoints><PDataArray type="Float64" Name="Points" NumberOfComponents="3"/></PPoints>
{pieces}
  </PUnstructuredGrid>
</VTKFile>
""")


def write_family_inputs(cubes):
    import vtk

    DATA_DIR.mkdir(exist_ok=True)
    extension = {"vtkhdf": "vtkhdf", "pvtu-raw": "pvtu"}
    paths = {v: DATA_DIR / f"family{cubes}-{v}.{extension.get(v, v.split('-')[0])}" for v in FAMILY_VARIANTS}
    for variant, path in paths.items():
        if path.exists():
            continue
        if variant == "pvtu-raw":
            write_pvtu_input(cubes, path)
            continue
        if variant == "vtkhdf":
            writer = vtk.vtkHDFWriter()
            writer.SetInputData(vtk_grid(*tet_box(cubes)))
        else:
            kind = variant.split("-")[0]
            data = vtk_surface(TRIANGLE_SQUARES_PER_SIDE) if kind == "vtp" else vtk_structured(kind, HEXES_PER_SIDE)
            writer = {"vtp": vtk.vtkXMLPolyDataWriter, "vts": vtk.vtkXMLStructuredGridWriter,
                      "vtr": vtk.vtkXMLRectilinearGridWriter, "vti": vtk.vtkXMLImageDataWriter}[kind]()
            writer.SetInputData(data)
            if variant.endswith("zlib"):
                writer.SetDataModeToBinary()
                writer.SetCompressorTypeToZLib()
            else:
                writer.SetDataModeToAppended()
                writer.EncodeAppendedDataOff()
                writer.SetCompressorTypeToNone()
        writer.SetFileName(str(path))
        writer.Write()
    return paths


# Worker processes per cell. The AMD VM of the fifteenth and sixteenth sessions has episodes of
# 50-300 ms in which everything runs 5-7x slower (a numpy copy of 12 MB: 22 ms instead of 4);
# one such episode can cover all five 3-10 ms writes of a fast tool's worker, while a slow
# tool's writes outlast it. The best of three processes, for every tool alike.
PROCESSES = 3


def measure(python, tool, operation, variant, path):
    """Best of 3 reads and 5 writes in each of PROCESSES worker processes, for every tool
    (this VM's write times have a long tail: a file's blocks are sometimes written back on the
    writer's clock, for every tool alike); the slow pure-Python VTU ascii paths get run_peer's
    rule."""
    if tool in ("meshio", "meshioplusplus17") and variant == "vtu-ascii":
        return run_peer(python, tool, operation, variant, path)
    runs = [run_worker(python, tool, operation, variant, path, 5 if operation == "write" else 3)
            for _ in range(PROCESSES)]
    measured = [run for run in runs if "error" not in run]
    return min(measured, key=lambda run: run["seconds"]) if measured else runs[0]


STRUCTURED_VARIANTS = ("vts-raw", "vtr-raw", "vti-raw")


def table_row(tools, variant, operation, path):
    results = {}
    if variant in FAMILY_VARIANTS:
        # VTK's structured readers leave points and cells implicit, and so do ours (made on
        # first use); meshio's model holds them explicitly. The extra columns are each reader
        # plus making them.
        tools = tools + [("vtk-explicit", sys.executable), ("meshioplusplus-explicit", sys.executable)]
    for tool, python in tools:
        if tool.endswith("-explicit") and (operation != "read" or variant not in STRUCTURED_VARIANTS):
            results[tool] = None
            continue
        if operation == "write" and tool in ("meshio", "meshioplusplus17") and variant == "vtu-raw":
            results[tool] = None  # meshio has no appended-raw writer
            continue
        if tool == "meshio" and variant in FAMILY_VARIANTS:
            results[tool] = None  # meshio 5.3.5 reads none of these formats
            continue
        results[tool] = measure(python, tool, operation, variant, path)
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
    cells = " | ".join(format_seconds(results[t]) for t, _ in tools if t != "meshioplusplus-explicit")
    if variant in FAMILY_VARIANTS:
        cells += " | " + format_seconds(results["meshioplusplus-explicit"])
    old = results.get("meshioplusplus17")
    versus_old = (f" | {ratio(results['vtk-explicit'], results['meshioplusplus-explicit'] or ours)} | {ratio(old, ours)}"
                  if variant in FAMILY_VARIANTS else "")
    print(f"| {variant} | {operation} | {cells} | {ratio(results['meshio'], ours)} | "
          f"{ratio(results['vtk'], ours)}{versus_old} | {speed} | {memory} | {anonymous} |", flush=True)


def main():
    cubes = int(next((a for a in sys.argv[1:] if a.isdigit()), 56))
    num_cells = 6 * cubes**3
    print(f"# {machine_description()}, {datetime.date.today()}")
    tools = [t for t in TOOLS if t[0] != "meshioplusplus17" or OLD_MPP_PYTHON.exists()]
    columns = " | ".join(t for t, _ in tools)
    tail = " | MB/s (ours) | peak RSS / arrays | (peak − mapped file) / arrays |"
    if "--family-only" not in sys.argv:
        paths = write_inputs(cubes)
        print(f"# VTK family benchmark — {num_cells:,} tetrahedra, {(cubes + 1) ** 3:,} points")
        header = f"| variant | op | {columns} | vs meshio | vs VTK{tail}"
        print(header)
        print("|" + "---|" * (header.count("|") - 1))
        for variant in VARIANTS:
            for operation in ("read", "write"):
                table_row(tools, variant, operation, paths[variant])
    if "--vtu-only" not in sys.argv:
        paths = write_family_inputs(cubes)
        print(f"# The rest of the family — VTP {2 * TRIANGLE_SQUARES_PER_SIDE**2:,} triangles; "
              f"VTS/VTR/VTI {HEXES_PER_SIDE**3:,} hexahedra; PVTU ({PVTU_PIECES} pieces) and VTKHDF "
              f"{num_cells:,} tetrahedra")
        header = (f"| variant | op | {columns} | VTK + explicit cells | meshio++ + explicit cells | vs meshio | "
                  f"vs VTK | explicit vs explicit | vs meshio++ 17.21{tail}")
        print(header)
        print("|" + "---|" * (header.count("|") - 1))
        for variant in FAMILY_VARIANTS:
            for operation in ("read", "write"):
                table_row(tools, variant, operation, paths[variant])


if __name__ == "__main__":
    main()
