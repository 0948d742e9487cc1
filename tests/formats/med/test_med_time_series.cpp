// MED fields behind the time-series interface (open_time_series): a file med::write makes
// (every field one step, NDT 1, time 0) read as one step; the mesh without the fields; errors.
// Several steps with their exact times: tests/formats/med/test_med_time_series.py (meshio + h5py).
#include <gtest/gtest.h>

#include <string>

#include "formats/med/med.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

TEST(MedTimeSeries, OneStepFieldsAndTheMeshWithoutThem) {
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5";
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}});
  mesh.point_data.set("T", array_of<double>({4}, {1, 2, 3, 4}));
  mesh.cell_data.set("p", std::vector<NDArray>{array_of<double>({2}, {5, 6})});
  const std::string path = scratch("steps.med").string();
  med::write(path, mesh, {});

  const auto reader = open_time_series(path);
  ASSERT_EQ(1u, reader->num_steps());
  EXPECT_EQ(0.0, reader->time(0));
  const Mesh read = reader->read_mesh();
  EXPECT_EQ(4, read.num_points());
  EXPECT_EQ("triangle:2", block_summary(read));
  EXPECT_FALSE(read.point_data.contains("T"));
  EXPECT_FALSE(read.cell_data.contains("p"));
  const TimeStep step = reader->read_step(0);
  EXPECT_TRUE(same_bits(*mesh.point_data.find("T"), *step.point_data.find("T")));
  ASSERT_NE(nullptr, step.cell_data.find("p"));
  EXPECT_TRUE(same_bits((*mesh.cell_data.find("p"))[0], (*step.cell_data.find("p"))[0]));

  const ReadError error = expect_read_error([&] { reader->read_step(1); });
  EXPECT_EQ(path, error.path());
  EXPECT_NE(std::string(error.what()).find("step 1 out of range (1 steps)"), std::string::npos) << error.what();
  EXPECT_THROW(open_time_series(write_scratch("not.med", "not HDF5\n")), ReadError);
}

}  // namespace
