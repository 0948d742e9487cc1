"""DeviceMirror against the fake CuPy: in-place copies both ways, host identity, dtype opt-ins
undone on the way back, the asynchronous path, and every copy counted.

The same on a real device: tests/python/test_gpu.py.
"""

import gc
import sys
import warnings

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import InteropError, InteropWarning, Region, RegionKind
from meshioplusplus.profiling import count_transfers
from meshioplusplus.testing import fake_cupy


def sample_mesh():
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1]], dtype=np.float64)
    return mio.Mesh(
        points,
        [("triangle", np.array([[0, 1, 2], [0, 2, 3]])), ("quad", np.array([[0, 1, 5, 4]]))],
        point_data={"T": np.linspace(0.0, 1.0, 6), "flag": np.array([True, False] * 3)},
        cell_data={"area": [np.array([0.5, 0.5]), np.array([1.0])]},
        regions=[
            Region("corner", RegionKind.POINT, 0, 1, np.array([0, 4])),
            Region("inlet", RegionKind.SIDE, 1, 3, np.array([[0, 0], [2, 3]])),
        ],
    )


MIRRORED = [
    "points", "cells[0]", "cells[1]", "point_data['T']", "point_data['flag']",
    "cell_data['area'][0]", "cell_data['area'][1]", "region 'corner' (point)", "region 'inlet' (side)",
]  # fmt: skip


@pytest.fixture
def cp():
    with fake_cupy.installed() as fake, warnings.catch_warnings():
        warnings.simplefilter("ignore", InteropWarning)  # bool->uint8 is noted; tests check notes themselves
        yield fake


def identities(mesh):
    return {
        "points": id(mesh.points),
        "cells": [id(block.data) for block in mesh.cells],
        "point_data": {k: id(v) for k, v in mesh.point_data.items()},
        "cell_data": {k: [id(a) for a in v] for k, v in mesh.cell_data.items()},
        "regions": [id(r.entries) for r in mesh.regions],
    }


def test_to_host_copies_into_the_meshs_own_arrays(cp):
    mesh = sample_mesh()
    before = identities(mesh)
    mirror = mio.DeviceMirror(mesh)
    assert list(mirror.names) == MIRRORED
    device_points = mirror.device.points  # the payload is frozen: work on the arrays it holds
    mirror.device.point_data["T"] *= 2.0
    device_points += 1.0
    with count_transfers() as counter:
        returned = mirror.to_host()
    assert returned is mesh and identities(mesh) == before
    np.testing.assert_array_equal(mesh.point_data["T"], 2.0 * np.linspace(0.0, 1.0, 6))
    np.testing.assert_array_equal(mesh.points[0], [1.0, 1.0, 1.0])
    assert mesh.point_data["flag"].dtype == np.bool_ and mesh.point_data["flag"].tolist() == [True, False] * 3
    assert [e.kind for e in counter.events] == ["to_host"] * len(MIRRORED)
    assert [e.array for e in counter.events] == MIRRORED
    assert all(e.blocking and e.operation == "DeviceMirror.to_host" for e in counter.events)
    assert counter.bytes_to_host == sum(array.nbytes for name, array in mirror.device.named_arrays() if name != "block_bases")


def test_to_host_of_some_arrays_only(cp):
    mesh = sample_mesh()
    mirror = mio.DeviceMirror(mesh)
    device_points = mirror.device.points
    device_points *= 0.0
    mirror.device.point_data["T"] *= 0.0
    with count_transfers() as counter:
        mirror.to_host(["point_data['T']"])
    assert counter.to_host == 1
    assert mesh.point_data["T"].tolist() == [0.0] * 6 and mesh.points[1, 0] == 1.0  # points not copied back
    with pytest.raises(KeyError, match="not mirrored"):
        mirror.to_host(["T"])
    assert mirror.to_host("points") is mesh  # one name as a plain string


def test_dtype_opt_ins_are_undone_on_the_way_back(cp):
    mesh = sample_mesh()
    with pytest.warns(InteropWarning, match="to_host casts back"):
        mirror = mio.DeviceMirror(mesh, float32=True, int32=True)
    assert mirror.device.points.dtype == np.float32 and mirror.device.cells[0].data.dtype == np.int32
    assert any("points (float32 -> float64)" in note for note in mirror.notes)
    assert any("cells[0] (int32 -> int64)" in note for note in mirror.notes)
    mirror.device.point_data["T"] += 0.5
    connectivity = mirror.device.cells[0].data
    connectivity += 1
    with count_transfers() as counter:
        mirror.to_host()
    assert mesh.points.dtype == np.float64 and mesh.cells[0].data.dtype == np.int64
    np.testing.assert_allclose(mesh.point_data["T"], np.linspace(0.0, 1.0, 6) + 0.5, rtol=1e-6)
    assert mesh.cells[0].data.tolist() == [[1, 2, 3], [1, 3, 4]]
    # the narrower bytes are what crossed the bus
    points_event = next(e for e in counter.events if e.array == "points")
    assert points_event.nbytes == mesh.points.size * 4


def test_arrays_the_policy_copied_are_still_written_back_in_place(cp):
    mesh = sample_mesh()
    mesh.points = np.asfortranarray(mesh.points)  # the payload ships a C-ordered copy
    mesh.point_data["T"] = mesh.point_data["T"].astype(">f8")  # and a native-order copy
    fortran, big_endian = mesh.points, mesh.point_data["T"]
    mirror = mio.DeviceMirror(mesh)
    device_points = mirror.device.points
    device_points *= 3.0
    mirror.device.point_data["T"] += 1.0
    mirror.to_host()
    assert mesh.points is fortran and mesh.points.flags.f_contiguous
    assert mesh.point_data["T"] is big_endian and mesh.point_data["T"].dtype == np.dtype(">f8")
    np.testing.assert_array_equal(mesh.points, 3.0 * sample_mesh().points)
    np.testing.assert_array_equal(mesh.point_data["T"], np.linspace(0.0, 1.0, 6) + 1.0)


def test_to_device_refreshes_the_device_arrays_in_place(cp):
    mesh = sample_mesh()
    mirror = mio.DeviceMirror(mesh)
    device_points = mirror.device.points
    mesh.points[:] = 7.0
    mesh.point_data["flag"][:] = True
    with count_transfers() as counter:
        payload = mirror.to_device(["points", "point_data['flag']"])
    assert payload is mirror.device and mirror.device.points is device_points
    assert device_points.get().tolist() == [[7.0] * 3] * 6
    assert mirror.device.point_data["flag"].get().tolist() == [1] * 6
    assert [e.kind for e in counter.events] == ["to_device", "to_device", "sync"]
    assert [e.array for e in counter.events[:2]] == ["points", "point_data['flag']"]


def test_to_device_with_pinned_stages_and_with_a_stream_defers_the_wait(cp):
    mesh = sample_mesh()
    stream = cp.cuda.Stream(non_blocking=True)
    mirror = mio.DeviceMirror(mesh, pinned=True, stream=stream)
    stream.synchronize()
    mesh.point_data["T"][:] = 5.0
    with count_transfers() as counter:
        mirror.to_device(["point_data['T']"])
        assert counter.syncs == 0 and stream.pending_copies() == 1
        gc.collect()  # the staging buffer must survive: the mirror keeps it until a sync
        mirror.synchronize()
    assert [e.kind for e in counter.events] == ["host_staging", "to_device", "sync"]
    assert mirror.device.point_data["T"].get().tolist() == [5.0] * 6
    assert mirror.device.refs == ()  # the mirror, not its payload, held the staging buffers ...
    gc.collect()
    assert cp.live_pinned_buffers() == 0  # ... and let them go at the sync


def test_to_device_range_checks_int32_indices_again(cp):
    mesh = sample_mesh()
    mirror = mio.DeviceMirror(mesh, int32=True)
    mesh.cells[1].data[0, 0] = 2**31
    with count_transfers() as counter, pytest.raises(InteropError, match=r"cells\[1\].*does not fit in int32"):
        mirror.to_device()
    assert counter.events == []  # every check runs before any copy


def test_async_to_host_lands_on_result(cp):
    mesh = sample_mesh()
    mirror = mio.DeviceMirror(mesh)
    mirror.device.point_data["T"] *= 10.0
    with count_transfers() as counter:
        pending = mirror.to_host(["point_data['T']", "points"], blocking=False)
        assert [(e.kind, e.blocking) for e in counter.events] == [("to_host", False), ("to_host", False)]
        assert mesh.point_data["T"][1] == 0.2  # nothing written into the mesh yet
        assert pending.ready()  # the fake lands copies at once; a GPU may not be done yet
        assert pending.result() is mesh
        assert pending.result() is mesh  # a second call costs nothing
    assert [e.kind for e in counter.events[2:]] == ["sync", "host_staging", "host_staging"]
    sync = counter.events[2]
    assert sync.operation == "PendingHostCopy.result" and not sync.blocking  # it did not have to wait
    np.testing.assert_allclose(mesh.point_data["T"], 10.0 * np.linspace(0.0, 1.0, 6))
    del pending
    gc.collect()
    assert cp.live_pinned_buffers() == 0  # the landing buffers went back


def test_async_to_host_is_ordered_after_work_on_the_mirrors_stream(cp):
    mesh = sample_mesh()
    stream = cp.cuda.Stream(non_blocking=True)
    mirror = mio.DeviceMirror(mesh, pinned=True, stream=stream)  # uploads still queued on the stream
    mirror.device.points  # nothing has landed yet: the fake holds the copies until a sync or an event wait
    pending = mirror.to_host(["points"], blocking=False)
    np.testing.assert_array_equal(pending.result().points, sample_mesh().points)


def test_async_to_host_casts_back_opt_in_dtypes(cp):
    mesh = sample_mesh()
    mirror = mio.DeviceMirror(mesh, float32=True)
    device_points = mirror.device.points
    device_points += 0.25
    mirror.to_host(["points"], blocking=False).result()
    assert mesh.points.dtype == np.float64
    np.testing.assert_allclose(mesh.points, sample_mesh().points + 0.25)


def test_misuse_is_refused_before_copying(cp):
    mesh = sample_mesh()
    mirror = mio.DeviceMirror(mesh)
    mesh.point_data["T"] = np.zeros(6)  # rebound: the mirror would write into the old array
    with pytest.raises(RuntimeError, match="different array"):
        mirror.to_host()
    mesh = sample_mesh()
    mirror = mio.DeviceMirror(mesh)
    mesh.points.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        mirror.to_host(["points"])
    mesh = sample_mesh()
    mirror = mio.DeviceMirror(mesh)
    mesh.cells[0].data = mesh.cells[0].data[:1]
    with pytest.raises(RuntimeError, match="different array"):
        mirror.to_device(["cells[0]"])


def test_resized_arrays_need_a_new_mirror(cp):
    mesh = sample_mesh()
    mesh.point_data["T"] = np.linspace(0.0, 1.0, 6).copy()  # owns its memory, so it can be resized
    mirror = mio.DeviceMirror(mesh)
    mesh.point_data["T"].resize(3, refcheck=False)  # same object, new shape
    with pytest.raises(ValueError, match="build a new one"):
        mirror.to_device(["point_data['T']"])


def test_ragged_meshes_mirror_with_mesh_names(cp):
    mesh = mio.Mesh(
        np.random.default_rng(2).random((6, 3)),
        [("triangle", np.array([[0, 1, 2]])), ("polygon", [np.array([0, 1, 2, 3]), np.array([1, 2, 3])]),
         ("quad", np.array([[0, 1, 4, 5]]))],
        cell_data={"c": [np.array([1.0]), np.array([2.0, 3.0]), np.array([4.0])]},
        regions=[Region("vol", RegionKind.CELL, 2, 1, np.array([0, 3])), Region("p", RegionKind.POINT, 0, 2, np.array([5]))],
    )  # fmt: skip
    with pytest.warns(InteropWarning, match="not mirrored back"):
        mirror = mio.DeviceMirror(mesh)
    assert list(mirror.names) == ["points", "cells[0]", "cells[2]", "cell_data['c'][0]", "cell_data['c'][2]", "region 'p' (point)"]
    values = mirror.device.cell_data["c"][1]  # payload block 1 is the mesh's block 2
    values *= 2.0
    mirror.to_host(["cell_data['c'][2]"])
    assert mesh.cell_data["c"][2].tolist() == [8.0] and mesh.cell_data["c"][1].tolist() == [2.0, 3.0]


def test_mirror_without_cupy_names_the_wheels(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(ImportError, match="cupy-cuda13x"):
        mio.DeviceMirror(sample_mesh())


def test_the_host_mesh_can_be_written_right_after_to_host(cp, tmp_path):
    mesh = sample_mesh()
    del mesh.point_data["flag"]
    mirror = mio.DeviceMirror(mesh)
    mirror.device.point_data["T"] += 1.0
    mio.write(tmp_path / "m.vtu", mirror.to_host())
    np.testing.assert_allclose(mio.read(tmp_path / "m.vtu").point_data["T"], np.linspace(1.0, 2.0, 6))
