"""Issue 36: the VTU ASCII and legacy VTK ASCII writers format their lines on all cores
(io/output/parallel_rows.hpp) and write the same bytes on 1 and 2 threads; every array reads
back. The sections are above the 4096-row threshold, so the parallel path is taken, and the
mesh has what makes the line layout irregular: blocks of several types and sizes (cell data
whose 1-D parts do not fill their last line), 2-D float32 points (padded to 3), NaN/inf,
int8/uint8/int32/int64 arrays, scalars, vectors, tensors and field data."""

import os

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

SIZES = [5003, 4099, 4101]


def mixed_mesh():
    rng = np.random.default_rng(36)
    n = 9001
    points = (rng.standard_normal((n, 2)) * np.array([1e-7, 1e5])).astype(np.float32)
    points[:3] = [[np.nan, np.inf], [-np.inf, -0.0], [1e-40, 3.4e38]]
    cells = [("triangle", rng.integers(0, n, (SIZES[0], 3))), ("quad", rng.integers(0, n, (SIZES[1], 4))),
             ("wedge", rng.integers(0, n, (SIZES[2], 6)))]
    f = rng.standard_normal(n)
    f[:4] = [np.nan, np.inf, -np.inf, -0.0]
    point_data = {
        "f64": f,
        "scalars": f.reshape(-1, 1).copy(),
        "i32": rng.integers(-2**31, 2**31 - 1, n).astype(np.int32),
        "u8": rng.integers(0, 255, n).astype(np.uint8),
        "i8": rng.integers(-128, 127, n).astype(np.int8),
        "vec": rng.standard_normal((n, 3)).astype(np.float32),
        "tensor": rng.standard_normal((n, 3, 3)),
        "i64": rng.integers(-2**62, 2**62, (n, 2)),
    }
    cell_data = {
        "mat": [np.full(s, i, dtype=np.int32) for i, s in enumerate(SIZES)],
        "v": [rng.standard_normal(s).astype(np.float32) for s in SIZES],
        "w": [rng.standard_normal((s, 2)) for s in SIZES],
    }
    field_data = {"fd": np.array([1.5, np.nan]), "k": np.arange(7, dtype=np.int64)}
    return mio.Mesh(points, cells, point_data=point_data, cell_data=cell_data, field_data=field_data)


def written_at(tmp_path, threads, mesh, name, **kwargs):
    _core.set_thread_count(threads)
    try:
        path = tmp_path / f"{threads}-{name}"
        mio.write(path, mesh, binary=False, **kwargs)
        return path
    finally:
        _core.set_thread_count(0)


@pytest.mark.parametrize(
    "name, kwargs",
    [("mesh.vtu", {}), ("mesh42.vtk", {"fmt_version": "4.2"}), ("mesh51.vtk", {"fmt_version": "5.1"})],
)
def test_same_bytes_on_one_and_two_threads_and_reads_back(tmp_path, name, kwargs):
    mesh = mixed_mesh()
    one = written_at(tmp_path, 1, mesh, name, **kwargs)
    two = written_at(tmp_path, 2, mesh, name, **kwargs)
    assert one.read_bytes() == two.read_bytes()
    back = mio.read(two)
    np.testing.assert_array_equal(back.points[:, :2], mesh.points)  # shortest form: exact, NaN/inf included
    assert not back.points[:, 2].any()
    assert [block.type for block in back.cells] == ["triangle", "quad", "wedge"]
    for ours, theirs in zip(back.cells, mesh.cells):
        np.testing.assert_array_equal(ours.data, theirs.data)
    for key, array in mesh.point_data.items():
        np.testing.assert_array_equal(np.asarray(back.point_data[key]).reshape(array.shape), array, err_msg=key)
    for key, parts in mesh.cell_data.items():
        for ours, theirs in zip(back.cell_data[key], parts):
            np.testing.assert_array_equal(np.asarray(ours).reshape(theirs.shape), theirs, err_msg=key)
    for key, array in mesh.field_data.items():
        np.testing.assert_array_equal(np.asarray(back.field_data[key]).reshape(array.shape), array, err_msg=key)


@pytest.mark.parametrize("name, kwargs", [("poly.vtu", {}), ("poly42.vtk", {"fmt_version": "4.2"}),
                                          ("poly51.vtk", {"fmt_version": "5.1"})])
def test_polyhedra_same_bytes_on_one_and_two_threads(tmp_path, name, kwargs):
    """Polyhedra (face streams in the legacy CELLS/CONNECTIVITY, faces in the VTU), a real
    file's cells repeated past the parallel threshold."""
    source = mio.read(os.path.join(os.path.dirname(__file__), "..", "data", "vtk", "simucell3d_hexagonal_cell_layer.vtk"))
    polyhedra = [block for block in source.cells if block.type.startswith("polyhedron")]
    assert polyhedra
    block = polyhedra[0]
    # One block of 5000 polyhedra (parallel rows), then a triangle block after it.
    mesh = mio.Mesh(source.points, [(block.type, list(block.data) * 200), ("triangle", np.array([[0, 1, 2]] * 10))])
    one = written_at(tmp_path, 1, mesh, name, **kwargs)
    two = written_at(tmp_path, 2, mesh, name, **kwargs)
    assert one.read_bytes() == two.read_bytes()
    back = mio.read(two)
    assert [(b.type, len(b.data)) for b in back.cells] == [(block.type, 5000), ("triangle", 10)]
    for ours, theirs in zip(back.cells[0].data[::997], mesh.cells[0].data[::997]):
        assert [list(face) for face in ours] == [list(face) for face in theirs]


@pytest.mark.parametrize("name, kwargs", [("wide.vtu", {}), ("wide42.vtk", {"fmt_version": "4.2"})])
def test_lines_longer_than_a_chunk_stream_out_sequentially(tmp_path, name, kwargs):
    """Tuples of 70000 components (a line over the 2 MB chunk) take the value-by-value path,
    with the same bytes at any thread count."""
    rng = np.random.default_rng(7)
    mesh = mio.Mesh(rng.standard_normal((3, 3)), [("triangle", np.array([[0, 1, 2]]))],
                    point_data={"wide": rng.standard_normal((3, 70000))})
    one = written_at(tmp_path, 1, mesh, name, **kwargs)
    two = written_at(tmp_path, 2, mesh, name, **kwargs)
    assert one.read_bytes() == two.read_bytes()
    np.testing.assert_array_equal(mio.read(two).point_data["wide"], mesh.point_data["wide"])
