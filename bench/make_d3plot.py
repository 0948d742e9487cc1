#!/usr/bin/env python3
"""A d3plot family for the results benchmarks (bench/bench_results.py): N³ hexahedra of a unit
cube and K states of displacements, velocities and solid stresses.

usage: python bench/make_d3plot.py [--size N] [--states K] [--out DIR]
  default N = 100 (1,000,000 hexahedra, 1,030,301 nodes), K = 100, DIR bench/data/d3plot/hex-N-K

The layout is LS-DYNA's "Database Binary Output" as src/cpp/formats/d3plot reads it (and
lasso-python's D3plot and VTK's vtkLSDynaReader): 4-byte little-endian words; 64 control words
(NDIM 4, no NARBS numbering section, no EXTRA words); the coordinates; the solids (8 one-based
nodes and the material per element); the end marker -999999.0; zero padding to a 512-word
record. Then state k alone in d3plot{k+1:02d}: time, NGLBV = 6 + 7 * parts global words, the
current coordinates (NUMNP x 3: LS-DYNA stores positions where the manual says displacement),
the velocities (NUMNP x 3), per solid NV3D = 7 words (stress xx yy zz xy yz zx, effective
plastic strain: one integration point), then the end marker and zero padding to 512 words.
One state a file is what LS-DYNA writes for states larger than its family file size.
"""

import argparse
import pathlib
import time

import numpy as np

BENCH_DIR = pathlib.Path(__file__).resolve().parent
RECORD_WORDS = 512
END_MARKER = np.float32(-999999.0)


def write_words(path, arrays):
    with open(path, "wb") as handle:
        total = 0
        for array in arrays:
            handle.write(np.ascontiguousarray(array).tobytes())
            total += array.size
        handle.write(END_MARKER.tobytes())
        total += 1
        handle.write(b"\0" * (4 * ((-total) % RECORD_WORDS)))


def hex_grid(cells_per_side):
    n = cells_per_side + 1
    axis = np.linspace(0.0, 1.0, n, dtype=np.float32)
    x, y, z = np.meshgrid(axis, axis, axis, indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), z.ravel()]).astype("<f4")
    i, j, k = np.meshgrid(*(np.arange(cells_per_side, dtype=np.int32),) * 3, indexing="ij")
    base = (i * n * n + j * n + k).ravel()
    # LS-DYNA's (and VTK's) hexahedron: the bottom face (z = k) counter-clockwise, then the top.
    corner = lambda di, dj, dk: base + di * n * n + dj * n + dk  # noqa: E731
    hexes = np.column_stack([corner(0, 0, 0), corner(1, 0, 0), corner(1, 1, 0), corner(0, 1, 0),
                             corner(0, 0, 1), corner(1, 0, 1), corner(1, 1, 1), corner(0, 1, 1)])
    return points, hexes.astype("<i4")


def control_words(num_nodes, num_solids, num_global):
    words = np.zeros(64, dtype="<i4")
    title = b"meshio++ bench d3plot".ljust(40)
    words[0:10] = np.frombuffer(title, dtype="<i4")
    words[11] = 1          # file type: d3plot
    words[13] = np.frombuffer(b"R13 ", dtype="<i4")[0]  # release
    words[14] = np.array([960.0], dtype="<f4").view("<i4")[0]  # version
    words[15] = 4          # NDIM: 3-D, no material type section
    words[16] = num_nodes  # NUMNP
    words[17] = 6          # ICODE
    words[18] = num_global  # NGLBV
    words[19] = 0          # IT
    words[20] = 1          # IU
    words[21] = 1          # IV
    words[22] = 0          # IA
    words[23] = num_solids  # NEL8
    words[24] = 1          # NUMMAT8
    words[27] = 7          # NV3D: stress 6 + effective plastic strain, one integration point
    words[30] = 6          # NV1D (no beams)
    words[33] = 32         # NV2D (no shells)
    words[36] = 3          # MAXINT
    words[43:47] = 1000    # IOSHL1-4: stress, plastic strain, forces, thickness/energy written
    words[51] = 1          # NMMAT
    return words


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--states", type=int, default=100)
    parser.add_argument("--out", type=pathlib.Path)
    args = parser.parse_args()
    out = args.out or BENCH_DIR / "data" / "d3plot" / f"hex-{args.size}-{args.states}"
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    points, hexes = hex_grid(args.size)
    num_nodes, num_solids, num_parts = len(points), len(hexes), 1
    num_global = 6 + 7 * num_parts
    solids = np.column_stack([hexes + 1, np.ones(num_solids, dtype="<i4")])  # one-based nodes, material 1
    header = control_words(num_nodes, num_solids, num_global)
    write_words(out / "d3plot", [header, points.ravel().view("<i4"), solids.ravel()])

    # States: smooth fields that change from state to state, so each state's values differ.
    shape = np.column_stack([np.sin(3 * points[:, 0]), np.cos(2 * points[:, 1]), points[:, 2] ** 2]).astype("<f4")
    centres = points[hexes].mean(axis=1)
    stress_shape = np.column_stack([centres, centres[:, ::-1], np.linalg.norm(centres, axis=1)]).astype("<f4")
    for k in range(args.states):
        t = np.float32(1e-3 * k)
        globals_ = np.arange(1, num_global + 1, dtype="<f4") * (1 + t)
        positions = points + shape * (0.01 * k)
        velocity = shape * np.float32(0.01 / 1e-3)
        stress = stress_shape * np.float32(k + 1)
        write_words(out / f"d3plot{k + 1:02d}", [np.array([t], "<f4"), globals_, positions.ravel(), velocity.ravel(),
                                                 stress.ravel()])
    size = sum(f.stat().st_size for f in out.iterdir())
    print(f"{out}: {num_nodes} nodes, {num_solids} hexahedra, {args.states} states, {size / 1e9:.2f} GB "
          f"in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
