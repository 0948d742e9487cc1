"""MSC Nastran HDF5 through Python: every real file against h5py reading the same datasets
(grids, element tables, DOMAINS, nodal and stress tables), the time-series reader's steps,
and hostile files made with h5py. (pyNastran, which does not install beside numpy 2.4, reads
these files only through its own OP2/BDF readers: h5py is the reference.)"""

import pathlib

import numpy as np
import pytest

import meshioplusplus

from interop import data_files

h5py = pytest.importorskip("h5py", reason="h5py reads the reference values")

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "nastran_h5"
FILES = data_files(DATA)
CELL_CARDS = {"CTRIA3", "CTRIAR", "CTRIA6", "CQUAD4", "CQUADR", "CQUAD8", "CTETRA", "CPYRAM", "CPENTA", "CHEXA",
              "CBAR", "CBEAM", "CROD", "CTUBE", "CONROD"}
NODAL = {"DISPLACEMENT": "displacement", "EIGENVECTOR": "displacement", "SPC_FORCE": "spc_force"}


def test_files_present():
    assert len(FILES) == 3


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_model_against_h5py(path):
    mesh = meshioplusplus.read(path)  # .h5: no format name needed
    with h5py.File(path, "r") as f:
        grid = f["NASTRAN/INPUT/NODE/GRID"][:]
        np.testing.assert_array_equal(mesh.points, grid["X"])
        np.testing.assert_array_equal(mesh.point_data["nastran:grid_id"], grid["ID"])
        cards = [c for c in f["NASTRAN/INPUT/ELEMENT"] if c in CELL_CARDS]
        eids = np.concatenate([f["NASTRAN/INPUT/ELEMENT/" + c]["EID"] for c in cards])
        ours = np.concatenate(mesh.cell_data["nastran:element_id"])
        assert sorted(ours) == sorted(eids)
        # every connectivity entry maps back to the grid id the card names
        ids = grid["ID"]
        for card in cards:
            table = f["NASTRAN/INPUT/ELEMENT/" + card][:]
            names = table.dtype.names
            first = table["G"][:, 0] if "G" in names else table["GA" if "GA" in names else "G1"]
            for eid, g0 in zip(table["EID"], first):
                b = next(k for k, a in enumerate(mesh.cell_data["nastran:element_id"]) if eid in a)
                row = int(np.nonzero(mesh.cell_data["nastran:element_id"][b] == eid)[0][0])
                assert ids[mesh.cells[b].data[row][0]] == g0
        domains = f["NASTRAN/RESULT/DOMAINS"][:]
        with meshioplusplus.nastran_h5.TimeSeriesReader(str(path)) as reader:
            steps = reader.num_steps
            assert steps >= 1
            for k in range(steps):
                t, point_data, cell_data = reader.read_data(k)
                for table, name in NODAL.items():
                    if "NASTRAN/RESULT/NODAL/" + table not in f:
                        continue
                    rows = f["NASTRAN/RESULT/NODAL/" + table][:]
                    domain_ids = sorted(set(rows["DOMAIN_ID"]))
                    mine = rows[rows["DOMAIN_ID"] == domain_ids[k]] if len(domain_ids) == steps else None
                    if mine is None:
                        continue
                    d = domains[domains["ID"] == domain_ids[k]][0]
                    assert t == (d["SUBCASE"] if d["ANALYSIS"] == 1 else d["TIME_FREQ_EIGR"])
                    mine = mine[np.isin(mine["ID"], ids)]  # scalar points (SPOINT) have no place
                    where = np.searchsorted(ids, mine["ID"]) if np.all(np.diff(ids) > 0) else None
                    assert where is not None
                    if len(mine):
                        np.testing.assert_array_equal(point_data[name][where, 0], mine["X"])
                        np.testing.assert_array_equal(point_data[name][where, 1], mine["Y"])


def test_static_stress_against_h5py():
    path = next(p for p in FILES if p.name == "static_solid_shell_bar.h5")
    mesh = meshioplusplus.read(path, "nastran_h5")
    eid = dict()
    for b, ids in enumerate(mesh.cell_data["nastran:element_id"]):
        for row, e in enumerate(ids):
            eid[int(e)] = (b, row)
    with h5py.File(path, "r") as f:
        for table in ("HEXA", "PENTA", "TETRA"):
            for rec in f["NASTRAN/RESULT/ELEMENTAL/STRESS/" + table][:]:
                b, row = eid[int(rec["EID"])]
                expected = [rec[c][0] for c in ("X", "Y", "Z", "TXY", "TYZ", "TZX")]
                np.testing.assert_array_equal(mesh.cell_data["stress"][b][row], expected)
        for rec in f["NASTRAN/RESULT/ELEMENTAL/STRESS/TRIA3"][:]:
            b, row = eid[int(rec["EID"])]
            np.testing.assert_array_equal(mesh.cell_data["stress"][b][row], [rec["X1"], rec["Y1"], 0, rec["TXY1"], 0, 0])
            np.testing.assert_array_equal(mesh.cell_data["stress_z2"][b][row], [rec["X2"], rec["Y2"], 0, rec["TXY2"], 0, 0])
            x, y, xy = rec["X1"], rec["Y1"], rec["TXY1"]
            assert mesh.cell_data["von_mises"][b][row] == pytest.approx(np.sqrt(x * x - x * y + y * y + 3 * xy * xy))


def test_modes_are_steps():
    path = next(p for p in FILES if p.name == "ten_bar_truss_modes.h5")
    with h5py.File(path, "r") as f:
        eigen = f["NASTRAN/RESULT/SUMMARY/EIGENVALUE"]["EIGEN"]
    with meshioplusplus.nastran_h5.TimeSeriesReader(str(path)) as reader:
        assert reader.num_steps == 8
        assert [reader.read_data(k)[0] for k in range(8)] == pytest.approx(list(eigen))


def _copy_with(path, tmp_path, edit):
    import shutil

    out = tmp_path / "edited.h5"
    shutil.copy(path, out)
    with h5py.File(out, "r+") as f:
        edit(f)
    return out


def test_hostile(tmp_path):
    path = next(p for p in FILES if p.name == "static_solid_shell_bar.h5")

    def drop_grid(f):
        del f["NASTRAN/INPUT/NODE/GRID"]

    with pytest.raises(meshioplusplus.ReadError, match="/NASTRAN/INPUT/NODE/GRID"):
        meshioplusplus.read(_copy_with(path, tmp_path, drop_grid), "nastran_h5")

    def missing_grid(f):
        table = f["NASTRAN/INPUT/ELEMENT/CQUAD4"][:]
        table["G"][0, 2] = 999999
        del f["NASTRAN/INPUT/ELEMENT/CQUAD4"]
        f["NASTRAN/INPUT/ELEMENT/CQUAD4"] = table

    with pytest.raises(meshioplusplus.ReadError, match="/NASTRAN/INPUT/ELEMENT/CQUAD4.*999999"):
        meshioplusplus.read(_copy_with(path, tmp_path, missing_grid), "nastran_h5")

    def local_grid(f):
        table = f["NASTRAN/INPUT/NODE/GRID"][:]
        table["CP"][3] = 5
        del f["NASTRAN/INPUT/NODE/GRID"]
        f["NASTRAN/INPUT/NODE/GRID"] = table

    with pytest.raises(meshioplusplus.ReadError, match="GRID 4 .*coordinate system 5"):
        meshioplusplus.read(_copy_with(path, tmp_path, local_grid), "nastran_h5")

    def bad_index(f):
        index = f["INDEX/NASTRAN/RESULT/NODAL/DISPLACEMENT"][:]
        index["LENGTH"][0] = 10**9
        del f["INDEX/NASTRAN/RESULT/NODAL/DISPLACEMENT"]
        f["INDEX/NASTRAN/RESULT/NODAL/DISPLACEMENT"] = index

    with pytest.raises(meshioplusplus.ReadError, match="outside"):
        meshioplusplus.read(_copy_with(path, tmp_path, bad_index), "nastran_h5")
