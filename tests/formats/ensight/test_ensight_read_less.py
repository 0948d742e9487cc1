"""Reading less of an EnSight case (docs/read-less.md): variable files not asked for are never
opened, a points-only read passes over the element connectivity, and read_metadata answers from
the case and the geometry's counts — checked by breaking exactly what must not be read."""

import pathlib
import re
import shutil

import numpy as np
import pytest

import meshioplusplus as mio

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "ensight"


def _copy(tmp_path, name):
    target = tmp_path / name
    shutil.copytree(DATA / name, target)
    return target


def _break_first_connectivity_value(geometry, element_type=b"hexa8"):
    """C Binary geometry: the first node number after the first `element_type` section's count
    becomes one no part has (the full read refuses it by name)."""
    data = bytearray(geometry.read_bytes())
    at = data.index(element_type + b"\0" * (80 - len(element_type))) + 80 + 4
    data[at:at + 4] = (99_999_999).to_bytes(4, "little")
    geometry.write_bytes(bytes(data))


def test_arrays_leave_the_other_variable_files_unopened(tmp_path):
    case = _copy(tmp_path, "cavity_binary")
    full = mio.read(DATA / "cavity_binary" / "cavity.case")
    (case / "data" / "00000000" / "U").unlink()  # the variable not asked for is gone
    with pytest.raises(mio.ReadError, match="U"):
        mio.read(case / "cavity.case")
    only_p = mio.read(case / "cavity.case", arrays=["p"])
    assert list(only_p.cell_data) == ["p"] and not only_p.point_data
    for part, whole in zip(only_p.cell_data["p"], full.cell_data["p"]):
        np.testing.assert_array_equal(part, whole)
    np.testing.assert_array_equal(only_p.points, full.points)
    bare = mio.read(case / "cavity.case", arrays=[])
    assert not bare.cell_data and [len(b) for b in bare.cells] == [len(b) for b in full.cells]
    with pytest.raises(ValueError, match="'T'.*'U', 'p'"):
        mio.read(case / "cavity.case", arrays=["T"])


def test_node_variables_asked_for_alone(tmp_path):
    source = DATA / "cavity_ascii_nodes"
    full = mio.read(next(source.glob("*.case")))
    names = list(full.point_data)
    assert names, "cavity_ascii_nodes holds node variables"
    case = _copy(tmp_path, "cavity_ascii_nodes")
    kept = names[0]
    narrowed = mio.read(next(case.glob("*.case")), arrays=[kept])
    assert list(narrowed.point_data) == [kept]
    np.testing.assert_array_equal(narrowed.point_data[kept], full.point_data[kept])


def test_points_only_passes_over_the_connectivity(tmp_path):
    case = _copy(tmp_path, "cavity_binary")
    full = mio.read(DATA / "cavity_binary" / "cavity.case")
    _break_first_connectivity_value(case / "geometry")
    with pytest.raises(mio.ReadError, match="node 99999999 out of the part's range"):
        mio.read(case / "cavity.case")
    points = mio.read(case / "cavity.case", points_only=True)
    np.testing.assert_array_equal(points.points, full.points)
    assert not points.cells and not points.cell_data
    (case / "data" / "00000000" / "p").unlink()  # element variables are not read either
    assert len(mio.read(case / "cavity.case", points_only=True).points) == len(full.points)


def test_metadata_reads_neither_arrays_nor_variable_files(tmp_path):
    case = _copy(tmp_path, "cavity_binary")
    expected = mio.read_metadata(DATA / "cavity_binary" / "cavity.case")
    full = mio.read(DATA / "cavity_binary" / "cavity.case")
    _break_first_connectivity_value(case / "geometry")
    shutil.rmtree(case / "data")
    summary = mio.read_metadata(case / "cavity.case")
    assert summary == expected
    assert summary["header_only"] and summary["variant"] == "C binary"
    assert summary["num_points"] == len(full.points)
    assert summary["num_cells"] == sum(len(b) for b in full.cells)
    assert summary["times"] == [0.0, 0.05, 0.1]
    arrays = {(a["association"], a["name"]): a for a in summary["arrays"]}
    assert arrays[("cell", "U")]["shape"] == [summary["num_cells"], 3]
    assert arrays[("cell", "U")]["dtype"] == full.cell_data["U"][0].dtype.name == "float32"
    assert [r["name"] for r in summary["regions"]] == [r.name for r in full.regions]
    assert [r["count"] for r in summary["regions"]] == [len(r.entries) for r in full.regions]


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.iterdir() if p.is_dir()))
def test_metadata_equals_the_full_read_on_every_case(name):
    case = next((DATA / name).glob("*.case"))
    full = mio.read(case)
    summary = mio.read_metadata(case)
    assert summary["header_only"]
    stated, shown_types = {}, {}
    for block in summary["cell_blocks"]:
        stated[block["type"]] = stated.get(block["type"], 0) + block["count"]
    for block in full.cells:  # meshio's polygon<N> blocks are the core's one polygon block
        core = re.sub(r"^(polygon|polyhedron)\d+$", r"\1", block.type)
        shown_types[core] = shown_types.get(core, 0) + len(block)
    assert stated == shown_types
    listed = {(a["association"], a["name"]) for a in summary["arrays"]}
    shown = {("point", n) for n in full.point_data} | {("cell", n) for n in full.cell_data} | \
        {("field", n) for n in full.field_data}
    assert listed == shown
    with mio.ensight.TimeSeriesReader(case) as series:
        assert summary["times"] == list(series.times)
