"""Structured grids (.vts/.vtr/.vti) read from Python keep the geometry the file only implies
— the cells of all three, the points of .vtr and .vti — unmade until first used, as VTK's own
readers do. Made, it must equal what the C++ reader builds at once, bit for bit, and nothing a
user can do with the mesh (copy, pickle, write, replace arrays) may tell the difference."""

import copy
import pickle

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core
from meshioplusplus._conversion import from_core


def explicit_read(path, format_name):
    """The C++ reader's mesh, points and cells built during the read."""
    return from_core(_core.read(str(path), format_name))


def image_mesh(dims=(5, 4, 3), start=(2, -1, 7)):
    """A structured mesh carrying an ImageData geometry with a rotated Direction."""
    extent = np.array([start[0], start[0] + dims[0] - 1, start[1], start[1] + dims[1] - 1,
                       start[2], start[2] + dims[2] - 1], dtype=np.int64)
    angle = 0.3
    direction = np.array([np.cos(angle), -np.sin(angle), 0, np.sin(angle), np.cos(angle), 0, 0, 0, 1])
    field_data = {"vtk:WholeExtent": extent, "vtk:Origin": np.array([0.5, -1.25, 3.0]),
                  "vtk:Spacing": np.array([0.1, 0.2, 0.7]), "vtk:Direction": direction}
    points = _core.image_grid_points([int(v) for v in extent], [0.5, -1.25, 3.0], [0.1, 0.2, 0.7], list(direction))
    made = _core.structured_grid_cells(list(dims))  # None: a single point spans no cell
    point_data = {"T": np.arange(len(points), dtype=np.float64) * 0.5}
    if made is None:
        return mio.Mesh(points, [], point_data=point_data, field_data=field_data)
    kind, cells = made
    return mio.Mesh(points, [(kind, cells)], point_data=point_data,
                    cell_data={"id": [np.arange(len(cells), dtype=np.int32)]}, field_data=field_data)


def rectilinear_mesh(dtype):
    x = np.array([0.0, 0.5, 1.5, 4.0], dtype=dtype)
    y = np.array([-2.0, 1.0, 1.25], dtype=dtype)
    z = np.array([3.0, 3.5], dtype=dtype)
    zz, yy, xx = np.meshgrid(z, y, x, indexing="ij")
    points = np.stack([xx.ravel(), yy.ravel(), zz.ravel()], axis=1)
    kind, cells = _core.structured_grid_cells([4, 3, 2])
    return mio.Mesh(points, [(kind, cells)], point_data={"T": points[:, 0] * 2},
                    field_data={"vtk:WholeExtent": np.array([0, 3, 0, 2, 0, 1])})


@pytest.mark.parametrize("encoding", [{"binary": False}, {"binary": True, "compression": "zlib"},
                                      {"binary": True, "compression": None}])
@pytest.mark.parametrize("suffix", ["vti", "vts", "vtr"])
def test_made_geometry_equals_the_explicit_read(tmp_path, suffix, encoding):
    source = image_mesh() if suffix != "vtr" else rectilinear_mesh(np.float64)
    path = tmp_path / f"grid.{suffix}"
    mio.write(path, source, **encoding)
    mesh = mio.read(path)
    block = mesh.cells[0]
    assert block.is_deferred
    assert len(block) == len(source.cells[0].data)
    assert mesh.points_deferred == (suffix != "vts")
    text = repr(mesh)  # counts without making anything
    assert f"hexahedron: {len(source.cells[0].data)}" in text
    assert block.is_deferred and mesh.points_deferred == (suffix != "vts")
    np.testing.assert_array_equal(mesh.point_data["T"], source.point_data["T"])

    reference = explicit_read(path, suffix)
    assert mesh.points.dtype == reference.points.dtype
    np.testing.assert_array_equal(mesh.points, reference.points)
    np.testing.assert_array_equal(mesh.cells[0].data, reference.cells[0].data)
    assert mesh.cells[0].data.dtype == reference.cells[0].data.dtype
    assert not mesh.cells[0].is_deferred
    assert mesh.cells[0].type == reference.cells[0].type
    for name in reference.field_data:
        np.testing.assert_array_equal(mesh.field_data[name], reference.field_data[name])


def test_float32_coordinates_give_float32_points(tmp_path):
    # Our writer stores float64 coordinates; VTK's keeps float32 ones as they are.
    path = tmp_path / "grid.vtr"
    path.write_text(
        '<?xml version="1.0"?><VTKFile type="RectilinearGrid" version="1.0">'
        '<RectilinearGrid WholeExtent="0 3 1 3 0 1"><Piece Extent="0 3 1 3 0 1"><Coordinates>'
        '<DataArray type="Float32" format="ascii">0 0.5 1.5 4</DataArray>'
        '<DataArray type="Float32" format="ascii">-2 1 1.25</DataArray>'
        '<DataArray type="Float32" format="ascii">3 3.5</DataArray>'
        '</Coordinates></Piece></RectilinearGrid></VTKFile>')
    mesh = mio.read(path)
    assert mesh.points_deferred
    reference = explicit_read(path, "vtr")
    assert reference.points.dtype == np.float32
    assert mesh.points.dtype == np.float32
    np.testing.assert_array_equal(mesh.points, reference.points)


@pytest.mark.parametrize("dims,kind", [((6, 1, 1), "line"), ((1, 4, 5), "quad"), ((3, 1, 4), "quad"),
                                       ((1, 1, 1), None)])
def test_flat_grids_give_lines_quads_or_no_cells(tmp_path, dims, kind):
    source = image_mesh(dims=dims)
    path = tmp_path / "flat.vti"
    mio.write(path, source)
    mesh = mio.read(path)
    reference = explicit_read(path, "vti")
    if kind is None:
        assert mesh.cells == [] and reference.cells == []
    else:
        assert mesh.cells[0].type == kind == reference.cells[0].type
        assert len(mesh.cells[0]) == len(reference.cells[0].data)
        np.testing.assert_array_equal(mesh.cells[0].data, reference.cells[0].data)
    np.testing.assert_array_equal(mesh.points, reference.points)


def test_copies_and_pickles_carry_the_arrays(tmp_path):
    path = tmp_path / "grid.vti"
    mio.write(path, image_mesh())
    reference = explicit_read(path, "vti")
    for make_copy in (copy.deepcopy, copy.copy, lambda m: pickle.loads(pickle.dumps(m)), lambda m: m.copy()):
        mesh = mio.read(path)
        copied = make_copy(mesh)
        np.testing.assert_array_equal(copied.points, reference.points)
        np.testing.assert_array_equal(copied.cells[0].data, reference.cells[0].data)
        np.testing.assert_array_equal(copied.cells_dict["hexahedron"], reference.cells[0].data)


def test_the_recipe_is_the_files_not_the_field_data(tmp_path):
    path = tmp_path / "grid.vti"
    mio.write(path, image_mesh())
    mesh = mio.read(path)
    mesh.field_data["vtk:Origin"][:] = 1000.0  # edited before the points are made
    np.testing.assert_array_equal(mesh.points, explicit_read(path, "vti").points)


def test_assigning_before_first_use_replaces_the_recipe(tmp_path):
    path = tmp_path / "grid.vti"
    mio.write(path, image_mesh())
    mesh = mio.read(path)
    replacement = np.zeros((len(mesh.point_data["T"]), 3))
    mesh.points = replacement
    assert mesh.points is replacement
    mesh.cells[0].data = mesh.cells[0].data[:, ::-1].copy()
    np.testing.assert_array_equal(mesh.cells[0].data[0], explicit_read(path, "vti").cells[0].data[0][::-1])


@pytest.mark.parametrize("target", ["vti", "vtu", "vtk", "xdmf"])
def test_a_deferred_mesh_writes_like_the_explicit_one(tmp_path, target):
    path = tmp_path / "grid.vti"
    mio.write(path, image_mesh())
    deferred_out, explicit_out = tmp_path / f"a.{target}", tmp_path / f"b.{target}"
    mio.write(deferred_out, mio.read(path))
    mio.write(explicit_out, explicit_read(path, "vti"))
    a, b = mio.read(deferred_out), mio.read(explicit_out)
    np.testing.assert_array_equal(a.points, b.points)
    np.testing.assert_array_equal(a.cells[0].data, b.cells[0].data)
    np.testing.assert_array_equal(a.point_data["T"], b.point_data["T"])
    np.testing.assert_array_equal(a.cell_data["id"][0], b.cell_data["id"][0])


def test_bad_structured_files_still_fail_at_read(tmp_path):
    path = tmp_path / "bad.vti"
    path.write_text('<?xml version="1.0"?><VTKFile type="ImageData" version="1.0">'
                    '<ImageData WholeExtent="0 3 0 3 0 3"><Piece Extent="0 9 0 3 0 3"></Piece></ImageData></VTKFile>')
    with pytest.raises(mio.ReadError, match="outside WholeExtent"):
        mio.read(path)


def test_the_gpu_payload_sees_made_arrays(tmp_path):
    path = tmp_path / "grid.vti"
    mio.write(path, image_mesh())
    reference = explicit_read(path, "vti")
    mesh = mio.read(path)
    payload = mio.to_dlpack(mesh)
    np.testing.assert_array_equal(np.from_dlpack(payload.points), reference.points)
    np.testing.assert_array_equal(np.from_dlpack(payload.cells[0].data), reference.cells[0].data)
    assert "points" in payload.shared  # the made array is the mesh's own, shared, not copied again


@pytest.mark.parametrize("suffix", ["vti", "vtr", "vts"])
def test_reads_inside_an_allocator_block_make_everything_from_it(tmp_path, suffix):
    # pinned_reads() promises that every array a read returns is page-locked: nothing may be
    # left to be made after the block, by whatever allocator is current then.
    from meshioplusplus._allocation import allocation_owner, allocator_installed

    source = image_mesh() if suffix != "vtr" else rectilinear_mesh(np.float64)
    path = tmp_path / f"grid.{suffix}"
    mio.write(path, source)
    owners = []
    with allocator_installed(lambda nbytes: owners.append(bytearray(nbytes)) or owners[-1]):
        mesh = mio.read(path)
    assert not mesh.points_deferred and not mesh.cells[0].is_deferred
    for array in (mesh.points, mesh.cells[0].data, mesh.point_data["T"]):
        assert allocation_owner(array) is not None
    np.testing.assert_array_equal(mesh.points, explicit_read(path, suffix).points)
    del mesh


def test_pickles_of_meshes_from_before_points_was_a_property_still_load():
    mesh = mio.Mesh(np.eye(3), [("triangle", [[0, 1, 2]])])
    legacy = dict(mesh.__dict__)
    legacy["points"] = legacy.pop("_points")
    del legacy["_make_points"]
    restored = mio.Mesh.__new__(mio.Mesh)
    restored.__setstate__(legacy)
    np.testing.assert_array_equal(restored.points, np.eye(3))
    assert not restored.points_deferred
    assert pickle.loads(pickle.dumps(restored)).points.tolist() == np.eye(3).tolist()


def test_threads_asking_at_once_all_get_the_arrays_the_mesh_keeps(tmp_path):
    import threading

    path = tmp_path / "grid.vti"
    mio.write(path, image_mesh(dims=(40, 30, 20)))
    for _ in range(5):
        mesh = mio.read(path)
        start = threading.Barrier(8)
        seen = []

        def ask():
            start.wait()
            seen.append((mesh.points, mesh.cells[0].data))

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert all(points is mesh.points and cells is mesh.cells[0].data for points, cells in seen)

