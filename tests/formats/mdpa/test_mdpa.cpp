// MDPA reader and writer: a Kratos-style file with properties, tables, conditions, nodal,
// elemental and conditional data and nested SubModelParts; meshio-style files; entity name
// resolution; round trips of every writable type; malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/mdpa/mdpa.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::vector<std::int64_t> entries(const Region* region) {
  if (region == nullptr) return {};
  auto values = region->entries.values<std::int64_t>();
  return {values.begin(), values.end()};
}

std::vector<std::int64_t> row(const CellBlock& block, std::int64_t r) {
  const std::int64_t width = block.connectivity.row_width();
  const std::int64_t* data = block.connectivity.data_as<std::int64_t>() + r * width;
  return {data, data + width};
}

const char* const kKratos =
    "Begin ModelPartData\n"
    "//  VARIABLE_NAME value\n"
    "End ModelPartData\n"
    "\n"
    "Begin Properties 1\n"
    "    DENSITY 7850.0\n"
    "    Begin Table TEMPERATURE YOUNG_MODULUS\n"
    "        0.0 2e11\n"
    "    End Table\n"
    "End Properties\n"
    "\n"
    "Begin Nodes\n"
    "   10   0.0 0.0 0.0   // origin\n"
    "   20   1.0 0.0 0.0\n"
    "   30   1.0 1.0 0.0\n"
    "   40   0.0 1.0 0.0\n"
    "   50   0.5 0.5 1.0\n"
    "End Nodes\n"
    "\n"
    "Begin Elements SmallDisplacementElement3D4N// tets\n"
    "   1  1  10 20 30 50\n"
    "   2  1  10 30 40 50\n"
    "End Elements\n"
    "\n"
    "Begin Conditions SurfaceLoadCondition3D4N\n"
    "   7  0  10 20 30 40\n"
    "End Conditions\n"
    "\n"
    "Begin Conditions LineLoadCondition3D2N\n"
    "   8  0  10 20\n"
    "   9  0  20 30\n"
    "End Conditions\n"
    "\n"
    "Begin NodalData DISPLACEMENT_X\n"
    "   10 1 0.0\n"
    "   50 0 0.25\n"
    "End NodalData\n"
    "\n"
    "Begin NodalData VELOCITY\n"
    "   20 0 [3] (1.0, 2.0, 3.0)\n"
    "End NodalData\n"
    "\n"
    "Begin ElementalData TEMPERATURE\n"
    "   2 300.5\n"
    "End ElementalData\n"
    "\n"
    "Begin ConditionalData TEMPERATURE\n"
    "   9 12\n"
    "End ConditionalData\n"
    "\n"
    "Begin SubModelPart Parts_Solid\n"
    "    Begin SubModelPartData\n"
    "    End SubModelPartData\n"
    "    Begin SubModelPartTables\n"
    "    End SubModelPartTables\n"
    "    Begin SubModelPartNodes\n"
    "        10\n"
    "        50\n"
    "    End SubModelPartNodes\n"
    "    Begin SubModelPartElements\n"
    "        2\n"
    "    End SubModelPartElements\n"
    "    Begin SubModelPartConditions\n"
    "    End SubModelPartConditions\n"
    "    Begin SubModelPart Top\n"
    "        Begin SubModelPartConditions\n"
    "            7 9\n"
    "        End SubModelPartConditions\n"
    "    End SubModelPart\n"
    "End SubModelPart\n";

Mesh every_type_mesh() {
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {27, 3});
  double* p = mesh.points.data_as<double>();
  for (int i = 0; i < 81; ++i) p[i] = 0.1 * i + 1.0 / 3.0;
  p[0] = 1e-300;
  p[1] = -0.0;
  p[2] = 5e300;
  const auto block = [&](const std::string& type) {
    const int n = cell_type(type).num_nodes;
    std::vector<std::int64_t> nodes(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) nodes[static_cast<std::size_t>(k)] = (k * 7 + n) % 27;
    mesh.cells.push_back({type, int64_matrix(1, n, nodes), {}, {}});
  };
  for (const char* type : {"vertex", "line", "line3", "triangle", "triangle6", "quad", "quad8", "quad9", "tetra",
                           "tetra10", "pyramid", "wedge", "wedge15", "hexahedron", "hexahedron20", "hexahedron27"})
    block(type);
  std::vector<NDArray> properties, temperature;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    properties.push_back(int64_vector({static_cast<std::int64_t>(b % 3)}));
    NDArray t = NDArray::allocate(DType::float64, {1, 2});
    t.data_as<double>()[0] = 0.1 * static_cast<double>(b);
    t.data_as<double>()[1] = b == 3 ? std::nan("") : 2.5;
    temperature.push_back(t);
  }
  mesh.cell_data.set("mdpa:property", std::move(properties));
  mesh.cell_data.set("STRESS", std::move(temperature));
  NDArray pressure = NDArray::allocate(DType::float64, {27});
  for (int i = 0; i < 27; ++i) pressure.data_as<double>()[i] = i == 5 ? std::nan("") : 1.0 / (i + 1);
  mesh.point_data.set("PRESSURE", std::move(pressure));
  Region nodes;
  nodes.name = "Inlet";
  nodes.kind = RegionKind::Point;
  nodes.entries = int64_vector({0, 26, 3});
  mesh.regions.push_back(nodes);
  mesh.regions.push_back(cell_region("Inlet", 3, -1, {0, 2, 15}));
  mesh.regions.push_back(cell_region("Inlet.Wall", 2, -1, {4}));
  return mesh;
}

}  // namespace

TEST(MdpaRead, KratosFileWithDataConditionsAndSubModelParts) {
  const Mesh mesh = mdpa::read(write_scratch("kratos.mdpa", kKratos));
  ASSERT_EQ(mesh.num_points(), 5);
  EXPECT_EQ(mesh.points.shape(), (Shape{5, 3}));
  EXPECT_EQ(block_summary(mesh), "tetra:2;quad:1;line:2");
  EXPECT_EQ(row(mesh.cells[0], 1), (std::vector<std::int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(row(mesh.cells[1], 0), (std::vector<std::int64_t>{0, 1, 2, 3}));
  const auto* property = mesh.cell_data.find("mdpa:property");
  ASSERT_NE(property, nullptr);
  EXPECT_EQ((*property)[0].data_as<std::int64_t>()[0], 1);
  EXPECT_EQ((*property)[2].data_as<std::int64_t>()[1], 0);
  const NDArray* dx = mesh.point_data.find("DISPLACEMENT_X");
  ASSERT_NE(dx, nullptr);
  EXPECT_EQ(dx->shape(), (Shape{5}));
  EXPECT_EQ(dx->data_as<double>()[4], 0.25);
  EXPECT_TRUE(std::isnan(dx->data_as<double>()[1]));
  const NDArray* velocity = mesh.point_data.find("VELOCITY");
  ASSERT_NE(velocity, nullptr);
  EXPECT_EQ(velocity->shape(), (Shape{5, 3}));
  EXPECT_EQ(velocity->data_as<double>()[5], 3.0);
  const auto* temperature = mesh.cell_data.find("TEMPERATURE");
  ASSERT_NE(temperature, nullptr);
  EXPECT_EQ((*temperature)[0].data_as<double>()[1], 300.5);
  EXPECT_TRUE(std::isnan((*temperature)[0].data_as<double>()[0]));
  EXPECT_EQ((*temperature)[2].data_as<double>()[1], 12.0);
  EXPECT_EQ(entries(find_region(mesh, "Parts_Solid", RegionKind::Point)), (std::vector<std::int64_t>{0, 4}));
  EXPECT_EQ(entries(find_region(mesh, "Parts_Solid", RegionKind::Cell)), (std::vector<std::int64_t>{1}));
  const Region* top = find_region(mesh, "Parts_Solid.Top", RegionKind::Cell);
  EXPECT_EQ(entries(top), (std::vector<std::int64_t>{2, 4}));
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->dim, 2);
  EXPECT_EQ(find_region(mesh, "Parts_Solid.Top", RegionKind::Point), nullptr);
}

TEST(MdpaRead, MeshioStyleFileAndGeometryNames) {
  const std::string text =
      "Begin ModelPartData\n//  VARIABLE_NAME value\nEnd ModelPartData\n\n"
      "Begin Properties 0\nEnd Properties\n\n"
      "Begin Nodes\n 1 0.0000000000000000e+00 0.0000000000000000e+00 0.0000000000000000e+00\n"
      " 2 1.0000000000000000e+00 0.0000000000000000e+00 0.0000000000000000e+00\n"
      " 3 0.0000000000000000e+00 1.0000000000000000e+00 0.0000000000000000e+00\n"
      " 4 1.0000000000000000e+00 1.0000000000000000e+00 0.0000000000000000e+00\nEnd Nodes\n\n"
      "Begin Elements Triangle2D3\n 1 0  1 2 3\nEnd Elements\n\n"
      "Begin Elements Quadrilateral2D4\n 2 0  1 2 4 3\nEnd Elements\n\n"
      "Begin Elements Line2D2\n 3 0  1 2\nEnd Elements\n\n";
  const Mesh mesh = mdpa::read(write_scratch("meshio.mdpa", text));
  EXPECT_EQ(block_summary(mesh), "triangle:1;quad:1;line:1");
}

TEST(MdpaRead, EntityNamesByDimensionAndNodeCount) {
  const std::string nodes = [] {
    std::string text = "Begin Nodes\n";
    for (int i = 1; i <= 27; ++i) text += std::to_string(i) + " " + std::to_string(i) + " 0 0\n";
    return text + "End Nodes\n";
  }();
  const auto type_of = [&](const std::string& entity, const std::string& name, int n) {
    std::string text = nodes + "Begin " + entity + " " + name + "\n1 0";
    for (int k = 1; k <= n; ++k) text += " " + std::to_string(k);
    text += "\nEnd " + entity + "\n";
    return mdpa::read(write_scratch("names.mdpa", text)).cells.at(0).type;
  };
  EXPECT_EQ(type_of("Elements", "Element2D3N", 3), "triangle");
  EXPECT_EQ(type_of("Elements", "Element3D4N", 4), "tetra");
  EXPECT_EQ(type_of("Elements", "ShellThickElementCorotational3D4N", 4), "quad");
  EXPECT_EQ(type_of("Elements", "Element3D10N", 10), "tetra10");
  EXPECT_EQ(type_of("Elements", "Element3D15N", 15), "wedge15");
  EXPECT_EQ(type_of("Elements", "Element3D27N", 27), "hexahedron27");
  EXPECT_EQ(type_of("Conditions", "LineCondition2D3N", 3), "line3");
  EXPECT_EQ(type_of("Conditions", "SurfaceCondition3D3N", 3), "triangle");
  EXPECT_EQ(type_of("Conditions", "SurfaceCondition3D8N", 8), "quad8");
  EXPECT_EQ(type_of("Conditions", "PointLoadCondition3D1N", 1), "vertex");
  EXPECT_EQ(type_of("Elements", "Hexahedra3D20", 20), "hexahedron20");
  EXPECT_EQ(type_of("Elements", "MyCustomThing", 8), "hexahedron");  // node count only
}

TEST(MdpaRead, SecondOrderHexahedronIsReordered) {
  std::string text = "Begin Nodes\n";
  for (int i = 1; i <= 20; ++i) text += std::to_string(i) + " 0 0 0\n";
  text += "End Nodes\nBegin Elements Element3D20N\n1 0";
  for (int k = 1; k <= 20; ++k) text += " " + std::to_string(k);
  text += "\nEnd Elements\n";
  const Mesh mesh = mdpa::read(write_scratch("hex20.mdpa", text));
  EXPECT_EQ(row(mesh.cells[0], 0), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 10, 9, 16, 19, 18, 17, 12,
                                                              13, 14, 15}));
}

TEST(MdpaRoundTrip, EveryTypeWithDataAndSubModelParts) {
  const Mesh mesh = every_type_mesh();
  const std::string path = scratch("round.mdpa").string();
  mdpa::write(path, mesh, {});
  const Mesh back = mdpa::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_TRUE(same_bits(back.cells[b].connectivity, mesh.cells[b].connectivity)) << mesh.cells[b].type;
    EXPECT_TRUE(same_bits((*back.cell_data.find("mdpa:property"))[b], (*mesh.cell_data.find("mdpa:property"))[b]));
    const NDArray& stress = (*back.cell_data.find("STRESS"))[b];
    const NDArray& expected = (*mesh.cell_data.find("STRESS"))[b];
    ASSERT_EQ(stress.shape(), expected.shape());
    EXPECT_EQ(stress.data_as<double>()[0], expected.data_as<double>()[0]);
  }
  // A row with a value is written whole, NaN included; an all-NaN row is left out.
  EXPECT_TRUE(std::isnan((*back.cell_data.find("STRESS"))[3].data_as<double>()[1]));
  EXPECT_TRUE(same_bits(*back.point_data.find("PRESSURE"), *mesh.point_data.find("PRESSURE")));
  EXPECT_EQ(entries(find_region(back, "Inlet", RegionKind::Point)), (std::vector<std::int64_t>{0, 26, 3}));
  EXPECT_EQ(entries(find_region(back, "Inlet", RegionKind::Cell)), (std::vector<std::int64_t>{0, 2, 15}));
  EXPECT_EQ(entries(find_region(back, "Inlet.Wall", RegionKind::Cell)), (std::vector<std::int64_t>{4}));
}

TEST(MdpaWrite, ConditionsForLowerDimensionsAndGeometryComments) {
  Mesh mesh;
  mesh.points = NDArray::zeros(DType::float64, {4, 2});
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 1}), {}, {}});
  const std::string path = scratch("flat.mdpa").string();
  mdpa::write(path, mesh, {});
  const std::string text = read_file(path);
  EXPECT_NE(text.find("Begin Elements Element2D3N // Triangle2D3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Begin Conditions LineCondition2D2N // Line2D2\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" 1 0 0 0\n"), std::string::npos) << text;  // z padded
  const Mesh back = mdpa::read(path);
  EXPECT_EQ(block_summary(back), "triangle:1;line:1");
  EXPECT_EQ(back.points.shape(), (Shape{4, 3}));
  mesh.cells.push_back({"polygon", int64_vector({0, 1, 2, 3}), int64_vector({0, 4}), {}});
  EXPECT_THROW(mdpa::write(path, mesh, {}), std::invalid_argument);
}

// ---- malformed input ----

TEST(MdpaBadInput, UnknownNodeNamesLineAndOffset) {
  const std::string text = "Begin Nodes\n1 0 0 0\n2 1 0 0\nEnd Nodes\nBegin Elements Element2D2N\n1 0 1 7\nEnd Elements\n";
  const ReadError error = expect_read_error([&] { mdpa::read(write_scratch("bad.mdpa", text)); });
  EXPECT_NE(std::string(error.what()).find("node 7 is not defined"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 6u);
  EXPECT_EQ(error.byte_offset(), text.find("1 0 1 7") + 6);
}

TEST(MdpaBadInput, BadNumber) {
  const ReadError error = expect_read_error([] { mdpa::read(write_scratch("bad.mdpa", "Begin Nodes\n1 0 x 0\nEnd Nodes\n")); });
  EXPECT_NE(std::string(error.what()).find("invalid number 'x'"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 2u);
}

TEST(MdpaBadInput, WrongValueCount) {
  const ReadError error = expect_read_error([] {
    mdpa::read(write_scratch("bad.mdpa", "Begin Nodes\n1 0 0 0\n2 1 0\nEnd Nodes\n"));
  });
  EXPECT_NE(std::string(error.what()).find("4 values per node"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 1u);
}

TEST(MdpaBadInput, UnclosedAndMismatchedBlocks) {
  const ReadError open = expect_read_error([] { mdpa::read(write_scratch("open.mdpa", "Begin Nodes\n1 0 0 0\n")); });
  EXPECT_NE(std::string(open.what()).find("never closed"), std::string::npos) << open.what();
  const ReadError mismatch = expect_read_error([] {
    mdpa::read(write_scratch("mismatch.mdpa", "Begin Nodes\n1 0 0 0\nEnd Elements\n"));
  });
  EXPECT_NE(std::string(mismatch.what()).find("does not close 'Begin Nodes'"), std::string::npos) << mismatch.what();
  EXPECT_EQ(mismatch.line(), 3u);
}

TEST(MdpaBadInput, DuplicateIdsAndUnknownMembers) {
  const ReadError twice = expect_read_error([] {
    mdpa::read(write_scratch("dup.mdpa", "Begin Nodes\n1 0 0 0\n1 1 0 0\nEnd Nodes\n"));
  });
  EXPECT_NE(std::string(twice.what()).find("node id 1 appears twice"), std::string::npos) << twice.what();
  EXPECT_EQ(twice.line(), 3u);
  const ReadError member = expect_read_error([] {
    mdpa::read(write_scratch("smp.mdpa",
                             "Begin Nodes\n1 0 0 0\n2 1 0 0\nEnd Nodes\nBegin Elements Element2D2N\n1 0 1 2\nEnd Elements\n"
                             "Begin SubModelPart A\nBegin SubModelPartElements\n5\nEnd SubModelPartElements\nEnd SubModelPart\n"));
  });
  EXPECT_NE(std::string(member.what()).find("element 5"), std::string::npos) << member.what();
  EXPECT_EQ(member.line(), 10u);
  const ReadError data = expect_read_error([] {
    mdpa::read(write_scratch("data.mdpa", "Begin Nodes\n1 0 0 0\nEnd Nodes\nBegin NodalData X\n1 0 [3] (1, 2)\nEnd NodalData\n"));
  });
  EXPECT_EQ(data.line(), 5u) << data.what();
}
