// XYZ-family reader and writer: PDAL's Leica .pts test files and GDAL-style .xyz, a text file
// with a "X,Y,Z" header, the layouts by extension and header, the columns option, round
// trips through every extension, and malformed lines.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/xyz/xyz.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "xyz" / name).string(); }

std::vector<std::string> names_of(const Mesh& mesh) {
  std::vector<std::string> names;
  for (const auto& entry : mesh.point_data) names.push_back(entry.first);
  return names;
}

}  // namespace

TEST(XyzRealFiles, LeicaPtsWithIntensityAndColours) {
  const Mesh mesh = read(data_file("test.pts"));  // "19", then x y z intensity r g b
  EXPECT_EQ(mesh.num_points(), 19);
  EXPECT_EQ(names_of(mesh), (std::vector<std::string>{"intensity", "red", "green", "blue"}));
  EXPECT_EQ(mesh.point_data.find("red")->dtype(), DType::uint8);
  EXPECT_EQ(mesh.point_data.find("intensity")->values<double>()[0], -1035);
  EXPECT_DOUBLE_EQ(mesh.points.values<double>()[0], 3.980972);
  EXPECT_EQ(int_values(*mesh.point_data.find("red"))[0], 97);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "vertex");
  EXPECT_EQ(mesh.cells[0].connectivity.rows(), 19);

  const Mesh autzen = read(data_file("autzen.pts"));
  EXPECT_EQ(autzen.num_points(), 10);
  const Mesh site = read(data_file("site_56_8.pts"));  // "8", then x y z intensity
  EXPECT_EQ(site.num_points(), 8);
  EXPECT_EQ(names_of(site), std::vector<std::string>{"intensity"});
  const Mesh bunny = read(data_file("bunny_8.pts"));  // its count line says 8, it holds 9 points
  EXPECT_EQ(bunny.num_points(), 9);
  EXPECT_TRUE(bunny.point_data.empty());
}

TEST(XyzRealFiles, GridAndHeaderedText) {
  const Mesh grid = read(data_file("data.xyz"));
  EXPECT_EQ(grid.num_points(), 400);
  EXPECT_EQ(grid.points.values<double>()[0], 440750);
  const Mesh text = xyz::read(data_file("utm17_1.txt"));  // "X,Y,Z" then comma-separated values
  EXPECT_EQ(text.num_points(), 10);
  EXPECT_DOUBLE_EQ(text.points.values<double>()[0], 289814.15);
  EXPECT_TRUE(text.point_data.empty());
}

TEST(XyzLayouts, ByExtensionHeaderAndOption) {
  const std::string normals = write_scratch("a.xyz", "0 0 0 0.5 0.5 0.7071\n1 1 1 0 0 1\n");
  EXPECT_EQ(names_of(read(normals)), (std::vector<std::string>{"nx", "ny", "nz"}));
  const std::string colours = write_scratch("b.xyz", "0 0 0 255 0 10\n1 1 1 0 0 1\n");
  EXPECT_EQ(names_of(read(colours)), (std::vector<std::string>{"red", "green", "blue"}));
  EXPECT_EQ(read(colours).point_data.find("red")->dtype(), DType::uint8);
  const std::string float_colours = write_scratch("c.xyzrgb", "0 0 0 0.5 0.25 1\n");
  const Mesh open3d = read(float_colours);
  EXPECT_EQ(open3d.point_data.find("green")->dtype(), DType::float64);
  const std::string cloudcompare = write_scratch("d.asc", "//X;Y;Z;Intensity;Nx;Ny;Nz\n1;2;3;0.5;0;0;1\n4;5;6;0.25;0;1;0\n");
  const Mesh asc = read(cloudcompare);
  EXPECT_EQ(names_of(asc), (std::vector<std::string>{"intensity", "nx", "ny", "nz"}));
  EXPECT_EQ(asc.points.values<double>()[3], 4);
  xyz::ReadOptions options;
  options.columns = "x,y,z,_,scalar,nx,ny";
  const Mesh chosen = xyz::read(cloudcompare, options);
  EXPECT_EQ(names_of(chosen), (std::vector<std::string>{"scalar", "nx", "ny"}));
  EXPECT_EQ(chosen.point_data.find("scalar")->values<double>()[1], 0);
  options.columns = "x,y,z";
  EXPECT_THROW(xyz::read(cloudcompare, options), ReadError);
}

TEST(XyzRoundTrip, EveryExtension) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 3}, {0.1, 0.2, 0.3, -1e300, 5e-324, 7, 1, 2, 3});
  mesh.point_data.set("nx", array_of<double>({3}, {0.1, 0, 1}));
  mesh.point_data.set("ny", array_of<double>({3}, {0.2, 1, 0}));
  mesh.point_data.set("nz", array_of<double>({3}, {0.3, 0, 0}));
  mesh.point_data.set("red", array_of<std::uint8_t>({3}, {255, 0, 7}));
  mesh.point_data.set("green", array_of<std::uint8_t>({3}, {1, 2, 3}));
  mesh.point_data.set("blue", array_of<std::uint8_t>({3}, {9, 8, 200}));
  mesh.point_data.set("intensity", array_of<double>({3}, {-1035, 3, 2047}));
  const std::vector<std::pair<std::string, std::vector<std::string>>> layouts{
      {"r.xyz", {"red", "green", "blue", "nx", "ny", "nz"}},
      {"r.asc", {"red", "green", "blue", "nx", "ny", "nz", "intensity"}},
      {"r.xyzn", {"nx", "ny", "nz"}},
      {"r.xyzrgb", {"red", "green", "blue"}},
      {"r.pts", {"intensity", "red", "green", "blue"}},
  };
  for (const auto& [name, columns] : layouts) {
    SCOPED_TRACE(name);
    const std::string path = scratch(name).string();
    write(path, mesh);
    const Mesh back = read(path);
    EXPECT_TRUE(same_bits(mesh.points, back.points));
    EXPECT_EQ(names_of(back), columns);
    for (const std::string& column : columns) EXPECT_TRUE(same_bits(*mesh.point_data.find(column), *back.point_data.find(column))) << column;
  }
  Mesh bare;
  bare.points = array_of<double>({1, 3}, {1, 2, 3});
  EXPECT_THROW(write(scratch("bare.xyzn").string(), bare), WriteError);
  EXPECT_THROW(write(scratch("bare.xyzrgb").string(), bare), WriteError);
  write(scratch("bare.xyz").string(), bare);
  EXPECT_EQ(read_file(scratch("bare.xyz")), "1 2 3\n");
}

TEST(XyzHostile, MalformedLines) {
  const auto fails = [](const std::string& name, const std::string& text, const std::string& words, std::uint64_t line) {
    const std::string path = write_scratch(name, text);
    const ReadError error = expect_read_error([&] { xyz::read(path); });
    EXPECT_EQ(error.path(), path);
    EXPECT_EQ(error.format(), "xyz");
    EXPECT_EQ(error.line(), line);
    EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
  };
  fails("short.xyz", "1 2 3\n4 5\n", "has 2 values, the first point 3", 2);
  fails("long.xyz", "1 2 3\n4 5 6\n7 8 9 10\n", "has 4 values", 3);
  fails("bad.xyz", "# x y z\n1 2 3\n4 x 6\n", "invalid number 'x'", 3);
  fails("none.xyz", "# only a comment\n\n", "no point", 3);
  fails("one.xyz", "1\n2\n", "no point", 3);
  fails("single.xyz", "1.5\n", "at least two values", 1);
}
