"""Partitioning (no MPI needed) and the MPI checks (tests/mpi/mpi_checks.py) under mpirun -n 4."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus._parallel import merge, rank_share

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


class _FakeComm:
    """The two calls a partitioned read makes on a communicator (no MPI needed)."""

    def __init__(self, rank, size):
        self.rank, self.size = rank, size

    def Get_rank(self):
        return self.rank

    def Get_size(self):
        return self.size


def test_xdmf_spatial_collection_shares_without_mpi(tmp_path):
    from meshioplusplus import _parallel

    mesh = mio.read(SAMPLE)
    pieces = mio.partition(mesh, 3, method="geometric")
    _parallel.write_pieces(tmp_path / "b.xdmf", pieces)
    assert "CollectionType=\"Spatial\"" in (tmp_path / "b.xdmf").read_text()
    shares = [mio.read(tmp_path / "b.xdmf", comm=_FakeComm(r, 2)) for r in range(2)]
    assert _parallel.files_read == [str(tmp_path / n) for n in ("b.xdmf", "b_part2.xdmf", "b_part2.h5")]
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
    first = mio.read(tmp_path / "box.msh", comm=_FakeComm(0, 2))
    assert _parallel.files_read == files[:2]
    second = mio.read(tmp_path / "box.msh", comm=_FakeComm(1, 2))
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
        mio.read(SAMPLE, comm=_FakeComm(0, 1))
    with pytest.raises(ValueError, match="pvtu, vtkhdf, xdmf, pvtp"):
        mio.write(tmp_path / "x.msh", first, comm=_FakeComm(0, 1))


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
