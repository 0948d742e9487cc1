"""Zero-copy protocol breadth: torch, JAX, Numba and array-namespace dispatch (to_xp), DLPack
versioned and legacy capsules, device exporters coming back through from_cupy, and clean
interpreter exit with live exports.

Framework tests skip where the framework is not installed (CI's venv has none of them); with
torch / jax / numba installed they run on the CPU (Numba through its CUDA simulator).
"""

import ctypes
import os
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import InteropError, InteropWarning, Region, RegionKind
from meshioplusplus.profiling import count_transfers
from meshioplusplus.testing import fake_cupy
from core_arrays import core_allocated

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(mio.__file__)))
from conftest import CORPUS
NUMPY_VERSION = tuple(int(part) for part in np.__version__.split(".")[:2])
needs_versioned_dlpack = pytest.mark.skipif(NUMPY_VERSION < (2, 1), reason="numpy < 2.1 exports legacy DLPack only")


def sample_mesh():
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1]], dtype=np.float64)
    return mio.Mesh(
        points,
        [("triangle", np.array([[0, 1, 2], [0, 2, 3]])), ("quad", np.array([[0, 1, 5, 4]]))],
        point_data={"T": np.linspace(0.0, 1.0, 6), "id": np.arange(6, dtype=np.int32)},
        cell_data={"area": [np.array([0.5, 0.5]), np.array([1.0])]},
        regions=[Region("corner", RegionKind.POINT, 0, 1, np.array([0, 4]))],
    )


def core_mesh():
    """sample_mesh with every array in core-allocated memory, as a read would return it."""
    mesh = sample_mesh()
    mesh.points = core_allocated(mesh.points.shape, np.float64, mesh.points)
    for block in mesh.cells:
        block.data = core_allocated(block.data.shape, np.int64, block.data)
    mesh.point_data = {name: core_allocated(v.shape, v.dtype, v) for name, v in mesh.point_data.items()}
    mesh.cell_data = {name: [core_allocated(a.shape, a.dtype, a) for a in v] for name, v in mesh.cell_data.items()}
    mesh.regions = [Region(r.name, r.kind, r.dim, r.tag, core_allocated(r.entries.shape, np.int64, r.entries)) for r in mesh.regions]
    return mesh


def pointer(array):
    return array.__array_interface__["data"][0]


# --- torch ----------------------------------------------------------------------------------------


def test_to_torch_on_the_cpu_shares_every_array_with_the_mesh():
    torch = pytest.importorskip("torch")
    mesh = sample_mesh()
    with count_transfers() as counter:
        payload = mio.to_torch(mesh)
    assert counter.events == []
    assert payload.device == (1, 0)
    assert set(payload.shared) == set(mio.to_dlpack(mesh).shared)
    host = dict(mio.to_dlpack(mesh).named_arrays())
    for name, tensor in payload.named_arrays():
        assert isinstance(tensor, torch.Tensor), name
        if name in payload.shared and tensor.numel():
            assert tensor.data_ptr() == pointer(host[name]), name
    payload.points[0, 0] = 42.0
    assert mesh.points[0, 0] == 42.0
    assert payload.cells[0].data.dtype == torch.int64 and payload.point_data["id"].dtype == torch.int32


def test_to_torch_copies_read_only_arrays_and_says_so():
    pytest.importorskip("torch")
    mesh = sample_mesh()
    mesh.point_data["T"].flags.writeable = False
    with pytest.warns(InteropWarning, match=r"point_data\['T'\]: read-only; copied"):
        payload = mio.to_torch(mesh)
    assert "point_data['T']" not in payload.shared and "points" in payload.shared
    np.testing.assert_array_equal(payload.point_data["T"].numpy(), mesh.point_data["T"])


def test_to_torch_opt_ins_and_the_way_back():
    torch = pytest.importorskip("torch")
    mesh = sample_mesh()
    with pytest.warns(InteropWarning, match="float32=True"):
        payload = mio.to_torch(mesh, float32=True, int32=True)
    assert payload.points.dtype == torch.float32 and payload.cells[1].data.dtype == torch.int32
    with count_transfers() as counter, warnings.catch_warnings():
        warnings.simplefilter("error")  # CPU tensors come back without a copy, so without a warning
        back = mio.from_cupy(payload)
    assert counter.events == []
    assert np.shares_memory(back.point_data["id"], mesh.point_data["id"])
    np.testing.assert_allclose(back.points, mesh.points)


def test_to_xp_picks_torch():
    torch = pytest.importorskip("torch")
    payload = mio.to_xp(sample_mesh(), torch)
    assert isinstance(payload.points, torch.Tensor) and payload.device == (1, 0)


# --- JAX ------------------------------------------------------------------------------------------


@pytest.fixture
def jax_x64():
    jax = pytest.importorskip("jax")
    previous = bool(jax.config.read("jax_enable_x64"))
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", previous)


def test_to_jax_refuses_to_narrow_silently():
    jax = pytest.importorskip("jax")
    if jax.config.read("jax_enable_x64"):
        pytest.skip("64-bit types are enabled in this process")
    with pytest.raises(InteropError, match=r"points \(float64\).*jax_enable_x64"):
        mio.to_jax(sample_mesh())
    mesh = sample_mesh()
    del mesh.point_data["T"]
    mesh.cell_data = {}
    with pytest.warns(InteropWarning):
        payload = mio.to_jax(mesh, float32=True, int32=True)  # nothing 64-bit left
    assert payload.points.dtype == np.float32


def test_to_jax_shares_aligned_buffers_and_notes_the_copies(jax_x64):
    mesh = core_mesh()
    unaligned = np.zeros(7 * 8 + 64, dtype=np.uint8)
    start = (-pointer(unaligned)) % 64 + 8  # 8 bytes past a 64-byte boundary
    mesh.point_data["loose"] = unaligned[start : start + 48].view(np.float64)
    mesh.point_data["loose"][:] = np.arange(6.0)
    with count_transfers() as counter, pytest.warns(InteropWarning, match="not 64-byte aligned") as record:
        payload = mio.to_jax(mesh)
    assert counter.events == []
    assert payload.device == (1, 0)
    assert "point_data['loose']" not in payload.shared
    assert "points" in payload.shared and "cells[0]" in payload.shared
    assert payload.points.unsafe_buffer_pointer() == pointer(mesh.points)
    (note,) = [n for n in payload.notes if "loose" in n]
    assert note == "point_data['loose']: copied by JAX (buffer not 64-byte aligned)"
    assert record[0].filename == __file__
    np.testing.assert_array_equal(np.asarray(payload.point_data["loose"]), np.arange(6.0))
    mesh.points[0, 0] = 9.0  # JAX arrays are immutable by contract; shared ones see host writes
    assert float(payload.points[0, 0]) == 9.0


def test_to_xp_picks_jax_and_comes_back(jax_x64):
    mesh = core_mesh()
    payload = mio.to_xp(mesh, jax_x64.numpy)
    back = mio.from_cupy(payload)
    np.testing.assert_array_equal(back.cells[0].data, mesh.cells[0].data)


# --- Numba ------------------------------------------------------------------------------------


def test_to_numba_through_the_cuda_simulator():
    pytest.importorskip("numba")
    script = (
        "import numpy as np, meshioplusplus as mio\n"
        "from numba import cuda\n"
        "mesh = mio.Mesh(np.arange(18.0).reshape(6, 3), [('triangle', np.array([[0, 1, 2], [2, 3, 4]]))],\n"
        "                point_data={'T': np.linspace(0, 1, 6)})\n"
        "with mio.count_transfers() as counter:\n"
        "    payload = mio.to_xp(mesh, cuda)\n"
        "assert [e.kind for e in counter.events] == ['to_device'] * 4, counter.report()\n"
        "assert [e.array for e in counter.events] == ['points', 'cells[0]', 'block_bases', \"point_data['T']\"]\n"
        "assert payload.device[0] == 2 and payload.shared == ()\n"
        "assert (payload.points.copy_to_host() == mesh.points).all()\n"
        "print('ok')\n"
    )
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=PACKAGE_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "ok"


def test_to_numba_without_a_device_says_so():
    numba_cuda = pytest.importorskip("numba.cuda")
    if numba_cuda.is_available():
        pytest.skip("a CUDA device (or the simulator) is available here")
    with pytest.raises(RuntimeError, match="no usable CUDA driver"):
        mio.to_numba(sample_mesh())


# --- to_xp and missing frameworks -----------------------------------------------------------------


def test_to_xp_picks_numpy_for_numpy_and_its_arrays():
    mesh = sample_mesh()
    namespaces = [np, types.ModuleType("array_api_compat.numpy")]
    if hasattr(np.ndarray, "__array_namespace__"):  # numpy >= 2.0
        namespaces.append(np.zeros(1))
    for namespace in namespaces:
        payload = mio.to_xp(mesh, namespace)
        assert payload.device == (1, 0) and np.shares_memory(payload.points, mesh.points)
    with pytest.raises(InteropError):
        mio.to_xp(mesh, np, float32=True, zero_copy_only=True)  # options reach to_dlpack


def test_to_xp_picks_cupy():
    with fake_cupy.installed() as cp:
        payload = mio.to_xp(sample_mesh(), cp, pinned=True)
        assert payload.device == (2, 0) and isinstance(payload.points, cp.ndarray)


def test_to_xp_names_what_it_supports():
    with pytest.raises(TypeError, match="no meshio\\+\\+ path for the array namespace 'dask'.*numpy, cupy, torch, jax, numba"):
        mio.to_xp(sample_mesh(), types.ModuleType("dask.array"))


@pytest.mark.parametrize(
    "function, module, command",
    [(mio.to_torch, "torch", "pip install torch"), (mio.to_jax, "jax", "pip install jax"),
     (mio.to_numba, "numba.cuda", "pip install numba numba-cuda")],
)  # fmt: skip
def test_missing_frameworks_name_the_install_command(monkeypatch, function, module, command):
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError) as info:
        function(sample_mesh())
    assert command in str(info.value) and function.__name__ in str(info.value)


# --- DLPack: versioned and legacy capsules ------------------------------------------------------

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

DLPACK_FLAG_READ_ONLY = 1 << 0


class _VersionedHead(ctypes.Structure):
    """The leading fields of DLManagedTensorVersioned (dlpack.h >= 1.0)."""

    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64)]  # fmt: skip


def versioned_flags(capsule):
    head = _VersionedHead.from_address(_capsule_pointer(capsule, b"dltensor_versioned"))
    assert head.major >= 1
    return head.flags


def exported_arrays():
    """Payload arrays and core-allocated arrays (what a read returns), by name."""
    payload = mio.to_dlpack(sample_mesh())
    arrays = dict(payload.named_arrays())
    arrays["core int64"] = mio._core.block_bases([1, 2, 3])
    arrays["core float64 view"] = core_allocated((4, 3), np.float64, 1.5)
    return arrays


@needs_versioned_dlpack
@pytest.mark.parametrize("name", list(exported_arrays()))
def test_arrays_serve_versioned_and_legacy_consumers(name):
    array = exported_arrays()[name]
    versioned = array.__dlpack__(max_version=(1, 0))
    assert _capsule_name(versioned) == b"dltensor_versioned"
    assert versioned_flags(versioned) & DLPACK_FLAG_READ_ONLY == 0
    legacy = array.__dlpack__()
    assert _capsule_name(legacy) == b"dltensor"
    adopted = np.from_dlpack(array)  # numpy itself negotiates the versioned protocol
    assert adopted.flags.writeable and (array.size == 0 or np.shares_memory(adopted, array))


@needs_versioned_dlpack
def test_read_only_arrays_are_flagged_read_only_in_the_versioned_protocol():
    mesh = core_mesh()
    mesh.points.flags.writeable = False
    points = mio.to_dlpack(mesh).points
    assert versioned_flags(points.__dlpack__(max_version=(1, 0))) & DLPACK_FLAG_READ_ONLY
    assert np.from_dlpack(points).flags.writeable is False
    with pytest.raises(BufferError, match="readonly"):
        points.__dlpack__()  # the legacy protocol cannot say read-only, so numpy refuses


def test_read_arrays_speak_both_protocols():
    paths = sorted(CORPUS.glob("vtu/*.vtu"))
    if not paths:
        pytest.skip(f"no VTU corpus at {CORPUS}")
    mesh = mio.read(paths[0])
    if NUMPY_VERSION < (2, 1):
        pytest.skip("numpy < 2.1 exports legacy DLPack only")
    assert _capsule_name(mesh.points.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
    assert _capsule_name(mesh.points.__dlpack__()) == b"dltensor"
    assert np.shares_memory(np.from_dlpack(mesh.points), mesh.points)


# --- device exporters coming back through from_cupy ------------------------------------------------


class ProducerCopyingToHost:
    """A device array whose producer can copy itself to the host over DLPack (dl_device=CPU)."""

    def __init__(self, values):
        self._values = values
        self.requests = []

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.requests.append((dl_device, copy))
        if dl_device != (1, 0):
            raise BufferError("device memory: ask for dl_device=(1, 0)")
        return self._values.copy().__dlpack__(max_version=max_version)


@pytest.mark.skipif(NUMPY_VERSION < (2, 1), reason="np.from_dlpack(device=...) needs numpy >= 2.1")
def test_a_device_exporter_is_asked_for_the_host_copy_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # proves this path needs no CuPy
    points = ProducerCopyingToHost(np.arange(9.0).reshape(3, 3))
    duck = types.SimpleNamespace(points=points, cells=[("triangle", np.array([[0, 1, 2]]))])
    with count_transfers() as counter, pytest.warns(InteropWarning, match="1 device arrays copied"):
        back = mio.from_cupy(duck)
    assert [(e.kind, e.array, e.nbytes) for e in counter.events] == [("to_host", "points", 72)]
    assert points.requests == [((1, 0), True)]
    np.testing.assert_array_equal(back.points, np.arange(9.0).reshape(3, 3))


class ForeignDeviceTensor:
    """A torch/JAX-like CUDA tensor: DLPack device (2, 0), no host export, plus a CUDA Array
    Interface (the fake's, so the fake CuPy can adopt it like real CuPy adopts a real one)."""

    def __init__(self, device_array):
        self._device = device_array
        self.__cuda_array_interface__ = device_array.__cuda_array_interface__

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, **kwargs):
        raise BufferError("this producer does not copy across devices")


class NumbaLikeDeviceArray:
    """A Numba-like device array: only the CUDA Array Interface."""

    def __init__(self, device_array):
        self._device = device_array
        self.__cuda_array_interface__ = device_array.__cuda_array_interface__


def test_from_cupy_adopts_foreign_device_arrays_through_cupy():
    with fake_cupy.installed() as cp:
        points = cp.asarray(np.arange(12.0).reshape(4, 3))
        cells = cp.asarray(np.array([[0, 1, 2], [1, 2, 3]]))
        duck = types.SimpleNamespace(points=ForeignDeviceTensor(points), cells=[("triangle", NumbaLikeDeviceArray(cells))])
        cp.log.clear()
        with count_transfers() as counter, pytest.warns(InteropWarning):
            back = mio.from_cupy(duck)
        assert cp.log.kinds() == ["to_host", "to_host"]  # adopted on the device, then one copy each
    assert [(e.kind, e.array) for e in counter.events] == [("to_host", "points"), ("to_host", "cells[0]")]
    np.testing.assert_array_equal(back.points, np.arange(12.0).reshape(4, 3))
    np.testing.assert_array_equal(back.cells[0].data, [[0, 1, 2], [1, 2, 3]])


# --- interpreter exit with live exports -------------------------------------------------------------


def test_exit_with_live_payloads_tensors_and_capsules_is_clean():
    script = (
        "import numpy as np, meshioplusplus as mio\n"
        "points = mio._core.block_bases([0] * 17).view(np.float64).reshape(6, 3)\n"
        "mesh = mio.Mesh(points, [('triangle', mio._core.block_bases([1, 1]).reshape(1, 3))])\n"
        "payload = mio.to_dlpack(mesh)\n"
        "capsules = [payload.points.__dlpack__(), mesh.cells[0].data.__dlpack__()]\n"
        "try:\n"
        "    capsules.append(payload.points.__dlpack__(max_version=(1, 0)))\n"
        "except TypeError:\n"
        "    pass  # numpy < 2.1\n"
        "adopted = np.from_dlpack(payload.points)\n"
        "try:\n"
        "    import torch\n"
        "    tensors = [torch.from_dlpack(payload.points), mio.to_torch(mesh).cells[0].data]\n"
        "except ImportError:\n"
        "    tensors = []\n"
        "del mesh\n"
        "print('alive', len(capsules), len(tensors))\n"
    )
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith("alive")
