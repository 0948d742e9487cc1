"""MED polygons (POG) and polyhedra (POE) through meshio++, cross-checked with h5py (the file as
stored): two real MEDCoupling files in tests/data/med (MED 2.2 and 2.3, whose index datasets
are named the MED 2 way: INN per polyhedron, IFN per face), and files we write (the MED 3 way:
IFN per polyhedron, INN per face, NBR = each dataset's length, as the MED library writes them).

meshio 5.3.5 reads neither (no POE or POG type; the MED 2.2 file has no ESP attribute), and
meshio++ 17.21's venv has no h5py: h5py is the reference here."""

import pathlib

import numpy as np
import pytest

import meshioplusplus as mio

h5py = pytest.importorskip("h5py")

if not mio._core.features().get("hdf5"):
    pytest.skip("this build has no HDF5", allow_module_level=True)

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "med"


def volume(points, faces):
    """Signed volume by the divergence theorem: positive when every face points out."""
    total = 0.0
    for face in faces:
        p = points[np.asarray(face)]
        for k in range(1, len(p) - 1):
            total += np.dot(p[0], np.cross(p[k], p[k + 1])) / 6
    return total


def stored(path):
    """Points, polyhedra (faces of 0-based nodes) and polygons of the file's first mesh, by h5py."""
    with h5py.File(path, "r") as med:
        major = int(med["INFOS_GENERALES"].attrs["MAJ"])
        mesh = med["ENS_MAA"][next(iter(med["ENS_MAA"]))]
        if "NOE" not in mesh:
            mesh = mesh[next(iter(mesh))]
        coo = mesh["NOE/COO"]
        points = coo[()].reshape(int(coo.attrs["NBR"]), -1, order="F")
        polyhedra, polygons = [], []
        if "POE" in mesh["MAI"]:
            poe = mesh["MAI/POE"]
            cell_index, face_index = (poe["INN"][()], poe["IFN"][()]) if major < 3 else (poe["IFN"][()], poe["INN"][()])
            nodes = poe["NOD"][()] - 1
            faces = [list(nodes[face_index[f] - 1:face_index[f + 1] - 1]) for f in range(len(face_index) - 1)]
            polyhedra = [faces[cell_index[c] - 1:cell_index[c + 1] - 1] for c in range(len(cell_index) - 1)]
        if "POG" in mesh["MAI"]:
            index, nodes = mesh["MAI/POG/INN"][()], mesh["MAI/POG/NOD"][()] - 1
            polygons = [list(nodes[index[c] - 1:index[c + 1] - 1]) for c in range(len(index) - 1)]
    return points, polyhedra, polygons


def ours(mesh):
    polyhedra = [[list(np.asarray(face)) for face in cell] for block in mesh.cells if block.type.startswith("polyhedron")
                 for cell in block.data]
    polygons = [list(np.asarray(cell)) for block in mesh.cells if block.type == "polygon" for cell in block.data]
    return polyhedra, polygons


def face_sets(polyhedra):
    return [sorted(sorted(face) for face in cell) for cell in polyhedra]


@pytest.mark.parametrize("name, volumes, polygon_count", [
    ("medcoupling_poly3D.med", [35 / 3, 85 / 6], 3),     # faces stored inward (two not planar: fan volumes)
    ("medcoupling_Test3Dpoly.med", [1e6] * 8, 24),        # faces stored outward
])
def test_real_medcoupling_files_match_h5py(name, volumes, polygon_count):
    path = DATA / name
    assert path.exists(), f"{path} is missing (it ships with the repository: tests/data/MANIFEST.tsv)"
    points, polyhedra, polygons = stored(path)
    mesh = mio.read(path)
    np.testing.assert_array_equal(np.asarray(mesh.points), points)
    our_polyhedra, our_polygons = ours(mesh)
    assert face_sets(our_polyhedra) == face_sets(polyhedra)
    np.testing.assert_allclose([abs(volume(points, cell)) for cell in polyhedra], volumes)
    np.testing.assert_allclose([volume(points, cell) for cell in our_polyhedra], volumes)  # all outward
    assert our_polygons == polygons and len(polygons) == polygon_count


def test_what_we_write_is_the_med3_layout_of_the_real_files_datasets(tmp_path):
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1],
                       [0.5, 0.5, 2], [0, 0, -1]], dtype=float)
    cube = [[0, 3, 2, 1], [4, 5, 6, 7], [4, 5, 1, 0], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]]  # one face inward
    pyramid = [[4, 5, 6, 7], [4, 5, 8], [5, 6, 8], [6, 7, 8], [7, 4, 8]]                      # base inward
    mesh = mio.Mesh(points, [("polyhedron", [cube, pyramid]), ("tetra", np.array([[0, 1, 3, 9]])),
                             ("polygon", np.array([[0, 1, 2, 3]]))],
                    cell_data={"heat": [np.array([1.0, 2.0]), np.array([3.0]), np.array([4.0])]})
    path = tmp_path / "poly.med"
    mio.write(path, mesh)
    with h5py.File(path, "r") as med:
        assert int(med["INFOS_GENERALES"].attrs["MAJ"]) == 3
        (step,) = med["ENS_MAA/mesh"].values()
        poe = step["MAI/POE"]
        with h5py.File(DATA / "medcoupling_Test3Dpoly.med", "r") as real:
            assert {"IFN", "INN", "NOD"} <= set(real["ENS_MAA/Mesh_1/MAI/POE"]) and {"IFN", "INN", "NOD"} <= set(poe)
        ifn, inn, nod = poe["IFN"][()], poe["INN"][()], poe["NOD"][()]
        assert list(ifn) == [1, 7, 12] and ifn[-1] - 1 == len(inn) - 1 and inn[-1] - 1 == len(nod)
        for dataset in ("IFN", "INN", "NOD"):
            assert int(poe[dataset].attrs["NBR"]) == len(poe[dataset])
        assert list(step["MAI/POG/INN"][()]) == [1, 5] and list(step["MAI/POG/NOD"][()]) == [1, 2, 3, 4]
        cha = med["CHA/heat"]
        (field_step,) = cha.values()
        np.testing.assert_array_equal(field_step["MAI.POE/MED_NO_PROFILE_INTERNAL/CO"][()], [1.0, 2.0])
    stored_points, polyhedra, polygons = stored(path)
    np.testing.assert_allclose([volume(stored_points, cell) for cell in polyhedra], [1, 1 / 3])  # written outward
    assert face_sets(polyhedra) == face_sets([cube, pyramid]) and polygons == [[0, 1, 2, 3]]
    back = mio.read(path)
    assert face_sets(ours(back)[0]) == face_sets([cube, pyramid])
    np.testing.assert_array_equal(np.concatenate([np.asarray(a) for a in back.cell_data["heat"]]), [1.0, 2.0, 4.0, 3.0])
