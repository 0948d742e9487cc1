// FEBio .xplt: plot files written by FEBio 3.7 and 4.7 (febio-python's samples), every state
// as a step (a step reads only its own chunk), and hostile input (ReadError with the offset).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/xplt/xplt.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "xplt" / name).string(); }

double sum_of(const NDArray& array) {
  double sum = 0.0;
  for (float v : array.values<float>()) sum += v;
  return sum;
}

// Offset of the first chunk with `tag` at or after `from`.
std::size_t find_tag(const std::string& bytes, std::uint32_t tag, std::size_t from = 0) {
  const std::string needle(reinterpret_cast<const char*>(&tag), 4);
  return bytes.find(needle, from);
}

}  // namespace

TEST(Xplt, ReadsAnFebio4PlotFile) {
  const Mesh mesh = read(data_file("sample2d_v4.xplt"));
  ASSERT_EQ(mesh.num_points(), 133);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 216);
  std::int64_t node_sum = 0;
  for (std::int64_t n : nodes_of(mesh.cells[0])) node_sum += n;
  EXPECT_EQ(node_sum, 42768);
  EXPECT_NEAR(point_sum(mesh), 266.0000003874302, 1e-9);
  ASSERT_NE(mesh.point_data.find("displacement"), nullptr);
  EXPECT_EQ(mesh.point_data.find("displacement")->shape(), (Shape{133, 3}));
  ASSERT_NE(mesh.cell_data.find("stress"), nullptr);
  EXPECT_EQ((*mesh.cell_data.find("stress"))[0].shape(), (Shape{216, 6}));  // MAT3FS
  EXPECT_EQ((*mesh.cell_data.find("element strain energy"))[0].shape(), (Shape{216}));
  const Region* part = find_region(mesh, "Part1", RegionKind::Cell);
  ASSERT_NE(part, nullptr);
  EXPECT_EQ(part->entries.size(), 216u);
  const Region* left = find_region(mesh, "LEFT_NODES", RegionKind::Point);
  ASSERT_NE(left, nullptr);
  EXPECT_EQ(left->entries.size(), 7u);
  EXPECT_EQ(format_for_path("run.xplt")->name, "xplt");
}

TEST(Xplt, StatesAreSteps) {
  auto series = open_time_series(data_file("sample_cfd.xplt"));
  ASSERT_EQ(series->num_steps(), 11u);
  EXPECT_FLOAT_EQ(static_cast<float>(series->time(1)), 0.1f);
  const TimeStep last = series->read_step(10);
  EXPECT_FLOAT_EQ(static_cast<float>(last.time), 1.0f);
  const Mesh mesh = series->read_mesh();
  EXPECT_EQ(mesh.num_points(), 27);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "hexahedron");
  ASSERT_NE(last.point_data.find("fluid dilatation"), nullptr);
  EXPECT_NEAR(sum_of(*last.point_data.find("fluid dilatation")), -0.0116286093252711, 1e-9);
  EXPECT_NEAR(sum_of(*last.point_data.find("nodal fluid velocity")), 0.013498217216692851, 1e-9);
  ASSERT_NE(last.cell_data.find("fluid pressure"), nullptr);
  EXPECT_NEAR(sum_of((*last.cell_data.find("fluid pressure"))[0]), 4145875.9375, 1e-3);
  EXPECT_NEAR(sum_of((*last.cell_data.find("fluid volume ratio"))[0]), 7.998115539550781, 1e-6);
}

TEST(Xplt, AStepReadsOnlyItsState) {
  // Break the first state's first variable id: state 0 fails, the last state still reads.
  std::string bytes = read_file(data_file("sample_cfd.xplt"));
  const std::size_t state = find_tag(bytes, 0x02000000, 600);
  ASSERT_NE(state, std::string::npos);
  const std::size_t var_id = find_tag(bytes, 0x02020002, state);
  ASSERT_NE(var_id, std::string::npos);
  const std::uint32_t bad = 999;
  std::memcpy(bytes.data() + var_id + 8, &bad, 4);
  auto series = open_time_series(write_scratch("broken.xplt", bytes));
  EXPECT_EQ(series->num_steps(), 11u);
  EXPECT_NO_THROW(series->read_step(10));
  try {
    series->read_step(0);
    FAIL() << "a variable id outside the dictionary was accepted";
  } catch (const ReadError& error) {
    EXPECT_TRUE(error.byte_offset().has_value());
    EXPECT_NE(std::string(error.what()).find("dictionary"), std::string::npos);
  }
}

TEST(Xplt, HostileInputIsAReadError) {
  const std::string good = read_file(data_file("sample2d_v4.xplt"));
  for (std::size_t size = 0; size < good.size(); size += 97) {
    std::string cut = good.substr(0, size);
    try {
      read(write_scratch("cut.xplt", cut));
    } catch (const ReadError&) {
    }
  }
  // Truncated inside the mesh: an error naming the place.
  try {
    read(write_scratch("short.xplt", good.substr(0, 2000)));
    FAIL();
  } catch (const ReadError& error) {
    EXPECT_TRUE(error.byte_offset().has_value());
  }
  // An element naming a node past the end.
  std::string bad_node = good;
  const std::size_t element = find_tag(bad_node, 0x01042201);
  ASSERT_NE(element, std::string::npos);
  const std::int32_t far = 100000;
  std::memcpy(bad_node.data() + element + 12, &far, 4);
  EXPECT_THROW(read(write_scratch("node.xplt", bad_node)), ReadError);
  // A chunk claiming more bytes than its parent holds.
  std::string long_chunk = good;
  const std::uint32_t huge = 0x7fffffff;
  std::memcpy(long_chunk.data() + find_tag(long_chunk, 0x01040000) + 4, &huge, 4);
  EXPECT_THROW(read(write_scratch("long.xplt", long_chunk)), ReadError);
  EXPECT_THROW(read(write_scratch("text.xplt", "not a plot file")), ReadError);
}
