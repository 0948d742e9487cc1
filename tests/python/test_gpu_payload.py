"""The GPU handoff without a GPU: the pure payload builder, the DLPack host round trip,
from_cupy's host paths, install errors, predicates, and to_cupy/from_cupy against the fake
CuPy (meshioplusplus.testing.fake_cupy), which counts every transfer.

The real-device suite is tests/python/test_gpu.py.
"""

import gc
import os
import re
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import InteropError, InteropWarning, Region, RegionKind
from meshioplusplus._gpu import _to_device_payload
from meshioplusplus._regions import block_bases
from meshioplusplus.testing import fake_cupy

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(mio.__file__)))
WHEEL_NAMES = ("cupy-cuda13x", "cupy-cuda12x", "cupy-cuda11x", "cupy-rocm-")


# --- meshes -------------------------------------------------------------------------------


def rectangular_mesh():
    """Two rectangular blocks, per-block cell data of differing component shapes, every region kind."""
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1]], dtype=np.float64)
    return mio.Mesh(
        points,
        [("triangle", np.array([[0, 1, 2], [0, 2, 3]])), ("quad", np.array([[0, 1, 5, 4]]))],
        point_data={"T": np.linspace(0.0, 1.0, 6), "id": np.arange(6, dtype=np.int32)},
        cell_data={
            "area": [np.array([0.5, 0.5]), np.array([1.0])],
            "grad": [np.ones((2, 3)), np.full((1, 3), 2.0)],
        },
        field_data={"inlet": np.array([1, 2]), "title": np.array(["bracket"])},
        regions=[
            Region("corner", RegionKind.POINT, 0, 1, np.array([0, 4])),
            Region("wall", RegionKind.CELL, 2, 2, np.array([1, 2])),
            Region("edge", RegionKind.SIDE, 1, 3, np.array([[0, 0], [2, 3]])),
        ],
    )


def mixed_mesh():
    """triangle(2) | ragged polygon(2) | quad(1) | tetra(2): the polygon block cannot travel."""
    points = np.random.default_rng(7).random((8, 3))
    return mio.Mesh(
        points,
        [
            ("triangle", np.array([[0, 1, 2], [1, 2, 3]])),
            ("polygon", [np.array([0, 1, 2, 3]), np.array([1, 2, 3])]),
            ("quad", np.array([[0, 1, 4, 5]])),
            ("tetra", np.array([[0, 1, 2, 6], [1, 2, 3, 7]])),
        ],
        point_data={"T": np.arange(8.0)},
        cell_data={"c": [np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([5.0]), np.array([6.0, 7.0])]},
        regions=[
            Region("pts", RegionKind.POINT, 0, 1, np.array([0, 7])),
            # mesh numbering: triangle 0-1, polygon 2-3, quad 4, tetra 5-6
            Region("vol", RegionKind.CELL, 3, 2, np.array([0, 2, 4, 6])),
            Region("skin", RegionKind.SIDE, 2, 3, np.array([[1, 0], [3, 2], [5, 1]])),
        ],
    )


def quiet_payload(mesh, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InteropWarning)
        return mio.to_dlpack(mesh, **options)


def assert_meshes_equal(actual, expected):
    np.testing.assert_array_equal(actual.points, expected.points)
    assert [b.type for b in actual.cells] == [b.type for b in expected.cells]
    for a, e in zip(actual.cells, expected.cells):
        np.testing.assert_array_equal(a.data, e.data)
    assert actual.point_data.keys() == expected.point_data.keys()
    for name in expected.point_data:
        np.testing.assert_array_equal(actual.point_data[name], expected.point_data[name])
    assert actual.cell_data.keys() == expected.cell_data.keys()
    for name in expected.cell_data:
        for a, e in zip(actual.cell_data[name], expected.cell_data[name]):
            np.testing.assert_array_equal(a, e)
    assert actual.regions == expected.regions


# --- the pure builder ---------------------------------------------------------------------


def test_builder_shares_canonical_arrays_and_notes_nothing():
    mesh = rectangular_mesh()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the builder itself never warns
        payload = _to_device_payload(mesh)
    assert payload.device == (1, 0)
    assert payload.notes == () and payload.dropped == () and payload.derived == () and payload.refs == ()
    assert np.shares_memory(payload.points, mesh.points)
    for record, block in zip(payload.cells, mesh.cells):
        assert np.shares_memory(record.data, block.data)
    for name in mesh.point_data:
        assert np.shares_memory(payload.point_data[name], mesh.point_data[name])
    for name in mesh.cell_data:
        for shipped, original in zip(payload.cell_data[name], mesh.cell_data[name]):
            assert np.shares_memory(shipped, original)
    for record, region in zip(payload.regions, mesh.regions):
        assert np.shares_memory(record.entries, region.entries)
    assert set(payload.shared) == {
        "points", "cells[0]", "cells[1]", "point_data['T']", "point_data['id']",
        "cell_data['area'][0]", "cell_data['area'][1]", "cell_data['grad'][0]", "cell_data['grad'][1]",
        "region 'corner' (point)", "region 'wall' (cell)", "region 'edge' (side)",
    }  # fmt: skip


def test_builder_payload_shape():
    mesh = rectangular_mesh()
    payload = _to_device_payload(mesh)
    assert [(c.type, c.data.shape) for c in payload.cells] == [("triangle", (2, 3)), ("quad", (1, 4))]
    cell_type, data = payload.cells[0]  # records unpack as (type, connectivity) pairs
    assert cell_type == "triangle" and data is payload.cells[0].data
    np.testing.assert_array_equal(payload.block_bases, block_bases(mesh.cells))
    assert payload.block_bases.dtype == np.int64
    # cell_data stays per block, each block keeping its own component shape
    assert isinstance(payload.cell_data["grad"], tuple)
    assert [a.shape for a in payload.cell_data["grad"]] == [(2, 3), (1, 3)]
    assert [(r.name, r.kind, r.dim, r.tag) for r in payload.regions] == [
        ("corner", RegionKind.POINT, 0, 1), ("wall", RegionKind.CELL, 2, 2), ("edge", RegionKind.SIDE, 1, 3),
    ]  # fmt: skip
    assert all(isinstance(r.kind, RegionKind) for r in payload.regions)
    assert payload.regions[2].entries.shape == (2, 2)
    assert payload.field_data["title"] is mesh.field_data["title"]  # host passthrough, same object
    names = [name for name, _ in payload.named_arrays()]
    assert names[:4] == ["points", "cells[0]", "cells[1]", "block_bases"]


def _snapshot(mesh):
    return {
        "points": (mesh.points.copy(), mesh.points.dtype, id(mesh.points)),
        "cells": [(b.type, b.data.copy() if isinstance(b.data, np.ndarray) else list(b.data), id(b.data)) for b in mesh.cells],
        "point_data": {k: (v.copy(), id(v)) for k, v in mesh.point_data.items()},
        "cell_data": {k: [(a.copy(), id(a)) for a in v] for k, v in mesh.cell_data.items()},
        "regions": [(r.name, r.kind, r.entries.copy(), id(r.entries)) for r in mesh.regions],
        "field_data": dict(mesh.field_data),
    }


def test_builder_mutates_nothing():
    mesh = mixed_mesh()
    mesh.point_data["flag"] = np.array([True, False] * 4)
    before = _snapshot(mesh)
    _to_device_payload(mesh, float32=True, int32=True)
    after = _snapshot(mesh)
    np.testing.assert_array_equal(after["points"][0], before["points"][0])
    assert after["points"][1:] == before["points"][1:]
    assert [c[0] for c in after["cells"]] == [c[0] for c in before["cells"]]
    assert [c[2] for c in after["cells"]] == [c[2] for c in before["cells"]]
    for name, (values, identity) in before["point_data"].items():
        np.testing.assert_array_equal(mesh.point_data[name], values)
        assert id(mesh.point_data[name]) == identity
    assert mesh.point_data["flag"].dtype == np.bool_
    for (name, kind, entries, identity), region in zip(before["regions"], mesh.regions):
        assert (region.name, region.kind, id(region.entries)) == (name, kind, identity)
        np.testing.assert_array_equal(region.entries, entries)
    assert after["field_data"] == before["field_data"]


def test_ragged_blocks_are_dropped_and_regions_renumbered():
    mesh = mixed_mesh()
    payload = _to_device_payload(mesh)
    assert [c.type for c in payload.cells] == ["triangle", "quad", "tetra"]
    assert payload.dropped == ("cells[1]", "cell_data['c'][1]")
    np.testing.assert_array_equal(payload.block_bases, [0, 2, 3, 5])
    np.testing.assert_array_equal(payload.block_bases, block_bases(payload.cells))
    assert [a.tolist() for a in payload.cell_data["c"]] == [[1.0, 2.0], [5.0], [6.0, 7.0]]
    regions = {r.name: r.entries for r in payload.regions}
    np.testing.assert_array_equal(regions["pts"], [0, 7])  # point regions are not renumbered
    # mesh cells 0, 4, 6 -> payload cells 0, 2, 4; mesh cell 2 lay in the polygon block
    np.testing.assert_array_equal(regions["vol"], [0, 2, 4])
    np.testing.assert_array_equal(regions["skin"], [[1, 0], [3, 1]])
    assert any("cells[1] (polygon)" in note and "dropped" in note for note in payload.notes)
    assert any("region 'vol' (cell): 1 entry" in note for note in payload.notes)
    assert any("region 'skin' (side): 1 entry" in note for note in payload.notes)
    # renumbering is a data-model fact, not a loss: derived, never a note
    assert any("region 'vol' (cell)" in fact and "renumbered" in fact for fact in payload.derived)
    assert any("block_bases" in fact for fact in payload.derived)
    assert not any("renumbered" in note for note in payload.notes)
    assert "region 'vol' (cell)" not in payload.shared


def test_ragged_drop_without_entries_in_the_dropped_block():
    mesh = mixed_mesh()
    mesh.regions[1] = Region("vol", RegionKind.CELL, 3, 2, np.array([5, 6]))
    payload = _to_device_payload(mesh)
    np.testing.assert_array_equal(payload.regions[1].entries, [3, 4])
    assert not any("region 'vol'" in note for note in payload.notes)


def test_warnings_carry_notes_but_never_derived_facts():
    mesh = mixed_mesh()
    with pytest.warns(InteropWarning) as record:
        payload = mio.to_dlpack(mesh)
    assert len(record) == 1
    warning = record[0].message
    assert warning.notes == payload.notes
    for fact in payload.derived:
        assert fact not in str(warning)
    assert record[0].filename == __file__  # points at the caller, not at _gpu.py


def test_clean_mesh_exports_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mio.to_dlpack(rectangular_mesh())


def test_float32_opt_in_casts_every_float_array_only():
    mesh = rectangular_mesh()
    payload = _to_device_payload(mesh, float32=True)
    assert payload.points.dtype == np.float32
    assert payload.point_data["T"].dtype == np.float32
    assert all(a.dtype == np.float32 for a in payload.cell_data["grad"])
    assert payload.point_data["id"].dtype == np.int32  # integers untouched
    assert all(c.data.dtype == np.int64 for c in payload.cells)
    np.testing.assert_allclose(payload.points, mesh.points)
    assert "points" not in payload.shared and "point_data['id']" in payload.shared
    (note,) = [n for n in payload.notes if n.startswith("float32=True")]
    assert "points" in note and "point_data['T']" in note


def test_int32_opt_in_casts_every_index_array_only():
    mesh = rectangular_mesh()
    payload = _to_device_payload(mesh, int32=True)
    assert all(c.data.dtype == np.int32 for c in payload.cells)
    assert payload.block_bases.dtype == np.int32
    assert all(r.entries.dtype == np.int32 for r in payload.regions)
    assert payload.points.dtype == np.float64 and payload.point_data["id"].dtype == np.int32
    np.testing.assert_array_equal(payload.regions[2].entries, mesh.regions[2].entries)
    (note,) = [n for n in payload.notes if n.startswith("int32=True")]
    assert "cells[0]" in note and "block_bases" in note and "region 'edge' (side)" in note


def test_int32_opt_in_shares_connectivity_that_already_is_int32():
    mesh = rectangular_mesh()
    mesh.cells[0].data = mesh.cells[0].data.astype(np.int32)
    payload = _to_device_payload(mesh, int32=True)
    assert np.shares_memory(payload.cells[0].data, mesh.cells[0].data)
    assert "cells[0]" in payload.shared


@pytest.mark.parametrize("bad", [2**31, -(2**31) - 1])
def test_int32_range_check_names_the_connectivity(bad):
    mesh = rectangular_mesh()
    mesh.cells[1].data = np.array([[0, 1, 5, bad]])
    with pytest.raises(InteropError, match=r"cells\[1\].*does not fit in int32"):
        _to_device_payload(mesh, int32=True)


def test_int32_range_check_edge_values_pass():
    mesh = rectangular_mesh()
    mesh.cells[1].data = np.array([[0, 1, 2**31 - 1, -(2**31)]])
    payload = _to_device_payload(mesh, int32=True)
    assert payload.cells[1].data.tolist() == [[0, 1, 2**31 - 1, -(2**31)]]


def test_int32_range_check_names_the_region():
    mesh = rectangular_mesh()
    mesh.regions[0] = Region("corner", RegionKind.POINT, 0, 1, np.array([0, 2**31]))
    with pytest.raises(InteropError, match=r"region 'corner' \(point\).*2147483648"):
        _to_device_payload(mesh, int32=True)


def test_int32_range_check_names_block_bases(monkeypatch):
    # A mesh with 2**31 cells does not fit in a test; fake the numbering helper instead.
    import meshioplusplus._gpu as gpu

    monkeypatch.setattr(gpu, "block_bases", lambda cells: np.array([0, 2, 2**31], dtype=np.int64))
    with pytest.raises(InteropError, match="block_bases"):
        _to_device_payload(rectangular_mesh(), int32=True)


def test_unsigned_indices_beyond_int64_are_refused():
    mesh = rectangular_mesh()
    mesh.cells[0].data = np.array([[0, 1, 2**63]], dtype=np.uint64)
    with pytest.raises(InteropError, match=r"cells\[0\]"):
        _to_device_payload(mesh)


@pytest.mark.parametrize("opt_in", ["float32", "int32"])
def test_opt_in_with_zero_copy_only_raises_immediately(opt_in):
    with pytest.raises(InteropError, match=f"{opt_in}=True"):
        _to_device_payload(rectangular_mesh(), zero_copy_only=True, **{opt_in: True})


def _fortran_points(mesh):
    mesh.points = np.asfortranarray(mesh.points)
    return "points"


def _big_endian_data(mesh):
    mesh.point_data["T"] = mesh.point_data["T"].astype(">f8")
    return "point_data['T']"


def _int32_connectivity(mesh):
    mesh.cells[0].data = mesh.cells[0].data.astype(np.int32)
    return "cells[0]"


def _strided_cell_data(mesh):
    mesh.cell_data["grad"][0] = np.ones((2, 6))[:, ::2]
    return "cell_data['grad'][0]"


def _integer_points(mesh):
    mesh.points = mesh.points.astype(np.int64)
    return "points"


def _long_double_data(mesh):
    if np.dtype(np.longdouble).itemsize == 8:
        pytest.skip("long double is double on this platform")
    mesh.point_data["T"] = mesh.point_data["T"].astype(np.longdouble)
    return "point_data['T']"


def _uint16_region(mesh):
    mesh.regions[0] = Region("corner", RegionKind.POINT, 0, 1, np.array([0, 4], dtype=np.uint16))
    return "region 'corner' (point)"


COPYING_CASES = [_fortran_points, _big_endian_data, _int32_connectivity, _strided_cell_data,
                 _integer_points, _long_double_data, _uint16_region]  # fmt: skip


@pytest.mark.parametrize("make_copying", COPYING_CASES)
def test_zero_copy_only_refuses_naming_the_array(make_copying):
    mesh = rectangular_mesh()
    name = make_copying(mesh)
    with pytest.raises(InteropError, match="^" + re.escape(name)) as info:
        _to_device_payload(mesh, zero_copy_only=True)
    assert "zero_copy_only" in str(info.value)


@pytest.mark.parametrize("make_copying", COPYING_CASES)
def test_copies_are_made_noted_and_not_listed_as_shared(make_copying):
    mesh = rectangular_mesh()
    name = make_copying(mesh)
    payload = _to_device_payload(mesh)
    array = dict(_named_by_mesh(payload, mesh))[name]
    assert array.flags.c_contiguous and array.dtype.isnative
    assert name not in payload.shared
    assert any(note.startswith(f"{name}: copied") for note in payload.notes)


def _named_by_mesh(payload, mesh):
    """(mesh-style name, payload array) pairs for a mesh without ragged blocks."""
    yield "points", payload.points
    for i, block in enumerate(payload.cells):
        yield f"cells[{i}]", block.data
    for name, values in payload.point_data.items():
        yield f"point_data[{name!r}]", values
    for name, per_block in payload.cell_data.items():
        for i, values in enumerate(per_block):
            yield f"cell_data[{name!r}][{i}]", values
    for region in payload.regions:
        yield f"region {region.name!r} ({region.kind.name.lower()})", region.entries


def test_data_policy_values_survive_each_copy():
    mesh = rectangular_mesh()
    expected_points = mesh.points.copy()
    _fortran_points(mesh)
    _big_endian_data(mesh)
    _integer_points(mesh)
    _int32_connectivity(mesh)
    payload = _to_device_payload(mesh)
    assert payload.points.dtype == np.float64
    np.testing.assert_array_equal(payload.points, expected_points)
    np.testing.assert_array_equal(payload.point_data["T"], np.linspace(0.0, 1.0, 6))
    assert payload.cells[0].data.dtype == np.int64


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint16, np.uint64, np.complex64])
def test_data_policy_shares_numeric_data_as_it_is(dtype):
    mesh = rectangular_mesh()
    mesh.point_data["x"] = np.arange(6).astype(dtype)
    payload = _to_device_payload(mesh, zero_copy_only=True)
    assert payload.point_data["x"].dtype == dtype
    assert np.shares_memory(payload.point_data["x"], mesh.point_data["x"])


def test_float32_points_are_shared_not_upcast():
    mesh = rectangular_mesh()
    mesh.points = mesh.points.astype(np.float32)
    payload = _to_device_payload(mesh, zero_copy_only=True)
    assert payload.points.dtype == np.float32 and np.shares_memory(payload.points, mesh.points)


def test_bool_data_is_viewed_as_uint8_without_a_copy():
    mesh = rectangular_mesh()
    mesh.point_data["flag"] = np.array([True, False, True, True, False, False])
    payload = _to_device_payload(mesh, zero_copy_only=True)  # a view is not a copy
    assert payload.point_data["flag"].dtype == np.uint8
    assert payload.point_data["flag"].tolist() == [1, 0, 1, 1, 0, 0]
    assert np.shares_memory(payload.point_data["flag"], mesh.point_data["flag"])
    assert "point_data['flag']" in payload.shared
    assert any("point_data['flag']: bool viewed as uint8" in note for note in payload.notes)


def test_zero_copy_only_still_drops_and_renumbers():
    # Dropping and renumbering are not copies of mesh data, so the contract allows them.
    payload = _to_device_payload(mixed_mesh(), zero_copy_only=True)
    assert payload.dropped == ("cells[1]", "cell_data['c'][1]")


def test_string_and_object_data_dropped_field_data_passes_through():
    mesh = rectangular_mesh()
    mesh.point_data["label"] = np.array(list("abcdef"))
    mesh.cell_data["owner"] = [np.array([None, "x"], dtype=object), np.array([1.0])]
    payload = _to_device_payload(mesh)
    assert "label" not in payload.point_data and "owner" not in payload.cell_data
    assert "point_data['label']" in payload.dropped
    assert {"cell_data['owner'][0]", "cell_data['owner'][1]"} <= set(payload.dropped)
    assert any("point_data['label']" in n and "dropped" in n for n in payload.notes)
    assert any("cell_data['owner']" in n and "dropped" in n for n in payload.notes)
    # field_data never travels, so strings are fine there: same objects, no note
    assert payload.field_data["title"] is mesh.field_data["title"]
    assert payload.field_data.keys() == mesh.field_data.keys()
    assert not any("field_data" in n for n in payload.notes)


def test_non_integer_indices_are_refused():
    mesh = rectangular_mesh()
    mesh.cells[0].data = mesh.cells[0].data.astype(np.float64)
    with pytest.raises(InteropError, match=r"cells\[0\]: indices must be integers"):
        _to_device_payload(mesh)


def test_payload_is_frozen():
    payload = _to_device_payload(rectangular_mesh())
    with pytest.raises(AttributeError):
        payload.points = None
    assert "DevicePayload" in repr(payload)


# --- DLPack on the host -------------------------------------------------------------------


def test_dlpack_host_round_trip_shares_memory():
    mesh = rectangular_mesh()
    payload = mio.to_dlpack(mesh)
    for name, array in payload.named_arrays():
        assert array.__dlpack_device__() == (1, 0), name
        adopted = np.from_dlpack(array)
        np.testing.assert_array_equal(adopted, array)
        assert np.shares_memory(adopted, array), name
    # ...and the sharing reaches through to the mesh
    adopted = np.from_dlpack(payload.point_data["T"])
    adopted[0] = 42.0
    assert mesh.point_data["T"][0] == 42.0


def test_payload_outlives_the_mesh_with_core_owned_buffers():
    # _core.block_bases hands back a buffer the C++ side allocated; use it as mesh data.
    core_owned = mio._core.block_bases([1] * 6)[:6]
    assert not core_owned.flags.owndata
    mesh = rectangular_mesh()
    mesh.point_data["core"] = core_owned
    payload = _to_device_payload(mesh)
    adopted = np.from_dlpack(payload.point_data["core"])
    del mesh, core_owned
    gc.collect()
    garbage = [np.full(64, -1, dtype=np.int64) for _ in range(100)]  # reuse freed memory if any
    assert adopted.tolist() == [0, 1, 2, 3, 4, 5]
    assert payload.point_data["core"].tolist() == [0, 1, 2, 3, 4, 5]
    del garbage


def test_payload_outlives_a_read_mesh(tmp_path):
    path = _writable_format_or_skip("vtu", tmp_path)
    mio.write(path, rectangular_mesh())
    mesh = mio.read(path)
    expected = mesh.points.copy()
    payload = _to_device_payload(mesh)
    del mesh
    gc.collect()
    np.testing.assert_array_equal(np.from_dlpack(payload.points), expected)


# --- from_cupy: host paths ----------------------------------------------------------------


def test_from_cupy_of_a_host_payload_is_the_mesh_again():
    mesh = rectangular_mesh()
    payload = mio.to_dlpack(mesh)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is copied, so nothing is warned
        back = mio.from_cupy(payload)
    assert isinstance(back, mio.Mesh)
    assert_meshes_equal(back, mesh)
    assert all(isinstance(r, Region) for r in back.regions)
    assert np.shares_memory(back.points, mesh.points)  # numpy passes through
    assert back.field_data.keys() == mesh.field_data.keys()
    assert back.cell_sets["wall"][1].tolist() == [0]  # meshio views work on the result


class HostDLPackOnly:
    """A foreign host array that speaks nothing but DLPack (like a torch CPU tensor)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, *args, **kwargs):
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_from_cupy_adopts_foreign_host_dlpack_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # proves CuPy is not needed on this path
    mesh = rectangular_mesh()
    wrap = HostDLPackOnly
    duck = types.SimpleNamespace(
        points=wrap(mesh.points),
        cells=[("triangle", wrap(mesh.cells[0].data)), ("quad", wrap(mesh.cells[1].data))],
        point_data={"T": wrap(mesh.point_data["T"])},
        cell_data={"area": (wrap(mesh.cell_data["area"][0]), wrap(mesh.cell_data["area"][1]))},
        field_data={"title": mesh.field_data["title"]},
        regions=[(r.name, int(r.kind), r.dim, r.tag, wrap(r.entries)) for r in mesh.regions],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = mio.from_cupy(duck)
    assert np.shares_memory(back.points, mesh.points)
    assert np.shares_memory(back.cells[0].data, mesh.cells[0].data)
    assert np.shares_memory(back.regions[2].entries, mesh.regions[2].entries)
    np.testing.assert_array_equal(back.cell_data["area"][1], [1.0])
    assert back.regions == mesh.regions
    assert back.field_data["title"] is mesh.field_data["title"]


def test_from_cupy_needs_only_points_and_cells():
    duck = types.SimpleNamespace(points=np.zeros((3, 2)), cells=[("triangle", np.array([[0, 1, 2]]))])
    back = mio.from_cupy(duck)
    assert len(back.cells[0]) == 1 and back.regions == [] and back.point_data == {}


class RawDeviceArray:
    """Only a CUDA Array Interface: from_cupy needs CuPy to adopt it."""

    def __init__(self, interface):
        self.__cuda_array_interface__ = interface


def test_from_cupy_device_array_without_cupy_names_the_wheels(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    device = RawDeviceArray({"shape": (1, 3), "typestr": "<f8", "data": (0, False), "version": 3})
    duck = types.SimpleNamespace(points=device, cells=[])
    with pytest.raises(ImportError) as info:
        mio.from_cupy(duck)
    _assert_install_recipe(str(info.value))


# --- install errors and predicates --------------------------------------------------------


def _assert_install_recipe(text):
    for wheel in WHEEL_NAMES:
        assert wheel in text
    assert "meshioplusplus[" not in text  # deliberately no pip extra


def test_to_cupy_without_cupy_names_the_wheels(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(ImportError) as info:
        mio.to_cupy(rectangular_mesh())
    _assert_install_recipe(str(info.value))
    assert "to_cupy" in str(info.value)


def test_predicates_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    assert mio.has_cupy() is False
    assert mio.has_cuda_device() is False


@pytest.mark.parametrize(
    "device_count, has_device",
    [(1, True), (0, False), (RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected"), False)],
)
def test_predicates_answer_two_different_questions(device_count, has_device):
    with fake_cupy.installed(device_count=device_count):
        assert mio.has_cupy() is True  # importable even where no device answers
        assert mio.has_cuda_device() is has_device


def test_importing_the_package_pulls_in_no_gpu_library():
    script = (
        "import sys, numpy as np, meshioplusplus as mio\n"
        "mesh = mio.Mesh(np.zeros((3, 3)), [('triangle', np.array([[0, 1, 2]]))])\n"
        "payload = mio.to_dlpack(mesh)\n"
        "mio.from_cupy(payload)\n"
        "import meshioplusplus.testing\n"
        "heavy = ('cupy', 'torch', 'jax', 'jaxlib', 'numba', 'cudf')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


# --- to_cupy / from_cupy against the fake CuPy --------------------------------------------


def test_to_cupy_makes_exactly_one_transfer_per_array():
    mesh = rectangular_mesh()
    host = _to_device_payload(mesh)
    host_arrays = list(host.named_arrays())
    with fake_cupy.installed() as cp:
        gpu = mio.to_cupy(mesh)
        uploads = cp.log.of_kind("to_device")
        assert len(uploads) == len(host_arrays)
        assert [e.nbytes for e in uploads] == [a.nbytes for _, a in host_arrays]
        assert [e.name for e in uploads] == [f"meshioplusplus.to_cupy {name}" for name, _ in host_arrays]
        assert cp.log.count_of("host_staging") == 0 and cp.log.count_of("to_host") == 0
        assert cp.log.kinds()[-1] == "sync"  # stream=None: synchronized before returning
        assert gpu.device == (2, 0) and gpu.shared == () and gpu.refs == ()
        assert any("one host->device transfer each" in fact for fact in gpu.derived)
        for name, array in gpu.named_arrays():
            assert isinstance(array, cp.ndarray), name
            assert array.__dlpack_device__() == (2, 0)
            assert "data" in array.__cuda_array_interface__
            with pytest.raises(TypeError):
                np.asarray(array)  # no silent trip back to the host
        np.testing.assert_array_equal(gpu.points.get(), mesh.points)
        assert [a.get().tolist() for a in gpu.cell_data["grad"]] == [a.tolist() for a in mesh.cell_data["grad"]]
        assert gpu.regions[2].entries.get().tolist() == mesh.regions[2].entries.tolist()
        assert gpu.field_data["title"] is mesh.field_data["title"]  # never transferred


def test_to_cupy_has_no_zero_copy_only():
    # Every array to_cupy returns is a copy across the bus; the flag could only lie or raise.
    with fake_cupy.installed(), pytest.raises(TypeError, match="zero_copy_only"):
        mio.to_cupy(rectangular_mesh(), zero_copy_only=True)


def test_fake_cupy_logs_a_device_scalar_read_as_an_implicit_sync():
    with fake_cupy.installed() as cp:
        value = cp.asarray(np.array([2.5]))
        cp.log.clear()
        assert float(value) == 2.5
        assert cp.log.kinds() == ["to_host", "sync"]
        assert all(event.implicit for event in cp.log)


def test_to_cupy_moves_the_cast_arrays_once():
    mesh = rectangular_mesh()
    with fake_cupy.installed() as cp, pytest.warns(InteropWarning, match="float32=True"):
        gpu = mio.to_cupy(mesh, float32=True, int32=True)
    assert gpu.points.dtype == np.float32 and gpu.cells[0].data.dtype == np.int32
    assert gpu.block_bases.dtype == np.int32
    uploads = cp.log.of_kind("to_device")
    assert uploads[0].nbytes == mesh.points.size * 4
    assert len(uploads) == len(list(gpu.named_arrays()))


def test_to_cupy_pinned_stages_each_array_and_releases_staging():
    mesh = rectangular_mesh()
    with fake_cupy.installed() as cp:
        gpu = mio.to_cupy(mesh, pinned=True)
        staged = cp.log.of_kind("host_staging")
        uploads = cp.log.of_kind("to_device")
        arrays = list(gpu.named_arrays())
        assert len(uploads) == len(arrays)
        assert [e.nbytes for e in staged] == [e.nbytes for e in uploads if e.nbytes]
        assert all(e.pinned for e in uploads if e.nbytes)
        assert cp.log.kinds()[-1] == "sync" and gpu.refs == ()
        gc.collect()
        assert cp.live_pinned_buffers() == 0  # staging went back once the copies were done
        assert any("page-locked" in fact for fact in gpu.derived)
        np.testing.assert_array_equal(gpu.points.get(), mesh.points)
        np.testing.assert_array_equal(gpu.cells[1].data.get(), mesh.cells[1].data)


def test_to_cupy_on_a_caller_stream_keeps_staging_alive_until_sync():
    mesh = rectangular_mesh()
    with fake_cupy.installed() as cp:
        stream = cp.cuda.Stream(non_blocking=True)
        gpu = mio.to_cupy(mesh, pinned=True, stream=stream)
        arrays = list(gpu.named_arrays())
        assert "sync" not in cp.log.kinds()  # returned without waiting
        assert all(e.stream is stream and not e.blocking for e in cp.log.of_kind("to_device"))
        assert stream.pending_copies() == len(arrays)
        assert len(gpu.refs) == len(arrays)
        gc.collect()
        assert cp.live_pinned_buffers() == len(arrays)
        stream.synchronize()
        np.testing.assert_array_equal(gpu.points.get(stream=stream), mesh.points)
        np.testing.assert_array_equal(gpu.point_data["T"].get(), mesh.point_data["T"])
        del gpu
        gc.collect()
        assert cp.live_pinned_buffers() == 0


def test_fake_cupy_catches_staging_released_before_its_copy():
    # The check the previous test relies on: without refs the fake refuses to pretend.
    with fake_cupy.installed() as cp:
        stream = cp.cuda.Stream(non_blocking=True)
        device = cp.empty((4,), np.float64)
        memory = cp.cuda.alloc_pinned_memory(32)
        staging = np.frombuffer(memory, np.float64, 4)
        staging[:] = 1.0
        device.set(staging, stream=stream)
        del memory, staging
        gc.collect()
        with pytest.raises(RuntimeError, match="freed before"):
            stream.synchronize()


def test_to_cupy_plain_copies_on_a_caller_stream():
    mesh = rectangular_mesh()
    with fake_cupy.installed() as cp:
        stream = cp.cuda.Stream()
        gpu = mio.to_cupy(mesh, stream=stream)
        assert all(e.stream is stream for e in cp.log.of_kind("to_device"))
        assert len(gpu.refs) == len(list(gpu.named_arrays()))  # host sources held until sync
        stream.synchronize()
        np.testing.assert_array_equal(gpu.points.get(), mesh.points)


def test_from_cupy_makes_one_host_copy_per_device_array():
    mesh = rectangular_mesh()
    with fake_cupy.installed() as cp:
        gpu = mio.to_cupy(mesh)
        cp.log.clear()
        with pytest.warns(InteropWarning, match="device arrays copied to the host") as record:
            back = mio.from_cupy(gpu)
        # everything a Mesh holds comes back; block_bases is recomputed by the Mesh, not copied
        needed = [name for name, _ in gpu.named_arrays() if name != "block_bases"]
        assert cp.log.count_of("to_host") == len(needed)
        assert cp.log.count_of("to_device") == 0
        assert record[0].message.notes
    assert_meshes_equal(back, mesh)
    assert back.field_data["title"] is mesh.field_data["title"]


def test_from_cupy_adopts_a_raw_cai_object_then_copies_once():
    with fake_cupy.installed() as cp:
        device = cp.asarray(np.arange(6.0).reshape(2, 3))
        raw = RawDeviceArray(device.__cuda_array_interface__)
        cp.log.clear()
        with pytest.warns(InteropWarning):
            back = mio.from_cupy(types.SimpleNamespace(points=raw, cells=[]))
        assert cp.log.kinds() == ["to_host"]
    np.testing.assert_array_equal(back.points, np.arange(6.0).reshape(2, 3))


def test_device_round_trip_with_a_kernel_in_between():
    mesh = mixed_mesh()
    with fake_cupy.installed(), pytest.warns(InteropWarning):
        gpu = mio.to_cupy(mesh)
        gpu.point_data["T"] *= 2.0  # a device-side operation: no transfer
        back = mio.from_cupy(gpu)
    np.testing.assert_array_equal(back.point_data["T"], 2.0 * mesh.point_data["T"])
    assert [b.type for b in back.cells] == ["triangle", "quad", "tetra"]
    np.testing.assert_array_equal(back.region("vol").entries, [0, 2, 4])
    np.testing.assert_array_equal(back.region("skin").entries, [[1, 0], [3, 1]])
    assert back.cell_sets["vol"][2].tolist() == [1]  # mesh cell 6 = the tetra block's second cell
    np.testing.assert_array_equal(mesh.point_data["T"], np.arange(8.0))  # the host mesh is untouched


# --- other consumers ----------------------------------------------------------------------


def test_torch_adopts_payload_arrays_in_place():
    torch = pytest.importorskip("torch")
    mesh = rectangular_mesh()
    payload = mio.to_dlpack(mesh)
    tensor = torch.from_dlpack(payload.points)
    assert tensor.data_ptr() == payload.points.ctypes.data
    cells = torch.from_dlpack(payload.cells[0].data)
    assert cells.dtype == torch.int64 and cells.tolist() == mesh.cells[0].data.tolist()
    tensor[0, 0] = 42.0
    assert mesh.points[0, 0] == 42.0


# --- back out through the writers ---------------------------------------------------------


def _writable_format_or_skip(extension, tmp_path):
    """A path for ``extension`` (a registered writable format)."""
    names = {ext for row in mio._core.formats() for ext in row["extensions"] if row["can_write"]}
    assert "." + extension in names, f".{extension} must be a registered writable format"
    return tmp_path / f"mesh.{extension}"


@pytest.mark.parametrize("extension", ["vtu", "msh"])
def test_from_cupy_result_writes_and_reads_back(extension, tmp_path):
    path = _writable_format_or_skip(extension, tmp_path)
    mesh = rectangular_mesh()
    with fake_cupy.installed(), pytest.warns(InteropWarning):
        back = mio.from_cupy(mio.to_cupy(mesh))
    mio.write(path, back)
    read = mio.read(path)
    np.testing.assert_allclose(read.points, mesh.points)
    # A format may add blocks of its own after ours (Gmsh stores point groups as vertex cells).
    assert [b.type for b in read.cells[: len(mesh.cells)]] == [b.type for b in mesh.cells]
    for a, e in zip(read.cells, mesh.cells):
        np.testing.assert_array_equal(a.data, e.data)
    np.testing.assert_allclose(read.point_data["T"], mesh.point_data["T"])
    for a, e in zip(read.cell_data["area"], mesh.cell_data["area"]):
        np.testing.assert_allclose(a, e)
    # Regions come back where the format has a slot for them (Gmsh: point and cell groups).
    originals = {(r.name, r.kind): r for r in mesh.regions}
    for region in read.regions:
        if (region.name, region.kind) not in originals:
            # Gmsh writes field_data [tag, dim] entries as physical names, as meshio does: they
            # read back as (empty) groups.
            assert extension == "msh" and region.name in mesh.field_data and len(region.entries) == 0
            continue
        np.testing.assert_array_equal(region.entries, originals[region.name, region.kind].entries)
