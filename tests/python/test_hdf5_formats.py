"""XDMF (inline, binary, HDF5 heavy data; time series), HMF and H5M: real files, round trips,
cross-checks with the reference tools (h5py structure, meshio itself, VTK's vtkXdmfReader) and
the errors bad input must raise. The HDF5 parts skip when the build has no HDF5."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core
from meshioplusplus._allocation import allocation_owner, allocator_installed
from interop import CountingAllocator

CORPUS = pathlib.Path(
    os.environ.get("MESHIOPLUSPLUS_CORPUS", pathlib.Path(__file__).resolve().parents[2].parent / "shared" / "corpus")
)
XDMF_CORPUS = CORPUS / "xdmf"

needs_hdf5 = pytest.mark.skipif(not _core.hdf5_available(), reason="built without HDF5 (install libhdf5-dev and rebuild)")
needs_corpus = pytest.mark.skipif(
    not XDMF_CORPUS.is_dir(), reason=f"corpus absent: {XDMF_CORPUS} (files from pyvista/vtk-data, see MANIFEST.tsv)"
)


def _real_meshio():
    """meshio itself, unless a shim has put meshio++ in its place."""
    meshio = pytest.importorskip("meshio")
    if "meshioplusplus" in (getattr(meshio, "__file__", "") or "") or not hasattr(meshio, "xdmf"):
        pytest.skip("the meshio on the path is not meshio itself")
    if mio.__file__ and os.path.dirname(meshio.__file__).startswith(os.path.dirname(mio.__file__)):
        pytest.skip("the meshio on the path is meshio++'s shim")
    return meshio


def mixed_mesh():
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [2.0, 0.5, 0.0]])
    cells = [("triangle", np.array([[0, 1, 2], [0, 2, 3]])), ("quad", np.array([[1, 4, 2, 3]])), ("line", np.array([[0, 1]]))]
    return mio.Mesh(
        points,
        cells,
        point_data={"T": np.linspace(0.0, 1.0, 5), "v": np.arange(15.0).reshape(5, 3)},
        cell_data={"id": [np.array([1, 2], dtype=np.int32), np.array([3], dtype=np.int32), np.array([4], dtype=np.int32)]},
    )


def assert_same(a, b):
    np.testing.assert_array_equal(a.points, b.points)
    assert [c.type for c in a.cells] == [c.type for c in b.cells]
    for ca, cb in zip(a.cells, b.cells):
        np.testing.assert_array_equal(ca.data, cb.data)
    assert set(a.point_data) == set(b.point_data)
    for name in a.point_data:
        np.testing.assert_array_equal(np.asarray(a.point_data[name]).reshape(-1), np.asarray(b.point_data[name]).reshape(-1))
    for name in a.cell_data:
        for x, y in zip(a.cell_data[name], b.cell_data[name]):
            np.testing.assert_array_equal(np.asarray(x).reshape(-1), np.asarray(y).reshape(-1))


# ---- real files -------------------------------------------------------------------------------


@needs_corpus
def test_dolfinx_inline_triangle6_mesh_reads_with_the_reference_counts():
    mesh = mio.read(XDMF_CORPUS / "dolfinx_mesh.xdmf")
    assert mesh.points.shape == (970, 3)
    assert [c.type for c in mesh.cells] == ["triangle6"]
    assert len(mesh.cells[0].data) == 484
    assert mesh.points.sum() == pytest.approx(23.88381093, abs=1e-6)


@needs_corpus
@needs_hdf5
def test_meshio_time_series_reads_step_by_step():
    with mio.xdmf.TimeSeriesReader(XDMF_CORPUS / "out.xdmf") as reader:
        points, cells = reader.read_points_cells()
        assert points.shape == (4, 2)
        assert cells[0].type == "triangle" and cells[0].data.shape == (2, 3)
        assert reader.num_steps == 5
        for k, expected_t in enumerate(np.linspace(0.0, 1.0, 5)):
            t, point_data, cell_data = reader.read_data(k)
            assert t == pytest.approx(expected_t)
            np.testing.assert_array_equal(point_data["phi"], np.full(4, expected_t))
            assert point_data["u"].shape == (4, 2)
            np.testing.assert_array_equal(cell_data["a"][0], [3.0, 4.2])
    # A plain read gives the mesh with the first step's data (meshio 5.3.5 cannot read this file).
    mesh = mio.read(XDMF_CORPUS / "out.xdmf")
    assert mesh.points.shape == (4, 2) and len(mesh.cells[0].data) == 2
    np.testing.assert_array_equal(mesh.point_data["phi"], np.zeros(4))


# ---- round trips in every heavy-data form ------------------------------------------------------


@pytest.mark.parametrize("data_format", ["XML", "Binary", "HDF"])
def test_xdmf_round_trips_mixed_meshes(tmp_path, data_format):
    if data_format == "HDF" and not _core.hdf5_available():
        pytest.skip("built without HDF5")
    mesh = mixed_mesh()
    path = tmp_path / "mixed.xdmf"
    mio.xdmf.write(path, mesh, data_format=data_format)
    assert_same(mesh, mio.read(path))


def test_xdmf_inline_files_without_hdf5_need_no_library(tmp_path):
    path = tmp_path / "inline.xdmf"
    mio.write(path, mixed_mesh(), data_format="XML")
    assert not (tmp_path / "inline.h5").exists()
    assert_same(mixed_mesh(), mio.read(path))


@needs_hdf5
@pytest.mark.parametrize("extension", [".hmf", ".h5m"])
def test_hmf_and_h5m_round_trip(tmp_path, extension):
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    mesh = mio.Mesh(points, [("triangle", np.array([[0, 1, 2], [0, 2, 3]])), ("line", np.array([[0, 1]]))],
                    point_data={"T": np.arange(4.0), "v": np.arange(12.0).reshape(4, 3)})
    path = tmp_path / ("m" + extension)
    mio.write(path, mesh)
    back = mio.read(path)
    np.testing.assert_array_equal(back.points, points)
    assert sorted((c.type, c.data.tolist()) for c in back.cells) == sorted((c.type, c.data.tolist()) for c in mesh.cells)
    np.testing.assert_array_equal(back.point_data["v"], mesh.point_data["v"])
    if extension == ".h5m":
        np.testing.assert_array_equal(back.point_data["GLOBAL_ID"], np.arange(1, 5))


# ---- reference tools read what we write ---------------------------------------------------------


@needs_hdf5
def test_h5py_sees_the_layouts_meshio_writes(tmp_path):
    h5py = pytest.importorskip("h5py")
    mesh = mixed_mesh()
    mio.write(tmp_path / "m.xdmf", mesh)  # HDF heavy data by default, gzip
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert f["data0"].shape == (5, 3) and f["data0"].compression == "gzip"
        np.testing.assert_array_equal(f["data0"][()], mesh.points)
    mio.write(tmp_path / "m.hmf", mesh)
    with h5py.File(tmp_path / "m.hmf", "r") as f:
        assert f.attrs["type"] == "hmf" and f.attrs["version"] == "0.1-alpha"
        grid = f["domain"]["grid"]
        assert grid["Topology0"].attrs["TopologyType"] == "Triangle"
        assert grid["Geometry"].attrs["GeometryType"] == "XYZ"
        np.testing.assert_array_equal(grid["CellAttributes"]["id"][()], [1, 2, 3, 4])
    tri = mio.Mesh(mesh.points, [mesh.cells[0]], point_data={"v": mesh.point_data["v"]})
    mio.write(tmp_path / "m.h5m", tri)
    with h5py.File(tmp_path / "m.h5m", "r") as f:
        tstt = f["tstt"]
        assert tstt["nodes"]["coordinates"].attrs["start_id"] == 1
        np.testing.assert_array_equal(tstt["elements"]["Tri3"]["connectivity"][()], [[1, 2, 3], [1, 3, 4]])
        assert tstt["nodes"]["tags"]["v"].shape == (5,) and tstt["nodes"]["tags"]["v"].dtype.shape == (3,)
        assert h5py.check_enum_dtype(tstt["elemtypes"].dtype)["Tri"] == 2
        assert tstt.attrs["max_id"] == 5 + 2 + 1


@needs_hdf5
@pytest.mark.parametrize("extension", [".xdmf", ".hmf", ".h5m"])
def test_meshio_reads_what_we_write_and_we_read_what_it_writes(tmp_path, extension):
    meshio = _real_meshio()
    points = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    cells = [("triangle", np.array([[0, 1, 2], [0, 2, 3]]))]
    point_data = {"T": np.arange(4.0)}
    ours = tmp_path / ("ours" + extension)
    mio.write(ours, mio.Mesh(points, cells, point_data=point_data))
    theirs_read = meshio.read(ours)
    np.testing.assert_array_equal(theirs_read.points, points)
    np.testing.assert_array_equal(theirs_read.cells[0].data, cells[0][1])
    np.testing.assert_array_equal(theirs_read.point_data["T"], point_data["T"])
    theirs = tmp_path / ("theirs" + extension)
    meshio.write(theirs, meshio.Mesh(points, cells, point_data=point_data))
    back = mio.read(theirs)
    np.testing.assert_array_equal(back.points, points)
    np.testing.assert_array_equal(back.cells[0].data, cells[0][1])
    np.testing.assert_array_equal(back.point_data["T"], point_data["T"])


@needs_hdf5
def test_meshio_time_series_reader_reads_our_time_series(tmp_path, monkeypatch):
    meshio = _real_meshio()
    monkeypatch.chdir(tmp_path)  # meshio resolves the .h5 next to the .xdmf
    points = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    cells = [("triangle", np.array([[0, 1, 2], [0, 2, 3]]))]
    with mio.xdmf.TimeSeriesWriter("series.xdmf") as writer:
        writer.write_points_cells(points, cells)
        for t in (0.0, 0.5):
            writer.write_data(t, point_data={"phi": np.full(4, t)}, cell_data={"a": [np.array([t, 2 * t])]})
    with meshio.xdmf.TimeSeriesReader("series.xdmf") as reader:
        read_points, _ = reader.read_points_cells()
        np.testing.assert_array_equal(read_points, points)
        assert reader.num_steps == 2
        t, point_data, cell_data = reader.read_data(1)
        assert t == 0.5
        np.testing.assert_array_equal(point_data["phi"], np.full(4, 0.5))
        np.testing.assert_array_equal(cell_data["a"][0], [0.5, 1.0])


@needs_hdf5
@pytest.mark.parametrize("data_format", ["HDF", "XML"])
def test_vtk_xdmf_reader_reads_what_we_write(tmp_path, data_format):
    vtk = pytest.importorskip("vtk")
    if not hasattr(vtk, "vtkXdmfReader"):
        pytest.skip("this vtk wheel has no vtkXdmfReader")
    mesh = mixed_mesh()
    path = tmp_path / "for_vtk.xdmf"
    mio.xdmf.write(path, mesh, data_format=data_format)
    # In a child process: VTK's XDMF library prints to stderr and may abort on bad input.
    script = (
        "import vtk, sys\n"
        "r = vtk.vtkXdmfReader(); r.SetFileName(sys.argv[1]); r.Update()\n"
        "o = r.GetOutputDataObject(0)\n"
        "o = o.GetBlock(0) if o.IsA('vtkMultiBlockDataSet') else o\n"
        "print(o.GetNumberOfPoints(), o.GetNumberOfCells(), o.GetPointData().GetArray('T').GetValue(4))\n"
    )
    result = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    points, cells, last_t = result.stdout.split()
    assert (int(points), int(cells), float(last_t)) == (5, 4, 1.0)


# ---- bad input ------------------------------------------------------------------------------------


XDMF_WITH_H5 = """<Xdmf Version="3.0" xmlns:xi="http://www.w3.org/2001/XInclude"><Domain><Grid Name="g">
<Geometry GeometryType="XYZ"><DataItem DataType="Float" Precision="8" Dimensions="{dims}" Format="HDF">{ref}</DataItem></Geometry>
<Topology TopologyType="Triangle"><DataItem DataType="Int" Precision="8" Dimensions="1 3" Format="XML">0 1 2</DataItem></Topology>
</Grid></Domain></Xdmf>"""


@needs_hdf5
def test_bad_heavy_data_is_a_read_error_naming_file_and_object(tmp_path):
    mio.write(tmp_path / "good.xdmf", mio.Mesh(np.eye(3), [("triangle", np.array([[0, 1, 2]]))]))
    cases = {
        "missing_h5": (XDMF_WITH_H5.format(dims="3 3", ref="absent.h5:/data0"), "absent.h5"),
        "missing_dataset": (XDMF_WITH_H5.format(dims="3 3", ref="good.h5:/nothing"), "/nothing"),
        "wrong_shape": (XDMF_WITH_H5.format(dims="4 3", ref="good.h5:/data0"), "Dimensions"),
    }
    for name, (text, needle) in cases.items():
        path = tmp_path / f"{name}.xdmf"
        path.write_text(text)
        with pytest.raises(mio.ReadError, match=needle.replace(".", r"\.")):
            mio.read(path)
    data = (tmp_path / "good.h5").read_bytes()
    (tmp_path / "cut.h5").write_bytes(data[: len(data) // 2])
    path = tmp_path / "truncated.xdmf"
    path.write_text(XDMF_WITH_H5.format(dims="3 3", ref="cut.h5:/data0"))
    with pytest.raises(mio.ReadError, match="cut.h5"):
        mio.read(path)


def test_dangling_xinclude_is_a_read_error(tmp_path):
    base = '<Xdmf Version="3.0" xmlns:xi="http://www.w3.org/2001/XInclude"><Domain><Grid Name="g">{}</Grid></Domain></Xdmf>'
    cases = {
        "no_target": '<xi:include xpointer="xpointer(//Grid[@Name=&quot;absent&quot;]/Geometry)"/>',
        "no_file": '<xi:include href="elsewhere.xdmf"/>',
    }
    for name, body in cases.items():
        path = tmp_path / f"{name}.xdmf"
        path.write_text(base.format(body))
        with pytest.raises(mio.ReadError, match="XInclude"):
            mio.read(path)


@needs_hdf5
@pytest.mark.parametrize("extension", [".hmf", ".h5m"])
def test_hdf5_formats_reject_foreign_and_truncated_files(tmp_path, extension):
    path = tmp_path / ("m" + extension)
    mio.write(path, mio.Mesh(np.random.default_rng(1).random((2000, 3)), [("triangle", np.array([[0, 1, 2]]))]),
              compression=None)
    data = path.read_bytes()
    for keep in (len(data) // 2, 800, 10):
        cut = tmp_path / (f"cut{keep}" + extension)
        cut.write_bytes(data[:keep])
        with pytest.raises(mio.ReadError, match=cut.name):
            mio.read(cut)
    text = tmp_path / ("text" + extension)
    text.write_text("not HDF5")
    with pytest.raises(mio.ReadError, match="not an HDF5 file"):
        mio.read(text)


# ---- the allocator hook covers these readers -------------------------------------------------------


@pytest.mark.parametrize("extension, data_format", [(".xdmf", "HDF"), (".xdmf", "XML"), (".hmf", None), (".h5m", None)])
def test_hdf5_family_arrays_come_from_the_allocator_hook(tmp_path, extension, data_format):
    if (extension != ".xdmf" or data_format == "HDF") and not _core.hdf5_available():
        pytest.skip("built without HDF5")
    rng = np.random.default_rng(0)
    mesh = mio.Mesh(rng.random((300, 3)), [("tetra", rng.integers(0, 300, (500, 4)))],
                    point_data={"T": rng.random(300)})
    path = tmp_path / ("m" + extension)
    options = {"data_format": data_format} if data_format else {}
    mio.write(path, mesh, **options)
    counting = CountingAllocator()
    with allocator_installed(counting.alloc, counting.free):
        back = mio.read(path)
    arrays = [back.points, back.cells[0].data, back.point_data["T"]]
    assert all(allocation_owner(a) is not None for a in arrays)
    returned = sum(a.nbytes for a in arrays) + sum(a.nbytes for a in back.point_data.values() if a is not back.point_data["T"])
    assert sum(counting.allocated) <= 1.1 * returned + 4096


def test_pinned_reads_covers_xdmf(tmp_path):
    from meshioplusplus.testing import fake_cupy

    path = tmp_path / "p.xdmf"
    mio.write(path, mixed_mesh(), data_format="HDF" if _core.hdf5_available() else "XML")
    with fake_cupy.installed():
        with mio.pinned_reads():
            mesh = mio.read(path)
        assert allocation_owner(mesh.points) is not None
        assert allocation_owner(mesh.point_data["v"]) is not None


# ---- VTKHDF ------------------------------------------------------------------------------------


@needs_hdf5
def test_vtkhdf_corpus_file_reads_with_the_reference_counts():
    path = CORPUS / "vtkhdf" / "can-vtu.hdf"
    if not path.exists():
        pytest.skip(f"corpus absent: {path} (pyvista/vtk-data Data/hdf/can-vtu.hdf, see MANIFEST.tsv)")
    mesh = mio.read(path)
    assert mesh.points.shape == (6724, 3)
    assert sum(len(c.data) for c in mesh.cells) == 4800
    assert mesh.points.sum() == pytest.approx(-124696.858, abs=1e-2)
    assert mesh.point_data["VEL"].shape == (6724, 3)


@needs_hdf5
def test_vtk_hdf_reader_reads_what_we_write(tmp_path):
    vtk = pytest.importorskip("vtk")
    if not hasattr(vtk, "vtkHDFReader"):
        pytest.skip("this vtk wheel has no vtkHDFReader")
    mesh = mixed_mesh()
    path = tmp_path / "ours.vtkhdf"
    mio.write(path, mesh)
    script = (
        "import vtk, sys\n"
        "r = vtk.vtkHDFReader(); r.SetFileName(sys.argv[1]); r.Update()\n"
        "o = r.GetOutput()\n"
        "print(o.GetNumberOfPoints(), o.GetNumberOfCells(), o.GetPointData().GetArray('T').GetValue(4),"
        " o.GetCellData().GetArray('id').GetValue(3), o.GetCellType(2))\n"
    )
    result = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["5", "4", "1.0", "4", "9"]
    back = mio.read(path)
    assert_same(mesh, back)
