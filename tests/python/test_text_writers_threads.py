"""Issue 36: the text writers that format their rows on all cores (io/output/parallel_rows.hpp)
write the same bytes on 1 and 2 threads, and every row reads back (sections above the
4096-row threshold, so the parallel path is taken)."""

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core


def mesh_with_odd_numbers():
    rng = np.random.default_rng(36)
    points = rng.standard_normal((9000, 3)) * np.array([1e-7, 1e5, 1.0])
    points[:4] = [[0, 0, 0], [1, 2, 3], [-1.5, 1e20, 1e-300], [123456789.0, -0.0, 5e-5]]
    tetra = rng.integers(0, len(points), (12000, 4))
    return mio.Mesh(points, [("tetra", tetra)], cell_data={"mat": [np.arange(12000, dtype=np.int32)]})


@pytest.mark.parametrize(
    "file_format, suffix, kwargs",
    [
        ("nastran", "bdf", {}),
        ("nastran", "bdf", {"point_format": "free", "cell_format": "free"}),
        ("nastran", "bdf", {"point_format": "fixed-small", "cell_format": "fixed-large"}),
        ("abaqus", "inp", {}),
        ("abaqus", "inp", {"float_fmt": ".6E"}),
        ("su2", "su2", {}),
        ("dolfin-xml", "xml", {}),
    ],
)
def test_same_bytes_on_one_and_two_threads(tmp_path, file_format, suffix, kwargs):
    mesh = mesh_with_odd_numbers()
    written = {}
    for threads in (1, 2):
        _core.set_thread_count(threads)
        try:
            folder = tmp_path / str(threads)
            folder.mkdir()
            mio.write(folder / f"mesh.{suffix}", mesh, file_format=file_format, **kwargs)
            written[threads] = {p.name: p.read_bytes() for p in sorted(folder.iterdir())}
        finally:
            _core.set_thread_count(0)
    assert written[1] == written[2]
    back = mio.read(tmp_path / "2" / f"mesh.{suffix}", file_format=file_format)
    assert len(back.points) == 9000
    assert sum(len(block.data) for block in back.cells) == 12000
    np.testing.assert_array_equal(back.cells[0].data, mesh.cells[0].data)
    if not kwargs and file_format != "nastran":  # the shortest round-trip form: every coordinate reads back exactly
        np.testing.assert_array_equal(back.points, mesh.points)
    elif file_format == "nastran" and not kwargs:  # 16-column fields: 12 or more significant digits
        np.testing.assert_allclose(back.points, mesh.points, rtol=1e-10)
