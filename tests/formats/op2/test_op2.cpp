// Nastran OP2 results: pyNastran's model files (statics of a plate and a solid, three modes of
// a mixed solid/shell/bar model) cross-checked against numbers pyNastran 1.4.1 reads, both byte
// orders, lazy steps, and hostile input with its byte offset.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
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

std::string replace_all(std::string bytes, const std::string& from, const std::string& to) {
  for (std::size_t at = bytes.find(from); at != std::string::npos; at = bytes.find(from, at + to.size()))
    bytes.replace(at, from.size(), to);
  return bytes;
}

// An array's values as bits: equal arrays compare equal, NaN included.
std::vector<std::uint64_t> bits(const NDArray& array) {
  std::vector<std::uint64_t> out;
  for (const double v : array.values<double>()) out.push_back(std::bit_cast<std::uint64_t>(v));
  return out;
}

// The (block, row) of element `id`.
std::pair<std::size_t, std::int64_t> element_at(const Mesh& mesh, std::int64_t id) {
  const std::vector<NDArray>& ids = *mesh.cell_data.find("nastran:element_id");
  for (std::size_t b = 0; b < ids.size(); ++b) {
    const auto values = ids[b].values<std::int64_t>();
    for (std::size_t r = 0; r < values.size(); ++r)
      if (values[r] == id) return {b, static_cast<std::int64_t>(r)};
  }
  ADD_FAILURE() << "no element " << id;
  return {0, 0};
}

// NX thermal transient writing each table twice: SORT1 (OUGV1, OPG1: per time, all grids) and
// SORT2 (OUGV2, OPG2: per grid, all times). Either alone gives the same nine steps.
TEST(Op2, Sort2TablesGiveTheStepsSort1Gives) {
  const std::string bytes = read_file(data_file("time_thermal_elements_sort2_nx.op2"));
  const std::string sort2_only = replace_all(replace_all(bytes, "OUGV1   ", "XUGV1   "), "OPG1    ", "XPG1    ");
  const std::string sort1_only = replace_all(replace_all(bytes, "OUGV2   ", "XUGV2   "), "OPG2    ", "XPG2    ");
  auto both = open_time_series(data_file("time_thermal_elements_sort2_nx.op2"));
  auto sort2 = open_time_series(write_scratch("sort2.op2", sort2_only));
  auto sort1 = open_time_series(write_scratch("sort1.op2", sort1_only));
  // pyNastran 1.4.1's temperatures (SORT2 object): times, sum over the 9 grids per time.
  const double times[9] = {0, 10, 20, 40, 60, 80, 100, 120, 140};
  const double sums[9] = {0.0, 5.049911975860596, 10.198526382446289, 20.791759490966797, 31.776874542236328,
                          43.15194320678711, 54.9150390625, 67.06424713134766, 79.59765625};
  ASSERT_EQ(sort2->num_steps(), 9u);
  ASSERT_EQ(sort1->num_steps(), 9u);
  ASSERT_EQ(both->num_steps(), 9u);
  for (std::size_t k = 0; k < 9; ++k) {
    EXPECT_EQ(sort2->time(k), times[k]);
    const TimeStep a = sort2->read_step(k), b = sort1->read_step(k), c = both->read_step(k);
    EXPECT_NEAR(sum(*a.point_data.find("temperature")), sums[k], 1e-5);
    for (const char* name : {"temperature", "temperature_rate", "thermal_load"}) {
      ASSERT_NE(a.point_data.find(name), nullptr) << name;
      EXPECT_EQ(bits(*a.point_data.find(name)), bits(*b.point_data.find(name))) << name << " " << k;
      EXPECT_EQ(bits(*a.point_data.find(name)), bits(*c.point_data.find(name))) << name << " " << k;
    }
  }
  // Grid 99 at t = 140 (pyNastran: 69.99999237060547).
  const Mesh mesh = sort2->read_mesh();
  const auto ids = mesh.point_data.find("nastran:grid_id")->values<std::int64_t>();
  const auto row = static_cast<std::size_t>(std::find(ids.begin(), ids.end(), 99) - ids.begin());
  EXPECT_FLOAT_EQ(static_cast<float>(sort2->read_step(8).point_data.find("temperature")->values<double>()[row]), 69.99999237060547f);
}

TEST(Op2, HostileSort2) {
  const std::string bytes = read_file(data_file("time_thermal_elements_sort2_nx.op2"));
  std::size_t header = 0, data = 0;  // the first OUGV2 table-3 header and its data (9 times)
  walk_records(bytes, [&](std::size_t at, std::size_t size, const std::string& table) {
    if (header == 0 && table == "OUGV2   " && size == 146 * 4) header = at;
    if (header != 0 && data == 0 && table == "OUGV2   " && size == 9 * 8 * 4) data = at;
  });
  ASSERT_NE(header, 0u);
  ASSERT_NE(data, 0u);
  std::string no_id = bytes;
  const std::int32_t zero = 0;
  std::memcpy(no_id.data() + header + 16, &zero, 4);  // word 5: the grid id * 10 + device code
  expect_read_error(no_id, "SORT2 id 0", header + 16);
  std::string unknown = bytes;
  const std::int32_t grid = 99999 * 10 + 3;
  std::memcpy(unknown.data() + header + 16, &grid, 4);
  const std::int32_t grid_type = 1;  // thermal runs write their grids as scalar points (2),
  std::memcpy(unknown.data() + data + 32 + 4, &grid_type, 4);  // passed over when unknown
  auto series = open_time_series(write_scratch("unknown_grid.op2", unknown));
  try {
    series->read_step(1);
    FAIL() << "no ReadError";
  } catch (const ReadError& e) {
    EXPECT_NE(e.reason().find("grid 99999 is not in GEOM1"), std::string::npos) << e.reason();
    EXPECT_EQ(e.byte_offset(), data + 32);  // the step's entry
  }
}

// Complex element stresses (SOL 108/111 frequency responses): centroid of the solids, both
// fibres of the shells, as <name>_real / <name>_imag; pyNastran 1.4.1's numbers.
TEST(Op2, ComplexSolidStresses) {
  auto series = open_time_series(data_file("complex_tet10.op2"));
  ASSERT_EQ(series->num_steps(), 3u);
  const Mesh mesh = series->read_mesh();
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(series->time(k), 10.0 * static_cast<double>(k));
    const TimeStep step = series->read_step(k);
    const std::vector<NDArray>& re = *step.cell_data.find("stress_real");
    const std::vector<NDArray>& im = *step.cell_data.find("stress_imag");
    EXPECT_NEAR(sum(re[0], true), 785.6729125976562, 1e-3);  // sum |Re| over elements 1, 2
    EXPECT_EQ(sum(im[0], true), 0.0);                         // undamped
    const auto [b, row] = element_at(mesh, 1);
    const double expected[6] = {-248.03097534179688, 186.82723999023438, 57.416473388671875,
                                -45.62031173706055, -52.593711853027344, 23.702106475830078};
    for (int c = 0; c < 6; ++c) EXPECT_NEAR(re[b].data_as<double>()[row * 6 + c], expected[c], 1e-5);
    EXPECT_NEAR(sum((*step.cell_data.find("strain_real"))[0], true), 7.24914571037516e-05, 1e-10);
  }
}

TEST(Op2, ComplexShellStressesRealImaginaryAndMagnitudePhase) {
  // Subcase 1 written as real/imaginary, subcase 2 (the same response) as magnitude/phase.
  auto series = open_time_series(data_file("api3.op2"));
  ASSERT_EQ(series->num_steps(), 6u);
  const Mesh mesh = series->read_mesh();
  const auto [b1, r1] = element_at(mesh, 3301);
  const auto [b2, r2] = element_at(mesh, 3302);
  for (const std::size_t k : {1u, 4u}) {  // 2.5 Hz of subcase 1 and of subcase 2
    EXPECT_EQ(series->time(k), 2.5);
    const TimeStep step = series->read_step(k);
    EXPECT_EQ(step.field_data.find("nastran:subcase")->values<std::int64_t>()[0], k == 1 ? 1 : 2);
    auto value = [&](const std::string& name, std::size_t b, std::int64_t row, int c) {
      return std::complex<double>((*step.cell_data.find(name + "_real"))[b].data_as<double>()[row * 6 + c],
                                  (*step.cell_data.find(name + "_imag"))[b].data_as<double>()[row * 6 + c]);
    };
    const double tolerance = k == 1 ? 1e-4 : 2e-3;  // magnitude/phase: float32 turned into parts
    EXPECT_LT(std::abs(value("stress", b1, r1, 0) - std::complex<double>(777.2803344726562, -26.158533096313477)), tolerance);
    EXPECT_LT(std::abs(value("stress", b1, r1, 1) - std::complex<double>(1641.24609375, -55.23521423339844)), tolerance);
    EXPECT_LT(std::abs(value("stress", b1, r1, 3) - std::complex<double>(582.9602661132812, -19.618900299072266)), tolerance);
    EXPECT_LT(std::abs(value("stress_z2", b1, r1, 0) - std::complex<double>(-772.2037353515625, 25.98932647705078)), tolerance);
    EXPECT_LT(std::abs(value("stress_z2", b2, r2, 3) - std::complex<double>(-1223.673095703125, 41.15138626098633)), tolerance);
    EXPECT_EQ(value("stress", b1, r1, 2), std::complex<double>(0, 0));  // no zz in a shell
  }
}

// Random responses (SOL 111 + RANDPS): PSD and CRM per frequency step, RMS and NO in one step of
// their own; pyNastran 1.4.1's numbers (op2_results.psd / crm / rms / no).
TEST(Op2, RandomNodalTables) {
  auto series = open_time_series(data_file("random_rms_tri.op2"));  // SORT2 PSD/CRM, 2 frequencies
  ASSERT_EQ(series->num_steps(), 3u);
  EXPECT_EQ(series->time(0), 20.0);
  EXPECT_EQ(series->time(1), 30.0);
  EXPECT_EQ(series->time(2), 0.0);
  const TimeStep psd20 = series->read_step(0), psd30 = series->read_step(1), summary = series->read_step(2);
  EXPECT_EQ(psd20.field_data.find("nastran:random_summary"), nullptr);
  ASSERT_NE(summary.field_data.find("nastran:random_summary"), nullptr);
  EXPECT_EQ(summary.field_data.find("nastran:subcase")->values<std::int64_t>()[0], 1);
  EXPECT_NEAR(sum(*psd20.point_data.find("displacement_psd"), true), 0.00016331664301106962, 1e-12);
  EXPECT_NEAR(sum(*psd30.point_data.find("acceleration_psd"), true), 74805.79199273694, 1e-2);
  EXPECT_NEAR(sum(*summary.point_data.find("displacement_no"), true), 148.75007820129395, 1e-4);
  EXPECT_NEAR(sum(*summary.point_data.find("load_vector_rms"), true), 10000.0, 1e-3);
  // The cumulative RMS at the last frequency is the RMS.
  for (const char* name : {"displacement", "velocity", "acceleration", "rotation", "load_vector"})
    EXPECT_EQ(bits(*psd30.point_data.find(std::string(name) + "_crm")),
              bits(*summary.point_data.find(std::string(name) + "_rms"))) << name;
  EXPECT_EQ(summary.point_data.find("displacement_psd"), nullptr);

  auto sort1 = open_time_series(data_file("random_sort1_vba.op2"));  // OUGPSD1: 14 frequencies
  ASSERT_EQ(sort1->num_steps(), 15u);
  EXPECT_EQ(sort1->time(2), 31.5);
  EXPECT_NEAR(sum(*sort1->read_step(13).point_data.find("acceleration_psd"), true), 38094.054611290805, 1e-2);
  EXPECT_NEAR(sum(*sort1->read_step(14).point_data.find("spc_force_no"), true), 5948.767364501953, 1e-3);
}

// Random shell stresses/strains (CQUAD4 5, CTRIA3 6): pyNastran 1.4.1's psd/rms/no plate arrays.
TEST(Op2, RandomShellStresses) {
  auto series = open_time_series(data_file("random_rms_tri.op2"));
  const Mesh mesh = series->read_mesh();
  const auto [quad_block, quad_row] = element_at(mesh, 5);
  const auto [tria_block, tria_row] = element_at(mesh, 6);
  auto value = [](const TimeStep& step, const std::string& name, std::size_t block, std::int64_t row, int width, int c) {
    return (*step.cell_data.find(name))[block].data_as<double>()[row * width + c];
  };
  const TimeStep psd30 = series->read_step(1), summary = series->read_step(2);
  EXPECT_FLOAT_EQ(value(psd30, "stress_psd", quad_block, quad_row, 6, 0), 4.175155936536612e-07f);
  EXPECT_FLOAT_EQ(value(psd30, "stress_psd", quad_block, quad_row, 6, 3), 0.0015486335614696145f);
  EXPECT_FLOAT_EQ(value(psd30, "stress_z2_psd", quad_block, quad_row, 6, 1), 0.0001818859309423715f);
  EXPECT_EQ(value(psd30, "stress_psd", quad_block, quad_row, 6, 2), 0.0);  // no zz in a shell
  EXPECT_EQ(psd30.cell_data.find("von_mises_psd"), nullptr);              // the 9-word layout
  EXPECT_FLOAT_EQ(value(summary, "von_mises_rms", tria_block, tria_row, 1, 0), 0.35768818855285645f);
  EXPECT_FLOAT_EQ(value(summary, "stress_z2_rms", tria_block, tria_row, 6, 0), 0.012398243881762028f);
  EXPECT_FLOAT_EQ(value(summary, "strain_z2_no", quad_block, quad_row, 6, 3), 24.032567977905273f);
}

TEST(Op2, HostileRandomTables) {
  const std::string bytes = read_file(data_file("random_rms_tri.op2"));
  std::size_t psd_header = 0, rms_header = 0, rms_data = 0;  // the first OUGPSD2 and OUGRMS1 records
  walk_records(bytes, [&](std::size_t at, std::size_t size, const std::string& table) {
    if (psd_header == 0 && table == "OUGPSD2 " && size == 146 * 4) psd_header = at;
    if (rms_header == 0 && table == "OUGRMS1 " && size == 146 * 4) rms_header = at;
    else if (rms_header != 0 && rms_data == 0 && table == "OUGRMS1 " && size % 32 == 0) rms_data = at;
  });
  ASSERT_NE(psd_header, 0u);
  ASSERT_NE(rms_data, 0u);
  std::string no_id = bytes;
  const std::int32_t zero = 0;
  std::memcpy(no_id.data() + psd_header + 16, &zero, 4);  // SORT2: word 5 is the grid id * 10 + device
  expect_read_error(no_id, "SORT2 id 0", psd_header + 16);
  std::string unknown = bytes;
  const std::int32_t grid = 99999 * 10 + 1;
  std::memcpy(unknown.data() + rms_data, &grid, 4);
  auto series = open_time_series(write_scratch("unknown_grid.op2", unknown));
  try {
    series->read_step(2);
    FAIL() << "no ReadError";
  } catch (const ReadError& e) {
    EXPECT_NE(e.reason().find("grid 99999 is not in GEOM1"), std::string::npos) << e.reason();
    EXPECT_EQ(e.byte_offset(), rms_data);
  }
  // A kind not read (7: ATO, over time lags) is passed over: the RMS arrays of that table go.
  std::string ato = bytes;
  const std::int32_t ato_code = 4000 + 701;
  std::memcpy(ato.data() + rms_header + 4, &ato_code, 4);
  auto passed_over = open_time_series(write_scratch("ato.op2", ato));
  ASSERT_EQ(passed_over->num_steps(), 3u);
  const TimeStep step = passed_over->read_step(2);
  EXPECT_EQ(step.point_data.find("displacement_rms"), nullptr);
  EXPECT_NE(step.point_data.find("velocity_rms"), nullptr);
}

TEST(Op2, RegistryRow) {
  EXPECT_EQ(std::string(format_for_path("run.op2")->name), "op2");
  EXPECT_EQ(meshioplusplus::read(data_file("plate.op2")).num_points(), 36);
}

}  // namespace
