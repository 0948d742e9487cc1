"""MFEM meshes through meshio++ against MFEM itself (PyMFEM, `pip install mfem`): counts,
vertices, element vertices, attributes; MFEM's own VTK export (Mesh.PrintVTK) against our
read; MFEM reads what we write."""

import pathlib

import numpy as np
import pytest

import meshioplusplus as mio

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "mfem"
mfem = pytest.importorskip("mfem.ser", reason="pip install mfem (PyMFEM, the reference reader)")

LINEAR = ["star.mesh", "beam-tet.mesh", "beam-hex.mesh", "beam-wedge.mesh", "escher.mesh", "fichera.mesh",
          "tinyzoo-3d.mesh", "compass.mesh", "ref-pyramid.mesh"]
VTK_TYPE = {0: "vertex", 1: "line", 2: "triangle", 3: "quad", 4: "tetra", 5: "hexahedron", 6: "wedge", 7: "pyramid"}


def load(path):
    return mfem.Mesh(str(path), 1, 0, False)  # no refinement, no reorientation: the file's elements


def elements_of(m, boundary):
    count = m.GetNBE() if boundary else m.GetNE()
    rows = []
    for i in range(count):
        e = m.GetBdrElement(i) if boundary else m.GetElement(i)
        v = [int(x) for x in e.GetVerticesArray()]
        geometry = e.GetGeometryType()
        rows.append((VTK_TYPE[geometry], v, e.GetAttribute()))  # MFEM's prism is meshio's wedge
    return rows


def ours_rows(mesh):
    rows = []
    for block, attributes in zip(mesh.cells, mesh.cell_data["mfem:attribute"]):
        rows += [(block.type, list(map(int, c)), int(a)) for c, a in zip(block.data, attributes)]
    return rows


@pytest.mark.parametrize("name", LINEAR)
def test_equal_to_mfem(name):
    m = load(DATA / name)
    ours = mio.read(DATA / name)  # no format name: the sniff picks mfem over medit
    assert len(ours.points) == m.GetNV()
    dim = m.SpaceDimension()
    vertices = np.array([m.GetVertexArray(i)[:dim] for i in range(m.GetNV())])
    assert np.array_equal(ours.points, vertices)
    assert ours_rows(ours) == elements_of(m, False) + elements_of(m, True)


@pytest.mark.parametrize("name", ["beam-wedge.mesh", "tinyzoo-3d.mesh", "star.mesh"])
def test_mfem_vtk_export_matches(tmp_path, name):
    load(DATA / name).PrintVTK(str(tmp_path / "mfem.vtk"))
    theirs = mio.read(tmp_path / "mfem.vtk")
    ours = mio.read(DATA / name)
    elements = [b for b in ours.cells if b.type in {c.type for c in theirs.cells}][: len(theirs.cells)]
    assert [b.type for b in theirs.cells] == [b.type for b in elements]
    for a, b in zip(elements, theirs.cells):
        assert np.array_equal(a.data, b.data)


@pytest.mark.parametrize("name", LINEAR)
def test_mfem_reads_what_we_write(tmp_path, name):
    ours = mio.read(DATA / name)
    out = tmp_path / "ours.mesh"
    mio.write(out, ours, file_format="mfem")
    m = load(out)
    original = load(DATA / name)
    assert (m.GetNV(), m.GetNE(), m.GetNBE()) == (original.GetNV(), original.GetNE(), original.GetNBE())
    assert elements_of(m, False) + elements_of(m, True) == elements_of(original, False) + elements_of(original, True)
    assert ours_rows(mio.read(out)) == ours_rows(ours)


@pytest.mark.parametrize("name", ["star-q2.mesh", "square-disc-p2.mesh", "star-mixed-p2.mesh"])
def test_p2_meshes_equal_mfems_dofs(name):
    m = load(DATA / name)
    fes = m.GetNodalFESpace()
    nodes = m.GetNodes()
    ours = mio.read(DATA / name)
    n = fes.GetNDofs()
    values = np.array([nodes[i] for i in range(nodes.Size())])
    xy = np.column_stack([values[:n], values[n:]]) if fes.GetOrdering() == 0 else values.reshape(n, 2)
    assert np.array_equal(ours.points, xy)
    elements = [list(map(int, r)) for b in ours.cells if b.type != "line3" for r in b.data]
    assert elements == [[int(d) for d in fes.GetElementDofs(i)] for i in range(m.GetNE())]
    boundary = [list(map(int, r)) for b in ours.cells if b.type == "line3" for r in b.data]
    assert boundary == [[int(d) for d in fes.GetBdrElementDofs(i)] for i in range(m.GetNBE())]


def test_tetrahedral_p2_mesh_equals_mfems_dofs():
    m = load(DATA / "escher-p2.mesh")
    fes = m.GetNodalFESpace()
    nodes = m.GetNodes()
    n = fes.GetNDofs()
    values = np.array([nodes[i] for i in range(nodes.Size())])
    xyz = values.reshape(3, n).T if fes.GetOrdering() == 0 else values.reshape(n, 3)
    ours = mio.read(DATA / "escher-p2.mesh")
    assert np.array_equal(ours.points, xyz)
    to_mfem = [0, 1, 2, 3, 4, 6, 7, 5, 8, 9]  # VTK's edge order 01 12 02 03 13 23 → MFEM's 01 02 03 12 13 23
    tets = ours.cells_dict["tetra10"][:, to_mfem]
    assert tets.tolist() == [[int(d) for d in fes.GetElementDofs(i)] for i in range(m.GetNE())]


def test_other_curved_meshes_keep_mfems_vertices():
    m = load(DATA / "star-q3.mesh")
    ours = mio.read(DATA / "star-q3.mesh")
    fes = m.GetNodalFESpace()
    nodes = m.GetNodes()
    n = fes.GetNDofs()
    values = np.array([nodes[i] for i in range(nodes.Size())])
    xy = values.reshape(2, n).T if fes.GetOrdering() == 0 else values.reshape(n, 2)
    assert np.array_equal(ours.points, xy[: m.GetNV()])
    assert "180 node positions" in str(ours.field_data["mfem:dropped"][0])


def test_sniff_sends_medit_files_to_medit(tmp_path):
    path = tmp_path / "m.mesh"
    mio.write(path, mio.Mesh(np.zeros((3, 3)), [("triangle", np.array([[0, 1, 2]]))]))  # .mesh writes Medit
    assert path.read_text().lstrip().startswith("MeshVersionFormatted")
    assert len(mio.read(path).points) == 3
