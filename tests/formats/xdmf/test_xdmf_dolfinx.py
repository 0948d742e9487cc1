"""The XDMF writer's DOLFINx layout (``layout="dolfinx"``, ``meshioplusplus.xdmf.write_dolfinx``)
against the meshio recipe every FEniCS user pastes (jsdokken's tutorial, the FEniCS discourse)::

    def create_mesh(mesh, cell_type, prune_z=False):
        cells = mesh.get_cells_type(cell_type)
        cell_data = mesh.get_cell_data("gmsh:physical", cell_type)
        points = mesh.points[:, :2] if prune_z else mesh.points
        return meshio.Mesh(points=points, cells={cell_type: cells}, cell_data={"name_to_read": [cell_data]})

on real Gmsh files (tests/data/corpus/gmsh): the same topology arrays, tag values and (pruned)
points as meshio's files, read back with meshio and with h5py, and the XML that DOLFINx's
XDMFFile.read_mesh(name="Grid") / read_meshtags(mesh, name="Grid") look for (one Grid named
"Grid", its TopologyType from DOLFINx's table, a Cell Attribute). dolfinx itself is not
pip-installable (conda/apt/docker only), so it is not run here: the structure checked is the one
its reader (cpp/dolfinx/io/XDMFFile.cpp, xdmf_utils.cpp) selects, and meshio's recipe output is
the reference DOLFINx users read today."""

import pathlib
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

pytestmark = pytest.mark.skipif(not _core.hdf5_available(), reason="built without HDF5 (install libhdf5-dev and rebuild)")
meshio = pytest.importorskip("meshio", reason="meshio (the reference recipe) is not installed")
GMSH = pathlib.Path(__file__).resolve().parents[2] / "data" / "corpus" / "gmsh"


def recipe(msh, cell_type, prune_z=False, tags="gmsh:physical"):
    """The meshio recipe, verbatim but for the tag name."""
    cells = msh.get_cells_type(cell_type)
    cell_data = msh.get_cell_data(tags, cell_type)
    points = msh.points[:, :2] if prune_z else msh.points
    return meshio.Mesh(points=points, cells={cell_type: cells}, cell_data={"name_to_read": [cell_data]})


def recipe_files(tmp_path, source, cell_type, facet_type, prune_z, tags="gmsh:physical"):
    msh = meshio.read(source)
    meshio.write(tmp_path / "meshio_mesh.xdmf", recipe(msh, cell_type, prune_z, tags))
    meshio.write(tmp_path / "meshio_mt.xdmf", recipe(msh, facet_type, prune_z, tags))
    return meshio.read(tmp_path / "meshio_mesh.xdmf"), meshio.read(tmp_path / "meshio_mt.xdmf")


def assert_same_as_recipe(ours, reference, cell_type):
    assert ours.points.shape == reference.points.shape
    np.testing.assert_array_equal(ours.points, reference.points)
    assert [block.type for block in ours.cells] == [cell_type]
    np.testing.assert_array_equal(ours.cells[0].data, reference.cells[0].data)
    np.testing.assert_array_equal(ours.cell_data["name_to_read"][0], reference.cell_data["name_to_read"][0])


def grid_of(path):
    """The one Grid under /Xdmf/Domain, as DOLFINx selects it (Grid[@Name='Grid'])."""
    root = ET.parse(path).getroot()
    grids = root.findall("./Domain/Grid")
    assert len(grids) == 1
    assert root.findall("./Domain/Grid[@Name='Grid']") == grids
    return grids[0]


def check_dolfinx_xml(path, topology_type, geometry_type, attribute="name_to_read"):
    grid = grid_of(path)
    assert grid.get("GridType") == "Uniform"
    assert grid.find("Topology").get("TopologyType") == topology_type
    assert grid.find("Geometry").get("GeometryType") == geometry_type
    attributes = grid.findall("Attribute")
    assert [(a.get("Name"), a.get("Center")) for a in attributes] == ([(attribute, "Cell")] if attribute else [])
    for item in grid.iter("DataItem"):
        assert item.get("Format") in ("HDF", "XML")  # DOLFINx reads no other
    return grid


def h5_arrays(path):
    """Every DataItem's array read with h5py, by the element it belongs to."""
    h5py = pytest.importorskip("h5py", reason="h5py reads the heavy data independently")
    grid = grid_of(path)
    out = {}
    for element in ("Geometry", "Topology", "Attribute"):
        node = grid.find(element)
        if node is None:
            continue
        file_name, dataset = node.find("DataItem").text.strip().split(":")
        with h5py.File(pathlib.Path(path).parent / file_name, "r") as h5:
            out[element] = (file_name + ":" + dataset, h5[dataset][()])
    return out


def test_3d_beams_matches_the_meshio_recipe(tmp_path):
    source = GMSH / "beams.msh"
    mesh_path, facets_path = mio.xdmf.write_dolfinx(tmp_path / "mesh.xdmf", mio.read(source))
    assert facets_path == str(tmp_path / "mesh_facets.xdmf")
    reference_mesh, reference_mt = recipe_files(tmp_path, source, "tetra", "triangle", prune_z=False)
    assert_same_as_recipe(meshio.read(mesh_path), reference_mesh, "tetra")
    assert_same_as_recipe(meshio.read(facets_path), reference_mt, "triangle")
    assert len(reference_mesh.cells[0].data) == 851 and len(reference_mt.cells[0].data) == 8
    check_dolfinx_xml(mesh_path, "Tetrahedron", "XYZ")
    check_dolfinx_xml(facets_path, "Triangle", "XYZ")
    # One .h5: the facet file points at the mesh file's points dataset.
    cells, facets = h5_arrays(mesh_path), h5_arrays(facets_path)
    assert cells["Geometry"][0] == facets["Geometry"][0] and cells["Geometry"][0].startswith("mesh.h5:")
    np.testing.assert_array_equal(cells["Topology"][1], reference_mesh.cells[0].data)
    np.testing.assert_array_equal(facets["Topology"][1], reference_mt.cells[0].data)
    np.testing.assert_array_equal(facets["Attribute"][1], reference_mt.cell_data["name_to_read"][0])
    assert sorted(set(cells["Attribute"][1].tolist())) == sorted(set(meshio.read(source).cell_data_dict["gmsh:physical"]["tetra"].tolist()))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("mesh.") or p.name.startswith("mesh_")) == ["mesh.h5", "mesh.xdmf", "mesh_facets.xdmf"]


@pytest.mark.parametrize("name", ["insulated-4.1.msh", "insulated-2.2.msh"])
def test_2d_drops_z_and_matches_the_recipe(tmp_path, name):
    source = GMSH / name
    mesh = mio.read(source)
    assert mesh.points.shape[1] == 3 and not mesh.points[:, 2].any()
    mesh_path, facets_path = mio.xdmf.write_dolfinx(tmp_path / "mesh.xdmf", mesh)
    reference_mesh, reference_mt = recipe_files(tmp_path, source, "triangle", "line", prune_z=True)
    ours_mesh, ours_mt = meshio.read(mesh_path), meshio.read(facets_path)
    assert ours_mesh.points.shape == (67, 2)
    assert_same_as_recipe(ours_mesh, reference_mesh, "triangle")
    assert_same_as_recipe(ours_mt, reference_mt, "line")
    assert len(ours_mesh.cells[0].data) == 111 and len(ours_mt.cells[0].data) == 21  # 4.1: blocks joined
    check_dolfinx_xml(mesh_path, "Triangle", "XY")
    check_dolfinx_xml(facets_path, "Polyline", "XY")  # DOLFINx: polyline -> interval
    assert h5_arrays(mesh_path)["Geometry"][1].shape == (67, 2)


def test_prune_z_forced_either_way(tmp_path):
    mesh = mio.read(GMSH / "insulated-4.1.msh")
    mio.xdmf.write_dolfinx(tmp_path / "kept.xdmf", mesh, prune_z=False)
    assert meshio.read(tmp_path / "kept.xdmf").points.shape == (67, 3)
    assert grid_of(tmp_path / "kept.xdmf").find("Geometry").get("GeometryType") == "XYZ"
    beams = mio.read(GMSH / "beams.msh")  # z not 0: auto keeps it, True drops it
    mio.xdmf.write_dolfinx(tmp_path / "flat.xdmf", beams, prune_z=True)
    np.testing.assert_array_equal(meshio.read(tmp_path / "flat.xdmf").points, beams.points[:, :2])


def test_layout_option_of_write_is_the_same_as_write_dolfinx(tmp_path):
    mesh = mio.read(GMSH / "beams.msh")
    mio.write(tmp_path / "a.xdmf", mesh, "xdmf", layout="dolfinx")
    mio.xdmf.write_dolfinx(tmp_path / "b.xdmf", mesh)
    for suffix in (".xdmf", "_facets.xdmf"):
        a, b = meshio.read(tmp_path / f"a{suffix}"), meshio.read(tmp_path / f"b{suffix}")
        np.testing.assert_array_equal(a.cells[0].data, b.cells[0].data)
        np.testing.assert_array_equal(a.cell_data["name_to_read"][0], b.cell_data["name_to_read"][0])
    # Our own reader takes the mesh file back as one block with its tags.
    back = mio.read(tmp_path / "a.xdmf")
    assert [block.type for block in back.cells] == ["tetra"]
    assert back.cell_data["name_to_read"][0].shape == (851,)


def test_mixed_top_dimension_is_a_clear_write_error(tmp_path):
    mesh = mio.read(GMSH / "mixedtriquad.msh")
    with pytest.raises(mio.WriteError, match=r"one cell type per mesh.*quad, triangle"):
        mio.xdmf.write_dolfinx(tmp_path / "mixed.xdmf", mesh)
    assert not (tmp_path / "mixed.xdmf").exists() and not (tmp_path / "mixed.h5").exists()


def test_second_order_cells_in_vtk_order(tmp_path):
    # tetra10 + triangle6 (Gmsh's node order converted to VTK's by both readers): DOLFINx's XDMF
    # reader permutes VTK order to its own, so the connectivity is meshio's as it is.
    source = GMSH / "quadratic_sphere_tet.msh"
    mesh_path, facets_path = mio.xdmf.write_dolfinx(tmp_path / "q.xdmf", mio.read(source), tags="gmsh:geometrical")
    reference_mesh, reference_mt = recipe_files(tmp_path, source, "tetra10", "triangle6", False, tags="gmsh:geometrical")
    assert_same_as_recipe(meshio.read(mesh_path), reference_mesh, "tetra10")
    assert_same_as_recipe(meshio.read(facets_path), reference_mt, "triangle6")
    check_dolfinx_xml(mesh_path, "Tetrahedron_10", "XYZ")
    check_dolfinx_xml(facets_path, "Triangle_6", "XYZ")


def test_tags_from_regions_and_none(tmp_path):
    mesh = mio.read(GMSH / "beams.msh")
    tetra = mesh.cells_dict["tetra"]
    physical = np.concatenate(mesh.cell_data["gmsh:physical"])
    offsets = np.cumsum([0] + [len(block) for block in mesh.cells])
    plain = mio.Mesh(mesh.points, [(block.type, block.data) for block in mesh.cells])
    # One Cell region per physical tag, holding the block-major ids of its cells.
    plain.regions = [mio.Region(f"group{tag}", mio.RegionKind.CELL, tag=int(tag), entries=np.flatnonzero(physical == tag))
                     for tag in np.unique(physical)]
    mio.xdmf.write_dolfinx(tmp_path / "r.xdmf", plain)  # no gmsh:physical: the regions
    back = meshio.read(tmp_path / "r.xdmf")
    np.testing.assert_array_equal(back.cells[0].data, tetra)
    tetra_block = [i for i, block in enumerate(mesh.cells) if block.type == "tetra"]
    expected = np.concatenate([physical[offsets[i]:offsets[i + 1]] for i in tetra_block])
    np.testing.assert_array_equal(back.cell_data["name_to_read"][0], expected)
    assert back.cell_data["name_to_read"][0].dtype == np.int32  # DOLFINx's meshtags type
    mio.xdmf.write_dolfinx(tmp_path / "n.xdmf", mesh, tags=None)
    check_dolfinx_xml(tmp_path / "n.xdmf", "Tetrahedron", "XYZ", attribute=None)
    mio.xdmf.write_dolfinx(tmp_path / "x.xdmf", mesh, attribute_name="markers", data_format="XML")
    check_dolfinx_xml(tmp_path / "x.xdmf", "Tetrahedron", "XYZ", attribute="markers")
    assert not (tmp_path / "x.h5").exists()
    np.testing.assert_array_equal(meshio.read(tmp_path / "x_facets.xdmf").cell_data["markers"][0],
                                  mesh.cell_data_dict["gmsh:physical"]["triangle"])


def test_bad_options_are_write_errors(tmp_path):
    mesh = mio.read(GMSH / "beams.msh")
    with pytest.raises(mio.WriteError, match="no cell data 'nope'"):
        mio.xdmf.write_dolfinx(tmp_path / "a.xdmf", mesh, tags="nope")
    with pytest.raises(mio.WriteError, match="not Binary"):
        mio.xdmf.write_dolfinx(tmp_path / "a.xdmf", mesh, data_format="Binary")
    with pytest.raises(mio.WriteError, match="unknown layout"):
        mio.write(tmp_path / "a.xdmf", mesh, "xdmf", layout="fenics")
    with pytest.raises(mio.WriteError, match="not one integer per cell"):
        mio.xdmf.write_dolfinx(tmp_path / "a.xdmf", mio.Mesh(mesh.points, [("tetra", mesh.cells_dict["tetra"])],
                                                             cell_data={"f": [np.zeros(851)]}), tags="f")
    assert not list(tmp_path.iterdir())


def test_side_regions_become_the_facet_tags(tmp_path):
    # An Exodus file (tests/data/corpus/exodus/coarseGrid.e: 100 quads, side sets bottom/left/right
    # and node sets of the same names) has no boundary elements: its side sets are the facets.
    mesh = mio.read(GMSH.parent / "exodus" / "coarseGrid.e")
    sides = [region for region in mesh.regions if region.kind == mio.RegionKind.SIDE]
    assert len(sides) >= 3
    mesh_path, facets_path = mio.xdmf.write_dolfinx(tmp_path / "grid.xdmf", mesh)
    assert facets_path == str(tmp_path / "grid_facets.xdmf")
    check_dolfinx_xml(mesh_path, "Quadrilateral", "XY")
    check_dolfinx_xml(facets_path, "Polyline", "XY")
    facets = meshio.read(facets_path)
    lines, tags = facets.cells[0].data, facets.cell_data["name_to_read"][0]
    assert len(lines) == sum(len(region.entries) for region in sides)  # no side named twice here
    for region in sides:
        nodes = next(r for r in mesh.regions if r.kind == mio.RegionKind.POINT and r.name == region.name).entries
        mine = lines[tags == region.tag]
        assert len(mine) == len(region.entries)
        assert set(mine.ravel().tolist()) == set(nodes.tolist())  # the side set's edges cover its node set
