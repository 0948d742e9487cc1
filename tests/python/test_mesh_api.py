"""The meshio-compatible Python surface: Mesh, CellBlock, regions and their set views."""

import subprocess
import sys

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus._conversion import to_core
from meshioplusplus._regions import block_bases


def mixed_mesh():
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 1]], dtype=float)
    cells = [
        ("triangle", np.array([[0, 1, 2], [0, 2, 3]])),
        ("polygon", [[0, 1, 2, 3], [1, 2, 4]]),
        ("tetra", np.array([[0, 1, 2, 4]])),
    ]
    return mio.Mesh(
        points,
        cells,
        point_data={"T": np.arange(5.0)},
        cell_data={"id": [np.array([1, 2]), np.array([3, 4]), np.array([5])]},
        point_sets={"apex": [4]},
        cell_sets={"mixed": [np.array([1]), np.array([0]), np.array([0])]},
    )


def test_cells_accept_tuples_blocks_and_dicts():
    mesh = mixed_mesh()
    assert [b.type for b in mesh.cells] == ["triangle", "polygon", "tetra"]
    assert mesh.cells[1].is_ragged and not mesh.cells[0].is_ragged
    cell_type, data = mesh.cells[0]  # meshio < 5 tuple unpacking
    assert cell_type == "triangle" and data.shape == (2, 3)
    from_dict = mio.Mesh(mesh.points, {"triangle": [[0, 1, 2]]})
    assert from_dict.cells[0].type == "triangle" and from_dict.cells[0].dim == 2


def test_uniform_polygons_become_rectangular():
    mesh = mio.Mesh(np.zeros((4, 2)), [("polygon", [[0, 1, 2, 3], [3, 2, 1, 0]])])
    assert isinstance(mesh.cells[0].data, np.ndarray) and mesh.cells[0].data.shape == (2, 4)


def test_data_lengths_are_checked():
    with pytest.raises(ValueError, match="point_data"):
        mio.Mesh(np.zeros((3, 3)), [("triangle", [[0, 1, 2]])], point_data={"a": np.zeros(2)})
    with pytest.raises(ValueError, match="cell_data"):
        mio.Mesh(np.zeros((3, 3)), [("triangle", [[0, 1, 2]])], cell_data={"a": [np.zeros(2)]})


def test_block_bases_count_every_block():
    mesh = mixed_mesh()
    bases = block_bases(mesh.cells)
    assert bases.dtype == np.int64
    assert bases.tolist() == [0, 2, 4, 5]
    assert block_bases([3, 0, 2]).tolist() == [0, 3, 3, 5]


def test_sets_are_live_views_over_regions():
    mesh = mixed_mesh()
    kinds = {(r.name, r.kind) for r in mesh.regions}
    assert kinds == {("apex", mio.RegionKind.POINT), ("mixed", mio.RegionKind.CELL)}
    assert mesh.region("mixed").entries.tolist() == [1, 2, 4]  # block-major
    per_block = mesh.cell_sets["mixed"]
    assert [a.tolist() for a in per_block] == [[1], [0], [0]]
    mesh.point_sets["base"] = np.array([0, 1, 2, 3])
    assert mesh.region("base").kind == mio.RegionKind.POINT
    del mesh.cell_sets["mixed"]
    assert "mixed" not in mesh.cell_sets
    mesh.cell_sets = {"tets": [[], [], [0]]}
    assert mesh.region("tets").entries.tolist() == [4]
    # meshio pairs a set's arrays with blocks by zip(): a short list leaves the last blocks out,
    # a long one is an error.
    mesh.cell_sets["short"] = [[0]]
    assert mesh.region("short").entries.tolist() == [0]
    with pytest.raises(ValueError, match="index arrays for 3 cell blocks"):
        mesh.cell_sets["bad"] = [[0], [], [], [0]]
    # An index outside its block (pygmsh's sets of global element tags) is accepted, as meshio
    # accepts it, with a warning; the region keeps only the indices that name a cell.
    with pytest.warns(UserWarning, match=r"'past': 2 of 3 indices are outside cell block 2 \(1 cells\)"):
        mesh.cell_sets["past"] = [[], [], [0, 1, -1]]
    assert mesh.region("past").entries.tolist() == [4]


def test_cell_sets_past_their_block_are_never_written_as_missing_cells(tmp_path):
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    cells = [("line", np.array([[0, 1], [1, 3]])), ("triangle", np.array([[0, 1, 2], [1, 3, 2]]))]
    # pygmsh's shape: the set of the triangles named by Gmsh's global element tags - 1 (2, 3)
    with pytest.warns(UserWarning, match="outside cell block 1"):
        mesh = mio.Mesh(points, cells, cell_sets={"top": [None, np.array([1, 2, 3])]})
    assert mesh.region("top").entries.tolist() == [3]
    for name in ("out.msh", "out.vtu", "out.med"):
        mio.write(tmp_path / name, mesh)
        back = mio.read(tmp_path / name)
        total = sum(len(block.data) for block in back.cells)
        for region in back.regions:
            assert region.entries.size == 0 or int(region.entries.max()) < total


def test_side_regions_are_not_cell_sets():
    mesh = mixed_mesh()
    mesh.regions.append(mio.Region("wall", mio.RegionKind.SIDE, 2, 7, [[4, 0], [4, 1]]))
    assert "wall" not in mesh.cell_sets
    assert mesh.region("wall", mio.RegionKind.SIDE).entries.shape == (2, 2)
    with pytest.raises(ValueError, match="pairs"):
        mio.Region("bad", mio.RegionKind.SIDE, entries=[1, 2])


def test_dict_views_concatenate_by_type():
    mesh = mio.Mesh(
        np.zeros((4, 3)),
        [("triangle", [[0, 1, 2]]), ("line", [[0, 1]]), ("triangle", [[1, 2, 3]])],
        cell_data={"c": [np.array([1.0]), np.array([2.0]), np.array([3.0])]},
        cell_sets={"s": [[0], [], [0]]},
    )
    assert mesh.cells_dict["triangle"].tolist() == [[0, 1, 2], [1, 2, 3]]
    assert mesh.cell_data_dict["c"]["triangle"].tolist() == [1.0, 3.0]
    assert mesh.cell_sets_dict["s"]["triangle"].tolist() == [0, 1]
    assert mesh.get_cells_type("line").tolist() == [[0, 1]]
    assert mesh.get_cell_data("c", "triangle").tolist() == [1.0, 3.0]


def test_canonical_arrays_reach_the_core_without_copies():
    mesh = mixed_mesh()
    core = to_core(mesh)
    assert np.shares_memory(core["points"], mesh.points)
    assert np.shares_memory(core["cells"][0][1], mesh.cells[0].data)
    assert np.shares_memory(core["point_data"]["T"], mesh.point_data["T"])
    # A non-contiguous array is the one case that must be copied.
    strided = mio.Mesh(np.zeros((6, 3))[::2], [("triangle", [[0, 1, 2]])])
    assert not np.shares_memory(to_core(strided)["points"], strided.points)
    flags = mio.Mesh(mesh.points, mesh.cells, point_data={"b": np.array([True, False, True, True, False])})
    assert np.shares_memory(to_core(flags)["point_data"]["b"], flags.point_data["b"])


def test_ragged_cells_pack_into_csr():
    mesh = mixed_mesh()
    cell_type, nodes, offsets, face_offsets = to_core(mesh)["cells"][1]
    assert cell_type == "polygon" and face_offsets is None
    assert nodes.tolist() == [0, 1, 2, 3, 1, 2, 4] and offsets.tolist() == [0, 4, 7]
    cube_faces = [[0, 1, 2, 3], [0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]]
    pyramid = mio.Mesh(mesh.points, [("polyhedron5", [cube_faces])])
    cell_type, nodes, offsets, face_offsets = to_core(pyramid)["cells"][0]
    assert cell_type == "polyhedron" and offsets.tolist() == [0, 5]
    assert face_offsets.tolist() == [0, 4, 7, 10, 13, 16]


def test_unknown_cell_types_are_kept_as_meshio_keeps_them():
    block = mio.CellBlock("blob", [[0, 1]])
    assert block.type == "blob" and block.dim is None and block.data.shape == (1, 2)
    assert mio.CellBlock("VTK_LAGRANGE_WEDGE", [list(range(18))]).dim == 3


def test_cell_type_table_is_complete():
    assert len(mio.num_nodes_per_cell) >= 67
    for name in ("wedge15", "pyramid13", "hexahedron24", "tetra286", "hexahedron1331"):
        assert mio.topological_dimension[name] == (1 if name.startswith("line") else 3)


def test_format_namespaces_carry_meshio_keywords():
    import inspect

    vtu_write = inspect.signature(mio.vtu.write).parameters
    assert vtu_write["binary"].default is True
    assert vtu_write["compression"].default == "zlib"
    assert vtu_write["header_type"].default is None
    assert inspect.signature(mio.vtk.write).parameters["fmt_version"].default == "5.1"
    import meshioplusplus.vtu  # importable as a submodule, like meshio's  # noqa: F401

    assert ".vtu" in mio.extension_to_filetypes


def test_import_pulls_in_no_third_party_module():
    code = (
        "import sys, meshioplusplus; "
        "bad = [m for m in ('cupy', 'torch', 'jax', 'numba', 'meshio', 'vtk', 'gmsh') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_read_errors_are_typed(tmp_path):
    with pytest.raises(FileNotFoundError):  # also a meshio ReadError (test_meshio_dropin.py)
        mio.read(tmp_path / "missing.vtu")
    unknown = tmp_path / "mesh.unknownext"
    unknown.write_text("x")
    with pytest.raises(mio.ReadError) as caught:
        mio.read(unknown)
    assert caught.value.path == str(unknown)
    with pytest.raises(mio.ReadError, match="(?i)unknown file format") as caught:
        mio.read(unknown, file_format="nosuchformat")
    assert caught.value.path == str(unknown) and caught.value.format == "nosuchformat"
