"""Binary VTU/VTK reads and the raw VTU write against VTK, in ONE process (issue 17's recipe).

The 1.04 M-cell bracket (make_bracket.py 0.02) is read with our reader, a float64 point field is
added, and it is written by us as appended-raw VTU (binary, no compression) and as binary legacy
VTK. Both tools then read each file in the same process, best of N, meshio++ on one thread by
default (``--threads``). The machine's CPU model, THP mode and kernel are printed with the table.

    python bench/bench_binary_reads.py [--repeat 7] [--threads 1] [--mesh-size 0.02]
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
from common import best_of, DATA_DIR, machine_description  # noqa: E402

MAKE_BRACKET = pathlib.Path(__file__).resolve().parents[2] / "shared" / "tools" / "make_bracket.py"


def bracket(mesh_size):
    folder = DATA_DIR / f"bracket-{mesh_size}"
    source = folder / "bracket-4.1-binary.msh"
    if not source.exists():
        if not MAKE_BRACKET.exists():
            sys.exit(f"needs {MAKE_BRACKET} (the project's shared tools) to make the bracket mesh")
        subprocess.run([sys.executable, str(MAKE_BRACKET), str(folder), str(mesh_size)], check=True)
    return source



def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1, help="meshio++ threads (0: all cores)")
    parser.add_argument("--mesh-size", default="0.02")
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
    rows = [
        (f"raw VTU read ({raw_vtu.stat().st_size / 1e6:.0f} MB)", best_of(args.repeat, ours(raw_vtu, "vtu")),
         best_of(args.repeat, vtk_xml)),
        (f"legacy VTK binary read ({legacy.stat().st_size / 1e6:.0f} MB)", best_of(args.repeat, ours(legacy, "vtk")),
         best_of(args.repeat, vtk_legacy)),
        ("raw VTU write", best_of(args.repeat, lambda: mio.write(ours_written, mesh, binary=True, compression=None,
                                                                 appended=True)),
         best_of(args.repeat, vtk_write)),
    ]
    print(f"machine: {machine_description()}")
    print(f"mesh: {len(mesh.points)} points, {cells} cells; best of {args.repeat}; meshio++ threads: "
          f"{mio.get_num_threads()}; VTK {vtk.vtkVersion.GetVTKVersion()}")
    print(f"{'operation':<36} {'meshio++':>10} {'VTK':>10} {'VTK/ours':>9}")
    for label, mine, theirs in rows:
        print(f"{label:<36} {mine * 1e3:8.1f} ms {theirs * 1e3:8.1f} ms {theirs / mine:8.2f}x")
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
