// UGRID reader and writer: a hand-written ASCII grid, round trips through every variant the
// file name can choose (ASCII, C binary both byte orders, 4/8-byte reals, 8-byte integers,
// Fortran records), the binary layouts byte by byte, and malformed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "formats/ugrid/ugrid.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// 8 points, 2 triangles, 1 quad, 1 tetra, 1 pyramid, 1 prism, 1 hexahedron (1-based).
const char* const kAscii =
    "8 2 1 1 1 1 1\n"
    "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0.5 0.25 1e-3\n"
    "1 2 3\n1 3 4\n"
    "5 6 7 8\n"
    "3\n4\n"
    "7\n"
    "1 2 3 5\n"
    "1 2 3 4 5\n"
    "1 2 3 5 6 7\n"
    "1 2 3 4 5 6 7 8\n";

Mesh sample_mesh() {
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {9, 3});
  double* p = mesh.points.data_as<double>();
  for (int i = 0; i < 27; ++i) p[i] = 0.1 * i + 1.0 / (i + 7);
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 2, 3, 4}), {}, {}});
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {5, 6, 7, 8}), {}, {}});
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back({"pyramid", int64_matrix(1, 5, {0, 1, 2, 3, 4}), {}, {}});
  mesh.cells.push_back({"wedge", int64_matrix(1, 6, {0, 1, 2, 3, 4, 5}), {}, {}});
  mesh.cells.push_back({"hexahedron", int64_matrix(1, 8, {0, 1, 2, 3, 4, 5, 6, 8}), {}, {}});
  std::vector<NDArray> refs{NDArray::from_values<std::int32_t>({5, 6}), NDArray::from_values<std::int32_t>({5})};
  for (int b = 0; b < 4; ++b) refs.push_back(NDArray::zeros(DType::int32, {1}));
  mesh.cell_data.set("ugrid:ref", std::move(refs));
  return mesh;
}

}  // namespace

TEST(UgridRead, AsciiGridWithEveryElementType) {
  const Mesh mesh = ugrid::read(write_scratch("grid.ugrid", kAscii));
  EXPECT_EQ(mesh.points.shape(), (Shape{8, 3}));
  EXPECT_EQ(mesh.points.data_as<double>()[23], 1e-3);
  EXPECT_EQ(block_summary(mesh), "triangle:2;quad:1;tetra:1;pyramid:1;wedge:1;hexahedron:1");
  EXPECT_EQ(int_values(mesh.cells[0].connectivity), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  // meshio's pyramid permutation: ours = file[1, 0, 3, 4, 2].
  EXPECT_EQ(int_values(mesh.cells[3].connectivity), (std::vector<std::int64_t>{1, 0, 3, 4, 2}));
  const auto& refs = *mesh.cell_data.find("ugrid:ref");
  ASSERT_EQ(refs.size(), 6u);
  EXPECT_EQ(int_values(refs[0]), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(int_values(refs[1]), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(int_values(refs[5]), (std::vector<std::int64_t>{0}));
  ASSERT_EQ(mesh.regions.size(), 3u);
  EXPECT_EQ(mesh.regions[0].name, "ugrid:ref 3");
  EXPECT_EQ(mesh.regions[0].dim, 2);
  EXPECT_EQ(int_values(mesh.regions[2].entries), (std::vector<std::int64_t>{2}));
}

class UgridVariants : public ::testing::TestWithParam<const char*> {};

TEST_P(UgridVariants, RoundTripKeepsEverything) {
  const Mesh mesh = sample_mesh();
  const std::string path = scratch(std::string("grid") + GetParam() + ".ugrid").string();
  ugrid::write(path, mesh, {});
  const Mesh back = ugrid::read(path);
  const std::string variant = GetParam();
  if (variant.find('4') != std::string::npos) {
    ASSERT_EQ(back.points.dtype(), DType::float32);
    EXPECT_TRUE(same_bits(back.points, mesh.points.astype(DType::float32)));
  } else {
    EXPECT_TRUE(same_bits(back.points, mesh.points));
  }
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_TRUE(same_bits(back.cells[b].connectivity, mesh.cells[b].connectivity)) << b;
    EXPECT_EQ(int_values((*back.cell_data.find("ugrid:ref"))[b]), int_values((*mesh.cell_data.find("ugrid:ref"))[b])) << b;
  }
  ASSERT_EQ(back.regions.size(), 2u);
  EXPECT_EQ(int_values(back.regions[0].entries), (std::vector<std::int64_t>{0, 2}));
}

INSTANTIATE_TEST_SUITE_P(AllNames, UgridVariants,
                         ::testing::Values("", ".b8", ".b4", ".lb8", ".lb4", ".b8l", ".lb8l", ".r8", ".r4", ".lr8",
                                           ".lr4"),
                         [](const auto& info) { return std::string(info.param).empty() ? std::string("ascii") : std::string(info.param + 1); });

TEST(UgridWrite, BinaryLayoutsByteByByte) {
  Mesh mesh;
  mesh.points = NDArray::zeros(DType::float64, {4, 3});
  mesh.points.data_as<double>()[3] = 1.0;
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  const std::string c_path = scratch("t.b8.ugrid").string();
  ugrid::write(c_path, mesh, {});
  const std::string c_bytes = read_file(c_path);
  ASSERT_EQ(c_bytes.size(), 7 * 4 + 12 * 8 + 4 * 4u);
  EXPECT_EQ(c_bytes.substr(0, 4), std::string("\0\0\0\4", 4));  // big-endian node count
  EXPECT_EQ(c_bytes.substr(28 + 24, 8), std::string("\x3f\xf0\0\0\0\0\0\0", 8));  // 1.0
  EXPECT_EQ(c_bytes.substr(c_bytes.size() - 4), std::string("\0\0\0\4", 4));

  const std::string f_path = scratch("t.lr8.ugrid").string();
  ugrid::write(f_path, mesh, {});
  const std::string f_bytes = read_file(f_path);
  ASSERT_EQ(f_bytes.size(), 4 + 28 + 4 + 4 + 12 * 8 + 16 + 4u);
  EXPECT_EQ(f_bytes.substr(0, 4), std::string("\x1c\0\0\0", 4));   // record of 28 bytes
  EXPECT_EQ(f_bytes.substr(36, 4), std::string("\x70\0\0\0", 4));  // record of 112 bytes
}

TEST(UgridWrite, SurfaceIdsFromRegionsAndRefusedTypes) {
  Mesh mesh = sample_mesh();
  mesh.cell_data = {};
  mesh.regions.push_back(cell_region("wall", 2, 12, {1, 2}));
  const std::string path = scratch("regions.ugrid").string();
  ugrid::write(path, mesh, {});
  const Mesh back = ugrid::read(path);
  EXPECT_EQ(int_values((*back.cell_data.find("ugrid:ref"))[0]), (std::vector<std::int64_t>{0, 12}));
  EXPECT_EQ(int_values((*back.cell_data.find("ugrid:ref"))[1]), (std::vector<std::int64_t>{12}));
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 1}), {}, {}});
  EXPECT_THROW(ugrid::write(path, mesh, {}), std::invalid_argument);
}

// ---- malformed input ---------------------------------------------------------------------

TEST(UgridErrors, AsciiBadNumberAndIndexOutOfRange) {
  std::string bad = kAscii;
  bad.replace(bad.find("0.5 0.25"), 3, "0.x");
  const std::string path = write_scratch("bad.ugrid", bad);
  const ReadError number = expect_read_error([&] { ugrid::read(path); });
  EXPECT_EQ(number.path(), path);
  EXPECT_EQ(number.format(), "ugrid");
  EXPECT_EQ(number.line(), 9u);

  std::string range = kAscii;
  const std::size_t at = range.find("1 2 3 5\n") + 6;
  range[at] = '9';
  const ReadError index = expect_read_error([&] { ugrid::read(write_scratch("range.ugrid", range)); });
  EXPECT_EQ(index.byte_offset(), at);
  EXPECT_EQ(index.line(), 16u);
  EXPECT_NE(index.reason().find("refers to node 9"), std::string::npos) << index.what();
}

TEST(UgridErrors, TruncatedAndInconsistentBinary) {
  const Mesh mesh = sample_mesh();
  const std::string path = scratch("cut.lb8.ugrid").string();
  ugrid::write(path, mesh, {});
  std::string bytes = read_file(path);
  write_file(path, bytes.substr(0, bytes.size() - 5));
  const ReadError cut = expect_read_error([&] { ugrid::read(path); });
  EXPECT_EQ(cut.byte_offset(), 28u);
  EXPECT_FALSE(cut.line().has_value());

  const std::string fortran = scratch("bad.lr8.ugrid").string();
  ugrid::write(fortran, mesh, {});
  bytes = read_file(fortran);
  bytes[0] = 0x20;  // the first record claims 32 bytes
  write_file(fortran, bytes);
  EXPECT_EQ(expect_read_error([&] { ugrid::read(fortran); }).byte_offset(), 0u);
  bytes[0] = 0x1c;
  bytes[bytes.size() - 4] = 0;  // the last end marker differs
  write_file(fortran, bytes);
  EXPECT_EQ(expect_read_error([&] { ugrid::read(fortran); }).byte_offset(), bytes.size() - 4);
}

TEST(UgridErrors, HeaderProblems) {
  EXPECT_EQ(expect_read_error([] { ugrid::read(write_scratch("neg.ugrid", "3 -1 0 0 0 0 0\n")); }).line(), 1u);
  expect_read_error([] { ugrid::read(write_scratch("short.ugrid", "3 1 0\n")); });
  expect_read_error([] { ugrid::read(write_scratch("huge.ugrid", "999999999999 0 0 0 0 0 0\n0 0 0\n")); });
  expect_read_error([] { ugrid::read(write_scratch("empty.lb8.ugrid", "")); });
  expect_read_error([] { ugrid::read(write_scratch("text.ugrid", "ply\n")); });
}

TEST(UgridRead, FortranRecordLengthAsMeshioWritesIt) {
  // meshio 5.3.5 counts the second record with 8-byte integers; the same wrong length sits at
  // both ends of the record, right around the data.
  const Mesh mesh = sample_mesh();
  const std::string path = scratch("meshio.lr8.ugrid").string();
  ugrid::write(path, mesh, {});
  std::string bytes = read_file(path);
  const auto patch = [&](std::size_t at) { bytes[at] = static_cast<char>(static_cast<unsigned char>(bytes[at]) + 100); };
  patch(36);
  patch(bytes.size() - 4);
  write_file(path, bytes);
  const Mesh back = ugrid::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_EQ(block_summary(back), block_summary(mesh));
}

namespace {

// Overwrites the 4-byte Fortran record marker at `at` in the file's byte order.
void put_marker(std::string& bytes, std::size_t at, std::uint32_t value, bool little_endian) {
  for (int k = 0; k < 4; ++k)
    bytes[at + static_cast<std::size_t>(k)] =
        static_cast<char>((value >> (8 * (little_endian ? k : 3 - k))) & 0xff);
}

// The second record's length as meshio 5.3.5 computes it: float64 points, int64 cells, and
// only the surface ids at the file's 4-byte integer size.
std::uint32_t meshio_body_length(const Mesh& mesh) {
  std::int64_t length = mesh.num_points() * 3 * 8;
  for (const CellBlock& block : mesh.cells) length += static_cast<std::int64_t>(block.connectivity.size()) * 8;
  length += (mesh.cells[0].num_cells() + mesh.cells[1].num_cells()) * 4;
  return static_cast<std::uint32_t>(length);
}

}  // namespace

TEST(UgridRead, FortranFilesAsMeshioWritesThem) {
  // meshio 5.3.5 heads the counts record with 56 (its 7 counts as 8-byte integers in memory)
  // while it writes the counts themselves as 4-byte integers, and repeats 56 at the record's
  // end; the second record carries meshio's miscounted length at both ends too.
  const Mesh mesh = sample_mesh();
  for (const auto& [name, little] : {std::pair{"meshio.lr8.ugrid", true}, std::pair{"meshio.r8.ugrid", false}}) {
    const std::string path = scratch(name).string();
    ugrid::write(path, mesh, {});
    std::string bytes = read_file(path);
    put_marker(bytes, 0, 56, little);
    put_marker(bytes, 32, 56, little);
    put_marker(bytes, 36, meshio_body_length(mesh), little);
    put_marker(bytes, bytes.size() - 4, meshio_body_length(mesh), little);
    write_file(path, bytes);
    const Mesh back = ugrid::read(path);
    EXPECT_TRUE(same_bits(back.points, mesh.points)) << name;
    EXPECT_EQ(block_summary(back), block_summary(mesh)) << name;
    EXPECT_EQ(int_values((*back.cell_data.find("ugrid:ref"))[0]), (std::vector<std::int64_t>{5, 6})) << name;

    // Self-consistent only: 56 at the start but 28 at the end is no record.
    put_marker(bytes, 32, 28, little);
    write_file(path, bytes);
    EXPECT_EQ(expect_read_error([&] { ugrid::read(path); }).byte_offset(), 32u) << name;
    // Nor is any other miscount.
    put_marker(bytes, 0, 40, little);
    put_marker(bytes, 32, 40, little);
    write_file(path, bytes);
    EXPECT_EQ(expect_read_error([&] { ugrid::read(path); }).byte_offset(), 0u) << name;
  }
}

TEST(UgridRead, FortranFileAsAflr3WritesIt) {
  // AFLR3: a 28-byte counts record, then one record with everything else, here including the
  // optional volume ids after the hexahedra (4 volume cells), counted in its length.
  const Mesh mesh = sample_mesh();
  const std::string path = scratch("aflr3.r8.ugrid").string();
  ugrid::write(path, mesh, {});
  std::string bytes = read_file(path);
  ASSERT_EQ(bytes.substr(0, 4), std::string("\0\0\0\x1c", 4));
  ASSERT_EQ(bytes.substr(32, 4), std::string("\0\0\0\x1c", 4));
  const std::uint32_t body = static_cast<std::uint32_t>(bytes.size() - 36 - 8);
  bytes.insert(bytes.size() - 4, std::string("\0\0\0\1\0\0\0\1\0\0\0\2\0\0\0\2", 16));
  put_marker(bytes, 36, body + 16, false);
  put_marker(bytes, bytes.size() - 4, body + 16, false);
  write_file(path, bytes);
  const Mesh back = ugrid::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_EQ(block_summary(back), block_summary(mesh));
  EXPECT_EQ(int_values((*back.cell_data.find("ugrid:ref"))[1]), (std::vector<std::int64_t>{5}));
}

// ---- large ASCII files: records one per line parse on all cores -----------------------------

namespace {

// An ASCII grid whose points, tetrahedra and pyramids each exceed the 4 MB threshold of the
// line-parallel path (pyramids: a node permutation), with a few triangles and their surface
// ids read sequentially in between. Offsets of lines tests corrupt.
struct LargeGrid {
  static constexpr std::int64_t kPoints = 250000, kTriangles = 1000, kTetra = 200000, kPyramids = 150000;
  std::string text;
  std::vector<double> xyz;
  std::vector<std::int64_t> tetra;    // expected, 0-based
  std::vector<std::int64_t> pyramid;  // expected, our node order
  std::vector<std::size_t> point_lines, tetra_lines;
};

LargeGrid large_grid() {
  LargeGrid grid;
  std::string& t = grid.text;
  t.reserve(32 << 20);
  t += std::to_string(LargeGrid::kPoints) + " " + std::to_string(LargeGrid::kTriangles) + " 0 " +
       std::to_string(LargeGrid::kTetra) + " " + std::to_string(LargeGrid::kPyramids) + " 0 0\n";
  char line[256];
  for (std::int64_t i = 0; i < LargeGrid::kPoints; ++i) {
    const double x = static_cast<double>(i % 101) / 9.0, y = static_cast<double>(i) / 7.0 - 3.0, z = 1.0 / (i + 1.0);
    grid.xyz.insert(grid.xyz.end(), {x, y, z});
    grid.point_lines.push_back(t.size());
    std::snprintf(line, sizeof line, "%.17g %.17g %.17g\n", x, y, z);
    t += line;
  }
  const auto node = [](std::int64_t cell, int k) { return (cell * 11 + k * 29) % LargeGrid::kPoints; };
  for (std::int64_t c = 0; c < LargeGrid::kTriangles; ++c)
    t += std::to_string(node(c, 0) + 1) + " " + std::to_string(node(c, 1) + 1) + " " + std::to_string(node(c, 2) + 1) + "\n";
  for (std::int64_t c = 0; c < LargeGrid::kTriangles; ++c) t += std::to_string(c % 3) + "\n";
  for (std::int64_t c = 0; c < LargeGrid::kTetra; ++c) {
    grid.tetra_lines.push_back(t.size());
    for (int k = 0; k < 4; ++k) {
      grid.tetra.push_back(node(c, k));
      t += std::to_string(node(c, k) + 1) + (k < 3 ? " " : "\n");
    }
  }
  const int from_file[5] = {1, 0, 3, 4, 2};  // ours[k] = file[from_file[k]], as meshio
  for (std::int64_t c = 0; c < LargeGrid::kPyramids; ++c) {
    for (int k = 0; k < 5; ++k) {
      grid.pyramid.push_back(node(c, from_file[k]) % 100000 + 7);
      t += std::to_string(node(c, k) % 100000 + 8) + (k < 4 ? " " : "\n");
    }
  }
  return grid;
}

void expect_same_grid(const Mesh& a, const Mesh& b) {
  EXPECT_TRUE(same_bits(a.points, b.points));
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (std::size_t i = 0; i < a.cells.size(); ++i) EXPECT_TRUE(same_bits(a.cells[i].connectivity, b.cells[i].connectivity));
  const auto& refs_a = *a.cell_data.find("ugrid:ref");
  const auto& refs_b = *b.cell_data.find("ugrid:ref");
  ASSERT_EQ(refs_a.size(), refs_b.size());
  for (std::size_t i = 0; i < refs_a.size(); ++i) EXPECT_TRUE(same_bits(refs_a[i], refs_b[i]));
  EXPECT_EQ(a.regions.size(), b.regions.size());
}

std::uint64_t line_of(const std::string& text, std::size_t offset) {
  return static_cast<std::uint64_t>(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace

TEST(UgridLargeAscii, LinesParsedInParallelMatchTheFile) {
  const LargeGrid grid = large_grid();
  ASSERT_GT(grid.text.size(), std::size_t{20} << 20);
  const Mesh mesh = ugrid::read(write_scratch("large.ugrid", grid.text));
  ASSERT_EQ(mesh.points.shape(), (Shape{LargeGrid::kPoints, 3}));
  EXPECT_EQ(std::memcmp(mesh.points.data(), grid.xyz.data(), grid.xyz.size() * sizeof(double)), 0);
  EXPECT_EQ(block_summary(mesh), "triangle:1000;tetra:200000;pyramid:150000");
  EXPECT_EQ(int_values(mesh.cells[1].connectivity), grid.tetra);
  EXPECT_EQ(int_values(mesh.cells[2].connectivity), grid.pyramid);
  EXPECT_EQ(int_values((*mesh.cell_data.find("ugrid:ref"))[0])[4], 1);
  EXPECT_EQ(mesh.regions.size(), 2u);
}

TEST(UgridLargeAscii, OtherLayoutsReadTheSameThroughTheSequentialParser) {
  const LargeGrid grid = large_grid();
  const Mesh expected = ugrid::read(write_scratch("large.ugrid", grid.text));
  std::string two = grid.text;  // two points on one line
  two[grid.point_lines[200000] - 1] = ' ';
  expect_same_grid(ugrid::read(write_scratch("two.ugrid", two)), expected);
  std::string blank = grid.text;  // a blank line among the tetrahedra, one split over two lines
  blank[blank.find(' ', grid.tetra_lines[150000])] = '\n';
  blank.insert(grid.tetra_lines[100000], "\n");
  expect_same_grid(ugrid::read(write_scratch("blank.ugrid", blank)), expected);
  std::string all = grid.text;  // everything on one line
  std::replace(all.begin(), all.end(), '\n', ' ');
  expect_same_grid(ugrid::read(write_scratch("all.ugrid", all)), expected);
}

TEST(UgridLargeAscii, BadValuesDeepInsideAreReportedWhereTheyAre) {
  const LargeGrid grid = large_grid();
  std::string number = grid.text;  // a coordinate that is no number, in point 240001
  const std::size_t z = number.find(' ', number.find(' ', grid.point_lines[240000]) + 1) + 1;
  number.insert(z, "-");
  number.insert(z, "7e");
  const ReadError real = expect_read_error([&] { ugrid::read(write_scratch("real.ugrid", number)); });
  EXPECT_NE(real.reason().find("invalid number '7e-"), std::string::npos) << real.what();
  EXPECT_EQ(real.byte_offset(), z);
  EXPECT_EQ(real.line(), line_of(number, z));
  std::string range = grid.text;  // a node beyond the points, in tetrahedron 190001
  const std::size_t second = range.find(' ', grid.tetra_lines[190000]) + 1;
  range.insert(second, "9");
  const ReadError index = expect_read_error([&] { ugrid::read(write_scratch("range.ugrid", range)); });
  EXPECT_NE(index.reason().find("tetra 190001 refers to node 990030, outside [1, 250000]"), std::string::npos) << index.what();
  EXPECT_EQ(index.byte_offset(), second);
  EXPECT_EQ(index.line(), line_of(range, second));
}

// Binary connectivity is converted on several threads: with two bad node numbers in different
// pieces, the first one is reported at its own byte offset, whatever the thread count, in
// either byte order.
TEST(UgridLargeBinary, TheFirstBadNodeIsReportedAtItsOffset) {
  constexpr std::int64_t kPoints = 250000, kTetras = 300000;
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {kPoints, 3});
  for (std::int64_t i = 0; i < 3 * kPoints; ++i) mesh.points.data_as<double>()[i] = static_cast<double>(i % 977) * 0.25;
  CellBlock tetras{"tetra", NDArray::allocate(DType::int64, {kTetras, 4}), {}, {}};
  for (std::int64_t i = 0; i < 4 * kTetras; ++i) tetras.connectivity.data_as<std::int64_t>()[i] = (i * 7919) % kPoints;
  mesh.cells.push_back(tetras);
  for (const char* name : {"large.lb8.ugrid", "large.b8.ugrid"}) {
    SCOPED_TRACE(name);
    const std::string path = scratch(name).string();
    ugrid::write(path, mesh, {});
    const Mesh back = ugrid::read(path);
    ASSERT_EQ(back.cells.size(), 1u);
    EXPECT_EQ(0, std::memcmp(back.cells[0].connectivity.data(), tetras.connectivity.data(), 4 * kTetras * 8));

    std::string bytes = read_file(path);
    const bool big_endian = std::string(name).find(".b8") != std::string::npos;
    const auto tetra_node_offset = [](std::int64_t tetra, int node) {
      return static_cast<std::size_t>(7 * 4 + kPoints * 3 * 8 + (tetra * 4 + node) * 4);
    };
    const auto put_int32 = [&](std::size_t at, std::int32_t value) {
      unsigned char word[4];
      std::memcpy(word, &value, 4);
      if (big_endian) std::reverse(word, word + 4);
      std::memcpy(bytes.data() + at, word, 4);
    };
    put_int32(tetra_node_offset(150000, 2), kPoints + 9);
    put_int32(tetra_node_offset(260000, 0), 0);
    write_file(path, bytes);
    std::vector<std::string> messages;
    for (unsigned threads : {1u, 4u}) {
      set_thread_count(threads);
      const ReadError error = expect_read_error([&] { ugrid::read(path); });
      set_thread_count(0);
      EXPECT_EQ(error.byte_offset(), tetra_node_offset(150000, 2));
      messages.push_back(error.what());
    }
    EXPECT_NE(messages[0].find("tetra 150001 refers to node 250009, outside [1, 250000]"), std::string::npos) << messages[0];
    EXPECT_EQ(messages[0], messages[1]);
  }
}
