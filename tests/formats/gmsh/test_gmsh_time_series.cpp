// Gmsh views with several time steps behind the time-series interface (open_time_series):
// steps by time-step index, their times from the real tags, each step's arrays under the view
// name, the mesh without view data. Cross-checked with Gmsh itself in test_gmsh_time_series.py.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// Two views: "T" (nodes) at steps 0, 1, 2 with times 0.5, 1.25, 3; "S" (elements, 2
// components) at steps 0 and 2 only; "static" one section at step 0, time 0.
const char* const kSteps = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
$EndNodes
$Elements
2
1 2 2 0 1 1 2 3
2 2 2 0 1 1 3 4
$EndElements
$NodeData
1
"T"
1
0.5
3
0
1
4
1 10
2 11
3 12
4 13
$EndNodeData
$ElementData
1
"S"
1
0.5
3
0
2
2
1 1 2
2 3 4
$EndElementData
$NodeData
1
"T"
1
1.25
3
1
1
4
1 20
2 21
3 22
4 23
$EndNodeData
$NodeData
1
"T"
1
3
3
2
1
4
1 30
2 31
3 32
4 33
$EndNodeData
$ElementData
1
"S"
1
3
3
2
2
2
1 5 6
2 7 8
$EndElementData
$NodeData
1
"static"
1
0
3
0
1
4
1 -1
2 -2
3 -3
4 -4
$EndNodeData
)";

std::vector<double> doubles(const mpp::NDArray& array) {
  const auto values = array.values<double>();
  return {values.begin(), values.end()};
}

TEST(GmshTimeSeries, StepsTimesAndArraysByView) {
  ScratchDir dir;
  const std::string path = dir.write("steps.msh", kSteps);
  const auto reader = mpp::open_time_series(path);
  ASSERT_EQ(3u, reader->num_steps());
  EXPECT_EQ(0.5, reader->time(0));
  EXPECT_EQ(1.25, reader->time(1));
  EXPECT_EQ(3.0, reader->time(2));

  const mpp::Mesh mesh = reader->read_mesh();
  EXPECT_EQ(4, mesh.num_points());
  EXPECT_EQ("triangle:2", block_summary(mesh));
  for (const auto& [name, array] : mesh.point_data) EXPECT_EQ(0u, name.rfind("gmsh:", 0)) << name;
  for (const auto& [name, arrays] : mesh.cell_data) EXPECT_EQ(0u, name.rfind("gmsh:", 0)) << name;

  const mpp::TimeStep first = reader->read_step(0);
  EXPECT_EQ(0.5, first.time);
  EXPECT_EQ((std::vector<double>{10, 11, 12, 13}), doubles(*first.point_data.find("T")));
  EXPECT_EQ((std::vector<double>{-1, -2, -3, -4}), doubles(*first.point_data.find("static")));
  ASSERT_NE(nullptr, first.cell_data.find("S"));
  ASSERT_EQ(1u, first.cell_data.find("S")->size());
  EXPECT_EQ((mpp::Shape{2, 2}), (*first.cell_data.find("S"))[0].shape());
  EXPECT_EQ((std::vector<double>{1, 2, 3, 4}), doubles((*first.cell_data.find("S"))[0]));

  const mpp::TimeStep second = reader->read_step(1);
  EXPECT_EQ(1.25, second.time);
  EXPECT_EQ((std::vector<double>{20, 21, 22, 23}), doubles(*second.point_data.find("T")));
  EXPECT_EQ(1u, second.point_data.size());  // neither "static" nor "S" has step 1
  EXPECT_TRUE(second.cell_data.empty());

  const mpp::TimeStep third = reader->read_step(2);
  EXPECT_EQ(3.0, third.time);
  EXPECT_EQ((std::vector<double>{30, 31, 32, 33}), doubles(*third.point_data.find("T")));
  EXPECT_EQ((std::vector<double>{5, 6, 7, 8}), doubles((*third.cell_data.find("S"))[0]));

  const mpp::ReadError error = expect_read_error([&] { reader->read_step(3); });
  EXPECT_EQ(path, error.path());
  EXPECT_NE(std::string(error.what()).find("step 3 out of range (3 steps)"), std::string::npos) << error.what();
}

TEST(GmshTimeSeries, AgreesWithThePlainRead) {
  ScratchDir dir;
  const std::string path = dir.write("steps.msh", kSteps);
  const mpp::Mesh plain = mpp::read(path);
  const auto reader = mpp::open_time_series(path, "gmsh");
  EXPECT_TRUE(same_bits(*plain.point_data.find("T[step 1, time 1.25]"), *reader->read_step(1).point_data.find("T")));
  EXPECT_TRUE(same_bits(*plain.point_data.find("T[step 2, time 3]"), *reader->read_step(2).point_data.find("T")));
}

TEST(GmshTimeSeries, StepLessFileHasNoSteps) {
  ScratchDir dir;
  const std::string text = kSteps;
  const std::string path = dir.write("plain.msh", text.substr(0, text.find("$NodeData")));
  const auto reader = mpp::open_time_series(path);
  EXPECT_EQ(0u, reader->num_steps());
  EXPECT_EQ(4, reader->read_mesh().num_points());
  EXPECT_THROW(reader->time(0), mpp::ReadError);
  EXPECT_THROW(mpp::open_time_series(dir.write("bad.msh", "$MeshFormat\n9 0 8\n")), mpp::ReadError);
}

}  // namespace
