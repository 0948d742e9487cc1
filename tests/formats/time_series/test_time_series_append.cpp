// append_time_series (include/meshioplusplus/time_series.hpp) for the four formats that continue
// a series — XDMF, PVD, VTKHDF, Exodus: steps go after the file's, the file's mesh stays, a
// mesh given again must match it, a missing file is started, and the file changes only at
// close() (a writer dropped before leaves it byte for byte as it was).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "io/hdf5/hdf5_file.hpp"
#include "io/netcdf/netcdf_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

mpp::Mesh square() {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 1, 3, 2}), {}, {}});
  return mesh;
}

mpp::TimeStep step_at(double t) {
  mpp::TimeStep step;
  step.time = t;
  step.point_data.set("phi", array_of<double>({4}, {t, t + 1, t + 2, t + 3}));
  step.cell_data.set("c", {array_of<double>({2}, {10 * t, 10 * t + 1})});
  return step;
}

void write_steps(mpp::TimeSeriesWriter& writer, std::initializer_list<double> times) {
  for (double t : times) writer.write_step(step_at(t));
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class Append : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const std::string format = GetParam();
    if ((format == "xdmf" || format == "vtkhdf") && !mpp::io::hdf5::available()) GTEST_SKIP() << "built without HDF5";
    if (format == "exodus" && !mpp::io::netcdf_available()) GTEST_SKIP() << "built without netCDF";
    const std::string extension = format == "exodus" ? ".e" : "." + format;
    path_ = dir_.file("series" + extension);
  }
  std::string format() const { return GetParam(); }
  ScratchDir dir_;
  std::string path_;
};

TEST_P(Append, StepsGoAfterTheFilesAndTheMeshStays) {
  {
    auto writer = mpp::create_time_series(path_, format());
    writer->write_mesh(square());
    write_steps(*writer, {0.0, 1.0});
    writer->close();
  }
  {  // no write_mesh(): the file's mesh goes on
    auto writer = mpp::append_time_series(path_, format());
    write_steps(*writer, {2.0});
    writer->close();
  }
  {  // the same mesh given again is accepted (not written twice)
    auto writer = mpp::append_time_series(path_, format());
    writer->write_mesh(square());
    write_steps(*writer, {3.0, 4.0});
    writer->close();
  }
  auto reader = mpp::open_time_series(path_, format());
  ASSERT_EQ(5u, reader->num_steps());
  const mpp::Mesh mesh = reader->read_mesh();
  EXPECT_EQ("triangle:2", block_summary(mesh));
  EXPECT_EQ(4, mesh.num_points());
  for (std::size_t k = 0; k < 5; ++k) {
    const auto t = static_cast<std::int64_t>(k);
    EXPECT_EQ(static_cast<double>(t), reader->time(k));
    const mpp::TimeStep step = reader->read_step(k);
    EXPECT_EQ((std::vector<std::int64_t>{t, t + 1, t + 2, t + 3}), int_values(*step.point_data.find("phi"))) << "step " << k;
    EXPECT_EQ((std::vector<std::int64_t>{10 * t, 10 * t + 1}), int_values(step.cell_data.find("c")->front())) << "step " << k;
  }
}

TEST_P(Append, AMissingFileIsStarted) {
  {
    auto writer = mpp::append_time_series(path_, format());
    writer->write_mesh(square());
    write_steps(*writer, {0.5});
    writer->close();
  }
  auto reader = mpp::open_time_series(path_, format());
  ASSERT_EQ(1u, reader->num_steps());
  EXPECT_EQ(0.5, reader->time(0));
}

TEST_P(Append, ADifferentMeshIsAWriteErrorAndTheFileStaysAsItWas) {
  {
    auto writer = mpp::create_time_series(path_, format());
    writer->write_mesh(square());
    write_steps(*writer, {0.0});
    writer->close();
  }
  const std::string before = bytes_of(path_);
  mpp::Mesh other = square();
  other.cells.front().connectivity = int64_matrix(1, 3, {0, 1, 2});
  try {
    auto writer = mpp::append_time_series(path_, format());
    writer->write_mesh(other);
    FAIL() << "a mesh of other cells was accepted";
  } catch (const mpp::WriteError& error) {
    const std::string message = error.what();
    EXPECT_NE(std::string::npos, message.find(path_)) << message;
    EXPECT_NE(std::string::npos, message.find("cell block 0 of 1 triangle, the file's has 2 triangle")) << message;
  }
  {  // steps written but no close(): nothing changes on disk
    auto writer = mpp::append_time_series(path_, format());
    write_steps(*writer, {1.0, 2.0});
  }
  EXPECT_EQ(before, bytes_of(path_));
  EXPECT_EQ(1u, mpp::open_time_series(path_, format())->num_steps());
}

INSTANTIATE_TEST_SUITE_P(Formats, Append, ::testing::Values("xdmf", "pvd", "vtkhdf", "exodus"));

TEST(AppendTimeSeries, FormatsWithoutAppendSayWhichHave) {
  ScratchDir dir;
  try {
    mpp::append_time_series(dir.file("series.msh"));
    FAIL() << "gmsh append accepted";
  } catch (const mpp::WriteError& error) {
    EXPECT_NE(std::string::npos, std::string(error.what()).find("xdmf, pvd, vtkhdf and exodus have")) << error.what();
  }
}

TEST(AppendTimeSeries, XdmfOfOneMeshIsNotASeries) {
  if (!mpp::io::hdf5::available()) GTEST_SKIP() << "built without HDF5";
  ScratchDir dir;
  const std::string path = dir.file("single.xdmf");
  mpp::write(path, square());
  EXPECT_THROW(mpp::append_time_series(path), mpp::WriteError);
}

}  // namespace
