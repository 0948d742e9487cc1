// code_aster .mail: code_aster's own test meshes (astest), every element type with the node
// orders checked on their geometry, the header and group forms code_aster accepts, round
// trips bit for bit, and malformed input with its line and offset.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/code_aster/code_aster.hpp"
#include "io/cells/name_index.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) {
  return (meshioplusplus::testing::test_data_dir() / "code_aster" / name).string();
}

std::vector<std::int64_t> entries(const Region& region) {
  const auto values = region.entries.values<std::int64_t>();
  return {values.begin(), values.end()};
}

std::int64_t node_sum(const CellBlock& block) {
  std::int64_t sum = 0;
  for (std::int64_t v : nodes_of(block)) sum += v;
  return sum;
}

// Node `i` of cell `row` lies halfway between nodes `a` and `b`.
bool midway(const Mesh& mesh, const CellBlock& block, std::int64_t row, int i, int a, int b) {
  const auto p = mesh.points.values<double>();
  const std::int64_t w = mesh.points.dim(1);
  const std::vector<std::int64_t> n = nodes_of(block);
  const std::int64_t k = block.connectivity.dim(1);
  for (std::int64_t d = 0; d < w; ++d)
    if (std::abs(p[n[row * k + i] * w + d] - 0.5 * (p[n[row * k + a] * w + d] + p[n[row * k + b] * w + d])) > 1e-9)
      return false;
  return true;
}

}  // namespace

TEST(CodeAster, ReadsCodeAstersOwnMeshes) {
  // Counts and node sums as meshio++ 17.21 reads the same files (they agree on all 528 .mail
  // files of astest both read).
  struct Expected {
    const char* name;
    std::int64_t points, dim;
    std::vector<std::pair<std::string, std::int64_t>> blocks;  // type, cells
    std::vector<std::int64_t> node_sums;
    std::size_t regions;
  };
  const std::vector<Expected> files = {
      {"hsnv120a.mail", 20, 3, {{"hexahedron20", 1}, {"quad8", 1}}, {190, 75}, 0},
      {"hsnv120b.mail", 8, 2, {{"quad8", 1}, {"line3", 1}}, {28, 11}, 0},
      {"sdld104b.mail", 4, 3, {{"vertex", 2}, {"line", 3}}, {3, 9}, 2},
      {"sdll100a.mail", 2, 3, {{"line", 1}}, {1}, 1},
      {"ssll106f.mail", 4, 3, {{"line4", 1}}, {6}, 3},
      {"sslv115a.mail", 13, 3, {{"quad", 2}, {"hexahedron", 1}, {"line", 4}}, {18, 28, 80}, 6},
      {"ssnp02b.mail", 9, 2, {{"triangle6", 2}, {"line3", 2}}, {52, 24}, 2},
      {"ssnv247a.mail", 52, 3, {{"hexahedron", 18}, {"wedge", 9}}, {3384, 2313}, 6},
      {"zzzz349a.mail", 9, 3, {{"quad9", 1}, {"line3", 1}, {"line3", 1}}, {36, 5, 10}, 2},
      {"zzzz349b.mail", 11, 3, {{"triangle7", 2}, {"line3", 1}, {"line3", 1}}, {67, 5, 10}, 2},
      {"zzzz366a.mail", 27, 3, {{"hexahedron27", 1}, {"hexahedron20", 1}, {"hexahedron", 1}}, {351, 190, 28}, 3},
      {"zzzz366b.mail", 15, 3, {{"wedge15", 1}, {"wedge", 1}}, {105, 15}, 2},
      {"zzzz366c.mail", 13, 3, {{"pyramid13", 1}, {"pyramid", 1}}, {78, 10}, 2},
      {"zzzz366d.mail", 10, 3, {{"tetra10", 1}, {"tetra", 1}}, {45, 6}, 2},
  };
  for (const Expected& file : files) {
    SCOPED_TRACE(file.name);
    const Mesh mesh = read(data_file(file.name));  // by the .mail extension
    EXPECT_EQ(mesh.num_points(), file.points);
    EXPECT_EQ(mesh.points.dim(1), file.dim);
    ASSERT_EQ(mesh.cells.size(), file.blocks.size());
    for (std::size_t b = 0; b < file.blocks.size(); ++b) {
      EXPECT_EQ(mesh.cells[b].type, file.blocks[b].first);
      EXPECT_EQ(mesh.cells[b].num_cells(), file.blocks[b].second);
      EXPECT_EQ(node_sum(mesh.cells[b]), file.node_sums[b]);
    }
    EXPECT_EQ(mesh.regions.size(), file.regions);
  }
}

TEST(CodeAster, GroupsInEveryFormCodeAsterAccepts) {
  const Mesh mesh = code_aster::read(data_file("sslv115a.mail"));
  const Region* cable = find_region(mesh, "GXXXXXX_CABLE001", RegionKind::Cell);
  ASSERT_NE(cable, nullptr);
  EXPECT_EQ(entries(*cable), (std::vector<std::int64_t>{3, 4, 5, 6}));
  EXPECT_EQ(cable->dim, 1);
  EXPECT_EQ(find_region(mesh, "GXXXXXX_VOILE", RegionKind::Cell)->dim, 3);
  EXPECT_EQ(entries(*find_region(mesh, "NC5", RegionKind::Point)), (std::vector<std::int64_t>{12}));
  // The %-commented nodes are not nodes: 13, and the hexahedron's two lines make one cell.
  EXPECT_EQ(nodes_of(mesh.cells[1]), (std::vector<std::int64_t>{0, 1, 3, 2, 4, 5, 7, 6}));

  // "GROUP_NO   ENCAS" (name after the keyword), indented blocks.
  const Mesh old = code_aster::read(data_file("sdld104b.mail"));
  EXPECT_EQ(entries(*find_region(old, "ENCAS", RegionKind::Point)), (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(entries(*find_region(old, "TOUT", RegionKind::Cell)), (std::vector<std::int64_t>{2, 3, 4}));
  // NOM= on a header spread over lines with AUTEUR= / DATE=.
  EXPECT_NE(find_region(code_aster::read(data_file("sdll100a.mail")), "COUL_7", RegionKind::Cell), nullptr);
  // Lower-case keywords, the last group closed by "fin".
  const Mesh lower = code_aster::read(data_file("comp001a.mail"));
  EXPECT_EQ(entries(*find_region(lower, "faceint", RegionKind::Cell)), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(code_aster::read(data_file("sdnd108a.mail")).cells[0].type, "vertex");
  // Groups named like element keywords, in another case.
  EXPECT_NE(find_region(code_aster::read(data_file("zzzz366a.mail")), "Hexa27", RegionKind::Cell), nullptr);
}

TEST(CodeAster, HigherOrderNodesLandWhereVtkPutsThem) {
  // Mid-edge nodes halfway along VTK's edges: HEXA20/27 and PENTA15 are permuted, the rest not.
  const Mesh hexa = code_aster::read(data_file("zzzz366a.mail"));
  const int hex_edges[12][3] = {{8, 0, 1},  {9, 1, 2},  {10, 2, 3}, {11, 3, 0}, {12, 4, 5}, {13, 5, 6},
                                {14, 6, 7}, {15, 7, 4}, {16, 0, 4}, {17, 1, 5}, {18, 2, 6}, {19, 3, 7}};
  for (int b : {0, 1})
    for (const auto& e : hex_edges) EXPECT_TRUE(midway(hexa, hexa.cells[b], 0, e[0], e[1], e[2])) << b << " " << e[0];
  // HEXA27's face centres in VTK's order: x-, x+, y-, y+, z-, z+ (a face's opposite edge midpoints).
  EXPECT_TRUE(midway(hexa, hexa.cells[0], 0, 20, 11, 15));  // x-: centre of edges 3-0 and 7-4
  EXPECT_TRUE(midway(hexa, hexa.cells[0], 0, 21, 9, 13));
  EXPECT_TRUE(midway(hexa, hexa.cells[0], 0, 22, 8, 12));
  EXPECT_TRUE(midway(hexa, hexa.cells[0], 0, 23, 10, 14));
  EXPECT_TRUE(midway(hexa, hexa.cells[0], 0, 24, 8, 10));
  EXPECT_TRUE(midway(hexa, hexa.cells[0], 0, 25, 12, 14));
  EXPECT_TRUE(midway(hexa, hexa.cells[0], 0, 26, 20, 21));
  const Mesh wedge = code_aster::read(data_file("zzzz366b.mail"));
  const int wedge_edges[9][3] = {{6, 0, 1}, {7, 1, 2}, {8, 2, 0}, {9, 3, 4}, {10, 4, 5},
                                 {11, 5, 3}, {12, 0, 3}, {13, 1, 4}, {14, 2, 5}};
  for (const auto& e : wedge_edges) EXPECT_TRUE(midway(wedge, wedge.cells[0], 0, e[0], e[1], e[2])) << e[0];
  const Mesh pyramid = code_aster::read(data_file("zzzz366c.mail"));
  const int pyramid_edges[8][3] = {{5, 0, 1}, {6, 1, 2}, {7, 2, 3}, {8, 3, 0}, {9, 0, 4}, {10, 1, 4}, {11, 2, 4}, {12, 3, 4}};
  for (const auto& e : pyramid_edges) EXPECT_TRUE(midway(pyramid, pyramid.cells[0], 0, e[0], e[1], e[2])) << e[0];
  const Mesh tetra = code_aster::read(data_file("zzzz366d.mail"));
  const int tetra_edges[6][3] = {{4, 0, 1}, {5, 1, 2}, {6, 2, 0}, {7, 0, 3}, {8, 1, 3}, {9, 2, 3}};
  for (const auto& e : tetra_edges) EXPECT_TRUE(midway(tetra, tetra.cells[0], 0, e[0], e[1], e[2])) << e[0];
}

TEST(CodeAster, RoundTripsBitForBit) {
  for (const char* name : {"zzzz366a.mail", "zzzz366b.mail", "zzzz366c.mail", "zzzz366d.mail", "ssnv247a.mail",
                           "zzzz349b.mail", "ssll106f.mail", "sslv115a.mail", "hsnv120b.mail"}) {
    SCOPED_TRACE(name);
    const Mesh mesh = code_aster::read(data_file(name));
    const std::string path = scratch("round.mail").string();
    write(path, mesh);
    // Every line within the 80 columns code_aster reads.
    std::size_t longest = 0, start = 0;
    const std::string text = read_file(path);
    for (std::size_t at = text.find('\n'); at != std::string::npos; start = at + 1, at = text.find('\n', start))
      longest = std::max(longest, at - start);
    EXPECT_LE(longest, 80u);
    const Mesh back = code_aster::read(path);
    EXPECT_TRUE(same_bits(back.points, mesh.points));
    ASSERT_EQ(back.cells.size(), mesh.cells.size());
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
      EXPECT_EQ(nodes_of(back.cells[b]), nodes_of(mesh.cells[b]));
    }
    ASSERT_EQ(back.regions.size(), mesh.regions.size());
    for (std::size_t r = 0; r < mesh.regions.size(); ++r) {
      EXPECT_EQ(back.regions[r].name, mesh.regions[r].name);
      EXPECT_EQ(back.regions[r].kind, mesh.regions[r].kind);
      EXPECT_EQ(entries(back.regions[r]), entries(mesh.regions[r]));
    }
  }
  // Reals whose shortest form is long, 1-D points, a region name with a blank.
  Mesh mesh;
  mesh.points = array_of<double>({3, 1}, {-1.2345678901234567e-300, 1.0 / 3, 2.5e17});
  mesh.cells.push_back(CellBlock{"line", int64_matrix(2, 2, {0, 1, 1, 2}), {}, {}});
  mesh.regions.push_back(cell_region("left part", 1, -1, {0}));
  const std::string path = scratch("line.mail").string();
  code_aster::write(path, mesh, {});
  const Mesh back = code_aster::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_EQ(back.regions[0].name, "left_part");

  Mesh polygon = mesh;
  polygon.cells[0] = CellBlock{"triangle10", int64_matrix(1, 10, {0, 1, 2, 0, 1, 2, 0, 1, 2, 0}), {}, {}};
  EXPECT_THROW(code_aster::write(path, polygon, {}), std::invalid_argument);
}

TEST(CodeAster, NodesMayBeNamedBeforeTheirCoordinates) {
  const Mesh mesh = code_aster::read(write_scratch(
      "late.mail", "TRIA3 NOM=X\nM1 A B\n C\nFINSF\nCOOR_2D\nA 0 0 B 1 0\nC 0 1.0D+00\nFINSF\nFIN\nrubbish\n"));
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(mesh.points.values<double>()[5], 1.0);
}

TEST(CodeAster, MalformedInputIsAReadErrorWithItsLine) {
  const auto fails = [](const std::string& name, const std::string& text) {
    return expect_read_error([&] { code_aster::read(write_scratch(name, text)); });
  };
  const std::string nodes = "COOR_2D\nN1 0 0\nN2 1 0\nN3 0 1\nFINSF\n";
  ReadError error = fails("a.mail", nodes + "TRIA3\nM1 N1 N2 N4\nFINSF\nFIN\n");
  EXPECT_NE(error.reason().find("node N4 is not defined"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 7u);
  EXPECT_EQ(error.byte_offset(), nodes.size() + 6 + 9);

  error = fails("b.mail", nodes + "TRIA3\nM1 N1 N2\nFINSF\nFIN\n");
  EXPECT_NE(error.reason().find("element M1 (TRIA3) has 2 of its 3 nodes before FINSF"), std::string::npos) << error.what();

  error = fails("c.mail", nodes + "TRIA3\nM1 N1 N2 N3\n");
  EXPECT_NE(error.reason().find("the TRIA3 block has no FINSF"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 6u);

  error = fails("d.mail", nodes + "TRIA3\nM1 N1 N2 N3\nSEG2\nS1 N1 N2\nFINSF\n");
  EXPECT_NE(error.reason().find("no FINSF before 'SEG2'"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 8u);

  error = fails("e.mail", "COOR_2D\nN1 0 0\nN1 1 0\nFINSF\n");
  EXPECT_NE(error.reason().find("node N1 is defined twice"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 3u);

  error = fails("f.mail", "COOR_2D\nN1 0 x\nFINSF\n");
  EXPECT_NE(error.reason().find("invalid coordinate 'x'"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 2u);

  error = fails("g.mail", "COOR_3D\nN1 0 0\nFINSF\n");
  EXPECT_NE(error.reason().find("node N1 has 2 of 3 coordinates"), std::string::npos) << error.what();

  error = fails("h.mail", nodes + "GROUP_MA NOM=G\nM9\nFINSF\n");
  EXPECT_NE(error.reason().find("group G names element M9, which the file does not define"), std::string::npos)
      << error.what();
  EXPECT_EQ(error.line(), 7u);

  error = fails("i.mail", nodes + "COOR_3D\nN4 0 0 0\nFINSF\n");
  EXPECT_NE(error.reason().find("COOR_3D block after COOR_2D"), std::string::npos) << error.what();

  error = fails("j.mail", "TITRE\nonly a title\nFINSF\nFIN\n");
  EXPECT_NE(error.reason().find("no COOR_1D, COOR_2D or COOR_3D block"), std::string::npos) << error.what();

  error = fails("k.mail", nodes + "TRIA3\nM1 N1 N2 N3\nFINSF\nSEG2\nM1 N1 N2\nFINSF\n");
  EXPECT_NE(error.reason().find("element M1 is defined twice"), std::string::npos) << error.what();

  error = fails("l.mail", nodes + "GROUP_NO\nFINSF\n");
  EXPECT_NE(error.reason().find("names no group"), std::string::npos) << error.what();
}

TEST(CodeAster, NameIndexByNumberAndByName) {
  io::NameIndex index;
  EXPECT_TRUE(index.insert("N1", 0));
  EXPECT_TRUE(index.insert("N2", 1));
  EXPECT_TRUE(index.insert("N010", 2));  // a leading zero: by name, not number 10
  EXPECT_TRUE(index.insert("N10", 3));
  EXPECT_TRUE(index.insert("TOP", 4));
  EXPECT_TRUE(index.insert("M7", 5));
  EXPECT_FALSE(index.insert("N2", 9));
  EXPECT_FALSE(index.insert("TOP", 9));
  EXPECT_EQ(index.find("N1"), 0);
  EXPECT_EQ(index.find("N2"), 1);
  EXPECT_EQ(index.find("N010"), 2);
  EXPECT_EQ(index.find("N10"), 3);
  EXPECT_EQ(index.find("TOP"), 4);
  EXPECT_EQ(index.find("M7"), 5);
  EXPECT_EQ(index.find("N3"), -1);
  EXPECT_EQ(index.find("N"), -1);
  EXPECT_EQ(index.find("N99999999999999999999"), -1);
}
