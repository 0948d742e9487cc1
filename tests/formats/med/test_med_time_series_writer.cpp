// The MED time-series writer (create_time_series(path, "med")): the mesh once, one computation
// step per step in each field (/CHA/<name>/<NDT><NOR>, NDT = step index, NOR = -1, PDT = time),
// read back by open_time_series and med::read; the file appears on close() only; bad use is a
// WriteError naming the file. meshio's reading and the h5py layout: tests/python/test_time_series_writers.py.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "formats/med/med.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// Blocks in the order MED gives them back (its type names sorted: SE2 before TR3).
Mesh two_blocks() {
  Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {1, 4}), {}, {}});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}});
  return mesh;
}

const std::vector<double> kTimes{0.0, 0.1234567891, 2.5};

TimeStep step_of(std::size_t k) {
  const double f = static_cast<double>(k) + 1;
  TimeStep step;
  step.time = kTimes[k];
  step.point_data.set("T", array_of<double>({5}, {0.5 * f, 1 * f, 2 * f, 3 * f, 4 * f}));
  step.point_data.set("V", array_of<double>({5, 2}, {f, -f, 2, 3, 4, 5, 6, 7, 8, 9 * f}));
  step.cell_data.set("p", std::vector<NDArray>{array_of<double>({1}, {-f}), array_of<double>({2}, {10 * f, 20})});
  return step;
}

WriteError expect_write_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const WriteError& error) {
    return error;
  }
  ADD_FAILURE() << "no WriteError";
  return WriteError("", "", "");
}

TEST(MedTimeSeriesWriter, StepsReadBackWithTheirTimes) {
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5";
  ScratchDir dir;
  const std::string path = dir.file("steps.med");
  auto writer = create_time_series(path);  // by extension
  writer->write_mesh(two_blocks());
  for (std::size_t k = 0; k < kTimes.size(); ++k) writer->write_step(step_of(k));
  EXPECT_FALSE(std::filesystem::exists(path));
  writer->close();

  const auto reader = open_time_series(path, "med");
  ASSERT_EQ(kTimes.size(), reader->num_steps());
  const Mesh mesh = reader->read_mesh();
  EXPECT_EQ("line:1;triangle:2", block_summary(mesh));
  EXPECT_TRUE(same_bits(two_blocks().points, mesh.points));
  EXPECT_TRUE(mesh.point_data.empty());
  for (std::size_t k = 0; k < kTimes.size(); ++k) {
    EXPECT_EQ(kTimes[k], reader->time(k));
    const TimeStep expected = step_of(k);
    const TimeStep step = reader->read_step(k);
    EXPECT_EQ(kTimes[k], step.time);
    EXPECT_TRUE(same_bits(*expected.point_data.find("T"), *step.point_data.find("T"))) << k;
    EXPECT_TRUE(same_bits(*expected.point_data.find("V"), *step.point_data.find("V"))) << k;
    ASSERT_NE(nullptr, step.cell_data.find("p"));
    for (std::size_t b = 0; b < 2; ++b)
      EXPECT_TRUE(same_bits((*expected.cell_data.find("p"))[b], (*step.cell_data.find("p"))[b])) << k;
  }

  // The layout: one group per step named by NDT and NOR (20 characters each).
  const io::hdf5::File file = io::hdf5::File::open(path, "med");
  const std::vector<std::string> steps = file.children("/CHA/T");
  ASSERT_EQ(3u, steps.size());
  EXPECT_EQ("00000000000000000001-0000000000000000001", steps[1]);
  EXPECT_EQ(1, file.integer_attribute("/CHA/T/" + steps[1], "NDT"));
  EXPECT_EQ(-1, file.integer_attribute("/CHA/T/" + steps[1], "NOR"));
  EXPECT_EQ(kTimes[1], file.float_attribute("/CHA/T/" + steps[1], "PDT"));
  EXPECT_EQ(2, file.integer_attribute("/CHA/V", "NCO"));

  // med::read names the steps as meshio does.
  const Mesh plain = med::read(path);
  EXPECT_TRUE(same_bits(*step_of(2).point_data.find("T"), *plain.point_data.find("T[2] - 2.5")));
}

TEST(MedTimeSeriesWriter, BadUseIsAWriteErrorNamingTheFile) {
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5";
  ScratchDir dir;
  const std::string path = dir.file("bad.med");
  {
    auto writer = create_time_series(path, "med");
    WriteError error = expect_write_error([&] { writer->write_step(step_of(0)); });
    EXPECT_EQ(path, error.path());
    EXPECT_NE(std::string(error.what()).find("write_data() before write_points_cells()"), std::string::npos) << error.what();

    writer->write_mesh(two_blocks());
    TimeStep wrong = step_of(0);
    wrong.cell_data.set("p", std::vector<NDArray>{array_of<double>({1}, {1})});
    error = expect_write_error([&] { writer->write_step(wrong); });
    EXPECT_EQ(path, error.path());
    EXPECT_NE(std::string(error.what()).find("cell data 'p' has 1 arrays for 2 cell blocks"), std::string::npos) << error.what();

    writer->write_step(step_of(0));
    wrong = step_of(1);
    wrong.point_data.set("V", array_of<double>({5, 3}, std::vector<double>(15, 1.0)));
    error = expect_write_error([&] { writer->write_step(wrong); });
    EXPECT_NE(std::string(error.what()).find("field 'V' has 3 components here and 2 elsewhere"), std::string::npos)
        << error.what();
    EXPECT_THROW(writer->write_mesh(two_blocks()), WriteError);
  }
  EXPECT_FALSE(std::filesystem::exists(path));  // never closed: no file
  EXPECT_THROW(create_time_series(path, "med", [] {
                 WriteOptions options;
                 options.set("compression", "gzip");
                 return options;
               }()),
               WriteError);
  auto writer = create_time_series(path, "med");
  Mesh doubled = two_blocks();
  doubled.cells.push_back(doubled.cells[0]);
  EXPECT_EQ(path, expect_write_error([&] { writer->write_mesh(doubled); }).path());
  writer->write_mesh(two_blocks());  // the rejected mesh wrote nothing
  writer->close();
  EXPECT_EQ(0u, open_time_series(path)->num_steps());
}

}  // namespace
