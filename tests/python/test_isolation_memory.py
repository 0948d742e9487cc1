"""How an isolated read's memory travels (docs/isolation.md): the worker's first-fit arena, the
pages of dead reads written into again, and the structured grids whose implied points and cells
come back as checked recipes instead of arrays."""

import os
from pathlib import Path

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _isolation
from meshioplusplus._allocation import allocator_installed
from meshioplusplus._mesh import DeferredArray, DeferredCellBlock

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
VTK_XML = DATA / "corpus" / "vtk_xml"
STRUCTURED = sorted(p for p in VTK_XML.iterdir() if p.suffix in (".vti", ".vtr", ".vts"))


# --- the arena ---------------------------------------------------------------------------------

def _offset(arena, block):
    return np.frombuffer(block, np.uint8).__array_interface__["data"][0] - arena.base


def test_the_arena_reuses_freed_scratch_first_fit_and_coalesces():
    arena = _isolation._Arena(1 << 24)
    blocks = {}
    try:
        for name, size in (("first", 1000), ("scratch", 5000), ("kept", 100)):
            blocks[name] = arena.alloc(size)
        assert [_offset(arena, blocks[n]) for n in ("first", "scratch", "kept")] == [0, 1024, 6080]
        # the alignment gaps count as free: freeing the scratch frees 1000..6080
        arena.free(blocks.pop("scratch"))
        assert arena.holes == [(1000, 6080)]
        # a smaller block goes into the hole (aligned), the rest of the hole stays free
        blocks["inner"] = arena.alloc(3000)
        assert _offset(arena, blocks["inner"]) == 1024 and arena.holes == [(1000, 1024), (4024, 6080)]
        # too big for any hole: bump allocation, the holes are kept
        blocks["big"] = arena.alloc(4000)
        assert _offset(arena, blocks["big"]) == 6208 and arena.high == 6208 + 4000
        # freeing neighbours coalesces them; freeing the top lowers ``used`` through the holes
        arena.free(blocks.pop("inner"))
        assert arena.holes == [(1000, 6080), (6180, 6208)]
        arena.free(blocks.pop("big"))
        assert arena.used == 6180 and arena.holes == [(1000, 6080)]
        arena.free(blocks.pop("kept"))
        assert arena.used == 1000 and arena.holes == []
        assert arena.high == 10208  # the high-water mark is what gets shipped
        # a block that is not the arena's is ignored
        arena.free(np.zeros(10, np.uint8))
        assert arena.used == 1000
    finally:
        blocks.clear()
        arena.close()


def test_an_allocation_past_the_cap_is_refused_and_remembered():
    arena = _isolation._Arena(1 << 16)
    try:
        block = arena.alloc(1 << 15)
        with pytest.raises(MemoryError, match="cap"):
            arena.alloc(1 << 16)
        assert arena.refused == 1 << 16
        del block
    finally:
        arena.close()


def test_the_worker_keeps_a_shipped_arena_only_until_a_request_does_not_hand_it_back():
    """In-process run of the worker's request loop: the pages of a read the caller handed back are
    written into again (same memory file, same mapping); a request that does not hand an arena
    back drops the worker's mapping of it before anything is parsed."""
    path = DATA / "corpus" / "gmsh" / "insulated-4.1.msh"
    request = {"op": "read", "selection": None, "series": None, "path": str(path), "cwd": os.getcwd(),
               "format": None, "piece": None, "merge_points": False, "max_bytes": None, "threads": 1,
               "array_limit": mio.get_max_array_bytes()}
    _isolation._kept_arenas.clear()
    payload, length, fd, retire = _isolation._run_request(request, ())
    assert length and not retire and list(_isolation._kept_arenas) == [_isolation._file_key(fd)]
    first_key = _isolation._file_key(fd)
    # handed back: the same file and the same mapping serve the next read
    kept = _isolation._kept_arenas[first_key]
    payload, length, fd2, retire = _isolation._run_request(request, (fd,))
    assert _isolation._restricted_loads(payload)[3] is True
    assert _isolation._file_key(fd2) == first_key and _isolation._kept_arenas[first_key] is kept
    # not handed back (the caller still holds that read's arrays): dropped, a new file is used
    payload, length, fd3, retire = _isolation._run_request(request, ())
    assert _isolation._restricted_loads(payload)[3] is False
    assert _isolation._file_key(fd3) != first_key and list(_isolation._kept_arenas) == [_isolation._file_key(fd3)]
    # handed back, but kept with a mapping smaller than this read's cap (max_bytes changed):
    # the file is mapped afresh, and the old mapping closed, not leaked
    small = dict(request, max_bytes=1 << 22)
    payload, length, fd4, retire = _isolation._run_request(small, ())
    small_key = _isolation._file_key(fd4)
    assert small_key in _isolation._kept_arenas and _isolation._kept_arenas[small_key].mapped == 1 << 22
    open_before = len(os.listdir("/proc/self/fd"))
    payload, length, fd5, retire = _isolation._run_request(request, (fd4,))
    assert _isolation._file_key(fd5) == small_key and _isolation._restricted_loads(payload)[3] is False
    assert _isolation._kept_arenas[small_key].mapped > 1 << 22
    assert len(os.listdir("/proc/self/fd")) <= open_before + 1  # fd5 itself; the stale arena's fd closed
    for descriptor in (fd2, fd3, fd5):
        os.close(descriptor)
    for arena in _isolation._kept_arenas.values():
        arena.close()
    _isolation._kept_arenas.clear()


def _written(tmp_path, name, seed, n):
    """A mesh large enough (> 1 MiB of arrays) that its memory file goes back to the worker."""
    rng = np.random.default_rng(seed)
    mesh = mio.Mesh(rng.random((n, 3)), [("tetra", rng.integers(0, n, (n, 4)))],
                    point_data={"u": rng.random(n)})
    path = tmp_path / name
    mio.write(path, mesh)
    return path


def test_arrays_kept_alive_are_never_written_by_later_isolated_reads(tmp_path):
    """The arrays of an isolated read that the caller keeps stay as they were while other reads
    run in the same worker, and reads after theirs died write into their pages again."""
    kept_path, other_path = _written(tmp_path, "kept.vtu", 1, 60_000), _written(tmp_path, "other.vtu", 2, 50_000)
    first = mio.read(kept_path, isolate=True)
    expected = [np.array(first.points, copy=True), np.array(first.cells[0].data, copy=True),
                np.array(first.point_data["u"], copy=True)]
    before = _isolation.stats()["reads_into_kept_pages"]
    for _ in range(4):
        other = mio.read(other_path, isolate=True)
        assert len(other.points) == 50_000
        del other  # its pages go back to the worker for the next read
    assert _isolation.stats()["reads_into_kept_pages"] >= before + 2
    for array, saved in zip([first.points, first.cells[0].data, first.point_data["u"]], expected):
        np.testing.assert_array_equal(array, saved)
    here = mio.read(kept_path)
    np.testing.assert_array_equal(first.points, here.points)
    del first
    again = mio.read(kept_path, isolate=True)
    np.testing.assert_array_equal(again.cells[0].data, here.cells[0].data)


# --- structured grids: recipes, checked (the real .vti and .vts of tests/data) -----------------

@pytest.mark.parametrize("path", STRUCTURED, ids=lambda p: p.name)
def test_structured_grids_come_back_as_recipes_equal_to_in_process(path):
    here = mio.read(path)
    there = mio.read(path, isolate=True)
    assert there.points_deferred == here.points_deferred
    assert [getattr(b, "is_deferred", False) for b in there.cells] == [getattr(b, "is_deferred", False) for b in here.cells]
    np.testing.assert_array_equal(there.points, here.points)
    assert there.points.dtype == here.points.dtype
    for a, b in zip(there.cells, here.cells):
        assert a.type == b.type
        np.testing.assert_array_equal(a.data, b.data)
    for name in here.point_data:
        np.testing.assert_array_equal(there.point_data[name], here.point_data[name])


def test_a_rectilinear_grid_written_by_vtk_comes_back_as_its_axes(tmp_path):
    """A .vtr from VTK's own writer (no real one ships in tests/data): its points travel as the
    rectilinear recipe (the three axes), equal to the in-process read and to VTK's points."""
    vtk = pytest.importorskip("vtk", reason="VTK writes the .vtr (requirements-test.txt)")
    from vtk.util.numpy_support import numpy_to_vtk

    grid = vtk.vtkRectilinearGrid()
    axes = [np.array([0.0, 0.5, 2.0, 2.25]), np.array([-1.0, 0.0, 3.0]), np.array([0.0, 0.1])]
    grid.SetDimensions(*(len(a) for a in axes))
    grid.SetXCoordinates(numpy_to_vtk(axes[0], deep=True))
    grid.SetYCoordinates(numpy_to_vtk(axes[1], deep=True))
    grid.SetZCoordinates(numpy_to_vtk(axes[2], deep=True))
    values = numpy_to_vtk(np.arange(24, dtype=np.float64), deep=True)
    values.SetName("u")
    grid.GetPointData().AddArray(values)
    writer = vtk.vtkXMLRectilinearGridWriter()
    writer.SetFileName(str(tmp_path / "axes.vtr"))
    writer.SetInputData(grid)
    assert writer.Write() == 1
    here = mio.read(tmp_path / "axes.vtr")
    there = mio.read(tmp_path / "axes.vtr", isolate=True)
    assert there.points_deferred and there._make_points.recipe_name() == "rectilinear_grid_points"
    np.testing.assert_array_equal(there.points, here.points)
    vtk_points = np.array([grid.GetPoint(k) for k in range(grid.GetNumberOfPoints())])
    np.testing.assert_array_equal(there.points, vtk_points)
    np.testing.assert_array_equal(there.cells[0].data, here.cells[0].data)
    np.testing.assert_array_equal(there.point_data["u"], np.arange(24.0))


def test_a_large_image_read_isolated_ships_its_data_not_its_implied_grid():
    path = VTK_XML / "vase.vti"
    before = _isolation.stats()["bytes_shared"]
    mesh = mio.read(path, isolate=True)
    shipped = _isolation.stats()["bytes_shared"] - before
    assert mesh.points_deferred and mesh.cells[0].is_deferred
    assert shipped <= sum(np.asarray(v).nbytes for v in mesh.point_data.values()) + 4096
    assert len(mesh.points) == 871125 and len(mesh.cells[0]) == 843600


def test_inside_an_allocator_block_the_recipes_are_made_at_once():
    """``pinned_reads`` and other allocator blocks want every array now (from their allocator)."""
    made = []

    def alloc(nbytes):
        made.append(nbytes)
        return np.empty(nbytes, np.uint8)

    with allocator_installed(alloc):
        mesh = mio.read(VTK_XML / "vase.vti", isolate=True)
        assert not mesh.points_deferred and not mesh.cells[0].is_deferred
    assert len(mesh.points) == 871125


def _deferred_mesh():
    mesh = mio.read(VTK_XML / "vase.vti")
    assert mesh.points_deferred
    return mesh


def test_a_recipe_whose_size_disagrees_with_its_arguments_is_refused():
    mesh = _deferred_mesh()
    recipe = mesh._make_points
    mesh._make_points = DeferredArray(recipe.count + 1, "image_grid_points", *recipe.arguments)
    with pytest.raises(mio.ReadError, match="vase.vti: vti: isolated read failed: .*recipe that does not check out"):
        _isolation._checked_recipes(mesh, "vase.vti", "vti", None)


def test_a_recipe_that_is_not_registered_is_refused():
    mesh = _deferred_mesh()
    mesh._make_points = DeferredArray(mesh._make_points.count, lambda *a: np.zeros((1, 3)), *mesh._make_points.arguments)
    with pytest.raises(mio.ReadError, match="does not check out"):
        _isolation._checked_recipes(mesh, "vase.vti", "vti", None)
    with pytest.raises(TypeError, match="not a registered recipe"):
        import pickle
        pickle.dumps(mesh._make_points)
    with pytest.raises(ValueError, match="no deferred-array recipe named 'os.system'"):
        DeferredArray(3, "os.system", "echo owned")


def test_a_recipe_past_max_bytes_is_a_memory_failure():
    mesh = _deferred_mesh()
    with pytest.raises(mio.ReadError, match="max_bytes=1000000") as caught:
        _isolation._checked_recipes(mesh, "vase.vti", "vti", 1_000_000)
    assert caught.value.cause == "memory"


def test_a_cell_block_whose_count_and_recipe_disagree_is_refused():
    mesh = _deferred_mesh()
    block = mesh.cells[0]
    assert isinstance(block, DeferredCellBlock)
    block._count += 1
    with pytest.raises(mio.ReadError, match="count and recipe disagree"):
        _isolation._checked_recipes(mesh, "vase.vti", "vti", None)
