// A large ASCII STL of one solid is parsed on all cores (stl_reader.cpp): the same points,
// triangles and normals as on one thread, and a broken number reported where one thread
// reports it.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "formats/stl/stl.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// An n×n sheet of triangle pairs, as numpy-stl and meshio write it (shared corners repeat).
std::string sheet(int n) {
  std::string text = "solid sheet\n";
  const auto vertex = [&](int i, int j) {
    text += "  vertex " + std::to_string(i * 0.25) + " " + std::to_string(j * 0.5) + " " + std::to_string((i * j) % 7) + "\n";
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int half = 0; half < 2; ++half) {
        text += "facet normal 0 0 " + std::string(half == 0 ? "1" : "-1") + "\n outer loop\n";
        vertex(i, j);
        half == 0 ? vertex(i + 1, j) : vertex(i + 1, j + 1);
        half == 0 ? vertex(i + 1, j + 1) : vertex(i, j + 1);
        text += " endloop\nendfacet\n";
      }
  return text + "endsolid sheet\n";
}

Mesh read_with_threads(const std::string& path, unsigned threads) {
  set_thread_count(threads);
  Mesh mesh = stl::read(path);
  set_thread_count(0);
  return mesh;
}

}  // namespace

TEST(StlParallel, OneSolidReadsTheSameOnOneAndTwoThreads) {
  ScratchDir dir;
  const std::string text = sheet(200);
  ASSERT_GT(text.size(), 2 * io::kParallelLinesMinBytes) << "the file must take the parallel path";
  const std::string path = dir.write("sheet.stl", text);
  const Mesh one = read_with_threads(path, 1);
  const Mesh two = read_with_threads(path, 2);
  ASSERT_EQ(two.cells.size(), 1u);
  EXPECT_EQ(two.cells[0].num_cells(), 2 * 200 * 200);
  EXPECT_EQ(two.num_points(), 201 * 201);
  EXPECT_TRUE(same_bits(one.points, two.points));
  EXPECT_TRUE(same_bits(one.cells[0].connectivity, two.cells[0].connectivity));
  EXPECT_TRUE(same_bits(one.cell_data.find("facet_normals")->at(0), two.cell_data.find("facet_normals")->at(0)));
  const Region* solid = find_region(two, "sheet");
  ASSERT_NE(solid, nullptr);
  EXPECT_EQ(solid->entries.size(), 2 * 200 * 200);
}

TEST(StlParallel, ABrokenNumberIsReportedAsOnOneThread) {
  ScratchDir dir;
  std::string text = sheet(200);
  for (const std::size_t at : {text.find("vertex", text.size() * 2 / 3) + 7, text.find("normal", text.size() / 3) + 7}) {
    std::string broken = text;
    broken[at] = 'x';
    const std::string path = dir.write("broken.stl", broken);
    set_thread_count(1);
    const ReadError sequential = expect_read_error([&] { stl::read(path); });
    set_thread_count(2);
    const ReadError parallel = expect_read_error([&] { stl::read(path); });
    set_thread_count(0);
    EXPECT_EQ(std::string(sequential.what()), std::string(parallel.what()));
    ASSERT_TRUE(parallel.line().has_value());
    EXPECT_EQ(*parallel.line(), 1 + static_cast<std::uint64_t>(std::count(broken.begin(), broken.begin() + at, '\n')));
  }
}

// Many corners welded at 1 and 2 threads: the same points in the same order, -0 welded with
// 0 and a NaN corner never welded (binary STL, whose corners are welded straight from the
// file). A guard for any parallel welding: points must stay numbered by first appearance.
TEST(StlParallel, WeldingOnTwoThreadsNumbersPointsAsOneThread) {
  ScratchDir dir;
  constexpr std::uint32_t kTriangles = 90000;  // 270,000 corners
  std::string bytes(80, ' ');
  bytes.append(reinterpret_cast<const char*>(&kTriangles), 4);
  for (std::uint32_t t = 0; t < kTriangles; ++t) {
    float record[12] = {0, 0, 1};
    for (int corner = 0; corner < 3; ++corner) {
      const std::uint32_t n = (t * 7 + static_cast<std::uint32_t>(corner) * 5) % 40000;  // shared corners
      record[3 + 3 * corner] = static_cast<float>(n % 200) * 0.5f;
      record[4 + 3 * corner] = static_cast<float>(n / 200) * 0.25f;
      record[5 + 3 * corner] = n % 3 == 0 ? (t % 2 == 0 ? -0.0f : 0.0f) : 1.5f;
    }
    if (t == 4321) record[4] = std::numeric_limits<float>::quiet_NaN();
    bytes.append(reinterpret_cast<const char*>(record), sizeof record);
    bytes.append(2, '\0');
  }
  const std::string path = dir.write("welded.stl", bytes);
  const Mesh one = read_at_threads(1, [&] { return stl::read(path); });
  const Mesh two = read_at_threads(2, [&] { return stl::read(path); });
  expect_same_bits(one, two);
  EXPECT_EQ(two.num_points(), 40000 + 1);  // every shared position once, the NaN corner alone
  ASSERT_EQ(two.cells.size(), 1u);
  EXPECT_EQ(two.cells[0].num_cells(), kTriangles);
  const std::int64_t* corners = two.cells[0].connectivity.data_as<std::int64_t>();
  EXPECT_EQ(corners[0], 0);  // points numbered by first appearance
  EXPECT_EQ(corners[1], 1);
  EXPECT_EQ(corners[2], 2);
}
