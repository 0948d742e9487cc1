"""Compressed HDF5 datasets: meshio++ compresses deflate chunks on every core and stores them
with H5Dwrite_chunk, and inflates deflate-only chunks itself (H5Dread_chunk). Here against
h5py both ways: gzip files h5py writes (h5py's own chunk shapes, which split rows; chunks
never written, with a fill value; shuffle + gzip and big-endian data, which take HDF5's own
path) read by us, files we write read by h5py as ordinary deflate chunks, and the thread
count changing nothing. C++ side: tests/io/test_hdf5_deflate.cpp.

Large uncompressed datasets take a sibling path on reads: their bytes are read with pread at
H5Dget_offset on every core. Here: h5py files in every variant read right (native contiguous
ones by that path, unfiltered chunks by pread per chunk; big-endian data, a user block, int32
cells by HDF5's), whatever the thread count, and h5py reads the large datasets we write. C++ side: tests/io/test_hdf5_file.cpp."""

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

pytestmark = pytest.mark.skipif(not _core.hdf5_available(), reason="built without HDF5 (install libhdf5-dev and rebuild)")
h5py = pytest.importorskip("h5py")

XDMF = """<?xml version="1.0"?>
<Xdmf Version="3.0"><Domain><Grid Name="mesh" GridType="Uniform">
<Geometry GeometryType="XYZ"><DataItem DataType="Float" Dimensions="{n} 3" Format="HDF" Precision="8">heavy.h5:/points</DataItem></Geometry>
<Topology TopologyType="Tetrahedron" NumberOfElements="{m}"><DataItem DataType="Int" Dimensions="{m} 4" Format="HDF" Precision="{cp}">heavy.h5:/cells</DataItem></Topology>
<Attribute Name="T" AttributeType="Scalar" Center="Node"><DataItem DataType="Float" Dimensions="{n}" Format="HDF" Precision="{tp}">heavy.h5:/T</DataItem></Attribute>
</Grid></Domain></Xdmf>
"""


def tet_data(n=20000, m=60000, seed=3):
    rng = np.random.default_rng(seed)
    points = np.round(rng.random((n, 3)) * 100, 2)
    cells = np.sort(rng.integers(0, n, size=(m, 4)), axis=1)
    temperature = np.round(rng.random(n), 3)
    return points, cells, temperature


def write_xdmf(folder, arrays, file_kwargs=None, **dataset_kwargs):
    """An XDMF file whose heavy data h5py writes with `dataset_kwargs` (per name, or for all)
    into a file h5py opens with `file_kwargs`."""
    points, cells, temperature = arrays
    per_name = {name: dataset_kwargs.pop(name, {}) for name in ("points", "cells", "T")}
    with h5py.File(folder / "heavy.h5", "w", **(file_kwargs or {})) as f:
        for name, data in (("points", points), ("cells", cells), ("T", temperature)):
            f.create_dataset(name, data=data, **{**dataset_kwargs, **per_name[name]})
    (folder / "mesh.xdmf").write_text(
        XDMF.format(n=len(points), m=len(cells), cp=cells.dtype.itemsize, tp=temperature.dtype.itemsize)
    )
    return folder / "mesh.xdmf"


def check(mesh, points, cells, temperature):
    np.testing.assert_array_equal(mesh.points, points)
    np.testing.assert_array_equal(mesh.cells[0].data, cells)
    np.testing.assert_array_equal(mesh.point_data["T"], temperature)


def narrowed_as_asked(kwargs, points, cells, temperature):
    """The arrays as a write with `kwargs` stores them: int32 cells come with float32 T."""
    if kwargs.get("cells", {}).get("dtype") == "i4":
        return points, cells.astype(np.int32), temperature.astype(np.float32)
    return points, cells, temperature


def check_on_one_and_four_threads(path, points, cells, temperature):
    for threads in (1, 4):
        _core.set_thread_count(threads)
        try:
            check(mio.read(path), points, cells, temperature)
        finally:
            _core.set_thread_count(0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"compression": "gzip"},  # h5py's chunk guess: (k, 1) columns for cells and points
        {"compression": "gzip", "compression_opts": 9, "points": {"chunks": (1000, 3)}, "cells": {"chunks": (777, 4)}},
        {"compression": "gzip", "points": {"chunks": (333, 2)}, "cells": {"chunks": (50000, 3)}, "T": {"chunks": (20000,)}},
        {"compression": "gzip", "shuffle": True},  # shuffle + deflate: HDF5's own pipeline
        {"compression": "gzip", "fletcher32": True},
        {"compression": "gzip", "points": {"dtype": ">f8"}, "cells": {"dtype": ">i8"}},  # big-endian: HDF5 converts
        {"compression": "gzip", "cells": {"dtype": "i4"}, "T": {"dtype": "f4"}},  # narrower dtypes, widened
    ],
    ids=["h5py-chunks", "level9-row-chunks", "column-chunks", "shuffle", "fletcher32", "big-endian", "narrow"],
)
def test_we_read_gzip_files_h5py_writes(tmp_path, kwargs):
    points, cells, temperature = narrowed_as_asked(kwargs, *tet_data())
    path = write_xdmf(tmp_path, (points, cells, temperature), **kwargs)
    check_on_one_and_four_threads(path, points, cells, temperature)


def test_chunks_never_written_read_as_the_fill_value(tmp_path):
    points, cells, temperature = tet_data()
    path = write_xdmf(tmp_path, (points, cells, temperature), compression="gzip")
    with h5py.File(tmp_path / "heavy.h5", "a") as f:
        del f["T"]
        t = f.create_dataset("T", shape=temperature.shape, dtype="f8", chunks=(1000,), compression="gzip", fillvalue=-7.5)
        t[3000:5500] = temperature[3000:5500]  # chunks 3, 4 and 5; the others stay unallocated
        del f["cells"]
        c = f.create_dataset("cells", shape=cells.shape, dtype=cells.dtype, chunks=(4096, 4), compression="gzip")
        c[:8192] = cells[:8192]
    expected_t = np.full_like(temperature, -7.5)
    expected_t[3000:5500] = temperature[3000:5500]
    expected_c = np.zeros_like(cells)
    expected_c[:8192] = cells[:8192]
    mesh = mio.read(path)
    np.testing.assert_array_equal(mesh.point_data["T"], expected_t)
    np.testing.assert_array_equal(mesh.cells[0].data, expected_c)


def test_h5py_reads_the_deflate_chunks_we_write(tmp_path):
    points, cells, temperature = tet_data(n=70000, m=200000)
    mesh = mio.Mesh(points, [("tetra", cells)], point_data={"T": temperature})
    stored = {}
    for threads in (1, 3):
        _core.set_thread_count(threads)
        try:
            path = tmp_path / f"out{threads}.hmf"
            mio.write(path, mesh)
        finally:
            _core.set_thread_count(0)
        with h5py.File(path, "r") as f:
            datasets = []
            f.visititems(lambda key, item: datasets.append(key) if isinstance(item, h5py.Dataset) else None)
            chunks = {}
            for key in datasets:
                dataset = f[key]
                if dataset.compression != "gzip":
                    continue
                assert dataset.chunks[1:] == dataset.shape[1:]  # whole rows
                values = dataset[()]
                if values.ndim == 2 and values.shape == cells.shape:
                    np.testing.assert_array_equal(values, cells)
                if values.shape == points.shape:
                    np.testing.assert_array_equal(values, points)
                chunks[key] = [
                    dataset.id.read_direct_chunk((row,) + (0,) * (dataset.ndim - 1))
                    for row in range(0, dataset.shape[0], dataset.chunks[0])
                ]
            assert any(len(c) > 1 for c in chunks.values()), "expected datasets of several chunks"
            stored[threads] = chunks
        back = mio.read(path)
        np.testing.assert_array_equal(back.points, points)
        np.testing.assert_array_equal(back.cells[0].data, cells)
    assert stored[1] == stored[3]  # the same bytes whatever the thread count


def test_meshio_reads_our_gzip_xdmf(tmp_path):
    meshio = pytest.importorskip("meshio")
    if not hasattr(meshio, "xdmf") or "meshioplusplus" in (getattr(meshio, "__file__", "") or ""):
        pytest.skip("the meshio on the path is not meshio itself")
    points, cells, temperature = tet_data()
    path = tmp_path / "ours.xdmf"
    mio.write(path, mio.Mesh(points, [("tetra", cells)], point_data={"T": temperature}))
    theirs = meshio.read(path)
    np.testing.assert_array_equal(theirs.points, points)
    np.testing.assert_array_equal(theirs.cells[0].data, cells)
    np.testing.assert_array_equal(theirs.point_data["T"], temperature)


def test_corrupt_chunk_in_an_h5py_file_is_a_read_error(tmp_path):
    points, cells, temperature = tet_data()
    path = write_xdmf(tmp_path, (points, cells, temperature), compression="gzip", cells={"chunks": (10000, 4)})
    with h5py.File(tmp_path / "heavy.h5", "r") as f:
        _, chunk = f["cells"].id.read_direct_chunk((10000, 0))
    raw = bytearray((tmp_path / "heavy.h5").read_bytes())
    at = raw.find(chunk)
    assert at > 0
    raw[at + 20 : at + 60] = bytes(40)
    (tmp_path / "heavy.h5").write_bytes(bytes(raw))
    with pytest.raises(mio.ReadError, match="cells"):
        mio.read(path)


# ---- large uncompressed datasets: read as raw bytes at H5Dget_offset, on every core ----


@pytest.mark.parametrize(
    "variant",
    [
        {},  # contiguous, native order: the raw path
        {"points": {"dtype": ">f8"}, "cells": {"dtype": ">i8"}},  # big-endian: HDF5 swaps
        {"file_kwargs": {"userblock_size": 512}},  # offsets after a user block: HDF5's path
        {"cells": {"dtype": "<i4"}},  # int32 cells: read as they are
        {"points": {"chunks": (4096, 3)}},  # chunked without a filter: pread per chunk
    ],
    ids=["native", "big-endian", "userblock", "int32", "chunked"],
)
def test_we_read_large_uncompressed_h5py_files(tmp_path, variant):
    points, cells, temperature = tet_data(n=200000, m=200000)  # 4.8 and 6.4 MB
    variant = dict(variant)
    path = write_xdmf(tmp_path, (points, cells, temperature), **variant)
    for threads in (1, 3):
        _core.set_thread_count(threads)
        try:
            mesh = mio.read(path)
        finally:
            _core.set_thread_count(0)
        check(mesh, points, cells, temperature)


def test_h5py_reads_the_large_contiguous_datasets_we_write(tmp_path):
    points, cells, temperature = tet_data(n=200000, m=300000)
    mesh = mio.Mesh(points, [("tetra", cells)], point_data={"T": temperature})
    path = tmp_path / "out.xdmf"
    mio.write(path, mesh, compression=None)
    vtkhdf = tmp_path / "out.vtkhdf"
    mio.write(vtkhdf, mesh)
    with h5py.File(path.with_suffix(".h5"), "r") as f:
        big = [f[key] for key in f if isinstance(f[key], h5py.Dataset) and f[key].nbytes >= 4 << 20]
        assert len(big) == 2  # points and cells: what the raw read path reads back
        for dataset in big:
            assert dataset.chunks is None and dataset.compression is None  # contiguous
            assert dataset.id.get_offset() is not None
            expected = points if dataset.shape == points.shape else cells
            np.testing.assert_array_equal(dataset[()], expected)
    with h5py.File(vtkhdf, "r") as f:
        np.testing.assert_array_equal(f["VTKHDF/Points"][()], points)
        assert f["VTKHDF/Connectivity"].chunks is None
        np.testing.assert_array_equal(f["VTKHDF/Connectivity"][()], cells.ravel())
    for written in (path, vtkhdf):
        back = mio.read(written)
        np.testing.assert_array_equal(back.points, points)
        np.testing.assert_array_equal(back.cells[0].data, cells)


# Unfiltered chunks (VTK's vtkHDFWriter chunks every dataset, uncompressed, extendable): read
# with pread at each chunk's address on every core. Whole-row chunks with a partial last one,
# chunks that split rows (copied from scratch), chunks never written (the fill value), and
# big-endian ones (HDF5's own path), whatever the thread count.
@pytest.mark.parametrize(
    "kwargs",
    [
        {"points": {"chunks": (1000, 3), "maxshape": (None, 3)}, "cells": {"chunks": (777, 4), "maxshape": (None, 4)},
         "T": {"chunks": (25000,), "maxshape": (None,)}},
        {"chunks": True},  # h5py's guess
        {"points": {"chunks": (333, 2)}, "cells": {"chunks": (50000, 3)}, "T": {"chunks": (20000,)}},
        {"chunks": True, "points": {"dtype": ">f8"}, "cells": {"dtype": ">i8"}},
        {"chunks": True, "cells": {"dtype": "i4"}, "T": {"dtype": "f4"}},
    ],
    ids=["vtk-like-rows", "h5py-chunks", "column-chunks", "big-endian", "narrow"],
)
def test_we_read_unfiltered_chunks_h5py_writes(tmp_path, kwargs):
    points, cells, temperature = narrowed_as_asked(kwargs, *tet_data())
    path = write_xdmf(tmp_path, (points, cells, temperature), **kwargs)
    with h5py.File(tmp_path / "heavy.h5", "r") as f:
        assert all(f[name].chunks is not None and f[name].compression is None for name in ("points", "cells", "T"))
    check_on_one_and_four_threads(path, points, cells, temperature)


def test_unfiltered_chunks_never_written_read_as_the_fill_value(tmp_path):
    points, cells, temperature = tet_data()
    path = write_xdmf(tmp_path, (points, cells, temperature), chunks=True)
    with h5py.File(tmp_path / "heavy.h5", "a") as f:
        del f["T"]
        t = f.create_dataset("T", shape=temperature.shape, dtype="f8", chunks=(1000,), fillvalue=-7.5)
        t[3000:5500] = temperature[3000:5500]  # chunks 3, 4 and 5; the others stay unallocated
    expected = np.full_like(temperature, -7.5)
    expected[3000:5500] = temperature[3000:5500]
    np.testing.assert_array_equal(mio.read(path).point_data["T"], expected)

