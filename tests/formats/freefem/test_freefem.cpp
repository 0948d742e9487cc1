// FreeFEM 2-D .msh: FreeFEM's own files (counts, sums and labels as the file declares them and
// as meshio++ 17.21 reads them), the .msh sniff among Gmsh, Fluent and FreeFEM, round trips
// bit for bit, the writer's refusals, and malformed input with its line and offset.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "formats/freefem/freefem.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& dir, const std::string& name) {
  return (meshioplusplus::testing::test_data_dir() / dir / name).string();
}

std::int64_t sum_of(const NDArray& array) {
  const std::vector<std::int64_t> values = int_values(array);
  return std::accumulate(values.begin(), values.end(), std::int64_t{0});
}

const std::vector<NDArray>& refs(const Mesh& mesh) {
  const auto* arrays = mesh.cell_data.find("freefem:ref");
  EXPECT_NE(arrays, nullptr);
  return *arrays;
}

struct Expected {
  const char* name;
  std::int64_t vertices, triangles, edges;
  std::int64_t triangle_node_sum, edge_node_sum;  // 0-based, as meshio++ 17.21 reads them
  double point_sum;
  std::int64_t vertex_label_sum, triangle_label_sum, edge_label_sum;
};

// Figures from meshio++ 17.21 (bench/.venv-meshioplusplus-17) and the files' own count lines.
const Expected kFiles[] = {
    {"Th.msh", 9, 8, 8, 96, 64, 9.0, 23, 0, 20},
    {"torture.msh", 35, 33, 35, 1617, 1190, -106.15962843, 0, 0, 0},
    {"aile.msh", 112, 184, 40, 34911, 1560, -235.2150685, 40, 184, 40},
    {"lac-leman-v4.msh", 726, 1287, 163, 1526183, 26406, 1736.8504783199994, 0, 0, 1827},
    {"triQA.msh", 392, 669, 113, 401017, 40362, 307.64975799, 113, 0, 241},
};

}  // namespace

TEST(Freefem, ReadsFreefemsOwnFiles) {
  for (const Expected& file : kFiles) {
    SCOPED_TRACE(file.name);
    const Mesh mesh = freefem::read(data_file("freefem", file.name));
    ASSERT_EQ(mesh.num_points(), file.vertices);
    EXPECT_EQ(mesh.points.dim(1), 2);
    ASSERT_EQ(mesh.cells.size(), 2u);
    EXPECT_EQ(mesh.cells[0].type, "triangle");
    EXPECT_EQ(mesh.cells[1].type, "line");
    EXPECT_EQ(mesh.cells[0].num_cells(), file.triangles);
    EXPECT_EQ(mesh.cells[1].num_cells(), file.edges);
    EXPECT_EQ(sum_of(mesh.cells[0].connectivity), file.triangle_node_sum);
    EXPECT_EQ(sum_of(mesh.cells[1].connectivity), file.edge_node_sum);
    EXPECT_NEAR(point_sum(mesh), file.point_sum, 1e-9 * (1 + std::abs(file.point_sum)));
    EXPECT_EQ(sum_of(*mesh.point_data.find("freefem:ref")), file.vertex_label_sum);
    EXPECT_EQ(sum_of(refs(mesh)[0]), file.triangle_label_sum);
    EXPECT_EQ(sum_of(refs(mesh)[1]), file.edge_label_sum);
    EXPECT_TRUE(mesh.regions.empty());
  }
}

TEST(Freefem, SquareValuesExactly) {
  const Mesh mesh = freefem::read(data_file("freefem", "Th.msh"));
  const auto xy = mesh.points.values<double>();
  EXPECT_EQ(std::vector<double>(xy.begin(), xy.begin() + 6), (std::vector<double>{0, 0, 0.5, 0, 1, 0}));
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4,
                                                                3, 4, 7, 3, 7, 6, 4, 5, 8, 4, 8, 7}));
  EXPECT_EQ(int_values(refs(mesh)[1]), (std::vector<std::int64_t>{1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_EQ(int_values(*mesh.point_data.find("freefem:ref")), (std::vector<std::int64_t>{4, 1, 2, 4, 0, 2, 4, 3, 3}));
}

TEST(Freefem, MshSniffSendsEachClaimantsFileToItsReader) {
  // FreeFEM's, Gmsh's (from FreeFEM's unit assets) and Fluent's (foam-extend) real files.
  const Mesh freefem_mesh = read(data_file("freefem", "aile.msh"));
  EXPECT_EQ(freefem_mesh.cells[0].num_cells(), 184);
  EXPECT_NE(freefem_mesh.cell_data.find("freefem:ref"), nullptr);
  const Mesh gmsh_mesh = read(data_file("freefem", "gmsh_mesh.msh"));
  EXPECT_EQ(gmsh_mesh.num_points(), 64);
  EXPECT_EQ(gmsh_mesh.cell_data.find("freefem:ref"), nullptr);
  const Mesh fluent_mesh = read(data_file("ansys", "elbow.msh"));
  EXPECT_GT(fluent_mesh.num_points(), 0);
  EXPECT_EQ(fluent_mesh.cell_data.find("freefem:ref"), nullptr);

  // A write to .msh without a format name stays Gmsh; named, it is FreeFEM.
  const std::string path = scratch("default.msh").string();
  write(path, freefem_mesh);
  EXPECT_EQ(read_file(path).substr(0, 11), "$MeshFormat");
  write(path, freefem_mesh, "freefem");
  EXPECT_EQ(read_file(path).substr(0, 11), "112 184 40\n");
  EXPECT_EQ(read(path).cells[0].num_cells(), 184);

  EXPECT_TRUE(freefem::looks_like("9 8 8\n0 0 4\n"));
  EXPECT_TRUE(freefem::looks_like("\n  726 1287 163\r\n  -3.1E+01"));
  EXPECT_FALSE(freefem::looks_like("$MeshFormat\n2.2 0 8\n"));
  EXPECT_FALSE(freefem::looks_like("(0 \"comment\")\n"));
  EXPECT_FALSE(freefem::looks_like("9 8\n"));
  EXPECT_FALSE(freefem::looks_like("9 8 8 1\n"));
  EXPECT_FALSE(freefem::looks_like("9 8 -8\n"));
  EXPECT_FALSE(freefem::looks_like("9 8 8.0\n"));
  EXPECT_FALSE(freefem::looks_like(""));
}

TEST(Freefem, RoundTripsBitForBit) {
  Mesh mesh;
  mesh.points = array_of<double>({5, 2}, {0, 0, 1.0 / 3, 0, 1, 0.1, 0, 1e-300, -2.5e17, 7});
  mesh.cells.push_back(CellBlock{"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}});
  mesh.cells.push_back(CellBlock{"line", int64_matrix(2, 2, {0, 1, 3, 4}), {}, {}});
  mesh.cells.push_back(CellBlock{"triangle", int64_matrix(1, 3, {2, 3, 4}), {}, {}});
  mesh.point_data.set("freefem:ref", int64_vector({1, 2, 3, -4, std::numeric_limits<std::int32_t>::max()}));
  mesh.cell_data.set("freefem:ref", {int64_vector({5, 6}), int64_vector({7, 8}), int64_vector({9})});
  const std::string path = scratch("round.msh").string();
  freefem::write(path, mesh, {});
  const Mesh back = freefem::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), 2u);  // triangles gathered, then the lines
  EXPECT_EQ(nodes_of(back.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3, 2, 3, 4}));
  EXPECT_EQ(nodes_of(back.cells[1]), (std::vector<std::int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(int_values(*back.point_data.find("freefem:ref")), int_values(*mesh.point_data.find("freefem:ref")));
  EXPECT_EQ(int_values(refs(back)[0]), (std::vector<std::int64_t>{5, 6, 9}));
  EXPECT_EQ(int_values(refs(back)[1]), (std::vector<std::int64_t>{7, 8}));

  // A real file: written back, read again, the same arrays.
  const Mesh real = freefem::read(data_file("freefem", "lac-leman-v4.msh"));
  freefem::write(path, real, {});
  const Mesh again = freefem::read(path);
  EXPECT_TRUE(same_bits(again.points, real.points));
  EXPECT_EQ(nodes_of(again.cells[0]), nodes_of(real.cells[0]));
  EXPECT_EQ(int_values(refs(again)[1]), int_values(refs(real)[1]));
}

TEST(Freefem, WriterTakesFlatThreeDimensionalPointsAndRefusesTheRest) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 3}, {0, 0, 0, 1, 0, -0.0, 0, 1, 0});
  mesh.cells.push_back(CellBlock{"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  const std::string path = scratch("flat.msh").string();
  freefem::write(path, mesh, {});
  EXPECT_EQ(read_file(path), "3 1 0\n0 0 0\n1 0 0\n0 1 0\n1 2 3 0\n");

  Mesh lifted = mesh;
  lifted.points = array_of<double>({3, 3}, {0, 0, 0, 1, 0, 0.5, 0, 1, 0});
  EXPECT_THROW(freefem::write(path, lifted, {}), std::invalid_argument);
  Mesh quads = mesh;
  quads.cells[0] = CellBlock{"quad", int64_matrix(1, 4, {0, 1, 2, 0}), {}, {}};
  EXPECT_THROW(freefem::write(path, quads, {}), std::invalid_argument);
  EXPECT_EQ(read_file(path), "3 1 0\n0 0 0\n1 0 0\n0 1 0\n1 2 3 0\n");  // left as it was
}

TEST(Freefem, RecordsWrappedOrRunTogetherReadAsTokens) {
  // FreeFEM reads a stream of numbers: the line layout does not matter to it.
  const Mesh mesh = freefem::read(write_scratch("wrapped.msh", "3 1 1\n0 0 1 1 0 1\n0\n1 1\n1 2 3\n7 1 2 5\n"));
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(int_values(refs(mesh)[0]), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(int_values(refs(mesh)[1]), (std::vector<std::int64_t>{5}));
  const Mesh points_only = freefem::read(write_scratch("points.msh", "2 0 0\n0 0 0\n1 1 0\n"));
  EXPECT_EQ(points_only.num_points(), 2);
  EXPECT_TRUE(points_only.cells.empty());
}

TEST(Freefem, MalformedInputIsAReadErrorWithItsLine) {
  const auto fails = [](const std::string& name, const std::string& text) {
    return expect_read_error([&] { freefem::read(write_scratch(name, text)); });
  };
  ReadError error = fails("a.msh", "3 1 0\n0 0 1\n1 0 1\n0 1 1\n1 2 4 0\n");
  EXPECT_NE(error.reason().find("triangle 1 of 1 refers to vertex 4, outside 1..3"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 5u);
  EXPECT_EQ(error.byte_offset(), 28u);

  error = fails("b.msh", "3 1 1\n0 0 1\n1 0 1\n0 1 1\n1 2 3 0\n0 1 1\n");
  EXPECT_NE(error.reason().find("boundary edge 1 of 1 refers to vertex 0"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 6u);

  error = fails("c.msh", "3 1 0\n0.000 0.000 1\n1.000 0.000 1\n");
  EXPECT_NE(error.reason().find("unexpected end of file in vertex 3 of 3"), std::string::npos) << error.what();

  error = fails("d.msh", "3 1 0\n0 0 1\n1 0 1\n0 1 1\n1 2\n");
  EXPECT_NE(error.reason().find("unexpected end of file in triangle 1 of 1"), std::string::npos) << error.what();

  error = fails("e.msh", "3 1 0\n0 0 1\n1 x 1\n0 1 1\n1 2 3 0\n");
  EXPECT_NE(error.reason().find("invalid number 'x'"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 3u);

  error = fails("f.msh", "3 -1 0\n");
  EXPECT_NE(error.reason().find("negative triangle count"), std::string::npos) << error.what();

  error = fails("g.msh", "3 1\n0 0 1\n");
  EXPECT_NE(error.reason().find("exactly three counts"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 2u);

  error = fails("h.msh", "999999999999 1 0\n0 0 1\n");
  EXPECT_NE(error.reason().find("claims 999999999999 vertices"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 1u);

  error = fails("i.msh", "3 1 0\n0 0 1\n1 0 1\n0 1 1\n1 2 3 0\n1 2 3 0\n");
  EXPECT_NE(error.reason().find("text after the last boundary edge"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 6u);

  error = fails("j.msh", "4 1 0\n0 0 0 1\n1 0 0 1\n0 1 0 1\n0 0 1 1\n1 2 3 4 0\n");
  EXPECT_NE(error.reason().find("FreeFEM's 3-D .msh layout"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 2u);

  error = fails("k.msh", "  \n\n");
  EXPECT_NE(error.reason().find("only white space"), std::string::npos) << error.what();

  error = fails("l.msh", "3 1 0\n0 0 1\n1 0 1\n0 1 1\n1 2 3 99999999999999999999\n");
  EXPECT_NE(error.reason().find("invalid number"), std::string::npos) << error.what();
}
