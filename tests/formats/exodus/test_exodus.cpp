// Exodus II reader and writer: the real files of the corpus (counts from EXPECTED_ref.tsv,
// written by VTK, Cubit and MOOSE, two of which meshio cannot read), round trips of blocks,
// sets, side sets, variables and records in every netCDF kind, the node orders and side
// numbers that differ from ours, time steps, int64 files, and malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "formats/exodus/exodus.hpp"
#include "formats/exodus/exodus_test_files.hpp"
#include "formats/exodus/exodus_types.hpp"
#include "io/netcdf/netcdf_file.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/side_regions.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

#define SKIP_WITHOUT_NETCDF() \
  if (!io::netcdf_available()) GTEST_SKIP() << "built without netCDF"

struct ReferenceRow {
  std::string file;
  std::int64_t points = 0, cells = 0;
  double point_sum = 0;
  std::string cell_type;
};

// The exodus/ rows of EXPECTED_ref.tsv: file, tool, points, cells, point sum, cell type, note.
std::vector<ReferenceRow> reference_rows(const std::string& prefix) {
  std::vector<ReferenceRow> rows;
  std::ifstream table(kCorpusDir / "EXPECTED_ref.tsv");
  std::string line;
  while (std::getline(table, line)) {
    if (!line.starts_with(prefix)) continue;
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, '\t')) fields.push_back(field);
    if (fields.size() < 6) continue;
    rows.push_back({fields[0], std::stoll(fields[2]), std::stoll(fields[3]), std::stod(fields[4]), fields[5]});
  }
  return rows;
}

NDArray doubles(Shape shape, const std::vector<double>& values) { return array_of<double>(std::move(shape), values); }

Region point_region(const std::string& name, std::int64_t tag, const std::vector<std::int64_t>& points) {
  Region region;
  region.name = name;
  region.kind = RegionKind::Point;
  region.dim = 0;
  region.tag = tag;
  region.entries = int64_vector(points);
  return region;
}

Region side_region(const std::string& name, std::int64_t tag, const std::vector<std::int64_t>& pairs) {
  Region region;
  region.name = name;
  region.kind = RegionKind::Side;
  region.dim = 2;
  region.tag = tag;
  region.entries = int64_matrix(static_cast<std::int64_t>(pairs.size() / 2), 2, pairs);
  return region;
}

// Two tetrahedra and a triangle on the face of the first, with every kind of content.
Mesh tetra_mesh() {
  Mesh mesh;
  mesh.points = doubles({5, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  mesh.cells.push_back({"tetra", int64_matrix(2, 4, {0, 1, 2, 3, 1, 2, 3, 4}), {}, {}});
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  mesh.point_data.set("temperature", doubles({5}, {1.5, 2.5, 3.5, 4.5, 5.5}));
  mesh.point_data.set("velocity", doubles({5, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
  mesh.point_data.set("pair", doubles({5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  mesh.cell_data.set("pressure", std::vector<NDArray>{doubles({2}, {10, 20}), doubles({1}, {30})});
  mesh.field_data.set("energy", doubles({1}, {42.25}));
  mesh.regions.push_back(cell_region("solid", 3, 7, {0, 1}));
  mesh.regions.push_back(cell_region("picked", -1, -1, {1, 2}));
  mesh.regions.push_back(point_region("fixed", 3, {0, 4}));
  mesh.regions.push_back(side_region("bottom", 5, {0, 3, 1, 1}));
  mesh.string_field_data.set("exodus:qa_records", std::vector<std::string>{"meshio++", "0.1", "today", "now"});
  mesh.string_field_data.set("exodus:info_records", std::vector<std::string>{"first line", "second line"});
  return mesh;
}

std::vector<double> double_values(const NDArray& array) {
  const NDArray converted = array.astype(DType::float64);
  const auto values = converted.values<double>();
  return {values.begin(), values.end()};
}

void expect_same_mesh(const Mesh& expected, const Mesh& actual) {
  EXPECT_EQ(double_values(expected.points), double_values(actual.points));
  ASSERT_EQ(expected.cells.size(), actual.cells.size());
  for (std::size_t b = 0; b < expected.cells.size(); ++b) {
    EXPECT_EQ(expected.cells[b].type, actual.cells[b].type);
    EXPECT_EQ(nodes_of(expected.cells[b]), nodes_of(actual.cells[b]));
  }
  for (const auto& [name, array] : expected.point_data) {
    const NDArray* read = actual.point_data.find(name);
    ASSERT_NE(read, nullptr) << name;
    EXPECT_EQ(array.shape(), read->shape()) << name;
    EXPECT_EQ(double_values(array), double_values(*read)) << name;
  }
  for (const auto& [name, arrays] : expected.cell_data) {
    const auto* read = actual.cell_data.find(name);
    ASSERT_NE(read, nullptr) << name;
    ASSERT_EQ(arrays.size(), read->size());
    for (std::size_t b = 0; b < arrays.size(); ++b) EXPECT_EQ(double_values(arrays[b]), double_values((*read)[b])) << name;
  }
}

TEST(ExodusCorpus, ReadsEveryFileWithTheReferenceCounts) {
  SKIP_WITHOUT_NETCDF();
  SKIP_WITHOUT_CORPUS_DIR();
  const std::vector<ReferenceRow> rows = reference_rows("exodus/");
  ASSERT_EQ(rows.size(), 3u) << "EXPECTED_ref.tsv lists the three exodus files";
  for (const ReferenceRow& row : rows) {
    SCOPED_TRACE(row.file);
    const Mesh mesh = exodus::read(corpus_file(row.file));
    EXPECT_EQ(row.points, mesh.num_points());
    EXPECT_EQ(row.cells, mesh.num_cells());
    EXPECT_NEAR(row.point_sum, point_sum(mesh), 1e-5 * std::abs(row.point_sum));
    ASSERT_FALSE(mesh.cells.empty());
    EXPECT_EQ(row.cell_type, mesh.cells[0].type);
  }
}

TEST(ExodusCorpus, CubitFileWithTheOldNodalLayoutSideSetsAndRecords) {
  SKIP_WITHOUT_NETCDF();
  SKIP_WITHOUT_CORPUS_FILE("exodus/disk_out_ref.ex2");
  const std::string path = corpus_file("exodus/disk_out_ref.ex2");
  const Mesh mesh = exodus::read(path);
  EXPECT_EQ(DType::float32, mesh.points.dtype());  // floating_point_word_size 4, kept
  // vals_nod_var (time_step, num_nod_var, num_nodes): nine variables; V_X/V_Y/V_Z are not
  // meshio's <name>X pattern… unless they are: count them without assuming.
  std::size_t components = 0;
  for (const auto& [name, array] : mesh.point_data) {
    EXPECT_EQ(mesh.num_points(), array.rows()) << name;
    components += static_cast<std::size_t>(array.row_width());
  }
  EXPECT_EQ(9u, components);
  EXPECT_EQ(1u, exodus::time_values(path).size());
  std::size_t side_regions = 0, point_regions = 0;
  for (const Region& region : mesh.regions) {
    if (region.kind == RegionKind::Point) ++point_regions;
    if (region.kind != RegionKind::Side) continue;
    ++side_regions;
    EXPECT_EQ(2, region.dim);
    for (std::int64_t i = 0; i < region.entries.rows(); ++i) {
      EXPECT_LT(region.entries.data_as<std::int64_t>()[2 * i], mesh.num_cells());
      EXPECT_LT(region.entries.data_as<std::int64_t>()[2 * i + 1], 6);
    }
  }
  EXPECT_EQ(7u, side_regions);
  EXPECT_EQ(3u, point_regions);
  const auto* qa = mesh.string_field_data.find("exodus:qa_records");
  ASSERT_NE(qa, nullptr);
  EXPECT_EQ(12u, qa->size());  // three records of four strings
  ASSERT_NE(mesh.string_field_data.find("exodus:info_records"), nullptr);
}

// Every side of a side set lies on the boundary: its corner nodes belong to no other cell's
// facet — the check that the Exodus → ours side conversion picks the right edges.
TEST(ExodusCorpus, SideSetsOfAQuadMeshAreBoundaryEdges) {
  SKIP_WITHOUT_NETCDF();
  SKIP_WITHOUT_CORPUS_FILE("exodus/coarseGrid.e");
  const Mesh mesh = exodus::read(corpus_file("exodus/coarseGrid.e"));
  ASSERT_EQ(1u, mesh.cells.size());
  const CellBlock& quads = mesh.cells[0];
  ASSERT_EQ("quad", quads.type);
  std::multiset<std::pair<std::int64_t, std::int64_t>> edges;
  const auto nodes = quads.connectivity.values<std::int64_t>();
  for (std::int64_t c = 0; c < quads.num_cells(); ++c)
    for (const FacetCorners& facet : cell_facets("quad")) {
      const std::int64_t a = nodes[4 * c + facet.corners[0]], b = nodes[4 * c + facet.corners[1]];
      edges.insert({std::min(a, b), std::max(a, b)});
    }
  std::size_t sides = 0;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Side) continue;
    EXPECT_EQ(1, region.dim);
    for (std::int64_t i = 0; i < region.entries.rows(); ++i, ++sides) {
      const std::int64_t cell = region.entries.data_as<std::int64_t>()[2 * i];
      const FacetCorners facet = cell_facets("quad")[region.entries.data_as<std::int64_t>()[2 * i + 1]];
      const std::int64_t a = nodes[4 * cell + facet.corners[0]], b = nodes[4 * cell + facet.corners[1]];
      EXPECT_EQ(1u, edges.count({std::min(a, b), std::max(a, b)})) << region.name << " entry " << i;
    }
  }
  EXPECT_EQ(40u, sides);  // four side sets of ten sides (num_side_ss1-4)
}

TEST(ExodusRoundTrip, EveryNetcdfKindKeepsBlocksSetsVariablesAndRecords) {
  SKIP_WITHOUT_NETCDF();
  const Mesh mesh = tetra_mesh();
  for (const char* kind : {"NETCDF4", "NETCDF3_64BIT_OFFSET", "NETCDF3_CLASSIC", "NETCDF3_64BIT_DATA"}) {
    SCOPED_TRACE(kind);
    const std::string path = scratch(std::string("tetra_") + kind + ".e").string();
    WriteOptions options;
    options.set("netcdf_format", kind);
    exodus::write(path, mesh, options);
    const Mesh read = exodus::read(path);
    expect_same_mesh(mesh, read);
    const Region* solid = find_region(read, "solid", RegionKind::Cell);
    ASSERT_NE(solid, nullptr);
    EXPECT_EQ(7, solid->tag);
    EXPECT_EQ((std::vector<std::int64_t>{0, 1}), int_values(solid->entries));
    const Region* picked = find_region(read, "picked", RegionKind::Cell);  // an element set
    ASSERT_NE(picked, nullptr);
    EXPECT_EQ((std::vector<std::int64_t>{1, 2}), int_values(picked->entries));
    const Region* fixed = find_region(read, "fixed", RegionKind::Point);
    ASSERT_NE(fixed, nullptr);
    EXPECT_EQ(3, fixed->tag);
    EXPECT_EQ((std::vector<std::int64_t>{0, 4}), int_values(fixed->entries));
    const Region* bottom = find_region(read, "bottom", RegionKind::Side);
    ASSERT_NE(bottom, nullptr);
    EXPECT_EQ(5, bottom->tag);
    EXPECT_EQ((std::vector<std::int64_t>{0, 3, 1, 1}), int_values(bottom->entries));
    ASSERT_NE(read.field_data.find("energy"), nullptr);
    EXPECT_EQ(42.25, read.field_data.find("energy")->data_as<double>()[0]);
    EXPECT_EQ(*mesh.string_field_data.find("exodus:qa_records"), *read.string_field_data.find("exodus:qa_records"));
    EXPECT_EQ(*mesh.string_field_data.find("exodus:info_records"), *read.string_field_data.find("exodus:info_records"));
  }
}

// A large write allocates the variables' blocks ahead (io::reserve_blocks_of, an estimate),
// and what the estimate allocated past the end is freed before the file is published.
TEST(ExodusRoundTrip, LargeWriteLeavesNoBlocksPastTheEnd) {
  SKIP_WITHOUT_NETCDF();
  constexpr std::int64_t kPoints = 60000, kCells = 200000;  // 1.4 MB of points, 3.2 MB of int32 cells in the file
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {kPoints, 3});
  for (std::int64_t i = 0; i < 3 * kPoints; ++i) mesh.points.data_as<double>()[i] = 0.001 * static_cast<double>(i);
  CellBlock tets;
  tets.type = "tetra";
  tets.connectivity = NDArray::allocate(DType::int64, {kCells, 4});
  for (std::int64_t i = 0; i < 4 * kCells; ++i) tets.connectivity.data_as<std::int64_t>()[i] = (i * 7919) % kPoints;
  mesh.cells.push_back(std::move(tets));
  for (const char* kind : {"NETCDF4", "NETCDF3_64BIT_OFFSET"}) {
    SCOPED_TRACE(kind);
    const std::string path = scratch(std::string("large_") + kind + ".e").string();
    WriteOptions options;
    options.set("netcdf_format", kind);
    exodus::write(path, mesh, options);
    const auto size = static_cast<std::int64_t>(std::filesystem::file_size(path));
    EXPECT_GT(size, 4'000'000);  // connectivity stored as int32
    EXPECT_LE(allocated_bytes(path), allocation_allowed(size));
    const Mesh read = exodus::read(path);
    ASSERT_EQ(read.cells.size(), 1u);
    EXPECT_TRUE(same_bits(read.cells[0].connectivity, mesh.cells[0].connectivity));
    EXPECT_TRUE(same_bits(read.points, mesh.points));
  }
}

TEST(ExodusRoundTrip, VectorsAreThreeExodusVariablesAndTheRestKeepTheirShape) {
  SKIP_WITHOUT_NETCDF();
  const std::string path = scratch("layout.e").string();
  exodus::write(path, tetra_mesh(), {});
  io::NetcdfReader file(path, "exodus");
  EXPECT_EQ("netCDF-4", file.kind());  // meshio's default kind
  const std::vector<std::string> names = file.read_strings(file.require("name_nod_var"));
  EXPECT_EQ((std::vector<std::string>{"temperature", "velocityX", "velocityY", "velocityZ", "pair"}), names);
  EXPECT_EQ((std::vector<std::size_t>{1, 5, 2}), file.require("vals_nod_var5").shape);
  EXPECT_EQ("TETRA", file.text_attribute(&file.require("connect1"), "elem_type").value_or(""));
  EXPECT_EQ("TRI3", file.text_attribute(&file.require("connect2"), "elem_type").value_or(""));
  EXPECT_EQ(1u, file.require("time_whole").shape[0]);
  // Side 4 of Exodus's tetra is our facet 3, side 2 our facet 1.
  const NDArray sides = file.read(file.require("side_ss1"), DType::int64, {2});
  EXPECT_EQ((std::vector<std::int64_t>{4, 2}), int_values(sides));
}

TEST(ExodusRoundTrip, QuadraticHexahedraAndWedgesUseExodusNodeOrderInTheFile) {
  SKIP_WITHOUT_NETCDF();
  Mesh mesh;
  std::vector<double> coordinates;
  for (int i = 0; i < 20; ++i) coordinates.insert(coordinates.end(), {double(i), double(i % 3), double(i % 5)});
  mesh.points = doubles({20, 3}, coordinates);
  std::vector<std::int64_t> hex(20), wedge(15);
  for (int i = 0; i < 20; ++i) hex[i] = i;
  for (int i = 0; i < 15; ++i) wedge[i] = 19 - i;
  mesh.cells.push_back({"hexahedron20", int64_matrix(1, 20, hex), {}, {}});
  mesh.cells.push_back({"wedge15", int64_matrix(1, 15, wedge), {}, {}});
  const std::string path = scratch("quadratic.e").string();
  exodus::write(path, mesh, {});
  expect_same_mesh(mesh, exodus::read(path));
  io::NetcdfReader file(path, "exodus");
  const auto stored_hex = int_values(file.read(file.require("connect1"), DType::int64, {20}));
  // Exodus node 13 (1-based) is the first vertical mid-edge node: VTK's (our) node 16.
  EXPECT_EQ(17, stored_hex[12]);
  EXPECT_EQ(13, stored_hex[16]);
  const auto stored_wedge = int_values(file.read(file.require("connect2"), DType::int64, {15}));
  EXPECT_EQ(wedge[12] + 1, stored_wedge[9]);  // Exodus 10 = first vertical edge = our 12
}

TEST(ExodusTypes, PermutationsAreInvolutionsAndNamesMapBothWays) {
  for (const char* type : {"hexahedron20", "wedge15"}) {
    const auto order = exodus::node_permutation(type);
    ASSERT_FALSE(order.empty());
    for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(static_cast<std::int8_t>(i), order[order[i]]);
  }
  for (const char* type : {"line", "triangle", "quad", "quad8", "tetra", "tetra10", "pyramid", "wedge", "hexahedron",
                           "hexahedron20", "hexahedron27", "wedge15", "triangle6", "vertex"}) {
    const std::string_view name = exodus::exodus_name_for(type);
    ASSERT_FALSE(name.empty()) << type;
    const CellTypeInfo* info = find_cell_type(type);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(type, exodus::cell_type_for(name, info->num_nodes)) << name;
  }
  EXPECT_EQ("quad", exodus::cell_type_for("SHELL4", 4));
  EXPECT_EQ("hexahedron20", exodus::cell_type_for("hex", 20));
  EXPECT_EQ("tetra", exodus::cell_type_for("TETRA4", 4));  // meshio says "tetra4", which no one knows
  EXPECT_EQ("", exodus::cell_type_for("HEX", 11));
}

TEST(ExodusRoundTrip, ShellSidesAreNumberedAfterTheTwoFaces) {
  SKIP_WITHOUT_NETCDF();
  Mesh mesh;
  mesh.points = doubles({4, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0});
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.regions.push_back(side_region("edge", 1, {0, 2}));
  mesh.regions.back().dim = 1;
  const std::string path = scratch("shell.e").string();
  exodus::write(path, mesh, {});
  io::NetcdfReader file(path, "exodus");
  EXPECT_EQ(5, int_values(file.read(file.require("side_ss1"), DType::int64, {1}))[0]);
  const Mesh read = exodus::read(path);
  const Region* edge = find_region(read, "edge", RegionKind::Side);
  ASSERT_NE(edge, nullptr);
  EXPECT_EQ((std::vector<std::int64_t>{0, 2}), int_values(edge->entries));
}

// A results file as solvers write it: two steps, an int64 connectivity (netCDF-4), a block
// left out of an element variable by the truth table.
std::string write_two_step_file(const std::string& name) {
  const std::string path = scratch(name).string();
  io::NetcdfWriter out(path, "exodus", io::NetcdfWriter::Kind::netcdf4);
  const int len_name = out.define_dimension("len_name", 33);
  const int time_step = out.define_dimension("time_step", 0);
  out.define_dimension("num_dim", 2);
  const int nodes = out.define_dimension("num_nodes", 4);
  out.define_dimension("num_el_blk", 2);
  const int in_blk1 = out.define_dimension("num_el_in_blk1", 1);
  const int per_el1 = out.define_dimension("num_nod_per_el1", 3);
  const int in_blk2 = out.define_dimension("num_el_in_blk2", 1);
  const int per_el2 = out.define_dimension("num_nod_per_el2", 3);
  const int nod_var = out.define_dimension("num_nod_var", 1);
  const int elem_var = out.define_dimension("num_elem_var", 1);
  const int time = out.define_variable("time_whole", DType::float64, std::vector<int>{time_step});
  const int x = out.define_variable("coordx", DType::float64, std::vector<int>{nodes});
  const int y = out.define_variable("coordy", DType::float64, std::vector<int>{nodes});
  const int connect1 = out.define_variable("connect1", DType::int64, std::vector<int>{in_blk1, per_el1});
  out.put_text_attribute(connect1, "elem_type", "TRI3");
  const int connect2 = out.define_variable("connect2", DType::int64, std::vector<int>{in_blk2, per_el2});
  out.put_text_attribute(connect2, "elem_type", "TRIANGLE");
  const int nod_names = out.define_text_variable("name_nod_var", std::vector<int>{nod_var, len_name});
  const int nod_values = out.define_variable("vals_nod_var1", DType::float64, std::vector<int>{time_step, nodes});
  const int elem_names = out.define_text_variable("name_elem_var", std::vector<int>{elem_var, len_name});
  const int elem_values = out.define_variable("vals_elem_var1eb2", DType::float32, std::vector<int>{time_step, in_blk2});
  out.end_definitions();
  const double times[2] = {0.5, 1.5}, xs[4] = {0, 1, 1, 0}, ys[4] = {0, 0, 1, 1};
  const std::int64_t c1[3] = {1, 2, 3}, c2[3] = {1, 3, 4};
  const double nodal[8] = {1, 2, 3, 4, 10, 20, 30, 40};
  const float element[2] = {7, 8};
  const std::size_t start[2] = {0, 0}, two_steps[2] = {2, 4}, two_steps_one[2] = {2, 1}, step_count[1] = {2};
  out.write(time, DType::float64, times, start, step_count);
  out.write(x, DType::float64, xs);
  out.write(y, DType::float64, ys);
  out.write(connect1, DType::int64, c1);
  out.write(connect2, DType::int64, c2);
  out.write_strings(nod_names, std::vector<std::string>{"u"});
  out.write(nod_values, DType::float64, nodal, start, two_steps);
  out.write_strings(elem_names, std::vector<std::string>{"e"});
  out.write(elem_values, DType::float32, element, start, two_steps_one);
  out.commit();
  return path;
}

TEST(ExodusTimeSteps, EveryStepIsReachableAndStepZeroIsTheDefault) {
  SKIP_WITHOUT_NETCDF();
  const std::string path = write_two_step_file("steps.e");
  EXPECT_EQ((std::vector<double>{0.5, 1.5}), exodus::time_values(path));
  const Mesh first = exodus::read(path);
  EXPECT_EQ((std::vector<double>{1, 2, 3, 4}), double_values(*first.point_data.find("u")));
  const Mesh second = exodus::read_step(path, 1);
  EXPECT_EQ((std::vector<double>{10, 20, 30, 40}), double_values(*second.point_data.find("u")));
  const auto& element = *second.cell_data.find("e");
  ASSERT_EQ(2u, element.size());
  EXPECT_TRUE(std::isnan(element[0].data_as<double>()[0]));  // block 1 is not in the truth table
  EXPECT_EQ(8.0f, element[1].data_as<float>()[0]);
  EXPECT_EQ((std::vector<std::int64_t>{0, 2, 3}), nodes_of(second.cells[1]));
  const ReadError error = expect_read_error([&] { exodus::read_step(path, 2); });
  EXPECT_NE(std::string(error.what()).find("time_whole"), std::string::npos) << error.what();
}

TEST(ExodusErrors, NameTheFileAndTheVariable) {
  SKIP_WITHOUT_NETCDF();
  const std::string not_netcdf = write_scratch("text.e", "this is not a netCDF file\n");
  ReadError error = expect_read_error([&] { exodus::read(not_netcdf); });
  EXPECT_NE(std::string(error.what()).find("text.e"), std::string::npos) << error.what();
  EXPECT_NE(std::string(error.what()).find("not a netCDF file"), std::string::npos) << error.what();

  Mesh mesh = tetra_mesh();
  const std::string path = scratch("broken.e").string();
  exodus::write(path, mesh, {});
  // A node number past num_nodes in connect1.
  {
    io::NetcdfWriter out(scratch("bad_index.e").string(), "exodus", io::NetcdfWriter::Kind::classic);
    out.define_dimension("num_dim", 3);
    const int nodes = out.define_dimension("num_nodes", 1);
    out.define_dimension("num_el_blk", 1);
    const int cells = out.define_dimension("num_el_in_blk1", 1);
    const int per = out.define_dimension("num_nod_per_el1", 1);
    const int x = out.define_variable("coordx", DType::float64, std::vector<int>{nodes});
    const int y = out.define_variable("coordy", DType::float64, std::vector<int>{nodes});
    const int z = out.define_variable("coordz", DType::float64, std::vector<int>{nodes});
    const int connect = out.define_variable("connect1", DType::int32, std::vector<int>{cells, per});
    out.put_text_attribute(connect, "elem_type", "SPHERE");
    out.end_definitions();
    const double zero = 0;
    const std::int32_t two = 2;
    out.write(x, DType::float64, &zero);
    out.write(y, DType::float64, &zero);
    out.write(z, DType::float64, &zero);
    out.write(connect, DType::int32, &two);
    out.commit();
  }
  error = expect_read_error([&] { exodus::read(scratch("bad_index.e").string()); });
  EXPECT_NE(std::string(error.what()).find("bad_index.e"), std::string::npos) << error.what();
  EXPECT_NE(std::string(error.what()).find("connect1"), std::string::npos) << error.what();
  // A file cut short: netCDF refuses it, or a variable is missing its bytes.
  const std::string whole = read_file(path);
  const std::string truncated = write_scratch("truncated.e", whole.substr(0, whole.size() / 2));
  error = expect_read_error([&] { exodus::read(truncated); });
  EXPECT_NE(std::string(error.what()).find("truncated.e"), std::string::npos) << error.what();
}

// One TETRA element on four nodes and a side set of one (element 1, `side`): the file the side
// and node-number error tests vary. `index_type` is the integer type of connect1 and the side
// set (int64 needs CDF5 or netCDF-4).
void write_one_tetra_with_a_side(const std::string& path, io::NetcdfWriter::Kind kind, DType index_type,
                                 std::int64_t fourth_node, std::int64_t side) {
  io::NetcdfWriter out(path, "exodus", kind);
  out.define_dimension("num_dim", 3);
  const int nodes = out.define_dimension("num_nodes", 4);
  out.define_dimension("num_el_blk", 1);
  const int cells = out.define_dimension("num_el_in_blk1", 1);
  const int per = out.define_dimension("num_nod_per_el1", 4);
  out.define_dimension("num_side_sets", 1);
  const int sides_dim = out.define_dimension("num_side_ss1", 1);
  const int x = out.define_variable("coordx", DType::float64, std::vector<int>{nodes});
  const int y = out.define_variable("coordy", DType::float64, std::vector<int>{nodes});
  const int z = out.define_variable("coordz", DType::float64, std::vector<int>{nodes});
  const int connect = out.define_variable("connect1", index_type, std::vector<int>{cells, per});
  out.put_text_attribute(connect, "elem_type", "TETRA");
  const int elem_ss = out.define_variable("elem_ss1", index_type, std::vector<int>{sides_dim});
  const int side_ss = out.define_variable("side_ss1", index_type, std::vector<int>{sides_dim});
  out.end_definitions();
  const double coordinates[4] = {0, 1, 0, 0};
  out.write(x, DType::float64, coordinates);
  out.write(y, DType::float64, coordinates);
  out.write(z, DType::float64, coordinates);
  const std::int64_t nodes_of_cell[4] = {1, 2, 3, fourth_node}, one = 1;
  if (index_type == DType::int64) {
    out.write(connect, DType::int64, nodes_of_cell);
    out.write(elem_ss, DType::int64, &one);
    out.write(side_ss, DType::int64, &side);
  } else {
    const std::int32_t narrow[4] = {1, 2, 3, static_cast<std::int32_t>(fourth_node)}, one32 = 1,
                       side32 = static_cast<std::int32_t>(side);
    out.write(connect, DType::int32, narrow);
    out.write(elem_ss, DType::int32, &one32);
    out.write(side_ss, DType::int32, &side32);
  }
  out.commit();
}

TEST(ExodusErrors, UnknownElementTypeAndBadSideNumber) {
  SKIP_WITHOUT_NETCDF();
  const std::string path = scratch("unknown.e").string();
  write_one_tetra_with_a_side(path, io::NetcdfWriter::Kind::offset64, DType::int32, 4, 7);
  const ReadError error = expect_read_error([&] { exodus::read(path); });
  EXPECT_NE(std::string(error.what()).find("side_ss1"), std::string::npos) << error.what();
}

// int64 node and side numbers at the limits (CDF5, as 64-bit Exodus files are): `n - 1` was
// formed before the range check, signed overflow on INT64_MIN; now a ReadError without UB
// (the sanitizer lane runs this under UBSan), quoting the number as it is in the file.
TEST(ExodusErrors, NumbersAtTheInt64LimitsAreReadErrorsWithoutOverflow) {
  SKIP_WITHOUT_NETCDF();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  struct Case {
    std::int64_t node, side;
    const char* variable;
  };
  int n = 0;
  for (const Case c : {Case{kMin, 1, "connect1"}, Case{kMax, 1, "connect1"}, Case{1, kMin, "side_ss1"}, Case{1, kMax, "side_ss1"}}) {
    const std::string path = scratch("limits" + std::to_string(n++) + ".e").string();
    write_one_tetra_with_a_side(path, io::NetcdfWriter::Kind::cdf5, DType::int64, c.node, c.side);
    const ReadError error = expect_read_error([&] { exodus::read(path); });
    EXPECT_NE(std::string(error.what()).find(c.variable), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(std::to_string(c.variable[0] == 'c' ? c.node : c.side)), std::string::npos)
        << error.what();
  }
}

}  // namespace

namespace {

// meshio's empty_mesh: no points, no cells (netCDF has no empty fixed dimension: none is written).
TEST(ExodusRoundTrip, EmptyMesh) {
  SKIP_WITHOUT_NETCDF();
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {0, 3});
  const std::string path = scratch("empty.e").string();
  exodus::write(path, mesh, {});
  const Mesh read = exodus::read(path);
  EXPECT_EQ((Shape{0, 3}), read.points.shape());
  EXPECT_TRUE(read.cells.empty());
}

}  // namespace

namespace {

TEST(ExodusTimeSteps, TimeSeriesInterfaceReadsOneStepAtATime) {
  SKIP_WITHOUT_NETCDF();
  const std::string path = write_two_step_file("series.e");
  const std::unique_ptr<TimeSeriesReader> series = exodus::open_time_series(path);
  ASSERT_EQ(2u, series->num_steps());
  EXPECT_EQ(1.5, series->time(1));
  const Mesh mesh = series->read_mesh();
  EXPECT_EQ(4, mesh.num_points());
  EXPECT_TRUE(mesh.point_data.empty());
  const TimeStep step = series->read_step(1);
  EXPECT_EQ(1.5, step.time);
  EXPECT_EQ((std::vector<double>{10, 20, 30, 40}), double_values(*step.point_data.find("u")));
  ASSERT_EQ(mesh.cells.size(), step.cell_data.find("e")->size());
  EXPECT_EQ(8.0f, step.cell_data.find("e")->at(1).data_as<float>()[0]);
  const ReadError error = expect_read_error([&] { series->read_step(2); });
  EXPECT_NE(std::string(error.what()).find("series.e"), std::string::npos) << error.what();
}

}  // namespace

namespace {

// ---- element type names ----------------------------------------------------------------

// The names of the Exodus II documentation and of VTK's vtkExodusIIReader, in the spellings
// files carry them (any case, with or without the node count), with the node count of the block.
TEST(ExodusTypes, EveryDocumentedAndVtkNameReads) {
  struct Case {
    const char* name;
    std::int64_t nodes;
    const char* type;
  };
  for (const Case& c : {
           Case{"EDGE2", 2, "line"},         Case{"EDGE3", 3, "line3"},         Case{"EDGE", 2, "line"},
           Case{"edge2", 2, "line"},         Case{"BEAM", 2, "line"},           Case{"BEAM2", 2, "line"},
           Case{"BEAM3", 3, "line3"},        Case{"BAR", 2, "line"},            Case{"BAR2", 2, "line"},
           Case{"BAR3", 3, "line3"},         Case{"TRUSS", 2, "line"},          Case{"TRUSS2", 2, "line"},
           Case{"TRUSS3", 3, "line3"},       Case{"SPRING", 2, "line"},         Case{"STRAIGHT", 2, "line"},
           Case{"SHELL2", 2, "line"},        Case{"CIRCLE", 1, "vertex"},       Case{"SPHERE", 1, "vertex"},
           Case{"TRI", 3, "triangle"},       Case{"TRI3", 3, "triangle"},       Case{"TRI6", 6, "triangle6"},
           Case{"TRI7", 7, "triangle7"},     Case{"TRIANGLE", 3, "triangle"},   Case{"TRISHELL", 3, "triangle"},
           Case{"TRISHELL3", 3, "triangle"}, Case{"TRISHELL6", 6, "triangle6"}, Case{"SHELL", 4, "quad"},
           Case{"SHELL4", 4, "quad"},        Case{"SHELL8", 8, "quad8"},        Case{"SHELL9", 9, "quad9"},
           Case{"QUAD", 4, "quad"},          Case{"QUAD4", 4, "quad"},          Case{"QUAD5", 5, "quad5"},
           Case{"QUAD8", 8, "quad8"},        Case{"QUAD9", 9, "quad9"},         Case{"TETRA", 4, "tetra"},
           Case{"TET", 4, "tetra"},          Case{"TET4", 4, "tetra"},          Case{"TETRA4", 4, "tetra"},
           Case{"TETRA10", 10, "tetra10"},   Case{"TET10", 10, "tetra10"},      Case{"TETRA14", 14, "tetra14"},
           Case{"HEX", 8, "hexahedron"},     Case{"HEX8", 8, "hexahedron"},     Case{"HEX20", 20, "hexahedron20"},
           Case{"HEX27", 27, "hexahedron27"}, Case{"WEDGE", 6, "wedge"},        Case{"WEDGE6", 6, "wedge"},
           Case{"WEDGE15", 15, "wedge15"},   Case{"WEDGE18", 18, "wedge18"},    Case{"PYRAMID", 5, "pyramid"},
           Case{"PYRAMID5", 5, "pyramid"},   Case{"PYRAMID13", 13, "pyramid13"}, Case{"PYRAMID14", 14, "pyramid14"},
           Case{"NSIDED", 0, "polygon"},     Case{"nsided", 0, "polygon"},      Case{"NFACED", 0, "polyhedron"},
           // The node count decides where the name does not; Fortran writers pad with blanks.
           Case{"TETRA", 10, "tetra10"},     Case{"Tetra4", 10, "tetra10"},     Case{"HEX ", 27, "hexahedron27"},
       })
    EXPECT_EQ(c.type, exodus::cell_type_for(c.name, c.nodes)) << c.name << " with " << c.nodes << " nodes";
  // Members without a cell type of ours, and names no one documents.
  for (const auto& [name, nodes] : std::vector<std::pair<const char*, std::int64_t>>{
           {"TETRA15", 15}, {"TRI4", 4}, {"SHELL3", 3}, {"WEDGE21", 21}, {"SUPER", 7}, {"HEXSHELL", 12}, {"", 4}, {"8", 8}})
    EXPECT_EQ("", exodus::cell_type_for(name, nodes)) << name;
}

TEST(ExodusElementTypes, BarsShellsAndPolygonsOfTheNewNamesRead) {
  SKIP_WITHOUT_NETCDF();
  const std::string path = write_blocks_file(
      "new_names.e", kSixPoints,
      {TestBlock{"EDGE2", "wire", 1, 2, {1, 2, 2, 3}, {}}, TestBlock{"BEAM", "", 2, 2, {3, 4}, {}},
       TestBlock{"TRUSS", "strut", 3, 2, {1, 5}, {}}, TestBlock{"SHELL4", "skin", 4, 4, {1, 2, 3, 4}, {}},
       TestBlock{"NSIDED", "caps", 5, 0, {1, 2, 6, 5, 2, 3, 6}, {4, 3}}});
  const Mesh mesh = exodus::read(path);
  ASSERT_EQ(5u, mesh.cells.size());
  const std::vector<std::string> types{"line", "line", "line", "quad", "polygon"};
  for (std::size_t b = 0; b < types.size(); ++b) EXPECT_EQ(types[b], mesh.cells[b].type) << b;
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 1, 2}), nodes_of(mesh.cells[0]));
  EXPECT_EQ((std::vector<std::int64_t>{2, 3}), nodes_of(mesh.cells[1]));
  EXPECT_EQ((std::vector<std::int64_t>{0, 4}), nodes_of(mesh.cells[2]));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 3}), nodes_of(mesh.cells[3]));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 5, 4, 1, 2, 5}), nodes_of(mesh.cells[4]));
  EXPECT_EQ((std::vector<std::int64_t>{0, 4, 7}), int_values(mesh.cells[4].offsets));
  // One Cell region per block, unnamed blocks called after their id.
  for (const char* name : {"wire", "block_2", "strut", "skin", "caps"}) EXPECT_NE(find_region(mesh, name, RegionKind::Cell), nullptr) << name;
  EXPECT_EQ((std::vector<std::int64_t>{2}), int_values(find_region(mesh, "block_2")->entries));
}

// A pyramid over the square as an NFACED element: its base from an NSIDED face block, its four
// sides from a TRI3 face block (faces numbered across both), and a second entry reusing two
// of those faces in another order: a shared face is copied into each polyhedron.
TEST(ExodusElementTypes, NfacedPolyhedraTakeTheirFacesFromEveryFaceBlock) {
  SKIP_WITHOUT_NETCDF();
  const std::vector<double> xyz{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 1, 0.5, 0.5, -1};
  const std::string path = write_blocks_file(
      "nfaced.e", xyz, {TestBlock{"NFACED", "pyramids", 9, 0, {1, 2, 3, 4, 5, 5, 1}, {5, 2}}},
      {TestBlock{"NSIDED", "", 1, 0, {1, 4, 3, 2}, {4}},
       TestBlock{"TRI3", "", 2, 3, {1, 2, 5, 2, 3, 5, 3, 4, 5, 4, 1, 5}, {}}});
  const Mesh mesh = exodus::read(path);
  ASSERT_EQ(1u, mesh.cells.size());
  const CellBlock& block = mesh.cells[0];
  EXPECT_EQ("polyhedron", block.type);
  EXPECT_EQ((std::vector<std::int64_t>{0, 5, 7}), int_values(block.offsets));
  EXPECT_EQ((std::vector<std::int64_t>{0, 4, 7, 10, 13, 16, 19, 23}), int_values(block.face_offsets));
  EXPECT_EQ((std::vector<std::int64_t>{0, 3, 2, 1, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4, 3, 0, 4, 0, 3, 2, 1}),
            nodes_of(block));
  const Region* region = find_region(mesh, "pyramids", RegionKind::Cell);
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(9, region->tag);
  EXPECT_EQ(3, region->dim);
  // A face number past the face blocks names facconn1.
  const std::string bad = write_blocks_file("nfaced_bad.e", xyz, {TestBlock{"NFACED", "", 1, 0, {1, 6}, {2}}},
                                            {TestBlock{"TRI3", "", 2, 3, {1, 2, 5, 2, 3, 5, 3, 4, 5, 4, 1, 5, 1, 2, 3}, {}}});
  const ReadError error = expect_read_error([&] { exodus::read(bad); });
  EXPECT_NE(std::string(error.what()).find("facconn1"), std::string::npos) << error.what();
  EXPECT_NE(std::string(error.what()).find("outside 1..5"), std::string::npos) << error.what();
}

TEST(ExodusErrors, ATypeWithoutACellTypeNamesTheTypeAndTheBlock) {
  SKIP_WITHOUT_NETCDF();
  std::vector<std::int64_t> fifteen(15);
  for (std::size_t i = 0; i < fifteen.size(); ++i) fifteen[i] = static_cast<std::int64_t>(i % 6) + 1;
  const std::string path = write_blocks_file("tetra15.e", kSixPoints, {TestBlock{"TETRA15", "solid", 7, 15, fifteen, {}}});
  const ReadError error = expect_read_error([&] { exodus::read(path); });
  const std::string message = error.what();
  for (const char* part : {"TETRA15", "15 nodes", "'solid'", "block 7", "connect1"})
    EXPECT_NE(message.find(part), std::string::npos) << part << ": " << message;
}

// tests/data/exodus/tmap8_val-2d_limited_out.e: a MOOSE (TMAP8) result file, 1-D in 3-D
// space, two unnamed EDGE2 blocks — the block type the reader used to refuse.
TEST(ExodusRealFiles, MooseEdge2BlocksRead) {
  SKIP_WITHOUT_NETCDF();
  const std::filesystem::path path = meshioplusplus::testing::test_data_dir() / "exodus" / "tmap8_val-2d_limited_out.e";
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing (tests/data/MANIFEST.tsv)";
  const Mesh mesh = exodus::read(path.string());
  EXPECT_EQ(22, mesh.num_points());
  EXPECT_EQ((Shape{22, 3}), mesh.points.shape());
  EXPECT_NEAR(113.5495, point_sum(mesh), 1e-9);
  ASSERT_EQ(2u, mesh.cells.size());
  EXPECT_EQ("line", mesh.cells[0].type);
  EXPECT_EQ("line", mesh.cells[1].type);
  EXPECT_EQ(10, mesh.cells[0].num_cells());
  EXPECT_EQ(11, mesh.cells[1].num_cells());
  const Region* first = find_region(mesh, "block_0", RegionKind::Cell);  // block ids 0 and 1
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(1, first->dim);
  ASSERT_NE(find_region(mesh, "block_1", RegionKind::Cell), nullptr);
  for (const auto& [name, node] : std::vector<std::pair<const char*, std::int64_t>>{{"left", 0}, {"right", 21}}) {
    const Region* nodes = find_region(mesh, name, RegionKind::Point);
    ASSERT_NE(nodes, nullptr) << name;
    EXPECT_EQ((std::vector<std::int64_t>{node}), int_values(nodes->entries)) << name;
    // Sides of bars are end points, no facet of ours: the side sets come back empty.
    const Region* sides = find_region(mesh, name, RegionKind::Side);
    ASSERT_NE(sides, nullptr) << name;
    EXPECT_EQ(0, sides->entries.rows()) << name;
  }
  EXPECT_EQ(5u, exodus::time_values(path.string()).size());
  EXPECT_EQ(3u, mesh.point_data.size());
  for (const auto& [name, per_block] : mesh.cell_data) {
    ASSERT_EQ(2u, per_block.size()) << name;
    EXPECT_EQ(11, per_block[1].rows()) << name;
  }
}

}  // namespace
