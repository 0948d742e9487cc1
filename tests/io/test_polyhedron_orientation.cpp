// io/cells/polyhedron_orientation: faces listed either way round come out of their cell,
// convex and non-convex cells alike, float32 and 2-column points, and open face sets by the
// centroid rule.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "io/cells/polyhedron_orientation.hpp"
#include "support/polyhedron_checks.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

TEST(PolyhedronOrientation, ScrambledFacesComeOutOfConvexAndNonConvexCells) {
  const NDArray points = polyhedra_points();
  CellBlock cells = polyhedra_block(/*scrambled=*/true);
  const std::vector<double> before = polyhedron_volumes(points, cells);
  EXPECT_NE(before[2], 3.0);  // the L prism's faces point both ways
  // Turned: one cube face, the pyramid's base, seven of the prism's eight faces.
  EXPECT_EQ(9, io::orient_polyhedron_faces_outward(points, cells));
  const std::vector<double> after = polyhedron_volumes(points, cells);
  EXPECT_NEAR(1.0, after[0], 1e-12);
  EXPECT_NEAR(1.0 / 3.0, after[1], 1e-12);
  EXPECT_NEAR(3.0, after[2], 1e-12);
  for (std::int64_t c = 0; c < 3; ++c) EXPECT_EQ(face_sets(polyhedra_block(), c), face_sets(cells, c));
  // Outward already: nothing turns, nothing moves.
  const std::vector<std::int64_t> settled = nodes_of(cells);
  EXPECT_EQ(0, io::orient_polyhedron_faces_outward(points, cells));
  EXPECT_EQ(settled, nodes_of(cells));
  // A face is turned with its first node kept first: the cube's side 4 5 1 0 becomes 4 0 1 5.
  EXPECT_EQ((std::vector<std::int64_t>{4, 0, 1, 5}), std::vector<std::int64_t>(settled.begin() + 8, settled.begin() + 12));
}

TEST(PolyhedronOrientation, Float32PointsAndOpenFaceSets) {
  const NDArray points = polyhedra_points().astype(DType::float32);
  CellBlock cells = polyhedra_block(/*scrambled=*/true);
  io::orient_polyhedron_faces_outward(points, cells);
  EXPECT_NEAR(3.0, polyhedron_volumes(points, cells)[2], 1e-6);
  // Two faces of the cube only (no closed surface): each is turned away from the centroid of
  // their nodes, the bottom (z = 0) down and the top (z = 1) up.
  CellBlock open{"polyhedron", int64_vector({0, 1, 2, 3, 4, 5, 6, 7}), int64_vector({0, 2}), int64_vector({0, 4, 8})};
  EXPECT_EQ(1, io::orient_polyhedron_faces_outward(points, open));
  EXPECT_EQ((std::vector<std::int64_t>{0, 3, 2, 1, 4, 5, 6, 7}), nodes_of(open));
}

}  // namespace
