// OFF reader and writer: the corpus file against meshio's numbers (EXPECTED_meshio.tsv), the
// keyword variants, comments anywhere, mixed polygons with colours, round trips, and
// malformed input.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/off/off.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;

using namespace meshioplusplus::testing_support;

namespace {

const char* const kCommented =
    "# a leading comment\n"
    "  OFF   # keyword with a comment\n"
    "\n"
    "# counts follow\n"
    "  6 4 0\n"
    "0 0 0 # vertex 0\n"
    "1 0 0\n"
    "\t1 1 0\n"
    "0 1 0\n"
    "2 0.5 0#no blank before the comment\n"
    "3 3 3\n"
    "3 0 1 2 255 0 0\n"
    "# a comment between faces\n"
    "4 0 1 2 3\n"
    "5 0 1 4 2 3 0.25 0.5 0.75 1.0\n"
    "3 2 3 5 7 # colour-map index\n";

}  // namespace

TEST(OffCorpus, BallMatchesMeshio) {
  const std::string path = corpus_file("off/ballA.off");
  if (!fs::exists(path)) GTEST_SKIP() << "corpus file off/ballA.off absent";
  const Mesh mesh = off::read(path);
  EXPECT_EQ(mesh.num_points(), 1900);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 3796);
  EXPECT_NEAR(point_sum(mesh), -7741.849654, 1e-6 * 7741.849654);
  EXPECT_TRUE(mesh.cell_data.empty());
}

TEST(OffRead, CommentsBlanksMixedPolygonsAndFaceColours) {
  const Mesh mesh = off::read(write_scratch("commented.off", kCommented));
  ASSERT_EQ(mesh.num_points(), 6);
  EXPECT_EQ(mesh.points.data_as<double>()[13], 0.5);
  // One block per run of one face type, in file order: triangle, quad, polygon, triangle.
  ASSERT_EQ(mesh.cells.size(), 4u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 1);
  EXPECT_EQ(mesh.cells[1].type, "quad");
  EXPECT_EQ(mesh.cells[2].type, "polygon");
  EXPECT_EQ(mesh.cells[3].type, "triangle");
  EXPECT_EQ(mesh.cells[3].connectivity.data_as<std::int64_t>()[2], 5);
  const auto* colors = mesh.cell_data.find("off:color");
  ASSERT_NE(colors, nullptr);
  ASSERT_EQ((*colors)[0].shape(), (Shape{1, 4}));
  EXPECT_EQ((*colors)[0].data_as<double>()[0], 255);
  EXPECT_TRUE(std::isnan((*colors)[0].data_as<double>()[3]));
  EXPECT_EQ((*colors)[3].data_as<double>()[0], 7);  // a colour-map index
  EXPECT_TRUE(std::isnan((*colors)[3].data_as<double>()[1]));
  EXPECT_TRUE(std::isnan((*colors)[1].data_as<double>()[0]));  // the quad has none
  EXPECT_EQ((*colors)[2].data_as<double>()[3], 1.0);
}

TEST(OffRead, VertexNormalsColoursTexcoordsAndCountsOnTheKeywordLine) {
  const std::string text =
      "STCNOFF 3 1 0\n"
      "0 0 0  0 0 1  255 0 0 128  0.5 0.25\n"
      "1 0 0  0 0 1  0 255 0 128  0.5 0.25\n"
      "0 1 0  0 0 1  0 0 255 128  0.5 0.25\n"
      "3 0 1 2\n";
  const Mesh mesh = off::read(write_scratch("stcn.off", text));
  ASSERT_NE(mesh.point_data.find("off:normal"), nullptr);
  ASSERT_NE(mesh.point_data.find("off:color"), nullptr);
  ASSERT_NE(mesh.point_data.find("off:texcoord"), nullptr);
  EXPECT_EQ(mesh.point_data.find("off:color")->shape(), (Shape{3, 4}));
  EXPECT_EQ(mesh.point_data.find("off:color")->data_as<double>()[5], 255);
  EXPECT_EQ(mesh.point_data.find("off:texcoord")->data_as<double>()[1], 0.25);
}

TEST(OffRead, NOffGivesItsDimension) {
  const Mesh mesh = off::read(write_scratch("n.off", "nOFF\n2\n3 1\n0 0\n1 0\n0 1\n3 0 1 2\n"));
  EXPECT_EQ(mesh.points.shape(), (Shape{3, 2}));
}

TEST(OffRoundTrip, PointsAreBitExactAndDataKept) {
  Mesh mesh;
  mesh.points = array_of<double>({6, 3}, {0.1, 0.2, 0.3, 1e-300, -0.0, 5e300, 1.0 / 3, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  mesh.cells.push_back({"triangle", array_of<std::int64_t>({1, 3}, {0, 1, 2}), {}, {}});
  mesh.cells.push_back({"polygon", NDArray::from_values<std::int64_t>({0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5}),
                        NDArray::from_values<std::int64_t>({0, 5, 11}), {}});
  mesh.point_data.set("off:normal", array_of<double>({6, 3}, std::vector<double>(18, 0.5)));
  mesh.cell_data.set("off:color", {array_of<double>({1, 3}, {1, 0, 0}), array_of<double>({2, 3}, {0, 1, 0, 0, 0, 0.125})});
  const std::string path = scratch("round.off").string();
  off::write(path, mesh, {});
  const Mesh back = off::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), 2u);
  EXPECT_TRUE(same_bits(back.cells[1].connectivity, mesh.cells[1].connectivity));
  EXPECT_TRUE(same_bits(back.cells[1].offsets, mesh.cells[1].offsets));
  EXPECT_TRUE(same_bits(*back.point_data.find("off:normal"), *mesh.point_data.find("off:normal")));
  EXPECT_TRUE(same_bits((*back.cell_data.find("off:color"))[1], (*mesh.cell_data.find("off:color"))[1]));
}

TEST(OffRoundTrip, CorpusRewriteReadsBackIdentical) {
  const std::string source = corpus_file("off/ballA.off");
  if (!fs::exists(source)) GTEST_SKIP() << "corpus file off/ballA.off absent";
  const Mesh mesh = off::read(source);
  const std::string path = scratch("ball.off").string();
  off::write(path, mesh, {});
  const Mesh back = off::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_TRUE(same_bits(back.cells.at(0).connectivity, mesh.cells.at(0).connectivity));
}

TEST(OffWrite, TwoDimensionalPointsGetZeroZAndVolumeCellsAreRefused) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 2}, {0, 0, 1, 0, 0, 1});
  mesh.cells.push_back({"triangle", array_of<std::int64_t>({1, 3}, {0, 1, 2}), {}, {}});
  const std::string path = scratch("flat.off").string();
  off::write(path, mesh, {});
  EXPECT_EQ(off::read(path).points.shape(), (Shape{3, 3}));
  mesh.cells.push_back({"tetra", array_of<std::int64_t>({1, 4}, {0, 1, 2, 0}), {}, {}});
  EXPECT_THROW(off::write(path, mesh, {}), WriteError);
}

// ---- malformed input ---------------------------------------------------------------------

TEST(OffErrors, MissingFacesNameTheEnd) {
  const std::string path = write_scratch("short.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
  const ReadError error = expect_read_error([&] { off::read(path); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.format(), "off");
  EXPECT_NE(error.reason().find("face 1"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), 7u);
}

TEST(OffErrors, TooFewVerticesShowAsAWrongVertexLine) {
  // The header says 4 vertices; the face line is then read as the 4th vertex.
  const ReadError error = expect_read_error([] { off::read(write_scratch("counts.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")); });
  EXPECT_EQ(error.line(), 6u);
}

TEST(OffErrors, FaceListingFewerCornersThanAnnounced) {
  const ReadError error = expect_read_error([] { off::read(write_scratch("corners.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4 0 1 2\n")); });
  EXPECT_EQ(error.line(), 6u);
}

TEST(OffErrors, BadNumberAndIndexOutOfRange) {
  EXPECT_EQ(expect_read_error([] { off::read(write_scratch("nan.off", "OFF\n3 1 0\n0 0 0\n1 0.0.0 0\n0 1 0\n3 0 1 2\n")); }).line(), 4u);
  const ReadError range = expect_read_error([] { off::read(write_scratch("range.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n")); });
  EXPECT_EQ(range.line(), 6u);
  EXPECT_EQ(*range.byte_offset(), std::string("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 ").size());
}

TEST(OffErrors, UnsupportedAndForeignFiles) {
  expect_read_error([] { off::read(write_scratch("h.off", "4OFF\n1 0 0\n0 0 0 1\n")); });
  expect_read_error([] { off::read(write_scratch("b.off", "OFF BINARY\n")); });
  expect_read_error([] { off::read(write_scratch("x.off", "ply\n")); });
  expect_read_error([] { off::read(write_scratch("e.off", "")); });
  expect_read_error([] { off::read(write_scratch("huge.off", "OFF\n99999999999 1 0\n0 0 0\n")); });
  expect_read_error([] { off::read(write_scratch("neg.off", "OFF\n-1 1 0\n")); });
}

namespace {

// A triangulated strip of `n` vertices as writers print it: one record per line.
std::string large_off(std::int64_t n) {
  std::string text = "OFF\n" + std::to_string(n) + " " + std::to_string(n - 2) + " 0\n";
  for (std::int64_t i = 0; i < n; ++i)
    text += std::to_string(0.5 * i) + " " + std::to_string(i % 7) + " -1.25e-3\n";
  for (std::int64_t i = 0; i + 2 < n; ++i)
    text += "3 " + std::to_string(i) + " " + std::to_string(i + 1) + " " + std::to_string(i + 2) + "\n";
  return text;
}

}  // namespace

// Large files take the all-cores path; odd layouts the sequential one; both give the same.
TEST(OffLarge, ParallelAndSequentialPathsAgree) {
  const std::int64_t n = 400000;  // ~10 MB of vertices, ~9 MB of faces: both above the parallel threshold
  const std::string plain = large_off(n);
  const Mesh fast = off::read(write_scratch("large.off", plain));
  ASSERT_EQ(fast.points.rows(), n);
  EXPECT_EQ(fast.points.data_as<double>()[3 * (n - 1)], 0.5 * (n - 1));
  ASSERT_EQ(fast.cells.size(), 1u);
  EXPECT_EQ(nodes_of(fast.cells[0]).back(), n - 1);

  std::string commented = plain;
  commented.insert(commented.find("\n3 70000 ") + 1, "# a comment between faces\n");
  commented.insert(commented.find("\n1000 ") + 1, "\n");  // a blank line among the vertices
  const Mesh slow = off::read(write_scratch("commented.off", commented));
  EXPECT_TRUE(same_bits(slow.points, fast.points));
  EXPECT_TRUE(same_bits(slow.cells[0].connectivity, fast.cells[0].connectivity));
}

TEST(OffLarge, ACornerOutOfRangeDeepInsideIsNamed) {
  std::string text = large_off(400000);
  const std::size_t at = text.find("\n3 120000 120001 120002\n") + 1;
  text.replace(at, 22, "3 120000 999999 120002");
  const ReadError error = expect_read_error([&] { off::read(write_scratch("bad.off", text)); });
  EXPECT_NE(std::string(error.what()).find("face 120000 refers to vertex 999999"), std::string::npos) << error.what();
  EXPECT_EQ(error.byte_offset(), at + 9);
}

// The one-pass path assumes the first face's shape; a different face deep inside sends the
// file to the planned path, which cuts the faces into runs: triangles, the quad, triangles.
TEST(OffLarge, AQuadAmongTrianglesGetsItsOwnBlock) {
  std::string text = large_off(400000);
  const std::size_t at = text.find("\n3 250000 250001 250002\n") + 1;
  text.replace(at, 22, "4 250000 250001 250002 7");
  const Mesh mesh = off::read(write_scratch("mixed.off", text));
  ASSERT_EQ(mesh.cells.size(), 3u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 250000);
  EXPECT_EQ(mesh.cells[1].type, "quad");
  EXPECT_EQ(nodes_of(mesh.cells[1]), (std::vector<std::int64_t>{250000, 250001, 250002, 7}));
  EXPECT_EQ(mesh.cells[2].type, "triangle");
  EXPECT_EQ(mesh.cells[2].num_cells(), 400000 - 3 - 250000);
  EXPECT_EQ(nodes_of(mesh.cells[2])[0], 250001);  // the face after the quad, first of the last run
}
