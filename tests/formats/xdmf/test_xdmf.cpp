// XDMF: real files (DOLFINx inline mesh, meshio time series), round trips in the three heavy-data
// forms, Mixed topologies, XInclude/Reference, collections, DOLFINx mesh + meshtags, time series
// through the generic interface, and the errors for bad input (DOLFIN specifics:
// test_xdmf_dolfin.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "formats/xdmf/xdmf.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"
#include "support/hdf5_skip.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;
namespace fs = std::filesystem;

namespace {

Mesh mixed_mesh() {
  Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0.5, 0});
  CellBlock triangles{"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}};
  CellBlock quads{"quad", int64_matrix(1, 4, {1, 4, 2, 3}), {}, {}};
  CellBlock lines{"line", int64_matrix(1, 2, {0, 1}), {}, {}};
  mesh.cells = {triangles, quads, lines};
  mesh.point_data.set("T", array_of<double>({5}, {0, 0.25, 0.5, 0.75, 1}));
  mesh.cell_data.set("id", {array_of<std::int32_t>({2}, {1, 2}), array_of<std::int32_t>({1}, {3}),
                            array_of<std::int32_t>({1}, {4})});
  mesh.field_data.set("bottom", NDArray::from_values<std::int64_t>({7, 1}));
  return mesh;
}

void expect_same(const Mesh& a, const Mesh& b) {
  ASSERT_TRUE(same_bits(a.points, b.points));
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    EXPECT_EQ(a.cells[i].type, b.cells[i].type);
    EXPECT_EQ(nodes_of(a.cells[i]), nodes_of(b.cells[i]));
  }
  ASSERT_TRUE(b.point_data.contains("T"));
  EXPECT_TRUE(same_bits(*a.point_data.find("T"), *b.point_data.find("T")));
  const auto* ids = b.cell_data.find("id");
  ASSERT_NE(ids, nullptr);
  for (std::size_t i = 0; i < ids->size(); ++i) EXPECT_TRUE(same_bits((*a.cell_data.find("id"))[i], (*ids)[i]));
}

}  // namespace

TEST(Xdmf, ReadsTheDolfinxInlineMesh) {
  SKIP_WITHOUT_CORPUS_DIR();
  const Mesh mesh = read(corpus_file("xdmf/dolfinx_mesh.xdmf"));
  EXPECT_EQ(mesh.points.shape(), (Shape{970, 3}));
  EXPECT_EQ(block_summary(mesh), "triangle6:484");
  EXPECT_NEAR(point_sum(mesh), 23.88381093, 1e-6);
}

TEST(Xdmf, ReadsMeshioTimeSeriesStepByStep) {
  SKIP_WITHOUT_CORPUS_DIR();
  SKIP_WITHOUT_HDF5();
  auto series = open_time_series(corpus_file("xdmf/out.xdmf"));
  ASSERT_EQ(series->num_steps(), 5u);
  const Mesh mesh = series->read_mesh();
  EXPECT_EQ(mesh.points.shape(), (Shape{4, 2}));
  EXPECT_EQ(block_summary(mesh), "triangle:2");
  for (std::size_t k = 0; k < 5; ++k) {
    const TimeStep step = series->read_step(k);
    EXPECT_DOUBLE_EQ(step.time, 0.25 * static_cast<double>(k));
    EXPECT_EQ(step.point_data.find("phi")->values<double>()[3], step.time);
    EXPECT_EQ(step.point_data.find("u")->shape(), (Shape{4, 2}));
    EXPECT_EQ(step.cell_data.find("a")->front().values<double>()[1], 4.2);
  }
  EXPECT_THROW(series->read_step(5), ReadError);
}

TEST(Xdmf, RoundTripsInEveryHeavyDataForm) {
  ScratchDir dir;
  for (const char* data_format : {"XML", "Binary", "HDF"}) {
    if (std::string(data_format) == "HDF" && !io::hdf5::available()) continue;
    const std::string path = dir.file(std::string("mixed_") + data_format + ".xdmf");
    WriteOptions options;
    options.set("data_format", data_format);
    write(path, mixed_mesh(), "", options);
    const Mesh back = read(path);
    SCOPED_TRACE(data_format);
    expect_same(mixed_mesh(), back);
    ASSERT_TRUE(back.field_data.contains("bottom"));
    EXPECT_EQ(int_values(*back.field_data.find("bottom")), (std::vector<std::int64_t>{7, 1}));
  }
}

TEST(Xdmf, FollowsXIncludeReferenceAndMergesGridsSharingGeometry) {
  // DOLFINx's layout: the mesh grid, then a meshtags grid that XIncludes the mesh's Geometry.
  ScratchDir dir;
  const std::string path = dir.write("tags.xdmf", R"xml(<?xml version="1.0"?>
<Xdmf Version="3.0" xmlns:xi="http://www.w3.org/2001/XInclude"><Domain>
<Grid Name="mesh" GridType="Uniform">
  <Topology TopologyType="Triangle" NumberOfElements="2" NodesPerElement="3">
    <DataItem Dimensions="2 3" NumberType="Int" Format="XML">0 1 2 0 2 3</DataItem></Topology>
  <Geometry GeometryType="XY"><DataItem Dimensions="4 2" Format="XML" Precision="8">0 0 1 0 1 1 0 1</DataItem></Geometry>
</Grid>
<Grid Name="facet_tags" GridType="Uniform">
  <xi:include xpointer="xpointer(/Xdmf/Domain/Grid[@GridType='Uniform'][1]/Geometry)"/>
  <Topology TopologyType="PolyLine" NodesPerElement="2" NumberOfElements="2">
    <DataItem Dimensions="2 2" NumberType="Int" Format="XML">0 1 1 2</DataItem></Topology>
  <Attribute Name="facet_tags" AttributeType="Scalar" Center="Cell">
    <DataItem Dimensions="2" NumberType="Int" Format="XML">5 6</DataItem></Attribute>
</Grid>
</Domain></Xdmf>)xml");
  const Mesh mesh = read(path);
  EXPECT_EQ(mesh.points.shape(), (Shape{4, 2})) << "grids sharing the Geometry share the points";
  EXPECT_EQ(block_summary(mesh), "triangle:2") << "facet tags are Side regions, not a block";
  const Region* five = find_region(mesh, "facet_tags:5", RegionKind::Side);
  const Region* six = find_region(mesh, "facet_tags:6", RegionKind::Side);
  ASSERT_NE(five, nullptr);
  ASSERT_NE(six, nullptr);
  EXPECT_EQ(int_values(five->entries), (std::vector<std::int64_t>{0, 0}));  // triangle 0, facet (0,1)
  EXPECT_EQ(int_values(six->entries), (std::vector<std::int64_t>{0, 1}));   // triangle 0, facet (1,2)
  EXPECT_EQ(five->tag, 5);

  // Reference="XML" pointing at another grid's DataItem, and a spatial collection with its own points.
  const std::string spatial = dir.write("spatial.xdmf", R"xml(<Xdmf Version="2.0"><Domain>
<Grid GridType="Collection" CollectionType="Spatial">
 <Grid Name="a"><Topology TopologyType="Triangle"><DataItem Dimensions="1 3" NumberType="Int" Format="XML">0 1 2</DataItem></Topology>
  <Geometry GeometryType="X_Y_Z"><DataItem Dimensions="3" Format="XML">0 1 0</DataItem><DataItem Dimensions="3" Format="XML">0 0 1</DataItem><DataItem Name="zero" Dimensions="3" Format="XML">0 0 0</DataItem></Geometry></Grid>
 <Grid Name="b"><Topology TopologyType="Triangle"><DataItem Dimensions="1 3" NumberType="Int" Format="XML">0 1 2</DataItem></Topology>
  <Geometry GeometryType="X_Y_Z"><DataItem Dimensions="3" Format="XML">5 6 5</DataItem><DataItem Dimensions="3" Format="XML">0 0 1</DataItem><DataItem Reference="XML">/Xdmf/Domain/Grid/Grid[@Name='a']/Geometry/DataItem[@Name='zero']</DataItem></Geometry></Grid>
</Grid></Domain></Xdmf>)xml");
  const Mesh merged = read(spatial);
  EXPECT_EQ(merged.points.shape(), (Shape{6, 3}));
  EXPECT_EQ(block_summary(merged), "triangle:1;triangle:1");
  EXPECT_EQ(nodes_of(merged.cells[1]), (std::vector<std::int64_t>{3, 4, 5}));
  EXPECT_EQ(merged.points.values<float>()[9], 5.0f);
}

TEST(Xdmf, ReadsMixedTopologiesWithPolygonsAndCounts) {
  ScratchDir dir;
  // Polyvertex (1, count 1), Polyline (2, count 2), Triangle (4), Polygon (3, count 5).
  const std::string path = dir.write("mixed.xdmf", R"xml(<Xdmf Version="3.0"><Domain><Grid>
<Geometry Type="XYZ"><DataItem Dimensions="6 3" Format="XML" Precision="8">0 0 0 1 0 0 1 1 0 0 1 0 2 2 0 3 3 0</DataItem></Geometry>
<Topology Type="Mixed" NumberOfElements="4"><DataItem Dimensions="18" DataType="Int" Format="XML">1 1 5  2 2 0 1  4 0 1 2  3 5 0 1 2 3 4</DataItem></Topology>
</Grid></Domain></Xdmf>)xml");
  const Mesh mesh = read(path);
  ASSERT_EQ(mesh.cells.size(), 4u);
  EXPECT_EQ(mesh.cells[0].type, "vertex");
  EXPECT_EQ(mesh.cells[1].type, "line");
  EXPECT_EQ(mesh.cells[2].type, "triangle");
  EXPECT_EQ(mesh.cells[3].type, "polygon");
  EXPECT_EQ(int_values(mesh.cells[3].connectivity), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
}

TEST(Xdmf, TimeSeriesWriterAndReaderAgree) {
  ScratchDir dir;
  for (const char* data_format : {"XML", "HDF"}) {
    if (std::string(data_format) == "HDF" && !io::hdf5::available()) continue;
    const std::string path = dir.file(std::string("series_") + data_format + ".xdmf");
    WriteOptions options;
    options.set("data_format", data_format);
    {
      auto writer = create_time_series(path, "", options);
      writer->write_mesh(mixed_mesh());
      for (int k = 0; k < 3; ++k) {
        TimeStep step;
        step.time = 0.1 * k;
        step.point_data.set("phi", array_of<double>({5}, {1.0 * k, 0, 0, 0, 2.0 * k}));
        step.cell_data.set("c", {array_of<double>({2}, {1, 2}), array_of<double>({1}, {3}), array_of<double>({1}, {1.0 * k})});
        writer->write_step(step);
      }
      writer->close();
    }
    auto reader = open_time_series(path);
    ASSERT_EQ(reader->num_steps(), 3u);
    EXPECT_EQ(block_summary(reader->read_mesh()), "triangle:2;quad:1;line:1");
    const TimeStep last = reader->read_step(2);
    EXPECT_DOUBLE_EQ(last.time, 0.2);
    EXPECT_EQ(last.point_data.find("phi")->values<double>()[4], 4.0);
    EXPECT_EQ((*last.cell_data.find("c"))[2].values<double>()[0], 2.0);
  }
}

TEST(Xdmf, BadInputIsAReadErrorWithTheLine) {
  ScratchDir dir;
  const char* head = R"xml(<Xdmf Version="3.0" xmlns:xi="http://www.w3.org/2001/XInclude"><Domain><Grid>)xml";
  const std::pair<const char*, const char*> cases[] = {
      {"<Geometry><DataItem Dimensions=\"2 3\" Format=\"XML\">0 0 0 1 1</DataItem></Geometry>", "Dimensions 2 3"},
      {"<Geometry><DataItem Dimensions=\"1 3\" Format=\"XML\">0 0 0 1</DataItem></Geometry>", "more values"},
      {"<Geometry><DataItem Dimensions=\"1 3\" Format=\"XML\">0 0 x</DataItem></Geometry>", "invalid number"},
      {"<Geometry><DataItem Dimensions=\"1 3\" Format=\"Binary\">absent.bin</DataItem></Geometry>", "absent.bin"},
      {"<xi:include href=\"absent.xdmf\"/>", "dangling XInclude"},
      {"<Geometry><DataItem Dimensions=\"1 3\" Format=\"XML\">0 0 0</DataItem></Geometry><Topology TopologyType=\"Triangle\"><DataItem Dimensions=\"4\" Format=\"XML\">0 1 2 3</DataItem></Topology>", "whole"},
      {"<Geometry><DataItem Dimensions=\"1 3\" Format=\"XML\">0 0 0</DataItem></Geometry><Topology TopologyType=\"Mixed\"><DataItem Dimensions=\"3\" Format=\"XML\">4 0 1</DataItem></Topology>", "ends inside"},
      {"<Geometry><DataItem Dimensions=\"1 3\" Format=\"Text\">0 0 0</DataItem></Geometry>", "Format"},
      // A cell naming a point the grid does not have (before or after the Geometry).
      {"<Geometry><DataItem Dimensions=\"3 3\" Format=\"XML\">0 0 0 1 0 0 0 1 0</DataItem></Geometry><Topology TopologyType=\"Triangle\"><DataItem Dimensions=\"1 3\" Format=\"XML\">0 1 7</DataItem></Topology>", "node index 7 (entry 2) outside the grid's 3 points"},
      {"<Topology TopologyType=\"Triangle\"><DataItem Dimensions=\"1 3\" Format=\"XML\">0 -1 2</DataItem></Topology><Geometry><DataItem Dimensions=\"3 3\" Format=\"XML\">0 0 0 1 0 0 0 1 0</DataItem></Geometry>", "node index -1"},
      {"<Geometry><DataItem Dimensions=\"3 3\" Format=\"XML\">0 0 0 1 0 0 0 1 0</DataItem></Geometry><Topology TopologyType=\"Mixed\"><DataItem Dimensions=\"4\" Format=\"XML\">4 0 1 3</DataItem></Topology>", "node index 3"},
  };
  int k = 0;
  for (const auto& [body, needle] : cases) {
    const std::string path = dir.write("bad" + std::to_string(k++) + ".xdmf", std::string(head) + "\n" + body + "</Grid></Domain></Xdmf>");
    const ReadError error = expect_read_error([&] { read(path); });
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
  }
  const std::string unclosed = dir.write("unclosed.xdmf", std::string(head));
  expect_read_error([&] { read(unclosed); });
}

TEST(Xdmf, HdfHeavyDataErrorsNameTheObjects) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  write(dir.file("good.xdmf"), mixed_mesh());
  const std::string text = read_file(dir.file("good.xdmf"));
  std::string missing = text;
  missing.replace(missing.find("good.h5:/data0"), 14, "good.h5:/gone");
  ReadError error = expect_read_error([&] { read(dir.write("missing.xdmf", missing)); });
  EXPECT_NE(std::string(error.what()).find("/gone"), std::string::npos) << error.what();
  std::string other_file = text;
  other_file.replace(other_file.find("good.h5:/data0"), 14, "nowhere.h5:/data0");
  error = expect_read_error([&] { read(dir.write("nowhere.xdmf", other_file)); });
  EXPECT_NE(std::string(error.what()).find("nowhere.h5"), std::string::npos) << error.what();
}

TEST(Xdmf, ReadsHyperSlabAndFunctionDataItems) {
  ScratchDir dir;
  const std::string path = dir.write("items.xdmf", R"xml(<Xdmf Version="2.0"><Domain><Grid Name="g">
<Topology TopologyType="Triangle" NumberOfElements="1"><DataItem ItemType="HyperSlab" Dimensions="1 3">
  <DataItem Dimensions="3 2" Format="XML">1 0 1 1 1 3</DataItem>
  <DataItem Dimensions="2 3" NumberType="Int" Format="XML">9 9 9 0 1 2</DataItem></DataItem></Topology>
<Geometry GeometryType="XYZ"><DataItem ItemType="Function" Function="JOIN($0, $1, 2 * $2)" Dimensions="3 3">
  <DataItem Dimensions="3" Format="XML">0 1 0</DataItem><DataItem Dimensions="3" Format="XML">0 0 1</DataItem>
  <DataItem Dimensions="3" Format="XML">1 2 3</DataItem></DataItem></Geometry>
</Grid></Domain></Xdmf>)xml");
  const Mesh mesh = read(path);
  EXPECT_EQ(block_summary(mesh), "triangle:1");
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
  ASSERT_EQ(mesh.points.shape(), (Shape{3, 3}));
  EXPECT_EQ(mesh.points.astype(DType::float64).values<double>()[8], 6.0);
  EXPECT_EQ(mesh.points.astype(DType::float64).values<double>()[3], 1.0);
}

TEST(Xdmf, ReadsStructuredTopologiesInVtkOrder) {
  ScratchDir dir;
  const std::string path = dir.write("corect.xdmf", R"xml(<Xdmf Version="2.0"><Domain><Grid Name="g">
<Topology TopologyType="3DCoRectMesh" Dimensions="2 2 3"/>
<Geometry GeometryType="ORIGIN_DXDYDZ"><DataItem Dimensions="3" Format="XML">5 0 0</DataItem><DataItem Dimensions="3" Format="XML">1 1 2</DataItem></Geometry>
<Attribute Name="c" Center="Cell"><DataItem Dimensions="1 1 2" Format="XML">7 8</DataItem></Attribute>
</Grid></Domain></Xdmf>)xml");
  const Mesh mesh = read(path);
  EXPECT_EQ(block_summary(mesh), "hexahedron:2");
  EXPECT_EQ(mesh.points.shape(), (Shape{12, 3}));
  const std::vector<std::int64_t> nodes = nodes_of(mesh.cells[0]);
  ASSERT_EQ(nodes.size(), 16u);
  const std::vector<std::int64_t> first(nodes.begin(), nodes.begin() + 8);
  EXPECT_EQ(first, (std::vector<std::int64_t>{0, 1, 4, 3, 6, 7, 10, 9}));
  EXPECT_EQ(mesh.points.values<double>()[3 * 11], 4.0);      // x of the last point: 0 + 2·2
  EXPECT_EQ(mesh.points.values<double>()[3 * 11 + 2], 6.0);  // z: origin 5 + 1
  EXPECT_EQ(mesh.cell_data.find("c")->front().shape(), (Shape{2}));
  const std::string bad = dir.write("bad.xdmf", R"xml(<Xdmf Version="2.0"><Domain><Grid Name="g">
<Topology TopologyType="3DRectMesh" Dimensions="2 2 3"/>
<Geometry GeometryType="VXVYVZ"><DataItem Dimensions="2" Format="XML">0 1</DataItem><DataItem Dimensions="2" Format="XML">0 1</DataItem><DataItem Dimensions="2" Format="XML">0 1</DataItem></Geometry>
</Grid></Domain></Xdmf>)xml");
  const ReadError error = expect_read_error([&] { read(bad); });
  EXPECT_NE(std::string(error.what()).find("Grid[@Name='g']/Geometry/DataItem"), std::string::npos) << error.what();
}
