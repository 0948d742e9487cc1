// MSH 2.2 ASCII sections large enough to be read line by line on all cores ($Nodes, and
// $Elements in several runs of mixed types): the same mesh at 1 and 2 threads, and the same
// error (message, offset, line) where a line deep in a section is broken.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/gmsh/gmsh.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// 100 k nodes, then runs of lines, triangles, tetrahedra and triangles again, with physical
// and elementary tags: both sections well over 4 MiB.
std::string large_msh22() {
  constexpr int kNodes = 100000;
  std::string text = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n" + std::to_string(kNodes) + "\n";
  for (int i = 0; i < kNodes; ++i)
    text += std::to_string(i + 1) + " " + std::to_string(0.001 * i) + " " + std::to_string(1.0 / (i + 1)) + " -" +
            std::to_string(i % 13) + ".5e-3\n";
  struct Run {
    int gmsh_type, nodes, count;
  };
  const std::vector<Run> runs{{1, 2, 20000}, {2, 3, 40000}, {4, 4, 90000}, {2, 3, 30000}};
  int total = 0;
  for (const Run& run : runs) total += run.count;
  text += "$EndNodes\n$Elements\n" + std::to_string(total) + "\n";
  int tag = 0;
  for (const Run& run : runs)
    for (int e = 0; e < run.count; ++e, ++tag) {
      text += std::to_string(tag + 1) + " " + std::to_string(run.gmsh_type) + " 2 " + std::to_string(tag % 5) + " " +
              std::to_string(run.gmsh_type * 10);
      for (int n = 0; n < run.nodes; ++n) text += " " + std::to_string((tag * 7 + n * 31) % kNodes + 1);
      text += "\n";
    }
  return text + "$EndElements\n";
}

}  // namespace

TEST(Msh22Lines, LargeFileIsTheSameAtOneAndTwoThreads) {
  const ScratchDir dir;
  const std::string path = dir.write("large.msh", large_msh22());
  const Mesh one = read_at_threads(1, [&] { return gmsh::read(path); });
  const Mesh two = read_at_threads(2, [&] { return gmsh::read(path); });
  ASSERT_EQ(one.points.rows(), 100000);
  EXPECT_TRUE(same_bits(one.points, two.points));
  EXPECT_DOUBLE_EQ(one.points.data_as<double>()[3 * 99999 + 1], 1.0 / 100000);
  ASSERT_EQ(one.cells.size(), 4u);  // line, triangle, tetra, triangle: meshio's cuts
  ASSERT_EQ(two.cells.size(), 4u);
  EXPECT_EQ(one.cells[1].type, "triangle");
  EXPECT_EQ(one.cells[1].num_cells(), 40000);
  EXPECT_EQ(one.cells[3].num_cells(), 30000);
  for (std::size_t b = 0; b < one.cells.size(); ++b) {
    EXPECT_EQ(one.cells[b].type, two.cells[b].type);
    EXPECT_TRUE(same_bits(one.cells[b].connectivity, two.cells[b].connectivity)) << b;
  }
  for (const char* name : {"gmsh:physical", "gmsh:geometrical"}) {
    const std::vector<NDArray>* a = one.cell_data.find(name);
    const std::vector<NDArray>* b = two.cell_data.find(name);
    ASSERT_TRUE(a != nullptr && b != nullptr) << name;
    ASSERT_EQ(a->size(), b->size());
    for (std::size_t i = 0; i < a->size(); ++i) EXPECT_TRUE(same_bits((*a)[i], (*b)[i])) << name;
  }
}

TEST(Msh22Lines, ErrorsDeepInALargeFileAreTheSequentialReadersOwn) {
  const ScratchDir dir;
  const std::string text = large_msh22();
  struct Case {
    std::string find, replace, message;
  };
  for (const Case& c : std::vector<Case>{{"\n50001 50.000000", "\n50001 50.0x0000", "invalid number"},
                                         {"\n100001 4 2 ", "\n100001 4 2 x", "invalid number"},
                                         {"\n170001 2 2 ", "\n170001 250 2 ", "not supported"}}) {
    std::string bad = text;
    const std::size_t at = bad.find(c.find);
    ASSERT_NE(at, std::string::npos) << c.find;
    bad.replace(at, c.find.size(), c.replace);
    const std::string path = dir.write("bad.msh", bad);
    set_thread_count(1);
    const ReadError one = expect_read_error([&] { gmsh::read(path); });
    set_thread_count(2);
    const ReadError two = expect_read_error([&] { gmsh::read(path); });
    set_thread_count(0);
    EXPECT_NE(std::string(one.what()).find(c.message), std::string::npos) << one.what();
    EXPECT_EQ(std::string(one.what()), std::string(two.what()));
    EXPECT_EQ(one.byte_offset(), two.byte_offset());
    EXPECT_EQ(one.line(), two.line());
  }
}

// Two blocks of one type in a row, written by our writer: its $MeshioplusplusBlocks ends the
// first where meshio's cuts would join them, in the all-cores read as in the sequential one.
TEST(Msh22Lines, WrittenBlocksOfOneTypeStayApartAtOneAndTwoThreads) {
  constexpr std::int64_t kPoints = 60000, kCells = 120000;
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {kPoints, 3});
  for (std::int64_t i = 0; i < 3 * kPoints; ++i) mesh.points.data_as<double>()[i] = 0.001 * static_cast<double>(i % 7919);
  for (int b = 0; b < 2; ++b) {
    CellBlock block;
    block.type = "triangle";
    block.connectivity = NDArray::allocate(DType::int64, {kCells, 3});
    for (std::int64_t i = 0; i < 3 * kCells; ++i)
      block.connectivity.data_as<std::int64_t>()[i] = (i * 7 + b) % kPoints;
    mesh.cells.push_back(block);
  }
  WriteOptions options;
  options.set("fmt_version", "2.2");
  options.set("binary", "false");
  const ScratchDir dir;
  const std::string path = dir.file("blocks.msh");
  gmsh::write(path, mesh, options);
  const Mesh one = read_at_threads(1, [&] { return gmsh::read(path); });
  const Mesh two = read_at_threads(2, [&] { return gmsh::read(path); });
  ASSERT_EQ(two.cells.size(), 2u);
  ASSERT_EQ(one.cells.size(), 2u);
  for (std::size_t b = 0; b < 2; ++b) {
    EXPECT_EQ(two.cells[b].num_cells(), kCells);
    EXPECT_TRUE(same_bits(one.cells[b].connectivity, two.cells[b].connectivity)) << b;
    EXPECT_TRUE(same_bits(mesh.cells[b].connectivity, two.cells[b].connectivity)) << b;
  }
}
