// Large AVS-UCD cell sections are read on all cores, a section of one cell type plainly written
// whole in the first pass (avsucd_reader.cpp): the same mesh bit for bit as on one thread,
// whether the section holds one type or several, and errors reported where one thread
// reports them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "formats/avsucd/avsucd.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

constexpr std::int64_t kNodes = 2000;
constexpr std::int64_t kCells = 160000;  // about 5.5 MB of cell lines: the parallel path

std::int64_t node_id(std::int64_t i) { return 10 * i + 3; }  // not 1..n: the ids are mapped

struct Variant {
  std::int64_t hex_at = -1;        // a hexahedron there (else tetrahedra only)
  std::int64_t unknown_node_at = -1;  // a node id no node has there
  std::int64_t repeated_id_at = -1;   // the previous cell's id there
  bool cell_data = false;
};

std::string ucd_file(const Variant& variant, std::size_t* cell_bytes = nullptr) {
  std::string text = "# written for the test\n" + std::to_string(kNodes) + " " + std::to_string(kCells) + " 0 " +
                     (variant.cell_data ? "1" : "0") + " 0\n";
  for (std::int64_t i = 0; i < kNodes; ++i)
    text += std::to_string(node_id(i)) + " " + std::to_string(i * 0.25) + " " + std::to_string(i % 13) + " 0.5\n";
  const std::size_t cells_begin = text.size();
  for (std::int64_t c = 0; c < kCells; ++c) {
    const bool hex = c == variant.hex_at;
    const std::int64_t id = c == variant.repeated_id_at ? c : c + 1;
    text += std::to_string(id) + " " + std::to_string(c % 4) + (hex ? " hex" : " tet");
    for (int k = 0; k < (hex ? 8 : 4); ++k)
      text += " " + std::to_string(c == variant.unknown_node_at && k == 2 ? 7 : node_id((c * 11 + k * 17) % kNodes));
    text += "\n";
  }
  if (cell_bytes != nullptr) *cell_bytes = text.size() - cells_begin;
  if (variant.cell_data) {
    text += "1 1\nstress, Pa\n";
    for (std::int64_t c = 0; c < kCells; ++c) text += std::to_string(c + 1) + " " + std::to_string(c * 0.5) + "\n";
  }
  return text;
}

void expect_same_on_one_and_two_threads(const std::string& path) {
  const Mesh one = read_at_threads(1, [&] { return avsucd::read(path); });
  const Mesh two = read_at_threads(2, [&] { return avsucd::read(path); });
  expect_same_bits(one, two);
}

std::string error_at(unsigned threads, const std::string& path) {
  try {
    read_at_threads(threads, [&] { return avsucd::read(path); });
  } catch (const ReadError& error) {
    return error.what();
  }
  ADD_FAILURE() << path << " was accepted at " << threads << " threads";
  return {};
}

}  // namespace

TEST(AvsucdParallel, OneTypeReadsTheSameOnOneAndTwoThreads) {
  ScratchDir dir;
  for (const bool cell_data : {false, true}) {
    std::size_t cell_bytes = 0;
    const std::string text = ucd_file({.cell_data = cell_data}, &cell_bytes);
    ASSERT_GT(cell_bytes, io::kParallelLinesMinBytes + (std::size_t{1} << 20)) << "the parallel path needs it";
    const std::string path = dir.write(cell_data ? "data.avs" : "plain.avs", text);
    expect_same_on_one_and_two_threads(path);
    const Mesh mesh = read_at_threads(2, [&] { return avsucd::read(path); });
    ASSERT_EQ(mesh.cells.size(), 1u);
    EXPECT_EQ(mesh.cells[0].type, "tetra");
    ASSERT_EQ(mesh.cells[0].num_cells(), kCells);
    const std::int64_t* corners = mesh.cells[0].connectivity.data_as<std::int64_t>() + 4 * 54321;
    std::int64_t sum = 0;  // the corners' order is permuted from AVS's: compare as a set
    for (int k = 0; k < 4; ++k) sum += corners[k];
    EXPECT_EQ(sum, (54321 * 11 + 0) % kNodes + (54321 * 11 + 17) % kNodes + (54321 * 11 + 34) % kNodes +
                       (54321 * 11 + 51) % kNodes);
    EXPECT_EQ(mesh.cell_data.find("avsucd:material")->at(0).data_as<std::int64_t>()[54321], 54321 % 4);
    if (cell_data) EXPECT_EQ(mesh.cell_data.find("stress")->at(0).data_as<double>()[54321], 54321 * 0.5);
  }
}

TEST(AvsucdParallel, SeveralTypesReadTheSameOnOneAndTwoThreads) {
  ScratchDir dir;
  const std::string path = dir.write("mixed.avs", ucd_file({.hex_at = 100000, .cell_data = true}));
  expect_same_on_one_and_two_threads(path);
  const Mesh mesh = read_at_threads(2, [&] { return avsucd::read(path); });
  ASSERT_EQ(mesh.cells.size(), 3u);
  EXPECT_EQ(mesh.cells[0].num_cells(), 100000);
  EXPECT_EQ(mesh.cells[1].type, "hexahedron");
  EXPECT_EQ(mesh.cells[2].num_cells(), kCells - 100001);
}

TEST(AvsucdParallel, AnUnknownNodeAndARepeatedCellIdAreReportedAsOnOneThread) {
  ScratchDir dir;
  const std::string unknown = dir.write("unknown.avs", ucd_file({.unknown_node_at = 120000}));
  const std::string one_thread = error_at(1, unknown);
  EXPECT_NE(one_thread.find("node id 7, which is not defined"), std::string::npos) << one_thread;
  EXPECT_EQ(error_at(2, unknown), one_thread);
  const std::string repeated = dir.write("repeated.avs", ucd_file({.repeated_id_at = 130000}));
  const std::string repeated_one_thread = error_at(1, repeated);
  EXPECT_NE(repeated_one_thread.find("cell id 130000 appears twice"), std::string::npos) << repeated_one_thread;
  EXPECT_EQ(error_at(2, repeated), repeated_one_thread);
}
