"""The private names of meshio that real client code imports (docs/meshio-compatibility.md,
"Names real clients import"): each resolves under meshioplusplus, our values are checked on
their own (no meshio needed), then compared with meshio 5.3.5's key by key and call by call,
every difference listed below with its reason."""

import importlib
import io
import os
import pathlib
import subprocess
import sys
from xml.etree import ElementTree as ET

import numpy as np
import pytest

import meshioplusplus
from meshioplusplus import _core
from meshioplusplus._cell_types import CELL_TYPES
from meshioplusplus._meshio_names import _tables

SHIM = pathlib.Path(__file__).resolve().parents[1] / "meshio_suite" / "shim"

# (meshio module, names, who imports them) — meshioplusplus.<same path> must have each name.
SUPPORTED = [
    ("_vtk_common", ["meshio_to_vtk_type", "vtk_to_meshio_type"], "PyVista from_meshio/to_meshio, pyMOR, ogstools"),
    ("_vtk_common", ["vtk_to_meshio_order", "meshio_to_vtk_order", "vtk_cells_from_data", "Info"],
     "meshio-style VTK readers"),
    ("vtk._vtk_42", ["vtk_type_to_numnodes", "read", "write"], "PyVista from_meshio"),
    ("vtk._vtk_51", ["read", "write"], "meshio-style VTK code"),
    ("gmsh", ["gmsh_to_meshio_type", "meshio_to_gmsh_type", "read", "write"], "pygmsh extract_to_meshio"),
    ("gmsh.common", ["_gmsh_to_meshio_type", "_meshio_to_gmsh_type", "_gmsh_to_meshio_order", "_meshio_to_gmsh_order",
                     "c_int", "c_double", "_fast_forward_to_end_block", "_fast_forward_over_blank_lines",
                     "_read_physical_names", "_read_data", "_write_physical_names", "_write_data"], "sgio"),
    ("gmsh.main", ["read", "write"], "scripts (meshio.gmsh.main.read)"),
    ("_common", ["num_nodes_per_cell", "_pick_first_int_data", "cell_data_from_raw", "raw_from_cell_data", "write_xml",
                 "info", "warn", "error", "is_in_any", "join_strings", "replace_space"],
     "toughio, sgio, netgen helpers"),
    ("_mesh", ["topological_dimension", "CellBlock", "Mesh"], "netgen helpers, converters"),
    ("_files", ["open_file", "is_buffer"], "meshio format plugins (permas/unv writers, sgio)"),
    ("_exceptions", ["ReadError", "WriteError", "CorruptionError"], "meshio format plugins"),
    ("__about__", ["__version__"], "meshio format plugins"),
    ("_helpers", ["register_format", "reader_map", "_writer_map", "extension_to_filetypes", "read", "write"],
     "sgio, yamio"),
    ("xdmf.common", ["numpy_to_xdmf_dtype", "xdmf_to_numpy_type", "dtype_to_format_string", "meshio_to_xdmf_type",
                     "xdmf_to_meshio_type", "xdmf_idx_to_meshio_type", "meshio_type_to_xdmf_index",
                     "translate_mixed_cells", "attribute_type"], "yamio, pyhip, visfem, bamboost"),
    ("xdmf.main", ["read", "write", "XdmfReader", "XdmfWriter"], "yamio, pyhip"),
    ("xdmf.time_series", ["TimeSeriesReader", "TimeSeriesWriter", "ReadError", "cell_data_from_raw",
                          "xdmf_to_numpy_type"], "ogstools"),
    ("xdmf", ["TimeSeriesReader", "TimeSeriesWriter", "common", "time_series"], "ogstools"),
    ("abaqus._abaqus", ["abaqus_to_meshio_type", "meshio_to_abaqus_type", "read", "write"], "sgio, adapy"),
]

# Every difference between meshio's tables and ours: (meshio module, name) -> what only meshio
# has, what only we have, keys whose values differ, and why.
KNOWN_DIFFERENCES = {
    ("_common", "num_nodes_per_cell"): dict(
        only_ours={"triangle7", "quad6", "wedge12"},
        why="VTK cells meshio's VTK map names but its node table lacks (meshio raises KeyError reading them)"),
    ("_mesh", "topological_dimension"): dict(
        only_ours={"hexahedron24", "hexahedron1331", "wedge15", "pyramid13", "triangle7", "quad6", "wedge12",
                   "polyhedron"},
        why="meshio's table misses types it reads and writes (a deliberate difference already)"),
    ("_vtk_common", "vtk_to_meshio_type"): dict(
        only_meshio={0, 8, 15, 16, 75, 76, 77, 78, 79, 80, 81}, only_ours={37},
        why="0 empty, 8 pixel (read as quad), 15/16 pentagonal/hexagonal prisms and 75-81 Bezier cells have no "
            "meshio++ cell type; 37 is VTK_TRIQUADRATIC_PYRAMID, read and written as pyramid14"),
    ("_vtk_common", "meshio_to_vtk_type"): dict(
        only_meshio={"empty", "pixel", "penta_prism", "hexa_prism", "VTK_BEZIER_CURVE", "VTK_BEZIER_TRIANGLE",
                     "VTK_BEZIER_QUADRILATERAL", "VTK_BEZIER_TETRAHEDRON", "VTK_BEZIER_HEXAHEDRON",
                     "VTK_BEZIER_WEDGE", "VTK_BEZIER_PYRAMID"},
        only_ours={"pyramid14"}, why="the inverse of vtk_to_meshio_type"),
    ("xdmf.common", "xdmf_idx_to_meshio_type"): dict(
        only_ours={3}, why="XDMF Polygon cells in Mixed topologies: meshio++ reads and writes them"),
    ("xdmf.common", "meshio_type_to_xdmf_index"): dict(only_ours={"polygon"}, why="the inverse"),
    ("xdmf.common", "meshio_to_xdmf_type"): dict(
        differ={"hexahedron1000"}, why="meshio spells the short name 'Hex_100' (a typo); we 'Hex_1000'"),
    ("xdmf.common", "xdmf_to_meshio_type"): dict(only_meshio={"Hex_100"}, only_ours={"Hex_1000"}, why="the typo"),
    ("abaqus._abaqus", "abaqus_to_meshio_type"): dict(
        only_ours=set("B23 B23H C3D5 C3D5H C3D6H C3D8P C3D8RP C3D10HS C3D15H C3D20P C3D20RP CAX3 CAX3H CAX4 CAX4H "
                      "CAX4I CAX4IH CAX4R CAX4RH CAX4RP CAX6 CAX6H CAX6M CAX6MH CAX8 CAX8H CAX8P CAX8R CAX8RH CAX8RP "
                      "CPE3 CPE3H CPE4 CPE4H CPE4I CPE4IH CPE4P CPE4R CPE4RH CPE4RP CPE6H CPE6M CPE6MH CPE8 CPE8H "
                      "CPE8P CPE8R CPE8RH CPE8RP CPS4I CPS6 CPS6M CPS8 CPS8R DC1D2 DC1D3 DC2D3 DC2D4 DC2D6 DC2D8 "
                      "DC3D4 DC3D6 DC3D8 DC3D10 DC3D15 DC3D20 DCAX3 DCAX4 DCAX6 DCAX8 M3D3 M3D4 M3D4R M3D6 M3D8 "
                      "M3D8R M3D9 M3D9R PIPE21 PIPE22 PIPE31 PIPE32 R2D2 R3D4 RAX2 RB2D2 RB3D2 SC6R SC8R SFM3D3 "
                      "SFM3D4 SFM3D4R SFM3D6 SFM3D8 SFM3D8R".split()),
        differ={"B33", "B33H", "C3D4H"},
        why="the core reads the plane, axisymmetric, membrane, surface, rigid, pipe, pore-pressure and heat-transfer "
            "variants and pyramids too; B33 is a 2-node (cubic) beam, line, not line3; C3D4H is a tetra (meshio: "
            "'tetra4', no such type)"),
    ("abaqus._abaqus", "meshio_to_abaqus_type"): dict(
        only_meshio={"tetra4"}, only_ours={"pyramid"},
        differ={"line", "line3", "triangle", "triangle6", "quad", "quad8", "tetra10", "hexahedron", "hexahedron20"},
        why="ours: the name the core writes for 3-D points (T3D2, S3, C3D8 …); meshio's inverts its first map, so "
            "the last name listed per type wins (B31H, R3D3, C3D8RH …); pyramids are written as C3D5"),
}

DICTS = [
    ("_common", "num_nodes_per_cell"),
    ("_mesh", "topological_dimension"),
    ("_vtk_common", "vtk_to_meshio_type"),
    ("_vtk_common", "meshio_to_vtk_type"),
    ("gmsh", "gmsh_to_meshio_type"),
    ("gmsh", "meshio_to_gmsh_type"),
    ("gmsh.common", "_gmsh_to_meshio_type"),
    ("gmsh.common", "_meshio_to_gmsh_type"),
    ("xdmf.common", "numpy_to_xdmf_dtype"),
    ("xdmf.common", "xdmf_to_numpy_type"),
    ("xdmf.common", "dtype_to_format_string"),
    ("xdmf.common", "meshio_to_xdmf_type"),
    ("xdmf.common", "xdmf_to_meshio_type"),
    ("xdmf.common", "xdmf_idx_to_meshio_type"),
    ("xdmf.common", "meshio_type_to_xdmf_index"),
    ("xdmf.time_series", "xdmf_to_numpy_type"),
    ("abaqus._abaqus", "abaqus_to_meshio_type"),
    ("abaqus._abaqus", "meshio_to_abaqus_type"),
]


def ours(module_name):
    return importlib.import_module(f"meshioplusplus.{module_name}")


def theirs(module_name):
    pytest.importorskip("meshio")
    return importlib.import_module(f"meshio.{module_name}")


# ---- the names resolve, with our own values ---------------------------------------------


@pytest.mark.parametrize("module_name, names, client", SUPPORTED, ids=[row[0] for row in SUPPORTED])
def test_the_names_resolve(module_name, names, client):
    module = ours(module_name)
    missing = [name for name in names if not hasattr(module, name)]
    assert not missing, f"meshioplusplus.{module_name} lacks {missing} ({client} imports them)"
    exec(f"from meshioplusplus.{module_name} import {', '.join(names)}", {})


def test_sub_modules_are_importable_and_are_attributes_of_their_namespace():
    import meshioplusplus.gmsh.common
    import meshioplusplus.vtk._vtk_42
    import meshioplusplus.xdmf.time_series  # noqa: F401

    assert meshioplusplus.vtk._vtk_42 is sys.modules["meshioplusplus.vtk._vtk_42"]
    assert meshioplusplus.xdmf.common is sys.modules["meshioplusplus.xdmf.common"]
    assert meshioplusplus.gmsh.common.__getattr__("_gmsh_to_meshio_type") is meshioplusplus.gmsh.gmsh_to_meshio_type
    assert "gmsh_to_meshio_type" in dir(meshioplusplus.gmsh)


def test_the_private_modules_are_attributes_after_a_plain_import():
    # meshio code reaches e.g. meshio._common.num_nodes_per_cell after "import meshio" alone.
    script = ("import meshioplusplus as m\n"
              "print(m._common.num_nodes_per_cell['tetra'], m._vtk_common.meshio_to_vtk_type['tetra'],\n"
              "      m._mesh.topological_dimension['tetra'], m._files.open_file.__name__, m.__about__.__version__,\n"
              "      m._exceptions.CorruptionError.__name__, m.vtk._vtk_42.__name__, m.xdmf.time_series.__name__)")
    package_root = str(pathlib.Path(os.path.abspath(meshioplusplus.__file__)).parent.parent)
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, *[p for p in sys.path if p]]))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:6] == ["4", "10", "3", "open_file", meshioplusplus.__version__, "CorruptionError"]


def test_modules_meshio_does_not_have_still_fail_to_import():
    # PyVista tries meshio < 5's ``meshio.vtk._vtk`` first and falls back on ImportError.
    with pytest.raises(ImportError):
        importlib.import_module("meshioplusplus.vtk._vtk")
    with pytest.raises(ImportError):
        importlib.import_module("meshioplusplus.stl.common")
    with pytest.raises(AttributeError):
        meshioplusplus.gmsh.no_such_name  # noqa: B018


def test_the_vtk_maps_come_from_the_core_table():
    from meshioplusplus._vtk_common import meshio_to_vtk_type, vtk_to_meshio_type
    from meshioplusplus.vtk._vtk_42 import vtk_type_to_numnodes

    assert meshio_to_vtk_type["triangle"] == 5 and vtk_to_meshio_type[5] == "triangle"
    assert vtk_to_meshio_type[13] == "wedge" and vtk_to_meshio_type[42] == "polyhedron"
    assert vtk_to_meshio_type[69] == "VTK_LAGRANGE_TRIANGLE"  # not triangle10, as the core reads it
    assert meshio_to_vtk_type == {name: vtk_id for vtk_id, name in vtk_to_meshio_type.items()}
    assert {vtk_id for _, _, vtk_id in CELL_TYPES.values() if vtk_id >= 0} == set(vtk_to_meshio_type)
    for vtk_id, name in vtk_to_meshio_type.items():
        assert CELL_TYPES[name][2] == vtk_id
        nodes = CELL_TYPES[name][0]
        if vtk_id < len(vtk_type_to_numnodes):
            assert vtk_type_to_numnodes[vtk_id] == (nodes if nodes > 0 else -1)
    assert vtk_type_to_numnodes[7] == -1 and vtk_type_to_numnodes[12] == 8


def test_the_vtk_node_orders_are_the_writers(tmp_path):
    from meshioplusplus._vtk_common import meshio_to_vtk_order, vtk_to_meshio_order

    assert _core.vtk_node_permutation(13) == (0, 2, 1, 3, 5, 4) and _core.vtk_node_permutation(5) is None
    wedge = meshioplusplus.Mesh(np.zeros((6, 3)), [("wedge", [[0, 1, 2, 3, 4, 5]])])
    meshioplusplus.write(tmp_path / "wedge.vtk", wedge, binary=False, fmt_version="4.2")
    cells = (tmp_path / "wedge.vtk").read_text().split("CELLS")[1].splitlines()[1].split()
    assert [int(node) for node in cells[1:]] == list(meshio_to_vtk_order("wedge"))
    assert list(meshio_to_vtk_order("wedge")) == [0, 2, 1, 3, 5, 4]
    assert list(vtk_to_meshio_order(13)) == [0, 2, 1, 3, 5, 4]
    assert meshio_to_vtk_order("tetra10") is None and vtk_to_meshio_order(5) is None
    assert meshio_to_vtk_order("polygon") is None and vtk_to_meshio_order(7) is None
    assert meshio_to_vtk_order("wedge", dtype=np.int32).dtype == np.int32


def test_pyvistas_from_meshio_loop_runs_on_our_tables():
    # The loop of pyvista.core.utilities.fileio.from_meshio, on a mesh of ours.
    from meshioplusplus._vtk_common import meshio_to_vtk_type
    from meshioplusplus.vtk._vtk_42 import vtk_type_to_numnodes

    mesh = meshioplusplus.Mesh(np.zeros((6, 3)), [("triangle", [[0, 1, 2]]), ("quad", [[0, 1, 2, 3]]),
                                                 ("polygon", [[0, 1, 2, 3, 4]]), ("wedge", [[0, 1, 2, 3, 4, 5]])])
    cells, cell_type = [], []
    for c in mesh.cells:
        vtk_type = meshio_to_vtk_type[c.type]
        numnodes = vtk_type_to_numnodes[vtk_type]
        fill = np.array([[len(d)] for d in c.data]) if numnodes == -1 else np.full((len(c.data), 1), numnodes)
        cells.append(np.hstack((fill, c.data)).ravel())
        cell_type += [vtk_type] * len(c.data)
    assert cell_type == [5, 9, 7, 13]
    assert np.concatenate(cells).tolist() == [3, 0, 1, 2, 4, 0, 1, 2, 3, 5, 0, 1, 2, 3, 4, 6, 0, 1, 2, 3, 4, 5]


def test_the_gmsh_maps_are_the_gmsh_formats_table():
    gmsh = meshioplusplus.gmsh
    assert gmsh.gmsh_to_meshio_type[2] == "triangle" and gmsh.gmsh_to_meshio_type[15] == "vertex"
    assert gmsh.meshio_to_gmsh_type["tetra10"] == 11 and gmsh.gmsh_to_meshio_type[np.int32(4)] == "tetra"
    assert gmsh.meshio_to_gmsh_type == {name: i for i, name in gmsh.gmsh_to_meshio_type.items()}
    assert gmsh.common._meshio_to_gmsh_type is gmsh.meshio_to_gmsh_type
    assert [(i, name) for i, name, _ in _core.gmsh_element_types()] == sorted(gmsh.gmsh_to_meshio_type.items())
    # Read back: a tetra10 written through the core comes back in our order.
    idx = np.arange(10).reshape(1, 10)
    gmsh_rows = gmsh.common._meshio_to_gmsh_order("tetra10", idx)
    assert gmsh_rows.tolist() == [[0, 1, 2, 3, 4, 5, 6, 7, 9, 8]]
    assert gmsh.common._gmsh_to_meshio_order("tetra10", gmsh_rows).tolist() == idx.tolist()
    hexahedron = np.arange(40).reshape(2, 20)
    there = gmsh.common._meshio_to_gmsh_order("hexahedron20", hexahedron)
    assert gmsh.common._gmsh_to_meshio_order("hexahedron20", there).tolist() == hexahedron.tolist()
    assert gmsh.common._gmsh_to_meshio_order("triangle", [[0, 1, 2]]).tolist() == [[0, 1, 2]]


@pytest.mark.parametrize("cell_type", ["triangle", "tetra10", "hexahedron20", "hexahedron27", "wedge15", "pyramid13"])
def test_the_gmsh_tables_are_what_the_gmsh_writer_writes(tmp_path, cell_type):
    # The bound table is the one the writer uses: a one-cell MSH 2.2 file holds its id and order.
    nodes = CELL_TYPES[cell_type][0]
    mesh = meshioplusplus.Mesh(np.zeros((nodes, 3)), [(cell_type, np.arange(nodes).reshape(1, nodes))])
    meshioplusplus.write(tmp_path / "cell.msh", mesh, file_format="gmsh", fmt_version="2.2", binary=False)
    element = (tmp_path / "cell.msh").read_text().split("$Elements")[1].split()
    gmsh_id, num_tags = int(element[2]), int(element[3])
    written = [int(node) - 1 for node in element[4 + num_tags:4 + num_tags + nodes]]
    common = meshioplusplus.gmsh.common
    assert gmsh_id == common._meshio_to_gmsh_type[cell_type]
    assert written == common._meshio_to_gmsh_order(cell_type, np.arange(nodes).reshape(1, nodes))[0].tolist()


def test_the_gmsh_section_helpers_round_trip(tmp_path):
    from meshioplusplus.gmsh import common

    path = tmp_path / "sections.msh"
    values = np.arange(12.0).reshape(4, 3) / 7
    with open(path, "wb") as f:
        common._write_physical_names(f, {"inlet": np.array([3, 2]), "wall": np.array([1, 2]), "odd": "x"})
        for binary in (False, True):
            common._write_data(f, "NodeData", f"u{int(binary)}", values, binary)
    field_data, data = {}, {}
    with open(path, "rb") as f:
        line, eof = common._fast_forward_over_blank_lines(f)
        assert line.strip() == "$PhysicalNames" and not eof
        common._read_physical_names(f, field_data)
        for _ in range(2):
            assert f.readline().strip() == b"$NodeData"
            common._read_data(f, "NodeData", data, 8, is_ascii=not data)
        assert common._fast_forward_over_blank_lines(f) == ("", True)
    assert {k: v.tolist() for k, v in field_data.items()} == {"wall": [1, 2], "inlet": [3, 2]}
    np.testing.assert_array_equal(data["u0"], values)
    np.testing.assert_array_equal(data["u1"], values)
    with pytest.raises(meshioplusplus.WriteError):
        common._write_data(io.BytesIO(), "NodeData", "bad", np.zeros((2, 2)), False)


def test_the_xdmf_tables_are_the_xdmf_formats(tmp_path):
    from meshioplusplus.xdmf import common

    assert common.meshio_to_xdmf_type["tetra"][0] == "Tetrahedron"
    assert common.xdmf_to_meshio_type["Polyvertex"] == "vertex"
    assert common.xdmf_idx_to_meshio_type[0x4] == "triangle" and common.meshio_type_to_xdmf_index["line3"] == 0x22
    assert common.numpy_to_xdmf_dtype["float64"] == ("Float", "8")
    assert common.xdmf_to_numpy_type[("UInt", "4")] == "uint32"
    assert common.xdmf_to_meshio_type["Tet_10"] == "tetra10" and common.meshio_to_xdmf_type["quad8"][1] == "Quad_8"
    for cell_type in ("triangle6", "hexahedron20", "line"):  # the first spelling is the one written
        nodes = CELL_TYPES[cell_type][0]
        meshioplusplus.write(tmp_path / "cell.xdmf", meshioplusplus.Mesh(
            np.zeros((nodes, 3)), [(cell_type, np.arange(nodes).reshape(1, nodes))]), data_format="XML")
        topology = ET.parse(tmp_path / "cell.xdmf").getroot().find(".//Topology")
        assert topology.get("TopologyType") == common.meshio_to_xdmf_type[cell_type][0]
    assert [n for _, n, _ in _tables.xdmf_mixed_ids()][:3] == ["vertex", "line", "polygon"]
    # translate_mixed_cells reads the Mixed stream the core writes
    mesh = meshioplusplus.Mesh(np.zeros((5, 3)), [("triangle", [[0, 1, 2], [1, 2, 3]]), ("quad", [[0, 1, 2, 3]]),
                                                 ("line", [[3, 4]]), ("polygon", [[0, 1, 2, 3, 4]])])
    meshioplusplus.write(tmp_path / "mixed.xdmf", mesh, data_format="XML")
    root = ET.parse(tmp_path / "mixed.xdmf").getroot()
    stream = np.array(root.find(".//Topology/DataItem").text.split(), dtype=np.int64)
    blocks = common.translate_mixed_cells(stream)
    assert [(b.type, b.data.tolist()) for b in blocks] == [(b.type, np.asarray(b.data).tolist()) for b in mesh.cells]
    with pytest.raises(meshioplusplus.ReadError):
        common.translate_mixed_cells(np.array([2, 3, 0, 1, 2]))  # a 3-point polyline
    assert [common.attribute_type(np.zeros(s)) for s in [(4,), (4, 1), (4, 3), (4, 9), (4, 3, 3), (4, 6), (4, 2, 2)]] \
        == ["Scalar", "Scalar", "Vector", "Tensor", "Tensor", "Tensor6", "Matrix"]


def test_the_abaqus_tables_are_the_abaqus_formats(tmp_path):
    from meshioplusplus.abaqus import _abaqus

    assert meshioplusplus.abaqus._abaqus is sys.modules["meshioplusplus.abaqus._abaqus"]
    assert _abaqus.abaqus_to_meshio_type["C3D8R"] == "hexahedron" and _abaqus.abaqus_to_meshio_type["CPE4"] == "quad"
    assert _abaqus.meshio_to_abaqus_type["tetra10"] == "C3D10" and _abaqus.meshio_to_abaqus_type["line"] == "T3D2"
    assert all(_abaqus.abaqus_to_meshio_type[name] == cell_type
               for cell_type, name in _abaqus.meshio_to_abaqus_type.items())
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    mesh = meshioplusplus.Mesh(points, [("tetra", [[0, 1, 2, 3]]), ("pyramid", [[0, 1, 4, 2, 3]])])
    _abaqus.write(tmp_path / "a.inp", mesh)
    text = (tmp_path / "a.inp").read_text().upper()
    assert "TYPE=C3D4" in text and "TYPE=C3D5" in text
    assert [b.type for b in _abaqus.read(tmp_path / "a.inp").cells] == ["tetra", "pyramid"]
    _abaqus.write(tmp_path / "b.inp", mesh, translate_cell_names=False)
    assert "TYPE=TETRA" in (tmp_path / "b.inp").read_text().upper()


def test_xdmf_main_reads_and_writes_through_the_core(tmp_path):
    from meshioplusplus.xdmf import main

    mesh = meshioplusplus.Mesh(np.eye(3), [("triangle", [[0, 1, 2]])], point_data={"u": np.arange(3.0)})
    main.XdmfWriter(tmp_path / "a.xdmf", mesh, data_format="XML")
    main.write(tmp_path / "b.xdmf", mesh, data_format="XML")
    for name in ("a.xdmf", "b.xdmf"):
        back = main.XdmfReader(tmp_path / name).read()
        np.testing.assert_array_equal(back.points, mesh.points)
        np.testing.assert_array_equal(main.read(tmp_path / name).point_data["u"], mesh.point_data["u"])
    with pytest.raises(meshioplusplus.WriteError):
        main.XdmfWriter(tmp_path / "c.xdmf", mesh, data_format="JSON")


def test_the_vtk_modules_write_their_version(tmp_path):
    from meshioplusplus.vtk import _vtk_42, _vtk_51

    mesh = meshioplusplus.Mesh(np.eye(3), [("triangle", [[0, 1, 2]])])
    _vtk_42.write(tmp_path / "a.vtk", mesh, binary=False)
    _vtk_51.write(tmp_path / "b.vtk", mesh)
    assert (tmp_path / "a.vtk").read_bytes().startswith(b"# vtk DataFile Version 4.2")
    assert (tmp_path / "b.vtk").read_bytes().startswith(b"# vtk DataFile Version 5.1")
    for name, module in (("a.vtk", _vtk_42), ("b.vtk", _vtk_51)):
        assert module.read(tmp_path / name).cells[0].data.tolist() == [[0, 1, 2]]
    meshioplusplus.gmsh.main.write(tmp_path / "c.msh", mesh, fmt_version="2.2", binary=False)
    assert meshioplusplus.gmsh.main.read(tmp_path / "c.msh").cells_dict["triangle"].tolist() == [[0, 1, 2]]


def test_the_common_helpers(tmp_path, capsys):
    from meshioplusplus import _common, _files

    assert _common._pick_first_int_data({"a": np.zeros(2), "m": np.ones(2, dtype=int), "b": np.zeros(2, "u1")}) \
        == ("m", ["a", "b"])
    assert _common._pick_first_int_data({"a": [np.zeros(2)]}) == (None, [])
    assert _common.join_strings(["a-b", "c"]) == ("a-b_c", "_")
    assert _common.replace_space("a b_c") == ("a-b_c", "-")
    split = _common.cell_data_from_raw([np.zeros((2, 3)), np.zeros((1, 3))], {"d": np.arange(3)})
    assert [part.tolist() for part in split["d"]] == [[0, 1], [2]]
    assert _common.raw_from_cell_data(split)["d"].tolist() == [0, 1, 2]
    _common.warn("careful")
    assert "Warning: careful" in capsys.readouterr().err
    assert _files.is_buffer(io.StringIO(), "r") and not _files.is_buffer("x.vtk", "w")
    (tmp_path / "t.txt").write_text("hi")
    with _files.open_file(tmp_path / "t.txt") as f:
        assert f.read() == "hi"
    buffer = io.StringIO("there")
    with _files.open_file(buffer) as f:
        assert f is buffer
    assert not buffer.closed
    assert issubclass(meshioplusplus._exceptions.CorruptionError, meshioplusplus.MeshioError)
    assert meshioplusplus.__about__.__version__ == meshioplusplus.__version__


def test_vtk_cells_from_data_blocks_and_orders():
    from meshioplusplus._vtk_common import vtk_cells_from_data

    connectivity = np.array([0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 0, 1, 2, 3, 4])
    offsets = np.array([3, 7, 13, 17, 22])
    types = np.array([5, 9, 13, 7, 7])
    cells, data = vtk_cells_from_data(connectivity, offsets, types, {"id": np.arange(5)})
    assert [(b.type, b.data.tolist()) for b in cells] == [
        ("triangle", [[0, 1, 2]]), ("quad", [[0, 1, 2, 3]]), ("wedge", [[0, 2, 1, 3, 5, 4]]),
        ("polygon", [[0, 1, 2, 3]]), ("polygon", [[0, 1, 2, 3, 4]])]
    assert [d.tolist() for d in data["id"]] == [[0], [1], [2], [3], [4]]
    with pytest.raises(meshioplusplus.ReadError):
        vtk_cells_from_data(connectivity, offsets[:2], types, {})


def test_the_shim_resolves_meshios_private_modules():
    package_root = str(pathlib.Path(os.path.abspath(meshioplusplus.__file__)).parent.parent)
    script = (
        "import meshio, meshio.vtk._vtk_42, meshio.xdmf.common, meshio.gmsh.common\n"
        "from meshio._vtk_common import meshio_to_vtk_type, vtk_to_meshio_type\n"
        "from meshio.vtk._vtk_42 import vtk_type_to_numnodes\n"
        "from meshio.vtk._vtk_51 import write\n"
        "from meshio.xdmf import common, time_series\n"
        "from meshio.xdmf.time_series import ReadError, cell_data_from_raw, xdmf_to_numpy_type\n"
        "from meshio.xdmf.main import XdmfReader\n"
        "from meshio._common import _pick_first_int_data, num_nodes_per_cell\n"
        "from meshio._mesh import topological_dimension\n"
        "from meshio._files import open_file\n"
        "from meshio._exceptions import CorruptionError\n"
        "from meshio.__about__ import __version__\n"
        "assert meshio.__name__ == 'meshioplusplus'\n"
        "assert meshio.gmsh.gmsh_to_meshio_type[2] == 'triangle'\n"
        "assert meshio.gmsh.common._meshio_to_gmsh_type['triangle'] == 2\n"
        "assert vtk_type_to_numnodes[meshio_to_vtk_type['tetra']] == 4\n"
        "try:\n    from meshio.vtk._vtk import meshio_to_vtk_type\nexcept ImportError:\n    print('fallback')\n"
    )
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SHIM), package_root, *[p for p in sys.path if p]]))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "fallback"


def test_registering_sub_modules_and_lazy_names_merges():
    from meshioplusplus import _capabilities

    first = _capabilities.register("test-format", submodules={"a": sys}, lazy_namespace={"x": dict})
    _capabilities.register("test-format", submodules={"b": os}, lazy_namespace={"y": list})
    assert first.submodules == {"a": sys, "b": os} and set(first.lazy_namespace) == {"x", "y"}
    _capabilities._CAPABILITIES.pop("test-format")


# ---- compared with meshio 5.3.5 ---------------------------------------------------------


def _dict_differences(meshio_value, our_value):
    shared = set(meshio_value) & set(our_value)
    return dict(
        only_meshio=set(meshio_value) - set(our_value),
        only_ours=set(our_value) - set(meshio_value),
        differ={key for key in shared if meshio_value[key] != our_value[key]},
    )


@pytest.mark.parametrize("module_name, name", DICTS, ids=[f"{m}.{n}" for m, n in DICTS])
def test_dicts_match_meshio_key_by_key(module_name, name):
    meshio_value = getattr(theirs(module_name), name)
    our_value = getattr(ours(module_name), name)
    assert isinstance(our_value, dict)
    expected = dict(only_meshio=set(), only_ours=set(), differ=set())
    expected.update({k: v for k, v in KNOWN_DIFFERENCES.get((module_name, name), {}).items() if k != "why"})
    assert _dict_differences(meshio_value, our_value) == expected


def test_vtk_type_to_numnodes_matches_meshio():
    meshio_table = theirs("vtk._vtk_42").vtk_type_to_numnodes
    our_table = ours("vtk._vtk_42").vtk_type_to_numnodes
    assert our_table.dtype.kind == "i"
    differ = {i for i in range(len(meshio_table)) if meshio_table[i] != our_table[i]}
    # 0 empty (0 nodes), 15 penta_prism (10), 16 hexa_prism (12): no meshio++ cell type (above)
    assert differ == {0, 15, 16}
    assert list(our_table[len(meshio_table):]) == [-1, 14]  # 37 pyramid14 (VTK_TRIQUADRATIC_PYRAMID)


def test_node_orders_match_meshio():
    meshio_vtk, meshio_gmsh = theirs("_vtk_common"), theirs("gmsh.common")
    our_vtk, our_gmsh = ours("_vtk_common"), ours("gmsh.common")
    for cell_type in meshio_vtk.meshio_to_vtk_type:
        a, b = meshio_vtk.meshio_to_vtk_order(cell_type), our_vtk.meshio_to_vtk_order(cell_type)
        assert (a is None and b is None) or a.tolist() == b.tolist(), cell_type
    for vtk_id in range(90):
        a, b = meshio_vtk.vtk_to_meshio_order(vtk_id), our_vtk.vtk_to_meshio_order(vtk_id)
        assert (a is None and b is None) or a.tolist() == b.tolist(), vtk_id
    for cell_type in meshio_gmsh._meshio_to_gmsh_type:
        n = our_vtk.num_nodes_per_cell[cell_type]
        idx = np.arange(2 * n).reshape(2, n)
        assert our_gmsh._gmsh_to_meshio_order(cell_type, idx).tolist() == \
            meshio_gmsh._gmsh_to_meshio_order(cell_type, idx).tolist(), cell_type
        assert our_gmsh._meshio_to_gmsh_order(cell_type, idx).tolist() == \
            meshio_gmsh._meshio_to_gmsh_order(cell_type, idx).tolist(), cell_type


PICK_INPUTS = [
    {},
    {"a": np.zeros(3)},
    {"a": np.zeros(3), "mat": np.ones(3, dtype=np.int32), "b": np.zeros(3, dtype=np.uint8)},
    {"x": [np.zeros(2), np.zeros(1)], "y": [np.ones(2, dtype=int), np.ones(1, dtype=int)]},
]


def test_common_functions_match_meshio(tmp_path):
    meshio_common, our_common = theirs("_common"), ours("_common")
    for data in PICK_INPUTS:
        assert our_common._pick_first_int_data(data) == meshio_common._pick_first_int_data(data)
    for strings in (["a", "b"], ["a-b", "c"], ["a-b", "c_d", "e#f"], []):
        assert our_common.join_strings(strings) == meshio_common.join_strings(strings)
    for string in ("a b", "a_b c", "x_-+ y"):
        assert our_common.replace_space(string) == meshio_common.replace_space(string)
    assert our_common.is_in_any("b", ["abc"]) == meshio_common.is_in_any("b", ["abc"])
    cells = [np.zeros((2, 3)), np.zeros((3, 3))]
    raw = {"d": np.arange(5), "v": np.arange(10.0).reshape(5, 2)}
    for a, b in zip(our_common.cell_data_from_raw(cells, raw).items(),
                    meshio_common.cell_data_from_raw(cells, raw).items()):
        assert a[0] == b[0] and [x.tolist() for x in a[1]] == [x.tolist() for x in b[1]]
    split = meshio_common.cell_data_from_raw(cells, raw)
    for name, values in meshio_common.raw_from_cell_data(split).items():
        assert our_common.raw_from_cell_data(split)[name].tolist() == values.tolist()
    root = ET.Element("Xdmf", Version="3.0")
    ET.SubElement(root, "Domain").text = "x"
    our_common.write_xml(tmp_path / "ours.xml", root)
    meshio_common.write_xml(tmp_path / "theirs.xml", root)
    assert (tmp_path / "ours.xml").read_bytes() == (tmp_path / "theirs.xml").read_bytes()
    meshio_files, our_files = theirs("_files"), ours("_files")
    for obj, mode in ((io.StringIO(), "r"), (io.BytesIO(), "w"), ("path", "r"), (io.StringIO(), "rw")):
        assert our_files.is_buffer(obj, mode) == meshio_files.is_buffer(obj, mode)


def test_vtk_cells_from_data_matches_meshio():
    meshio_vtk, our_vtk = theirs("_vtk_common"), ours("_vtk_common")
    cases = [
        (np.array([0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5]), np.array([3, 7, 13]), np.array([5, 9, 13])),
        (np.arange(12), np.array([3, 6, 10, 12]), np.array([7, 7, 7, 3])),  # polygons of 3, 3, 4, then a line
        (np.arange(16), np.array([6, 12, 16]), np.array([69, 69, 70])),  # Lagrange cells
        (np.arange(7), np.array([3, 7]), np.array([5, 99])),  # an id neither knows: skipped with a warning
    ]
    for connectivity, offsets, types in cases:
        raw = {"id": np.arange(len(types)) * 10}
        ours_cells, ours_data = our_vtk.vtk_cells_from_data(connectivity, offsets, types, raw)
        their_cells, their_data = meshio_vtk.vtk_cells_from_data(connectivity, offsets, types, raw)
        assert [(b.type, b.data.tolist()) for b in ours_cells] == [(b.type, b.data.tolist()) for b in their_cells]
        assert {k: [x.tolist() for x in v] for k, v in ours_data.items()} == \
            {k: [x.tolist() for x in v] for k, v in their_data.items()}


def test_xdmf_functions_match_meshio():
    meshio_xdmf, our_xdmf = theirs("xdmf.common"), ours("xdmf.common")
    for shape in [(4,), (4, 1), (4, 2), (4, 3), (4, 9), (4, 3, 3), (4, 6), (4, 2, 2), (4, 5)]:
        data = np.zeros(shape)
        try:
            expected = meshio_xdmf.attribute_type(data)
        except Exception as error:  # noqa: BLE001 - the same exception class, by name
            with pytest.raises(Exception) as raised:
                our_xdmf.attribute_type(data)
            assert type(raised.value).__name__ == type(error).__name__
        else:
            assert our_xdmf.attribute_type(data) == expected
    # Mixed streams of the ids meshio decodes (it reads vertices without the count its own
    # writer writes, so none here: docs/meshio-compatibility.md)
    stream = np.array([4, 0, 1, 2, 4, 1, 2, 3, 5, 0, 1, 2, 3, 2, 2, 3, 4, 6, 0, 1, 2, 3, 9, 0, 1, 2, 3, 4, 5, 6, 7])
    ours_blocks, their_blocks = our_xdmf.translate_mixed_cells(stream), meshio_xdmf.translate_mixed_cells(stream)
    assert [(b.type, b.data.tolist()) for b in ours_blocks] == [(b.type, b.data.tolist()) for b in their_blocks]
    with pytest.raises(meshioplusplus.ReadError):
        our_xdmf.translate_mixed_cells(np.array([2, 3, 0, 1, 2]))
    with pytest.raises(theirs("_exceptions").ReadError):
        meshio_xdmf.translate_mixed_cells(np.array([2, 3, 0, 1, 2]))


def test_gmsh_section_helpers_read_what_meshios_write_and_back(tmp_path):
    meshio_gmsh, our_gmsh = theirs("gmsh.common"), ours("gmsh.common")
    field_data = {"inlet": np.array([3, 2]), "wall": np.array([1, 2])}
    values = np.arange(9.0).reshape(3, 3) / 3
    for writer, reader in ((meshio_gmsh, our_gmsh), (our_gmsh, meshio_gmsh)):
        path = tmp_path / "sections.msh"
        with open(path, "wb") as f:
            writer._write_physical_names(f, field_data)
            writer._write_data(f, "NodeData", "u", values, True)  # ascii differs: meshio writes np.float64(…)
        read_fields, read_data = {}, {}
        with open(path, "rb") as f:
            assert f.readline().strip() == b"$PhysicalNames"
            reader._read_physical_names(f, read_fields)
            assert f.readline().strip() == b"$NodeData"
            reader._read_data(f, "NodeData", read_data, 8, False)
        assert {k: v.tolist() for k, v in read_fields.items()} == {k: v.tolist() for k, v in field_data.items()}
        np.testing.assert_array_equal(read_data["u"], values)
    for name, module in (("theirs.msh", meshio_gmsh), ("ours.msh", our_gmsh)):
        with open(tmp_path / name, "wb") as f:  # meshio's binary writer needs a real file
            module._write_data(f, "ElementData", "p", values, True)
            module._write_physical_names(f, field_data)
    assert (tmp_path / "theirs.msh").read_bytes() == (tmp_path / "ours.msh").read_bytes()
    assert our_gmsh.c_int == meshio_gmsh.c_int and our_gmsh.c_double == meshio_gmsh.c_double


# ---- the clients themselves, where installed ---------------------------------------------


def test_gmsh_agrees_with_our_gmsh_ids():
    # pygmsh names gmsh's elements with meshio.gmsh.gmsh_to_meshio_type: ask gmsh what each id is.
    gmsh = pytest.importorskip("gmsh")
    gmsh.initialize()
    try:
        unanswered = []
        for gmsh_id, name in meshioplusplus.gmsh.gmsh_to_meshio_type.items():
            try:
                _, dim, _, num_nodes, *_ = gmsh.model.mesh.getElementProperties(gmsh_id)
            except Exception:  # noqa: BLE001 - gmsh: "FaceClosureFull not implemented for prisms of order 3"
                unanswered.append(name)
                continue
            assert (num_nodes, dim) == CELL_TYPES[name][:2], (gmsh_id, name)
        assert all(name.startswith("wedge") for name in unanswered), unanswered
    finally:
        gmsh.finalize()


def test_pyvista_converts_through_the_shim(tmp_path):
    # pyvista.from_meshio/to_meshio import meshio's private names; with the shim they are ours.
    pytest.importorskip("pyvista")
    package_root = str(pathlib.Path(os.path.abspath(meshioplusplus.__file__)).parent.parent)
    script = (
        "import numpy as np, pyvista, meshio\n"
        "assert meshio.__name__ == 'meshioplusplus'\n"
        "mesh = meshio.Mesh(np.eye(6, 3), [('triangle', [[0, 1, 2]]), ('wedge', [[0, 1, 2, 3, 4, 5]]),\n"
        "                                  ('polygon', [[0, 1, 2, 3]])])\n"
        "grid = pyvista.from_meshio(mesh)\n"
        "assert list(grid.celltypes) == [5, 13, 7], list(grid.celltypes)\n"
        "back = pyvista.to_meshio(grid)\n"
        "assert [(b.type, np.asarray(b.data).tolist()) for b in back.cells] == \\\n"
        "    [(b.type, b.data.tolist()) for b in mesh.cells], back.cells\n"
        f"pyvista.save_meshio({str(tmp_path / 'out.vtu')!r}, grid)\n"
        f"assert pyvista.read_meshio({str(tmp_path / 'out.vtu')!r}).n_cells == 3\n"
    )
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SHIM), package_root, *[p for p in sys.path if p]]))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    assert result.returncode == 0, result.stderr
