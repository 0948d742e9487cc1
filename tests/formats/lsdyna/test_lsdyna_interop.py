"""LS-DYNA keyword decks against the reference readers: lsdyna-mesh-reader (PyPI, pyvista's
C++ deck reader: nodes, solids, shells) on pydyna's decks and on the decks its wheel ships,
and meshio++ 17.21 (the earlier implementation, run in its own venv when present) on the same
decks; the Python API round trip through our writer."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import meshioplusplus as mio

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
DATA = REPO / "tests" / "data" / "lsdyna"
# Read by lsdyna-mesh-reader too (it does not follow *INCLUDE: bird_B.k is not among them).
OWN_DECKS = ["frf_solid.k", "thermal_stress.k", "mech.k"]
PEER_PYTHON = REPO / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"


def reference_decks():
    """Our decks plus the example decks lsdyna-mesh-reader's wheel ships (DYNAmore's
    examples: shells with triangles, SPH, thick shells, 8-digit ids run together)."""
    decks = [DATA / name for name in OWN_DECKS]
    try:
        import lsdyna_mesh_reader.examples as examples
    except ImportError:
        return decks
    folder = pathlib.Path(examples.__file__).parent
    return decks + sorted(folder.glob("*.k")) + sorted(folder.glob("*.key"))


def cell_counts(mesh):
    counts = {}
    for block in mesh.cells:
        counts[block.type] = counts.get(block.type, 0) + len(block.data)
    return counts


@pytest.mark.parametrize("path", reference_decks(), ids=lambda p: p.name)
def test_counts_and_coordinates_match_lsdyna_mesh_reader(path):
    reference = pytest.importorskip("lsdyna_mesh_reader")
    deck = reference.Deck(str(path))
    mesh = mio.read(str(path))
    counts = cell_counts(mesh)
    solids = sum(counts.get(t, 0) for t in ("tetra", "tetra10", "pyramid", "wedge", "hexahedron"))
    shells = sum(counts.get(t, 0) for t in ("triangle", "quad", "triangle6", "quad8"))
    assert solids == sum(len(s) for s in deck.element_solid_sections)  # its solids count thick shells too
    assert shells == sum(len(s) for s in deck.element_shell_sections)
    coordinates = np.concatenate([s.coordinates for s in deck.node_sections])
    assert len(mesh.points) == len(coordinates)
    # Its parser is a unit in the last place off for some values ("-68.7941971"); ours reads
    # what Python's float() reads (test_points_are_the_texts_doubles).
    np.testing.assert_allclose(mesh.points, coordinates, rtol=1e-15, atol=0)
    # Node ids in file order and element connectivity by id: the shells' first element.
    ids = np.concatenate([s.nid for s in deck.node_sections])
    if deck.element_shell_sections:
        section = deck.element_shell_sections[0]
        first = section.node_ids[section.node_id_offsets[0] : section.node_id_offsets[1]]
        first = list(dict.fromkeys(int(v) for v in first if v != 0))  # N4 = N3 for triangles
        block = next(b for b in mesh.cells if b.type in ("triangle", "quad"))
        assert [int(ids[i]) for i in block.data[0]] == first


def test_points_are_the_texts_doubles():
    mesh = mio.read(str(DATA / "frf_solid.k"))
    lines = (DATA / "frf_solid.k").read_text().splitlines()
    start = lines.index("*NODE") + 2  # past the "$#" comment line
    for k in range(0, 440, 37):
        text = lines[start + k]
        expected = [float(text[8 + 16 * a : 24 + 16 * a]) for a in range(3)]
        assert mesh.points[k].tolist() == expected


PEER_SCRIPT = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for f in sys.argv[1:]:
    x = m.read(f, file_format="lsdyna")
    counts = {}
    for c in x.cells:
        counts[c.type] = counts.get(c.type, 0) + len(c.data)
    regions = sorted([r.name, str(r.kind).split(".")[-1].lower(), len(r.entries), int(np.sum(r.entries)), int(r.tag)]
                     for r in x.regions)
    out[f] = dict(points=np.asarray(x.points).tolist(), cells=counts, regions=regions, module=m.__file__)
print(json.dumps(out))
"""


def test_same_mesh_as_meshioplusplus_17():
    if not PEER_PYTHON.exists():
        pytest.skip("meshio++ 17.21 is not installed at bench/.venv-meshioplusplus-17 (bench/setup)")
    decks = [str(DATA / name) for name in OWN_DECKS + ["bird/bird_B.k"]]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # its own meshioplusplus, not ours
    result = subprocess.run([str(PEER_PYTHON), "-c", PEER_SCRIPT, *decks], capture_output=True, text=True, timeout=300,
                            cwd="/", env=env)
    assert result.returncode == 0, result.stderr
    peer = json.loads(result.stdout)
    assert all(".venv-meshioplusplus-17" in v["module"] for v in peer.values())
    for deck in decks:
        ours = mio.read(deck)
        assert np.array_equal(np.asarray(ours.points), np.asarray(peer[deck]["points"]))
        assert cell_counts(ours) == peer[deck]["cells"]
        regions = sorted([r.name, r.kind.name.lower(), len(r.entries), int(np.sum(r.entries)), int(r.tag)]
                         for r in ours.regions)
        assert regions == peer[deck]["regions"], deck


def test_round_trip_through_the_python_api(tmp_path):
    mesh = mio.read(str(DATA / "bird" / "bird_B.k"))
    path = tmp_path / "bird.key"
    mio.lsdyna.write(str(path), mesh)
    back = mio.read(str(path))  # by the extension
    assert np.asarray(back.points).tobytes() == np.asarray(mesh.points).tobytes()
    assert [(c.type, np.asarray(c.data).tolist()) for c in back.cells] == [
        (c.type, np.asarray(c.data).tolist()) for c in mesh.cells
    ]
    assert [(r.name, r.kind, r.tag, r.dim, np.asarray(r.entries).tolist()) for r in back.regions] == [
        (r.name, r.kind, r.tag, r.dim, np.asarray(r.entries).tolist()) for r in mesh.regions
    ]
    assert set(back.cell_sets) == {"Part 3", "Part 4", "Part 5", "Part 6", "PART set 1"}


def test_meshio_style_mesh_round_trips_exactly(tmp_path):
    rng = np.random.default_rng(7)
    points = rng.random((20, 3)) * 1e3 - 500
    points[0] = [1 / 3, -0.0, 1e-310]
    mesh = mio.Mesh(points, [("tetra", [[0, 1, 2, 3], [4, 5, 6, 7]]), ("triangle", [[8, 9, 10]]),
                             ("wedge", [[0, 1, 2, 3, 4, 5]]), ("line", [[11, 12]])])
    path = tmp_path / "m.dyn"
    mio.write(str(path), mesh, file_format="lsdyna")
    back = mio.read(str(path))
    assert np.asarray(back.points).tobytes() == points.tobytes()
    assert [c.type for c in back.cells] == ["tetra", "triangle", "wedge", "line"]
    for a, b in zip(back.cells, mesh.cells):
        np.testing.assert_array_equal(a.data, b.data)
    text = path.read_text()
    assert "*ELEMENT_SOLID\n" in text and "*ELEMENT_SHELL\n" in text and "*ELEMENT_BEAM\n" in text


def test_errors_name_file_and_line(tmp_path):
    path = tmp_path / "bad.k"
    path.write_text("*KEYWORD\n*NODE\n1,0,0,0\n*ELEMENT_SHELL\n1,1,1,2,7\n")
    with pytest.raises(mio.ReadError) as error:
        mio.read(str(path))
    assert "bad.k:5" in str(error.value)
    assert "refers to node 2" in str(error.value)


def test_hexahedron20_round_trips_in_vtk_order(tmp_path):
    """*ELEMENT_SOLID_H20 through the Python API: LS-DYNA's 20-node order is VTK's, so a
    quadratic cube's mid-side nodes stay the midpoints of VTK's edges (checked with VTK's own
    cell when pyvista is there)."""
    corners = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]
    points = np.vstack([corners, [(corners[a] + corners[b]) / 2 for a, b in edges]])
    mesh = mio.Mesh(points, [("hexahedron20", np.arange(20)[None, :])])
    path = tmp_path / "h20.k"
    mio.write(path, mesh, file_format="lsdyna")
    assert "*ELEMENT_SOLID_H20" in path.read_text()
    back = mio.read(path, file_format="lsdyna")
    assert back.cells[0].type == "hexahedron20"
    np.testing.assert_array_equal(back.points[back.cells[0].data[0]], points)
    pv = pytest.importorskip("pyvista", reason="pyvista checks the order against VTK's cell")
    grid = pv.UnstructuredGrid({pv.CellType.QUADRATIC_HEXAHEDRON: back.cells[0].data}, back.points)
    assert grid.volume == pytest.approx(1.0)  # a misordered quadratic hexahedron is no unit cube


def test_set_segment_becomes_a_side_region(tmp_path):
    deck = tmp_path / "segment.k"
    deck.write_text("*NODE\n1,0,0,0\n2,1,0,0\n3,1,1,0\n4,0,1,0\n5,0,0,1\n6,1,0,1\n7,1,1,1\n8,0,1,1\n"
                    "*ELEMENT_SOLID\n1,1,1,2,3,4,5,6,7,8\n*SET_SEGMENT_TITLE\ntop\n5\n5,6,7,8\n*END\n")
    mesh = mio.read(deck, file_format="lsdyna")
    (region,) = [r for r in mesh.regions if r.name == "top"]
    assert region.kind.name == "SIDE" and region.tag == 5 and region.dim == 2
    np.testing.assert_array_equal(region.entries, [[0, 5]])
