"""Issue 35 ("read less") for VTKHDF through Python, on files VTK's own vtkHDFWriter writes (the
repository holds no VTKHDF written by another tool): read_metadata from the header equals the
summary of the full read, a read of one array equals the full read less the others bit for bit,
points_only gives the full read's points. The Exodus, MED and XDMF files of tests/data are
checked the same way in C++ (tests/io/test_read_selection_hdf5.cpp), Exodus and XDMF here once more."""

import os
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core
from meshioplusplus._read_less import metadata_of_mesh

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
REAL_FILES = [
    ("exodus", "corpus/exodus/coarseGrid.e"),
    ("exodus", "exodus/tmap8_val-2d_limited_out.e"),
    ("exodus", "libmesh/read_exodus_HEX27.e"),
    ("exodus", "libmesh/read_exodus_PRISM18.e"),
    ("xdmf", "corpus/xdmf/out.xdmf"),
    ("xdmf", "xdmf/no_checkpoint.xdmf"),
]
# MED is checked in C++ only: the Python read splits polygon and polyhedron blocks by node count
# (meshio's view), which the core's metadata does not.


def _vtk_files(tmp_path):
    vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
    if not _core.hdf5_available():
        pytest.skip("built without HDF5")
    files = []
    for name, growing, polydata in [("static", False, False), ("growing", True, False), ("polydata", True, True)]:
        source = vtk.vtkTimeSourceExample()
        source.SetXAmplitude(1.0)
        source.SetGrowing(1 if growing else 0)
        if polydata:
            surface = vtk.vtkGeometryFilter()
            surface.SetInputConnection(source.GetOutputPort())
            source = surface
        path = tmp_path / f"{name}.vtkhdf"
        writer = vtk.vtkHDFWriter()
        writer.SetInputConnection(source.GetOutputPort())
        writer.SetFileName(os.fspath(path))
        writer.SetWriteAllTimeSteps(True)
        assert writer.Write() == 1
        files.append(path)
    # Real cells with point and cell data: a .vtu of the corpus through VTK's reader and writer.
    for vtu in ["corpus/vtu/notch_disp.vtu", "corpus/vtu/QuadraticTetra.vtu"]:
        reader = vtk.vtkXMLUnstructuredGridReader()
        reader.SetFileName(os.fspath(DATA / vtu))
        path = tmp_path / (pathlib.Path(vtu).stem + ".vtkhdf")
        writer = vtk.vtkHDFWriter()
        writer.SetInputConnection(reader.GetOutputPort())
        writer.SetFileName(os.fspath(path))
        assert writer.Write() == 1
        files.append(path)
    return files


def _comparable(summary):
    return {key: value for key, value in summary.items() if key not in ("bounds", "header_only", "variant", "times")}


def _arrays_of(mesh):
    arrays = {}
    for name, values in mesh.point_data.items():
        arrays[("point", name)] = [values]
    for name, values in mesh.cell_data.items():
        arrays[("cell", name)] = list(values)
    for name, values in mesh.field_data.items():
        arrays[("field", name)] = [np.asarray(values)]
    return arrays


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _check(path, file_format):
    full = mio.read(path, file_format=file_format)
    header = mio.read_metadata(path, file_format=file_format)
    assert header["header_only"]
    assert _comparable(header) == _comparable(metadata_of_mesh(full, file_format))
    assert header["num_points"] > 0 and header["cell_blocks"]
    full_arrays = _arrays_of(full)
    for entry in header["arrays"]:
        one = mio.read(path, file_format=file_format, arrays=[entry["name"]])
        assert _same_bits(one.points, full.points)
        assert [(b.type, b.data.tobytes()) for b in one.cells] == [(b.type, b.data.tobytes()) for b in full.cells]
        got = _arrays_of(one)
        assert set(got) == {key for key in full_arrays if key[1] == entry["name"]}
        for key, parts in got.items():
            assert all(_same_bits(x, y) for x, y in zip(parts, full_arrays[key], strict=True)), key
    points = mio.read(path, file_format=file_format, points_only=True)
    assert _same_bits(points.points, full.points)
    assert len(points.cells) == 0 and not points.point_data and not points.cell_data


def test_vtkhdf_written_by_vtk(tmp_path):
    files = _vtk_files(tmp_path)
    for path in files:
        _check(path, "vtkhdf")
    # Steps: the header's times are VTK's, and time_step=k the series' step k.
    header = mio.read_metadata(files[0])
    assert len(header["times"]) == 10
    last = mio.read(files[1], time_step=-1)
    with mio.vtkhdf.TimeSeriesReader(files[1]) as series:
        _, point_data, cell_data = series.read_data(9)
        for name, values in point_data.items():
            assert _same_bits(last.point_data[name], values)


@pytest.mark.parametrize("file_format,relative", REAL_FILES, ids=[r for _, r in REAL_FILES])
def test_real_files(file_format, relative):
    _check(DATA / relative, file_format)
