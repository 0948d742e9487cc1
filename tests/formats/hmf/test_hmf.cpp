// HMF (meshio's HDF5 layout): round trip with several blocks (Topology10 after Topology9),
// point and cell data, and the errors for foreign HDF5 files and bad indices.
#include <gtest/gtest.h>

#include "formats/hmf/hmf.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

TEST(Hmf, RoundTripsManyBlocksInOrder) {
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5 (install libhdf5-dev and rebuild)";
  ScratchDir dir;
  Mesh mesh;
  mesh.points = array_of<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0});
  std::vector<NDArray> ids;
  for (int b = 0; b < 12; ++b) {
    mesh.cells.push_back({b % 2 ? "line" : "triangle", b % 2 ? int64_matrix(1, 2, {0, b % 3}) : int64_matrix(1, 3, {0, 1, 2}), {}, {}});
    ids.push_back(array_of<std::int32_t>({1}, {b}));
  }
  mesh.cell_data.set("block", ids);
  mesh.point_data.set("T", array_of<float>({3}, {1, 2, 3}));
  const std::string path = dir.file("m.hmf");
  hmf::write(path, mesh, {});
  const Mesh back = hmf::read(path);
  ASSERT_EQ(back.cells.size(), 12u);
  for (int b = 0; b < 12; ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_EQ(int_values((*back.cell_data.find("block"))[b]), (std::vector<std::int64_t>{b}));
  }
  EXPECT_TRUE(same_bits(*back.point_data.find("T"), *mesh.point_data.find("T")));
}

TEST(Hmf, RejectsForeignFilesAndBadIndices) {
  if (!io::hdf5::available()) GTEST_SKIP() << "built without HDF5 (install libhdf5-dev and rebuild)";
  ScratchDir dir;
  {
    io::hdf5::File file = io::hdf5::File::create(dir.file("other.hmf"), "test");
    file.write("/x", array_of<double>({2}, {1, 2}));
    file.commit();
  }
  ReadError error = expect_read_error([&] { hmf::read(dir.file("other.hmf")); });
  EXPECT_NE(error.reason().find("not an HMF file"), std::string::npos);
  Mesh mesh;
  mesh.points = array_of<double>({2, 3}, {0, 0, 0, 1, 0, 0});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 1}), {}, {}});
  hmf::write(dir.file("ok.hmf"), mesh, {});
  {  // same layout, one index out of range
    io::hdf5::File file = io::hdf5::File::create(dir.file("bad.hmf"), "test");
    file.set_attribute("/", "type", std::string_view("hmf"));
    file.write("/domain/grid/Geometry", mesh.points);
    file.write("/domain/grid/Topology0", int64_matrix(1, 2, {0, 9}));
    file.set_attribute("/domain/grid/Topology0", "TopologyType", std::string_view("Polyline"));
    file.commit();
  }
  error = expect_read_error([&] { hmf::read(dir.file("bad.hmf")); });
  EXPECT_NE(error.reason().find("/domain/grid/Topology0"), std::string::npos) << error.what();
}
