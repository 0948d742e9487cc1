"""Partitioning (no MPI needed) and the MPI checks (tests/mpi/mpi_checks.py) under mpirun -n 4."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus._parallel import merge, rank_share

from interop import FakeWorld

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "..", "samples", "bracket.msh")


@pytest.mark.parametrize("method", ["metis", "geometric"])
def test_partition_covers_every_cell_once_and_merges_back(method):
    if method == "metis":
        pytest.importorskip("pymetis", reason="pymetis is in requirements-test.txt")
    mesh = mio.read(SAMPLE)
    pieces = mio.partition(mesh, 4, method=method)
    assert len(pieces) == 4
    counts = [sum(len(b) for b in p.cells) for p in pieces]
    total = sum(len(b) for b in mesh.cells)
    assert sum(counts) == total and min(counts) > 0
    assert max(counts) < 1.2 * total / 4 + 10  # balanced
    whole = merge(pieces)
    order = np.argsort(whole.point_data["global_ids"])
    np.testing.assert_array_equal(whole.points[order], mesh.points)
    for region in mesh.regions:  # regions survive the split and the merge, as sets
        back = whole.region(region.name, region.kind)
        if region.kind == mio.RegionKind.POINT:
            assert sorted(whole.point_data["global_ids"][back.entries]) == sorted(region.entries)
        elif region.kind == mio.RegionKind.CELL:
            ids = np.concatenate(whole.cell_data["global_ids"])
            assert sorted(ids[back.entries]) == sorted(region.entries)


def test_rank_share_is_contiguous_and_complete():
    assert rank_share(10, 4, 0) == [0, 1, 2] and rank_share(10, 4, 3) == [8, 9]
    assert sum((rank_share(10, 4, r) for r in range(4)), []) == list(range(10))
    assert rank_share(2, 4, 3) == []


def test_partition_cli(tmp_path):
    done = subprocess.run([sys.executable, "-m", "meshioplusplus", "partition", SAMPLE, str(tmp_path / "b.pvtu"),
                           "-n", "3"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "b")) == ["b_0.vtu", "b_1.vtu", "b_2.vtu"]
    mesh = mio.read(SAMPLE)
    pieces = [mio.read(tmp_path / "b" / f"b_{i}.vtu") for i in range(3)]
    assert sum(sum(len(b) for b in p.cells) for p in pieces) == sum(len(b) for b in mesh.cells)


def test_under_mpirun_with_four_ranks():
    pytest.importorskip("mpi4py", reason="mpi4py is in requirements-test.txt")
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        pytest.skip("mpirun not found (Debian: openmpi-bin)")
    command = [mpirun, "-n", "4", "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    # mpi_checks.py, and the MPI tests of test_parallel_gmsh.py (Gmsh partitioned files, PVTP)
    command += [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "not without_mpi",
                os.path.join(HERE, "..", "mpi", "mpi_checks.py"), os.path.join(HERE, "test_parallel_gmsh.py")]
    # A test that ran before in this process may have started MPI as a singleton (mpi4py's
    # import): its OMPI_/PMIX_ variables would make this mpirun's ranks join that one instead.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PRTE_"))}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("passed") >= 4


def test_one_gpu_per_rank_pattern():
    """device_for_rank picks the rank's device among the node's; to_cupy(device=) uses it
    (fake CuPy: no GPU needed, transfers still counted)."""
    MPI = pytest.importorskip("mpi4py.MPI", reason="mpi4py is in requirements-test.txt")
    from meshioplusplus.testing import fake_cupy

    assert mio.device_for_rank(MPI.COMM_WORLD, device_count=4) == MPI.COMM_WORLD.Get_rank() % 4
    piece = mio.partition(mio.read(SAMPLE), 2, method="geometric")[1]
    with fake_cupy.installed() as cp:
        gpu = mio.to_cupy(piece, device=mio.device_for_rank(MPI.COMM_WORLD, device_count=1))
        np.testing.assert_array_equal(gpu.points.get(), piece.points)
        assert cp.log.count_of("to_device") == len(list(gpu.named_arrays()))


def _shares_reading_the_index_once(path, size, gone=None, **options):
    """The shares of ``size`` ranks (rank 0 first) and each rank's files_read / bytes_read. After
    rank 0's read the index (and ``gone``, any other files) is moved away: the other ranks must
    not need it. ``options`` go to every rank's read (``isolate=True``)."""
    world, shares, accounting = FakeWorld(size), [], []
    for rank in range(size):
        shares.append(mio.read(path, comm=world.comm(rank), **options))
        accounting.append((list(mio.parallel.files_read), mio.parallel.bytes_read))
        if rank == 0:
            for moved in [path, *(gone or [])]:
                os.rename(moved, f"{moved}.away")
    for moved in [path, *(gone or [])]:
        os.rename(f"{moved}.away", moved)
    return shares, accounting


@pytest.mark.parametrize("kind", ["pvtu", "pvtp"])
def test_vtk_xml_index_is_read_by_rank_zero_only_without_mpi(tmp_path, kind):
    if kind == "pvtu":
        mesh = mio.read(SAMPLE)
    else:  # polydata: a triangulated square
        x, y = np.meshgrid(np.linspace(0, 1, 9), np.linspace(0, 1, 9), indexing="ij")
        index = np.arange(81).reshape(9, 9)
        a, b, c, d = (index[:-1, :-1].ravel(), index[1:, :-1].ravel(), index[1:, 1:].ravel(),
                      index[:-1, 1:].ravel())
        mesh = mio.Mesh(np.column_stack([x.ravel(), y.ravel(), np.zeros(81)]),
                        [("triangle", np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])]))])
    pieces = mio.partition(mesh, 5, method="geometric")
    target = tmp_path / f"b.{kind}"
    mio.parallel.write_pieces(target, pieces)
    piece_file = [str(tmp_path / "b" / f"b_{i}.{kind[1:]}") for i in range(5)]
    shares, accounting = _shares_reading_the_index_once(str(target), 3)
    for rank, (files, size) in enumerate(accounting):
        own = [piece_file[i] for i in rank_share(5, 3, rank)]
        assert files == ([str(target)] if rank == 0 else []) + own
        assert size == sum(os.path.getsize(f) for f in files)
    whole = merge(shares)  # the union of the shares is the mesh
    order = np.argsort(whole.point_data["global_ids"])
    np.testing.assert_array_equal(whole.point_data["global_ids"][order], np.arange(len(mesh.points)))
    np.testing.assert_array_equal(whole.points[order], mesh.points)
    assert sorted(np.concatenate(whole.cell_data["global_ids"])) == list(range(sum(len(b) for b in mesh.cells)))


def test_a_bad_index_fails_alike_on_every_rank_without_mpi(tmp_path):
    pieces = mio.partition(mio.read(SAMPLE), 2, method="geometric")
    for name in ("b.pvtu", "b.pvtp", "b.xdmf"):
        target = tmp_path / name
        target.write_text("<VTKFile type='PUnstructuredGrid'><truncated")
        world, messages = FakeWorld(3), []
        for rank in range(3):
            with pytest.raises(mio.ReadError, match=rf"{name}: not a readable") as caught:
                mio.read(target, comm=world.comm(rank))
            messages.append(str(caught.value))
        assert messages[0] == messages[1] == messages[2]
    # the index missing altogether: the same ReadError on every rank, naming it
    world, messages = FakeWorld(2), []
    for rank in range(2):
        with pytest.raises(mio.ReadError, match=r"gone\.pvtu") as caught:
            mio.read(tmp_path / "gone.pvtu", comm=world.comm(rank))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    # a missing piece: a ReadError on the rank that reads it, naming the index, the piece, the rank
    mio.parallel.write_pieces(tmp_path / "p.pvtu", pieces)
    os.remove(tmp_path / "p" / "p_1.vtu")
    world = FakeWorld(2)
    assert len(mio.read(tmp_path / "p.pvtu", comm=world.comm(0)).points) == len(pieces[0].points)
    with pytest.raises(mio.ReadError, match=r"p\.pvtu: piece 1 \(.*p_1\.vtu\) for rank 1 is missing"):
        mio.read(tmp_path / "p.pvtu", comm=world.comm(1))


def test_xdmf_spatial_collection_shares_without_mpi(tmp_path):
    from meshioplusplus import _parallel

    mesh = mio.read(SAMPLE)
    pieces = mio.partition(mesh, 3, method="geometric")
    _parallel.write_pieces(tmp_path / "b.xdmf", pieces)
    assert "CollectionType=\"Spatial\"" in (tmp_path / "b.xdmf").read_text()
    shares, accounting = _shares_reading_the_index_once(str(tmp_path / "b.xdmf"), 2)
    # rank 0: the index and its grids' files; rank 1: its grid's files only (the index was gone)
    assert accounting[0][0] == [str(tmp_path / n) for n in ("b.xdmf", "b_part0.xdmf", "b_part0.h5",
                                                            "b_part1.xdmf", "b_part1.h5")]
    assert accounting[1][0] == [str(tmp_path / n) for n in ("b_part2.xdmf", "b_part2.h5")]
    assert accounting[1][1] == sum(os.path.getsize(f) for f in accounting[1][0])
    assert sum(sum(len(b) for b in s.cells) for s in shares) == sum(len(b) for b in mesh.cells)
    whole = merge(shares)
    order = np.argsort(whole.point_data["global_ids"])
    np.testing.assert_array_equal(whole.points[order], mesh.points)
    plain = mio.read(tmp_path / "b.xdmf")  # no communicator: the core follows the XIncludes
    assert sum(len(b) for b in plain.cells) == sum(len(b) for b in mesh.cells)


def test_gmsh_split_files_shares_without_mpi(tmp_path):
    gmsh = pytest.importorskip("gmsh", reason="gmsh is in requirements-test.txt")
    from meshioplusplus import _parallel

    gmsh.initialize()
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add("box")
        gmsh.model.occ.addBox(0, 0, 0, 1, 1, 1)
        gmsh.model.occ.synchronize()
        gmsh.option.setNumber("Mesh.MeshSizeMax", 0.25)
        gmsh.model.mesh.generate(3)
        gmsh.model.mesh.partition(3)
        gmsh.write(str(tmp_path / "whole.msh"))  # the partitioned mesh as one file: the reference
        gmsh.option.setNumber("Mesh.PartitionSplitMeshFiles", 1)
        gmsh.write(str(tmp_path / "box.msh"))
    finally:
        gmsh.finalize()
    files = _parallel.gmsh_partition_files(tmp_path / "box.msh")
    assert files == [str(tmp_path / f"box_{i}.msh") for i in (1, 2, 3)]
    world = FakeWorld(2)
    first = mio.read(tmp_path / "box.msh", comm=world.comm(0))
    assert _parallel.files_read == files[:2]
    second = mio.read(tmp_path / "box.msh", comm=world.comm(1))
    assert _parallel.files_read == files[2:]
    # every element once over the ranks (an element on an entity that several partitions share
    # belongs to the lowest of them), carrying its Gmsh tag; boundary nodes once per rank. (The
    # reference is the partitioned mesh: without physical groups gmsh also saves the elements
    # it adds on partition interfaces, Mesh.PartitionCreateTopology.)
    total = sum(len(b) for b in mio.read(tmp_path / "whole.msh").cells)
    assert sum(len(b) for b in first.cells) + sum(len(b) for b in second.cells) == total
    tags = np.concatenate(first.cell_data["global_ids"] + second.cell_data["global_ids"])
    assert len(np.unique(tags)) == total
    assert len(np.unique(first.point_data["global_ids"])) == len(first.points)
    with pytest.raises(mio.ReadError, match="PartitionSplitMeshFiles"):
        mio.read(SAMPLE, comm=FakeWorld(1).comm(0))
    with pytest.raises(ValueError, match="pvtu, vtkhdf, xdmf, pvtp"):
        mio.write(tmp_path / "x.msh", first, comm=FakeWorld(1).comm(0))


def test_public_parallel_namespace_is_the_live_module(tmp_path):
    """docs/parallel.md points users at ``mio.parallel`` (not the private module): it is the
    module itself, so the reader's accounting (files_read, bytes_read) is live there."""
    import sys

    import numpy as np

    import meshioplusplus as mio

    assert mio.parallel is sys.modules["meshioplusplus._parallel"]
    mesh = mio.Mesh(np.eye(3, dtype=float), [("triangle", np.array([[0, 1, 2]]))])
    path = tmp_path / "one.pvtu"
    mio.parallel.write_pieces(path, [mesh])
    assert len(mio.read(path).points) == 3


# --- read(path, comm=comm, isolate=True): each rank's reading in a worker --------------------

def _partitioned_files(tmp_path):
    """One partitioned file of every kind a communicator reads, and its rank count."""
    from meshioplusplus import _parallel

    mesh = mio.read(SAMPLE)
    pieces = mio.partition(mesh, 5, method="geometric")
    files = []
    for name in ("b.pvtu", "b.xdmf", "b.vtkhdf"):
        _parallel.write_pieces(tmp_path / name, pieces)
        files.append((str(tmp_path / name), 3))
    files.append((os.path.join(HERE, "..", "data", "openfoam", "cavity_decomposed_binary"), 3))
    return files


def test_isolated_shares_equal_in_process_shares_without_mpi(tmp_path):
    """Every partitioned kind: the rank's reading runs in a worker (the index's bcast here), and
    each rank's share and accounting equal an in-process partitioned read's, bit for bit."""
    from meshioplusplus import _isolation
    from test_isolation import assert_identical

    def shares(path, size, **options):
        if path.endswith((".pvtu", ".xdmf")):  # formats with an index: rank 0 alone reads it
            return _shares_reading_the_index_once(path, size, **options)
        world, meshes, accounting = FakeWorld(size), [], []
        for rank in range(size):
            meshes.append(mio.read(path, comm=world.comm(rank), **options))
            accounting.append((list(mio.parallel.files_read), mio.parallel.bytes_read))
        return meshes, accounting

    for path, size in _partitioned_files(tmp_path):
        here, here_accounting = shares(path, size)
        before = _isolation.stats()["reads"]
        there, there_accounting = shares(path, size, isolate=True, timeout=120)
        assert _isolation.stats()["reads"] - before == size, path  # one worker call per rank
        assert there_accounting == here_accounting, path
        for rank, (a, b) in enumerate(zip(here, there)):
            assert_identical(a, b, f"{os.path.basename(path)} rank {rank}")


def test_an_isolated_share_fails_on_its_rank_only_with_the_in_process_error(tmp_path):
    mio.parallel.write_pieces(tmp_path / "p.pvtu", mio.partition(mio.read(SAMPLE), 2, method="geometric"))
    with open(tmp_path / "p" / "p_1.vtu", "r+b") as piece:
        piece.truncate(300)  # rank 1's piece cut short: its reader fails in the worker
    world = FakeWorld(2)
    assert len(mio.read(tmp_path / "p.pvtu", comm=world.comm(0), isolate=True).points) > 0
    with pytest.raises(mio.ReadError, match=r"p_1\.vtu") as there:
        mio.read(tmp_path / "p.pvtu", comm=world.comm(1), isolate=True)
    world = FakeWorld(2)
    mio.read(tmp_path / "p.pvtu", comm=world.comm(0))
    with pytest.raises(mio.ReadError) as here:
        mio.read(tmp_path / "p.pvtu", comm=world.comm(1))
    assert str(there.value) == str(here.value)


_SHARE_HOOKS = """
import os, signal, time
from meshioplusplus._capabilities import entry_point, set_entry_point

real = entry_point("rank_share")

def misbehaving(job):
    if job["rank"] == 1:
        time.sleep(3600)
    if job["rank"] == 2:
        os.kill(os.getpid(), signal.SIGSEGV)
    return real(job)

set_entry_point("rank_share", misbehaving)
"""


def test_an_isolated_share_that_hangs_or_crashes_is_a_read_error_on_its_rank(tmp_path, monkeypatch):
    """A worker whose rank's reading hangs hits ``timeout=``; one that dies by a signal is a
    ReadError naming the file and the signal (SIGABRT under the sanitizer lane, whose ASan turns
    the SEGV into an abort); the caller reads on (workers get a hook module through
    MESHIOPLUSPLUS_ISOLATE_IMPORTS, as in test_isolation.py)."""
    from meshioplusplus import _isolation

    (tmp_path / "share_hooks.py").write_text(_SHARE_HOOKS)
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    monkeypatch.setenv("MESHIOPLUSPLUS_ISOLATE_IMPORTS", "share_hooks")
    _isolation.shutdown()
    try:
        mio.parallel.write_pieces(tmp_path / "p.pvtu", mio.partition(mio.read(SAMPLE), 3, method="geometric"))
        world = FakeWorld(3)
        share = mio.read(tmp_path / "p.pvtu", comm=world.comm(0), isolate=True, timeout=60)
        assert len(share.points) > 0
        with pytest.raises(mio.ReadError, match=r"p\.pvtu: pvtu: isolated read failed: no result within timeout=1") as hung:
            mio.read(tmp_path / "p.pvtu", comm=world.comm(1), isolate=True, timeout=1)
        assert hung.value.cause == "timeout"
        with pytest.raises(mio.ReadError, match=r"p\.pvtu: pvtu: isolated read failed: .*(SIGSEGV|SIGABRT)") as crashed:
            mio.read(tmp_path / "p.pvtu", comm=world.comm(2), isolate=True)
        assert crashed.value.cause == "signal"
    finally:
        _isolation.shutdown()
    assert len(mio.read(tmp_path / "p.pvtu", comm=FakeWorld(1).comm(0), isolate=True).points) > 0
