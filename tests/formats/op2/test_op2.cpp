// Nastran OP2 results: pyNastran's model files (statics of a plate and a solid, three modes of
// a mixed solid/shell/bar model) cross-checked against numbers pyNastran 1.4.1 reads, both byte
// orders, lazy steps, and hostile input with its byte offset.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "formats/op2/op2.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "op2" / name).string(); }

double sum(const NDArray& array, bool absolute = false) {
  double total = 0;
  for (const double v : array.values<double>())
    if (!std::isnan(v)) total += absolute ? std::abs(v) : v;
  return total;
}

std::int32_t word_at(const std::string& bytes, std::size_t at) {
  std::int32_t v;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}

// Calls visit(payload offset, size, name of the table the record is in) for each Fortran
// record of a little-endian OP2 file.
void walk_records(const std::string& bytes, const std::function<void(std::size_t, std::size_t, const std::string&)>& visit) {
  std::string table;
  std::size_t p = 0, previous_size = 0;
  std::int32_t previous_word = 0;
  while (p + 8 <= bytes.size()) {
    const auto size = static_cast<std::size_t>(word_at(bytes, p));
    if (size == 8 && previous_size == 4 && previous_word == 2) table = bytes.substr(p + 4, 8);
    visit(p + 4, size, table);
    previous_size = size;
    previous_word = size == 4 ? word_at(bytes, p + 4) : 0;
    p += size + 8;
  }
}

void swap_word(std::string& bytes, std::size_t at) {
  std::swap(bytes[at], bytes[at + 3]);
  std::swap(bytes[at + 1], bytes[at + 2]);
}

// The same file in big-endian order: every length and word swapped, the names (8-byte records
// after a record holding 2) kept as text.
std::string big_endian(const std::string& little) {
  std::string big = little;
  std::size_t previous_size = 0;
  std::int32_t previous_word = 0;
  for (std::size_t p = 0; p + 8 <= little.size();) {
    const auto size = static_cast<std::size_t>(word_at(little, p));
    const bool name = size == 8 && previous_size == 4 && previous_word == 2;
    swap_word(big, p);
    swap_word(big, p + 4 + size);
    if (!name)
      for (std::size_t w = 0; w < size; w += 4) swap_word(big, p + 4 + w);
    previous_size = size;
    previous_word = size == 4 ? word_at(little, p + 4) : 0;
    p += size + 8;
  }
  return big;
}

TEST(Op2, PlateStatics) {
  const Mesh mesh = read(data_file("plate.op2"));
  EXPECT_EQ(mesh.num_points(), 36);  // pyNastran: 36 GRID, 25 CQUAD4
  EXPECT_EQ(block_summary(mesh), "quad:25");
  ASSERT_NE(mesh.point_data.find("displacement"), nullptr);
  EXPECT_NEAR(sum(*mesh.point_data.find("displacement")), 5.150065408e-4, 1e-10);
  ASSERT_NE(mesh.point_data.find("nastran:grid_id"), nullptr);
  const std::vector<NDArray>& vm = *mesh.cell_data.find("von_mises");
  EXPECT_EQ(vm[0].rows(), 25);
  for (const double v : vm[0].values<double>()) EXPECT_FALSE(std::isnan(v));
  EXPECT_EQ(mesh.field_data.find("nastran:subcase")->values<std::int64_t>()[0], 1);
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(mesh.regions[0].entries.rows(), 25);
}

TEST(Op2, SolidBendingCentroidStresses) {
  const Mesh mesh = read(data_file("solid_bending.op2"));
  EXPECT_EQ(mesh.num_points(), 72);  // pyNastran: 72 GRID, 186 CTETRA
  EXPECT_EQ(block_summary(mesh), "tetra:186");
  EXPECT_NEAR(sum(*mesh.point_data.find("displacement")), 0.378982693, 1e-6);
  const NDArray& vm = (*mesh.cell_data.find("von_mises"))[0];
  EXPECT_EQ(vm.rows(), 186);
  for (const double v : vm.values<double>()) EXPECT_GT(v, 0);
  EXPECT_EQ((*mesh.cell_data.find("stress"))[0].dim(1), 6);
}

TEST(Op2, ModesAreSteps) {
  auto series = open_time_series(data_file("mode_solid_shell_bar.op2"));
  ASSERT_EQ(series->num_steps(), 3u);
  const double eigenvalues[3] = {200517.71875, 227772.15625, 624644.375};  // pyNastran's eigns
  const double magnitudes[3] = {20.535332, 21.407920, 20.621778};         // sum |T1..T3| per mode
  const Mesh mesh = series->read_mesh();
  EXPECT_EQ(mesh.num_points(), 25);
  EXPECT_EQ(mesh.num_cells(), 21);  // pyNastran: CBAR, CBEAM, 2 CROD, CHEXA, 2 CPENTA, 4 CQUAD4, 2 CTETRA, 8 CTRIA3
  EXPECT_EQ(block_summary(mesh), "line:4;hexahedron:1;wedge:2;quad:4;tetra:2;triangle:8");
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(series->time(k), eigenvalues[k]);
    const TimeStep step = series->read_step(k);
    EXPECT_NEAR(sum(*step.point_data.find("displacement"), true), magnitudes[k], 1e-4);
    EXPECT_EQ(step.field_data.find("nastran:mode")->values<std::int64_t>()[0], static_cast<std::int64_t>(k + 1));
    EXPECT_EQ(step.cell_data.find("strain")->size(), mesh.cells.size());
  }
  EXPECT_THROW(series->read_step(3), ReadError);
}

TEST(Op2, BigEndianReadsTheSame) {
  const std::string little = read_file(data_file("mode_solid_shell_bar.op2"));
  const std::string path = write_scratch("big.op2", big_endian(little));
  auto a = open_time_series(data_file("mode_solid_shell_bar.op2"));
  auto b = open_time_series(path);
  ASSERT_EQ(b->num_steps(), 3u);
  EXPECT_EQ(point_sum(a->read_mesh()), point_sum(b->read_mesh()));
  EXPECT_EQ(sum(*a->read_step(2).point_data.find("displacement")), sum(*b->read_step(2).point_data.find("displacement")));
}

TEST(Op2, ReadsOneStepWhenAnotherIsBroken) {
  std::string bytes = read_file(data_file("mode_solid_shell_bar.op2"));
  int seen = 0;
  std::size_t third = 0;
  walk_records(bytes, [&](std::size_t at, std::size_t size, const std::string& table) {
    if (table == "OUGV1   " && size == 25 * 8 * 4 && ++seen == 3) third = at;
  });
  ASSERT_NE(third, 0u);
  const std::int32_t bad = 99999 * 10 + 1;
  std::memcpy(bytes.data() + third, &bad, 4);
  auto series = open_time_series(write_scratch("broken.op2", bytes));
  EXPECT_NEAR(sum(*series->read_step(0).point_data.find("displacement"), true), 20.535332, 1e-4);
  try {
    series->read_step(2);
    FAIL() << "no ReadError";
  } catch (const ReadError& e) {
    EXPECT_EQ(e.byte_offset(), third);
    EXPECT_NE(e.reason().find("99999"), std::string::npos) << e.reason();
  }
}

void expect_read_error(const std::string& bytes, const std::string& text, std::optional<std::uint64_t> offset = {}) {
  const std::string path = write_scratch("hostile.op2", bytes);
  try {
    read(path);
    FAIL() << "no ReadError for " << text;
  } catch (const ReadError& e) {
    EXPECT_EQ(e.format(), "op2");
    EXPECT_NE(e.reason().find(text), std::string::npos) << e.reason();
    EXPECT_TRUE(e.byte_offset().has_value());
    if (offset) EXPECT_EQ(e.byte_offset(), offset);
  }
}

TEST(Op2, HostileInput) {
  const std::string bytes = read_file(data_file("plate.op2"));
  // Cut inside the next table's start: its complete records are walked over, and the file ends
  // before the end-of-file record.
  expect_read_error(bytes.substr(0, 4436), "truncated", 4436);
  expect_read_error(bytes.substr(0, 4998), "past the end");
  expect_read_error(std::string(64, 'x'), "not an OP2 file", 0);
  expect_read_error(std::string("\x08\0\0\0", 4) + std::string(60, '\0'), "64-bit", 0);
  std::string corrupt = bytes;
  const std::int32_t length = 1000000;
  std::memcpy(corrupt.data() + 320, &length, 4);  // the length of GEOM1's word-count record
  expect_read_error(corrupt, "past the end", 320);
  std::string trailer = bytes;
  trailer[336 + 1164] ^= 1;  // the GRID record's closing length
  expect_read_error(trailer, "not closed by its length", 336 + 1164);
  std::string no_geometry = bytes;
  const std::size_t name = no_geometry.find("GEOM1   ");
  no_geometry.replace(name, 8, "GEOMX   ");
  expect_read_error(no_geometry, "PARAM,POST,-1");
}

TEST(Op2, RegistryRow) {
  EXPECT_EQ(std::string(format_for_path("run.op2")->name), "op2");
  EXPECT_EQ(meshioplusplus::read(data_file("plate.op2")).num_points(), 36);
}

}  // namespace
