"""Reading less from Gmsh MSH and legacy VTK (issue 35): read_metadata and points_only reads
against the full read, each in a fresh process (best of 3), on the ~1 M-tet bracket.

    PYTHONPATH=build/<dir>/python python bench/bench_read_less_gmsh_vtk.py

Inputs: bench/data/bracket/bracket-*.msh (make_bracket); the VTK files are written here from
the MSH 4.1 binary one by our writer. The 17.21 peer's full read is timed beside ours.
"""
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "bracket"
PEER = HERE / ".venv-meshioplusplus-17" / "bin" / "python"

TIMED = """
import sys, time
import meshioplusplus._core as c
path, fmt, what = sys.argv[1:4]
start = time.perf_counter()
if what == "full": c.read(path, fmt)
elif what == "metadata": c.read_metadata(path, fmt)
else: c.read_selected(path, fmt, points_only=True)
print(time.perf_counter() - start)
"""
PEER_TIMED = """
import sys, time
import meshioplusplus as m
start = time.perf_counter()
m.read(sys.argv[1])
print(time.perf_counter() - start)
"""


def best(command):
    times = []
    for _ in range(3):
        out = subprocess.run(command, capture_output=True, text=True)
        if out.returncode != 0:
            return None
        times.append(float(out.stdout.split()[-1]))
    return min(times)


def main():
    import meshioplusplus._core as core

    files = [(DATA / f"bracket-{v}.msh", "gmsh") for v in ("4.1-binary", "4.1-ascii", "2.2-binary", "2.2-ascii")]
    mesh = core.read(str(files[0][0]), "gmsh")
    for binary in ("true", "false"):
        path = DATA / f"bracket-{'binary' if binary == 'true' else 'ascii'}.vtk"
        if not path.exists():
            core.write(str(path), mesh, "vtk", {"binary": binary})
        files.append((path, "vtk"))
    print(f"{'file':28} {'full s':>8} {'metadata s':>11} {'%':>6} {'points_only s':>14} {'%':>6} {'17.21 full s':>13}")
    for path, fmt in files:
        full, metadata, points = (best([sys.executable, "-c", TIMED, str(path), fmt, what])
                                  for what in ("full", "metadata", "points"))
        peer = best([str(PEER), "-c", PEER_TIMED, str(path)]) if PEER.exists() else None
        print(f"{path.name:28} {full:8.4f} {metadata:11.5f} {100 * metadata / full:6.2f} {points:14.4f} "
              f"{100 * points / full:6.1f} {peer if peer is None else f'{peer:13.4f}'}")


if __name__ == "__main__":
    main()
