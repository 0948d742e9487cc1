"""Partitioned reads of Gmsh-partitioned meshes (one file with $PartitionedEntities, or the split
files of Mesh.PartitionSplitMeshFiles=1) and partitioned PVTP, on files written by gmsh and VTK.

Tests named ``*_without_mpi`` use a fake communicator (every rank of a size, in one process);
the ``test_mpi_*`` ones use MPI.COMM_WORLD, and tests/python/test_parallel.py runs them under
``mpirun -n 4`` (run alone they take the one-rank world)."""

import os
import re
import shutil
import tempfile

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _parallel

from interop import FakeWorld

NUM_PARTITIONS = 6


def _write_gmsh_files(folder):
    """A meshed box partitioned by gmsh into NUM_PARTITIONS, with ghost cells and physical groups
    of every dimension (so shared curves and points hold elements too), written as one ASCII
    file, one binary file and split files. Returns gmsh's own view of the unpartitioned mesh:
    {element tag: (dim, sorted node tags)} of the elements the files hold, {node tag: xyz}."""
    gmsh = pytest.importorskip("gmsh", reason="gmsh is in requirements-test.txt")
    gmsh.initialize()
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add("box")
        gmsh.model.occ.addBox(0, 0, 0, 1, 1, 1)
        gmsh.model.occ.synchronize()
        gmsh.model.addPhysicalGroup(3, [1], 1, name="solid")
        gmsh.model.addPhysicalGroup(2, [1, 2], 2, name="ends")
        gmsh.model.addPhysicalGroup(1, [1, 2, 3, 4], 3, name="edges")
        gmsh.model.addPhysicalGroup(0, [1, 2], 4, name="corners")
        gmsh.option.setNumber("Mesh.MeshSizeMax", 0.2)
        gmsh.model.mesh.generate(3)
        elements = {}  # those gmsh saves: the elements of the entities in physical groups
        entities = {(dim, entity) for dim, group in gmsh.model.getPhysicalGroups()
                    for entity in gmsh.model.getEntitiesForPhysicalGroup(dim, group)}
        for dim, entity in sorted(entities):
            types, tags, nodes = gmsh.model.mesh.getElements(dim, entity)
            for element_type, element_tags, node_tags in zip(types, tags, nodes):
                width = len(node_tags) // len(element_tags)
                for tag, row in zip(element_tags, np.reshape(node_tags, (-1, width))):
                    elements[int(tag)] = (dim, tuple(sorted(int(n) for n in row)))
        node_tags, coordinates, _ = gmsh.model.mesh.getNodes()
        nodes = {int(t): tuple(xyz) for t, xyz in zip(node_tags, np.reshape(coordinates, (-1, 3)))}
        gmsh.option.setNumber("Mesh.PartitionCreateGhostCells", 1)
        gmsh.model.mesh.partition(NUM_PARTITIONS)
        gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
        gmsh.write(os.path.join(folder, "single.msh"))
        gmsh.option.setNumber("Mesh.Binary", 1)
        gmsh.write(os.path.join(folder, "binary.msh"))
        gmsh.option.setNumber("Mesh.Binary", 0)
        gmsh.option.setNumber("Mesh.PartitionSplitMeshFiles", 1)
        gmsh.write(os.path.join(folder, "split.msh"))
    finally:
        gmsh.finalize()
    return elements, nodes


@pytest.fixture(scope="module")
def gmsh_files(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("gmsh-partitioned"))
    elements, nodes = _write_gmsh_files(folder)
    return folder, elements, nodes


def _cells_by_tag(mesh):
    """{element tag: (dim, sorted global node tags)} of a piece, and the number of cells."""
    ids = np.asarray(mesh.point_data["global_ids"])
    cells, count = {}, 0
    for block, tags in zip(mesh.cells, mesh.cell_data["global_ids"]):
        for row, tag in zip(block.data, tags):
            cells[int(tag)] = (block.dim, tuple(sorted(int(n) for n in ids[row])))
            count += 1
    return cells, count


def _check_union(shares, elements, nodes):
    """Every element in exactly one share, with its nodes (by global tag) and coordinates."""
    union, total = {}, 0
    for share in shares:
        cells, count = _cells_by_tag(share)
        assert len(cells) == count, "an element twice in one share"
        assert not set(cells) & set(union), "an element in two shares"
        union.update(cells)
        total += count
        ids = np.asarray(share.point_data["global_ids"])
        assert len(np.unique(ids)) == len(ids), "a node twice in one share"
        # ASCII MSH keeps 16 significant digits
        np.testing.assert_allclose(share.points, np.array([nodes[int(t)] for t in ids]).reshape(-1, 3), atol=1e-14)
    assert union == elements


def _ghost_tags(path):
    """The element tags a split file lists in $GhostElements (ASCII)."""
    text = open(path).read()
    body = text.split("$GhostElements\n", 1)[1].split("$EndGhostElements", 1)[0].split("\n")
    return {int(line.split()[0]) for line in body[1:] if line.strip()}


@pytest.mark.parametrize("name", ["single.msh", "binary.msh", "split.msh"])
@pytest.mark.parametrize("size", [1, 4, 7])
def test_shares_cover_the_mesh_once_without_mpi(gmsh_files, name, size):
    folder, elements, nodes = gmsh_files
    path = os.path.join(folder, name)
    shares = []
    for rank in range(size):
        shares.append(mio.read(path, comm=FakeWorld(size).comm(rank)))
        mine = _parallel.rank_share(NUM_PARTITIONS, size, rank)
        if name == "split.msh":  # only the rank's own split files, nothing else
            assert _parallel.files_read == [os.path.join(folder, f"split_{k + 1}.msh") for k in mine]
        else:
            assert _parallel.files_read == [path]
        if not mine:
            assert len(shares[-1].points) == 0 and sum(len(b) for b in shares[-1].cells) == 0
    _check_union(shares, elements, nodes)


def test_regions_and_data_follow_the_share_without_mpi(gmsh_files):
    folder, elements, _ = gmsh_files
    path = os.path.join(folder, "single.msh")
    whole = mio.read(path)  # no communicator: the whole file, as before
    assert "global_ids" not in whole.point_data
    assert sum(len(b) for b in whole.cells) == len(elements)
    for rank in range(3):
        share = mio.read(path, comm=FakeWorld(3).comm(rank))
        ids = np.concatenate(share.cell_data["global_ids"])
        assert sorted(r.name for r in share.regions) == sorted(r.name for r in whole.regions)
        for region in share.regions:
            if region.kind == mio.RegionKind.CELL:  # cells of the group, by element tag
                dim = {"solid": 3, "ends": 2, "edges": 1}[region.name]
                assert all(elements[int(tag)][0] == dim for tag in ids[region.entries])
            else:  # corners: nodes of vertex elements
                assert region.name == "corners"
        assert set(share.cell_data) >= {"gmsh:physical", "gmsh:geometrical", "global_ids"}
        assert share.point_data["gmsh:dim_tags"].shape == (len(share.points), 2)


def test_split_files_leave_ghost_cells_out_without_mpi(gmsh_files):
    folder, _, _ = gmsh_files
    for k in range(1, NUM_PARTITIONS + 1):
        split = os.path.join(folder, f"split_{k}.msh")
        ghosts = _ghost_tags(split)
        assert ghosts, "gmsh wrote no ghost cells (Mesh.PartitionCreateGhostCells)"
        own = _parallel._read_gmsh_partitions(split, [k])  # what a rank reads of it
        tags = set(int(t) for t in np.concatenate(own.cell_data["global_ids"]))
        assert not tags & ghosts
        plain = mio.read(split)  # a plain read keeps every block of the file, ghosts included
        assert sum(len(b) for b in plain.cells) >= len(tags) + len(ghosts)


def _ghost_elements(path):
    """Gmsh's $GhostElements of an ASCII file: {element tag: (owner partition, {partitions it is
    a ghost in})}."""
    text = open(path).read()
    body = text.split("$GhostElements\n", 1)[1].split("$EndGhostElements", 1)[0].split("\n")
    ghosts = {}
    for line in body[1:]:
        if line.strip():
            values = [int(v) for v in line.split()]
            ghosts[values[0]] = (values[1], set(values[3:3 + values[2]]))
    return ghosts


def _owned_only(share):
    """The share without its ghost cells (vtkGhostType 1)."""
    return _parallel._keep_cells(share, [np.asarray(g) == 0 for g in share.cell_data["vtkGhostType"]])


def _check_ghost_shares(shares, ranks_partitions, ghosts, elements, nodes):
    """Owned cells (vtkGhostType 0) partition the mesh once; each share's ghost cells are the
    elements gmsh lists as ghosts of its partitions owned elsewhere, with their nodes; every node
    is owned (point vtkGhostType 0) by exactly one share: the one owning the lowest partition
    whose owned cells use it."""
    _check_union([_owned_only(share) for share in shares], elements, nodes)
    point_owner, lowest_user = {}, {}
    for rank, (share, mine) in enumerate(zip(shares, ranks_partitions)):
        assert share.point_data["vtkGhostType"].dtype == np.uint8
        cells, count = _cells_by_tag(share)
        assert len(cells) == count, "a cell twice in one share"
        flags = np.concatenate(share.cell_data["vtkGhostType"]) if share.cells else np.zeros(0, np.uint8)
        assert flags.dtype == np.uint8 and set(np.unique(flags)) <= {0, 1}
        tags = list(cells)  # in block order, as the flags
        ghost_tags = {tag for tag, flag in zip(tags, flags) if flag == 1}
        assert ghost_tags == {tag for tag, (owner, where) in ghosts.items() if where & mine and owner not in mine}
        for tag in ghost_tags:
            assert cells[tag] == elements[tag]
        ids = share.point_data["global_ids"]
        for node in ids[share.point_data["vtkGhostType"] == 0]:
            assert int(node) not in point_owner, "a node owned by two shares"
            point_owner[int(node)] = rank
        for tag, flag in zip(tags, flags):
            if flag == 0:
                for node in cells[tag][1]:
                    lowest_user[node] = min(lowest_user.get(node, rank), rank)
    assert point_owner == lowest_user


@pytest.mark.parametrize("name", ["single.msh", "binary.msh", "split.msh"])
@pytest.mark.parametrize("size", [1, 4, 6, 7])
def test_ghost_cells_flagged_like_vtk_without_mpi(gmsh_files, name, size):
    folder, elements, nodes = gmsh_files
    path = os.path.join(folder, name)
    ghosts = _ghost_elements(os.path.join(folder, "single.msh"))
    assert ghosts, "gmsh wrote no ghost cells (Mesh.PartitionCreateGhostCells)"
    shares, ranks_partitions = [], []
    for rank in range(size):
        share = mio.read(path, comm=FakeWorld(size).comm(rank), ghost_cells=True)
        mine = {k + 1 for k in _parallel.rank_share(NUM_PARTITIONS, size, rank)}
        # the default read is unchanged: the owned cells, in the same order, and no flags
        plain = mio.read(path, comm=FakeWorld(size).comm(rank))
        assert "vtkGhostType" not in plain.point_data and "vtkGhostType" not in plain.cell_data
        owned = _owned_only(share)
        plain_ids = np.concatenate(plain.cell_data["global_ids"]) if plain.cells else np.zeros(0)
        owned_ids = np.concatenate(owned.cell_data["global_ids"]) if owned.cells else np.zeros(0)
        np.testing.assert_array_equal(np.sort(owned_ids), np.sort(plain_ids))
        shares.append(share)
        ranks_partitions.append(mine)
    _check_ghost_shares(shares, ranks_partitions, ghosts, elements, nodes)
    if size == 1:  # one rank owns everything: nothing is a ghost
        assert not any(np.any(g) for g in shares[0].cell_data["vtkGhostType"])


def test_ghost_cells_when_elements_are_not_one_per_line_without_mpi(gmsh_files, tmp_path):
    """An ASCII file whose element records span lines takes the reader's sequential route; the
    ghosts it picks are the same."""
    folder, _, _ = gmsh_files
    text = open(os.path.join(folder, "single.msh")).read()
    head, rest = text.split("$Elements\n", 1)
    body, tail = rest.split("$EndElements\n", 1)
    lines = [line.split(" ", 1) for line in body.split("\n")]
    wrapped = "\n".join(parts[0] + "\n" + parts[1] if len(parts) == 2 and len(parts[1].split()) == 4 else " ".join(parts)
                        for parts in lines)
    path = tmp_path / "wrapped.msh"
    path.write_text(head + "$Elements\n" + wrapped + "$EndElements\n" + tail)
    for rank in range(3):
        ours = _parallel._read_gmsh_partitions(path, rank_share=(rank, 3), ghost_cells=True)
        gmshs = _parallel._read_gmsh_partitions(os.path.join(folder, "single.msh"), rank_share=(rank, 3), ghost_cells=True)
        for name in ("global_ids", "vtkGhostType"):
            for a, b in zip(ours.cell_data[name], gmshs.cell_data[name]):
                np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(ours.point_data[name], gmshs.point_data[name])


def test_ghost_cells_need_a_gmsh_partitioned_read_without_mpi(gmsh_files, tmp_path):
    folder, _, _ = gmsh_files
    with pytest.raises(ValueError, match=r"ghost_cells=True.*needs a communicator"):
        mio.read(os.path.join(folder, "single.msh"), ghost_cells=True)
    pieces = mio.partition(_surface(4), 2, method="geometric")
    mio.parallel.write_pieces(tmp_path / "s.pvtu", pieces)
    with pytest.raises(ValueError, match=r"ghost_cells=True is offered for Gmsh.*not for pvtu"):
        mio.read(tmp_path / "s.pvtu", comm=FakeWorld(2).comm(0), ghost_cells=True)


def test_wrong_partitioned_reads_are_read_errors_without_mpi(gmsh_files, tmp_path):
    folder, _, _ = gmsh_files
    path = os.path.join(folder, "single.msh")
    with pytest.raises(mio.ReadError, match=r"single\.msh.*partition 9 was asked for, but the file has 6"):
        _parallel._read_gmsh_partitions(path, [9])
    with pytest.raises(mio.ReadError, match=r"single\.msh.*rank 3 of 2 is not a rank"):
        _parallel._read_gmsh_partitions(path, rank_share=(3, 2))
    # A '#' in a file name is only a file name (no selection rides on the path).
    assert not os.path.exists(path + "#partitions=1")
    with pytest.raises(mio.ReadError, match=r"no such file|not found|does not exist"):
        mio.read(path + "#partitions=1", "gmsh")
    plain = tmp_path / "plain.msh"
    mio.write(plain, mio.Mesh(np.eye(3), [("triangle", np.array([[0, 1, 2]]))]), "gmsh")
    with pytest.raises(mio.ReadError, match=r"plain\.msh.*\$PartitionedEntities.*PartitionSplitMeshFiles"):
        mio.read(plain, comm=FakeWorld(2).comm(0))
    with pytest.raises(mio.ReadError, match=r"missing\.msh.*no such file"):
        mio.read(tmp_path / "missing.msh", comm=FakeWorld(2).comm(0))


# --- PVTP ----------------------------------------------------------------------------------


def _surface(n=12):
    """A triangulated unit square with a line border: polydata with two cell kinds."""
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n), indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), np.zeros(n * n)])
    index = np.arange(n * n).reshape(n, n)
    a, b, c, d = index[:-1, :-1].ravel(), index[1:, :-1].ravel(), index[1:, 1:].ravel(), index[:-1, 1:].ravel()
    triangles = np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])])
    mesh = mio.Mesh(points, [("triangle", triangles)])
    mesh.point_data["height"] = points[:, 0] * points[:, 1]
    return mesh


def _check_vtk_reads_pvtp(path, total_cells, total_points):
    vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
    reader = vtk.vtkXMLPPolyDataReader()
    reader.SetFileName(str(path))
    reader.Update()
    output = reader.GetOutput()
    assert output.GetNumberOfCells() == total_cells
    assert output.GetNumberOfPoints() == total_points
    assert output.GetPointData().GetArray("global_ids") is not None


def test_pvtp_shares_without_mpi(tmp_path):
    mesh = _surface()
    pieces = mio.partition(mesh, 5, method="geometric")
    target = tmp_path / "surface.pvtp"
    mio.parallel.write_pieces(target, pieces)
    assert sorted(os.listdir(tmp_path / "surface")) == [f"surface_{i}.vtp" for i in range(5)]
    assert "PPolyData" in target.read_text()
    world = FakeWorld(2)  # rank 0 reads the index and broadcasts its piece list to rank 1
    shares = [mio.read(target, comm=world.comm(rank)) for rank in range(2)]
    assert _parallel.files_read == [str(tmp_path / "surface" / f"surface_{i}.vtp") for i in (3, 4)]
    whole = _parallel.merge(shares)
    order = np.argsort(whole.point_data["global_ids"])
    np.testing.assert_array_equal(whole.points[order], mesh.points)
    np.testing.assert_array_equal(whole.point_data["height"][order], mesh.point_data["height"])
    assert sorted(np.concatenate(whole.cell_data["global_ids"])) == list(range(len(mesh.cells[0])))
    _check_vtk_reads_pvtp(target, len(mesh.cells[0]), sum(len(p.points) for p in pieces))
    # a collective write on a world of one rank: its piece and the index
    mio.write(tmp_path / "one.pvtp", pieces[0], comm=FakeWorld(1).comm(0))
    assert os.path.exists(tmp_path / "one" / "one_0.vtp")
    np.testing.assert_array_equal(mio.read(tmp_path / "one.pvtp", comm=FakeWorld(1).comm(0)).points, pieces[0].points)


# --- under MPI (tests/python/test_parallel.py: mpirun -n 4) --------------------------------


@pytest.fixture(scope="module")
def world():
    MPI = pytest.importorskip("mpi4py.MPI", reason="mpi4py is in requirements-test.txt")
    comm = MPI.COMM_WORLD
    folder = comm.bcast(tempfile.mkdtemp(prefix="mio-mpi-gmsh-") if comm.Get_rank() == 0 else None, root=0)
    reference = _write_gmsh_files(folder) if comm.Get_rank() == 0 else None
    reference = comm.bcast(reference, root=0)
    yield comm, folder, reference
    comm.Barrier()  # every rank is done with the files before rank 0 removes them
    if comm.Get_rank() == 0:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("name", ["single.msh", "split.msh"])
def test_mpi_gmsh_shares(world, name):
    comm, folder, (elements, nodes) = world
    path = os.path.join(folder, name)
    mine = mio.read(path, comm=comm)
    share = _parallel.rank_share(NUM_PARTITIONS, comm.Get_size(), comm.Get_rank())
    expected_files = [path] if name == "single.msh" else [os.path.join(folder, f"split_{k + 1}.msh") for k in share]
    assert _parallel.files_read == expected_files
    shares = comm.gather(mine, root=0)
    if comm.Get_rank() == 0:
        _check_union(shares, elements, nodes)


@pytest.mark.parametrize("name", ["single.msh", "split.msh"])
def test_mpi_gmsh_ghost_cells(world, name):
    comm, folder, (elements, nodes) = world
    mine = mio.read(os.path.join(folder, name), comm=comm, ghost_cells=True)
    partitions = {k + 1 for k in _parallel.rank_share(NUM_PARTITIONS, comm.Get_size(), comm.Get_rank())}
    shares, ranks_partitions = comm.gather(mine, root=0), comm.gather(partitions, root=0)
    if comm.Get_rank() == 0:
        ghosts = _ghost_elements(os.path.join(folder, "single.msh"))
        _check_ghost_shares(shares, ranks_partitions, ghosts, elements, nodes)


def test_mpi_pvtp_collective_write_and_read(world):
    comm, folder, _ = world
    rank, size = comm.Get_rank(), comm.Get_size()
    mesh = _surface()
    pieces = mio.partition(mesh, size, method="geometric")
    target = os.path.join(folder, "surface.pvtp")
    mio.write(target, pieces[rank], comm=comm)
    comm.Barrier()
    mine = mio.read(target, comm=comm)
    np.testing.assert_array_equal(mine.points, pieces[rank].points)
    np.testing.assert_array_equal(mine.point_data["global_ids"], pieces[rank].point_data["global_ids"])
    assert _parallel.files_read == ([target] if rank == 0 else []) + [os.path.join(folder, "surface", f"surface_{rank}.vtp")]
    comm.Barrier()
    if rank == 0:
        _check_vtk_reads_pvtp(target, len(mesh.cells[0]), sum(len(p.points) for p in pieces))
        index = open(target).read()
        assert len(re.findall(r"<Piece ", index)) == size
