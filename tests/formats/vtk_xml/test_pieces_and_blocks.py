"""Partitioned files read one piece at a time or with merged points (``pvtu.read(piece=,
merge_points=)``), and a list of meshes as one multiblock file (``vtm.write_blocks``) — checked
against VTK's own readers (the `vtk` wheel)."""

import os

import numpy as np
import pytest

import meshioplusplus as mio

vtk = pytest.importorskip("vtk", reason="VTK's Python wheel (pip install vtk) is the reference")
from vtk.util import numpy_support  # noqa: E402


def np_of(array):
    return numpy_support.vtk_to_numpy(array)


def grid_mesh(nx=4, ny=3, offset=0.0):
    """A connected quad grid: pieces cut from it share the points on their borders."""
    x, y = np.meshgrid(np.arange(nx + 1, dtype=float), np.arange(ny + 1, dtype=float))
    points = np.column_stack([x.ravel() + offset, y.ravel(), np.zeros(x.size)])
    quads = [[j * (nx + 1) + i, j * (nx + 1) + i + 1, (j + 1) * (nx + 1) + i + 1, (j + 1) * (nx + 1) + i]
             for j in range(ny) for i in range(nx)]
    return mio.Mesh(points, [("quad", np.array(quads))], point_data={"u": points[:, 0] * 10 + points[:, 1]},
                    cell_data={"id": [np.arange(len(quads), dtype=np.int32)]})


def vtk_read(reader_class, path):
    reader = reader_class()
    reader.SetFileName(str(path))
    reader.Update()
    return reader.GetOutput()


@pytest.mark.parametrize("extension", ["pvtu", "pvtp"])
def test_one_piece_equals_vtk_reading_that_piece_file(tmp_path, extension):
    mesh = grid_mesh()
    path = tmp_path / f"p.{extension}"
    mio.write(path, mesh, pieces=3)
    namespace = getattr(mio, extension)
    assert namespace.num_pieces(path) == 3
    piece_reader = vtk.vtkXMLUnstructuredGridReader if extension == "pvtu" else vtk.vtkXMLPolyDataReader
    cell_ids = []
    for k in range(3):
        ours = namespace.read(path, piece=k)
        theirs = vtk_read(piece_reader, tmp_path / f"p_{k}.{extension[1:]}")
        np.testing.assert_array_equal(np_of(theirs.GetPoints().GetData()), ours.points)
        np.testing.assert_array_equal(np_of(theirs.GetPointData().GetArray("u")), ours.point_data["u"])
        np.testing.assert_array_equal(np_of(theirs.GetCellData().GetArray("id")), np.concatenate(ours.cell_data["id"]))
        assert theirs.GetNumberOfCells() == sum(len(b.data) for b in ours.cells)
        cell_ids.extend(np.concatenate(ours.cell_data["id"]))
    # The pieces together are the whole mesh, each cell once.
    assert cell_ids == list(range(12))
    # Without options, read is the plain (all pieces) read.
    whole = namespace.read(path)
    assert len(whole.points) == len(mio.read(path).points)


def test_merge_points_welds_the_borders_vtk_keeps_apart(tmp_path):
    mesh = grid_mesh()
    path = tmp_path / "p.pvtu"
    mio.write(path, mesh, pieces=3)
    grid = vtk_read(vtk.vtkXMLPUnstructuredGridReader, path)
    apart = mio.read(path)
    assert len(apart.points) == grid.GetNumberOfPoints() > len(mesh.points)
    merged = mio.pvtu.read(path, merge_points=True)
    assert len(merged.points) == len(mesh.points)
    # Same geometry: every cell's corners and every point's data as in the source mesh.
    source = {tuple(p): u for p, u in zip(mesh.points, mesh.point_data["u"])}
    assert sorted(map(tuple, merged.points)) == sorted(source)
    for point, u in zip(merged.points, merged.point_data["u"]):
        assert source[tuple(point)] == u
    ids = np.concatenate(merged.cell_data["id"])
    corners = np.concatenate([b.data for b in merged.cells])
    for cell_id, cell in zip(ids, corners):
        np.testing.assert_array_equal(merged.points[cell], mesh.points[mesh.cells[0].data[cell_id]])
    # VTK's own point merging of the same pieces gives the same count.
    clean = vtk.vtkStaticCleanUnstructuredGrid() if hasattr(vtk, "vtkStaticCleanUnstructuredGrid") else None
    if clean is not None:
        clean.SetInputData(grid)
        clean.SetTolerance(0.0)
        clean.Update()
        assert clean.GetOutput().GetNumberOfPoints() == len(merged.points)
    # One piece merged with itself changes nothing.
    assert len(mio.pvtu.read(path, piece=1, merge_points=True).points) == len(mio.pvtu.read(path, piece=1).points)


def test_bad_piece_index_and_missing_piece_are_named(tmp_path):
    path = tmp_path / "p.pvtu"
    mio.write(path, grid_mesh(), pieces=2)
    with pytest.raises(mio.ReadError, match=r"piece 2 out of range: the index lists 2 pieces") as error:
        mio.pvtu.read(path, piece=2)
    assert "p.pvtu" in str(error.value)
    with pytest.raises(ValueError):
        mio.pvtu.read(path, piece=-1)
    os.remove(tmp_path / "p_1.vtu")
    with pytest.raises(mio.ReadError, match=r"piece 1: file 'p_1.vtu' not found") as error:
        mio.pvtu.read(path, piece=1)
    assert "p.pvtu" in str(error.value)
    mio.pvtu.read(path, piece=0)  # the other piece still reads
    with pytest.raises(mio.ReadError, match="piece 1"):
        mio.pvtu.read(path, merge_points=True)
    with pytest.raises(mio.ReadError):
        mio.pvtu.read(tmp_path / "missing.pvtu", piece=0)


def test_vtm_list_of_meshes_reads_equal_in_vtk(tmp_path):
    fluid = grid_mesh()
    solid = grid_mesh(2, 2, offset=10.0)
    solid.point_data = {"T": np.linspace(0.0, 1.0, len(solid.points))}
    solid.cell_data = {"mat": [np.array([7, 7, 8, 8], dtype=np.int64)]}
    path = tmp_path / "scene.vtm"
    mio.vtm.write_blocks(path, {"fluid": fluid, "solid": solid}, compression="zlib")
    blocks = vtk_read(vtk.vtkXMLMultiBlockDataReader, path)
    assert blocks.GetNumberOfBlocks() == 2
    for k, (name, mesh) in enumerate([("fluid", fluid), ("solid", solid)]):
        assert blocks.GetMetaData(k).Get(vtk.vtkCompositeDataSet.NAME()) == name
        grid = blocks.GetBlock(k)
        np.testing.assert_array_equal(np_of(grid.GetPoints().GetData()), mesh.points)
        np.testing.assert_array_equal(np_of(grid.GetCells().GetConnectivityArray()), mesh.cells[0].data.ravel())
        for array_name, values in mesh.point_data.items():
            np.testing.assert_array_equal(np_of(grid.GetPointData().GetArray(array_name)), values)
        for array_name, values in mesh.cell_data.items():
            np.testing.assert_array_equal(np_of(grid.GetCellData().GetArray(array_name)), values[0])
    # Back here: one mesh per block, or one mesh with a Cell region per block.
    back = mio.vtm.read_blocks(path)
    assert list(back) == ["fluid", "solid"]
    for name, mesh in [("fluid", fluid), ("solid", solid)]:
        np.testing.assert_array_equal(back[name].points, mesh.points)
        np.testing.assert_array_equal(back[name].cells[0].data, mesh.cells[0].data)
        for array_name, values in mesh.point_data.items():
            np.testing.assert_array_equal(back[name].point_data[array_name], values)
    joined = mio.read(path)
    assert [r.name for r in joined.regions] == ["fluid", "solid"]
    assert len(joined.points) == len(fluid.points) + len(solid.points)


def test_vtm_list_forms_and_errors(tmp_path):
    a, b = grid_mesh(1, 1), grid_mesh(2, 1)
    mio.vtm.write_blocks(tmp_path / "l.vtm", [a, b], binary=False)
    assert list(mio.vtm.read_blocks(tmp_path / "l.vtm")) == ["block0", "block1"]
    mio.vtm.write_blocks(tmp_path / "n.vtm", [("left", a), ("right", b)])
    back = mio.vtm.read_blocks(tmp_path / "n.vtm")
    assert list(back) == ["left", "right"]
    assert len(back["right"].points) == len(b.points)
    blocks = vtk_read(vtk.vtkXMLMultiBlockDataReader, tmp_path / "n.vtm")
    assert blocks.GetBlock(1).GetNumberOfCells() == 2
    with pytest.raises(mio.WriteError, match="two blocks are named 'x'"):
        mio.vtm.write_blocks(tmp_path / "d.vtm", [("x", a), ("x", b)])
    assert not (tmp_path / "d.vtm").exists()
    with pytest.raises(TypeError):
        mio.vtm.write_blocks(tmp_path / "o.vtm", [a], pieces=2)
    with pytest.raises(mio.ReadError):
        mio.vtm.read_blocks(tmp_path / "missing.vtm")


def test_top_level_read_and_write_take_pieces_and_block_lists(tmp_path):
    """``mio.read(path, piece=k / merge_points=True)`` and ``mio.write("x.vtm", [meshes])`` are
    the namespaced calls under the top-level API."""
    mesh = grid_mesh()
    path = tmp_path / "p.pvtu"
    mio.write(path, mesh, pieces=3)
    for k in range(3):
        np.testing.assert_array_equal(mio.read(path, piece=k).points, mio.pvtu.read(path, piece=k).points)
    assert len(mio.read(path, merge_points=True).points) == len(mesh.points)
    with pytest.raises(mio.ReadError, match="piece 3"):
        mio.read(path, piece=3)
    with pytest.raises(ValueError, match="pvtu"):
        mio.read(tmp_path / "x.vtu", piece=0)

    blocks = tmp_path / "scene.vtm"
    mio.write(blocks, [mesh, grid_mesh(2, 2, offset=10.0)])
    back = mio.vtm.read_blocks(blocks)
    assert len(back) == 2
    assert sorted(len(m.points) for m in back.values()) == sorted([len(mesh.points), 9])
    mio.write(blocks, {"fluid": mesh})
    assert list(mio.vtm.read_blocks(blocks)) == ["fluid"]
