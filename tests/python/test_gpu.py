"""The GPU handoff on a real CUDA device.

Skipped unless CuPy imports AND at least one CUDA device answers, so it skips on CI's
GPU-less runners. Run it on any machine with a device and the matching CuPy wheel:

    pip install -e . cupy-cuda13x pytest      # or cupy-cuda12x / cupy-cuda11x
    python -m pytest tests/python/test_gpu.py -v

The no-GPU half (builder, DLPack host round trip, fake-CuPy transfer counts) is
tests/python/test_gpu_payload.py, with test_profiling.py, test_mirror.py, test_pinned_reads.py
and test_frameworks.py; the second half of this file repeats their contracts on the device.
"""

import types
import warnings

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")


def _device_count():
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception as error:  # no driver, driver too old, ...: all mean "no device here"
        pytest.skip(f"CuPy imports but no CUDA device answers: {error}", allow_module_level=True)


if _device_count() < 1:
    pytest.skip("CuPy imports but the machine has no CUDA device", allow_module_level=True)

import meshioplusplus as mio  # noqa: E402  (after the gate, so a skip costs nothing)
from meshioplusplus import InteropWarning, Region, RegionKind  # noqa: E402

CUDA = 2  # DLPack kDLCUDA


def device_mesh(n_points=2000):
    """A mesh big enough for the copies to be real work, small enough for a quick suite."""
    rng = np.random.default_rng(3)
    points = rng.random((n_points, 3))
    triangles = rng.integers(0, n_points, size=(3000, 3))
    tetras = rng.integers(0, n_points, size=(1000, 4))
    return mio.Mesh(
        points,
        [("triangle", triangles), ("tetra", tetras)],
        point_data={"T": rng.random(n_points), "v": rng.random((n_points, 3)), "id": np.arange(n_points, dtype=np.int32)},
        cell_data={"q": [rng.random(3000), rng.random(1000)]},
        field_data={"title": np.array(["device"])},
        regions=[
            Region("top", RegionKind.POINT, 0, 1, np.arange(0, n_points, 7)),
            Region("core", RegionKind.CELL, 3, 2, np.arange(3000, 4000, 3)),
            Region("skin", RegionKind.SIDE, 2, 3, np.stack([np.arange(3000, 3100), np.arange(100) % 4], axis=1)),
        ],
    )


def host_arrays(payload):
    return {name: array.get() if hasattr(array, "get") else array for name, array in payload.named_arrays()}


def test_predicates_are_true():
    assert mio.has_cupy() is True
    assert mio.has_cuda_device() is True


def test_arrays_are_on_the_device_and_speak_dlpack_and_cai():
    mesh = device_mesh()
    expected = dict(mio.to_dlpack(mesh).named_arrays())
    gpu = mio.to_cupy(mesh)
    assert gpu.device == (CUDA, cupy.cuda.Device().id)
    assert gpu.shared == () and gpu.refs == ()
    for name, array in gpu.named_arrays():
        assert isinstance(array, cupy.ndarray), name
        assert array.__dlpack_device__()[0] == CUDA, name
        interface = array.__cuda_array_interface__
        # adopted on the device by a DLPack consumer: same device pointer, no copy
        adopted = cupy.from_dlpack(array)
        assert adopted.__cuda_array_interface__["data"][0] == interface["data"][0], name
        np.testing.assert_array_equal(array.get(), expected[name])
    assert gpu.field_data["title"] is mesh.field_data["title"]


def test_round_trip_through_a_kernel_and_back_out_through_vtu(tmp_path):
    mesh = device_mesh()
    gpu = mio.to_cupy(mesh)
    gpu.point_data["T"] *= 2.0  # a CuPy kernel on the device
    with pytest.warns(InteropWarning, match="copied to the host"):
        back = mio.from_cupy(gpu)
    np.testing.assert_array_equal(back.point_data["T"], 2.0 * mesh.point_data["T"])
    assert back.regions == mesh.regions
    for a, e in zip(back.cells, mesh.cells):
        np.testing.assert_array_equal(a.data, e.data)

    path = tmp_path / "device.vtu"
    mio.write(path, back)
    read = mio.read(path)
    np.testing.assert_allclose(read.points, mesh.points)
    np.testing.assert_allclose(read.point_data["T"], 2.0 * mesh.point_data["T"])
    for a, e in zip(read.cells, mesh.cells):
        np.testing.assert_array_equal(a.data, e.data)


def test_dtype_opt_ins_on_the_device():
    mesh = device_mesh()
    with pytest.warns(InteropWarning):
        gpu = mio.to_cupy(mesh, float32=True, int32=True)
    assert gpu.points.dtype == np.float32 and gpu.point_data["v"].dtype == np.float32
    assert gpu.point_data["id"].dtype == np.int32  # integer data untouched
    assert all(block.data.dtype == np.int32 for block in gpu.cells)
    assert gpu.block_bases.dtype == np.int32
    assert all(region.entries.dtype == np.int32 for region in gpu.regions)
    np.testing.assert_allclose(gpu.points.get(), mesh.points, rtol=1e-6)
    np.testing.assert_array_equal(gpu.cells[1].data.get(), mesh.cells[1].data)


def test_plain_pinned_and_async_pinned_transfers_agree():
    mesh = device_mesh()
    plain = mio.to_cupy(mesh)
    pinned = mio.to_cupy(mesh, pinned=True)
    stream = cupy.cuda.Stream(non_blocking=True)
    async_pinned = mio.to_cupy(mesh, pinned=True, stream=stream)
    assert pinned.refs == () and len(async_pinned.refs) == len(list(async_pinned.named_arrays()))
    stream.synchronize()
    expected = host_arrays(plain)
    for payload in (pinned, async_pinned):
        for name, values in host_arrays(payload).items():
            np.testing.assert_array_equal(values, expected[name], err_msg=name)


class RawCAI:
    """Exposes nothing but the CUDA Array Interface of a CuPy array (kept alive here)."""

    def __init__(self, array):
        self._keep_alive = array
        self.__cuda_array_interface__ = array.__cuda_array_interface__


def test_from_cupy_consumes_a_raw_cai_object():
    points = cupy.asarray(np.arange(12.0).reshape(4, 3))
    connectivity = cupy.asarray(np.array([[0, 1, 2], [1, 2, 3]]))
    payload = types.SimpleNamespace(points=RawCAI(points), cells=[("triangle", RawCAI(connectivity))])
    with pytest.warns(InteropWarning):
        back = mio.from_cupy(payload)
    np.testing.assert_array_equal(back.points, np.arange(12.0).reshape(4, 3))
    np.testing.assert_array_equal(back.cells[0].data, [[0, 1, 2], [1, 2, 3]])


def test_from_cupy_consumes_torch_cuda_tensors():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    points = torch.rand((4, 3), device="cuda", dtype=torch.float64)
    cells = torch.tensor([[0, 1, 2]], device="cuda")
    with pytest.warns(InteropWarning):
        back = mio.from_cupy(types.SimpleNamespace(points=points, cells=[("triangle", cells)]))
    np.testing.assert_array_equal(back.points, points.cpu().numpy())
    np.testing.assert_array_equal(back.cells[0].data, [[0, 1, 2]])


def test_clean_host_export_still_needs_no_device_copy_to_come_back():
    payload = mio.to_dlpack(device_mesh())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # host arrays: adopted, nothing copied, nothing warned
        mio.from_cupy(payload)


# --- counted transfers, pinned reads, mirror and frameworks on the device ---------------------
# The same contracts tests/python/test_profiling.py, test_pinned_reads.py, test_mirror.py and
# test_frameworks.py check against the fake CuPy, repeated where the copies are real.

import gc  # noqa: E402

from meshioplusplus.profiling import count_transfers  # noqa: E402
from core_arrays import core_allocated  # noqa: E402

from conftest import CORPUS


def hook_mesh(n_points=20000):
    """device_mesh's arrays, rebuilt in hook-allocated memory (what a read returns)."""
    source = device_mesh(n_points)
    return mio.Mesh(
        core_allocated(source.points.shape, np.float64, source.points),
        [(block.type, core_allocated(block.data.shape, np.int64, block.data)) for block in source.cells],
        point_data={name: core_allocated(v.shape, v.dtype, v) for name, v in source.point_data.items()},
        cell_data={name: [core_allocated(a.shape, a.dtype, a) for a in v] for name, v in source.cell_data.items()},
    )


def read_mesh_or_none():
    """The largest corpus VTU file read for real, or None when the corpus is absent."""
    paths = sorted(CORPUS.glob("vtu/*.vtu"))
    if not paths:
        return None
    return mio.read(max(paths, key=lambda p: p.stat().st_size))


def test_counting_contract_on_the_device():
    mesh = device_mesh()
    arrays = list(mio.to_dlpack(mesh).named_arrays())
    with count_transfers() as counter:
        gpu = mio.to_cupy(mesh)
    assert [e.kind for e in counter.events] == ["to_device"] * len(arrays) + ["sync"]
    assert [e.nbytes for e in counter.of_kind("to_device")] == [a.nbytes for _, a in arrays]
    with count_transfers() as counter, pytest.warns(InteropWarning):
        mio.from_cupy(gpu)
    assert counter.to_host == len(arrays) - 1 and counter.to_device == 0  # block_bases is recomputed
    with count_transfers() as counter:
        mio.to_cupy(mesh, pinned=True)
    assert counter.host_staging == len([a for _, a in arrays if a.nbytes]) and counter.syncs == 1


def test_pageable_staged_and_pinned_reads_paths_agree():
    meshes = {"pageable": device_mesh(20000)}
    with mio.pinned_reads():
        meshes["pinned_reads"] = hook_mesh(20000)
        read = read_mesh_or_none()
    expected = host_arrays(mio.to_cupy(meshes["pageable"]))
    with count_transfers() as counter:
        results = {
            "pageable": mio.to_cupy(meshes["pageable"]),
            "staged": mio.to_cupy(meshes["pageable"], pinned=True),
            "pinned_reads": mio.to_cupy(meshes["pinned_reads"], pinned=True),
        }
    staged_from_pinned_reads = [e.array for e in counter.events if e.kind == "host_staging" and e.operation == "to_cupy"]
    assert "points" in staged_from_pinned_reads  # the staged call staged it ...
    assert staged_from_pinned_reads.count("points") == 1  # ... the pinned_reads call did not
    assert any("without staging" in fact for fact in results["pinned_reads"].derived)
    for path, payload in results.items():
        for name, values in host_arrays(payload).items():
            np.testing.assert_array_equal(values, expected[name], err_msg=f"{path}: {name}")
    if read is not None:
        plain, fast = host_arrays(mio.to_cupy(read)), host_arrays(mio.to_cupy(read, pinned=True))
        for name, values in plain.items():
            np.testing.assert_array_equal(fast[name], values, err_msg=f"read: {name}")


def test_pinned_reads_on_a_stream_keeps_sources_until_synchronized():
    with mio.pinned_reads():
        mesh = hook_mesh(200000)
    expected = {name: np.array(array) for name, array in mio.to_dlpack(mesh).named_arrays()}
    stream = cupy.cuda.Stream(non_blocking=True)
    with count_transfers() as counter:
        gpu = mio.to_cupy(mesh, pinned=True, stream=stream)
    assert counter.syncs == 0 and all(not e.blocking for e in counter.of_kind("to_device") if e.array != "block_bases")
    assert len(gpu.refs) == len(expected)
    del mesh  # the payload's refs keep the page-locked sources alive for the DMA
    gc.collect()
    stream.synchronize()
    for name, values in host_arrays(gpu).items():
        np.testing.assert_array_equal(values, expected[name], err_msg=name)


def test_mirror_round_trip_on_the_device():
    mesh = device_mesh()
    original = mesh.point_data["T"].copy()
    temperature = mesh.point_data["T"]
    mirror = mio.DeviceMirror(mesh)
    mirror.device.point_data["T"] *= 2.0
    with count_transfers() as counter:
        assert mirror.to_host() is mesh
    assert counter.to_host == len(mirror.names) and counter.to_device == 0
    assert mesh.point_data["T"] is temperature
    np.testing.assert_array_equal(temperature, 2.0 * original)
    temperature[:] = 1.0
    mirror.to_device(["point_data['T']"])
    np.testing.assert_array_equal(mirror.device.point_data["T"].get(), temperature)
    mirror.device.point_data["T"] += 1.0
    pending = mirror.to_host(["point_data['T']"], blocking=False)
    assert pending.result() is mesh
    np.testing.assert_array_equal(temperature, np.full(len(temperature), 2.0))


def test_mirror_opt_ins_are_undone_on_the_device():
    mesh = device_mesh()
    points = mesh.points.copy()
    with pytest.warns(InteropWarning):
        mirror = mio.DeviceMirror(mesh, float32=True, int32=True)
    mirror.to_host()
    assert mesh.points.dtype == np.float64 and mesh.cells[0].data.dtype == np.int64
    np.testing.assert_allclose(mesh.points, points, rtol=1e-6)


def test_device_payload_arrays_export_versioned_dlpack():
    gpu = mio.to_cupy(device_mesh())
    import ctypes

    name = ctypes.pythonapi.PyCapsule_GetName
    name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    try:
        capsule = gpu.points.__dlpack__(max_version=(1, 0))
    except TypeError:
        pytest.skip("this CuPy exports legacy DLPack only")
    assert name(capsule) in (b"dltensor_versioned", b"dltensor")  # a producer may answer legacy
    assert name(gpu.points.__dlpack__()) == b"dltensor"


def test_to_torch_on_cuda_is_one_counted_copy_per_array():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    mesh = device_mesh()
    with count_transfers() as counter:
        payload = mio.to_torch(mesh, device="cuda")
    assert counter.to_device == len(list(payload.named_arrays()))
    assert payload.device[0] == CUDA and payload.shared == ()
    np.testing.assert_array_equal(payload.points.cpu().numpy(), mesh.points)
    with count_transfers() as counter, pytest.warns(InteropWarning):
        back = mio.from_cupy(payload)  # torch CUDA tensors: one counted copy each
    assert counter.to_host == len(list(payload.named_arrays())) - 1
    np.testing.assert_array_equal(back.points, mesh.points)


def test_to_numba_on_the_device():
    cuda = pytest.importorskip("numba.cuda")
    if not cuda.is_available():
        pytest.skip("numba.cuda finds no device")
    mesh = device_mesh()
    with count_transfers() as counter:
        payload = mio.to_numba(mesh)
    assert counter.to_device == len(list(payload.named_arrays()))
    adopted = cupy.asarray(payload.points)  # CAI: adopted in place
    assert adopted.data.ptr == payload.points.__cuda_array_interface__["data"][0]
    with pytest.warns(InteropWarning):
        back = mio.from_cupy(payload)
    np.testing.assert_array_equal(back.points, mesh.points)


def test_to_jax_on_the_gpu():
    jax = pytest.importorskip("jax")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        pytest.skip("JAX has no GPU backend here")
    mesh = device_mesh()
    previous = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)  # device_mesh is float64/int64: JAX must not narrow it
    try:
        with count_transfers() as counter:
            payload = mio.to_jax(mesh, device=gpus[0])
    finally:
        jax.config.update("jax_enable_x64", previous)
    assert counter.to_device == len(list(payload.named_arrays())) and counter.syncs == 1
    assert payload.device[0] == CUDA
    np.testing.assert_array_equal(np.asarray(payload.points), mesh.points)
