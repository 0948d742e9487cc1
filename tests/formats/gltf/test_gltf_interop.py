"""glTF 2.0 through meshio++, trimesh and VTK's vtkGLTFReader, both directions.

Reading: the sample files (tests/data/gltf) give the scene trimesh and VTK dump: the same
triangles at the same world coordinates (compared as the coordinates of every triangle corner,
which does not depend on how points are shared between primitives), the same counts where the
sharing agrees. Writing: what we write is read back by trimesh and VTK into equal arrays, and
passes the validator's structural checks (alignment, bounds, POSITION min/max)."""

import json
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import meshioplusplus as mio
from interop import data_files

DATA = Path(__file__).resolve().parents[2] / "data" / "gltf"
SAMPLE_PATHS = {p.name: p for p in data_files(DATA, [".gltf", ".glb"])}  # mode5.gltf ships gzip'd
SAMPLES = sorted(SAMPLE_PATHS)
PEER = Path(__file__).resolve().parents[3] / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"


def corners(points, triangles):
    """Coordinates of every triangle corner, rows sorted: independent of point numbering."""
    xyz = np.asarray(points, dtype=np.float64)[np.asarray(triangles).reshape(-1)]
    return xyz


def our_triangles(mesh):
    blocks = [np.asarray(c.data) for c in mesh.cells if c.type == "triangle"]
    return np.concatenate(blocks) if blocks else np.zeros((0, 3), dtype=np.int64)


def trimesh_scene(path):
    trimesh = pytest.importorskip("trimesh", reason="trimesh is the reference glTF reader")
    scene = trimesh.load(str(path), force="scene", process=False)
    return [g for g in scene.dump(concatenate=False) if hasattr(g, "faces")]


def vtk_polydata(path):
    vtk = pytest.importorskip("vtk", reason="VTK's vtkGLTFReader is a reference glTF reader")
    from vtk.util.numpy_support import vtk_to_numpy

    reader = vtk.vtkGLTFReader()
    reader.SetFileName(str(path))
    reader.Update()
    append = vtk.vtkAppendPolyData()
    iterator = reader.GetOutput().NewIterator()
    iterator.InitTraversal()
    while not iterator.IsDoneWithTraversal():
        append.AddInputData(iterator.GetCurrentDataObject())
        iterator.GoToNextItem()
    append.Update()
    triangulate = vtk.vtkTriangleFilter()  # strips (mode 5) come as strip cells
    triangulate.SetInputData(append.GetOutput())
    triangulate.PassLinesOff()
    triangulate.PassVertsOff()
    triangulate.Update()
    poly = triangulate.GetOutput()
    points = vtk_to_numpy(poly.GetPoints().GetData()) if poly.GetNumberOfPoints() else np.zeros((0, 3))
    triangles = vtk_to_numpy(poly.GetPolys().GetConnectivityArray()).reshape(-1, 3) if poly.GetNumberOfPolys() else np.zeros((0, 3), dtype=np.int64)
    return points, triangles


@pytest.mark.parametrize("name", SAMPLES)
def test_samples_match_trimesh(name):
    ours = mio.read(SAMPLE_PATHS[name])
    geometries = trimesh_scene(SAMPLE_PATHS[name])
    triangles = our_triangles(ours)
    assert len(triangles) == sum(len(g.faces) for g in geometries)
    if name != "mode5.gltf":  # trimesh copies a mesh's shared POSITION for each of its primitives
        assert len(ours.points) == sum(len(g.vertices) for g in geometries)
    if len(triangles):
        theirs = np.concatenate([corners(g.vertices, g.faces) for g in geometries])
        mine = corners(ours.points, triangles)
        np.testing.assert_allclose(mine.sum(axis=0), theirs.sum(axis=0), rtol=1e-9, atol=1e-6)
        np.testing.assert_allclose(np.sort(mine, axis=0), np.sort(theirs, axis=0), rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize("name", [n for n in SAMPLES if n != "empty_nodes.glb"])
def test_samples_match_vtk(name):
    ours = mio.read(SAMPLE_PATHS[name])
    points, triangles = vtk_polydata(SAMPLE_PATHS[name])
    mine = our_triangles(ours)
    assert len(mine) == len(triangles)
    # VTK keeps degenerate strip triangles out; compare the corner multisets' sums and extents.
    np.testing.assert_allclose(
        corners(ours.points, mine).sum(axis=0), corners(points, triangles).sum(axis=0), rtol=1e-6, atol=1e-4
    )


def test_point_data_names_and_transformed_normals():
    mesh = mio.read(DATA / "BoxTextured.glb")
    assert {"NORMAL", "TEXCOORD_0"} <= set(mesh.point_data)
    geometry = trimesh_scene(DATA / "BoxTextured.glb")[0]
    np.testing.assert_allclose(mesh.point_data["TEXCOORD_0"], geometry.visual.uv * [1, -1] + [0, 1], atol=1e-6)
    # nested.glb: normals under three nested non-uniform scales stay unit length.
    nested = mio.read(DATA / "nested.glb")
    if "NORMAL" in nested.point_data:
        np.testing.assert_allclose(np.linalg.norm(nested.point_data["NORMAL"], axis=1), 1, atol=1e-5)


def glb_json(path):
    data = Path(path).read_bytes()
    magic, version, length = struct.unpack_from("<III", data, 0)
    assert (magic, version, length) == (0x46546C67, 2, len(data))
    json_length, json_type = struct.unpack_from("<II", data, 12)
    assert json_type == 0x4E4F534A and json_length % 4 == 0
    document = json.loads(data[20 : 20 + json_length])
    bin_length, bin_type = struct.unpack_from("<II", data, 20 + json_length)
    assert bin_type == 0x004E4942 and bin_length % 4 == 0
    return document, data[28 + json_length : 28 + json_length + bin_length]


def validate(document, buffer):
    """The structural checks of the Khronos validator that concern geometry."""
    assert document["asset"]["version"] == "2.0"
    assert document["buffers"][0]["byteLength"] == len(buffer)
    for view in document["bufferViews"]:
        assert view["byteOffset"] % 4 == 0
        assert view["byteOffset"] + view["byteLength"] <= len(buffer)
    sizes = {5121: 1, 5123: 2, 5125: 4, 5126: 4}
    widths = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
    for mesh in document["meshes"]:
        for primitive in mesh["primitives"]:
            position = document["accessors"][primitive["attributes"]["POSITION"]]
            view = document["bufferViews"][position["bufferView"]]
            values = np.frombuffer(buffer, np.float32, position["count"] * 3, view["byteOffset"]).reshape(-1, 3)
            assert position["min"] == values.min(axis=0).tolist() and position["max"] == values.max(axis=0).tolist()
            for semantic, index in primitive["attributes"].items():
                assert semantic.startswith("_") or semantic.split("_")[0] in (
                    "POSITION", "NORMAL", "TANGENT", "TEXCOORD", "COLOR", "JOINTS", "WEIGHTS")
            indices = document["accessors"][primitive["indices"]]
            assert indices["componentType"] in (5123, 5125)
            view = document["bufferViews"][indices["bufferView"]]
            assert view["target"] == 34963
            values = np.frombuffer(buffer, {5123: np.uint16, 5125: np.uint32}[indices["componentType"]], indices["count"], view["byteOffset"])
            assert values.max() < position["count"]
    for accessor in document["accessors"]:
        view = document["bufferViews"][accessor["bufferView"]]
        assert accessor["count"] * widths[accessor["type"]] * sizes[accessor["componentType"]] <= view["byteLength"]


def sphere(subdivisions=3):
    trimesh = pytest.importorskip("trimesh", reason="trimesh makes the test sphere")
    s = trimesh.creation.icosphere(subdivisions=subdivisions)
    normals = np.asarray(s.vertex_normals, dtype=np.float32)
    return mio.Mesh(np.asarray(s.vertices, dtype=np.float32), [("triangle", np.asarray(s.faces))],
                    point_data={"NORMAL": normals, "temperature": np.arange(len(s.vertices), dtype=np.float64)})


@pytest.mark.parametrize("suffix,options", [(".glb", {}), (".gltf", {}), (".gltf", {"embed_buffers": True})])
def test_what_we_write_reads_equal_in_trimesh_and_vtk(tmp_path, suffix, options):
    mesh = sphere()
    path = tmp_path / f"sphere{suffix}"
    mio.write(path, mesh, **options) if options else mio.write(path, mesh)
    if suffix == ".glb":
        validate(*glb_json(path))
    else:
        document = json.loads(path.read_text())
        uri = document["buffers"][0]["uri"]
        if uri.startswith("data:"):
            import base64

            buffer = base64.b64decode(uri.split(",", 1)[1])
        else:
            buffer = (tmp_path / uri).read_bytes()
        validate(document, buffer)
    back = mio.read(path)
    np.testing.assert_array_equal(back.points, mesh.points)
    np.testing.assert_array_equal(back.cells[0].data, mesh.cells[0].data)
    np.testing.assert_array_equal(back.point_data["NORMAL"], mesh.point_data["NORMAL"])
    np.testing.assert_array_equal(back.point_data["_temperature"], mesh.point_data["temperature"].astype(np.float32))
    (geometry,) = trimesh_scene(path)
    np.testing.assert_array_equal(np.asarray(geometry.vertices, dtype=np.float32), mesh.points)
    np.testing.assert_array_equal(geometry.faces, mesh.cells[0].data)
    points, triangles = vtk_polydata(path)
    np.testing.assert_array_equal(points, mesh.points)
    np.testing.assert_array_equal(triangles, mesh.cells[0].data)


def test_round_trip_gltf_to_glb_and_back(tmp_path):
    first = mio.read(DATA / "CesiumMilkTruck.glb")
    mio.write(tmp_path / "truck.gltf", first)
    second = mio.read(tmp_path / "truck.gltf")
    mio.write(tmp_path / "truck.glb", second)
    third = mio.read(tmp_path / "truck.glb")
    np.testing.assert_array_equal(third.points, np.asarray(first.points, dtype=np.float32))
    np.testing.assert_array_equal(our_triangles(third), our_triangles(first))


def _area(points, triangles):
    a, b, c = (points[triangles[:, k]] for k in range(3))
    return 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1).sum()


def test_quadratic_surfaces_are_written_as_their_sub_triangles(tmp_path):
    """The surface of a real tetra10 mesh (triangle6) goes to glTF as 4 triangles per cell over
    all its nodes, outward like the cell: trimesh and VTK read the same triangles and area."""
    source = next(DATA.parent.rglob("quadratic_sphere_tet.msh"))
    surface = mio.extract_surface(mio.read(source))
    assert [b.type for b in surface.cells] == ["triangle6"]
    six = surface.cells[0].data
    mio.write(tmp_path / "quadratic.glb", surface)
    back = mio.read(tmp_path / "quadratic.glb")
    triangles = np.concatenate([b.data for b in back.cells if b.type == "triangle"])
    assert len(triangles) == 4 * len(six)
    assert set(np.unique(triangles)) == set(np.unique(six))  # every node is a vertex
    points = np.asarray(back.points, dtype=float)
    first = triangles[:4]  # cell 0: (0,3,5) (3,1,4) (5,4,2) (3,4,5) of its nodes
    np.testing.assert_array_equal(first, six[0][[[0, 3, 5], [3, 1, 4], [5, 4, 2], [3, 4, 5]]])
    # same orientation as the corner triangle: each sub-triangle's normal along the cell's
    corner_normal = np.cross(points[six[:, 1]] - points[six[:, 0]], points[six[:, 2]] - points[six[:, 0]])
    for k in range(4):
        sub = triangles[k::4]
        normal = np.cross(points[sub[:, 1]] - points[sub[:, 0]], points[sub[:, 2]] - points[sub[:, 0]])
        assert (np.einsum("ij,ij->i", normal, corner_normal) > 0).all()
    trimesh = pytest.importorskip("trimesh", reason="trimesh is the reference glTF reader (requirements-test.txt)")
    scene = trimesh.load(tmp_path / "quadratic.glb", process=False)
    geometry = scene.to_geometry() if hasattr(scene, "to_geometry") else scene
    assert len(geometry.faces) == len(triangles)
    assert np.isclose(geometry.area, _area(points, triangles), rtol=1e-6)
    lines = mio.Mesh(np.array([[0.0, 0, 0], [2, 0, 0], [1, 0.1, 0]]), [("line3", np.array([[0, 1, 2]]))])
    mio.write(tmp_path / "line3.glb", lines)
    assert mio.read(tmp_path / "line3.glb").cells[0].data.tolist() == [[0, 2], [2, 1]]


def test_volume_cells_are_refused(tmp_path):
    mesh = mio.Mesh(np.eye(4, 3), [("tetra", np.array([[0, 1, 2, 3]]))])
    with pytest.raises(mio.WriteError, match="tetra"):
        mio.write(tmp_path / "t.glb", mesh)


@pytest.mark.parametrize("damage", ["truncate", "bad_base64", "view_past_buffer"])
def test_hostile_files_raise_read_error(tmp_path, damage):
    text = (DATA / "rgb_cube_with_primitives.gltf").read_text()
    if damage == "truncate":
        text = text[: len(text) // 2]
    elif damage == "bad_base64":
        text = text.replace("base64,", "base64,*", 1)
    else:
        document = json.loads(text)
        document["bufferViews"][0]["byteLength"] += 10**6
        text = json.dumps(document)
    path = tmp_path / "bad.gltf"
    path.write_text(text)
    with pytest.raises(mio.ReadError):
        mio.read(path)


@pytest.mark.skipif(not PEER.exists(), reason="meshio++ 17.21 peer venv (bench/.venv-meshioplusplus-17) absent")
@pytest.mark.parametrize("name", ["CesiumMilkTruck.glb", "TestScene.gltf", "nested.glb", "mode5.gltf"])
def test_counts_match_meshioplusplus_17(name):
    script = (
        "import sys, meshioplusplus as m; x = m.read(sys.argv[1]); "
        "print(sum(len(c.data) for c in x.cells if c.type == 'triangle'))"
    )
    peer = subprocess.run([str(PEER), "-c", script, str(SAMPLE_PATHS[name])], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    assert peer.returncode == 0, peer.stderr
    assert int(peer.stdout.split()[-1]) == len(our_triangles(mio.read(SAMPLE_PATHS[name])))


def test_unique_geometry_from_python():
    # meshioplusplus.gltf.read(expand_instances=False): each mesh once, untransformed — the
    # truck's wheels mesh, placed by two nodes, once; trimesh's geometry dict holds it once too.
    trimesh = pytest.importorskip("trimesh", reason="trimesh lists the scene's unique geometry")
    path = DATA / "CesiumMilkTruck.glb"
    expanded = mio.read(path)
    unique = mio.gltf.read(path, expand_instances=False)
    assert len(unique.points) < len(expanded.points)
    scene = trimesh.load(str(path), force="scene")
    assert sum(len(g.faces) for g in scene.geometry.values()) == sum(len(b.data) for b in unique.cells)
    assert sum(len(b.data) for b in mio.gltf.read(path).cells) == sum(len(b.data) for b in expanded.cells)
