"""Reading into page-locked memory: the allocator hook from Python, pinned_reads, and the
to_cupy(pinned=True) path that skips staging for arrays allocated there. No GPU needed:
allocators here are counting Python callables and the fake CuPy's pinned memory.

``_core.block_bases`` allocates its result through the hook, so it stands in for a reader in
the allocator tests; the hook-allocation contract itself is checked with real corpus reads.
"""

import gc
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import InteropWarning, profiling
from meshioplusplus._allocation import allocation_owner, allocator_installed, allocator_stats
from meshioplusplus._gpu import _pinned_owner_ids
from meshioplusplus.testing import fake_cupy

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(mio.__file__)))
from conftest import CORPUS  # noqa: E402  (the full corpus, or the curated copy in tests/data)
from interop import CountingAllocator  # noqa: E402


def core_allocated(count):
    """An int64 array of ``count + 1`` entries allocated by the C++ core through the hook."""
    return mio._core.block_bases([1] * count)


def hook_array(shape, dtype):
    """A writable array of any shape/dtype whose memory the core allocated through the hook."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    words = max(1, -(-nbytes // 8))
    raw = mio._core.block_bases([0] * (words - 1))
    return raw.view(np.uint8)[:nbytes].view(dtype).reshape(shape)


@pytest.fixture(autouse=True)
def balanced():
    yield
    gc.collect()
    assert allocator_stats() == {"live_buffers": 0, "live_bytes": 0}, "a hook-allocated buffer leaked"
    assert _pinned_owner_ids == {}


# --- the hook from Python -----------------------------------------------------------------------


def test_allocations_and_frees_balance_once_arrays_die():
    counting = CountingAllocator()
    with allocator_installed(counting.alloc, counting.free):
        arrays = [core_allocated(n) for n in (3, 10, 100)]
    assert counting.allocated == [4 * 8, 11 * 8, 101 * 8]
    assert all(allocation_owner(a) is not None for a in arrays)
    assert allocator_stats() == {"live_buffers": 3, "live_bytes": sum(counting.allocated)}
    assert counting.freed == 0
    del arrays
    gc.collect()
    assert counting.freed == 3 and counting.live == 0


def test_pinned_reads_frees_after_the_block_go_to_the_allocator_that_served_them():
    first, second = CountingAllocator("first"), CountingAllocator("second")
    with mio.pinned_reads(first.alloc, first.free):
        from_first = core_allocated(5)
    with mio.pinned_reads(second.alloc, second.free):
        from_second = core_allocated(7)
    del from_first
    gc.collect()
    assert (first.freed, second.freed) == (1, 0)
    del from_second
    gc.collect()
    assert (first.freed, second.freed) == (1, 1)


def test_nested_blocks_restore_the_outer_allocator():
    outer, inner = CountingAllocator("outer"), CountingAllocator("inner")
    with mio.pinned_reads(outer.alloc, outer.free):
        a = core_allocated(1)
        with mio.pinned_reads(inner.alloc, inner.free):
            b = core_allocated(2)
        c = core_allocated(3)
    d = core_allocated(4)  # default heap again
    assert len(outer.allocated) == 2 and len(inner.allocated) == 1
    assert allocation_owner(d) is None
    assert all(allocation_owner(x) is not None for x in (a, b, c))
    del a, b, c, d


def test_an_exception_inside_restores_the_previous_allocator():
    outer, failing = CountingAllocator("outer"), CountingAllocator("failing")
    with mio.pinned_reads(outer.alloc, outer.free):
        with pytest.raises(RuntimeError, match="inside"), mio.pinned_reads(failing.alloc, failing.free):
            kept = core_allocated(2)
            raise RuntimeError("inside")
        after = core_allocated(3)
    assert len(failing.allocated) == 1 and len(outer.allocated) == 1
    assert allocation_owner(core_allocated(1)) is None
    del kept, after
    gc.collect()
    assert failing.freed == 1 and outer.freed == 1


def test_allocations_in_threads_all_go_through_the_block_allocator():
    counting = CountingAllocator()
    results, errors = [], []

    def work():
        try:
            for n in range(1, 50):
                results.append(core_allocated(n))
        except Exception as error:  # surfaced below; a thread cannot fail the test itself
            errors.append(error)

    with mio.pinned_reads(counting.alloc, counting.free):
        threads = [threading.Thread(target=work) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert len(results) == 8 * 49 == len(counting.allocated)
    assert all(allocation_owner(array) is not None for array in results)
    assert all(array[-1] == len(array) - 1 for array in results)
    results.clear()
    gc.collect()
    assert counting.live == 0


def test_real_reads_in_threads_allocate_through_the_block_allocator():
    paths = sorted(CORPUS.glob("vtu/*.vtu"))
    if not paths:
        pytest.skip(f"no VTU corpus at {CORPUS}")
    counting = CountingAllocator()
    meshes, errors = [], []

    def read(path):
        try:
            meshes.append(mio.read(path))
        except Exception as error:  # surfaced below
            errors.append((path, error))

    with mio.pinned_reads(counting.alloc, counting.free):
        threads = [threading.Thread(target=read, args=(path,)) for path in paths * 2]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert all(not _arrays_outside_the_hook(mesh) for mesh in meshes)
    meshes.clear()
    gc.collect()
    assert counting.live == 0


def test_pinned_reads_without_cupy_names_the_wheels(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(ImportError, match="cupy-cuda12x") as info, mio.pinned_reads():
        pass
    assert "pinned_reads" in str(info.value)


def test_pinned_reads_is_exported_twice():
    import meshioplusplus._gpu as gpu

    assert mio.pinned_reads is gpu.pinned_reads


# --- readers allocate through the hook ----------------------------------------------------------


def _returned_arrays(mesh):
    """(name, array) for every numeric array a read returned (ragged cells per cell)."""
    yield "points", mesh.points
    for i, block in enumerate(mesh.cells):
        if isinstance(block.data, np.ndarray):
            yield f"cells[{i}]", block.data
    for name, values in mesh.point_data.items():
        yield f"point_data[{name!r}]", values
    for name, per_block in mesh.cell_data.items():
        for i, values in enumerate(per_block):
            yield f"cell_data[{name!r}][{i}]", values
    for region in mesh.regions:
        yield f"region {region.name!r}", region.entries


def _corpus_files():
    patterns = ("vtu/*.vtu", "vtk_legacy/*.vtk", "gmsh/*.msh", "gmsh_generated/*.msh", "medit/*.mesh", "abaqus/*.inp",
                "nastran/*.bdf", "stl/*.stl", "stl/*.STL", "ply/*.ply", "obj/*.obj", "off/*.off",
                "vtk_xml/*.vts", "vtk_xml/*.vti")
    return [path for pattern in patterns for path in sorted(CORPUS.glob(pattern))]


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_readers_allocate_every_returned_array_through_the_hook(path):
    counting = CountingAllocator()
    with allocator_installed(counting.alloc, counting.free):
        mesh = mio.read(path)
    outside, returned = _arrays_outside_the_hook(mesh), _distinct_bytes(mesh)
    del mesh  # before asserting: a failure's traceback would keep the buffers alive
    assert outside == [], f"{path.name}: not allocated through the hook: {outside}"
    # Temporaries a reader frees again still count. 10 % leaves room for them on real meshes;
    # the fixed 4 KiB covers per-file bookkeeping that dominates only tiny files.
    assert counting.bytes_allocated <= 1.1 * returned + 4096, (
        f"{path.name}: {counting.bytes_allocated} bytes allocated through the hook for {returned} returned "
        f"(allocations: {counting.allocated})"
    )


def _numeric_arrays(mesh):
    for name, array in _returned_arrays(mesh):
        array = np.asarray(array)
        if array.dtype.kind in "biufc" and array.size:  # empty arrays own no memory to check
            yield name, array


def _arrays_outside_the_hook(mesh):
    return [name for name, array in _numeric_arrays(mesh) if allocation_owner(array) is None]


def _distinct_bytes(mesh):
    """Bytes the read returned; an array returned twice (same address and size) counts once."""
    distinct = {(array.__array_interface__["data"][0], array.nbytes): array.nbytes for _, array in _numeric_arrays(mesh)}
    return sum(distinct.values())


# --- to_cupy(pinned=True) skips staging for pinned_reads arrays ------------------------------------


def hook_mesh():
    """A mesh whose points, connectivity and one data array live in hook-allocated buffers,
    plus one numpy-allocated data array (which must still be staged)."""
    points = hook_array((6, 3), np.float64)
    points[:] = np.arange(18.0).reshape(6, 3)
    cells = hook_array((2, 3), np.int64)
    cells[:] = [[0, 1, 2], [2, 3, 4]]
    temperature = hook_array((6,), np.float64)
    temperature[:] = np.linspace(0.0, 1.0, 6)
    return mio.Mesh(points, [("triangle", cells)], point_data={"T": temperature, "heap": np.ones(6)})


HOOK_ARRAYS = ["points", "cells[0]", "point_data['T']"]


def test_pinned_reads_arrays_are_copied_without_staging():
    with fake_cupy.installed() as cp:
        with mio.pinned_reads():  # the fake's alloc_pinned_memory serves the core
            mesh = hook_mesh()
        cp.log.clear()
        with profiling.count_transfers() as counter:
            gpu = mio.to_cupy(mesh, pinned=True)
        staged = [e.array for e in counter.of_kind("host_staging")]
        assert not set(staged) & set(HOOK_ARRAYS)
        assert staged == ["block_bases", "point_data['heap']"]  # computed / numpy memory: staged
        assert cp.log.count_of("host_staging") == 2  # the fake agrees: two staging allocations
        uploads = {e.array: e for e in counter.of_kind("to_device")}
        assert all(not uploads[name].blocking for name in HOOK_ARRAYS)  # DMA from page-locked memory
        assert sum(e.pinned for e in cp.log.of_kind("to_device")) == 5  # 3 straight + 2 staged
        (fact,) = [f for f in gpu.derived if "without staging" in f]
        assert all(name in fact for name in HOOK_ARRAYS)
        np.testing.assert_array_equal(gpu.points.get(), np.arange(18.0).reshape(6, 3))
        np.testing.assert_array_equal(gpu.point_data["T"].get(), np.linspace(0.0, 1.0, 6))
        del gpu, mesh


def test_pinned_reads_arrays_are_read_in_place_even_without_pinned():
    with fake_cupy.installed():
        with mio.pinned_reads():
            mesh = hook_mesh()
        with profiling.count_transfers() as counter:
            gpu = mio.to_cupy(mesh)  # no staging asked for; page-locked sources are DMA'd anyway
        assert counter.host_staging == 0
        blocking = {e.array: e.blocking for e in counter.of_kind("to_device")}
        assert [name for name in HOOK_ARRAYS if blocking[name]] == []
        assert blocking["point_data['heap']"] is True  # pageable: taken before set() returned
        assert not any("without staging" in fact for fact in gpu.derived)  # nothing was skipped
        np.testing.assert_array_equal(gpu.cells[0].data.get(), [[0, 1, 2], [2, 3, 4]])
        del gpu, mesh


def test_arrays_copied_by_the_data_policy_are_staged_again():
    with fake_cupy.installed():
        with mio.pinned_reads():
            mesh = hook_mesh()
        with profiling.count_transfers() as counter, pytest.warns(InteropWarning, match="float32"):
            mio.to_cupy(mesh, pinned=True, float32=True)  # the cast copies land in ordinary memory
        staged = {e.array for e in counter.of_kind("host_staging")}
        assert {"points", "point_data['T']"} <= staged and "cells[0]" not in staged
        del mesh


def test_a_plain_allocator_block_is_not_trusted_as_page_locked():
    counting = CountingAllocator()
    with fake_cupy.installed():
        with allocator_installed(counting.alloc, counting.free):
            mesh = hook_mesh()
        with profiling.count_transfers() as counter:
            mio.to_cupy(mesh, pinned=True)
        assert {"points", "cells[0]", "point_data['T']"} <= {e.array for e in counter.of_kind("host_staging")}
        del mesh


def test_pinned_reads_arrays_on_a_caller_stream_are_kept_alive_until_sync():
    with fake_cupy.installed() as cp:
        with mio.pinned_reads():
            mesh = hook_mesh()
        stream = cp.cuda.Stream(non_blocking=True)
        gpu = mio.to_cupy(mesh, pinned=True, stream=stream)
        pending = stream.pending_copies()
        assert pending == len(list(gpu.named_arrays()))  # all asynchronous, none landed yet
        del mesh  # the payload's refs keep the pinned buffers alive for the DMA
        gc.collect()
        stream.synchronize()
        np.testing.assert_array_equal(gpu.points.get(), np.arange(18.0).reshape(6, 3))
        np.testing.assert_array_equal(gpu.cells[0].data.get(), [[0, 1, 2], [2, 3, 4]])
        del gpu
        gc.collect()
        assert cp.live_pinned_buffers() == 0


def test_the_mirror_uploads_pinned_reads_arrays_without_staging():
    with fake_cupy.installed():
        with mio.pinned_reads():
            mesh = hook_mesh()
        mirror = mio.DeviceMirror(mesh, pinned=True)
        mesh.points[:] += 1.0
        with profiling.count_transfers() as counter:
            mirror.to_device(["points", "point_data['heap']"])
        assert [e.array for e in counter.of_kind("host_staging")] == ["point_data['heap']"]
        np.testing.assert_array_equal(mirror.device.points.get(), np.arange(18.0).reshape(6, 3) + 1.0)
        del mirror, mesh


# --- shutdown ------------------------------------------------------------------------------------


def test_exit_with_live_pinned_arrays_is_clean():
    script = (
        "import numpy as np, meshioplusplus as mio\n"
        "from meshioplusplus.testing import fake_cupy\n"
        "fake = fake_cupy.installed(); cp = fake.__enter__()\n"
        "with mio.pinned_reads():\n"
        "    kept = [mio._core.block_bases([1] * n) for n in range(1, 100)]\n"
        "counting = []\n"
        "with mio.pinned_reads(lambda n: np.empty(n, np.uint8), counting.append):\n"
        "    also = mio._core.block_bases([2] * 10)\n"
        "mesh = mio.Mesh(np.zeros((3, 3)), [('triangle', kept[1][:3].reshape(1, 3))])\n"
        "stream = cp.cuda.Stream(non_blocking=True)\n"
        "gpu = mio.to_cupy(mesh, pinned=True, stream=stream)  # queued, never synchronized\n"
        "capsule = kept[5].__dlpack__()\n"
        "print('alive', len(kept), also[-1])\n"
    )
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.strip() == "alive 99 20"


@pytest.mark.parametrize("extension", [".off", ".vtu", ".msh"])
def test_large_files_on_all_cores_allocate_once_through_the_hook(tmp_path, extension):
    """Files big enough for the multi-core paths still allocate each returned array once
    through an installed hook — also when the layout the first line suggests (all triangles)
    turns out wrong at the end, which the default heap may pay for but a hook must not."""
    n = 400
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n), indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), np.zeros(n * n)])
    index = np.arange(n * n).reshape(n, n)
    a, b, c, d = index[:-1, :-1].ravel(), index[1:, :-1].ravel(), index[1:, 1:].ravel(), index[:-1, 1:].ravel()
    triangles = np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])])
    path = tmp_path / f"sheet{extension}"
    options = {"binary": False} if extension in (".vtu", ".msh") else {}
    quad = np.array([[0, 1, n + 1, n]])
    mio.write(path, mio.Mesh(points, [("triangle", triangles), ("quad", quad)]), **options)
    assert path.stat().st_size > 8 << 20
    counting = CountingAllocator()
    with allocator_installed(counting.alloc, counting.free):
        mesh = mio.read(path)
    outside, returned = _arrays_outside_the_hook(mesh), _distinct_bytes(mesh)
    np.testing.assert_array_equal(mesh.cells[0].data, triangles)
    np.testing.assert_array_equal(mesh.cells[1].data, quad)
    del mesh
    assert outside == []
    assert counting.bytes_allocated <= 1.1 * returned + 4096, counting.allocated
