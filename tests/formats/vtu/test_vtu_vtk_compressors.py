"""VTU through VTK's own XML reader and writer (the `vtk` wheel): every compressor VTK has
(zlib, LZMA, LZ4) × header type × inline/appended, and VTK's arbitrary-order Lagrange cells
under meshio's names. Files VTK writes read here into equal arrays; files written here read
in VTK into equal arrays."""

import itertools

import numpy as np
import pytest

import meshioplusplus as mio

vtk = pytest.importorskip("vtk", reason="VTK's Python wheel (pip install vtk) is the reference")
from vtk.util import numpy_support  # noqa: E402

COMPRESSORS = ["zlib", "lzma", "lz4"]
HEADERS = ["UInt32", "UInt64"]
LAYOUTS = ["inline", "appended"]
VARIANTS = list(itertools.product(COMPRESSORS, HEADERS, LAYOUTS))

# VTK cell ids of the blocks below, in block order.
VTK_IDS = {"tetra": 10, "hexahedron": 12, "VTK_LAGRANGE_TETRAHEDRON": 71, "VTK_LAGRANGE_TRIANGLE": 69}


def sample_mesh():
    rng = np.random.default_rng(5)
    points = rng.random((40, 3))
    cells = [
        ("tetra", np.array([[0, 1, 2, 3], [4, 5, 6, 7], [1, 2, 3, 8]])),
        ("hexahedron", np.arange(8, 24).reshape(2, 8)),
        # A cubic Lagrange tetrahedron (20 nodes) and a cubic Lagrange triangle (10 nodes).
        ("VTK_LAGRANGE_TETRAHEDRON", np.arange(20, 40).reshape(1, 20)),
        ("VTK_LAGRANGE_TRIANGLE", np.arange(0, 10).reshape(1, 10)),
    ]
    point_data = {"velocity": rng.random((40, 3)), "id": np.arange(40, dtype=np.int32)}
    cell_data = {"pressure": [rng.random(len(block)) for _, block in cells]}
    return mio.Mesh(points, cells, point_data=point_data, cell_data=cell_data)


def to_vtk_grid(mesh):
    grid = vtk.vtkUnstructuredGrid()
    vtk_points = vtk.vtkPoints()
    vtk_points.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(mesh.points), deep=True))
    grid.SetPoints(vtk_points)
    types = np.concatenate([np.full(len(block.data), VTK_IDS[block.type], dtype=np.uint8) for block in mesh.cells])
    widths = np.concatenate([np.full(len(block.data), block.data.shape[1]) for block in mesh.cells])
    offsets = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
    connectivity = np.concatenate([block.data.reshape(-1) for block in mesh.cells]).astype(np.int64)
    cell_array = vtk.vtkCellArray()
    cell_array.SetData(numpy_support.numpy_to_vtkIdTypeArray(offsets, deep=True),
                       numpy_support.numpy_to_vtkIdTypeArray(connectivity, deep=True))
    grid.SetCells(numpy_support.numpy_to_vtk(types, deep=True, array_type=vtk.VTK_UNSIGNED_CHAR), cell_array)
    for name, values in mesh.point_data.items():
        array = numpy_support.numpy_to_vtk(np.ascontiguousarray(values), deep=True)
        array.SetName(name)
        grid.GetPointData().AddArray(array)
    for name, values in mesh.cell_data.items():
        array = numpy_support.numpy_to_vtk(np.concatenate(values), deep=True)
        array.SetName(name)
        grid.GetCellData().AddArray(array)
    return grid


def vtk_write(grid, path, compressor, header, layout, appended_encoded=False):
    writer = vtk.vtkXMLUnstructuredGridWriter()
    writer.SetFileName(str(path))
    writer.SetInputData(grid)
    getattr(writer, {"zlib": "SetCompressorTypeToZLib", "lzma": "SetCompressorTypeToLZMA",
                     "lz4": "SetCompressorTypeToLZ4"}[compressor])()
    getattr(writer, f"SetHeaderTypeTo{header}")()
    if layout == "inline":
        writer.SetDataModeToBinary()
    else:
        writer.SetDataModeToAppended()
        writer.SetEncodeAppendedData(1 if appended_encoded else 0)
    assert writer.Write() == 1


def vtk_read(path):
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(str(path))
    reader.Update()
    assert reader.GetErrorCode() == 0
    return reader.GetOutput()


def assert_grid_equals_mesh(grid, mesh):
    np.testing.assert_array_equal(numpy_support.vtk_to_numpy(grid.GetPoints().GetData()), mesh.points)
    cells = grid.GetCells()
    types = numpy_support.vtk_to_numpy(grid.GetCellTypes())
    expected_types = np.concatenate([np.full(len(b.data), VTK_IDS[b.type]) for b in mesh.cells])
    np.testing.assert_array_equal(types, expected_types)
    np.testing.assert_array_equal(numpy_support.vtk_to_numpy(cells.GetConnectivityArray()),
                                  np.concatenate([b.data.reshape(-1) for b in mesh.cells]))
    for name, values in mesh.point_data.items():
        np.testing.assert_array_equal(numpy_support.vtk_to_numpy(grid.GetPointData().GetArray(name)), values)
    for name, values in mesh.cell_data.items():
        np.testing.assert_array_equal(numpy_support.vtk_to_numpy(grid.GetCellData().GetArray(name)),
                                      np.concatenate(values))


def assert_meshes_equal(actual, expected):
    np.testing.assert_array_equal(actual.points, expected.points)
    assert [(b.type, b.data.shape) for b in actual.cells] == [(b.type, b.data.shape) for b in expected.cells]
    for a, b in zip(actual.cells, expected.cells):
        np.testing.assert_array_equal(a.data, b.data)
    for name, values in expected.point_data.items():
        np.testing.assert_array_equal(actual.point_data[name], values)
    for name, values in expected.cell_data.items():
        for a, b in zip(actual.cell_data[name], values):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("compressor,header,layout", VARIANTS)
def test_vtk_written_files_read_equal(tmp_path, compressor, header, layout):
    mesh = sample_mesh()
    path = tmp_path / f"vtk_{compressor}_{header}_{layout}.vtu"
    vtk_write(to_vtk_grid(mesh), path, compressor, header, layout)
    assert f'compressor="vtk{ {"zlib": "ZLib", "lzma": "LZMA", "lz4": "LZ4"}[compressor] }DataCompressor"' in \
        path.read_bytes()[:400].decode("ascii", "replace")
    assert_meshes_equal(mio.read(path), mesh)


@pytest.mark.parametrize("compressor", COMPRESSORS)
def test_vtk_written_appended_base64_reads_equal(tmp_path, compressor):
    mesh = sample_mesh()
    path = tmp_path / f"vtk_{compressor}_b64.vtu"
    vtk_write(to_vtk_grid(mesh), path, compressor, "UInt64", "appended", appended_encoded=True)
    assert_meshes_equal(mio.read(path), mesh)


@pytest.mark.parametrize("compressor,header,layout", VARIANTS)
def test_our_files_read_equal_in_vtk(tmp_path, compressor, header, layout):
    mesh = sample_mesh()
    path = tmp_path / f"ours_{compressor}_{header}_{layout}.vtu"
    mio.vtu.write(path, mesh, binary=True, compression=compressor, header_type=header,
                  appended=layout == "appended")
    assert_grid_equals_mesh(vtk_read(path), mesh)
    assert_meshes_equal(mio.read(path), mesh)


def test_legacy_vtk_lagrange_cells_read_in_vtk(tmp_path):
    mesh = sample_mesh()
    for binary in (True, False):
        path = tmp_path / f"lagrange_{binary}.vtk"
        mio.vtk.write(path, mesh, binary=binary)
        reader = vtk.vtkUnstructuredGridReader()
        reader.SetFileName(str(path))
        reader.Update()
        grid = reader.GetOutput()
        np.testing.assert_array_equal(numpy_support.vtk_to_numpy(grid.GetCellTypes()),
                                      np.concatenate([np.full(len(b.data), VTK_IDS[b.type]) for b in mesh.cells]))
        np.testing.assert_array_equal(numpy_support.vtk_to_numpy(grid.GetCells().GetConnectivityArray()),
                                      np.concatenate([b.data.reshape(-1) for b in mesh.cells]))
        assert_meshes_equal(mio.read(path), mesh)
