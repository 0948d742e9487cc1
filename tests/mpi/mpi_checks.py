"""Run under MPI (tests/python/test_parallel.py launches it with ``mpirun -n 4``):
partition the sample bracket, write PVTU collectively, read it back on every rank and on one."""

import os
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
    return comm, folder, mesh, pieces


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
    # the reader's own accounting: the index and this rank's one piece file, nothing else
    assert _parallel.files_read == [os.path.abspath(target),
                                    os.path.abspath(os.path.join(folder, "bracket", f"bracket_{rank}.vtu"))]


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


def test_wrong_use_is_explained(world, tmp_path):
    comm, folder, mesh, pieces = world
    with pytest.raises(ValueError, match="pvtu"):
        mio.read(SAMPLE, comm=comm)
    comm.Barrier()
    if comm.Get_rank() == 0:
        os.remove(os.path.join(folder, "bracket", f"bracket_{comm.Get_size() - 1}.vtu"))
    comm.Barrier()
    if comm.Get_rank() == comm.Get_size() - 1:
        with pytest.raises(mio.ReadError, match=f"rank {comm.Get_rank()}"):
            mio.read(os.path.join(folder, "bracket.pvtu"), comm=comm)
