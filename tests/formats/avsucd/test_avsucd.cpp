// AVS-UCD reader and writer: a LaGriT-style sample, arbitrary ids and node-order permutations,
// multi-component node and cell data, round trips of every cell type, and malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/avsucd/avsucd.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// As LaGriT writes it: ids 1..n, a node data block with a scalar and a vector field.
const char* const kLagrit =
    "# LaGriT output\n"
    "# second comment\n"
    "    5    2    4    1    0\n"
    "0000000001  0.000000000000E+00  0.000000000000E+00  0.000000000000E+00\n"
    "0000000002  1.000000000000E+00  0.000000000000E+00  0.000000000000E+00\n"
    "0000000003  0.000000000000E+00  1.000000000000E+00  0.000000000000E+00\n"
    "0000000004  0.000000000000E+00  0.000000000000E+00  1.000000000000E+00\n"
    "0000000005  1.000000000000E+00  1.000000000000E+00  1.000000000000E+00\n"
    "0000000001   3  tet  0000000001  0000000002  0000000003  0000000004\n"
    "0000000002   7  tri  0000000002  0000000003  0000000005\n"
    "00002  1  3\n"
    "imt1, integer\n"
    "velocity, real\n"
    "0000000001  1.0  0.1 0.2 0.3\n"
    "0000000002  2.0  0.1 0.2 0.3\n"
    "0000000003  3.0  0.1 0.2 0.3\n"
    "0000000004  4.0  0.1 0.2 0.3\n"
    "0000000005  5.0  0.1 0.2 0.3\n"
    "1 1\n"
    "cell volume, m3\n"
    "1 0.5\n"
    "2 0.25\n";

}  // namespace

TEST(AvsucdRead, LagritSampleWithNodeAndCellData) {
  const Mesh mesh = avsucd::read(write_scratch("lagrit.avs", kLagrit));
  ASSERT_EQ(mesh.num_points(), 5);
  EXPECT_EQ(block_summary(mesh), "tetra:1;triangle:1");
  // AVS tet 1 2 3 4 is meshio's 0 1 3 2.
  const std::int64_t* tet = mesh.cells[0].connectivity.data_as<std::int64_t>();
  EXPECT_EQ((std::vector<std::int64_t>(tet, tet + 4)), (std::vector<std::int64_t>{0, 1, 3, 2}));
  const auto* material = mesh.cell_data.find("avsucd:material");
  ASSERT_NE(material, nullptr);
  EXPECT_EQ((*material)[0].dtype(), DType::int64);
  EXPECT_EQ((*material)[1].data_as<std::int64_t>()[0], 7);
  ASSERT_NE(mesh.point_data.find("imt1"), nullptr);
  EXPECT_EQ(mesh.point_data.find("imt1")->shape(), (Shape{5}));
  EXPECT_EQ(mesh.point_data.find("velocity")->shape(), (Shape{5, 3}));
  EXPECT_EQ(mesh.point_data.find("velocity")->data_as<double>()[14], 0.3);
  const auto* volume = mesh.cell_data.find("cell_volume");  // blank → '_', as meshio
  ASSERT_NE(volume, nullptr);
  EXPECT_EQ((*volume)[1].data_as<double>()[0], 0.25);
}

TEST(AvsucdRead, ArbitraryIdsAreMappedAndOrdersPermuted) {
  const std::string text =
      "6 3 0 0 0\n"
      "10 0 0 0\n20 1 0 0\n30 1 1 0\n40 0 1 0\n50 0.5 0.5 1\n60 2 2 2\n"
      "7 1 pyr 50 10 20 30 40\n"
      "8 2 line 10 60\n"
      "9 2 line 20 60\n";
  const Mesh mesh = avsucd::read(write_scratch("ids.avs", text));
  EXPECT_EQ(block_summary(mesh), "pyramid:1;line:2");
  const std::int64_t* pyramid = mesh.cells[0].connectivity.data_as<std::int64_t>();
  EXPECT_EQ((std::vector<std::int64_t>(pyramid, pyramid + 5)), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(mesh.cells[1].connectivity.data_as<std::int64_t>()[3], 5);
}

TEST(AvsucdRoundTrip, EveryCellTypeWithDataIsBitExact) {
  Mesh mesh;
  std::vector<double> xyz;
  for (int i = 0; i < 8; ++i)
    for (double v : {0.1 * i, 1.0 / (i + 3), -1e-300 * i}) xyz.push_back(v);
  mesh.points = array_of<double>({8, 3}, xyz);
  const std::vector<std::pair<std::string, int>> types{{"vertex", 1}, {"line", 2}, {"triangle", 3}, {"quad", 4},
                                                       {"tetra", 4},  {"pyramid", 5}, {"wedge", 6}, {"hexahedron", 8}};
  std::vector<NDArray> materials, scalars, vectors;
  for (std::size_t t = 0; t < types.size(); ++t) {
    std::vector<std::int64_t> nodes;
    for (int k = 0; k < types[t].second; ++k) nodes.push_back((k + static_cast<int>(t)) % 8);
    mesh.cells.push_back({types[t].first, int64_matrix(1, types[t].second, nodes), {}, {}});
    materials.push_back(int64_vector({static_cast<std::int64_t>(t) + 10}));
    scalars.push_back(array_of<double>({1}, {1.0 / (t + 7)}));
    vectors.push_back(array_of<double>({1, 2}, {0.5 * t, -0.25}));
  }
  mesh.cell_data.set("avsucd:material", std::move(materials));
  mesh.cell_data.set("s", std::move(scalars));
  mesh.cell_data.set("v", std::move(vectors));
  mesh.point_data.set("T", array_of<double>({8}, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0 / 3}));
  mesh.point_data.set("u", array_of<double>({8, 3}, std::vector<double>(24, 2.0 / 3)));
  const std::string path = scratch("all.avs").string();
  avsucd::write(path, mesh, {});
  const Mesh back = avsucd::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_TRUE(same_bits(back.cells[b].connectivity, mesh.cells[b].connectivity)) << mesh.cells[b].type;
    EXPECT_TRUE(same_bits((*back.cell_data.find("avsucd:material"))[b], (*mesh.cell_data.find("avsucd:material"))[b]));
    EXPECT_TRUE(same_bits((*back.cell_data.find("s"))[b], (*mesh.cell_data.find("s"))[b]));
    EXPECT_TRUE(same_bits((*back.cell_data.find("v"))[b], (*mesh.cell_data.find("v"))[b]));
  }
  EXPECT_TRUE(same_bits(*back.point_data.find("T"), *mesh.point_data.find("T")));
  EXPECT_TRUE(same_bits(*back.point_data.find("u"), *mesh.point_data.find("u")));
}

TEST(AvsucdWrite, FirstIntegerCellDataBecomesTheMaterialAndPolygonsAreRefused) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 2}, {0, 0, 1, 0, 0, 1});
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  mesh.cell_data.set("c", {array_of<double>({1}, {0.5})});
  mesh.cell_data.set("m", {array_of<std::int32_t>({1}, {42})});
  const std::string path = scratch("material.avs").string();
  avsucd::write(path, mesh, {});
  const Mesh back = avsucd::read(path);
  EXPECT_EQ(back.points.shape(), (Shape{3, 3}));
  EXPECT_EQ((*back.cell_data.find("avsucd:material"))[0].data_as<std::int64_t>()[0], 42);
  EXPECT_EQ((*back.cell_data.find("c"))[0].data_as<double>()[0], 0.5);
  EXPECT_EQ(back.cell_data.find("m"), nullptr);
  mesh.cells.push_back({"polygon", NDArray::from_values<std::int64_t>({0, 1, 2}), NDArray::from_values<std::int64_t>({0, 3}), {}});
  EXPECT_THROW(avsucd::write(path, mesh, {}), std::invalid_argument);
}

TEST(AvsucdBadInput, TruncatedNodes) {
  const ReadError e = expect_read_error([] { avsucd::read(write_scratch("t.avs", "3 0 0 0 0\n1 0.0 0.0 0.0\n2 1.0 0.0 0.0\n")); });
  EXPECT_NE(std::string(e.what()).find("node 3 of 3"), std::string::npos) << e.what();
  EXPECT_EQ(e.line(), 4u);  // the end of the file
}

TEST(AvsucdBadInput, BadNumberNamesOffsetAndLine) {
  const ReadError e = expect_read_error([] { avsucd::read(write_scratch("n.avs", "1 0 0 0 0\n1 0 0x1 0\n")); });
  EXPECT_NE(std::string(e.what()).find("invalid number"), std::string::npos) << e.what();
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.byte_offset(), 14u);
}

TEST(AvsucdBadInput, UnknownNodeId) {
  const ReadError e = expect_read_error(
      [] { avsucd::read(write_scratch("id.avs", "2 1 0 0 0\n1 0 0 0\n2 1 0 0\n1 0 line 1 3\n")); });
  EXPECT_NE(std::string(e.what()).find("node id 3"), std::string::npos) << e.what();
  EXPECT_EQ(e.line(), 4u);
  EXPECT_EQ(e.byte_offset(), 37u);
}

TEST(AvsucdBadInput, UnknownCellTypeAndWrongNodeCount) {
  const ReadError type = expect_read_error(
      [] { avsucd::read(write_scratch("ty.avs", "2 1 0 0 0\n1 0 0 0\n2 1 0 0\n1 0 poly 1 2\n")); });
  EXPECT_NE(std::string(type.what()).find("unknown cell type 'poly'"), std::string::npos) << type.what();
  const ReadError few = expect_read_error(
      [] { avsucd::read(write_scratch("few.avs", "3 1 0 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n1 0 tri 1 2\n")); });
  EXPECT_NE(std::string(few.what()).find("needs 3 nodes"), std::string::npos) << few.what();
  const ReadError many = expect_read_error(
      [] { avsucd::read(write_scratch("many.avs", "3 1 0 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n1 0 line 1 2 3\n")); });
  EXPECT_NE(std::string(many.what()).find("unexpected value"), std::string::npos) << many.what();
}

TEST(AvsucdBadInput, DataComponentsDisagreeWithHeader) {
  const ReadError e = expect_read_error(
      [] { avsucd::read(write_scratch("c.avs", "1 0 2 0 0\n1 0 0 0\n1 1\nT, real\n1 5\n")); });
  EXPECT_NE(std::string(e.what()).find("the header says 2"), std::string::npos) << e.what();
  EXPECT_EQ(e.line(), 3u);
}

TEST(AvsucdBadInput, HugeCountsAndDuplicateIds) {
  const ReadError huge = expect_read_error([] { avsucd::read(write_scratch("h.avs", "99999999999 0 0 0 0\n")); });
  EXPECT_NE(std::string(huge.what()).find("more than the rest of the file"), std::string::npos) << huge.what();
  const ReadError dup = expect_read_error([] { avsucd::read(write_scratch("d.avs", "2 0 0 0 0\n5 0 0 0\n5 1 0 0\n")); });
  EXPECT_NE(std::string(dup.what()).find("appears twice"), std::string::npos) << dup.what();
  EXPECT_EQ(dup.line(), 3u);
}

// ---- hostile input (issue 18; tests/data/fuzz-regressions/avsucd/) ----

// Node ids at the ends of int64: the id map's contiguity test computed `first + i` in signed
// arithmetic (overflow on INT64_MAX). The ids are legal, if odd: they read, in file order.
TEST(AvsucdHostile, NodeIdsAtTheInt64LimitsRead) {
  const std::string path = write_scratch("limits.avs",
                                         "3 1 0 0 0\n"
                                         "9223372036854775807 0 0 0\n"
                                         "-9223372036854775808 1 0 0\n"
                                         "0 0 1 0\n"
                                         "1 0 tri 9223372036854775807 -9223372036854775808 0\n");
  const Mesh mesh = avsucd::read(path);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
}
