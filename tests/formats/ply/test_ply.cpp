// PLY reader and writer: corpus files (meshio's numbers from EXPECTED_meshio.tsv, and fuze.ply
// which meshio cannot read), every header type, both byte orders, round trips with data,
// and malformed input.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "formats/ply/ply.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;

using namespace meshioplusplus::testing_support;

namespace {

std::map<std::string, std::int64_t> cells_per_type(const Mesh& mesh) {
  std::map<std::string, std::int64_t> counts;
  for (const CellBlock& block : mesh.cells) counts[block.type] += block.num_cells();
  return counts;
}

bool same_array(const NDArray& a, const NDArray& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

// Triangles, quads and two polygon sizes, with data of several dtypes and a per-face list
// whose length differs between blocks.
Mesh mixed_mesh() {
  Mesh mesh;
  mesh.points = array_of<double>({7, 3}, {0.1, 0.2, 0.3, 1e-300, -0.0, 5e300, 1.0 / 3, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                          -1, -2, -3});
  mesh.cells.push_back({"triangle", array_of<std::int64_t>({2, 3}, {0, 1, 2, 2, 3, 4}), {}, {}});
  mesh.cells.push_back({"quad", array_of<std::int64_t>({1, 4}, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back({"polygon", NDArray::from_values<std::int64_t>({0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5}),
                        NDArray::from_values<std::int64_t>({0, 5, 11}), {}});
  mesh.point_data.set("temperature", NDArray::from_values<float>({1.5f, 2, 3, 4, 5, 6, 7}));
  mesh.point_data.set("label", NDArray::from_values<std::int8_t>({-1, 0, 1, 2, 3, 4, 127}));
  mesh.point_data.set("uv", array_of<float>({7, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
  mesh.point_data.set("id", NDArray::from_values<std::uint64_t>({1, 2, 3, 4, 5, 6, 1ull << 60}));
  mesh.cell_data.set("material", {NDArray::from_values<std::int32_t>({10, 11}), NDArray::from_values<std::int32_t>({12}),
                                  NDArray::from_values<std::int32_t>({13, 14})});
  mesh.cell_data.set("texcoord", {array_of<double>({2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}),
                                  array_of<double>({1, 8}, {0, 1, 2, 3, 4, 5, 6, 7}),
                                  array_of<double>({2, 2}, {0.5, 1.5, 2.5, 3.5})});
  return mesh;
}

void expect_same_mesh(const Mesh& back, const Mesh& mesh) {
  EXPECT_TRUE(same_array(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_TRUE(same_array(back.cells[b].connectivity, mesh.cells[b].connectivity)) << b;
    EXPECT_EQ(back.cells[b].is_ragged(), mesh.cells[b].is_ragged());
    if (mesh.cells[b].is_ragged()) {
      EXPECT_TRUE(same_array(back.cells[b].offsets, mesh.cells[b].offsets));
    }
  }
  ASSERT_EQ(back.point_data.size(), mesh.point_data.size());
  for (const auto& [name, array] : mesh.point_data) {
    ASSERT_NE(back.point_data.find(name), nullptr) << name;
    EXPECT_TRUE(same_array(*back.point_data.find(name), array)) << name;
  }
  ASSERT_EQ(back.cell_data.size(), mesh.cell_data.size());
  for (const auto& [name, arrays] : mesh.cell_data) {
    const auto* read = back.cell_data.find(name);
    ASSERT_NE(read, nullptr) << name;
    ASSERT_EQ(read->size(), arrays.size());
    for (std::size_t b = 0; b < arrays.size(); ++b) EXPECT_TRUE(same_array((*read)[b], arrays[b])) << name << b;
  }
}

std::string with_binary(bool binary) { return binary ? "true" : "false"; }

}  // namespace

// ---- corpus ------------------------------------------------------------------------------

TEST(PlyCorpus, FuzeBinaryWithTexcoordListsIsReadWhole) {
  SKIP_WITHOUT_CORPUS_FILE("ply/fuze.ply");
  const Mesh mesh = ply::read(corpus_file("ply/fuze.ply"));
  EXPECT_EQ(mesh.points.dtype(), DType::float32);
  EXPECT_EQ(mesh.num_points(), 502);
  EXPECT_NEAR(point_sum(mesh), 48.12703300839712, 1e-9);
  for (const char* colour : {"red", "green", "blue", "alpha"}) {
    ASSERT_NE(mesh.point_data.find(colour), nullptr) << colour;
    EXPECT_EQ(mesh.point_data.find(colour)->dtype(), DType::uint8);
  }
  EXPECT_EQ(mesh.point_data.find("red")->data_as<std::uint8_t>()[0], 192);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 1000);
  const std::int64_t* first = mesh.cells[0].connectivity.data_as<std::int64_t>();
  EXPECT_EQ(first[0], 0);
  EXPECT_EQ(first[1], 5);
  EXPECT_EQ(first[2], 1);
  const auto* texcoord = mesh.cell_data.find("texcoord");
  ASSERT_NE(texcoord, nullptr);
  EXPECT_EQ((*texcoord)[0].shape(), (Shape{1000, 6}));
  EXPECT_EQ((*texcoord)[0].dtype(), DType::float32);
  EXPECT_FLOAT_EQ((*texcoord)[0].data_as<float>()[0], 0.629012f);
  ASSERT_NE(mesh.cell_data.find("alpha"), nullptr);
  EXPECT_EQ((*mesh.cell_data.find("alpha"))[0].data_as<std::uint8_t>()[0], 255);
}

TEST(PlyCorpus, SuzanneAsciiMatchesMeshioPerTypeTotals) {
  SKIP_WITHOUT_CORPUS_FILE("ply/suzanne.ply");
  const Mesh mesh = ply::read(corpus_file("ply/suzanne.ply"));
  EXPECT_EQ(mesh.num_points(), 1966);
  EXPECT_NEAR(point_sum(mesh), 3145.411133, 1e-6 * 3145.411133);
  // As meshio: 17 blocks, one per run of one face type; 468 quads and 32 triangles in all.
  EXPECT_EQ(cells_per_type(mesh), (std::map<std::string, std::int64_t>{{"quad", 468}, {"triangle", 32}}));
  EXPECT_EQ(mesh.cells.size(), 17u);
  EXPECT_EQ(mesh.cells[0].type, "quad");  // the file starts with quads
  for (const char* name : {"nx", "ny", "nz", "s", "t"}) {
    ASSERT_NE(mesh.point_data.find(name), nullptr) << name;
    EXPECT_EQ(mesh.point_data.find(name)->shape(), (Shape{1966}));
    EXPECT_EQ(mesh.point_data.find(name)->dtype(), DType::float32);
  }
}

TEST(PlyCorpus, FuzeRoundTripsThroughBothEncodings) {
  SKIP_WITHOUT_CORPUS_FILE("ply/fuze.ply");
  const Mesh mesh = ply::read(corpus_file("ply/fuze.ply"));
  for (bool binary : {true, false}) {
    WriteOptions options;
    options.set("binary", with_binary(binary));
    const std::string path = scratch(binary ? "fuze_b.ply" : "fuze_a.ply").string();
    ply::write(path, mesh, options);
    expect_same_mesh(ply::read(path), mesh);
  }
}

// ---- round trips -------------------------------------------------------------------------

TEST(PlyRoundTrip, MixedCellsAndDataAscii) {
  const Mesh mesh = mixed_mesh();
  WriteOptions options;
  options.set("binary", "false");
  const std::string path = scratch("mixed_ascii.ply").string();
  ply::write(path, mesh, options);
  expect_same_mesh(ply::read(path), mesh);
}

TEST(PlyRoundTrip, MixedCellsAndDataBinaryIsTheDefault) {
  const Mesh mesh = mixed_mesh();
  const std::string path = scratch("mixed_binary.ply").string();
  ply::write(path, mesh, {});
  std::ifstream in(path, std::ios::binary);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(second, "format binary_little_endian 1.0");
  expect_same_mesh(ply::read(path), mesh);
}

TEST(PlyRoundTrip, TwoDimensionalFloat32PointsAndNoCells) {
  Mesh mesh;
  mesh.points = array_of<float>({3, 2}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f});
  for (bool binary : {true, false}) {
    WriteOptions options;
    options.set("binary", with_binary(binary));
    const std::string path = scratch("cloud.ply").string();
    ply::write(path, mesh, options);
    expect_same_mesh(ply::read(path), mesh);
  }
}

// ---- header and layout variants ----------------------------------------------------------

TEST(PlyRead, EveryScalarTypeNameKeepsItsDtype) {
  const std::string text =
      "ply\nformat ascii 1.0\ncomment all the names\nobj_info x\nelement vertex 2\n"
      "property float32 x\nproperty float32 y\nproperty float32 z\n"
      "property char a\nproperty uchar b\nproperty short c\nproperty ushort d\nproperty int e\n"
      "property uint f\nproperty float g\nproperty double h\nproperty int8 i\nproperty uint8 j\n"
      "property int16 k\nproperty uint16 l\nproperty int32 m\nproperty uint32 n\nproperty float64 o\n"
      "property int64 p\nproperty uint64 q\n"
      "end_header\n"
      "0 0 0 -128 255 -32768 65535 -2147483648 4294967295 1.5 2.5 -1 1 -2 2 -3 3 4.5 -9 18446744073709551615\n"
      "1 1 1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n";
  const Mesh mesh = ply::read(write_scratch("types.ply", text));
  const std::map<std::string, DType> expected{
      {"a", DType::int8},    {"b", DType::uint8},   {"c", DType::int16},   {"d", DType::uint16},
      {"e", DType::int32},   {"f", DType::uint32},  {"g", DType::float32}, {"h", DType::float64},
      {"i", DType::int8},    {"j", DType::uint8},   {"k", DType::int16},   {"l", DType::uint16},
      {"m", DType::int32},   {"n", DType::uint32},  {"o", DType::float64}, {"p", DType::int64},
      {"q", DType::uint64}};
  for (const auto& [name, dtype] : expected) {
    ASSERT_NE(mesh.point_data.find(name), nullptr) << name;
    EXPECT_EQ(mesh.point_data.find(name)->dtype(), dtype) << name;
  }
  EXPECT_EQ(mesh.point_data.find("e")->data_as<std::int32_t>()[0], -2147483647 - 1);
  EXPECT_EQ(mesh.point_data.find("q")->data_as<std::uint64_t>()[0], 18446744073709551615ull);
  EXPECT_EQ(mesh.points.dtype(), DType::float32);
}

TEST(PlyRead, BigEndianBinaryWithVertexIndexAliasAndSkippedElements) {
  const auto be32 = [](std::uint32_t v) {
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
  };
  const auto be_float = [&](float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return be32(bits);
  };
  std::string bytes =
      "ply\r\nformat binary_big_endian 1.0\r\nelement vertex 4\r\nproperty float x\r\nproperty float y\r\n"
      "property float z\r\nelement edge 2\r\nproperty int a\r\nproperty int b\r\n"
      "element face 2\r\nproperty uchar flag\r\nproperty list ushort uint vertex_index\r\n"
      "element material 1\r\nproperty list uchar uchar name\r\nend_header\r\n";
  for (float v : {0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 1.f, 1.f, 0.f, 0.f, 1.f, 0.5f}) bytes += be_float(v);
  bytes += be32(0) + be32(1) + be32(2) + be32(3);  // edges: skipped
  bytes += std::string{'\x07', '\0', '\x03'} + be32(0) + be32(1) + be32(2);
  bytes += std::string{'\x08', '\0', '\x04'} + be32(0) + be32(1) + be32(2) + be32(3);
  bytes += std::string{'\x02', 'a', 'b'};
  const Mesh mesh = ply::read(write_scratch("big_endian.ply", bytes));
  ASSERT_EQ(mesh.num_points(), 4);
  EXPECT_EQ(mesh.points.data_as<float>()[11], 0.5f);
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(mesh.cells[1].type, "quad");
  EXPECT_EQ(mesh.cells[1].connectivity.data_as<std::int64_t>()[3], 3);
  const auto* flags = mesh.cell_data.find("flag");
  ASSERT_NE(flags, nullptr);
  EXPECT_EQ((*flags)[0].data_as<std::uint8_t>()[0], 7);
  EXPECT_EQ((*flags)[1].data_as<std::uint8_t>()[0], 8);
}

TEST(PlyRead, ListThatVariesWithinABlockIsDroppedOthersKept) {
  const std::string text =
      "ply\nformat ascii 1.0\nelement vertex 6\nproperty double x\nproperty double y\nproperty double z\n"
      "element face 3\nproperty list uchar int vertex_indices\nproperty list uchar float texcoord\n"
      "property list uchar int ragged\nend_header\n"
      "0 0 0\n1 0 0\n1 1 0\n0 1 0\n2 2 0\n3 3 0\n"
      "3 0 1 2 6 0 0 1 0 1 1 1 9\n"
      "5 0 1 2 3 4 10 0 0 0 0 0 0 0 0 0 0 2 9 9\n"
      "6 0 1 2 3 4 5 12 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
  const Mesh mesh = ply::read(write_scratch("lists.ply", text));
  EXPECT_EQ(mesh.points.dtype(), DType::float64);
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(mesh.cells[1].type, "polygon");
  EXPECT_EQ(mesh.cells[1].num_cells(), 2);
  // texcoord: 6 values per triangle, but 10 and 12 within the polygon block -> dropped;
  // "ragged" likewise (1 value for the triangle, 2 and 0 for the polygons).
  EXPECT_EQ(mesh.cell_data.find("texcoord"), nullptr);
  EXPECT_EQ(mesh.cell_data.find("ragged"), nullptr);
}

TEST(PlyRead, FaceElementBeforeVertexElement) {
  const std::string text =
      "ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int vertex_indices\n"
      "element vertex 3\nproperty float x\nproperty float y\nend_header\n"
      "3 2 1 0\n0 0\n1 0\n0 1\n";
  const Mesh mesh = ply::read(write_scratch("face_first.ply", text));
  EXPECT_EQ(mesh.points.shape(), (Shape{3, 2}));
  EXPECT_EQ(mesh.cells.at(0).connectivity.data_as<std::int64_t>()[0], 2);
}

// ---- malformed input ---------------------------------------------------------------------

const std::string kAsciiTriangle =
    "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
    "property uchar red\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
    "0 0 0 1\n1 0 0 2\n0 1 0 3\n3 0 1 2\n";

TEST(PlyErrors, ValidBaseCaseReads) {
  EXPECT_EQ(ply::read(write_scratch("base.ply", kAsciiTriangle)).cells.at(0).num_cells(), 1);
}

TEST(PlyErrors, IndexOutOfRangeNamesLine) {
  std::string text = kAsciiTriangle;
  text.replace(text.rfind("3 0 1 2"), 7, "3 0 1 3");
  const std::string path = write_scratch("range.ply", text);
  const ReadError error = expect_read_error([&] { ply::read(path); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.line(), 14u);
  EXPECT_EQ(error.format(), "ply");
  EXPECT_NE(error.reason().find("vertex 3"), std::string::npos) << error.what();
}

TEST(PlyErrors, OutOfRangeValueForItsTypeIsRejected) {
  std::string text = kAsciiTriangle;
  text.replace(text.find("0 0 0 1"), 7, "0 0 0 256");
  const ReadError error = expect_read_error([&] { ply::read(write_scratch("uchar.ply", text)); });
  EXPECT_EQ(error.line(), 11u);
}

TEST(PlyErrors, BadNumberIsRejected) {
  std::string text = kAsciiTriangle;
  text.replace(text.find("1 0 0 2"), 7, "1 0 x 2");
  const ReadError error = expect_read_error([&] { ply::read(write_scratch("nan.ply", text)); });
  EXPECT_EQ(error.line(), 12u);
}

TEST(PlyErrors, TruncatedAsciiIsRejected) {
  const std::string text = kAsciiTriangle.substr(0, kAsciiTriangle.size() - 4);
  const ReadError error = expect_read_error([&] { ply::read(write_scratch("short_ascii.ply", text)); });
  EXPECT_TRUE(error.byte_offset().has_value());
}

TEST(PlyErrors, CountsLargerThanTheFileFailBeforeAllocating) {
  std::string text = kAsciiTriangle;
  text.replace(text.find("vertex 3"), 8, "vertex 4000000000000");
  const ReadError error = expect_read_error([&] { ply::read(write_scratch("huge.ply", text)); });
  EXPECT_EQ(error.line(), 3u);
}

// Fuzz finding (tests/data/fuzz-regressions/ply/): an element without properties announcing
// 241 M records took 241 M skip steps (a timeout under a sanitizer). Skipping them is one step now,
// and what follows reads as usual.
TEST(PlyErrors, ElementWithoutPropertiesAndAHugeCountIsSkippedAtOnce) {
  std::string text = kAsciiTriangle;
  text.replace(text.find("element face 1"), 14, "element nothing 2000000000\nelement face 1");
  const auto start = std::chrono::steady_clock::now();
  const Mesh mesh = ply::read(write_scratch("nothing.ply", text));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(mesh.points.rows(), 3);
  EXPECT_EQ(mesh.cells.at(0).num_cells(), 1);
}

TEST(PlyErrors, TruncatedBinaryNamesOffset) {
  Mesh mesh = mixed_mesh();
  const std::string path = scratch("to_truncate.ply").string();
  ply::write(path, mesh, {});
  const auto size = fs::file_size(path);
  fs::resize_file(path, size - 3);
  const ReadError error = expect_read_error([&] { ply::read(path); });
  ASSERT_TRUE(error.byte_offset().has_value());
  EXPECT_GT(*error.byte_offset(), 100u);
  EXPECT_FALSE(error.line().has_value());
}

TEST(PlyErrors, NegativeListLengthIsRejected) {
  std::string bytes =
      "ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
      "element face 1\nproperty list char int vertex_indices\nend_header\n";
  bytes += std::string(8, '\0');
  bytes += '\xff';  // -1
  const ReadError error = expect_read_error([&] { ply::read(write_scratch("negative.ply", bytes)); });
  EXPECT_NE(error.reason().find("negative"), std::string::npos);
}

TEST(PlyErrors, HeaderProblemsNameTheirLine) {
  const auto line_of_error = [](const std::string& name, const std::string& text) {
    return expect_read_error([&] { ply::read(write_scratch(name, text)); }).line();
  };
  EXPECT_EQ(line_of_error("magic.ply", "plx\n"), 1u);
  EXPECT_EQ(line_of_error("type.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\nend_header\n"), 4u);
  EXPECT_EQ(line_of_error("format.ply", "ply\nformat ascii 2.0\nend_header\n"), 2u);
  EXPECT_EQ(line_of_error("noend.ply", "ply\nformat ascii 1.0\nelement vertex 1\n"), 4u);
  EXPECT_EQ(line_of_error("nofaces.ply",
                          "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
                          "element face 1\nproperty int foo\nend_header\n0 0\n1\n"),
            6u);
}

// ---- ASCII records one per line: undeclared values (MeshLab / VCGLIB) --------------------

// tests/data/ply/fuze_meshlab_ascii.ply: the corpus fuze.ply (binary, VCGLIB) as ASCII with its
// header kept and, on every face line, the texture number VCGLIB writes after texcoord though
// the header does not declare it. trimesh reads the file; meshio 5.3.5 raises.
TEST(PlyMeshlabAscii, UndeclaredValueAfterTexcoordIsNotedAndTheFacesAreWhole) {
  const fs::path path = meshioplusplus::testing::test_data_dir() / "ply" / "fuze_meshlab_ascii.ply";
  ASSERT_TRUE(fs::exists(path)) << path << " is missing (tests/data/MANIFEST.tsv)";
  const Mesh ascii = ply::read(path.string());
  ASSERT_EQ(ascii.num_points(), 502);
  ASSERT_EQ(ascii.cells.size(), 1u);
  ASSERT_EQ(ascii.cells[0].num_cells(), 1000);
  const auto* extra = ascii.cell_data.find("ply:extra_values");
  ASSERT_NE(extra, nullptr);
  EXPECT_EQ((*extra)[0].shape(), (Shape{1000, 1}));
  // Declared properties are read in order: the texture number (0) lands in "red", and each
  // colour moves one place; the alpha value is the one left over.
  EXPECT_EQ((*ascii.cell_data.find("red"))[0].data_as<std::uint8_t>()[0], 0);
  EXPECT_EQ((*extra)[0].data_as<double>()[0], 255.0);
  SKIP_WITHOUT_CORPUS_FILE("ply/fuze.ply");
  const Mesh binary = ply::read(corpus_file("ply/fuze.ply"));
  EXPECT_TRUE(same_array(ascii.points, binary.points));
  EXPECT_TRUE(same_array(ascii.cells[0].connectivity, binary.cells[0].connectivity));
  EXPECT_TRUE(same_array((*ascii.cell_data.find("texcoord"))[0], (*binary.cell_data.find("texcoord"))[0]));
  for (const char* colour : {"red", "green", "blue", "alpha"})
    EXPECT_TRUE(same_array(*ascii.point_data.find(colour), *binary.point_data.find(colour))) << colour;
  const NDArray& alpha = (*binary.cell_data.find("alpha"))[0];
  for (std::int64_t f = 0; f < 1000; ++f) EXPECT_EQ((*extra)[0].data_as<double>()[f], alpha.data_as<std::uint8_t>()[f]) << f;
}

TEST(PlyMeshlabAscii, TrailingValuesKeptPerBlockDroppedWhenRaggedSkippedOnVertices) {
  const std::string header =
      "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 3\nproperty list uchar int vertex_indices\nproperty list uchar float texcoord\nend_header\n";
  const std::string vertices = "0 0 0 9\n1 0 0 9 9\n0 1 0\n1 1 0 \n";
  const Mesh kept = ply::read(write_scratch(
      "kept.ply", header + vertices + "3 0 1 2 2 0.5 0.5 7 \n4 0 1 3 2 2 0.25 0.75 8 1.5\n3 1 3 2 2 1 1 6\n"));
  ASSERT_EQ(kept.cells.size(), 3u);  // runs: triangle, quad, triangle
  EXPECT_EQ(kept.points.data_as<float>()[3], 1.0f);
  const auto* extra = kept.cell_data.find("ply:extra_values");
  ASSERT_NE(extra, nullptr);
  EXPECT_EQ(int_values((*extra)[0]), (std::vector<std::int64_t>{7}));  // triangles: one value each
  EXPECT_EQ((*extra)[1].shape(), (Shape{1, 2}));                       // the quad: two
  EXPECT_EQ((*extra)[1].data_as<double>()[1], 1.5);
  EXPECT_EQ(int_values((*extra)[2]), (std::vector<std::int64_t>{6}));
  EXPECT_EQ((*kept.cell_data.find("texcoord"))[2].data_as<float>()[0], 1.0f);

  const Mesh dropped = ply::read(write_scratch(
      "dropped.ply", header + vertices + "3 0 1 2 2 0.5 0.5 7\n4 0 1 3 2 2 0.25 0.75\n3 1 3 2 2 1 1 6 5\n"));
  EXPECT_EQ(dropped.cell_data.find("ply:extra_values"), nullptr);
  EXPECT_EQ(nodes_of(dropped.cells[2]), (std::vector<std::int64_t>{1, 3, 2}));
}

TEST(PlyMeshlabAscii, ARecordMayStillContinueOnTheNextLine) {
  const Mesh mesh = ply::read(write_scratch(
      "wrapped.ply",
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nelement face 1\n"
      "property list uchar int vertex_indices\nend_header\n0 0\n1\n0\n0 1\n3 0\n1 2\n"));
  EXPECT_EQ(nodes_of(mesh.cells.at(0)), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(point_sum(mesh), 2.0);
}
