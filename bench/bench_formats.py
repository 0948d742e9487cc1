#!/usr/bin/env python3
"""Gmsh MSH and the surface / FE formats: meshio++ against meshio, meshio++ 17.21 from PyPI
and, for MSH, Gmsh's own reader/writer (`gmsh.open` / `gmsh.write`), side by side.

usage: python bench/bench_formats.py [--only NAME[,NAME…]] [--size N]
  MSH and FE formats use the tet box of common.tet_box (N=56 -> 1,053,696 tets, with two
  physical groups for MSH, written by Gmsh itself when the gmsh module is present);
  surface formats use an N2 x N2 triangulated sheet (N2 = 710 -> 1,005,362 triangles).
Input files are written by meshio (MSH: by Gmsh), the reference producers.
"""

import argparse
import datetime
import os
import pathlib
import sys

import numpy as np

from _worker import extension_of
from floor import floor_seconds
from common import DATA_DIR, OLD_MPP_PYTHON, format_seconds, machine_description, ratio, run_peer, run_worker, tet_box

VOLUME = ["msh41-binary", "msh41-ascii", "msh22-ascii", "msh22-binary", "medit-ascii", "abaqus", "nastran",
          "su2", "ugrid-ascii", "ugrid-b8", "tetgen", "avsucd", "tecplot", "dolfin", "flac3d-ascii", "flac3d-binary",
          "mdpa", "permas", "netgen", "ansys-ascii", "ansys-binary", "ansys_cdb", "unv", "lsdyna", "frd", "code_aster", "mphtxt",
          "mfem", "ensight", "ensight-ascii", "elmer", "z88", "femap", "patran", "libmesh-ascii", "libmesh-binary",
          "febio"]
SURFACE = ["stl-ascii", "stl-binary", "ply-ascii", "ply-binary", "obj", "off", "wkt", "svg", "neuroglancer", "freefem",
           "triangle"]
# 2-D formats (FreeFEM .msh): the sheet's x, y only, written by meshio++ (meshio has no writer).
FLAT_2D = {"freefem", "triangle"}
# SVG is write-only: its input is the sheet flattened to z = 0 (SVG refuses non-flat meshes) in a VTU file.
WRITE_ONLY = {"svg": "vtu"}
# meshio 5.3.5's ascii UGRID writer emits 'np.float64(...)' under numpy 2 (docs/meshio-compatibility.md).
WRITTEN_BY_US = {"ugrid-ascii", "ansys_cdb", "unv", "lsdyna", "code_aster", "mphtxt", "mfem", "ensight", "ensight-ascii",
                 "elmer", "z88", "femap", "patran", "libmesh-ascii", "libmesh-binary", "febio"}  # meshio has no .cdb, universal-file, LS-DYNA, .mail or .mphtxt writer
# The format's own Python reader, a column of its own where one exists (its tool name in _worker.py).
# Read-only formats: no write row; their input is written by meshio++ 17.21's writer (ccx's
# layout: nodes, elements and a DISP result block), the only .frd writer on PyPI.
READ_ONLY = {"frd": "frd"}
TOOL_OF_FORMAT = {"ansys_cdb": "ansys-mapdl-reader", "frd": "ccx2paraview", "unv": "pyuff", "lsdyna": "lsdyna-mesh-reader",
                  "ensight": "vtk-ensight", "ensight-ascii": "vtk-ensight", "febio": "febio-python"}
# Binary variants: the text floor (bench/floor.py, issue 36) means nothing for them.
BINARY_VARIANTS = {"msh41-binary", "msh22-binary", "ugrid-b8", "flac3d-binary", "ansys-binary", "stl-binary",
                   "ply-binary", "neuroglancer", "ensight", "libmesh-binary", "elmer"}
# meshio's WKT reader takes many minutes on a 1 M-triangle TIN: its time is capped, not waited for.
TIMEOUT = {"wkt": 300, "lsdyna": 120}  # lsdyna-mesh-reader too: minutes on the 96 MB deck


def sheet(cells_per_side):
    n = cells_per_side + 1
    axis = np.linspace(0.0, 1.0, n)
    x, y = np.meshgrid(axis, axis, indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), 0.1 * np.sin(5 * x.ravel()) * np.cos(3 * y.ravel())])
    i, j = np.meshgrid(np.arange(cells_per_side), np.arange(cells_per_side), indexing="ij")
    a = (i * n + j).ravel()
    triangles = np.concatenate([np.column_stack([a, a + n, a + n + 1]), np.column_stack([a, a + n + 1, a + 1])])
    return points, triangles


def input_path(variant, size):
    return DATA_DIR / f"{variant}-{size}.{WRITE_ONLY.get(variant) or extension_of(variant)}"


def write_inputs(variants, size, sheet_size):
    import meshio

    DATA_DIR.mkdir(exist_ok=True)
    volume = surface = None
    for variant in variants:
        path = input_path(variant, size if variant in VOLUME else sheet_size)
        if path.exists():
            continue
        if variant in VOLUME:
            if volume is None:
                points, tets, temperature, material = tet_box(size)
                volume = meshio.Mesh(points, [("tetra", tets)])
            mesh = volume
        else:
            if surface is None:
                points, triangles = sheet(sheet_size)
                surface = meshio.Mesh(points, [("triangle", triangles)])
            mesh = surface
        if variant.startswith("msh"):
            write_msh_with_gmsh(mesh, variant, path)
            continue
        if variant in READ_ONLY:
            write_with_meshioplusplus17(mesh, READ_ONLY[variant], path)
            continue
        if variant in FLAT_2D:
            import meshioplusplus

            file_format = extension_of(variant).split(".")[0]
            meshioplusplus.write(path, meshioplusplus.Mesh(np.ascontiguousarray(mesh.points[:, :2]),
                                                           [(b.type, b.data) for b in mesh.cells]), file_format=file_format)
            continue
        if variant in WRITE_ONLY:
            flat = mesh.points.copy()
            flat[:, 2] = 0.0
            meshio.write(path, meshio.Mesh(flat, mesh.cells))
            continue
        from _worker import MESHIO_WRITE_OPTIONS, OUR_WRITE_OPTIONS

        file_format, kwargs = (OUR_WRITE_OPTIONS if variant in WRITTEN_BY_US else MESHIO_WRITE_OPTIONS)[variant]
        if variant in WRITTEN_BY_US:
            import meshioplusplus

            meshioplusplus.write(path, meshioplusplus.Mesh(mesh.points, [(b.type, b.data) for b in mesh.cells]),
                                 file_format=file_format, **kwargs)
            continue
        meshio.write(path, mesh, file_format=file_format, **kwargs)
    return {v: input_path(v, size if v in VOLUME else sheet_size) for v in variants}


def write_with_meshioplusplus17(mesh, file_format, path):
    """A read-only format's input, written by meshio++ 17.21 (its own venv), with a DISP field."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        arrays = pathlib.Path(folder) / "mesh.npz"
        np.savez(arrays, points=mesh.points, cells=mesh.cells[0].data)
        code = ("import sys, numpy as np, meshioplusplus as m; d = np.load(sys.argv[1]); "
                "p = d['points']; mesh = m.Mesh(p, [(sys.argv[3], d['cells'])], point_data={'DISP': p * 1e-3}); "
                "m.write(sys.argv[2], mesh, file_format=sys.argv[4])")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # 17.21's own package, not ours
        subprocess.run([str(OLD_MPP_PYTHON), "-c", code, str(arrays), str(path), mesh.cells[0].type, file_format],
                       check=True, env=env)


def write_msh_with_gmsh(mesh, variant, path):
    """MSH inputs come from Gmsh itself, with a volume and a boundary physical group."""
    import gmsh

    gmsh.initialize()
    gmsh.option.setNumber("General.Terminal", 0)
    gmsh.model.add("box")
    volume = gmsh.model.addDiscreteEntity(3)
    tets = mesh.cells[0].data
    gmsh.model.mesh.addNodes(3, volume, np.arange(1, len(mesh.points) + 1), mesh.points.ravel())
    gmsh.model.mesh.addElementsByType(volume, 4, np.arange(1, len(tets) + 1), (tets + 1).ravel())
    gmsh.model.setPhysicalName(3, gmsh.model.addPhysicalGroup(3, [volume], 1), "solid")
    version, binary = {"msh41-binary": (4.1, 1), "msh41-ascii": (4.1, 0),
                       "msh22-binary": (2.2, 1), "msh22-ascii": (2.2, 0)}[variant]
    gmsh.option.setNumber("Mesh.MshFileVersion", version)
    gmsh.option.setNumber("Mesh.Binary", binary)
    gmsh.write(str(path))
    gmsh.finalize()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--sheet", type=int, default=710)
    parser.add_argument("--package-dir", default=None,
                        help="a folder holding the meshioplusplus build to time as ours (a private copy)")
    args = parser.parse_args()
    variants = [v for v in VOLUME + SURFACE if not args.only or v.split("-")[0] in args.only.split(",") or v in args.only.split(",")]
    paths = write_inputs(variants, args.size, args.sheet)
    print(f"# formats benchmark — volume: {6 * args.size ** 3:,} tets; surface: {2 * args.sheet ** 2:,} triangles")
    print(f"# {machine_description()}, {datetime.date.today()}")
    tools = [("meshioplusplus", sys.executable), ("meshio", sys.executable)]
    if OLD_MPP_PYTHON.exists():
        tools.append(("meshioplusplus17", OLD_MPP_PYTHON))
    # The "gmsh" column holds the format's own tool where that is not Gmsh (TOOL_OF_FORMAT).
    print("| variant | op | " + " | ".join(t for t, _ in tools) + " | gmsh | vs meshio | vs gmsh | floor | ours / floor | MB/s (ours) | MB/s (ours, 1 thread) |")
    print("|---|---|" + "---|" * (len(tools) + 7))
    for variant in variants:
        for operation in ("read", "write"):
            if (operation == "read" and variant in WRITE_ONLY) or (operation == "write" and variant in READ_ONLY):
                continue
            timeout = TIMEOUT.get(variant, 900)
            results = {tool: run_worker(python, tool, operation, variant, paths[variant], 3, timeout=timeout,
                                        package_dir=args.package_dir)
                       if tool == "meshioplusplus" else run_peer(python, tool, operation, variant, paths[variant], timeout)
                       for tool, python in tools}
            results["gmsh"] = (run_peer(sys.executable, "gmsh", operation, variant, paths[variant])
                               if variant.startswith("msh") else None)
            if variant in TOOL_OF_FORMAT:
                results["gmsh"] = run_peer(sys.executable, TOOL_OF_FORMAT[variant], operation, variant, paths[variant], timeout)
            ours = results["meshioplusplus"]
            floor = ours_over_floor = "—"
            if operation == "read" and variant not in BINARY_VARIANTS and ours and "error" not in ours:
                floor_time = floor_seconds(paths[variant])
                floor = f"{floor_time * 1e3:.0f} ms"
                ours_over_floor = f"{ours['seconds'] / floor_time:.1f}×"
            speed = one_core_speed = "—"
            if ours and "error" not in ours and operation == "read":
                speed = f"{ours['file_bytes'] / ours['seconds'] / 1e6:.0f}"
                one_core = run_worker(sys.executable, "meshioplusplus", operation, variant, paths[variant], 3, threads=1,
                                      package_dir=args.package_dir)
                if "error" not in one_core:
                    one_core_speed = f"{one_core['file_bytes'] / one_core['seconds'] / 1e6:.0f}"
            cells = " | ".join(format_seconds(results[t]) for t, _ in tools)
            print(f"| {variant} | {operation} | {cells} | {format_seconds(results['gmsh'])} | "
                  f"{ratio(results['meshio'], ours)} | {ratio(results['gmsh'], ours)} | {floor} | {ours_over_floor} | "
                  f"{speed} | {one_core_speed} |",
                  flush=True)


if __name__ == "__main__":
    main()
