"""I-deas Universal File through meshio++, pyuff (the reference reader on PyPI) and meshio++ 17.21.

The real files of tests/data/unv (Salome-written meshes from unv2ccx's examples, pyuff's test
data) read with equal counts and values in pyuff and in 17.21; what we write reads back in both
with the same points (bit for bit), elements and groups.
"""

import json
import pathlib

import numpy as np
import pytest

import meshioplusplus as mio
from interop import run_meshioplusplus_17

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "unv"
FILES = sorted(p for p in DATA.iterdir() if p.suffix in (".unv", ".uff"))

# What 17.21 reads, as JSON-able lists (run in its own interpreter: same import name).
PEER_SCRIPT = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    mesh = m.read(path, file_format="unv")
    out[path] = {
        "points": np.asarray(mesh.points, dtype=float).tolist(),
        "cells": [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells],
        "regions": [[r.name, {"0": "point", "1": "cell", "2": "side"}.get(str(r.kind), str(r.kind)).lower(),
                     np.asarray(r.entries).tolist(), int(r.tag)] for r in mesh.regions],
        "pid": [np.asarray(a).tolist() for a in mesh.cell_data.get("unv:pid", [])],
        "units": {k: np.asarray(mesh.field_data[k]).tolist() for k in ("unv:units", "unv:unit_factors") if k in mesh.field_data},
    }
print(json.dumps(out))
"""


def peer_read(paths):
    return json.loads(run_meshioplusplus_17(PEER_SCRIPT, *paths))


def kind_name(kind):
    return getattr(kind, "name", str(kind)).lower()


def regions_of(mesh):
    return {(r.name, kind_name(r.kind)): (np.asarray(r.entries).tolist(), int(r.tag)) for r in mesh.regions}


def test_real_files_read_as_meshioplusplus_17_reads_them():
    peer = peer_read(FILES)
    for path in FILES:
        ours = mio.read(path)
        theirs = peer[str(path)]
        assert np.asarray(ours.points).tolist() == theirs["points"], path.name
        assert [[b.type, np.asarray(b.data).tolist()] for b in ours.cells] == theirs["cells"], path.name
        # 17.21 sorts a group's members; we keep the file's order.
        assert {k: (sorted(e), t) for k, (e, t) in regions_of(ours).items()} == {
            (n, kind_name(k)): (sorted(e), t) for n, k, e, t in theirs["regions"]}, path.name
        assert [np.asarray(a).tolist() for a in ours.cell_data.get("unv:pid", [])] == theirs["pid"], path.name
        assert {k: np.asarray(ours.field_data[k]).tolist() for k in theirs["units"]} == theirs["units"], path.name


def pyuff_sets(path, skip_unreadable=False):
    pyuff = pytest.importorskip("pyuff")
    try:
        sets = pyuff.UFF(str(path)).read_sets()
    except Exception as error:
        if not skip_unreadable:
            raise
        # pyuff 2.5 reads one line of node labels per element and a 164 record of its own
        # spacing: Salome's files (eight labels a line, its 164) are beyond it.
        pytest.skip(f"pyuff cannot read {path.name}: {error}")
    return sets if isinstance(sets, list) else [sets]


# The descriptors of the files here that we read (pyuff keeps every one).
READ_DESCRIPTORS = {11, 21, 22, 24, 41, 42, 44, 45, 91, 92, 94, 95, 111, 112, 113, 115, 116, 118}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_real_files_agree_with_pyuff(path, capsys):
    sets = pyuff_sets(path, skip_unreadable=True)
    capsys.readouterr()  # pyuff prints records it reads
    ours = mio.read(path)
    nodes = [s for s in sets if s["type"] in (2411, 15)]
    if not nodes:  # results without a mesh
        assert len(ours.points) == 0 and not ours.cells
        return
    labels = np.concatenate([np.asarray(s["node_nums"]) for s in nodes])
    xyz = np.column_stack([np.concatenate([np.asarray(s[c], dtype=float) for s in nodes]) for c in "xyz"])
    # pyuff gives the coordinates as written; a node in a Cartesian 2420 system is moved into
    # the global one (x = R x_local + origin, R's rows the matrix's first three records).
    systems = {label: np.asarray(m, dtype=float) for s in sets if s["type"] == 2420
               for label, kind, m in zip(s["CS_sys_labels"], s["CS_types"], s["CS_matrices"]) if kind == 0}
    cs = np.concatenate([np.asarray(s["def_cs"]) for s in nodes]).astype(int)
    for i, label in enumerate(cs):
        m = systems.get(int(label))
        if m is not None and not np.array_equal(m, np.vstack([np.eye(3), np.zeros(3)])):
            x, y, z = xyz[i]
            xyz[i] = [m[0, 0] * x + m[0, 1] * y + m[0, 2] * z + m[3, 0], m[1, 0] * x + m[1, 1] * y + m[1, 2] * z + m[3, 1],
                      m[2, 0] * x + m[2, 1] * y + m[2, 2] * z + m[3, 2]]
    assert len(labels) == len(ours.points)
    np.testing.assert_array_equal(xyz, np.asarray(ours.points))
    elements = [s for s in sets if s["type"] == 2412]
    if not elements:
        return
    # pyuff reads the node labels of one line only: counts and labels of elements with <= 8 nodes.
    records = [r for s in elements for d, rs in s.items() if isinstance(d, int) for r in rs]
    assert all(r["fe_descriptor"] in READ_DESCRIPTORS for r in records)
    assert len(records) == sum(len(b.data) for b in ours.cells)
    index = {int(label): i for i, label in enumerate(labels)}
    for cell_type in ("triangle", "quad", "tetra", "hexahedron", "line"):
        theirs = [[index[int(n)] for n in r["nodes_nums"]] for r in records
                  if len(r["nodes_nums"]) == mio.num_nodes_per_cell[cell_type] and r["fe_descriptor"] not in (22, 24, 42, 92, 45, 95)
                  and (cell_type == "line") == (r["fe_descriptor"] in (11, 21))
                  and (cell_type != "quad" or r["fe_descriptor"] in (44, 94))
                  and (cell_type != "tetra" or r["fe_descriptor"] == 111)]
        mine = [b.data.tolist() for b in ours.cells if b.type == cell_type]
        assert sorted(theirs) == sorted(mine[0] if mine else []), cell_type
    groups = [g for s in sets if s["type"] == 2467 for g in s["groups"]]
    regions = regions_of(ours)
    for group in groups:
        codes = np.asarray(group["entity_type_code"])
        name = group["group_name"].strip()
        if (codes == 7).any():
            assert len(regions[(name, "point")][0]) == int((codes == 7).sum())
        if (codes == 8).any() or len(codes) == 0:
            assert len(regions[(name, "cell")][0]) == int((codes == 8).sum())


def written_mesh():
    rng = np.random.default_rng(3)
    points = rng.standard_normal((30, 3)) * 10.0 ** rng.integers(-5, 5, size=(30, 1))
    cells = [
        ("line", rng.integers(0, 30, (4, 2))),
        ("triangle", rng.integers(0, 30, (5, 3))),
        ("quad", rng.integers(0, 30, (6, 4))),
        ("tetra", rng.integers(0, 30, (7, 4))),
        ("hexahedron", rng.integers(0, 30, (3, 8))),
    ]
    regions = [
        mio.Region("inlet", 0, entries=np.array([0, 7, 29], dtype=np.int64)),
        mio.Region("inlet", 1, 2, 5, entries=np.array([4, 5, 6], dtype=np.int64)),
        mio.Region("volume", 1, 3, entries=np.array([15, 16, 24], dtype=np.int64)),
    ]
    mesh = mio.Mesh(points, cells, regions=regions)
    mesh.field_data["unv:units"] = np.array([5])
    mesh.field_data["unv:unit_factors"] = np.array([1000.0, 1000.0, 1.0, 273.15])
    return mesh


@pytest.mark.parametrize("suffix", [".unv", ".uff"])
def test_our_files_round_trip(tmp_path, suffix):
    mesh = written_mesh()
    path = tmp_path / f"ours{suffix}"
    mio.write(path, mesh)
    back = mio.unv.read(path)
    assert np.asarray(back.points).tobytes() == np.asarray(mesh.points, dtype=float).tobytes()
    assert [(b.type, b.data.tolist()) for b in back.cells] == [(b.type, np.asarray(b.data).tolist()) for b in mesh.cells]
    regions = regions_of(back)
    assert regions[("inlet", "point")][0] == [0, 7, 29]
    assert regions[("inlet", "cell")] == ([4, 5, 6], 5)
    assert regions[("volume", "cell")][0] == [15, 16, 24]
    np.testing.assert_array_equal(back.field_data["unv:unit_factors"], [1000.0, 1000.0, 1.0, 273.15])


def test_our_files_read_equal_in_pyuff(tmp_path, capsys):
    mesh = written_mesh()
    path = tmp_path / "ours.unv"
    mio.write(path, mesh)
    sets = pyuff_sets(path)
    capsys.readouterr()
    by_type = {s["type"]: s for s in sets}
    assert set(by_type) == {164, 2411, 2412, 2467}
    assert by_type[164]["units_code"] == 5 and by_type[164]["length"] == 1000.0
    nodes = by_type[2411]
    assert np.asarray(nodes["node_nums"]).tolist() == list(range(1, 31))
    xyz = np.column_stack([np.asarray(nodes[c], dtype=float) for c in "xyz"])
    assert xyz.tobytes() == np.asarray(mesh.points, dtype=float).tobytes()
    elements = by_type[2412]
    written = {21: "line", 91: "triangle", 94: "quad", 111: "tetra", 115: "hexahedron"}
    for descriptor, cell_type in written.items():
        theirs = [[n - 1 for n in r["nodes_nums"]] for r in elements[descriptor]]
        assert theirs == [b.data.tolist() for b in mesh.cells if b.type == cell_type][0]
    groups = {g["group_name"]: g for g in by_type[2467]["groups"]}
    assert np.asarray(groups["inlet"]["entity_type_code"]).tolist() == [7, 7, 7, 8, 8, 8]
    assert np.asarray(groups["inlet"]["entity_tag"]).tolist() == [1, 8, 30, 5, 6, 7]
    assert groups["inlet"]["group_number"] == 5
    assert np.asarray(groups["volume"]["entity_tag"]).tolist() == [16, 17, 25]


def test_our_files_read_equal_in_meshioplusplus_17(tmp_path):
    mesh = written_mesh()
    path = tmp_path / "ours.unv"
    mio.write(path, mesh)
    theirs = peer_read([path])[str(path)]
    assert np.asarray(theirs["points"]).tobytes() == np.asarray(mesh.points, dtype=float).tobytes()
    assert theirs["cells"] == [[b.type, np.asarray(b.data).tolist()] for b in mesh.cells]
    assert {(n, kind_name(k)): e for n, k, e, _ in theirs["regions"]} == {
        ("inlet", "point"): [0, 7, 29], ("inlet", "cell"): [4, 5, 6], ("volume", "cell"): [15, 16, 24]}
    assert theirs["units"]["unv:units"] == [5]


def test_malformed_file_raises_read_error_with_line(tmp_path):
    path = tmp_path / "bad.unv"
    path.write_text("    -1\n  2411\n         1         1         1        11\n   0.0D+00   0.0D+00\n    -1\n")
    with pytest.raises(mio.ReadError, match=r"bad\.unv:4.*needs 3 coordinates"):
        mio.read(path)


# 17.21's steps of a file: their values and the point/cell data of the first and last step.
PEER_STEPS = r"""
import json, sys
import numpy as np
import meshioplusplus as m
out = {}
for path in sys.argv[1:]:
    times = m.unv.time_values(path)
    steps = {}
    for k in sorted({0, len(times) - 1}):
        mesh = m.unv.read(path, time_step=k)
        steps[k] = {
            "point_data": {n: np.asarray(v, dtype=float).tolist() for n, v in mesh.point_data.items()},
            "cell_data": {n: [np.asarray(a, dtype=float).tolist() for a in v]
                          for n, v in mesh.cell_data.items() if not n.startswith("unv:")},
        }
    out[path] = {"times": times, "steps": steps}
print(json.dumps(out).replace("NaN", "null"))
"""

RESULT_FILES = [DATA / name for name in ("pyuff_2411_and_2414.uff", "pyuff_heat_engine_housing.uff",
                                         "pyuff_nx_simulation_output.uff")]


def nan_as_none(values):
    return [None if isinstance(v, float) and np.isnan(v) else (nan_as_none(v) if isinstance(v, list) else v)
            for v in values]


def with_nodes(tmp_path, name, count):
    """pyuff's dataset-55 files hold results only: the same file after a 2411 of nodes 1..count."""
    mesh = mio.Mesh(np.arange(3.0 * count).reshape(count, 3), [("vertex", np.arange(count).reshape(count, 1))])
    mesh_file = tmp_path / "nodes.unv"
    mio.write(mesh_file, mesh)
    path = tmp_path / name
    path.write_bytes(mesh_file.read_bytes() + (DATA / name).read_bytes())
    return path


def test_results_are_the_time_steps_meshioplusplus_17_reads(tmp_path):
    files = RESULT_FILES + [with_nodes(tmp_path, "pyuff_uff55_translation.uff", 4),
                            with_nodes(tmp_path, "pyuff_uff55_translation_rotation.uff", 43)]
    peer = json.loads(run_meshioplusplus_17(PEER_STEPS, *files))
    for path in files:
        theirs = peer[str(path)]
        with mio.unv.TimeSeriesReader(path) as reader:
            points, cells = reader.read_points_cells()
            assert len(points) == len(mio.read(path).points)
            assert reader.num_steps == len(theirs["times"]) > 0
            assert reader.times == theirs["times"]
            for k, step in theirs["steps"].items():
                t, point_data, cell_data = reader.read_data(int(k))
                assert t == theirs["times"][int(k)]
                assert sorted(point_data) == sorted(step["point_data"])
                for name, values in point_data.items():
                    assert nan_as_none(np.asarray(values).tolist()) == step["point_data"][name], name
                assert sorted(cell_data) == sorted(step["cell_data"])


def test_a_mesh_read_has_no_results():
    mesh = mio.read(DATA / "pyuff_2411_and_2414.uff")
    assert not mesh.point_data
    with pytest.raises(IndexError):
        mio.unv.TimeSeriesReader(DATA / "pyuff_2411_and_2414.uff").read_data(10)
