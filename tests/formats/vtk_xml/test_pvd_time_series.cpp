// PVD through the time-series interface: a written series reads back step by step; the
// corpus animation opens lazily; bad steps are ReadErrors naming the file.
#include <gtest/gtest.h>

#include <filesystem>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

TEST(PvdTimeSeries, WrittenStepsReadBackOneByOne) {
  ScratchDir dir;
  mpp::Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  const std::string path = dir.file("series.pvd");
  {
    auto writer = mpp::create_time_series(path);
    writer->write_mesh(mesh);
    for (int k = 0; k < 3; ++k) {
      mpp::TimeStep step;
      step.time = 0.5 * k;
      step.point_data.set("phi", array_of<double>({4}, {1.0 * k, 2.0, 3.0, 4.0}));
      step.cell_data.set("a", {array_of<std::int32_t>({1}, {10 + k})});
      writer->write_step(step);
    }
    EXPECT_FALSE(std::filesystem::exists(path)) << "the collection appears only on close()";
    writer->close();
  }
  auto reader = mpp::open_time_series(path);
  ASSERT_EQ(3u, reader->num_steps());
  EXPECT_EQ(1.0, reader->time(2));
  const mpp::Mesh read = reader->read_mesh();
  EXPECT_EQ("tetra:1", block_summary(read));
  EXPECT_TRUE(read.point_data.empty());
  const mpp::TimeStep step = reader->read_step(2);
  EXPECT_EQ(1.0, step.time);
  EXPECT_EQ((std::vector<std::int64_t>{2, 2, 3, 4}), int_values(*step.point_data.find("phi")));
  EXPECT_EQ((std::vector<std::int64_t>{12}), int_values(step.cell_data.find("a")->front()));
  EXPECT_THROW(reader->read_step(3), mpp::ReadError);
}

TEST(PvdTimeSeries, CorpusAnimationOpensLazily) {
  SKIP_WITHOUT_CORPUS_FILE("pvd/singleSphereAnimation.pvd");
  auto reader = mpp::open_time_series(corpus_file("pvd/singleSphereAnimation.pvd"));
  ASSERT_EQ(11u, reader->num_steps());
  EXPECT_EQ(10.0, reader->time(10));
  EXPECT_EQ("triangle:104", block_summary(reader->read_mesh()));
  const mpp::TimeStep step = reader->read_step(7);
  ASSERT_NE(nullptr, step.point_data.find("Normals"));
  EXPECT_EQ(64, step.point_data.find("Normals")->rows());
}

}  // namespace
