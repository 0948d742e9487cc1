// VTKHDF: the corpus file VTK wrote (can.vtu converted, version 1.0), a round trip with mixed
// blocks and data, two partitions merged, and errors for ids outside a partition.
#include <gtest/gtest.h>

#include "formats/vtkhdf/vtkhdf.hpp"
#include "io/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

#define SKIP_WITHOUT_HDF5() \
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5 (install libhdf5-dev and rebuild)"

TEST(Vtkhdf, ReadsTheCorpusFileWithTheReferenceCounts) {
  SKIP_WITHOUT_CORPUS_FILE("vtkhdf/can-vtu.hdf");
  SKIP_WITHOUT_HDF5();
  const Mesh mesh = vtkhdf::read(corpus_file("vtkhdf/can-vtu.hdf"));
  EXPECT_EQ(mesh.points.rows(), 6724);
  EXPECT_EQ(mesh.num_cells(), 4800);
  EXPECT_NEAR(point_sum(mesh), -124696.858, 1e-2);
  EXPECT_EQ(mesh.point_data.find("VEL")->shape(), (Shape{6724, 3}));
  EXPECT_EQ(mesh.cell_data.find("EQPS")->front().rows(), 4800);
  EXPECT_TRUE(mesh.string_field_data.contains("Title"));
}

TEST(Vtkhdf, RoundTripsMixedBlocksAndData) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 1});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}});
  mesh.cells.push_back({"pyramid", int64_matrix(1, 5, {0, 1, 2, 3, 4}), {}, {}});
  mesh.point_data.set("T", array_of<float>({5}, {1, 2, 3, 4, 5}));
  mesh.cell_data.set("m", {array_of<std::int32_t>({2}, {1, 2}), array_of<std::int32_t>({1}, {3})});
  mesh.field_data.set("f", array_of<double>({2}, {0.5, 1.5}));
  const std::string path = dir.file("m.vtkhdf");
  vtkhdf::write(path, mesh, {});
  const Mesh back = vtkhdf::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_EQ(block_summary(back), "triangle:2;pyramid:1");
  EXPECT_EQ(nodes_of(back.cells[1]), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(same_bits(*back.point_data.find("T"), *mesh.point_data.find("T")));
  EXPECT_EQ(int_values((*back.cell_data.find("m"))[1]), (std::vector<std::int64_t>{3}));
  EXPECT_TRUE(same_bits(*back.field_data.find("f"), *mesh.field_data.find("f")));
}

namespace {

void write_partitioned(const std::string& path, std::int64_t bad_id) {
  io::hdf5::File file = io::hdf5::File::create(path, "test");
  file.create_group("/VTKHDF");
  file.set_attribute("/VTKHDF", "Version", std::vector<std::int64_t>{2, 0});
  file.set_fixed_string_attribute("/VTKHDF", "Type", "UnstructuredGrid");
  file.write("/VTKHDF/NumberOfPoints", int64_vector({3, 3}));
  file.write("/VTKHDF/NumberOfCells", int64_vector({1, 1}));
  file.write("/VTKHDF/NumberOfConnectivityIds", int64_vector({3, 3}));
  file.write("/VTKHDF/Points", array_of<double>({6, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 0, 0, 6, 0, 0, 5, 1, 0}));
  file.write("/VTKHDF/Types", array_of<std::uint8_t>({2}, {5, 5}));
  file.write("/VTKHDF/Offsets", int64_vector({0, 3, 0, 3}));
  file.write("/VTKHDF/Connectivity", int64_vector({0, 1, 2, 0, 1, bad_id}));
  file.commit();
}

}  // namespace

TEST(Vtkhdf, MergesPartitionsAndChecksTheirIds) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  write_partitioned(dir.file("parts.vtkhdf"), 2);
  const Mesh mesh = vtkhdf::read(dir.file("parts.vtkhdf"));
  EXPECT_EQ(mesh.points.rows(), 6);
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
  write_partitioned(dir.file("bad.vtkhdf"), 3);
  const ReadError error = expect_read_error([&] { vtkhdf::read(dir.file("bad.vtkhdf")); });
  EXPECT_NE(error.reason().find("/VTKHDF/Connectivity"), std::string::npos) << error.what();
}
