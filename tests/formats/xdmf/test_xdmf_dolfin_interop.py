"""XDMF as DOLFIN/DOLFINx write it and as ParaView/PyVista read it, cross-checked with the peers:
legacy DOLFIN's write_checkpoint (a real file from pyvista/vtk-data, tests/data/xdmf, against
the same function written for viewing, and against VTK's XDMF 3 reader where one is installed),
DOLFINx meshtags (meshio 5.3.5 refuses the file; we read one mesh with regions), and our time
series read back by meshio's TimeSeriesReader, VTK's vtkXdmfReader, PyVista and, where
installed, VTK's vtkXdmf3Reader (ParaView's)."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

needs_hdf5 = pytest.mark.skipif(not _core.hdf5_available(), reason="built without HDF5 (install libhdf5-dev and rebuild)")
DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "xdmf"

# Reads a file with vtkXdmf3Reader (absolute path: it joins relative heavy-data names to the
# file name as given) and prints every time step's blocks as JSON.
_XDMF3_SCRIPT = r"""
import json, sys
from vtkmodules.vtkIOXdmf3 import vtkXdmf3Reader
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as S
from vtkmodules.util.numpy_support import vtk_to_numpy
reader = vtkXdmf3Reader()
reader.SetFileName(sys.argv[1])
reader.UpdateInformation()
info = reader.GetOutputInformation(0)
times = list(info.Get(S.TIME_STEPS())) if info.Has(S.TIME_STEPS()) else [None]
steps = []
for t in times:
    reader.UpdateTimeStep(t) if t is not None else reader.Update()
    data = reader.GetOutputDataObject(0)
    blocks = [data.GetBlock(i) for i in range(data.GetNumberOfBlocks())] if data.IsA("vtkMultiBlockDataSet") else [data]
    arrays = lambda a: {a.GetArrayName(i): vtk_to_numpy(a.GetArray(i)).tolist() for i in range(a.GetNumberOfArrays())}
    steps.append([{"points": vtk_to_numpy(b.GetPoints().GetData()).tolist(), "point_data": arrays(b.GetPointData()),
                   "cell_data": arrays(b.GetCellData())} for b in blocks])
print(json.dumps({"times": times, "steps": steps}))
"""


def _xdmf3(path):
    """What VTK's XDMF 3 reader (ParaView's) shows, from this interpreter's vtk or a system
    Python's (Debian's python3-paraview); a skip where neither has vtkIOXdmf3."""
    for python in (sys.executable, "/usr/bin/python3"):
        if not os.path.exists(python):
            continue
        probe = subprocess.run([python, "-c", "import vtkmodules.vtkIOXdmf3"], capture_output=True)
        if probe.returncode == 0:
            done = subprocess.run([python, "-c", _XDMF3_SCRIPT, os.path.abspath(path)], capture_output=True, text=True, check=True)
            return json.loads(done.stdout.strip().splitlines()[-1])
    pytest.skip("no vtk with vtkIOXdmf3 (the PyPI vtk wheel has none; Debian's python3-paraview does)")


def _xdmf2(path):
    """Per time step, the blocks vtkXdmfReader (PyVista's .xdmf reader) shows."""
    vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
    from vtk.util.numpy_support import vtk_to_numpy

    reader = vtk.vtkXdmfReader()  # in the PyPI vtk wheel (PyVista's .xdmf reader)
    reader.SetFileName(os.fspath(path))
    reader.UpdateInformation()
    info = reader.GetOutputInformation(0)
    key = vtk.vtkStreamingDemandDrivenPipeline.TIME_STEPS()
    steps = {}
    for t in info.Get(key) if info.Has(key) else []:
        reader.UpdateTimeStep(t)
        data = reader.GetOutputDataObject(0)
        blocks = [data.GetBlock(i) for i in range(data.GetNumberOfBlocks())] if data.IsA("vtkMultiBlockDataSet") else [data]

        def arrays(a):
            return {a.GetArrayName(i): vtk_to_numpy(a.GetArray(i)).copy() for i in range(a.GetNumberOfArrays())}

        steps[t] = [(arrays(b.GetPointData()), arrays(b.GetCellData())) for b in blocks]
    return steps


# ---- write_checkpoint (FiniteElementFunction) ----------------------------------------------------


def _checkpoint(name):
    path = DATA / name
    if not (DATA / name.replace(".xdmf", ".h5")).exists():
        pytest.skip(f"tests/data/xdmf/{name} absent (pyvista/vtk-data, see tests/data/MANIFEST.tsv)")
    return path


@needs_hdf5
def test_checkpoint_cg1_gives_the_values_dolfin_writes_for_viewing():
    # label_u by write_checkpoint (dof map + dof values, dofs numbered apart from the nodes) and
    # f_5 by write(u, t) (node values) are the same function on the same mesh.
    with mio.xdmf.TimeSeriesReader(_checkpoint("checkpoint.xdmf")) as ours, \
            mio.xdmf.TimeSeriesReader(_checkpoint("no_checkpoint.xdmf")) as viewing:
        points, cells = ours.read_points_cells()
        other_points, other_cells = viewing.read_points_cells()
        np.testing.assert_array_equal(points, other_points)
        np.testing.assert_array_equal(cells[0].data, other_cells[0].data)
        assert ours.num_steps == viewing.num_steps == 5
        for k in range(5):
            t, point_data, _ = ours.read_data(k)
            t_viewing, viewing_data, _ = viewing.read_data(k)
            assert t == t_viewing == k
            assert point_data["label_u"].shape == (729, 1)
            np.testing.assert_array_equal(point_data["label_u"], viewing_data["f_5"])
    mesh = mio.read(_checkpoint("checkpoint.xdmf"))
    assert [(b.type, len(b.data)) for b in mesh.cells] == [("tetra", 3072)]
    assert float(mesh.point_data["label_u"].max()) == 1.0


@needs_hdf5
def test_checkpoint_agrees_with_vtks_xdmf3_reader():
    # VTK gives every cell its own copies of its points (a discontinuous mesh): match by position.
    shown = _xdmf3(_checkpoint("checkpoint.xdmf"))
    assert shown["times"] == [0.0, 1.0, 2.0, 3.0, 4.0]
    with mio.xdmf.TimeSeriesReader(_checkpoint("checkpoint.xdmf")) as ours:
        points, _ = ours.read_points_cells()
        at = {tuple(np.round(p, 12)): i for i, p in enumerate(points)}
        for k, blocks in enumerate(shown["steps"]):
            (block,) = blocks
            values = ours.read_data(k)[1]["label_u"].ravel()
            theirs = np.array(block["point_data"]["label_u"])
            nodes = [at[tuple(np.round(p, 12))] for p in block["points"]]
            np.testing.assert_array_equal(values[nodes], theirs)


# ---- DOLFINx meshtags --------------------------------------------------------------------------


@needs_hdf5
def test_meshtags_meshio_refuses_we_read_one_mesh_with_regions(tmp_path):
    h5py = pytest.importorskip("h5py")
    meshio = pytest.importorskip("meshio")
    # Two tetrahedra sharing the face (1 2 3); subdomain tags, and boundary facets with an
    # interior one; the layout of dolfinx.io.XDMFFile.write_mesh + write_meshtags.
    with h5py.File(tmp_path / "tags.h5", "w") as f:
        f["/Mesh/mesh/geometry"] = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.float64)
        f["/Mesh/mesh/topology"] = np.array([[0, 1, 2, 3], [1, 2, 3, 4]], dtype=np.int64)
        f["/MeshTags/subdomains/topology"] = np.array([[4, 3, 2, 1], [0, 1, 2, 3]], dtype=np.int64)
        f["/MeshTags/subdomains/Values"] = np.array([[2], [1]], dtype=np.int32)
        f["/MeshTags/boundaries/topology"] = np.array([[0, 2, 1], [2, 3, 1], [1, 3, 4]], dtype=np.int64)
        f["/MeshTags/boundaries/Values"] = np.array([[5], [9], [5]], dtype=np.int32)

    def topology(cell, per, count, dataset):
        return (f'<Topology TopologyType="{cell}" NumberOfElements="{count}" NodesPerElement="{per}"><DataItem '
                f'Dimensions="{count} {per}" NumberType="Int" Format="HDF">tags.h5:{dataset}</DataItem></Topology>')

    def tags(name, cell, per, count):
        return (f'<Grid Name="{name}" GridType="Uniform"><xi:include xpointer="xpointer('
                "/Xdmf/Domain/Grid[@GridType='Uniform'][@Name='mesh']/Geometry)\" />"
                + topology(cell, per, count, f"/MeshTags/{name}/topology")
                + f'<Attribute Name="{name}" AttributeType="Scalar" Center="Cell"><DataItem Dimensions="{count} 1" '
                f'NumberType="Int" Format="HDF">tags.h5:/MeshTags/{name}/Values</DataItem></Attribute></Grid>')

    mesh_grid = ('<Grid Name="mesh" GridType="Uniform">' + topology("Tetrahedron", 4, 2, "/Mesh/mesh/topology")
                 + '<Geometry GeometryType="XYZ"><DataItem Dimensions="5 3" Format="HDF">tags.h5:/Mesh/mesh/geometry'
                 "</DataItem></Geometry></Grid>")
    path = tmp_path / "tags.xdmf"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE Xdmf SYSTEM "Xdmf.dtd" []>\n'
                    '<Xdmf Version="3.0" xmlns:xi="https://www.w3.org/2001/XInclude"><Domain>'
                    + mesh_grid + tags("subdomains", "Tetrahedron", 4, 2) + tags("boundaries", "Triangle", 3, 3)
                    + "</Domain></Xdmf>\n")
    with pytest.raises(meshio.ReadError, match="one grid"):
        meshio.xdmf.read(path)  # "XDMF reader: Only supports one grid right now."

    mesh = mio.read(path)
    assert [(b.type, len(b.data)) for b in mesh.cells] == [("tetra", 2)]
    np.testing.assert_array_equal(mesh.cell_data["subdomains"][0].ravel(), [1, 2])
    assert {name: [list(c) for c in cells] for name, cells in mesh.cell_sets.items()} == {
        "subdomains:1": [[0]], "subdomains:2": [[1]]}
    sides = {r.name: (r.tag, r.dim, r.entries.tolist()) for r in mesh.regions if r.kind == mio.RegionKind.SIDE}
    # tetra facets: 0 (0 1 3), 1 (1 2 3), 2 (0 3 2), 3 (0 2 1)
    assert sides == {"boundaries:5": (5, 2, [[0, 3], [1, 2]]), "boundaries:9": (9, 2, [[0, 1], [1, 3]])}
    # Side regions travel to Exodus side sets.
    if _core.features().get("netcdf"):
        mio.write(tmp_path / "tags.exo", mesh)
        back = mio.read(tmp_path / "tags.exo")
        back_sides = {r.name: sorted(map(tuple, r.entries.tolist())) for r in back.regions if r.kind == mio.RegionKind.SIDE}
        assert back_sides == {"boundaries:5": [(0, 3), (1, 2)], "boundaries:9": [(0, 1), (1, 3)]}


# ---- our time series in the readers users open it with ----------------------------------------


def _write_series(path, data_format, **options):
    points = np.array([[0, 0], [1, 0], [0, 1], [1, 1.0]])
    cells = [("triangle", np.array([[0, 1, 2], [1, 3, 2]])), ("line", np.array([[0, 1]]))]
    steps = []
    with mio.xdmf.TimeSeriesWriter(path, data_format=data_format, **options) as writer:
        writer.write_points_cells(points, cells)
        for t in (0.0, 0.5, 1.0):
            point_data = {"phi": np.array([0, 1, 2, 3.0]) + t, "u": np.tile([t, -t], (4, 1))}
            cell_data = {"c": [np.array([t, 2 * t]), np.array([3 * t])]}
            writer.write_data(t, point_data=point_data, cell_data=cell_data)
            steps.append((t, point_data, cell_data))
    return points, cells, steps


@pytest.mark.parametrize("data_format", ["XML", "HDF"])
def test_time_series_reads_in_meshio_vtk_and_pyvista(tmp_path, monkeypatch, data_format):
    if data_format == "HDF" and not _core.hdf5_available():
        pytest.skip("built without HDF5")
    monkeypatch.chdir(tmp_path)  # meshio's placement (the default): the .h5 goes to the working directory
    path = tmp_path / f"series_{data_format}.xdmf"
    points, cells, steps = _write_series(path, data_format)

    meshio = pytest.importorskip("meshio")
    with meshio.xdmf.TimeSeriesReader(path) as reader:
        their_points, their_cells = reader.read_points_cells()
        np.testing.assert_array_equal(their_points, points)
        assert [(c.type, c.data.tolist()) for c in their_cells] == [(t, d.tolist()) for t, d in cells]
        assert reader.num_steps == 3
        for k, (t, point_data, cell_data) in enumerate(steps):
            time, their_point_data, their_cell_data = reader.read_data(k)
            assert time == t
            for name, array in point_data.items():
                np.testing.assert_array_equal(their_point_data[name], array)
            np.testing.assert_array_equal(np.concatenate(their_cell_data["c"]), np.concatenate(cell_data["c"]))

    # meshio's layout exactly: VTK shows the collection, with each step's data, as block 0 and
    # the bare mesh grid after it as block 1, as for a file meshio writes (felupe's ViewXdmf
    # reads block 0: a mesh grid written first hid the data there).
    # (meshio's writer fails on this mixed mesh: its reference file holds the triangle block;
    # inline data, since meshio puts an .h5 in the working directory, not beside the file.)
    reference = tmp_path / f"meshio_{data_format}.xdmf"
    with meshio.xdmf.TimeSeriesWriter(reference, data_format="XML") as writer:
        writer.write_points_cells(points, [cells[-1]])
        for t, point_data, _ in steps:
            writer.write_data(t, point_data=point_data)
    shown, shown_for_meshio = _xdmf2(path), _xdmf2(reference)
    assert sorted(shown) == sorted(shown_for_meshio) == [0.0, 0.5, 1.0]
    for t, point_data, cell_data in steps:
        assert len(shown[t]) == len(shown_for_meshio[t]) == 2
        # block 1 is the mesh grid, which VTK's XDMF 2 reader shows with step 0's arrays, for
        # meshio's file as for ours
        assert sorted(shown[t][1][0]) == sorted(shown_for_meshio[t][1][0])
        assert sorted(shown_for_meshio[t][0][0]) == sorted(point_data)  # meshio's data: block 0 too
        their_point_data, their_cell_data = shown[t][0]
        np.testing.assert_array_equal(their_point_data["phi"], point_data["phi"])
        np.testing.assert_array_equal(their_point_data["u"][:, :2], point_data["u"])  # VTK pads 2-D vectors
        np.testing.assert_array_equal(their_point_data["u"][:, 2], 0)
        np.testing.assert_array_equal(their_cell_data["c"], np.concatenate(cell_data["c"]))

    pyvista = pytest.importorskip("pyvista")
    grid = pyvista.XdmfReader(str(path)).read()[0]  # what felupe's ViewXdmf does
    assert isinstance(grid, pyvista.UnstructuredGrid), type(grid)
    np.testing.assert_array_equal(grid.point_data["phi"], steps[0][1]["phi"])


@needs_hdf5
def test_time_series_in_vtks_xdmf3_reader(tmp_path):
    path = tmp_path / "series.xdmf"
    _, _, steps = _write_series(path, "HDF", heavy_data_beside=True)
    shown = _xdmf3(path)
    assert shown["times"] == [0.0, 0.5, 1.0]
    for blocks, (t, point_data, cell_data) in zip(shown["steps"], steps):
        block = blocks[0]  # the collection's step (any bare mesh grid follows it)
        np.testing.assert_array_equal(block["point_data"]["phi"], point_data["phi"])
        np.testing.assert_array_equal(np.array(block["cell_data"]["c"]), np.concatenate(cell_data["c"]))
