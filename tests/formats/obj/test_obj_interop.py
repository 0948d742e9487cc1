"""Wavefront OBJ through meshio++ and meshio, both directions."""

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module

# One block per face kind, in the order meshio reads them back (it starts a block at every
# change of corner count; meshio++ merges blocks per type, which changes nothing here).
CELLS = [
    ("triangle", np.array([[0, 1, 2], [2, 1, 3], [5, 6, 7]])),
    ("quad", np.array([[2, 3, 4, 5], [4, 5, 6, 7]])),
    ("polygon", np.array([[0, 1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6, 7]])),
]


def obj_mesh(vt_width=2):
    rng = np.random.default_rng(6)
    return mio.Mesh(
        rng.random((8, 3)),
        CELLS,
        point_data={"obj:vt": rng.random((8, vt_width)), "obj:vn": rng.standard_normal((8, 3))},
    )


def assert_same_obj(read, mesh):
    # Numbers are written as shortest round-trip text by both writers: exact.
    np.testing.assert_array_equal(np.asarray(read.points), np.asarray(mesh.points))
    assert [c.type for c in read.cells] == [c.type for c in mesh.cells]
    for x, y in zip(read.cells, mesh.cells):
        np.testing.assert_array_equal(np.asarray(x.data), np.asarray(y.data))
    for name in ("obj:vt", "obj:vn"):
        np.testing.assert_array_equal(np.asarray(read.point_data[name]), np.asarray(mesh.point_data[name]))


@pytest.mark.parametrize("vt_width", [2, 3])
def test_our_files_read_equal_in_meshio(tmp_path, vt_width):
    meshio = meshio_module()
    mesh = obj_mesh(vt_width)
    path = tmp_path / "ours.obj"
    mio.obj.write(path, mesh)
    theirs = meshio.read(path)
    assert_same_obj(theirs, mesh)
    # No "g" lines (the mesh has no regions): meshio numbers the ungrouped faces -1.
    assert [list(g) for g in theirs.cell_data["obj:group_ids"]] == [[-1] * len(c) for _, c in CELLS]
    assert_same_obj(mio.read(path), mesh)


@pytest.mark.parametrize("vt_width", [2, 3])
def test_meshio_files_read_equal_in_ours(tmp_path, vt_width):
    meshio = meshio_module()
    mesh = obj_mesh(vt_width)
    path = tmp_path / "theirs.obj"
    meshio.obj.write(path, meshio.Mesh(np.asarray(mesh.points), CELLS,
                                       point_data={k: np.asarray(v) for k, v in mesh.point_data.items()}))
    # meshio writes bare "f v" corners; as many vt/vn as v still make them per-point data.
    ours = mio.read(path)
    assert_same_obj(ours, mesh)
    assert ours.field_data == {}


def test_regions_reach_meshio_as_group_numbers(tmp_path):
    # Cell regions become "g" lines. meshio keeps no names: it numbers every "g" line anew, so
    # a group that comes back ("g a" twice) gets two numbers; meshio++ reads the regions back.
    meshio = meshio_module()
    mesh = obj_mesh()
    mesh.cell_sets = {"a": [np.array([0, 1]), np.array([], dtype=int), np.array([1])],
                      "b": [np.array([2]), np.array([0, 1]), np.array([0])]}
    path = tmp_path / "groups.obj"
    mio.obj.write(path, mesh)
    theirs = meshio.read(path)
    # Faces in file order: tri0 tri1 (a), tri2 (b), quad0 quad1 (b), poly0 (b), poly1 (a).
    assert [c.type for c in theirs.cells] == ["triangle", "triangle", "quad", "polygon", "polygon"]
    assert [g.tolist() for g in theirs.cell_data["obj:group_ids"]] == [[0, 0], [1], [1, 1], [1], [2]]
    ours = mio.read(path)
    for name, arrays in mesh.cell_sets.items():
        for got, want in zip(ours.cell_sets[name], arrays):
            np.testing.assert_array_equal(np.asarray(got), want)


def test_vertices_and_lines_reach_meshio_as_polygons(tmp_path):
    # We write 1- and 2-corner cells as "f" lines (read back as vertex/line); meshio 5.3.5
    # names every face that is not a triangle or quad "polygon", so they come back as
    # polygon blocks of width 1 and 2. Its writer refuses vertex and line cells outright.
    meshio = meshio_module()
    points = np.random.default_rng(8).random((4, 3))
    cells = [("triangle", np.array([[0, 1, 2]])), ("vertex", np.array([[3]])), ("line", np.array([[2, 3], [0, 3]]))]
    path = tmp_path / "low_dim.obj"
    mio.obj.write(path, mio.Mesh(points, cells))
    theirs = meshio.read(path)
    assert [(c.type, c.data.tolist()) for c in theirs.cells] == [
        ("triangle", [[0, 1, 2]]), ("polygon", [[3]]), ("polygon", [[2, 3], [0, 3]])]
    ours = mio.read(path)
    assert [(c.type, np.asarray(c.data).tolist()) for c in ours.cells] == [(t, c.tolist()) for t, c in cells]
    with pytest.raises(meshio.WriteError):
        meshio.obj.write(tmp_path / "theirs.obj", meshio.Mesh(points, cells))


def test_meshio_refuses_per_corner_texture_coordinates(tmp_path):
    # A UV seam: more vt than v, so the coordinates belong to corners, not points. We keep
    # them as field data "obj:vt" plus cell data "obj:vt_index" and write them back as such;
    # meshio 5.3.5 makes point data of any vt list and its Mesh refuses the length.
    meshio = meshio_module()
    source = tmp_path / "seam.obj"
    source.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
                      "vt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nvt 0.5 0.25\n"
                      "f 1/1 2/2 3/3\nf 2/5 4/4 3/3\n")
    seam = mio.read(source)
    path = tmp_path / "ours.obj"
    mio.obj.write(path, seam)
    with pytest.raises(ValueError, match="obj:vt"):
        meshio.read(path)
    again = mio.read(path)
    np.testing.assert_array_equal(np.asarray(again.field_data["obj:vt"]), np.asarray(seam.field_data["obj:vt"]))
    np.testing.assert_array_equal(np.asarray(again.cell_data["obj:vt_index"][0]), [[0, 1, 2], [4, 3, 2]])
