// XYZ-family reader and writer: PDAL's Leica .pts test files and GDAL-style .xyz, a text file
// with a "X,Y,Z" header, the layouts by extension and header, the columns option, round
// trips through every extension, and malformed lines.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "formats/xyz/xyz.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/threads.hpp"
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

// Large enough for the parallel parse and print: the same file and mesh at 1 and 2 threads,
// and a bad value deep inside reported alike.
TEST(XyzRoundTrip, LargeCloudSameAtOneAndTwoThreads) {
  constexpr std::int64_t n = 200000;
  std::mt19937 random(34);
  std::uniform_real_distribution<double> coordinate(-1e3, 1e3);
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {n, 3});
  for (double& v : std::span(mesh.points.data_as<double>(), 3 * n)) v = coordinate(random);
  for (const char* name : {"red", "green", "blue"}) {
    NDArray colour = NDArray::allocate(DType::uint8, {n});
    for (std::uint8_t& v : std::span(colour.data_as<std::uint8_t>(), n)) v = static_cast<std::uint8_t>(random());
    mesh.point_data.set(name, colour);
  }
  std::string files[2];
  for (unsigned threads : {1u, 2u}) {
    set_thread_count(threads);
    const std::string path = scratch("large" + std::to_string(threads) + ".xyz").string();
    write(path, mesh);
    files[threads - 1] = read_file(path);
    const Mesh back = read(scratch("large1.xyz").string());
    EXPECT_TRUE(same_bits(mesh.points, back.points));
    for (const char* name : {"red", "green", "blue"}) EXPECT_TRUE(same_bits(*mesh.point_data.find(name), *back.point_data.find(name))) << name;
  }
  set_thread_count(0);
  EXPECT_TRUE(files[0] == files[1]);  // not EXPECT_EQ: megabytes in a failure message
  std::string text = files[0];
  const std::size_t bad = text.find('\n', text.size() / 2) + 1;
  text.replace(bad, 1, "?");
  const std::string path = write_scratch("large_bad.xyz", text);
  std::string messages[2];
  for (unsigned threads : {1u, 2u}) {
    set_thread_count(threads);
    const ReadError error = expect_read_error([&] { read(path); });
    messages[threads - 1] = error.what();
    EXPECT_EQ(error.byte_offset(), bad);
  }
  set_thread_count(0);
  EXPECT_EQ(messages[0], messages[1]);
}

// Colours are read straight into bytes while they look like bytes; a later value that is
// not one (0.5, 256) makes the read start again the general way: the same mesh as always.
TEST(XyzLayouts, ColoursAsBytesUnlessOneIsNot) {
  const auto red_of = [](const std::string& name, const std::string& text) {
    return *read(write_scratch(name, text)).point_data.find("red");
  };
  EXPECT_TRUE(same_bits(red_of("bytes.xyz", "1 2 3 10 20 30\n4 5 6 255 0 7\n"), array_of<std::uint8_t>({2}, {10, 255})));
  EXPECT_TRUE(same_bits(red_of("half.xyz", "1 2 3 10 20 30\n4 5 6 0.5 0 7\n"), array_of<double>({2}, {10, 0.5})));
  EXPECT_TRUE(same_bits(red_of("big.xyz", "1 2 3 10 20 30\n4 5 6 256 0 7\n"), array_of<double>({2}, {10, 256})));
  EXPECT_TRUE(same_bits(red_of("ones.xyz", "1 2 3 1 0 1\n4 5 6 0 1 1\n"), array_of<double>({2}, {1, 0})));
  EXPECT_TRUE(same_bits(red_of("padded.xyz", "1 2 3 010 20 30\n4 5 6 +7 0 7\n"), array_of<std::uint8_t>({2}, {10, 7})));
  const ReadError error = expect_read_error([&] { read(write_scratch("bad.xyz", "1 2 3 10 20 30\n4 5 6 x 0 7\n")); });
  EXPECT_EQ(error.line(), 2u);
  // Large (parsed on all cores), one float colour near the end.
  std::string text;
  for (int i = 0; i < 200000; ++i) text += std::to_string(i) + " 0.25 -1e3 " + std::to_string(i % 256) + " 7 9\n";
  text += "1 2 3 0.75 7 9\n";
  const NDArray red = red_of("large_half.xyz", text);
  ASSERT_EQ(red.dtype(), DType::float64);
  EXPECT_EQ(red.data_as<double>()[200000], 0.75);
  EXPECT_EQ(red.data_as<double>()[255], 255.0);
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
