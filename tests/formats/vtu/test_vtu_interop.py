"""VTU through meshio++ and meshio, both directions, every write variant."""

import numpy as np
import pytest

import meshioplusplus as mio
from conftest import corpus_file

from interop import assert_same_mesh, meshio_module, sample_mesh, to_meshio

VARIANTS = {
    "ascii": {"binary": False},
    "base64": {"binary": True, "compression": None},
    "base64-zlib": {"binary": True, "compression": "zlib"},
    "raw": {"binary": True, "compression": None, "appended": True},
    "raw-zlib": {"binary": True, "compression": "zlib", "appended": True},
    "uint64-headers": {"binary": True, "header_type": "UInt64"},
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_our_files_read_equal_in_meshio(tmp_path, variant):
    meshio = meshio_module()
    mesh = sample_mesh()
    path = tmp_path / f"{variant}.vtu"
    mio.vtu.write(path, mesh, **VARIANTS[variant])
    assert_same_mesh(meshio.read(path), mesh)
    assert_same_mesh(mio.read(path), mesh)


@pytest.mark.parametrize("binary,compression", [(False, None), (True, None), (True, "zlib")])
def test_meshio_files_read_equal_in_ours(tmp_path, binary, compression):
    meshio = meshio_module()
    mesh = sample_mesh()
    path = tmp_path / "from_meshio.vtu"
    meshio.vtu.write(path, to_meshio(mesh), binary=binary, compression=compression)
    # meshio writes ASCII floats with 11 significant digits: compare to that precision.
    assert_same_mesh(mio.read(path), mesh, rtol=0.0 if binary else 1e-10)


def test_read_arrays_adopt_the_core_buffers(tmp_path):
    path = tmp_path / "m.vtu"
    mio.write(path, sample_mesh())
    mesh = mio.read(path)
    points = mesh.points
    assert points.flags.writeable and points.flags.c_contiguous and points.flags.owndata is False
    points[0, 0] = 123.0  # writeable, and the buffer outlives the mesh object
    del mesh
    assert points[0, 0] == 123.0


def test_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "keep.vtu"
    mio.write(path, sample_mesh())
    before = path.read_bytes()
    broken = sample_mesh()
    broken.cells[0].data[0, 0] = 10_000  # index out of range
    with pytest.raises(mio.WriteError, match="keep.vtu"):
        mio.write(path, broken)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.vtu"]


def test_corpus_wedge15_and_string_field_data(corpus):
    notch = mio.read(corpus / "vtu" / "notch_disp.vtu")
    assert "wedge15" in [b.type for b in notch.cells]
    can = mio.read(corpus_file("vtu/can.vtu"))  # over 1 MB: the full corpus only
    strings = [v for v in can.field_data.values() if np.asarray(v).dtype.kind in "US"]
    assert strings, "can.vtu's string field data should be kept"
