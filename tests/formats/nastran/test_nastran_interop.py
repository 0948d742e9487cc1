"""Nastran bulk data through meshio++ and meshio, both directions, every point/cell field
format."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module

FORMATS = ("free", "fixed-small", "fixed-large")

# Every type we write (CELAS1 CROD CTRIA3 CTRIA6 CQUAD4 CQUAD8 CTETRA CPYRAM CPENTA CHEXA,
# second order by node count) except quad9: we write CQUAD, which meshio does not know
# (test_meshio_drops_cquad).
TYPES = ("vertex", "line", "triangle", "triangle6", "quad", "quad8", "tetra", "tetra10", "pyramid",
         "pyramid13", "wedge", "wedge15", "hexahedron", "hexahedron20")

# How close a coordinate read from each GRID field format is to the float64 it was written
# from, as (rtol, atol). Points are in [0, 1).
OUR_POINT_TOLERANCE = {
    # Shortest round-trip text: exact.
    "free": (0.0, 0.0),
    # 8 columns: at least 5 significant digits for positive values down to 1e-9 ("1.2346-5";
    # 6 in [0.1, 1): "0.511822"), rounded: half a unit in the 5th digit.
    "fixed-small": (5e-5, 0.0),
    # 16 columns: at least 13 significant digits ("1.234567890123-4"; 14 in [0.1, 1)).
    "fixed-large": (5e-13, 0.0),
}
MESHIO_POINT_TOLERANCE = {
    # np.format_float_scientific(precision=11): 12 significant digits.
    "free": (5e-12, 0.0),
    # f"{x:f}".rstrip("0")[:8]: 6 decimals for x in [0, 1), rounded.
    "fixed-small": (0.0, 5e-7 * (1 + 1e-9)),
    "fixed-large": (5e-12, 0.0),
}


def nastran_mesh(cell_types=TYPES):
    rng = np.random.default_rng(19)
    points = rng.random((40, 3))
    cells = [(t, rng.integers(0, 40, size=(3, mio.num_nodes_per_cell[t]), dtype=np.int64)) for t in cell_types]
    return mio.Mesh(
        points,
        cells,
        point_data={"nastran:ref": rng.integers(1, 5, 40)},
        cell_data={"nastran:ref": [rng.integers(1, 9, 3) for _ in cells]},
    )


def assert_same_nastran(read, mesh, tolerance):
    rtol, atol = tolerance
    np.testing.assert_allclose(np.asarray(read.points), np.asarray(mesh.points), rtol=rtol, atol=atol)
    assert [c.type for c in read.cells] == [c.type for c in mesh.cells]
    for x, y in zip(read.cells, mesh.cells):
        np.testing.assert_array_equal(np.asarray(x.data), np.asarray(y.data))
    np.testing.assert_array_equal(np.asarray(read.point_data["nastran:ref"]), np.asarray(mesh.point_data["nastran:ref"]))
    assert len(read.cell_data["nastran:ref"]) == len(mesh.cells)
    for x, y in zip(read.cell_data["nastran:ref"], mesh.cell_data["nastran:ref"]):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize("cell_format", ["free", "fixed-small"])
@pytest.mark.parametrize("point_format", FORMATS)
def test_our_files_read_equal_in_meshio(tmp_path, point_format, cell_format, meshio_knows_wedge15_pyramid13):
    meshio = meshio_module()
    mesh = nastran_mesh()
    path = tmp_path / "ours.bdf"
    mio.nastran.write(path, mesh, point_format=point_format, cell_format=cell_format)
    theirs = meshio.read(path)
    ours = mio.read(path)
    assert_same_nastran(theirs, mesh, OUR_POINT_TOLERANCE[point_format])
    assert_same_nastran(ours, mesh, OUR_POINT_TOLERANCE[point_format])
    # Both parse the same text: the same doubles.
    np.testing.assert_array_equal(np.asarray(ours.points), theirs.points)


@pytest.mark.parametrize("point_format", FORMATS)
def test_meshio_ignores_large_field_element_cards(tmp_path, point_format):
    # Large-field element cards are named with a star ("CTRIA3*"), which meshio 5.3.5's
    # reader does not strip (it does for GRID*): every element is skipped silently, also in
    # the files its own writer makes with cell_format="fixed-large".
    meshio = meshio_module()
    mesh = nastran_mesh(tuple(t for t in TYPES if t not in ("wedge15", "pyramid13")))
    path = tmp_path / "ours.bdf"
    mio.nastran.write(path, mesh, point_format=point_format, cell_format="fixed-large")
    assert "CTETRA*" in path.read_text()
    theirs = meshio.read(path)
    assert len(theirs.cells) == 0
    np.testing.assert_allclose(theirs.points, np.asarray(mesh.points), rtol=OUR_POINT_TOLERANCE[point_format][0], atol=0)
    assert_same_nastran(mio.read(path), mesh, OUR_POINT_TOLERANCE[point_format])


def test_meshio_drops_cquad(tmp_path):
    # meshio 5.3.5 reads CQUAD9 only; the 9-node CQUAD card (MSC) is skipped silently.
    meshio = meshio_module()
    mesh = nastran_mesh(("triangle", "quad9"))
    path = tmp_path / "ours.bdf"
    mio.nastran.write(path, mesh, point_format="free", cell_format="fixed-small")
    assert "\nCQUAD   " in path.read_text()
    theirs = meshio.read(path)
    assert [c.type for c in theirs.cells] == ["triangle"]
    assert_same_nastran(mio.read(path), mesh, (0.0, 0.0))


def meshio_copy(mesh):
    meshio = meshio_module()
    return meshio.Mesh(
        np.asarray(mesh.points),
        [(b.type, np.asarray(b.data)) for b in mesh.cells],
        point_data={"nastran:ref": np.asarray(mesh.point_data["nastran:ref"])},
        cell_data={"nastran:ref": [np.asarray(a) for a in mesh.cell_data["nastran:ref"]]},
    )


# meshio writes every type we read back: CELAS1 CBAR CTRIA3 CTRIA6 CQUAD4 CQUAD8 CQUAD9 CTETRA
# CPYRA CPENTA CHEXA, and its fictive CTETRA_ CPYRA_ CPENTA_ CHEXA_ for second order.
MESHIO_TYPES = TYPES + ("quad9",)


@pytest.mark.parametrize("point_format", FORMATS)
def test_meshio_files_read_equal_in_ours(tmp_path, point_format, meshio_knows_wedge15_pyramid13):
    meshio = meshio_module()
    mesh = nastran_mesh(MESHIO_TYPES)
    path = tmp_path / "theirs.bdf"
    meshio.nastran.write(path, meshio_copy(mesh), point_format=point_format, cell_format="fixed-small")
    assert_same_nastran(mio.read(path), mesh, MESHIO_POINT_TOLERANCE[point_format])


def test_meshio_large_field_cells_read_equal_in_ours(tmp_path):
    # Cards with at most 10 nodes; longer ones: test_meshio_large_field_cells_overflow.
    meshio = meshio_module()
    mesh = nastran_mesh(tuple(t for t in MESHIO_TYPES if mio.num_nodes_per_cell[t] <= 10))
    path = tmp_path / "theirs.bdf"
    meshio.nastran.write(path, meshio_copy(mesh), point_format="fixed-large", cell_format="fixed-large")
    assert_same_nastran(mio.read(path), mesh, MESHIO_POINT_TOLERANCE["fixed-large"])


@pytest.mark.parametrize("cell_type", ["pyramid13", "wedge15", "hexahedron20"])
def test_meshio_large_field_cells_overflow(tmp_path, cell_type, meshio_knows_wedge15_pyramid13):
    # meshio 5.3.5's fixed-large element writer puts 2 nodes on the first line, 4 on the
    # second and all the rest on the third: beyond 10 nodes that line holds more than the 4
    # fields a large-field line has (up to 14 sixteen-column fields, 232 columns). We read
    # fields by column and refuse the card as short of nodes.
    meshio = meshio_module()
    mesh = nastran_mesh((cell_type,))
    path = tmp_path / "theirs.bdf"
    meshio.nastran.write(path, meshio_copy(mesh), cell_format="fixed-large")
    assert max(len(line) for line in path.read_text().splitlines()) > 80
    with pytest.raises(mio.ReadError, match="nodes"):
        mio.read(path)


def test_meshio_cannot_write_free_cells(tmp_path):
    # meshio 5.3.5 sets the per-line node counts only for the fixed formats, so
    # cell_format="free" fails on the first element (UnboundLocalError: nipl1).
    meshio = meshio_module()
    mesh = nastran_mesh(("triangle",))
    with pytest.raises(UnboundLocalError, match="nipl1"):
        meshio.nastran.write(tmp_path / "theirs.bdf", meshio_copy(mesh), cell_format="free")


def test_meshio_writes_fictive_second_order_cards(tmp_path, meshio_knows_wedge15_pyramid13):
    # meshio 5.3.5 names second-order solids by its internal keys CTETRA_, CPYRA_, CPENTA_,
    # CHEXA_, which no Nastran knows; we read them as the base cards.
    meshio = meshio_module()
    mesh = nastran_mesh(("tetra10", "pyramid13", "wedge15", "hexahedron20"))
    path = tmp_path / "theirs.bdf"
    meshio.nastran.write(path, meshio_copy(mesh))
    text = path.read_text()
    for card in ("CTETRA_", "CPYRA_", "CPENTA_", "CHEXA_"):
        assert f"\n{card} " in text
    assert_same_nastran(mio.read(path), mesh, MESHIO_POINT_TOLERANCE["fixed-large"])
