// OpenFOAM polyMesh writer and the shared io::faces_from_cells: hand-made meshes (one hexahedron,
// two tetrahedra sharing a face, a polyhedron on a hexahedron beside a boundary quad, a block of
// hexahedra) give the face, owner and neighbour arrays OpenFOAM would write, checked exactly;
// every face's normal points out of its owner; Side regions become patches; ASCII and binary
// files as OpenFOAM lays them out; errors name the file and leave an existing case whole.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/openfoam/openfoam.hpp"
#include "io/cells/faces_from_cells.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;
using I64 = std::vector<std::int64_t>;

namespace {

Mesh one_hex() {
  Mesh mesh;
  mesh.points = array_of<double>({8, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1});
  mesh.cells.push_back({"hexahedron", int64_matrix(1, 8, {0, 1, 2, 3, 4, 5, 6, 7}), {}, {}});
  return mesh;
}

Mesh two_tets() {
  Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  mesh.cells.push_back({"tetra", int64_matrix(2, 4, {0, 1, 2, 3, 1, 2, 3, 4}), {}, {}});
  return mesh;
}

// A polyhedron (the cube z in [1, 2]) first, a boundary quad, then the hexahedron below it.
Mesh polyhedron_on_hex() {
  Mesh mesh;
  std::vector<double> xyz;
  for (int z = 0; z < 3; ++z)
    for (const auto& [x, y] : std::array<std::array<double, 2>, 4>{{{0, 0}, {1, 0}, {1, 1}, {0, 1}}})
      xyz.insert(xyz.end(), {x, y, static_cast<double>(z)});
  mesh.points = array_of<double>({12, 3}, xyz);
  mesh.cells.push_back({"polyhedron",
                        int64_vector({4, 7, 6, 5, 8, 9, 10, 11, 4, 5, 9, 8, 5, 6, 10, 9, 6, 7, 11, 10, 7, 4, 8, 11}),
                        int64_vector({0, 6}), int64_vector({0, 4, 8, 12, 16, 20, 24})});
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {0, 3, 2, 1}), {}, {}});
  mesh.cells.push_back({"hexahedron", int64_matrix(1, 8, {0, 1, 2, 3, 4, 5, 6, 7}), {}, {}});
  return mesh;
}

// nx * ny * nz unit hexahedra.
Mesh hex_block(int nx, int ny, int nz) {
  Mesh mesh;
  std::vector<double> xyz;
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) xyz.insert(xyz.end(), {double(i), double(j), double(k)});
  const auto node = [&](int i, int j, int k) { return std::int64_t{(k * (ny + 1) + j) * (nx + 1) + i}; };
  I64 cells;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        cells.insert(cells.end(), {node(i, j, k), node(i + 1, j, k), node(i + 1, j + 1, k), node(i, j + 1, k),
                                   node(i, j, k + 1), node(i + 1, j, k + 1), node(i + 1, j + 1, k + 1), node(i, j + 1, k + 1)});
  mesh.points = array_of<double>({static_cast<std::int64_t>(xyz.size() / 3), 3}, xyz);
  mesh.cells.push_back({"hexahedron", int64_matrix(nx * ny * nz, 8, cells), {}, {}});
  return mesh;
}

io::FaceTopology topology_of(const Mesh& mesh, std::vector<std::span<const std::int64_t>> groups = {}) {
  io::FacesFromCellsInput input;
  input.blocks = mesh.cells;
  input.boundary_groups = std::move(groups);
  return io::faces_from_cells(input);
}

using Vec = std::array<double, 3>;
Vec point(const Mesh& mesh, std::int64_t p) {
  const double* xyz = mesh.points.data_as<double>() + 3 * p;
  return {xyz[0], xyz[1], xyz[2]};
}

// Centres of the volume cells as the mean of their faces' node means (enough for convex cells).
std::vector<Vec> cell_centres(const Mesh& mesh, const io::FaceTopology& topology) {
  std::vector<Vec> sum(static_cast<std::size_t>(topology.num_cells()), Vec{0, 0, 0});
  std::vector<int> count(sum.size(), 0);
  for (std::int64_t f = 0; f < topology.num_faces(); ++f) {
    Vec centre{0, 0, 0};
    const std::int64_t begin = topology.face_offsets[f], end = topology.face_offsets[f + 1];
    for (std::int64_t i = begin; i < end; ++i)
      for (int d = 0; d < 3; ++d) centre[d] += point(mesh, topology.face_nodes[i])[d] / double(end - begin);
    for (const std::int64_t cell : {topology.owner[f], topology.neighbour[f]}) {
      if (cell < 0) continue;
      for (int d = 0; d < 3; ++d) sum[cell][d] += centre[d];
      ++count[cell];
    }
  }
  for (std::size_t c = 0; c < sum.size(); ++c)
    for (int d = 0; d < 3; ++d) sum[c][d] /= count[c];
  return sum;
}

// OpenFOAM's rules: owner < neighbour, upper-triangular order, normals out of the owner.
void expect_openfoam_rules(const Mesh& mesh, const io::FaceTopology& topology) {
  const std::vector<Vec> centres = cell_centres(mesh, topology);
  for (std::int64_t f = 0; f < topology.num_faces(); ++f) {
    const bool internal = f < topology.num_internal_faces;
    EXPECT_EQ(internal, topology.neighbour[f] >= 0) << f;
    if (internal) EXPECT_LT(topology.owner[f], topology.neighbour[f]) << f;
    if (internal && f > 0)
      EXPECT_LT(std::pair(topology.owner[f - 1], topology.neighbour[f - 1]), std::pair(topology.owner[f], topology.neighbour[f])) << f;
    Vec area{0, 0, 0}, centre{0, 0, 0};
    const std::int64_t begin = topology.face_offsets[f], end = topology.face_offsets[f + 1];
    for (std::int64_t i = begin; i < end; ++i) {
      const Vec a = point(mesh, topology.face_nodes[i]);
      const Vec b = point(mesh, topology.face_nodes[i + 1 < end ? i + 1 : begin]);
      area[0] += a[1] * b[2] - a[2] * b[1];
      area[1] += a[2] * b[0] - a[0] * b[2];
      area[2] += a[0] * b[1] - a[1] * b[0];
      for (int d = 0; d < 3; ++d) centre[d] += a[d] / double(end - begin);
    }
    const Vec& own = centres[topology.owner[f]];
    EXPECT_GT(area[0] * (centre[0] - own[0]) + area[1] * (centre[1] - own[1]) + area[2] * (centre[2] - own[2]), 0) << f;
  }
}

TEST(FacesFromCells, OneHexahedronHasItsSixFacetsAsBoundaryFaces) {
  const Mesh mesh = one_hex();
  const io::FaceTopology topology = topology_of(mesh);
  EXPECT_EQ(topology.dimension, 3);
  EXPECT_EQ(topology.num_internal_faces, 0);
  EXPECT_EQ(topology.face_offsets, (I64{0, 4, 8, 12, 16, 20, 24}));
  EXPECT_EQ(topology.face_nodes, (I64{0, 1, 5, 4, 1, 2, 6, 5, 2, 3, 7, 6, 0, 4, 7, 3, 0, 3, 2, 1, 4, 5, 6, 7}));
  EXPECT_EQ(topology.owner, (I64{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(topology.neighbour, (I64{-1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(topology.owner_facet, (I64{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(topology.group_starts, (I64{0, 6}));
  EXPECT_EQ(topology.volume_cells, (I64{0}));
  expect_openfoam_rules(mesh, topology);
}

TEST(FacesFromCells, TwoTetrahedraShareOneInternalFaceFirst) {
  const Mesh mesh = two_tets();
  const io::FaceTopology topology = topology_of(mesh);
  EXPECT_EQ(topology.num_internal_faces, 1);
  EXPECT_EQ(topology.face_offsets, (I64{0, 3, 6, 9, 12, 15, 18, 21}));
  EXPECT_EQ(topology.face_nodes, (I64{1, 2, 3, 0, 1, 3, 0, 3, 2, 0, 2, 1, 1, 2, 4, 2, 3, 4, 1, 4, 3}));
  EXPECT_EQ(topology.owner, (I64{0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(topology.neighbour, (I64{1, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(topology.owner_facet, (I64{1, 0, 2, 3, 0, 1, 2}));
  EXPECT_EQ(topology.neighbour_facet, (I64{3, -1, -1, -1, -1, -1, -1}));
  expect_openfoam_rules(mesh, topology);
}

TEST(FacesFromCells, PolyhedronBesideHexahedronWithGroups) {
  const Mesh mesh = polyhedron_on_hex();
  const I64 top{0, 1};                    // the polyhedron's top face
  const I64 bottom{2, 4, 0, 0, 1, 0, 2, 4};  // the hex's bottom; the internal face, the quad, a repeat: skipped
  const io::FaceTopology topology = topology_of(mesh, {top, bottom});
  EXPECT_EQ(topology.volume_cells, (I64{0, 2}));
  EXPECT_EQ(topology.num_internal_faces, 1);
  EXPECT_EQ(topology.group_starts, (I64{1, 2, 3, 11}));
  EXPECT_EQ(topology.skipped_group_entries, 3);
  ASSERT_EQ(topology.num_faces(), 11);
  // The shared face, from the polyhedron (cell 0) into the hexahedron (cell 1).
  EXPECT_EQ(I64(topology.face_nodes.begin(), topology.face_nodes.begin() + 4), (I64{4, 7, 6, 5}));
  EXPECT_EQ(topology.owner[0], 0);
  EXPECT_EQ(topology.neighbour[0], 1);
  EXPECT_EQ(topology.owner_facet[0], 0);
  EXPECT_EQ(topology.neighbour_facet[0], 5);
  EXPECT_EQ(I64(topology.face_nodes.begin() + 4, topology.face_nodes.begin() + 8), (I64{8, 9, 10, 11}));
  EXPECT_EQ(I64(topology.face_nodes.begin() + 8, topology.face_nodes.begin() + 12), (I64{0, 3, 2, 1}));
  EXPECT_EQ(topology.owner, (I64{0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(topology.owner_facet, (I64{0, 1, 4, 2, 3, 4, 5, 0, 1, 2, 3}));
  expect_openfoam_rules(mesh, topology);
}

// A wedge in Gmsh's / OpenFOAM's prism order (the bottom (0, 1, 2) turns towards the top, as
// core/side_regions' table has it) and a pyramid on its quadrilateral y = 0 side.
TEST(FacesFromCells, WedgeAndPyramidFacesPointOutward) {
  Mesh mesh;
  mesh.points = array_of<double>({7, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0.5, -1, 0.5});
  mesh.cells.push_back({"wedge", int64_matrix(1, 6, {0, 1, 2, 3, 4, 5}), {}, {}});
  mesh.cells.push_back({"pyramid", int64_matrix(1, 5, {0, 1, 4, 3, 6}), {}, {}});
  const io::FaceTopology topology = topology_of(mesh);
  EXPECT_EQ(topology.num_internal_faces, 1);
  EXPECT_EQ(topology.num_faces(), 5 + 5 - 1);
  EXPECT_EQ(I64(topology.face_nodes.begin(), topology.face_nodes.begin() + 4), (I64{0, 1, 4, 3}));
  EXPECT_EQ(topology.neighbour_facet[0], 4);
  expect_openfoam_rules(mesh, topology);
}

TEST(FacesFromCells, HexBlockIsUpperTriangularAndIndependentOfThreads) {
  const Mesh mesh = hex_block(40, 30, 20);  // 24,000 cells: the partitioned, multi-chunk path
  const io::FaceTopology topology = topology_of(mesh);
  EXPECT_EQ(topology.num_internal_faces, 39 * 30 * 20 + 40 * 29 * 20 + 40 * 30 * 19);
  EXPECT_EQ(topology.num_faces() - topology.num_internal_faces, 2 * (40 * 30 + 30 * 20 + 40 * 20));
  expect_openfoam_rules(mesh, topology);
  const unsigned threads = thread_count();
  set_thread_count(1);
  const io::FaceTopology serial = topology_of(mesh);
  set_thread_count(threads);
  EXPECT_EQ(serial.face_nodes, topology.face_nodes);
  EXPECT_EQ(serial.owner, topology.owner);
  EXPECT_EQ(serial.neighbour, topology.neighbour);
}

TEST(FacesFromCells, TwoDimensionalCellsGiveEdges) {
  Mesh mesh;
  mesh.points = array_of<double>({6, 3}, {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0});
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {0, 1, 4, 3}), {}, {}});
  mesh.cells.push_back({"polygon", int64_vector({1, 2, 5, 4}), int64_vector({0, 4}), {}});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 1}), {}, {}});
  const io::FaceTopology topology = topology_of(mesh);
  EXPECT_EQ(topology.dimension, 2);
  EXPECT_EQ(topology.num_internal_faces, 1);
  EXPECT_EQ(topology.num_faces(), 7);
  EXPECT_EQ(I64(topology.face_nodes.begin(), topology.face_nodes.begin() + 2), (I64{1, 4}));  // quad's edge 1
  EXPECT_EQ(topology.neighbour_facet[0], 3);  // the polygon's edge (4, 1)
}

TEST(FacesFromCells, Errors) {
  Mesh three = two_tets();
  three.points = array_of<double>({6, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2});
  three.cells[0].connectivity = int64_matrix(3, 4, {0, 1, 2, 3, 1, 2, 3, 4, 1, 3, 2, 5});
  EXPECT_THROW(topology_of(three), std::invalid_argument);
  Mesh quadratic;
  quadratic.points = array_of<double>({10, 3}, std::vector<double>(30, 0.0));
  quadratic.cells.push_back({"tetra10", int64_matrix(1, 10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), {}, {}});
  try {
    topology_of(quadratic);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("tetra10"), std::string::npos) << error.what();
  }
  Mesh vertices;
  vertices.points = array_of<double>({1, 3}, {0, 0, 0});
  vertices.cells.push_back({"vertex", int64_matrix(1, 1, {0}), {}, {}});
  EXPECT_THROW(topology_of(vertices), std::invalid_argument);
  const Mesh hex = one_hex();
  const I64 bad_facet{0, 6};
  EXPECT_THROW(topology_of(hex, {bad_facet}), std::invalid_argument);
}

// ---- the writer ----------------------------------------------------------------------------

std::string body_of(const std::string& text) {  // what follows the FoamFile header
  const std::size_t end = text.find("// * *");
  return end == std::string::npos ? text : text.substr(text.find('\n', end) + 1);
}

TEST(OpenFoamWriter, OneHexAscii) {
  ScratchDir dir;
  const std::string case_dir = dir.path() / "hex";
  openfoam::write(case_dir, one_hex(), {});
  const fs::path mesh_dir = fs::path(case_dir) / "constant" / "polyMesh";
  EXPECT_EQ(body_of(read_file(mesh_dir / "faces")),
            "\n6\n(\n4(0 1 5 4)\n4(1 2 6 5)\n4(2 3 7 6)\n4(0 4 7 3)\n4(0 3 2 1)\n4(4 5 6 7)\n)\n");
  const std::string owner = read_file(mesh_dir / "owner");
  EXPECT_NE(owner.find("note        \"nPoints:8  nCells:1  nFaces:6  nInternalFaces:0\";"), std::string::npos) << owner;
  EXPECT_NE(owner.find("class       labelList;"), std::string::npos);
  EXPECT_EQ(body_of(owner), "\n6\n(\n0\n0\n0\n0\n0\n0\n)\n");
  EXPECT_EQ(body_of(read_file(mesh_dir / "neighbour")), "\n0()\n");
  const std::string points = read_file(mesh_dir / "points");
  EXPECT_NE(points.find("class       vectorField;"), std::string::npos);
  EXPECT_NE(body_of(points).find("8\n(\n(0 0 0)\n(1 0 0)\n"), std::string::npos) << points;
  const std::string boundary = read_file(mesh_dir / "boundary");
  EXPECT_NE(boundary.find("defaultFaces\n    {\n        type            patch;\n        nFaces          6;\n"
                          "        startFace       0;"), std::string::npos) << boundary;
  EXPECT_FALSE(fs::exists(mesh_dir / "cellZones"));
  for (const auto& entry : fs::directory_iterator(fs::path(case_dir) / "constant"))
    EXPECT_EQ(entry.path().filename(), "polyMesh");  // no temporary left behind
}

TEST(OpenFoamWriter, SideRegionsBecomeTypedPatchesAndRegionsZones) {
  Mesh mesh = polyhedron_on_hex();
  Region top{"top", RegionKind::Side, 2, 1, int64_matrix(1, 2, {0, 1})};
  Region bottom{"bottom wall", RegionKind::Side, 2, 2, int64_matrix(1, 2, {2, 4})};
  mesh.regions = {top, bottom, cell_region("upper", 3, 5, {0, 1}), cell_region("skin", 2, 6, {1})};
  mesh.regions.push_back({"corner", RegionKind::Point, 0, 7, int64_vector({0, 11})});
  mesh.string_field_data.set("openfoam:patch_names", {"top", "bottom wall"});
  mesh.string_field_data.set("openfoam:patch_types", {"wall", "patch"});
  ScratchDir dir;
  const std::string marker = (dir.path() / "case" / "case.foam").string();
  fs::create_directories(dir.path() / "case");
  openfoam::write(marker, mesh, {});
  EXPECT_TRUE(fs::exists(marker));
  const fs::path mesh_dir = dir.path() / "case" / "constant" / "polyMesh";
  const std::string boundary = body_of(read_file(mesh_dir / "boundary"));
  // "skin" (the quad, a boundary Cell region) becomes a Side region too; its face went to
  // "bottom wall" first, so its patch is empty.
  EXPECT_NE(boundary.find("\n4\n(\n    top\n    {\n        type            wall;\n        inGroups        List<word> 1(wall);\n"
                          "        nFaces          1;\n        startFace       1;\n    }\n    bottom_wall\n    {\n"
                          "        type            patch;\n        nFaces          1;\n        startFace       2;\n    }\n"
                          "    skin\n    {\n        type            patch;\n        nFaces          0;\n"
                          "        startFace       3;\n    }\n"
                          "    defaultFaces\n    {\n        type            patch;\n        nFaces          8;\n"
                          "        startFace       3;\n    }\n)\n"), std::string::npos) << boundary;
  // "skin" holds only the quad: no volume cell, no zone. "upper" keeps the polyhedron.
  EXPECT_NE(read_file(mesh_dir / "cellZones").find("upper\n{\n    type cellZone;\ncellLabels List<label> 1\n(\n0\n)\n;\n}\n"),
            std::string::npos) << read_file(mesh_dir / "cellZones");
  EXPECT_EQ(read_file(mesh_dir / "cellZones").find("skin"), std::string::npos);
  EXPECT_NE(read_file(mesh_dir / "pointZones").find("corner\n{\n    type pointZone;\npointLabels List<label> 2\n(\n0\n11\n)\n"),
            std::string::npos);
}

TEST(OpenFoamWriter, SideRegionsNotListedAsPatchesBecomeFaceZones) {
  Mesh mesh = polyhedron_on_hex();
  mesh.regions = {{"top", RegionKind::Side, 2, 0, int64_matrix(1, 2, {0, 1})},
                  {"middle", RegionKind::Side, 2, 1, int64_matrix(2, 2, {0, 0, 2, 5})}};  // both sides of face 0
  mesh.string_field_data.set("openfoam:patch_names", {"top"});
  mesh.string_field_data.set("openfoam:patch_types", {"wall"});
  mesh.string_field_data.set("openfoam:patch_groups", {"wall heated"});
  ScratchDir dir;
  openfoam::write((dir.path() / "c").string(), mesh, {});
  const fs::path mesh_dir = dir.path() / "c" / "constant" / "polyMesh";
  const std::string boundary = read_file(mesh_dir / "boundary");
  EXPECT_NE(boundary.find("    top\n    {\n        type            wall;\n        inGroups        List<word> 2(wall heated);\n"),
            std::string::npos) << boundary;
  EXPECT_EQ(boundary.find("middle"), std::string::npos);
  EXPECT_NE(read_file(mesh_dir / "faceZones").find("middle\n{\n    type faceZone;\nfaceLabels List<label> 2\n(\n0\n0\n)\n;\n"
                                                  "flipMap List<bool> 2\n(\n0\n1\n)\n;\n}\n"),
            std::string::npos) << read_file(mesh_dir / "faceZones");
}

TEST(OpenFoamWriter, BoundaryCellRegionsOfLowerDimensionBecomePatches) {
  Mesh mesh = polyhedron_on_hex();
  mesh.regions = {cell_region("floor", 2, 3, {1})};  // the quad under the hexahedron
  ScratchDir dir;
  openfoam::write((dir.path() / "c").string(), mesh, {});
  const std::string boundary = read_file(dir.path() / "c" / "constant" / "polyMesh" / "boundary");
  EXPECT_NE(boundary.find("floor\n    {\n        type            patch;\n        nFaces          1;\n        startFace       1;"),
            std::string::npos) << boundary;
}

TEST(OpenFoamWriter, BinaryListsAndCompactFaces) {
  ScratchDir dir;
  const std::string case_dir = dir.path() / "tets";
  WriteOptions options;
  options.set("binary", "true");
  openfoam::write(case_dir, two_tets(), options);
  const fs::path mesh_dir = fs::path(case_dir) / "constant" / "polyMesh";
  const std::string faces = read_file(mesh_dir / "faces");
  EXPECT_NE(faces.find("format      binary;"), std::string::npos);
  EXPECT_NE(faces.find("arch        \"LSB;label=32;scalar=64\";"), std::string::npos);
  EXPECT_NE(faces.find("class       faceCompactList;"), std::string::npos);
  const std::string body = body_of(faces);
  ASSERT_EQ(body.substr(0, 4), "\n8\n(");
  std::int32_t offsets[8];
  std::memcpy(offsets, body.data() + 4, sizeof offsets);
  EXPECT_EQ(offsets[7], 21);
  const std::size_t nodes = body.find("\n21\n(");
  ASSERT_NE(nodes, std::string::npos);
  std::int32_t first[3];
  std::memcpy(first, body.data() + nodes + 5, sizeof first);
  EXPECT_EQ(first[0], 1);
  EXPECT_EQ(first[2], 3);
  const std::string neighbour = body_of(read_file(mesh_dir / "neighbour"));
  ASSERT_EQ(neighbour.size(), 4 + 4 + 2u);
  std::int32_t label = 0;
  std::memcpy(&label, neighbour.data() + 4, 4);
  EXPECT_EQ(label, 1);
  const std::string points = body_of(read_file(mesh_dir / "points"));
  ASSERT_EQ(points.size(), 4 + 15 * 8 + 2u);
  double last = 0;
  std::memcpy(&last, points.data() + 4 + 14 * 8, 8);
  EXPECT_EQ(last, 1.0);
}

TEST(OpenFoamWriter, FieldsInTheZeroDirectory) {
  Mesh mesh = two_tets();
  mesh.cell_data.set("T", {array_of<double>({2}, {300.5, 301})});
  mesh.cell_data.set("pair", {array_of<double>({2, 2}, {1, 2, 3, 4})});  // width 2: no OpenFOAM type
  mesh.point_data.set("U", array_of<float>({5, 3}, std::vector<float>(15, 0.5f)));
  ScratchDir dir;
  openfoam::write((dir.path() / "c").string(), mesh, {});
  const std::string t = read_file(dir.path() / "c" / "0" / "T");
  EXPECT_NE(t.find("class       volScalarField;"), std::string::npos);
  EXPECT_NE(t.find("internalField   nonuniform List<scalar> \n2\n(\n300.5\n301\n)\n;"), std::string::npos) << t;
  EXPECT_NE(t.find("defaultFaces\n    {\n        type            zeroGradient;"), std::string::npos);
  const std::string u = read_file(dir.path() / "c" / "0" / "U");
  EXPECT_NE(u.find("class       pointVectorField;"), std::string::npos);
  EXPECT_NE(u.find("List<vector> \n5\n(\n(0.5 0.5 0.5)\n"), std::string::npos) << u;
  EXPECT_FALSE(fs::exists(dir.path() / "c" / "0" / "pair"));
}

TEST(OpenFoamWriter, RefusalsNameTheCaseAndLeaveItWhole) {
  ScratchDir dir;
  const std::string case_dir = dir.path() / "c";
  openfoam::write(case_dir, one_hex(), {});
  const fs::path faces = fs::path(case_dir) / "constant" / "polyMesh" / "faces";
  const std::string before = read_file(faces);

  Mesh flat;
  flat.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0});
  flat.cells.push_back({"quad", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  try {
    openfoam::write(case_dir, flat, {});
    ADD_FAILURE() << "no error";
  } catch (const WriteError& error) {
    EXPECT_EQ(error.path(), case_dir);
    EXPECT_NE(std::string(error.what()).find("2-D"), std::string::npos) << error.what();
  }
  Mesh quadratic = one_hex();
  quadratic.cells[0].type = "hexahedron20";
  quadratic.cells[0].connectivity = int64_matrix(1, 20, std::vector<std::int64_t>(20, 0));
  EXPECT_THROW(openfoam::write(case_dir, quadratic, {}), WriteError);
  WriteOptions bad;
  bad.set("binary", "maybe");
  EXPECT_THROW(openfoam::write(case_dir, one_hex(), bad), WriteError);
  EXPECT_EQ(read_file(faces), before);

  // A second mesh replaces the first as a whole.
  openfoam::write(case_dir, two_tets(), {});
  EXPECT_NE(read_file(faces), before);
  // polyMesh in the way as a file: the error comes after the files were written; nothing stays.
  const std::string blocked = dir.path() / "blocked";
  fs::create_directories(fs::path(blocked) / "constant");
  write_file(fs::path(blocked) / "constant" / "polyMesh", "not a directory");
  EXPECT_THROW(openfoam::write(blocked, one_hex(), {}), WriteError);
  EXPECT_EQ(read_file(fs::path(blocked) / "constant" / "polyMesh"), "not a directory");
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(fs::path(blocked) / "constant")) ++entries;
  EXPECT_EQ(entries, 1);
}

// Large ASCII lists (faces and owner past io::kParallelLinesMinBytes) are parsed on every core;
// the mesh must be the one the sequential parse gives, and the binary case's.
TEST(OpenFoamWriter, LargeAsciiListsReadTheSameOnOneAndTwoThreadsAndAsBinary) {
  ScratchDir dir;
  const Mesh mesh = hex_block(80, 80, 40);
  const std::string ascii_case = (dir.path() / "ascii").string(), binary_case = (dir.path() / "binary").string();
  openfoam::write(ascii_case, mesh, {});
  WriteOptions binary;
  binary.set("binary", "true");
  openfoam::write(binary_case, mesh, binary);
  ASSERT_GT(fs::file_size(fs::path(ascii_case) / "constant" / "polyMesh" / "owner"), io::kParallelLinesMinBytes);
  const unsigned threads = thread_count();
  set_thread_count(1);
  const Mesh serial = openfoam::read(ascii_case);
  set_thread_count(2);
  const Mesh parallel = openfoam::read(ascii_case);
  const Mesh from_binary = openfoam::read(binary_case);
  set_thread_count(threads);
  const auto same = [](const NDArray& a, const NDArray& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
  };
  for (const Mesh* other : {&parallel, &from_binary}) {
    EXPECT_TRUE(same(serial.points, other->points));
    ASSERT_EQ(serial.cells.size(), 1u);
    ASSERT_EQ(other->cells.size(), 1u);
    EXPECT_EQ(serial.cells[0].type, "hexahedron");
    EXPECT_EQ(serial.cells[0].num_cells(), 80 * 80 * 40);
    EXPECT_TRUE(same(serial.cells[0].connectivity, other->cells[0].connectivity));
    ASSERT_EQ(serial.regions.size(), other->regions.size());
    for (std::size_t r = 0; r < serial.regions.size(); ++r) EXPECT_TRUE(same(serial.regions[r].entries, other->regions[r].entries));
  }
  // A face line the plain reader does not take ("4(1 2 3 x)") deep in the list: the sequential
  // parse words the error, the same on one thread and on two.
  const fs::path faces = fs::path(ascii_case) / "constant" / "polyMesh" / "faces";
  std::string bytes = read_file(faces);
  const std::size_t line = bytes.find('\n', bytes.size() * 3 / 4) + 1;
  bytes.replace(bytes.find(')', line) - 1, 1, "x");
  { std::ofstream(faces, std::ios::binary) << bytes; }
  std::string messages[2];
  for (unsigned count : {1u, 2u}) {
    set_thread_count(count);
    try {
      openfoam::read(ascii_case);
      ADD_FAILURE() << "a broken face was accepted on " << count << " threads";
    } catch (const ReadError& error) {
      messages[count - 1] = error.what();
    }
  }
  set_thread_count(threads);
  EXPECT_NE(messages[0].find("expected a label"), std::string::npos) << messages[0];
  EXPECT_EQ(messages[0], messages[1]);
}

// Faces of two sizes (wedges: triangles and quads) in large lists: the reader keeps offsets
// (narrow while parsing, widened after) and 32-bit labels; the cells, sides and cell zone must
// be the same on one and two threads and from the binary case.
TEST(OpenFoamWriter, MixedFaceSizesReadTheSameOnOneAndTwoThreadsAndAsBinary) {
  ScratchDir dir;
  Mesh mesh = hex_block(60, 60, 30);
  const auto hexes = mesh.cells[0].connectivity.values<std::int64_t>();
  I64 wedges;
  for (std::size_t c = 0; c + 8 <= hexes.size(); c += 8) {
    const std::int64_t* h = hexes.data() + c;
    wedges.insert(wedges.end(), {h[0], h[2], h[1], h[4], h[6], h[5], h[0], h[3], h[2], h[4], h[7], h[6]});
  }
  const std::int64_t num_wedges = static_cast<std::int64_t>(wedges.size() / 6);
  mesh.cells = {{"wedge", int64_matrix(num_wedges, 6, wedges), {}, {}}};
  Region all;
  all.name = "all";
  all.kind = RegionKind::Cell;
  all.dim = 3;
  all.entries = NDArray::allocate(DType::int64, {num_wedges});
  for (std::int64_t c = 0; c < num_wedges; ++c) all.entries.data_as<std::int64_t>()[c] = c;
  mesh.regions.push_back(all);
  const std::string ascii_case = (dir.path() / "ascii").string(), binary_case = (dir.path() / "binary").string();
  openfoam::write(ascii_case, mesh, {});
  WriteOptions binary;
  binary.set("binary", "true");
  openfoam::write(binary_case, mesh, binary);
  ASSERT_GT(fs::file_size(fs::path(ascii_case) / "constant" / "polyMesh" / "faces"), io::kParallelLinesMinBytes);
  const unsigned threads = thread_count();
  set_thread_count(1);
  const Mesh serial = openfoam::read(ascii_case);
  set_thread_count(2);
  const Mesh parallel = openfoam::read(ascii_case);
  const Mesh from_binary = openfoam::read(binary_case);
  set_thread_count(threads);
  const auto same = [](const NDArray& a, const NDArray& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
  };
  ASSERT_EQ(serial.cells.size(), 1u);
  EXPECT_EQ(serial.cells[0].type, "wedge");
  EXPECT_EQ(serial.cells[0].num_cells(), num_wedges);
  {  // the reader derives its own node order: each wedge has its nodes, not necessarily in order
    const auto got = serial.cells[0].connectivity.values<std::int64_t>();
    const auto want = mesh.cells[0].connectivity.values<std::int64_t>();
    for (const std::size_t row : {std::size_t{0}, static_cast<std::size_t>(num_wedges - 1)}) {
      I64 a(got.begin() + 6 * row, got.begin() + 6 * row + 6), b(want.begin() + 6 * row, want.begin() + 6 * row + 6);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      EXPECT_EQ(a, b) << "wedge " << row;
    }
  }
  for (const Mesh* other : {&parallel, &from_binary}) {
    ASSERT_EQ(other->cells.size(), 1u);
    EXPECT_TRUE(same(serial.cells[0].connectivity, other->cells[0].connectivity));
    ASSERT_EQ(serial.regions.size(), other->regions.size());
    for (std::size_t r = 0; r < serial.regions.size(); ++r) {
      EXPECT_EQ(serial.regions[r].name, other->regions[r].name);
      EXPECT_TRUE(same(serial.regions[r].entries, other->regions[r].entries)) << serial.regions[r].name;
    }
  }
  const auto zone = std::find_if(serial.regions.begin(), serial.regions.end(), [](const Region& r) { return r.name == "all"; });
  ASSERT_NE(zone, serial.regions.end());
  EXPECT_TRUE(same(zone->entries, all.entries));
}

}  // namespace
