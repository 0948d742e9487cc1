#!/usr/bin/env python3
"""The HDF5 family — XDMF (HDF heavy data), HMF, H5M — on the tet box of common.tet_box:
meshio++ against meshio (h5py underneath) and against the floor, h5py's read_direct of the
same datasets into preallocated arrays (what any reader of these files must at least do).

usage: python bench/bench_hdf5.py [--size N] [--repeat R] [--compression gzip|none]
  N=56 -> 1,053,696 tets, 185,193 points, a float64 point field and an int32 cell field.
Input files are written by meshio; the write columns time each tool writing the same mesh.
Times are the best of R runs in this process (page cache warm for every tool alike).
"""

import argparse
import datetime
import tempfile
import warnings

import numpy as np

from common import best_of, DATA_DIR, machine_description, tet_box

FORMATS = {"xdmf": ".xdmf", "hmf": ".hmf", "h5m": ".h5m"}



def datasets_of(path, name):
    """(h5 file, [dataset paths]) the format's read needs: the floor reads exactly these."""
    if name == "xdmf":
        return path.with_suffix(".h5"), None  # every dataset of the heavy-data file
    if name == "hmf":
        return path, None
    return path, ["/tstt/nodes/coordinates", "/tstt/elements/Tet4/connectivity", "/tstt/nodes/tags/T"]


def h5py_floor(h5_path, names):
    import h5py

    with h5py.File(h5_path, "r") as f:
        if names is None:
            names = []
            f.visititems(lambda key, item: names.append(key) if isinstance(item, h5py.Dataset) else None)
        for key in names:
            dataset = f[key]
            out = np.empty(dataset.shape, dtype=dataset.dtype)
            if out.size:
                dataset.read_direct(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compression", choices=["gzip", "none"], default="none")
    args = parser.parse_args()

    import meshio

    import meshioplusplus as mio

    points, tets, temperature, material = tet_box(args.size)
    mesh = meshio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}, cell_data={"m": [material]})
    ours_mesh = mio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}, cell_data={"m": [material]})
    compression = None if args.compression == "none" else "gzip"
    DATA_DIR.mkdir(exist_ok=True)
    print(f"# HDF5 family, {len(tets):,} tets / {len(points):,} points, compression={args.compression}")
    print(f"# {machine_description()}, {datetime.date.today()}, best of {args.repeat}")
    print("| format | meshio read | meshio++ read | h5py read_direct floor | read vs meshio | read vs floor "
          "| meshio write | meshio++ write | write vs meshio |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(dir=DATA_DIR) as folder:
        for name, extension in FORMATS.items():
            # meshio 5.3.5's H5M writer fails on cell data (it iterates the per-block list as a dict).
            theirs_mesh = meshio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}) if name == "h5m" else mesh
            our_mesh = mio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}) if name == "h5m" else ours_mesh
            theirs = DATA_DIR / f"hdf5-{name}-{args.size}-{args.compression}{extension}"
            write_kwargs = {"compression": compression}
            if compression is None and name != "xdmf":  # meshio's h5py call rejects a level without a filter
                write_kwargs["compression_opts"] = None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                meshio.write(theirs, theirs_mesh, file_format=name, **write_kwargs)
                meshio_read = best_of(args.repeat, lambda: meshio.read(theirs, file_format=name))
                target = f"{folder}/meshio{extension}"
                meshio_write = best_of(args.repeat, lambda: meshio.write(target, theirs_mesh, file_format=name, **write_kwargs))
            ours_read = best_of(args.repeat, lambda: mio.read(theirs, file_format=name))
            floor = best_of(args.repeat, lambda: h5py_floor(*datasets_of(theirs, name)))
            ours_target = f"{folder}/ours{extension}"
            ours_write = best_of(args.repeat, lambda: mio.write(ours_target, our_mesh, file_format=name, **write_kwargs))
            print(f"| {name} | {meshio_read * 1e3:.1f} ms | {ours_read * 1e3:.1f} ms | {floor * 1e3:.1f} ms "
                  f"| {meshio_read / ours_read:.2f}x | {ours_read / floor:.2f}x of floor "
                  f"| {meshio_write * 1e3:.1f} ms | {ours_write * 1e3:.1f} ms | {meshio_write / ours_write:.2f}x |")


if __name__ == "__main__":
    main()
