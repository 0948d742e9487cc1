"""ANSYS Fluent .msh through meshio++ and meshio, both directions, and the .msh content sniff."""

import ast
import gzip
import pathlib
import warnings

import numpy as np
import pytest

import meshioplusplus as mio
from interop import meshio_module

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "ansys"
CELL_TYPES = ("triangle", "quad", "tetra", "hexahedron", "wedge", "pyramid")


def ansys_mesh():
    rng = np.random.default_rng(7)
    points = rng.random((20, 3))
    cells = [(t, rng.integers(0, 20, size=(3, mio.num_nodes_per_cell[t]), dtype=np.int64)) for t in CELL_TYPES]
    return points, cells


def read_quietly(meshio, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # meshio warns about every zone-name section
        return meshio.ansys.read(path)


@pytest.mark.parametrize("binary", [False, True])
def test_our_files_read_equal_in_meshio(tmp_path, binary):
    meshio = meshio_module()
    points, cells = ansys_mesh()
    path = tmp_path / "ours.msh"
    # Random node lists are no closed volume mesh: meshio's layout keeps them as they are.
    mio.ansys.write(path, mio.Mesh(points, cells), binary=binary)  # meshio's layout, the default
    theirs = read_quietly(meshio, path)
    np.testing.assert_array_equal(theirs.points, points)  # shortest round-trip text or float64 bytes
    assert [c.type for c in theirs.cells] == list(CELL_TYPES)
    for block, (_, data) in zip(theirs.cells, cells):
        np.testing.assert_array_equal(block.data, data)


@pytest.mark.parametrize("binary", [False, True])
def test_meshio_files_read_equal_in_ours(tmp_path, binary):
    meshio = meshio_module()
    points, cells = ansys_mesh()
    path = tmp_path / "theirs.msh"
    meshio.ansys.write(path, meshio.Mesh(points, cells), binary=binary)
    for ours in (mio.read(path), mio.read(path, "ansys")):  # by content, and by name
        # meshio's ascii writer prints %.16e: 17 significant digits, exact for float64.
        np.testing.assert_array_equal(np.asarray(ours.points), points)
        assert [c.type for c in ours.cells] == list(CELL_TYPES)
        for block, (_, data) in zip(ours.cells, cells):
            np.testing.assert_array_equal(np.asarray(block.data), data)


@pytest.mark.parametrize("name", ["rotate_sphere.msh", "hron_turek_solid.msh"])
def test_real_files_faces_meshio_reads_are_our_side_regions(name):
    # meshio returns the face zones as blocks; we rebuild the cells and keep each named face zone
    # as a Side region: same points, and every meshio face block is one of our zones' faces.
    meshio = meshio_module()
    path = DATA / name
    theirs, ours = read_quietly(meshio, path), mio.read(path)
    np.testing.assert_array_equal(np.asarray(ours.points), theirs.points)
    sides = sorted(len(r.entries) for r in ours.regions if r.kind == mio.RegionKind.SIDE)
    faces = sorted(len(c.data) for c in theirs.cells)
    assert all(n in sides for n in faces), (sides, faces)


def test_elbow_that_meshio_refuses():
    # Node zones out of id order and a cell header without an element type: meshio raises.
    meshio = meshio_module()
    path = DATA / "elbow.msh"
    with pytest.raises(meshio.ReadError):
        read_quietly(meshio, path)
    mesh = mio.read(path)
    assert mesh.points.shape == (0x219, 2)
    assert [(c.type, len(c.data)) for c in mesh.cells] == [("triangle", 0x396)]
    assert signed_measures(mesh)["triangle"].min() > 0


def signed_measures(mesh):
    """Signed area (2-D) or volume (3-D) of every cell of the standard types, per type; VTK's
    node orders, so a positive value means the rebuilt cell is oriented as VTK expects."""
    points = np.asarray(mesh.points, dtype=float)
    tets = {"tetra": [(0, 1, 2, 3)], "pyramid": [(0, 1, 2, 4), (0, 2, 3, 4)],
            "hexahedron": [(0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6)]}
    out = {}
    for block in mesh.cells:
        if block.type in ("triangle", "quad") and points.shape[1] == 2:
            x, y = points[block.data, 0], points[block.data, 1]
            out[block.type] = 0.5 * (x * np.roll(y, -1, 1) - np.roll(x, -1, 1) * y).sum(1)
        elif block.type in tets:
            total = 0
            for a, b, c, d in tets[block.type]:
                pa, pb, pc, pd = (points[block.data[:, i]] for i in (a, b, c, d))
                total = total + np.einsum("ij,ij->i", np.cross(pb - pa, pc - pa), pd - pa) / 6
            out[block.type] = total
    return out


def vtk_cell_zones(path, zone_names):
    """vtkFLUENTReader's cell-zone blocks (named "zone:type"; the other blocks hold the cells
    beside each face zone): cell types, points, summed volume or area."""
    vtk = pytest.importorskip("vtk", reason="VTK's vtkFLUENTReader is the reference reader")
    from vtk.util.numpy_support import vtk_to_numpy

    reader = vtk.vtkFLUENTReader()
    reader.SetFileName(str(path))
    reader.Update()
    output = reader.GetOutput()
    types, total, points = {}, 0.0, None
    for b in range(output.GetNumberOfBlocks()):
        name = output.GetMetaData(b).Get(vtk.vtkCompositeDataSet.NAME())
        if name.rsplit(":", 1)[0] not in zone_names:
            continue
        block = output.GetBlock(b)
        sizes = vtk.vtkCellSizeFilter()
        sizes.SetInputData(block)
        sizes.Update()
        data = sizes.GetOutput().GetCellData()
        total += vtk_to_numpy(data.GetArray("Volume")).sum() + vtk_to_numpy(data.GetArray("Area")).sum()
        for i in range(block.GetNumberOfCells()):
            types[block.GetCellType(i)] = types.get(block.GetCellType(i), 0) + 1
        points = block.GetNumberOfPoints()
    return types, points, total


def vtk_measure_of(mesh, tmp_path):
    """The summed volume or area VTK computes for our cells (written as .vtu): VTK splits
    non-planar hexahedron faces its own way, so sums are compared VTK to VTK."""
    vtk = pytest.importorskip("vtk", reason="VTK is the reference")
    from vtk.util.numpy_support import vtk_to_numpy

    path = tmp_path / "ours.vtu"
    mio.write(path, mesh)
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(str(path))
    sizes = vtk.vtkCellSizeFilter()
    sizes.SetInputConnection(reader.GetOutputPort())
    sizes.Update()
    data = sizes.GetOutput().GetCellData()
    return vtk_to_numpy(data.GetArray("Volume")).sum() + vtk_to_numpy(data.GetArray("Area")).sum()


def cell_zone_names(mesh):
    return {r.name for r in mesh.regions if r.kind == mio.RegionKind.CELL}


VTK_TYPES = {"triangle": 5, "quad": 9, "tetra": 10, "hexahedron": 12, "wedge": 13, "pyramid": 14}


@pytest.mark.parametrize("name", ["rotate_sphere.msh", "hron_turek_solid.msh", "prime_hex.msh",
                                  "lid_driven_cavity.msh", "pro_species.cas", "gascomb.msh.gz"])
def test_real_fluent_files_match_vtk(name, tmp_path):
    path = DATA / name
    if name.endswith(".gz"):  # VTK reads no gzip
        plain = tmp_path / name[:-3]
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        path = plain
    ours = mio.read(path)
    types, num_points, total = vtk_cell_zones(path, cell_zone_names(ours))
    assert num_points == len(ours.points)
    assert types == {VTK_TYPES[c.type]: len(c.data) for c in ours.cells}
    measures = signed_measures(ours)
    assert all(m.min() > 0 for m in measures.values())  # every rebuilt cell positively oriented
    # VTK's FLUENT reader keeps float32 points: its sums agree to about 1e-7.
    assert vtk_measure_of(ours, tmp_path) == pytest.approx(total, rel=2e-6)


PEER_SCRIPT = """
import collections, sys, meshioplusplus as m
mesh = m.read(sys.argv[1], "ansys")
counts = collections.Counter()
for block in mesh.cells:
    counts[block.type] += len(block.data)
print(len(mesh.points), sorted(counts.items()))
"""


@pytest.mark.parametrize("name", ["elbow.msh", "rotate_sphere.msh", "lid_driven_cavity.msh"])
def test_volume_cells_as_meshioplusplus_17_rebuilds_them(name):
    # 17.21 rebuilt the cells too and adds the boundary faces as blocks (line / quad); it cannot
    # read hron_turek_solid.msh, prime_hex.msh, pro_species.cas or the elbow case.
    from interop import run_meshioplusplus_17

    points, counts = run_meshioplusplus_17(PEER_SCRIPT, DATA / name).strip().split(" ", 1)
    theirs = dict(ast.literal_eval(counts))  # a printed list of (type, count) pairs
    ours = mio.read(DATA / name)
    assert int(points) == len(ours.points)
    for block in ours.cells:
        assert theirs[block.type] == len(block.data)


def test_mixing_elbow_case_tetrahedra(tmp_path):
    # Fluent 2019 .cas.gz with settings sections; vtkFLUENTReader reads the 45637 tetrahedra but
    # zero coordinates ("failed to get the converted dim"), so its volumes cannot be compared.
    mesh = mio.read(DATA / "mixing_elbow.cas.gz")
    assert mesh.points.shape == (9203, 3)
    assert [(c.type, len(c.data)) for c in mesh.cells] == [("tetra", 45637)]
    volumes = signed_measures(mesh)["tetra"]
    assert volumes.min() > 0
    assert {r.name for r in mesh.regions} >= {"fluid", "wall", "outlet", "inlet1", "inlet2", "default-interior"}


@pytest.mark.parametrize("binary", [False, True])
def test_our_fluent_layout_reads_in_vtk(tmp_path, binary):
    mesh = mio.read(DATA / "prime_hex.msh")
    path = tmp_path / "ours.msh"
    mio.write(path, mesh, file_format="ansys", binary=binary, layout="fluent")
    types, num_points, total = vtk_cell_zones(path, {"SOLID"})
    assert types == {12: 216} and num_points == 343
    assert total == pytest.approx(vtk_measure_of(mesh, tmp_path), rel=1e-6)
    back = mio.read(path)
    np.testing.assert_array_equal(np.asarray(back.points), np.asarray(mesh.points))
    assert {r.name: len(r.entries) for r in back.regions} == {r.name: len(r.entries) for r in mesh.regions}


def test_fluent_cgns_fluent_round_trip_keeps_cells(tmp_path):
    mesh = mio.read(DATA / "prime_hex.msh")
    cgns = tmp_path / "hex.cgns"
    try:
        mio.write(cgns, mesh)
    except mio.WriteError as error:
        pytest.skip(f"this build writes no CGNS: {error}")
    via = mio.read(cgns)
    out = tmp_path / "back.msh"
    mio.write(out, via, file_format="ansys", layout="fluent")
    back = mio.read(out)
    assert [(c.type, len(c.data)) for c in back.cells] == [("hexahedron", 216)]
    assert signed_measures(back)["hexahedron"].sum() == pytest.approx(signed_measures(mesh)["hexahedron"].sum())


def test_msh_sniffing_and_default_writer(tmp_path):
    points, cells = ansys_mesh()
    mesh = mio.Mesh(points, cells[:1])
    path = tmp_path / "default.msh"
    mio.write(path, mesh)  # no file_format: .msh stays Gmsh
    assert path.read_bytes().startswith(b"$MeshFormat")
    assert len(mio.read(path).points) == 20
    mio.write(path, mesh, file_format="ansys")
    assert path.read_bytes().startswith(b"(1 ")
    np.testing.assert_array_equal(mio.read(path).cells[0].data, cells[0][1])
    freefem = tmp_path / "freefem.msh"
    freefem.write_text("3 1 0\n0 0 1\n1 0 1\n0 1 1\n1 2 3 0\n")
    # Three counts on the first line: FreeFEM's .msh (tests/formats/freefem covers it).
    assert mio.read(freefem).cells[0].type == "triangle"
    neither = tmp_path / "neither.msh"
    neither.write_text("mesh 3\n")
    with pytest.raises(mio.ReadError, match="gmsh, ansys, freefem"):
        mio.read(neither)


def test_polyhedra_written_as_a_mixed_zone_of_element_type_7(tmp_path):
    # 100 of prime_hex's hexahedra given as polyhedra: one mixed cell zone (element types 4 and 7).
    # VTK keeps the declared type (100 polyhedra, 116 hexahedra); we recognise the shape from the
    # faces, so all 216 come back as hexahedra — the same cells, the same total volume.
    mesh = mio.read(DATA / "prime_hex.msh")
    hexes = np.asarray(mesh.cells[0].data)
    outward = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    polyhedra = [[list(h[list(f)]) for f in outward] for h in hexes[:100]]
    mixed = mio.Mesh(mesh.points, [("polyhedron8", polyhedra), ("hexahedron", hexes[100:])])
    path = tmp_path / "poly.msh"
    mio.write(path, mixed, file_format="ansys", layout="fluent", binary=False)
    assert "(12 (1 1 d8 1 0)" in path.read_text()
    types, num_points, total = vtk_cell_zones(path, {"fluid"})
    assert types == {42: 100, 12: 116} and num_points == 343
    back = mio.read(path)
    assert [(c.type, len(c.data)) for c in back.cells] == [("hexahedron", 216)]
    assert vtk_measure_of(back, tmp_path) == pytest.approx(vtk_measure_of(mesh, tmp_path), rel=1e-12)


# Each cell with its volume as VTK's vtkCellSizeFilter measures it: (corners, volume of our cell
# written as .vtu, volume of the cell vtkFLUENTReader builds from our Fluent faces).
ONE_CELL = {
    "tetra": ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], 1 / 6, 1 / 6),
    "pyramid": ([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1)], 1 / 3, 1 / 3),
    "hexahedron": ([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)], 1.0, 1.0),
    # meshio's wedge is Gmsh's prism: the base 0-1-2 runs counter-clockwise seen from the top
    # 3-4-5. meshio and we write it to VTK as (0,2,1,3,5,4), vtkWedge's documented order (base
    # normal outward); VTK 9.7's vtkCellSizeFilter gives that cell -0.5. vtkFLUENTReader builds
    # the same wedge from Fluent's faces with the other winding, which the filter gives +0.5:
    # VTK disagrees with itself, and the documented order (meshio's choice) is kept.
    "wedge": ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1)], -0.5, 0.5),
}


@pytest.mark.parametrize("cell_type", ["tetra", "pyramid", "hexahedron", "wedge"])
def test_one_cell_keeps_its_volume_through_fluent_faces_in_vtk_and_back(cell_type, tmp_path):
    corners, volume_as_vtu, volume_by_vtk_fluent_reader = ONE_CELL[cell_type]
    mesh = mio.Mesh(np.array(corners, dtype=float), [(cell_type, np.arange(len(corners))[None, :])])
    assert vtk_measure_of(mesh, tmp_path) == pytest.approx(volume_as_vtu)
    path = tmp_path / "one.msh"
    mio.write(path, mesh, file_format="ansys", layout="fluent", binary=False)
    types, _, total = vtk_cell_zones(path, {"fluid"})
    assert types == {VTK_TYPES[cell_type]: 1}
    assert total == pytest.approx(volume_by_vtk_fluent_reader)  # Fluent's side rule as vtkFLUENTReader applies it
    back = mio.read(path)
    assert [(c.type, len(c.data)) for c in back.cells] == [(cell_type, 1)]
    assert sorted(back.cells[0].data[0]) == sorted(mesh.cells[0].data[0])  # the same cell (its order derived from faces)
    assert vtk_measure_of(back, tmp_path) == pytest.approx(volume_as_vtu)
