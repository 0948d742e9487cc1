// MED polygons (POG) and polyhedra (POE): two real MEDCoupling files (MED 2.2 and 2.3, their
// index datasets named the MED 2 way, faces written inward by one and outward by the other),
// the MED 3 layout we write (checked dataset by dataset), round trips with hexahedra and data
// on the polyhedra, blocks of one ragged type joined into one group, and malformed indices.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/med/med.hpp"
#include "formats/med/med_test_files.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/polyhedron_checks.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

const std::string kStep = "/ENS_MAA/mesh/" + kMedNoStep + "/MAI";

std::string data_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "med" / name).string(); }

std::vector<std::string> block_types(const Mesh& mesh) {
  std::vector<std::string> types;
  for (const CellBlock& cells : mesh.cells) types.push_back(cells.type);
  return types;
}

void expect_volumes(const Mesh& mesh, std::size_t block, const std::vector<double>& expected, double tolerance) {
  const std::vector<double> volumes = polyhedron_volumes(mesh.points, mesh.cells[block]);
  ASSERT_EQ(expected.size(), volumes.size());
  for (std::size_t c = 0; c < expected.size(); ++c) EXPECT_NEAR(expected[c], volumes[c], tolerance) << c;
}

// MEDCoupling's poly3D.med (MED 2.2.2, no ESP, families as 1-character strings): two polyhedra
// of 9 and 10 faces written inward (volumes -35/3 and -85/6 as stored, faces fan-triangulated
// from their first node: two are not planar), three polygons, quads, a tetrahedron, triangles.
TEST(MedPolyhedra, MedCouplingPoly3DReadsWithItsFacesTurnedOutward) {
  SKIP_WITHOUT_HDF5();
  const Mesh mesh = med::read(data_file("medcoupling_poly3D.med"));
  EXPECT_EQ((Shape{19, 3}), mesh.points.shape());
  EXPECT_EQ((std::vector<std::string>{"polyhedron", "polygon", "quad", "tetra", "triangle"}), block_types(mesh));
  const CellBlock& polyhedra = mesh.cells[0];
  EXPECT_EQ((std::vector<std::int64_t>{0, 9, 19}), int_values(polyhedra.offsets));
  EXPECT_EQ(74u, polyhedra.connectivity.size());
  EXPECT_EQ(20u, polyhedra.face_offsets.size());
  expect_volumes(mesh, 0, {35.0 / 3.0, 85.0 / 6.0}, 1e-9);  // fan-triangulated (two faces are not planar)
  EXPECT_EQ((std::vector<std::int64_t>{0, 6, 11, 16}), int_values(mesh.cells[1].offsets));
  EXPECT_EQ(8, mesh.cells[2].num_cells());
  EXPECT_EQ(1, mesh.cells[3].num_cells());
  EXPECT_EQ(6, mesh.cells[4].num_cells());
  const Region* group = find_region(mesh, "groupe0", RegionKind::Cell);
  ASSERT_NE(group, nullptr);  // the MED 2.2 family names
  EXPECT_EQ(17u, group->entries.size());
}

// MEDCoupling's Test3Dpoly.med (MED 2.3.5, written by Salome): eight 100-unit cubes as
// polyhedra with outward faces, and 24 quadrilateral polygons.
TEST(MedPolyhedra, MedCouplingTest3DpolyKeepsItsOutwardFaces) {
  SKIP_WITHOUT_HDF5();
  const Mesh mesh = med::read(data_file("medcoupling_Test3Dpoly.med"));
  EXPECT_EQ((Shape{27, 3}), mesh.points.shape());
  EXPECT_EQ((std::vector<std::string>{"polyhedron", "polygon"}), block_types(mesh));
  expect_volumes(mesh, 0, std::vector<double>(8, 1e6), 1e-6);
  EXPECT_EQ(192u, mesh.cells[0].connectivity.size());
  EXPECT_EQ(24, mesh.cells[1].num_cells());
  EXPECT_EQ(96u, mesh.cells[1].connectivity.size());
}

TEST(MedPolyhedra, WrittenAsTheMed3LibraryWritesThem) {
  SKIP_WITHOUT_HDF5();
  Mesh mesh;
  mesh.points = polyhedra_points();
  mesh.cells.push_back(polyhedra_block(/*scrambled=*/true));
  mesh.cells.push_back({"hexahedron", int64_matrix(1, 8, {9, 10, 11, 12, 15, 16, 17, 18}), {}, {}});
  mesh.cells.push_back({"polygon", int64_vector({0, 1, 2, 3, 9, 10, 11}), int64_vector({0, 4, 7}), {}});
  mesh.cell_data.set("heat", std::vector<NDArray>{array_of<double>({3}, {1, 2, 3}), array_of<double>({1}, {4}),
                                                  array_of<double>({2}, {5, 6})});
  mesh.regions.push_back(cell_region("solid", 3, -1, {0, 2, 3}));
  const std::string path = scratch("poly.med").string();
  med::write(path, mesh, {});
  {
    const io::hdf5::File file = io::hdf5::File::open(path, "med");
    // IFN: each polyhedron's first face (1-based), INN: each face's first node, NOD: the nodes.
    EXPECT_EQ((std::vector<std::int64_t>{1, 7, 12, 20}), int_values(file.read(kStep + "/POE/IFN")));
    EXPECT_EQ(4, file.integer_attribute(kStep + "/POE/IFN", "NBR").value_or(-1));
    EXPECT_EQ(20, file.integer_attribute(kStep + "/POE/INN", "NBR").value_or(-1));
    EXPECT_EQ(int_values(polyhedra_block().face_offsets).back(), file.integer_attribute(kStep + "/POE/NOD", "NBR").value_or(-1));
    EXPECT_EQ(3, file.integer_attribute(kStep + "/POE/FAM", "NBR").value_or(-1));
    EXPECT_EQ((std::vector<std::int64_t>{1, 5, 8}), int_values(file.read(kStep + "/POG/INN")));
    EXPECT_EQ((std::vector<std::int64_t>{1, 2, 3, 4, 10, 11, 12}), int_values(file.read(kStep + "/POG/NOD")));
    EXPECT_EQ(7, file.integer_attribute(kStep + "/POG/NOD", "NBR").value_or(-1));
  }
  // Read back in MED's group order (HE8, POE, POG), regions and data following their cells.
  const Mesh read = med::read(path);
  EXPECT_EQ((std::vector<std::string>{"hexahedron", "polyhedron", "polygon"}), block_types(read));
  EXPECT_TRUE(same_bits(mesh.points, read.points));
  expect_volumes(read, 1, {1.0, 1.0 / 3.0, 3.0}, 1e-12);
  for (std::int64_t c = 0; c < 3; ++c) EXPECT_EQ(face_sets(mesh.cells[0], c), face_sets(read.cells[1], c)) << c;
  EXPECT_EQ(nodes_of(mesh.cells[1]), nodes_of(read.cells[0]));
  EXPECT_EQ(nodes_of(mesh.cells[2]), nodes_of(read.cells[2]));
  EXPECT_EQ(int_values(mesh.cells[2].offsets), int_values(read.cells[2].offsets));
  const auto* heat = read.cell_data.find("heat");
  ASSERT_NE(heat, nullptr);
  EXPECT_EQ((std::vector<double>{4}), double_values((*heat)[0]));
  EXPECT_EQ((std::vector<double>{1, 2, 3}), double_values((*heat)[1]));
  EXPECT_EQ((std::vector<double>{5, 6}), double_values((*heat)[2]));
  const Region* solid = find_region(read, "solid", RegionKind::Cell);
  ASSERT_NE(solid, nullptr);
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 3}), int_values(solid->entries));  // hexahedron, cube, L prism
}

// meshio's Python view splits a ragged block by node count; MED has one group per type, so the
// writer joins them (with their data and Cell regions) in the place of the first.
TEST(MedPolyhedra, BlocksOfOneRaggedTypeBecomeOneGroup) {
  SKIP_WITHOUT_HDF5();
  const CellBlock all = polyhedra_block();
  const std::vector<std::int64_t> faces = int_values(all.face_offsets), nodes = nodes_of(all);
  Mesh mesh;
  mesh.points = polyhedra_points();
  mesh.cells.push_back({"polyhedron", int64_vector(std::vector<std::int64_t>(nodes.begin(), nodes.begin() + faces[6])),
                        int64_vector({0, 6}), int64_vector(std::vector<std::int64_t>(faces.begin(), faces.begin() + 7))});
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 3, 4}), {}, {}});
  std::vector<std::int64_t> rest_faces;
  for (std::size_t f = 6; f < faces.size(); ++f) rest_faces.push_back(faces[f] - faces[6]);
  mesh.cells.push_back({"polyhedron", int64_vector(std::vector<std::int64_t>(nodes.begin() + faces[6], nodes.end())),
                        int64_vector({0, 5, 13}), int64_vector(rest_faces)});
  mesh.cell_data.set("id", std::vector<NDArray>{array_of<double>({1}, {10}), array_of<double>({1}, {20}),
                                                array_of<double>({2}, {30, 40})});
  mesh.regions.push_back(cell_region("last", 3, -1, {3}));  // the L prism
  const std::string path = scratch("joined.med").string();
  med::write(path, mesh, {});
  const Mesh read = med::read(path);
  EXPECT_EQ((std::vector<std::string>{"polyhedron", "tetra"}), block_types(read));
  expect_volumes(read, 0, {1.0, 1.0 / 3.0, 3.0}, 1e-12);
  EXPECT_EQ((std::vector<double>{10, 30, 40}), double_values(read.cell_data.find("id")->at(0)));
  EXPECT_EQ((std::vector<double>{20}), double_values(read.cell_data.find("id")->at(1)));
  EXPECT_EQ((std::vector<std::int64_t>{2}), int_values(find_region(read, "last", RegionKind::Cell)->entries));
}

// A MED 3 POE group with the given datasets (1-based), over the four corners of a tetrahedron.
std::string write_poe(const std::string& name, const std::vector<std::int32_t>& ifn, const std::vector<std::int32_t>& inn,
                      const std::vector<std::int32_t>& nod) {
  const std::string path = scratch(name).string();
  io::hdf5::File file = io::hdf5::File::create(path, "med");
  write_med_mesh(file, MedMeshSpec{.name = "mesh", .dimension = 3, .points = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}});
  const std::string group = "/ENS_MAA/mesh/" + kMedNoStep + "/MAI/POE";
  file.create_group("/ENS_MAA/mesh/" + kMedNoStep + "/MAI");
  file.create_group(group);
  file.write(group + "/IFN", array_of<std::int32_t>({static_cast<std::int64_t>(ifn.size())}, ifn));
  file.write(group + "/INN", array_of<std::int32_t>({static_cast<std::int64_t>(inn.size())}, inn));
  file.write(group + "/NOD", array_of<std::int32_t>({static_cast<std::int64_t>(nod.size())}, nod));
  file.commit();
  return path;
}

TEST(MedPolyhedra, MalformedIndicesNameTheFileAndTheDataset) {
  SKIP_WITHOUT_HDF5();
  const std::vector<std::int32_t> nod{1, 3, 2, 1, 2, 4, 2, 3, 4, 3, 1, 4};
  EXPECT_EQ(1, med::read(write_poe("good.med", {1, 5}, {1, 4, 7, 10, 13}, nod)).cells[0].num_cells());
  struct Case {
    std::string file;
    std::vector<std::int32_t> ifn, inn, nod;
    std::string dataset, message;
  };
  const std::vector<Case> cases{
      {"faces_past_inn.med", {1, 6}, {1, 4, 7, 10, 13}, nod, "POE/IFN", "ends at 6"},
      {"nodes_past_nod.med", {1, 5}, {1, 4, 7, 10, 14}, nod, "POE/INN", "ends at 14"},
      {"index_from_zero.med", {0, 4}, {1, 4, 7, 10, 13}, nod, "POE/IFN", "start at 1"},
      {"falling_index.med", {1, 5}, {1, 4, 3, 10, 13}, nod, "POE/INN", "does not rise"},
      {"node_past_points.med", {1, 5}, {1, 4, 7, 10, 13}, {1, 3, 2, 1, 2, 4, 2, 3, 4, 3, 1, 5}, "POE/NOD", "outside 1..4"},
  };
  for (const Case& c : cases) {
    const std::string path = write_poe(c.file, c.ifn, c.inn, c.nod);
    const ReadError error = expect_read_error([&] { med::read(path); });
    const std::string what = error.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(c.dataset), std::string::npos) << c.file << ": " << what;
    EXPECT_NE(what.find(c.message), std::string::npos) << c.file << ": " << what;
  }
}

}  // namespace
