// XDMF as DOLFIN and DOLFINx write it: meshtags grids become regions of one mesh (cell tags →
// Cell regions + cell data, facet tags → Side regions, other entities → a block of their own),
// write_checkpoint's FiniteElementFunction attributes become point / cell / field data, and the
// time-series writer's layout (meshio's: the temporal collection, then the mesh grid its steps XInclude).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/xdmf/xdmf.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;
namespace fs = std::filesystem;

namespace {

// Legacy DOLFIN's checkpoint.xdmf and no_checkpoint.xdmf from pyvista/vtk-data (tests/data/MANIFEST.tsv).
const fs::path kDataDir = meshioplusplus::testing::test_data_dir() / "xdmf";

// The unit square as two triangles (0 1 2) and (0 2 3), as DOLFINx's write_mesh lays it out.
constexpr const char* kMeshGrid = R"xml(<Grid Name="mesh" GridType="Uniform">
  <Topology TopologyType="Triangle" NumberOfElements="2" NodesPerElement="3">
    <DataItem Dimensions="2 3" NumberType="Int" Format="XML">0 1 2 0 2 3</DataItem></Topology>
  <Geometry GeometryType="XY"><DataItem Dimensions="4 2" Format="XML">0 0 1 0 1 1 0 1</DataItem></Geometry>
</Grid>)xml";

// A meshtags grid as write_meshtags writes it.
std::string meshtags(const std::string& name, const std::string& type, int per, const std::string& nodes,
                     const std::string& values, const std::string& xpointer = "/Xdmf/Domain/Grid[@Name='mesh']/Geometry") {
  const std::size_t count = static_cast<std::size_t>(std::count(values.begin(), values.end(), ' ') + 1);
  return "<Grid Name=\"" + name + "\" GridType=\"Uniform\"><xi:include xpointer=\"xpointer(" + xpointer + ")\"/>" +
         "<Topology TopologyType=\"" + type + "\" NumberOfElements=\"" + std::to_string(count) + "\" NodesPerElement=\"" +
         std::to_string(per) + "\"><DataItem Dimensions=\"" + std::to_string(count) + " " + std::to_string(per) +
         "\" NumberType=\"Int\" Format=\"XML\">" + nodes + "</DataItem></Topology>" + "<Attribute Name=\"" + name +
         "\" AttributeType=\"Scalar\" Center=\"Cell\"><DataItem Dimensions=\"" + std::to_string(count) +
         " 1\" NumberType=\"Int\" Format=\"XML\">" + values + "</DataItem></Attribute></Grid>";
}

std::string document(const std::string& grids) {
  return "<?xml version=\"1.0\"?>\n<Xdmf Version=\"3.0\" xmlns:xi=\"https://www.w3.org/2001/XInclude\"><Domain>" + grids +
         "</Domain></Xdmf>\n";
}

// <Attribute ItemType="FiniteElementFunction"> with legacy DOLFIN's four DataItems, inline.
std::string function(const std::string& name, const std::string& family, int degree, const std::string& cell,
                     const std::string& type, const std::vector<std::string>& items) {
  auto item = [](const std::string& values, const char* number_type) {
    const std::size_t count = static_cast<std::size_t>(std::count(values.begin(), values.end(), ' ') + 1);
    return "<DataItem Dimensions=\"" + std::to_string(count) + " 1\" NumberType=\"" + number_type + "\" Format=\"XML\">" +
           values + "</DataItem>";
  };
  return "<Attribute ItemType=\"FiniteElementFunction\" ElementFamily=\"" + family + "\" ElementDegree=\"" +
         std::to_string(degree) + "\" ElementCell=\"" + cell + "\" Name=\"" + name + "\" Center=\"Other\" AttributeType=\"" +
         type + "\">" + item(items[0], "UInt") + item(items[1], "Float") + item(items[2], "UInt") + item(items[3], "UInt") +
         "</Attribute>";
}

std::vector<double> doubles(const NDArray& array) {
  const NDArray wide = array.astype(DType::float64);
  return {wide.values<double>().begin(), wide.values<double>().end()};
}

}  // namespace

TEST(XdmfDolfin, MeshtagsBecomeRegionsOfOneMesh) {
  ScratchDir dir;
  const std::string path = dir.write(
      "tags.xdmf",
      document(std::string(kMeshGrid) +
               // every cell, listed in another order and with rotated nodes
               meshtags("cell_tags", "Triangle", 3, "2 3 0 1 2 0", "20 10") +
               // one cell only: the others read 0
               meshtags("materials", "Triangle", 3, "0 3 2", "7", "/Xdmf/Domain/Grid/Geometry") +
               // boundary facets and the interior diagonal (two sides)
               meshtags("facet_tags", "PolyLine", 2, "0 1 2 3 3 0 2 0", "1 2 1 9") +
               // vertices are no facets: a block of their own
               meshtags("vertex_tags", "Polyvertex", 1, "1 3", "5 5")));
  const Mesh mesh = read(path);
  EXPECT_EQ(mesh.points.shape(), (Shape{4, 2}));
  EXPECT_EQ(block_summary(mesh), "triangle:2;vertex:2");

  const Region* ten = find_region(mesh, "cell_tags:10", RegionKind::Cell);
  const Region* twenty = find_region(mesh, "cell_tags:20", RegionKind::Cell);
  ASSERT_NE(ten, nullptr);
  ASSERT_NE(twenty, nullptr);
  EXPECT_EQ(int_values(ten->entries), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(int_values(twenty->entries), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(ten->tag, 10);
  EXPECT_EQ(ten->dim, 2);
  const auto* cell_tags = mesh.cell_data.find("cell_tags");
  ASSERT_NE(cell_tags, nullptr);
  EXPECT_EQ(int_values((*cell_tags)[0]), (std::vector<std::int64_t>{10, 20}));
  EXPECT_EQ((*cell_tags)[0].dtype(), DType::int32) << "the tags keep their dtype";
  EXPECT_EQ(int_values((*mesh.cell_data.find("materials"))[0]), (std::vector<std::int64_t>{0, 7}));

  const Region* one = find_region(mesh, "facet_tags:1", RegionKind::Side);
  const Region* two = find_region(mesh, "facet_tags:2", RegionKind::Side);
  const Region* nine = find_region(mesh, "facet_tags:9", RegionKind::Side);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  ASSERT_NE(nine, nullptr);
  EXPECT_EQ(int_values(one->entries), (std::vector<std::int64_t>{0, 0, 1, 2}));  // (0,1) of cell 0, (3,0) of cell 1
  EXPECT_EQ(int_values(two->entries), (std::vector<std::int64_t>{1, 1}));        // (2,3) of cell 1
  EXPECT_EQ(int_values(nine->entries), (std::vector<std::int64_t>{0, 2, 1, 0}));  // the diagonal, both sides
  EXPECT_EQ(one->dim, 1);
  EXPECT_EQ(mesh.cell_data.find("facet_tags"), nullptr) << "facets have no block to carry cell data";

  const Region* five = find_region(mesh, "vertex_tags:5", RegionKind::Cell);
  ASSERT_NE(five, nullptr);
  EXPECT_EQ(int_values(five->entries), (std::vector<std::int64_t>{2, 3})) << "the vertex block's cells";
  EXPECT_EQ(int_values((*mesh.cell_data.find("vertex_tags"))[1]), (std::vector<std::int64_t>{5, 5}));
  EXPECT_NO_THROW(validate(mesh));
}

TEST(XdmfDolfin, MeshtagsThatAreNoFacetsStayABlock) {
  ScratchDir dir;
  // (1 3) is no edge of the two triangles: the tags are kept as lines with a Cell region.
  const Mesh mesh = read(dir.write("loose.xdmf", document(std::string(kMeshGrid) + meshtags("loose", "PolyLine", 2, "1 3", "4"))));
  EXPECT_EQ(block_summary(mesh), "triangle:2;line:1");
  const Region* four = find_region(mesh, "loose:4", RegionKind::Cell);
  ASSERT_NE(four, nullptr);
  EXPECT_EQ(int_values(four->entries), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(find_region(mesh, "loose:4", RegionKind::Side), nullptr);
}

TEST(XdmfDolfin, TimeSeriesMeshCarriesTheMeshtagsRegions) {
  ScratchDir dir;
  const std::string step = R"xml(<Grid Name="T" GridType="Uniform">
  <xi:include xpointer="xpointer(/Xdmf/Domain/Grid[@GridType='Uniform'][@Name='mesh']/*[self::Topology or self::Geometry])"/>
  <Time Value="0.5"/><Attribute Name="T" AttributeType="Scalar" Center="Node"><DataItem Dimensions="4 1" Format="XML">1 2 3 4</DataItem></Attribute></Grid>)xml";
  const std::string path = dir.write(
      "series.xdmf", document(std::string(kMeshGrid) + meshtags("facet_tags", "PolyLine", 2, "0 1", "3") +
                              "<Grid Name=\"T\" GridType=\"Collection\" CollectionType=\"Temporal\">" + step + "</Grid>"));
  auto series = open_time_series(path);
  const Mesh mesh = series->read_mesh();
  EXPECT_EQ(block_summary(mesh), "triangle:2");
  const Region* three = find_region(mesh, "facet_tags:3", RegionKind::Side);
  ASSERT_NE(three, nullptr);
  EXPECT_EQ(int_values(three->entries), (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(doubles(*series->read_step(0).point_data.find("T")), (std::vector<double>{1, 2, 3, 4}));
}

// Two triangles (0 1 2), (0 2 3). CG1 dofs are numbered 1 0 2 ... away from the nodes: node n
// has dof (3, 0, 2, 1)[n] and the value 1.5 n.
std::string checkpoint_step(double time, double scale) {
  auto numbers = [&](std::vector<double> values) {
    std::string text;
    for (double value : values) text += (text.empty() ? "" : " ") + std::to_string(value * scale);
    return text;
  };
  return "<Grid Name=\"u_" + std::to_string(static_cast<int>(time)) + "\" GridType=\"Uniform\">" +
         R"xml(<Topology TopologyType="Triangle" NumberOfElements="2" NodesPerElement="3"><DataItem Dimensions="2 3" NumberType="UInt" Format="XML">0 1 2 0 2 3</DataItem></Topology>
<Geometry GeometryType="XY"><DataItem Dimensions="4 2" Format="XML">0 0 1 0 1 1 0 1</DataItem></Geometry>)xml" +
         "<Time Value=\"" + std::to_string(time) + "\"/>" +
         function("u", "CG", 1, "triangle", "Scalar", {"3 0 2 3 2 1", numbers({1.5, 4.5, 3, 0}), "0 3 6", "0 1"}) +
         // a 2-D vector: dof 2n + c holds 10 n + c; each cell's dofs component-major
         function("v", "CG", 1, "triangle", "Vector",
                  {"0 2 4 1 3 5 0 4 6 1 5 7", numbers({0, 1, 10, 11, 20, 21, 30, 31}), "0 6 12", "0 1"}) +
         function("p", "DG", 0, "triangle", "Scalar", {"1 0", numbers({7, 8}), "0 1 2", "0 1"}) +
         function("w", "CG", 2, "triangle", "Scalar", {"0 1 2 3 4 5 0 2 6 7 8 5", "0 1 2 3 4 5 6 7 8", "0 6 12", "0 1"}) +
         "</Grid>";
}

TEST(XdmfDolfin, CheckpointFunctionsBecomePointCellAndFieldData) {
  ScratchDir dir;
  const std::string path = dir.write(
      "checkpoint.xdmf", document("<Grid GridType=\"Collection\" CollectionType=\"Temporal\" Name=\"u\">" +
                                  checkpoint_step(0, 1) + checkpoint_step(1, 2) + "</Grid>"));
  const Mesh mesh = read(path);
  EXPECT_EQ(block_summary(mesh), "triangle:2");
  const NDArray* u = mesh.point_data.find("u");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->shape(), (Shape{4, 1}));
  EXPECT_EQ(doubles(*u), (std::vector<double>{0, 1.5, 3, 4.5})) << "values follow the dofmap to the nodes";
  const NDArray* v = mesh.point_data.find("v");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->shape(), (Shape{4, 3})) << "vectors padded to 3 components, as VTK does";
  EXPECT_EQ(doubles(*v), (std::vector<double>{0, 1, 0, 10, 11, 0, 20, 21, 0, 30, 31, 0}));
  const auto* p = mesh.cell_data.find("p");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(doubles((*p)[0]), (std::vector<double>{8, 7}));
  // CG2 stays a dof map with its values.
  EXPECT_EQ(mesh.point_data.find("w"), nullptr);
  for (const char* key : {"w:vector", "w:cell_dofs", "w:x_cell_dofs", "w:cells"}) EXPECT_TRUE(mesh.field_data.contains(key)) << key;
  EXPECT_EQ(int_values(*mesh.field_data.find("w:x_cell_dofs")), (std::vector<std::int64_t>{0, 6, 12}));
  const auto* element = mesh.string_field_data.find("w:element");
  ASSERT_NE(element, nullptr);
  EXPECT_EQ(*element, (std::vector<std::string>{"CG", "2", "triangle", "Scalar"}));

  auto series = open_time_series(path);
  ASSERT_EQ(series->num_steps(), 2u);
  EXPECT_EQ(block_summary(series->read_mesh()), "triangle:2");
  const TimeStep second = series->read_step(1);
  EXPECT_DOUBLE_EQ(second.time, 1.0);
  EXPECT_EQ(doubles(*second.point_data.find("u")), (std::vector<double>{0, 3, 6, 9}));
  EXPECT_EQ(doubles((*second.cell_data.find("p"))[0]), (std::vector<double>{16, 14}));
}

TEST(XdmfDolfin, CheckpointQuadrilateralDofsFollowDolfinsVertexOrder) {
  // DOLFIN numbers a quadrilateral's vertices (0,0) (1,0) (0,1) (1,1); the Topology lists them
  // in VTK's order (0,0) (1,0) (1,1) (0,1). Node n's value is 2 n.
  ScratchDir dir;
  const std::string path = dir.write("quad.xdmf", document(R"xml(<Grid Name="q" GridType="Uniform">
<Topology TopologyType="Quadrilateral" NumberOfElements="1" NodesPerElement="4"><DataItem Dimensions="1 4" NumberType="UInt" Format="XML">0 1 2 3</DataItem></Topology>
<Geometry GeometryType="XY"><DataItem Dimensions="4 2" Format="XML">0 0 1 0 1 1 0 1</DataItem></Geometry>)xml" +
                                                           function("q", "Q", 1, "quadrilateral", "Scalar", {"0 1 3 2", "0 2 4 6", "0 4", "0"}) +
                                                           "</Grid>"));
  EXPECT_EQ(doubles(*read(path).point_data.find("q")), (std::vector<double>{0, 2, 4, 6}));
}

TEST(XdmfDolfin, BrokenCheckpointFunctionsAreReadErrors) {
  ScratchDir dir;
  auto file = [&](const std::string& name, const std::string& attribute) {
    return dir.write(name, document(R"xml(<Grid Name="g" GridType="Uniform">
<Topology TopologyType="Triangle" NumberOfElements="1" NodesPerElement="3"><DataItem Dimensions="1 3" NumberType="UInt" Format="XML">0 1 2</DataItem></Topology>
<Geometry GeometryType="XY"><DataItem Dimensions="3 2" Format="XML">0 0 1 0 0 1</DataItem></Geometry>)xml" +
                                    attribute + "</Grid>"));
  };
  const std::string three = file("three.xdmf", R"xml(<Attribute ItemType="FiniteElementFunction" ElementFamily="CG" ElementDegree="1" ElementCell="triangle" Name="u" Center="Other">
<DataItem Dimensions="3" Format="XML">0 1 2</DataItem><DataItem Dimensions="3" Format="XML">0 1 2</DataItem><DataItem Dimensions="2" Format="XML">0 3</DataItem></Attribute>)xml");
  EXPECT_NE(std::string(expect_read_error([&] { read(three); }).what()).find("3 <DataItem>s"), std::string::npos);
  const std::string outside = file("outside.xdmf", function("u", "CG", 1, "triangle", "Scalar", {"0 1 7", "1 2 3", "0 3", "0"}));
  EXPECT_NE(std::string(expect_read_error([&] { read(outside); }).what()).find("dof 7"), std::string::npos);
  const std::string offsets = file("offsets.xdmf", function("u", "CG", 1, "triangle", "Scalar", {"0 1 2", "1 2 3", "0 4", "0"}));
  EXPECT_NE(std::string(expect_read_error([&] { read(offsets); }).what()).find("x_cell_dofs"), std::string::npos);
}

TEST(XdmfDolfin, TimeSeriesWriterPutsTheMeshInTheFirstStep) {
  ScratchDir dir;
  const std::string path = dir.file("series.xdmf");
  WriteOptions options;
  options.set("data_format", "XML");
  {
    auto writer = create_time_series(path, "", options);
    Mesh mesh;
    mesh.points = array_of<double>({3, 2}, {0, 0, 1, 0, 0, 1});
    mesh.cells = {CellBlock{"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}}};
    writer->write_mesh(mesh);
    for (int k = 0; k < 2; ++k) {
      TimeStep step;
      step.time = k;
      step.point_data.set("phi", array_of<double>({3}, {1.0 * k, 2.0 * k, 3.0 * k}));
      writer->write_step(step);
    }
    writer->close();
  }
  const std::string xml = read_file(path);
  // meshio's layout: the collection first (VTK's readers show it, with the data, as block 0),
  // each step XIncluding the mesh grid that follows it as the Domain's last grid.
  EXPECT_NE(xml.find("<Domain><Grid Name=\"TimeSeries_meshio\" GridType=\"Collection\" CollectionType=\"Temporal\"><Grid GridType=\"Uniform\"><xi:include"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("<Geometry", xml.find("<Geometry") + 1), std::string::npos) << "one Geometry, XIncluded by every step";
  const std::size_t mesh_grid = xml.find("<Grid Name=\"mesh\" GridType=\"Uniform\"><Geometry");
  ASSERT_NE(mesh_grid, std::string::npos) << xml;
  EXPECT_GT(mesh_grid, xml.find("</Time>") == std::string::npos ? xml.rfind("<Time") : xml.rfind("<Time"));
  EXPECT_EQ(xml.rfind("</Grid></Domain>"), xml.size() - std::string("</Grid></Domain></Xdmf>\n").size());
  auto series = open_time_series(path);
  ASSERT_EQ(series->num_steps(), 2u);
  EXPECT_EQ(block_summary(series->read_mesh()), "triangle:1");
  EXPECT_EQ(doubles(*series->read_step(1).point_data.find("phi")), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(doubles(*read(path).point_data.find("phi")), (std::vector<double>{0, 0, 0}));
}

TEST(XdmfDolfin, RealCheckpointMapsToTheValuesDolfinWritesForViewing) {
  // The same function written by write_checkpoint (dof map + dof values) and by write(u, t)
  // (values at the nodes): mapped through the dof map, the first gives the second, every step.
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5";
  ASSERT_TRUE(fs::exists(kDataDir / "checkpoint.h5")) << kDataDir << ": checkpoint.* missing (tests/data/MANIFEST.tsv)";
  auto checkpoint = open_time_series((kDataDir / "checkpoint.xdmf").string());
  auto viewing = open_time_series((kDataDir / "no_checkpoint.xdmf").string());
  ASSERT_EQ(checkpoint->num_steps(), 5u);
  ASSERT_EQ(viewing->num_steps(), 5u);
  const Mesh mesh = checkpoint->read_mesh();
  EXPECT_EQ(block_summary(mesh), "tetra:3072");
  EXPECT_TRUE(same_bits(mesh.points, viewing->read_mesh().points));
  for (std::size_t k = 0; k < 5; ++k) {
    const TimeStep ours = checkpoint->read_step(k), theirs = viewing->read_step(k);
    EXPECT_DOUBLE_EQ(ours.time, theirs.time);
    const NDArray* mapped = ours.point_data.find("label_u");
    ASSERT_NE(mapped, nullptr);
    EXPECT_EQ(mapped->shape(), (Shape{729, 1}));
    EXPECT_EQ(doubles(*mapped), doubles(*theirs.point_data.find("f_5"))) << "step " << k;
  }
  EXPECT_EQ(doubles(*read((kDataDir / "checkpoint.xdmf").string()).point_data.find("label_u")),
            doubles(*viewing->read_step(0).point_data.find("f_5")));
}
