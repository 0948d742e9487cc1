#!/usr/bin/env python3
"""Results readers (issue 33): LS-DYNA d3plot and EnSight Gold, meshio++ against VTK's readers
(vtkLSDynaReader with all arrays, vtkGenericEnSightReader with all variables) and meshio++
17.21 (`lsdyna_d3plot` / `ensight`, its own venv).

usage: python bench/bench_results.py [--repeat N] [--only d3plot,ensight] [--package-dir DIR]
  d3plot   bench/make_d3plot.py's family: 100³ hexahedra (1,030,301 nodes), 100 states of
           displacement, velocity, solid stress + plastic strain (5.3 GB, 53 MB a state)
  ensight  the 1 M-tet box of common.tet_box(56) (C binary), 100 steps of a node scalar,
           written by meshioplusplus.ensight.TimeSeriesWriter
Two operations each: `first` (the mesh and the first step's data: meshioplusplus.read, VTK's
Update, 17.21's read) and `99` (the mesh and step 99's data alone: ours TimeSeriesReader
.read_data(99), VTK UpdateTimeStep(t99), 17.21 read(time_step=99)). Each tool runs in a fresh
process (bench/_worker.py), best of N in it; the data set's pages are dropped from the page cache
(posix_fadvise DONTNEED, these files only) before each process, so the first read's bytes from
/proc/self/io (read_bytes: fetched from disk, mapped pages included; rchar: through read/pread)
say what a read touches. Peak RSS is the first read's.
"""

import argparse
import datetime
import os
import pathlib
import subprocess
import sys

from common import DATA_DIR, OLD_MPP_PYTHON, format_seconds, machine_description, ratio, run_worker, tet_box

BENCH_DIR = pathlib.Path(__file__).resolve().parent
D3PLOT = DATA_DIR / "d3plot" / "hex-100-100" / "d3plot"
ENSIGHT = DATA_DIR / "ensight-transient-56" / "box.case"
STEPS = 100
TOOLS = [("ours", "results-meshioplusplus"), ("VTK", "results-vtk"), ("17.21", "results-meshioplusplus17")]


# ---- the readers (run inside bench/_worker.py) -----------------------------------------------

def results_tool(tool, variant):
    """_worker.py's read function for `tool` on `variant` = "<d3plot|ensight>:<first|step>"."""
    file_format, which = variant.split(":")
    step = None if which == "first" else int(which)
    if tool == "results-vtk":
        return vtk_reader(file_format, step), None
    if tool == "results-meshioplusplus17":
        return old_reader(file_format, step), None
    return our_reader(file_format, step), None


def data_bytes(*mappings):
    import numpy as np

    total = 0
    for mapping in mappings:
        for value in mapping.values():
            total += sum(np.asarray(v).nbytes for v in value) if isinstance(value, list) else np.asarray(value).nbytes
    return total


def our_reader(file_format, step):
    import meshioplusplus
    from _worker import array_bytes

    def read(path):
        if step is None:
            mesh = meshioplusplus.read(path)
            return mesh, array_bytes(mesh)
        with getattr(meshioplusplus, file_format).TimeSeriesReader(path) as reader:
            if not reader.mesh_follows_step:
                reader.read_points_cells()  # the mesh, as VTK's output and 17.21's read give it
            _, point_data, cell_data = reader.read_data(step)
            return (reader.mesh, point_data, cell_data), array_bytes(reader.mesh) + data_bytes(point_data, cell_data)

    return read


def old_reader(file_format, step):
    import meshioplusplus
    from _worker import array_bytes

    module = meshioplusplus.lsdyna_d3plot if file_format == "d3plot" else meshioplusplus.ensight

    def read(path):
        mesh = module.read(path, time_step=step or 0)
        try:
            return mesh, array_bytes(mesh)
        except (AttributeError, TypeError):
            return mesh, 0

    return read


def vtk_reader(file_format, step):
    import vtk
    from _worker import vtk_array_bytes

    def read(path):
        if file_format == "d3plot":
            reader = vtk.vtkLSDynaReader()
            reader.SetFileName(path)
            reader.UpdateInformation()
            for kind in ("Point", "Solid", "ThickShell", "Shell", "Beam", "Particle", "RigidBody", "RoadSurface"):
                for k in range(getattr(reader, f"GetNumberOf{kind}Arrays")()):
                    getattr(reader, f"Set{kind}ArrayStatus")(k, 1)
        else:
            reader = vtk.vtkGenericEnSightReader()
            reader.SetCaseFileName(path)
            reader.ReadAllVariablesOn()
            reader.UpdateInformation()
        if step is None:
            reader.Update()
        else:
            times = reader.GetOutputInformation(0).Get(vtk.vtkStreamingDemandDrivenPipeline.TIME_STEPS())
            reader.UpdateTimeStep(times[step])
        output = reader.GetOutput()
        leaves = output.NewIterator()
        leaves.InitTraversal()
        total = 0
        while not leaves.IsDoneWithTraversal():
            total += vtk_array_bytes(leaves.GetCurrentDataObject())
            leaves.GoToNextItem()
        return output, total

    return read


# ---- inputs, cache, table ----------------------------------------------------------------------

def write_inputs(formats):
    if "d3plot" in formats and not D3PLOT.exists():
        subprocess.run([sys.executable, str(BENCH_DIR / "make_d3plot.py"), "--size", "100", "--states", str(STEPS),
                        "--out", str(D3PLOT.parent)], check=True)
    if "ensight" in formats and not ENSIGHT.exists():
        import meshioplusplus

        ENSIGHT.parent.mkdir(parents=True, exist_ok=True)
        points, tets, temperature, _ = tet_box(56)
        with meshioplusplus.ensight.TimeSeriesWriter(str(ENSIGHT)) as writer:
            writer.write_points_cells(points, [("tetra", tets)])
            for k in range(STEPS):
                writer.write_data(1e-3 * k, point_data={"temperature": temperature * (1 + 0.01 * k)})


def drop_from_page_cache(folder):
    """Evicts the data set's pages (and only them) so the next process reads them from disk."""
    os.sync()
    for entry in os.scandir(folder):
        if entry.is_file():
            fd = os.open(entry.path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def megabytes(result, key):
    if not result or "error" in result or key not in result:
        return "—"
    return f"{result[key] / 1e6:.0f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="d3plot,ensight")
    parser.add_argument("--package-dir", help="a build's python/ folder holding meshioplusplus (e.g. build/dev/python)")
    parser.add_argument("--skip", default="", help="tools to leave out: ours,VTK,17.21")
    args = parser.parse_args()
    formats = args.only.split(",")
    if args.package_dir:
        sys.path.insert(0, str(pathlib.Path(args.package_dir).resolve()))
    write_inputs(formats)
    print(f"# Results readers, {datetime.date.today()}: {machine_description()}")
    print(f"# best of {args.repeat} in one fresh process per cell; MB read = the first (cold) read's "
          "/proc/self/io read_bytes / rchar\n")
    print("| case | read | ours | VTK | 17.21 | VTK/ours | 17.21/ours | MB read_bytes ours/VTK/17.21 "
          "| MB rchar ours/VTK/17.21 | peak RSS MB ours/VTK/17.21 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    skip = set(args.skip.split(",")) - {""}
    for file_format in formats:
        path = D3PLOT if file_format == "d3plot" else ENSIGHT
        for which in ("first", str(STEPS - 1)):
            results = {}
            for name, tool in TOOLS:
                if name in skip:
                    continue
                python = OLD_MPP_PYTHON if tool == "results-meshioplusplus17" else sys.executable
                drop_from_page_cache(path.parent)
                package = args.package_dir if tool == "results-meshioplusplus" else None
                results[name] = run_worker(python, tool, "read", f"{file_format}:{which}", path, args.repeat,
                                           timeout=900, package_dir=package)
                if "error" in results[name]:
                    print(f"#   {name} {file_format}:{which}: {results[name]['error']}", file=sys.stderr)
            ours, vtk, old = (results.get(n) for n in ("ours", "VTK", "17.21"))
            triple = lambda key: "/".join(megabytes(r, key) for r in (ours, vtk, old))  # noqa: E731
            rss = "/".join(megabytes(r, "peak_rss_over_baseline_bytes") for r in (ours, vtk, old))
            print(f"| {file_format} | {'first step' if which == 'first' else 'step ' + which + ' alone'} "
                  f"| {format_seconds(ours)} | {format_seconds(vtk)} | {format_seconds(old)} | {ratio(vtk, ours)} "
                  f"| {ratio(old, ours)} | {triple('io_read_bytes')} | {triple('io_rchar')} | {rss} |", flush=True)


if __name__ == "__main__":
    main()
