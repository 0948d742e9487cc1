// OBJ files large enough to be read in pieces on all cores: the same mesh at 1 and 2 threads
// (mixed face runs, relative indices, per-vertex and per-corner vt/vn, comments and ignored
// keywords), the sequential reading where "g"/"o" lines name regions or vt turn out to need
// index arrays late, and the same error where a line deep in the file is broken.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/obj/obj.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

constexpr int kVertices = 150000, kFaces = 300000;

// ~11 MB: v with as many vt and vn, then runs of triangles, quads and pentagons, some corners
// relative, a comment and ignored lines between the faces.
std::string large_obj() {
  std::string text = "# large\nmtllib scene.mtl\n";
  for (int i = 0; i < kVertices; ++i)
    text += "v " + std::to_string(0.001 * i) + " " + std::to_string(1.0 / (i + 1)) + " -" + std::to_string(i % 11) +
            ".25e-2\n";
  for (int i = 0; i < kVertices; ++i) text += "vt " + std::to_string(0.5 / (i + 1)) + " 0.25\n";
  for (int i = 0; i < kVertices; ++i) text += "vn 0 0 " + std::to_string(i % 2 == 0 ? 1 : -1) + "\n";
  text += "usemtl steel\ns 1\n";
  for (int f = 0; f < kFaces; ++f) {
    const int corners = f < 200000 ? 3 : f < 250000 ? 4 : f < 280000 ? 5 : 3;
    text += "f";
    for (int k = 0; k < corners; ++k) {
      const int v = (f * 7 + k * 13) % kVertices + 1;
      text += f % 5 == 0 && k == 0 ? " " + std::to_string(v - kVertices - 1) : " " + std::to_string(v);
      if (f % 3 == 0) text += "/" + std::to_string(v) + "/" + std::to_string(v);
    }
    text += f % 1000 == 0 ? " # note\n" : "\n";
    if (f == 150000) text += "usemtl wood\n# a comment line\n\n";
  }
  return text;
}

std::string replaced(std::string text, const std::string& find, const std::string& replace) {
  const std::size_t at = text.find(find);
  EXPECT_NE(at, std::string::npos) << find;
  if (at != std::string::npos) text.replace(at, find.size(), replace);
  return text;
}

}  // namespace

TEST(ObjLines, LargeFileIsTheSameAtOneAndTwoThreads) {
  const ScratchDir dir;
  const std::string text = large_obj();
  ASSERT_GT(text.size(), std::size_t{8} << 20);  // several pieces of 2 MiB
  const std::string path = dir.write("large.obj", text);
  const Mesh one = read_at_threads(1, [&] { return obj::read(path); });
  const Mesh two = read_at_threads(2, [&] { return obj::read(path); });
  ASSERT_EQ(one.points.rows(), kVertices);
  ASSERT_EQ(one.cells.size(), 4u);
  EXPECT_EQ(one.cells[0].type, "triangle");
  EXPECT_EQ(one.cells[1].type, "quad");
  EXPECT_EQ(one.cells[2].type, "polygon");
  EXPECT_EQ(one.cells[3].type, "triangle");
  EXPECT_EQ(one.cells[0].num_cells() + one.cells[3].num_cells(), 220000);
  // Face 200005: a relative first corner (f % 5 == 0) in the quad run; its vertex is still v.
  const std::int64_t* quad = one.cells[1].connectivity.data_as<std::int64_t>() + 4 * 5;
  EXPECT_EQ(quad[0], (200005 * 7) % kVertices);
  EXPECT_EQ(quad[3], (200005 * 7 + 39) % kVertices);
  EXPECT_DOUBLE_EQ(one.points.data_as<double>()[3 * 1000 + 2], -0.1025);
  // vt and vn name their vertex's own number wherever given: per-vertex point data.
  ASSERT_NE(one.point_data.find("obj:vt"), nullptr);
  ASSERT_NE(one.point_data.find("obj:vn"), nullptr);
  EXPECT_EQ(one.point_data.find("obj:vn")->data_as<double>()[3 * 7 + 2], -1.0);
  expect_same_bits(one, two);
}

TEST(ObjLines, GroupsAndLateIndexArraysAreReadSequentially) {
  const ScratchDir dir;
  // A group halfway through the faces: regions need the running state of every line before.
  const std::string grouped = replaced(large_obj(), "usemtl wood\n", "g half\n");
  const std::string grouped_path = dir.write("grouped.obj", grouped);
  const Mesh one = read_at_threads(1, [&] { return obj::read(grouped_path); });
  const Mesh two = read_at_threads(2, [&] { return obj::read(grouped_path); });
  ASSERT_EQ(one.regions.size(), 1u);
  EXPECT_EQ(one.regions[0].name, "half");
  EXPECT_EQ(one.regions[0].entries.rows(), kFaces - 150001);
  expect_same_bits(one, two);

  // An object named before everything (as Blender writes): every face joins it.
  const std::string object_path = dir.write("object.obj", replaced(large_obj(), "mtllib scene.mtl\n", "o thing\n"));
  const Mesh object_one = read_at_threads(1, [&] { return obj::read(object_path); });
  const Mesh object_two = read_at_threads(2, [&] { return obj::read(object_path); });
  ASSERT_EQ(object_one.regions.size(), 1u);
  EXPECT_EQ(object_one.regions[0].name, "thing");
  EXPECT_EQ(object_one.regions[0].entries.rows(), kFaces);
  expect_same_bits(object_one, object_two);

  // A corner deep in the file names another vt than its vertex's: vt become field data with
  // per-corner indices, found only when the pieces are parsed.
  const int f = 240000;  // f % 3 == 0, a quad
  const int v = (f * 7 + 13) % kVertices + 1;
  const std::string corner = " " + std::to_string(v) + "/" + std::to_string(v) + "/";
  const std::string late = replaced(large_obj(), corner, " " + std::to_string(v) + "/1/");
  const std::string late_path = dir.write("late.obj", late);
  const Mesh late_one = read_at_threads(1, [&] { return obj::read(late_path); });
  const Mesh late_two = read_at_threads(2, [&] { return obj::read(late_path); });
  EXPECT_EQ(late_one.point_data.find("obj:vt"), nullptr);
  ASSERT_NE(late_one.field_data.find("obj:vt"), nullptr);
  ASSERT_NE(late_one.cell_data.find("obj:vt_index"), nullptr);
  expect_same_bits(late_one, late_two);
}

TEST(ObjLines, ErrorsDeepInALargeFileAreTheSequentialReadersOwn) {
  const ScratchDir dir;
  const std::string text = large_obj();
  struct Case {
    std::string find, replace, message;
  };
  // Face 140002: three plain corners (140002 % 3 and % 5 are not 0).
  const std::string deep_face = "\nf " + std::to_string((140002 * 7) % kVertices + 1) + " ";
  for (const Case& c : std::vector<Case>{
           {"\nv 120.000000 ", "\nv 120.0x0000 ", "invalid number"},
           {"\nv 130.000000 ", "\nv 130.000000 1 2 ", "a vertex needs"},
           {"\nvt 0.000004 ", "\nvt 0.0000x4 ", "invalid number"},
           {deep_face, deep_face + "950000 ", "refers to none"},
           {deep_face, deep_face + "0 ", "invalid vertex index"},
           {deep_face, "\nf\n", "a face needs corners"}}) {
    const std::string path = dir.write("bad.obj", replaced(text, c.find, c.replace));
    const ReadError one = read_at_threads(1, [&] { return expect_read_error([&] { obj::read(path); }); });
    const ReadError two = read_at_threads(2, [&] { return expect_read_error([&] { obj::read(path); }); });
    EXPECT_NE(std::string(one.what()).find(c.message), std::string::npos) << one.what();
    EXPECT_EQ(std::string(one.what()), std::string(two.what()));
    EXPECT_EQ(one.byte_offset(), two.byte_offset());
    EXPECT_EQ(one.line(), two.line());
    ASSERT_TRUE(one.line().has_value());
    EXPECT_GT(*one.line(), 100000u) << one.what();
  }
}
