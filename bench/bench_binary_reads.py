"""Binary VTU/VTK reads and the raw VTU write against VTK, in ONE process (issue 17's recipe).

The 1.04 M-cell bracket (make_bracket.py 0.02) is read with our reader, a float64 point field is
added, and it is written by us as appended-raw VTU (binary, no compression) and as binary legacy
VTK. Both tools then read each file in the same process, best of N, meshio++ on one thread by
default (``--threads``). The machine's CPU model, THP mode and kernel are printed with the table.

    python bench/bench_binary_reads.py [--repeat 7] [--threads 1] [--mesh-size 0.02]
                                       [--thp always,madvise,never]

``--thp`` (root only) switches the kernel's transparent-huge-page mode before each table and
restores it afterwards: issue 17 asks for the figures under all three modes. Each row gives the
best wall time and, beside it, the best process CPU time (user + system, all threads), which a
busy machine disturbs far less than the wall clock.
"""

import os

# numpy's OpenBLAS threads spin after start-up and would take a core from the timed code.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import pathlib
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import DATA_DIR, machine_description, transparent_huge_pages  # noqa: E402

THP_CONTROL = pathlib.Path("/sys/kernel/mm/transparent_hugepage/enabled")

MAKE_BRACKET = pathlib.Path(__file__).resolve().parents[2] / "shared" / "tools" / "make_bracket.py"


def bracket(mesh_size):
    folder = DATA_DIR / f"bracket-{mesh_size}"
    source = folder / "bracket-4.1-binary.msh"
    if not source.exists():
        if not MAKE_BRACKET.exists():
            sys.exit(f"needs {MAKE_BRACKET} (the project's shared tools) to make the bracket mesh")
        subprocess.run([sys.executable, str(MAKE_BRACKET), str(folder), str(mesh_size)], check=True)
    return source



def best_wall_and_cpu(repeat, action):
    import time

    wall = cpu = float("inf")
    for _ in range(repeat):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        action()
        wall = min(wall, time.perf_counter() - start_wall)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def set_thp(mode):
    try:
        THP_CONTROL.write_text(mode)
    except OSError as error:
        sys.exit(f"cannot set THP mode {mode!r} ({error}); --thp needs root")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1, help="meshio++ threads (0: all cores)")
    parser.add_argument("--mesh-size", default="0.02")
    parser.add_argument("--thp", default="", help="comma-separated THP modes to run under (root)")
    args = parser.parse_args()

    import vtk

    import meshioplusplus as mio
    from meshioplusplus import _core

    mio.set_num_threads(args.threads or None)
    mesh = mio.read(bracket(args.mesh_size))
    mesh.point_data["T"] = np.sin(mesh.points[:, 0]) + mesh.points[:, 1]
    cells = sum(len(b) for b in mesh.cells)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="bench-binary-"))
    raw_vtu, legacy = folder / "bracket-raw.vtu", folder / "bracket-binary.vtk"
    mio.write(raw_vtu, mesh, binary=True, compression=None, appended=True)
    mio.write(legacy, mesh, binary=True)

    def ours(path, fmt):
        return lambda: _core.read(str(path), fmt)

    def vtk_xml():
        reader = vtk.vtkXMLUnstructuredGridReader()
        reader.SetFileName(str(raw_vtu))
        reader.Update()

    def vtk_legacy():
        reader = vtk.vtkUnstructuredGridReader()
        reader.SetFileName(str(legacy))
        reader.ReadAllScalarsOn()
        reader.Update()

    xml_reader = vtk.vtkXMLUnstructuredGridReader()
    xml_reader.SetFileName(str(raw_vtu))
    xml_reader.Update()
    grid = xml_reader.GetOutput()
    written = folder / "vtk-written.vtu"

    def vtk_write():
        writer = vtk.vtkXMLUnstructuredGridWriter()
        writer.SetFileName(str(written))
        writer.SetInputData(grid)
        writer.SetDataModeToAppended()
        writer.EncodeAppendedDataOff()
        writer.SetCompressorTypeToNone()
        writer.Write()

    ours_written = folder / "ours-written.vtu"

    def table():
        best = lambda action: best_wall_and_cpu(args.repeat, action)  # noqa: E731
        rows = [
            (f"raw VTU read ({raw_vtu.stat().st_size / 1e6:.0f} MB)", best(ours(raw_vtu, "vtu")), best(vtk_xml)),
            (f"legacy VTK binary read ({legacy.stat().st_size / 1e6:.0f} MB)", best(ours(legacy, "vtk")),
             best(vtk_legacy)),
            ("raw VTU write", best(lambda: mio.write(ours_written, mesh, binary=True, compression=None, appended=True)),
             best(vtk_write)),
        ]
        print(f"machine: {machine_description()}")
        print(f"mesh: {len(mesh.points)} points, {cells} cells; best of {args.repeat}; meshio++ threads: "
              f"{mio.get_num_threads()}; VTK {vtk.vtkVersion.GetVTKVersion()}; load average "
              f"{os.getloadavg()[0]:.2f}")
        print(f"{'operation':<36} {'meshio++':>10} {'VTK':>10} {'VTK/ours':>9}   {'CPU: ours':>10} {'VTK':>9} "
              f"{'VTK/ours':>9}")
        for label, (mine, mine_cpu), (theirs, theirs_cpu) in rows:
            print(f"{label:<36} {mine * 1e3:7.1f} ms {theirs * 1e3:7.1f} ms {theirs / mine:8.2f}x   "
                  f"{mine_cpu * 1e3:7.1f} ms {theirs_cpu * 1e3:6.1f} ms {theirs_cpu / mine_cpu:8.2f}x")

    modes = [mode for mode in args.thp.split(",") if mode]
    original = transparent_huge_pages()
    try:
        for mode in modes or [None]:
            if mode:
                set_thp(mode)
            table()
            print()
    finally:
        if modes and original in ("always", "madvise", "never"):
            set_thp(original)
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
