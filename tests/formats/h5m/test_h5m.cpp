// H5M (MOAB): round trip with vector tags (HDF5 array elements) and element tags, node ids
// offset by start_id, and the errors for ids outside the nodes and unknown element groups.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "formats/h5m/h5m.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"
#include "support/hdf5_skip.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

TEST(H5m, RoundTripsTagsAndBlocks) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}});
  mesh.point_data.set("v", array_of<double>({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  mesh.cell_data.set("m", {array_of<std::int32_t>({1}, {7}), array_of<std::int32_t>({2}, {8, 9})});
  const std::string path = dir.file("m.h5m");
  h5m::write(path, mesh, {});
  const Mesh back = h5m::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_TRUE(same_bits(*back.point_data.find("v"), *mesh.point_data.find("v")));
  EXPECT_EQ(int_values(*back.point_data.find("GLOBAL_ID")), (std::vector<std::int64_t>{1, 2, 3, 4}));
  ASSERT_EQ(back.cells.size(), 2u);  // groups come back in name order: Tet4, Tri3
  EXPECT_EQ(back.cells[0].type, "tetra");
  EXPECT_EQ(nodes_of(back.cells[1]), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(int_values((*back.cell_data.find("m"))[1]), (std::vector<std::int64_t>{8, 9}));
}

TEST(H5m, NodeIdsAreCheckedAgainstStartId) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  for (const std::int64_t bad_id : {0, 14}) {
    const std::string path = dir.file("ids" + std::to_string(bad_id) + ".h5m");
    {
      io::hdf5::File file = io::hdf5::File::create(path, "test");
      file.write("/tstt/nodes/coordinates", array_of<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
      file.set_attribute("/tstt/nodes/coordinates", "start_id", std::int64_t{11});
      file.write("/tstt/elements/Tri3/connectivity", int64_matrix(1, 3, {11, 12, bad_id}));
      file.commit();
    }
    const ReadError error = expect_read_error([&] { h5m::read(path); });
    EXPECT_NE(error.reason().find("/tstt/elements/Tri3/connectivity"), std::string::npos) << error.what();
  }
  const std::string good = dir.file("good.h5m");
  {
    io::hdf5::File file = io::hdf5::File::create(good, "test");
    file.write("/tstt/nodes/coordinates", array_of<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
    file.set_attribute("/tstt/nodes/coordinates", "start_id", std::int64_t{11});
    file.write("/tstt/elements/Tri3/connectivity", int64_matrix(1, 3, {11, 12, 13}));
    file.commit();
  }
  EXPECT_EQ(nodes_of(h5m::read(good).cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
}

// Fuzz finding (thirteenth session): a start_id or a node id at the int64 limits overflowed
// `id - start_id` (and the message's last id) before the range check. Each is a ReadError
// naming the dataset, without signed overflow (the sanitizer lane runs this test under UBSan).
TEST(H5m, IdsAtTheInt64LimitsAreReadErrorsWithoutOverflow) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  struct Case {
    std::int64_t start_id;
    std::int64_t bad_id;
    const char* object;
  };
  const Case cases[] = {
      {kMin, 1, "/tstt/nodes/coordinates"},           // start_id negative
      {kMax, kMax, "/tstt/nodes/coordinates"},        // the last node's id past INT64_MAX
      {kMax - 1, kMax, "/tstt/nodes/coordinates"},    // one past: 3 nodes need start_id <= MAX - 2
      {11, kMin, "/tstt/elements/Tri3/connectivity"}, // id - start_id below INT64_MIN
      {0, kMin, "/tstt/elements/Tri3/connectivity"},
      {11, kMax, "/tstt/elements/Tri3/connectivity"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string path = dir.file("limits" + std::to_string(n++) + ".h5m");
    {
      io::hdf5::File file = io::hdf5::File::create(path, "test");
      file.write("/tstt/nodes/coordinates", array_of<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
      file.set_attribute("/tstt/nodes/coordinates", "start_id", c.start_id);
      file.write("/tstt/elements/Tri3/connectivity", int64_matrix(1, 3, {c.start_id, c.start_id, c.bad_id}));
      file.commit();
    }
    const ReadError error = expect_read_error([&] { h5m::read(path); });
    EXPECT_NE(error.reason().find(c.object), std::string::npos) << error.what();
  }
  // The largest start_id that still numbers 3 nodes reads (the last node's id is INT64_MAX).
  const std::string edge = dir.file("edge.h5m");
  {
    io::hdf5::File file = io::hdf5::File::create(edge, "test");
    file.write("/tstt/nodes/coordinates", array_of<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
    file.set_attribute("/tstt/nodes/coordinates", "start_id", kMax - 2);
    file.write("/tstt/elements/Tri3/connectivity", int64_matrix(1, 3, {kMax - 2, kMax - 1, kMax}));
    file.commit();
  }
  EXPECT_EQ(nodes_of(h5m::read(edge).cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
}

// Fuzz findings kept in tests/data/fuzz-regressions/h5m: their start_id attribute's integer
// type has bit fields past its size (offset + precision > 64). libhdf5 1.10 converts such a
// type by reading past its buffer (a SEGV in H5T__bit_find under ASan, depending on layout;
// later HDF5 releases refuse the type when opening it); io/hdf5 refuses it before reading.
TEST(H5m, AnAttributeWithACorruptIntegerTypeIsAReadErrorNamingIt) {
  SKIP_WITHOUT_HDF5();
  for (const char* name : {"start-id-int64-max.bin", "start-id-int64-min.bin"}) {
    const std::string path = (meshioplusplus::testing::test_data_dir() / "fuzz-regressions" / "h5m" / name).string();
    const ReadError error = expect_read_error([&] { h5m::read(path); });
    EXPECT_NE(error.reason().find("attribute 'start_id' has a corrupt number type"), std::string::npos) << error.what();
    EXPECT_NE(error.reason().find("/tstt/nodes/coordinates"), std::string::npos) << error.what();
  }
}
