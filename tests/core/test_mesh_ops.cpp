// Clean-up operations (mesh_ops.hpp): each on a mesh whose data and regions must follow, with
// the counts the operation reports and the invalid inputs it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <span>
#include <string>
#include <vector>

#include "meshioplusplus/mesh_ops.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

mpp::Region region(const std::string& name, mpp::RegionKind kind, mpp::NDArray entries) {
  mpp::Region r;
  r.name = name;
  r.kind = kind;
  r.entries = std::move(entries);
  return r;
}

// Two triangles over points 0-3, a stray point 4, a duplicate of point 1 (5) used by a line.
mpp::Mesh sample() {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({6, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 9, 9, 0, 1, 0, 0});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 5}), {}, {}});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 1, 3, 2}), {}, {}});
  mesh.point_data.set("p", array_of<double>({6}, {0, 1, 2, 3, 4, 5}));
  mesh.cell_data.set("c", {array_of<std::int64_t>({1}, {7}), array_of<std::int64_t>({2}, {8, 9})});
  mesh.regions.push_back(region("stray", mpp::RegionKind::Point, array_of<std::int64_t>({1}, {4})));
  mesh.regions.push_back(region("corners", mpp::RegionKind::Point, array_of<std::int64_t>({3}, {5, 1, 3})));
  mesh.regions.push_back(region("edge", mpp::RegionKind::Cell, array_of<std::int64_t>({1}, {0})));
  mesh.regions.push_back(region("second", mpp::RegionKind::Cell, array_of<std::int64_t>({1}, {2})));
  mesh.regions.push_back(region("side", mpp::RegionKind::Side, int64_matrix(1, 2, {2, 1})));
  mesh.regions.push_back(region("empty", mpp::RegionKind::Point, mpp::NDArray::allocate(mpp::DType::int64, {0})));
  return mesh;
}

std::vector<std::string> region_names(const mpp::Mesh& mesh) {
  std::vector<std::string> names;
  for (const mpp::Region& r : mesh.regions) names.push_back(r.name);
  return names;
}

const mpp::Region& named(const mpp::Mesh& mesh, const std::string& name) {
  for (const mpp::Region& r : mesh.regions)
    if (r.name == name) return r;
  throw std::logic_error("no region " + name);
}

TEST(MeshOps, PruneZ0DropsAFlatZOnly) {
  mpp::Mesh mesh = sample();
  EXPECT_TRUE(mpp::prune_z_0(mesh));
  EXPECT_EQ((mpp::Shape{6, 2}), mesh.points.shape());
  EXPECT_EQ((std::vector<std::int64_t>{0, 0, 1, 0, 0, 1, 1, 1, 9, 9, 1, 0}), int_values(mesh.points));
  EXPECT_FALSE(mpp::prune_z_0(mesh)) << "already 2-D";
  mpp::Mesh raised = sample();
  raised.points.data_as<double>()[2] = 1e-12;  // above meshio's 1e-13
  EXPECT_FALSE(mpp::prune_z_0(raised));
  EXPECT_TRUE(mpp::prune_z_0(raised, 1e-11));
}

TEST(MeshOps, RemoveOrphanedNodesRenumbersCellsDataAndPointRegions) {
  mpp::Mesh mesh = sample();
  EXPECT_EQ(1, mpp::remove_orphaned_nodes(mesh));
  EXPECT_EQ(5, mesh.num_points());
  EXPECT_EQ((std::vector<std::int64_t>{0, 4}), nodes_of(mesh.cells[0]));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 3, 5}), int_values(*mesh.point_data.find("p")));
  // "stray" lost its only point and went; the empty region it found stays.
  EXPECT_EQ((std::vector<std::string>{"corners", "edge", "second", "side", "empty"}), region_names(mesh));
  EXPECT_EQ((std::vector<std::int64_t>{4, 1, 3}), int_values(named(mesh, "corners").entries));
  EXPECT_EQ(0, mpp::remove_orphaned_nodes(mesh));
}

TEST(MeshOps, RemoveLowerDimensionalCellsRenumbersCellDataAndRegions) {
  mpp::Mesh mesh = sample();
  EXPECT_EQ(1, mpp::remove_lower_dimensional_cells(mesh));
  ASSERT_EQ(1u, mesh.cells.size());
  EXPECT_EQ("triangle", mesh.cells[0].type);
  EXPECT_EQ((std::vector<std::int64_t>{8, 9}), int_values(mesh.cell_data.find("c")->front()));
  // the line's region went; cell 2 (second triangle) is cell 1 now, in the Cell and Side regions
  EXPECT_EQ((std::vector<std::string>{"stray", "corners", "second", "side", "empty"}), region_names(mesh));
  EXPECT_EQ((std::vector<std::int64_t>{1}), int_values(named(mesh, "second").entries));
  EXPECT_EQ((std::vector<std::int64_t>{1, 1}), int_values(named(mesh, "side").entries));
  EXPECT_EQ((mpp::Shape{1, 2}), named(mesh, "side").entries.shape());
  EXPECT_EQ(0, mpp::remove_lower_dimensional_cells(mesh));
}

TEST(MeshOps, MergePointsWeldsIntoTheFirstAndDeduplicatesPointRegions) {
  mpp::Mesh mesh = sample();
  EXPECT_EQ(1, mpp::merge_points(mesh));  // point 5 equals point 1
  EXPECT_EQ(5, mesh.num_points());
  EXPECT_EQ((std::vector<std::int64_t>{0, 1}), nodes_of(mesh.cells[0]));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 3, 4}), int_values(*mesh.point_data.find("p")));
  EXPECT_EQ((std::vector<std::int64_t>{1, 3}), int_values(named(mesh, "corners").entries)) << "5 and 1 are one point";
  // within a tolerance: (1, 1) and (0.9999, 1.0001) weld; a point 2e-4 away from both does not
  mpp::Mesh near;
  near.points = array_of<double>({3, 2}, {1, 1, 0.9999, 1.0001, 1.0002, 1.0});
  near.cells.push_back({"vertex", int64_matrix(3, 1, {0, 1, 2}), {}, {}});
  EXPECT_EQ(1, mpp::merge_points(near, 1.5e-4));
  EXPECT_EQ((std::vector<std::int64_t>{0, 0, 1}), nodes_of(near.cells[0]));
  EXPECT_THROW(mpp::merge_points(near, -1.0), std::invalid_argument);
}

TEST(MeshOps, MergePointsExactTreatsMinusZeroAsZero) {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({2, 2}, {0.0, 1.0, -0.0, 1.0});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 1}), {}, {}});
  EXPECT_EQ(1, mpp::merge_points(mesh));
  EXPECT_EQ((std::vector<std::int64_t>{0, 0}), nodes_of(mesh.cells[0]));
}

TEST(MeshOps, RaggedBlocksAreRenumberedToo) {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({5, 2}, {7, 7, 0, 0, 1, 0, 1, 1, 0, 1});
  mesh.cells.push_back({"polygon", array_of<std::int64_t>({4}, {1, 2, 3, 4}), array_of<std::int64_t>({2}, {0, 4}), {}});
  EXPECT_EQ(1, mpp::remove_orphaned_nodes(mesh));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 3}), nodes_of(mesh.cells[0]));
}

TEST(MeshOps, TransformAffineAndHomogeneous) {
  mpp::Mesh mesh = sample();
  const std::vector<double> shift{1, 0, 0, 10, 0, 2, 0, 0, 0, 0, 1, 0};  // 3×4: x + 10, 2y
  mpp::transform(mesh, shift, 3, 4);
  const std::vector<std::int64_t> moved = int_values(mesh.points);
  EXPECT_EQ((std::vector<std::int64_t>{10, 0, 0, 11, 0, 0, 10, 2, 0}), std::vector<std::int64_t>(moved.begin(), moved.begin() + 9));
  const std::vector<double> homogeneous{1, 0, 0, -10, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  mpp::transform(mesh, homogeneous, 4, 4);
  EXPECT_EQ(1, int_values(mesh.points)[3]);
  const std::vector<double> bad_last_row{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1};
  EXPECT_THROW(mpp::transform(mesh, bad_last_row, 4, 4), std::invalid_argument);
  EXPECT_THROW(mpp::transform(mesh, std::vector<double>(4, 1.0), 2, 2), std::invalid_argument);
}

TEST(MeshOps, ConnectivityOutsideThePointsIsRefused) {
  mpp::Mesh mesh = sample();
  mesh.cells[0].connectivity.data_as<std::int64_t>()[1] = 99;
  EXPECT_THROW(mpp::remove_orphaned_nodes(mesh), std::invalid_argument);
  EXPECT_THROW(mpp::merge_points(mesh), std::invalid_argument);
}

// The range is checked as the operations read the nodes (no pass of its own): the error is
// still check_connectivity's, naming the first node outside, for a node past the end or below 0
// in any position, on a small block (one range) and a large one (split over the cores).
std::string refusal(const std::function<void()>& run) {
  try {
    run();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "no error";
}

TEST(MeshOps, NodesOutsideThePointsAreNamedAsTheOperationsReadThem) {
  const std::vector<double> low{-1, -1, -1}, high{10, 10, 10};
  for (const std::int64_t cells : {std::int64_t{2}, std::int64_t{300000}}) {
    for (const std::int64_t bad : {std::int64_t{6}, std::int64_t{-1}, std::int64_t{1} << 40}) {
      mpp::Mesh mesh = sample();
      mesh.cells[1].connectivity = mpp::NDArray::allocate(mpp::DType::int64, {cells, 3});
      std::int64_t* nodes = mesh.cells[1].connectivity.data_as<std::int64_t>();
      for (std::int64_t i = 0; i < 3 * cells; ++i) nodes[i] = i % 4;
      nodes[3 * cells - 2] = bad;  // the last cell's middle node
      mesh.cell_data = {};
      const std::string expected = "cells['triangle'] holds node " + std::to_string(bad) + " outside [0, 6)";
      EXPECT_EQ(expected, refusal([&] { mpp::crop(mesh, low, high); }));
      EXPECT_EQ(expected, refusal([&] { mpp::crop(mesh, low, high, /*any_corner=*/true); }));
      EXPECT_EQ(expected, refusal([&] { mpp::extract_cell_type(mesh, "triangle"); }));
      EXPECT_EQ(expected, refusal([&] { mpp::select_cells(mesh, std::vector<bool>(static_cast<std::size_t>(cells) + 1, true)); }));
      mpp::Mesh copy = mesh;
      EXPECT_EQ(expected, refusal([&] { mpp::remove_orphaned_nodes(copy); }));
      EXPECT_EQ(expected, refusal([&] { mpp::check(mesh); }));
    }
  }
  mpp::Mesh narrow = sample();
  narrow.cells[1].connectivity = mpp::NDArray::allocate(mpp::DType::int32, {2, 3});
  EXPECT_EQ("cells['triangle'] must be int64", refusal([&] { mpp::crop(narrow, low, high); }));
  EXPECT_EQ("cells['triangle'] must be int64", refusal([&] { mpp::remove_orphaned_nodes(narrow); }));
}

}  // namespace

namespace {

TEST(MeshOps, ExtractSurfaceOfTwoTetsSharingAFace) {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1});
  mesh.cells.push_back({"tetra", int64_matrix(2, 4, {0, 1, 2, 3, 0, 2, 1, 4}), {}, {}});
  mesh.cell_data.set("id", {array_of<std::int64_t>({2}, {10, 20})});
  mesh.regions.push_back(region("top", mpp::RegionKind::Side, int64_matrix(1, 2, {0, 1})));
  mesh.regions.push_back(region("inner", mpp::RegionKind::Side, int64_matrix(1, 2, {0, 3})));  // the shared face
  const mpp::Mesh surface = mpp::extract_surface(mesh);
  ASSERT_EQ(1u, surface.cells.size());
  EXPECT_EQ("triangle:6", block_summary(surface));
  EXPECT_EQ(5, surface.num_points());
  EXPECT_EQ((std::vector<std::int64_t>{0, 0, 0, 1, 1, 1}), int_values(surface.cell_data.find("surface:cell")->front()));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 0, 1, 2}), int_values(surface.cell_data.find("surface:facet")->front()));
  EXPECT_EQ((std::vector<std::int64_t>{10, 10, 10, 20, 20, 20}), int_values(surface.cell_data.find("id")->front()));
  // tet 0 facet 1 = (1, 2, 3): on the boundary → a Cell region; the shared face is not
  ASSERT_EQ(1u, surface.regions.size());
  EXPECT_EQ("top", surface.regions[0].name);
  EXPECT_EQ(mpp::RegionKind::Cell, surface.regions[0].kind);
  EXPECT_EQ((std::vector<std::int64_t>{1}), int_values(surface.regions[0].entries));
  const std::vector<std::int64_t> nodes = nodes_of(surface.cells[0]);
  EXPECT_EQ((std::vector<std::int64_t>{1, 2, 3}), std::vector<std::int64_t>(nodes.begin() + 3, nodes.begin() + 6));
}

TEST(MeshOps, ExtractSurfaceOfAHexIsSixOutwardQuads) {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({8, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1});
  mesh.cells.push_back({"hexahedron", int64_matrix(1, 8, {0, 1, 2, 3, 4, 5, 6, 7}), {}, {}});
  const mpp::Mesh surface = mpp::extract_surface(mesh);
  EXPECT_EQ("quad:6", block_summary(surface));
  const std::vector<std::int64_t> nodes = nodes_of(surface.cells[0]);
  const double* p = mesh.points.data_as<double>();
  for (std::size_t q = 0; q < 6; ++q) {  // (b - a) × (c - a) points away from the centre (0.5, 0.5, 0.5)
    const double* a = p + 3 * nodes[4 * q];
    const double* b = p + 3 * nodes[4 * q + 1];
    const double* c = p + 3 * nodes[4 * q + 2];
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    const double out = n[0] * (a[0] - 0.5) + n[1] * (a[1] - 0.5) + n[2] * (a[2] - 0.5);
    EXPECT_GT(out, 0.0) << "quad " << q;
  }
}

// Second-order cells give quadratic facets (vtkUnstructuredGridGeometryFilter's): the facet's
// corners as for the linear cell, then its mid-edge nodes (edge i: corner i to i + 1), then the
// face-centre node where the cell has one.
TEST(MeshOps, ExtractSurfaceOfTwoTetra10KeepsTheirMidEdgeNodes) {
  mpp::Mesh mesh;  // corners 0-4 as in the linear test; mid-edge nodes 5.. numbered per tet (VTK order)
  mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {20, 3});
  for (std::int64_t i = 0; i < 60; ++i) mesh.points.data_as<double>()[i] = static_cast<double>(i);
  // tet 0 (0,1,2,3): edges 01 12 20 03 13 23 → 5 6 7 8 9 10; tet 1 (0,2,1,4): 02 21 10 04 24 14 → 7 6 5 11 12 13
  mesh.cells.push_back({"tetra10", int64_matrix(2, 10, {0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 0, 2, 1, 4, 7, 6, 5, 11, 12, 13}), {}, {}});
  mesh.regions.push_back(region("top", mpp::RegionKind::Side, int64_matrix(1, 2, {0, 1})));
  const mpp::Mesh surface = mpp::extract_surface(mesh);
  EXPECT_EQ("triangle6:6", block_summary(surface));
  EXPECT_EQ(14, surface.num_points());  // points 14-19 used by no cell go
  EXPECT_EQ((std::vector<std::int64_t>{0, 0, 0, 1, 1, 1}), int_values(surface.cell_data.find("surface:cell")->front()));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 0, 1, 2}), int_values(surface.cell_data.find("surface:facet")->front()));
  // tet 0 facet 0 = (0, 1, 3): mid-edge nodes of 01, 13, 30 = 5, 9, 8; facet 1 = (1, 2, 3): 6, 10, 9
  const std::vector<std::int64_t> nodes = nodes_of(surface.cells[0]);
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 3, 5, 9, 8, 1, 2, 3, 6, 10, 9}), std::vector<std::int64_t>(nodes.begin(), nodes.begin() + 12));
  // tet 1 facet 2 = (0, 4, 1): 04, 41, 10 = 11, 13, 5
  EXPECT_EQ((std::vector<std::int64_t>{0, 4, 1, 11, 13, 5}), std::vector<std::int64_t>(nodes.begin() + 30, nodes.begin() + 36));
  ASSERT_EQ(1u, surface.regions.size());
  EXPECT_EQ((std::vector<std::int64_t>{1}), int_values(surface.regions[0].entries));
}

TEST(MeshOps, ExtractSurfaceOfQuadraticHexWedgePyramidAndQuads) {
  auto surface_of = [](const std::string& type, std::int64_t nodes) {
    mpp::Mesh mesh;
    mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {nodes, 3});
    for (std::int64_t i = 0; i < 3 * nodes; ++i) mesh.points.data_as<double>()[i] = static_cast<double>(i);
    std::vector<std::int64_t> cell(static_cast<std::size_t>(nodes));
    for (std::int64_t i = 0; i < nodes; ++i) cell[static_cast<std::size_t>(i)] = i;
    mesh.cells.push_back({type, int64_matrix(1, nodes, cell), {}, {}});
    return mpp::extract_surface(mesh);
  };
  auto first_rows = [](const mpp::Mesh& mesh, std::size_t block, std::size_t count) {
    const std::vector<std::int64_t> nodes = nodes_of(mesh.cells[block]);
    return std::vector<std::int64_t>(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(count));
  };
  // facet 0 of each (side_regions.hpp's table), with VTK's numbering of the extra nodes
  const mpp::Mesh hex20 = surface_of("hexahedron20", 20);
  EXPECT_EQ("quad8:6", block_summary(hex20));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 5, 4, 8, 17, 12, 16}), first_rows(hex20, 0, 8));
  const mpp::Mesh hex27 = surface_of("hexahedron27", 27);
  EXPECT_EQ("quad9:6", block_summary(hex27));
  EXPECT_EQ(26, hex27.num_points());  // the body centre is on no face
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 5, 4, 8, 17, 12, 16, 22}), first_rows(hex27, 0, 9));
  const mpp::Mesh wedge15 = surface_of("wedge15", 15);
  EXPECT_EQ("triangle6:2;quad8:3", block_summary(wedge15));
  EXPECT_EQ((std::vector<std::int64_t>{0, 2, 1, 8, 7, 6}), first_rows(wedge15, 0, 6));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 4, 3, 6, 13, 9, 12}), first_rows(wedge15, 1, 8));
  const mpp::Mesh pyramid13 = surface_of("pyramid13", 13);
  EXPECT_EQ("triangle6:4;quad8:1", block_summary(pyramid13));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 4, 5, 10, 9}), first_rows(pyramid13, 0, 6));
  EXPECT_EQ((std::vector<std::int64_t>{0, 3, 2, 1, 8, 7, 6, 5}), first_rows(pyramid13, 1, 8));
  const mpp::Mesh quad9 = surface_of("quad9", 9);  // 2-D: the boundary edges, line3 (ends, then middle)
  EXPECT_EQ("line3:4", block_summary(quad9));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 4, 1, 2, 5}), first_rows(quad9, 0, 6));
}

// Rows narrower than the corners their type's facets name are refused, not read past.
TEST(MeshOps, ExtractSurfaceAndCheckRefuseRowsNarrowerThanTheirCorners) {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  mesh.cells.push_back({"tetra10", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  EXPECT_THROW(mpp::extract_surface(mesh), std::invalid_argument);
  EXPECT_THROW(mpp::check(mesh), std::invalid_argument);
  mesh.cells[0] = {"tetra10", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}};  // corners only: corner facets
  EXPECT_EQ("triangle:4", block_summary(mpp::extract_surface(mesh)));
}

}  // namespace

namespace {

TEST(MeshOps, CheckReportsEachProblemOnce) {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 5, 5, 5});
  mesh.cells.push_back({"tetra", int64_matrix(3, 4, {0, 1, 2, 3, 0, 2, 1, 3, 0, 1, 1, 3}), {}, {}});
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {3, 2, 1, 0}), {}, {}});  // another block, same nodes as cell 0
  const mpp::MeshCheck found = mpp::check(mesh);
  EXPECT_EQ((std::vector<std::int64_t>{1}), found.inverted);
  EXPECT_EQ((std::vector<std::int64_t>{2}), found.degenerate);
  EXPECT_EQ((std::vector<std::int64_t>{1, 3}), found.duplicate);
  EXPECT_EQ((std::vector<std::int64_t>{4}), found.unused_points);
  EXPECT_GE(found.non_manifold_facets, 1);
}

TEST(MeshOps, MergeShiftsCellsAndRegionsAndKeepsTheSourceIntact) {
  mpp::Mesh a = sample();
  const std::vector<std::int64_t> before = nodes_of(a.cells[1]);
  const mpp::Mesh merged = mpp::merge({a, a});
  EXPECT_EQ(12, merged.num_points());
  EXPECT_EQ("line:1;triangle:2;line:1;triangle:2", block_summary(merged));
  EXPECT_EQ((std::vector<std::int64_t>{6, 7, 8, 7, 9, 8}), nodes_of(merged.cells[3]));
  EXPECT_EQ((std::vector<std::int64_t>{2, 5}), int_values(named(merged, "second").entries));
  EXPECT_EQ((std::vector<std::int64_t>{2, 1, 5, 1}), int_values(named(merged, "side").entries));
  EXPECT_EQ(before, nodes_of(a.cells[1]));
}

TEST(MeshOps, CropAndExtractLeaveTheSourceAsItWas) {
  const mpp::Mesh mesh = sample();
  const std::vector<double> low{-1, -1, -1}, high{0.5, 2, 1};
  EXPECT_EQ("line:1;triangle:2", block_summary(mpp::crop(mesh, low, high, /*any_corner=*/true)));  // all touch x <= 0.5
  const std::vector<double> strip_high{1, 0.5, 1};
  const mpp::Mesh part = mpp::crop(mesh, low, strip_high);  // only the line (0, 5) lies in y <= 0.5
  EXPECT_EQ("line:1", block_summary(part));
  EXPECT_EQ(2, part.num_points());
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}), int_values(*mesh.point_data.find("p")));
  const mpp::Mesh second = mpp::extract_region(mesh, "second");
  EXPECT_EQ("triangle:1", block_summary(second));
  EXPECT_EQ(3, second.num_points());
  EXPECT_EQ((std::vector<std::int64_t>{0, 2, 1}), nodes_of(second.cells[0]));
  EXPECT_THROW(mpp::extract_region(mesh, "nothing"), std::invalid_argument);
  EXPECT_THROW(mpp::extract_cell_type(mesh, "hexahedron"), std::invalid_argument);
  EXPECT_EQ("line:1", block_summary(mpp::extract_cell_type(mesh, "line")));
}

}  // namespace

namespace {

// A grid of m³ hexahedra whose nodes start at `base` (the points before it unused), with one
// corner hexahedron repeated in a second block: its three inner faces are then shared by three
// cells. base 0 packs a facet's key and instance into one word; a base of 2^17 makes the key too
// wide for that (3 × 18 bits and the instance), the two-word path: both must agree, at one
// thread and at two.
mpp::Mesh hexahedra_with_a_copy(std::int64_t m, std::int64_t base) {
  const std::int64_t n = m + 1;
  mpp::Mesh mesh;
  mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {base + n * n * n, 3});
  double* xyz = mesh.points.data_as<double>();
  for (std::int64_t p = 0; p < base + n * n * n; ++p) {
    const std::int64_t q = std::max<std::int64_t>(p - base, 0);
    xyz[3 * p] = static_cast<double>(q % n), xyz[3 * p + 1] = static_cast<double>(q / n % n), xyz[3 * p + 2] = static_cast<double>(q / (n * n));
  }
  std::vector<std::int64_t> nodes;
  for (std::int64_t k = 0; k < m; ++k)
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        const std::int64_t c = base + i + n * j + n * n * k;
        for (std::int64_t node : {c, c + 1, c + 1 + n, c + n, c + n * n, c + 1 + n * n, c + 1 + n + n * n, c + n + n * n}) nodes.push_back(node);
      }
  mesh.cells.push_back({"hexahedron", int64_matrix(m * m * m, 8, nodes), {}, {}});
  mesh.cells.push_back({"hexahedron", int64_matrix(1, 8, std::vector<std::int64_t>(nodes.begin(), nodes.begin() + 8)), {}, {}});
  return mesh;
}

// A thread count for one scope, the default restored after.
struct ThreadCount {
  explicit ThreadCount(unsigned count) { mpp::set_thread_count(count); }
  ~ThreadCount() { mpp::set_thread_count(0); }
};

// extract_surface keeps the points its facets use (flagged_positions on all cores): each
// range once wrote past its last kept point into the next range's first slot, racing the
// thread that filled it, and an interior point (and -1 in the cells) came out at 2 threads.
// A box of tetrahedra large enough to split; the surface equal at 1 and 2 threads, and every
// node of it a point of the surface.
TEST(MeshOps, SurfacePointsAreTheSameAtOneAndTwoThreads) {
  const std::int64_t m = 40;  // (m+1)^3 = 68,921 points: over the 65,536 flags that split
  mpp::Mesh mesh;
  std::vector<double> xyz;
  for (std::int64_t k = 0; k <= m; ++k)
    for (std::int64_t j = 0; j <= m; ++j)
      for (std::int64_t i = 0; i <= m; ++i) xyz.insert(xyz.end(), {double(i), double(j), double(k)});
  mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {(m + 1) * (m + 1) * (m + 1), 3});
  std::copy(xyz.begin(), xyz.end(), mesh.points.data_as<double>());
  const auto at = [m](std::int64_t i, std::int64_t j, std::int64_t k) { return (k * (m + 1) + j) * (m + 1) + i; };
  std::vector<std::int64_t> nodes;
  for (std::int64_t k = 0; k < m; ++k)
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        const std::int64_t c[8] = {at(i, j, k), at(i + 1, j, k), at(i + 1, j + 1, k), at(i, j + 1, k),
                                   at(i, j, k + 1), at(i + 1, j, k + 1), at(i + 1, j + 1, k + 1), at(i, j + 1, k + 1)};
        // Kuhn's six tetrahedra around the diagonal 0-6: conforming from cube to cube.
        for (const auto& t : {std::array<int, 4>{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}})
          for (const int v : t) nodes.push_back(c[v]);
      }
  mesh.cells.push_back({"tetra", mpp::NDArray::allocate(mpp::DType::int64, {static_cast<std::int64_t>(nodes.size() / 4), 4}), {}, {}});
  std::copy(nodes.begin(), nodes.end(), mesh.cells[0].connectivity.data_as<std::int64_t>());
  mpp::Mesh one;
  {
    const ThreadCount scoped(1);
    one = mpp::extract_surface(mesh);
  }
  const std::int64_t boundary_points = (m + 1) * (m + 1) * (m + 1) - (m - 1) * (m - 1) * (m - 1);
  ASSERT_EQ(boundary_points, one.num_points());
  for (int run = 0; run < 20; ++run) {
    const ThreadCount scoped(2);
    const mpp::Mesh two = mpp::extract_surface(mesh);
    expect_same_bits(one, two);
    const std::span<const std::int64_t> cells = two.cells[0].connectivity.values<std::int64_t>();
    ASSERT_TRUE(std::all_of(cells.begin(), cells.end(), [&](std::int64_t v) { return v >= 0 && v < two.num_points(); }))
        << "run " << run;
  }
}

TEST(MeshOps, CheckAndSurfaceCountFacetsAlikeInEitherKeyLayoutAndThreadCount) {
  const std::int64_t m = 6;
  for (const std::int64_t base : {std::int64_t{0}, std::int64_t{1} << 17}) {
    const mpp::Mesh mesh = hexahedra_with_a_copy(m, base);
    for (const unsigned threads : {1u, 2u}) {
      const ThreadCount scoped(threads);
      const mpp::MeshCheck found = mpp::check(mesh);
      EXPECT_EQ(3, found.non_manifold_facets) << base << " " << threads;
      // The corner cell, its three neighbours and its copy (block-major: the last cell).
      EXPECT_EQ((std::vector<std::int64_t>{0, 1, m, m * m, m * m * m}), found.non_manifold_cells) << base << " " << threads;
      EXPECT_EQ((std::vector<std::int64_t>{m * m * m}), found.duplicate);
      EXPECT_EQ(base, static_cast<std::int64_t>(found.unused_points.size()));
      // The surface: 6 m² faces less the copy's three outer ones, now shared by two cells.
      EXPECT_EQ(6 * m * m - 3, mpp::extract_surface(mesh).num_cells()) << base << " " << threads;
    }
  }
}


// merge_points' search takes a shortcut for exact copies of a cell's first point (the cell
// hashes computed on all cores first): groups of exact copies, copies with -0 for 0, near copies
// within the tolerance and NaN points, shuffled, weld into the first of their group at either
// thread count (NaN welds nowhere), enough points for the parallel hashing to split.
TEST(MeshOps, MergePointsWeldsCopiesNearCopiesAndNaNAlikeAtEitherThreadCount) {
  const std::int64_t groups = 7000, members = 10;
  const double tolerance = 1e-3;
  std::vector<std::int64_t> group_of;
  std::vector<double> xyz;
  std::uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  for (std::int64_t g = 0; g < groups; ++g)
    for (std::int64_t m = 0; m < members; ++m) {
      const double centre[3] = {static_cast<double>(g % 20), static_cast<double>(g / 20 % 20) * 0.5, static_cast<double>(g / 400) * 0.25};
      for (int k = 0; k < 3; ++k) {
        double value = centre[k];
        if (m % 3 == 1 && value == 0.0) value = -0.0;  // a copy with -0
        if (m % 3 == 2) value += (static_cast<double>(next() >> 40) / static_cast<double>(1 << 24) - 0.5) * 0.5 * tolerance;
        xyz.push_back(value);
      }
      group_of.push_back(g);
    }
  for (std::int64_t i = 0; i < 5; ++i) {  // NaN points: each its own
    xyz.insert(xyz.end(), {std::nan(""), 1.0, 2.0});
    group_of.push_back(-1 - i);
  }
  const auto n = static_cast<std::int64_t>(group_of.size());
  for (std::int64_t i = n - 1; i > 0; --i) {  // shuffled: a group's first anywhere
    const auto j = static_cast<std::int64_t>(next() >> 33) % (i + 1);
    std::swap(group_of[static_cast<std::size_t>(i)], group_of[static_cast<std::size_t>(j)]);
    for (int k = 0; k < 3; ++k) std::swap(xyz[static_cast<std::size_t>(3 * i + k)], xyz[static_cast<std::size_t>(3 * j + k)]);
  }
  std::vector<std::int64_t> ids(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i;
  std::vector<std::int64_t> first_nodes;
  for (const unsigned threads : {1u, 2u}) {
    const ThreadCount scoped(threads);
    mpp::Mesh mesh;
    mesh.points = array_of<double>({n, 3}, xyz);
    mesh.cells.push_back({"vertex", int64_matrix(n, 1, ids), {}, {}});
    EXPECT_EQ(n - groups - 5, mpp::merge_points(mesh, tolerance)) << threads;
    ASSERT_EQ(groups + 5, mesh.num_points());
    const std::vector<std::int64_t> nodes = nodes_of(mesh.cells[0]);
    // New points in order of the groups' first points: each group's points share one.
    std::vector<std::int64_t> node_of_group(static_cast<std::size_t>(groups), -1);
    std::int64_t next_new = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t g = group_of[static_cast<std::size_t>(i)];
      std::int64_t expected = -1;
      if (g < 0) expected = next_new++;
      else if (node_of_group[static_cast<std::size_t>(g)] < 0) expected = node_of_group[static_cast<std::size_t>(g)] = next_new++;
      else expected = node_of_group[static_cast<std::size_t>(g)];
      ASSERT_EQ(expected, nodes[static_cast<std::size_t>(i)]) << "point " << i << " at " << threads << " threads";
    }
    if (first_nodes.empty()) first_nodes = nodes;
    EXPECT_EQ(first_nodes, nodes);
  }
}

}  // namespace
