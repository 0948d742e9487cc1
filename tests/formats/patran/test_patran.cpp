// MSC Patran neutral file reader and writer: two files P3/PATRAN 3.0 wrote (Tahoe's test data;
// counts cross-checked with meshio++ 17.21 in test_patran_interop.py), every writable cell
// type round-tripped, the sniff, and malformed input with its line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/patran/patran.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "patran" / name).string(); }

std::string header(int type, std::int64_t id, std::int64_t iv, std::int64_t cards) {
  char line[128];
  std::snprintf(line, sizeof line, "%2d%8lld%8lld%8lld       0       0       0       0       0\n", type, static_cast<long long>(id),
                static_cast<long long>(iv), static_cast<long long>(cards));
  return line;
}

}  // namespace

TEST(Patran, ReadsTahoesSquare) {
  const Mesh mesh = patran::read(data_file("tahoe_square.pat"));
  ASSERT_EQ(mesh.num_points(), 16);
  EXPECT_DOUBLE_EQ(point_sum(mesh), 4 * (0 + 1 + 2 + 3) + 4 * (0 + 1 + 2 + 3));
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "quad");
  EXPECT_EQ(mesh.cells[0].num_cells(), 9);
  EXPECT_EQ(int_values(mesh.cells[0].connectivity).front(), 0);
  const Region* square = find_region(mesh, "SQUARE", RegionKind::Cell);
  ASSERT_NE(square, nullptr);
  EXPECT_EQ(square->entries.rows(), 9);
  EXPECT_EQ(square->dim, 2);
  EXPECT_EQ(square->tag, 1);
  const Region* square_nodes = find_region(mesh, "SQUARE", RegionKind::Point);
  ASSERT_NE(square_nodes, nullptr);
  EXPECT_EQ(square_nodes->entries.rows(), 16);
  const Region* bottom = find_region(mesh, "BOTTOM", RegionKind::Point);
  ASSERT_NE(bottom, nullptr);
  EXPECT_EQ(int_values(bottom->entries), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(find_region(mesh, "CORNER2", RegionKind::Point)->tag, 5);
}

TEST(Patran, ReadsTahoesCylinderWithQuad9AndBars) {
  const Mesh mesh = patran::read(unpacked(data_file("tahoe_cyl_cyl.out.gz")));
  ASSERT_EQ(mesh.num_points(), 2409);
  EXPECT_NEAR(point_sum(mesh), 386804.91490686487, 1e-6);  // meshio++ 17.21's sum
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(mesh.cells[0].type, "quad9");
  EXPECT_EQ(mesh.cells[0].num_cells(), 272);
  EXPECT_EQ(mesh.cells[1].type, "line");
  EXPECT_EQ(mesh.cells[1].num_cells(), 1280);
  // Components list quad9 members as type 108 (8 + 100 for the second order).
  const Region* zone = find_region(mesh, "ZONE1", RegionKind::Cell);
  ASSERT_NE(zone, nullptr);
  EXPECT_EQ(zone->dim, 2);
  EXPECT_EQ(find_region(mesh, "ZONE1", RegionKind::Point)->entries.rows(), 1127);
  EXPECT_EQ(find_region(mesh, "INTERNALZTOP", RegionKind::Cell)->entries.rows(), 640);
  EXPECT_EQ(find_region(mesh, "BOUNDARY", RegionKind::Point)->entries.rows(), 931);
}

TEST(Patran, RoundTripsEveryShape) {
  const std::vector<std::pair<std::string, int>> types{{"line", 2},     {"line3", 3},       {"triangle", 3},  {"triangle6", 6},
                                                       {"quad", 4},     {"quad8", 8},       {"quad9", 9},     {"tetra", 4},
                                                       {"tetra10", 10}, {"pyramid", 5},     {"wedge", 6},     {"wedge15", 15},
                                                       {"hexahedron", 8}, {"hexahedron20", 20}};
  Mesh mesh;
  std::vector<double> xyz;
  for (int i = 0; i < 20; ++i) xyz.insert(xyz.end(), {0.5 * i, -0.25 * i, 1024.0 + i});  // exact in ten digits
  mesh.points = array_of<double>({20, 3}, xyz);
  for (const auto& [type, nodes] : types) {
    std::vector<std::int64_t> connectivity;
    for (int cell = 0; cell < 2; ++cell)
      for (int i = 0; i < nodes; ++i) connectivity.push_back((i * 7 + cell * 3) % 20);
    mesh.cells.push_back(CellBlock{type, int64_matrix(2, nodes, connectivity), {}, {}});
  }
  mesh.regions.push_back(cell_region("solids", 3, 4, {20, 27}));
  Region nodes{"solids", RegionKind::Point, 0, 4, int64_vector({0, 19})};
  mesh.regions.push_back(nodes);
  const std::string path = scratch("all.pat").string();
  patran::write(path, mesh, {});
  const Mesh back = patran::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_EQ(nodes_of(back.cells[b]), nodes_of(mesh.cells[b])) << mesh.cells[b].type;
  }
  const Region* cells = find_region(back, "solids", RegionKind::Cell);
  ASSERT_NE(cells, nullptr);
  EXPECT_EQ(int_values(cells->entries), (std::vector<std::int64_t>{20, 27}));
  EXPECT_EQ(cells->tag, 4);
  EXPECT_EQ(int_values(find_region(back, "solids", RegionKind::Point)->entries), (std::vector<std::int64_t>{0, 19}));
  EXPECT_TRUE(patran::looks_like(read_file(path).substr(0, 512)));
  mesh.cells.push_back(CellBlock{"polygon5", int64_matrix(1, 5, {0, 1, 2, 3, 4}), {}, {}});
  EXPECT_THROW(patran::write(scratch("bad.pat").string(), mesh, {}), std::invalid_argument);
}

TEST(Patran, WritesTenSignificantDigits) {
  Mesh mesh;
  mesh.points = array_of<double>({1, 3}, {1.0 / 3.0, -2e-30, 6.02214076e23});
  const std::string path = scratch("digits.pat").string();
  patran::write(path, mesh, {});
  const Mesh back = patran::read(path);
  const double* xyz = back.points.data_as<double>();
  EXPECT_NEAR(xyz[0], 1.0 / 3.0, 5e-10);
  EXPECT_DOUBLE_EQ(xyz[1], -2e-30);
  EXPECT_DOUBLE_EQ(xyz[2], 6.02214076e23);
}

TEST(Patran, MalformedInputNamesTheLine) {
  const std::string head = header(25, 0, 0, 1) + "title\n" + header(26, 0, 0, 1) + "date\n" + header(1, 1, 0, 2) +
                           "  0.000000000E+0  1.000000000E+0  2.0-1\n1G       6       0       0  000000\n";
  struct Case {
    std::string text;
    std::uint64_t line;
  };
  const std::vector<Case> cases{
      {head + header(1, 2, 0, 2) + "  0.000000000E+0      x\n", 9},                              // a bad coordinate
      {head + header(1, 2, 0, 2), 8},                                                            // ends inside a node
      {head + header(2, 1, 4, 2) + "       4       0       1       0\n       1       1       1       9\n", 8},  // node 9
      {head + header(2, 1, 4, 2) + "      44       0       1       0\n       1\n", 8},           // 44 nodes, one card
      {head + header(2, 1, 4, 1) + "     999       0       1       0\n", 9},                     // absurd node count
      {head + "2x       1       4       2\n", 8},                                                 // a bad header
      {head + header(7, 1, 0, 99999999), 8},                                                    // cards past the file
      {head + header(21, 1, 2, 2) + "NAME\n       5       7\n", 8},                              // a node no packet has
  };
  for (const Case& c : cases) {
    const std::string path = write_scratch("bad.pat", c.text);
    const ReadError error = expect_read_error([&] { patran::read(path); });
    EXPECT_EQ(error.path(), path);
    EXPECT_EQ(error.format(), "patran");
    EXPECT_EQ(error.line(), c.line) << c.text << "\n" << error.what();
  }
  const Mesh mesh = patran::read(write_scratch("one.pat", head + header(99, 0, 0, 1)));
  EXPECT_EQ(mesh.points.data_as<double>()[2], 0.2);  // "2.0-1": Fortran's exponent without its E
}
