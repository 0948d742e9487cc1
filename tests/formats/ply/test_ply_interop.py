"""PLY through meshio++ and meshio, both directions, ascii and binary."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module

VARIANTS = {"ascii": {"binary": False}, "binary": {"binary": True}}

# Every cell type PLY holds, each block with its own corner count: both readers split faces
# into blocks where the corner count changes (meshio names 1/2/3/4/other corners vertex, line,
# triangle, quad, polygon), so this order reads back as written.
CELLS = [
    ("vertex", np.array([[0], [7]])),
    ("line", np.array([[0, 1], [1, 2], [5, 9]])),
    ("triangle", np.array([[0, 1, 2], [2, 1, 3]])),
    ("quad", np.array([[2, 3, 4, 5], [6, 7, 8, 9]])),
    ("polygon", np.array([[0, 1, 2, 3, 4, 5, 6], [3, 4, 5, 6, 7, 8, 9]])),
]

# Point data dtypes each meshio reader takes (property names as we write them).
ASCII_DTYPES = (np.float64, np.float32, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)
# meshio 5.3.5's binary reader has no "char", "short" or "ushort" and reads "uchar" as signed
# (see test_meshio_binary_reader_type_table).
BINARY_DTYPES = (np.float64, np.float32, np.int32, np.uint32, np.int64, np.uint64)


def point_data(dtypes, num_points=10):
    rng = np.random.default_rng(2)
    data = {}
    for dtype in dtypes:
        name = np.dtype(dtype).name
        if np.issubdtype(dtype, np.floating):
            data[name] = rng.random(num_points).astype(dtype)
        else:
            info = np.iinfo(dtype)
            data[name] = rng.integers(info.min, info.max, num_points, dtype=dtype, endpoint=True)
    return data


def ply_mesh(dtypes, cell_data=False, cells=CELLS):
    rng = np.random.default_rng(9)
    data = {}
    if cell_data:
        data = {"quality": [rng.random(len(c)) for _, c in cells],
                "part": [rng.integers(-5, 5, len(c)).astype(np.int32) for _, c in cells]}
    return mio.Mesh(rng.random((10, 3)), cells, point_data=point_data(dtypes), cell_data=data)


def assert_points_cells_point_data(read, mesh):
    np.testing.assert_array_equal(np.asarray(read.points), np.asarray(mesh.points))
    assert [c.type for c in read.cells] == [c.type for c in mesh.cells]
    for x, y in zip(read.cells, mesh.cells):
        np.testing.assert_array_equal(np.asarray(x.data), np.asarray(y.data))
    assert set(read.point_data) == set(mesh.point_data)
    for name, value in mesh.point_data.items():
        got = np.asarray(read.point_data[name])
        np.testing.assert_array_equal(got, np.asarray(value))
        assert got.dtype == np.asarray(value).dtype, name


@pytest.mark.parametrize("variant", VARIANTS)
def test_our_files_read_equal_in_meshio(tmp_path, variant):
    meshio = meshio_module()
    binary = VARIANTS[variant]["binary"]
    # meshio's binary reader cannot take face properties (test_meshio_binary_reader_face_properties).
    mesh = ply_mesh(BINARY_DTYPES if binary else ASCII_DTYPES, cell_data=not binary)
    path = tmp_path / f"ours_{variant}.ply"
    mio.ply.write(path, mesh, **VARIANTS[variant])
    theirs = meshio.read(path)
    ours = mio.read(path)
    # Both store every value in its own type: exact (ascii numbers are shortest round-trip).
    assert_points_cells_point_data(theirs, mesh)
    assert_points_cells_point_data(ours, mesh)
    for read in (theirs, ours):
        assert set(read.cell_data) == set(mesh.cell_data)
        for name, arrays in mesh.cell_data.items():
            for got, want in zip(read.cell_data[name], arrays):
                np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
                assert np.asarray(got).dtype == np.asarray(want).dtype


@pytest.mark.parametrize("variant", VARIANTS)
def test_meshio_files_read_equal_in_ours(tmp_path, variant):
    meshio = meshio_module()
    mesh = ply_mesh(ASCII_DTYPES)
    # int32 connectivity: meshio's writer casts int64 blocks of the caller's mesh in place.
    theirs = meshio.Mesh(np.asarray(mesh.points), [(t, c.astype(np.int32)) for t, c in CELLS],
                         point_data={k: np.asarray(v) for k, v in mesh.point_data.items()})
    path = tmp_path / f"theirs_{variant}.ply"
    meshio.ply.write(path, theirs, **VARIANTS[variant])
    # meshio writes "{}".format(value) (shortest round-trip) in ascii, raw values in binary:
    # exact either way; every dtype under its own name, incl. int16/int8 ("int16", "int8").
    assert_points_cells_point_data(mio.read(path), mesh)


@pytest.mark.parametrize("variant", VARIANTS)
def test_meshio_cannot_read_list_properties(tmp_path, variant):
    # meshio 5.3.5 parses "property list uchar double v" as a scalar of type "list uchar
    # double": KeyError. We write (n, k) point data as fixed-length lists and read them back.
    meshio = meshio_module()
    mesh = ply_mesh((), cells=CELLS[2:3])
    mesh.point_data["v"] = np.random.default_rng(0).random((10, 3))
    path = tmp_path / f"lists_{variant}.ply"
    mio.ply.write(path, mesh, **VARIANTS[variant])
    with pytest.raises(KeyError, match="list uchar double"):
        meshio.read(path)
    np.testing.assert_array_equal(np.asarray(mio.read(path).point_data["v"]), mesh.point_data["v"])


def test_meshio_binary_reader_face_properties(tmp_path):
    # meshio 5.3.5's binary reader assumes vertex_indices is the only face property: with
    # any other (per-face records interleave them) it misparses the face list.
    meshio = meshio_module()
    mesh = ply_mesh((), cell_data=True)
    path = tmp_path / "face_props.ply"
    mio.ply.write(path, mesh, binary=True)
    with pytest.raises(ValueError, match="buffer size"):
        meshio.read(path)
    ours = mio.read(path)
    for name, arrays in mesh.cell_data.items():
        for got, want in zip(ours.cell_data[name], arrays):
            np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint16])
def test_meshio_binary_reader_type_table(tmp_path, dtype):
    # meshio 5.3.5's binary reader lacks "char", "short" and "ushort" (the PLY names its
    # ascii reader and the specification use).
    meshio = meshio_module()
    mesh = ply_mesh((dtype,), cells=CELLS[2:3])
    path = tmp_path / "types.ply"
    mio.ply.write(path, mesh, binary=True)
    with pytest.raises(KeyError):
        meshio.read(path)


def test_meshio_binary_reader_uchar_is_signed(tmp_path):
    # meshio 5.3.5's binary reader maps "uchar" to "i1": values above 127 come back negative.
    meshio = meshio_module()
    mesh = ply_mesh((), cells=CELLS[2:3])
    mesh.point_data["u"] = np.arange(120, 130, dtype=np.uint8)
    path = tmp_path / "uchar.ply"
    mio.ply.write(path, mesh, binary=True)
    got = meshio.read(path).point_data["u"]
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, mesh.point_data["u"].astype(np.int8))
    np.testing.assert_array_equal(np.asarray(mio.read(path).point_data["u"]), mesh.point_data["u"])


@pytest.mark.parametrize("variant", VARIANTS)
def test_meshio_cannot_read_planar_points(tmp_path, variant):
    # meshio 5.3.5 needs x, y and z properties (ascii: IndexError, binary: no field "z"); we
    # write 2-D points as x, y and read them back as (n, 2).
    meshio = meshio_module()
    points = np.random.default_rng(4).random((4, 2))
    path = tmp_path / f"planar_{variant}.ply"
    mio.ply.write(path, mio.Mesh(points, [("triangle", np.array([[0, 1, 2], [1, 2, 3]]))]), **VARIANTS[variant])
    with pytest.raises(IndexError if variant == "ascii" else ValueError):
        meshio.read(path)
    np.testing.assert_array_equal(np.asarray(mio.read(path).points), points)
