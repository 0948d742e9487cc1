"""DeviceMirror: a mesh's arrays on the device, paired with the host arrays they came from.

``to_cupy`` + ``from_cupy`` make a new Mesh on the way back. A mirror instead keeps the pair
and copies *in place* in both directions, so the host Mesh — the very arrays the reader
returned — can be written the moment ``to_host()`` returns, and a solver can refresh the
device after host-side changes without reallocating anything:

    mirror = mio.DeviceMirror(mesh)
    step(mirror.device)                       # kernels on the device arrays
    mio.write("out.vtu", mirror.to_host())   # device -> the mesh's own arrays

Every copy is counted by ``meshioplusplus.profiling``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

import numpy as np

from ._gpu import (
    DevicePayload,
    _check_index_range,
    _import_cupy,
    _kept_blocks,
    _mesh_names,
    _move_to_device,
    _region_label,
    _to_device_payload,
    _Uploader,
    _warn_notes,
)
from ._mesh import Mesh
from ._regions import RegionKind
from .profiling import _active as _counting
from .profiling import _record


@dataclasses.dataclass(frozen=True)
class _Slot:
    """One mirrored array: its mesh name, the mesh's array, the device array, and how to
    find the array the mesh holds under that name now (to notice a rebinding)."""

    name: str
    host: np.ndarray
    device: Any
    locate: Callable[[], Any]

    def check_still_bound(self) -> None:
        if self.locate() is not self.host:
            raise RuntimeError(
                f"{self.name}: the mesh now holds a different array under this name; a DeviceMirror copies "
                "into the arrays it was built from — update them in place, or build a new mirror"
            )

    def lands_in_place(self) -> bool:
        """The device bytes can be copied straight into the host array (no temporary)."""
        host, device = self.host, self.device
        return host.dtype == device.dtype and host.shape == tuple(device.shape) and host.flags.c_contiguous


class DeviceMirror:
    """The mesh's arrays on the current CUDA device, bound to the mesh's own host arrays.

    ``device``: the device ``DevicePayload`` (built like ``to_cupy``'s, with the same
    ``float32`` / ``int32`` opt-ins and ``pinned`` / ``stream`` options; counted under the
    operation ``DeviceMirror``). ``names``: the mirrored arrays, named as in the mesh.
    ``to_host()`` copies device arrays back into the mesh's arrays in place;
    ``to_device()`` refreshes the device arrays in place from them. An opt-in dtype is
    undone on the way back (cast into the host array's dtype; listed in ``notes``).

    Not mirrored: ``block_bases`` (derived from the block sizes) and, when ragged blocks
    were dropped, Cell/Side region entries (renumbered for the payload; noted).
    """

    def __init__(self, mesh: Mesh, *, float32: bool = False, int32: bool = False, pinned: bool = False,
                 stream: Any = None):
        self._cupy = _import_cupy("DeviceMirror")
        self.mesh = mesh
        self._pinned = pinned
        self._stream = stream
        host = _to_device_payload(mesh, float32=float32, int32=int32)
        names = _mesh_names(mesh, host)
        moved = _move_to_device(host, self._cupy, pinned=pinned, stream=stream, operation="DeviceMirror", names=names)
        # The mirror, not the payload, holds the sources of queued copies, so that they (and
        # pinned staging) are released at the next sync rather than when the mirror dies.
        self._in_flight: Tuple[Any, ...] = moved.refs
        derived = tuple(
            "DeviceMirror: copies enqueued on the mirror's stream; sources held until synchronize() or a blocking to_host()"
            if "held in refs" in fact else fact
            for fact in moved.derived
        )
        self.device: DevicePayload = dataclasses.replace(moved, refs=(), derived=derived)
        locators, unmirrored = _locators(mesh, host)
        self._slots: Dict[str, _Slot] = {}
        for payload_name, device_array in self.device.named_arrays():
            if payload_name in locators:
                locate = locators[payload_name]
                name = names[payload_name]
                self._slots[name] = _Slot(name, np.asarray(locate()), device_array, locate)
        self.notes: Tuple[str, ...] = tuple(host.notes) + tuple(unmirrored) + self._cast_back_notes()
        _warn_notes("DeviceMirror", self.notes)

    # --- what is mirrored ---

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(self._slots)

    def _cast_back_notes(self) -> Tuple[str, ...]:
        cast = [f"{slot.name} ({slot.device.dtype} -> {slot.host.dtype})" for slot in self._slots.values()
                if slot.device.dtype != slot.host.dtype]
        return ("to_host casts back into the mesh's dtypes: " + ", ".join(cast),) if cast else ()

    def _select(self, names: Optional[Iterable[str]]) -> List[_Slot]:
        if names is None:
            chosen = list(self._slots.values())
        else:
            names = [names] if isinstance(names, str) else list(names)
            unknown = [name for name in names if name not in self._slots]
            if unknown:
                raise KeyError(f"not mirrored: {unknown}; mirrored arrays: {list(self._slots)}")
            chosen = [self._slots[name] for name in names]
        for slot in chosen:
            slot.check_still_bound()
        return chosen

    # --- device -> host ---

    def to_host(self, names: Optional[Iterable[str]] = None, blocking: bool = True) -> Any:
        """Copy device arrays back into the mesh's own arrays (all, or ``names``).

        ``blocking=True`` returns the mesh once every copy has landed. ``blocking=False``
        returns a ``PendingHostCopy`` at once: the copies run on their own stream (after the
        work already queued) into page-locked memory; ``result()`` waits if needed (a counted
        sync), moves the bytes into the mesh's arrays and returns the mesh.
        """
        slots = self._select(names)
        for slot in slots:
            if not slot.host.flags.writeable:
                raise ValueError(f"{slot.name}: the mesh's array is read-only; DeviceMirror.to_host cannot copy into it")
        if not blocking:
            return PendingHostCopy(self, slots)
        for slot in slots:
            self._copy_back(slot)
        self._in_flight = ()  # a blocking copy on the same stream waited for everything before it
        return self.mesh

    def _copy_back(self, slot: _Slot) -> None:
        if slot.lands_in_place():
            slot.device.get(stream=self._stream, out=slot.host)
        else:
            np.copyto(slot.host, slot.device.get(stream=self._stream).reshape(slot.host.shape), casting="unsafe")
        if _counting:
            _record("to_host", slot.name, slot.device.nbytes, operation="DeviceMirror.to_host")

    # --- host -> device ---

    def to_device(self, names: Optional[Iterable[str]] = None) -> DevicePayload:
        """Refresh the device arrays in place from the mesh's arrays (all, or ``names``).

        Shapes must not have changed. Opt-in dtypes are applied again (a host-side cast,
        range-checked for int32 indices). With ``stream=None`` the copies are synchronized
        before returning; with the mirror's stream they are queued, and their sources are
        kept until the next blocking copy or ``synchronize()``.
        """
        slots = self._select(names)
        prepared = [(slot, _as_device_dtype(slot)) for slot in slots]  # every check before any copy
        upload = _Uploader(self._cupy, pinned=self._pinned, stream=self._stream, operation="DeviceMirror.to_device")
        for slot, source in prepared:
            upload.upload_into(slot.device, slot.name, source)
        if self._stream is None:
            upload.synchronize()
        else:
            self._in_flight = self._in_flight + tuple(upload.keep_alive)
        return self.device

    def synchronize(self) -> None:
        """Wait for the mirror's stream (or the current one) and release queued copy sources."""
        stream = self._stream if self._stream is not None else self._cupy.cuda.get_current_stream()
        stream.synchronize()
        if _counting:
            _record("sync", None, 0, operation="DeviceMirror.synchronize")
        self._in_flight = ()

    def __repr__(self) -> str:
        return f"<DeviceMirror device={self.device.device} arrays={len(self._slots)} stream={self._stream!r}>"


def _as_device_dtype(slot: _Slot) -> np.ndarray:
    """The host array as the device array's dtype and layout: itself when it already is."""
    host, device = slot.host, slot.device
    if host.shape != tuple(device.shape):
        raise ValueError(
            f"{slot.name}: shape {host.shape} on the host, {tuple(device.shape)} on the device; "
            "a mirror refreshes in place — build a new one after resizing"
        )
    target = np.dtype(device.dtype)
    if host.dtype == np.bool_ and target == np.uint8:
        host = host.view(np.uint8)  # same bytes, as the payload ships bools
    elif host.dtype.kind in "iu" and target.kind == "i" and host.dtype != target:
        _check_index_range(host, target, slot.name)
    return np.ascontiguousarray(host, dtype=target)


def _locators(mesh: Mesh, host: DevicePayload) -> Tuple[Dict[str, Callable[[], Any]], List[str]]:
    """Payload name -> how to find the mesh's array behind it; plus notes on what is not mirrored."""
    kept = _kept_blocks(mesh)
    locate: Dict[str, Callable[[], Any]] = {"points": lambda: mesh.points}
    for payload_index, mesh_index in enumerate(kept):
        locate[f"cells[{payload_index}]"] = lambda i=mesh_index: mesh.cells[i].data
    for field in host.point_data:
        locate[f"point_data[{field!r}]"] = lambda f=field: mesh.point_data.get(f)
    for field in host.cell_data:
        for payload_index, mesh_index in enumerate(kept):
            locate[f"cell_data[{field!r}][{payload_index}]"] = lambda f=field, i=mesh_index: mesh.cell_data[f][i]
    renumbered = len(kept) != len(mesh.cells)
    unmirrored = []
    for position, region in enumerate(mesh.regions):
        label = _region_label(region.name, region.kind)
        if renumbered and region.kind in (RegionKind.CELL, RegionKind.SIDE):
            unmirrored.append(f"{label}: renumbered for the payload (ragged blocks dropped); not mirrored back")
            continue
        locate[label] = lambda p=position: mesh.regions[p].entries
    return locate, unmirrored


class PendingHostCopy:
    """Device->host copies in flight for ``DeviceMirror.to_host(blocking=False)``.

    The copies run on a stream of their own, ordered after the work queued on the mirror's
    stream when they were started, into page-locked landing buffers (so they are truly
    asynchronous). ``ready()`` never waits. ``result()`` waits if the copies have not
    finished (counted as a sync, ``blocking`` telling whether it really had to wait), copies
    the landed bytes into the mesh's arrays (one ``host_staging`` each, cast back where the
    device dtype differs) and returns the mesh; later calls return it again at no cost.
    """

    def __init__(self, mirror: DeviceMirror, slots: List[_Slot]):
        cupy = mirror._cupy
        self._mirror = mirror
        self._stream = cupy.cuda.Stream(non_blocking=True)
        producer = mirror._stream if mirror._stream is not None else cupy.cuda.get_current_stream()
        self._stream.wait_event(producer.record())
        self._landing: List[Tuple[_Slot, np.ndarray, Any]] = []
        for slot in slots:
            landing, memory = _landing_buffer(cupy, slot.device)
            slot.device.get(stream=self._stream, out=landing, blocking=False)
            self._landing.append((slot, landing, memory))
            if _counting:
                _record("to_host", slot.name, slot.device.nbytes, operation="DeviceMirror.to_host", blocking=False)
        self._done = self._stream.record()
        self._finished = False

    def ready(self) -> bool:
        return self._finished or bool(self._done.done)

    def result(self) -> Mesh:
        if not self._finished:
            had_to_wait = not self._done.done
            self._done.synchronize()
            if _counting:
                _record("sync", None, 0, operation="PendingHostCopy.result", blocking=had_to_wait)
            for slot, landing, _memory in self._landing:
                np.copyto(slot.host, landing.reshape(slot.host.shape), casting="unsafe")
                if _counting:
                    _record("host_staging", slot.name, landing.nbytes, operation="PendingHostCopy.result")
            self._landing = []  # the landing buffers go back to CuPy's pinned pool
            self._finished = True
        return self._mirror.mesh

    def __del__(self) -> None:
        # Landing buffers must not return to the pinned pool while a DMA still writes them.
        if getattr(self, "_landing", None) and not getattr(self, "_finished", True):
            try:
                self._done.synchronize()
            except Exception:  # interpreter shutdown or a dead context: nothing left to protect
                pass


def _landing_buffer(cupy: Any, device: Any) -> Tuple[np.ndarray, Any]:
    """A page-locked host array shaped like ``device`` (and the memory that backs it)."""
    if not device.nbytes:
        return np.empty(device.shape, dtype=device.dtype), None
    memory = cupy.cuda.alloc_pinned_memory(device.nbytes)
    landing = np.frombuffer(memory, dtype=device.dtype, count=device.size).reshape(device.shape)
    return landing, memory
