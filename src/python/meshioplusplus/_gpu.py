"""GPU handoff: a Mesh's arrays as a DLPack-speaking payload, on the host or on a CUDA device.

Two layers, kept apart so that everything subtle is testable without a GPU:

* ``_to_device_payload`` — the pure builder. numpy only, mutates nothing, returns a host
  ``DevicePayload`` whose arrays share the mesh's buffers wherever the data policy allows.
* ``to_dlpack`` / ``to_cupy`` / ``from_cupy`` — thin public wrappers. CuPy is imported lazily,
  inside the functions that need it, and never at ``import meshioplusplus``.

Data policy (what is shared, what is copied, what is dropped) — see docs/gpu.md for the table:

* points: float64 and float32 are shared as they are; any other dtype is converted to float64.
* connectivity, block_bases and region entries form the payload's *index arrays*. They all
  carry ONE index dtype, int64 by default and int32 with ``int32=True``, so that a kernel
  never has to dispatch on a per-block index type. Index arrays already in that dtype are
  shared; others are converted after a range check.
* point_data / cell_data: every numeric dtype DLPack can describe (signed and unsigned
  integers, float16/32/64, complex64/128) is shared as it is. bool is reinterpreted as uint8
  (a view, still shared): DLPack's bool type is too recent for numpy < 1.25 and older CuPy.
  long double cannot be described by DLPack and is cast to float64/complex128 (precision is
  lost: noted). Object, string, bytes, void and datetime arrays are dropped.
* any array that is not C-contiguous or not in native byte order is copied into one that is.
* field_data rides along on the host untouched; it is never transferred.

Array names used in ``shared``, ``dropped``, ``notes``, errors and transfer events
(``meshioplusplus.profiling``) follow the mesh: ``points``, ``cells[i]`` (i = the mesh's block
index), ``block_bases``, ``point_data['T']``, ``cell_data['T'][i]`` and
``region 'inlet' (side)``.

Every host<->device copy made here is reported to ``meshioplusplus.profiling`` while a counter
is active; the check is one truth test (``if _counting:``) when nobody counts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import warnings
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple

import numpy as np

from . import _core
from ._allocation import allocation_owner, allocator_installed
from ._mesh import CellBlock, Mesh
from ._regions import Region, RegionKind, block_bases
from .profiling import _active as _counting
from .profiling import _record

# DLPack device types (dlpack.h, DLDeviceType).
_DL_CPU = 1
_DL_CUDA = 2
#: host memory numpy's from_dlpack adopts in place: plain, CUDA-pinned and ROCm-pinned.
_DL_HOST_TYPES = frozenset({_DL_CPU, 3, 11})
HOST_DEVICE = (_DL_CPU, 0)

_INSTALL_RECIPE = (
    "CuPy ships one wheel per CUDA major version, so install the one matching your toolkit: "
    "'pip install cupy-cuda13x' (CUDA 13.x), 'pip install cupy-cuda12x' (CUDA 12.x) or "
    "'pip install cupy-cuda11x' (CUDA 11.x); on ROCm, the matching cupy-rocm-* wheel."
)

# dtype kinds that DLPack cannot carry at all: object, bytes, str, void, datetime, timedelta.
_UNCARRIABLE_KINDS = frozenset("OSUVMm")


class InteropError(ValueError):
    """A copy was refused (``zero_copy_only=True``) or an index failed its range check."""


class InteropWarning(Warning):
    """Lossy or copying steps of a GPU handoff; ``notes`` holds them one per line."""

    def __init__(self, message: str, notes: Tuple[str, ...] = ()):
        super().__init__(message)
        self.notes = tuple(notes)


class CellArrays(NamedTuple):
    """One rectangular cell block of a payload: its type name and (n, k) connectivity."""

    type: str
    data: Any


class RegionArrays(NamedTuple):
    """A region of a payload; ``entries`` is in the payload's block-major cell numbering."""

    name: str
    kind: RegionKind
    dim: int
    tag: int
    entries: Any


@dataclasses.dataclass(frozen=True, eq=False)
class DevicePayload:
    """A mesh's arrays, ready for a DLPack consumer, on the host or on a device.

    Frozen: fields cannot be rebound. The dicts inside are ordinary dicts and the arrays
    are ordinary arrays — on a host payload they may be the mesh's own buffers (``shared``),
    so writing into them writes into the mesh.
    """

    points: Any
    cells: Tuple[CellArrays, ...]
    block_bases: Any
    point_data: Dict[str, Any]
    cell_data: Dict[str, Tuple[Any, ...]]
    field_data: Dict[str, Any]
    regions: Tuple[RegionArrays, ...]
    device: Tuple[int, int] = HOST_DEVICE
    dropped: Tuple[str, ...] = ()
    shared: Tuple[str, ...] = ()
    notes: Tuple[str, ...] = ()
    derived: Tuple[str, ...] = ()
    refs: Tuple[Any, ...] = ()

    def named_arrays(self) -> Iterator[Tuple[str, Any]]:
        """Every transferable array with a payload-indexed name, in transfer order."""
        yield "points", self.points
        for i, block in enumerate(self.cells):
            yield f"cells[{i}]", block.data
        yield "block_bases", self.block_bases
        for name, values in self.point_data.items():
            yield f"point_data[{name!r}]", values
        for name, per_block in self.cell_data.items():
            for i, values in enumerate(per_block):
                yield f"cell_data[{name!r}][{i}]", values
        for region in self.regions:
            yield _region_label(region.name, region.kind), region.entries

    def __repr__(self) -> str:
        blocks = ", ".join(f"{block.type}: {len(block.data)}" for block in self.cells)
        return (
            f"<DevicePayload device={self.device} points={tuple(self.points.shape)} cells=[{blocks}] "
            f"point_data={list(self.point_data)} cell_data={list(self.cell_data)} "
            f"regions={[region.name for region in self.regions]} dropped={list(self.dropped)} "
            f"notes={len(self.notes)}>"
        )


def _region_label(name: str, kind: RegionKind) -> str:
    return f"region {name!r} ({RegionKind(kind).name.lower()})"


# ------------------------------------------------------------------------------------------
# The pure builder
# ------------------------------------------------------------------------------------------


_VALUES_ARE_THE_SOURCE = object()


class _PayloadBuilder:
    """Turns one mesh into host arrays while keeping the bookkeeping in one place."""

    def __init__(self, *, float32: bool, int32: bool, zero_copy_only: bool):
        self.float32 = float32
        self.index_dtype = np.dtype(np.int32 if int32 else np.int64)
        self.zero_copy_only = zero_copy_only
        self.shared: List[str] = []
        self.notes: List[str] = []
        self.derived: List[str] = []
        self.dropped: List[str] = []
        # Opt-in casts are summarised in one note each rather than one note per array.
        self.cast_to_float32: List[str] = []
        self.cast_to_int32: List[str] = []

    # --- bookkeeping ---

    def copy_needed(self, name: str, reason: str) -> None:
        """Record (or, under zero_copy_only, refuse) a copy the data policy forces."""
        if self.zero_copy_only:
            raise InteropError(f"{name} cannot be shared without a copy ({reason}); zero_copy_only=True refuses")
        self.notes.append(f"{name}: copied ({reason})")

    def finish(self, name: str, source: Optional[np.ndarray], result: np.ndarray) -> np.ndarray:
        """Lists ``result`` as shared when it is (a view of) the mesh's ``source`` array."""
        if source is None:  # computed here, not taken from the mesh
            return result
        # Empty arrays own no bytes, so shares_memory says False; identity and views still count.
        if result is source or result.base is source or np.shares_memory(result, source):
            self.shared.append(name)
        return result

    def opt_in_notes(self) -> List[str]:
        notes = []
        if self.cast_to_float32:
            notes.append("float32=True: cast to float32 (a copy each): " + ", ".join(self.cast_to_float32))
        if self.cast_to_int32:
            notes.append(
                "int32=True: cast to int32 after a range check (a copy each): " + ", ".join(self.cast_to_int32)
            )
        return notes

    # --- array policies ---

    def canonical_layout(self, array: np.ndarray, name: str) -> np.ndarray:
        """C-contiguous, native byte order: what DLPack consumers and the device copy need."""
        if not array.dtype.isnative:
            self.copy_needed(name, f"byte order {array.dtype.str} is not native")
            array = array.astype(array.dtype.newbyteorder("="))
        if not array.flags.c_contiguous:
            self.copy_needed(name, "not C-contiguous")
            array = np.ascontiguousarray(array)
        return array

    def points(self, values: Any) -> np.ndarray:
        source = np.asarray(values)
        is_float32_or_64 = source.dtype.kind == "f" and source.dtype.itemsize in (4, 8)
        natural = source.dtype if is_float32_or_64 else np.dtype(np.float64)
        target = self.float32_target(natural, "points")
        if target is natural and natural is not source.dtype:  # forced by the policy, not opted in
            self.copy_needed("points", f"coordinates are float32 or float64, got {source.dtype}")
        array = self.cast_once(source, target)
        return self.finish("points", source, self.canonical_layout(array, "points"))

    def float32_target(self, target: np.dtype, name: str) -> np.dtype:
        """float32 under the opt-in for any float dtype (the cast is noted), else ``target``."""
        if self.float32 and target.kind == "f" and target != np.float32:
            self.cast_to_float32.append(name)
            return np.dtype(np.float32)
        return target

    @staticmethod
    def cast_once(array: np.ndarray, target: np.dtype) -> np.ndarray:
        """One conversion straight to the final dtype, in C order, so no second copy follows."""
        if array.dtype == target:
            return array
        return array.astype(target.newbyteorder("="), order="C")

    def data(self, values: Any, name: str) -> Optional[np.ndarray]:
        """A point/cell data array under the data policy, or None when it is dropped."""
        source = np.asarray(values)
        if source.dtype.kind in _UNCARRIABLE_KINDS:
            return None
        if source.dtype == np.bool_:
            # Same bytes, a dtype every DLPack consumer knows; a view, so still shared.
            self.notes.append(f"{name}: bool viewed as uint8 (no copy)")
            return self.finish(name, source, self.canonical_layout(source.view(np.uint8), name))
        target = source.dtype
        if _has_no_dlpack_type(target):
            target = np.dtype(np.float64 if target.kind == "f" else np.complex128)
        target = self.float32_target(target, name)
        if _has_no_dlpack_type(source.dtype) and target.itemsize > 4:
            self.copy_needed(name, f"{source.dtype} has no DLPack type; cast to {target}, losing precision")
        array = self.cast_once(source, target)
        return self.finish(name, source, self.canonical_layout(array, name))

    def index(self, values: Any, name: str, *, source: Any = _VALUES_ARE_THE_SOURCE) -> np.ndarray:
        """An index array in the payload's single index dtype (int64, or int32 opt-in).

        ``source``: the mesh array behind ``values`` when ``values`` was derived from it
        (renumbered entries), or None when ``values`` was computed here (block_bases).
        """
        array = np.asarray(values)
        source = array if source is _VALUES_ARE_THE_SOURCE else source
        if array.dtype.kind not in "iu":
            if array.size:
                raise InteropError(f"{name}: indices must be integers, got {array.dtype}")
            array = array.astype(self.index_dtype)
        if array.dtype != self.index_dtype:
            _check_index_range(array, self.index_dtype, name)
            if self.index_dtype == np.int32:
                self.cast_to_int32.append(name)
            else:
                self.copy_needed(name, f"the payload's index dtype is int64, got {array.dtype}")
            array = self.cast_once(array, self.index_dtype)
        return self.finish(name, source, self.canonical_layout(array, name))


def _has_no_dlpack_type(dtype: np.dtype) -> bool:
    """long double and its complex twin: padded, non-IEEE on most platforms; DLPack refuses them."""
    return dtype.kind in "fc" and dtype.itemsize > (16 if dtype.kind == "c" else 8)


def _check_index_range(array: np.ndarray, target: np.dtype, name: str) -> None:
    """Refuse to wrap: an index outside ``target``'s range raises, naming the array."""
    if array.size == 0 or np.can_cast(array.dtype, target, casting="safe"):
        return
    limits = np.iinfo(target)
    low, high = int(array.min()), int(array.max())
    if low < limits.min or high > limits.max:
        bad = high if high > limits.max else low
        raise InteropError(f"{name}: index {bad} does not fit in {target} (range {limits.min}..{limits.max})")


def _to_device_payload(
    mesh: Mesh, *, float32: bool = False, int32: bool = False, zero_copy_only: bool = False
) -> DevicePayload:
    """The host payload of ``mesh``: pure numpy, nothing transferred, nothing mutated, no warning."""
    if zero_copy_only and (float32 or int32):
        opt_in = "float32=True" if float32 else "int32=True"
        raise InteropError(f"{opt_in} is an explicit downcast, i.e. a copy; it cannot be combined with zero_copy_only=True")
    build = _PayloadBuilder(float32=float32, int32=int32, zero_copy_only=zero_copy_only)

    points = build.points(mesh.points)
    kept = _kept_blocks(mesh)
    cells = tuple(CellArrays(mesh.cells[i].type, build.index(mesh.cells[i].data, f"cells[{i}]")) for i in kept)
    for i, block in enumerate(mesh.cells):
        if block.is_ragged:
            build.dropped.append(f"cells[{i}]")
            build.notes.append(
                f"cells[{i}] ({block.type}): ragged cells cannot form one DLPack tensor; dropped, with its cell_data"
            )
    bases = build.index(block_bases(cells), "block_bases", source=None)
    if len(kept) != len(mesh.cells):
        build.derived.append(f"block_bases: block-major numbering over the payload's {len(kept)} blocks")

    point_data = _point_data(build, mesh.point_data)
    cell_data = _cell_data(build, mesh.cell_data, kept)
    regions = _regions(build, mesh, kept)
    _note_what_is_not_carried(build, mesh)

    return DevicePayload(
        points=points,
        cells=cells,
        block_bases=bases,
        point_data=point_data,
        cell_data=cell_data,
        field_data=dict(mesh.field_data),  # host passthrough: the very same objects
        regions=regions,
        device=HOST_DEVICE,
        dropped=tuple(build.dropped),
        shared=tuple(build.shared),
        notes=tuple(build.notes + build.opt_in_notes()),
        derived=tuple(build.derived),
        refs=(),
    )


def _kept_blocks(mesh: Mesh) -> List[int]:
    """The mesh's block indices that travel: every rectangular block, in order."""
    return [i for i, block in enumerate(mesh.cells) if not block.is_ragged]


def _mesh_names(mesh: Mesh, payload: DevicePayload) -> Dict[str, str]:
    """Payload array name -> the same array's name in ``mesh`` (they differ after ragged drops)."""
    names = {name: name for name, _ in payload.named_arrays()}
    kept = _kept_blocks(mesh)
    if len(kept) == len(mesh.cells):
        return names
    for payload_index, mesh_index in enumerate(kept):
        names[f"cells[{payload_index}]"] = f"cells[{mesh_index}]"
        for field in payload.cell_data:
            names[f"cell_data[{field!r}][{payload_index}]"] = f"cell_data[{field!r}][{mesh_index}]"
    return names


def _point_data(build: _PayloadBuilder, point_data: Dict[str, Any]) -> Dict[str, np.ndarray]:
    result = {}
    for name, values in point_data.items():
        label = f"point_data[{name!r}]"
        array = build.data(values, label)
        if array is None:
            build.dropped.append(label)
            build.notes.append(f"{label}: dtype {np.asarray(values).dtype} has no DLPack type; dropped")
        else:
            result[name] = array
    return result


def _cell_data(build: _PayloadBuilder, cell_data: Dict[str, Any], kept: List[int]) -> Dict[str, Tuple[np.ndarray, ...]]:
    result = {}
    for name, per_block in cell_data.items():
        labels = {i: f"cell_data[{name!r}][{i}]" for i in range(len(per_block))}
        uncarriable = [i for i in kept if np.asarray(per_block[i]).dtype.kind in _UNCARRIABLE_KINDS]
        if uncarriable:
            # One field is one per-block tuple: a field that cannot travel for one block cannot travel.
            build.dropped.extend(labels.values())
            build.notes.append(f"cell_data[{name!r}]: non-numeric data in block(s) {uncarriable}; field dropped")
            continue
        build.dropped.extend(labels[i] for i in range(len(per_block)) if i not in kept)
        result[name] = tuple(build.data(per_block[i], labels[i]) for i in kept)
    return result


def _regions(build: _PayloadBuilder, mesh: Mesh, kept: List[int]) -> Tuple[RegionArrays, ...]:
    renumber = _Renumbering(mesh, kept) if len(kept) != len(mesh.cells) else None
    result = []
    for region in mesh.regions:
        label = _region_label(region.name, region.kind)
        entries = np.asarray(region.entries)
        if renumber is not None and region.kind in (RegionKind.CELL, RegionKind.SIDE):
            renumbered = renumber(entries, region.kind, label, build)
            entries = build.index(renumbered, label, source=entries)
        else:
            entries = build.index(entries, label)
        result.append(RegionArrays(region.name, RegionKind(region.kind), region.dim, region.tag, entries))
    return tuple(result)


class _Renumbering:
    """Maps the mesh's block-major cell numbers onto the payload's, after ragged blocks were dropped.

    Both numberings come from ``block_bases`` — the one owner of block-major offsets.
    """

    def __init__(self, mesh: Mesh, kept: List[int]):
        self.mesh_bases = np.asarray(block_bases(mesh.cells))
        payload_bases = np.asarray(block_bases([len(mesh.cells[i].data) for i in kept]))
        self.is_kept = np.zeros(len(mesh.cells), dtype=bool)
        self.is_kept[kept] = True
        # Per mesh block: what to add to a mesh cell number to get the payload's.
        self.shift = np.zeros(len(mesh.cells), dtype=np.int64)
        for new_index, old_index in enumerate(kept):
            self.shift[old_index] = payload_bases[new_index] - self.mesh_bases[old_index]

    def __call__(self, entries: np.ndarray, kind: RegionKind, label: str, build: _PayloadBuilder) -> np.ndarray:
        cells = entries[:, 0] if kind == RegionKind.SIDE else entries
        cells = cells.astype(np.int64, copy=False)
        if cells.size and (cells.min() < 0 or cells.max() >= self.mesh_bases[-1]):
            raise InteropError(f"{label}: cell index outside the mesh's {int(self.mesh_bases[-1])} cells")
        block = np.searchsorted(self.mesh_bases, cells, side="right") - 1
        keep = self.is_kept[block]
        renumbered = cells[keep] + self.shift[block[keep]]
        removed = int(cells.size - renumbered.size)
        if removed:
            entries_word = "entry" if removed == 1 else "entries"
            build.notes.append(f"{label}: {removed} {entries_word} in dropped ragged blocks; removed")
        build.derived.append(f"{label}: cell numbers renumbered into the payload's block-major order")
        if kind == RegionKind.SIDE:
            facets = entries[keep, 1].astype(np.int64, copy=False)
            return np.stack([renumbered, facets], axis=1)
        return renumbered


def _note_what_is_not_carried(build: _PayloadBuilder, mesh: Mesh) -> None:
    if getattr(mesh, "gmsh_periodic", None) is not None:
        build.notes.append("gmsh_periodic: not part of a payload; not carried")
    tagged = [f"cells[{i}]" for i, block in enumerate(mesh.cells) if getattr(block, "tags", None)]
    if tagged:
        build.notes.append("cell block tags are not part of a payload; not carried: " + ", ".join(tagged))


# ------------------------------------------------------------------------------------------
# Public wrappers
# ------------------------------------------------------------------------------------------


def _warn_notes(function: str, notes: Tuple[str, ...]) -> None:
    if notes:
        message = f"{function}: " + "; ".join(notes)
        warnings.warn(InteropWarning(message, notes), stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first caller outside this package.

    Public functions call each other (``to_xp`` -> ``to_cupy`` -> here), so a fixed level
    would blame meshio++'s own lines.
    """
    package = __name__.rpartition(".")[0]
    frame, level = sys._getframe(1), 1  # level 1 = the function calling warnings.warn
    while frame is not None and frame.f_back is not None:
        module = frame.f_globals.get("__name__", "")
        if module != package and not module.startswith(package + "."):
            break
        frame, level = frame.f_back, level + 1
    return level


def to_dlpack(mesh: Mesh, *, float32: bool = False, int32: bool = False, zero_copy_only: bool = False) -> DevicePayload:
    """The mesh's arrays as a host ``DevicePayload``; nothing is transferred.

    Every array is a numpy ndarray, which itself implements ``__dlpack__`` (device (1, 0)), so
    ``np.from_dlpack``, ``torch.from_dlpack``, ``cupy.from_dlpack`` … adopt it directly.
    Arrays the data policy allows are the mesh's own buffers (listed in ``shared``); every copy
    or loss is listed in ``notes`` and warned as an ``InteropWarning``. ``zero_copy_only=True``
    raises ``InteropError`` instead of copying. ``float32`` / ``int32`` are explicit downcasts.
    """
    payload = _to_device_payload(mesh, float32=float32, int32=int32, zero_copy_only=zero_copy_only)
    _warn_notes("to_dlpack", payload.notes)
    return payload


def has_cupy() -> bool:
    """Whether CuPy imports. True even on a machine without a GPU; never raises."""
    try:
        _import_cupy("has_cupy")
    except Exception:  # an installed CuPy can fail to import in many ways; none is ours to raise
        return False
    return True


def has_cuda_device() -> bool:
    """Whether CuPy imports and at least one CUDA device answers; never raises."""
    try:
        cupy = _import_cupy("has_cuda_device")
        return int(cupy.cuda.runtime.getDeviceCount()) > 0
    except Exception:  # no driver, no device, broken install: all mean "no device"
        return False


def _import_cupy(function: str):
    try:
        import cupy
    except Exception as error:  # ImportError, or CUDA library errors raised while importing
        raise ImportError(f"meshioplusplus.{function} needs CuPy, which could not be imported ({error}). {_INSTALL_RECIPE}") from error
    return cupy


def to_cupy(mesh: Mesh, *, float32: bool = False, int32: bool = False, pinned: bool = False, stream: Any = None,
            device: Optional[int] = None) -> DevicePayload:
    """The mesh's arrays on the current CUDA device: one host->device transfer per array.

    Builds the host payload (``to_dlpack``'s data policy and opt-ins), then copies each array
    once into a new CuPy array. There is no ``zero_copy_only`` here: every array is copied
    across the bus by definition.

    ``pinned=True`` stages each array through page-locked host memory before the copy —
    except arrays a reader allocated in page-locked memory under ``pinned_reads()``, which
    are copied straight from their own buffers (listed in ``derived``).
    ``device`` selects the CUDA device (default: the current one).
    ``stream=None`` runs the copies on the current stream and synchronizes it before returning,
    then releases any staging memory. With a caller's ``stream`` the copies are enqueued on it
    and the function returns at once: synchronize the stream before using the arrays or
    dropping the payload, which keeps the host sources and staging buffers in ``refs``.
    """
    cupy = _import_cupy("to_cupy")
    host = _to_device_payload(mesh, float32=float32, int32=int32, zero_copy_only=False)
    if device is None:
        moved = _move_to_device(host, cupy, pinned=pinned, stream=stream, names=_mesh_names(mesh, host))
    else:  # e.g. one GPU per MPI rank: meshioplusplus.device_for_rank(comm)
        with cupy.cuda.Device(int(device)):
            moved = _move_to_device(host, cupy, pinned=pinned, stream=stream, names=_mesh_names(mesh, host))
    _warn_notes("to_cupy", moved.notes)
    return moved


def _map_arrays(payload: DevicePayload, convert: Callable[[str, Any], Any]) -> Dict[str, Any]:
    """The payload's array fields with ``convert(name, array)`` applied, names as ``named_arrays``."""
    return dict(
        points=convert("points", payload.points),
        cells=tuple(CellArrays(b.type, convert(f"cells[{i}]", b.data)) for i, b in enumerate(payload.cells)),
        block_bases=convert("block_bases", payload.block_bases),
        point_data={name: convert(f"point_data[{name!r}]", values) for name, values in payload.point_data.items()},
        cell_data={
            name: tuple(convert(f"cell_data[{name!r}][{i}]", values) for i, values in enumerate(per_block))
            for name, per_block in payload.cell_data.items()
        },
        regions=tuple(
            RegionArrays(r.name, r.kind, r.dim, r.tag, convert(_region_label(r.name, r.kind), r.entries))
            for r in payload.regions
        ),
    )


class _Uploader:
    """Copies host arrays to the device, once each, optionally through pinned staging.

    ``names`` maps payload names to the mesh's names, which transfer events and NVTX
    ranges carry; ``operation`` is the public call the copies belong to.
    """

    def __init__(self, cupy: Any, *, pinned: bool, stream: Any, operation: str = "to_cupy",
                 names: Optional[Dict[str, str]] = None):
        self.cupy = cupy
        self.pinned = pinned
        self.stream = stream
        self.operation = operation
        self.names = names or {}
        self.keep_alive: List[Any] = []
        self.unstaged: List[str] = []  # already page-locked (pinned_reads): no staging copy
        self.count = 0
        self.nbytes = 0

    def __call__(self, name: str, host: np.ndarray) -> Any:
        label = self.names.get(name, name)
        device = self.cupy.empty(host.shape, dtype=host.dtype)
        self.upload_into(device, label, host)
        return device

    def upload_into(self, device: Any, label: str, host: np.ndarray) -> None:
        """One host->device copy of ``host`` into the existing ``device`` array."""
        source, from_pinned = self.source_of(label, host)
        with _profiler_range(self.cupy, f"meshioplusplus.{self.operation} {label}"):
            device.set(source, stream=self.stream)
        if _counting:
            # From pageable memory the driver has taken the bytes when set() returns; from
            # page-locked memory the DMA runs on after it (the host waits later, or never).
            _record("to_device", label, host.nbytes, operation=self.operation, blocking=not from_pinned)
        # Until the stream has run the copy, its source must stay alive (and, if pinned,
        # must not go back to CuPy's pinned pool to be reused).
        self.keep_alive.append(source)
        self.count += 1
        self.nbytes += host.nbytes

    def source_of(self, label: str, host: np.ndarray) -> Tuple[np.ndarray, bool]:
        """What the device copy reads from, and whether that is page-locked memory.

        Arrays read under ``pinned_reads`` already are page-locked: the copy reads them in
        place whatever ``pinned`` says (and is then an asynchronous DMA, like a staged one).
        """
        if not host.nbytes:
            return host, False
        if _pinned_read_owner(host) is not None:
            if self.pinned:
                self.unstaged.append(label)
            return host, True
        if self.pinned:
            return self.staged(label, host), True
        return host, False

    def staged(self, label: str, host: np.ndarray) -> np.ndarray:
        memory = self.cupy.cuda.alloc_pinned_memory(host.nbytes)
        staging = np.frombuffer(memory, dtype=host.dtype, count=host.size).reshape(host.shape)
        np.copyto(staging, host)
        if _counting:
            _record("host_staging", label, host.nbytes, operation=self.operation)
        return staging

    def synchronize(self) -> None:
        """Wait for the copies on the current stream (stream=None), then release their sources."""
        self.cupy.cuda.get_current_stream().synchronize()
        if _counting:
            _record("sync", None, 0, operation=self.operation)
        self.keep_alive.clear()  # the copies are done; staging goes back to the pool

    def facts(self, what: str) -> List[str]:
        """``derived`` lines describing what this uploader did."""
        facts = [f"{what}: {self.count} arrays, {self.nbytes} bytes, one host->device transfer each"]
        if self.pinned and not self.unstaged:
            facts.append(f"{what}: each array staged through page-locked host memory first")
        if self.unstaged:
            facts.append(f"{what}: the other arrays staged through page-locked host memory first")
            facts.append(
                f"{what}: already page-locked (read under pinned_reads), copied without staging: " + ", ".join(self.unstaged)
            )
        if self.stream is not None:
            facts.append(f"{what}: copies enqueued on the caller's stream; sources held in refs until it syncs")
        return facts


def _move_to_device(host: DevicePayload, cupy: Any, *, pinned: bool, stream: Any, operation: str = "to_cupy",
                    names: Optional[Dict[str, str]] = None) -> DevicePayload:
    upload = _Uploader(cupy, pinned=pinned, stream=stream, operation=operation, names=names)
    # Allocating under the caller's stream ties CuPy's pool bookkeeping to it.
    with stream if stream is not None else contextlib.nullcontext():
        arrays = _map_arrays(host, upload)
    derived = list(host.derived) + upload.facts(operation)
    if stream is None:
        upload.synchronize()
        refs: Tuple[Any, ...] = ()
    else:
        refs = tuple(upload.keep_alive)
    device = tuple(int(part) for part in arrays["points"].__dlpack_device__())
    return dataclasses.replace(host, **arrays, device=device, shared=(), derived=tuple(derived), refs=refs)


# --- reading straight into page-locked memory ------------------------------------------------

# id(owner) -> how many live allocations returned that object, for owners handed out by a
# pinned_reads() allocator. An owner stays referenced by the C++ shim until its buffer is
# freed, so its id cannot be reused while it is listed here.
_pinned_owner_ids: Dict[int, int] = {}


@contextlib.contextmanager
def pinned_reads(alloc: Optional[Callable[[int], Any]] = None, free: Optional[Callable[[Any], None]] = None):
    """Readers inside the block allocate every array in page-locked host memory.

    ``alloc(nbytes)`` defaults to ``cupy.cuda.alloc_pinned_memory`` (CuPy is imported here,
    not before). Arrays read inside the block stay valid after it and go back to that
    allocator when they die. ``to_cupy(mesh, pinned=True)`` copies such arrays straight from
    their own buffers, without the staging copy. Blocks nest; the previous allocator comes
    back on exit, also on an exception. The hook is process-wide, like ``allocator_installed``.
    """
    if alloc is None:
        alloc = _import_cupy("pinned_reads").cuda.alloc_pinned_memory
    user_alloc, user_free = alloc, free

    def pinned_alloc(nbytes: int) -> Any:
        owner = user_alloc(nbytes)
        _pinned_owner_ids[id(owner)] = _pinned_owner_ids.get(id(owner), 0) + 1
        return owner

    def pinned_free(owner: Any) -> None:
        remaining = _pinned_owner_ids.pop(id(owner), 1) - 1
        if remaining > 0:
            _pinned_owner_ids[id(owner)] = remaining
        if user_free is not None:
            user_free(owner)

    with allocator_installed(pinned_alloc, pinned_free):
        yield


def _pinned_read_owner(array: np.ndarray) -> Any:
    """The pinned_reads allocation holding all of ``array``'s bytes, or None."""
    if array.nbytes == 0 or not _pinned_owner_ids:
        return None
    owner = allocation_owner(array)
    if owner is None or id(owner) not in _pinned_owner_ids:
        return None
    last_byte = int(array.__array_interface__["data"][0]) + array.nbytes - 1
    return owner if _core.python_allocation_owner(last_byte) is owner else None


@contextlib.contextmanager
def _profiler_range(cupy: Any, label: str):
    """Name the transfer in Nsight timelines (NVTX) when available; otherwise do nothing."""
    nvtx = getattr(getattr(cupy, "cuda", None), "nvtx", None)
    pushed = False
    if nvtx is not None and getattr(nvtx, "available", True):
        try:
            nvtx.RangePush(label)
            pushed = True
        except Exception:  # profiling annotations must never break a transfer
            pushed = False
    try:
        yield
    finally:
        if pushed:
            with contextlib.suppress(Exception):
                nvtx.RangePop()


# --- back to the host -------------------------------------------------------------------


class _HostAdopter:
    """Brings one array to the host: adopted in place when it is host memory, else one copy.

    Every device->host copy (and an on-device layout fix before it) is counted under
    ``operation`` for ``meshioplusplus.profiling``.
    """

    def __init__(self, operation: str = "from_cupy") -> None:
        self.operation = operation
        self.copied: List[str] = []
        self.copied_bytes = 0

    def __call__(self, name: str, value: Any) -> np.ndarray:
        if isinstance(value, np.ndarray):
            return value
        if _is_device_array(value):
            host = self.copy_from_device(name, value)
            if _counting:
                _record("to_host", name, host.nbytes, operation=self.operation)
            self.copied.append(name)
            self.copied_bytes += host.nbytes
            return host
        if hasattr(value, "__dlpack__"):
            return np.from_dlpack(value)  # host DLPack: adopted in place, no CuPy needed
        return np.asarray(value)  # plain host containers (lists, __array_interface__ objects)

    def copy_from_device(self, name: str, value: Any) -> np.ndarray:
        """Exactly one device->host copy, by the first route the array supports.

        1. its own ``.get()`` (CuPy);
        2. the producer copying to the host itself: ``np.from_dlpack(value, device="cpu")``
           (numpy >= 2.1 and a producer that accepts ``dl_device``) — no CuPy needed;
        3. CuPy adopting it on the device (DLPack, else CUDA Array Interface; no copy), then
           ``.get()``.
        """
        host = _own_get(self.contiguous(name, value)) if callable(getattr(value, "get", None)) else None
        if host is None and hasattr(value, "__dlpack__"):
            host = _producer_host_copy(value)
        if host is None:
            cupy = _import_cupy(self.operation)
            adopted = cupy.from_dlpack(value) if hasattr(value, "__dlpack__") else cupy.asarray(value)
            host = self.contiguous(name, adopted).get()
        if not isinstance(host, np.ndarray):
            raise TypeError(f"{name}: {type(value).__name__}.get() returned {type(host).__name__}, not a numpy array")
        return host

    def contiguous(self, name: str, device: Any) -> Any:
        """A C-contiguous device array: a strided one is copied on the device first (counted).

        CuPy would make that copy silently inside ``.get()``; making it here keeps it visible.
        """
        flags = getattr(device, "flags", None)
        if flags is None or getattr(flags, "c_contiguous", True):
            return device
        compact = device.copy()
        if _counting:
            _record("device_copy", name, int(getattr(compact, "nbytes", 0)), operation=self.operation)
        return compact


def _producer_host_copy(value: Any) -> Optional[np.ndarray]:
    """The producer's own copy to host memory over DLPack, or None where either side cannot."""
    try:
        return np.from_dlpack(value, device="cpu", copy=True)
    except (TypeError, BufferError, ValueError, NotImplementedError, RuntimeError):
        # numpy < 2.1 knows no ``device``; many producers refuse cross-device exports.
        return None


def _own_get(value: Any) -> Optional[np.ndarray]:
    """The array's own device->host copy (CuPy's ``.get()``), or None when it has none.

    Some device containers have a dict-like ``get(key)`` (cuDF); calling it without a key
    raises TypeError before anything is copied, and CuPy adoption takes over.
    """
    get = getattr(value, "get", None)
    if not callable(get):
        return None
    try:
        return get()
    except TypeError:
        return None


def _is_device_array(value: Any) -> bool:
    if hasattr(value, "__cuda_array_interface__"):
        return True
    dlpack_device = getattr(value, "__dlpack_device__", None)
    if dlpack_device is None:
        return False
    return int(dlpack_device()[0]) not in _DL_HOST_TYPES


def from_cupy(payload: Any) -> Mesh:
    """An ordinary Mesh from a ``DevicePayload`` or any object with the same attributes.

    numpy arrays pass through; host DLPack exporters are adopted in place with
    ``np.from_dlpack`` (no CuPy needed); device arrays (``__cuda_array_interface__`` or a
    non-host ``__dlpack_device__``: CuPy, torch, Numba, JAX …) come back with exactly one
    device->host copy each, which is warned as an ``InteropWarning`` and counted by
    ``meshioplusplus.profiling``. Index arrays keep the payload's dtype.
    """
    adopt = _HostAdopter()
    points = adopt("points", payload.points)
    cells = []
    for i, block in enumerate(payload.cells):
        cell_type, data = _cell_record(block)
        # Adopt before CellBlock sees the data: it would call np.asarray, which a device array refuses.
        cells.append(CellBlock(cell_type, adopt(f"cells[{i}]", data)))
    point_data = {
        name: adopt(f"point_data[{name!r}]", values) for name, values in (getattr(payload, "point_data", None) or {}).items()
    }
    cell_data = {
        name: [adopt(f"cell_data[{name!r}][{i}]", values) for i, values in enumerate(per_block)]
        for name, per_block in (getattr(payload, "cell_data", None) or {}).items()
    }
    regions = []
    for record in getattr(payload, "regions", None) or ():
        name, kind, dim, tag, entries = _region_record(record)
        regions.append(Region(name, kind, dim, tag, adopt(_region_label(name, kind), entries)))
    mesh = Mesh(
        points,
        cells,
        point_data=point_data,
        cell_data=cell_data,
        field_data=dict(getattr(payload, "field_data", None) or {}),
        regions=regions,
    )
    if adopt.copied:
        _warn_notes(
            "from_cupy",
            (f"{len(adopt.copied)} device arrays copied to the host ({adopt.copied_bytes} bytes, one copy each)",),
        )
    return mesh


def _cell_record(block: Any) -> Tuple[str, Any]:
    if hasattr(block, "type") and hasattr(block, "data"):
        return block.type, block.data
    cell_type, data = block
    return cell_type, data


def _region_record(record: Any) -> Tuple[str, RegionKind, int, int, Any]:
    if hasattr(record, "entries"):
        return record.name, RegionKind(record.kind), int(record.dim), int(record.tag), record.entries
    name, kind, dim, tag, entries = record
    return name, RegionKind(kind), int(dim), int(tag), entries
