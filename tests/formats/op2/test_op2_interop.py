"""Nastran OP2 through Python: counts and results against pyNastran (the maintained OP2 reader)
when it is importable, against the numbers pyNastran 1.4.1 gives otherwise, and the time-series
reader's steps."""

import pathlib

import numpy as np
import pytest

import meshioplusplus

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "op2"

# pyNastran 1.4.1: GRID count, element count, per mode/subcase sum of |T1..T3|, time values.
EXPECTED = {
    "plate.op2": (36, 25, [0.000617753], [1.0]),
    "solid_bending.op2": (72, 186, [0.4519537], [1.0]),
    "mode_solid_shell_bar.op2": (25, 21, [20.535332, 21.407920, 20.621778], [200517.71875, 227772.15625, 624644.375]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts_and_steps(name):
    points, elements, magnitudes, times = EXPECTED[name]
    mesh = meshioplusplus.read(DATA / name)
    assert len(mesh.points) == points
    assert sum(len(block.data) for block in mesh.cells) == elements
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / name)) as reader:
        assert reader.num_steps == len(times)
        for k, (magnitude, time) in enumerate(zip(magnitudes, times)):
            t, point_data, _ = reader.read_data(k)
            assert t == pytest.approx(time)
            total = np.abs(point_data["displacement"]).sum() + (
                np.abs(point_data["rotation"]).sum() if name != "mode_solid_shell_bar.op2" else 0
            )
            assert total == pytest.approx(magnitude, rel=1e-5)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_against_pynastran(name):
    op2_geom = pytest.importorskip("pyNastran.op2.op2_geom", reason="pyNastran (the reference OP2 reader) not installed")
    try:
        model = op2_geom.read_op2_geom(str(DATA / name), debug=None, build_dataframe=False)
    except AttributeError as error:  # pyNastran 1.4 uses numpy functions numpy 2.4 removed
        pytest.skip(f"pyNastran does not run with this numpy: {error}")
    mesh = meshioplusplus.read(DATA / name)
    assert len(mesh.points) == len(model.nodes)
    assert sum(len(block.data) for block in mesh.cells) == len(model.elements)
    ids = mesh.point_data["nastran:grid_id"]
    xyz = np.array([model.nodes[i].xyz for i in ids])
    np.testing.assert_allclose(mesh.points, xyz, rtol=1e-6)
    results = model.eigenvectors or model.displacements
    (result,) = results.values()
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / name)) as reader:
        for k in range(result.data.shape[0]):
            _, point_data, _ = reader.read_data(k)
            rows = np.searchsorted(ids, result.node_gridtype[:, 0])
            np.testing.assert_allclose(point_data["displacement"][rows], result.data[k, :, :3], rtol=1e-6)


# Files that other writers and table layouts produce (pyNastran's models/, BSD-3-Clause), each
# with pyNastran 1.4.1's counts per element card, mapped to our cell blocks:
#   cqrcc128a: NX 2019, GEOM1S/GEOM2S beside GEOM1/GEOM2, NX's CQUAD8N/CTRIA6N keys, GRIDs in
#     a spherical system defined in a cylindrical one;
#   cantilever_2014.1: MSC 2014.1 (the dated record after every table name);
#   sol401_tstep1: NX 2412, float64 GRIDs (4501 45 1120001) and CQUADRN;
#   pn_mwe_s-sol_111: NX 2022, matrix tables (BHH …) between the result tables, float64 CORD2R;
#   freq_elements: NX 10.1, the model only in GEOM1S/GEOM2S.
OTHER_WRITERS = {
    "cqrcc128a.op2": (54, {"quad8": 2, "triangle6": 1, "hexahedron": 1, "wedge": 1, "quad": 2, "tetra": 1, "triangle": 2}),
    "cantilever_2014.1.op2": (11, {"line": 10}),
    "sol401_tstep1.op2": (9, {"quad": 4}),
    "pn_mwe_s-sol_111.op2": (7, {"line": 5}),  # + 1 CBUSH, which is no cell
    "freq_elements.op2": (40, {"line": 6, "hexahedron": 1, "wedge": 2, "quad": 7, "tetra": 2, "triangle": 10}),
}


@pytest.mark.parametrize("name", sorted(OTHER_WRITERS))
def test_other_writers_and_table_layouts(name):
    points, cells = OTHER_WRITERS[name]
    mesh = meshioplusplus.read(DATA / name)
    assert len(mesh.points) == points
    assert {block.type: len(block.data) for block in mesh.cells} == cells
    assert len(set(mesh.point_data["nastran:grid_id"].tolist())) == points


def test_grids_in_local_systems_are_placed_in_basic_as_nastran_places_them():
    # Nastran's own basic positions of these grids: the file's BGPDT table (float32), read by
    # pyNastran 1.4.1. Grid 3313 … are given in CORD2S 3, whose points are in CORD2C 1.
    bgpdt = {
        3313: [3.0, -1.878679633140564, -2.1213202476501465],
        3314: [3.0, -1.1022225618362427, 0.7764571309089661],
        3315: [5.298133373260498, -2.1373445987701416, 0.4990970194339752],
        3316: [5.598076343536377, -2.9393398761749268, -1.0606601238250732],
        6415: [5.298133373260498, -2.1373445987701416, 0.4990970194339752],
    }
    mesh = meshioplusplus.read(DATA / "cqrcc128a.op2")
    ids = mesh.point_data["nastran:grid_id"].tolist()
    cp = mesh.point_data["nastran:cp"]
    assert (cp == 3).sum() == 15 and set(np.unique(cp).tolist()) == {0, 3}
    assert "nastran:ref" not in mesh.point_data  # the bulk-data writer would write it back as CP
    for grid, expected in bgpdt.items():
        np.testing.assert_allclose(mesh.points[ids.index(grid)], expected, rtol=0, atol=2e-7)
    # Grids in basic stay as written (the float32 of the file).
    assert mesh.points[ids.index(3301)].tolist() == [0.0, 0.0, 0.0]


def test_sol401_steps():
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / "sol401_tstep1.op2")) as reader:
        assert reader.num_steps == 3
        np.testing.assert_allclose(reader.times, [1 / 3, 2 / 3, 1.0], rtol=1e-6)
        _, point_data, _ = reader.read_data(2)
        assert point_data["displacement"].shape == (9, 3)


def test_complex_modes_as_real_and_imaginary_parts():
    # pyNastran 1.4.1's eigenvectors and spc_forces of this file (complex64, GRID rows only):
    # per mode, sum |Re T1..T3|, sum |Im T1..T3|, sum |Re R1..R3|.
    expected = {
        "displacement": [(2.421814051384308e-12, 0.0, 1.0), (1.0, 0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 0.0, 0.0)],
        "spc_force": [(1.2871572607764392e-07, 0.0, 2.190039793958931e-08), (0, 0, 0), (0, 0, 0), (0, 0, 0)],
    }
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / "modes_complex_elements.op2")) as reader:
        assert reader.num_steps == 4
        np.testing.assert_array_equal(reader.times, [1, 2, 3, 4])  # the mode numbers
        for k in range(4):
            _, point_data, _ = reader.read_data(k)
            assert int(reader.field_data["nastran:mode"][0]) == k + 1
            for name, sums in expected.items():
                rotation = "rotation" if name == "displacement" else f"{name}_rotation"
                rows = ~np.isnan(point_data[f"{name}_real"][:, 0])
                got = (np.abs(point_data[f"{name}_real"][rows]).sum(), np.abs(point_data[f"{name}_imag"][rows]).sum(),
                       np.abs(point_data[f"{rotation}_real"][rows]).sum())
                np.testing.assert_allclose(got, sums[k], rtol=1e-6, atol=1e-15, err_msg=f"{name} mode {k + 1}")


def test_sort2_thermal_tables_give_steps():
    # NX thermal transient with each nodal table written SORT1 and SORT2; pyNastran 1.4.1's
    # temperatures: times and the sum over the 9 grids per time.
    sums = [0.0, 5.049911975860596, 10.198526382446289, 20.791759490966797, 31.776874542236328,
            43.15194320678711, 54.9150390625, 67.06424713134766, 79.59765625]
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / "time_thermal_elements_sort2_nx.op2")) as reader:
        np.testing.assert_array_equal(reader.times, [0, 10, 20, 40, 60, 80, 100, 120, 140])
        for k, expected in enumerate(sums):
            _, point_data, _ = reader.read_data(k)
            assert point_data["temperature"].shape == (9,)
            assert point_data["temperature"].sum() == pytest.approx(expected, rel=1e-6, abs=1e-12)
            assert {"temperature_rate", "thermal_load"} <= set(point_data)


def _pynastran_model(path):
    op2 = pytest.importorskip("pyNastran.op2.op2", reason="pyNastran (the reference OP2 reader) not installed")
    try:
        return op2.read_op2(str(path), debug=None, log=None, build_dataframe=False)
    except AttributeError as error:  # pyNastran 1.4 uses numpy functions numpy 2.4 removed
        pytest.skip(f"pyNastran does not run with this numpy: {error}")


def test_sort2_against_pynastran():
    model = _pynastran_model(DATA / "time_thermal_elements_sort2_nx.op2")
    sort2 = [result for key, result in model.temperatures.items() if key[2] == 2]
    assert sort2, "pyNastran read no SORT2 temperatures"
    (result,) = sort2
    mesh = meshioplusplus.read(DATA / "time_thermal_elements_sort2_nx.op2")
    rows = np.searchsorted(mesh.point_data["nastran:grid_id"], result.node_gridtype[:, 0])
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / "time_thermal_elements_sort2_nx.op2")) as reader:
        for k, time in enumerate(result._times):
            t, point_data, _ = reader.read_data(k)
            assert t == time
            np.testing.assert_array_equal(point_data["temperature"][rows], result.data[k, :, 0])


@pytest.mark.parametrize("name", ["complex_tet10.op2", "api3.op2"])
def test_complex_element_stresses_against_pynastran(name):
    # Solids: the centroid row; shells: the centre's two fibres (z1, z2) as xx, yy, xy.
    model = _pynastran_model(DATA / name)
    mesh = meshioplusplus.read(DATA / name)
    eids = np.concatenate(mesh.cell_data["nastran:element_id"])
    order = {int(e): i for i, e in enumerate(eids)}
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / name)) as reader:
        steps = {}
        for k in range(reader.num_steps):
            _, _, cell_data = reader.read_data(k)
            steps[(int(reader.field_data["nastran:subcase"][0]), float(reader.times[k]))] = {
                key: np.concatenate(value) for key, value in cell_data.items()}
    compared = 0
    for kind in ("stress", "strain"):
        results = getattr(model.op2_results, kind)
        for table in ("ctetra", "chexa", "cpenta", "cquad4", "ctria3", "cquad8", "ctria6", "cquadr", "ctriar"):
            for subcase, result in getattr(results, f"{table}_{kind}").items():
                nodes = result.element_node
                for k, time in enumerate(result._times):
                    ours = steps[(subcase, float(time))]
                    if table in ("ctetra", "chexa", "cpenta"):
                        rows = np.where(nodes[:, 1] == 0)[0]
                        got = ours[f"{kind}_real"] + 1j * ours[f"{kind}_imag"]
                        expected = result.data[k, rows]
                        np.testing.assert_allclose(got[[order[e] for e in nodes[rows, 0]]], expected,
                                                   rtol=1e-5, atol=1e-6 * np.abs(expected).max())
                    else:
                        _, first = np.unique(nodes[:, 0], return_index=True)
                        for layer, suffix in ((0, ""), (1, "_z2")):
                            rows = first + layer
                            got = ours[f"{kind}{suffix}_real"] + 1j * ours[f"{kind}{suffix}_imag"]
                            expected = result.data[k, rows]
                            np.testing.assert_allclose(got[[order[e] for e in nodes[rows, 0]]][:, [0, 1, 3]], expected,
                                                       rtol=1e-5, atol=1e-6 * np.abs(expected).max())
                    compared += 1
    assert compared >= 6


# Random response (pyNastran's op2_results.psd/crm/rms/no): PSD and CRM per frequency step as
# "<name>_psd" / "<name>_crm"; RMS and NO in one step per subcase of their own (time 0, field
# data nastran:random_summary), as "<name>_rms" / "<name>_no".
RANDOM_FILES = ["random_rms_tri.op2", "random_sort1_vba.op2", "pn_mwe_s-sol_111.op2"]
RANDOM_RESULTS = {"displacements": "displacement", "velocities": "velocity", "accelerations": "acceleration",
                  "spc_forces": "spc_force", "load_vectors": "load_vector"}


def _random_steps(path):
    """{(subcase, time, is_summary): point_data} of every step."""
    steps = {}
    with meshioplusplus.op2.TimeSeriesReader(str(path)) as reader:
        for k in range(reader.num_steps):
            t, point_data, _ = reader.read_data(k)
            field = reader.field_data
            key = (int(field["nastran:subcase"][0]), float(t), "nastran:random_summary" in field)
            assert key not in steps
            steps[key] = point_data
    return steps


@pytest.mark.parametrize("name", RANDOM_FILES)
def test_random_nodal_tables_against_pynastran(name):
    model = _pynastran_model(DATA / name)
    mesh = meshioplusplus.read(DATA / name)
    ids = mesh.point_data["nastran:grid_id"]
    steps = _random_steps(DATA / name)
    compared = 0
    for kind in ("psd", "crm", "rms", "no"):
        for attribute, ours in RANDOM_RESULTS.items():
            for subcase, result in getattr(getattr(model.op2_results, kind), attribute).items():
                subcase = subcase[0] if isinstance(subcase, tuple) else subcase
                grids = result.node_gridtype[:, 1] == 1
                rows = np.searchsorted(ids, result.node_gridtype[grids, 0])
                assert (ids[rows] == result.node_gridtype[grids, 0]).all()
                rotation = "rotation" if ours == "displacement" else f"{ours}_rotation"
                for k, time in enumerate(result._times):
                    summary = kind in ("rms", "no")
                    point_data = steps[(subcase, 0.0 if summary else float(time), summary)]
                    np.testing.assert_array_equal(point_data[f"{ours}_{kind}"][rows], result.data[k, grids, :3])
                    np.testing.assert_array_equal(point_data[f"{rotation}_{kind}"][rows], result.data[k, grids, 3:])
                    compared += 1
    assert compared >= 3


# pyNastran 1.4.1's values: the file's step times, then per (step, array) the sum of |T1..T3| over
# the grids (NaN rows: grids the table leaves out).
RANDOM_VALUES = {
    "random_rms_tri.op2": ([20, 30, 0], {
        (0, "displacement_psd"): 0.00016331664301106962, (1, "displacement_psd"): 5.925578261710919e-05,
        (0, "acceleration_psd"): 40725.83593750296, (1, "velocity_psd"): 2.1053920984422825,
        (0, "load_vector_psd"): 9999999.0, (1, "displacement_crm"): 0.04639523556391828,
        (1, "acceleration_crm"): 1040.765423755834, (1, "load_vector_crm"): 10000.0,
        (2, "displacement_rms"): 0.04639523556391828, (2, "acceleration_rms"): 1040.765423755834,
        (2, "displacement_no"): 148.75007820129395, (2, "load_vector_no"): 25.166114807128906,
        (2, "spc_force_rms"): 0.0,
    }),
    "random_sort1_vba.op2": ([20, 25, 31.5, 40, 50, 63, 80, 100, 125, 160, 200, 250, 315, 400, 0], {
        (0, "displacement_psd"): 1.2902794429688544e-06, (13, "displacement_psd"): 9.54767771087311e-10,
        (0, "acceleration_psd"): 321.75347914556346, (13, "acceleration_psd"): 38094.054611290805,
        (14, "displacement_rms"): 0.004564306359782222, (14, "spc_force_rms"): 41294.96389770508,
        (14, "acceleration_no"): 923.0320587158203, (14, "spc_force_no"): 5948.767364501953,
    }),
    "pn_mwe_s-sol_111.op2": (None, {
        (0, "acceleration_psd"): 0.07548931892961264, (126, "acceleration_psd"): 0.027939268274341345,
        (127, "acceleration_rms"): 36.97795867963636, (127, "acceleration_no"): 18103.23789215088,
    }),
}


@pytest.mark.parametrize("name", sorted(RANDOM_VALUES))
def test_random_nodal_tables_values(name):
    times, sums = RANDOM_VALUES[name]
    points = len(meshioplusplus.read(DATA / name).points)
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / name)) as reader:
        if times is not None:
            np.testing.assert_allclose(reader.times, times, rtol=1e-7)
        else:  # 127 frequencies (OUGPSD2), then the RMS/NO step
            assert reader.num_steps == 128 and reader.times[0] == 20 and reader.times[127] == 0
        last = reader.num_steps - 1
        for (k, array), expected in sums.items():
            _, point_data, _ = reader.read_data(k)
            assert ("nastran:random_summary" in reader.field_data) == (k == last)
            assert point_data[array].shape == (points, 3)
            assert np.nansum(np.abs(point_data[array])) == pytest.approx(expected, rel=1e-6, abs=1e-300), (k, array)


def test_random_shell_stresses_against_pynastran():
    # CQUAD4 33 / CTRIA3 74: both fibres (xx, yy, xy), and MSC's RMS von Mises (OESXRMS1).
    name = "random_rms_tri.op2"
    model = _pynastran_model(DATA / name)
    mesh = meshioplusplus.read(DATA / name)
    eids = np.concatenate(mesh.cell_data["nastran:element_id"])
    order = {int(e): i for i, e in enumerate(eids)}
    steps = {}
    with meshioplusplus.op2.TimeSeriesReader(str(DATA / name)) as reader:
        for k in range(reader.num_steps):
            t, _, cell_data = reader.read_data(k)
            summary = "nastran:random_summary" in reader.field_data
            steps[(float(t), summary)] = {key: np.concatenate(value) for key, value in cell_data.items()}
    compared = 0
    for kind in ("psd", "crm", "rms", "no"):
        summary = kind in ("rms", "no")
        for quantity in ("stress", "strain"):
            for table in ("cquad4", "ctria3"):
                for result in getattr(getattr(model.op2_results, kind), f"{table}_{quantity}").values():
                    nodes = result.element_node
                    for k, time in enumerate(result._times):
                        ours = steps[(0.0 if summary else float(time), summary)]
                        for layer, fibre in ((0, ""), (1, "_z2")):
                            rows = np.arange(layer, len(nodes), 2)
                            cells = [order[e] for e in nodes[rows, 0]]
                            got = ours[f"{quantity}{fibre}_{kind}"][cells][:, [0, 1, 3]]
                            np.testing.assert_array_equal(got, result.data[k, rows, :3])
                            if result.data.shape[2] == 4:  # RMS von Mises
                                vm = "von_mises" if quantity == "stress" else "strain_von_mises"
                                np.testing.assert_array_equal(ours[f"{vm}{fibre}_{kind}"][cells], result.data[k, rows, 3])
                                compared += 1
                            compared += 1
    assert compared >= 30
