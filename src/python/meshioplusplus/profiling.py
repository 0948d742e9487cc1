"""Counting the host<->device copies meshio++ makes, and checking them against rules.

The classic performance bug of GPU code is a copy that sneaks into a loop. Every copy
meshio++ itself makes between host and device memory (``to_cupy``, ``from_cupy``,
``DeviceMirror``, ``to_torch`` …) is reported here as a ``TransferEvent`` while someone is
counting; nothing is recorded otherwise, and an idle counter costs one truth test.

    from meshioplusplus import profiling

    with profiling.count_transfers() as counter:
        gpu = mio.to_cupy(mesh)
    print(counter.report())

    with profiling.assert_no_transfers():      # AssertionError, with the report, on a copy
        step(gpu)

Event kinds:

==============  ==========================================================================
``to_device``   a host->device copy of one array
``to_host``     a device->host copy of one array
``host_staging`` a host-side copy between an array and page-locked staging memory
``device_copy`` an on-device dtype or layout conversion meshio++ made
``sync``        the host waited for the device (a stream or event synchronize)
==============  ==========================================================================

What is NOT seen: copies made by other code (``cupy.asarray(host)``, ``array.get()``,
``torch.Tensor.cpu()`` …) and implicit waits of the real CuPy (``float(device_scalar)``).
The fake CuPy (``meshioplusplus.testing.fake_cupy``) reports its implicit scalar reads here,
marked ``implicit``, so tests can catch them; with the real CuPy use Nsight Systems.

Counting is process-wide: while a counter is active, copies made in other threads count too.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import sys
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

__all__ = [
    "KINDS",
    "TransferBudget",
    "TransferCounter",
    "TransferEvent",
    "BudgetViolation",
    "assert_no_transfers",
    "count_transfers",
]

KINDS = ("to_device", "to_host", "host_staging", "device_copy", "sync")
#: kinds that move bytes across the bus
BUS_KINDS = ("to_device", "to_host")
#: kinds that copy bytes somewhere (everything but sync)
COPY_KINDS = ("to_device", "to_host", "host_staging", "device_copy")

_PACKAGE = __name__.rpartition(".")[0]


@dataclasses.dataclass(frozen=True)
class TransferEvent:
    """One copy or wait meshio++ made.

    ``kind``: one of ``KINDS``. ``array``: the array's name in the mesh (``points``,
    ``cells[2]``, ``point_data['T']``, ``cell_data['q'][0]``, ``region 'inlet' (side)``), or
    None for a wait that covers several arrays. ``nbytes``: bytes copied (0 for a sync).
    ``blocking``: the host waited for this copy (or, for a sync, actually had to wait).
    ``site``: ``file:line`` of the first caller outside the meshioplusplus package — the
    user's line. ``operation``: the meshio++ call that made it (``to_cupy``,
    ``DeviceMirror.to_host`` …). ``implicit``: nobody asked for it (a device scalar read on
    the fake CuPy).
    """

    kind: str
    array: Optional[str]
    nbytes: int
    blocking: bool
    site: str
    operation: str
    implicit: bool = False

    def flags(self) -> str:
        marks = []
        if not self.blocking:
            # A sync that found the work already done did not make the host wait.
            marks.append("[no wait]" if self.kind == "sync" else "[async]")
        if self.implicit:
            marks.append("[implicit]")
        return " ".join(marks)


# Receivers of events: TransferCounters and TransferBudgets. Mutated in place, never rebound,
# so ``if _active:`` at a transfer point always sees the current state.
_active: List[Any] = []


def _record(kind: str, array: Optional[str], nbytes: int, *, operation: str, blocking: bool = True,
            implicit: bool = False) -> None:
    """Deliver one event to every active receiver (package-internal; callers check ``_active`` first)."""
    event = TransferEvent(kind, array, int(nbytes), bool(blocking), _user_site(), operation, bool(implicit))
    delivered = set()
    for receiver in list(_active):
        # A counter active twice (a decorated function calling itself) counts an event once.
        if id(receiver) not in delivered:
            delivered.add(id(receiver))
            receiver._receive(event)


def _user_site() -> str:
    """``file:line`` of the first frame outside this package: where the user asked for the copy."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module != _PACKAGE and not module.startswith(_PACKAGE + "."):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<meshioplusplus>"


def _activate(receiver: Any) -> None:
    _active.append(receiver)


def _deactivate(receiver: Any) -> None:
    # The innermost activation goes first; identity, not equality, finds it.
    for index in range(len(_active) - 1, -1, -1):
        if _active[index] is receiver:
            del _active[index]
            return


# ------------------------------------------------------------------------------------------
# Counting
# ------------------------------------------------------------------------------------------


class TransferCounter:
    """The events of one or more counted blocks, with totals and a report.

    ``total`` counts host<->device copies (``to_device`` + ``to_host``); ``copies`` adds
    staging and device-side copies; waits are counted apart in ``syncs``.
    """

    def __init__(self) -> None:
        self.events: List[TransferEvent] = []

    def _receive(self, event: TransferEvent) -> None:
        self.events.append(event)

    def clear(self) -> None:
        self.events.clear()

    # --- counts ---

    def of_kind(self, kind: str) -> List[TransferEvent]:
        _check_kind(kind)
        return [event for event in self.events if event.kind == kind]

    def count(self, kind: str) -> int:
        return len(self.of_kind(kind))

    def bytes(self, kind: str) -> int:
        return sum(event.nbytes for event in self.of_kind(kind))

    @property
    def total(self) -> int:
        return self.to_device + self.to_host

    @property
    def copies(self) -> int:
        return sum(self.count(kind) for kind in COPY_KINDS)

    @property
    def to_device(self) -> int:
        return self.count("to_device")

    @property
    def to_host(self) -> int:
        return self.count("to_host")

    @property
    def host_staging(self) -> int:
        return self.count("host_staging")

    @property
    def device_copies(self) -> int:
        return self.count("device_copy")

    @property
    def syncs(self) -> int:
        return self.count("sync")

    @property
    def bytes_to_device(self) -> int:
        return self.bytes("to_device")

    @property
    def bytes_to_host(self) -> int:
        return self.bytes("to_host")

    def __len__(self) -> int:
        return len(self.events)

    def __repr__(self) -> str:
        return f"<TransferCounter {self.summary()}>"

    # --- report ---

    def summary(self) -> str:
        return (
            f"{self.total} transfer(s) through meshio++ "
            f"({self.to_device} to_device {_size(self.bytes_to_device)}, {self.to_host} to_host {_size(self.bytes_to_host)}); "
            f"{self.host_staging} host_staging, {self.device_copies} device_copy, {self.syncs} sync"
        )

    def report(self) -> str:
        """The summary line, then per kind the events grouped by call site and operation."""
        lines = [self.summary()]
        for kind in KINDS:
            events = [event for event in self.events if event.kind == kind]
            if events:
                lines.append(f"  {kind} ({len(events)}, {_size(sum(e.nbytes for e in events))}):")
                lines.extend("    " + line for line in _grouped_lines(events))
        return "\n".join(lines)


def _grouped_lines(events: Sequence[TransferEvent]) -> List[str]:
    """One line per (site, operation, flags), first seen first: count, bytes, arrays."""
    groups: Dict[Tuple[str, str, str], List[TransferEvent]] = collections.OrderedDict()
    for event in events:
        groups.setdefault((event.site, event.operation, event.flags()), []).append(event)
    lines = []
    for (site, operation, flags), members in groups.items():
        arrays = collections.Counter(event.array for event in members if event.array is not None)
        shown = ", ".join(name if count == 1 else f"{name} x{count}" for name, count in list(arrays.items())[:6])
        if len(arrays) > 6:
            shown += f", … +{len(arrays) - 6} more"
        text = f"{site}: {operation} x{len(members)}"
        if any(event.nbytes for event in members):
            text += f", {_size(sum(event.nbytes for event in members))}"
        if shown:
            text += f" [{shown}]"
        if flags:
            text += f" {flags}"
        lines.append(text)
    return lines


def _size(nbytes: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes} B"


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown transfer kind {kind!r}; known: {', '.join(KINDS)}")


class _Counting(contextlib.ContextDecorator):
    """``count_transfers``'s result: a context manager that is also a decorator."""

    def __init__(self, counter: TransferCounter):
        self.counter = counter

    def __enter__(self) -> TransferCounter:
        _activate(self.counter)
        return self.counter

    def __exit__(self, *exc: Any) -> None:
        _deactivate(self.counter)

    def __call__(self, function: Callable) -> Callable:
        wrapped = super().__call__(function)
        wrapped.transfers = self.counter  # every call of the decorated function adds to it
        return wrapped


def count_transfers(counter: Optional[TransferCounter] = None) -> _Counting:
    """Count meshio++'s copies inside a ``with`` block or in every call of a decorated function.

    ``with count_transfers() as counter:`` yields a fresh counter; ``count_transfers(counter)``
    adds to an existing one (to accumulate over several blocks). As a decorator
    (``@count_transfers()``) all calls add to one counter, reachable as ``function.transfers``.
    Blocks nest: an event counts in every block open at the time.
    """
    return _Counting(counter if counter is not None else TransferCounter())


class _NoTransfers(_Counting):
    def __init__(self, allow: Iterable[str]):
        super().__init__(TransferCounter())
        self.allow = tuple(allow)
        for kind in self.allow:
            _check_kind(kind)

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        super().__exit__(exc_type, *exc)
        if exc_type is not None:
            return  # the block's own error says more than ours would
        forbidden = [event for event in self.counter.events if event.kind not in self.allow]
        if forbidden:
            raise AssertionError(
                f"{len(forbidden)} forbidden host<->device copy event(s) inside assert_no_transfers():\n"
                + self.counter.report()
            )


def assert_no_transfers(allow: Iterable[str] = ("device_copy", "sync")) -> _NoTransfers:
    """Fail with ``AssertionError`` (and the report) if meshio++ copies between host and device.

    ``to_device``, ``to_host`` and ``host_staging`` are refused; device-side conversions and
    waits are allowed unless ``allow`` says otherwise. Context manager and decorator.
    """
    return _NoTransfers(allow)


# ------------------------------------------------------------------------------------------
# Budgets
# ------------------------------------------------------------------------------------------

_LIMITS = ("max_count", "max_nbytes", "max_total_bytes", "blocking", "implicit")


@dataclasses.dataclass(frozen=True)
class BudgetViolation:
    """One broken rule of a TransferBudget, with the events that broke it."""

    phase: str
    rule: str
    events: Tuple[TransferEvent, ...] = ()

    def __str__(self) -> str:
        text = f"phase {self.phase!r}: {self.rule}"
        for line in _grouped_lines(self.events):
            text += "\n    " + line
        return text


@dataclasses.dataclass(frozen=True)
class _Requirement:
    allow: Dict[str, Dict[str, Any]]
    calls: Optional[int]
    ignore: Tuple[str, ...]

    def describe(self) -> str:
        parts = []
        for kind, limits in self.allow.items():
            detail = ", ".join(f"{key}={value}" for key, value in limits.items())
            parts.append(f"{kind}({detail})" if detail else kind)
        text = "allow " + (", ".join(parts) if parts else "nothing")
        if self.ignore:
            text += "; ignore " + ", ".join(self.ignore)
        if self.calls is not None:
            text += f"; calls={self.calls}"
        return text


class _Phase(contextlib.ContextDecorator):
    def __init__(self, budget: "TransferBudget", name: str):
        self.budget = budget
        self.name = name

    def __enter__(self) -> TransferCounter:
        return self.budget._enter(self.name)

    def __exit__(self, *exc: Any) -> None:
        self.budget._exit(self.name)


class TransferBudget:
    """Transfer rules per named phase of a program: counted separately, checked together.

    ::

        budget = TransferBudget()
        for _ in range(steps):
            with budget.phase("step"):
                advance(gpu)
            with budget.phase("output"):
                mio.write(path, mirror.to_host())
        budget.require("step", allow={}, calls=steps)                 # no copies at all
        budget.require("output", allow={"to_host": {"max_total_bytes": 10**9}})
        budget.check()        # AssertionError with report() if a rule is broken

    ``phase(name)`` is a context manager yielding the phase's counter and a decorator. Phases
    nest; an event counts in the innermost open phase only, and events outside every phase
    are not counted. With ``started=False`` phases run uncounted until ``start()``, and again
    after ``stop()``. Counting is process-wide, like ``count_transfers``.
    """

    def __init__(self, started: bool = True):
        self._started = bool(started)
        self._counters: Dict[str, TransferCounter] = collections.OrderedDict()
        self._stack: List[str] = []
        self._requirements: Dict[str, _Requirement] = collections.OrderedDict()
        self.calls: Dict[str, int] = collections.defaultdict(int)

    # --- phases ---

    def phase(self, name: str) -> _Phase:
        return _Phase(self, str(name))

    def __getitem__(self, name: str) -> TransferCounter:
        return self._counter(name)

    def _counter(self, name: str) -> TransferCounter:
        if name not in self._counters:
            self._counters[name] = TransferCounter()
        return self._counters[name]

    def _enter(self, name: str) -> TransferCounter:
        if not self._stack:
            _activate(self)  # receive events only while some phase is open
        self._stack.append(name)
        if self._started:
            self.calls[name] += 1
        return self._counter(name)

    def _exit(self, name: str) -> None:
        self._stack.pop()
        if not self._stack:
            _deactivate(self)

    def _receive(self, event: TransferEvent) -> None:
        if self._started and self._stack:
            self._counter(self._stack[-1])._receive(event)

    def start(self) -> None:
        self._started = True

    def stop(self) -> None:
        self._started = False

    @property
    def started(self) -> bool:
        return self._started

    @property
    def phases(self) -> Tuple[str, ...]:
        return tuple(dict.fromkeys([*self._counters, *self._requirements]))

    # --- rules ---

    def require(self, phase: str, allow: Optional[Dict[str, Optional[Dict[str, Any]]]] = None, *,
                calls: Optional[int] = None, ignore: Iterable[str] = ("device_copy", "sync")) -> None:
        """The rule for ``phase`` (replacing an earlier one).

        ``allow`` maps each permitted kind to its limits (``{}`` or None for none):
        ``max_count`` (events of that kind over the phase's whole life), ``max_nbytes`` (per
        event), ``max_total_bytes`` (summed), ``blocking`` / ``implicit`` (the value every
        event must have). Kinds neither allowed nor in ``ignore`` are forbidden. ``calls``: how
        many times the phase must have been entered while started.
        """
        allowed: Dict[str, Dict[str, Any]] = {}
        for kind, limits in (allow or {}).items():
            _check_kind(kind)
            limits = dict(limits or {})
            unknown = set(limits) - set(_LIMITS)
            if unknown:
                raise ValueError(f"unknown limit(s) {sorted(unknown)} for {kind!r}; known: {', '.join(_LIMITS)}")
            allowed[kind] = limits
        ignored = tuple(ignore)
        for kind in ignored:
            _check_kind(kind)
        self._requirements[str(phase)] = _Requirement(allowed, calls, ignored)

    def violations(self) -> List[BudgetViolation]:
        found: List[BudgetViolation] = []
        for phase, requirement in self._requirements.items():
            found.extend(_phase_violations(phase, requirement, self._counter(phase), self.calls.get(phase, 0)))
        return found

    def check(self) -> None:
        if self.violations():
            raise AssertionError("transfer budget broken:\n" + self.report())

    def report(self) -> str:
        broken = self.violations()
        lines = [f"TransferBudget: {len(self.phases)} phase(s), {len(broken)} broken rule(s)"]
        for phase in self.phases:
            counter = self._counter(phase)
            lines.append(f"phase {phase!r} ({self.calls.get(phase, 0)} call(s)):")
            lines.extend("  " + line for line in counter.report().splitlines())
            requirement = self._requirements.get(phase)
            lines.append("  rule: " + (requirement.describe() if requirement else "none (counted only)"))
            lines.extend("  BROKEN: " + str(violation).replace("\n", "\n  ") for violation in broken if violation.phase == phase)
        return "\n".join(lines)


def _phase_violations(phase: str, requirement: _Requirement, counter: TransferCounter, calls: int) -> List[BudgetViolation]:
    found = []
    if requirement.calls is not None and calls != requirement.calls:
        found.append(BudgetViolation(phase, f"expected {requirement.calls} call(s), counted {calls}"))
    for kind in KINDS:
        events = tuple(counter.of_kind(kind))
        if not events:
            continue
        if kind not in requirement.allow:
            if kind not in requirement.ignore:
                found.append(BudgetViolation(phase, f"{kind} is not allowed ({len(events)} event(s))", events))
            continue
        found.extend(_limit_violations(phase, kind, events, requirement.allow[kind]))
    return found


def _limit_violations(phase: str, kind: str, events: Tuple[TransferEvent, ...], limits: Dict[str, Any]) -> List[BudgetViolation]:
    found = []
    if "max_count" in limits and len(events) > limits["max_count"]:
        found.append(BudgetViolation(phase, f"{kind}: {len(events)} event(s), at most {limits['max_count']} allowed", events))
    if "max_nbytes" in limits:
        too_big = tuple(event for event in events if event.nbytes > limits["max_nbytes"])
        if too_big:
            found.append(BudgetViolation(phase, f"{kind}: {len(too_big)} event(s) over {limits['max_nbytes']} bytes each", too_big))
    if "max_total_bytes" in limits:
        total = sum(event.nbytes for event in events)
        if total > limits["max_total_bytes"]:
            found.append(BudgetViolation(phase, f"{kind}: {total} bytes in all, at most {limits['max_total_bytes']} allowed", events))
    for field in ("blocking", "implicit"):
        if field in limits:
            wrong = tuple(event for event in events if getattr(event, field) != bool(limits[field]))
            if wrong:
                found.append(BudgetViolation(phase, f"{kind}: {len(wrong)} event(s) with {field}={not limits[field]}", wrong))
    return found
