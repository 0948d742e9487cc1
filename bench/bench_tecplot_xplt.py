"""Tecplot binary .plt and FEBio .xplt: meshio++ against meshio++ 17.21 (and febio-python for
.xplt) on the bracket mesh (make_bracket.py, ~1 M tetrahedra), fresh processes, best of N.

The .plt input is written by our writer (float64, point data T and cell data p); the .xplt input
by meshio++ 17.21's xplt writer (the only .xplt writer on PyPI; FEBio's plot version 0x35), a
series of STEPS states of a nodal vector. Laziness: read_step(k) of the last state against the
first (each reads only its own chunk).

Usage: python bench/bench_tecplot_xplt.py [REPEATS] [STEPS]"""

import os
import pathlib
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import DATA_DIR, OLD_MPP_PYTHON, machine_description  # noqa: E402

BRACKET = DATA_DIR / "bracket" / "bracket-4.1-binary.msh"
OUT = DATA_DIR / "tecplot_xplt"


def timed(python, code, *args, env=None):
    """Seconds the snippet's own timer reports (import excluded), in a fresh process."""
    result = subprocess.run([str(python), "-c", code, *map(str, args)], check=True, capture_output=True, text=True, env=env)
    return float(result.stdout.strip().splitlines()[-1])


READ = ("import sys, time, meshioplusplus as m\nt = time.perf_counter()\nme = m.read(sys.argv[1])\n"
        "print(time.perf_counter() - t)")
WRITE = ("import sys, time, numpy as np, meshioplusplus as m\nd = np.load(sys.argv[1])\n"
         "mesh = m.Mesh(d['points'], [('tetra', d['cells']), ('triangle', d['triangles'])], point_data={'T': d['T']},"
         " cell_data={'p': [d['p'], d['p_triangles']]})\n"
         "t = time.perf_counter()\nm.write(sys.argv[2], mesh)\nprint(time.perf_counter() - t)")
FEBIO_PYTHON = ("import sys, time\nfrom febio_python.xplt import Xplt\nt = time.perf_counter()\nx = Xplt(sys.argv[1])\n"
                "print(time.perf_counter() - t)")
# The core reader's read_step alone (the mesh parsed before, as a reader that walks the steps has).
STEP = ("import sys, time, meshioplusplus as m\nr = m.xplt.TimeSeriesReader(sys.argv[1])._reader\nk = int(sys.argv[2])\n"
        "r.read_mesh()\nt = time.perf_counter()\nr.read_step(k)\nprint(time.perf_counter() - t)")


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    import meshioplusplus as mio

    OUT.mkdir(parents=True, exist_ok=True)
    mesh = mio.read(BRACKET)
    tets = next(c.data for c in mesh.cells if c.type == "tetra")
    triangles = next(c.data for c in mesh.cells if c.type == "triangle")
    points = np.asarray(mesh.points, dtype=float)
    arrays = OUT / "bracket.npz"
    np.savez(arrays, points=points, cells=tets, triangles=triangles, T=points[:, 0].copy(),
             p=np.arange(len(tets), dtype=float), p_triangles=np.arange(len(triangles), dtype=float))
    plt = OUT / "bracket.plt"
    xplt = OUT / "bracket.xplt"
    peer_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # 17.21's own package
    ours = pathlib.Path(sys.executable)

    rows = []
    write_ours = min(timed(ours, WRITE, arrays, plt) for _ in range(repeats))
    write_peer = min(timed(OLD_MPP_PYTHON, WRITE, arrays, OUT / "peer.plt", env=peer_env) for _ in range(repeats))
    rows.append((".plt write", write_ours, write_peer, None))
    read_ours = min(timed(ours, READ, plt) for _ in range(repeats))
    read_peer = min(timed(OLD_MPP_PYTHON, READ, plt, env=peer_env) for _ in range(repeats))
    rows.append((".plt read", read_ours, read_peer, None))

    if not xplt.exists():
        code = ("import sys, numpy as np, meshioplusplus as m\nd = np.load(sys.argv[1])\n"
                "with m.xplt.SeriesWriter(sys.argv[2]) as w:\n"
                "    for k in range(int(sys.argv[3])):\n"
                "        w.write(float(k), m.Mesh(d['points'], [('tetra', d['cells']), ('triangle', d['triangles'])],"
                " point_data={'displacement': d['points'] * 1e-3 * k}))\n")
        subprocess.run([str(OLD_MPP_PYTHON), "-c", code, str(arrays), str(xplt), str(steps)], check=True, env=peer_env)
    read_ours = min(timed(ours, READ, xplt) for _ in range(repeats))
    read_peer = min(timed(OLD_MPP_PYTHON, READ, xplt, env=peer_env) for _ in range(repeats))
    try:
        febio = timed(ours, FEBIO_PYTHON, xplt)
    except subprocess.CalledProcessError:
        febio = None
    rows.append((".xplt read (first state)", read_ours, read_peer, febio))
    first = min(timed(ours, STEP, xplt, 0) for _ in range(repeats))
    last = min(timed(ours, STEP, xplt, steps - 1) for _ in range(repeats))

    print(machine_description())
    print(f"bracket: {len(points)} points, {len(tets)} tetrahedra + {len(triangles)} triangles; .plt {plt.stat().st_size >> 20} MiB, "
          f".xplt {xplt.stat().st_size >> 20} MiB ({steps} states)")
    print(f"{'case':28s} {'meshio++':>10s} {'17.21':>10s} {'ratio':>7s} {'febio-python':>13s}")
    for name, a, b, c in rows:
        print(f"{name:28s} {a:10.3f} {b:10.3f} {b / a:7.2f} {'' if c is None else f'{c:13.3f}'}")
    print(f"xplt read_data(first state) {first:.4f} s, read_data(last state) {last:.4f} s")


if __name__ == "__main__":
    main()
