"""TEST DOUBLE — a numpy-backed stand-in for the small part of CuPy that meshio++ uses.

It is NOT a GPU and NOT CuPy. "Device" arrays are numpy buffers behind a wrapper that behaves
like a CuPy array where it matters for testing the handoff:

* no implicit host conversion: ``np.asarray(device_array)`` raises, as with CuPy, so a
  hidden device->host copy fails loudly instead of passing silently;
* every host<->device copy, pinned staging allocation and synchronization is appended to a
  transfer log (``fake.log``) that tests count;
* copies from pinned memory are asynchronous like a real DMA: they land when their stream
  synchronizes, and the fake raises if the pinned buffer was freed before that — which is
  how it checks that async callers keep staging buffers alive. "Pinned" means any buffer
  from ``cuda.alloc_pinned_memory`` that is still alive, found by address like CUDA does,
  so arrays a reader allocated there (``pinned_reads``) count as pinned too;
* ``get(out=…)`` checks dtype, shape and layout as CuPy does; ``get(blocking=False)`` is
  logged as non-blocking but lands at once (there is no real concurrency to wait for);
* reading a device scalar (``float(x)``, ``int(x)``, ``bool(x)``, ``x.item()``) is logged
  as a tiny to_host copy plus an implicit sync, and also reported to
  ``meshioplusplus.profiling`` (marked implicit) so counted blocks and budgets see it;
* ``__cuda_array_interface__`` carries a HOST pointer and is marked ``"_fake_cupy"``: hand
  it to a real CUDA consumer (Numba, real CuPy) and that consumer would read garbage.
  ``__dlpack__`` is refused for the same reason; ``__dlpack_device__`` says (2, 0).

What it cannot prove: real bus bandwidth or timing, real stream ordering between streams
(an event recorded on one stream is "done" once that stream's pending copies landed),
whether CuPy accepts a given call signature (its API is mirrored by hand), pinned-memory
limits, that page-locked memory really is page-locked, or DLPack capsules of device memory.
tests/python/test_gpu.py covers those on a GPU; docs/transfers.md lists the split.

Usage::

    from meshioplusplus.testing import fake_cupy

    with fake_cupy.installed() as cp:          # sys.modules["cupy"] is the fake inside
        payload = mio.to_cupy(mesh)
        assert cp.log.count_of("to_device") == len(list(payload.named_arrays()))

Extending it: new kinds of event go through ``FakeCupy.record``; reading a device scalar
already goes through ``FakeNdarray._read_scalar`` (logged as a to_host copy plus an implicit
sync), which is the hook for stricter sync checks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import types
import weakref
from typing import Any, Iterator, List, Optional

import numpy as np

#: Freshly allocated fake device memory is filled with this byte, so a copy that never
#: happened shows up as garbage values rather than as plausible zeros.
UNINITIALIZED_BYTE = 0xCD


@dataclasses.dataclass(frozen=True)
class TransferEvent:
    """One logged event.

    ``kind``: 'to_device', 'to_host', 'host_staging' (pinned allocation), 'device_copy' or
    'sync'. ``name``: the innermost NVTX range open at the time (meshio++ names its
    transfers that way), else None. ``pinned``: a to_device copy read from pinned staging.
    ``blocking``: the host waited for it. ``implicit``: nobody asked for it explicitly
    (a device scalar read).
    """

    kind: str
    name: Optional[str]
    nbytes: int
    stream: Any
    pinned: bool = False
    blocking: bool = True
    implicit: bool = False


class TransferLog(list):
    """The fake's event list, with counting helpers."""

    def of_kind(self, kind: str) -> List[TransferEvent]:
        return [event for event in self if event.kind == kind]

    def count_of(self, kind: str) -> int:
        return len(self.of_kind(kind))

    def bytes_of(self, kind: str) -> int:
        return sum(event.nbytes for event in self.of_kind(kind))

    def kinds(self) -> List[str]:
        return [event.kind for event in self]


class FakePinnedMemory(bytearray):
    """Stands in for cupy.cuda.PinnedMemoryPointer: a host buffer with the buffer protocol.

    A bytearray subclass because Python-level classes cannot export buffers before 3.12.
    Never resized, so its address (``ptr``) is fixed for its lifetime.
    """

    # Identity semantics: two staging buffers with equal bytes are still two allocations
    # (the fake tracks live ones in a WeakSet, which hashes and compares its members).
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__

    @property
    def size(self) -> int:
        return len(self)

    @property
    def ptr(self) -> int:
        if not len(self):
            return 0
        return int(np.frombuffer(self, dtype=np.uint8).__array_interface__["data"][0])

    def contains(self, address: int, nbytes: int) -> bool:
        start = self.ptr
        return bool(len(self)) and start <= address and address + nbytes <= start + len(self)


@dataclasses.dataclass
class _PendingCopy:
    """An async host->device copy from pinned memory, waiting for its stream."""

    target: "FakeNdarray"
    memory: "weakref.ReferenceType[FakePinnedMemory]"
    offset: int
    nbytes: int

    def land(self) -> None:
        memory = self.memory()
        if memory is None:
            raise RuntimeError(
                "fake cupy: a pinned staging buffer was freed before the asynchronous copy reading it ran; "
                "keep staging buffers alive until the stream synchronizes"
            )
        source = np.frombuffer(memory, dtype=np.uint8, count=self.nbytes, offset=self.offset)
        self.target._buffer.reshape(-1).view(np.uint8)[:] = source


class FakeStream:
    """cupy.cuda.Stream: a queue of pending async copies; ``synchronize`` runs them."""

    _fake: "FakeCupy"

    def __init__(self, null: bool = False, non_blocking: bool = False, ptr: Optional[int] = None):
        self.is_null = null
        self.non_blocking = non_blocking
        self.ptr = 0 if null else (ptr if ptr is not None else id(self))
        self._pending: List[_PendingCopy] = []

    def synchronize(self, implicit: bool = False) -> None:
        self._flush()
        self._fake.record("sync", nbytes=0, stream=self, implicit=implicit)

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        for copy in pending:
            copy.land()

    @property
    def done(self) -> bool:
        return not self._pending

    def pending_copies(self) -> int:
        return len(self._pending)

    def record(self, event: Optional["FakeEvent"] = None) -> "FakeEvent":
        event = event if event is not None else self._fake.cuda.Event()
        event.record(self)
        return event

    def wait_event(self, event: "FakeEvent") -> None:
        # A device-side wait: later work on this stream runs after the event's stream. The
        # host does not wait, so nothing is logged; the fake just lands the earlier copies.
        if event._stream is not None:
            event._stream._flush()

    def use(self) -> "FakeStream":
        self._fake._stream_stack.append(self)
        return self

    def __enter__(self) -> "FakeStream":
        return self.use()

    def __exit__(self, *exc: Any) -> None:
        self._fake._stream_stack.pop()

    def __repr__(self) -> str:
        return "<fake cupy Stream null>" if self.is_null else f"<fake cupy Stream {self.ptr:#x}>"


class FakeEvent:
    """cupy.cuda.Event: remembers the stream it was recorded on."""

    _fake: "FakeCupy"

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False):
        self._stream: Optional[FakeStream] = None

    def record(self, stream: Optional[FakeStream] = None) -> None:
        self._stream = stream if stream is not None else self._fake.cuda.get_current_stream()

    def synchronize(self) -> None:
        if self._stream is not None:
            self._stream.synchronize()

    @property
    def done(self) -> bool:
        return self._stream is None or self._stream.done


class FakeDevice:
    """cupy.cuda.Device (always device 0 of a one-device fake machine)."""

    _fake: "FakeCupy"

    def __init__(self, device: int = 0):
        self.id = int(device)

    compute_capability = "90"

    def synchronize(self) -> None:
        for stream in self._fake._streams():
            stream._flush()
        self._fake.record("sync", nbytes=0, stream=None)

    def __enter__(self) -> "FakeDevice":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


class FakeNdarray:
    """A fake device array: a private numpy buffer that refuses implicit host conversion."""

    _fake: "FakeCupy"

    def __init__(self, buffer: np.ndarray):
        self._buffer = buffer
        self._fake._by_pointer[self._pointer()] = buffer

    # --- what CuPy arrays report ---

    shape = property(lambda self: self._buffer.shape)
    dtype = property(lambda self: self._buffer.dtype)
    size = property(lambda self: self._buffer.size)
    nbytes = property(lambda self: self._buffer.nbytes)
    ndim = property(lambda self: self._buffer.ndim)
    itemsize = property(lambda self: self._buffer.itemsize)
    strides = property(lambda self: self._buffer.strides)
    flags = property(lambda self: self._buffer.flags)

    @property
    def device(self) -> FakeDevice:
        return self._fake.cuda.Device(0)

    def __len__(self) -> int:
        return len(self._buffer)

    def __repr__(self) -> str:
        return f"<fake cupy ndarray shape={self.shape} dtype={self.dtype}>"

    def _pointer(self) -> int:
        return int(self._buffer.__array_interface__["data"][0])

    # --- the conversions a GPU array refuses or counts ---

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError(
            "fake cupy: implicit conversion to a NumPy array is not allowed (as with CuPy); use .get()"
        )

    def get(self, stream: Optional[FakeStream] = None, order: str = "C", out: Optional[np.ndarray] = None,
            blocking: bool = True) -> np.ndarray:
        stream = stream if stream is not None else self._fake.cuda.get_current_stream()
        if out is not None:
            self._check_out(out)
        stream._flush()  # work queued earlier on the same stream runs first
        host = self._buffer.copy(order="F" if order == "F" else "C")
        self._fake.record("to_host", nbytes=host.nbytes, stream=stream, blocking=blocking)
        if out is None:
            return host
        np.copyto(out, host)
        return out

    def _check_out(self, out: Any) -> None:
        """The checks CuPy's ``get(out=…)`` makes before copying."""
        if not isinstance(out, np.ndarray):
            raise TypeError("Only numpy.ndarray can be obtained from cupy.ndarray")
        if out.dtype != self.dtype:
            raise TypeError(f"{out.dtype} array cannot be obtained from {self.dtype} array")
        if out.shape != self.shape:
            raise ValueError(f"Shape mismatch. Expected shape: {self.shape}, actual shape: {out.shape}")
        if not (out.flags.c_contiguous or out.flags.f_contiguous):
            raise RuntimeError("`out` cannot be specified when copying to non-contiguous ndarray")
        if not out.flags.writeable:
            raise ValueError("fake cupy: `out` is read-only")

    def set(self, arr: np.ndarray, stream: Optional[FakeStream] = None) -> None:
        # The same checks CuPy's ndarray.set makes, in the same order.
        if not isinstance(arr, np.ndarray):
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        if self.dtype != arr.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self.dtype} array")
        if self.shape != arr.shape:
            raise ValueError(f"Shape mismatch. Old shape: {self.shape}, new shape: {arr.shape}")
        stream = stream if stream is not None else self._fake.cuda.get_current_stream()
        arr = np.ascontiguousarray(arr)
        memory = self._fake._pinned_memory_of(arr)
        if memory is None:
            # Pageable memory: CUDA stages it before the call returns, so the data is in.
            self._buffer[...] = arr
        else:
            start = np.frombuffer(memory, dtype=np.uint8).__array_interface__["data"][0]
            offset = int(arr.__array_interface__["data"][0]) - int(start)
            stream._pending.append(_PendingCopy(self, weakref.ref(memory), offset, arr.nbytes))
        self._fake.record("to_device", nbytes=arr.nbytes, stream=stream, pinned=memory is not None, blocking=memory is None)

    def _read_scalar(self) -> Any:
        """A device scalar read: a tiny copy the host must wait for (an implicit sync)."""
        value = self._buffer.reshape(-1)[0] if self.size == 1 else None
        if value is None:
            raise TypeError("only size-1 fake cupy arrays can be converted to Python scalars")
        self._fake.record("to_host", nbytes=self.itemsize, stream=None, implicit=True)
        self._fake.record("sync", nbytes=0, stream=None, implicit=True)
        _report_implicit_read(self.itemsize)
        return value.item()

    def item(self) -> Any:
        return self._read_scalar()

    def __float__(self) -> float:
        return float(self._read_scalar())

    def __int__(self) -> int:
        return int(self._read_scalar())

    def __bool__(self) -> bool:
        return bool(self._read_scalar())

    # --- device-side work (no transfer) ---

    def __getitem__(self, key: Any) -> "FakeNdarray":
        view = self._buffer[key]
        if not isinstance(view, np.ndarray):
            # A full index gives a numpy scalar (a host copy); CuPy gives a 0-d device view.
            view = self._buffer[(key if isinstance(key, tuple) else (key,)) + (Ellipsis,)]
        return type(self)(view)

    def copy(self) -> "FakeNdarray":
        self._fake.record("device_copy", nbytes=self.nbytes, stream=None)
        return type(self)(self._buffer.copy())

    def astype(self, dtype: Any, copy: bool = True) -> "FakeNdarray":
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        self._fake.record("device_copy", nbytes=self.nbytes, stream=None)
        return type(self)(self._buffer.astype(dtype))

    def _operand(self, other: Any) -> Any:
        if isinstance(other, FakeNdarray):
            return other._buffer
        if isinstance(other, np.ndarray):
            raise TypeError("fake cupy: mixing a host numpy array into a device operation is not allowed")
        return other

    def __iadd__(self, other: Any) -> "FakeNdarray":
        self._buffer += self._operand(other)
        return self

    def __isub__(self, other: Any) -> "FakeNdarray":
        self._buffer -= self._operand(other)
        return self

    def __imul__(self, other: Any) -> "FakeNdarray":
        self._buffer *= self._operand(other)
        return self

    def __itruediv__(self, other: Any) -> "FakeNdarray":
        self._buffer /= self._operand(other)
        return self

    # --- the exchange protocols ---

    @property
    def __cuda_array_interface__(self) -> dict:
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": [("", self.dtype.str)],
            "data": (self._pointer(), False),
            "strides": None if self._buffer.flags.c_contiguous else self.strides,
            "version": 3,
            "_fake_cupy": "host pointer from a test double; not device memory",
        }

    def __dlpack_device__(self) -> tuple:
        return (2, 0)

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        # A kDLCUDA capsule around a host pointer would crash a real consumer; a kDLCPU one
        # would lie about where the data lives. Refusing is the honest choice.
        raise BufferError("fake cupy arrays cannot export DLPack capsules (they are not device memory)")


class FakeCupy(types.ModuleType):
    """The module object installed as ``cupy``; one instance per ``installed()`` block."""

    def __init__(self, device_count: int = 1):
        super().__init__("cupy", "TEST DOUBLE of CuPy (meshioplusplus.testing.fake_cupy); numpy-backed, no GPU")
        self.__fake_cupy__ = True
        self.log = TransferLog()
        self.device_count = device_count
        self._stream_stack: List[FakeStream] = []
        self._all_streams: "weakref.WeakSet[FakeStream]" = weakref.WeakSet()
        self._by_pointer: "weakref.WeakValueDictionary[int, np.ndarray]" = weakref.WeakValueDictionary()
        self._live_pinned: "weakref.WeakSet[FakePinnedMemory]" = weakref.WeakSet()
        self._nvtx_labels: List[str] = []
        bind = {"_fake": self}
        self.ndarray = type("ndarray", (FakeNdarray,), bind)
        self.cuda = self._make_cuda(bind)
        for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "bool_"):
            setattr(self, name, getattr(np, name))

    # --- bookkeeping ---

    def record(self, kind: str, *, nbytes: int, stream: Any, **flags: Any) -> None:
        name = self._nvtx_labels[-1] if self._nvtx_labels else None
        self.log.append(TransferEvent(kind, name, int(nbytes), stream, **flags))

    def live_pinned_buffers(self) -> int:
        """How many pinned staging allocations are still referenced by someone."""
        return len(self._live_pinned)

    def _streams(self) -> List[FakeStream]:
        return [self.cuda.Stream.null, *self._all_streams]

    def _pinned_memory_of(self, array: np.ndarray) -> Optional[FakePinnedMemory]:
        """The live pinned allocation holding all of ``array``'s bytes, if any.

        First numpy's ``base`` chain (staging views), then by address among the live pinned
        buffers — as CUDA decides, so memory a C++ reader filled through ``pinned_reads``
        (whose numpy base is the reader's capsule) is found too.
        """
        base: Any = array
        while isinstance(base, np.ndarray):
            base = base.base
        if isinstance(base, memoryview):
            base = base.obj
        if isinstance(base, FakePinnedMemory):
            return base
        if not array.nbytes:
            return None
        address = int(array.__array_interface__["data"][0])
        for memory in list(self._live_pinned):
            if memory.contains(address, array.nbytes):
                return memory
        return None

    # --- the cupy namespace ---

    def empty(self, shape: Any, dtype: Any = float, order: str = "C") -> FakeNdarray:
        if order != "C":
            raise NotImplementedError("fake cupy allocates C-ordered arrays only")
        dtype = np.dtype(dtype)
        shape = (shape,) if np.isscalar(shape) else tuple(shape)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        raw = np.full(nbytes, UNINITIALIZED_BYTE, dtype=np.uint8)
        return self.ndarray(raw.view(dtype).reshape(shape))

    def asarray(self, obj: Any, dtype: Any = None) -> FakeNdarray:
        if isinstance(obj, FakeNdarray):
            return obj if dtype is None else obj.astype(dtype, copy=False)
        interface = getattr(obj, "__cuda_array_interface__", None)
        if interface is not None:
            return self._adopt(interface)
        host = np.ascontiguousarray(np.asarray(obj, dtype=dtype))
        device = self.empty(host.shape, host.dtype)
        device.set(host)
        return device

    array = asarray

    def ascontiguousarray(self, obj: Any) -> FakeNdarray:
        device = self.asarray(obj)
        return device if device.flags.c_contiguous else device.copy()

    def from_dlpack(self, obj: Any) -> FakeNdarray:
        if isinstance(obj, FakeNdarray):
            return self.ndarray(obj._buffer)
        interface = getattr(obj, "__cuda_array_interface__", None)
        if interface is not None and "_fake_cupy" in interface:
            return self._adopt(interface)
        raise BufferError("fake cupy: from_dlpack only adopts the fake's own device arrays")

    def _adopt(self, interface: dict) -> FakeNdarray:
        """Zero-copy adoption of a fake device pointer, as cupy.asarray does with real CAI."""
        if "_fake_cupy" not in interface:
            raise TypeError("fake cupy cannot adopt a real device pointer")
        buffer = self._by_pointer.get(interface["data"][0])
        if buffer is None or buffer.shape != tuple(interface["shape"]) or buffer.dtype != np.dtype(interface["typestr"]):
            raise NotImplementedError("fake cupy adopts only whole arrays it allocated")
        return self.ndarray(buffer)

    def _make_cuda(self, bind: dict) -> types.ModuleType:
        fake = self
        cuda = types.ModuleType("cupy.cuda", "TEST DOUBLE of cupy.cuda")

        class Stream(FakeStream):
            _fake = fake

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                fake._all_streams.add(self)  # so Device.synchronize can drain every stream

        Stream.null = Stream(null=True)
        cuda.Stream = Stream
        cuda.Event = type("Event", (FakeEvent,), dict(bind))
        cuda.Device = type("Device", (FakeDevice,), dict(bind))
        cuda.PinnedMemoryPointer = FakePinnedMemory

        def get_current_stream(device_id: int = -1) -> FakeStream:
            return fake._stream_stack[-1] if fake._stream_stack else cuda.Stream.null

        def alloc_pinned_memory(nbytes: int) -> FakePinnedMemory:
            memory = FakePinnedMemory(int(nbytes))
            fake._live_pinned.add(memory)
            fake.record("host_staging", nbytes=nbytes, stream=None)
            return memory

        def get_device_count() -> int:
            if isinstance(fake.device_count, BaseException):
                raise fake.device_count
            return int(fake.device_count)

        cuda.get_current_stream = get_current_stream
        cuda.alloc_pinned_memory = alloc_pinned_memory
        cuda.runtime = types.SimpleNamespace(getDeviceCount=get_device_count, is_hip=False)
        cuda.nvtx = types.SimpleNamespace(
            available=True,
            RangePush=lambda label, *args, **kwargs: fake._nvtx_labels.append(str(label)),
            RangePop=lambda: fake._nvtx_labels.pop(),
        )
        return cuda


def _report_implicit_read(nbytes: int) -> None:
    """Hand a scalar read to meshio++'s transfer counting, if anyone counts (see profiling)."""
    from meshioplusplus import profiling

    if profiling._active:
        profiling._record("to_host", None, nbytes, operation="device scalar read (fake cupy)", implicit=True)
        profiling._record("sync", None, 0, operation="device scalar read (fake cupy)", implicit=True)


_MODULE_NAMES = ("cupy", "cupy.cuda")


@contextlib.contextmanager
def installed(device_count: Any = 1) -> Iterator[FakeCupy]:
    """Install a fresh fake as ``cupy`` (and ``cupy.cuda``) in sys.modules for the block.

    ``device_count`` is what ``cupy.cuda.runtime.getDeviceCount()`` answers; pass an
    exception instance to make it raise, like a machine without a driver. Whatever
    ``cupy`` was in sys.modules before is restored afterwards.
    """
    fake = FakeCupy(device_count=device_count)
    saved = {name: sys.modules.get(name, _ABSENT) for name in _MODULE_NAMES}
    sys.modules["cupy"] = fake
    sys.modules["cupy.cuda"] = fake.cuda
    try:
        yield fake
    finally:
        for name, module in saved.items():
            if module is _ABSENT:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


_ABSENT = object()
