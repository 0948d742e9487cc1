"""meshioplusplus.profiling: counting meshio++'s host<->device copies, and budgets over them.

The transfer contract is checked against the fake CuPy (meshioplusplus.testing.fake_cupy):
what meshio++ reports must match what the fake saw, event for event. The same contract on a
real device is in tests/python/test_gpu.py.
"""

import inspect
import pathlib
import re
import warnings

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import InteropWarning, Region, RegionKind, profiling
from meshioplusplus._gpu import _to_device_payload
from meshioplusplus.profiling import TransferBudget, TransferCounter, assert_no_transfers, count_transfers
from meshioplusplus.testing import fake_cupy

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def sample_mesh():
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1]], dtype=np.float64)
    return mio.Mesh(
        points,
        [("triangle", np.array([[0, 1, 2], [0, 2, 3]])), ("quad", np.array([[0, 1, 5, 4]]))],
        point_data={"T": np.linspace(0.0, 1.0, 6), "id": np.arange(6, dtype=np.int32)},
        cell_data={"area": [np.array([0.5, 0.5]), np.array([1.0])]},
        regions=[
            Region("corner", RegionKind.POINT, 0, 1, np.array([0, 4])),
            Region("inlet", RegionKind.SIDE, 1, 3, np.array([[0, 0], [2, 3]])),
            Region("nothing", RegionKind.CELL, 2, 4, np.array([], dtype=np.int64)),  # an empty array travels too
        ],
    )


def ragged_mesh():
    """triangle | ragged polygon | quad: the polygon block is dropped, so payload indices shift."""
    return mio.Mesh(
        np.random.default_rng(1).random((6, 3)),
        [("triangle", np.array([[0, 1, 2]])), ("polygon", [np.array([0, 1, 2, 3]), np.array([1, 2, 3])]),
         ("quad", np.array([[0, 1, 4, 5]]))],
        cell_data={"c": [np.array([1.0]), np.array([2.0, 3.0]), np.array([4.0])]},
    )  # fmt: skip


def this_line(offset=0):
    """``file:line`` of the caller's line (+ offset): what events must name as their site."""
    frame = inspect.currentframe().f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno + offset}"


def host_arrays(mesh):
    return list(_to_device_payload(mesh).named_arrays())


@pytest.fixture(autouse=True)
def nothing_left_active():
    yield
    assert profiling._active == [], "a counter or budget stayed active after its block"


# --- the transfer contract ------------------------------------------------------------------


def test_to_cupy_records_one_to_device_per_array_then_one_sync():
    mesh = sample_mesh()
    expected = host_arrays(mesh)
    with fake_cupy.installed() as cp:
        with count_transfers() as counter:
            site = this_line(1)
            gpu = mio.to_cupy(mesh)
        # 'nothing else': exactly len(arrays) to_device events, in payload order, then one sync.
        assert [e.kind for e in counter.events] == ["to_device"] * len(expected) + ["sync"]
        uploads = counter.of_kind("to_device")
        assert [e.array for e in uploads] == [name for name, _ in expected]
        assert [e.nbytes for e in uploads] == [array.nbytes for _, array in expected]
        assert counter.bytes_to_device == sum(array.nbytes for _, array in expected)
        assert all(e.blocking for e in uploads)  # pageable sources: taken before set() returns
        assert {e.site for e in counter.events} == {site}
        assert {e.operation for e in counter.events} == {"to_cupy"}
        assert counter.total == len(expected) and counter.syncs == 1 and counter.to_host == 0
        # what meshio++ reports is what the fake saw
        assert counter.to_device == cp.log.count_of("to_device")
        assert counter.bytes_to_device == cp.log.bytes_of("to_device")
        assert gpu.device == (2, 0)


def test_to_cupy_pinned_adds_one_staging_copy_per_nonempty_array():
    mesh = sample_mesh()
    expected = host_arrays(mesh)
    with fake_cupy.installed(), count_transfers() as counter:
        mio.to_cupy(mesh, pinned=True)
    nonempty = [name for name, array in expected if array.nbytes]
    assert [e.array for e in counter.of_kind("host_staging")] == nonempty
    assert counter.to_device == len(expected) and counter.syncs == 1 and counter.to_host == 0
    staged_uploads = [e for e in counter.of_kind("to_device") if e.nbytes]
    assert all(not e.blocking for e in staged_uploads)  # DMA from page-locked memory runs on
    kinds = [e.kind for e in counter.events]
    assert kinds[-1] == "sync"
    for name in nonempty:  # each staging copy comes right before its upload
        staging = next(i for i, e in enumerate(counter.events) if e.kind == "host_staging" and e.array == name)
        assert counter.events[staging + 1].kind == "to_device" and counter.events[staging + 1].array == name


def test_to_cupy_on_a_caller_stream_records_no_sync():
    with fake_cupy.installed() as cp, count_transfers() as counter:
        stream = cp.cuda.Stream(non_blocking=True)
        gpu = mio.to_cupy(sample_mesh(), pinned=True, stream=stream)  # refs keep staging alive
        stream.synchronize()  # the caller's own wait: not meshio++'s, not counted
        del gpu
    assert counter.syncs == 0 and counter.to_device == len(host_arrays(sample_mesh()))


def test_from_cupy_records_one_to_host_per_device_array():
    mesh = sample_mesh()
    with fake_cupy.installed() as cp:
        gpu = mio.to_cupy(mesh)
        cp.log.clear()
        with count_transfers() as counter, pytest.warns(InteropWarning):
            mio.from_cupy(gpu)
        needed = [name for name, _ in gpu.named_arrays() if name != "block_bases"]
        assert [e.kind for e in counter.events] == ["to_host"] * len(needed)
        assert [e.array for e in counter.events] == needed
        assert [e.nbytes for e in counter.events] == [a.nbytes for n, a in gpu.named_arrays() if n != "block_bases"]
        assert counter.bytes_to_host == cp.log.bytes_of("to_host")


def test_host_paths_record_nothing():
    mesh = sample_mesh()
    with count_transfers() as counter:
        payload = mio.to_dlpack(mesh)
        mio.from_cupy(payload)
        np.from_dlpack(payload.points)
    assert counter.events == []


def test_events_name_arrays_as_the_mesh_does_after_ragged_drops():
    with fake_cupy.installed(), count_transfers() as counter, pytest.warns(InteropWarning):
        mio.to_cupy(ragged_mesh())
    names = [e.array for e in counter.of_kind("to_device")]
    # payload block 1 is the mesh's block 2: events use the mesh's index
    assert names == ["points", "cells[0]", "cells[2]", "block_bases", "cell_data['c'][0]", "cell_data['c'][2]"]


def test_strided_device_array_gets_a_counted_device_copy_before_its_host_copy():
    with fake_cupy.installed() as cp:
        device = cp.asarray(np.arange(24.0).reshape(4, 6))[:, ::2]  # a strided view on the device
        duck = type("Payload", (), {"points": device, "cells": []})()
        with count_transfers() as counter, pytest.warns(InteropWarning):
            back = mio.from_cupy(duck)
    assert [(e.kind, e.array) for e in counter.events] == [("device_copy", "points"), ("to_host", "points")]
    np.testing.assert_array_equal(back.points, np.arange(24.0).reshape(4, 6)[:, ::2])


# --- the counter ------------------------------------------------------------------------------


def test_counting_nests_and_accumulates():
    mesh = sample_mesh()
    n = len(host_arrays(mesh))
    with fake_cupy.installed():
        with count_transfers() as outer:
            mio.to_cupy(mesh)
            with count_transfers() as inner:
                mio.to_cupy(mesh)
        assert inner.to_device == n and outer.to_device == 2 * n
        accumulated = TransferCounter()
        for _ in range(3):
            with count_transfers(accumulated) as same:
                assert same is accumulated
                mio.to_cupy(mesh)
        assert accumulated.to_device == 3 * n and accumulated.syncs == 3


def test_count_transfers_as_a_decorator():
    mesh = sample_mesh()

    @count_transfers()
    def upload():
        return mio.to_cupy(mesh)

    with fake_cupy.installed():
        upload()
        upload()
    assert upload.transfers.to_device == 2 * len(host_arrays(mesh))
    assert upload.transfers.syncs == 2


def test_a_counter_active_twice_counts_each_event_once():
    counter = TransferCounter()
    with fake_cupy.installed(), count_transfers(counter), count_transfers(counter):
        mio.to_cupy(sample_mesh())
    assert counter.to_device == len(host_arrays(sample_mesh()))


def test_counting_stops_after_an_exception():
    with pytest.raises(RuntimeError), count_transfers():
        raise RuntimeError("boom")
    assert profiling._active == []


def test_an_idle_counter_costs_one_truth_test(monkeypatch):
    # Nothing is even constructed when nobody counts: the recorder must not be reached.
    import meshioplusplus._gpu as gpu

    def unreachable(*args, **kwargs):
        raise AssertionError("recorded while nobody counts")

    import meshioplusplus._mirror as mirror

    monkeypatch.setattr(gpu, "_record", unreachable)
    monkeypatch.setattr(mirror, "_record", unreachable)
    with fake_cupy.installed(), warnings.catch_warnings():
        warnings.simplefilter("ignore", InteropWarning)
        mio.from_cupy(mio.to_cupy(sample_mesh(), pinned=True))
        pair = mio.DeviceMirror(sample_mesh())
        pair.to_device()
        pair.to_host()
    # the very list, so each module's truth test sees the live state
    assert gpu._counting is profiling._active and mirror._counting is profiling._active


def test_sites_point_at_the_users_line_through_nested_public_calls():
    with fake_cupy.installed(), count_transfers() as counter:
        site = this_line(1)
        mio.to_xp(sample_mesh(), __import__("cupy"))
    assert {e.site for e in counter.events} == {site}


def test_implicit_scalar_reads_of_the_fake_are_counted_as_implicit():
    with fake_cupy.installed() as cp:
        value = cp.asarray(np.array([2.5]))
        with count_transfers() as counter:
            assert float(value) == 2.5
    assert [(e.kind, e.implicit) for e in counter.events] == [("to_host", True), ("sync", True)]
    assert "[implicit]" in counter.report()


def test_report_groups_by_call_site_with_counts_and_bytes():
    mesh = sample_mesh()
    nbytes = sum(array.nbytes for _, array in host_arrays(mesh))
    with fake_cupy.installed(), count_transfers() as counter:
        for _ in range(3):
            site = this_line(1)
            mio.to_cupy(mesh)
    report = counter.report()
    first = report.splitlines()[0]
    assert first.startswith(f"{3 * len(host_arrays(mesh))} transfer(s) through meshio++")
    assert f"{site}: to_cupy x{3 * len(host_arrays(mesh))}" in report
    assert "points x3" in report
    assert f"{site}: to_cupy x{3 * len(host_arrays(mesh))}, {profiling._size(3 * nbytes)} [points x3" in report
    assert f"{site}: to_cupy x3\n" in report + "\n"  # the three syncs, one line


def test_unknown_kinds_are_refused():
    with pytest.raises(ValueError, match="unknown transfer kind"):
        TransferCounter().count("to_gpu")


# --- assert_no_transfers ------------------------------------------------------------------------


def test_assert_no_transfers_fails_with_the_report():
    with fake_cupy.installed():
        with pytest.raises(AssertionError) as info, assert_no_transfers():
            site = this_line(1)
            mio.to_cupy(sample_mesh())
    text = str(info.value)
    assert "forbidden" in text and site in text and "to_device" in text


def test_assert_no_transfers_allows_device_work_and_is_a_decorator():
    with fake_cupy.installed():
        gpu = mio.to_cupy(sample_mesh())

        @assert_no_transfers()
        def step():
            gpu.point_data["T"] *= 2.0  # stays on the device

        step()
        with assert_no_transfers():
            step()


def test_assert_no_transfers_lets_the_blocks_own_error_through():
    with pytest.raises(KeyError), assert_no_transfers():
        raise KeyError("mine")


# --- budgets -------------------------------------------------------------------------------------


def run_steps(budget, gpu, steps, *, leak_every=None):
    """A toy time loop: device work per step; the output phase copies back; optionally a leak."""
    for step in range(steps):
        with budget.phase("step"):
            gpu.point_data["T"] *= 1.0
            if leak_every and step % leak_every == 0:
                mio.from_cupy(gpu)  # the bug a budget is for: a copy inside the loop
    with budget.phase("output"):
        return mio.from_cupy(gpu)


def test_budget_passes_when_the_rules_hold():
    with fake_cupy.installed(), warnings.catch_warnings():
        warnings.simplefilter("ignore", InteropWarning)
        gpu = mio.to_cupy(sample_mesh())
        budget = TransferBudget()
        run_steps(budget, gpu, 5)
    budget.require("step", allow={}, calls=5)
    budget.require("output", allow={"to_host": {"max_count": 20, "max_total_bytes": 10_000, "blocking": True}})
    assert budget.violations() == []
    budget.check()
    assert budget.calls["step"] == 5 and budget["output"].to_host == len(list(gpu.named_arrays())) - 1
    assert "phase 'step' (5 call(s))" in budget.report()


def test_budget_catches_a_copy_in_the_loop_and_reports_where():
    with fake_cupy.installed(), warnings.catch_warnings():
        warnings.simplefilter("ignore", InteropWarning)
        gpu = mio.to_cupy(sample_mesh())
        budget = TransferBudget()
        run_steps(budget, gpu, 4, leak_every=2)
    budget.require("step", allow={}, calls=4)
    (violation,) = budget.violations()
    assert violation.phase == "step" and "to_host is not allowed" in violation.rule
    copied_per_leak = len(list(gpu.named_arrays())) - 1  # all but block_bases
    assert all(e.kind == "to_host" for e in violation.events) and len(violation.events) == 2 * copied_per_leak
    with pytest.raises(AssertionError) as info:
        budget.check()
    leak_line = inspect.getsource(run_steps).splitlines().index("                mio.from_cupy(gpu)  # the bug a budget is for: a copy inside the loop")
    site = f"{__file__}:{run_steps.__code__.co_firstlineno + leak_line}"
    assert "BROKEN: phase 'step'" in str(info.value) and site in str(info.value)


def test_budget_limits_count_size_total_blocking_and_calls():
    with fake_cupy.installed(), warnings.catch_warnings():
        warnings.simplefilter("ignore", InteropWarning)
        gpu = mio.to_cupy(sample_mesh())
        budget = TransferBudget()
        with budget.phase("out"):
            mio.from_cupy(gpu)
    rules = {"max_count": 2, "max_nbytes": 40, "max_total_bytes": 100, "blocking": False}
    budget.require("out", allow={"to_host": rules}, calls=3)
    broken = " | ".join(v.rule for v in budget.violations())
    assert "expected 3 call(s), counted 1" in broken
    assert "at most 2 allowed" in broken
    assert "over 40 bytes each" in broken
    assert "bytes in all, at most 100 allowed" in broken
    assert "with blocking=True" in broken


def test_budget_phases_nest_innermost_only_and_decorate():
    budget = TransferBudget()

    @budget.phase("upload")
    def upload(mesh):
        return mio.to_cupy(mesh)

    with fake_cupy.installed():
        with budget.phase("setup") as setup:
            gpu = upload(sample_mesh())
        assert setup is budget["setup"]
    assert budget["setup"].events == [] and budget["upload"].to_device == len(list(gpu.named_arrays()))
    assert budget.calls["upload"] == 1 and budget.calls["setup"] == 1


def test_budget_counts_only_while_started():
    budget = TransferBudget(started=False)
    with fake_cupy.installed():
        with budget.phase("p"):
            mio.to_cupy(sample_mesh())
        budget.start()
        with budget.phase("p"):
            mio.to_cupy(sample_mesh())
        budget.stop()
        with budget.phase("p"):
            mio.to_cupy(sample_mesh())
    assert budget.calls["p"] == 1 and budget["p"].syncs == 1


def test_budget_implicit_rule_rejects_scalar_reads_of_the_fake():
    budget = TransferBudget()
    with fake_cupy.installed() as cp:
        residual = cp.asarray(np.array([1e-3]))
        with budget.phase("solve"):
            float(residual)  # an implicit sync per iteration: the second classic GPU bug
    budget.require("solve", allow={"to_host": {"max_nbytes": 8}, "sync": {"implicit": False}}, ignore=("device_copy",))
    rules = [v.rule for v in budget.violations()]
    assert rules == ["sync: 1 event(s) with implicit=True"]


def test_budget_rules_are_validated():
    budget = TransferBudget()
    with pytest.raises(ValueError, match="unknown transfer kind"):
        budget.require("p", allow={"to_gpu": {}})
    with pytest.raises(ValueError, match="unknown limit"):
        budget.require("p", allow={"to_host": {"max_bytes": 1}})
    budget.require("never", allow={}, calls=0)
    assert budget.violations() == []


# --- the worked example in docs/transfers.md runs as printed --------------------------------------


def test_docs_transfers_example_fails_its_budget_as_documented():
    text = (DOCS / "transfers.md").read_text()
    example = re.search(r"<!-- example:budget -->\s*```python\n(.*?)```", text, re.S).group(1)
    namespace = {"__name__": "transfers_example"}
    with pytest.raises(AssertionError) as info:
        exec(compile(example, "transfers_example.py", "exec"), namespace)
    report = str(info.value)
    assert "transfer budget broken" in report and "BROKEN: phase 'step'" in report
    shown = re.search(r"<!-- output:budget -->\s*```text\n(.*?)```", text, re.S).group(1)
    # The pasted output is this very report (paths aside).
    assert _without_paths(report).strip() == _without_paths(shown).strip()


def _without_paths(report):
    return re.sub(r"\S*transfers_example\.py:\d+", "<site>", report)
