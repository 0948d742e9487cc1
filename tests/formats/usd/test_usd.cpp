// USD text layers: real files from usd-wg/assets (tests/data/usd, MANIFEST.tsv), transforms,
// primvars by interpolation, GeomSubsets, time samples, round trips, and malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/usd/usd.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) {
  const fs::path path = meshioplusplus::testing::test_data_dir() / "usd" / name;
  EXPECT_TRUE(fs::exists(path)) << path << " is missing (tests/data/MANIFEST.tsv)";
  return path.string();
}

std::vector<std::int64_t> entries(const Region& region) {
  const auto values = region.entries.values<std::int64_t>();
  return {values.begin(), values.end()};
}

// The ReadError of reading `text` as a .usda file, with its line.
ReadError read_error(const std::string& text) {
  const std::string path = write_scratch("hostile.usda", text);
  try {
    usd::read(path);
  } catch (const ReadError& error) {
    return error;
  }
  ADD_FAILURE() << "no ReadError for:\n" << text;
  return ReadError(path, "usd", "none");
}

}  // namespace

TEST(UsdRealFiles, SedanFrom3dsMaxHasSubsetsAndFaceVaryingTexcoords) {
  const Mesh mesh = usd::read(data_file("sedanGeo.usda"));
  EXPECT_EQ(mesh.num_points(), 218);
  EXPECT_EQ(block_summary(mesh), "triangle:415");
  ASSERT_NE(mesh.cell_data.find("map1"), nullptr);  // indexed faceVarying texCoord2f: 3 corners x 2
  EXPECT_EQ((*mesh.cell_data.find("map1"))[0].shape(), (Shape{415, 6}));
  const Region* light = find_region(mesh, "/sedan/_4_frontLightMax");
  ASSERT_NE(light, nullptr);
  EXPECT_EQ(entries(*light), (std::vector<std::int64_t>{403, 404, 405, 406}));
  // matrix4d xformOp:transform scales by 39.3701 (inches to the file's units)
  EXPECT_NEAR(mesh.points.data_as<double>()[2], -5.925 * 39.3701, 1e-3);
  EXPECT_DOUBLE_EQ(mesh.field_data.find("metersPerUnit")->data_as<double>()[0], 0.0254);
}

TEST(UsdRealFiles, PrimvarInterpolationsGoWhereTheySay) {
  const Mesh mesh = usd::read(data_file("primvar_interpolation.usda"));
  EXPECT_EQ(mesh.num_points(), 42);
  EXPECT_EQ(mesh.cells.size(), 7u);
  const NDArray& colors = *mesh.point_data.find("displayColor");  // vertex and varying prims
  EXPECT_EQ(colors.shape(), (Shape{42, 3}));
  EXPECT_TRUE(std::isnan(colors.data_as<float>()[0]));       // the constant prim has none
  EXPECT_EQ(colors.data_as<float>()[12 * 3], 1.0f);          // /World/varying, point 0: (1, 0, 0)
  const auto& uniform = *mesh.cell_data.find("displayColor");
  EXPECT_FLOAT_EQ(uniform[1].data_as<float>()[3], 0.3f);     // /World/uniform, face 1: (0.3, 0.3, 1)
  EXPECT_EQ(uniform[6].shape(), (Shape{2, 12}));             // faceVarying: 4 corners x 3
  EXPECT_NE(mesh.field_data.find("/World/constant:displayColor"), nullptr);
  // double3 xformOp:translate = (0, -1.1, -10) on /World/uniform
  EXPECT_DOUBLE_EQ(mesh.points.data_as<double>()[6 * 3 + 2], -10.0);
}

TEST(UsdRealFiles, MixedFaceSizesAndNestedTransforms) {
  EXPECT_EQ(block_summary(usd::read(data_file("mixed.usda"))), "quad:1;triangle:10");
  const Mesh complex = usd::read(data_file("complex_transform.usda"));  // pivots, !invert!, shear
  EXPECT_EQ(complex.num_points(), 8);
  EXPECT_NEAR(complex.points.data_as<double>()[0], 1.8738218802, 2e-6);  // usd-core's value
  EXPECT_EQ(usd::read(data_file("xforms_nested.usda")).num_points(), 0);  // a Cube: no points
}

TEST(UsdText, TimeSamplesHolesOrientationAndInactivePrims) {
  const std::string path = write_scratch("samples.usda", R"(#usda 1.0
( upAxis = "Z" )
def Xform "root" {
    double3 xformOp:translate = (10, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Mesh "m" (active = true) {
        point3f[] points.timeSamples = { 0: [(0,0,0), (1,0,0), (1,1,0), (0,1,0)], 1: [(5,5,5), (5,5,5), (5,5,5), (5,5,5)] }
        int[] faceVertexCounts = [3, 3, 4]
        int[] faceVertexIndices = [0, 1, 2, 0, 2, 3, 0, 1, 2, 3]
        int[] holeIndices = [1]
        uniform token orientation = "leftHanded"
        float[] primvars:heat = [1, 2, 3] ( interpolation = "uniform" )
        // a comment
        def GeomSubset "top" { uniform token elementType = "face"
            int[] indices = [1, 2] }
    }
    def Mesh "off" ( active = false ) { point3f[] points = [(9, 9, 9)] }
    over "ghost" { def Mesh "inside" { point3f[] points = [(7, 7, 7)] } }
}
)");
  const Mesh mesh = usd::read(path);
  EXPECT_EQ(mesh.num_points(), 4);
  EXPECT_EQ(mesh.points.data_as<double>()[3], 11.0);  // first sample, translated
  EXPECT_EQ(block_summary(mesh), "triangle:1;quad:1");
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 2, 1}));  // left-handed reversed
  EXPECT_EQ(nodes_of(mesh.cells[1]), (std::vector<std::int64_t>{0, 3, 2, 1}));
  EXPECT_EQ((*mesh.cell_data.find("heat"))[1].data_as<float>()[0], 3.0f);  // hole face 1 dropped
  EXPECT_EQ(entries(*find_region(mesh, "/root/m/top")), (std::vector<std::int64_t>{1}));
}

TEST(UsdText, RoundTripKeepsPointsCellsDataAndRegions) {
  Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0.5});
  CellBlock triangles{"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}};
  CellBlock quads{"quad", int64_matrix(1, 4, {1, 4, 2, 3}), {}, {}};
  mesh.cells = {triangles, quads};
  mesh.point_data.set("t", array_of<double>({5}, {0.1, 0.2, 0.3, 0.4, 1e-300}));
  mesh.cell_data.set("id", {array_of<std::int32_t>({2}, {7, 8}), array_of<std::int32_t>({1}, {9})});
  Region region;
  region.name = "a b";
  region.kind = RegionKind::Cell;
  region.entries = array_of<std::int64_t>({2}, {0, 2});
  mesh.regions.push_back(region);
  const std::string path = scratch("round.usda").string();
  usd::write(path, mesh, {});
  const Mesh back = usd::read(path);
  EXPECT_EQ(block_summary(back), "triangle:2;quad:1");
  EXPECT_TRUE(same_bits(back.cells[0].connectivity, mesh.cells[0].connectivity));
  EXPECT_TRUE(same_bits(*back.point_data.find("t"), *mesh.point_data.find("t")));
  EXPECT_TRUE(same_bits((*back.cell_data.find("id"))[0], (*mesh.cell_data.find("id"))[0]));
  EXPECT_EQ(entries(*find_region(back, "a b")), (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(back.points.data_as<double>()[14], 0.5);
}

TEST(UsdText, WriterRefusesVolumeCellsAndBinaryExtensions) {
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  mesh.cells = {CellBlock{"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}}};
  EXPECT_THROW(usd::write(scratch("v.usda").string(), mesh, {}), WriteError);
  mesh.cells = {CellBlock{"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}}};
  EXPECT_THROW(usd::write(scratch("v.usdc").string(), mesh, {}), WriteError);
}

TEST(UsdHostile, MalformedInputIsAReadErrorWithItsLine) {
  const std::string head = "#usda 1.0\n";
  struct Case {
    std::string text;
    std::uint64_t line;
  };
  const std::vector<Case> cases = {
      {"#usda 1.0\ndef Mesh \"m\" {\n point3f[] points = [(0, 0, 0), (1, 0\n", 4},                  // truncated
      {head + "def Mesh \"m\" {\n int[] faceVertexCounts = [3]\n int[] faceVertexIndices = [0, 1, 5]\n point3f[] points = [(0,0,0),(1,0,0),(0,1,0)]\n}\n", 4},
      {head + "def Mesh \"m\" {\n int[] faceVertexCounts = [4]\n int[] faceVertexIndices = [0, 1, 2]\n}\n", 4},
      {head + "def Mesh \"m\" {\n point3f[] points = [(0, 0, x)]\n}\n", 3},
      {head + "def Mesh \"m\" {\n string s = \"open\n}\n", 3},
      {head + "def Mesh \"m\" {\n int[] faceVertexCounts = [1 2]\n}\n", 3},
      {head + "def Mesh \"m\" {\n int[] faceVertexCounts = [99999999999999999999]\n}\n", 3},
      {head + "def Mesh \"m\" {\n float[] primvars:x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]\n}\n", 3},
      {head + "def Mesh \"m\" {\n", 3},
      {head + "def \"m\" ( kind = \n", 3},
      {"PXR-USDC\0\0\0", 1},
      {"hello", 1},
  };
  for (const Case& c : cases) {
    const ReadError error = read_error(c.text);
    EXPECT_EQ(error.line().value_or(0), c.line) << c.text << "\n" << error.what();
  }
  EXPECT_NE(std::string(read_error("PXR-USDC\1\2").what()).find("usd-core"), std::string::npos);
}

TEST(UsdHostile, DeepPrimNestingIsRefused) {
  std::string text = "#usda 1.0\n";
  for (int i = 0; i < 300; ++i) text += "def Xform \"x\" {\n";
  EXPECT_NE(std::string(read_error(text).what()).find("nested deeper"), std::string::npos);
}
