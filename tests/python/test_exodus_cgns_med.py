"""Exodus II, CGNS and MED against the reference tools: the corpus files (counts from
EXPECTED_ref.tsv / EXPECTED_meshio.tsv, values against netCDF4 and VTK's readers), files we write
read by meshio, netCDF4, h5py and VTK's vtkExodusIIReader / vtkCGNSReader, and malformed input."""

import csv

import numpy as np
import pytest

import meshioplusplus

from conftest import CORPUS, corpus_file
from interop import CountingAllocator

netCDF4 = pytest.importorskip("netCDF4")


def _reference(relative):
    with open(corpus_file("EXPECTED_ref.tsv"), newline="") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if row and row[0] == relative:
                return {"points": int(row[2]), "cells": int(row[3]), "point_sum": float(row[4]), "type": row[5]}
    pytest.skip(f"{relative} has no row in {CORPUS}/EXPECTED_ref.tsv")


def _formats():
    return {row["name"] for row in meshioplusplus._core.formats()}


@pytest.mark.parametrize("name", ["exodus/coarseGrid.e", "exodus/box-noglom.ex2", "exodus/disk_out_ref.ex2"])
def test_exodus_corpus_counts(name):
    expected = _reference(name)
    mesh = meshioplusplus.read(corpus_file(name))
    assert len(mesh.points) == expected["points"]
    assert sum(len(block) for block in mesh.cells) == expected["cells"]
    assert mesh.points.sum() == pytest.approx(expected["point_sum"], rel=1e-6)
    assert mesh.cells[0].type == expected["type"]


def test_exodus_old_layout_values_match_netcdf4():
    # disk_out_ref stores every nodal variable in one (time_step, num_nod_var, num_nodes) array.
    path = corpus_file("exodus/disk_out_ref.ex2")
    mesh = meshioplusplus.read(path)
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        names = ["".join(c.decode() for c in row if c != b"").strip() for row in nc["name_nod_var"][:]]
        values = nc["vals_nod_var"][0]
        for k, name in enumerate(names):
            if name in mesh.point_data:
                np.testing.assert_array_equal(mesh.point_data[name], values[k])
            else:  # joined into a vector by meshio's <name>X/Y/Z rule
                stem, axis = name[:-1], "XYZ".index(name[-1])
                np.testing.assert_array_equal(mesh.point_data[stem][:, axis], values[k])
        sides = {int(i): nc[f"side_ss{k + 1}"][:] for k, i in enumerate(nc["ss_prop1"][:])}
    side_regions = [r for r in mesh.regions if r.kind == meshioplusplus.RegionKind.SIDE]
    assert len(side_regions) == len(sides)
    for region in side_regions:
        np.testing.assert_array_equal(region.entries[:, 1], sides[region.tag] - 1)


def _tet_mesh_with_everything():
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    mesh = meshioplusplus.Mesh(
        points,
        [("tetra", np.array([[0, 1, 2, 3], [1, 2, 3, 4]])), ("triangle", np.array([[0, 1, 2]]))],
        point_data={"T": np.arange(5.0), "u": np.arange(15.0).reshape(5, 3)},
        cell_data={"p": [np.array([1.0, 2.0]), np.array([3.0])]},
        point_sets={"fixed": np.array([0, 4])},
    )
    return mesh


def test_exodus_we_write_is_read_by_meshio_and_netcdf4(tmp_path):
    import meshio

    path = tmp_path / "out.e"
    meshioplusplus.write(path, _tet_mesh_with_everything())
    theirs = meshio.read(path)
    np.testing.assert_array_equal(theirs.points, _tet_mesh_with_everything().points)
    assert [(b.type, len(b)) for b in theirs.cells] == [("tetra", 2), ("triangle", 1)]
    np.testing.assert_array_equal(theirs.point_data["T"], np.arange(5.0))
    np.testing.assert_array_equal(theirs.point_data["u"], np.arange(15.0).reshape(5, 3))
    np.testing.assert_array_equal(theirs.point_sets["fixed"], [0, 4])
    with netCDF4.Dataset(path) as nc:
        assert nc.data_model == "NETCDF4"
        assert nc["connect1"].elem_type == "TETRA"
        assert nc["connect1"].dtype == np.int32
        assert nc.dimensions["num_elem"].size == 3


@pytest.mark.parametrize("netcdf_format", ["NETCDF4", "NETCDF3_64BIT_OFFSET", "NETCDF3_CLASSIC"])
def test_exodus_we_write_is_read_by_vtk(tmp_path, netcdf_format):
    vtk = pytest.importorskip("vtk")
    path = tmp_path / "out.exo"
    meshioplusplus.exodus.write(path, _tet_mesh_with_everything(), netcdf_format=netcdf_format)
    reader = vtk.vtkExodusIIReader()
    reader.SetFileName(str(path))
    reader.UpdateInformation()
    reader.SetAllArrayStatus(vtk.vtkExodusIIReader.NODAL, 1)
    reader.SetAllArrayStatus(vtk.vtkExodusIIReader.ELEM_BLOCK, 1)
    reader.Update()
    blocks = reader.GetOutput().GetBlock(0)
    grids = [blocks.GetBlock(i) for i in range(blocks.GetNumberOfBlocks())]
    assert [g.GetNumberOfCells() for g in grids] == [2, 1]
    tets = grids[0]
    # VTK joins TX/TY/TZ-style names: our (n, 3) "u" becomes uX/uY/uZ, which VTK reads as "u".
    assert tets.GetPointData().GetArray("u").GetNumberOfComponents() == 3
    assert tets.GetPointData().GetArray("T") is not None


def test_exodus_bad_input_names_file_and_variable(tmp_path):
    path = tmp_path / "bad.e"
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_OFFSET") as nc:
        nc.createDimension("num_dim", 2)
        nc.createDimension("num_nodes", 2)
        nc.createDimension("num_el_blk", 1)
        nc.createDimension("num_el_in_blk1", 1)
        nc.createDimension("num_nod_per_el1", 2)
        nc.createVariable("coordx", "f8", ("num_nodes",))[:] = [0, 1]
        nc.createVariable("coordy", "f8", ("num_nodes",))[:] = [0, 0]
        connect = nc.createVariable("connect1", "i4", ("num_el_in_blk1", "num_nod_per_el1"))
        connect.elem_type = "BAR2"
        connect[:] = [[1, 3]]
    with pytest.raises(meshioplusplus.ReadError) as error:
        meshioplusplus.read(path)
    assert "bad.e" in str(error.value) and "connect1" in str(error.value)
    (tmp_path / "not.e").write_bytes(b"\x89HDF garbage")
    with pytest.raises(meshioplusplus.ReadError, match="not.e"):
        meshioplusplus.read(tmp_path / "not.e")


# ---- CGNS ----


def _vtk_cgns(path):
    vtk = pytest.importorskip("vtk")
    if not hasattr(vtk, "vtkCGNSReader"):
        pytest.skip("this vtk wheel has no vtkCGNSReader")
    reader = vtk.vtkCGNSReader()
    reader.SetFileName(str(path))
    reader.UpdateInformation()
    reader.EnableAllCellArrays()
    reader.EnableAllPointArrays()
    reader.Update()
    iterator = reader.GetOutput().NewIterator()
    iterator.InitTraversal()
    grids = []
    while not iterator.IsDoneWithTraversal():
        grids.append(iterator.GetCurrentDataObject())
        iterator.GoToNextItem()
    return grids


def test_cgns_multizone_matches_vtk():
    if "cgns" not in _formats():
        pytest.skip("built without CGNS")
    path = corpus_file("cgns/multi.cgns")
    expected = _reference("cgns/multi.cgns")
    mesh = meshioplusplus.read(path)
    assert len(mesh.points) == expected["points"]
    assert sum(len(b) for b in mesh.cells) == expected["cells"]
    assert mesh.points.sum() == pytest.approx(expected["point_sum"], rel=1e-6)
    grids = _vtk_cgns(path)
    vtk_density = np.concatenate(
        [np.array([g.GetCellData().GetArray("Density").GetValue(i) for i in range(g.GetNumberOfCells())]) for g in grids]
    )
    ours = np.concatenate(mesh.cell_data["Density"])
    # Both read the core cells (rind planes left out) in i-fastest order.
    np.testing.assert_allclose(ours, vtk_density, rtol=1e-6)


def test_cgns_we_write_is_read_by_meshio_h5py_and_vtk(tmp_path):
    if "cgns" not in _formats():
        pytest.skip("built without CGNS")
    import meshio

    h5py = pytest.importorskip("h5py")
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    cells = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    path = tmp_path / "tets.cgns"
    meshioplusplus.write(path, meshioplusplus.Mesh(points, [("tetra", cells)], point_data={"T": np.arange(5.0)}))
    theirs = meshio.read(path)  # meshio's reader looks for /Base/Zone1/GridElements
    np.testing.assert_array_equal(theirs.points, points)
    np.testing.assert_array_equal(theirs.cells[0].data, cells)
    with h5py.File(path) as f:
        np.testing.assert_array_equal(f["Base/Zone1/GridElements/ElementRange/ data"][()], [1, 2])
    grids = _vtk_cgns(path)
    assert sum(g.GetNumberOfCells() for g in grids) == 2
    assert sum(g.GetNumberOfPoints() for g in grids) == 5


def test_cgns_reads_what_meshio_writes(tmp_path):
    # meshio's CGNS files are HDF5 without CGNS's node attributes; the CGNS library refuses them.
    if "cgns" not in _formats():
        pytest.skip("built without CGNS")
    import meshio

    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    cells = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    path = tmp_path / "meshio.cgns"
    meshio.write(path, meshio.Mesh(points, [("tetra", cells)]))
    mesh = meshioplusplus.read(path)
    np.testing.assert_array_equal(mesh.points, points)
    np.testing.assert_array_equal(mesh.cells[0].data, cells)


def test_cgns_bad_input_names_the_file(tmp_path):
    if "cgns" not in _formats():
        pytest.skip("built without CGNS")
    (tmp_path / "bad.cgns").write_bytes(b"nothing CGNS here")
    with pytest.raises(meshioplusplus.ReadError, match="bad.cgns"):
        meshioplusplus.read(tmp_path / "bad.cgns")


# ---- MED ----


def test_med_we_write_is_read_by_meshio_with_families(tmp_path):
    import meshio

    if "med" not in _formats():
        pytest.skip("built without HDF5")
    mesh = meshioplusplus.read(corpus_file("med/cylinder.med"))
    path = tmp_path / "cylinder.med"
    meshioplusplus.write(path, mesh)
    theirs = meshio.read(path)
    assert [(b.type, len(b)) for b in theirs.cells] == [(b.type, len(b)) for b in mesh.cells]
    assert theirs.point_tags == mesh.point_tags == {2: ["Side"], 3: ["Side", "Top"], 4: ["Top"]}
    assert theirs.cell_tags == mesh.cell_tags
    np.testing.assert_array_equal(theirs.point_data["point_tags"], mesh.point_data["point_tags"])


def test_med_groups_from_point_sets_reach_meshio_and_h5py(tmp_path):
    import meshio

    h5py = pytest.importorskip("h5py")
    if "med" not in _formats():
        pytest.skip("built without HDF5")
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    mesh = meshioplusplus.Mesh(points, [("tetra", np.array([[0, 1, 2, 3]]))],
                               point_sets={"bottom": np.array([0, 1, 2]), "apex": np.array([3])},
                               point_data={"u": np.arange(12.0).reshape(4, 3)})
    path = tmp_path / "sets.med"
    meshioplusplus.write(path, mesh)
    theirs = meshio.read(path)
    groups = sorted(name for names in theirs.point_tags.values() for name in names)
    assert groups == ["apex", "bottom"]
    np.testing.assert_array_equal(theirs.point_data["u"], mesh.point_data["u"])
    with h5py.File(path) as f:
        assert f["ENS_MAA/mesh"].attrs["ESP"] == 3
        assert f["INFOS_GENERALES"].attrs["MAJ"] == 3
    back = meshioplusplus.read(path)
    np.testing.assert_array_equal(back.point_sets["bottom"], [0, 1, 2])


def test_med_bad_input_names_file_and_object(tmp_path):
    h5py = pytest.importorskip("h5py")
    if "med" not in _formats():
        pytest.skip("built without HDF5")
    path = tmp_path / "nomesh.med"
    with h5py.File(path, "w") as f:
        f.create_group("INFOS_GENERALES")
    with pytest.raises(meshioplusplus.ReadError) as error:
        meshioplusplus.read(path)
    assert "nomesh.med" in str(error.value) and "/ENS_MAA" in str(error.value)


# ---- the allocator hook ----


@pytest.mark.parametrize("extension", [".e", ".med", ".cgns"])
def test_arrays_come_from_the_allocator_hook_once(tmp_path, extension):
    # Every returned array is allocated through the hook, and nothing else of size is: staging
    # (column-major MED data, Exodus coordinate columns and vector components) is scratch.
    from meshioplusplus._allocation import allocation_owner, allocator_installed

    name = {".e": "exodus", ".med": "med", ".cgns": "cgns"}[extension]
    if name not in _formats():
        pytest.skip(f"built without the library {name} needs")
    rng = np.random.default_rng(0)
    mesh = meshioplusplus.Mesh(rng.random((3000, 3)), [("tetra", rng.integers(0, 3000, (5000, 4)))],
                               point_data={"T": rng.random(3000), "v": rng.random((3000, 3))})
    path = tmp_path / ("m" + extension)
    meshioplusplus.write(path, mesh)
    counting = CountingAllocator()
    with allocator_installed(counting.alloc, counting.free):
        back = meshioplusplus.read(path)
    arrays = [back.points, back.cells[0].data, *back.point_data.values(),
              *(a for per_block in back.cell_data.values() for a in per_block)]
    assert all(allocation_owner(a) is not None for a in arrays)
    returned = sum(a.nbytes for a in arrays) + sum(r.entries.nbytes for r in back.regions)
    assert sum(counting.allocated) <= 1.05 * returned + 4096


def test_exodus_time_series_reads_every_step(tmp_path):
    if not hasattr(meshioplusplus.exodus, "TimeSeriesReader"):
        pytest.skip("this build has no time-series bindings")
    path = tmp_path / "steps.e"
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_OFFSET") as nc:
        nc.createDimension("time_step", None)
        nc.createDimension("num_dim", 2)
        nc.createDimension("num_nodes", 3)
        nc.createDimension("num_el_blk", 1)
        nc.createDimension("num_el_in_blk1", 1)
        nc.createDimension("num_nod_per_el1", 3)
        nc.createDimension("num_nod_var", 2)
        nc.createDimension("len_name", 33)
        nc.createVariable("time_whole", "f8", ("time_step",))[:] = [0.0, 0.25, 0.5]
        nc.createVariable("coordx", "f8", ("num_nodes",))[:] = [0, 1, 0]
        nc.createVariable("coordy", "f8", ("num_nodes",))[:] = [0, 0, 1]
        connect = nc.createVariable("connect1", "i4", ("num_el_in_blk1", "num_nod_per_el1"))
        connect.elem_type = "TRI3"
        connect[:] = [[1, 2, 3]]
        names = nc.createVariable("name_nod_var", "S1", ("num_nod_var", "len_name"))
        names[0, :2] = [b"v", b"X"]
        names[1, :2] = [b"v", b"Y"]
        for k in (1, 2):
            nc.createVariable(f"vals_nod_var{k}", "f8", ("time_step", "num_nodes"))[:] = (
                np.arange(9.0).reshape(3, 3) * k
            )
    # meshio's default: step 0, <name>X/<name>Y not joined (only X/Y/Z triples are).
    assert sorted(meshioplusplus.read(path).point_data) == ["vX", "vY"]
    with meshioplusplus.exodus.TimeSeriesReader(path) as reader:
        assert reader.times == [0.0, 0.25, 0.5]
        points, cells = reader.read_points_cells()
        assert len(points) == 3 and cells[0].type == "triangle"
        t, point_data, _ = reader.read_data(2)
        assert t == 0.5
        np.testing.assert_array_equal(point_data["vY"], [12.0, 14.0, 16.0])


def test_exodus_side_and_node_sets_we_write_are_seen_by_vtk(tmp_path):
    vtk = pytest.importorskip("vtk")
    mesh = meshioplusplus.read(corpus_file("exodus/disk_out_ref.ex2"))
    path = tmp_path / "disk.e"
    meshioplusplus.write(path, mesh)

    def sets(file, kind):
        reader = vtk.vtkExodusIIReader()
        reader.SetFileName(str(file))
        reader.UpdateInformation()
        return sorted(reader.GetNumberOfEntriesInObject(kind, i) for i in range(reader.GetNumberOfObjects(kind)))

    original = corpus_file("exodus/disk_out_ref.ex2")
    assert sets(path, vtk.vtkExodusIIReader.SIDE_SET) == sets(original, vtk.vtkExodusIIReader.SIDE_SET)
    assert sets(path, vtk.vtkExodusIIReader.NODE_SET) == sets(original, vtk.vtkExodusIIReader.NODE_SET)
    # and our own reading of what we wrote gives the same (cell, facet) pairs
    back = meshioplusplus.read(path)
    for region in mesh.regions:
        if region.kind == meshioplusplus.RegionKind.SIDE:
            np.testing.assert_array_equal(back.region(region.name).entries, region.entries)
