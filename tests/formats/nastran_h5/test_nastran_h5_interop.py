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

    def undefined_system(f):
        table = f["NASTRAN/INPUT/NODE/GRID"][:]
        table["CP"][3] = 5
        del f["NASTRAN/INPUT/NODE/GRID"]
        f["NASTRAN/INPUT/NODE/GRID"] = table

    with pytest.raises(meshioplusplus.ReadError, match="grid 4 .*coordinate system 5, which the file does not define"):
        meshioplusplus.read(_copy_with(path, tmp_path, undefined_system), "nastran_h5")

    def bad_index(f):
        index = f["INDEX/NASTRAN/RESULT/NODAL/DISPLACEMENT"][:]
        index["LENGTH"][0] = 10**9
        del f["INDEX/NASTRAN/RESULT/NODAL/DISPLACEMENT"]
        f["INDEX/NASTRAN/RESULT/NODAL/DISPLACEMENT"] = index

    with pytest.raises(meshioplusplus.ReadError, match="outside"):
        meshioplusplus.read(_copy_with(path, tmp_path, bad_index), "nastran_h5")


def _basic(system, kind, local):
    """The QRG's rule, written out here independently of the reader: A, B, C → axes → basic."""
    a, b, c = (np.array([system[f"{p}{k}"] for k in (1, 2, 3)], dtype=float) for p in "ABC")
    z = (b - a) / np.linalg.norm(b - a)
    y = np.cross(z, c - a)
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    r, t, p = local
    if kind == "C":
        local = (r * np.cos(np.radians(t)), r * np.sin(np.radians(t)), p)
    elif kind == "S":
        local = (r * np.sin(np.radians(t)) * np.cos(np.radians(p)), r * np.sin(np.radians(t)) * np.sin(np.radians(p)),
                 r * np.cos(np.radians(t)))
    return a + local[0] * x + local[1] * y + local[2] * z


def test_grids_in_local_systems_are_placed_in_basic(tmp_path):
    # The file's own CORD2R 11, CORD2C 12 and CORD2S 13 (origin (1, 2, 3), axes turned): three
    # grids moved into them.
    path = next(p for p in FILES if p.name == "static_solid_shell_bar.h5")
    moved = {2: ("R", 11), 3: ("C", 12), 4: ("S", 13)}  # row → (kind, system)

    def local_grids(f):
        table = f["NASTRAN/INPUT/NODE/GRID"][:]
        for row, (_, system) in moved.items():
            table["CP"][row] = system
        del f["NASTRAN/INPUT/NODE/GRID"]
        f["NASTRAN/INPUT/NODE/GRID"] = table

    copy = _copy_with(path, tmp_path, local_grids)
    mesh = meshioplusplus.read(copy, "nastran_h5")
    with h5py.File(copy, "r") as f:
        grids = f["NASTRAN/INPUT/NODE/GRID"][:]
        for row, (kind, system) in moved.items():
            cords = f[f"NASTRAN/INPUT/COORDINATE_SYSTEM/CORD2{kind}"][:]
            definition = cords[cords["CID"] == system][0]
            assert definition["RID"] == 0
            np.testing.assert_allclose(mesh.points[row], _basic(definition, kind, grids["X"][row]), rtol=0, atol=1e-12)
        untouched = [i for i in range(len(grids)) if i not in moved]
        np.testing.assert_array_equal(mesh.points[untouched], grids["X"][untouched])
    cp = mesh.point_data["nastran:cp"]
    assert [int(cp[row]) for row in moved] == [11, 12, 13] and int(np.count_nonzero(cp)) == 3


def test_a_signature_broken_by_line_ending_conversion_is_named(tmp_path):
    path = next(p for p in FILES if p.name == "static_solid_shell_bar.h5")
    copy = tmp_path / "converted.h5"
    copy.write_bytes(path.read_bytes().replace(b"\r\n", b"\n"))  # what a text-mode copy does
    with pytest.raises(meshioplusplus.ReadError, match="line-ending conversion"):
        meshioplusplus.read(copy, "nastran_h5")
