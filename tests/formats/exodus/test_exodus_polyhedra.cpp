// Exodus II polyhedra (NFACED element blocks over NSIDED face blocks): the layout we write
// (SEACAS's names, read back variable by variable), round trips of one polyhedron, of polyhedra
// beside hexahedra with data on both blocks, faces shared between polyhedra and listed inward
// (Exodus faces carry no sign: we turn them out of each cell), and malformed face references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/exodus/exodus.hpp"
#include "formats/exodus/exodus_test_files.hpp"
#include "io/netcdf/netcdf_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/polyhedron_checks.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

#define SKIP_WITHOUT_NETCDF() \
  if (!io::netcdf_available()) GTEST_SKIP() << "built without netCDF"

std::vector<std::int64_t> file_integers(const io::NetcdfReader& file, const std::string& name) {
  const io::NetcdfVariable& variable = file.require(name);
  std::size_t count = 1;
  for (std::size_t extent : variable.shape) count *= extent;
  std::vector<std::int64_t> values(count);
  file.read_into(variable, DType::int64, values.data());
  return values;
}

std::vector<double> doubles_of(const NDArray& array) {
  const NDArray converted = array.astype(DType::float64);
  const auto values = converted.values<double>();
  return {values.begin(), values.end()};
}

void expect_outward(const NDArray& points, const CellBlock& cells, const std::vector<double>& volumes) {
  const std::vector<double> read = polyhedron_volumes(points, cells);
  ASSERT_EQ(volumes.size(), read.size());
  for (std::size_t c = 0; c < volumes.size(); ++c) EXPECT_NEAR(volumes[c], read[c], 1e-12) << "cell " << c;
}

Mesh one_cube() {
  Mesh mesh;
  mesh.points = polyhedra_points();
  const CellBlock all = polyhedra_block();
  const std::vector<std::int64_t> faces = int_values(all.face_offsets), nodes = nodes_of(all);
  mesh.cells.push_back({"polyhedron", int64_vector(std::vector<std::int64_t>(nodes.begin(), nodes.begin() + faces[6])),
                        int64_vector({0, 6}), int64_vector(std::vector<std::int64_t>(faces.begin(), faces.begin() + 7))});
  return mesh;
}

TEST(ExodusPolyhedra, OnePolyhedronIsAFaceBlockAndAnNfacedBlock) {
  SKIP_WITHOUT_NETCDF();
  const Mesh mesh = one_cube();
  const std::string path = scratch("cube.exo").string();
  exodus::write(path, mesh, {});
  {
    const io::NetcdfReader file(path, "exodus");
    EXPECT_EQ(1u, file.dimension("num_fa_blk").value_or(0));
    EXPECT_EQ(6u, file.dimension("num_face").value_or(0));
    EXPECT_EQ(6u, file.dimension("num_fa_in_blk1").value_or(0));
    EXPECT_EQ(24u, file.dimension("num_nod_per_fa1").value_or(0));
    EXPECT_EQ(6u, file.dimension("num_fac_per_el1").value_or(0));
    EXPECT_EQ(1u, file.dimension("num_el_in_blk1").value_or(0));
    EXPECT_EQ("nsided", file.text_attribute(&file.require("fbconn1"), "elem_type").value_or(""));
    EXPECT_EQ("NFACED", file.text_attribute(&file.require("facconn1"), "elem_type").value_or(""));
    EXPECT_EQ("FACE", file.text_attribute(&file.require("ebepecnt1"), "entity_type1").value_or(""));
    EXPECT_EQ("NODE", file.text_attribute(&file.require("fbepecnt1"), "entity_type1").value_or(""));
    EXPECT_EQ((std::vector<std::int64_t>{4, 4, 4, 4, 4, 4}), file_integers(file, "fbepecnt1"));
    EXPECT_EQ((std::vector<std::int64_t>{6}), file_integers(file, "ebepecnt1"));
    EXPECT_EQ((std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}), file_integers(file, "facconn1"));
    EXPECT_EQ((std::vector<std::int64_t>{1}), file_integers(file, "fa_prop1"));
    EXPECT_EQ(nullptr, file.find("connect1"));  // an NFACED block lists faces, not nodes
  }
  const Mesh read = exodus::read(path);
  ASSERT_EQ(1u, read.cells.size());
  EXPECT_EQ("polyhedron", read.cells[0].type);
  EXPECT_TRUE(same_bits(mesh.points, read.points));
  EXPECT_EQ(nodes_of(mesh.cells[0]), nodes_of(read.cells[0]));  // outward already: kept as it was
  EXPECT_EQ(int_values(mesh.cells[0].face_offsets), int_values(read.cells[0].face_offsets));
  EXPECT_EQ(int_values(mesh.cells[0].offsets), int_values(read.cells[0].offsets));
  expect_outward(read.points, read.cells[0], {1.0});
}

TEST(ExodusPolyhedra, PolyhedraBesideHexahedraKeepTheirDataAndAreWrittenOutward) {
  SKIP_WITHOUT_NETCDF();
  for (const io::NetcdfWriter::Kind kind : {io::NetcdfWriter::Kind::netcdf4, io::NetcdfWriter::Kind::classic}) {
    Mesh mesh;
    mesh.points = polyhedra_points();
    mesh.cells.push_back(polyhedra_block(/*scrambled=*/true));  // faces listed inward too: turned out on write
    mesh.cells.push_back({"hexahedron", int64_matrix(1, 8, {9, 10, 11, 12, 15, 16, 17, 18}), {}, {}});
    mesh.cell_data.set("pressure", std::vector<NDArray>{array_of<double>({3}, {1.5, 2.5, 3.5}), array_of<double>({1}, {4.5})});
    mesh.cell_data.set("flux", std::vector<NDArray>{array_of<double>({3, 2}, {1, 2, 3, 4, 5, 6}), array_of<double>({1, 2}, {7, 8})});
    mesh.regions.push_back(cell_region("cells", 3, 4, {0, 1, 2}));
    const std::string path = scratch("mixed.exo").string();
    WriteOptions options;
    if (kind == io::NetcdfWriter::Kind::classic) options.set("netcdf_format", "NETCDF3_CLASSIC");
    exodus::write(path, mesh, options);
    const Mesh read = exodus::read(path);
    ASSERT_EQ(2u, read.cells.size());
    EXPECT_EQ("polyhedron", read.cells[0].type);
    EXPECT_EQ("hexahedron", read.cells[1].type);
    EXPECT_TRUE(same_bits(mesh.points, read.points));
    EXPECT_EQ(nodes_of(mesh.cells[1]), nodes_of(read.cells[1]));
    for (std::int64_t c = 0; c < 3; ++c) EXPECT_EQ(face_sets(mesh.cells[0], c), face_sets(read.cells[0], c)) << c;
    expect_outward(read.points, read.cells[0], {1.0, 1.0 / 3.0, 3.0});
    const auto* pressure = read.cell_data.find("pressure");
    ASSERT_NE(pressure, nullptr);
    EXPECT_EQ((std::vector<double>{1.5, 2.5, 3.5}), doubles_of((*pressure)[0]));
    EXPECT_EQ((std::vector<double>{4.5}), doubles_of((*pressure)[1]));
    const auto* flux = read.cell_data.find("flux");
    ASSERT_NE(flux, nullptr);
    EXPECT_EQ((Shape{3, 2}), (*flux)[0].shape());
    EXPECT_EQ((std::vector<double>{1, 2, 3, 4, 5, 6}), doubles_of((*flux)[0]));
    const Region* region = find_region(read, "cells", RegionKind::Cell);
    ASSERT_NE(region, nullptr);
    EXPECT_EQ(4, region->tag);
  }
}

// As SEACAS's own example stores them: the face two polyhedra share once, in one face block,
// so it is inward for one of them; and a face block of fixed-size quads beside an NSIDED one.
TEST(ExodusPolyhedra, SharedFacesAreTurnedOutOfEachPolyhedron) {
  SKIP_WITHOUT_NETCDF();
  std::vector<double> xyz;
  const NDArray points = polyhedra_points();
  for (double value : points.values<double>()) xyz.push_back(value);
  // Faces 1-6: the cube (face 2, its top, is the pyramid's base too); 7-10: the pyramid's sides.
  const std::string path = write_blocks_file(
      "shared.e", xyz, {TestBlock{"NFACED", "cells", 1, 0, {1, 2, 3, 4, 5, 6, 2, 7, 8, 9, 10}, {6, 5}}},
      {TestBlock{"QUAD4", "", 1, 4, {1, 4, 3, 2, 5, 6, 7, 8, 1, 2, 6, 5, 2, 3, 7, 6, 3, 4, 8, 7, 4, 1, 5, 8}, {}},
       TestBlock{"NSIDED", "", 2, 0, {5, 6, 9, 6, 7, 9, 7, 8, 9, 8, 5, 9}, {3, 3, 3, 3}}});
  const Mesh read = exodus::read(path);
  ASSERT_EQ(1u, read.cells.size());
  EXPECT_EQ((std::vector<std::int64_t>{0, 6, 11}), int_values(read.cells[0].offsets));
  expect_outward(read.points, read.cells[0], {1.0, 1.0 / 3.0});
  // The shared face: as stored (4 5 6 7, outward) in the cube, turned in the pyramid.
  const std::vector<std::int64_t> nodes = nodes_of(read.cells[0]);
  EXPECT_EQ((std::vector<std::int64_t>{4, 5, 6, 7}), std::vector<std::int64_t>(nodes.begin() + 4, nodes.begin() + 8));
  EXPECT_EQ((std::vector<std::int64_t>{4, 7, 6, 5}), std::vector<std::int64_t>(nodes.begin() + 24, nodes.begin() + 28));
  // Written back, every polyhedron has faces of its own: 11 faces, none shared.
  const std::string again = scratch("shared_again.exo").string();
  exodus::write(again, read, {});
  const io::NetcdfReader file(again, "exodus");
  EXPECT_EQ(11u, file.dimension("num_face").value_or(0));
  expect_outward(read.points, exodus::read(again).cells[0], {1.0, 1.0 / 3.0});
}

TEST(ExodusPolyhedra, MalformedFaceReferencesNameTheFileAndTheVariable) {
  SKIP_WITHOUT_NETCDF();
  const std::vector<double> xyz{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const TestBlock faces{"NSIDED", "", 1, 0, {1, 3, 2, 1, 2, 4, 2, 3, 4, 3, 1, 4}, {3, 3, 3, 3}};
  struct Case {
    std::string file;
    TestBlock cells, face_block;
    std::string variable, message;
  };
  const std::vector<Case> cases{
      {"past_the_faces.e", {"NFACED", "", 1, 0, {1, 2, 3, 5}, {4}}, faces, "facconn1", "outside 1..4"},
      {"face_zero.e", {"NFACED", "", 1, 0, {1, 2, 3, 0}, {4}}, faces, "facconn1", "outside 1..4"},
      {"counts_past_facconn.e", {"NFACED", "", 1, 0, {1, 2, 3, 4}, {5}}, faces, "ebepecnt1", "adds up to more"},
      {"zero_faces.e", {"NFACED", "", 1, 0, {1, 2, 3, 4}, {0, 4}}, faces, "ebepecnt1", "not a positive face count"},
      {"face_nodes_short.e", {"NFACED", "", 1, 0, {1, 2, 3, 4}, {4}},
       {"NSIDED", "", 1, 0, {1, 3, 2, 1, 2, 4, 2, 3, 4, 3, 1, 4}, {3, 3, 3, 4}}, "fbepecnt1", "adds up to more"},
      {"face_node_past_points.e", {"NFACED", "", 1, 0, {1, 2, 3, 4}, {4}},
       {"NSIDED", "", 1, 0, {1, 3, 2, 1, 2, 4, 2, 3, 4, 3, 1, 9}, {3, 3, 3, 3}}, "fbconn1", "outside 1..4"},
  };
  for (const Case& c : cases) {
    const std::string path = write_blocks_file(c.file, xyz, {c.cells}, {c.face_block});
    const ReadError error = expect_read_error([&] { exodus::read(path); });
    const std::string what = error.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(c.variable), std::string::npos) << c.file << ": " << what;
    EXPECT_NE(what.find(c.message), std::string::npos) << c.file << ": " << what;
  }
}

TEST(ExodusPolyhedra, TimeSeriesWriterTakesPolyhedra) {
  SKIP_WITHOUT_NETCDF();
  Mesh mesh;
  mesh.points = polyhedra_points();
  mesh.cells.push_back(polyhedra_block());
  const std::string path = scratch("series.exo").string();
  auto series = exodus::create_time_series(path, {});
  series->write_mesh(mesh);
  for (int step = 0; step < 2; ++step) {
    TimeStep data;
    data.time = step;
    data.cell_data.set("heat", std::vector<NDArray>{array_of<double>({3}, {1.0 * step, 2.0, 3.0})});
    series->write_step(data);
  }
  series->close();
  EXPECT_EQ((std::vector<double>{0, 1}), exodus::time_values(path));
  const Mesh read = exodus::read_step(path, 1);
  expect_outward(read.points, read.cells[0], {1.0, 1.0 / 3.0, 3.0});
  EXPECT_EQ((std::vector<double>{1, 2, 3}), doubles_of(read.cell_data.find("heat")->at(0)));
}

}  // namespace
