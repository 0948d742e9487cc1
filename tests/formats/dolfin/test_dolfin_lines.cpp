// DOLFIN XML: <vertices> and <cells> large enough to be read line by line on all cores give
// the same arrays at 1 and 2 threads, and the same errors (message, offset, line) as the XML
// scan, which every other layout falls back to.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/dolfin/dolfin.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// 80 k points and 100 k tetrahedra: each section holds more than the 4 MiB that
// io::parse_lines_in_parallel splits.
Mesh large_tetra_mesh() {
  constexpr std::int64_t kPoints = 80000, kCells = 100000;
  std::vector<double> xyz;
  for (std::int64_t i = 0; i < kPoints; ++i)
    for (double v : {0.1 * static_cast<double>(i), 1.0 / static_cast<double>(i + 3), -1e-300 * static_cast<double>(i % 7)}) xyz.push_back(v);
  std::vector<std::int64_t> nodes;
  for (std::int64_t c = 0; c < kCells; ++c)
    for (std::int64_t n = 0; n < 4; ++n) nodes.push_back((c * 7 + n * 13) % kPoints);
  Mesh mesh;
  mesh.points = array_of<double>({kPoints, 3}, xyz);
  mesh.cells.push_back({"tetra", int64_matrix(kCells, 4, nodes), {}, {}});
  return mesh;
}

ReadError error_with_threads(const std::string& path, unsigned threads) {
  set_thread_count(threads);
  const ReadError error = expect_read_error([&] { dolfin::read(path); });
  set_thread_count(0);
  return error;
}

}  // namespace

TEST(DolfinLines, LargeFileIsTheSameAtOneAndTwoThreads) {
  const ScratchDir dir;
  const Mesh mesh = large_tetra_mesh();
  const std::string path = dir.file("large.xml");
  dolfin::write(path, mesh, {});
  const Mesh one = read_at_threads(1, [&] { return dolfin::read(path); });
  const Mesh two = read_at_threads(2, [&] { return dolfin::read(path); });
  EXPECT_TRUE(same_bits(one.points, mesh.points));
  EXPECT_TRUE(same_bits(two.points, mesh.points));
  ASSERT_EQ(one.cells.size(), 1u);
  ASSERT_EQ(two.cells.size(), 1u);
  EXPECT_TRUE(same_bits(one.cells[0].connectivity, mesh.cells[0].connectivity));
  EXPECT_TRUE(same_bits(two.cells[0].connectivity, mesh.cells[0].connectivity));
}

TEST(DolfinLines, OtherLayoutsFallBackToTheXmlScan) {
  const ScratchDir dir;
  const Mesh mesh = large_tetra_mesh();
  const std::string path = dir.file("large.xml");
  dolfin::write(path, mesh, {});
  std::string text = read_file(path);
  // Single quotes, an attribute order of its own and a comment line, deep in each section.
  const std::size_t vertex = text.find("<vertex index=\"40000\"");
  text.replace(text.find(" x=\"", vertex), 4, " x='");
  text.replace(text.find("\" y=", vertex), 1, "'");
  const std::size_t cell = text.find("<tetrahedron index=\"50000\"");
  text.insert(cell, "<!-- a comment -->\n      ");
  const std::size_t other = text.find("<tetrahedron index=\"70000\"");
  const std::size_t v0 = text.find(" v0=", other);
  const std::string first = text.substr(v0, text.find(" v1=", other) - v0);
  text.erase(v0, first.size());
  text.insert(text.find(" />", other), first);
  const std::string changed = dir.write("changed.xml", text);
  for (unsigned threads : {1u, 2u}) {
    const Mesh back = read_at_threads(threads, [&] { return dolfin::read(changed); });
    EXPECT_TRUE(same_bits(back.points, mesh.points)) << threads;
    EXPECT_TRUE(same_bits(back.cells[0].connectivity, mesh.cells[0].connectivity)) << threads;
  }
}

TEST(DolfinLines, ErrorsDeepInALargeFileAreTheXmlScans) {
  const ScratchDir dir;
  const std::string path = dir.file("large.xml");
  dolfin::write(path, large_tetra_mesh(), {});
  const std::string text = read_file(path);
  struct Case {
    std::string tag, attribute, value, message;
    std::uint64_t lines_after = 0;  // the error's line after the changed one
  };
  for (const Case& c : std::vector<Case>{{"<vertex index=\"60000\"", "x", "1.5q", "invalid number '1.5q'"},
                                         {"<tetrahedron index=\"90000\"", "v1", "80000", "v1 80000 is outside [0, 80000)"},
                                         {"<tetrahedron index=\"20000\"", "index", "20001", "index 20001 appears twice", 1}}) {
    std::string bad = text;
    const std::size_t tag = bad.find(c.tag);
    ASSERT_NE(tag, std::string::npos) << c.tag;
    const std::size_t value = bad.find(" " + c.attribute + "=\"", tag) + c.attribute.size() + 3;
    bad.replace(value, bad.find('"', value) - value, c.value);
    const std::string bad_path = dir.write("bad.xml", bad);
    const ReadError one = error_with_threads(bad_path, 1);
    const ReadError two = error_with_threads(bad_path, 2);
    EXPECT_NE(std::string(one.what()).find(c.message), std::string::npos) << one.what();
    EXPECT_EQ(std::string(one.what()), std::string(two.what()));
    EXPECT_EQ(one.byte_offset(), two.byte_offset());
    EXPECT_EQ(one.line(), two.line());
    EXPECT_EQ(one.line(), 1 + c.lines_after + static_cast<std::uint64_t>(std::count(bad.begin(), bad.begin() + static_cast<std::ptrdiff_t>(tag), '\n')));
  }
}
