// Femap neutral file reader and writer: a deck as the Femap Neutral File reference lays the
// blocks out (header, properties with their counted lists, nodes with D exponents, elements
// of several topologies with a node list, an unknown block, an output set with nodal and
// elemental vectors in 451 and 1051 form), round trips of every writable cell type bit for
// bit, the Gambit refusal and malformed input with its line. No redistributable file written
// by Femap itself was found (docs/formats.md); tests/formats/femap/test_femap_interop.py
// cross-checks our files with meshio++ 17.21.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/femap/femap.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

const char* const kDeck =
    "   -1\n"
    "   100\n"
    "<NULL>\n"
    "8.2,\n"
    "   -1\n"
    "   -1\n"
    "   402\n"
    "7,110,1,25,1,0,\n"
    "Solid steel\n"
    "0,0,0,0,\n"
    "2,\n"
    "0,0,\n"
    "6,\n"
    "1.,2.,3.,4.,5.,\n"
    "6.,\n"
    "0,\n"
    "8,110,1,17,1,0,\n"
    "<NULL>\n"
    "0,0,0,0,\n"
    "0,\n"
    "0,\n"
    "   -1\n"
    "   -1\n"
    "   403\n"
    "10,0,0,1,46,0,0,0,0,0,0,0.,0.,0.,\n"
    "20,0,0,1,46,0,0,0,0,0,0,1.D+00,0.,0.,\n"
    "30,0,0,1,46,0,0,0,0,0,0,0.,1.0,0.,\n"
    "40,0,0,1,46,0,0,0,0,0,0,0.,0.,1.5E+0,\n"
    "50,0,0,1,46,0,0,0,0,0,0,1.,1.,0.,\n"
    "   -1\n"
    "   -1\n"
    "   999\n"
    "anything at all\n"
    "   -1\n"
    "   -1\n"
    "   404\n"
    "1,124,7,25,6,1,0,0,0,0,0,0,0,\n"
    "10,20,30,0,40,0,0,0,0,0,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "0.,0.,0.,\n0.,0.,0.,\n0.,0.,0.,\n"
    "0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,\n"
    "10,0,0.,0,0,0,0,0,0,\n"
    "-1,0,0.,0,0,0,0,0,0,\n"
    "2,124,8,17,4,1,0,0,\n"
    "10,20,50,30,0,0,0,0,0,0,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "0.,0.,0.,\n0.,0.,0.,\n0.,0.,0.,\n"
    "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
    "3,124,8,5,13,1,0,0,\n"
    "10,20,0,0,0,0,0,0,0,0,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "0.,0.,0.,\n0.,0.,0.,\n0.,0.,0.,\n"
    "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
    "4,124,7,25,6,1,0,0,\n"
    "20,50,30,0,40,0,0,0,0,0,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "0.,0.,0.,\n0.,0.,0.,\n0.,0.,0.,\n"
    "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
    "   -1\n"
    "   -1\n"
    "   450\n"
    "3,\n"
    "Static case\n"
    "0,1,\n"
    "2.5,\n"
    "1,\n"
    "a note\n"
    "5,\n"
    "Second case\n"
    "0,1,\n"
    "0.,\n"
    "0,\n"
    "   -1\n"
    "   -1\n"
    "   451\n"
    "3,1,1,\n"
    "Total Translation\n"
    "0.,4.,4.,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "10,50,1,7,\n"
    "0,1,1,\n"
    "10,0.,\n"
    "20,1.5D-1,\n"
    "50,4.,\n"
    "-1,0.,\n"
    "5,1,1,\n"
    "Total Translation\n"
    "0.,4.,4.,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "10,50,1,7,\n"
    "0,1,1,\n"
    "10,9.,\n"
    "-1,0.,\n"
    "   -1\n"
    "   -1\n"
    "  1051\n"
    "3,2,1,\n"
    "Plate Stress\n"
    "0.,4.,4.,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "0,0,0,0,0,0,0,0,0,0,\n"
    "1,4,4,8,\n"
    "0,1,1,\n"
    "1,2,11.,12.,\n"
    "4,14.,\n"
    "-1,0.,\n"
    "   -1\n";

std::vector<std::int64_t> row(const CellBlock& block, std::int64_t cell) {
  const std::int64_t n = block.connectivity.row_width();
  const std::int64_t* data = block.connectivity.data_as<std::int64_t>() + cell * n;
  return {data, data + n};
}

}  // namespace

TEST(Femap, ReadsTheBlocksOfADeck) {
  const Mesh mesh = femap::read(write_scratch("deck.neu", kDeck));
  ASSERT_EQ(mesh.num_points(), 5);
  EXPECT_DOUBLE_EQ(point_sum(mesh), 0 + 1 + 1 + 1.5 + 2);
  ASSERT_EQ(mesh.cells.size(), 2u);  // the line of topology 13 (rigid) is passed over
  EXPECT_EQ(mesh.cells[0].type, "tetra");
  EXPECT_EQ(mesh.cells[0].num_cells(), 2);
  EXPECT_EQ(row(mesh.cells[0], 0), (std::vector<std::int64_t>{0, 1, 2, 3}));  // slots 0, 1, 2, 4
  EXPECT_EQ(row(mesh.cells[0], 1), (std::vector<std::int64_t>{1, 4, 2, 3}));
  EXPECT_EQ(mesh.cells[1].type, "quad");
  EXPECT_EQ(row(mesh.cells[1], 0), (std::vector<std::int64_t>{0, 1, 4, 2}));
  EXPECT_EQ(int_values(mesh.cell_data.find("femap:property")->at(0)), (std::vector<std::int64_t>{7, 7}));
  EXPECT_EQ(int_values(mesh.cell_data.find("femap:type")->at(1)), (std::vector<std::int64_t>{17}));
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].name, "Solid steel");
  EXPECT_EQ(mesh.regions[0].tag, 7);
  EXPECT_EQ(mesh.regions[0].dim, 3);
  EXPECT_EQ(int_values(mesh.regions[0].entries), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(mesh.regions[1].name, "property_8");  // an empty title
  EXPECT_EQ(int_values(mesh.regions[1].entries), (std::vector<std::int64_t>{2}));
  // The first output set (3): nodal values with NaN where a node has none.
  const NDArray* translation = mesh.point_data.find("Total Translation");
  ASSERT_NE(translation, nullptr);
  const double* t = translation->data_as<double>();
  EXPECT_EQ(t[0], 0.0);
  EXPECT_EQ(t[1], 0.15);
  EXPECT_TRUE(std::isnan(t[2]) && std::isnan(t[3]));
  EXPECT_EQ(t[4], 4.0);
  const auto* stress = mesh.cell_data.find("Plate Stress");
  ASSERT_NE(stress, nullptr);
  EXPECT_EQ(stress->at(0).data_as<double>()[0], 11.0);  // element 1
  EXPECT_EQ(stress->at(0).data_as<double>()[1], 14.0);  // element 4
  EXPECT_EQ(stress->at(1).data_as<double>()[0], 12.0);  // element 2
  EXPECT_EQ(int_values(*mesh.field_data.find("femap:output_set")), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(mesh.field_data.find("femap:output_value")->data_as<double>()[0], 2.5);
}

TEST(Femap, RoundTripsEveryTopologyBitForBit) {
  const std::vector<std::pair<std::string, int>> types{
      {"vertex", 1}, {"line", 2}, {"line3", 3}, {"triangle", 3}, {"triangle6", 6}, {"quad", 4}, {"quad8", 8},
      {"tetra", 4}, {"tetra10", 10}, {"pyramid", 5}, {"wedge", 6}, {"wedge15", 15}, {"hexahedron", 8}, {"hexahedron20", 20}};
  Mesh mesh;
  std::vector<double> xyz;
  for (int i = 0; i < 20; ++i) xyz.insert(xyz.end(), {0.1 * i, 1.0 / 3.0 + i, -1e-300 * i});
  mesh.points = array_of<double>({20, 3}, xyz);
  std::vector<NDArray> data;
  for (const auto& [type, nodes] : types) {
    std::vector<std::int64_t> connectivity;
    for (int cell = 0; cell < 2; ++cell)
      for (int i = 0; i < nodes; ++i) connectivity.push_back((i * 7 + cell * 3) % 20);
    mesh.cells.push_back(CellBlock{type, int64_matrix(2, nodes, connectivity), {}, {}});
    data.push_back(array_of<double>({2}, {std::acos(-1.0), -0.0}));
  }
  mesh.cell_data.set("pressure", std::move(data));
  mesh.point_data.set("temperature", array_of<double>({20}, std::vector<double>(20, 1e-7 / 3)));
  const std::string path = scratch("all.neu").string();
  femap::write(path, mesh, {});
  const Mesh back = femap::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_EQ(nodes_of(back.cells[b]), nodes_of(mesh.cells[b])) << mesh.cells[b].type;
    EXPECT_TRUE(same_bits(back.cell_data.find("pressure")->at(b), mesh.cell_data.find("pressure")->at(b)));
  }
  EXPECT_TRUE(same_bits(*back.point_data.find("temperature"), *mesh.point_data.find("temperature")));
  EXPECT_EQ(back.regions.size(), 1u);  // property 1 of every cell
}

TEST(Femap, WritesPropertiesFromRegionsAndRefusesShapesItHasNot) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 2}, {0, 0, 1, 0, 0, 1});
  mesh.cells.push_back(CellBlock{"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  mesh.cell_data.set("femap:property", std::vector<NDArray>{int64_vector({4})});
  mesh.regions.push_back(cell_region("skin", 2, 4, {0}));
  const std::string path = scratch("property.neu").string();
  femap::write(path, mesh, {});
  const Mesh back = femap::read(path);
  ASSERT_EQ(back.regions.size(), 1u);
  EXPECT_EQ(back.regions[0].name, "skin");
  EXPECT_EQ(back.regions[0].tag, 4);
  EXPECT_EQ(back.points.dim(1), 3);
  mesh.cells.push_back(CellBlock{"polygon5", int64_matrix(1, 5, {0, 1, 2, 0, 1}), {}, {}});
  EXPECT_THROW(femap::write(scratch("bad.neu").string(), mesh, {}), std::invalid_argument);
}

TEST(Femap, RefusesGambitNeutralFilesByName) {
  const std::string path = write_scratch("gambit.neu", "        CONTROL INFO 2.4.6\n** GAMBIT NEUTRAL FILE\n");
  const ReadError error = expect_read_error([&] { femap::read(path); });
  EXPECT_NE(std::string(error.what()).find("Gambit"), std::string::npos);
  EXPECT_FALSE(femap::looks_like("        CONTROL INFO 2.4.6\n"));
  EXPECT_TRUE(femap::looks_like("   -1\n   100\n<NULL>\n"));
}

TEST(Femap, MalformedInputNamesTheLine) {
  const std::string head = "   -1\n   100\n<NULL>\n8.2,\n   -1\n   -1\n   403\n1,0,0,1,46,0,0,0,0,0,0,0.,0.,0.,\n";
  struct Case {
    std::string text;
    std::uint64_t line;
  };
  const std::vector<Case> cases{
      {head + "2,0,0,1,46,0,0,0,0,0,0,0.,x,0.,\n   -1\n", 9},                       // a bad coordinate
      {head + "3,0,0,1,46\n   -1\n", 9},                                             // a short node record
      {head + "   -1\n   -1\n   404\n1,124,1,25,6,1,0,0,\n1,1,1,0,1,0,0,0,0,0,\n", 13},  // ends inside an element
      {head + "   -1\n   -1\n   404\n1,124,1,25,6,1,0,0,\n1,1,9,0,1,0,0,0,0,0,\n0,\n0.,\n0.,\n0.,\n0,\n   -1\n", 11},  // node 9
      {head + "   -1\n   -1\n   404\n1,124,1,25,6,1,0,0,\n1,1,0,0,1,0,0,0,0,0,\n0,\n0.,\n0.,\n0.,\n0,\n   -1\n", 12},  // empty slot
      {head + "   -1\n   -1\n  abc\n", 11},                                            // a bad block id
      {"garbage\n", 1},
      {head + "   -1\n   -1\n  1051\n1,1,1,\nt\n0.,\n0,\n0,\n1,9,0,7,\n0,1,1,\n1,999999999999,1.,\n-1,\n   -1\n", 19},  // a range past the file
  };
  for (const Case& c : cases) {
    const std::string path = write_scratch("bad.neu", c.text);
    const ReadError error = expect_read_error([&] { femap::read(path); });
    EXPECT_EQ(error.path(), path);
    EXPECT_EQ(error.format(), "femap");
    EXPECT_EQ(error.line(), c.line) << c.text << "\n" << error.what();
  }
  EXPECT_THROW(femap::read(write_scratch("empty.neu", "   -1\n   100\n<NULL>\n8.2,\n   -1\n")), ReadError);  // no nodes
}
