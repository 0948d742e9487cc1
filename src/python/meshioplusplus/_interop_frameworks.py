"""The payload in other frameworks' arrays: torch, JAX, Numba, or whatever an array namespace names.

Each function builds the same host payload as ``to_dlpack`` (same data policy, same
``float32`` / ``int32`` opt-ins), then

* on the host, adopts every array in place where the framework allows it — the result shares
  memory with the mesh and ``payload.shared`` lists exactly the arrays that do;
* on a device, copies every array once (one counted ``to_device`` event each).

Frameworks are imported inside the functions, never at ``import meshioplusplus``; a missing
one raises ImportError with the command that installs it.
"""

from __future__ import annotations

import dataclasses
import importlib
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ._gpu import (
    HOST_DEVICE,
    DevicePayload,
    InteropError,
    _map_arrays,
    _mesh_names,
    _to_device_payload,
    _warn_notes,
    to_cupy,
    to_dlpack,
)
from ._mesh import Mesh
from .profiling import _active as _counting
from .profiling import _record

_INSTALL = {
    "torch": "pip install torch (CUDA or CPU-only builds: pick the command at https://pytorch.org/get-started/locally/)",
    "jax": "pip install jax (CPU), or pip install 'jax[cuda13]' / 'jax[cuda12]' for NVIDIA GPUs",
    "numba.cuda": "pip install numba numba-cuda (NVIDIA GPUs; the CUDA target ships as numba-cuda)",
}

#: dtypes JAX narrows (float64 -> float32, …) unless jax_enable_x64 is on.
_JAX_X64_DTYPES = frozenset(np.dtype(name) for name in ("float64", "int64", "uint64", "complex128"))

#: JAX needs this alignment to adopt a host buffer instead of copying it (XLA's CPU minimum).
_JAX_ALIGNMENT = 64


def _import_framework(module: str, function: str) -> Any:
    try:
        return importlib.import_module(module)
    except Exception as error:  # ImportError, or a broken install failing while importing
        raise ImportError(
            f"meshioplusplus.{function} needs {module.split('.')[0]}, which could not be imported ({error}). "
            f"Install it with: {_INSTALL[module]}"
        ) from error


class _Conversion:
    """Applies ``convert`` to every payload array, keeping the bookkeeping of one call."""

    def __init__(self, operation: str, names: Dict[str, str], convert: Callable[[str, np.ndarray], Tuple[Any, bool]]):
        self.operation = operation
        self.names = names
        self.convert = convert
        self.not_shared: List[str] = []  # host arrays the framework copied instead of adopting
        self.transferred = 0

    def __call__(self, name: str, array: np.ndarray) -> Any:
        label = self.names.get(name, name)
        result, shared = self.convert(label, array)
        if not shared:
            self.not_shared.append(name)
        return result

    def record_transfer(self, label: str, nbytes: int, *, blocking: bool = True) -> None:
        self.transferred += 1
        if _counting:
            _record("to_device", label, nbytes, operation=self.operation, blocking=blocking)


def _finish(host: DevicePayload, arrays: Dict[str, Any], conversion: _Conversion, device: Tuple[int, int],
            notes: List[str], derived: List[str], refs: Tuple[Any, ...] = ()) -> DevicePayload:
    on_host = device == HOST_DEVICE
    shared = tuple(name for name in host.shared if name not in conversion.not_shared) if on_host else ()
    return dataclasses.replace(
        host, **arrays, device=device, shared=shared, notes=tuple(host.notes) + tuple(notes),
        derived=tuple(host.derived) + tuple(derived), refs=refs,
    )


# --- torch --------------------------------------------------------------------------------


def to_torch(mesh: Mesh, *, device: Any = None, float32: bool = False, int32: bool = False) -> DevicePayload:
    """The mesh's arrays as torch tensors: shared with the mesh on the CPU, copied once to a device.

    ``device=None`` or a CPU device: ``torch.from_numpy`` adopts each array in place
    (``payload.shared``), except read-only arrays, which torch cannot mark read-only: those
    are copied (noted). Any other device (``"cuda"``, ``"cuda:1"``, a ``torch.device``): one
    blocking ``Tensor.to(device)`` copy per array, counted as ``to_device``.
    """
    torch = _import_framework("torch", "to_torch")
    host = _to_device_payload(mesh, float32=float32, int32=int32)
    target = torch.device(device) if device is not None else torch.device("cpu")
    on_host = target.type == "cpu"
    notes: List[str] = []

    def adopt(label: str, array: np.ndarray) -> Tuple[Any, bool]:
        if on_host:
            if not array.flags.writeable:
                notes.append(f"{label}: read-only; copied, since torch tensors are always writable")
                return torch.from_numpy(array.copy()), False
            return torch.from_numpy(array), True
        with warnings.catch_warnings():
            # A read-only source is only read by the copy; torch's writability warning does not apply.
            warnings.simplefilter("ignore", UserWarning)
            tensor = torch.from_numpy(array).to(target)
        conversion.record_transfer(label, array.nbytes)
        return tensor, False

    conversion = _Conversion("to_torch", _mesh_names(mesh, host), adopt)
    arrays = _map_arrays(host, conversion)
    device_id = HOST_DEVICE if on_host else _dlpack_device(arrays["points"])
    derived = [] if on_host else [f"to_torch: {conversion.transferred} arrays copied to {target}, one transfer each"]
    payload = _finish(host, arrays, conversion, device_id, notes, derived)
    _warn_notes("to_torch", payload.notes)
    return payload


def _dlpack_device(array: Any) -> Tuple[int, int]:
    kind, index = array.__dlpack_device__()
    return int(kind), int(index)


# --- JAX ----------------------------------------------------------------------------------


def to_jax(mesh: Mesh, *, device: Any = None, float32: bool = False, int32: bool = False) -> DevicePayload:
    """The mesh's arrays as JAX arrays: adopted on the CPU where JAX can, copied once to a device.

    JAX narrows 64-bit arrays silently unless ``jax_enable_x64`` is on, so a payload with
    64-bit arrays raises ``InteropError`` instead (naming them and both ways out).

    ``device=None`` or a CPU device: each array goes through ``jax.dlpack.from_dlpack``. JAX
    adopts a buffer only when it is 64-byte aligned (the arrays meshio++'s readers return
    are); otherwise it copies. ``payload.shared`` lists what really shares memory, checked
    by pointer, and each copy is noted. JAX treats its arrays as immutable: writing to the
    mesh's arrays afterwards changes the shared JAX arrays too.
    A GPU device (a ``jax.Device`` or a platform name such as ``"gpu"``): one
    ``jax.device_put`` per array (``to_device``, asynchronous), then one wait for all (``sync``).
    """
    jax = _import_framework("jax", "to_jax")
    host = _to_device_payload(mesh, float32=float32, int32=int32)
    _refuse_silent_narrowing(jax, host)
    target = _jax_device(jax, device)
    on_host = target is None or target.platform == "cpu"
    notes: List[str] = []

    def adopt(label: str, array: np.ndarray) -> Tuple[Any, bool]:
        if not on_host:
            moved = jax.device_put(array, target)
            conversion.record_transfer(label, array.nbytes, blocking=False)
            return moved, False
        adopted, shared = _jax_adopt_on_cpu(jax, array, target)
        if not shared and array.nbytes:
            notes.append(f"{label}: copied by JAX ({_jax_copy_reason(array)})")
        return adopted, shared or not array.nbytes

    conversion = _Conversion("to_jax", _mesh_names(mesh, host), adopt)
    arrays = _map_arrays(host, conversion)
    derived: List[str] = []
    if on_host:
        device_id = HOST_DEVICE
    else:
        jax.block_until_ready([value for _, value in _payload_values(arrays)])
        if _counting:
            _record("sync", None, 0, operation="to_jax")
        device_id = _dlpack_device(arrays["points"])
        derived.append(f"to_jax: {conversion.transferred} arrays copied to {target}, one transfer each")
    payload = _finish(host, arrays, conversion, device_id, notes, derived)
    _warn_notes("to_jax", payload.notes)
    return payload


def _jax_device(jax: Any, device: Any) -> Any:
    if device is None:
        return None
    if isinstance(device, str):
        return jax.devices(device)[0]
    return device


def _jax_x64_enabled(jax: Any) -> bool:
    try:
        return bool(jax.config.read("jax_enable_x64"))
    except Exception:  # older JAX: a plain attribute
        return bool(getattr(jax.config, "jax_enable_x64", False))


def _refuse_silent_narrowing(jax: Any, host: DevicePayload) -> None:
    if _jax_x64_enabled(jax):
        return
    wide = [f"{name} ({array.dtype})" for name, array in host.named_arrays() if array.dtype in _JAX_X64_DTYPES]
    if wide:
        raise InteropError(
            "to_jax: JAX has 64-bit types disabled and would silently narrow " + ", ".join(wide)
            + "; enable them with jax.config.update('jax_enable_x64', True), or pass float32=True / int32=True "
            "(integer point/cell data keeps its dtype and needs x64)"
        )


def _jax_adopt_on_cpu(jax: Any, array: np.ndarray, target: Any) -> Tuple[Any, bool]:
    try:
        adopted = jax.dlpack.from_dlpack(array) if target is None else jax.dlpack.from_dlpack(array, device=target)
    except (BufferError, TypeError):  # read-only arrays cannot travel over legacy DLPack
        adopted = jax.numpy.array(array) if target is None else jax.device_put(array, target)
    shared = bool(array.nbytes) and _jax_pointer(adopted) == array.__array_interface__["data"][0]
    return adopted, shared


def _jax_pointer(array: Any) -> Optional[int]:
    try:
        return int(array.unsafe_buffer_pointer())
    except Exception:  # sharded or deleted arrays have no single pointer
        return None


def _jax_copy_reason(array: np.ndarray) -> str:
    if not array.flags.writeable:
        return "read-only"
    if array.__array_interface__["data"][0] % _JAX_ALIGNMENT:
        return f"buffer not {_JAX_ALIGNMENT}-byte aligned"
    return "JAX declined to adopt it"


def _payload_values(arrays: Dict[str, Any]):
    """(name, array) for the fields ``_map_arrays`` returned (order irrelevant here)."""
    yield "points", arrays["points"]
    for i, block in enumerate(arrays["cells"]):
        yield f"cells[{i}]", block.data
    yield "block_bases", arrays["block_bases"]
    for name, values in arrays["point_data"].items():
        yield name, values
    for name, per_block in arrays["cell_data"].items():
        for values in per_block:
            yield name, values
    for region in arrays["regions"]:
        yield region.name, region.entries


# --- Numba --------------------------------------------------------------------------------


def to_numba(mesh: Mesh, *, float32: bool = False, int32: bool = False, stream: Any = 0) -> DevicePayload:
    """The mesh's arrays as Numba CUDA device arrays (they speak the CUDA Array Interface).

    One ``numba.cuda.to_device`` per array, counted as ``to_device``. ``stream=0`` copies
    synchronously; with a Numba stream the copies are queued on it and their host sources are
    kept in ``payload.refs`` — synchronize the stream before using the arrays. No CuPy needed.
    """
    cuda = _import_framework("numba.cuda", "to_numba")
    if not cuda.is_available():
        raise RuntimeError("meshioplusplus.to_numba: numba.cuda finds no usable CUDA driver and device")
    host = _to_device_payload(mesh, float32=float32, int32=int32)
    sources: List[np.ndarray] = []

    def upload(label: str, array: np.ndarray) -> Tuple[Any, bool]:
        moved = cuda.to_device(array, stream=stream)
        sources.append(array)
        conversion.record_transfer(label, array.nbytes, blocking=not stream)
        return moved, False

    conversion = _Conversion("to_numba", _mesh_names(mesh, host), upload)
    arrays = _map_arrays(host, conversion)
    device_id = (2, _numba_device_index(cuda))
    derived = [f"to_numba: {conversion.transferred} arrays, one host->device transfer each"]
    if stream:
        derived.append("to_numba: copies queued on the caller's stream; sources held in refs until it syncs")
    payload = _finish(host, arrays, conversion, device_id, [], derived, refs=tuple(sources) if stream else ())
    _warn_notes("to_numba", payload.notes)
    return payload


def _numba_device_index(cuda: Any) -> int:
    try:
        return int(cuda.get_current_device().id)
    except Exception:  # the CUDA simulator has no current device object
        return 0


# --- by array namespace -------------------------------------------------------------------


def to_xp(mesh: Mesh, xp: Any, **options: Any) -> DevicePayload:
    """The payload for the array namespace ``xp`` (a module, or an array with ``__array_namespace__``).

    numpy -> ``to_dlpack`` (host, shared); cupy -> ``to_cupy``; torch -> ``to_torch``;
    jax / jax.numpy -> ``to_jax``; numba / numba.cuda -> ``to_numba``. array-api-compat
    wrappers (``array_api_compat.torch`` …) resolve to the framework they wrap. ``options``
    go to the chosen function unchanged (``float32``, ``int32``, ``device``, ``pinned`` …).
    """
    framework = _framework_of(xp)
    dispatch = {"numpy": to_dlpack, "cupy": to_cupy, "torch": to_torch, "jax": to_jax, "numba": to_numba}
    if framework not in dispatch:
        raise TypeError(
            f"to_xp: no meshio++ path for the array namespace {framework!r}; supported: {', '.join(dispatch)}"
        )
    return dispatch[framework](mesh, **options)


def _framework_of(xp: Any) -> str:
    if not hasattr(xp, "__name__") and hasattr(xp, "__array_namespace__"):
        xp = xp.__array_namespace__()
    name = getattr(xp, "__name__", type(xp).__name__)
    parts = name.split(".")
    if parts[0] == "array_api_compat" and len(parts) > 1:
        parts = parts[1:]
    return parts[0]
