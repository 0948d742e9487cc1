// Nastran bulk data: the corpus against meshio's expectations, the three field formats and
// their continuations, Fortran-style reals, round trips of every card the writer uses in
// every format, and the errors the reader raises on broken files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/nastran/nastran.hpp"
#include "formats/nastran/nastran_fields.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
namespace detail = meshioplusplus::nastran::detail;

using namespace meshioplusplus::testing_support;

namespace {

std::vector<std::int64_t> row(const Mesh& mesh, std::size_t block, std::int64_t cell) {
  const NDArray& connectivity = mesh.cells[block].connectivity;
  const std::int64_t* first = connectivity.data_as<std::int64_t>() + cell * connectivity.row_width();
  return {first, first + connectivity.row_width()};
}

WriteOptions formats(const std::string& points, const std::string& cells) {
  WriteOptions options;
  options.set("point_format", points);
  options.set("cell_format", cells);
  return options;
}

// One block of every type the writer has a card for, awkward coordinates, property ids.
Mesh every_card(int dimension) {
  const std::vector<std::string> types{"vertex",  "line",      "triangle", "triangle6", "quad",
                                       "quad8",   "quad9",     "tetra",    "tetra10",   "pyramid",
                                       "pyramid13", "wedge",   "wedge15",  "hexahedron", "hexahedron20"};
  Mesh mesh;
  const std::int64_t num_points = 80;
  mesh.points = NDArray::allocate(DType::float64, {num_points, dimension});
  std::mt19937_64 random(5);
  std::uniform_real_distribution<double> value(-1e4, 1e4);
  for (double& x : mesh.points.values<double>()) x = value(random) / 3.0;
  mesh.points.data_as<double>()[0] = 1e-300;
  mesh.points.data_as<double>()[1] = -0.0;
  mesh.points.data_as<double>()[2] = 12345678.9;
  std::int64_t next_node = 0;
  std::vector<NDArray> refs;
  for (std::size_t b = 0; b < types.size(); ++b) {
    const int nodes = cell_type(types[b]).num_nodes;
    NDArray connectivity = NDArray::allocate(DType::int64, {2, nodes});
    // Distinct nodes within a cell, so that node orders show.
    for (std::int64_t& node : connectivity.values<std::int64_t>()) node = (next_node++ * 3) % num_points;
    mesh.cells.push_back(CellBlock{types[b], connectivity, {}, {}});
    NDArray pid = NDArray::allocate(DType::int64, {2});
    pid.data_as<std::int64_t>()[0] = static_cast<std::int64_t>(b + 1);
    pid.data_as<std::int64_t>()[1] = 1000 + static_cast<std::int64_t>(b);
    refs.push_back(pid);
  }
  mesh.cell_data.set("nastran:ref", refs);
  return mesh;
}

void expect_same_cells(const Mesh& expected, const Mesh& actual) {
  ASSERT_EQ(block_summary(expected), block_summary(actual));
  const auto& expected_refs = *expected.cell_data.find("nastran:ref");
  const auto& actual_refs = *actual.cell_data.find("nastran:ref");
  for (std::size_t b = 0; b < expected.cells.size(); ++b) {
    EXPECT_EQ(std::memcmp(expected.cells[b].connectivity.data(), actual.cells[b].connectivity.data(),
                          expected.cells[b].connectivity.nbytes()),
              0)
        << expected.cells[b].type;
    EXPECT_EQ(std::memcmp(expected_refs[b].data(), actual_refs[b].data(), expected_refs[b].nbytes()), 0);
  }
}

}  // namespace

TEST(NastranCorpus, Cube) {
  if (!fs::is_directory(kCorpusDir / "nastran")) GTEST_SKIP() << "corpus not found at " << kCorpusDir;
  const Mesh mesh = nastran::read((kCorpusDir / "nastran" / "cube.bdf").string());
  EXPECT_EQ(mesh.num_points(), 64);
  EXPECT_EQ(mesh.points.dim(1), 3);
  EXPECT_EQ(block_summary(mesh), "hexahedron:26");
  double sum = 0;
  for (double v : mesh.points.values<double>()) sum += v;
  EXPECT_NEAR(sum, 96, 96e-6);
  EXPECT_TRUE(mesh.point_data.empty());
  ASSERT_TRUE(mesh.cell_data.contains("nastran:ref"));
  EXPECT_EQ(mesh.cell_data.find("nastran:ref")->front().data_as<std::int64_t>()[0], 1);
  // CHEXA 1: 1 2 6 5 17 18 | continued: 22 21
  EXPECT_EQ(row(mesh, 0, 0), (std::vector<std::int64_t>{0, 1, 5, 4, 16, 17, 21, 20}));
  EXPECT_NO_THROW(validate(mesh));
}

TEST(NastranFields, FortranReals) {
  using detail::parse_real;
  EXPECT_EQ(parse_real("1.0-3"), 1.0e-3);
  EXPECT_EQ(parse_real("1.0+3"), 1.0e3);
  EXPECT_EQ(parse_real("-1.5-3"), -1.5e-3);
  EXPECT_EQ(parse_real("+.7+1"), 7.0);
  EXPECT_EQ(parse_real("1.D0"), 1.0);
  EXPECT_EQ(parse_real("2.5d-1"), 0.25);
  EXPECT_EQ(parse_real("7."), 7.0);
  EXPECT_EQ(parse_real("70.-1"), 7.0);
  EXPECT_EQ(parse_real("7.E+0"), 7.0);
  EXPECT_EQ(parse_real("1.5e-05"), 1.5e-5);
  EXPECT_EQ(parse_real("3"), 3.0);
  for (const char* bad : {"", "abc", "1.0e", "1.0-", "--1", "1.0.0", "1,0", "1.0-3x"})
    EXPECT_FALSE(parse_real(bad).has_value()) << bad;
  EXPECT_EQ(detail::parse_integer("+12"), 12);
  EXPECT_FALSE(detail::parse_integer("12.").has_value());
}

TEST(NastranFields, RealsFitTheirFields) {
  using detail::format_real;
  EXPECT_EQ(format_real(1.0, 8), "1.");
  EXPECT_EQ(format_real(-0.0, 8), "-0.");
  EXPECT_EQ(format_real(1e20, 0), "1.E+20");
  EXPECT_EQ(format_real(0.5, 16), "0.5");
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> mantissa(-10, 10);
  std::uniform_int_distribution<int> exponent(-300, 300);
  for (int i = 0; i < 2000; ++i) {
    const double value = mantissa(random) * std::pow(10.0, exponent(random));
    const std::string free = format_real(value, 0);
    EXPECT_EQ(detail::parse_real(free), value) << free;
    for (const std::size_t width : {8u, 16u}) {
      const std::string text = format_real(value, width);
      ASSERT_LE(text.size(), width) << text;
      EXPECT_NE(text.find('.'), std::string::npos) << text;
      const double back = *detail::parse_real(text);
      // 8 columns keep at least 2 significant digits, 16 at least 10.
      EXPECT_NEAR(back, value, std::abs(value) * (width == 8 ? 5e-2 : 1e-9)) << text;
    }
  }
  EXPECT_THROW(format_real(std::numeric_limits<double>::infinity(), 8), std::invalid_argument);
}

TEST(NastranRoundTrip, FreeFieldIsBitExact) {
  ScratchDir dir;
  const Mesh mesh = every_card(3);
  nastran::write(dir.file("free.bdf"), mesh, formats("free", "free"));
  const Mesh back = nastran::read(dir.file("free.bdf"));
  ASSERT_EQ(back.points.shape(), mesh.points.shape());
  EXPECT_EQ(std::memcmp(back.points.data(), mesh.points.data(), mesh.points.nbytes()), 0);
  expect_same_cells(mesh, back);
  EXPECT_NO_THROW(validate(back));
}

TEST(NastranRoundTrip, FixedFormatsRoundTheirReals) {
  ScratchDir dir;
  const Mesh mesh = every_card(3);
  for (const std::string points : {"fixed-large", "fixed-small"}) {
    for (const std::string cells : {"fixed-small", "fixed-large", "free"}) {
      SCOPED_TRACE(points + " points, " + cells + " cells");
      const std::string path = dir.file("fixed.nas");
      nastran::write(path, mesh, formats(points, cells));
      const Mesh back = nastran::read(path);
      ASSERT_EQ(back.points.shape(), mesh.points.shape());
      const double tolerance = points == "fixed-large" ? 1e-10 : 1e-2;
      const auto expected = mesh.points.values<double>();
      const auto actual = back.points.values<double>();
      for (std::size_t i = 0; i < expected.size(); ++i)
        ASSERT_NEAR(actual[i], expected[i], std::abs(expected[i]) * tolerance) << i;
      expect_same_cells(mesh, back);
    }
  }
  // meshio's defaults: large GRID* cards, small element cards.
  nastran::write(dir.file("default.bdf"), mesh, {});
  const std::string text = read_file(dir.file("default.bdf"));
  EXPECT_NE(text.find("GRID*   1"), std::string::npos);
  EXPECT_NE(text.find("\nCHEXA   27      14      "), std::string::npos);
}

TEST(NastranRoundTrip, PlanarPointsAndGridRefs) {
  ScratchDir dir;
  Mesh mesh = every_card(2);
  NDArray cp = NDArray::allocate(DType::int32, {mesh.num_points()});
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) cp.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(i % 2);
  mesh.point_data.set("nastran:ref", cp);
  nastran::write(dir.file("planar.bdf"), mesh, formats("free", "fixed-small"));
  const Mesh back = nastran::read(dir.file("planar.bdf"));
  ASSERT_EQ(back.points.dim(1), 3);
  EXPECT_EQ(back.points.data_as<double>()[2], 0.0);
  EXPECT_EQ(back.points.data_as<double>()[3], mesh.points.data_as<double>()[2]);
  ASSERT_TRUE(back.point_data.contains("nastran:ref"));
  EXPECT_EQ(back.point_data.find("nastran:ref")->data_as<std::int64_t>()[3], 1);
}

TEST(NastranWriter, RefusesWhatItCannotWrite) {
  ScratchDir dir;
  Mesh mesh = every_card(3);
  mesh.cells.push_back(CellBlock{"line3", NDArray::zeros(DType::int64, {1, 3}), {}, {}});
  mesh.cell_data = {};
  EXPECT_THROW(nastran::write(dir.file("line3.bdf"), mesh, {}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir.file("line3.bdf")));
  EXPECT_THROW(nastran::write(dir.file("x.bdf"), every_card(3), formats("fixed", "free")), std::invalid_argument);
}

TEST(NastranReader, FieldFormatsAndContinuations) {
  ScratchDir dir;
  const std::string path = dir.file("mixed.bdf");
  write_file(path,
             "SOL 101\nCEND\nTITLE = executive and case control are skipped\n"
             "BEGIN BULK\n"
             "$ small fixed, Fortran reals\n"
             "GRID    1               0.      0.      0.\n"
             "GRID    2               1.0+0   0.      0.\n"
             "$ large fixed over two lines\n"
             "GRID*   3                               0.0             1.0D0\n"
             "*       0.0\n"
             "GRID,4,,0.,0.,1.   $ free field\n"
             "GRID,5,,1.,1.,1.\n"
             "GRID    6               1.      0.      1.\n"
             "GRID    7               0.      1.      1.\n"
             "GRID\t8\t\t1.\t1.\t0.\n"
             "CTETRA  10      3       1       2       3       4\n"
             "CPENTA,11,,1,2,3,4,6,7\n"
             "CHEXA   12      5       1       2       8       3       4       6       +HX\n"
             "+HX     5       7\n"
             "CHEXA*  13              5               1               2               *\n"
             "*       8               3               4               6\n"
             "*       5               7\n"
             "CQUAD4  14      6       1       2       8       3\n"
             "        0.1\n"
             "CELAS1  15      7       1       1\n"
             "CBAR    16      8       1       2       0.      0.      1.\n"
             "CONROD  17      1       2       9       1.\n"
             "ENDDATA\n"
             "GRID    99              0.      0.      0.\n");
  const Mesh mesh = nastran::read(path);
  ASSERT_EQ(mesh.num_points(), 8);
  const double* x = mesh.points.data_as<double>();
  EXPECT_EQ(x[3], 1.0);
  EXPECT_EQ(x[7], 1.0);
  EXPECT_EQ(block_summary(mesh), "tetra:1;wedge:1;hexahedron:2;quad:1;vertex:1;line:2");
  EXPECT_EQ(row(mesh, 2, 1), row(mesh, 2, 0));
  EXPECT_EQ(row(mesh, 2, 1), (std::vector<std::int64_t>{0, 1, 7, 2, 3, 5, 4, 6}));
  const auto& refs = *mesh.cell_data.find("nastran:ref");
  EXPECT_EQ(refs[0].data_as<std::int64_t>()[0], 3);
  EXPECT_EQ(refs[1].data_as<std::int64_t>()[0], 11);  // blank PID: the element id
  EXPECT_EQ(refs[2].data_as<std::int64_t>()[1], 5);
  EXPECT_EQ(refs[5].data_as<std::int64_t>()[1], 0);  // CONROD has no property
  EXPECT_TRUE(mesh.point_data.empty());
}

TEST(NastranReader, SecondOrderNodeOrders) {
  ScratchDir dir;
  std::string text = "BEGIN BULK\n";
  for (int id = 1; id <= 20; ++id) text += "GRID," + std::to_string(id) + ",," + std::to_string(id) + ".,0.,0.\n";
  text += "CHEXA,1,1,1,2,3,4,5,6,+\n+,7,8,9,10,11,12,13,14,+\n+,15,16,17,18,19,20\n";
  text += "CPENTA,2,1,1,2,3,4,5,6,+\n+,7,8,9,10,11,12,13,14,+\n+,15\n";
  text += "CTRIAX6,3,1,1,2,3,4,5,6\n";
  text += "ENDDATA\n";
  write_file(dir.file("second.bdf"), text);
  const Mesh mesh = nastran::read(dir.file("second.bdf"));
  ASSERT_EQ(block_summary(mesh), "hexahedron20:1;wedge15:1;triangle6:1");
  // Nastran: corners, bottom edges, vertical edges, top edges; meshio: …, top, vertical.
  EXPECT_EQ(row(mesh, 0, 0), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13,
                                                         14, 15}));
  EXPECT_EQ(row(mesh, 1, 0), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11}));
  EXPECT_EQ(row(mesh, 2, 0), (std::vector<std::int64_t>{0, 2, 4, 1, 3, 5}));
}

TEST(NastranReader, WithoutBeginBulk) {
  ScratchDir dir;
  write_file(dir.file("bulk.bdf"), "GRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nCROD,1,1,1,2\n");
  const Mesh mesh = nastran::read(dir.file("bulk.bdf"));
  EXPECT_EQ(block_summary(mesh), "line:1");
}

// ---------------------------------------------------------------------------------------

TEST(NastranErrors, MissingGrid) {
  ScratchDir dir;
  const std::string path = dir.file("missing.bdf");
  write_file(path, "BEGIN BULK\nGRID,1,,0.,0.,0.\nGRID,2,,1.,0.,0.\nGRID,3,,0.,1.,0.\nCTRIA3,7,1,1,2,4\nENDDATA\n");
  const ReadError error = expect_read_error([&] { nastran::read(path); });
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.format(), "nastran");
  EXPECT_EQ(error.line(), 5u);
  EXPECT_TRUE(error.byte_offset().has_value());
  EXPECT_NE(error.reason().find("GRID 4"), std::string::npos) << error.reason();
}

TEST(NastranErrors, BadNumbers) {
  ScratchDir dir;
  const std::string path = dir.file("numbers.bdf");
  write_file(path, "BEGIN BULK\nGRID    1               0.      1.x     0.\n");
  ReadError error = expect_read_error([&] { nastran::read(path); });
  EXPECT_EQ(error.line(), 2u);
  EXPECT_EQ(*error.byte_offset(), std::string("BEGIN BULK\nGRID    1               0.      ").size());
  write_file(path, "BEGIN BULK\nGRID,1,,0.,0.,0.\nCROD,1,1,1,two\n");
  error = expect_read_error([&] { nastran::read(path); });
  EXPECT_EQ(error.line(), 3u);
  EXPECT_NE(error.reason().find("two"), std::string::npos);
  write_file(path, "BEGIN BULK\nGRID,1.5,,0.,0.,0.\n");
  EXPECT_EQ(expect_read_error([&] { nastran::read(path); }).line(), 2u);
}

TEST(NastranErrors, WrongCountsAndTruncation) {
  ScratchDir dir;
  const std::string path = dir.file("counts.bdf");
  std::string grids;
  for (int id = 1; id <= 8; ++id) grids += "GRID," + std::to_string(id) + ",,0.,0.,0.\n";
  write_file(path, grids + "CTETRA,1,1,1,2,3,4,5,6,+\n+,7\n");
  ReadError error = expect_read_error([&] { nastran::read(path); });
  EXPECT_EQ(error.line(), 9u);
  EXPECT_NE(error.reason().find("7 nodes"), std::string::npos) << error.reason();
  // A file cut inside a card: the continuation never comes.
  write_file(path, grids + "CHEXA   1       1       1       2       3       4       5       6       +\n");
  EXPECT_EQ(expect_read_error([&] { nastran::read(path); }).line(), 9u);
  write_file(path, grids + "GRID,3,,0.,0.,0.\n");
  EXPECT_NE(expect_read_error([&] { nastran::read(path); }).reason().find("twice"), std::string::npos);
  EXPECT_THROW(nastran::read(dir.file("absent.bdf")), ReadError);
}

// ---------------------------------------------------------------------------------------

namespace {

// A deck past two parts' worth of io::kParallelLinesMinBytes: GRIDs in small fixed, large
// fixed and free format (some with CP), then runs of triangles, tetrahedra (a run crossing
// the middle of the file, where the parts meet), quads with property ids, tetrahedra again,
// and hexahedra over a continuation line, then ENDDATA and lines that are not bulk data.
std::string large_deck(std::int64_t grids, std::int64_t tets_per_run, const std::string& tail) {
  std::string text = "$ generated\nBEGIN BULK\n";
  char line[160];
  for (std::int64_t id = 1; id <= grids; ++id) {
    const auto ll = static_cast<long long>(id);
    const double x = 0.5 * static_cast<double>(id % 97), y = -0.25 * static_cast<double>(id % 13);
    const double z = 1e-3 * static_cast<double>(id);
    if (id % 5 == 0)
      std::snprintf(line, sizeof line, "GRID,%lld,%d,%.17g,%.17g,%.17g\n", ll, id % 10 == 0 ? 2 : 0, x, y, z);
    else if (id % 5 == 1)
      std::snprintf(line, sizeof line, "GRID*   %-16lld%-16s%-16.9E%-16.9E\n*       %-16.9E\n", ll, "", x, y, z);
    else
      std::snprintf(line, sizeof line, "GRID    %-8lld        %-8.3f%-8.3f%-8.4f\n", ll, x, y, z);
    text += line;
  }
  std::int64_t element = 1;
  const auto node = [grids](std::int64_t k) { return static_cast<long long>(1 + (k * 7919) % grids); };
  const auto field = [](long long value) {
    const std::string digits = std::to_string(value);
    return digits + std::string(8 - digits.size(), ' ');
  };
  for (int k = 0; k < 100; ++k, ++element) {
    std::snprintf(line, sizeof line, "CTRIA3  %-8lld%-8d%-8lld%-8lld%-8lld\n", static_cast<long long>(element), 1,
                  node(element), node(element + 1), node(element + 2));
    text += line;
  }
  const auto tetra_run = [&] {
    for (std::int64_t k = 0; k < tets_per_run; ++k, ++element) {
      std::snprintf(line, sizeof line, "CTETRA  %-8lld        %-8lld%-8lld%-8lld%-8lld\n", static_cast<long long>(element),
                    node(element), node(element + 1), node(element + 2), node(element + 3));
      text += line;
    }
  };
  tetra_run();
  for (int k = 0; k < 50; ++k, ++element) {
    std::snprintf(line, sizeof line, "CQUAD4,%lld,%d,%lld,%lld,%lld,%lld\n", static_cast<long long>(element), 3 + k % 4,
                  node(element), node(element + 1), node(element + 2), node(element + 3));
    text += line;
  }
  tetra_run();
  for (int k = 0; k < 50; ++k, ++element) {
    text += "CHEXA   " + field(element) + "        ";
    for (int n = 0; n < 6; ++n) text += field(node(element + n));
    text += "+\n+       " + field(node(element + 6)) + field(node(element + 7)) + "\n";
  }
  return text + "ENDDATA\n" + tail;
}

}  // namespace

// The parallel read (one pass per part, copied together) gives the very bits the sequential
// one does, whatever the cards, formats and blocks on either side of the parts' border.
TEST(NastranReader, OneAndTwoThreadsReadTheSameBits) {
  ScratchDir dir;
  const std::string path = dir.write("large.bdf", large_deck(30000, 85000, "CTETRA  not bulk data\n"));
  ASSERT_GT(fs::file_size(path), 2 * io::kParallelLinesMinBytes + 1024) << "the file must take the parallel path";
  const Mesh one = read_at_threads(1, [&] { return nastran::read(path); });
  const Mesh two = read_at_threads(2, [&] { return nastran::read(path); });
  EXPECT_EQ(block_summary(one), "triangle:100;tetra:85000;quad:50;tetra:85000;hexahedron:50");
  EXPECT_EQ(one.num_points(), 30000);
  EXPECT_NE(one.point_data.find("nastran:ref"), nullptr);
  EXPECT_NE(one.cell_data.find("nastran:ref"), nullptr);
  expect_same_bits(one, two);
  EXPECT_EQ(row(two, 4, 49), row(one, 4, 49));
}

// Errors a part meets are reported as the sequential read reports them: a GRID given twice
// (in different parts), a missing GRID, a broken number in the second half.
TEST(NastranErrors, LargeDecksReportLikeTheSequentialRead) {
  ScratchDir dir;
  const std::string path = dir.file("large.bdf");
  std::string deck = large_deck(30000, 85000, "");
  deck.insert(deck.size() - std::string("ENDDATA\n").size(), "GRID,17,,0.,0.,0.\n");
  write_file(path, deck);
  for (const unsigned threads : {1u, 2u}) {
    const ReadError error = expect_read_error([&] { read_at_threads(threads, [&] { return nastran::read(path); }); });
    EXPECT_NE(error.reason().find("GRID 17 is defined twice"), std::string::npos) << error.reason();
    // The line before ENDDATA's.
    EXPECT_EQ(error.line(), static_cast<std::uint64_t>(std::count(deck.begin(), deck.end(), '\n')) - 1);
  }
  deck = large_deck(30000, 85000, "");
  const std::size_t broken = deck.find("CTETRA", deck.size() * 3 / 4) + 16;
  deck[broken] = 'x';
  write_file(path, deck);
  const auto line =
      1 + static_cast<std::uint64_t>(std::count(deck.begin(), deck.begin() + static_cast<std::ptrdiff_t>(broken), '\n'));
  for (const unsigned threads : {1u, 2u}) {
    const ReadError error = expect_read_error([&] { read_at_threads(threads, [&] { return nastran::read(path); }); });
    EXPECT_EQ(error.line(), line) << error.what();
  }
}
