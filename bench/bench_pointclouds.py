#!/usr/bin/env python3
"""Point clouds (issue 34): PCD and the XYZ family, meshio++ against pypcd4 (PCD), numpy's
loadtxt/savetxt (XYZ) and meshio++ 17.21, each timed in a fresh process, best of N.

usage: PYTHONPATH=build/<dir>/python python bench/bench_pointclouds.py [--points N] [--repeat R]
       [--before build/<other>/python]   (adds a column: the same statements with that package,
                                          timed in the same run, for before/after tables)
The cloud (N = 1,200,000 random points: float32 x y z, intensity, packed rgb) is written by
our writer in every PCD encoding and as .xyz (x y z r g b) into bench/data/pointclouds/.
"""

import argparse
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data" / "pointclouds"
PEER = ROOT / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"


def timed(python, setup, statement, repeat, package_dir=None):
    """Best wall time of `statement` after `setup`, each run in a fresh process."""
    code = textwrap.dedent(
        f"""
        import time
        {setup}
        t = time.perf_counter()
        {statement}
        print(time.perf_counter() - t)
        """
    )
    best = None
    env = dict(os.environ)
    if python != sys.executable:
        env.pop("PYTHONPATH", None)
    if package_dir is not None:
        env["PYTHONPATH"] = package_dir
    for _ in range(repeat):
        run = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env)
        if run.returncode != 0:
            return None, run.stderr.strip().splitlines()[-1][:80] if run.stderr.strip() else "failed"
        value = float(run.stdout.split()[-1])
        best = value if best is None else min(best, value)
    return best, ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=1_200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", help="another build's python folder, timed alongside (before/after)")
    args = parser.parse_args()
    import meshioplusplus as mio

    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(34)
    n = args.points
    points = rng.random((n, 3), dtype=np.float32) * 100
    colours = rng.integers(0, 256, (n, 3), dtype=np.uint8)
    packed = (colours[:, 0].astype(np.uint32) << 16) | (colours[:, 1].astype(np.uint32) << 8) | colours[:, 2]
    cells = [("vertex", np.arange(n).reshape(-1, 1))]
    pcd_mesh = mio.Mesh(points, cells, point_data={"intensity": rng.random(n, dtype=np.float32), "rgb": packed})
    xyz_mesh = mio.Mesh(points.astype(np.float64), cells,
                        point_data={"red": colours[:, 0], "green": colours[:, 1], "blue": colours[:, 2]})
    files = {}
    for data in ("ascii", "binary", "binary_compressed"):
        files[data] = DATA / f"cloud-{n}-{data}.pcd"
        mio.write(str(files[data]), pcd_mesh, data=data)
    files["xyz"] = DATA / f"cloud-{n}.xyz"
    mio.write(str(files["xyz"]), xyz_mesh)
    # numpy's loadtxt/savetxt and 17.21 get the same .xyz without the "//X Y Z R G B" line.
    plain = DATA / f"cloud-{n}-plain.xyz"
    plain.write_bytes(files["xyz"].read_bytes().split(b"\n", 1)[1])

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"# {n:,} points; CPU: {cpu}; {os.cpu_count()} cores; best of {args.repeat} fresh processes; load before: {load}\n")
    before_header = " meshio++ --before | ×before |" if args.before else ""
    print("| operation | meshio++ | reference | ratio | meshio++ 17.21 | ratio |" + before_header)
    print("|---|---|---|---|---|---|" + ("---|---|" if args.before else ""))
    ours_setup = "import meshioplusplus as m"
    rows = []
    for data in ("ascii", "binary", "binary_compressed"):
        path = files[data]
        rows.append((f"PCD read {data}", f"m.read({str(path)!r})",
                     ("import pypcd4", f"pypcd4.PointCloud.from_path({str(path)!r}).pc_data"),
                     f"m.read({str(path)!r})"))
        out = DATA / f"out-{data}.pcd"
        rows.append((f"PCD write {data}", f"m.write({str(out)!r}, x, data={data!r})",
                     (f"import pypcd4; pc = pypcd4.PointCloud.from_path({str(path)!r})",
                      f"pc.save({str(out)!r}, encoding=pypcd4.Encoding.{data.upper()})"),
                     f"m.write({str(out)!r}, x, data={data!r})", f"x = m.read({str(path)!r})"))
    rows.append(("XYZ read (x y z r g b)", f"m.read({str(files['xyz'])!r})",
                 ("import numpy as np", f"np.loadtxt({str(plain)!r})"), f"m.read({str(plain)!r}, 'xyz')"))
    out = DATA / "out.xyz"
    rows.append(("XYZ write", f"m.write({str(out)!r}, x)",
                 (f"import numpy as np; t0 = np.loadtxt({str(plain)!r})", f"np.savetxt({str(out)!r}, t0, fmt='%.17g %.17g %.17g %d %d %d')"),
                 f"m.write({str(out)!r}, x, 'xyz')", f"x = m.read({str(files['xyz'])!r})"))
    for row in rows:
        name, ours_statement, (ref_setup, ref_statement), peer_statement = row[:4]
        extra_setup = row[4] if len(row) > 4 else ""
        ours, _ = timed(sys.executable, ours_setup + "; " + extra_setup if extra_setup else ours_setup, ours_statement, args.repeat)
        reference, ref_error = timed(sys.executable, ref_setup, ref_statement, args.repeat)
        peer, peer_error = (None, "not installed")
        if PEER.exists():
            peer, peer_error = timed(PEER, ours_setup + ("; " + extra_setup if extra_setup else ""), peer_statement, args.repeat)
        fmt = lambda s, e: f"{s * 1000:.0f} ms" if s is not None else f"— ({e})"
        ratio = lambda other: f"{other / ours:.1f}×" if other is not None and ours else "—"
        before_cells = ""
        if args.before:
            setup = ours_setup + "; " + extra_setup if extra_setup else ours_setup
            before, before_error = timed(sys.executable, setup, ours_statement, args.repeat, package_dir=args.before)
            before_cells = f" {fmt(before, before_error)} | {ratio(before)} |"
        print(f"| {name} | {fmt(ours, '')} | {fmt(reference, ref_error)} | {ratio(reference)} | {fmt(peer, peer_error)} | {ratio(peer)} |{before_cells}", flush=True)
    print("\n# load after: " + " ".join(f"{v:.2f}" for v in os.getloadavg()) + " (1, 5, 15 min): above the core count, times are stretched")


if __name__ == "__main__":
    main()
