// LS-DYNA: the 20-node solid (*ELEMENT_SOLID_H20, read and written) and *SET_SEGMENT sets
// (Side regions on solid faces, Cell regions of shells, or surface cells of their own), the
// skipped set forms, and their errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/lsdyna/lsdyna.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

template <class Fn> void expect_error(Fn&& fn, const std::string& words) {
  const ReadError error = expect_read_error(fn);
  EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
}

// A unit cube's 8 corners (ids 1-8) and its 12 edge midpoints (ids 9-20, VTK's edge order).
std::string cube_nodes() {
  const double corners[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const int edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  std::string text = "*NODE\n";
  auto add = [&](int id, double x, double y, double z) {
    text += std::to_string(id) + "," + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "\n";
  };
  for (int i = 0; i < 8; ++i) add(i + 1, corners[i][0], corners[i][1], corners[i][2]);
  for (int e = 0; e < 12; ++e)
    add(e + 9, 0.5 * (corners[edges[e][0]][0] + corners[edges[e][1]][0]), 0.5 * (corners[edges[e][0]][1] + corners[edges[e][1]][1]),
        0.5 * (corners[edges[e][0]][2] + corners[edges[e][1]][2]));
  return text;
}

TEST(LsdynaH20, ThreeCardsInFixedColumnsAreVtkOrder) {
  const std::string deck = "*KEYWORD\n" + cube_nodes() +
                           "*ELEMENT_SOLID_H20\n"
                           "$    eid     pid\n"
                           "      11       3\n"
                           "       1       2       3       4       5       6       7       8       9      10\n"
                           "$ the mid-side nodes\n"
                           "      11      12      13      14      15      16      17      18      19      20\n"
                           "*END\n";
  const Mesh mesh = lsdyna::read(write_scratch("h20.k", deck));
  EXPECT_EQ(block_summary(mesh), "hexahedron20:1");
  std::vector<std::int64_t> expected;
  for (std::int64_t k = 0; k < 20; ++k) expected.push_back(k);
  EXPECT_EQ(nodes_of(mesh.cells[0]), expected);
}

TEST(LsdynaH20, FreeFormatAndMixedWithLinearSolids) {
  const std::string deck = cube_nodes() +
                           "*ELEMENT_SOLID_H20\n1,1\n1,2,3,4,5,6,7,8,9,10\n11,12,13,14,15,16,17,18,19,20\n"
                           "*ELEMENT_SOLID\n2,1,1,2,3,4,5,6,7,8\n*END\n";
  const Mesh mesh = lsdyna::read(write_scratch("h20free.k", deck));
  EXPECT_EQ(block_summary(mesh), "hexahedron20:1;hexahedron:1");
}

TEST(LsdynaH20, RoundTripThroughOurWriter) {
  const std::string deck = cube_nodes() + "*ELEMENT_SOLID_H20\n1,1\n1,2,3,4,5,6,7,8,9,10\n11,12,13,14,15,16,17,18,19,20\n*END\n";
  const Mesh mesh = lsdyna::read(write_scratch("h20in.k", deck));
  const std::string path = scratch("h20out.k").string();
  lsdyna::write(path, mesh, {});
  const std::string text = read_file(path);
  EXPECT_NE(text.find("*ELEMENT_SOLID_H20\n"), std::string::npos);
  const Mesh read = lsdyna::read(path);
  EXPECT_TRUE(same_bits(read.points, mesh.points));
  EXPECT_EQ(nodes_of(read.cells[0]), nodes_of(mesh.cells[0]));
  EXPECT_EQ(read.cells[0].type, "hexahedron20");
}

TEST(LsdynaH20, MissingAndBlankNodeCardsAreErrors) {
  const std::string cut = cube_nodes() + "*ELEMENT_SOLID_H20\n1,1\n1,2,3,4,5,6,7,8,9,10\n*END\n";
  expect_error([&] { lsdyna::read(write_scratch("h20cut.k", cut)); }, "node card 2 of 2 is missing");
  const std::string blank = cube_nodes() + "*ELEMENT_SOLID_H20\n1,1\n1,2,3,4,5,6,7,8,9,10\n11,12,13,14,15,16,17,18,19\n*END\n";
  expect_error([&] { lsdyna::read(write_scratch("h20blank.k", blank)); }, "node N20 is blank");
}

// One hexahedron (ids 1-8), a tetra on its top (ids 5 6 7 21) and a shell on its bottom.
std::string hex_tet_shell() {
  return cube_nodes() + "21,0.5,0.5,2.0\n"
                        "*ELEMENT_SOLID\n1,1,1,2,3,4,5,6,7,8\n2,1,5,6,7,21,21,21,21,21\n"
                        "*ELEMENT_SHELL\n3,2,1,4,3,2\n";
}

TEST(LsdynaSetSegment, FacesOfSolidsBecomeASideRegion) {
  const std::string deck = hex_tet_shell() +
                           "*SET_SEGMENT_TITLE\nfront and tip\n"
                           "$      sid       da1\n"
                           "         7       0.0\n"
                           "         1         2         6         5\n"  // the hexahedron's facet 0 (0,1,5,4)
                           "         6         7        21        21\n"  // the tetra's facet 1 (1,2,3): a triangle
                           "*END\n";
  const Mesh mesh = lsdyna::read(write_scratch("side.k", deck));
  const Region* region = find_region(mesh, "front and tip");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->kind, RegionKind::Side);
  EXPECT_EQ(region->tag, 7);
  EXPECT_EQ(region->dim, 2);
  ASSERT_EQ(region->entries.dim(1), 2);
  EXPECT_EQ(int_values(region->entries), (std::vector<std::int64_t>{0, 0, 1, 1}));
  EXPECT_EQ(block_summary(mesh), "hexahedron:1;tetra:1;quad:1");  // no surface cells added
}

TEST(LsdynaSetSegment, ShellsAndLooseSegments) {
  const std::string deck = hex_tet_shell() +
                           "*SET_SEGMENT\n3\n1,4,3,2\n"     // the shell, and the hexahedron's bottom
                           "*SET_SEGMENT\n4\n9,10,11,11\n"  // three mid-edge nodes: no face of anything
                           "*SET_SEGMENT\n5\n1,2,3,4\n9,10,11,12\n"
                           "*END\n";
  const Mesh mesh = lsdyna::read(write_scratch("loose.k", deck));
  // Set 3 is a hexahedron face too: Side wins.
  const Region* bottom = find_region(mesh, "SEGMENT set 3");
  ASSERT_NE(bottom, nullptr);
  EXPECT_EQ(bottom->kind, RegionKind::Side);
  EXPECT_EQ(int_values(bottom->entries), (std::vector<std::int64_t>{0, 4}));
  // Sets 4 and 5: surface cells of their own, after the deck's blocks.
  EXPECT_EQ(block_summary(mesh), "hexahedron:1;tetra:1;quad:1;triangle:1;quad:2");
  const Region* loose = find_region(mesh, "SEGMENT set 4");
  ASSERT_NE(loose, nullptr);
  EXPECT_EQ(loose->kind, RegionKind::Cell);
  EXPECT_EQ(int_values(loose->entries), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(nodes_of(mesh.cells[3]), (std::vector<std::int64_t>{8, 9, 10}));
  EXPECT_EQ(int_values(find_region(mesh, "SEGMENT set 5")->entries), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(nodes_of(mesh.cells[4]), (std::vector<std::int64_t>{0, 1, 2, 3, 8, 9, 10, 11}));
}

TEST(LsdynaSetSegment, ShellOnlyFacesGiveACellRegionOfTheShells) {
  const std::string deck = cube_nodes() + "*ELEMENT_SHELL\n1,1,1,2,3,4\n2,1,5,6,7,8\n*SET_SEGMENT\n9\n5,6,7,8\n4,3,2,1\n*END\n";
  const Mesh mesh = lsdyna::read(write_scratch("shells.k", deck));
  const Region* region = find_region(mesh, "SEGMENT set 9");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->kind, RegionKind::Cell);
  EXPECT_EQ(int_values(region->entries), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(block_summary(mesh), "quad:2");
}

TEST(LsdynaSetSegment, GeneralFormIsSkippedAndNamed) {
  const std::string deck = hex_tet_shell() + "*SET_SEGMENT_GENERAL\n8\nPART,1\n*END\n";
  const Mesh mesh = lsdyna::read(write_scratch("general.k", deck));
  EXPECT_EQ(find_region(mesh, "SEGMENT set 8"), nullptr);
  const auto* skipped = mesh.string_field_data.find("lsdyna:skipped");
  ASSERT_NE(skipped, nullptr);
  ASSERT_EQ(skipped->size(), 1u);
  EXPECT_NE((*skipped)[0].find("*SET_SEGMENT_GENERAL at line"), std::string::npos) << (*skipped)[0];
}

TEST(LsdynaSetSegment, UndefinedNodeAndShortSegmentAreErrors) {
  expect_error([&] { lsdyna::read(write_scratch("undef.k", hex_tet_shell() + "*SET_SEGMENT\n1\n1,2,99,5\n*END\n")); },
                    "refers to node 99");
  expect_error([&] { lsdyna::read(write_scratch("short.k", hex_tet_shell() + "*SET_SEGMENT\n1\n1,2\n*END\n")); },
                    "at least three nodes");
}

}  // namespace
