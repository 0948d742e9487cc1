// Abaqus .fil: pybaqus's ASCII result files (written by Abaqus 6.19 / 6.23), their binary form
// (tests/formats/abaqus_fil/make_binary_fil.py), a three-increment binary file for the lazy
// time series, and hostile records.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unistd.h>

#include "formats/abaqus_fil/abaqus_fil.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;

namespace {

std::string data(const std::string& name) { return (mpp::testing::test_data_dir() / "abaqus_fil" / name).string(); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const auto path = std::filesystem::temp_directory_path() / ("mpp_abaqus_fil_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

template <class Fn> std::uint64_t error_offset(Fn&& read) {
  try {
    read();
  } catch (const mpp::ReadError& error) {
    EXPECT_EQ(error.format(), "abaqus_fil");
    return error.byte_offset().value_or(~0ull);
  }
  ADD_FAILURE() << "no ReadError";
  return 0;
}

template <class List> const auto& at(const List& list, std::string_view name) {
  const auto* found = list.find(name);
  if (!found) throw std::out_of_range(std::string(name));
  return *found;
}

double sum(const mpp::NDArray& a) {
  double total = 0;
  for (std::size_t k = 0; k < a.size(); ++k) total += a.data_as<double>()[k];
  return total;
}

}  // namespace

TEST(AbaqusFil, AsciiHexahedron) {
  const mpp::Mesh mesh = mpp::read(data("hex_C3D8.fil"));
  ASSERT_EQ(mesh.num_points(), 8);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "hexahedron");
  EXPECT_EQ(mesh.cells[0].num_cells(), 1);
  EXPECT_DOUBLE_EQ(sum(mesh.points), 4 * (10 + 20 + 30));
  const mpp::NDArray& u = at(mesh.point_data, "U");
  ASSERT_EQ(u.dim(1), 3);
  EXPECT_DOUBLE_EQ(u.data_as<double>()[1 * 3 + 0], 0.005484804966181764);  // node 2, U1
  // S averaged over the 8 integration points: S11 values of the file's records.
  const double s11[] = {-1.781822547468652, 6.233695131126897, 1.832621858498404, 9.243827519048548,
                        -1.597265579353357, -2.81251713152694, 2.017178826613782, 0.1976152563947737};
  double mean = 0;
  for (double v : s11) mean += v / 8;
  EXPECT_NEAR(at(mesh.cell_data, "S")[0].data_as<double>()[0], mean, 1e-12);
  EXPECT_EQ(at(mesh.cell_data, "S")[0].dim(1), 6);
  EXPECT_DOUBLE_EQ(at(mesh.field_data, "time").data_as<double>()[0], 1.0);
}

TEST(AbaqusFil, TwoDimensionalFilesKeepTwoColumns) {
  const mpp::Mesh quad = mpp::read(data("quad_CPS4.fil"));
  EXPECT_EQ(quad.points.dim(1), 2);
  EXPECT_EQ(quad.cells[0].type, "quad");
  EXPECT_EQ(at(quad.cell_data, "S")[0].dim(1), 3);  // plane stress: S11, S22, S12
  const mpp::Mesh tri = mpp::read(data("tri_CPE3.fil"));
  EXPECT_EQ(tri.cells[0].type, "triangle");
  EXPECT_EQ(at(tri.cell_data, "S")[0].dim(1), 4);  // plane strain: S33 too
  const mpp::Mesh gaps = mpp::read(data("discontinuous_numbering_2D.fil"));
  EXPECT_EQ(gaps.num_points(), 6);
  EXPECT_EQ(gaps.cells[0].num_cells(), 2);
  const mpp::Mesh axi = mpp::read(data("model_results.fil"));  // CAX4, node output only
  EXPECT_EQ(axi.num_points(), 9);
  EXPECT_EQ(axi.cells[0].num_cells(), 4);
  EXPECT_TRUE(axi.point_data.contains("U"));
}

TEST(AbaqusFil, BinaryEqualsAscii) {
  const mpp::Mesh ascii = mpp::read(data("hex_C3D8.fil"));
  const mpp::Mesh binary = mpp::read(data("hex_C3D8_binary.fil"));
  EXPECT_EQ(std::memcmp(ascii.points.data(), binary.points.data(), 24 * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(at(ascii.point_data, "U").data(), at(binary.point_data, "U").data(), 24 * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(at(ascii.cell_data, "E")[0].data(), at(binary.cell_data, "E")[0].data(), 6 * sizeof(double)), 0);
}

TEST(AbaqusFil, TimeSeriesReadsEachIncrement) {
  auto series = mpp::open_time_series(data("hex_C3D8_3increments_binary.fil"));
  ASSERT_EQ(series->num_steps(), 3u);
  const mpp::Mesh mesh = series->read_mesh();
  EXPECT_EQ(mesh.num_points(), 8);
  const mpp::TimeStep first = series->read_step(0);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(series->time(k), k + 1.0);
    const mpp::TimeStep step = series->read_step(k);
    EXPECT_NEAR(sum(at(step.point_data, "U")), (k + 1) * sum(at(first.point_data, "U")), 1e-12);
    EXPECT_EQ(at(step.field_data, "abaqus_fil:increment").data_as<std::int64_t>()[0], static_cast<std::int64_t>(k + 1));
  }
  EXPECT_THROW(series->read_step(3), mpp::ReadError);
}

TEST(AbaqusFil, AStepReadsOnlyItsOwnBytes) {
  // Opening walks every record, so a broken record length fails the open; broken values in
  // increment 0 (its first U record) must change step 0 only.
  std::string bytes = slurp(data("hex_C3D8_3increments_binary.fil"));
  auto series = mpp::open_time_series(data("hex_C3D8_3increments_binary.fil"));
  const mpp::TimeStep before = series->read_step(2);
  // Find step 0's first U record (key 101) and overwrite its three values.
  std::size_t found = 0;
  for (std::size_t at = 4; at + 8 <= bytes.size(); at += 8) {
    std::int64_t word;
    std::memcpy(&word, bytes.data() + at, 8);
    if (word == 101) {
      found = at;
      break;
    }
  }
  ASSERT_NE(found, 0u);
  const double junk = 1e300;
  for (int c = 0; c < 3; ++c) std::memcpy(bytes.data() + found + 16 + 8 * c, &junk, 8);
  const std::string path = write_temp("corrupt.fil", bytes);
  auto corrupt = mpp::open_time_series(path);
  const mpp::TimeStep after = corrupt->read_step(2);
  EXPECT_EQ(sum(at(after.point_data, "U")), sum(at(before.point_data, "U")));
  EXPECT_EQ(at(corrupt->read_step(0).point_data, "U").data_as<double>()[0], junk);
  std::filesystem::remove(path);
}

TEST(AbaqusFil, HostileInput) {
  const std::string ascii = slurp(data("hex_C3D8.fil"));
  // Truncated inside a field.
  EXPECT_GT(error_offset([&] { mpp::read(write_temp("cut.fil", ascii.substr(0, 1000)), "abaqus_fil"); }), 0u);
  // A record whose length (8) is one short of its fields: the ninth field, at byte 56, is refused.
  std::string wrong = ascii;
  wrong.replace(0, 4, "*I 18");
  wrong.erase(5, 1);
  EXPECT_EQ(error_offset([&] { mpp::read(write_temp("length.fil", wrong), "abaqus_fil"); }), 56u);
  // An unknown field letter.
  std::string letter = ascii;
  letter[1] = 'Q';
  EXPECT_EQ(error_offset([&] { mpp::read(write_temp("letter.fil", letter), "abaqus_fil"); }), 1u);
  // Binary: a record length past the end, a broken block marker, a file cut inside a block.
  std::string binary = slurp(data("hex_C3D8_binary.fil"));
  std::string huge = binary;
  const std::int64_t big = 1 << 19;
  std::memcpy(huge.data() + 4, &big, 8);
  EXPECT_EQ(error_offset([&] { mpp::read(write_temp("huge.fil", huge), "abaqus_fil"); }), 4u);
  std::string marker = binary;
  marker[4100] = 7;
  EXPECT_EQ(error_offset([&] { mpp::read(write_temp("marker.fil", marker), "abaqus_fil"); }), 0u);
  EXPECT_EQ(error_offset([&] { mpp::read(write_temp("short.fil", binary.substr(0, 5000)), "abaqus_fil"); }), 4104u);
  EXPECT_THROW(mpp::read(write_temp("empty.fil", ""), "abaqus_fil"), mpp::ReadError);
  for (const char* name : {"cut.fil", "length.fil", "letter.fil", "huge.fil", "marker.fil", "short.fil", "empty.fil"})
    std::filesystem::remove(std::filesystem::temp_directory_path() / ("mpp_abaqus_fil_" + std::to_string(::getpid()) + "_" + name));
}

TEST(AbaqusFil, RegistryRow) {
  const mpp::FormatInfo* info = mpp::format_for_path("job.fil");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->name, "abaqus_fil");
}
