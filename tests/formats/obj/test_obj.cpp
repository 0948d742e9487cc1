// OBJ reader and writer: fuze.obj (which meshio cannot read: 664 vt for 502 v), corner
// syntaxes, relative indices, groups, per-vertex vs per-corner attributes, round trips, and
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

#include "formats/obj/obj.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;

using namespace meshioplusplus::testing_support;

namespace {

std::vector<std::int64_t> entries(const Region& region) {
  const auto values = region.entries.values<std::int64_t>();
  return {values.begin(), values.end()};
}

// Every array of `back` equals `mesh`'s, bit for bit, and the regions match.
void expect_same_mesh(const Mesh& back, const Mesh& mesh) {
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_TRUE(same_bits(back.cells[b].connectivity, mesh.cells[b].connectivity));
  }
  ASSERT_EQ(back.point_data.size(), mesh.point_data.size());
  for (const auto& [name, array] : mesh.point_data) EXPECT_TRUE(same_bits(*back.point_data.find(name), array)) << name;
  ASSERT_EQ(back.field_data.size(), mesh.field_data.size());
  for (const auto& [name, array] : mesh.field_data) EXPECT_TRUE(same_bits(*back.field_data.find(name), array)) << name;
  ASSERT_EQ(back.cell_data.size(), mesh.cell_data.size());
  for (const auto& [name, arrays] : mesh.cell_data)
    for (std::size_t b = 0; b < arrays.size(); ++b) EXPECT_TRUE(same_bits((*back.cell_data.find(name))[b], arrays[b])) << name;
  ASSERT_EQ(back.regions.size(), mesh.regions.size());
  for (std::size_t r = 0; r < mesh.regions.size(); ++r) {
    EXPECT_EQ(back.regions[r].name, mesh.regions[r].name);
    EXPECT_EQ(entries(back.regions[r]), entries(mesh.regions[r]));
  }
}

const char* const kMixed =
    "# groups, relative indices, every corner syntax\n"
    "mtllib scene.mtl\n"
    "o thing # an object\n"
    "v 0 0 0\n"
    "v 1 0 0 0.5\n"
    "v 1 1 0\n"
    "v 0 1 0 1 0 0\n"
    "v 2 2 0\n"
    "vt 0 0\n"
    "vt 1 0 0.5\n"
    "vt 1 1\n"
    "vn 0 0 1\n"
    "usemtl red\n"
    "s off\n"
    "g left right\n"
    "f 1/1/1 2/2/1 3/3/1\n"
    "f -5//1 -4//1 -3//1 -2//1\n"
    "g right\n"
    "f 1 2 3 4 5\n"
    "g\n"
    "l 1 2\n"
    "f 3/3 4/1 5/2\n";

}  // namespace

TEST(ObjCorpus, FuzeKeepsTexcoordsPerCornerAndNormalsPerVertex) {
  const std::string path = corpus_file("obj/fuze.obj");
  if (!fs::exists(path)) GTEST_SKIP() << "corpus file obj/fuze.obj absent";
  const Mesh mesh = obj::read(path);
  EXPECT_EQ(mesh.num_points(), 502);
  EXPECT_DOUBLE_EQ(mesh.points.data_as<double>()[0], 0.002047);
  double sum = 0;
  for (double value : mesh.points.values<double>()) sum += value;
  EXPECT_NEAR(sum, 48.127033, 1e-6 * 48.127033);  // the same model as ply/fuze.ply
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 1000);
  const std::int64_t* first = mesh.cells[0].connectivity.data_as<std::int64_t>();
  EXPECT_EQ((std::vector<std::int64_t>{first[0], first[1], first[2]}), (std::vector<std::int64_t>{0, 5, 1}));

  ASSERT_NE(mesh.point_data.find("obj:vn"), nullptr);  // "f a/b/a": normal number = vertex number
  EXPECT_EQ(mesh.point_data.find("obj:vn")->shape(), (Shape{502, 3}));
  ASSERT_NE(mesh.field_data.find("obj:vt"), nullptr);
  EXPECT_EQ(mesh.field_data.find("obj:vt")->shape(), (Shape{664, 2}));
  EXPECT_DOUBLE_EQ(mesh.field_data.find("obj:vt")->data_as<double>()[0], 0.629012);
  const auto* vt_index = mesh.cell_data.find("obj:vt_index");
  ASSERT_NE(vt_index, nullptr);
  EXPECT_EQ((*vt_index)[0].shape(), (Shape{1000, 3}));
  EXPECT_EQ((*vt_index)[0].data_as<std::int64_t>()[1], 1);
  EXPECT_EQ(mesh.cell_data.find("obj:vn_index"), nullptr);
  EXPECT_TRUE(mesh.regions.empty());
}

TEST(ObjCorpus, FuzeRoundTripsExactly) {
  const std::string source = corpus_file("obj/fuze.obj");
  if (!fs::exists(source)) GTEST_SKIP() << "corpus file obj/fuze.obj absent";
  const Mesh mesh = obj::read(source);
  const std::string path = scratch("fuze.obj").string();
  obj::write(path, mesh, {});
  expect_same_mesh(obj::read(path), mesh);
}

TEST(ObjRead, CornerSyntaxesRelativeIndicesAndGroups) {
  const Mesh mesh = obj::read(write_scratch("mixed.obj", kMixed));
  ASSERT_EQ(mesh.num_points(), 5);
  // One block per run of one face type, in file order (meshio's blocks): the last face, a
  // triangle after the polygon, opens a block of its own.
  ASSERT_EQ(mesh.cells.size(), 4u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 1);
  EXPECT_EQ(mesh.cells[1].type, "quad");
  EXPECT_EQ(mesh.cells[2].type, "polygon");
  EXPECT_EQ(mesh.cells[3].type, "triangle");
  EXPECT_EQ(mesh.cells[3].num_cells(), 1);
  const std::int64_t* quad = mesh.cells[1].connectivity.data_as<std::int64_t>();
  EXPECT_EQ((std::vector<std::int64_t>{quad[0], quad[1], quad[2], quad[3]}), (std::vector<std::int64_t>{0, 1, 2, 3}));

  const NDArray* w = mesh.point_data.find("obj:w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->data_as<double>()[0], 1.0);
  EXPECT_EQ(w->data_as<double>()[1], 0.5);
  const NDArray* colors = mesh.point_data.find("obj:color");
  ASSERT_NE(colors, nullptr);
  EXPECT_TRUE(std::isnan(colors->data_as<double>()[0]));
  EXPECT_EQ(colors->data_as<double>()[9], 1.0);

  // 3 vt for 5 v: field data plus per-corner numbers; vt width 3 (the widest line).
  ASSERT_NE(mesh.field_data.find("obj:vt"), nullptr);
  EXPECT_EQ(mesh.field_data.find("obj:vt")->shape(), (Shape{3, 3}));
  const auto& vt_index = *mesh.cell_data.find("obj:vt_index");
  const std::int64_t* first = vt_index[0].data_as<std::int64_t>();
  const std::int64_t* last = vt_index[3].data_as<std::int64_t>();
  EXPECT_EQ((std::vector<std::int64_t>(first, first + 3)), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ((std::vector<std::int64_t>(last, last + 3)), (std::vector<std::int64_t>{2, 0, 1}));
  EXPECT_EQ(vt_index[1].data_as<std::int64_t>()[0], -1);
  ASSERT_EQ(vt_index[2].shape(), (Shape{1, 5}));
  const auto& vn_index = *mesh.cell_data.find("obj:vn_index");
  EXPECT_EQ(vn_index[1].data_as<std::int64_t>()[3], 0);

  // Cells in file order: triangle 0, quad 1, polygon 2, triangle 3.
  ASSERT_EQ(mesh.regions.size(), 3u);
  EXPECT_EQ(mesh.regions[0].name, "thing");
  EXPECT_EQ(entries(mesh.regions[0]), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(mesh.regions[1].name, "left");
  EXPECT_EQ(entries(mesh.regions[1]), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(mesh.regions[2].name, "right");
  EXPECT_EQ(entries(mesh.regions[2]), (std::vector<std::int64_t>{0, 1, 2}));
}

TEST(ObjRead, MatchingTexcoordsArePointData) {
  const Mesh mesh = obj::read(write_scratch("per_vertex.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n"));
  ASSERT_NE(mesh.point_data.find("obj:vt"), nullptr);
  EXPECT_EQ(mesh.point_data.find("obj:vt")->shape(), (Shape{3, 2}));
  EXPECT_TRUE(mesh.cell_data.empty());
  EXPECT_TRUE(mesh.field_data.empty());
}

// As many vt as vertices, but the second face names them crosswise: discovered halfway, so
// the reader starts its second pass again with index arrays (still allocated once).
TEST(ObjRead, EqualCountsThatAreNotPerVertexGetIndexArrays) {
  const Mesh mesh = obj::read(write_scratch(
      "crosswise.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nvn 0 0 1\n"
                       "vn 0 0 1\nvn 0 0 1\nvn 0 0 1\ng top\nf 1/1/1 2/2/2 3/3/3\nf 2/4/2 4/1/4 3/3/3\n"));
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_TRUE(mesh.point_data.contains("obj:vn"));  // normals do follow their vertices
  EXPECT_FALSE(mesh.point_data.contains("obj:vt"));
  ASSERT_TRUE(mesh.field_data.contains("obj:vt"));
  const NDArray& index = mesh.cell_data.find("obj:vt_index")->at(0);
  const std::vector<std::int64_t> expected{0, 1, 2, 3, 0, 2};
  EXPECT_EQ(std::vector<std::int64_t>(index.data_as<std::int64_t>(), index.data_as<std::int64_t>() + 6), expected);
  EXPECT_FALSE(mesh.cell_data.contains("obj:vn_index"));
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(mesh.regions[0].entries.rows(), 2);  // the replayed pass does not count faces twice
  EXPECT_EQ(mesh.points.data_as<double>()[9], 1.0);
}

TEST(ObjRoundTrip, MixedFileKeepsEverything) {
  const Mesh mesh = obj::read(write_scratch("mixed_source.obj", kMixed));
  const std::string path = scratch("mixed_again.obj").string();
  obj::write(path, mesh, {});
  expect_same_mesh(obj::read(path), mesh);
}

TEST(ObjRoundTrip, BuiltMeshPointsAreBitExact) {
  Mesh mesh;
  NDArray points = NDArray::allocate(DType::float64, {4, 3});
  const double values[] = {0.1, 0.2, 0.3, 1e-300, -0.0, 5e300, 1.0 / 3, 2, 3, 4, 5, 6};
  std::memcpy(points.data(), values, sizeof values);
  mesh.points = points;
  NDArray quad = NDArray::allocate(DType::int64, {1, 4});
  const std::int64_t corners[] = {0, 1, 2, 3};
  std::memcpy(quad.data(), corners, sizeof corners);
  mesh.cells.push_back({"quad", quad, {}, {}});
  mesh.regions.push_back({"with space", RegionKind::Cell, 2, -1, NDArray::from_values<std::int64_t>({0})});
  const std::string path = scratch("built.obj").string();
  obj::write(path, mesh, {});
  const Mesh back = obj::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.regions.size(), 1u);
  EXPECT_EQ(back.regions[0].name, "with_space");
}

// ---- malformed input ---------------------------------------------------------------------

TEST(ObjErrors, IndexZeroAndOutOfRangeNameTheirPlace) {
  const std::string path = write_scratch("zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n");
  const ReadError zero = expect_read_error([&] { obj::read(path); });
  EXPECT_EQ(zero.path(), path);
  EXPECT_EQ(zero.format(), "obj");
  EXPECT_EQ(zero.line(), 4u);
  EXPECT_EQ(*zero.byte_offset(), std::string("v 0 0 0\nv 1 0 0\nv 0 1 0\nf ").size());
  const ReadError range = expect_read_error([] { obj::read(write_scratch("range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n")); });
  EXPECT_EQ(range.line(), 4u);
  const ReadError relative = expect_read_error([] { obj::read(write_scratch("relative.obj", "v 0 0 0\nf -1 -2 -1\nv 1 0 0\n")); });
  EXPECT_EQ(relative.line(), 2u);  // -2 reaches before the first vertex at that point
  const ReadError texcoord = expect_read_error([] { obj::read(write_scratch("vt.obj", "v 0 0 0\nvt 0 0\nf 1/2 1/1 1/1\n")); });
  EXPECT_EQ(texcoord.line(), 3u);
}

TEST(ObjErrors, TruncatedFileIsRejected) {
  const std::string text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/";
  const ReadError error = expect_read_error([&] { obj::read(write_scratch("cut.obj", text)); });
  EXPECT_EQ(error.line(), 5u);
  EXPECT_EQ(*error.byte_offset(), text.size());
}

TEST(ObjErrors, BadNumbersAndShapes) {
  EXPECT_EQ(expect_read_error([] { obj::read(write_scratch("nan.obj", "v 0 0 0\nv 1 x 0\n")); }).line(), 2u);
  EXPECT_EQ(expect_read_error([] { obj::read(write_scratch("short.obj", "v 0 0 0\nv 1 0\n")); }).line(), 2u);
  EXPECT_EQ(expect_read_error([] { obj::read(write_scratch("corner.obj", "v 0 0 0\nf 1/a 1 1\n")); }).line(), 2u);
  EXPECT_EQ(expect_read_error([] { obj::read(write_scratch("empty_face.obj", "v 0 0 0\nf\n")); }).line(), 2u);
  EXPECT_EQ(expect_read_error([] { obj::read(write_scratch("normal.obj", "vn 0 1\n")); }).line(), 1u);
}

TEST(ObjWrite, VolumeCellsAreRefused) {
  Mesh mesh;
  mesh.points = NDArray::zeros(DType::float64, {4, 3});
  mesh.cells.push_back({"tetra", NDArray::zeros(DType::int64, {1, 4}), {}, {}});
  EXPECT_THROW(obj::write(scratch("tet.obj").string(), mesh, {}), WriteError);
}

// ---- hostile input (issue 18; tests/data/fuzz-regressions/obj/) ----

// A 0-byte (or blank) file read as an empty mesh; no format has an empty file as a valid one.
TEST(ObjHostile, EmptyFileIsAReadError) {
  for (const std::string text : {"", "  \n\n"}) {
    const std::string path = write_scratch("empty.obj", text);
    const ReadError error = expect_read_error([&] { obj::read(path); });
    EXPECT_EQ(error.path(), path);
    EXPECT_EQ(error.byte_offset(), std::optional<std::uint64_t>(0));
    EXPECT_NE(error.reason().find(text.empty() ? "empty" : "white space"), std::string::npos) << error.what();
  }
}
