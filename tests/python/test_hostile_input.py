"""Hostile input through the Python API (issue 18): what reached Python as a crash,
RuntimeError: UnicodeDecodeError, MemoryError or an empty mesh is a ReadError now, and names
that are not UTF-8 decode by the documented rule (docs/errors.md, "Text and names").

The bytes of each case are also kept under tests/data/fuzz-regressions/<format>/."""

import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

REGRESSIONS = pathlib.Path(__file__).resolve().parents[1] / "data" / "fuzz-regressions"


@pytest.fixture
def restore_limit():
    saved = _core.max_array_bytes()
    yield
    _core.set_max_array_bytes(saved)


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(path)


def test_abaqus_part_instancing_itself_is_a_read_error_not_a_crash(tmp_path):
    # This killed the Python process with SIGSEGV (unbounded recursion). Run it in a child
    # process so that a regression fails this test instead of the whole session.
    path = write(tmp_path, "loop.inp", "*Part, name=P\n*Instance, name=I, part=P\n*End Part\n")
    code = (
        "import sys, meshioplusplus as mio\n"
        "try:\n    mio.read(sys.argv[1])\nexcept mio.ReadError as e:\n    print(e.line, e.reason)\n"
    )
    result = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("2 ") and "loop" in result.stdout


def test_abaqus_file_including_itself_is_a_read_error(tmp_path):
    path = write(tmp_path, "self.inp", "*Node\n1, 0, 0, 0\n*Include, input=self.inp\n")
    with pytest.raises(mio.ReadError, match="loop"):
        mio.read(path)


def test_non_utf8_token_gives_a_read_error_with_an_escaped_byte(tmp_path):
    path = write(tmp_path, "latin1.msh", b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 \xe9.0 0 0\n$EndNodes\n")
    with pytest.raises(mio.ReadError) as caught:
        mio.read(path)
    assert caught.value.line == 6
    assert "\\xe9" in str(caught.value)
    assert "\\xe9" in caught.value.reason


def test_names_that_are_not_utf8_decode_as_latin1(tmp_path):
    path = write(
        tmp_path,
        "names.vtk",
        b"# vtk DataFile Version 4.2\nnames\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 1 double\n0 0 0\n"
        b"CELLS 1 2\n1 0\nCELL_TYPES 1\n1\nPOINT_DATA 1\nSCALARS caf\xe9 double 1\nLOOKUP_TABLE default\n1.5\n"
        b"SCALARS na\xc3\xafve double 1\nLOOKUP_TABLE default\n2.5\n",
    )
    mesh = mio.read(path)
    assert "caf\u00e9" in mesh.point_data  # the byte 0xe9, as Latin-1
    assert "na\u00efve" in mesh.point_data  # valid UTF-8 stays UTF-8
    assert "caf\u00e9".encode("latin-1") == b"caf\xe9"


@pytest.mark.parametrize("name", ["empty.obj", "empty.inp", "empty.vtk", "empty.msh", "empty.stl"])
def test_empty_files_are_read_errors(tmp_path, name):
    path = write(tmp_path, name, b"")
    with pytest.raises(mio.ReadError, match="empty"):
        mio.read(path)


def test_read_limit_is_settable_and_stops_implicit_data(tmp_path, restore_limit):
    assert _core.max_array_bytes() > 0
    path = write(
        tmp_path,
        "huge.vtk",
        "# vtk DataFile Version 4.2\nhostile\nASCII\nDATASET STRUCTURED_POINTS\nDIMENSIONS 7 7 2147483648\n",
    )
    with pytest.raises(mio.ReadError, match="read limit"):
        mio.read(path)
    small = write(tmp_path, "small.vtk", "# vtk DataFile Version 4.2\ns\nASCII\nDATASET STRUCTURED_POINTS\nDIMENSIONS 4 4 4\n")
    assert len(mio.read(small).points) == 64
    _core.set_max_array_bytes(64 * 24 - 1)
    assert _core.max_array_bytes() == 64 * 24 - 1
    with pytest.raises(mio.ReadError, match="read limit"):
        mio.read(small)


def test_tetgen_huge_attribute_count_is_a_read_error_not_memory_error(tmp_path, restore_limit):
    _core.set_max_array_bytes(1 << 30)
    node = write(tmp_path, "huge.node", "0 3 100000000\n")
    write(tmp_path, "huge.ele", "0 4 0\n")
    with pytest.raises(mio.ReadError, match="attribute columns"):
        mio.read(node)


def test_environment_variable_sets_the_default_limit(tmp_path):
    small = write(tmp_path, "small.vtk", "# vtk DataFile Version 4.2\ns\nASCII\nDATASET STRUCTURED_POINTS\nDIMENSIONS 4 4 4\n")
    code = (
        "import sys, meshioplusplus as mio\nfrom meshioplusplus import _core\n"
        "print(_core.max_array_bytes())\n"
        "try:\n    mio.read(sys.argv[1])\nexcept mio.ReadError as e:\n    print('ReadError')\n"
    )
    import os

    env = dict(os.environ, MESHIOPLUSPLUS_MAX_ARRAY_BYTES="1000")
    result = subprocess.run([sys.executable, "-c", code, small], capture_output=True, text=True, env=env, timeout=60)
    assert result.stdout.split() == ["1000", "ReadError"], result.stderr


@pytest.mark.parametrize("case", sorted(p for p in REGRESSIONS.glob("*/*") if p.is_file()) if REGRESSIONS.exists() else [],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_regression_inputs_read_or_raise_read_error(case):
    # Each kept input either reads or raises ReadError: never a crash, hang, MemoryError or
    # any other exception. Run in a child process so that a crash is a failure, not an abort.
    code = (
        "import sys, meshioplusplus as mio\n"
        "try:\n    mio.read(sys.argv[1], file_format=sys.argv[2])\nexcept mio.ReadError:\n    pass\n"
    )
    result = subprocess.run([sys.executable, "-c", code, str(case), case.parent.name], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]


# ---- HDF5-backed readers: what their fuzz targets found in meshio++'s code (eighth session) ----

# HDF5 is an optional library of the build; h5py (a test requirement) forges the files.
needs_hdf5 = pytest.mark.skipif(not _core.hdf5_available(), reason="built without HDF5 (install libhdf5-dev and rebuild)")


@needs_hdf5
def test_med_point_count_that_overflows_is_a_read_error(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = str(tmp_path / "nbr.med")
    mio.write(path, mio.Mesh([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]], [("triangle", [[0, 1, 2]])]))
    with h5py.File(path, "r+") as f:
        coordinates = []
        f.visititems(lambda key, item: coordinates.append(key) if key.endswith("NOE/COO") else None)
        f[coordinates[0]].attrs["NBR"] = np.int64(2**63 - 1)  # NBR x ESP overflowed int64 (UBSan)
    with pytest.raises(mio.ReadError, match="NBR"):
        mio.read(path)


@needs_hdf5
def test_millions_of_unwritten_chunks_in_a_tiny_file_are_a_read_error(tmp_path):
    h5py = pytest.importorskip("h5py")
    # A 2,000,000-element dataset in 1-element gzip chunks, one of them written: every chunk cost
    # an HDF5 lookup (the fuzz target's input kept the reader busy for minutes).
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    with h5py.File(tmp_path / "heavy.h5", "w") as f:
        f.create_dataset("points", data=points)
        f.create_dataset("cells", data=np.array([[0, 1, 2]]))
        sparse = f.create_dataset("T", shape=(2_000_000,), chunks=(1,), compression="gzip", dtype="f8")
        sparse[0] = 1.0
    (tmp_path / "mesh.xdmf").write_text(
        '<?xml version="1.0"?><Xdmf Version="3.0"><Domain><Grid Name="m" GridType="Uniform">'
        '<Geometry GeometryType="XYZ"><DataItem DataType="Float" Dimensions="3 3" Format="HDF" Precision="8">'
        "heavy.h5:/points</DataItem></Geometry>"
        '<Topology TopologyType="Triangle" NumberOfElements="1"><DataItem DataType="Int" Dimensions="1 3" '
        'Format="HDF" Precision="8">heavy.h5:/cells</DataItem></Topology>'
        '<Attribute Name="T" Center="Grid"><DataItem DataType="Float" Dimensions="2000000" Format="HDF" '
        'Precision="8">heavy.h5:/T</DataItem></Attribute></Grid></Domain></Xdmf>'
    )
    start = time.perf_counter()
    with pytest.raises(mio.ReadError, match="chunks"):
        mio.read(tmp_path / "mesh.xdmf")
    assert time.perf_counter() - start < 5
