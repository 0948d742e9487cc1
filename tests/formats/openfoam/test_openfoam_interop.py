"""OpenFOAM cases written by OpenFOAM (tests/data/openfoam) against VTK's vtkOpenFOAMReader (cell
counts, cell types, points, patch face counts, field values at the latest time), meshio++ 17.21,
and the Python entry points: a case directory or .foam file in read, the CLI, the time-series
reader, and a decomposed case read per rank (comm=)."""

import collections
import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio
from interop import FakeWorld, run_meshioplusplus_17

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "openfoam"
# Every case of tests/data/openfoam; the decomposed ones are read reconstructed (constant/polyMesh).
CASES = ["cavity", "cavity_gz", "cavity_decomposed_binary", "cavity_label64", "movingCone", "tetpyr", "hexwedgepoly",
         "fluidfoam_bin", "fluidfoam_par1"]
VTK_TYPES = {10: "tetra", 12: "hexahedron", 13: "wedge", 14: "pyramid", 42: "polyhedron"}


def vtk_case(case, time=None):
    """{block name: dataset} of vtkOpenFOAMReader at `time` (default: the latest)."""
    vtk = pytest.importorskip("vtkmodules.all")
    reader = vtk.vtkOpenFOAMReader()
    reader.SetFileName(str(DATA / case / "case.foam"))
    reader.UpdateInformation()
    reader.EnableAllPatchArrays()
    reader.EnableAllCellArrays()
    reader.EnableAllPointArrays()
    times = list(reader.GetTimeValues())
    if times:
        reader.UpdateTimeStep(times[-1] if time is None else time)
    reader.Update()
    blocks = {}
    iterator = reader.GetOutput().NewIterator()
    iterator.InitTraversal()
    while not iterator.IsDoneWithTraversal():
        blocks[iterator.GetCurrentMetaData().Get(vtk.vtkCompositeDataSet.NAME())] = iterator.GetCurrentDataObject()
        iterator.GoToNextItem()
    return blocks


def vtk_array(data, name):
    from vtkmodules.util.numpy_support import vtk_to_numpy

    array = data.GetArray(name)
    return None if array is None else vtk_to_numpy(array)


def file_order(mesh, values):
    """Block-major per-block arrays as one array (a mesh of one block type keeps file order)."""
    return np.concatenate([np.asarray(v) for v in values])


@pytest.mark.parametrize("case", CASES)
def test_against_vtk(case):
    from vtkmodules.util.numpy_support import vtk_to_numpy

    mesh = mio.read(DATA / case)
    blocks = vtk_case(case)
    internal = blocks["internalMesh"]
    ours = collections.Counter()
    for block in mesh.cells:  # Python names polyhedra by their face count (meshio's polyhedron<n>)
        ours["polyhedron" if block.type.startswith("polyhedron") else block.type] += len(block.data)
    theirs = collections.Counter(VTK_TYPES[internal.GetCellType(i)] for i in range(internal.GetNumberOfCells()))
    assert ours == theirs
    # VTK holds points and fields as float32: equal to ours rounded to float32.
    np.testing.assert_array_equal(np.asarray(mesh.points, dtype=np.float32), vtk_to_numpy(internal.GetPoints().GetData()))
    names = list(mesh.field_data["openfoam:patch_names"])  # string field data: numpy str arrays
    assert names == [name for name in blocks if name != "internalMesh"]
    regions = {region.name: region for region in mesh.regions}
    for name in names:
        assert len(regions[name].entries) == blocks[name].GetNumberOfCells(), name
    single_type = len(mesh.cells) == 1
    for name, values in mesh.cell_data.items():
        theirs = vtk_array(internal.GetCellData(), name)
        if case == "fluidfoam_bin" and name.endswith("uniform"):
            continue  # a copy naming another field as its object (below)
        if case == "fluidfoam_bin" and name in ("U", "alpha", "sigma"):
            values = mesh.cell_data[name + "uniform"]  # VTK keeps the last file of an object name
        assert theirs is not None, name
        ours_values = file_order(mesh, values)
        ours_values = ours_values.astype(theirs.dtype).reshape(theirs.shape)
        if single_type:
            np.testing.assert_array_equal(ours_values, theirs)
        else:  # VTK keeps file order; ours is block-major: compare as multisets
            np.testing.assert_array_equal(np.sort(ours_values, axis=0), np.sort(theirs, axis=0))
    for name, values in mesh.point_data.items():
        theirs = vtk_array(internal.GetPointData(), name)
        np.testing.assert_array_equal(np.asarray(values).astype(theirs.dtype), theirs)


def test_field_counts_against_vtk_for_the_cases_with_fields():
    """The cases with time directories give VTK's arrays, no more and no fewer."""
    for case in ["cavity", "cavity_gz", "cavity_decomposed_binary", "movingCone", "fluidfoam_bin"]:
        mesh = mio.read(DATA / case / "case.foam")
        internal = vtk_case(case)["internalMesh"]
        vtk_cells = {internal.GetCellData().GetArrayName(i) for i in range(internal.GetCellData().GetNumberOfArrays())}
        # fluidfoam's Uuniform/alphauniform/sigmauniform name U/alpha/sigma as their header's
        # object: VTK keeps one array per object name, we one per file (OpenFOAM reads by file).
        copies = {name for name in mesh.cell_data if name.endswith("uniform") and case == "fluidfoam_bin"}
        assert set(mesh.cell_data) - copies == vtk_cells, case


def test_decomposed_joined_against_vtk_decomposed(tmp_path):
    """Without constant/polyMesh the processors are joined; VTK's decomposed mode gives the same cells."""
    vtk = pytest.importorskip("vtkmodules.all")
    case = tmp_path / "cavity"
    shutil.copytree(DATA / "cavity_decomposed_binary", case)
    shutil.rmtree(case / "constant" / "polyMesh")
    joined = mio.read(case)
    reader = vtk.vtkPOpenFOAMReader()  # the reader with CaseType: its decomposed mode, one block per processor
    reader.SetFileName(str(case / "case.foam"))
    reader.SetCaseType(0)
    reader.UpdateInformation()
    reader.UpdateTimeStep(0.1)
    reader.Update()
    total = 0
    iterator = reader.GetOutput().NewIterator()
    iterator.InitTraversal()
    while not iterator.IsDoneWithTraversal():
        if iterator.GetCurrentMetaData().Get(vtk.vtkCompositeDataSet.NAME()) == "internalMesh":
            total += iterator.GetCurrentDataObject().GetNumberOfCells()
        iterator.GoToNextItem()
    assert total == sum(len(block.data) for block in joined.cells) == 400
    reconstructed = mio.read(DATA / "cavity_decomposed_binary")
    np.testing.assert_array_equal(joined.points, reconstructed.points)
    np.testing.assert_array_equal(joined.cell_data["p"][0], reconstructed.cell_data["p"][0])


PEER_SCRIPT = """
import json, sys, collections
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path)
    counts = collections.Counter()
    for block in mesh.cells:
        counts["polyhedron" if block.type.startswith("polyhedron") else block.type] += len(block.data)
    p = mesh.cell_data.get("p")
    out[path] = {"points": len(mesh.points), "cells": dict(counts),
                 "p": None if p is None else np.concatenate([np.ravel(a) for a in p])[:int(sum(counts[t] for t in ("hexahedron",)))].tolist()}
print(json.dumps(out))
"""


def test_against_meshioplusplus_17():
    """17.21 reads the ASCII cases (its binary and gzip reads fail): the same points and volume
    cells (its polyhedra split by face count), the patches as boundary-face cells; its fields are
    the first time's (ours the latest's), checked on the cavity against our time series."""
    cases = ["cavity", "tetpyr", "hexwedgepoly", "fluidfoam_par1"]
    paths = [str(DATA / case / "case.foam") for case in cases]
    peer = json.loads(run_meshioplusplus_17(PEER_SCRIPT, *paths))
    for path in paths:
        mesh = mio.read(path)
        assert peer[path]["points"] == len(mesh.points), path
        counts = collections.Counter()
        for block in mesh.cells:
            counts["polyhedron" if block.type.startswith("polyhedron") else block.type] += len(block.data)
        for name, count in counts.items():
            assert peer[path]["cells"].get(name) == count, (path, name)
    with mio.openfoam.TimeSeriesReader(DATA / "cavity") as reader:
        reader.read_points_cells()
        _, _, cell_data = reader.read_data(0)
    np.testing.assert_array_equal(peer[paths[0]]["p"], cell_data["p"][0])


def test_time_series_reader():
    with mio.openfoam.TimeSeriesReader(DATA / "movingCone") as reader:
        assert reader.num_steps == 3
        assert reader.times == [0.0, 0.0002, 0.0004]
        points, cells = reader.read_points_cells()
        t, point_data, cell_data = reader.read_data(2)
        assert t == 0.0004
        latest = mio.read(DATA / "movingCone")
        np.testing.assert_array_equal(reader.mesh.points, latest.points)  # the moving mesh follows the step
        assert not np.array_equal(points, latest.points)
        np.testing.assert_array_equal(point_data["pointMotionUx"], latest.point_data["pointMotionUx"])
        for ours, theirs in zip(cell_data["p"], latest.cell_data["p"]):
            np.testing.assert_array_equal(ours, theirs)
        middle = reader.read_mesh_at(1)
        assert "p" in middle.cell_data and "U" not in middle.cell_data
    assert latest.field_data["openfoam:time"][0] == 0.0004


def test_directory_entry_points_and_cli(tmp_path):
    by_dir = mio.read(DATA / "cavity")
    by_marker = mio.read(DATA / "cavity" / "case.foam")
    by_poly_mesh = mio.read(DATA / "cavity" / "constant" / "polyMesh")
    for mesh in (by_marker, by_poly_mesh):
        np.testing.assert_array_equal(mesh.points, by_dir.points)
    with pytest.raises(mio.ReadError):  # a directory that holds no case
        mio.read(DATA / "cavity" / "system")
    target = tmp_path / "cavity.vtu"
    done = subprocess.run([sys.executable, "-m", "meshioplusplus", "convert", str(DATA / "cavity"), str(target)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    back = mio.read(target)
    np.testing.assert_array_equal(back.points, by_dir.points)
    np.testing.assert_array_equal(back.cell_data["p"][0], by_dir.cell_data["p"][0])


def test_decomposed_case_per_rank():
    """Each rank reads its processors; their union, welded by global_ids, is the whole mesh."""
    case = DATA / "cavity_decomposed_binary"
    assert [pathlib.Path(p).name for p in mio.openfoam.processor_dirs(case)] == [f"processor{k}" for k in range(4)]
    whole = mio.read(case)
    shares = [mio.read(case, comm=FakeWorld(3).comm(rank)) for rank in range(3)]
    assert [sum(len(b.data) for b in share.cells) for share in shares] == [200, 100, 100]
    ids = np.unique(np.concatenate([share.point_data["global_ids"] for share in shares]))
    np.testing.assert_array_equal(ids, np.arange(len(whole.points)))
    for share in shares:
        np.testing.assert_array_equal(share.points, np.asarray(whole.points)[share.point_data["global_ids"]])
        cells = np.concatenate(share.cell_data["global_ids"])
        np.testing.assert_array_equal(np.concatenate(share.cell_data["p"]), whole.cell_data["p"][0][cells])
    empty = mio.read(case, comm=FakeWorld(6).comm(5))
    assert len(empty.points) == 0
