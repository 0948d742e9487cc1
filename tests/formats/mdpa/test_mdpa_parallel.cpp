// A large MDPA file is read on all cores (mdpa_reader.cpp: the line marks of the first pass,
// the Nodes and Elements blocks of the second): the same arrays as on one thread, and every
// error reported where and as one thread reports it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "formats/mdpa/mdpa.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// An n×n×n grid of nodes numbered from 10 in steps of 2 (ids with gaps), one tetrahedron per
// node but the last layer, as meshio writes: "Begin Nodes" / "Begin Elements Tetrahedra3D4".
std::string grid(int n) {
  std::string text = "Begin ModelPartData\n//  VARIABLE_NAME value\nEnd ModelPartData\n\nBegin Nodes\n";
  const auto id = [&](int i, int j, int k) { return std::to_string(10 + 2 * ((i * n + j) * n + k)); };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k)
        text += " " + id(i, j, k) + " " + std::to_string(i * 0.125) + " " + std::to_string(j * 0.25) + " " +
                std::to_string(k * 1e-3) + "\n";
  text += "End Nodes\n\nBegin Elements Tetrahedra3D4\n";
  int element = 1;
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j)
      for (int k = 0; k + 1 < n; ++k)
        text += " " + std::to_string(element++) + " " + std::to_string(k % 3) + "  " + id(i, j, k) + " " + id(i + 1, j, k) +
                " " + id(i, j + 1, k) + " " + id(i, j, k + 1) + "\n";
  return text + "End Elements\n\nBegin SubModelPart corner\n Begin SubModelPartNodes\n 10\n 12\n End SubModelPartNodes\n"
                "End SubModelPart\n";
}

Mesh read_with_threads(const std::string& path, unsigned threads) {
  set_thread_count(threads);
  Mesh mesh = mdpa::read(path);
  set_thread_count(0);
  return mesh;
}

std::string error_with_threads(const std::string& path, unsigned threads) {
  set_thread_count(threads);
  const ReadError error = expect_read_error([&] { mdpa::read(path); });
  set_thread_count(0);
  return std::string(error.what()) + " @ line " + (error.line() ? std::to_string(*error.line()) : std::string("?"));
}

}  // namespace

TEST(MdpaParallel, ALargeFileReadsTheSameOnOneAndTwoThreads) {
  ScratchDir dir;
  const int n = 70;
  const std::string text = grid(n);
  ASSERT_GT(text.size(), 3 * io::kParallelLinesMinBytes) << "the file must take the parallel paths";
  const std::string path = dir.write("grid.mdpa", text);
  const Mesh one = read_with_threads(path, 1);
  const Mesh two = read_with_threads(path, 2);
  ASSERT_EQ(two.cells.size(), 1u);
  EXPECT_EQ(two.num_points(), n * n * n);
  EXPECT_EQ(two.cells[0].num_cells(), (n - 1) * (n - 1) * (n - 1));
  EXPECT_TRUE(same_bits(one.points, two.points));
  EXPECT_TRUE(same_bits(one.cells[0].connectivity, two.cells[0].connectivity));
  EXPECT_TRUE(same_bits(one.cell_data.find("mdpa:property")->at(0), two.cell_data.find("mdpa:property")->at(0)));
  // Node ids 10, 12, … are positions 0, 1, …: the first element is (0, n², n, 1).
  const std::int64_t* first = two.cells[0].connectivity.data_as<std::int64_t>();
  EXPECT_EQ(std::vector<std::int64_t>(first, first + 4), (std::vector<std::int64_t>{0, n * n, n, 1}));
  EXPECT_DOUBLE_EQ(two.points.data_as<double>()[3 * (n * n * n - 1)], (n - 1) * 0.125);
  ASSERT_EQ(two.regions.size(), 1u);
  EXPECT_EQ(two.regions[0].entries.size(), 2);
}

TEST(MdpaParallel, OtherLayoutsAndErrorsAreReadAsOnOneThread) {
  ScratchDir dir;
  const std::string text = grid(70);
  const std::size_t node = text.find("\n 20000 ");
  ASSERT_NE(node, std::string::npos);
  // A comment and a blank line inside the large blocks: the sequential loops read them.
  std::string commented = text;
  commented.insert(text.find("End Elements") - 1, "\n// a comment\n");
  commented.insert(node, "\n");
  const std::string commented_path = dir.write("commented.mdpa", commented);
  const Mesh one = read_with_threads(commented_path, 1);
  const Mesh two = read_with_threads(commented_path, 2);
  EXPECT_TRUE(same_bits(one.points, two.points));
  EXPECT_TRUE(same_bits(one.cells[0].connectivity, two.cells[0].connectivity));
  EXPECT_EQ(two.num_points(), 70 * 70 * 70);

  // A broken number in each block, an undefined node, text outside any block far into the file.
  const std::size_t in_elements = text.find('\n', text.find("Begin Elements") + text.size() / 8) + 3;
  const std::size_t in_nodes = text.find('\n', text.size() / 8) + 4;
  std::vector<std::string> broken(4, text);
  broken[0][in_elements] = 'x';
  broken[1][in_nodes] = 'x';
  broken[2].replace(text.find(" 10 ", text.find("Begin Elements")), 4, " 11 ");
  broken[3].insert(text.find("Begin Elements"), "stray text\n");
  for (std::size_t i = 0; i < broken.size(); ++i) {
    const std::string path = dir.write("broken" + std::to_string(i) + ".mdpa", broken[i]);
    const std::string sequential = error_with_threads(path, 1);
    EXPECT_EQ(sequential, error_with_threads(path, 2)) << "case " << i;
    EXPECT_EQ(sequential.find("@ line ?"), std::string::npos) << sequential;
  }
}
