#!/usr/bin/env python3
"""Exodus II, MED and CGNS on the tet box of common.tet_box: meshio++ against meshio (netCDF4
and h5py underneath) and against the floor — the library reading the same variables/datasets
into arrays (netCDF4 for Exodus, h5py's read_direct into preallocated arrays for MED and CGNS),
which any reader of these files must at least do.

usage: python bench/bench_exodus_cgns_med.py [--size N] [--repeat R] [--only exodus,med,cgns]
  N=56 -> 1,053,696 tets, 185,193 points and a float64 point field (Exodus, MED; meshio's CGNS
  writer writes no data).
Input files are written by meshio; the write columns time each tool writing the same mesh.
Times are the best of R runs in this process (page cache warm for every tool alike).
"""

import argparse
import datetime
import tempfile
import warnings

import numpy as np

from common import best_of, DATA_DIR, machine_description, tet_box

EXTENSIONS = {"exodus": ".e", "med": ".med", "cgns": ".cgns"}



def floor_exodus(path):
    import netCDF4

    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        points = np.ascontiguousarray(nc["coord"][:].T)  # meshio writes one (num_dim, num_nodes) "coord"
        connectivity = nc["connect1"][:]
        data = nc["vals_nod_var1"][0]
    return points, connectivity, data


def floor_h5py(path, datasets):
    import h5py

    arrays = []
    with h5py.File(path, "r") as f:
        for name in datasets:
            dataset = f[name]
            out = np.empty(dataset.shape, dataset.dtype)
            dataset.read_direct(out)
            arrays.append(out)
    return arrays


MED_STEP = "ENS_MAA/mesh/-0000000000000000001-0000000000000000001"
FLOORS = {
    "exodus": floor_exodus,
    "med": lambda path: floor_h5py(path, [f"{MED_STEP}/NOE/COO", f"{MED_STEP}/MAI/TE4/NOD",
                                          "CHA/T/0000000000000000000100000000000000000001/NOE/MED_NO_PROFILE_INTERNAL/CO"]),
    "cgns": lambda path: floor_h5py(path, [f"Base/Zone1/GridCoordinates/Coordinate{c}/ data" for c in "XYZ"]
                                    + ["Base/Zone1/GridElements/ElementConnectivity/ data"]),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="exodus,med,cgns")
    args = parser.parse_args()

    import meshio

    import meshioplusplus

    points, tets, temperature, _ = tet_box(args.size)
    with_data = {"T": temperature}
    DATA_DIR.mkdir(exist_ok=True)
    print(f"# {datetime.date.today()} {machine_description()}")
    print(f"# tet box N={args.size}: {len(tets):,} tets, {len(points):,} points; best of {args.repeat}")
    print("| format | meshio read | meshio++ read | floor read | read vs meshio | read vs floor "
          "| meshio write | meshio++ write | write vs meshio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.only.split(","):
        point_data = {} if name == "cgns" else with_data
        meshio_mesh = meshio.Mesh(points, [("tetra", tets)], point_data=point_data)
        ours = meshioplusplus.Mesh(points, [("tetra", tets)], point_data=point_data)
        path = DATA_DIR / f"tetbox-{args.size}{EXTENSIONS[name]}"
        if not path.exists():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                meshio.write(path, meshio_mesh, file_format=name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            meshio_read = best_of(args.repeat, lambda: meshio.read(path, file_format=name))
        ours_read = best_of(args.repeat, lambda: meshioplusplus.read(path, file_format=name))
        floor_read = best_of(args.repeat, lambda: FLOORS[name](path))
        with tempfile.TemporaryDirectory(dir=DATA_DIR) as scratch:
            target = f"{scratch}/out{EXTENSIONS[name]}"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                meshio_write = best_of(args.repeat, lambda: meshio.write(target, meshio_mesh, file_format=name))
            ours_write = best_of(args.repeat, lambda: meshioplusplus.write(target, ours, file_format=name))
        print(f"| {name} | {meshio_read * 1e3:.0f} ms | {ours_read * 1e3:.0f} ms | {floor_read * 1e3:.0f} ms "
              f"| {meshio_read / ours_read:.1f}x | {ours_read / floor_read:.2f} "
              f"| {meshio_write * 1e3:.0f} ms | {ours_write * 1e3:.0f} ms | {meshio_write / ours_write:.1f}x |")


if __name__ == "__main__":
    main()
