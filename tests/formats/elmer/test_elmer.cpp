// Elmer mesh directories: ElmerGrid meshes from elmerfem's tests (tests/data/elmer), the
// node orders that differ from VTK's, names, round trips, the registry's directory rule and
// malformed files naming their file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "formats/elmer/elmer.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

const fs::path kDataDir = meshioplusplus::testing::test_data_dir() / "elmer";

std::string data(const std::string& name) {
  EXPECT_TRUE(fs::exists(kDataDir / name / "mesh.header")) << "tests/data/elmer/" << name << " is missing (tests/data/MANIFEST.tsv)";
  return (kDataDir / name).string();
}

std::vector<std::int64_t> cell_values(const Mesh& mesh, const std::string& name) {
  std::vector<std::int64_t> values;
  for (const NDArray& array : *mesh.cell_data.find(name)) {
    const std::vector<std::int64_t> block = int_values(array);
    values.insert(values.end(), block.begin(), block.end());
  }
  return values;
}

std::vector<std::string> region_names(const Mesh& mesh) {
  std::vector<std::string> names;
  for (const Region& region : mesh.regions) names.push_back(region.name);
  return names;
}

// A mesh directory in scratch space from the four files' text.
std::string write_mesh(const std::string& name, const std::string& header, const std::string& nodes,
                       const std::string& elements, const std::string& boundary) {
  const fs::path directory = scratch(name);
  fs::create_directories(directory);
  write_file(directory / "mesh.header", header);
  write_file(directory / "mesh.nodes", nodes);
  write_file(directory / "mesh.elements", elements);
  write_file(directory / "mesh.boundary", boundary);
  return directory.string();
}

const char* const kHeader = "4 1 1\n2\n504 1\n303 1\n";
const char* const kNodes = "1 -1 0 0 0\n2 -1 1 0 0\n3 -1 0 1 0\n4 -1 0 0 1\n";
const char* const kElements = "1 3 504 1 2 3 4\n";
const char* const kBoundary = "1 7 1 0 303 1 3 2\n";

}  // namespace

TEST(ElmerRead, EveryLinearTypeOfElementUnitTest) {
  const Mesh mesh = elmer::read(data("unitelems"));
  EXPECT_EQ(mesh.points.shape(), (Shape{8, 3}));
  EXPECT_EQ(point_sum(mesh), 12.0);
  EXPECT_EQ(block_summary(mesh), "hexahedron:1;wedge:1;pyramid:1;tetra:1;quad:1;triangle:1");
  EXPECT_EQ(nodes_of(mesh.cells[1]), (std::vector<std::int64_t>{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(cell_values(mesh, "elmer:body"), (std::vector<std::int64_t>{1, 1, 1, 1, 0, 0}));
  EXPECT_EQ(cell_values(mesh, "elmer:boundary"), (std::vector<std::int64_t>{0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(region_names(mesh), (std::vector<std::string>{"body 1", "boundary 1"}));
  EXPECT_EQ(mesh.regions[0].dim, 3);
  EXPECT_EQ(mesh.regions[1].dim, 2);
  EXPECT_EQ(int_values(mesh.regions[1].entries), (std::vector<std::int64_t>{4, 5}));
}

TEST(ElmerRead, NamesFromMeshNames) {
  const Mesh mesh = elmer::read(data("cubes") + "/mesh.header");  // a mesh.* file names its directory
  EXPECT_EQ(mesh.points.rows(), 189);
  EXPECT_EQ(block_summary(mesh), "hexahedron:91;quad:100");
  EXPECT_EQ(region_names(mesh), (std::vector<std::string>{"lower_block", "upper_block", "lower_block_bot", "lower_block_top",
                                                          "upper_block_bot", "upper_block_top", "symmetry_yz", "symmetry_xz"}));
  EXPECT_EQ(mesh.regions[0].tag, 55);
  EXPECT_EQ(mesh.regions[7].tag, 62);
  std::int64_t cells = 0;
  for (const Region& region : mesh.regions) cells += region.entries.rows();
  EXPECT_EQ(cells, 191);
}

TEST(ElmerRead, Hexahedron20InVtkOrder) {
  const Mesh mesh = elmer::read(data("strain01"));
  EXPECT_EQ(block_summary(mesh), "hexahedron20:32;quad8:64");
  // Every VTK mid-edge node lies halfway between the corners of its VTK edge.
  const double* xyz = mesh.points.data_as<double>();
  const int edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const std::vector<std::int64_t> nodes = nodes_of(mesh.cells[0]);
  for (std::size_t cell = 0; cell < 32; ++cell)
    for (int e = 0; e < 12; ++e)
      for (int k = 0; k < 3; ++k) {
        const double mid = (xyz[3 * nodes[cell * 20 + edges[e][0]] + k] + xyz[3 * nodes[cell * 20 + edges[e][1]] + k]) / 2;
        EXPECT_NEAR(xyz[3 * nodes[cell * 20 + 8 + e] + k], mid, 1e-6) << "cell " << cell << " edge " << e;
      }
}

TEST(ElmerRead, MixedMeshWithPointAndLineBoundaries) {
  const Mesh mesh = elmer::read(data("wire_pair"));
  EXPECT_EQ(mesh.points.rows(), 960);
  EXPECT_EQ(mesh.num_cells(), 825 + 1374);
  std::int64_t bulk = 0, boundary = 0;
  for (std::int64_t body : cell_values(mesh, "elmer:body")) bulk += body > 0;
  for (std::int64_t tag : cell_values(mesh, "elmer:boundary")) boundary += tag > 0;
  EXPECT_EQ(bulk, 825);
  EXPECT_EQ(boundary, 1374);
  EXPECT_NE(find_region(mesh, "air"), nullptr);
  ASSERT_NE(find_region(mesh, "coil_t2"), nullptr);
  EXPECT_EQ(find_region(mesh, "coil_t2")->tag, 21);
}

TEST(ElmerRead, UnmappedTypeIsRefusedByName) {
  // elmerfem's L2ndDerivatives mesh holds a 412 (12-node quadrilateral): no meshio cell type.
  const ReadError error = expect_read_error([&] { elmer::read(data("l2nd")); });
  EXPECT_NE(error.reason().find("412"), std::string::npos) << error.what();
  EXPECT_NE(error.path().find("mesh.elements"), std::string::npos);
  EXPECT_EQ(error.line(), 10u);
}

TEST(ElmerRoundTrip, RealMeshesKeepPointsCellsTagsAndNames) {
  for (const char* name : {"unitelems", "cubes", "strain01", "wire_pair", "springs_beam"}) {
    const Mesh mesh = elmer::read(data(name));
    const std::string out = scratch(std::string("rt_") + name).string();
    elmer::write(out, mesh, {});
    const Mesh back = elmer::read(out);
    EXPECT_TRUE(same_bits(back.points, mesh.points)) << name;
    ASSERT_EQ(block_summary(back), block_summary(mesh)) << name;
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) EXPECT_EQ(nodes_of(back.cells[b]), nodes_of(mesh.cells[b])) << name;
    EXPECT_EQ(cell_values(back, "elmer:body"), cell_values(mesh, "elmer:body")) << name;
    EXPECT_EQ(cell_values(back, "elmer:boundary"), cell_values(mesh, "elmer:boundary")) << name;
    EXPECT_EQ(region_names(back), region_names(mesh)) << name;
  }
}

TEST(ElmerWrite, ParentsAndHeaderFromTheCells) {
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  mesh.cells.push_back(CellBlock{"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back(CellBlock{"triangle", int64_matrix(2, 3, {0, 2, 1, 1, 2, 3}), {}, {}});
  mesh.regions.push_back(cell_region("bottom", 2, 1, {1}));
  const std::string out = scratch("tet").string();
  elmer::write(out, mesh, {});
  EXPECT_EQ(read_file(fs::path(out) / "mesh.header"), "4 1 2\n2\n303 2\n504 1\n");
  EXPECT_EQ(read_file(fs::path(out) / "mesh.elements"), "1 1 504 1 2 3 4\n");
  EXPECT_EQ(read_file(fs::path(out) / "mesh.boundary"), "1 1 1 0 303 1 3 2\n2 1 1 0 303 2 3 4\n");
  EXPECT_EQ(read_file(fs::path(out) / "mesh.names"), "! ----- names for bodies -----\n! ----- names for boundaries -----\n$ bottom = 1\n");
  EXPECT_EQ(format_for_path(out)->name, "elmer");
  EXPECT_EQ(read(out, "").cells.size(), 2u);  // through the registry, by the directory

  mesh.cells[0].type = "quad";
  mesh.cells[0].connectivity = int64_matrix(1, 4, {0, 1, 2, 3});
  mesh.cells.push_back(CellBlock{"triangle7", int64_matrix(1, 7, {0, 1, 2, 3, 0, 1, 2}), {}, {}});
  EXPECT_THROW(elmer::write(scratch("bad").string(), mesh, {}), WriteError);
}

TEST(ElmerErrors, MalformedFilesNameFileAndLine) {
  const ReadError missing_node = expect_read_error(
      [&] { elmer::read(write_mesh("missing", kHeader, kNodes, "1 3 504 1 2 3 9\n", kBoundary)); });
  EXPECT_NE(missing_node.path().find("mesh.elements"), std::string::npos);
  EXPECT_EQ(missing_node.format(), "elmer");
  EXPECT_EQ(missing_node.line(), 1u);
  EXPECT_NE(missing_node.reason().find("node 9"), std::string::npos) << missing_node.what();

  const ReadError short_element =
      expect_read_error([&] { elmer::read(write_mesh("short", kHeader, kNodes, "1 3 504 1 2 3\n2 3 504 1 2 3 4\n", kBoundary)); });
  EXPECT_EQ(short_element.line(), 1u);
  const ReadError bad_number = expect_read_error(
      [&] { elmer::read(write_mesh("number", kHeader, "1 -1 0 0 0\n2 -1 1 0x 0\n3 -1 0 1 0\n4 -1 0 0 1\n", kElements, kBoundary)); });
  EXPECT_NE(bad_number.path().find("mesh.nodes"), std::string::npos);
  EXPECT_EQ(bad_number.line(), 2u);
  const ReadError repeated = expect_read_error(
      [&] { elmer::read(write_mesh("repeated", kHeader, "1 -1 0 0 0\n1 -1 1 0 0\n", kElements, kBoundary)); });
  EXPECT_NE(repeated.reason().find("twice"), std::string::npos);
  const ReadError bad_type =
      expect_read_error([&] { elmer::read(write_mesh("type", kHeader, kNodes, kElements, "1 7 1 0 999 1 3 2\n")); });
  EXPECT_NE(bad_type.reason().find("999"), std::string::npos);
  EXPECT_NE(bad_type.path().find("mesh.boundary"), std::string::npos);
  // A header claiming billions of records is a hint, not an allocation.
  const Mesh huge = elmer::read(write_mesh("huge", "4000000000000 4000000000000 4000000000000\n", kNodes, kElements, kBoundary));
  EXPECT_EQ(block_summary(huge), "tetra:1;triangle:1");
  EXPECT_THROW(elmer::read(write_mesh("header", "4 x 1\n", kNodes, kElements, kBoundary)), ReadError);
  EXPECT_THROW(elmer::read(write_mesh("empty", " \n", kNodes, kElements, kBoundary)), ReadError);
  EXPECT_THROW(elmer::read(scratch("nowhere").string()), ReadError);
  const fs::path partition = scratch("partitioning.2");
  fs::create_directories(partition);
  write_file(partition / "part.1.header", kHeader);
  EXPECT_NE(expect_read_error([&] { elmer::read(partition.string()); }).reason().find("partitioned"), std::string::npos);
}

TEST(ElmerErrors, TruncatedRealFilesAreReadErrors) {
  const std::string elements = read_file(fs::path(data("strain01")) / "mesh.elements");
  for (std::size_t cut : {std::size_t{1}, elements.size() / 3, elements.size() - 7}) {
    const fs::path directory = scratch("cut" + std::to_string(cut));
    fs::create_directories(directory);
    for (const char* file : {"mesh.header", "mesh.nodes", "mesh.boundary"})
      fs::copy_file(fs::path(data("strain01")) / file, directory / file, fs::copy_options::overwrite_existing);
    write_file(directory / "mesh.elements", elements.substr(0, cut));
    EXPECT_THROW(elmer::read(directory.string()), ReadError) << cut;
  }
}
