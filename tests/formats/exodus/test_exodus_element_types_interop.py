"""Exodus II element types through meshio++, cross-checked with netCDF4 (the file as stored)
and VTK's vtkExodusIIReader (how ParaView reads it): the MOOSE (TMAP8) file with EDGE2 blocks
in tests/data/exodus, and files written here with EDGE2, BEAM, TRUSS, SHELL4, NSIDED and
NFACED blocks."""

import pathlib

import numpy as np
import pytest

import meshioplusplus as mio

netCDF4 = pytest.importorskip("netCDF4")

TMAP8 = pathlib.Path(__file__).resolve().parents[2] / "data" / "exodus" / "tmap8_val-2d_limited_out.e"

# VTK cell type numbers → our Python names (polyhedra: meshio's polyhedron<N>, N nodes).
VTK_NAMES = {1: "vertex", 3: "line", 7: "polygon", 9: "quad", 12: "hexahedron"}


def vtk_name(vtk_type, num_points):
    return f"polyhedron{num_points}" if vtk_type == 42 else VTK_NAMES[vtk_type]


def vtk_blocks(path):
    """Per element block (file order): [(type name, node ids, or faces for polyhedra)], node ids
    of the whole file (VTK's point squeezing off)."""
    exodus = pytest.importorskip("vtkmodules.vtkIOExodus")
    reader = exodus.vtkExodusIIReader()
    reader.SetFileName(str(path))
    reader.SetSqueezePoints(False)
    reader.UpdateInformation()
    reader.Update()
    output = reader.GetOutput()
    blocks = []
    iterator = output.NewIterator()
    iterator.InitTraversal()
    while not iterator.IsDoneWithTraversal():
        grid = iterator.GetCurrentDataObject()
        cells = []
        for c in range(grid.GetNumberOfCells()):
            cell = grid.GetCell(c)
            name = vtk_name(grid.GetCellType(c), cell.GetNumberOfPoints())
            if grid.GetCellType(c) == 42:
                faces = [[cell.GetFace(k).GetPointId(j) for j in range(cell.GetFace(k).GetNumberOfPoints())]
                         for k in range(cell.GetNumberOfFaces())]
                cells.append((name, faces))
            else:
                cells.append((name, [cell.GetPointId(j) for j in range(cell.GetNumberOfPoints())]))
        blocks.append(cells)
        iterator.GoToNextItem()
    return blocks


def our_cells(mesh):
    """Every cell as (type, node ids or faces), block after block."""
    cells = []
    for block in mesh.cells:
        for cell in block.data:
            if block.type.startswith("polyhedron"):
                cells.append((block.type, [list(np.asarray(face)) for face in cell]))
            else:
                cells.append((block.type, list(np.asarray(cell))))
    return cells


def write_exodus(path, points, blocks, face_blocks=()):
    """An Exodus II file as the exodus library lays it out (netCDF-4): 3-D points, element
    blocks and face blocks. Each block: elem_type, conn (1-based rows, or a flat list with
    counts for NSIDED/NFACED/ragged face blocks), id, name. An NFACED block's conn lists faces,
    numbered 1.. over all face blocks (facconn<k>)."""
    points = np.asarray(points, dtype=float)
    with netCDF4.Dataset(path, "w", format="NETCDF4") as out:
        out.api_version = np.float32(8.11)
        out.version = np.float32(8.11)
        out.floating_point_word_size = np.int32(8)
        out.file_size = np.int32(1)
        out.maximum_name_length = np.int32(32)
        out.int64_status = np.int32(0)
        out.title = "meshio++ element type test"

        def entries(block):
            return len(block["counts"]) if "counts" in block else len(block["conn"])

        for name, size in (("len_string", 33), ("len_line", 81), ("four", 4), ("len_name", 33), ("time_step", None),
                           ("num_dim", 3), ("num_nodes", len(points)), ("num_elem", sum(map(entries, blocks))),
                           ("num_el_blk", len(blocks))):
            out.createDimension(name, size)
        out.createVariable("time_whole", "f8", ("time_step",))
        for axis, name in enumerate(("coordx", "coordy", "coordz")):
            out.createVariable(name, "f8", ("num_nodes",))[:] = points[:, axis]
        out.createVariable("eb_names", "S1", ("num_el_blk", "len_name"))[:] = netCDF4.stringtochar(
            np.array([block.get("name", "") for block in blocks], dtype="S33"))
        kinds = [("el", blocks, "eb")]
        if face_blocks:
            out.createDimension("num_fa_blk", len(face_blocks))
            out.createDimension("num_face", sum(map(entries, face_blocks)))
            kinds.append(("fa", face_blocks, "fa"))
        for kind, group, prefix in kinds:
            out.createVariable(f"{prefix}_status", "i4", (f"num_{kind}_blk",))[:] = 1
            ids = out.createVariable(f"{prefix}_prop1", "i4", (f"num_{kind}_blk",))
            ids.setncattr("name", "ID")
            ids[:] = [block["id"] for block in group]
            for k, block in enumerate(group, 1):
                face = kind == "fa"
                nfaced = not face and block["elem_type"].upper() == "NFACED"
                conn = np.asarray(block["conn"], dtype=np.int32)
                count_dim = f"num_fa_in_blk{k}" if face else f"num_el_in_blk{k}"
                per_dim = f"num_nod_per_fa{k}" if face else f"num_fac_per_el{k}" if nfaced else f"num_nod_per_el{k}"
                name = f"fbconn{k}" if face else f"facconn{k}" if nfaced else f"connect{k}"
                out.createDimension(count_dim, entries(block))
                if "counts" in block:
                    out.createDimension(per_dim, conn.size)
                    variable = out.createVariable(name, "i4", (per_dim,))
                    counts = out.createVariable(f"fbepecnt{k}" if face else f"ebepecnt{k}", "i4", (count_dim,))
                    counts.entity_type1 = "FACE" if nfaced else "NODE"
                    counts.entity_type2 = "FACE" if face else "ELEM"
                    counts[:] = block["counts"]
                else:
                    out.createDimension(per_dim, conn.shape[1])
                    variable = out.createVariable(name, "i4", (count_dim, per_dim))
                variable.elem_type = block["elem_type"]
                variable[:] = conn


SIX_POINTS = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]
PYRAMID_POINTS = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1)]
PYRAMID_FACES = [[1, 4, 3, 2], [1, 2, 5], [2, 3, 5], [3, 4, 5], [4, 1, 5]]


def test_moose_edge2_file_matches_netcdf_and_vtk():
    assert TMAP8.exists(), f"{TMAP8} is missing (it ships with the repository: tests/data/MANIFEST.tsv)"
    mesh = mio.read(TMAP8)
    with netCDF4.Dataset(TMAP8) as exo:
        points = np.stack([exo[name][:] for name in ("coordx", "coordy", "coordz")], axis=1)
        np.testing.assert_array_equal(np.asarray(mesh.points), points)
        assert [block.type for block in mesh.cells] == ["line", "line"]
        for k, block in enumerate(mesh.cells, 1):
            assert exo[f"connect{k}"].elem_type == "EDGE2"
            np.testing.assert_array_equal(np.asarray(block.data), exo[f"connect{k}"][:] - 1)
        # Step 0 of a nodal and an element variable; the node sets as point sets.
        nodal = list(netCDF4.chartostring(exo["name_nod_var"][:]))
        index = nodal.index("temperature") + 1
        np.testing.assert_array_equal(np.asarray(mesh.point_data["temperature"]), exo[f"vals_nod_var{index}"][0])
        for k in (1, 2):
            np.testing.assert_array_equal(np.asarray(mesh.cell_data["Diffusivity"][k - 1]), exo[f"vals_elem_var1eb{k}"][0])
        for k, name in enumerate(netCDF4.chartostring(exo["ns_names"][:]), 1):
            np.testing.assert_array_equal(np.asarray(mesh.point_sets[str(name)]), exo[f"node_ns{k}"][:] - 1)
    assert our_cells(mesh) == [cell for block in vtk_blocks(TMAP8) for cell in block]


def test_bar_shell_and_polygon_names_read_as_vtk_reads_them(tmp_path):
    path = tmp_path / "new_names.e"
    write_exodus(path, SIX_POINTS, [
        dict(elem_type="EDGE2", conn=[[1, 2], [2, 3]], name="wire", id=1),
        dict(elem_type="BEAM", conn=[[3, 4]], id=2),
        dict(elem_type="TRUSS", conn=[[1, 5]], name="strut", id=3),
        dict(elem_type="SHELL4", conn=[[1, 2, 3, 4]], name="skin", id=4),
        dict(elem_type="NSIDED", conn=[1, 2, 6, 5, 2, 3, 6], counts=[4, 3], name="caps", id=5),
    ])
    mesh = mio.read(path)
    np.testing.assert_array_equal(np.asarray(mesh.points), np.asarray(SIX_POINTS, dtype=float))
    vtk = vtk_blocks(path)
    assert [len(block) for block in vtk] == [2, 1, 1, 1, 2]
    assert our_cells(mesh) == [cell for block in vtk for cell in block]


def test_nfaced_polyhedra_read_as_vtk_reads_them(tmp_path):
    # One NSIDED face block: the layout VTK's reader handles (it needs fbepecnt in every face block).
    path = tmp_path / "nfaced.e"
    write_exodus(path, PYRAMID_POINTS,
                 [dict(elem_type="NFACED", conn=[1, 2, 3, 4, 5], counts=[5], name="pyramid", id=9)],
                 [dict(elem_type="NSIDED", conn=sum(PYRAMID_FACES, []), counts=[len(f) for f in PYRAMID_FACES], id=1)])
    mesh = mio.read(path)
    assert [block.type for block in mesh.cells] == ["polyhedron5"]
    assert our_cells(mesh) == [cell for block in vtk_blocks(path) for cell in block]


def test_nfaced_faces_are_numbered_over_every_face_block(tmp_path):
    # Base from an NSIDED face block, sides from a TRI3 one (VTK's reader stops on this layout):
    # the faces as netCDF4 reads them from fbconn1 and fbconn2, in facconn1's order.
    path = tmp_path / "nfaced_two_face_blocks.e"
    write_exodus(path, PYRAMID_POINTS,
                 [dict(elem_type="NFACED", conn=[5, 1, 2, 3, 4], counts=[5], id=9)],
                 [dict(elem_type="NSIDED", conn=PYRAMID_FACES[0], counts=[4], id=1),
                  dict(elem_type="TRI3", conn=PYRAMID_FACES[1:], id=2)])
    with netCDF4.Dataset(path) as exo:
        faces = [list(exo["fbconn1"][:] - 1)] + [list(row) for row in exo["fbconn2"][:] - 1]
        expected = [faces[f - 1] for f in exo["facconn1"][:]]
    mesh = mio.read(path)
    assert our_cells(mesh) == [("polyhedron5", expected)]


# ---- polyhedra written by meshio++ (NFACED over one NSIDED face block per polyhedron block) ----

# A unit cube, a pyramid on its top and a non-convex L prism beside it (volumes 1, 1/3, 3),
# some faces listed inward (the writer turns every face out of its cell), and a hexahedron.
POLY_POINTS = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1],
                        [0.5, 0.5, 2], [2, 0, 0], [4, 0, 0], [4, 1, 0], [3, 1, 0], [3, 2, 0], [2, 2, 0],
                        [2, 0, 1], [4, 0, 1], [4, 1, 1], [3, 1, 1], [3, 2, 1], [2, 2, 1]], dtype=float)
CUBE = [[0, 3, 2, 1], [4, 5, 6, 7], [4, 5, 1, 0], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]]
PYRAMID_ON_TOP = [[4, 5, 6, 7], [4, 5, 8], [5, 6, 8], [6, 7, 8], [7, 4, 8]]
L_PRISM = [[10, 11, 12, 13, 14, 9], [15, 16, 17, 18, 19, 20], [9, 10, 16, 15], [10, 11, 17, 16], [11, 12, 18, 17],
           [12, 13, 19, 18], [13, 14, 20, 19], [14, 9, 15, 20]]


def polyhedron_volume(points, faces):
    """Signed volume by the divergence theorem: positive when every face points out."""
    volume = 0.0
    for face in faces:
        p = points[np.asarray(face)]
        for k in range(1, len(p) - 1):
            volume += np.dot(p[0], np.cross(p[k], p[k + 1])) / 6
    return volume


def vtk_cell_volumes(path):
    """VTK's own volume of every cell (vtkCellSizeFilter), block after block."""
    exodus = pytest.importorskip("vtkmodules.vtkIOExodus")
    verdict = pytest.importorskip("vtkmodules.vtkFiltersVerdict")
    from vtkmodules.util.numpy_support import vtk_to_numpy
    reader = exodus.vtkExodusIIReader()
    reader.SetFileName(str(path))
    reader.SetSqueezePoints(False)
    reader.UpdateInformation()
    reader.Update()
    volumes = []
    iterator = reader.GetOutput().NewIterator()
    iterator.InitTraversal()
    while not iterator.IsDoneWithTraversal():
        sizes = verdict.vtkCellSizeFilter()
        sizes.SetInputData(iterator.GetCurrentDataObject())
        sizes.Update()
        volumes += list(vtk_to_numpy(sizes.GetOutput().GetCellData().GetArray("Volume")))
        iterator.GoToNextItem()
    return volumes


def test_polyhedra_we_write_read_in_vtk_with_our_faces_volumes_and_data(tmp_path):
    path = tmp_path / "polyhedra.exo"
    mesh = mio.Mesh(POLY_POINTS, [("polyhedron", [CUBE, PYRAMID_ON_TOP, L_PRISM[::-1]]),
                                  ("hexahedron", np.array([[9, 10, 11, 12, 15, 16, 17, 18]]))],
                    cell_data={"pressure": [np.array([1.5, 2.5, 3.5]), np.array([4.5])]})
    mio.write(path, mesh)
    with netCDF4.Dataset(path) as exo:
        assert exo["fbconn1"].elem_type == "nsided" and exo["facconn1"].elem_type == "NFACED"
        assert exo["ebepecnt1"].entity_type1 == "FACE" and exo["fbepecnt1"].entity_type2 == "FACE"
        assert list(exo["ebepecnt1"][:]) == [6, 5, 8]
        assert list(exo["facconn1"][:]) == list(range(1, 20))  # each polyhedron's own faces
        assert exo.dimensions["num_face"].size == 19 and len(exo["fa_prop1"][:]) == 1
        stored = np.asarray(exo["fbconn1"][:]) - 1
        counts = np.asarray(exo["fbepecnt1"][:])
        faces = np.split(stored, np.cumsum(counts)[:-1])
        for first, last, volume in ((0, 6, 1.0), (6, 11, 1 / 3), (11, 19, 3.0)):  # outward in the file
            assert polyhedron_volume(POLY_POINTS, faces[first:last]) == pytest.approx(volume)
    read = mio.read(path)
    vtk = [cell for block in vtk_blocks(path) for cell in block]
    assert our_cells(read) == vtk  # the same faces, in the same order, the same way round
    assert [len(cell[1]) for cell in vtk[:3]] == [6, 5, 8]
    ours = [polyhedron_volume(POLY_POINTS, faces) for _, faces in vtk[:3]]
    np.testing.assert_allclose(ours, [1, 1 / 3, 3])
    # VTK's own volumes agree on the convex cells; for the non-convex L prism vtkCellSizeFilter
    # (VTK 9.7) gives 3.5, while the divergence theorem over VTK's own faces (above) gives 3.
    volumes = vtk_cell_volumes(path)
    np.testing.assert_allclose([volumes[0], volumes[1], volumes[3]], [1, 1 / 3, 1.5])
    assert volumes[2] != pytest.approx(3.0)
    np.testing.assert_array_equal(np.concatenate([np.asarray(a) for a in read.cell_data["pressure"]]),
                                  [1.5, 2.5, 3.5, 4.5])


def test_faces_shared_as_seacas_stores_them_are_turned_out_of_each_polyhedron(tmp_path):
    # SEACAS's example layout: the face the cube and the pyramid share is stored once (outward for
    # the cube, inward for the pyramid). We turn it for the pyramid keeping its first node first;
    # VTK 9.7 turns it too (reversed whole): the same faces, volumes and orientation.
    path = tmp_path / "shared.e"
    faces = CUBE[:2] + [[0, 1, 5, 4]] + CUBE[3:] + PYRAMID_ON_TOP[1:]
    write_exodus(path, POLY_POINTS[:9],
                 [dict(elem_type="NFACED", conn=[1, 2, 3, 4, 5, 6, 2, 7, 8, 9, 10], counts=[6, 5], name="cells", id=1)],
                 [dict(elem_type="NSIDED", conn=[n + 1 for face in faces for n in face],
                       counts=[len(face) for face in faces], id=1)])
    read = mio.read(path)
    ours = our_cells(read)
    vtk = [cell for block in vtk_blocks(path) for cell in block]
    assert [sorted(map(sorted, cell[1])) for cell in ours] == [sorted(map(sorted, cell[1])) for cell in vtk]
    np.testing.assert_allclose([polyhedron_volume(POLY_POINTS, cell[1]) for cell in ours], [1, 1 / 3])
    np.testing.assert_allclose([polyhedron_volume(POLY_POINTS, cell[1]) for cell in vtk], [1, 1 / 3])
    assert ours[1][1][0] == [4, 7, 6, 5] and vtk[1][1][0] == [7, 6, 5, 4]
    assert ours[0] == vtk[0] and ours[1][1][1:] == vtk[1][1][1:]
