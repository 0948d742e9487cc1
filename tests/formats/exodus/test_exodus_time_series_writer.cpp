// The Exodus II time-series writer (create_time_series(path, "exodus")): the mesh once, one
// record per step along time_step (time_whole, vals_nod_var<i>, vals_elem_var<i>eb<j>,
// vals_glo_var from a step's scalar field_data), read back by open_time_series and
// exodus::read; the file appears on close() only; bad use is a WriteError naming the file.
// netCDF4-python's view of the layout, meshio's reading and VTK's: tests/python/test_exodus_time_series_writer.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "formats/exodus/exodus.hpp"
#include "io/netcdf/netcdf_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

#define SKIP_WITHOUT_NETCDF() \
  if (!io::netcdf_available()) GTEST_SKIP() << "built without netCDF"

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
  step.point_data.set("U", array_of<double>({5, 3}, {f, -f, 2, 3, 4, 5, 6, 7, 8, 9 * f, 10, 11, 12, 13, 14}));
  step.cell_data.set("p", std::vector<NDArray>{array_of<double>({1}, {-f}), array_of<double>({2}, {10 * f, 20})});
  step.field_data.set("energy", array_of<double>({1}, {100 * f}));
  step.field_data.set("tags", array_of<double>({2}, {1, 2}));  // not scalar: no global variable
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

TEST(ExodusTimeSeriesWriter, StepsReadBackWithTheirTimesAndGlobals) {
  SKIP_WITHOUT_NETCDF();
  for (const char* kind : {"NETCDF4", "NETCDF3_64BIT_OFFSET", "NETCDF3_64BIT_DATA", "NETCDF3_CLASSIC"}) {
    ScratchDir dir;
    const std::string path = dir.file("steps.e");
    WriteOptions options;
    options.set("netcdf_format", kind);
    auto writer = create_time_series(path, "", options);  // by extension
    writer->write_mesh(two_blocks());
    for (std::size_t k = 0; k < kTimes.size(); ++k) writer->write_step(step_of(k));
    EXPECT_FALSE(std::filesystem::exists(path)) << kind;
    writer->close();
    writer->close();  // a second close() does nothing
    ASSERT_TRUE(std::filesystem::exists(path)) << kind;

    const auto reader = open_time_series(path, "exodus");
    ASSERT_EQ(kTimes.size(), reader->num_steps()) << kind;
    const Mesh mesh = reader->read_mesh();
    EXPECT_EQ("line:1;triangle:2", block_summary(mesh));
    EXPECT_TRUE(same_bits(two_blocks().points, mesh.points));
    EXPECT_TRUE(mesh.point_data.empty());
    for (std::size_t k = 0; k < kTimes.size(); ++k) {
      EXPECT_EQ(kTimes[k], reader->time(k));
      const TimeStep expected = step_of(k);
      const TimeStep step = reader->read_step(k);
      EXPECT_EQ(kTimes[k], step.time);
      EXPECT_TRUE(same_bits(*expected.point_data.find("T"), *step.point_data.find("T"))) << kind << k;
      EXPECT_TRUE(same_bits(*expected.point_data.find("U"), *step.point_data.find("U"))) << kind << k;
      ASSERT_NE(nullptr, step.cell_data.find("p"));
      for (std::size_t b = 0; b < 2; ++b)
        EXPECT_TRUE(same_bits((*expected.cell_data.find("p"))[b], (*step.cell_data.find("p"))[b])) << kind << k;
      ASSERT_NE(nullptr, step.field_data.find("energy"));
      EXPECT_TRUE(same_bits(*expected.field_data.find("energy"), *step.field_data.find("energy"))) << kind << k;
      EXPECT_EQ(nullptr, step.field_data.find("tags"));
    }
    // exodus::read gives step 0, exodus::read_step any step, with the same arrays.
    EXPECT_TRUE(same_bits(*step_of(0).point_data.find("T"), *exodus::read(path).point_data.find("T")));
    EXPECT_TRUE(same_bits(*step_of(2).point_data.find("U"), *exodus::read_step(path, 2).point_data.find("U")));
  }
}

TEST(ExodusTimeSeriesWriter, TheLayoutIsTheOrdinaryWritersOnAnUnlimitedTimeStep) {
  SKIP_WITHOUT_NETCDF();
  ScratchDir dir;
  const std::string path = dir.file("layout.exo");
  auto writer = create_time_series(path, "exodus");
  writer->write_mesh(two_blocks());
  for (std::size_t k = 0; k < kTimes.size(); ++k) writer->write_step(step_of(k));
  writer->close();
  const io::NetcdfReader file(path, "exodus");
  EXPECT_EQ(kTimes.size(), file.dimension("time_step"));
  EXPECT_EQ(4u, file.dimension("num_nod_var"));  // T, UX, UY, UZ
  EXPECT_EQ(1u, file.dimension("num_elem_var"));
  EXPECT_EQ(1u, file.dimension("num_glo_var"));
  EXPECT_EQ((std::vector<std::string>{"T", "UX", "UY", "UZ"}), file.read_strings(file.require("name_nod_var")));
  EXPECT_EQ((std::vector<std::string>{"energy"}), file.read_strings(file.require("name_glo_var")));
  for (const char* name : {"time_whole", "vals_nod_var1", "vals_nod_var4", "vals_elem_var1eb1", "vals_elem_var1eb2",
                           "vals_glo_var"})
    EXPECT_EQ("time_step", file.require(name).dimension_names.at(0)) << name;
  const NDArray times = file.read(file.require("time_whole"), DType::float64, {3});
  EXPECT_EQ(kTimes, std::vector<double>(times.data_as<double>(), times.data_as<double>() + 3));
  // The same mesh and step 0 as exodus::write gives for the mesh with step 0's data.
  Mesh with_data = two_blocks();
  const TimeStep first = step_of(0);
  with_data.point_data = first.point_data;
  with_data.cell_data = first.cell_data;
  with_data.field_data = first.field_data;
  const Mesh ordinary = exodus::read_step(path, 0);
  EXPECT_EQ(block_summary(with_data), block_summary(ordinary));
  EXPECT_TRUE(same_bits(*with_data.point_data.find("U"), *ordinary.point_data.find("U")));
}

TEST(ExodusTimeSeriesWriter, MeshWithoutStepsAndStepsWithoutVariables) {
  SKIP_WITHOUT_NETCDF();
  ScratchDir dir;
  const std::string mesh_only = dir.file("mesh.e");
  {
    auto writer = create_time_series(mesh_only, "exodus");
    writer->write_mesh(two_blocks());
    writer->close();
  }
  EXPECT_EQ(0u, open_time_series(mesh_only, "exodus")->num_steps());
  EXPECT_EQ("line:1;triangle:2", block_summary(exodus::read(mesh_only)));

  const std::string times_only = dir.file("times.e");
  auto writer = create_time_series(times_only, "exodus");
  writer->write_mesh(two_blocks());
  for (double time : kTimes) writer->write_step(TimeStep{time, {}, {}, {}});
  writer->close();
  EXPECT_EQ(kTimes, exodus::time_values(times_only));
}

// The mesh waits for the first step: views of the caller's memory are copied at write_mesh().
TEST(ExodusTimeSeriesWriter, TheMeshOwnsItsArraysUntilTheFirstStep) {
  SKIP_WITHOUT_NETCDF();
  ScratchDir dir;
  const std::string path = dir.file("views.e");
  const Mesh expected = two_blocks();
  std::vector<double> points(expected.points.data_as<double>(), expected.points.data_as<double>() + 15);
  std::vector<std::int64_t> triangles{0, 1, 2, 0, 2, 3};
  Mesh mesh = two_blocks();
  mesh.points = NDArray::view(points.data(), DType::float64, {5, 3});
  mesh.cells[1].connectivity = NDArray::view(triangles.data(), DType::int64, {2, 3});
  auto writer = create_time_series(path, "exodus");
  writer->write_mesh(mesh);
  std::fill(points.begin(), points.end(), -7.0);
  std::fill(triangles.begin(), triangles.end(), 4);
  writer->write_step(step_of(0));
  writer->close();
  const Mesh back = exodus::read(path);
  EXPECT_TRUE(same_bits(expected.points, back.points));
  EXPECT_EQ(int_values(expected.cells[1].connectivity), int_values(back.cells[1].connectivity));
}

TEST(ExodusTimeSeriesWriter, NoCloseNoFile) {
  SKIP_WITHOUT_NETCDF();
  ScratchDir dir;
  const std::string path = dir.file("dropped.e");
  {
    auto writer = create_time_series(path, "exodus");
    writer->write_mesh(two_blocks());
    writer->write_step(step_of(0));
    writer->write_step(step_of(1));
  }
  EXPECT_TRUE(std::filesystem::is_empty(std::filesystem::path(path).parent_path()));
}

TEST(ExodusTimeSeriesWriter, ErrorsNameTheFile) {
  SKIP_WITHOUT_NETCDF();
  ScratchDir dir;
  const std::string path = dir.file("bad.e");
  auto check = [&](const std::string& expected, const std::function<void()>& fn) {
    const WriteError error = expect_write_error(fn);
    const std::string message = error.what();
    EXPECT_NE(std::string::npos, message.find(path)) << message;
    EXPECT_NE(std::string::npos, message.find(expected)) << message;
  };
  check("write_data() before write_points_cells()",
        [&] { create_time_series(path, "exodus")->write_step(step_of(0)); });
  check("unknown write option 'binary'", [&] {
    WriteOptions options;
    options.set("binary", "true");
    create_time_series(path, "exodus", options);
  });
  check("netcdf_format 'NETCDF5' is not one of", [&] {
    WriteOptions options;
    options.set("netcdf_format", "NETCDF5");
    create_time_series(path, "exodus", options);
  });
  check("cell type 'line4' has no Exodus element", [&] {
    Mesh mesh = two_blocks();
    mesh.cells[0] = {"line4", int64_matrix(1, 4, {0, 1, 2, 4}), {}, {}};
    create_time_series(path, "exodus")->write_mesh(mesh);
  });
  check("step 0: cell data 'p' has 1 arrays for 2 cell blocks", [&] {
    auto writer = create_time_series(path, "exodus");
    writer->write_mesh(two_blocks());
    TimeStep step = step_of(0);
    step.cell_data.set("p", std::vector<NDArray>{array_of<double>({1}, {1})});
    writer->write_step(step);
  });
  check("step 0: point data 'T' has shape (4,), the mesh has 5 points", [&] {
    auto writer = create_time_series(path, "exodus");
    writer->write_mesh(two_blocks());
    TimeStep step = step_of(0);
    step.point_data.set("T", array_of<double>({4}, {1, 2, 3, 4}));
    writer->write_step(step);
  });
  check("step 0: cell data 'p' block 1 has shape (3,), the block has 2 cells", [&] {
    auto writer = create_time_series(path, "exodus");
    writer->write_mesh(two_blocks());
    TimeStep step = step_of(0);
    step.cell_data.set("p", std::vector<NDArray>{array_of<double>({1}, {1}), array_of<double>({3}, {1, 2, 3})});
    writer->write_step(step);
  });
  check("step 1: point data {'T'} differs from step 0's {'T', 'U'}: Exodus declares its variables once", [&] {
    auto writer = create_time_series(path, "exodus");
    writer->write_mesh(two_blocks());
    writer->write_step(step_of(0));
    TimeStep step = step_of(1);
    step.point_data = NamedList<NDArray>{};
    step.point_data.set("T", *step_of(1).point_data.find("T"));
    writer->write_step(step);
  });
  check("step 1: global variables (scalar field data) {} differs from step 0's {'energy'}", [&] {
    auto writer = create_time_series(path, "exodus");
    writer->write_mesh(two_blocks());
    writer->write_step(step_of(0));
    TimeStep step = step_of(1);
    step.field_data = NamedList<NDArray>{};
    writer->write_step(step);
  });
  check("step 1: point data 'U' has dtype float32", [&] {
    auto writer = create_time_series(path, "exodus");
    writer->write_mesh(two_blocks());
    writer->write_step(step_of(0));
    TimeStep step = step_of(1);
    step.point_data.set("U", step.point_data.find("U")->astype(DType::float32));
    writer->write_step(step);
  });
  check("write_points_cells() called twice", [&] {
    auto writer = create_time_series(path, "exodus");
    writer->write_mesh(two_blocks());
    writer->write_mesh(two_blocks());
  });
  check("close() before write_points_cells()", [&] { create_time_series(path, "exodus")->close(); });
  check("write_data() after close()", [&] {
    auto writer = create_time_series(path, "exodus");
    writer->write_mesh(two_blocks());
    writer->close();
    writer->write_step(step_of(0));
  });
}

}  // namespace
