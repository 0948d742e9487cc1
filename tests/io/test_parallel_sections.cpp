// The text readers parse and format their large sections on all cores once a file passes
// io::kParallelLinesMinBytes (4 MiB); the format tests' small real files never get there. Here
// each of them writes a box of ~236 k tetrahedra (every file above the threshold), reads it back
// through the parallel path, and must give the same cells and points as written; then a number
// broken in the middle of the file must still be a ReadError naming the file and its line, as
// the sequential parse words it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/source/parallel.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
namespace fs = std::filesystem;
using namespace meshioplusplus::testing_support;

namespace {

// An n×n×n box of cubes, six tetrahedra each (positive volumes), points on a perturbed grid
// so that coordinates carry all their digits.
mpp::Mesh tet_box(int n) {
  const auto node = [n](int i, int j, int k) { return static_cast<std::int64_t>(i + (n + 1) * (j + (n + 1) * k)); };
  std::vector<double> xyz;
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i)
        xyz.insert(xyz.end(), {i + 0.1 * std::sin(j + 0.3 * k), j + 0.1 * std::cos(i + 0.7 * k), k + 0.01 * (i % 7)});
  std::vector<std::int64_t> tets;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::int64_t v[8] = {node(i, j, k),         node(i + 1, j, k),     node(i + 1, j + 1, k),
                                   node(i, j + 1, k),     node(i, j, k + 1),     node(i + 1, j, k + 1),
                                   node(i + 1, j + 1, k + 1), node(i, j + 1, k + 1)};
        const int kuhn[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
        for (const auto& t : kuhn) tets.insert(tets.end(), {v[t[0]], v[t[1]], v[t[2]], v[t[3]]});
      }
  mpp::Mesh mesh;
  const auto points = static_cast<std::int64_t>(xyz.size() / 3);
  mesh.points = array_of<double>({points, 3}, xyz);
  mesh.cells.push_back({"tetra", int64_matrix(static_cast<std::int64_t>(tets.size() / 4), 4, tets), {}, {}});
  return mesh;
}

// The file a format's text lives in (Elmer writes a directory: its elements file).
fs::path text_file_of(const fs::path& written, const std::string& format) {
  return format == "elmer" ? written / "mesh.elements" : written;
}

// Gmsh: MSH 2.2 ASCII (its parallel path is this one; 4.1 ASCII is covered by the gmsh tests).
mpp::WriteOptions text_options(const std::string& format) {
  mpp::WriteOptions options;
  if (format == "gmsh") {
    options.set("fmt_version", "2.2");
    options.set("binary", "false");
  }
  return options;
}

struct Case {
  std::string format;
  std::string name;
  double tolerance;  // relative, on points (Patran's E16.9 fields and the like)
};

}  // namespace

TEST(ParallelSections, LargeDecksReadBackAndReportTheirLines) {
  ASSERT_GE(mpp::thread_count(), 1u);
  mpp::set_thread_count(2);  // the parallel paths need two threads, whatever the machine has
  const mpp::Mesh mesh = tet_box(34);
  const std::vector<Case> cases = {
      {"elmer", "box.elmer", 0},      {"z88", "box.z88", 0},           {"femap", "box.neu", 0},
      {"patran", "box.pat", 1e-8},    {"libmesh", "box.xda", 0},       {"febio", "box.feb", 0},
      {"lsdyna", "box.k", 1e-12},     {"ansys_cdb", "box.cdb", 1e-12}, {"unv", "box.unv", 1e-12},
      {"nastran", "box.bdf", 1e-6},   {"su2", "box.su2", 0},           {"netgen", "box.vol", 0},
      {"abaqus", "box.inp", 0},       {"avsucd", "box.avs", 0},        {"permas", "box.dato", 0},
      {"gmsh", "box.msh", 0},         {"tecplot", "box.dat", 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.format);
    ScratchDir dir;
    const std::string path = dir.file(c.name);
    mpp::write(path, mesh, c.format, text_options(c.format));
    const fs::path text = text_file_of(path, c.format);
    ASSERT_GT(fs::file_size(text), mpp::io::kParallelLinesMinBytes) << "the file must take the parallel path";
    const mpp::Mesh back = mpp::read(path, c.format);
    ASSERT_EQ(back.num_points(), mesh.num_points());
    // The tetrahedra come back (some writers add no block, some split none: compare the one tetra block).
    const mpp::CellBlock* tetra = nullptr;
    for (const mpp::CellBlock& block : back.cells)
      if (block.type == "tetra") tetra = &block;
    ASSERT_NE(tetra, nullptr);
    EXPECT_EQ(int_values(tetra->connectivity), int_values(mesh.cells[0].connectivity));
    const auto* a = mesh.points.data_as<double>();
    const mpp::NDArray points = back.points.dtype() == mpp::DType::float64 ? back.points : back.points.astype(mpp::DType::float64);
    const auto* b = points.data_as<double>();
    const std::int64_t dims = back.points.shape()[1];
    double worst = 0;
    for (std::int64_t p = 0; p < mesh.num_points(); ++p)
      for (std::int64_t axis = 0; axis < std::min<std::int64_t>(dims, 3); ++axis)
        worst = std::max(worst, std::abs(b[p * dims + axis] - a[p * 3 + axis]) / (1 + std::abs(a[p * 3 + axis])));
    EXPECT_LE(worst, c.tolerance);

    // A digit two thirds into the text replaced by a letter: the same ReadError as sequentially.
    std::string bytes = read_file(text);
    std::size_t at = bytes.size() * 2 / 3;
    while (at < bytes.size() && !(bytes[at] >= '1' && bytes[at] <= '9')) ++at;
    ASSERT_LT(at, bytes.size());
    bytes[at] = 'x';
    write_file(text, bytes);
    const std::uint64_t line = 1 + static_cast<std::uint64_t>(std::count(bytes.begin(), bytes.begin() + at, '\n'));
    try {
      mpp::read(path, c.format);
      ADD_FAILURE() << "a broken number read without error";
    } catch (const mpp::ReadError& error) {
      EXPECT_NE(std::string(error.what()).find(text.filename().string()), std::string::npos) << error.what();
      if (error.line()) EXPECT_EQ(*error.line(), line) << error.what();
      else EXPECT_TRUE(error.byte_offset().has_value()) << error.what();
    }
  }
  mpp::set_thread_count(0);
}

// The parallel paths give the very bytes the sequential ones do: every array read at one
// thread and at two is compared bit for bit.
TEST(ParallelSections, OneAndTwoThreadsReadTheSameBits) {
  const mpp::Mesh mesh = tet_box(34);
  const std::vector<Case> cases = {
      {"nastran", "box.bdf", 0}, {"su2", "box.su2", 0},       {"netgen", "box.vol", 0},
      {"avsucd", "box.avs", 0},  {"abaqus", "box.inp", 0},    {"permas", "box.dato", 0},
      {"gmsh", "box.msh", 0},    {"tecplot", "box.dat", 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.format);
    ScratchDir dir;
    const std::string path = dir.file(c.name);
    mpp::write(path, mesh, c.format, text_options(c.format));
    ASSERT_GT(fs::file_size(path), mpp::io::kParallelLinesMinBytes) << "the file must take the parallel path";
    mpp::set_thread_count(1);
    const mpp::Mesh one = mpp::read(path, c.format);
    mpp::set_thread_count(2);
    const mpp::Mesh two = mpp::read(path, c.format);
    mpp::set_thread_count(0);
    EXPECT_TRUE(same_bits(one.points, two.points));
    ASSERT_EQ(block_summary(one), block_summary(two));
    for (std::size_t b = 0; b < one.cells.size(); ++b) EXPECT_TRUE(same_bits(one.cells[b].connectivity, two.cells[b].connectivity));
    ASSERT_EQ(one.cell_data.size(), two.cell_data.size());
    for (const auto& [name, arrays] : one.cell_data) {
      const std::vector<mpp::NDArray>* other = two.cell_data.find(name);
      ASSERT_NE(other, nullptr) << name;
      ASSERT_EQ(arrays.size(), other->size()) << name;
      for (std::size_t b = 0; b < arrays.size(); ++b) EXPECT_TRUE(same_bits(arrays[b], (*other)[b])) << name;
    }
    ASSERT_EQ(one.point_data.size(), two.point_data.size());
    for (const auto& [name, array] : one.point_data) {
      const mpp::NDArray* other = two.point_data.find(name);
      ASSERT_NE(other, nullptr) << name;
      EXPECT_TRUE(same_bits(array, *other)) << name;
    }
  }
}
