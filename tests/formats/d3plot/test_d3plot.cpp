// d3plot: real LS-DYNA families (lasso-python's test data) and hostile control words.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "formats/d3plot/d3plot.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;

namespace {

std::string data(const std::string& relative) { return (mpp::testing::test_data_dir() / "d3plot" / relative).string(); }

// The byte offset of a ReadError `read` raises (the test fails when it raises none).
template <class Fn> std::uint64_t error_offset(Fn&& read) {
  try {
    read();
  } catch (const mpp::ReadError& error) {
    EXPECT_EQ(error.format(), "d3plot");
    return error.byte_offset().value_or(~0ull);
  }
  ADD_FAILURE() << "no ReadError";
  return 0;
}

}  // namespace

TEST(D3plot, SolidsAndShellsFamily) {
  const mpp::Mesh mesh = mpp::read(data("solid_int/d3plot"));
  ASSERT_EQ(mesh.num_points(), 106);
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(mesh.cells[0].type, "hexahedron");
  EXPECT_EQ(mesh.cells[0].num_cells(), 16);
  EXPECT_EQ(mesh.cells[1].type, "quad");
  EXPECT_EQ(mesh.cells[1].num_cells(), 16);
  ASSERT_EQ(mesh.regions.size(), 4u);
  EXPECT_EQ(mesh.regions[0].name, "solid_mat_1");
  EXPECT_EQ(mesh.regions[0].tag, 1000);
  EXPECT_NE(mesh.point_data.find("displacement"), nullptr);
  EXPECT_NE(mesh.cell_data.find("stress"), nullptr);
  auto series = mpp::open_time_series(data("solid_int/d3plot"));
  ASSERT_EQ(series->num_steps(), 5u);
  EXPECT_GT(series->time(4), series->time(0));
  const mpp::TimeStep last = series->read_step(4);
  EXPECT_EQ(last.point_data.find("velocity")->rows(), 106);
  EXPECT_THROW(series->read_step(5), mpp::ReadError);
}

TEST(D3plot, BeamsSphAndFamilyNames) {
  const mpp::Mesh beam = mpp::read(data("beamip/d3plot"));
  ASSERT_EQ(beam.cells.size(), 1u);
  EXPECT_EQ(beam.cells[0].type, "line");  // the orientation node is dropped
  EXPECT_EQ(beam.cells[0].connectivity.dim(1), 2);
  const mpp::Mesh sph = mpp::read(data("sph/d3plot"));
  EXPECT_EQ(sph.num_points(), 29);
  EXPECT_EQ(sph.cells.back().type, "vertex");
  EXPECT_EQ(sph.cells.back().num_cells(), 25);
  EXPECT_EQ(mpp::open_time_series(data("sph/d3plot"))->num_steps(), 10u);
  EXPECT_EQ(mpp::read(data("sph/d3plot01")).num_points(), 29);  // a member opens its family
  const mpp::Mesh shells = mpp::read(data("simple/d3plot"));     // geometry alone: no state
  EXPECT_EQ(shells.num_points(), 4915);
  EXPECT_EQ(mpp::format_for_path("x/d3plot")->name, "d3plot");
  EXPECT_EQ(mpp::format_for_path("x/d3plot12")->name, "d3plot");
  EXPECT_EQ(mpp::format_for_path("run.d3plot")->name, "d3plot");
}

TEST(D3plot, HostileControlWords) {
  const std::string real = mpp::testing_support::read_file(data("solid_int/d3plot"));
  const mpp::testing_support::ScratchDir dir;
  // Truncated inside the control words.
  const std::string truncated = dir.write("cut.d3plot", real.substr(0, 100));
  EXPECT_EQ(error_offset([&] { mpp::read(truncated); }), 100u);
  // Garbage: no file type at word 11 for either word size.
  std::string garbage(4096, '\x7f');
  EXPECT_EQ(error_offset([&] { mpp::read(dir.write("garbage.d3plot", garbage)); }), 44u);
  // NUMNP far past the file's size.
  std::string huge = real;
  const std::int32_t many = 1 << 30;
  std::memcpy(huge.data() + 16 * 4, &many, 4);
  EXPECT_GT(error_offset([&] { mpp::read(dir.write("huge.d3plot", huge)); }), 0u);
  // A node number out of range in the first solid.
  std::string bad = real;
  const std::int32_t node = 100000;
  const std::uint64_t first_solid = (64 + 64 + 106 * 3) * 4;  // EXTRA = 64 control words more
  std::memcpy(bad.data() + first_solid, &node, 4);
  EXPECT_EQ(error_offset([&] { mpp::read(dir.write("badnode.d3plot", bad)); }), first_solid);
  // Geometry cut short.
  EXPECT_GT(error_offset([&] { mpp::read(dir.write("short.d3plot", real.substr(0, 1200))); }), 0u);
}

TEST(D3plot, LateStateReadsWithAnEarlierFileCorrupt) {
  const mpp::testing_support::ScratchDir dir;
  for (const auto& entry : std::filesystem::directory_iterator(data("solid_int")))
    dir.write(entry.path().filename().string(), mpp::testing_support::read_file(entry.path()));
  auto series = mpp::open_time_series(dir.write("d3plot", mpp::testing_support::read_file(data("solid_int/d3plot"))));
  const mpp::TimeStep expected = series->read_step(4);
  dir.write("d3plot01", std::string(12288, '\x55'));  // state 0's bytes are garbage now
  const mpp::TimeStep again = series->read_step(4);
  const auto* a = expected.point_data.find("displacement");
  const auto* b = again.point_data.find("displacement");
  ASSERT_EQ(a->nbytes(), b->nbytes());
  EXPECT_EQ(std::memcmp(a->data(), b->data(), a->nbytes()), 0);
}
