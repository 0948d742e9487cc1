// COMSOL .mphtxt: COMSOL-written files (FEconv's test data) of every element type read with
// the counts 17.21 reads and mid-edge nodes and volumes that say the node order is VTK's,
// Mesh versions 1, 2 and 4, several objects, round trips bit for bit, and malformed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/mphtxt/mphtxt.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) {
  return (meshioplusplus::testing::test_data_dir() / "mphtxt" / name).string();
}

std::int64_t sum_of(const NDArray& array) {
  std::int64_t sum = 0;
  for (std::int64_t v : int_values(array)) sum += v;
  return sum;
}

const std::vector<NDArray>& entities(const Mesh& mesh) {
  const auto* arrays = mesh.cell_data.find("mphtxt:geometric_entity");
  EXPECT_NE(arrays, nullptr);
  return *arrays;
}

// Node i of every cell lies halfway between nodes a and b.
bool midway(const Mesh& mesh, const CellBlock& block, int i, int a, int b) {
  const auto p = mesh.points.values<double>();
  const std::int64_t w = mesh.points.dim(1), k = block.connectivity.dim(1);
  const std::vector<std::int64_t> n = nodes_of(block);
  for (std::int64_t row = 0; row < block.num_cells(); ++row)
    for (std::int64_t d = 0; d < w; ++d)
      if (std::abs(p[n[row * k + i] * w + d] - 0.5 * (p[n[row * k + a] * w + d] + p[n[row * k + b] * w + d])) > 1e-9)
        return false;
  return true;
}

double volume(const Mesh& mesh, const CellBlock& block, std::int64_t row, int a, int b, int c, int d) {
  const auto p = mesh.points.values<double>();
  const std::vector<std::int64_t> n = nodes_of(block);
  const std::int64_t k = block.connectivity.dim(1);
  const auto at = [&](int i, int j) { return p[n[row * k + i] * 3 + j]; };
  double u[3], v[3], w[3];
  for (int j = 0; j < 3; ++j) {
    u[j] = at(b, j) - at(a, j);
    v[j] = at(c, j) - at(a, j);
    w[j] = at(d, j) - at(a, j);
  }
  return (u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1] + (u[0] * v[1] - u[1] * v[0]) * w[2];
}

}  // namespace

TEST(Mphtxt, ReadsComsolsFiles) {
  struct Expected {
    const char* name;
    std::int64_t points, sdim;
    std::vector<std::pair<std::string, std::int64_t>> blocks;  // type, cells
    std::vector<std::int64_t> node_sums, entity_sums;
    std::size_t regions;
  };
  // Counts and sums as meshio++ 17.21 reads the same files (arrays equal: test_mphtxt_interop.py).
  const std::vector<Expected> files = {
      {"4quads.mphtxt", 9, 3, {{"vertex", 4}, {"line", 8}, {"quad", 4}}, {14, 62, 68}, {6, 12, 0}, 9},
      {"triap2.mphtxt", 13, 2, {{"vertex", 4}, {"line3", 4}, {"triangle6", 4}}, {9, 44, 132}, {6, 6, 4}, 9},
      {"quadp2.mphtxt", 49, 2, {{"vertex", 4}, {"line3", 12}, {"quad9", 9}}, {24, 424, 1791}, {6, 18, 9}, 9},
      {"tetrap2.mphtxt", 63, 3, {{"vertex", 8}, {"line3", 12}, {"triangle6", 24}, {"tetra10", 24}}, {60, 414, 2752, 6855}, {28, 66, 60, 24}, 27},
      {"hexap2.mphtxt", 125, 3, {{"vertex", 8}, {"line3", 24}, {"quad9", 24}, {"hexahedron27", 8}}, {80, 1476, 8446, 13387}, {28, 132, 60, 8}, 27},
      {"prismp1.mphtxt", 36, 3, {{"vertex", 8}, {"line", 24}, {"triangle", 28}, {"quad", 16}, {"wedge", 28}}, {130, 798, 1403, 1108, 3087}, {28, 132, 70, 40, 28}, 27},
      {"mesh-geo8.mphtxt", 101, 2, {{"vertex", 4}, {"line", 32}, {"triangle", 168}}, {182, 2994, 25564}, {6, 48, 168}, 9},
  };
  for (const Expected& file : files) {
    SCOPED_TRACE(file.name);
    const Mesh mesh = read(data_file(file.name));  // by the .mphtxt extension
    EXPECT_EQ(mesh.num_points(), file.points);
    EXPECT_EQ(mesh.points.dim(1), file.sdim);
    ASSERT_EQ(mesh.cells.size(), file.blocks.size());
    for (std::size_t b = 0; b < file.blocks.size(); ++b) {
      EXPECT_EQ(mesh.cells[b].type, file.blocks[b].first);
      EXPECT_EQ(mesh.cells[b].num_cells(), file.blocks[b].second);
      EXPECT_EQ(sum_of(mesh.cells[b].connectivity), file.node_sums[b]);
      EXPECT_EQ(sum_of(entities(mesh)[b]), file.entity_sums[b]);
    }
    EXPECT_EQ(mesh.regions.size(), file.regions);
  }
}

TEST(Mphtxt, NodeOrdersAreVtks) {
  const Mesh quads = mphtxt::read(data_file("4quads.mphtxt"));
  // Lexicographic corners turned: nodes 0 1 2 3 go round each (convex) quad.
  const std::vector<std::int64_t> q = nodes_of(quads.cells[2]);
  const auto xy = quads.points.values<double>();
  for (std::int64_t row = 0; row < quads.cells[2].num_cells(); ++row) {
    const auto x = [&](int i, int j) { return xy[q[row * 4 + i] * 3 + j]; };
    const double turn012 = (x(1, 0) - x(0, 0)) * (x(2, 1) - x(0, 1)) - (x(1, 1) - x(0, 1)) * (x(2, 0) - x(0, 0));
    const double turn023 = (x(2, 0) - x(0, 0)) * (x(3, 1) - x(0, 1)) - (x(2, 1) - x(0, 1)) * (x(3, 0) - x(0, 0));
    EXPECT_GT(turn012 * turn023, 0) << row;
  }
  const Mesh tri = mphtxt::read(data_file("triap2.mphtxt"));
  EXPECT_TRUE(midway(tri, tri.cells[1], 2, 0, 1));
  EXPECT_TRUE(midway(tri, tri.cells[2], 3, 0, 1) && midway(tri, tri.cells[2], 4, 1, 2) && midway(tri, tri.cells[2], 5, 2, 0));
  const Mesh quad = mphtxt::read(data_file("quadp2.mphtxt"));
  EXPECT_TRUE(midway(quad, quad.cells[2], 4, 0, 1) && midway(quad, quad.cells[2], 5, 1, 2) &&
              midway(quad, quad.cells[2], 6, 2, 3) && midway(quad, quad.cells[2], 7, 3, 0) && midway(quad, quad.cells[2], 8, 4, 6));
  const Mesh tet = mphtxt::read(data_file("tetrap2.mphtxt"));
  const int tet_edges[6][3] = {{4, 0, 1}, {5, 1, 2}, {6, 2, 0}, {7, 0, 3}, {8, 1, 3}, {9, 2, 3}};
  for (const auto& e : tet_edges) EXPECT_TRUE(midway(tet, tet.cells[3], e[0], e[1], e[2])) << e[0];
  for (std::int64_t row = 0; row < tet.cells[3].num_cells(); ++row) EXPECT_GT(volume(tet, tet.cells[3], row, 0, 1, 2, 3), 0);
  const Mesh hex = mphtxt::read(data_file("hexap2.mphtxt"));
  const int hex_nodes[19][3] = {{8, 0, 1},   {9, 1, 2},   {10, 2, 3},  {11, 3, 0},  {12, 4, 5},  {13, 5, 6}, {14, 6, 7},
                                {15, 7, 4},  {16, 0, 4},  {17, 1, 5},  {18, 2, 6},  {19, 3, 7},  {20, 11, 15}, {21, 9, 13},
                                {22, 8, 12}, {23, 10, 14}, {24, 8, 10}, {25, 12, 14}, {26, 20, 21}};
  for (const auto& e : hex_nodes) EXPECT_TRUE(midway(hex, hex.cells[3], e[0], e[1], e[2])) << e[0];
  for (std::int64_t row = 0; row < hex.cells[3].num_cells(); ++row) EXPECT_GT(volume(hex, hex.cells[3], row, 0, 1, 3, 4), 0);
  // Prisms: positive in our (meshio's, Gmsh's) wedge order, whose bottom triangle VTK runs the other way.
  const Mesh prism = mphtxt::read(data_file("prismp1.mphtxt"));
  for (std::int64_t row = 0; row < prism.cells[4].num_cells(); ++row) EXPECT_GT(volume(prism, prism.cells[4], row, 0, 1, 2, 3), 0);
}

TEST(Mphtxt, SeveralObjectsAndTheirRegions) {
  const Mesh mesh = mphtxt::read(data_file("2objectcubes.mphtxt"));
  ASSERT_EQ(mesh.cells.size(), 8u);
  EXPECT_EQ(mesh.num_points(), 18);
  const std::vector<std::int64_t> second_nodes = nodes_of(mesh.cells[4]);
  EXPECT_GE(*std::min_element(second_nodes.begin(), second_nodes.end()), 9);  // the second object's points
  const Region* second = find_region(mesh, "mesh2", RegionKind::Cell);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->entries.size(), 44);
  EXPECT_EQ(int_values(second->entries).front(), 44);
  const Region* domain = find_region(mesh, "mesh1: dim 3 entity 1", RegionKind::Cell);
  ASSERT_NE(domain, nullptr);
  EXPECT_EQ(domain->dim, 3);
  EXPECT_EQ(domain->tag, 1);
  const Mesh one = mphtxt::read(data_file("tetrap2.mphtxt"));
  EXPECT_NE(find_region(one, "dim 2 entity 3", RegionKind::Cell), nullptr);
}

TEST(Mphtxt, RoundTripsBitForBit) {
  for (const char* name : {"4quads.mphtxt", "triap2.mphtxt", "quadp2.mphtxt", "tetrap2.mphtxt", "hexap2.mphtxt",
                           "prismp1.mphtxt", "mesh-geo8.mphtxt"}) {
    SCOPED_TRACE(name);
    const Mesh mesh = mphtxt::read(data_file(name));
    const std::string path = scratch("round.mphtxt").string();
    write(path, mesh);
    const Mesh back = read(path);
    EXPECT_TRUE(same_bits(back.points, mesh.points));
    ASSERT_EQ(back.cells.size(), mesh.cells.size());
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
      EXPECT_EQ(nodes_of(back.cells[b]), nodes_of(mesh.cells[b]));
      EXPECT_EQ(int_values(entities(back)[b]), int_values(entities(mesh)[b]));
    }
    EXPECT_EQ(back.regions.size(), mesh.regions.size());
  }
  Mesh mesh;
  mesh.points = array_of<double>({3, 2}, {0, 0, 1.0 / 3, -2.5e-300, 0, 1});
  mesh.cells.push_back(CellBlock{"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  const std::string path = scratch("tri.mphtxt").string();
  mphtxt::write(path, mesh, {});
  EXPECT_TRUE(same_bits(mphtxt::read(path).points, mesh.points));
  mesh.cells[0] = CellBlock{"polygon", int64_matrix(1, 3, {0, 1, 2}), {}, {}};
  EXPECT_THROW(mphtxt::write(path, mesh, {}), std::invalid_argument);
}

TEST(Mphtxt, MalformedInputIsAReadErrorWithItsLine) {
  const std::string head = "0 1\n1 # tags\n5 mesh1\n1 # types\n3 obj\n0 0 1\n4 Mesh # class\n4 # version\n2 # sdim\n";
  const std::string points = "3 # points\n0 # lowest\n0 0\n1 0\n0 1\n";
  const auto fails = [](const std::string& name, const std::string& text) {
    return expect_read_error([&] { mphtxt::read(write_scratch(name, text)); });
  };
  EXPECT_EQ(mphtxt::read(write_scratch("ok.mphtxt", head + points + "1\n3 tri\n3\n1\n0 1 2\n1\n7\n")).cells[0].num_cells(), 1);
  ReadError error = fails("a.mphtxt", head + points + "1\n3 tri\n3\n1\n0 1 3\n1\n7\n");
  EXPECT_NE(error.reason().find("tri element 0 refers to point 3, outside the object's 3 points from 0"), std::string::npos)
      << error.what();
  EXPECT_EQ(error.line(), 19u);
  error = fails("b.mphtxt", head + points + "1\n3 tri\n4\n1\n0 1 2 0\n1\n7\n");
  EXPECT_NE(error.reason().find("tri elements have 3 nodes"), std::string::npos) << error.what();
  error = fails("c.mphtxt", head + points + "1\n4 tri9\n3\n");
  EXPECT_NE(error.reason().find("element type 'tri9' is not read"), std::string::npos) << error.what();
  error = fails("d.mphtxt", head + points + "1\n3 tri\n3\n1\n0 1\n");
  EXPECT_NE(error.reason().find("unexpected end of file"), std::string::npos) << error.what();
  error = fails("e.mphtxt", head + points + "1\n3 tri\n3\n1\n0 1 2\n2\n7 7\n");
  EXPECT_NE(error.reason().find("2 geometric entity indices for 1 tri elements"), std::string::npos) << error.what();
  error = fails("f.mphtxt", head + "99999999999 # points\n0\n0 0\n");
  EXPECT_NE(error.reason().find("mesh points"), std::string::npos) << error.what();
  error = fails("g.mphtxt", "0 1\n1\n5 mesh1\n1\n3 obj\n0 0 1\n5 Geom2 # class\n");
  EXPECT_NE(error.reason().find("object 0 is a 'Geom2', not a Mesh"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 7u);
  error = fails("h.mphtxt", "0 1\n1\n6 mesh1\n");
  EXPECT_NE(error.reason().find("announced with 6 characters"), std::string::npos) << error.what();
  error = fails("i.mphtxt", "0 1\n1\n5 mesh1\n1\n3 obj\n0 0 1\n4 Mesh\n3 # version\n");
  EXPECT_NE(error.reason().find("Mesh version 3"), std::string::npos) << error.what();
  error = fails("j.mphtxt", head + "3 # points\n0 # lowest\n0 0\n1 x\n");
  EXPECT_NE(error.reason().find("invalid number 'x'"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 13u);
}

// Coordinates and elements of a large file are read on all cores, one line a record; the same
// mesh (or error) at one thread and two, and layouts the token loop reads alike (a record
// over two lines, a comment) give the same mesh as the plain file.
TEST(Mphtxt, LargeSectionsOnAllCoresAsOnOne) {
  const std::int64_t points = 120000, cells = 200000;
  std::vector<double> xyz(static_cast<std::size_t>(3 * points));
  for (std::size_t i = 0; i < xyz.size(); ++i) xyz[i] = std::sin(0.37 * static_cast<double>(i)) / 3.0;
  std::vector<std::int64_t> tets(static_cast<std::size_t>(4 * cells));
  for (std::size_t i = 0; i < tets.size(); ++i) tets[i] = static_cast<std::int64_t>((i * 7919) % static_cast<std::size_t>(points));
  Mesh mesh;
  mesh.points = array_of<double>({points, 3}, xyz);
  mesh.cells.push_back(CellBlock{"tetra", int64_matrix(cells, 4, tets), {}, {}});
  const std::string path = scratch("large.mphtxt").string();
  mphtxt::write(path, mesh, {});
  const std::string text = read_file(path);
  ASSERT_GT(text.size(), std::size_t{10} << 20);

  const auto read_both = [](const std::string& file) {
    set_thread_count(1);
    Mesh one = mphtxt::read(file);
    set_thread_count(2);
    Mesh two = mphtxt::read(file);
    set_thread_count(0);
    EXPECT_TRUE(same_bits(one.points, two.points));
    EXPECT_EQ(nodes_of(one.cells.at(0)), nodes_of(two.cells.at(0)));
    EXPECT_EQ(int_values(entities(one)[0]), int_values(entities(two)[0]));
    return two;
  };
  const Mesh back = read_both(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_EQ(nodes_of(back.cells.at(0)), tets);

  // Point 100000 over two lines with a comment, element 150000 too: the token loop's layout.
  const auto line_of = [&](const std::string& in, std::int64_t first_line_of_section, std::int64_t row) {
    std::size_t at = first_line_of_section;
    for (std::int64_t r = 0; r < row; ++r) at = in.find('\n', at) + 1;
    return at;
  };
  const std::size_t points_begin = text.find('\n', text.find("# Mesh vertex coordinates")) + 1;
  const std::size_t elements_begin = text.find('\n', text.find("# Elements")) + 1;
  std::string split = text;
  const std::size_t element_line = line_of(split, static_cast<std::int64_t>(elements_begin), 150000);
  split.replace(split.find(' ', element_line), 1, " # a comment\n");
  const std::size_t point_line = line_of(split, static_cast<std::int64_t>(points_begin), 100000);
  split.replace(split.find(' ', point_line), 1, "\n");
  const Mesh from_split = read_both(write_scratch("split.mphtxt", split));
  EXPECT_TRUE(same_bits(from_split.points, mesh.points));
  EXPECT_EQ(nodes_of(from_split.cells.at(0)), tets);

  // An element naming a point past the end, deep in the section: one error, whatever the threads.
  std::string broken = text;
  const std::size_t bad_line = line_of(broken, static_cast<std::int64_t>(elements_begin), 180000);
  broken.replace(bad_line, broken.find(' ', bad_line) - bad_line, "120000");
  const std::string broken_path = write_scratch("broken.mphtxt", broken);
  std::vector<std::string> messages;
  for (unsigned threads : {1u, 2u}) {
    set_thread_count(threads);
    const ReadError error = expect_read_error([&] { mphtxt::read(broken_path); });
    set_thread_count(0);
    EXPECT_NE(error.reason().find("tet element 180000 refers to point 120000"), std::string::npos) << error.what();
    EXPECT_EQ(error.byte_offset(), bad_line);
    messages.push_back(error.what());
  }
  EXPECT_EQ(messages[0], messages[1]);
}
