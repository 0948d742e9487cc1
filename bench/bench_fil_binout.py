#!/usr/bin/env python3
"""Abaqus .fil and LS-DYNA binout readers (issue 33): meshio++ against meshio++ 17.21
(`abaqus_fil` / `lsdyna_binout`, its own venv) and lasso-python's Binout. pybaqus (the ASCII
.fil reader of the interop tests) is not timed: it fails on the generated files (KeyError in its
node-to-element map), it reads only what Abaqus itself writes around the records.

usage: python bench/bench_fil_binout.py [--repeat N]
  fil     common.tet_box(56) (1,053,696 C3D4, 185,193 nodes) as a binary .fil (none of the tools
          writes .fil: the records are laid out by numpy here, in the documented binary layout),
          5 increments of U (n, 3) and S (one integration point, 6 components)
  binout  200 states of nodout (20,000 nodes × 6 variables, float32) and glstat, written with
          lasso-python's LSDA writer
Operations: `read` (meshioplusplus.read / 17.21's read / the reference's full read), and for
ours `step 0` vs `step last` (TimeSeriesReader.read_data(k) after opening): equal times say a
step reads only its own bytes. Fresh process per tool, best of N.
"""

import argparse
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from common import DATA_DIR, OLD_MPP_PYTHON, machine_description, tet_box  # noqa: E402

FIL = DATA_DIR / "abaqus_fil" / "tet-56-5increments.fil"
SMALL_FIL_ASCII = DATA_DIR / "abaqus_fil" / "tet-20.fil"  # 48,000 C3D4, ASCII
BINOUT = DATA_DIR / "binout" / "nodout-20000x200" / "binout"
INCREMENTS = 5


def words_of(table):
    """Rows of mixed int64/float64 columns → one int64 word array (floats by their bits)."""
    return np.ascontiguousarray(table).view(np.int64).ravel()


def fil_records(points, tets, increments):
    n, m = len(points), len(tets)
    node_ids = np.arange(1, n + 1)
    elem_ids = np.arange(1, m + 1)
    name = np.frombuffer(b"C3D4    ", dtype=np.int64)[0]
    chunks = []
    nodes = np.empty((n, 6), dtype=np.int64)
    nodes[:, 0], nodes[:, 1], nodes[:, 2] = 6, 1901, node_ids
    nodes[:, 3:] = points.view(np.int64)
    elements = np.empty((m, 8), dtype=np.int64)
    elements[:, 0], elements[:, 1], elements[:, 2], elements[:, 3] = 8, 1900, elem_ids, name
    elements[:, 4:] = tets + 1
    chunks += [elements.ravel(), nodes.ravel()]
    blank = np.frombuffer(b"        ", dtype=np.int64)[0]
    for k in range(1, increments + 1):
        start = np.zeros(23, dtype=np.int64)
        start[0], start[1] = 23, 2000
        start[2:4] = np.array([float(k), float(k)]).view(np.int64)
        start[6], start[7], start[8] = 1, 1, k
        start[13:] = blank
        chunks.append(start)
        chunks.append(np.array([5, 1911, 0, blank, name], dtype=np.int64))
        header = np.empty((m, 11), dtype=np.int64)
        header[:, 0], header[:, 1], header[:, 2], header[:, 3:6] = 11, 1, elem_ids, [1, 0, 0]
        header[:, 6], header[:, 7:] = blank, [3, 3, 0, 0]
        stress = np.empty((m, 8), dtype=np.int64)
        stress[:, 0], stress[:, 1] = 8, 11
        stress[:, 2:] = (np.random.default_rng(k).random((m, 6)) * k).view(np.int64)
        chunks.append(np.concatenate([header, stress], axis=1).ravel())
        chunks.append(np.array([4, 1911, 1, blank], dtype=np.int64))
        u = np.empty((n, 6), dtype=np.int64)
        u[:, 0], u[:, 1], u[:, 2] = 6, 101, node_ids
        u[:, 3:] = (points * 1e-3 * k).view(np.int64)
        chunks.append(u.ravel())
        chunks.append(np.array([2, 2001], dtype=np.int64))
    return np.concatenate(chunks)


def write_binary_fil(path, words):
    words = np.concatenate([words, np.zeros((-len(words)) % 512, dtype=np.int64)]).reshape(-1, 512)
    framed = np.empty((len(words), 4104), dtype=np.uint8)
    marker = np.frombuffer(np.int32(4096).tobytes(), dtype=np.uint8)
    framed[:, :4], framed[:, 4100:] = marker, marker
    framed[:, 4:4100] = words.view(np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    framed.tofile(path)


def write_ascii_fil(path, words_rows):
    def field(value):
        if isinstance(value, (int, np.integer)):
            digits = str(int(value))
            return f"I{len(digits):2d}{digits}"
        if isinstance(value, bytes):
            return "A" + value.decode()
        return "D" + f"{value:22.15E}".replace("E", "D")
    text = "".join("*" + "".join(field(v) for v in row) for row in words_rows)
    path.write_text("\n".join(text[i:i + 80] for i in range(0, len(text), 80)) + "\n")


def make_files():
    if not FIL.exists():
        points, tets, _, _ = tet_box(56)
        write_binary_fil(FIL, fil_records(points, tets, INCREMENTS))
    if not SMALL_FIL_ASCII.exists():
        points, tets, _, _ = tet_box(20)
        rows = [[6, 1901, i + 1, *map(float, p)] for i, p in enumerate(points)]
        rows = [[8, 1900, i + 1, b"C3D4    ", *map(int, t + 1)] for i, t in enumerate(tets)] + rows
        rows.insert(0, [9, 1921, b"6.23-1  ", b"07-Nov-2", b"024     ", b"16:50:01", len(tets), len(points), 0.05])
        rows.append([23, 2000, 1.0, 1.0, 0.0, 0.0, 1, 1, 1, 0, 0.0, 0.0, 1.0] + [b"        "] * 10)
        rows.append([4, 1911, 1, b"        "])
        rows += [[6, 101, i + 1, *map(float, p * 1e-3)] for i, p in enumerate(points)]
        rows.append([2, 2001])
        write_ascii_fil(SMALL_FIL_ASCII, rows)
    if not BINOUT.exists():
        from lasso.dyna.lsda_py3 import Lsda

        BINOUT.parent.mkdir(parents=True, exist_ok=True)
        out = Lsda(str(BINOUT), "w")
        rng = np.random.default_rng(0)
        for state in range(1, 201):
            t = 1e-4 * (state - 1)
            out.cd(f"/nodout/d{state:06d}")
            out.write("time", Lsda.R4, [t])
            for name in ("x_displacement", "y_displacement", "z_displacement", "x_velocity", "y_velocity", "z_velocity"):
                out.write(name, Lsda.R4, rng.random(20000, dtype=np.float32).tolist())
            out.cd(f"/glstat/d{state:06d}")
            out.write("time", Lsda.R4, [t])
            out.write("kinetic_energy", Lsda.R4, [float(state)])
        out.close()


OURS = {
    "read": "import meshioplusplus as m; m.read(PATH)",
    "step 0": "import meshioplusplus as m; r = m.{ns}.TimeSeriesReader(PATH); r.read_points_cells(); T0(); r.read_data(0)",
    "step last": "import meshioplusplus as m; r = m.{ns}.TimeSeriesReader(PATH); r.read_points_cells(); T0(); r.read_data(r.num_steps - 1)",
}


def timed(python, body, path, repeat, env=None):
    script = ("import sys, time\nPATH = sys.argv[1]\nstart = [0.0]\ndef T0(): start[0] = time.perf_counter()\n"
              "best = 1e30\nfor _ in range(int(sys.argv[2])):\n    start[0] = time.perf_counter()\n"
              + "\n".join("    " + line for line in body.split("; ")) +
              "\n    best = min(best, time.perf_counter() - start[0])\nprint(best)")
    run = subprocess.run([str(python), "-c", script, str(path), str(repeat)], capture_output=True, text=True, env=env, timeout=1800)
    if run.returncode != 0:
        return f"failed: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}"
    return float(run.stdout.split()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    make_files()
    peer_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    print(machine_description())
    rows = []
    for ns, path, peer_name in (("abaqus_fil", FIL, "abaqus_fil"), ("binout", BINOUT, "lsdyna_binout")):
        for op, body in OURS.items():
            rows.append((ns, op, "ours", timed(sys.executable, body.format(ns=ns), path, args.repeat)))
        if OLD_MPP_PYTHON.exists():
            rows.append((ns, "read", "17.21", timed(OLD_MPP_PYTHON, f"import meshioplusplus as m; m.read(PATH, file_format='{peer_name}')", path, args.repeat, peer_env)))
    rows.append(("binout", "read all", "lasso", timed(sys.executable, "from lasso.dyna.binout import Binout; b = Binout(PATH); [b.read('nodout', v) for v in ('x_displacement', 'y_displacement', 'z_displacement', 'x_velocity', 'y_velocity', 'z_velocity')]", BINOUT, args.repeat)))
    rows.append(("binout", "read all", "ours", timed(sys.executable, "import meshioplusplus as m; m.binout.read_databases(PATH)", BINOUT, args.repeat)))
    rows.append(("abaqus_fil (ASCII, 48k tets)", "read", "ours", timed(sys.executable, "import meshioplusplus as m; m.read(PATH)", SMALL_FIL_ASCII, args.repeat)))
    if OLD_MPP_PYTHON.exists():
        rows.append(("abaqus_fil (ASCII, 48k tets)", "read", "17.21", timed(OLD_MPP_PYTHON, "import meshioplusplus as m; m.read(PATH, file_format='abaqus_fil')", SMALL_FIL_ASCII, args.repeat, peer_env)))
    print(f"{'file':32} {'operation':10} {'tool':8} seconds")
    for file_name, op, tool, seconds in rows:
        print(f"{file_name:32} {op:10} {tool:8} {seconds if isinstance(seconds, str) else f'{seconds:.4f}'}")


if __name__ == "__main__":
    main()
