"""Triangle through meshio++ against the `triangle` package's own file loader (triangle.loads),
on files Triangle wrote; round trips through the Python API; the .node/.ele sniff."""

import pathlib

import numpy as np
import pytest

import meshioplusplus as mio

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "triangle"
tr = pytest.importorskip("triangle", reason="pip install triangle (the reference loader)")


@pytest.mark.parametrize("stem", ["A.1", "la.1", "spiral0.1", "box.1", "Ao2.1"])
def test_node_ele_equal_to_triangle_loads(stem):
    ref = tr.loads(node=(DATA / f"{stem}.node").read_text(), ele=(DATA / f"{stem}.ele").read_text())
    mesh = mio.read(DATA / f"{stem}.ele")  # no format name: the sniff picks triangle
    assert np.array_equal(mesh.points, ref["vertices"])
    cells = mesh.cells[0].data
    if mesh.cells[0].type == "triangle6":
        cells = cells[:, [0, 1, 2, 4, 5, 3]]  # VTK's order back to Triangle's -o2 order
    assert np.array_equal(cells, ref["triangles"])
    if "vertex_markers" in ref:
        assert np.array_equal(mesh.point_data["triangle:ref"], ref["vertex_markers"][:, 0])
    if "vertex_attributes" in ref:
        assert np.array_equal(mesh.point_data["triangle:attr1"], ref["vertex_attributes"][:, 0])
    if "triangle_attributes" in ref:
        assert np.array_equal(mesh.cell_data["triangle:ref"][0], ref["triangle_attributes"][:, 0])


@pytest.mark.parametrize("name", ["A.poly", "box.poly", "la.poly"])
def test_poly_equal_to_triangle_loads(name):
    ref = tr.loads(poly=(DATA / name).read_text())
    mesh = mio.read(DATA / name)
    assert np.array_equal(mesh.points, ref["vertices"])
    assert np.array_equal(mesh.cells_dict["line"], ref["segments"])
    if "segment_markers" in ref:
        assert np.array_equal(mesh.cell_data["triangle:ref"][0], ref["segment_markers"][:, 0])
    if "holes" in ref:
        assert np.array_equal(mesh.field_data["triangle:holes"], ref["holes"])
    if "regions" in ref:
        # x, y and the maximum area agree; for a row without an area the package puts the
        # attribute at 0, while Triangle (and meshio++) read the one number as both.
        regions = mesh.field_data["triangle:regions"]
        assert np.array_equal(regions[:, [0, 1, 3]], ref["regions"][:, [0, 1, 3]])


def test_round_trip_and_triangle_reads_ours(tmp_path):
    mesh = mio.read(DATA / "Ao2.1.ele")
    out = tmp_path / "ours.ele"
    mio.write(out, mesh, file_format="triangle")
    back = mio.read(out)
    assert np.array_equal(back.points, mesh.points)
    assert np.array_equal(back.cells[0].data, mesh.cells[0].data)
    ref = tr.loads(node=(tmp_path / "ours.node").read_text(), ele=out.read_text())
    assert np.array_equal(ref["triangles"], mesh.cells[0].data[:, [0, 1, 2, 4, 5, 3]])
    poly = mio.read(DATA / "la.poly")
    mio.triangle.write(tmp_path / "ours.poly", poly)
    ref = tr.loads(poly=(tmp_path / "ours.poly").read_text())
    assert np.array_equal(ref["vertices"], poly.points)
    assert np.array_equal(ref["segments"], poly.cells[0].data)
    assert np.array_equal(mio.read(tmp_path / "ours.poly").field_data["triangle:regions"], poly.field_data["triangle:regions"])


def test_sniff_sends_3d_pairs_to_tetgen(tmp_path):
    (tmp_path / "t.node").write_text("4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n")
    (tmp_path / "t.ele").write_text("1 4 0\n1 1 2 3 4\n")
    assert mio.read(tmp_path / "t.ele").cells[0].type == "tetra"
    assert mio.read(DATA / "A.1.node").cells[0].type == "triangle"
