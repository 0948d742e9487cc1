// The Gmsh time-series writer (create_time_series(path, "gmsh")): the mesh once, one data
// section per array and step (view name, time, step index), read back by open_time_series and
// gmsh::read in every MSH version and encoding; the file appears on close() only; bad use is a
// WriteError naming the file. Gmsh itself reads these files in tests/python/test_time_series_writers.py.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

mpp::Mesh two_blocks() {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {1, 4}), {}, {}});
  return mesh;
}

const std::vector<double> kTimes{0.0, 0.1234567891, 2.5};

mpp::TimeStep step_of(std::size_t k) {
  const double f = static_cast<double>(k) + 1;
  mpp::TimeStep step;
  step.time = kTimes[k];
  step.point_data.set("T", array_of<double>({5}, {0.5 * f, 1 * f, 2 * f, 3 * f, 4 * f}));
  step.point_data.set("V", array_of<double>({5, 2}, {f, -f, 2, 3, 4, 5, 6, 7, 8, 9 * f}));
  step.cell_data.set("p", std::vector<mpp::NDArray>{array_of<double>({2}, {10 * f, 20}), array_of<double>({1}, {-f})});
  return step;
}

mpp::WriteError expect_write_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const mpp::WriteError& error) {
    return error;
  }
  ADD_FAILURE() << "no WriteError";
  return mpp::WriteError("", "", "");
}

std::string write_series(const ScratchDir& dir, const std::string& name, const mpp::WriteOptions& options) {
  const std::string path = dir.file(name);
  auto writer = mpp::create_time_series(path, "gmsh", options);
  writer->write_mesh(two_blocks());
  for (std::size_t k = 0; k < kTimes.size(); ++k) writer->write_step(step_of(k));
  EXPECT_FALSE(std::filesystem::exists(path));  // only close() puts the file in place
  writer->close();
  return path;
}

void expect_steps(const std::string& path) {
  const auto reader = mpp::open_time_series(path, "gmsh");
  ASSERT_EQ(kTimes.size(), reader->num_steps());
  const mpp::Mesh mesh = reader->read_mesh();
  EXPECT_EQ("triangle:2;line:1", block_summary(mesh));
  EXPECT_TRUE(same_bits(two_blocks().points, mesh.points));
  for (std::size_t k = 0; k < kTimes.size(); ++k) {
    EXPECT_EQ(kTimes[k], reader->time(k));
    const mpp::TimeStep expected = step_of(k);
    const mpp::TimeStep step = reader->read_step(k);
    EXPECT_EQ(kTimes[k], step.time);
    ASSERT_EQ(2u, step.point_data.size());
    EXPECT_TRUE(same_bits(*expected.point_data.find("T"), *step.point_data.find("T"))) << path << " step " << k;
    EXPECT_TRUE(same_bits(*expected.point_data.find("V"), *step.point_data.find("V"))) << path << " step " << k;
    ASSERT_NE(nullptr, step.cell_data.find("p"));
    ASSERT_EQ(2u, step.cell_data.find("p")->size());
    for (std::size_t b = 0; b < 2; ++b)
      EXPECT_TRUE(same_bits((*expected.cell_data.find("p"))[b], (*step.cell_data.find("p"))[b])) << path << " step " << k;
  }
}

TEST(GmshTimeSeriesWriter, EveryVersionAndEncodingReadsBack) {
  ScratchDir dir;
  for (const char* version : {"4.1", "4.0", "2.2"})
    for (const char* binary : {"true", "false"}) {
      mpp::WriteOptions options;
      options.set("fmt_version", version);
      options.set("binary", binary);
      expect_steps(write_series(dir, std::string("steps-") + version + "-" + binary + ".msh", options));
    }
}

TEST(GmshTimeSeriesWriter, PlainReadNamesEveryStep) {
  ScratchDir dir;
  const mpp::Mesh mesh = mpp::read(write_series(dir, "steps.msh", {}));
  EXPECT_TRUE(same_bits(*step_of(0).point_data.find("T"), *mesh.point_data.find("T[step 0]")));
  EXPECT_TRUE(same_bits(*step_of(1).point_data.find("T"), *mesh.point_data.find("T[step 1, time 0.1234567891]")));
  EXPECT_TRUE(same_bits(*step_of(2).point_data.find("T"), *mesh.point_data.find("T[step 2, time 2.5]")));
}

TEST(GmshTimeSeriesWriter, SectionHeaders) {
  ScratchDir dir;
  mpp::WriteOptions options;
  options.set("binary", "false");
  const std::string text = read_file(write_series(dir, "ascii.msh", options));
  // View name, time, then step index, components, records, partition.
  EXPECT_NE(text.find("$NodeData\n1\n\"T\"\n1\n0.1234567891\n4\n1\n1\n5\n0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("$NodeData\n1\n\"V\"\n1\n2.5\n4\n2\n2\n5\n0\n"), std::string::npos);
  EXPECT_NE(text.find("$ElementData\n1\n\"p\"\n1\n0\n4\n0\n1\n3\n0\n"), std::string::npos);
  EXPECT_EQ(text.find("$Nodes"), text.rfind("$Nodes"));  // the mesh once
}

TEST(GmshTimeSeriesWriter, BadUseIsAWriteErrorNamingTheFile) {
  ScratchDir dir;
  const std::string path = dir.file("bad.msh");
  {
    auto writer = mpp::create_time_series(path, "gmsh");
    mpp::WriteError error = expect_write_error([&] { writer->write_step(step_of(0)); });
    EXPECT_EQ(path, error.path());
    EXPECT_NE(std::string(error.what()).find("write_data() before write_points_cells()"), std::string::npos) << error.what();

    writer->write_mesh(two_blocks());
    mpp::TimeStep wrong = step_of(0);
    wrong.cell_data.set("p", std::vector<mpp::NDArray>{array_of<double>({2}, {1, 2})});
    error = expect_write_error([&] { writer->write_step(wrong); });
    EXPECT_EQ(path, error.path());
    EXPECT_NE(std::string(error.what()).find("cell data 'p' has 1 arrays for 2 cell blocks"), std::string::npos) << error.what();

    wrong = step_of(0);
    wrong.point_data.set("T", array_of<double>({4}, {1, 2, 3, 4}));
    error = expect_write_error([&] { writer->write_step(wrong); });
    EXPECT_NE(std::string(error.what()).find("point data 'T'"), std::string::npos) << error.what();
    EXPECT_THROW(writer->write_mesh(two_blocks()), mpp::WriteError);  // one mesh per file
    // Destroyed without close(): no file.
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  mpp::WriteOptions bad;
  bad.set("fmt_version", "3.0");
  EXPECT_EQ(path, expect_write_error([&] { mpp::create_time_series(path, "gmsh", bad); }).path());
  mpp::WriteOptions unknown;
  unknown.set("compression", "gzip");
  EXPECT_THROW(mpp::create_time_series(path, "gmsh", unknown), mpp::WriteError);
  auto writer = mpp::create_time_series(path, "gmsh");
  mpp::Mesh polygons = two_blocks();
  polygons.cells[1].type = "polygon";
  EXPECT_EQ(path, expect_write_error([&] { writer->write_mesh(polygons); }).path());
}

}  // namespace
