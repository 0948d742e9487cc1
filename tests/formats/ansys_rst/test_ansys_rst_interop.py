"""ANSYS MAPDL results (.rst / .rth): ansys-mapdl-reader's own test files against
ansys-mapdl-reader (the maintained reader, MIT), the time-series API, and meshio++ 17.21."""

import gzip
import pathlib
import subprocess

import numpy as np
import pytest

import meshioplusplus as mio

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "ansys_rst"
FILES = sorted(p.name for p in DATA.glob("*.gz"))
PEER = pathlib.Path(__file__).resolve().parents[3] / "bench" / ".venv-meshioplusplus-17" / "bin" / "python"


@pytest.fixture
def plain(tmp_path):
    """The file as MAPDL wrote it (the reference reader takes no gzip)."""

    def inflate(name):
        path = tmp_path / name[: -len(".gz")]
        path.write_bytes(gzip.decompress((DATA / name).read_bytes()))
        return path

    return inflate


def reference(path):
    pytest.importorskip("ansys.mapdl.reader", reason="ansys-mapdl-reader is the reference reader")
    import warnings

    warnings.filterwarnings("ignore")
    from ansys.mapdl import reader as pymapdl_reader

    return pymapdl_reader.read_binary(str(path))


@pytest.mark.parametrize("name", FILES)
def test_against_ansys_mapdl_reader(name, plain):
    path = plain(name)
    rst = reference(path)
    mesh = mio.read(path)
    ids = mesh.point_data["ansys:node"]
    assert sorted(ids.tolist()) == sorted(rst.mesh.nnum.tolist())
    order = np.argsort(ids)
    np.testing.assert_array_equal(mesh.points[order], rst.mesh.nodes[np.argsort(rst.mesh.nnum), :3])
    assert sum(len(block.data) for block in mesh.cells) == rst.mesh.n_elem
    elements = np.concatenate(mesh.cell_data["ansys:element"])
    assert sorted(elements.tolist()) == sorted(rst.mesh.enum.tolist())
    with mio.ansys_rst.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        assert reader.num_steps == rst.nsets
        for k in range(rst.nsets):
            t, point_data, cell_data = reader.read_data(k)
            assert t == rst.time_values[k]
            nnum, solution = rst.nodal_solution(k)
            ours = np.concatenate([point_data[n].reshape(len(ids), -1) for n in point_data if n != "ansys:node"], axis=1)
            rows = order[np.searchsorted(ids[order], nnum)]
            np.testing.assert_array_equal(ours[rows][:, : solution.shape[1]], solution)
            if "stress" in cell_data:  # ENS averaged per element, in global axes, as element_stress gives them
                enum, stresses, _ = rst.element_stress(k)
                expected = {e: np.mean(s, axis=0) for e, s in zip(enum, stresses) if len(s)}
                got = np.concatenate(cell_data["stress"])
                for e, row in zip(elements, got):
                    if not np.isnan(row).all():
                        np.testing.assert_allclose(row, expected[e], rtol=1e-9, atol=1e-9 * np.abs(got[~np.isnan(got)]).max())


def test_read_carries_the_first_sets_stress(plain):
    mesh = mio.read(plain("shell281.rst.gz"))
    hexahedra, shells = mesh.cell_data["stress"]
    assert hexahedra.shape == (16, 6) and not np.isnan(hexahedra).any()
    assert np.isnan(shells).all()  # shells: not read (docs/formats.md)


def test_thermal_file_gives_temperature():
    mesh = mio.read(DATA / "thermal.rth.gz", file_format="ansys_rst")
    assert mesh.point_data["temperature"].shape == (2720,)
    assert mesh.cells[0].type == "hexahedron20"


def test_a_set_read_alone(plain):
    path = plain("hex_201.rst.gz")
    with mio.ansys_rst.TimeSeriesReader(path) as reader:
        reader.read_points_cells()
        last = reader.read_data(5)
        first = reader.read_data(0)
    assert last[0] == pytest.approx(254.85112372052464)
    assert not np.array_equal(first[1]["displacement"], last[1]["displacement"])


@pytest.mark.skipif(not PEER.exists(), reason="meshio++ 17.21 is installed by bench/ (bench/.venv-meshioplusplus-17)")
@pytest.mark.parametrize("name", ["hex_201.rst.gz", "thermal.rth.gz"])
def test_counts_as_meshioplusplus_17(name, plain):
    path = plain(name)
    code = f"import meshioplusplus as m; x = m.read({str(path)!r}, file_format='ansys_rst'); print(len(x.points), sum(len(c.data) for c in x.cells))"
    peer = subprocess.run([str(PEER), "-c", code], capture_output=True, text=True)
    assert peer.returncode == 0, peer.stderr  # 17.21 reads both files: a failure there is news
    mesh = mio.read(path)
    assert peer.stdout.split() == [str(len(mesh.points)), str(sum(len(c.data) for c in mesh.cells))]
