// io/geometry/nastran_coordinates: grid positions in CORD1x/CORD2x systems → basic, by the
// Quick Reference Guide's rules (hand-worked values), and every way a definition can fail.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "io/geometry/nastran_coordinates.hpp"

namespace io = meshioplusplus::io;
using Kind = io::NastranCoordinateKind;

namespace {

io::NastranCoordinateSystem cord2(std::int64_t id, Kind kind, std::int64_t rid, std::array<double, 9> abc) {
  io::NastranCoordinateSystem s;
  s.id = id;
  s.kind = kind;
  s.reference = rid;
  s.points = abc;
  return s;
}

void expect_xyz(const std::vector<double>& xyz, std::size_t i, double x, double y, double z) {
  EXPECT_NEAR(xyz[3 * i], x, 1e-12) << "grid row " << i;
  EXPECT_NEAR(xyz[3 * i + 1], y, 1e-12) << "grid row " << i;
  EXPECT_NEAR(xyz[3 * i + 2], z, 1e-12) << "grid row " << i;
}

}  // namespace

TEST(NastranCoordinates, RectangularCylindricalSpherical) {
  // CORD2R 2: origin (180, 240, 0), z up, x along (180, -240, 0) (a real deck's system).
  // CORD2C 5 and CORD2S 6: at (1, 2, 3), axes of basic.
  const std::vector<io::NastranCoordinateSystem> systems{
      cord2(2, Kind::rectangular, 0, {180, 240, 0, 180, 240, 100, 360, 0, 0}),
      cord2(5, Kind::cylindrical, 0, {1, 2, 3, 1, 2, 4, 2, 2, 3}),
      cord2(6, Kind::spherical, 0, {1, 2, 3, 1, 2, 4, 2, 2, 3}),
  };
  const std::vector<std::int64_t> ids{1, 2, 3, 4, 5, 6};
  const std::vector<std::int64_t> cp{0, 2, 2, 5, 6, 6};
  std::vector<double> xyz{7, 8, 9, 0, 0, 0, 300, 0, 0, 2, 90, 5, 1, 90, 0, 4, 0, 33};
  ASSERT_EQ(io::nastran_positions_to_basic(systems, ids, cp, xyz), "");
  expect_xyz(xyz, 0, 7, 8, 9);      // basic stays
  expect_xyz(xyz, 1, 180, 240, 0);  // the origin
  expect_xyz(xyz, 2, 180 + 300 * 0.6, 240 - 300 * 0.8, 0);
  expect_xyz(xyz, 3, 1, 4, 8);  // r 2 at 90°, z 5
  expect_xyz(xyz, 4, 2, 2, 3);  // r 1 on the equator at φ 0
  expect_xyz(xyz, 5, 1, 2, 7);  // θ 0: the pole, whatever φ
}

TEST(NastranCoordinates, ChainsAndGrids) {
  // CORD2S 3 given in CORD2C 1 (cylindrical points), CORD1R 9 through grids 10, 11, 12 (11 itself
  // in system 3): resolved in the order their references allow, not file order.
  io::NastranCoordinateSystem by_grids;
  by_grids.id = 9;
  by_grids.by_grids = true;
  by_grids.grids = {10, 11, 12};
  const std::vector<io::NastranCoordinateSystem> systems{
      by_grids,
      cord2(3, Kind::spherical, 1, {2, 90, 0, 2, 90, 1, 3, 90, 0}),
      cord2(1, Kind::cylindrical, 0, {0, 0, 0, 0, 0, 1, 1, 0, 0}),
  };
  const std::vector<std::int64_t> ids{20, 10, 11, 12};
  const std::vector<std::int64_t> cp{9, 0, 3, 0};
  std::vector<double> xyz{0, 0, 1, 5, 5, 5, 1, 0, 0, 6, 5, 5};
  ASSERT_EQ(io::nastran_positions_to_basic(systems, ids, cp, xyz), "");
  // System 3: origin at cylindrical (2, 90°, 0) of system 1 = (0, 2, 0), z along basic z, x
  // along +y. Grid 11 at r 1, θ 0 in it: its pole, (0, 2, 1).
  expect_xyz(xyz, 2, 0, 2, 1);
  // System 9: origin grid 10 (5, 5, 5), z towards grid 11. Grid 20 at (0, 0, 1) in it: one unit
  // from the origin towards grid 11.
  const double length = std::sqrt(50.0);
  expect_xyz(xyz, 0, 5 - 5 / length, 5 - 3 / length, 5 - 4 / length);
}

TEST(NastranCoordinates, WhatCannotBePlacedIsSaidAndLeavesThePositions) {
  const std::vector<std::int64_t> ids{1, 2};
  const std::vector<double> before{1, 2, 3, 4, 5, 6};
  auto fails = [&](std::vector<io::NastranCoordinateSystem> systems, std::vector<std::int64_t> cp, const std::string& text) {
    std::vector<double> xyz = before;
    const std::string why = io::nastran_positions_to_basic(systems, ids, cp, xyz);
    EXPECT_NE(why.find(text), std::string::npos) << why;
    EXPECT_EQ(xyz, before);
  };
  fails({}, {0, 7}, "grid 2 is given in coordinate system 7, which the file does not define");
  fails({cord2(4, Kind::rectangular, 8, {0, 0, 0, 0, 0, 1, 1, 0, 0})}, {4, 0}, "is given in system 8");
  fails({cord2(4, Kind::rectangular, 0, {0, 0, 0, 0, 0, 0, 1, 0, 0})}, {4, 0}, "do not span a frame");
  fails({cord2(4, Kind::rectangular, 0, {0, 0, 0, 0, 0, 1, 0, 0, 2})}, {4, 0}, "do not span a frame");
  io::NastranCoordinateSystem circle;  // CORD1R 5 through grid 1, which is given in system 5
  circle.id = 5;
  circle.by_grids = true;
  circle.grids = {1, 2, 2};
  fails({circle}, {5, 0}, "refers back to itself");
  circle.grids = {1, 2, 99};
  fails({circle}, {5, 0}, "names grid 99");
}
