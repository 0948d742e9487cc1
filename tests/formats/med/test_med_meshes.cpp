// MED files with several meshes: mesh_names lists them (file order, nothing else read),
// read(path, {mesh_name}) gives the named mesh with only the fields defined on it, read(path)
// (and the registry's read) the first one, an unknown name is a ReadError listing the meshes,
// and the time series of a named mesh has that mesh's fields' steps only. The files are built
// with the HDF5 layer (med_test_files.hpp), as Salome writes them: the meshes in name order
// "beam", "plate" though "plate" was created first.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "formats/med/med.hpp"
#include "formats/med/med_test_files.hpp"
#include "formats/med/med_time_series.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// "plate": four points, two triangles, nodes 2 and 3 in group "edge", fields T_plate (nodes, two
// steps at 0.5 and 1.5) and P_plate (cells, the first step); "beam": three points, two
// segments, node 2 in group "tip", field T_beam; "legacy" names no mesh (the first one's).
std::string write_two_mesh_file(const std::string& name) {
  const std::string path = scratch(name).string();
  io::hdf5::File file = io::hdf5::File::create(path, "med");
  write_med_mesh(file, {.name = "plate", .points = {0, 0, 1, 0, 1, 1, 0, 1}, .med_type = "TR3", .nodes_per_cell = 3,
                        .cells = {1, 2, 3, 1, 3, 4}, .node_families = {0, 0, 1, 1}, .groups = {{1, "edge"}}});
  write_med_mesh(file, {.name = "beam", .points = {0, 0, 1, 0, 2, 0}, .med_type = "SE2", .nodes_per_cell = 2,
                        .cells = {1, 2, 2, 3}, .node_families = {0, 0, 2}, .groups = {{2, "tip"}}});
  write_med_field(file, {.name = "T_plate", .mesh = "plate", .values = {10, 20, 30, 40}, .steps = {{1, 0.5}, {2, 1.5}}});
  write_med_field(file, {.name = "P_plate", .mesh = "plate", .support = "MAI.TR3", .values = {7, 8}, .steps = {{1, 0.5}}});
  write_med_field(file, {.name = "T_beam", .mesh = "beam", .values = {1, 2, 3}});
  write_med_field(file, {.name = "legacy", .values = {4, 5, 6}});
  file.commit();
  return path;
}

void expect_beam(const Mesh& mesh) {
  EXPECT_EQ(3, mesh.num_points());
  EXPECT_EQ("line:2", block_summary(mesh));
  EXPECT_EQ((std::vector<double>{1, 2, 3}), double_values(*mesh.point_data.find("T_beam")));
  EXPECT_EQ((std::vector<double>{4, 5, 6}), double_values(*mesh.point_data.find("legacy")));
  EXPECT_EQ(nullptr, mesh.point_data.find("T_plate[0] - 0.5"));
  EXPECT_EQ(nullptr, mesh.cell_data.find("P_plate"));
  const Region* tip = find_region(mesh, "tip", RegionKind::Point);
  ASSERT_NE(nullptr, tip);
  EXPECT_EQ((std::vector<std::int64_t>{2}), int_values(tip->entries));
  EXPECT_EQ(nullptr, find_region(mesh, "edge"));
}

TEST(MedMeshes, NamesInFileOrder) {
  SKIP_WITHOUT_HDF5();
  const std::string path = write_two_mesh_file("two.med");
  EXPECT_EQ((std::vector<std::string>{"beam", "plate"}), med::mesh_names(path));
}

TEST(MedMeshes, NamesWithoutReadingTheMeshes) {
  SKIP_WITHOUT_HDF5();
  const std::string path = scratch("bare.med").string();
  {
    io::hdf5::File file = io::hdf5::File::create(path, "med");
    file.create_group("/ENS_MAA");
    file.create_group("/ENS_MAA/unread");  // no ESP, no nodes: a read fails, listing does not
    file.commit();
  }
  EXPECT_EQ((std::vector<std::string>{"unread"}), med::mesh_names(path));
  EXPECT_THROW(med::read(path), ReadError);

  const std::string empty = scratch("empty.med").string();
  {
    io::hdf5::File file = io::hdf5::File::create(empty, "med");
    file.create_group("/ENS_MAA");
    file.commit();
  }
  EXPECT_TRUE(med::mesh_names(empty).empty());
  const ReadError error = expect_read_error([&] { med::read(empty, {"m"}); });
  EXPECT_NE(std::string(error.what()).find("holds no mesh"), std::string::npos) << error.what();
  EXPECT_THROW(med::mesh_names(write_scratch("text.med", "not HDF5\n")), ReadError);
}

TEST(MedMeshes, TheFirstMeshByDefault) {
  SKIP_WITHOUT_HDF5();
  const std::string path = write_two_mesh_file("two.med");
  expect_beam(med::read(path));
  expect_beam(med::read(path, {"beam"}));
  expect_beam(meshioplusplus::read(path));  // the registry's read
}

TEST(MedMeshes, ANamedMeshWithItsOwnFields) {
  SKIP_WITHOUT_HDF5();
  const std::string path = write_two_mesh_file("two.med");
  const Mesh plate = med::read(path, {"plate"});
  EXPECT_EQ(4, plate.num_points());
  EXPECT_EQ((std::vector<double>{0, 0, 1, 0, 1, 1, 0, 1}), double_values(plate.points));
  EXPECT_EQ("triangle:2", block_summary(plate));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}), nodes_of(plate.cells[0]));
  EXPECT_EQ((std::vector<double>{10, 20, 30, 40}), double_values(*plate.point_data.find("T_plate[0] - 0.5")));
  EXPECT_EQ((std::vector<double>{20, 40, 60, 80}), double_values(*plate.point_data.find("T_plate[1] - 1.5")));
  ASSERT_NE(nullptr, plate.cell_data.find("P_plate"));
  EXPECT_EQ((std::vector<double>{7, 8}), double_values(plate.cell_data.find("P_plate")->at(0)));
  EXPECT_EQ(nullptr, plate.point_data.find("T_beam"));
  EXPECT_EQ(nullptr, plate.point_data.find("legacy"));
  EXPECT_EQ((std::vector<std::int64_t>{0, 0, 1, 1}), int_values(*plate.point_data.find("point_tags")));
  const Region* edge = find_region(plate, "edge", RegionKind::Point);
  ASSERT_NE(nullptr, edge);
  EXPECT_EQ((std::vector<std::int64_t>{2, 3}), int_values(edge->entries));
  EXPECT_EQ(nullptr, find_region(plate, "tip"));
}

TEST(MedMeshes, AnUnknownNameListsTheMeshes) {
  SKIP_WITHOUT_HDF5();
  const std::string path = write_two_mesh_file("two.med");
  for (const auto& attempt : {std::function<void()>([&] { med::read(path, {"shell"}); }),
                              std::function<void()>([&] { med::open_time_series(path, {"shell"}); })}) {
    const ReadError error = expect_read_error(attempt);
    EXPECT_EQ(path, error.path());
    const std::string text = error.what();
    EXPECT_NE(text.find(path), std::string::npos) << text;
    EXPECT_NE(text.find("no mesh named 'shell'"), std::string::npos) << text;
    EXPECT_NE(text.find("'beam', 'plate'"), std::string::npos) << text;
  }
}

TEST(MedMeshes, TheTimeSeriesOfANamedMesh) {
  SKIP_WITHOUT_HDF5();
  const std::string path = write_two_mesh_file("two.med");
  const auto plate = med::open_time_series(path, {"plate"});
  ASSERT_EQ(2u, plate->num_steps());
  EXPECT_EQ(0.5, plate->time(0));
  EXPECT_EQ(1.5, plate->time(1));
  const Mesh mesh = plate->read_mesh();
  EXPECT_EQ("triangle:2", block_summary(mesh));
  EXPECT_FALSE(mesh.point_data.contains("T_plate[0] - 0.5"));
  const TimeStep first = plate->read_step(0);
  EXPECT_EQ((std::vector<double>{7, 8}), double_values(first.cell_data.find("P_plate")->at(0)));
  const TimeStep second = plate->read_step(1);
  EXPECT_EQ((std::vector<double>{20, 40, 60, 80}), double_values(*second.point_data.find("T_plate")));
  EXPECT_EQ(nullptr, second.cell_data.find("P_plate"));
  EXPECT_EQ(nullptr, second.point_data.find("T_beam"));

  const auto beam = open_time_series(path);  // the registry's: the first mesh
  ASSERT_EQ(1u, beam->num_steps());
  EXPECT_EQ(0.0, beam->time(0));
  const TimeStep only = beam->read_step(0);
  EXPECT_EQ((std::vector<double>{1, 2, 3}), double_values(*only.point_data.find("T_beam")));
  EXPECT_EQ((std::vector<double>{4, 5, 6}), double_values(*only.point_data.find("legacy")));
  EXPECT_EQ(nullptr, only.point_data.find("T_plate"));
}

// A field whose MAI names no mesh of the file goes with the first mesh, as meshio reads it
// (meshio reads every field with a file's one mesh).
TEST(MedMeshes, AFieldNamingNoMeshOfTheFileIsTheFirstMeshs) {
  SKIP_WITHOUT_HDF5();
  const std::string path = scratch("renamed.med").string();
  {
    io::hdf5::File file = io::hdf5::File::create(path, "med");
    write_med_mesh(file, {.name = "Mesh_1", .points = {0, 0, 1, 0, 0, 1}, .med_type = "TR3", .nodes_per_cell = 3, .cells = {1, 2, 3}});
    write_med_field(file, {.name = "T", .mesh = "Mesh_renamed", .values = {1, 2, 3}});
    file.commit();
  }
  EXPECT_EQ((std::vector<double>{1, 2, 3}), double_values(*med::read(path).point_data.find("T")));
}

}  // namespace
