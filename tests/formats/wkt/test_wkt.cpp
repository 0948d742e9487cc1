// WKT reader and writer: TIN as meshio writes it, TIN Z / POLYHEDRALSURFACE / MULTIPOLYGON /
// POLYGON variants, deduplication as meshio does it, round trips, and malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/wkt/wkt.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;


TEST(WktRead, MeshioTinWithSharedCornersAndSignedZero) {
  const std::string text =
      "TIN (((0.0 0.0 0.0, 1.0 0.0 0.0, 0.0 1.0 0.0, 0.0 0.0 0.0)), "
      "((1.0 0.0 -0.0, 1.0 1.0 0.0, 0.0 1.0 0.0, 1.0 0.0 0.0)))";
  const Mesh mesh = wkt::read(write_scratch("meshio.wkt", text));
  EXPECT_EQ(mesh.points.shape(), (Shape{4, 3}));
  EXPECT_EQ(block_summary(mesh), "triangle:2");
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 1, 3, 2}));
  EXPECT_FALSE(std::signbit(mesh.points.data_as<double>()[5]));  // the first spelling wins
}

TEST(WktRead, TinZPolyhedralSurfaceMultipolygonAndPolygon) {
  const Mesh tin_z = wkt::read(write_scratch("z.wkt", "tin z (((0 0 0,1 0 0,0 1 1e-3,0 0 0)))\n"));
  EXPECT_EQ(tin_z.points.data_as<double>()[8], 1e-3);
  const Mesh surface = wkt::read(write_scratch(
      "p.wkt", "POLYHEDRALSURFACE Z (((0 0 0, 1 0 0, 1 1 0, 0 1 0, 0 0 0)), ((0 0 0, 1 0 0, 0 0 1, 0 0 0)))"));
  EXPECT_EQ(block_summary(surface), "quad:1;triangle:1");
  const Mesh multi = wkt::read(write_scratch("m.wkt", "MULTIPOLYGON (((0 0, 1 0, 0 1, 0 0)), ((1 0, 1 1, 0 1, 1 0)))"));
  EXPECT_EQ(multi.points.shape(), (Shape{4, 2}));
  EXPECT_EQ(block_summary(multi), "triangle:2");
  const Mesh polygon = wkt::read(write_scratch("g.wkt", "POLYGON ((0 0, 2 0, 3 1, 1 2, -1 1, 0 0))"));
  EXPECT_EQ(block_summary(polygon), "polygon:1");
  const Mesh empty = wkt::read(write_scratch("e.wkt", "TIN Z EMPTY"));
  EXPECT_EQ(empty.num_points(), 0);
}

TEST(WktRoundTrip, TrianglesAreBitExact) {
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0.1, 0.2, 0.3, 1e-300, -0.5, 5e300, 1.0 / 3, 2, 3, 4, 5, 6});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 2, 1, 3}), {}, {}});
  const std::string path = scratch("round.wkt").string();
  wkt::write(path, mesh, {});
  const Mesh back = wkt::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_TRUE(same_bits(back.cells.at(0).connectivity, mesh.cells[0].connectivity));
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  EXPECT_THROW(wkt::write(path, mesh, {}), std::invalid_argument);
}

TEST(WktBadInput, OpenRingAndNonTriangleTinFace) {
  const ReadError open = expect_read_error([] { wkt::read(write_scratch("o.wkt", "TIN (((0 0 0, 1 0 0, 0 1 0, 0 0 1)))")); });
  EXPECT_NE(std::string(open.what()).find("not closed"), std::string::npos) << open.what();
  EXPECT_EQ(open.byte_offset(), 5u);
  const ReadError quad =
      expect_read_error([] { wkt::read(write_scratch("q.wkt", "TIN (((0 0, 1 0, 1 1, 0 1, 0 0)))")); });
  EXPECT_NE(std::string(quad.what()).find("must be a triangle"), std::string::npos) << quad.what();
}

TEST(WktBadInput, TruncatedBadNumberMixedDimensionsAndHoles) {
  const auto error = [](const std::string& name, const std::string& text) {
    return expect_read_error([&] { wkt::read(write_scratch(name, text)); });
  };
  const ReadError truncated = error("t.wkt", "TIN (((0 0 0, 1 0 0,");
  EXPECT_NE(std::string(truncated.what()).find("unexpected end of file"), std::string::npos) << truncated.what();
  const ReadError number = error("n.wkt", "TIN (((0 0 0, 1 0 0,\n0 1 zero, 0 0 0)))");
  EXPECT_NE(std::string(number.what()).find("invalid number 'zero'"), std::string::npos) << number.what();
  EXPECT_EQ(number.line(), 2u);
  EXPECT_EQ(number.byte_offset(), 25u);
  const ReadError mixed = error("m.wkt", "TIN (((0 0 0, 1 0, 0 1 0, 0 0 0)))");
  EXPECT_NE(std::string(mixed.what()).find("mixed dimensionality"), std::string::npos) << mixed.what();
  const ReadError holes = error("h.wkt", "POLYGON ((0 0, 4 0, 0 4, 0 0), (1 1, 2 1, 1 2, 1 1))");
  EXPECT_NE(std::string(holes.what()).find("holes"), std::string::npos) << holes.what();
  const ReadError kind = error("k.wkt", "LINESTRING (0 0, 1 1)");
  EXPECT_NE(std::string(kind.what()).find("expected TIN"), std::string::npos) << kind.what();
  const ReadError trailing = error("x.wkt", "TIN (((0 0 0, 1 0 0, 0 1 0, 0 0 0))) extra");
  EXPECT_NE(std::string(trailing.what()).find("unexpected text after"), std::string::npos) << trailing.what();
}

// ---- hostile input (issue 18; tests/data/fuzz-regressions/wkt/) ----

// "TIN Z EMPTY" copied zero coordinates with memcpy from a null pointer (UBSan).
TEST(WktHostile, TinZEmptyReadsAsAnEmptyMesh) {
  const Mesh mesh = wkt::read(write_scratch("empty_tin.wkt", "TIN Z EMPTY"));
  EXPECT_EQ(mesh.num_points(), 0);
  EXPECT_TRUE(mesh.cells.empty());
}
