"""Reading less of an OpenFOAM case (docs/read-less.md): field files not named are never opened,
and a points-only read of a single case opens the points file (the newest moved one) and the
point zones only — checked by removing exactly what must not be read."""

import pathlib
import shutil

import numpy as np
import pytest

import meshioplusplus as mio

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "openfoam"
CASES = sorted(p.name for p in DATA.iterdir() if p.is_dir())


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("name", CASES)
def test_narrowed_reads_are_subsets_of_the_full_read(name):
    full = mio.read(DATA / name)
    bare = mio.read(DATA / name, arrays=[])
    assert _same(bare.points, full.points) and not bare.point_data and not bare.cell_data
    assert [(b.type, len(b)) for b in bare.cells] == [(b.type, len(b)) for b in full.cells]
    for field in list(full.cell_data)[:2] + list(full.point_data)[:1]:
        one = mio.read(DATA / name, arrays=[field])
        assert set(one.cell_data) | set(one.point_data) == {field}
        if field in full.cell_data:
            assert all(_same(a, b) for a, b in zip(one.cell_data[field], full.cell_data[field]))
        else:
            assert _same(one.point_data[field], full.point_data[field])
    points = mio.read(DATA / name, points_only=True)
    assert _same(points.points, full.points)
    assert not points.cells and not points.point_data and not points.cell_data
    assert [(r.name, r.kind) for r in points.regions] == [(r.name, r.kind) for r in full.regions
                                                          if r.kind == mio.RegionKind.POINT]
    for kept, whole in zip(points.regions, [r for r in full.regions if r.kind == mio.RegionKind.POINT]):
        assert _same(kept.entries, whole.entries)


def test_field_files_not_named_are_not_opened(tmp_path):
    case = tmp_path / "cavity"
    shutil.copytree(DATA / "cavity", case)
    full = mio.read(DATA / "cavity")
    field = case / "0.1" / "U"  # the latest time's U, cut inside its internalField list
    text = field.read_bytes()
    field.write_bytes(text[:text.index(b"internalField") + 200])
    with pytest.raises(mio.ReadError, match="U"):
        mio.read(case)
    only_p = mio.read(case, arrays=["p"])
    assert list(only_p.cell_data) == ["p"]
    assert all(_same(a, b) for a, b in zip(only_p.cell_data["p"], full.cell_data["p"]))
    with pytest.raises(ValueError, match="'T'"):
        mio.read(case, arrays=["T"])


def test_points_only_opens_neither_faces_nor_owner(tmp_path):
    case = tmp_path / "cavity"
    shutil.copytree(DATA / "cavity", case)
    full = mio.read(DATA / "cavity")
    mesh_dir = case / "constant" / "polyMesh"
    for name in ("faces", "owner", "neighbour", "boundary"):
        (mesh_dir / name).write_text("broken")
    shutil.rmtree(case / "0.1")
    points = mio.read(case, points_only=True)
    assert _same(points.points, full.points)
    with pytest.raises(mio.ReadError):
        mio.read(case)


def test_points_only_of_a_moving_mesh_takes_the_newest_moved_points():
    full = mio.read(DATA / "movingCone")
    points = mio.read(DATA / "movingCone", points_only=True)
    assert _same(points.points, full.points)
    constant = mio.read(DATA / "movingCone" / "constant" / "polyMesh", points_only=True)
    assert constant.points.shape == full.points.shape


def test_points_only_of_a_decomposed_case_equals_the_full_read():
    full = mio.read(DATA / "cavity_decomposed_binary")
    points = mio.read(DATA / "cavity_decomposed_binary", points_only=True)
    assert _same(points.points, full.points)
