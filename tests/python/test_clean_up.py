"""Clean-up operations (meshio 4's ``prune_z_0`` / ``remove_orphaned_nodes`` /
``remove_lower_dimensional_cells`` / ``prune``, plus ``merge_points`` and ``transform``) on real
files: the FEniCS recipe on a Gmsh 2-D mesh, PyVista's ``clean`` as the reference for welding,
and the CLI flags of ``convert``."""

import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio
from conftest import corpus_file


def _insulated():
    return mio.read(corpus_file("gmsh/insulated-2.2.msh"))


def test_the_fenics_recipe_on_a_gmsh_2d_mesh(tmp_path):
    mesh = _insulated()
    triangles = mesh.get_cells_type("triangle")
    physical = mesh.get_cell_data("gmsh:physical", "triangle")
    points = mesh.points[:, :2]  # what every FEniCS user writes by hand with meshio 5
    assert mesh.prune_z_0() is True
    assert mesh.remove_lower_dimensional_cells() == 21
    assert [c.type for c in mesh.cells] == ["triangle"]
    np.testing.assert_array_equal(mesh.points, points)
    np.testing.assert_array_equal(mesh.cells[0].data, triangles)
    np.testing.assert_array_equal(mesh.cell_data["gmsh:physical"][0], physical)
    # the boundary group (lines) went with its cells; the two subdomains stay, renumbered
    assert {r.name: len(r.entries) for r in mesh.regions} == {"wire": 45, "insulation": 66}
    wire = mesh.region("wire")
    assert set(mesh.cell_data["gmsh:physical"][0][wire.entries]) == {1}
    assert mesh.remove_orphaned_nodes() == 0  # every point is a triangle corner
    mio.write(tmp_path / "domain.xdmf", mesh)  # the file DOLFINx reads: triangles only, 2-D points
    back = mio.read(tmp_path / "domain.xdmf")
    np.testing.assert_array_equal(back.points, mesh.points)
    assert [c.type for c in back.cells] == ["triangle"]


def test_side_regions_first_keep_the_boundary_group():
    mesh = _insulated()
    mio.derive_side_regions(mesh)
    mesh.prune()
    kinds = {(r.name, r.kind) for r in mesh.regions}
    assert ("convection", mio.RegionKind.SIDE) in kinds and ("convection", mio.RegionKind.CELL) not in kinds
    side = mesh.region("convection", mio.RegionKind.SIDE)
    assert side.entries.shape == (21, 2) and side.entries[:, 0].max() < len(mesh.cells[0])


def test_prune_is_meshio_4s_two_steps():
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [7, 7, 7.0]])
    mesh = mio.Mesh(points, [("vertex", np.array([[3]])), ("triangle", np.array([[0, 1, 2]]))],
                    point_data={"p": np.arange(4.0)}, cell_data={"c": [np.array([5]), np.array([6])]})
    mesh.prune()
    assert len(mesh.points) == 3 and mesh.point_data["p"].tolist() == [0, 1, 2]
    assert [c.type for c in mesh.cells] == ["triangle"]
    assert list(mesh.cell_data) == ["c"] and [a.tolist() for a in mesh.cell_data["c"]] == [[6]]
    assert mesh.prune_z_0() is True and mesh.points.shape == (3, 2)


def _exploded(mesh):
    """Every cell with points of its own (a mesh as some exporters write it)."""
    block = mesh.cells[0]
    points = mesh.points[block.data.ravel()]
    cells = np.arange(points.shape[0]).reshape(block.data.shape)
    return mio.Mesh(points, [(block.type, cells)], point_data={"id": np.arange(len(points))})


def test_merge_points_matches_pyvista_clean():
    pv = pytest.importorskip("pyvista")
    mesh = _insulated()
    mesh.remove_lower_dimensional_cells()
    exploded = _exploded(mesh)
    n = len(exploded.points)
    removed = exploded.merge_points()
    grid = pv.from_meshio(_exploded(mesh)).clean(tolerance=0.0, remove_unused_points=True, produce_merge_map=False)
    assert len(exploded.points) == n - removed == grid.n_points == len(mesh.points)
    # the same triangles, by their coordinates
    ours = np.sort(np.sort(exploded.points[exploded.cells[0].data].round(12), axis=1).reshape(len(exploded.cells[0]), -1), axis=0)
    theirs = np.sort(np.sort(mesh.points[mesh.cells[0].data].round(12), axis=1).reshape(len(mesh.cells[0]), -1), axis=0)
    np.testing.assert_array_equal(ours, theirs)
    # the first of each welded group keeps its data: ids stay increasing
    assert np.all(np.diff(exploded.point_data["id"]) > 0)


def test_merge_points_with_a_tolerance_welds_noisy_copies():
    pv = pytest.importorskip("pyvista")
    mesh = _insulated()
    mesh.remove_lower_dimensional_cells()
    exploded = _exploded(mesh)
    rng = np.random.default_rng(7)
    exploded.points = exploded.points + rng.uniform(-1e-9, 1e-9, exploded.points.shape)
    reference = pv.from_meshio(exploded).clean(tolerance=1e-6)  # an absolute tolerance for UnstructuredGrid
    n = len(exploded.points)
    assert exploded.merge_points(1e-6) == n - len(mesh.points)
    assert len(exploded.points) == reference.n_points == len(mesh.points)


def test_transform_and_its_errors():
    mesh = _insulated()
    before = mesh.points.copy()
    rotation = np.array([[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 1, 3.0]])
    mesh.transform(rotation)
    np.testing.assert_allclose(mesh.points, before @ rotation[:, :3].T + rotation[:, 3])
    with pytest.raises(ValueError, match="shape \\(2, 2\\) for points with 3 columns"):
        mesh.transform(np.eye(2))
    with pytest.raises(ValueError, match="tolerance must be finite"):
        mesh.merge_points(-1)


def test_a_clean_up_hands_back_the_arrays_it_left_alone_and_never_writes_into_the_callers():
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [5, 5, 5]])
    tets = np.array([[0, 1, 2, 3]])
    temperature = np.arange(5.0)
    mesh = mio.Mesh(points, [("tetra", tets)], point_data={"T": temperature}, cell_data={"m": [np.array([7])]})
    cells, data, cell_data = mesh.cells[0].data, mesh.point_data["T"], mesh.cell_data["m"][0]
    mesh.transform(np.diag([2.0, 2.0, 2.0]))
    # transform moves the points only: the cells and data are the caller's own arrays, not copies
    assert mesh.cells[0].data is cells and mesh.point_data["T"] is data and mesh.cell_data["m"][0] is cell_data
    assert mesh.points is not points and points[1, 0] == 1.0 and mesh.points[1, 0] == 2.0
    assert mesh.merge_points(0) == 0 and mesh.cells[0].data is cells  # nothing welded: nothing new
    assert mesh.remove_orphaned_nodes() == 1  # renumbered: new arrays, the caller's untouched
    assert len(mesh.points) == 4 and mesh.point_data["T"] is not data and len(data) == 5
    np.testing.assert_array_equal(mesh.cells[0].data, tets)


def test_convert_flags(tmp_path):
    out = tmp_path / "out.vtu"
    result = subprocess.run([sys.executable, "-m", "meshioplusplus", "convert", str(corpus_file("gmsh/insulated-2.2.msh")),
                             str(out), "--remove-lower-dimensional-cells", "--merge-points", "0", "--remove-orphans",
                             "--prune-z-0"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "removed 21 lower-dimensional cells" in result.stderr
    back = mio.read(out)
    assert [(c.type, len(c)) for c in back.cells] == [("triangle", 111)]
    bad = subprocess.run([sys.executable, "-m", "meshioplusplus", "convert", str(corpus_file("gmsh/insulated-2.2.msh")),
                          str(out), "--merge-points", "-1"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--merge-points takes a tolerance >= 0" in bad.stderr


# ---- extract_surface ---------------------------------------------------------------------


def _sphere_tets():
    mesh = mio.read(corpus_file("gmsh/quadratic_sphere_tet.msh"))
    return mio.Mesh(mesh.points, [c for c in mesh.cells if c.type == "tetra10"],
                    cell_data={"g": [mesh.cell_data["gmsh:geometrical"][-1]]})


def test_extract_surface_of_quadratic_tets_matches_pyvista():
    pv = pytest.importorskip("pyvista")
    tets = _sphere_tets()
    surface = tets.extract_surface()
    theirs = pv.from_meshio(tets).extract_surface(nonlinear_subdivision=0, algorithm="dataset_surface")
    assert [(c.type, len(c)) for c in surface.cells] == [("triangle6", theirs.n_cells)] == [("triangle6", 322)]
    assert len(surface.points) == 646 and theirs.n_points == 163  # ours keeps the mid-edge nodes
    corners = surface.points[surface.cells[0].data[:, :3]]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    outward = corners.mean(axis=1) - tets.points.mean(axis=0)  # a ball around its centre
    assert np.all(np.einsum("ij,ij->i", normals, outward) > 0)
    np.testing.assert_allclose(0.5 * np.linalg.norm(normals, axis=1).sum(), theirs.triangulate().area, rtol=1e-6)
    # each facet names the tet it came from, whose cell data it carries
    cell, facet = surface.cell_data["surface:cell"][0], surface.cell_data["surface:facet"][0]
    np.testing.assert_array_equal(surface.cell_data["g"][0], tets.cell_data["g"][0][cell])
    tet_faces = np.array([[0, 1, 3], [1, 2, 3], [0, 3, 2], [0, 2, 1]])  # docs/regions.md numbering
    source = tets.points[tets.cells[0].data[cell[:, None], tet_faces[facet]]]
    np.testing.assert_array_equal(source, corners)
    # then the tet's mid-edge nodes (VTK's tetra10 order) of the facet's edges, corner i to i + 1
    tet_middles = np.array([[4, 8, 7], [5, 9, 8], [7, 9, 6], [6, 5, 4]])
    middles = tets.points[tets.cells[0].data[cell[:, None], tet_middles[facet]]]
    np.testing.assert_array_equal(surface.points[surface.cells[0].data[:, 3:]], middles)


def _vtk_quadratic_faces(mesh):
    """vtkUnstructuredGridGeometryFilter's boundary faces of `mesh` (it keeps quadratic faces
    quadratic), as (VTK class name, source point ids) pairs."""
    pv = pytest.importorskip("pyvista")
    vtk = pytest.importorskip("vtkmodules.vtkFiltersGeometry")
    from vtkmodules.util.numpy_support import vtk_to_numpy

    geometry = vtk.vtkUnstructuredGridGeometryFilter()
    geometry.SetInputData(pv.from_meshio(mesh))
    geometry.PassThroughPointIdsOn()
    geometry.Update()
    out = geometry.GetOutput()
    ids = vtk_to_numpy(out.GetPointData().GetArray("vtkOriginalPointIds"))
    faces = []
    for i in range(out.GetNumberOfCells()):
        face = out.GetCell(i)
        faces.append((face.GetClassName(), tuple(int(ids[face.GetPointId(k)]) for k in range(face.GetNumberOfPoints()))))
    return faces


def _rotated_to(face, first, corners):
    """A quadratic face's node list with its corners (and their mid-edge nodes) rotated so that
    corner `first` leads — the same face as VTK may start it at another corner."""
    at = face[:corners].index(first)
    turn = lambda run: run[at:] + run[:at]
    return turn(face[:corners]) + turn(face[corners:2 * corners]) + face[2 * corners:]


VTK_FACE = {"triangle6": "vtkQuadraticTriangle", "quad8": "vtkQuadraticQuad", "quad9": "vtkBiQuadraticQuad"}


@pytest.mark.parametrize("cell_type", ["tetra10", "hexahedron20", "hexahedron27", "wedge15", "wedge18", "pyramid13"])
def test_extract_surface_of_second_order_cells_equals_vtks_quadratic_faces(cell_type):
    """Cell by cell: the same faces, the same node roles (corners, mid-edge, centre) and the same
    orientation as vtkUnstructuredGridGeometryFilter, on two cells of the type sharing a face."""
    pytest.importorskip("pyvista")
    n = int(cell_type.lstrip("abcdefghijklmnopqrstuvwxyz"))
    rng = np.random.default_rng(n)
    points = rng.random((2 * n, 3))
    cells = np.arange(2 * n).reshape(2, n)
    cells[1, 0], cells[1, 1] = cells[0, 1], cells[0, 0]  # sharing an edge's ends (not a face): every face stays
    mesh = mio.Mesh(points, [(cell_type, cells)])
    surface = mesh.extract_surface()
    key = {tuple(p): i for i, p in enumerate(points.tolist())}  # back to the source's point numbers
    ours = [(VTK_FACE[b.type], tuple(key[tuple(surface.points[i].tolist())] for i in face))
            for b in surface.cells for face in b.data]
    theirs = _vtk_quadratic_faces(mesh)
    assert len(ours) == len(theirs)
    by_nodes = {tuple(sorted(face)): (name, face) for name, face in theirs}
    for name, face in ours:
        their_name, their_face = by_nodes[tuple(sorted(face))]
        corners = 3 if name == "vtkQuadraticTriangle" else 4
        assert (name, face) == (their_name, _rotated_to(their_face, face[0], corners))


def test_extract_surface_of_a_quadratic_2d_mesh_is_its_line3_edges():
    pv = pytest.importorskip("pyvista")
    mesh = mio.read(corpus_file("gmsh/quadratic_sphere_tet.msh"))
    triangles = mio.Mesh(mesh.points, [c for c in mesh.cells if c.type == "triangle6"])  # the sphere's skin: closed
    # an open patch: the triangles on one side of a plane; VTK's quadratic edges of its boundary
    data = triangles.cells[0].data
    patch = data[mesh.points[data[:, :3]].mean(axis=1)[:, 2] > 0]
    edges = mio.extract_surface(mio.Mesh(mesh.points, [("triangle6", patch)]))
    assert [c.type for c in edges.cells] == ["line3"]
    grid = pv.from_meshio(mio.Mesh(mesh.points, [("triangle6", patch)]))
    counted = {}
    for c in range(grid.n_cells):
        cell = grid.GetCell(c)
        for e in range(cell.GetNumberOfEdges()):
            edge = cell.GetEdge(e)
            ids = tuple(edge.GetPointId(k) for k in range(edge.GetNumberOfPoints()))
            counted.setdefault(tuple(sorted(ids[:2])), []).append(ids)
    boundary = sorted(ids[0] for ids in counted.values() if len(ids) == 1)
    key = {tuple(p): i for i, p in enumerate(mesh.points.tolist())}
    ours = sorted(tuple(key[tuple(edges.points[i].tolist())] for i in row) for row in edges.cells[0].data)
    assert len(ours) > 10 and ours == boundary


def test_extract_surface_of_a_2d_mesh_is_its_boundary_edges_with_the_side_regions():
    pv = pytest.importorskip("pyvista")
    mesh = _insulated()
    mio.derive_side_regions(mesh)  # the Gmsh boundary lines → a Side region "convection"
    edges = mesh.extract_surface()
    triangles = mio.Mesh(mesh.points, [c for c in mesh.cells if c.type == "triangle"])
    theirs = pv.from_meshio(triangles).extract_feature_edges(boundary_edges=True, feature_edges=False,
                                                             manifold_edges=False, non_manifold_edges=False)
    assert [(c.type, len(c)) for c in edges.cells] == [("line", theirs.n_cells)]
    assert len(edges.points) == theirs.n_points
    convection = edges.region("convection")
    assert convection.kind == mio.RegionKind.CELL and len(convection.entries) == 21  # every boundary edge


def test_extract_surface_needs_cells_with_a_boundary():
    with pytest.raises(ValueError, match="no 2-D or 3-D cells"):
        mio.extract_surface(mio.Mesh(np.zeros((2, 3)), [("line", np.array([[0, 1]]))]))


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_merge_points_welds_each_cluster_into_its_first_point(dim):
    rng = np.random.default_rng(dim)
    tol = 1e-3
    centres = np.unique(rng.integers(0, 10_000, size=(400, dim)), axis=0) * (20 * tol)  # >= 20 tol apart
    copies = rng.integers(1, 6, size=len(centres))
    owner = np.repeat(np.arange(len(centres)), copies)
    rng.shuffle(owner)
    points = centres[owner] + rng.uniform(-tol / 3, tol / 3, size=(len(owner), dim))
    cells = np.arange(len(points)).reshape(-1, 1)
    mesh = mio.Mesh(points, [("vertex", cells)], point_data={"i": np.arange(len(points))})
    assert mesh.merge_points(tol) == len(points) - len(centres)
    first = np.array([np.flatnonzero(owner == k)[0] for k in range(len(centres))])
    assert sorted(mesh.point_data["i"].tolist()) == sorted(first.tolist())  # the first of each cluster stays
    np.testing.assert_array_equal(mesh.point_data["i"][mesh.cells[0].data[:, 0]], first[owner])


# ---- check, merge, crop, split -------------------------------------------------------------


def test_check_finds_what_is_wrong_and_nothing_on_a_good_mesh():
    tets = _sphere_tets()
    assert tets.check().ok  # Gmsh's mesh: nothing to report
    mesh = mio.Mesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [5, 5, 5.0]]),
                    [("tetra", np.array([[0, 1, 2, 3], [0, 2, 1, 3], [0, 1, 1, 3], [3, 2, 1, 0]])),
                     ("triangle", np.array([[0, 1, 2]]))])
    found = mesh.check()
    assert found.inverted.tolist() == [1]  # mirrored
    assert found.degenerate.tolist() == [2]  # node 1 twice
    assert found.duplicate.tolist() == [1, 3]  # the same nodes as cell 0
    assert found.unused_points.tolist() == [4]
    # the face (0, 1, 2) belongs to cells 0, 1 and 3 (2 is degenerate but has it too)
    assert found.non_manifold_facets >= 1 and {0, 1, 3} <= set(found.non_manifold_cells.tolist())
    assert not found.ok


def test_check_reports_inverted_planar_triangles():
    mesh = mio.Mesh(np.array([[0, 0], [1, 0], [0, 1.0]]), [("triangle", np.array([[0, 1, 2], [0, 2, 1]]))])
    assert mesh.check().inverted.tolist() == [1]


def test_merge_then_weld_is_the_mesh_twice_over():
    mesh = _insulated()
    merged = mio.merge([mesh, mesh])
    assert len(merged.points) == 2 * len(mesh.points)
    assert [(c.type, len(c)) for c in merged.cells] == [(c.type, len(c)) for c in mesh.cells] * 2
    assert {r.name: len(r.entries) for r in merged.regions} == {r.name: 2 * len(r.entries) for r in mesh.regions}
    np.testing.assert_array_equal(np.concatenate(merged.cell_data["gmsh:physical"]),
                                  np.concatenate(mesh.cell_data["gmsh:physical"] * 2))
    assert merged.merge_points() == len(mesh.points)
    assert len(merged.check().duplicate) == sum(len(c) for c in mesh.cells)
    with pytest.raises(ValueError, match="no meshes"):
        mio.merge([])


def test_crop_keeps_the_cells_in_the_box_with_their_data_and_regions():
    mesh = _insulated()
    low, high = [-np.inf, -np.inf, -np.inf], [0.0, np.inf, np.inf]
    part = mio.crop(mesh, low, high)
    for block, data in zip(part.cells, part.cell_data["gmsh:physical"]):
        assert np.all(part.points[block.data][..., 0] <= 0)
        assert len(data) == len(block)
    everything = sum(len(c) for c in mesh.cells)
    touching = mio.crop(mesh, low, high, mode="any")
    assert sum(len(c) for c in part.cells) < sum(len(c) for c in touching.cells) < everything
    # the same cells, by their coordinates, as a mask over the full mesh
    corners = [mesh.points[b.data] for b in mesh.cells]
    expected = sum(int(np.all(c[..., 0] <= 0, axis=1).sum()) for c in corners)
    assert sum(len(c) for c in part.cells) == expected
    with pytest.raises(ValueError, match="the box has 2 and 2 coordinates for points of 3"):
        mio.crop(mesh, [0, 0], [1, 1])


def test_split_by_region_and_by_type():
    mesh = _insulated()
    parts = mio.split(mesh)
    assert {name: [(c.type, len(c)) for c in part.cells] for name, part in parts.items()} == {
        "convection": [("line", 21)], "wire": [("triangle", 45)], "insulation": [("triangle", 66)]}
    wire = parts["wire"]
    assert set(np.concatenate(wire.cell_data["gmsh:physical"]).tolist()) == {1}
    assert [r.name for r in wire.regions] == ["wire"] and len(wire.region("wire").entries) == 45
    by_type = mio.split(mesh, by="type")
    assert sorted(by_type) == ["line", "triangle"] and len(by_type["line"].points) == 21
    with pytest.raises(ValueError, match="by is 'region' or 'type'"):
        mio.split(mesh, by="colour")
    with pytest.raises(ValueError, match="no Cell or Side region 'x'"):
        mio._core.subset(mio._conversion.to_core(mesh), [], [], False, "x")


def test_cli_check_and_extract_surface(tmp_path):
    good = subprocess.run([sys.executable, "-m", "meshioplusplus", "check", str(corpus_file("gmsh/insulated-2.2.msh"))],
                          capture_output=True, text=True)
    assert good.returncode == 0 and good.stdout.rstrip().endswith("ok"), good.stdout + good.stderr
    bad_mesh = mio.Mesh(np.array([[0, 0], [1, 0], [0, 1.0], [5, 5]]), [("triangle", np.array([[0, 1, 2], [0, 2, 1]]))])
    mio.write(tmp_path / "bad.vtu", bad_mesh)
    bad = subprocess.run([sys.executable, "-m", "meshioplusplus", "check", str(tmp_path / "bad.vtu")],
                         capture_output=True, text=True)
    assert bad.returncode == 1
    assert "unused points: 1 (3)" in bad.stdout and "duplicate cells: 1 (1)" in bad.stdout
    out = tmp_path / "surface.vtu"
    done = subprocess.run([sys.executable, "-m", "meshioplusplus", "convert", str(corpus_file("gmsh/quadratic_sphere_tet.msh")),
                           str(out), "--remove-lower-dimensional-cells", "--extract-surface"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert [(c.type, len(c)) for c in mio.read(out).cells] == [("triangle6", 322)]


# ---- the same result on 1 and 2 threads ------------------------------------------------------


def _tet_box(cubes):
    """cubes³ cubes of 6 tetrahedra (bench/common.py's tet_box), and the same as tetra10 with a
    node at each edge's middle."""
    n = cubes + 1
    axis = np.linspace(0.0, 1.0, n)
    points = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1).reshape(-1, 3)
    i, j, k = np.meshgrid(*(np.arange(cubes),) * 3, indexing="ij")
    base = (i * n * n + j * n + k).ravel()
    corner = [base + di * n * n + dj * n + dk for di in (0, 1) for dj in (0, 1) for dk in (0, 1)]
    kuhn = [(0, 4, 6, 7), (0, 4, 5, 7), (0, 1, 5, 7), (0, 1, 3, 7), (0, 2, 3, 7), (0, 2, 6, 7)]
    tets = np.concatenate([np.column_stack([corner[a], corner[b], corner[c], corner[d]]) for a, b, c, d in kuhn])
    edges = tets[:, [[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3]]]  # VTK's tetra10 mid-edge order
    unique, middle = np.unique(np.sort(edges, axis=2).reshape(-1, 2), axis=0, return_inverse=True)
    quadratic_points = np.vstack([points, points[unique].mean(axis=1)])
    tetra10 = np.hstack([tets, len(points) + middle.reshape(-1, 6)])
    return points, tets, quadratic_points, tetra10


def _on_threads(threads, run):
    mio._core.set_thread_count(threads)
    try:
        return run()
    finally:
        mio._core.set_thread_count(0)


def _fingerprint(mesh):
    return ([np.asarray(mesh.points).tobytes()] + [(b.type, b.data.tobytes()) for b in mesh.cells]
            + [(name, [a.tobytes() for a in arrays]) for name, arrays in sorted(mesh.cell_data.items())])


def test_extract_surface_is_the_same_on_one_and_two_threads():
    points, tets, quadratic_points, tetra10 = _tet_box(16)  # 24,576 cells: several chunks
    for mesh in (mio.Mesh(points, [("tetra", tets)], cell_data={"c": [np.arange(len(tets))]}),
                 mio.Mesh(quadratic_points, [("tetra10", tetra10)])):
        one, two = (_on_threads(t, lambda: _fingerprint(mesh.extract_surface())) for t in (1, 2))
        assert one == two
    surface = mio.Mesh(quadratic_points, [("tetra10", tetra10)]).extract_surface()
    assert [(c.type, len(c)) for c in surface.cells] == [("triangle6", 6 * 2 * 16 * 16)]


@pytest.mark.parametrize("tol", [0.0, 1e-9, 0.02])  # exact copies; copies; groups closer than tol across cells
def test_merge_points_is_the_same_on_one_and_two_threads(tol):
    points, tets, _, _ = _tet_box(16)
    rng = np.random.default_rng(7)
    exploded = points[tets.ravel()] + (rng.uniform(-1e-3, 1e-3, size=(tets.size, 3)) if tol == 0.02 else 0.0)
    def run():
        mesh = mio.Mesh(exploded, [("tetra", np.arange(tets.size).reshape(tets.shape))])
        return mesh.merge_points(tol), _fingerprint(mesh)
    one, two = _on_threads(1, run), _on_threads(2, run)
    assert one == two
    assert one[0] == len(exploded) - len(points)  # every corner welded back into one point


def test_check_finds_what_a_plain_numpy_count_finds_on_one_and_two_threads():
    """Duplicates (same type and node set as an earlier cell) and non-manifold facets (a facet of
    the volume cells met more than twice), counted with numpy on a random mesh of hexahedra and
    tetrahedra sharing nodes: check() finds the same on 1 and 2 threads."""
    rng = np.random.default_rng(11)
    points = rng.random((60, 3))
    hexes = rng.integers(0, 60, size=(3000, 8))
    tets = np.vstack([rng.integers(0, 60, size=(6000, 4)), hexes[:200, [0, 1, 3, 4]]])
    tets = np.vstack([tets, tets[rng.integers(0, len(tets), 300)][:, ::-1]])  # reversed copies: duplicates
    mesh = mio.Mesh(points, [("hexahedron", hexes), ("tetra", tets)])
    one, two = (_on_threads(t, lambda: mio.check(mesh)) for t in (1, 2))
    for name in ("inverted", "degenerate", "duplicate", "unused_points", "non_manifold_cells"):
        assert list(getattr(one, name)) == list(getattr(two, name))
    assert one.non_manifold_facets == two.non_manifold_facets
    # duplicates: per type, the cells after the first with their sorted node list
    offsets = {"hexahedron": 0, "tetra": len(hexes)}
    expected = []
    for block in mesh.cells:
        _, first = np.unique(np.sort(block.data, axis=1), axis=0, return_index=True)
        expected += [offsets[block.type] + c for c in sorted(set(range(len(block))) - set(first.tolist()))]
    assert list(one.duplicate) == expected and len(expected) >= 300
    # non-manifold facets: docs/regions.md's facet tables, facets keyed by their sorted corners
    hex_faces = [[0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [0, 4, 7, 3], [0, 3, 2, 1], [4, 5, 6, 7]]
    tet_faces = [[0, 1, 3], [1, 2, 3], [0, 3, 2], [0, 2, 1]]
    keys, owners = [], []
    for block, faces in ((hexes, hex_faces), (tets, tet_faces)):
        base = 0 if block is hexes else len(hexes)
        for face in faces:
            corners = np.sort(block[:, face], axis=1)
            padded = np.hstack([corners, np.full((len(block), 4 - len(face)), -1)])
            keys.append(padded)
            owners.append(base + np.arange(len(block)))
    keys, owners = np.vstack(keys), np.concatenate(owners)
    _, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    crowded = counts[inverse.reshape(-1)] > 2
    assert one.non_manifold_facets == int(np.sum(counts > 2)) > 0
    assert list(one.non_manifold_cells) == sorted(set(owners[crowded].tolist()))


def test_crop_and_split_are_the_same_on_one_and_two_threads():
    points, tets, _, _ = _tet_box(16)
    mesh = mio.Mesh(points, [("tetra", tets), ("triangle", tets[:5000, :3])], point_data={"T": points[:, 0]},
                    cell_data={"c": [np.arange(len(tets)), np.arange(5000)]})
    for mode in ("all", "any"):
        one, two = (_on_threads(t, lambda: _fingerprint(mio.crop(mesh, [0.2, 0.1, 0.3], [0.8, 0.7, 0.9], mode=mode)))
                    for t in (1, 2))
        assert one == two
    cropped = mio.crop(mesh, [0.2, 0.1, 0.3], [0.8, 0.7, 0.9])
    inside = np.all((points >= [0.2, 0.1, 0.3]) & (points <= [0.8, 0.7, 0.9]), axis=1)
    assert len(cropped.cells[0]) == int(np.sum(np.all(inside[tets], axis=1)))
    one, two = (_on_threads(t, lambda: {k: _fingerprint(v) for k, v in mio.split(mesh, by="type").items()}) for t in (1, 2))
    assert one == two and sorted(one) == ["tetra", "triangle"]
    mesh.regions = [mio.Region("corner", mio.RegionKind.SIDE, 2, 1, np.array([[3, 0], [7, 2]])),
                    mio.Region("first", mio.RegionKind.CELL, 3, 2, np.array([0, 1]))]
    one, two = (_on_threads(t, lambda: mio.merge([mesh, mesh])) for t in (1, 2))
    assert _fingerprint(one) == _fingerprint(two)
    np.testing.assert_array_equal(one.cells[2].data, mesh.cells[0].data + len(points))  # the copy's tetrahedra
    cells = len(tets) + 5000
    np.testing.assert_array_equal(one.region("corner").entries, [[3, 0], [7, 2], [cells + 3, 0], [cells + 7, 2]])
    np.testing.assert_array_equal(one.region("first").entries, [0, 1, cells, cells + 1])
