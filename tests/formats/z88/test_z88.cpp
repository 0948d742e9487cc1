// Z88 structure files: the Z88OS examples (tests/data/z88), node orders checked by geometry,
// round trips, the registry's fixed file names and malformed files naming their line.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/z88/z88.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

const fs::path kDataDir = meshioplusplus::testing::test_data_dir() / "z88";

std::string data(const std::string& example) {
  const fs::path path = kDataDir / example / "z88i1.txt";
  EXPECT_TRUE(fs::exists(path)) << "tests/data/z88/" << example << " is missing (tests/data/MANIFEST.tsv)";
  return path.string();
}

// The signed volume of a VTK hexahedron's corner tetrahedron at node 0.
double corner_volume(const Mesh& mesh, const std::vector<std::int64_t>& nodes, std::size_t cell, std::size_t width) {
  const double* xyz = mesh.points.data_as<double>();
  const auto p = [&](int k) { return xyz + 3 * nodes[cell * width + k]; };
  std::array<double, 3> a{}, b{}, c{};
  for (int k = 0; k < 3; ++k) a[k] = p(1)[k] - p(0)[k], b[k] = p(3)[k] - p(0)[k], c[k] = p(4)[k] - p(0)[k];
  return (a[1] * b[2] - a[2] * b[1]) * c[0] + (a[2] * b[0] - a[0] * b[2]) * c[1] + (a[0] * b[1] - a[1] * b[0]) * c[2];
}

const char* const kSmall =
    "3 5 2 15 0\n"
    "1 3 0 0 0\n"
    "2 3 1 0 0\n"
    "3 3 0 1 0\n"
    "4 3 0 0 1\n"
    "5 3 1 1 1\n"
    "1 17\n"
    "1 2 3 4\n"
    "2 4\n"
    "4 5\n";

}  // namespace

TEST(Z88Read, ExamplesCountsAndSums) {
  struct Example {
    const char* name;
    std::int64_t dim, nodes;
    const char* blocks;
    double sum;
  };
  for (const Example& example : {Example{"b1", 2, 249, "quad8:66", 30067.578879999972},
                                 Example{"b2", 3, 20, "line:54", 152000.0},
                                 Example{"b5", 3, 126, "hexahedron:48", 7322.6940375099002},
                                 Example{"b18", 2, 625, "quad16:64", 749999.99999999965},
                                 Example{"b24", 3, 1664, "triangle6:808", 832447.22759999963}}) {
    const Mesh mesh = z88::read(data(example.name));
    EXPECT_EQ(mesh.points.shape(), (Shape{example.nodes, example.dim})) << example.name;
    EXPECT_EQ(block_summary(mesh), example.blocks) << example.name;
    EXPECT_NEAR(point_sum(mesh), example.sum, 1e-6 * std::abs(example.sum)) << example.name;
    ASSERT_NE(mesh.point_data.find("z88:dof"), nullptr);
  }
  const Mesh trusses = z88::read(data("b2"));
  EXPECT_EQ(int_values((*trusses.cell_data.find("z88:type"))[0])[0], 4);
  EXPECT_EQ(int_values(*trusses.point_data.find("z88:dof"))[0], 3);
}

TEST(Z88Read, HexahedraTurnPositiveInVtkOrder) {
  const Mesh mesh = z88::read(data("b5"));
  const std::vector<std::int64_t> nodes = nodes_of(mesh.cells[0]);
  for (std::size_t cell = 0; cell < 48; ++cell) EXPECT_GT(corner_volume(mesh, nodes, cell, 8), 0.0) << cell;
}

TEST(Z88Read, Quad16IsALagrangeQuadrilateral) {
  // VTK's Lagrange quadrilateral: corners, then edge nodes at thirds along each edge.
  const Mesh mesh = z88::read(data("b18"));
  const double* xy = mesh.points.data_as<double>();
  const std::vector<std::int64_t> nodes = nodes_of(mesh.cells[0]);
  const auto at = [&](int k, int axis) { return xy[2 * nodes[k] + axis]; };
  for (int axis = 0; axis < 2; ++axis) {
    EXPECT_NEAR(at(4, axis), (2 * at(0, axis) + at(1, axis)) / 3, 1e-2);
    EXPECT_NEAR(at(6, axis), (2 * at(1, axis) + at(2, axis)) / 3, 1e-2);
    EXPECT_NEAR(at(8, axis), (2 * at(3, axis) + at(2, axis)) / 3, 1e-2);
    EXPECT_NEAR(at(10, axis), (2 * at(0, axis) + at(3, axis)) / 3, 1e-2);
  }
}

TEST(Z88RoundTrip, ExamplesKeepPointsCellsAndTypes) {
  for (const char* name : {"b1", "b2", "b5", "b18", "b24"}) {
    const Mesh mesh = z88::read(data(name));
    const std::string out = scratch(std::string(name) + ".z88").string();
    z88::write(out, mesh, {});
    const Mesh back = z88::read(out);
    EXPECT_TRUE(same_bits(back.points, mesh.points)) << name;
    ASSERT_EQ(block_summary(back), block_summary(mesh)) << name;
    EXPECT_EQ(nodes_of(back.cells[0]), nodes_of(mesh.cells[0])) << name;
    EXPECT_EQ(int_values((*back.cell_data.find("z88:type"))[0]), int_values((*mesh.cell_data.find("z88:type"))[0])) << name;
    EXPECT_EQ(int_values(*back.point_data.find("z88:dof")), int_values(*mesh.point_data.find("z88:dof"))) << name;
  }
}

TEST(Z88Write, DefaultsTypesDimensionAndDofs) {
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  mesh.cells.push_back(CellBlock{"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back(CellBlock{"line", int64_matrix(1, 2, {0, 3}), {}, {}});
  const std::string out = scratch("z88i1.txt").string();
  z88::write(out, mesh, {});
  EXPECT_EQ(read_file(out), "3 4 2 12 0\n1 3 0 0 0\n2 3 1 0 0\n3 3 0 1 0\n4 3 0 0 1\n1 17\n1 2 3 4\n2 4\n1 4\n");
  EXPECT_EQ(format_for_path(out)->name, "z88");
  EXPECT_EQ(format_for_path("/some/where/Z88I1.TXT")->name, "z88");
  EXPECT_EQ(read(out).num_cells(), 2);

  Mesh plane;
  plane.points = array_of<double>({3, 2}, {0, 0, 1, 0, 0, 1});
  plane.cells.push_back(CellBlock{"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  z88::write(out, plane, {});
  EXPECT_EQ(read_file(out), "2 3 1 6 0\n1 2 0 0\n2 2 1 0\n3 2 0 1\n1 6\n1 2 3\n");
  plane.cells[0].type = "quad";
  plane.cells[0].connectivity = int64_matrix(1, 4, {0, 1, 2, 0});
  EXPECT_THROW(z88::write(scratch("quad.z88").string(), plane, {}), WriteError);
}

TEST(Z88Read, PolarCoordinatesAndTrailingText) {
  const Mesh mesh = z88::read(write_scratch("polar.z88", "2 2 1 4 1  comment\n1 2 2 90 Knoten\n2 2 1 0\n1 9\n1 2\n"));
  const double* xy = mesh.points.data_as<double>();
  EXPECT_NEAR(xy[0], 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(xy[1], 2.0);
  EXPECT_DOUBLE_EQ(xy[2], 1.0);
}

TEST(Z88Errors, MalformedFilesNameTheLine) {
  std::string bad_node = kSmall;
  bad_node.replace(bad_node.find("4 5"), 3, "4 6");
  const ReadError out_of_range = expect_read_error([&] { z88::read(write_scratch("range.z88", bad_node)); });
  EXPECT_EQ(out_of_range.format(), "z88");
  EXPECT_EQ(out_of_range.line(), 10u);
  EXPECT_NE(out_of_range.reason().find("node 6"), std::string::npos) << out_of_range.what();

  std::string unknown = kSmall;
  unknown.replace(unknown.find("2 4\n"), 4, "2 26\n");
  EXPECT_NE(expect_read_error([&] { z88::read(write_scratch("unknown.z88", unknown)); }).reason().find("26"), std::string::npos);
  std::string unmapped = kSmall;
  unmapped.replace(unmapped.find("2 4\n"), 4, "2 11\n");
  EXPECT_NE(expect_read_error([&] { z88::read(write_scratch("unmapped.z88", unmapped)); }).reason().find("12-node"),
            std::string::npos);
  std::string dim = kSmall;
  dim[0] = '4';
  EXPECT_EQ(expect_read_error([&] { z88::read(write_scratch("dim.z88", dim)); }).line(), 1u);
  const std::string text = kSmall;
  for (std::size_t cut = 1; cut < text.size() - 1; cut += 3)
    EXPECT_THROW(z88::read(write_scratch("cut.z88", text.substr(0, cut))), ReadError) << cut;
  // Counts past the end of the file are refused before anything is allocated.
  EXPECT_THROW(z88::read(write_scratch("huge.z88", "3 900000000000 1 3 0\n1 3 0 0 0\n")), ReadError);
  EXPECT_THROW(z88::read(write_scratch("empty.z88", "\n\n")), ReadError);
}
