"""EnSight Gold against VTK 9's readers and writer and meshio++ 17.21: foamToEnsight's cases
(tests/data/ensight) read into VTK's points, cells and values part by part and step by step;
VTK reads what we write; we read what VTK's vtkEnSightWriter writes; 17.21's counts where it
reads the case (it fails on the transient geometry)."""

import json
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from tests.interop import run_meshioplusplus_17, vtk_cells

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "ensight"
# Each case with its number of time steps.
STEPS = {"cavity_binary/cavity.case": 3, "cavity_ascii_nodes/cavity.case": 2, "hexwedgepoly_ascii/hexwedgepoly.case": 1,
         "tetpyr_binary/tetpyr.case": 1, "movingcone_wall/movingCone.case": 3}
CASES = list(STEPS)


def vtk_parts(case, step):
    """(name, points, cells, point arrays, cell arrays) per part as VTK's generic EnSight reader
    gives them at step `step`."""
    vtk = pytest.importorskip("vtk", reason="VTK's EnSight readers are the reference")
    from vtk.util.numpy_support import vtk_to_numpy

    reader = vtk.vtkGenericEnSightReader()
    reader.SetCaseFileName(str(case))
    reader.ReadAllVariablesOn()
    reader.UpdateInformation()
    sets = reader.GetTimeSets()
    if sets is not None and sets.GetNumberOfItems():
        reader.SetTimeValue(sets.GetItem(0).GetValue(step))
    reader.Update()
    output = reader.GetOutput()
    parts = []
    for b in range(output.GetNumberOfBlocks()):
        grid = output.GetBlock(b)
        if grid is None:
            continue
        arrays = lambda data: {data.GetArrayName(i): vtk_to_numpy(data.GetArray(i))  # noqa: E731
                               for i in range(data.GetNumberOfArrays())}
        parts.append((output.GetMetaData(b).Get(vtk.vtkCompositeDataSet.NAME()),
                      vtk_to_numpy(grid.GetPoints().GetData()), vtk_cells(grid),
                      arrays(grid.GetPointData()), arrays(grid.GetCellData())))
    return parts


def our_cells(mesh):
    """Per cell in block order: ("polyhedron", faces) or (its node list)."""
    out = []
    for block in mesh.cells:
        for cell in block.data:
            if block.type.startswith("polyhedron"):
                out.append(("polyhedron", [list(map(int, face)) for face in cell]))
            else:
                out.append(list(map(int, cell)))
    return out


def assert_same_as_vtk(mesh, parts, binary_reader):
    assert [name for name, *_ in parts] == list(mesh.cell_sets)
    vtk_points = np.concatenate([points for _, points, *_ in parts])
    np.testing.assert_array_equal(mesh.points.astype(np.float32), vtk_points.astype(np.float32))
    mine = our_cells(mesh)
    at, base = 0, 0
    for _, points, cells, _, _ in parts:
        for kind, ids in cells:
            ours = mine[at]
            at += 1
            if kind == "polyhedron":
                # The same faces; ours turned out of the cell (VTK keeps the file's turn).
                assert sorted(sorted(f) for f in ours[1]) == sorted(sorted(i + base for i in f) for f in ids)
            elif kind == 7 and not binary_reader:
                # VTK's ASCII reader reverses nsided polygons (its binary reader and the file
                # do not): the same cycle, the other way round.
                assert ours == [i + base for i in [ids[0], *ids[:0:-1]]] or ours == [i + base for i in ids[::-1]]
            else:
                assert ours == [i + base for i in ids]
        base += len(points)
    assert at == len(mine)
    for name, values in mesh.point_data.items():
        reference = np.concatenate([p[3][name] for p in parts])
        np.testing.assert_allclose(np.asarray(values, dtype=np.float64).reshape(reference.shape), reference, rtol=1e-6)
    for name, blocks in mesh.cell_data.items():
        reference = np.concatenate([p[4][name] for p in parts])
        ours = np.concatenate([np.asarray(b, dtype=np.float64) for b in blocks])
        np.testing.assert_allclose(ours.reshape(reference.shape), reference, rtol=1e-6)


@pytest.mark.parametrize("case", CASES)
def test_every_step_equals_vtk(case):
    path = DATA / case
    binary = "binary" in case or "wall" in case
    with mio.ensight.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        assert reader.num_steps == STEPS[case]
        for k in range(reader.num_steps):
            mesh = reader.read_mesh_at(k)
            assert_same_as_vtk(mesh, vtk_parts(path, k), binary)
    # read() is the first step.
    first = mio.read(path)
    assert_same_as_vtk(first, vtk_parts(path, 0), binary)


@pytest.mark.parametrize("binary", [True, False])
def test_vtk_reads_what_we_write(tmp_path, binary):
    source = mio.read(DATA / "hexwedgepoly_ascii" / "hexwedgepoly.case")
    source.point_data["x"] = source.points[:, 0].copy()
    mio.write(tmp_path / "out.case", source, binary=binary)
    parts = vtk_parts(tmp_path / "out.case", 0)
    back = mio.read(tmp_path / "out.case")
    assert_same_as_vtk(back, parts, binary)
    np.testing.assert_allclose(back.points, source.points, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(back.point_data["x"], source.points[:, 0], rtol=1e-5, atol=1e-6)


def test_we_read_what_vtk_writes(tmp_path):
    vtk = pytest.importorskip("vtk", reason="VTK's vtkEnSightWriter writes the reference file")
    from vtk.util.numpy_support import numpy_to_vtk, vtk_to_numpy

    source = mio.read(DATA / "tetpyr_binary" / "tetpyr.case")
    pytest.importorskip("pyvista", reason="PyVista builds the VTK grid")
    grid = mio.to_pyvista(source).cast_to_unstructured_grid()
    temperature = numpy_to_vtk(np.arange(grid.GetNumberOfPoints(), dtype=np.float32))
    temperature.SetName("T")
    grid.GetPointData().AddArray(temperature)
    ids = vtk.vtkIntArray()
    ids.SetName("BlockId")
    ids.SetNumberOfTuples(grid.GetNumberOfCells())
    ids.Fill(1)
    grid.GetCellData().AddArray(ids)
    writer = vtk.vtkEnSightWriter()
    writer.SetInputData(grid)
    writer.SetPath(str(tmp_path))
    writer.SetBaseName("vtk")
    writer.SetTimeStep(0)
    writer.Write()
    writer.WriteCaseFile(1)
    mesh = mio.read(tmp_path / "vtk.0.case")
    assert sum(len(b.data) for b in mesh.cells) == grid.GetNumberOfCells()
    assert len(mesh.points) == grid.GetNumberOfPoints()
    # VTK's writer names a node variable <name>_n and splits the parts by BlockId.
    np.testing.assert_allclose(np.sort(mesh.point_data["T_n"]), np.sort(vtk_to_numpy(temperature)))
    assert {b.type for b in mesh.cells} == {"tetra", "pyramid", "triangle", "quad"}


PEER_SCRIPT = """
import json, sys, meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    try:
        mesh = m.read(path)
        out[path] = {"points": len(mesh.points), "blocks": [[b.type, len(b.data)] for b in mesh.cells]}
    except Exception as error:
        out[path] = {"error": str(error)[:200]}
print(json.dumps(out))
"""


def test_counts_equal_17_21():
    paths = [str(DATA / case) for case in CASES]
    peer = json.loads(run_meshioplusplus_17(PEER_SCRIPT, *paths))
    read_by_peer = 0
    for path in paths:
        mesh = mio.read(path)
        if "error" in peer[path]:
            assert "movingCone" in path, peer[path]  # 17.21 reads no transient geometry; we do
            continue
        read_by_peer += 1
        assert peer[path]["points"] == len(mesh.points)
        # 17.21 joins a part's polyhedra and polygons of one size into one block: compare totals.
        totals = {}
        for kind, count in peer[path]["blocks"]:
            totals[kind] = totals.get(kind, 0) + count
        ours = {}
        for block in mesh.cells:
            ours[block.type] = ours.get(block.type, 0) + len(block.data)
        assert ours == totals
    assert read_by_peer == 4


def test_series_writer_with_a_moving_mesh(tmp_path):
    source = mio.read(DATA / "tetpyr_binary" / "tetpyr.case")
    path = tmp_path / "run.case"
    with mio.ensight.TimeSeriesWriter(path) as writer:
        for k in range(4):
            if k in (0, 2):  # the mesh moves at step 2
                writer.write_points_cells(source.points + 0.5 * k, source.cells)
            writer.write_data(0.1 * (k + 1), point_data={"T": source.points[:, 0] * k},
                              cell_data={"c": [np.full(len(b.data), float(k)) for b in source.cells]})
    text = path.read_text()
    assert "model: 2 run.geo*****" in text and "filename numbers:\n0 0 1 1" in text
    with mio.ensight.TimeSeriesReader(path) as reader:
        assert reader.num_steps == 4
        np.testing.assert_allclose(reader.times, [0.1, 0.2, 0.3, 0.4])
        for k in range(4):
            mesh = reader.read_mesh_at(k)
            shift = 0.5 * (2 if k >= 2 else 0)
            np.testing.assert_allclose(mesh.points, source.points + shift, rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(mesh.point_data["T"], source.points[:, 0] * k, rtol=1e-6, atol=1e-6)
            assert all((np.asarray(b) == k).all() for b in mesh.cell_data["c"])
            # VTK reads the same step.
            assert_same_as_vtk(mesh, vtk_parts(path, k), True)
    # A step without the first step's arrays is refused.
    with pytest.raises(mio.WriteError, match="same point and cell data"):
        with mio.ensight.TimeSeriesWriter(tmp_path / "bad.case") as writer:
            writer.write_points_cells(source.points, source.cells)
            writer.write_data(0.0, point_data={"T": source.points[:, 0]})
            writer.write_data(1.0, point_data={"U": source.points[:, 0]})
