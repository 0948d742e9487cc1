"""CalculiX .frd results: ccx's own test files against ccx2paraview (CalculiX's converter to
VTK) and the time-series API."""

import pathlib

import numpy as np
import pytest

import meshioplusplus as mio

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "frd"
# ccx2paraview reads ASCII files only: the binary one is checked against its ASCII twin below.
FILES = sorted(p.name for p in DATA.glob("*.frd") if p.name != "beampdouble.frd")
# VTK cell ids -> ours.
VTK = {3: "line", 21: "line3", 5: "triangle", 22: "triangle6", 9: "quad", 23: "quad8", 10: "tetra",
       24: "tetra10", 13: "wedge", 12: "hexahedron", 25: "hexahedron20"}
# ccx2paraview renames some results as the .inp names them.
CCX2PARAVIEW_NAMES = {"DISP": "U", "NDTEMP": "NT", "STRESS": "S", "TOSTRAIN": "E", "FORC": "RF", "PE": "PEEQ"}


def ccx2paraview_read(path):
    """ccx2paraview's parse: (points, [(type, connectivity)] in file order, [(value, step, {name: (n, c)})])."""
    common = pytest.importorskip("ccx2paraview.common")
    from vtkmodules.util.numpy_support import vtk_to_numpy

    with open(path) as handle:
        frd = common.FRD(handle)
        frd.parse_mesh()
        frd.count_increments()
        steps = []
        for step, inc in frd.steps_increments:
            blocks = frd.parse_results(step, inc)
            arrays = {b.name: b.results for b in blocks if b.components}
            steps.append((inc, step, arrays))
        grid = frd.ugrid
        points = vtk_to_numpy(grid.GetPoints().GetData()).astype(float)
        cells = []
        for k in range(grid.GetNumberOfCells()):
            cell = grid.GetCell(k)
            ids = [cell.GetPointId(i) for i in range(cell.GetNumberOfPoints())]
            cells.append((VTK[grid.GetCellType(k)], ids))
        numbers = frd.node_block.get_node_numbers()
    return points, cells, steps, numbers


@pytest.mark.parametrize("name", FILES)
def test_ccx_files_match_ccx2paraview(name):
    path = DATA / name
    points, cells, steps, node_numbers = ccx2paraview_read(path)
    mesh = mio.read(path)
    # ccx2paraview's vtkPoints are float32: ours, rounded to float32, are its values.
    np.testing.assert_array_equal(mesh.points.astype(np.float32), points.astype(np.float32))
    # Our blocks by type, each in file order: compare per type.
    ours = {block.type: block.data.tolist() for block in mesh.cells}
    theirs = {}
    for cell_type, ids in cells:
        theirs.setdefault(cell_type, []).append(ids)
    # (ccx2paraview keeps the file's be3 order, end, end, middle, which is VTK's: as ours.)
    assert ours == theirs
    with mio.frd.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        assert reader.num_steps == len(steps)
        position = {number: k for k, number in enumerate(node_numbers)}
        for k, (value, step_number, arrays) in enumerate(steps):
            t, point_data, _ = reader.read_data(k)
            assert t == value
            assert int(reader.field_data["frd:step"][0]) == step_number
            for frd_name, values in point_data.items():
                their = arrays[CCX2PARAVIEW_NAMES.get(frd_name, frd_name)]
                values = values.reshape(len(mesh.points), -1)
                for node, row in their.items():
                    if node not in position:
                        continue  # no coordinates: we pass such values over
                    ours_row = values[position[node]]
                    # ccx2paraview fills nodes without values with zeros; ours are NaN.
                    np.testing.assert_array_equal(np.where(np.isnan(ours_row), 0.0, ours_row), row)


def test_binary_file_reads_as_its_ascii_twin():
    binary = mio.read(DATA / "beampdouble.frd")
    ascii_ = mio.read(DATA / "beamp.frd")
    np.testing.assert_array_equal(binary.points, ascii_.points)
    assert [b.type for b in binary.cells] == ["hexahedron20"]
    np.testing.assert_array_equal(binary.cells[0].data, ascii_.cells[0].data)
    # float64 in the binary file, E12.5 (6 digits) in the ASCII one.
    np.testing.assert_allclose(binary.point_data["DISP"], ascii_.point_data["DISP"], rtol=5e-6, atol=1e-12)


def test_read_gives_the_last_step_and_components():
    mesh = mio.read(DATA / "beamf.frd")
    with mio.frd.TimeSeriesReader(DATA / "beamf.frd") as reader:
        assert reader.num_steps == 10
        reader.read_points_cells()
        t, point_data, _ = reader.read_data(9)
    assert mesh.field_data["frd:time"][0] == t == reader.times[-1]
    np.testing.assert_array_equal(mesh.point_data["DISP"], point_data["DISP"])
    assert list(mesh.field_data["frd:components:DISP"]) == ["D1", "D2", "D3"]
    assert mesh.point_data["DISP"].shape == (261, 3)


def test_tensor_components_and_steps():
    with mio.frd.TimeSeriesReader(DATA / "beamdy20.frd") as reader:
        points, cells = reader.read_points_cells()
        assert reader.times == [12000.0, 12001.0]
        t, point_data, _ = reader.read_data(0)
        assert set(point_data) == {"TOSTRAIN", "TOSTRAII", "PDISP"}
        assert point_data["TOSTRAIN"].shape == (261, 6)


def test_frd_is_read_only(tmp_path):
    mesh = mio.read(DATA / "zerocoeff.frd")
    with pytest.raises(mio.WriteError, match="frd"):  # read only: no writer of that name
        mio.write(tmp_path / "x.frd", mesh)


def test_a_bad_value_names_the_line(tmp_path):
    text = (DATA / "zerocoeff.frd").read_text()
    lines = text.split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith(" -1") and "E" in line and i > 30)
    lines[k] = lines[k][:20] + "x" + lines[k][21:]
    path = tmp_path / "bad.frd"
    path.write_text("\n".join(lines))
    with pytest.raises(mio.ReadError, match=rf"bad\.frd:{k + 1} .*invalid value of"):
        mio.read(path)
