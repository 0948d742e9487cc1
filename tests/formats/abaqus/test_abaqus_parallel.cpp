// Large *NODE and *ELEMENT sections take the all-cores path (abaqus_reader.cpp): a comment
// inside a node section, a label given twice, and the same deck at one and two threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "formats/abaqus/abaqus.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

constexpr std::int64_t kNodes = 200000;
constexpr std::int64_t kElements = 200000;

// A deck whose node and element sections each pass io::kParallelLinesMinBytes. Line numbers:
// line 1 "*NODE", node n on line 1 + n, then "*ELEMENT, TYPE=C3D4", element e on line
// kNodes + 2 + e (plus one when `comment_at_node` puts a comment line after that node).
std::string deck(std::int64_t comment_at_node = -1, std::int64_t repeated_element = -1, std::int64_t repeated_node = -1) {
  std::string text = "*NODE\n";
  for (std::int64_t n = 1; n <= kNodes; ++n) {
    const std::int64_t label = n == repeated_node ? n - 1 : n;
    text += std::to_string(label) + ", " + std::to_string(n % 97) + ".25, " + std::to_string(n % 89) + ".5, -" +
            std::to_string(n % 83) + ".125\n";
    if (n == comment_at_node) text += "  ** an indented comment inside the section\n";
  }
  text += "*ELEMENT, TYPE=C3D4, ELSET=ALL\n";
  for (std::int64_t e = 1; e <= kElements; ++e) {
    const std::int64_t label = e == repeated_element ? e - 1 : e;
    const std::int64_t a = 1 + e % (kNodes - 4);
    text += std::to_string(label) + ", " + std::to_string(a) + ", " + std::to_string(a + 1) + ", " +
            std::to_string(a + 2) + ", " + std::to_string(a + 3) + "\n";
  }
  return text;
}

class AbaqusParallel : public ::testing::Test {
 protected:
  void SetUp() override { set_thread_count(2); }
  void TearDown() override { set_thread_count(0); }
};

}  // namespace

TEST_F(AbaqusParallel, SectionsReadOnAllCoresMatchOneThread) {
  ScratchDir dir;
  const std::string text = deck();
  const std::size_t elements_at = text.find("*ELEMENT");
  ASSERT_GT(elements_at, io::kParallelLinesMinBytes) << "the node section must take the parallel path";
  ASSERT_GT(text.size() - elements_at, io::kParallelLinesMinBytes) << "so must the element section";
  const std::string path = dir.write("big.inp", text);
  const Mesh two = abaqus::read(path);
  set_thread_count(1);
  const Mesh one = abaqus::read(path);
  ASSERT_EQ(two.num_points(), kNodes);
  ASSERT_EQ(two.cells.size(), 1u);
  EXPECT_EQ(two.cells[0].num_cells(), kElements);
  EXPECT_TRUE(same_bits(one.points, two.points));
  EXPECT_TRUE(same_bits(one.cells[0].connectivity, two.cells[0].connectivity));
  EXPECT_EQ(int_values(two.cells[0].connectivity)[0], 1);  // element 1: nodes 2.. → indices 1..
  EXPECT_DOUBLE_EQ(two.points.data_as<double>()[3 * 4 + 2], -5.125);  // node 5
  const Region* all = find_region(two, "ALL");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->entries.size(), kElements);
}

TEST_F(AbaqusParallel, ACommentInsideANodeSectionKeepsTheNodesAfterIt) {
  ScratchDir dir;
  const Mesh mesh = abaqus::read(dir.write("comment.inp", deck(150000)));
  EXPECT_EQ(mesh.num_points(), kNodes);
  EXPECT_EQ(mesh.cells[0].num_cells(), kElements);
  EXPECT_DOUBLE_EQ(mesh.points.data_as<double>()[3 * (kNodes - 1)], static_cast<double>(kNodes % 97) + 0.25);
}

TEST_F(AbaqusParallel, ALabelGivenTwiceIsReportedAtItsLine) {
  ScratchDir dir;
  const std::string elements = dir.write("elements.inp", deck(-1, 150000));
  ReadError error = expect_read_error([&] { abaqus::read(elements); });
  EXPECT_NE(std::string(error.what()).find("element 149999 is defined twice"), std::string::npos) << error.what();
  ASSERT_TRUE(error.line().has_value());
  EXPECT_EQ(*error.line(), static_cast<std::uint64_t>(kNodes + 2 + 150000));

  const std::string nodes = dir.write("nodes.inp", deck(-1, -1, 180000));
  error = expect_read_error([&] { abaqus::read(nodes); });
  EXPECT_NE(std::string(error.what()).find("node 179999 is defined twice"), std::string::npos) << error.what();
  ASSERT_TRUE(error.line().has_value());
  EXPECT_EQ(*error.line(), static_cast<std::uint64_t>(1 + 180000));
}
