#!/usr/bin/env python3
"""glTF 2.0 (.glb): meshio++ against trimesh and meshio++ 17.21, read and write, on a
triangulated sphere of >= 1 M triangles written by our writer (with NORMAL).

usage: python bench/bench_gltf.py [--subdivisions 8] [--repeat 3]
Each timing runs in a fresh process (import excluded), best of --repeat.
"""

import argparse
import pathlib
import subprocess
import sys

import numpy as np

from common import DATA_DIR, OLD_MPP_PYTHON, machine_description

READ = {
    "meshio++": "import meshioplusplus as m; t=time.perf_counter(); x=m.read(P); n=len(x.cells[0].data)",
    "trimesh": "import trimesh; t=time.perf_counter(); s=trimesh.load(P, process=False); n=sum(len(g.faces) for g in s.geometry.values()) if hasattr(s,'geometry') else len(s.faces)",
    "meshio++ 17.21": "import meshioplusplus as m; t=time.perf_counter(); x=m.read(P); n=len(x.cells[0].data)",
}
WRITE = {
    "meshio++": "import meshioplusplus as m; x=m.read(P); t=time.perf_counter(); m.write(Q, x); n=len(x.cells[0].data)",
    "trimesh": "import trimesh; s=trimesh.load(P, process=False); t=time.perf_counter(); s.export(Q); n=0",
    "meshio++ 17.21": "import meshioplusplus as m; x=m.read(P); t=time.perf_counter(); m.write(Q, x); n=len(x.cells[0].data)",
}


def timed(python, statement, path, out, env_path):
    code = f"import time; P={str(path)!r}; Q={str(out)!r}\n{statement}\nprint(time.perf_counter()-t, n)"
    env = {"PYTHONPATH": env_path}  # the 17.21 peer must not see our build
    import os

    result = subprocess.run([python, "-c", code], capture_output=True, text=True, env={**os.environ, **env}, timeout=900)
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[-1][:120]
    seconds, count = result.stdout.split()[-2:]
    return float(seconds), int(count)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--subdivisions", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import meshioplusplus as mio
    import trimesh

    DATA_DIR.mkdir(parents=True, exist_ok=True)
    path = DATA_DIR / f"sphere-{args.subdivisions}.glb"
    if not path.exists():
        sphere = trimesh.creation.icosphere(subdivisions=args.subdivisions)
        mesh = mio.Mesh(np.asarray(sphere.vertices, dtype=np.float32), [("triangle", np.asarray(sphere.faces))],
                        point_data={"NORMAL": np.asarray(sphere.vertex_normals, dtype=np.float32)})
        mio.write(path, mesh)
    print(f"# glTF .glb, {path.name}, {path.stat().st_size / 1e6:.1f} MB; {machine_description()}")
    ours_path = ":".join(p for p in sys.path if "build" in p)
    pythons = {"meshio++": (sys.executable, ours_path), "trimesh": (sys.executable, ours_path),
               "meshio++ 17.21": (str(OLD_MPP_PYTHON), "")}
    results = {}
    for kind, statements in (("read", READ), ("write", WRITE)):
        for tool, statement in statements.items():
            python, env_path = pythons[tool]
            best, detail = None, ""
            for _ in range(args.repeat):
                out = pathlib.Path(DATA_DIR) / f"bench-out-{tool.replace(' ', '_')}.glb"
                seconds, detail = timed(python, statement, path, out, env_path)
                if seconds is None:
                    break
                best = seconds if best is None else min(best, seconds)
            results[(kind, tool)] = best
            shown = f"{best:.3f} s" if best is not None else f"failed: {detail}"
            print(f"{kind:5} {tool:15} {shown}  (triangles {detail})" if best is not None else f"{kind:5} {tool:15} {shown}")
    for kind in ("read", "write"):
        ours = results[(kind, "meshio++")]
        for peer in ("trimesh", "meshio++ 17.21"):
            theirs = results[(kind, peer)]
            if ours and theirs:
                print(f"{kind}: meshio++ is {theirs / ours:.1f}x {peer}")


if __name__ == "__main__":
    main()
