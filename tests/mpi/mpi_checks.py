"""Run under MPI (tests/python/test_parallel.py launches it with ``mpirun -n 4``):
partition the sample bracket, write PVTU and partitioned VTKHDF collectively, read them back
on every rank and on one, and check that VTK reads them."""

import os
import shutil
import tempfile

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _parallel

MPI = pytest.importorskip("mpi4py.MPI", reason="mpi4py is in requirements-test.txt")
SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "bracket.msh")


@pytest.fixture(scope="module")
def world():
    comm = MPI.COMM_WORLD
    folder = comm.bcast(tempfile.mkdtemp(prefix="mio-mpi-") if comm.Get_rank() == 0 else None, root=0)
    mesh = mio.read(SAMPLE)
    mesh.point_data["x"] = np.ascontiguousarray(mesh.points[:, 0])
    pieces = mio.partition(mesh, comm.Get_size(), method="metis")
    yield comm, folder, mesh, pieces
    comm.Barrier()  # every rank is done with the files before rank 0 removes them
    if comm.Get_rank() == 0:
        shutil.rmtree(folder, ignore_errors=True)


def test_collective_write_then_read_own_piece(world):
    comm, folder, mesh, pieces = world
    rank = comm.Get_rank()
    target = os.path.join(folder, "bracket.pvtu")
    mio.write(target, pieces[rank], comm=comm)
    comm.Barrier()
    mine = mio.read(target, comm=comm)
    expected = pieces[rank]
    np.testing.assert_array_equal(mine.points, expected.points)
    np.testing.assert_array_equal(mine.point_data["global_ids"], expected.point_data["global_ids"])
    # A VTU piece keeps the cells in order but not the block boundaries: consecutive blocks of
    # one type come back as one block. Compare the cell sequences.
    def sequence(mesh):
        return [(b.type, tuple(row)) for b in mesh.cells for row in b.data]

    assert sequence(mine) == sequence(expected)
    np.testing.assert_array_equal(np.concatenate(mine.cell_data["global_ids"]),
                                  np.concatenate(expected.cell_data["global_ids"]))
    # the reader's own accounting: this rank's one piece file, nothing else — and on rank 0 the
    # index, which rank 0 alone reads (and broadcasts)
    own = [os.path.abspath(os.path.join(folder, "bracket", f"bracket_{rank}.vtu"))]
    assert _parallel.files_read == ([os.path.abspath(target)] if rank == 0 else []) + own
    assert _parallel.bytes_read == sum(os.path.getsize(f) for f in _parallel.files_read)


def test_one_rank_reads_the_whole_mesh_back(world):
    comm, folder, mesh, pieces = world
    comm.Barrier()
    if comm.Get_rank() != 0:
        return
    whole = mio.read(os.path.join(folder, "bracket.pvtu"), comm=MPI.COMM_SELF)
    order = np.argsort(whole.point_data["global_ids"])
    np.testing.assert_array_equal(whole.point_data["global_ids"][order], np.arange(len(mesh.points)))
    np.testing.assert_array_equal(whole.points[order], mesh.points)
    np.testing.assert_array_equal(whole.point_data["x"][order], mesh.points[:, 0])
    cell_ids = np.sort(np.concatenate(whole.cell_data["global_ids"]))
    np.testing.assert_array_equal(cell_ids, np.arange(sum(len(b) for b in mesh.cells)))
    # every original cell, by its global number, has the same nodes (in global numbering)
    original = {}
    base = 0
    for block in mesh.cells:
        for i, row in enumerate(block.data):
            original[base + i] = (block.type, tuple(row))
        base += len(block)
    ids = whole.point_data["global_ids"]
    for block, numbers in zip(whole.cells, whole.cell_data["global_ids"]):
        for row, number in zip(block.data, numbers):
            assert original[int(number)] == (block.type, tuple(ids[row]))


def test_vtk_reads_our_partitioned_file(world):
    comm, folder, mesh, pieces = world
    comm.Barrier()
    if comm.Get_rank() != 0:
        return
    vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
    reader = vtk.vtkXMLPUnstructuredGridReader()
    reader.SetFileName(os.path.join(folder, "bracket.pvtu"))
    reader.Update()
    grid = reader.GetOutput()
    assert grid.GetNumberOfCells() == sum(len(b) for b in mesh.cells)
    assert grid.GetNumberOfPoints() == sum(len(p.points) for p in pieces)


def _check_union(whole, mesh):
    """The union of the pieces equals the original mesh: points, data, global ids, cells."""
    order = np.argsort(whole.point_data["global_ids"])
    np.testing.assert_array_equal(whole.point_data["global_ids"][order], np.arange(len(mesh.points)))
    np.testing.assert_array_equal(whole.points[order], mesh.points)
    np.testing.assert_array_equal(whole.point_data["x"][order], mesh.points[:, 0])
    cell_ids = np.sort(np.concatenate(whole.cell_data["global_ids"]))
    np.testing.assert_array_equal(cell_ids, np.arange(sum(len(b) for b in mesh.cells)))
    original = {}
    base = 0
    for block in mesh.cells:
        for i, row in enumerate(block.data):
            original[base + i] = (block.type, tuple(row))
        base += len(block)
    ids = whole.point_data["global_ids"]
    for block, numbers in zip(whole.cells, whole.cell_data["global_ids"]):
        for row, number in zip(block.data, numbers):
            assert original[int(number)] == (block.type, tuple(ids[row]))


# --- partitioned VTKHDF: one file per rank + a main file of virtual datasets -----------------


def test_vtkhdf_collective_write_then_read_own_share(world):
    comm, folder, mesh, pieces = world
    rank = comm.Get_rank()
    target = os.path.join(folder, "bracket.vtkhdf")
    mio.write(target, pieces[rank], comm=comm)
    comm.Barrier()
    mine = mio.read(target, comm=comm)
    expected = pieces[rank]
    np.testing.assert_array_equal(mine.points, expected.points)
    np.testing.assert_array_equal(mine.point_data["global_ids"], expected.point_data["global_ids"])
    np.testing.assert_array_equal(mine.point_data["x"], expected.point_data["x"])

    def sequence(mesh):
        return [(b.type, tuple(row)) for b in mesh.cells for row in b.data]

    assert sequence(mine) == sequence(expected)
    np.testing.assert_array_equal(np.concatenate(mine.cell_data["global_ids"]),
                                  np.concatenate(expected.cell_data["global_ids"]))
    # the reader's own accounting: the main file and this rank's partition file, nothing else
    assert _parallel.files_read == [os.path.abspath(target),
                                    os.path.abspath(os.path.join(folder, f"bracket_part{rank}.vtkhdf"))]
    own = np.asarray(expected.points).nbytes
    assert own <= _parallel.bytes_read < os.path.getsize(os.path.join(folder, f"bracket_part{rank}.vtkhdf")) + 4096


def test_vtkhdf_one_rank_reads_the_whole_mesh_back(world):
    comm, folder, mesh, pieces = world
    comm.Barrier()
    if comm.Get_rank() != 0:
        return
    target = os.path.join(folder, "bracket.vtkhdf")
    whole = mio.read(target, comm=MPI.COMM_SELF)
    _check_union(whole, mesh)
    assert len(_parallel.files_read) == 1 + comm.Get_size()
    # a plain read (no communicator) gives every partition, boundary points once per partition
    plain = mio.read(target)
    assert len(plain.points) == sum(len(p.points) for p in pieces)
    assert sum(len(b) for b in plain.cells) == sum(len(b) for b in mesh.cells)


def test_vtk_reads_our_partitioned_vtkhdf(world):
    comm, folder, mesh, pieces = world
    comm.Barrier()
    if comm.Get_rank() != 0:
        return
    vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
    reader = vtk.vtkHDFReader()
    reader.SetFileName(os.path.join(folder, "bracket.vtkhdf"))
    reader.Update()
    output = reader.GetOutputDataObject(0)
    assert output.GetNumberOfPartitions() == comm.Get_size()
    assert sum(output.GetPartition(p).GetNumberOfCells() for p in range(comm.Get_size())) == \
        sum(len(b) for b in mesh.cells)
    assert sum(output.GetPartition(p).GetNumberOfPoints() for p in range(comm.Get_size())) == \
        sum(len(p.points) for p in pieces)


# --- XDMF spatial collections: one .xdmf/.h5 per rank + an index of XIncludes ---------------


def _sequence(mesh):
    return [(b.type, tuple(row)) for b in mesh.cells for row in b.data]


def test_xdmf_collective_write_then_read_own_share(world):
    comm, folder, mesh, pieces = world
    rank = comm.Get_rank()
    target = os.path.join(folder, "bracket.xdmf")
    mio.write(target, pieces[rank], comm=comm)
    comm.Barrier()
    mine = mio.read(target, comm=comm)
    expected = pieces[rank]
    np.testing.assert_array_equal(mine.points, expected.points)
    np.testing.assert_array_equal(mine.point_data["global_ids"], expected.point_data["global_ids"])
    np.testing.assert_array_equal(mine.point_data["x"], expected.point_data["x"])
    assert _sequence(mine) == _sequence(expected)  # a Mixed topology joins blocks of one type
    np.testing.assert_array_equal(np.concatenate(mine.cell_data["global_ids"]),
                                  np.concatenate(expected.cell_data["global_ids"]))
    # this rank's grid file and its heavy data, nothing else; the index on rank 0 only
    assert _parallel.files_read == ([os.path.abspath(target)] if rank == 0 else []) + [
        os.path.join(folder, f"bracket_part{rank}.xdmf"), os.path.join(folder, f"bracket_part{rank}.h5")]
    assert _parallel.bytes_read == sum(os.path.getsize(f) for f in _parallel.files_read)


def test_xdmf_read_back_on_one_rank_and_by_vtk(world):
    comm, folder, mesh, pieces = world
    comm.Barrier()
    if comm.Get_rank() != 0:
        return
    target = os.path.join(folder, "bracket.xdmf")
    whole = mio.read(target, comm=MPI.COMM_SELF)
    _check_union(whole, mesh)
    assert len(_parallel.files_read) == 1 + 2 * comm.Get_size()
    plain = mio.read(target)  # no communicator: the core follows the XIncludes, pieces not welded
    assert len(plain.points) == sum(len(p.points) for p in pieces)
    assert sum(len(b) for b in plain.cells) == sum(len(b) for b in mesh.cells)
    vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
    reader = vtk.vtkXdmfReader()
    reader.SetFileName(target)
    reader.Update()
    output = reader.GetOutputDataObject(0)
    assert output.GetNumberOfCells() == sum(len(b) for b in mesh.cells)
    assert output.GetNumberOfPoints() == sum(len(p.points) for p in pieces)


def test_xdmf_inline_grids_collection(world):
    """A spatial collection written by another tool (grids inline in the index, heavy data in
    the pieces' .h5 files): each rank reads only its grid's arrays."""
    import xml.etree.ElementTree as ElementTree

    comm, folder, mesh, pieces = world
    rank = comm.Get_rank()
    target = os.path.join(folder, "inline.xdmf")
    if rank == 0:
        grids = []
        for number in range(comm.Get_size()):
            root = ElementTree.parse(os.path.join(folder, f"bracket_part{number}.xdmf")).getroot()
            grid = root.find("Domain/Grid")
            grid.set("Name", f"piece{number}")
            grids.append(ElementTree.tostring(grid, encoding="unicode"))
        with open(target, "w") as handle:
            handle.write('<?xml version="1.0"?><Xdmf Version="3.0"><Domain>'
                         '<Grid Name="all" GridType="Collection" CollectionType="Spatial">'
                         + "".join(grids) + "</Grid></Domain></Xdmf>")
    comm.Barrier()
    mine = mio.read(target, comm=comm)
    np.testing.assert_array_equal(mine.points, pieces[rank].points)
    assert _sequence(mine) == _sequence(pieces[rank])
    assert _parallel.files_read == ([target] if rank == 0 else []) + [os.path.join(folder, f"bracket_part{rank}.h5")]
    comm.Barrier()
    if rank == 0:
        _check_union(mio.read(target, comm=MPI.COMM_SELF), mesh)


# --- Gmsh split partition files (Mesh.PartitionSplitMeshFiles=1) ----------------------------


@pytest.fixture(scope="module")
def gmsh_split(world):
    """6 partitions of a meshed box by gmsh itself, split into box_1.msh … box_6.msh, plus the
    unsplit whole (box.msh is never written: a split write names only the partition files)."""
    comm, folder, _, _ = world
    if comm.Get_rank() == 0:
        gmsh = pytest.importorskip("gmsh", reason="gmsh is in requirements-test.txt")
        gmsh.initialize()
        try:
            gmsh.option.setNumber("General.Terminal", 0)
            gmsh.model.add("box")
            gmsh.model.occ.addBox(0, 0, 0, 1, 1, 1)
            gmsh.model.occ.synchronize()
            gmsh.model.addPhysicalGroup(3, [1], 1)
            gmsh.option.setNumber("Mesh.MeshSizeMax", 0.2)
            gmsh.model.mesh.generate(3)
            gmsh.model.mesh.partition(6)
            gmsh.option.setNumber("Mesh.PartitionSplitMeshFiles", 1)
            gmsh.write(os.path.join(folder, "box.msh"))
            gmsh.option.setNumber("Mesh.PartitionSplitMeshFiles", 0)
            gmsh.write(os.path.join(folder, "whole.msh"))
        finally:
            gmsh.finalize()
    comm.Barrier()
    return comm, folder


def test_gmsh_split_files_rank_share(gmsh_split):
    comm, folder = gmsh_split
    rank, size = comm.Get_rank(), comm.Get_size()
    target = os.path.join(folder, "box.msh")
    assert _parallel.gmsh_partition_files(target) == [os.path.join(folder, f"box_{i}.msh") for i in range(1, 7)]
    mine = mio.read(target, comm=comm)
    share = _parallel.rank_share(6, size, rank)
    assert _parallel.files_read == [os.path.join(folder, f"box_{i + 1}.msh") for i in share]
    expected = [mio.read(os.path.join(folder, f"box_{i + 1}.msh")) for i in share]
    assert sum(len(b) for b in mine.cells) == sum(sum(len(b) for b in m.cells) for m in expected)
    counts = comm.allgather(sum(len(b) for b in mine.cells if b.dim == 3))
    whole = mio.read(os.path.join(folder, "whole.msh"))
    assert sum(counts) == sum(len(b) for b in whole.cells if b.dim == 3)
    if rank == 0:  # one rank: every partition; the union of the tets is the whole mesh's
        everything = mio.read(target, comm=MPI.COMM_SELF)

        def tets(mesh):
            return sorted(tuple(np.round(np.sort(mesh.points[row], axis=0).ravel(), 12))
                          for b in mesh.cells if b.dim == 3 for row in b.data)

        assert tets(everything) == tets(whole)
        np.testing.assert_array_equal(np.unique(np.round(everything.points, 12), axis=0),
                                      np.unique(np.round(whole.points, 12), axis=0))


def test_wrong_use_is_explained(world, tmp_path):
    comm, folder, mesh, pieces = world
    with pytest.raises(ValueError, match="pvtu, vtkhdf, xdmf, gmsh"):
        mio.read(os.path.join(folder, "x.stl"), comm=comm)
    with pytest.raises(ValueError, match="pvtu, vtkhdf, xdmf"):
        mio.write(os.path.join(folder, "x.msh"), pieces[comm.Get_rank()], comm=comm)
    with pytest.raises(mio.ReadError, match="PartitionSplitMeshFiles"):
        mio.read(SAMPLE, comm=comm)  # a single .msh: no split partition files beside it
    if comm.Get_rank() == 0:
        with pytest.raises(mio.ReadError, match="Temporal"):
            temporal = os.path.join(folder, "series.xdmf")
            with mio.xdmf.TimeSeriesWriter(temporal, heavy_data_beside=True) as writer:
                writer.write_points_cells(mesh.points, [("tetra", mesh.cells[-1].data)])
                writer.write_data(0.0)
            mio.read(temporal, comm=MPI.COMM_SELF)
    comm.Barrier()
    if comm.Get_rank() == 0:
        os.remove(os.path.join(folder, "bracket", f"bracket_{comm.Get_size() - 1}.vtu"))
    comm.Barrier()
    # the read is collective (rank 0 broadcasts the index): every rank calls it, only the rank
    # whose piece is missing fails, naming the index, the piece file and itself
    if comm.Get_rank() == comm.Get_size() - 1:
        with pytest.raises(mio.ReadError, match=rf"bracket\.pvtu: piece {comm.Get_rank()} \(.*bracket_"
                                                rf"{comm.Get_rank()}\.vtu\) for rank {comm.Get_rank()} is missing"):
            mio.read(os.path.join(folder, "bracket.pvtu"), comm=comm)
    else:
        mio.read(os.path.join(folder, "bracket.pvtu"), comm=comm)


@pytest.mark.parametrize("name", ["broken.pvtu", "broken.pvtp", "broken.xdmf"])
def test_a_bad_index_fails_alike_on_every_rank(world, name):
    """Rank 0 alone reads the index; when it cannot, it broadcasts the failure, and every rank
    raises the same ReadError naming the file (none hangs in the bcast)."""
    comm, folder, _, _ = world
    target = os.path.join(folder, name)
    if comm.Get_rank() == 0:
        with open(target, "w") as handle:
            handle.write("<VTKFile type='PUnstructuredGrid'><truncated")
    comm.Barrier()
    with pytest.raises(mio.ReadError, match=rf"{name}: not a readable") as caught:
        mio.read(target, comm=comm)
    messages = comm.allgather(str(caught.value))
    assert len(set(messages)) == 1, messages
