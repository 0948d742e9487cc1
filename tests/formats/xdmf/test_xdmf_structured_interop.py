"""XDMF features beyond plain unstructured grids, read from small hand-written files (heavy data
inline or written with h5py) and cross-checked with VTK's vtkXdmfReader (XDMF 2) where the wheel
has it: HyperSlab and Function DataItems, structured topologies (2D/3D SMesh, RectMesh,
CoRectMesh), X_Y_Z geometry, List/HyperSlab times on a temporal collection, and the layouts
DOLFINx's XDMFFile writes (mesh + meshtags, write_function time series)."""

import os

import numpy as np
import pytest

import meshioplusplus as mio
from meshioplusplus import _core

needs_hdf5 = pytest.mark.skipif(not _core.hdf5_available(), reason="built without HDF5 (install libhdf5-dev and rebuild)")


def _vtk_read(path):
    """(points (n, 3), cell point ids (list of lists), point data dict, cell data dict) from
    vtkXdmfReader, or a skip when this vtk has none."""
    vtk = pytest.importorskip("vtk", reason="vtk is in requirements-test.txt")
    from vtk.util.numpy_support import vtk_to_numpy

    if not hasattr(vtk, "vtkXdmfReader"):
        pytest.skip("this vtk wheel has no vtkXdmfReader")
    reader = vtk.vtkXdmfReader()
    reader.SetFileName(os.fspath(path))
    reader.Update()
    data = reader.GetOutputDataObject(0)
    if data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    points = np.array([data.GetPoint(i) for i in range(data.GetNumberOfPoints())])
    cells = []
    for c in range(data.GetNumberOfCells()):
        cell = data.GetCell(c)
        ids = [cell.GetPointIds().GetId(k) for k in range(cell.GetNumberOfPoints())]
        if cell.GetCellType() in (vtk.VTK_VOXEL, vtk.VTK_PIXEL):  # image/rectilinear cells: to hexahedron/quad order
            ids = [ids[k] for k in (0, 1, 3, 2, 4, 5, 7, 6)[: len(ids)]]
        cells.append(ids)

    def arrays(attributes):
        return {attributes.GetArrayName(i): vtk_to_numpy(attributes.GetArray(i)) for i in range(attributes.GetNumberOfArrays())}

    return points, cells, arrays(data.GetPointData()), arrays(data.GetCellData())


def _xml(values):
    return " ".join(str(v) for v in np.asarray(values).ravel())


def _check_against_vtk(path, mesh, dim=3):
    points, cells, point_data, cell_data = _vtk_read(path)
    np.testing.assert_allclose(mesh.points, points[:, :dim])
    ours = [list(row) for block in mesh.cells for row in block.data]
    assert ours == cells
    for name, values in point_data.items():
        np.testing.assert_allclose(np.asarray(mesh.point_data[name]).reshape(values.shape), values)
    for name, values in cell_data.items():
        np.testing.assert_allclose(np.concatenate(mesh.cell_data[name]).reshape(values.shape), values)


# ---- Function and HyperSlab DataItems -------------------------------------------------------


def test_function_join_interlaces_and_arithmetic_matches_vtk(tmp_path):
    path = tmp_path / "function.xdmf"
    path.write_text("""<Xdmf Version="2.0"><Domain><Grid Name="g">
<Topology TopologyType="Triangle" NumberOfElements="2"><DataItem Dimensions="2 3" NumberType="Int" Format="XML">0 1 2 1 3 2</DataItem></Topology>
<Geometry GeometryType="XYZ">
 <DataItem ItemType="Function" Function="JOIN($0, $1, $2)" Dimensions="4 3">
  <DataItem Dimensions="4" Format="XML" Precision="8">0 1 0 1</DataItem>
  <DataItem Dimensions="4" Format="XML" Precision="8">0 0 1 1</DataItem>
  <DataItem Dimensions="4" Format="XML" Precision="8">5 6 7 8</DataItem></DataItem></Geometry>
<Attribute Name="f" Center="Node"><DataItem ItemType="Function" Function="10 * $0 + 1" Dimensions="4">
  <DataItem Dimensions="4" Format="XML">1 2 3 4</DataItem></DataItem></Attribute>
<Attribute Name="g" Center="Node"><DataItem ItemType="Function" Function="($0 - $1) / 2" Dimensions="4">
  <DataItem Dimensions="4" Format="XML">1 2 3 4</DataItem><DataItem Dimensions="4" Format="XML">1 1 1 1</DataItem></DataItem></Attribute>
<Attribute Name="v" Center="Cell" AttributeType="Vector"><DataItem ItemType="Function" Function="JOIN($0, $1, $2)" Dimensions="2 3">
  <DataItem Dimensions="2" Format="XML">1 2</DataItem><DataItem Dimensions="2" Format="XML">3 4</DataItem><DataItem Dimensions="2" Format="XML">5 6</DataItem></DataItem></Attribute>
</Grid></Domain></Xdmf>""")
    mesh = mio.read(path)
    np.testing.assert_array_equal(mesh.points, [[0, 0, 5], [1, 0, 6], [0, 1, 7], [1, 1, 8]])
    assert mesh.points.dtype == np.float64
    np.testing.assert_array_equal(mesh.point_data["f"], [11, 21, 31, 41])
    np.testing.assert_array_equal(mesh.point_data["g"], [0, 0.5, 1, 1.5])
    np.testing.assert_array_equal(mesh.cell_data["v"][0], [[1, 3, 5], [2, 4, 6]])
    _check_against_vtk(path, mesh)


def test_function_concatenation_forms(tmp_path):
    path = tmp_path / "concat.xdmf"
    path.write_text("""<Xdmf Version="3.0"><Domain><Grid Name="g">
<Topology TopologyType="Polyvertex" NodesPerElement="1" NumberOfElements="4"><DataItem ItemType="Function" Function="JOIN($0; $1)" Dimensions="4" NumberType="Int">
  <DataItem Dimensions="2" NumberType="Int" Format="XML">0 1</DataItem><DataItem Dimensions="2" NumberType="Int" Format="XML">2 3</DataItem></DataItem></Topology>
<Geometry GeometryType="XY"><DataItem ItemType="Function" Function="$0 # $1" Dimensions="4 2">
  <DataItem Dimensions="4" Format="XML">0 1 2 3</DataItem><DataItem Dimensions="4" Format="XML">9 8 7 6</DataItem></DataItem></Geometry>
<Attribute Name="c" Center="Node"><DataItem ItemType="Function" Function="$0 | $1" Dimensions="4">
  <DataItem Dimensions="1" Format="XML">1</DataItem><DataItem Dimensions="3" Format="XML">2 3 4</DataItem></DataItem></Attribute>
<Attribute Name="a" Center="Node"><DataItem ItemType="Function" Function="ABS(-$0)" Dimensions="4">
  <DataItem Dimensions="4" Format="XML">1 -2 3 -4</DataItem></DataItem></Attribute>
</Grid></Domain></Xdmf>""")
    mesh = mio.read(path)
    np.testing.assert_array_equal(mesh.cells[0].data.ravel(), [0, 1, 2, 3])
    np.testing.assert_array_equal(mesh.points, [[0, 9], [1, 8], [2, 7], [3, 6]])
    np.testing.assert_array_equal(mesh.point_data["c"], [1, 2, 3, 4])
    np.testing.assert_array_equal(mesh.point_data["a"], [1, 2, 3, 4])


@needs_hdf5
def test_hyperslab_of_hdf5_datasets(tmp_path):
    h5py = pytest.importorskip("h5py")
    points = np.arange(30, dtype=np.float64).reshape(10, 3)
    big = np.arange(100, dtype=np.int32).reshape(10, 10)
    with h5py.File(tmp_path / "slab.h5", "w") as f:
        f["points"] = points
        f["big"] = big
        f["cells"] = np.array([[0, 1, 2], [99, 99, 99], [2, 3, 4], [99, 99, 99]], dtype=np.int64)
    path = tmp_path / "slab.xdmf"
    # Every second point (5 of 10), the quadrant big[2:8:3, 1:10:4], every other cell row.
    path.write_text("""<Xdmf Version="3.0"><Domain><Grid Name="g">
<Topology TopologyType="Triangle" NumberOfElements="2"><DataItem ItemType="HyperSlab" Dimensions="2 3" Type="HyperSlab">
  <DataItem Dimensions="3 2" Format="XML">0 0 2 1 2 3</DataItem>
  <DataItem Dimensions="4 3" NumberType="Int" Precision="8" Format="HDF">slab.h5:/cells</DataItem></DataItem></Topology>
<Geometry GeometryType="XYZ"><DataItem ItemType="HyperSlab" Dimensions="5 3">
  <DataItem Dimensions="3 2" Format="XML">0 0  2 1  5 3</DataItem>
  <DataItem Dimensions="10 3" Precision="8" Format="HDF">slab.h5:/points</DataItem></DataItem></Geometry>
<Attribute Name="q" Center="Grid"><DataItem ItemType="HyperSlab" Dimensions="2 3">
  <DataItem Dimensions="3 2" Format="XML">2 1 3 4 2 3</DataItem>
  <DataItem Dimensions="10 10" NumberType="Int" Format="HDF">slab.h5:/big</DataItem></DataItem></Attribute>
</Grid></Domain></Xdmf>""")
    mesh = mio.read(path)
    np.testing.assert_array_equal(mesh.points, points[::2])
    np.testing.assert_array_equal(mesh.cells[0].data, [[0, 1, 2], [2, 3, 4]])
    np.testing.assert_array_equal(mesh.field_data["q"], big[2:8:3, 1:10:4])
    assert mesh.field_data["q"].dtype == np.int32


def test_hyperslab_and_function_errors_name_the_element(tmp_path):
    head = '<Xdmf Version="3.0"><Domain><Grid><Geometry GeometryType="XY">'
    tail = '</Geometry></Grid></Domain></Xdmf>'
    cases = {
        "leaves the data": '<DataItem ItemType="HyperSlab" Dimensions="3 2"><DataItem Dimensions="3 2" Format="XML">0 0 2 1 3 2</DataItem>'
        '<DataItem Dimensions="4 2" Format="XML">0 0 1 0 1 1 0 1</DataItem></DataItem>',
        "two DataItems": '<DataItem ItemType="HyperSlab" Dimensions="2"><DataItem Dimensions="2" Format="XML">0 1</DataItem></DataItem>',
        "$3": '<DataItem ItemType="Function" Function="JOIN($0, $3)" Dimensions="1 2"><DataItem Dimensions="1" Format="XML">0</DataItem></DataItem>',
        "unknown function": '<DataItem ItemType="Function" Function="FOO($0)" Dimensions="1 2"><DataItem Dimensions="2" Format="XML">0 1</DataItem></DataItem>',
        "differ in size": '<DataItem ItemType="Function" Function="$0 + $1" Dimensions="1 2"><DataItem Dimensions="2" Format="XML">0 1</DataItem>'
        '<DataItem Dimensions="3" Format="XML">0 1 2</DataItem></DataItem>',
        "Collection": '<DataItem ItemType="Collection" Dimensions="2"/>',
    }
    for k, (needle, body) in enumerate(cases.items()):
        path = tmp_path / f"bad{k}.xdmf"
        path.write_text(head + body + tail)
        with pytest.raises(mio.ReadError, match=None) as info:
            mio.read(path)
        assert needle in str(info.value) and f"bad{k}.xdmf" in str(info.value), str(info.value)


# ---- structured topologies -------------------------------------------------------------------


def test_3d_corectmesh_matches_vtk(tmp_path):
    path = tmp_path / "corect.xdmf"
    nz, ny, nx = 2, 3, 4
    path.write_text(f"""<Xdmf Version="2.0"><Domain><Grid Name="g">
<Topology TopologyType="3DCoRectMesh" Dimensions="{nz} {ny} {nx}"/>
<Geometry GeometryType="ORIGIN_DXDYDZ">
 <DataItem Dimensions="3" Format="XML">30 20 10</DataItem><DataItem Dimensions="3" Format="XML">3 2 1</DataItem></Geometry>
<Attribute Name="f" Center="Node"><DataItem Dimensions="{nz} {ny} {nx}" Format="XML">{_xml(np.arange(24))}</DataItem></Attribute>
<Attribute Name="c" Center="Cell"><DataItem Dimensions="{nz - 1} {ny - 1} {nx - 1}" Format="XML">{_xml(np.arange(6) * 10)}</DataItem></Attribute>
</Grid></Domain></Xdmf>""")
    mesh = mio.read(path)
    assert [(b.type, len(b.data)) for b in mesh.cells] == [("hexahedron", 6)]
    assert mesh.points.shape == (24, 3)
    np.testing.assert_array_equal(mesh.points[1], [11, 20, 30])  # x fastest, origin/spacing given Z Y X
    np.testing.assert_array_equal(mesh.points[-1], [13, 24, 33])
    assert mesh.point_data["f"].shape == (24,)
    assert mesh.cell_data["c"][0].shape == (6,)
    _check_against_vtk(path, mesh)


@needs_hdf5
@pytest.mark.parametrize("topology", ["3DSMesh", "3DRectMesh"])
def test_3d_curvilinear_and_rectilinear_from_hdf5_match_vtk(tmp_path, topology):
    h5py = pytest.importorskip("h5py")
    x, y, z = np.array([0.0, 1.0, 3.0]), np.array([0.0, 0.5]), np.array([-1.0, 0.0, 2.0, 5.0])
    zz, yy, xx = np.meshgrid(z, y, x, indexing="ij")
    xyz = np.stack([xx, yy, zz], axis=-1).reshape(-1, 3)
    xyz[:, 0] += 0.1 * xyz[:, 2]  # curvilinear for the SMesh
    vectors = np.arange(len(xyz) * 3, dtype=np.float32).reshape(len(z), len(y), len(x), 3)
    with h5py.File(tmp_path / "s.h5", "w") as f:
        f["xyz"] = xyz
        f["x"], f["y"], f["z"] = x, y, z
        f["v"] = vectors
    dims = f"{len(z)} {len(y)} {len(x)}"
    if topology == "3DSMesh":
        geometry = f'<Geometry GeometryType="XYZ"><DataItem Dimensions="{dims} 3" Precision="8" Format="HDF">s.h5:/xyz</DataItem></Geometry>'
    else:
        geometry = ('<Geometry GeometryType="VXVYVZ">'
                    + "".join(f'<DataItem Dimensions="{len(a)}" Precision="8" Format="HDF">s.h5:/{n}</DataItem>' for n, a in zip("xyz", (x, y, z)))
                    + "</Geometry>")
    path = tmp_path / f"{topology}.xdmf"
    path.write_text(f"""<Xdmf Version="2.0"><Domain><Grid Name="g">
<Topology TopologyType="{topology}" Dimensions="{dims}"/>{geometry}
<Attribute Name="v" AttributeType="Vector" Center="Node"><DataItem Dimensions="{dims} 3" Format="HDF">s.h5:/v</DataItem></Attribute>
</Grid></Domain></Xdmf>""")
    mesh = mio.read(path)
    assert [(b.type, len(b.data)) for b in mesh.cells] == [("hexahedron", 6)]
    assert mesh.point_data["v"].shape == (24, 3)
    if topology == "3DRectMesh":
        np.testing.assert_array_equal(mesh.points[:, 2], np.repeat(z, 6))
    else:
        np.testing.assert_array_equal(mesh.points, xyz)
    _check_against_vtk(path, mesh)


@pytest.mark.parametrize("topology", ["2DSMesh", "2DRectMesh", "2DCoRectMesh"])
def test_2d_structured_grids(tmp_path, topology):
    x, y = np.array([0.0, 1.0, 3.0]), np.array([10.0, 12.0])
    yy, xx = np.meshgrid(y, x, indexing="ij")
    geometry = {
        "2DSMesh": f'<Geometry GeometryType="XY"><DataItem Dimensions="2 3 2" Format="XML">{_xml(np.stack([xx, yy], -1))}</DataItem></Geometry>',
        "2DRectMesh": f'<Geometry GeometryType="VXVY"><DataItem Dimensions="3" Format="XML">{_xml(x)}</DataItem>'
        f'<DataItem Dimensions="2" Format="XML">{_xml(y)}</DataItem></Geometry>',
        "2DCoRectMesh": '<Geometry GeometryType="ORIGIN_DXDY"><DataItem Dimensions="2" Format="XML">10 0</DataItem>'
        '<DataItem Dimensions="2" Format="XML">2 1</DataItem></Geometry>',
    }[topology]
    path = tmp_path / f"{topology}.xdmf"
    path.write_text(f"""<Xdmf Version="2.0"><Domain><Grid Name="g"><Topology TopologyType="{topology}" Dimensions="2 3"/>{geometry}
<Attribute Name="c" Center="Cell"><DataItem Dimensions="1 2" Format="XML">7 8</DataItem></Attribute></Grid></Domain></Xdmf>""")
    mesh = mio.read(path)
    assert mesh.points.shape == (6, 2)
    assert [(b.type, b.data.tolist()) for b in mesh.cells] == [("quad", [[0, 1, 4, 3], [1, 2, 5, 4]])]
    np.testing.assert_array_equal(mesh.cell_data["c"][0], [7, 8])
    if topology != "2DCoRectMesh":
        np.testing.assert_array_equal(mesh.points, np.stack([xx, yy], -1).reshape(-1, 2))
    else:
        np.testing.assert_array_equal(mesh.points, [[0, 10], [1, 10], [2, 10], [0, 12], [1, 12], [2, 12]])


@needs_hdf5
def test_x_y_z_geometry_from_hdf5_matches_vtk(tmp_path):
    h5py = pytest.importorskip("h5py")
    with h5py.File(tmp_path / "c.h5", "w") as f:
        f["x"], f["y"], f["z"] = np.array([0.0, 1, 0, 0]), np.array([0.0, 0, 1, 0]), np.array([0.0, 0, 0, 1])
        f["tets"] = np.array([[0, 1, 2, 3]], dtype=np.int32)
    path = tmp_path / "xyz.xdmf"
    path.write_text("""<Xdmf Version="2.0"><Domain><Grid Name="g">
<Topology TopologyType="Tetrahedron" NumberOfElements="1"><DataItem Dimensions="1 4" NumberType="Int" Format="HDF">c.h5:/tets</DataItem></Topology>
<Geometry GeometryType="X_Y_Z">""" + "".join(f'<DataItem Dimensions="4" Precision="8" Format="HDF">c.h5:/{n}</DataItem>' for n in "xyz") + """</Geometry>
</Grid></Domain></Xdmf>""")
    mesh = mio.read(path)
    np.testing.assert_array_equal(mesh.points, np.vstack([np.zeros(3), np.eye(3)]))
    _check_against_vtk(path, mesh)


# ---- times given on the collection ----------------------------------------------------------


@pytest.mark.parametrize("time", ['<Time TimeType="List"><DataItem Dimensions="3" Format="XML">0.5 1.5 4</DataItem></Time>',
                                  '<Time TimeType="HyperSlab"><DataItem Dimensions="3" Format="XML">0.5 1.0 3</DataItem></Time>'])
def test_list_and_hyperslab_times_on_the_temporal_collection(tmp_path, time):
    steps = "".join(f"""<Grid Name="s{k}"><Topology TopologyType="Triangle"><DataItem Dimensions="1 3" NumberType="Int" Format="XML">0 1 2</DataItem></Topology>
<Geometry GeometryType="XY"><DataItem Dimensions="3 2" Format="XML">0 0 1 0 0 1</DataItem></Geometry>
<Attribute Name="u" Center="Node"><DataItem Dimensions="3" Format="XML">{k} {k} {k}</DataItem></Attribute></Grid>""" for k in range(3))
    path = tmp_path / "times.xdmf"
    path.write_text(f'<Xdmf Version="2.0"><Domain><Grid GridType="Collection" CollectionType="Temporal">{time}{steps}</Grid></Domain></Xdmf>')
    expected = [0.5, 1.5, 4.0] if "List" in time else [0.5, 1.5, 2.5]
    with mio.xdmf.TimeSeriesReader(path) as reader:
        points, cells = reader.read_points_cells()
        assert len(points) == 3
        for k in range(3):
            t, point_data, _ = reader.read_data(k)
            assert t == expected[k]
            np.testing.assert_array_equal(point_data["u"], [k, k, k])
    np.testing.assert_array_equal(mio.read(path).point_data["u"], [0, 0, 0])


def test_time_list_of_the_wrong_length_is_a_read_error(tmp_path):
    path = tmp_path / "bad_times.xdmf"
    path.write_text("""<Xdmf Version="2.0"><Domain><Grid GridType="Collection" CollectionType="Temporal">
<Time TimeType="List"><DataItem Dimensions="2" Format="XML">0 1</DataItem></Time>
<Grid><Geometry GeometryType="XY"><DataItem Dimensions="1 2" Format="XML">0 0</DataItem></Geometry>
<Topology TopologyType="Polyvertex" NodesPerElement="1"><DataItem Dimensions="1" NumberType="Int" Format="XML">0</DataItem></Topology></Grid>
</Grid></Domain></Xdmf>""")
    with pytest.raises(mio.ReadError, match="2 times for 1 grids"):
        mio.xdmf.TimeSeriesReader(path).__enter__()


# ---- DOLFINx layouts ---------------------------------------------------------------------------
# What dolfinx.io.XDMFFile writes (cpp/dolfinx/io/xdmf_mesh.cpp, xdmf_meshtags.h, xdmf_function.cpp,
# XDMFFile.cpp): the mesh grid "mesh" (HDF: /Mesh/mesh/topology, /Mesh/mesh/geometry); per
# meshtags a Uniform grid XIncluding the mesh's Geometry, its own Topology
# (/MeshTags/<name>/topology) and a Cell Attribute (/MeshTags/<name>/Values); per function a
# temporal collection named after it whose steps XInclude the mesh's Topology and Geometry, carry
# <Time Value> and an Attribute (vectors padded to 3 components) at /Function/<name>/<t, '.'→'_'>.

_DOLFINX_HEAD = """<?xml version="1.0"?>
<!DOCTYPE Xdmf SYSTEM "Xdmf.dtd" []>
<Xdmf Version="3.0" xmlns:xi="https://www.w3.org/2001/XInclude">
  <Domain>
    <Grid Name="mesh" GridType="Uniform">
      <Topology TopologyType="Triangle" NumberOfElements="2" NodesPerElement="3">
        <DataItem Dimensions="2 3" NumberType="Int" Format="HDF">dolfinx.h5:/Mesh/mesh/topology</DataItem>
      </Topology>
      <Geometry GeometryType="XY">
        <DataItem Dimensions="4 2" Format="HDF">dolfinx.h5:/Mesh/mesh/geometry</DataItem>
      </Geometry>
    </Grid>
    <Grid Name="facet_tags" GridType="Uniform">
      <xi:include xpointer="xpointer(/Xdmf/Domain/Grid[@GridType='Uniform'][@Name='mesh']/Geometry)" />
      <Topology TopologyType="PolyLine" NumberOfElements="3" NodesPerElement="2">
        <DataItem Dimensions="3 2" NumberType="Int" Format="HDF">dolfinx.h5:/MeshTags/facet_tags/topology</DataItem>
      </Topology>
      <Attribute Name="facet_tags" AttributeType="Scalar" Center="Cell">
        <DataItem Dimensions="3 1" NumberType="Int" Format="HDF">dolfinx.h5:/MeshTags/facet_tags/Values</DataItem>
      </Attribute>
    </Grid>
    <Grid Name="cell_tags" GridType="Uniform">
      <xi:include xpointer="xpointer(/Xdmf/Domain/Grid[@GridType='Uniform'][@Name='mesh']/Geometry)" />
      <Topology TopologyType="Triangle" NumberOfElements="2" NodesPerElement="3">
        <DataItem Dimensions="2 3" NumberType="Int" Format="HDF">dolfinx.h5:/MeshTags/cell_tags/topology</DataItem>
      </Topology>
      <Attribute Name="cell_tags" AttributeType="Scalar" Center="Cell">
        <DataItem Dimensions="2 1" NumberType="Int" Format="HDF">dolfinx.h5:/MeshTags/cell_tags/Values</DataItem>
      </Attribute>
    </Grid>
"""


def _dolfinx_function(name, times, attribute_type, components):
    steps = "".join(f"""
      <Grid Name="{name}" GridType="Uniform">
        <xi:include xpointer="xpointer(/Xdmf/Domain/Grid[@GridType='Uniform'][@Name='mesh']/*[self::Topology or self::Geometry])" />
        <Time Value="{t:g}" />
        <Attribute Name="{name}" AttributeType="{attribute_type}" Center="Node">
          <DataItem Dimensions="4 {components}" Format="HDF">dolfinx.h5:/Function/{name}/{f"{t:g}".replace(".", "_")}</DataItem>
        </Attribute>
      </Grid>""" for t in times)
    return f"""    <Grid Name="{name}" GridType="Collection" CollectionType="Temporal">{steps}
    </Grid>
"""


def _write_dolfinx(tmp_path, with_functions):
    h5py = pytest.importorskip("h5py")
    times = [0.0, 0.5, 1.0]
    with h5py.File(tmp_path / "dolfinx.h5", "w") as f:
        f["/Mesh/mesh/topology"] = np.array([[0, 1, 2], [1, 3, 2]], dtype=np.int64)
        f["/Mesh/mesh/geometry"] = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=np.float64)
        f["/MeshTags/facet_tags/topology"] = np.array([[0, 1], [1, 3], [2, 0]], dtype=np.int64)
        f["/MeshTags/facet_tags/Values"] = np.array([[1], [2], [3]], dtype=np.int32)
        f["/MeshTags/cell_tags/topology"] = np.array([[0, 1, 2], [1, 3, 2]], dtype=np.int64)
        f["/MeshTags/cell_tags/Values"] = np.array([[10], [20]], dtype=np.int32)
        for t in times:
            key = f"{t:g}".replace(".", "_")
            f[f"/Function/T/{key}"] = np.full((4, 1), t)
            f[f"/Function/u/{key}"] = np.tile([t, -t, 0.0], (4, 1))
    text = _DOLFINX_HEAD
    if with_functions:
        text += _dolfinx_function("T", times, "Scalar", 1) + _dolfinx_function("u", times, "Vector", 3)
    path = tmp_path / "dolfinx.xdmf"
    path.write_text(text + "  </Domain>\n</Xdmf>\n")
    return path, times


@needs_hdf5
def test_dolfinx_mesh_and_meshtags(tmp_path):
    # One mesh, not three copies: cell tags are Cell regions (+ cell data), facet tags Side regions.
    path, _ = _write_dolfinx(tmp_path, with_functions=False)
    mesh = mio.read(path)
    assert mesh.points.shape == (4, 2)
    assert [(b.type, len(b.data)) for b in mesh.cells] == [("triangle", 2)]
    np.testing.assert_array_equal(np.concatenate(mesh.cell_data["cell_tags"]).ravel(), [10, 20])
    assert "facet_tags" not in mesh.cell_data
    regions = {(r.name, r.kind): r for r in mesh.regions}
    assert regions["cell_tags:10", mio.RegionKind.CELL].tag == 10
    assert [list(cells) for cells in mesh.cell_sets["cell_tags:20"]] == [[1]]
    # facets (0 1), (1 3), (2 0): sides of triangle 0 (0 1 2) and triangle 1 (1 3 2)
    sides = {name: region.entries.tolist() for (name, kind), region in regions.items() if kind == mio.RegionKind.SIDE}
    assert sides == {"facet_tags:1": [[0, 0]], "facet_tags:2": [[1, 0]], "facet_tags:3": [[0, 2]]}


@needs_hdf5
def test_dolfinx_function_checkpoints_are_a_time_series(tmp_path):
    path, times = _write_dolfinx(tmp_path, with_functions=True)
    mesh = mio.read(path)  # mesh, meshtags, and every function's first step
    assert [(b.type, len(b.data)) for b in mesh.cells] == [("triangle", 2)]
    assert {r.name for r in mesh.regions} == {"facet_tags:1", "facet_tags:2", "facet_tags:3", "cell_tags:10", "cell_tags:20"}
    np.testing.assert_array_equal(mesh.point_data["T"].ravel(), [0, 0, 0, 0])
    assert mesh.point_data["u"].shape == (4, 3)
    with mio.xdmf.TimeSeriesReader(path) as reader:
        points, cells = reader.read_points_cells()
        assert points.shape == (4, 2) and [c.type for c in cells] == ["triangle"]
        assert reader.num_steps == 3
        for k, t in enumerate(times):
            time, point_data, _ = reader.read_data(k)
            assert time == t
            np.testing.assert_array_equal(point_data["T"].ravel(), [t] * 4)
            np.testing.assert_array_equal(point_data["u"], np.tile([t, -t, 0.0], (4, 1)))
