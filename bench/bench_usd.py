"""USD text (.usda) read/write: meshio++ vs usd-core (Pixar) vs meshio++ 17.21, fresh processes,
best of N, on a >= 1M-triangle surface written by our writer (the boundary-free grid surface below;
the bracket's volume cells have no USD Mesh form). Usage: python bench/bench_usd.py [repeats]"""
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data" / "usd"
PEER = ROOT / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"
FILE = DATA / "grid_1m.usda"

MAKE = f"""
import numpy as np, meshioplusplus as m
n = 708
x, y = np.meshgrid(np.linspace(0, 1, n + 1), np.linspace(0, 1, n + 1))
points = np.column_stack([x.ravel(), y.ravel(), np.sin(3 * x.ravel()) * np.cos(2 * y.ravel())])
ids = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
a, b, c, d = ids[:-1, :-1].ravel(), ids[:-1, 1:].ravel(), ids[1:, 1:].ravel(), ids[1:, :-1].ravel()
tri = np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])])
m.write({str(FILE)!r}, m.Mesh(points, [("triangle", tri)], point_data={{"height": points[:, 2].copy()}}))
"""
CASES = {
    "meshio++ read": (sys.executable, f"import meshioplusplus as m; m.read({str(FILE)!r})"),
    "meshio++ write": (sys.executable, f"import meshioplusplus as m; x = m.read({str(FILE)!r}); import time; t = time.perf_counter(); m.write({str(DATA / 'out.usda')!r}, x); print(time.perf_counter() - t)"),
    "usd-core read": (sys.executable, f"from pxr import Usd, UsdGeom; import numpy as np; s = Usd.Stage.Open({str(FILE)!r}); g = UsdGeom.Mesh(s.GetPrimAtPath('/mesh')); np.asarray(g.GetPointsAttr().Get()); np.asarray(g.GetFaceVertexIndicesAttr().Get())"),
    "meshio++ 17.21 read": (str(PEER), f"import meshioplusplus as m; m.read({str(FILE)!r})"),
}


def run(python, code):
    start = time.perf_counter()
    result = subprocess.run([python, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "") if python == sys.executable else ""})
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[-1:] 
    return (float(result.stdout) if result.stdout.strip() else elapsed), None


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    DATA.mkdir(parents=True, exist_ok=True)
    if not FILE.exists():
        subprocess.run([sys.executable, "-c", MAKE], check=True)
    print(subprocess.run("lscpu | grep 'Model name'", shell=True, capture_output=True, text=True).stdout.strip())
    print(f"{FILE.name}: {FILE.stat().st_size / 1e6:.1f} MB")
    for name, (python, code) in CASES.items():
        if not Path(python).exists():
            print(f"{name:22s} skipped ({python} absent)")
            continue
        times, error = [], None
        for _ in range(repeats):
            seconds, error = run(python, code)
            if seconds is None:
                break
            times.append(seconds)
        print(f"{name:22s} " + (f"{min(times):.3f} s" if times else f"failed: {error}"))


if __name__ == "__main__":
    main()
