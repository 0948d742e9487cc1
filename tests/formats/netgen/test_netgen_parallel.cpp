// Large Netgen element sections are read on all cores, a section of one element kind whole in
// the first pass (netgen_reader.cpp): the same mesh bit for bit as on one thread, whether the
// points come before or after the elements, whether the section mixes kinds, and an
// out-of-range node reported where one thread reports it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "formats/netgen/netgen.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

constexpr std::int64_t kPoints = 1000;
constexpr std::int64_t kTets = 300000;  // about 6 MB of element lines: the parallel path

std::string points_section() {
  std::string text = "points\n" + std::to_string(kPoints) + "\n";
  for (std::int64_t i = 0; i < kPoints; ++i)
    text += std::to_string(i * 0.125) + " " + std::to_string(i % 17) + " " + std::to_string(-0.5 * (i % 5)) + "\n";
  return text;
}

// Volume elements: tetrahedra, with a pyramid at `pyramid_at` (none when negative) and node
// `bad_node` written in place of record `bad_at`'s last node (when bad_at >= 0).
std::string volume_section(std::int64_t pyramid_at = -1, std::int64_t bad_at = -1, std::int64_t bad_node = 0) {
  std::string text = "volumeelements\n" + std::to_string(kTets) + "\n";
  for (std::int64_t e = 0; e < kTets; ++e) {
    const int nodes = e == pyramid_at ? 5 : 4;
    text += std::to_string(1 + e % 3) + " " + std::to_string(nodes);
    for (int k = 0; k < nodes; ++k) {
      const std::int64_t node = e == bad_at && k == nodes - 1 ? bad_node : 1 + (e * 7 + k * 13) % kPoints;
      text += " " + std::to_string(node);
    }
    text += "\n";
  }
  return text;
}

std::string mesh_file(const std::string& body) { return "mesh3d\ndimension\n3\ngeomtype\n0\n" + body + "endmesh\n"; }

void expect_same_on_one_and_two_threads(const std::string& path) {
  const Mesh one = read_at_threads(1, [&] { return netgen::read(path); });
  const Mesh two = read_at_threads(2, [&] { return netgen::read(path); });
  expect_same_bits(one, two);
}

}  // namespace

TEST(NetgenParallel, ElementsBeforeAndAfterThePointsReadTheSameOnOneAndTwoThreads) {
  ScratchDir dir;
  for (const bool points_first : {true, false}) {
    const std::string elements = volume_section();
    ASSERT_GT(elements.size(), io::kParallelLinesMinBytes + (std::size_t{1} << 20)) << "the parallel path needs it";
    const std::string text = mesh_file(points_first ? points_section() + elements : elements + points_section());
    const std::string path = dir.write(points_first ? "first.vol" : "last.vol", text);
    expect_same_on_one_and_two_threads(path);
    const Mesh mesh = read_at_threads(2, [&] { return netgen::read(path); });
    ASSERT_EQ(mesh.cells.size(), 1u);
    EXPECT_EQ(mesh.cells[0].type, "tetra");
    ASSERT_EQ(mesh.cells[0].num_cells(), kTets);
    // Record 12345's nodes, 0-based, in meshio's order (Netgen's second and third swapped).
    const std::int64_t* row = mesh.cells[0].connectivity.data_as<std::int64_t>() + 4 * 12345;
    constexpr int kFromNetgen[4] = {0, 2, 1, 3};
    for (int k = 0; k < 4; ++k) EXPECT_EQ(row[k], (12345 * 7 + kFromNetgen[k] * 13) % kPoints) << k;
    EXPECT_EQ(mesh.cell_data.find("netgen:index")->at(0).data_as<std::int64_t>()[12345], 1 + 12345 % 3);
  }
}

TEST(NetgenParallel, AMixedSectionReadsTheSameOnOneAndTwoThreads) {
  ScratchDir dir;
  const std::string path = dir.write("mixed.vol", mesh_file(volume_section(150000) + points_section()));
  expect_same_on_one_and_two_threads(path);
  const Mesh mesh = read_at_threads(2, [&] { return netgen::read(path); });
  ASSERT_EQ(mesh.cells.size(), 3u);
  EXPECT_EQ(mesh.cells[0].num_cells(), 150000);
  EXPECT_EQ(mesh.cells[1].type, "pyramid");
  EXPECT_EQ(mesh.cells[2].num_cells(), kTets - 150001);
}

TEST(NetgenParallel, TwoSectionsOfOneKindReadTheSameOnOneAndTwoThreads) {
  ScratchDir dir;
  const std::string path = dir.write("two.vol", mesh_file(volume_section() + volume_section() + points_section()));
  expect_same_on_one_and_two_threads(path);
  const Mesh mesh = read_at_threads(2, [&] { return netgen::read(path); });
  ASSERT_EQ(mesh.cells.size(), 1u);  // consecutive records of one kind: one block, as before
  EXPECT_EQ(mesh.cells[0].num_cells(), 2 * kTets);
}

TEST(NetgenParallel, ANodeOutsideThePointsIsReportedAsOnOneThread) {
  ScratchDir dir;
  for (const std::int64_t bad_node : {kPoints + 1, std::int64_t{0}}) {
    for (const bool points_first : {true, false}) {
      const std::string section = volume_section(-1, 200000, bad_node);
      const std::string path =
          dir.write("bad.vol", mesh_file(points_first ? points_section() + section : section + points_section()));
      std::string messages[2];
      for (const unsigned threads : {1u, 2u}) {
        try {
          read_at_threads(threads, [&] { return netgen::read(path); });
          ADD_FAILURE() << "node " << bad_node << " was accepted at " << threads << " threads";
        } catch (const ReadError& error) {
          messages[threads - 1] = error.what();
          EXPECT_NE(messages[threads - 1].find("node " + std::to_string(bad_node) + " is outside the points"),
                    std::string::npos)
              << messages[threads - 1];
        }
      }
      EXPECT_EQ(messages[0], messages[1]);
    }
  }
}
