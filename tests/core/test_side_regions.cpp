// derive_side_regions: boundary-element regions become (cell, local facet) side regions.
// The main fixture is a structured box of tetrahedra (each cube split into six along its
// main diagonal, which makes neighbouring cubes conform); its boundary triangles are found
// geometrically (all three corners on one face of the box), independently of the code
// under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/side_regions.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;

using namespace meshioplusplus::testing_support;

namespace {

mpp::CellBlock block(const char* type, std::int64_t width, const std::vector<std::int64_t>& nodes) {
  mpp::CellBlock cells;
  cells.type = type;
  cells.connectivity = int64_matrix(static_cast<std::int64_t>(nodes.size()) / width, width, nodes);
  return cells;
}

// A box of n³ cubes of tetrahedra.
struct TetBox {
  int n;
  mpp::Mesh mesh;
  std::vector<std::array<std::int64_t, 3>> lattice;  // (i, j, k) of each point

  explicit TetBox(int cubes) : n(cubes) {
    const std::int64_t side = n + 1;
    mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {side * side * side, 3});
    double* xyz = mesh.points.data_as<double>();
    for (std::int64_t k = 0; k <= n; ++k)
      for (std::int64_t j = 0; j <= n; ++j)
        for (std::int64_t i = 0; i <= n; ++i) {
          const std::int64_t p = id(i, j, k);
          xyz[3 * p] = static_cast<double>(i);
          xyz[3 * p + 1] = static_cast<double>(j);
          xyz[3 * p + 2] = static_cast<double>(k);
          lattice.push_back({i, j, k});
        }
    // Each cube: six tetrahedra (0, a, a+b, 7) walking the axes in every order.
    const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    std::vector<std::int64_t> tets;
    tets.reserve(static_cast<std::size_t>(24) * n * n * n);
    for (std::int64_t k = 0; k < n; ++k)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < n; ++i)
          for (const auto& order : orders) {
            std::array<std::int64_t, 3> corner{i, j, k};
            tets.push_back(id(corner[0], corner[1], corner[2]));
            for (int step = 0; step < 3; ++step) {
              ++corner[static_cast<std::size_t>(order[step])];
              tets.push_back(id(corner[0], corner[1], corner[2]));
            }
          }
    mesh.cells.push_back(block("tetra", 4, tets));
  }

  std::int64_t id(std::int64_t i, std::int64_t j, std::int64_t k) const { return i + (n + 1) * (j + (n + 1) * k); }

  bool on_one_box_face(const std::array<std::int64_t, 3>& facet) const {
    for (std::size_t axis = 0; axis < 3; ++axis)
      for (const std::int64_t plane : {std::int64_t{0}, std::int64_t{n}})
        if (std::all_of(facet.begin(), facet.end(),
                        [&](std::int64_t p) { return lattice[static_cast<std::size_t>(p)][axis] == plane; }))
          return true;
    return false;
  }

  // Boundary triangles, each taken from the tet that owns it (as an element generator would
  // write them), with its corners rotated so they are not in the tet's facet order.
  std::vector<std::int64_t> boundary_triangles() const {
    std::vector<std::int64_t> triangles;
    const std::int64_t* tets = mesh.cells[0].connectivity.data_as<std::int64_t>();
    const std::int64_t count = mesh.cells[0].num_cells();
    for (std::int64_t t = 0; t < count; ++t)
      for (const mpp::FacetCorners& facet : mpp::cell_facets("tetra")) {
        const std::array<std::int64_t, 3> nodes{tets[4 * t + facet.corners[1]], tets[4 * t + facet.corners[2]],
                                                tets[4 * t + facet.corners[0]]};
        if (on_one_box_face(nodes)) triangles.insert(triangles.end(), nodes.begin(), nodes.end());
      }
    return triangles;
  }
};

std::vector<std::int64_t> sorted_facet_nodes(const mpp::Mesh& mesh, std::int64_t cell, std::int64_t facet) {
  const mpp::CellBlock& tets = mesh.cells[0];
  const std::int64_t* nodes = tets.connectivity.data_as<std::int64_t>() + cell * tets.connectivity.dim(1);
  const mpp::FacetCorners& corners = mpp::cell_facets(tets.type)[static_cast<std::size_t>(facet)];
  std::vector<std::int64_t> result;
  for (int c = 0; c < corners.count; ++c) result.push_back(nodes[corners.corners[static_cast<std::size_t>(c)]]);
  std::sort(result.begin(), result.end());
  return result;
}

const mpp::Region* side_region(const mpp::Mesh& mesh, const std::string& name) {
  for (const mpp::Region& region : mesh.regions)
    if (region.kind == mpp::RegionKind::Side && region.name == name) return &region;
  return nullptr;
}

TEST(SideRegions, FacetTableIsTheDocumentedOne) {
  EXPECT_EQ(mpp::cell_facets("tetra").size(), 4u);
  EXPECT_EQ(mpp::cell_facets("hexahedron").size(), 6u);
  EXPECT_EQ(mpp::cell_facets("wedge").size(), 5u);
  EXPECT_EQ(mpp::cell_facets("pyramid").size(), 5u);
  EXPECT_EQ(mpp::cell_facets("triangle").size(), 3u);
  EXPECT_EQ(mpp::cell_facets("quad").size(), 4u);
  EXPECT_EQ(mpp::cell_facets("line").size(), 2u);
  // Higher-order variants share their family's facets (by corner nodes).
  EXPECT_EQ(mpp::cell_facets("tetra10").data(), mpp::cell_facets("tetra").data());
  EXPECT_EQ(mpp::cell_facets("hexahedron27").data(), mpp::cell_facets("hexahedron").data());
  EXPECT_EQ(mpp::cell_facets("quad9").data(), mpp::cell_facets("quad").data());
  EXPECT_TRUE(mpp::cell_facets("vertex").empty());
  EXPECT_TRUE(mpp::cell_facets("polyhedron").empty());
  EXPECT_TRUE(mpp::cell_facets("quadrilateral").empty());
  const mpp::FacetCorners& hex_top = mpp::cell_facets("hexahedron")[5];
  EXPECT_EQ(hex_top.count, 4);
  EXPECT_EQ(hex_top.corners, (std::array<std::int8_t, 4>{4, 5, 6, 7}));
  const mpp::FacetCorners& wedge_bottom = mpp::cell_facets("wedge")[3];
  EXPECT_EQ(wedge_bottom.count, 3);
  EXPECT_EQ((std::array<std::int8_t, 3>{wedge_bottom.corners[0], wedge_bottom.corners[1], wedge_bottom.corners[2]}),
            (std::array<std::int8_t, 3>{0, 2, 1}));
}

// Every facet of the table must be a face of the reference cell with an outward normal:
// checked on unit reference cells by the sign of (facet normal) · (facet centre - cell centre).
TEST(SideRegions, FacetsPointOutOfTheirCells) {
  const std::map<std::string, std::vector<std::array<double, 3>>> reference{
      {"tetra", {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
      {"pyramid", {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.5, 0.5, 1}}},
      {"wedge", {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}}},
      {"hexahedron", {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}},
  };
  for (const auto& [type, corners] : reference) {
    SCOPED_TRACE(type);
    std::array<double, 3> centre{};
    for (const auto& c : corners)
      for (int a = 0; a < 3; ++a) centre[a] += c[a] / static_cast<double>(corners.size());
    for (const mpp::FacetCorners& facet : mpp::cell_facets(type)) {
      const auto& p0 = corners[static_cast<std::size_t>(facet.corners[0])];
      const auto& p1 = corners[static_cast<std::size_t>(facet.corners[1])];
      const auto& p2 = corners[static_cast<std::size_t>(facet.corners[2])];
      const std::array<double, 3> u{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
      const std::array<double, 3> v{p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
      const std::array<double, 3> normal{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
      double outward = 0;
      for (int a = 0; a < 3; ++a) outward += normal[a] * (p0[a] - centre[a]);
      EXPECT_GT(outward, 0) << "facet starting at corner " << int(facet.corners[0]);
    }
  }
}

TEST(SideRegions, StructuredTetBoxBoundary) {
  TetBox box(4);
  const std::vector<std::int64_t> boundary = box.boundary_triangles();
  const std::int64_t num_boundary = static_cast<std::int64_t>(boundary.size() / 3);
  ASSERT_EQ(num_boundary, 6 * 2 * 4 * 4);  // two triangles per boundary square

  // Cross-check the geometric criterion: boundary facets are the ones owned by one tet only.
  std::map<std::vector<std::int64_t>, int> owners;
  for (std::int64_t t = 0; t < box.mesh.cells[0].num_cells(); ++t)
    for (std::int64_t f = 0; f < 4; ++f) ++owners[sorted_facet_nodes(box.mesh, t, f)];
  EXPECT_EQ(std::count_if(owners.begin(), owners.end(), [](const auto& entry) { return entry.second == 1; }),
            num_boundary);

  // Boundary triangles plus two that are no facet of any tet.
  std::vector<std::int64_t> triangles = boundary;
  const std::vector<std::int64_t> strays{box.id(0, 0, 0), box.id(2, 2, 2), box.id(4, 0, 4),
                                         box.id(1, 0, 0), box.id(0, 1, 0), box.id(1, 1, 0)};  // not a Kuhn face
  triangles.insert(triangles.end(), strays.begin(), strays.end());
  box.mesh.cells.push_back(block("triangle", 3, triangles));
  const std::int64_t first_triangle = box.mesh.cells[0].num_cells();
  std::vector<std::int64_t> entries;
  for (std::int64_t i = 0; i < num_boundary + 2; ++i) entries.push_back(first_triangle + i);
  box.mesh.regions.push_back(cell_region("boundary", 2, 5, entries));

  const mpp::SideRegionReport report = mpp::derive_side_regions(box.mesh);
  ASSERT_EQ(report.region_names, std::vector<std::string>{"boundary"});
  EXPECT_EQ(report.unmatched_counts, std::vector<std::int64_t>{2});
  const mpp::Region* side = side_region(box.mesh, "boundary");
  ASSERT_NE(side, nullptr);
  EXPECT_EQ(side->dim, 2);
  EXPECT_EQ(side->tag, 5);
  ASSERT_EQ(side->entries.shape(), (mpp::Shape{num_boundary, 2}));
  EXPECT_NO_THROW(mpp::validate(box.mesh));
  // Pairs follow the region's order: pair i is triangle i, matched by exactly one facet
  // whose corner nodes are the triangle's.
  const std::int64_t* pairs = side->entries.data_as<std::int64_t>();
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (std::int64_t i = 0; i < num_boundary; ++i) {
    std::vector<std::int64_t> triangle(boundary.begin() + 3 * i, boundary.begin() + 3 * i + 3);
    std::sort(triangle.begin(), triangle.end());
    ASSERT_LT(pairs[2 * i], first_triangle) << "the cell must be a tetrahedron";
    EXPECT_EQ(sorted_facet_nodes(box.mesh, pairs[2 * i], pairs[2 * i + 1]), triangle) << "triangle " << i;
    EXPECT_TRUE(seen.insert({pairs[2 * i], pairs[2 * i + 1]}).second);
  }
}

TEST(SideRegions, InteriorFacetYieldsBothCells) {
  TetBox box(2);
  // Facet 1 of tet 0 is shared with a neighbour inside the cube.
  const std::vector<std::int64_t> shared = sorted_facet_nodes(box.mesh, 0, 1);
  box.mesh.cells.push_back(block("triangle", 3, shared));
  const std::int64_t triangle = box.mesh.cells[0].num_cells();
  box.mesh.regions.push_back(cell_region("inner", 2, 1, {triangle}));
  const mpp::SideRegionReport report = mpp::derive_side_regions(box.mesh);
  EXPECT_EQ(report.unmatched_counts, std::vector<std::int64_t>{0});
  const mpp::Region* side = side_region(box.mesh, "inner");
  ASSERT_NE(side, nullptr);
  ASSERT_EQ(side->entries.rows(), 2);
  const std::int64_t* pairs = side->entries.data_as<std::int64_t>();
  EXPECT_NE(pairs[0], pairs[2]);
  for (int p = 0; p < 2; ++p) EXPECT_EQ(sorted_facet_nodes(box.mesh, pairs[2 * p], pairs[2 * p + 1]), shared);
}

TEST(SideRegions, AddsEachSideRegionOnce) {
  TetBox box(1);
  const std::vector<std::int64_t> boundary = box.boundary_triangles();
  box.mesh.cells.push_back(block("triangle", 3, boundary));
  std::vector<std::int64_t> entries;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(boundary.size() / 3); ++i) entries.push_back(6 + i);
  box.mesh.regions.push_back(cell_region("skin", 2, 3, entries));
  box.mesh.regions.push_back(cell_region("volume", 3, 4, {0, 1, 2, 3, 4, 5}));  // not D-1: ignored
  EXPECT_EQ(mpp::derive_side_regions(box.mesh).region_names, std::vector<std::string>{"skin"});
  const std::size_t count = box.mesh.regions.size();
  const mpp::SideRegionReport again = mpp::derive_side_regions(box.mesh);
  EXPECT_TRUE(again.region_names.empty());
  EXPECT_EQ(again.already_present, std::vector<std::string>{"skin"});
  EXPECT_EQ(box.mesh.regions.size(), count);
}

TEST(SideRegions, EveryFamilyMatchesItsFacets) {
  // Each top-dimensional cell alone, with one region holding all its facets as elements
  // (quads for quadrilateral faces, triangles for triangular ones, lines in 2D).
  struct Case {
    const char* cell;
    const char* triangle_type;
    const char* quad_type;
    int width;
    int dim;
  };
  for (const Case& c : {Case{"tetra", "triangle", "quad", 4, 3}, Case{"hexahedron", "triangle", "quad", 8, 3},
                        Case{"wedge", "triangle", "quad", 6, 3}, Case{"pyramid", "triangle", "quad", 5, 3},
                        Case{"tetra10", "triangle6", "quad8", 10, 3}, Case{"hexahedron20", "triangle6", "quad8", 20, 3},
                        Case{"triangle", "line", "line", 3, 2}, Case{"quad9", "line3", "line3", 9, 2}}) {
    SCOPED_TRACE(c.cell);
    mpp::Mesh mesh;
    mesh.points = mpp::NDArray::zeros(mpp::DType::float64, {c.width, 3});
    std::vector<std::int64_t> nodes;
    for (std::int64_t i = 0; i < c.width; ++i) nodes.push_back(c.width - 1 - i);  // any distinct node numbers
    mesh.cells.push_back(block(c.cell, c.width, nodes));
    const std::span<const mpp::FacetCorners> facets = mpp::cell_facets(c.cell);
    std::vector<std::int64_t> small, large;  // facet elements of 2/3 corners and of 4 corners
    std::vector<int> facet_of_small, facet_of_large;
    const int small_width = static_cast<int>(mpp::cell_type(c.dim == 3 ? c.triangle_type : c.triangle_type).num_nodes);
    const int large_width = static_cast<int>(mpp::cell_type(c.quad_type).num_nodes);
    for (std::size_t f = 0; f < facets.size(); ++f) {
      const bool quad = facets[f].count == 4;
      std::vector<std::int64_t>& into = quad ? large : small;
      const int width = quad ? large_width : small_width;
      // Corners reversed (orientation does not matter), then filler nodes for higher order.
      for (int k = facets[f].count - 1; k >= 0; --k) into.push_back(nodes[static_cast<std::size_t>(facets[f].corners[static_cast<std::size_t>(k)])]);
      for (int k = facets[f].count; k < width; ++k) into.push_back(0);
      (quad ? facet_of_large : facet_of_small).push_back(static_cast<int>(f));
    }
    std::vector<std::int64_t> entries;
    std::vector<int> expected_facets;
    if (!small.empty()) {
      mesh.cells.push_back(block(c.triangle_type, small_width, small));
      for (std::size_t i = 0; i < facet_of_small.size(); ++i) entries.push_back(1 + static_cast<std::int64_t>(i));
      expected_facets.insert(expected_facets.end(), facet_of_small.begin(), facet_of_small.end());
    }
    if (!large.empty()) {
      const std::int64_t base = 1 + static_cast<std::int64_t>(facet_of_small.size());
      mesh.cells.push_back(block(c.quad_type, large_width, large));
      for (std::size_t i = 0; i < facet_of_large.size(); ++i) entries.push_back(base + static_cast<std::int64_t>(i));
      expected_facets.insert(expected_facets.end(), facet_of_large.begin(), facet_of_large.end());
    }
    mesh.regions.push_back(cell_region("faces", c.dim - 1, 1, entries));
    const mpp::SideRegionReport report = mpp::derive_side_regions(mesh);
    ASSERT_EQ(report.unmatched_counts, std::vector<std::int64_t>{0});
    const mpp::Region& side = mesh.regions.back();
    ASSERT_EQ(side.entries.rows(), static_cast<std::int64_t>(facets.size()));
    for (std::size_t i = 0; i < expected_facets.size(); ++i) {
      EXPECT_EQ(side.entries.data_as<std::int64_t>()[2 * i], 0);
      EXPECT_EQ(side.entries.data_as<std::int64_t>()[2 * i + 1], expected_facets[i]);
    }
  }
}

TEST(SideRegions, RegionWithoutDimensionQualifiesByItsCells) {
  TetBox box(1);
  const std::vector<std::int64_t> boundary = box.boundary_triangles();
  box.mesh.cells.push_back(block("triangle", 3, std::vector<std::int64_t>(boundary.begin(), boundary.begin() + 3)));
  box.mesh.regions.push_back(cell_region("unknown dim", -1, -1, {6}));
  box.mesh.regions.push_back(cell_region("mixed", -1, -1, {0, 6}));  // a tet inside: not a facet region
  const mpp::SideRegionReport report = mpp::derive_side_regions(box.mesh);
  EXPECT_EQ(report.region_names, std::vector<std::string>{"unknown dim"});
  EXPECT_EQ(report.unmatched_counts, std::vector<std::int64_t>{0});
}

TEST(SideRegions, MillionTetrahedraTiming) {
  TetBox box(55);  // 998 250 tetrahedra
  const std::vector<std::int64_t> boundary = box.boundary_triangles();
  const std::int64_t num_boundary = static_cast<std::int64_t>(boundary.size() / 3);
  box.mesh.cells.push_back(block("triangle", 3, boundary));
  const std::int64_t first = box.mesh.cells[0].num_cells();
  std::vector<std::int64_t> entries(static_cast<std::size_t>(num_boundary));
  for (std::int64_t i = 0; i < num_boundary; ++i) entries[static_cast<std::size_t>(i)] = first + i;
  box.mesh.regions.push_back(cell_region("boundary", 2, 1, entries));
  const auto start = std::chrono::steady_clock::now();
  const mpp::SideRegionReport report = mpp::derive_side_regions(box.mesh);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ timing   ] derive_side_regions: %lld tetrahedra, %lld boundary triangles: %.3f s\n",
              static_cast<long long>(first), static_cast<long long>(num_boundary), seconds);
  EXPECT_EQ(report.unmatched_counts, std::vector<std::int64_t>{0});
  EXPECT_EQ(side_region(box.mesh, "boundary")->entries.rows(), num_boundary);
}

}  // namespace
