// File sequences (include/meshioplusplus/file_sequence.hpp): the names (number fields, globs,
// natural order), finding a sequence in a folder or an index, reading one file per step with
// a mesh that changes, writing with a .series/.pvd index, and the errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "formats/file_sequence/file_sequence_internal.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/file_sequence.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
namespace seq = meshioplusplus::file_sequence;
namespace fs = std::filesystem;
using namespace meshioplusplus::testing_support;

namespace {

// n triangles in a strip: the mesh grows with the step, as an adaptive run's does.
mpp::Mesh strip(int n, double value) {
  mpp::Mesh mesh;
  std::vector<double> points;
  for (int k = 0; k < n + 2; ++k) points.insert(points.end(), {double(k / 2), double(k % 2), 0.0});
  mesh.points = array_of<double>({n + 2, 3}, points);
  std::vector<std::int64_t> cells;
  for (int k = 0; k < n; ++k) cells.insert(cells.end(), {k, k + 1, k + 2});
  mesh.cells.push_back({"triangle", int64_matrix(n, 3, cells), {}, {}});
  std::vector<double> phi(n + 2, value);
  mesh.point_data.set("phi", array_of<double>({n + 2}, phi));
  std::vector<double> c(n, 10 * value);
  mesh.cell_data.set("c", {array_of<double>({n}, c)});
  return mesh;
}

struct Folder {
  fs::path path = fs::temp_directory_path() / ("mpp_sequence_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Folder() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

void touch(const std::string& path) { std::ofstream(path) << "x"; }

}  // namespace

TEST(FileSequenceNames, NumberFields) {
  std::string problem;
  auto field = seq::parse_number_field("out_%04d.vtu", &problem);
  ASSERT_TRUE(field);
  EXPECT_EQ(field->prefix, "out_");
  EXPECT_EQ(field->suffix, ".vtu");
  EXPECT_EQ(field->width, 4);
  EXPECT_EQ(seq::format_number(*field, 7), "out_0007.vtu");
  EXPECT_EQ(seq::format_number(*field, 123456), "out_123456.vtu");
  field = seq::parse_number_field("step{:03d}.vtk", &problem);
  ASSERT_TRUE(field);
  EXPECT_EQ(seq::format_number(*field, 5), "step005.vtk");
  field = seq::parse_number_field("a{}b", &problem);
  ASSERT_TRUE(field);
  EXPECT_EQ(seq::format_number(*field, 12), "a12b");
  EXPECT_FALSE(seq::parse_number_field("plain.vtu", &problem));
  EXPECT_TRUE(problem.empty());
  EXPECT_FALSE(seq::parse_number_field("a%d_%d.vtu", &problem));
  EXPECT_NE(problem.find("two"), std::string::npos);
}

TEST(FileSequenceNames, GlobCapturesWhatTheWildcardsMatch) {
  EXPECT_EQ(seq::match_glob("out_*.vtu", "out_0012.vtu"), "0012");
  EXPECT_EQ(seq::match_glob("out_*.vtu", "out_.vtu"), "");
  EXPECT_FALSE(seq::match_glob("out_*.vtu", "out_1.vtk"));
  EXPECT_EQ(seq::match_glob("s?_*.vtk", "s1_2.5.vtk"), "12.5");
  EXPECT_EQ(seq::match_glob("*.vtu", "a.b.vtu"), "a.b");  // backtracks past the first '.'
  EXPECT_FALSE(seq::match_glob("a?c", "ac"));
  EXPECT_EQ(seq::parse_number("0.25"), 0.25);
  EXPECT_FALSE(seq::parse_number("1e"));
  EXPECT_TRUE(seq::natural_less("out_2", "out_10"));
  EXPECT_TRUE(seq::natural_less("out_009", "out_10"));
  EXPECT_FALSE(seq::natural_less("out_10", "out_10"));
  EXPECT_TRUE(seq::natural_less("a", "b"));
}

TEST(FileSequence, GlobInNaturalOrderWithTimesFromTheNames) {
  Folder folder;
  for (const char* name : {"out_10.vtu", "out_2.vtu", "out_1.vtu", "other_3.vtu"}) touch(folder / name);
  const mpp::FileSequence sequence = mpp::find_file_sequence(folder / "out_*.vtu");
  ASSERT_EQ(sequence.files.size(), 3u);
  EXPECT_EQ(fs::path(sequence.files[0]).filename(), "out_1.vtu");
  EXPECT_EQ(fs::path(sequence.files[2]).filename(), "out_10.vtu");
  EXPECT_EQ(sequence.times, (std::vector<double>{1, 2, 10}));
  // Names whose wildcard part is no number: the steps are counted.
  touch(folder / "run_a.vtu");
  touch(folder / "run_b.vtu");
  EXPECT_EQ(mpp::find_file_sequence(folder / "run_*.vtu").times, (std::vector<double>{0, 1}));
}

TEST(FileSequence, NumberFieldMatchesOnlyItsOwnNames) {
  Folder folder;
  for (const char* name : {"s_0000.vtk", "s_0001.vtk", "s_0010.vtk", "s_01.vtk", "s_00001.vtk", "s_12345.vtk"})
    touch(folder / name);
  const mpp::FileSequence sequence = mpp::find_file_sequence(folder / "s_%04d.vtk");
  std::vector<std::string> names;
  for (const std::string& file : sequence.files) names.push_back(fs::path(file).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"s_0000.vtk", "s_0001.vtk", "s_0010.vtk", "s_12345.vtk"}));
  EXPECT_EQ(sequence.times, (std::vector<double>{0, 1, 10, 12345}));
}

TEST(FileSequence, WriteThenReadAMeshThatChanges) {
  Folder folder;
  {
    auto writer = mpp::create_file_sequence(folder / "step_{:03d}.vtu", {}, {}, folder / "run.vtu.series");
    for (int k = 0; k < 3; ++k) {
      writer->write_mesh(strip(k + 1, k));
      mpp::TimeStep step;
      step.time = 0.5 * k;
      const mpp::Mesh data = strip(k + 1, k);
      step.point_data = data.point_data;
      step.cell_data = data.cell_data;
      writer->write_step(step);
    }
    writer->close();
  }
  EXPECT_TRUE(fs::exists(folder / "step_002.vtu"));
  for (const std::string& source : {folder / "run.vtu.series", folder / "step_*.vtu", folder / "step_%03d.vtu"}) {
    SCOPED_TRACE(source);
    const mpp::FileSequence found = mpp::find_file_sequence(source);
    ASSERT_EQ(found.files.size(), 3u);
    auto reader = mpp::open_file_sequence(found);
    ASSERT_EQ(reader->num_steps(), 3u);
    if (source.ends_with(".series")) EXPECT_EQ(reader->time(2), 1.0);  // the index's times
    else EXPECT_EQ(reader->time(2), 2.0);                              // the names' numbers
    EXPECT_EQ(reader->read_mesh().cells[0].num_cells(), 1);
    const mpp::TimeStep step = reader->read_step(2);
    EXPECT_EQ(step.point_data.find("phi")->shape()[0], 5);
    EXPECT_EQ(step.cell_data.find("c")->at(0).data_as<double>()[2], 20.0);
    EXPECT_EQ(reader->read_mesh().cells[0].num_cells(), 3);  // the mesh of the step read last
  }
  // open_time_series takes the .series index too.
  EXPECT_EQ(mpp::open_time_series(folder / "run.vtu.series")->num_steps(), 3u);
}

TEST(FileSequence, PvdIndexForVtkXmlFiles) {
  Folder folder;
  auto writer = mpp::create_file_sequence(folder / "f_%d.vtu", "vtu", {}, folder / "f.pvd", 1);
  writer->write_mesh(strip(2, 0));
  for (double t : {0.1, 0.2}) {
    mpp::TimeStep step;
    step.time = t;
    writer->write_step(step);
  }
  writer->close();
  const mpp::FileSequence found = mpp::find_file_sequence(folder / "f.pvd");
  ASSERT_EQ(found.files.size(), 2u);
  EXPECT_EQ(fs::path(found.files[0]).filename(), "f_1.vtu");
  EXPECT_EQ(found.times, (std::vector<double>{0.1, 0.2}));
}

TEST(FileSequence, Errors) {
  Folder folder;
  EXPECT_THROW(mpp::find_file_sequence(folder / "none_*.vtu"), mpp::ReadError);
  EXPECT_THROW(mpp::find_file_sequence(folder / "plain.vtu"), mpp::ReadError);
  EXPECT_THROW(mpp::find_file_sequence(folder / "dir*/a_*.vtu"), mpp::ReadError);
  std::ofstream(folder / "bad.series") << R"({"file-series-version": "1.0", "files": [{"name": "a.vtu"}]})";
  try {
    mpp::find_file_sequence(folder / "bad.series");
    FAIL() << "no error";
  } catch (const mpp::ReadError& error) {
    EXPECT_NE(std::string(error.what()).find("time"), std::string::npos) << error.what();
  }
  std::ofstream(folder / "broken.series") << R"({"files": [)";
  EXPECT_THROW(mpp::find_file_sequence(folder / "broken.series"), mpp::ReadError);
  EXPECT_THROW(mpp::create_file_sequence(folder / "plain.vtu"), mpp::WriteError);
  EXPECT_THROW(mpp::create_file_sequence(folder / "a_%d.vtu", {}, {}, folder / "index.txt"), mpp::WriteError);
  mpp::WriteOptions unknown;
  unknown.set("no_such_option", "1");
  EXPECT_THROW(mpp::create_file_sequence(folder / "a_%d.vtu", {}, unknown), mpp::WriteError);
  auto writer = mpp::create_file_sequence(folder / "a_%d.vtu");
  EXPECT_THROW(writer->write_step(mpp::TimeStep{}), mpp::WriteError);  // before write_mesh
  // A reader over files that are gone names the file.
  auto reader = mpp::open_file_sequence({{folder / "gone_0.vtu"}, {0.0}});
  EXPECT_THROW(reader->read_step(0), mpp::ReadError);
  EXPECT_THROW(reader->read_step(1), mpp::ReadError);
}
