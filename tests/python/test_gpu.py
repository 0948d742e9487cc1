"""The GPU handoff on a real CUDA device.

Skipped unless CuPy imports AND at least one CUDA device answers, so it skips on CI's
GPU-less runners. Run it on any machine with a device and the matching CuPy wheel:

    pip install -e . cupy-cuda13x pytest      # or cupy-cuda12x / cupy-cuda11x
    python -m pytest tests/python/test_gpu.py -v

The no-GPU half (builder, DLPack host round trip, fake-CuPy transfer counts) is
tests/python/test_gpu_payload.py.
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
    try:
        mio.write(path, back)
    except RuntimeError as error:
        if str(error) != "stub":
            raise
        pytest.skip("the .vtu writer is still a stub")
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
