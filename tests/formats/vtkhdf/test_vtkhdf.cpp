// VTKHDF: the corpus file VTK wrote (can.vtu converted, version 1.0), a round trip with mixed
// blocks and data, two partitions merged, and errors for ids outside a partition.
#include <gtest/gtest.h>

#include <filesystem>

#include "formats/vtkhdf/vtkhdf.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"
#include "support/hdf5_skip.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

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

// ---- Steps (temporal files) and partition ranges ------------------------------------------

namespace {

Mesh two_triangles(double shift) {
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0 + shift, 0, 0, 1 + shift, 0, 0, 1 + shift, 1, 0, 0 + shift, 1, 0});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}});
  return mesh;
}

TimeStep step_at(double time) {
  TimeStep step;
  step.time = time;
  step.point_data.set("T", array_of<double>({4}, {time, time + 1, time + 2, time + 3}));
  step.cell_data.set("c", {array_of<std::int32_t>({2}, {static_cast<std::int32_t>(10 * time), 7})});
  return step;
}

}  // namespace

TEST(Vtkhdf, TimeSeriesOfAStaticMeshRoundTrips) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("steps.vtkhdf");
  {
    auto writer = vtkhdf::create_time_series(path, {});
    writer->write_mesh(two_triangles(0));
    for (double t : {0.0, 0.5, 2.0}) writer->write_step(step_at(t));
    writer->close();
  }
  auto reader = vtkhdf::open_time_series(path);
  ASSERT_EQ(reader->num_steps(), 3u);
  EXPECT_EQ(reader->time(2), 2.0);
  const Mesh mesh = reader->read_mesh();
  EXPECT_TRUE(same_bits(mesh.points, two_triangles(0).points));
  const TimeStep step = reader->read_step(1);
  EXPECT_EQ(step.time, 0.5);
  EXPECT_TRUE(same_bits(*step.point_data.find("T"), *step_at(0.5).point_data.find("T")));
  EXPECT_EQ(int_values((*step.cell_data.find("c"))[0]), (std::vector<std::int64_t>{5, 7}));
  EXPECT_THROW(reader->read_step(3), ReadError);
  // a plain read gives the first step with its data
  const Mesh first = vtkhdf::read(path);
  EXPECT_TRUE(same_bits(*first.point_data.find("T"), *step_at(0).point_data.find("T")));
  EXPECT_EQ(vtkhdf::num_steps(path), 3);
}

TEST(Vtkhdf, TimeSeriesWithAMeshThatChanges) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("moving.vtkhdf");
  {
    auto writer = vtkhdf::create_time_series(path, {});
    writer->write_mesh(two_triangles(0));
    writer->write_step(step_at(0));
    writer->write_mesh(two_triangles(5));
    writer->write_step(step_at(1));
    writer->write_step(step_at(2));
    writer->close();
  }
  auto reader = vtkhdf::open_time_series(path);
  ASSERT_EQ(reader->num_steps(), 3u);
  EXPECT_EQ(reader->read_mesh().points.data_as<double>()[0], 0.0);
  const TimeStep step = reader->read_step(2);
  EXPECT_TRUE(same_bits(*step.point_data.find("T"), *step_at(2).point_data.find("T")));
  EXPECT_EQ(reader->read_mesh().points.data_as<double>()[0], 5.0);
  const Mesh second = vtkhdf::read(path, {1, 0, -1});
  EXPECT_EQ(second.points.data_as<double>()[0], 5.0);
  EXPECT_TRUE(same_bits(*second.point_data.find("T"), *step_at(1).point_data.find("T")));
}

// Two geometries large enough that the Types and Offsets datasets are written in several
// blocks (File::write_generated), a block boundary inside the first geometry and the join of
// the two inside a block: each step reads back its own cells, and the Offsets dataset holds
// each geometry's leading 0.
TEST(Vtkhdf, LargeChangingMeshesStreamTheirTypesAndOffsets) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("large_moving.vtkhdf");
  auto ids = [](std::int64_t rows, std::int64_t cols, std::int64_t points) {
    NDArray array = NDArray::allocate(DType::int64, {rows, cols});
    for (std::int64_t i = 0; i < rows * cols; ++i) array.data_as<std::int64_t>()[i] = (i * 7) % points;
    return array;
  };
  const std::int64_t points = 1000;
  Mesh first, second;
  first.points = NDArray::zeros(DType::float64, {points, 3});
  second.points = NDArray::zeros(DType::float64, {points, 3});
  first.cells.push_back({"triangle", ids(200000, 3, points), {}, {}});
  first.cells.push_back({"quad", ids(100000, 4, points), {}, {}});
  second.cells.push_back({"tetra", ids(150000, 4, points), {}, {}});
  {
    auto writer = vtkhdf::create_time_series(path, {});
    TimeStep step;
    writer->write_mesh(first);
    step.time = 0;
    writer->write_step(step);
    writer->write_mesh(second);
    step.time = 1;
    writer->write_step(step);
    writer->close();
  }
  const Mesh first_back = vtkhdf::read(path, {0, 0, -1});
  const Mesh second_back = vtkhdf::read(path, {1, 0, -1});
  EXPECT_EQ(block_summary(first_back), "triangle:200000;quad:100000");
  EXPECT_EQ(block_summary(second_back), "tetra:150000");
  EXPECT_EQ(nodes_of(first_back.cells[1]), nodes_of(first.cells[1]));
  EXPECT_EQ(nodes_of(second_back.cells[0]), nodes_of(second.cells[0]));
  const io::hdf5::File file = io::hdf5::File::open(path, "test");
  const NDArray offsets = file.read("/VTKHDF/Offsets");
  ASSERT_EQ(offsets.rows(), 300001 + 150001);
  const std::int64_t* at = offsets.data_as<std::int64_t>();
  EXPECT_EQ(at[0], 0);
  EXPECT_EQ(at[200000], 600000);
  EXPECT_EQ(at[300000], 1000000);
  EXPECT_EQ(at[300001], 0);  // the second geometry's leading 0
  EXPECT_EQ(at[300001 + 150000], 600000);
  const NDArray types = file.read("/VTKHDF/Types");
  EXPECT_EQ(types.data_as<std::uint8_t>()[199999], 5);  // VTK_TRIANGLE
  EXPECT_EQ(types.data_as<std::uint8_t>()[200000], 9);  // VTK_QUAD
  EXPECT_EQ(types.data_as<std::uint8_t>()[300000], 10);  // VTK_TETRA
}

TEST(Vtkhdf, AStepsOffsetPastTheEndNamesTheFileAndTheDataset) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = dir.file("forged.vtkhdf");
  {
    io::hdf5::File file = io::hdf5::File::create(path, "test");
    file.create_group("/VTKHDF");
    file.set_attribute("/VTKHDF", "Version", std::vector<std::int64_t>{2, 0});
    file.set_fixed_string_attribute("/VTKHDF", "Type", "UnstructuredGrid");
    file.write("/VTKHDF/NumberOfPoints", int64_vector({3}));
    file.write("/VTKHDF/NumberOfCells", int64_vector({1}));
    file.write("/VTKHDF/NumberOfConnectivityIds", int64_vector({3}));
    file.write("/VTKHDF/Points", array_of<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
    file.write("/VTKHDF/Types", array_of<std::uint8_t>({1}, {5}));
    file.write("/VTKHDF/Offsets", int64_vector({0, 3}));
    file.write("/VTKHDF/Connectivity", int64_vector({0, 1, 2}));
    file.create_group("/VTKHDF/PointData");
    file.write("/VTKHDF/PointData/T", array_of<double>({6}, {1, 2, 3, 4, 5, 6}));
    file.create_group("/VTKHDF/Steps");
    file.set_attribute("/VTKHDF/Steps", "NSteps", std::int64_t{2});
    file.write("/VTKHDF/Steps/Values", array_of<double>({2}, {0, 1}));
    file.write("/VTKHDF/Steps/PartOffsets", int64_vector({0, 0}));
    file.write("/VTKHDF/Steps/NumberOfParts", int64_vector({1, 1}));
    file.write("/VTKHDF/Steps/PointOffsets", int64_vector({0, 0}));
    file.write("/VTKHDF/Steps/CellOffsets", int64_vector({0, 0}));
    file.write("/VTKHDF/Steps/ConnectivityIdOffsets", int64_vector({0, 0}));
    file.create_group("/VTKHDF/Steps/PointDataOffsets");
    file.write("/VTKHDF/Steps/PointDataOffsets/T", int64_vector({3, 5}));
    file.commit();
  }
  auto reader = vtkhdf::open_time_series(path);
  const TimeStep ok = reader->read_step(0);
  EXPECT_EQ(ok.point_data.find("T")->data_as<double>()[0], 4.0);
  const ReadError error = expect_read_error([&] { reader->read_step(1); });
  const std::string text = error.what();
  EXPECT_NE(text.find(path), std::string::npos) << text;
  EXPECT_NE(text.find("/VTKHDF/PointData/T"), std::string::npos) << text;
  EXPECT_NE(text.find("/VTKHDF/Steps/PointDataOffsets/T"), std::string::npos) << text;
}

TEST(Vtkhdf, ReadsOnePartitionOrARange) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  write_partitioned(dir.file("parts.vtkhdf"), 2);
  EXPECT_EQ(vtkhdf::num_partitions(dir.file("parts.vtkhdf")), 2);
  const Mesh second = vtkhdf::read(dir.file("parts.vtkhdf"), {0, 1, 1});
  EXPECT_EQ(second.points.rows(), 3);
  EXPECT_EQ(second.points.data_as<double>()[0], 5.0);
  EXPECT_EQ(nodes_of(second.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_THROW(vtkhdf::read(dir.file("parts.vtkhdf"), {0, 1, 2}), ReadError);
}

TEST(Vtkhdf, PartitionFilesBehindVirtualDatasets) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  Mesh left = two_triangles(0), right = two_triangles(5);
  left.point_data.set("T", array_of<double>({4}, {1, 2, 3, 4}));
  right.point_data.set("T", array_of<double>({4}, {5, 6, 7, 8}));
  left.cell_data.set("c", {array_of<std::int32_t>({2}, {1, 2})});
  right.cell_data.set("c", {array_of<std::int32_t>({2}, {3, 4})});
  vtkhdf::write(dir.file("m_part0.vtkhdf"), left, {});
  vtkhdf::write(dir.file("m_part1.vtkhdf"), right, {});
  vtkhdf::write_partitioned_main(dir.file("m.vtkhdf"), {"m_part0.vtkhdf", "m_part1.vtkhdf"});
  const Mesh whole = vtkhdf::read(dir.file("m.vtkhdf"));
  EXPECT_EQ(whole.points.rows(), 8);
  EXPECT_EQ(nodes_of(whole.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7}));
  EXPECT_EQ(int_values((*whole.cell_data.find("c"))[0]), (std::vector<std::int64_t>{1, 2, 3, 4}));
  auto share = vtkhdf::open_share(dir.file("m.vtkhdf"), 1, 2);
  const TimeStep data = share->read_step(0);
  EXPECT_EQ(data.point_data.find("T")->data_as<double>()[0], 5.0);
  const Mesh mine = share->read_mesh();
  EXPECT_EQ(mine.points.data_as<double>()[0], 5.0);
  EXPECT_EQ(int_values(*mine.point_data.find("global_ids")), (std::vector<std::int64_t>{4, 5, 6, 7}));
  const auto* files = mine.string_field_data.find("vtkhdf:files_read");
  ASSERT_NE(files, nullptr);
  std::string joined;
  for (const std::string& file : *files) joined += file + ";";
  EXPECT_NE(joined.find("m_part1.vtkhdf"), std::string::npos) << joined;
  EXPECT_EQ(joined.find("m_part0.vtkhdf"), std::string::npos) << joined;
  std::filesystem::remove(dir.file("m_part1.vtkhdf"));
  const ReadError error = expect_read_error([&] { vtkhdf::read(dir.file("m.vtkhdf")); });
  EXPECT_NE(std::string(error.what()).find("m_part1.vtkhdf"), std::string::npos) << error.what();
}
