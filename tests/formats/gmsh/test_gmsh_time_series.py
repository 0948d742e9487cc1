"""Gmsh post-processing views with several time steps, written by Gmsh itself (the `gmsh`
module), read through the time-series interface (``meshioplusplus.gmsh.TimeSeriesReader``):
the steps' times and arrays as Gmsh's own API gives them back."""

import numpy as np
import pytest

import meshioplusplus as mio

gmsh = pytest.importorskip("gmsh")

TIMES = [0.0, 0.25, 0.75, 2.0]


@pytest.fixture(scope="module")
def view_file(tmp_path_factory):
    """A triangulated square with a node view (2 components) and an element view, 4 steps each,
    written by Gmsh; returns the file, the values per step as Gmsh reads them back (keyed by
    node/element tag) and the steps' times as Gmsh reads them back."""
    path = tmp_path_factory.mktemp("gmsh_steps") / "steps.msh"
    gmsh.initialize(["-noenv"])
    gmsh.option.setNumber("General.Terminal", 0)
    try:
        gmsh.model.add("square")
        gmsh.model.occ.addRectangle(0, 0, 0, 1, 1)
        gmsh.model.occ.synchronize()
        gmsh.option.setNumber("Mesh.MeshSizeMax", 0.4)
        gmsh.model.mesh.generate(2)
        node_tags, coords, _ = gmsh.model.mesh.getNodes()
        _, element_tags, _ = gmsh.model.mesh.getElements(2)
        element_tags = element_tags[0]
        coords = coords.reshape(-1, 3)
        velocity = gmsh.view.add("velocity")
        pressure = gmsh.view.add("pressure")
        for k, t in enumerate(TIMES):
            nodal = np.column_stack([coords[:, 0] + k, coords[:, 1] * t])
            elemental = element_tags.astype(float) * (k + 1) + 0.5
            gmsh.view.addModelData(velocity, k, "square", "NodeData", node_tags, nodal.tolist(), time=t,
                                   numComponents=2)
            gmsh.view.addModelData(pressure, k, "square", "ElementData", element_tags, [[v] for v in elemental],
                                   time=t)
        gmsh.view.write(velocity, str(path))
        gmsh.option.setNumber("PostProcessing.SaveMesh", 0)  # the second view's data only
        gmsh.view.write(pressure, str(path), append=True)
        # Gmsh's own reading of the file: the steps' times and values as Gmsh parses them
        # (the file is text: values written with 16 digits, so compare with Gmsh's reading).
        gmsh.clear()
        gmsh.open(str(path))
        views = {gmsh.option.getString(f"View[{gmsh.view.getIndex(tag)}].Name"): tag for tag in gmsh.view.getTags()}
        gmsh_times = []
        expected = []
        for k in range(len(TIMES)):
            _, tags, data, time, _ = gmsh.view.getModelData(views["velocity"], k)
            gmsh_times.append(time)
            nodal = dict(zip(np.asarray(tags).tolist(), map(tuple, np.asarray(data))))
            _, tags, data, time, _ = gmsh.view.getModelData(views["pressure"], k)
            assert time == gmsh_times[-1]
            expected.append((nodal, dict(zip(np.asarray(tags).tolist(), np.asarray(data)[:, 0]))))
    finally:
        gmsh.finalize()
    return path, expected, gmsh_times


def test_steps_times_and_arrays_match_what_gmsh_wrote(view_file):
    path, expected, gmsh_times = view_file
    assert gmsh_times == TIMES
    with mio.gmsh.TimeSeriesReader(path) as reader:
        assert reader.num_steps == len(TIMES)
        assert reader.times == TIMES
        points, cells = reader.read_points_cells()
        # The mesh holds no view data, only Gmsh's own arrays.
        assert not [n for n in reader.mesh.point_data if not n.startswith("gmsh:")]
        assert not [n for n in reader.mesh.cell_data if not n.startswith("gmsh:")]
        plain = mio.read(path)
        np.testing.assert_array_equal(points, plain.points)
        node_tags = np.arange(1, len(points) + 1)  # Gmsh numbers the nodes 1..n here
        triangles = [b for b in cells if b.type == "triangle"]
        assert len(triangles) == 1
        triangle_block = [i for i, b in enumerate(cells) if b.type == "triangle"][0]
        for k, t in enumerate(TIMES):
            time, point_data, cell_data = reader.read_data(k)
            assert time == t
            assert set(point_data) == {"velocity"} and set(cell_data) == {"pressure"}
            nodal, elemental = expected[k]
            np.testing.assert_array_equal(point_data["velocity"], np.array([nodal[tag] for tag in node_tags]))
            values = cell_data["pressure"]
            assert len(values) == len(cells)
            assert np.isnan(np.concatenate([v for i, v in enumerate(values) if i != triangle_block])).all()
            np.testing.assert_array_equal(np.sort(values[triangle_block]), np.sort(list(elemental.values())))
            # The same arrays as the plain read's "view[step k, time t]" keys.
            key = f"velocity[step {k}]" if t == k else f"velocity[step {k}, time {t:g}]"
            np.testing.assert_array_equal(plain.point_data[key], point_data["velocity"])
        with pytest.raises(IndexError):
            reader.read_data(len(TIMES))


def test_step_out_of_range_in_the_core_names_the_file(view_file):
    path, _, _ = view_file
    reader = mio._core.open_time_series(str(path), "gmsh")
    with pytest.raises(mio.ReadError, match="step 9 out of range"):
        reader.read_step(9)


def test_single_step_and_stepless_files(tmp_path):
    mesh = mio.Mesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]), [("triangle", np.array([[0, 1, 2]]))],
                    point_data={"phi": np.array([1.0, 2.0, 3.0])})
    mio.write(tmp_path / "one.msh", mesh, file_format="gmsh")
    with mio.gmsh.TimeSeriesReader(tmp_path / "one.msh") as reader:
        assert reader.times == [0.0]
        reader.read_points_cells()
        time, point_data, _ = reader.read_data(0)
        assert time == 0.0
        np.testing.assert_array_equal(point_data["phi"], [1.0, 2.0, 3.0])
    mio.write(tmp_path / "none.msh", mio.Mesh(mesh.points, mesh.cells), file_format="gmsh")
    with mio.gmsh.TimeSeriesReader(tmp_path / "none.msh") as reader:
        assert reader.num_steps == 0
        assert len(reader.read_points_cells()[0]) == 3
