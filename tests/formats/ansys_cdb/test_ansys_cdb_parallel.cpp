// .cdb and .unv blocks large enough to be parsed on all cores (io::parse_lines_in_parallel):
// the same mesh as the sequential loop, and a bad record anywhere still reported at its line
// (the block falls back to the sequential loop, which words the error).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "formats/ansys_cdb/ansys_cdb.hpp"
#include "formats/unv/unv.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

constexpr int kNodes = 60000, kTets = 60000;  // > 4 MB of records each

std::string cdb_deck(int bad_element = -1) {
  std::string text = "/PREP7\nET,1,185\nNBLOCK,6,SOLID," + std::to_string(kNodes) + "," + std::to_string(kNodes) + "\n(3i10,6e25.16e3)\n";
  char line[256];
  for (int n = 1; n <= kNodes; ++n) {
    std::snprintf(line, sizeof line, "%10d%10d%10d%25.16E%25.16E%25.16E\n", n, 0, 0, n * 0.5, -n * 0.25, 1.0);
    text += line;
  }
  text += "N,R5.3,LOC,-1,\nEBLOCK,19,SOLID," + std::to_string(kTets) + "," + std::to_string(kTets) + "\n(19i10)\n";
  for (int e = 1; e <= kTets; ++e) {
    const int a = 1 + e % (kNodes - 3);
    std::snprintf(line, sizeof line, "%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d%10d\n", 1, 1, 1, 1, 0, 0,
                  0, 0, 8, 0, e, a, a + 1, a + 2, a + 2, a + 3, a + 3, a + 3, a + 3);
    text += line;
    if (e == bad_element) text.replace(text.size() - 11, 10, "      12x4");  // a node field that is no number
  }
  text += "        -1\n";
  return text;
}

TEST(AnsysCdbParallel, LargeBlocksReadAsTheSequentialLoopWould) {
  const Mesh mesh = ansys_cdb::read(write_scratch("large.cdb", cdb_deck()));
  ASSERT_EQ(mesh.num_points(), kNodes);
  EXPECT_EQ(mesh.points.data_as<double>()[3 * (kNodes - 1)], kNodes * 0.5);
  EXPECT_EQ(mesh.points.data_as<double>()[3 * (kNodes - 1) + 1], -kNodes * 0.25);
  EXPECT_EQ(block_summary(mesh), "tetra:" + std::to_string(kTets));
  const std::int64_t* last = mesh.cells[0].connectivity.data_as<std::int64_t>() + 4 * (kTets - 1);
  const int a = 1 + kTets % (kNodes - 3);
  EXPECT_EQ(last[0], a - 1);
  EXPECT_EQ(last[3], a + 2);
  EXPECT_EQ(int_values(mesh.cell_data.find("ansys:element")->at(0))[kTets - 1], kTets);
}

TEST(AnsysCdbParallel, BadRecordDeepInsideIsReportedAtItsLine) {
  const ReadError error = expect_read_error([&] { ansys_cdb::read(write_scratch("bad.cdb", cdb_deck(kTets - 7))); });
  EXPECT_NE(std::string(error.what()).find("12x4"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), std::optional<std::uint64_t>(4 + kNodes + 3 + (kTets - 7)));
}

std::string unv_deck(int bad_node = -1) {
  std::string text = "    -1\n  2411\n";
  char line[256];
  for (int n = 1; n <= kNodes; ++n) {
    std::snprintf(line, sizeof line, "%10d%10d%10d%10d\n%25.16E%25.16E%25.16E\n", n, 1, 1, 11, n * 0.5, -n * 0.25, 1.0);
    text += line;
    if (n == bad_node) text.replace(text.size() - 6, 5, "1.0Q0");
  }
  text += "    -1\n    -1\n  2412\n";
  for (int e = 1; e <= kTets; ++e) {
    const int a = 1 + e % (kNodes - 3);
    std::snprintf(line, sizeof line, "%10d%10d%10d%10d%10d%10d\n%10d%10d%10d%10d\n", e, 111, 2, 3, 7, 4, a, a + 1, a + 2, a + 3);
    text += line;
  }
  text += "    -1\n";
  return text;
}

TEST(UnvParallel, LargeDatasetsReadAsTheSequentialLoopWould) {
  const Mesh mesh = unv::read(write_scratch("large.unv", unv_deck()));
  ASSERT_EQ(mesh.num_points(), kNodes);
  EXPECT_EQ(mesh.points.data_as<double>()[3 * (kNodes - 1)], kNodes * 0.5);
  EXPECT_EQ(block_summary(mesh), "tetra:" + std::to_string(kTets));
  const std::int64_t* last = mesh.cells[0].connectivity.data_as<std::int64_t>() + 4 * (kTets - 1);
  const int a = 1 + kTets % (kNodes - 3);
  EXPECT_EQ(last[0], a - 1);
  EXPECT_EQ(last[3], a + 2);
  EXPECT_EQ(int_values(mesh.cell_data.find("unv:pid")->at(0))[kTets - 1], 2);
  EXPECT_EQ(int_values(mesh.cell_data.find("unv:mid")->at(0))[0], 3);
}

TEST(UnvParallel, BadCoordinateDeepInsideIsReportedAtItsLine) {
  const ReadError error = expect_read_error([&] { unv::read(write_scratch("bad.unv", unv_deck(kNodes - 5))); });
  EXPECT_NE(std::string(error.what()).find("1.0Q0"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), std::optional<std::uint64_t>(2 + 2 * (kNodes - 5)));
}

}  // namespace
