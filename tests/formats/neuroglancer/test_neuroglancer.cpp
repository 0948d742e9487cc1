// Neuroglancer precomputed mesh reader and writer: meshio's reference file, round trips, and
// one malformed input per failure kind.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include "formats/neuroglancer/neuroglancer.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

template <class T> void append(std::string& bytes, T value) { bytes.append(reinterpret_cast<const char*>(&value), sizeof value); }

// Little-endian bytes (the test hosts are little-endian; the reader swaps on others).
std::string fragment(std::uint32_t vertices, std::initializer_list<std::uint32_t> corners) {
  std::string bytes;
  append(bytes, vertices);
  for (std::uint32_t v = 0; v < vertices; ++v)
    for (int a = 0; a < 3; ++a) append(bytes, static_cast<float>(v + 0.25f * a));
  for (std::uint32_t corner : corners) append(bytes, corner);
  return bytes;
}

}  // namespace

TEST(NeuroglancerRead, MeshioReferenceFile) {
  const fs::path path = meshioplusplus::testing::test_data_dir() / "neuroglancer" / "simple1";
  ASSERT_TRUE(fs::exists(path)) << path << " is missing (tests/data/MANIFEST.tsv)";
  const Mesh mesh = neuroglancer::read(path.string());
  // meshio's test_reference_file: point sum 20, 4 triangles.
  EXPECT_EQ(point_sum(mesh), 20.0);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 4);
  EXPECT_EQ(mesh.points.dtype(), DType::float32);
}

TEST(NeuroglancerRoundTrip, PointsAndTrianglesExactlyThroughTheRegistry) {
  Mesh mesh;
  mesh.points = array_of<float>({4, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0.1f, 1, 1e-30f});
  mesh.cells.push_back({"triangle", array_of<std::int64_t>({2, 3}, {0, 1, 2, 0, 2, 3}), {}, {}});
  const std::string path = scratch("fragment").string();
  write(path, mesh, "neuroglancer");
  EXPECT_EQ(fs::file_size(path), 4u + 4 * 12 + 2 * 12);
  const Mesh back = read(path, "neuroglancer");
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_EQ(nodes_of(back.cells.at(0)), nodes_of(mesh.cells[0]));
}

TEST(NeuroglancerRoundTrip, TwoDimensionalFloat64PointsGetZeroZAndNoTrianglesGiveAnEmptyBlock) {
  Mesh mesh;
  mesh.points = array_of<double>({2, 2}, {0.5, 1.5, 2.5, 3.5});
  const std::string path = scratch("points_only").string();
  neuroglancer::write(path, mesh, {});
  const Mesh back = neuroglancer::read(path);
  EXPECT_EQ(back.points.shape(), (Shape{2, 3}));
  EXPECT_EQ(point_sum(back), 8.0);
  ASSERT_EQ(back.cells.size(), 1u);
  EXPECT_EQ(back.cells[0].num_cells(), 0);
}

TEST(NeuroglancerWrite, OtherCellTypesAreAWriteError) {
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0});
  mesh.cells.push_back({"quad", array_of<std::int64_t>({1, 4}, {0, 1, 2, 3}), {}, {}});
  EXPECT_THROW(write(scratch("quad").string(), mesh, "neuroglancer"), WriteError);
}

TEST(NeuroglancerErrors, ValidBaseCaseReads) {
  EXPECT_EQ(neuroglancer::read(write_scratch("base", fragment(3, {0, 1, 2}))).cells[0].num_cells(), 1);
}

TEST(NeuroglancerErrors, FileShorterThanTheCount) {
  const ReadError error = expect_read_error([&] { neuroglancer::read(write_scratch("short", "\x01\x00")); });
  EXPECT_EQ(error.byte_offset(), 0u);
  EXPECT_EQ(error.format(), "neuroglancer");
}

TEST(NeuroglancerErrors, VertexCountLargerThanTheFileFailsBeforeAllocating) {
  std::string bytes = fragment(3, {0, 1, 2});
  bytes[3] = '\x7f';  // 0x7f000003 vertices
  const ReadError error = expect_read_error([&] { neuroglancer::read(write_scratch("huge", bytes)); });
  EXPECT_NE(error.reason().find("vertices"), std::string::npos) << error.what();
}

TEST(NeuroglancerErrors, PartialTriangle) {
  std::string bytes = fragment(3, {0, 1, 2});
  bytes.resize(bytes.size() - 4);
  const ReadError error = expect_read_error([&] { neuroglancer::read(write_scratch("partial", bytes)); });
  EXPECT_EQ(error.byte_offset(), 4u + 36);
}

TEST(NeuroglancerErrors, IndexOutsideTheVerticesNamesItsOffset) {
  // meshio lets index == vertex count through (its check is `>`).
  const ReadError error = expect_read_error([&] { neuroglancer::read(write_scratch("index", fragment(3, {0, 1, 3}))); });
  EXPECT_EQ(error.byte_offset(), 4u + 36 + 8);
  EXPECT_NE(error.reason().find("vertex 3"), std::string::npos) << error.what();
}
