"""OpenFOAM writer interop: VTK's vtkOpenFOAMReader reads the cases our writer makes (ASCII and
binary) into the same cells, types, points and patches, with the same total volume; Gmsh makes
the meshes (a tetrahedral bracket with physical surfaces, an extruded wedge/hexahedron block), and
a hand-made polyhedron on a hexahedron covers polyhedra. Our reader and meshio++ 17.21 read the
cases back; OpenFOAM -> VTU -> OpenFOAM keeps cells and faces."""

import collections
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from tests.interop import run_meshioplusplus_17

vtk = pytest.importorskip("vtk", reason="VTK's vtkOpenFOAMReader is the reference reader")
gmsh = pytest.importorskip("gmsh", reason="the Gmsh Python module makes the test meshes")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402

VTK_TETRA, VTK_HEXAHEDRON, VTK_WEDGE, VTK_POLYHEDRON = 10, 12, 13, 42


def gmsh_mesh(path, build):
    gmsh.initialize()
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add("m")
        build()
        gmsh.write(str(path))
    finally:
        gmsh.finalize()
    return mio.read(path)


def make_bracket():  # make_bracket.py's geometry, coarse
    box = gmsh.model.occ.addBox(0, 0, 0, 2, 1, 1)
    hole = gmsh.model.occ.addCylinder(1, 0.5, -0.1, 0, 0, 1.2, 0.3)
    gmsh.model.occ.cut([(3, box)], [(3, hole)])
    gmsh.model.occ.synchronize()
    gmsh.model.addPhysicalGroup(3, [v[1] for v in gmsh.model.getEntities(3)], 1, "solid")
    surfaces = gmsh.model.getEntities(2)
    gmsh.model.addPhysicalGroup(2, [surfaces[0][1]], 2, "inlet")
    gmsh.model.addPhysicalGroup(2, [s[1] for s in surfaces[1:]], 3, "walls")
    gmsh.option.setNumber("Mesh.MeshSizeMax", 0.12)
    gmsh.model.mesh.generate(3)


def make_extruded_block():  # triangles and quads extruded: wedges beside hexahedra
    left = gmsh.model.occ.addRectangle(0, 0, 0, 1, 1)
    right = gmsh.model.occ.addRectangle(1, 0, 0, 1, 1)
    gmsh.model.occ.fragment([(2, left)], [(2, right)])
    gmsh.model.occ.synchronize()
    gmsh.option.setNumber("Mesh.MeshSizeMax", 0.25)
    gmsh.model.mesh.setRecombine(2, right)
    gmsh.model.occ.extrude([(2, left), (2, right)], 0, 0, 0.5, numElements=[3], recombine=True)
    gmsh.model.occ.synchronize()
    gmsh.model.addPhysicalGroup(3, [v[1] for v in gmsh.model.getEntities(3)], 1, "fluid")
    outside = gmsh.model.getBoundary(gmsh.model.getEntities(3), combined=True, oriented=False)
    gmsh.model.addPhysicalGroup(2, [abs(s[1]) for s in outside], 2, "walls")
    gmsh.model.mesh.generate(3)


def polyhedron_on_hex():
    points = np.array([[x, y, z] for z in (0, 1, 2) for x, y in ((0, 0), (1, 0), (1, 1), (0, 1))], dtype=float)
    # The top split in two triangles: seven faces, a polyhedron for VTK too (six quads would be a hexahedron).
    faces = [[4, 7, 6, 5], [8, 9, 10], [8, 10, 11], [4, 5, 9, 8], [5, 6, 10, 9], [6, 7, 11, 10], [7, 4, 8, 11]]
    return mio.Mesh(points, [("polyhedron8", [faces]), ("hexahedron", [[0, 1, 2, 3, 4, 5, 6, 7]])])


@pytest.fixture(scope="module")
def meshes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gmsh")
    return {"bracket": gmsh_mesh(folder / "bracket.msh", make_bracket),
            "extruded": gmsh_mesh(folder / "extruded.msh", make_extruded_block),
            "polyhedron": polyhedron_on_hex()}


def read_with_vtk(marker):
    reader = vtk.vtkOpenFOAMReader()
    reader.SetFileName(str(marker))
    reader.UpdateInformation()
    reader.EnableAllPatchArrays()
    reader.Update()
    parts = {}
    iterator = reader.GetOutput().NewIterator()
    iterator.InitTraversal()
    while not iterator.IsDoneWithTraversal():
        parts[iterator.GetCurrentMetaData().Get(vtk.vtkCompositeDataSet.NAME())] = iterator.GetCurrentDataObject()
        iterator.GoToNextItem()
    return parts


def total_volume(grid):
    """The sum of the cells' volumes, each taken positive: Gmsh's prisms (wedges in Gmsh's, OpenFOAM's
    and Exodus's node order) have a negative volume in VTK's wedge convention, in the source mesh
    and in what vtkOpenFOAMReader makes of a valid OpenFOAM prism alike."""
    sizes = vtk.vtkCellSizeFilter()
    sizes.SetInputData(grid)
    sizes.Update()
    return float(np.abs(vtk_to_numpy(sizes.GetOutput().GetCellData().GetArray("Volume"))).sum())


def volume_cells(mesh):
    return [block for block in mesh.cells if block.dim == 3]


def tet_volume(points, tets):
    a, b, c, d = (points[tets[:, i]] for i in range(4))
    return float((np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) / 6).sum())


def vtk_type(cell_type):
    if cell_type.startswith("polyhedron"):
        return VTK_POLYHEDRON
    return {"tetra": VTK_TETRA, "hexahedron": VTK_HEXAHEDRON, "wedge": VTK_WEDGE}[cell_type]


@pytest.mark.parametrize("binary", [False, True], ids=["ascii", "binary"])
@pytest.mark.parametrize("name", ["bracket", "extruded", "polyhedron"])
def test_vtk_reads_our_case(tmp_path, meshes, name, binary):
    mesh = meshes[name]
    marker = tmp_path / "case" / "case.foam"
    marker.parent.mkdir()
    mio.write(marker, mesh, file_format="openfoam", binary=binary)
    parts = read_with_vtk(marker)
    grid = parts["internalMesh"]
    ours = collections.Counter()
    for block in volume_cells(mesh):
        ours[vtk_type(block.type)] += len(block)
    theirs = collections.Counter(grid.GetCellType(i) for i in range(grid.GetNumberOfCells()))
    assert theirs == ours
    # vtkOpenFOAMReader hands out float32 points whatever the file holds.
    assert np.array_equal(vtk_to_numpy(grid.GetPoints().GetData()), mesh.points.astype(np.float32))
    if name == "bracket":
        tets = np.concatenate([block.data for block in mesh.cells if block.type == "tetra"])
        expected = tet_volume(mesh.points, tets)
        assert 1.5 < expected < 2.0
    else:
        expected = 1.0 if name == "extruded" else 2.0
    assert total_volume(grid) == pytest.approx(expected, rel=1e-6)
    # Patches: the physical surfaces' triangles/quads, face for face; the polyhedron's boundary
    # (no Side region) is defaultFaces.
    if name == "polyhedron":
        assert parts["defaultFaces"].GetNumberOfCells() == 11
    else:
        boundary_cells = {"bracket": ("inlet", "walls"), "extruded": ("walls",)}[name]
        for patch in boundary_cells:
            expected_faces = sum(len(ids) for ids in mesh.cell_sets[patch])
            assert parts[patch].GetNumberOfCells() == expected_faces, patch
        assert "defaultFaces" not in parts


@pytest.mark.parametrize("binary", [False, True], ids=["ascii", "binary"])
def test_our_reader_and_17_21_read_our_case_back(tmp_path, meshes, binary):
    mesh = meshes["bracket"]
    first = tmp_path / "first"
    first.mkdir()
    mio.write(first / "case.foam", mesh, file_format="openfoam", binary=binary)
    back = mio.read(first)
    tets = sum(len(block) for block in mesh.cells if block.type == "tetra")
    assert [(block.type, len(block)) for block in back.cells] == [("tetra", tets)]
    assert np.array_equal(back.points, mesh.points)
    patches = {region.name: len(region.entries) for region in back.regions if region.kind == mio.RegionKind.SIDE}
    assert patches == {name: sum(len(ids) for ids in mesh.cell_sets[name]) for name in ("inlet", "walls")}
    # Written again from what our reader made: the same polyMesh (a face may start at another of
    # its nodes: the reader's tetrahedra list their nodes in another rotation).
    second = tmp_path / "second"
    second.mkdir()
    mio.write(second / "case.foam", back, file_format="openfoam", binary=binary)
    for name in ("points", "owner", "neighbour", "boundary"):
        assert (second / "constant/polyMesh" / name).read_bytes() == (first / "constant/polyMesh" / name).read_bytes(), name
    if binary:
        # meshio++ 17.21 reads ASCII cases only: its parser takes a binary faceCompactList's bytes
        # for counts (OpenFOAM's own binary cases too, e.g. tests/data/openfoam/fluidfoam_bin).
        return
    assert internal_and_boundary_faces(second) == internal_and_boundary_faces(first)
    counts = run_meshioplusplus_17(
        "import sys, meshioplusplus as m; x = m.read(sys.argv[1]); "
        "print(sum(len(b.data) for b in x.cells if b.type == 'tetra'), len(x.points))", first / "case.foam")
    assert counts.split() == [str(tets), str(len(mesh.points))]


def face_list(case):
    """The ASCII faces, each turned to start at its smallest node (same orientation)."""
    faces = []
    for line in (case / "constant/polyMesh/faces").read_text().split("\n(\n", 1)[1].splitlines()[:-1]:
        nodes = [int(n) for n in line[line.index("(") + 1 : -1].split()]
        first = nodes.index(min(nodes))
        faces.append(tuple(nodes[first:] + nodes[:first]))
    return faces


def internal_and_boundary_faces(case):
    text = (case / "constant/polyMesh/owner").read_text(errors="replace")
    internal = int(text.split("nInternalFaces:")[1].split('"')[0])
    faces = face_list(case)
    return faces[:internal], sorted(faces[internal:])


def test_round_trip_through_vtu_keeps_cells_and_faces(tmp_path, meshes):
    first = tmp_path / "first"
    first.mkdir()
    mio.write(first / "case.foam", meshes["extruded"], file_format="openfoam")
    back = mio.read(first)
    mio.write(tmp_path / "middle.vtu", back)
    again = mio.read(tmp_path / "middle.vtu")
    assert [(b.type, len(b)) for b in again.cells] == [(b.type, len(b)) for b in back.cells]
    second = tmp_path / "second"
    mio.write(second, again, file_format="openfoam")
    # VTU has no patches: the boundary comes back as defaultFaces, the same faces in another order.
    assert internal_and_boundary_faces(second) == internal_and_boundary_faces(first)


def test_refusals_leave_the_case_as_it_was(tmp_path, meshes):
    case = tmp_path / "case"
    mio.write(case, meshes["polyhedron"], file_format="openfoam")
    before = (case / "constant/polyMesh/faces").read_bytes()
    flat = mio.Mesh(np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]), [("quad", [[0, 1, 2, 3]])])
    with pytest.raises(mio.WriteError, match="2-D"):
        mio.write(case, flat, file_format="openfoam")
    quadratic = mio.Mesh(np.zeros((10, 3)), [("tetra10", [list(range(10))])])
    with pytest.raises(mio.WriteError, match="tetra10"):
        mio.write(case, quadratic, file_format="openfoam", binary=True)
    assert (case / "constant/polyMesh/faces").read_bytes() == before
    assert sorted(p.name for p in (case / "constant").iterdir()) == ["polyMesh"]
