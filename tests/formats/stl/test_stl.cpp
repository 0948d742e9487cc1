// STL reader and writer: corpus files against meshio's numbers (EXPECTED_meshio.tsv),
// round trips, surface extraction from volume cells, and malformed input.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "formats/stl/stl.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;

using namespace meshioplusplus::testing_support;

namespace {

template <class T> NDArray array2d(std::int64_t rows, std::int64_t cols, std::vector<T> values) {
  NDArray array = NDArray::allocate(dtype_of<T>(), {rows, cols});
  std::memcpy(array.data(), values.data(), values.size() * sizeof(T));
  return array;
}

Mesh unit_square_of_two_triangles() {
  Mesh mesh;
  mesh.points = array2d<double>(4, 3, {0.1, 0.2, 1e-300, 1.0 / 3, 0, 0, 1, 1, -2.5e10, 0, 1, 7.0});
  mesh.cells.push_back({"triangle", array2d<std::int64_t>(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}});
  return mesh;
}

// Signed volume enclosed by the triangles: positive when every face points outward.
double enclosed_volume(const Mesh& mesh) {
  const auto xyz = [&](std::int64_t p) {
    std::array<double, 3> out{};
    visit_dtype(mesh.points.dtype(), [&](auto zero) {
      const auto* row = mesh.points.data_as<decltype(zero)>() + 3 * p;
      for (int a = 0; a < 3; ++a) out[a] = static_cast<double>(row[a]);
    });
    return out;
  };
  double volume = 0;
  for (const CellBlock& block : mesh.cells)
    for (std::int64_t t = 0; t < block.num_cells(); ++t) {
      const auto* c = block.connectivity.data_as<std::int64_t>() + 3 * t;
      const auto a = xyz(c[0]), b = xyz(c[1]), d = xyz(c[2]);
      volume += (a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) +
                 a[2] * (b[0] * d[1] - b[1] * d[0])) / 6;
    }
  return volume;
}

Mesh unit_cube_points_mesh() {
  Mesh mesh;
  mesh.points = array2d<double>(8, 3, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1});
  return mesh;
}

}  // namespace

// ---- corpus ------------------------------------------------------------------------------

TEST(StlCorpus, BinaryWithSolidHeaderIsReadAsBinary) {
  SKIP_WITHOUT_CORPUS_FILE("stl/angle_block.STL");
  const Mesh mesh = stl::read(corpus_file("stl/angle_block.STL"));
  EXPECT_EQ(mesh.points.dtype(), DType::float32);
  EXPECT_EQ(mesh.num_points(), 398);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 704);
  EXPECT_NEAR(point_sum(mesh), -68.0105896, 1e-6 * 68.0105896);
  EXPECT_TRUE(mesh.cell_data.empty());  // attributes all zero, normals dropped as meshio does
}

TEST(StlCorpus, AsciiWithTwoSolidsKeepsNamesAsRegions) {
  SKIP_WITHOUT_CORPUS_FILE("stl/multibody.stl");
  const Mesh mesh = stl::read(corpus_file("stl/multibody.stl"));
  EXPECT_EQ(mesh.points.dtype(), DType::float64);
  EXPECT_EQ(mesh.num_points(), 20);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].num_cells(), 32);
  EXPECT_NEAR(point_sum(mesh), -5.084050313, 1e-6 * 5.084050313);
  const auto* normals = mesh.cell_data.find("facet_normals");
  ASSERT_NE(normals, nullptr);
  EXPECT_EQ((*normals)[0].shape(), (Shape{32, 3}));
  EXPECT_DOUBLE_EQ((*normals)[0].data_as<double>()[0], -1.0);
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].name, "bodyB");
  EXPECT_EQ(mesh.regions[0].entries.rows(), 12);
  EXPECT_EQ(mesh.regions[1].name, "bodyA");
  EXPECT_EQ(mesh.regions[1].entries.rows(), 20);
  EXPECT_EQ(mesh.regions[1].entries.data_as<std::int64_t>()[0], 12);
  EXPECT_EQ(mesh.regions[1].kind, RegionKind::Cell);
}

TEST(StlCorpus, BinaryAttributesAreKeptWhenNonZero) {
  SKIP_WITHOUT_CORPUS_FILE("stl/teapot.stl");
  const Mesh mesh = stl::read(corpus_file("stl/teapot.stl"));
  EXPECT_EQ(mesh.num_points(), 480);
  EXPECT_EQ(mesh.cells.at(0).num_cells(), 894);
  EXPECT_NEAR(point_sum(mesh), 9323.220703, 1e-6 * 9323.220703);
  const auto* attributes = mesh.cell_data.find("stl:attribute");
  ASSERT_NE(attributes, nullptr);
  EXPECT_EQ((*attributes)[0].dtype(), DType::uint16);
  EXPECT_EQ((*attributes)[0].data_as<std::uint16_t>()[0], 0x2020);  // Blender pads with blanks
}

// ---- round trips -------------------------------------------------------------------------

TEST(StlRoundTrip, AsciiPointsAreBitExact) {
  const Mesh mesh = unit_square_of_two_triangles();
  const std::string path = scratch("square_ascii.stl").string();
  stl::write(path, mesh, {});
  const Mesh back = stl::read(path);
  ASSERT_EQ(back.points.shape(), mesh.points.shape());
  EXPECT_EQ(std::memcmp(back.points.data(), mesh.points.data(), mesh.points.nbytes()), 0);
  ASSERT_EQ(back.cells.size(), 1u);
  EXPECT_EQ(std::memcmp(back.cells[0].connectivity.data(), mesh.cells[0].connectivity.data(), 6 * 8), 0);
  ASSERT_NE(back.cell_data.find("facet_normals"), nullptr);
}

TEST(StlRoundTrip, AsciiKeepsStoredNormalsAndSolids) {
  Mesh mesh = unit_square_of_two_triangles();
  mesh.cell_data.set("facet_normals", {array2d<double>(2, 3, {0.25, 0.5, 0.125, 0, 0, -1})});
  mesh.regions.push_back({"left", RegionKind::Cell, 2, -1, NDArray::from_values<std::int64_t>({1})});
  mesh.regions.push_back({"right", RegionKind::Cell, 2, -1, NDArray::from_values<std::int64_t>({0})});
  const std::string path = scratch("solids.stl").string();
  stl::write(path, mesh, {});
  const Mesh back = stl::read(path);
  ASSERT_EQ(back.regions.size(), 2u);
  EXPECT_EQ(back.regions[0].name, "left");  // written region by region
  EXPECT_EQ(back.regions[0].entries.data_as<std::int64_t>()[0], 0);
  EXPECT_EQ(back.regions[1].name, "right");
  const double* normals = (*back.cell_data.find("facet_normals"))[0].data_as<double>();
  EXPECT_EQ(normals[0], 0.0);  // the first facet now is the old second one
  EXPECT_EQ(normals[2], -1.0);
  EXPECT_EQ(normals[3], 0.25);
}

TEST(StlRoundTrip, BinaryStoresFloat32AndAttributes) {
  Mesh mesh = unit_square_of_two_triangles();
  mesh.cell_data.set("stl:attribute", {NDArray::from_values<std::uint16_t>({7, 65535})});
  WriteOptions options;
  options.set("binary", "true");
  const std::string path = scratch("square_binary.stl").string();
  stl::write(path, mesh, options);
  EXPECT_EQ(fs::file_size(path), 84u + 2 * 50);
  const Mesh back = stl::read(path);
  ASSERT_EQ(back.points.dtype(), DType::float32);
  ASSERT_EQ(back.num_points(), 4);
  for (std::size_t i = 0; i < 12; ++i)
    EXPECT_EQ(back.points.data_as<float>()[i], static_cast<float>(mesh.points.data_as<double>()[i]));
  const auto* attributes = back.cell_data.find("stl:attribute");
  ASSERT_NE(attributes, nullptr);
  EXPECT_EQ((*attributes)[0].data_as<std::uint16_t>()[1], 65535);
}

TEST(StlRoundTrip, CorpusBinaryRewrittenAsBinaryIsIdenticalMesh) {
  SKIP_WITHOUT_CORPUS_FILE("stl/angle_block.STL");
  const Mesh mesh = stl::read(corpus_file("stl/angle_block.STL"));
  WriteOptions options;
  options.set("binary", "true");
  const std::string path = scratch("angle_block.stl").string();
  stl::write(path, mesh, options);
  const Mesh back = stl::read(path);
  ASSERT_EQ(back.points.shape(), mesh.points.shape());
  EXPECT_EQ(std::memcmp(back.points.data(), mesh.points.data(), mesh.points.nbytes()), 0);
  EXPECT_EQ(std::memcmp(back.cells[0].connectivity.data(), mesh.cells[0].connectivity.data(),
                        mesh.cells[0].connectivity.nbytes()), 0);
}

TEST(StlWrite, QuadsAndPolygonsAreFanTriangulated) {
  Mesh mesh = unit_cube_points_mesh();
  mesh.cells.push_back({"quad", array2d<std::int64_t>(1, 4, {0, 1, 2, 3}), {}, {}});
  CellBlock polygon{"polygon", NDArray::from_values<std::int64_t>({4, 5, 6, 7, 0}),
                    NDArray::from_values<std::int64_t>({0, 5}), {}};
  mesh.cells.push_back(polygon);
  mesh.cells.push_back({"line", array2d<std::int64_t>(1, 2, {0, 1}), {}, {}});  // no area: left out
  const std::string path = scratch("fan.stl").string();
  stl::write(path, mesh, {});
  const Mesh back = stl::read(path);
  EXPECT_EQ(back.cells.at(0).num_cells(), 2 + 3);
}

TEST(StlWrite, HexahedronBecomesItsOutwardBoundary) {
  Mesh mesh = unit_cube_points_mesh();
  mesh.cells.push_back({"hexahedron", array2d<std::int64_t>(1, 8, {0, 1, 2, 3, 4, 5, 6, 7}), {}, {}});
  const std::string path = scratch("cube.stl").string();
  stl::write(path, mesh, {});
  const Mesh back = stl::read(path);
  EXPECT_EQ(back.num_points(), 8);
  EXPECT_EQ(back.cells.at(0).num_cells(), 12);
  EXPECT_NEAR(enclosed_volume(back), 1.0, 1e-12);
}

TEST(StlWrite, SharedFacesOfTetrahedraAreDropped) {
  // Two tetrahedra sharing face (1, 2, 3); the second is listed inverted on purpose.
  Mesh mesh;
  mesh.points = array2d<double>(5, 3, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  mesh.cells.push_back({"tetra", array2d<std::int64_t>(2, 4, {0, 1, 2, 3, 1, 2, 3, 4}), {}, {}});
  mesh.cells.push_back({"triangle", array2d<std::int64_t>(1, 3, {0, 1, 2}), {}, {}});  // marker: ignored
  const std::string path = scratch("tets.stl").string();
  stl::write(path, mesh, {});
  const Mesh back = stl::read(path);
  EXPECT_EQ(back.cells.at(0).num_cells(), 6);
  EXPECT_NEAR(enclosed_volume(back), 1.0 / 6 + 1.0 / 3, 1e-12);
}

TEST(StlWrite, TwoDimensionalPointsGetZeroZ) {
  Mesh mesh;
  mesh.points = array2d<float>(3, 2, {0, 0, 1, 0, 0, 1});
  mesh.cells.push_back({"triangle", array2d<std::int64_t>(1, 3, {0, 1, 2}), {}, {}});
  const std::string path = scratch("flat.stl").string();
  stl::write(path, mesh, {});
  const Mesh back = stl::read(path);
  ASSERT_EQ(back.points.shape(), (Shape{3, 3}));
  EXPECT_EQ(back.points.data_as<double>()[2], 0.0);
  EXPECT_EQ((*back.cell_data.find("facet_normals"))[0].data_as<double>()[2], 1.0);
}

// ---- malformed input ---------------------------------------------------------------------

const char* const kOneFacet =
    "solid one\n"
    "  facet normal 0 0 1\n"
    "    outer loop\n"
    "      vertex 0 0 0\n"
    "      vertex 1 0 0\n"
    "      vertex 0 1 0\n"
    "    endloop\n"
    "  endfacet\n"
    "endsolid one\n";

TEST(StlErrors, TruncatedAsciiNamesLineAndOffset) {
  const std::string text = kOneFacet;
  const std::string path = write_scratch("truncated.stl", text.substr(0, text.find("vertex 0 1 0")));
  const ReadError error = expect_read_error([&] { stl::read(path); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.format(), "stl");
  EXPECT_EQ(error.line(), 6u);
  EXPECT_TRUE(error.byte_offset().has_value());
}

TEST(StlErrors, BadNumberNamesItsLine) {
  std::string text = kOneFacet;
  text.replace(text.find("1 0 0"), 1, "1.2.3");
  const ReadError error = expect_read_error([&] { stl::read(write_scratch("badnumber.stl", text)); });
  EXPECT_EQ(error.line(), 5u);
  EXPECT_NE(error.reason().find("1.2.3"), std::string::npos);
}

TEST(StlErrors, FacetWithFourVerticesIsRejected) {
  std::string text = kOneFacet;
  text.insert(text.find("    endloop"), "      vertex 1 1 0\n");
  const ReadError error = expect_read_error([&] { stl::read(write_scratch("quadfacet.stl", text)); });
  EXPECT_EQ(error.line(), 7u);
}

TEST(StlErrors, MissingEndsolidIsRejected) {
  std::string text = kOneFacet;
  text.erase(text.find("endsolid"));
  expect_read_error([&] { stl::read(write_scratch("noend.stl", text)); });
}

TEST(StlErrors, TruncatedBinarySaysWhatTheSizeShouldBe) {
  std::string bytes(80, ' ');
  const std::uint32_t count = 3;  // needs 84 + 150 bytes
  bytes.append(reinterpret_cast<const char*>(&count), 4);
  bytes.append(100, '\0');
  const ReadError error = expect_read_error([&] { stl::read(write_scratch("short.stl", bytes)); });
  EXPECT_NE(error.reason().find("234 bytes"), std::string::npos) << error.what();
}

TEST(StlErrors, EmptyFileIsRejected) {
  expect_read_error([&] { stl::read(write_scratch("empty.stl", "")); });
}

TEST(StlErrors, MissingFileNamesPath) {
  const ReadError error = expect_read_error([&] { stl::read("/nonexistent/x.stl"); });
  EXPECT_EQ(error.path(), "/nonexistent/x.stl");
}
