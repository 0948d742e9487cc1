// PLY ASCII vertex and face elements large enough to be read line by line on all cores: the
// same mesh at 1 and 2 threads, the sequential reading wherever the layout differs (a quad
// among triangles, a record over two lines), and the same error where a line deep in an
// element is broken.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/ply/ply.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

constexpr int kVertices = 150000, kFaces = 300000;

// float64 coordinates and a uint8 scalar per vertex; triangles with uint8 counts, int32 indices.
std::string large_ply() {
  std::string text = "ply\nformat ascii 1.0\nelement vertex " + std::to_string(kVertices) +
                     "\nproperty double x\nproperty double y\nproperty double z\nproperty uchar red\nelement face " +
                     std::to_string(kFaces) + "\nproperty list uchar int vertex_indices\nend_header\n";
  for (int i = 0; i < kVertices; ++i)
    text += std::to_string(0.001 * i) + " " + std::to_string(1.0 / (i + 1)) + " -" + std::to_string(i % 11) + ".25e-2 " +
            std::to_string(i % 256) + "\n";
  for (int f = 0; f < kFaces; ++f)
    text += "3 " + std::to_string(f % kVertices) + " " + std::to_string((f * 7 + 1) % kVertices) + " " +
            std::to_string((f * 13 + 2) % kVertices) + "\n";
  return text;
}

}  // namespace

TEST(PlyLines, LargeFileIsTheSameAtOneAndTwoThreads) {
  const ScratchDir dir;
  const std::string path = dir.write("large.ply", large_ply());
  const Mesh one = read_at_threads(1, [&] { return ply::read(path); });
  const Mesh two = read_at_threads(2, [&] { return ply::read(path); });
  ASSERT_EQ(one.points.rows(), kVertices);
  ASSERT_EQ(one.cells.size(), 1u);
  EXPECT_EQ(one.cells[0].type, "triangle");
  EXPECT_EQ(one.cells[0].num_cells(), kFaces);
  EXPECT_EQ(one.cells[0].connectivity.data_as<std::int64_t>()[3 * 200000 + 1], (200000 * 7 + 1) % kVertices);
  EXPECT_EQ(one.point_data.find("red")->data_as<std::uint8_t>()[1000], 1000 % 256);
  ASSERT_NE(one.point_data.find("red"), nullptr);
  expect_same_bits(one, two);
}

TEST(PlyLines, OtherLayoutsAreReadSequentially) {
  const ScratchDir dir;
  std::string text = large_ply();
  // A quad among the triangles (two blocks after it), and a vertex record over two lines.
  const std::size_t face = text.find("\n3 100000 ");
  text.replace(face, 3, "\n4 7 ");
  const std::size_t vertex = text.find("\n100.000000 ");
  text.replace(text.find(' ', vertex + 1), 1, "\n");
  const std::string path = dir.write("mixed.ply", text);
  const Mesh one = read_at_threads(1, [&] { return ply::read(path); });
  const Mesh two = read_at_threads(2, [&] { return ply::read(path); });
  ASSERT_EQ(one.cells.size(), 3u);
  EXPECT_EQ(one.cells[1].type, "quad");
  EXPECT_EQ(one.cells[1].connectivity.data_as<std::int64_t>()[0], 7);
  ASSERT_NE(one.point_data.find("red"), nullptr);
  expect_same_bits(one, two);
}

TEST(PlyLines, ErrorsDeepInALargeFileAreTheSequentialReadersOwn) {
  const ScratchDir dir;
  const std::string text = large_ply();
  struct Case {
    std::string find, replace, message;
  };
  for (const Case& c : std::vector<Case>{{"\n120.000000 ", "\n120.0x0000 ", "invalid number"},
                                         {"\n3 120000 ", "\n3 950000 ", "refers to vertex 950000"},
                                         {"\n3 130000 ", "\n0 130000 ", "has no vertices"}}) {
    std::string bad = text;
    const std::size_t at = bad.find(c.find);
    ASSERT_NE(at, std::string::npos) << c.find;
    bad.replace(at, c.find.size(), c.replace);
    const std::string path = dir.write("bad.ply", bad);
    set_thread_count(1);
    const ReadError one = expect_read_error([&] { ply::read(path); });
    set_thread_count(2);
    const ReadError two = expect_read_error([&] { ply::read(path); });
    set_thread_count(0);
    EXPECT_NE(std::string(one.what()).find(c.message), std::string::npos) << one.what();
    EXPECT_EQ(std::string(one.what()), std::string(two.what()));
    EXPECT_EQ(one.byte_offset(), two.byte_offset());
    EXPECT_EQ(one.line(), two.line());
  }
}
