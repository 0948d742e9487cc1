// io::build_cells_from_faces: face lists with owner/neighbour (OpenFOAM, Fluent) -> cells.
// Shapes are checked by their signed volume over side_regions' outward facet tables: a node
// order that is wrong, mirrored or twisted gives a wrong or negative volume.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "io/cells/cells_from_faces.hpp"
#include "meshioplusplus/side_regions.hpp"
#include "meshioplusplus/threads.hpp"

namespace mpp = meshioplusplus;
using mpp::io::FaceCellInput;

namespace {

using Point = std::array<double, 3>;

// A face list under construction: faces given as node lists, owner, neighbour.
struct Faces {
  std::vector<std::int64_t> offsets{0}, nodes, owner, neighbour;
  void add(std::vector<std::int64_t> face, std::int64_t own, std::int64_t nei = -1) {
    nodes.insert(nodes.end(), face.begin(), face.end());
    offsets.push_back(static_cast<std::int64_t>(nodes.size()));
    owner.push_back(own);
    neighbour.push_back(nei);
  }
  FaceCellInput input(std::int64_t cells, int dimension = 3) const {
    FaceCellInput in;
    in.face_offsets = offsets;
    in.face_nodes = nodes;
    in.owner = owner;
    in.neighbour = neighbour;
    in.num_cells = cells;
    in.dimension = dimension;
    return in;
  }
};

// Every face's (block-major cell, local facet) on its owner / neighbour side, (-1, -1) where it
// has none: FaceCells::side() asked for each face, as the old per-face arrays held them.
std::vector<std::int64_t> owner_sides(const mpp::io::FaceCells& cells, const Faces& faces) {
  std::vector<std::int64_t> sides;
  for (std::size_t f = 0; f < faces.owner.size(); ++f) {
    const auto side = cells.side(static_cast<std::int64_t>(f), faces.owner[f], false);
    sides.insert(sides.end(), side.begin(), side.end());
  }
  return sides;
}
std::vector<std::int64_t> neighbour_sides(const mpp::io::FaceCells& cells, const Faces& faces) {
  std::vector<std::int64_t> sides;
  for (std::size_t f = 0; f < faces.neighbour.size(); ++f) {
    const auto side = cells.side(static_cast<std::int64_t>(f), faces.neighbour[f], true);
    sides.insert(sides.end(), side.begin(), side.end());
  }
  return sides;
}

Point sub(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Point cross(const Point& a, const Point& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Point& a, const Point& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// Volume enclosed by outward polygons (divergence theorem over a fan of each polygon).
double polygon_volume(const std::vector<Point>& points, const std::vector<std::vector<std::int64_t>>& faces) {
  double volume = 0;
  for (const auto& face : faces)
    for (std::size_t i = 1; i + 1 < face.size(); ++i)
      volume += dot(points[face[0]], cross(points[face[i]], points[face[i + 1]])) / 6.0;
  return volume;
}

// A standard cell's volume from its VTK node order and side_regions' outward facets.
double cell_volume(const std::vector<Point>& points, const mpp::CellBlock& block, std::int64_t row) {
  const auto facets = mpp::cell_facets(block.type);
  const std::int64_t width = block.connectivity.row_width();
  const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>() + row * width;
  std::vector<std::vector<std::int64_t>> faces;
  for (const auto& facet : facets) {
    std::vector<std::int64_t> face;
    for (int i = 0; i < facet.count; ++i) face.push_back(nodes[facet.corners[static_cast<std::size_t>(i)]]);
    faces.push_back(face);
  }
  return polygon_volume(points, faces);
}

// A unit cube, nodes 0-3 at z = 0 (counter-clockwise from above), 4-7 above them.
const std::vector<Point> kCube{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

// The cube's six faces, outward, listed in a scrambled order and with rotated starts.
void add_cube(Faces& faces, std::int64_t cell) {
  faces.add({5, 6, 7, 4}, cell);  // top
  faces.add({1, 2, 6, 5}, cell);
  faces.add({3, 2, 1, 0}, cell);  // bottom, outward = -z
  faces.add({4, 7, 3, 0}, cell);
  faces.add({0, 1, 5, 4}, cell);
  faces.add({7, 6, 2, 3}, cell);
}

TEST(CellsFromFaces, HexahedronFromOutwardQuadsHasPositiveUnitVolume) {
  Faces faces;
  add_cube(faces, 0);
  const auto cells = mpp::io::build_cells_from_faces(faces.input(1));
  ASSERT_EQ(cells.blocks.size(), 1u);
  EXPECT_EQ(cells.blocks[0].type, "hexahedron");
  EXPECT_DOUBLE_EQ(cell_volume(kCube, cells.blocks[0], 0), 1.0);
  // Every face is its owner's side, with the facet whose corners are its nodes.
  const auto facets = mpp::cell_facets("hexahedron");
  const std::int64_t* nodes = cells.blocks[0].connectivity.data_as<std::int64_t>();
  const std::vector<std::int64_t> sides = owner_sides(cells, faces);
  std::vector<bool> seen(6, false);
  for (std::size_t f = 0; f < 6; ++f) {
    EXPECT_EQ(sides[2 * f], 0);
    const std::int64_t facet = sides[2 * f + 1];
    ASSERT_GE(facet, 0);
    ASSERT_LT(facet, 6);
    seen[static_cast<std::size_t>(facet)] = true;
    std::vector<std::int64_t> expected(faces.nodes.begin() + faces.offsets[f], faces.nodes.begin() + faces.offsets[f + 1]);
    std::vector<std::int64_t> got;
    for (int i = 0; i < 4; ++i) got.push_back(nodes[facets[static_cast<std::size_t>(facet)].corners[static_cast<std::size_t>(i)]]);
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, expected);
    EXPECT_EQ(neighbour_sides(cells, faces)[2 * f], -1);
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 6);
}

TEST(CellsFromFaces, StandardShapesSplitFromACubeSharingFaces) {
  // The cube cut by the plane x = y into wedge 0 (nodes 0,1,2 / 4,5,6) and wedge 1 (0,2,3 /
  // 4,6,7), sharing the quad 0-4-6-2.
  Faces faces;
  faces.add({0, 4, 6, 2}, 0, 1);  // internal, normal (-1, 1, 0): out of wedge 0 (x > y)
  faces.add({0, 2, 1}, 0);        // bottom of wedge 0, outward -z
  faces.add({4, 5, 6}, 0);        // top
  faces.add({0, 1, 5, 4}, 0);
  faces.add({1, 2, 6, 5}, 0);
  faces.add({0, 3, 2}, 1);
  faces.add({4, 6, 7}, 1);
  faces.add({3, 0, 4, 7}, 1);
  faces.add({2, 3, 7, 6}, 1);
  const auto cells = mpp::io::build_cells_from_faces(faces.input(2));
  ASSERT_EQ(cells.blocks.size(), 1u);
  EXPECT_EQ(cells.blocks[0].type, "wedge");
  EXPECT_DOUBLE_EQ(cell_volume(kCube, cells.blocks[0], 0), 0.5);
  EXPECT_DOUBLE_EQ(cell_volume(kCube, cells.blocks[0], 1), 0.5);
  // The internal face is side of both wedges.
  EXPECT_EQ(owner_sides(cells, faces)[0], 0);
  EXPECT_EQ(neighbour_sides(cells, faces)[0], 1);
  EXPECT_GE(neighbour_sides(cells, faces)[1], 0);
}

TEST(CellsFromFaces, TetraAndPyramidInMixedOrderGroupByTypeAndMapCells) {
  // Cell 0: pyramid on the cube's bottom with apex 8 above the centre; cell 1: tetra on
  // points 0,1,3,4; cell 2: another pyramid (apex below). Types alternate in cell order.
  std::vector<Point> points = kCube;
  points.push_back({0.5, 0.5, 1.5});   // 8
  points.push_back({0.5, 0.5, -1.0});  // 9
  Faces faces;
  faces.add({0, 1, 2, 3}, 2, 0);  // shared base, normal +z: out of the lower pyramid (cell 2)
  for (std::array<std::int64_t, 2> edge : {std::array<std::int64_t, 2>{0, 1}, {1, 2}, {2, 3}, {3, 0}}) {
    faces.add({edge[0], edge[1], 8}, 0);  // outward for the upper pyramid
    faces.add({edge[1], edge[0], 9}, 2);  // outward for the lower one
  }
  faces.add({0, 3, 1}, 1);  // tetra 0,1,3,4: bottom outward -z
  faces.add({0, 1, 4}, 1);
  faces.add({0, 4, 3}, 1);
  faces.add({1, 3, 4}, 1);
  const auto cells = mpp::io::build_cells_from_faces(faces.input(3));
  ASSERT_EQ(cells.blocks.size(), 2u);
  EXPECT_EQ(cells.blocks[0].type, "pyramid");
  EXPECT_EQ(cells.blocks[1].type, "tetra");
  EXPECT_NEAR(cell_volume(points, cells.blocks[0], 0), 0.5, 1e-12);
  EXPECT_NEAR(cell_volume(points, cells.blocks[0], 1), 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(cell_volume(points, cells.blocks[1], 0), 1.0 / 6.0, 1e-12);
  const std::int64_t* block_major = cells.block_major_of_cell.data_as<std::int64_t>();
  EXPECT_EQ((std::vector<std::int64_t>(block_major, block_major + 3)), (std::vector<std::int64_t>{0, 2, 1}));
  const std::int64_t* cell_of = cells.cell_of_block_major.data_as<std::int64_t>();
  EXPECT_EQ((std::vector<std::int64_t>(cell_of, cell_of + 3)), (std::vector<std::int64_t>{0, 2, 1}));
  // Cell data follows the same permutation.
  mpp::NDArray values = mpp::NDArray::from_values<double>({10.0, 11.0, 12.0});
  const auto parts = mpp::io::cell_values_by_block(cells, values);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].data_as<double>()[0], 10.0);
  EXPECT_EQ(parts[0].data_as<double>()[1], 12.0);
  EXPECT_EQ(parts[1].data_as<double>()[0], 11.0);
}

TEST(CellsFromFaces, NonStandardCellsArePolyhedraWithOutwardFaces) {
  // The cube with its top split into two triangles (7 faces) is a polyhedron; a cube given as
  // neighbour of all its faces (all reversed) is still a hexahedron of volume 1.
  Faces faces;
  faces.add({5, 6, 7}, 0);
  faces.add({5, 7, 4}, 0);
  faces.add({1, 2, 6, 5}, 0);
  faces.add({3, 2, 1, 0}, 0);
  faces.add({4, 7, 3, 0}, 0);
  faces.add({0, 1, 5, 4}, 0);
  faces.add({7, 6, 2, 3}, 0);
  Faces inside_out;
  add_cube(inside_out, -1);
  for (std::size_t f = 0; f < 6; ++f) {
    std::reverse(inside_out.nodes.begin() + inside_out.offsets[f], inside_out.nodes.begin() + inside_out.offsets[f + 1]);
    inside_out.neighbour[f] = 0;
  }
  const auto hex = mpp::io::build_cells_from_faces(inside_out.input(1));
  ASSERT_EQ(hex.blocks[0].type, "hexahedron");
  EXPECT_DOUBLE_EQ(cell_volume(kCube, hex.blocks[0], 0), 1.0);
  EXPECT_EQ(owner_sides(hex, inside_out)[0], -1);

  const auto cells = mpp::io::build_cells_from_faces(faces.input(1));
  ASSERT_EQ(cells.blocks.size(), 1u);
  const mpp::CellBlock& poly = cells.blocks[0];
  EXPECT_EQ(poly.type, "polyhedron");
  ASSERT_EQ(poly.offsets.rows(), 2);
  EXPECT_EQ(poly.offsets.data_as<std::int64_t>()[1], 7);
  ASSERT_EQ(poly.face_offsets.rows(), 8);
  std::vector<std::vector<std::int64_t>> polygon_faces;
  const std::int64_t* face_offsets = poly.face_offsets.data_as<std::int64_t>();
  const std::int64_t* nodes = poly.connectivity.data_as<std::int64_t>();
  for (int f = 0; f < 7; ++f) polygon_faces.emplace_back(nodes + face_offsets[f], nodes + face_offsets[f + 1]);
  EXPECT_DOUBLE_EQ(polygon_volume(kCube, polygon_faces), 1.0);
  EXPECT_EQ(owner_sides(cells, faces)[2 * 6 + 1], 6);  // local facet = face position
  // Recognition off: the plain cube is a polyhedron too.
  Faces cube;
  add_cube(cube, 0);
  FaceCellInput input = cube.input(1);
  input.recognise_shapes = false;
  EXPECT_EQ(mpp::io::build_cells_from_faces(input).blocks[0].type, "polyhedron");
}

TEST(CellsFromFaces, TwoDimensionalCellsAreCounterClockwiseLoops) {
  // A unit square (0,1,2,3) split into triangles 0-1-2 (cell 0) and 0-2-3 (cell 1), plus a
  // pentagon cell 2 on the right (1,4,5,6,2). Edges run with their owner on the left.
  const std::vector<Point> points{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {2, 0, 0}, {2, 1, 0}, {1.5, 1.5, 0}};
  Faces faces;
  faces.add({2, 0}, 0, 1);  // internal diagonal: cell 0 on its left walking 2 -> 0
  faces.add({0, 1}, 0);
  faces.add({1, 2}, 0, 2);  // walking 1 -> 2, cell 0 is on the left, the pentagon on the right
  faces.add({2, 3}, 1);
  faces.add({3, 0}, 1);
  faces.add({1, 4}, 2);
  faces.add({4, 5}, 2);
  faces.add({5, 6}, 2);
  faces.add({6, 2}, 2);
  const auto cells = mpp::io::build_cells_from_faces(faces.input(3, 2));
  ASSERT_EQ(cells.blocks.size(), 2u);
  EXPECT_EQ(cells.blocks[0].type, "triangle");
  EXPECT_EQ(cells.blocks[1].type, "polygon");
  auto area = [&](const std::vector<std::int64_t>& loop) {
    double twice = 0;
    for (std::size_t i = 0; i < loop.size(); ++i) {
      const Point& a = points[loop[i]];
      const Point& b = points[loop[(i + 1) % loop.size()]];
      twice += a[0] * b[1] - a[1] * b[0];
    }
    return twice / 2;
  };
  const std::int64_t* triangles = cells.blocks[0].connectivity.data_as<std::int64_t>();
  EXPECT_DOUBLE_EQ(area({triangles[0], triangles[1], triangles[2]}), 0.5);
  EXPECT_DOUBLE_EQ(area({triangles[3], triangles[4], triangles[5]}), 0.5);
  const std::int64_t* polygon = cells.blocks[1].connectivity.data_as<std::int64_t>();
  ASSERT_EQ(cells.blocks[1].offsets.data_as<std::int64_t>()[1], 5);
  EXPECT_DOUBLE_EQ(area(std::vector<std::int64_t>(polygon, polygon + 5)), 1.0 + 0.25);
  // Local facet j of a triangle is its edge (j, j+1).
  const std::vector<std::int64_t> sides = owner_sides(cells, faces);
  const std::int64_t facet = sides[2 * 1 + 1];  // edge 0-1 of cell 0
  EXPECT_EQ(triangles[facet], 0);
  EXPECT_EQ(triangles[(facet + 1) % 3], 1);
}

TEST(CellsFromFaces, ResultDoesNotDependOnTheThreadCount) {
  // 40,000 cubes in a row (enough for several ranges), every other one given as a polyhedron
  // by splitting its top face.
  const std::int64_t n = 40000;
  Faces faces;
  for (std::int64_t c = 0; c < n; ++c) {
    const std::int64_t b = 4 * c;  // nodes b..b+3 at x = c, b+4..b+7 at x = c + 1
    // Cube along x: its "bottom" x = c face, shared with the previous cube.
    if (c == 0) faces.add({b + 0, b + 1, b + 2, b + 3}, c);
    faces.add({b + 4, b + 7, b + 6, b + 5}, c, c + 1 < n ? c + 1 : -1);
    faces.add({b + 0, b + 4, b + 5, b + 1}, c);
    faces.add({b + 1, b + 5, b + 6, b + 2}, c);
    if (c % 2 == 0) {
      faces.add({b + 2, b + 6, b + 7, b + 3}, c);
    } else {
      faces.add({b + 2, b + 6, b + 7}, c);
      faces.add({b + 2, b + 7, b + 3}, c);
    }
    faces.add({b + 3, b + 7, b + 4, b + 0}, c);
  }
  mpp::set_thread_count(1);
  const auto one = mpp::io::build_cells_from_faces(faces.input(n));
  mpp::set_thread_count(4);
  const auto four = mpp::io::build_cells_from_faces(faces.input(n));
  mpp::set_thread_count(0);
  ASSERT_EQ(one.blocks.size(), 2u);
  ASSERT_EQ(four.blocks.size(), 2u);
  for (std::size_t b = 0; b < 2; ++b) {
    EXPECT_EQ(one.blocks[b].num_cells(), n / 2);
    const auto x = one.blocks[b].connectivity.values<std::int64_t>();
    const auto y = four.blocks[b].connectivity.values<std::int64_t>();
    EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end()));
  }
  EXPECT_EQ(neighbour_sides(one, faces), neighbour_sides(four, faces));
  EXPECT_EQ(owner_sides(one, faces), owner_sides(four, faces));
}

// `n` cubes in a row, every face a quad, each interior face listed once (owner, neighbour);
// cube `broken` (if any) names a node of the next cube in one face, so it does not close.
Faces cube_row(std::int64_t n, std::int64_t broken = -1) {
  Faces faces;
  for (std::int64_t c = 0; c < n; ++c) {
    const std::int64_t b = 4 * c;
    if (c == 0) faces.add({b + 0, b + 1, b + 2, b + 3}, c);
    faces.add({b + 4, b + 7, b + 6, b + 5}, c, c + 1 < n ? c + 1 : -1);
    faces.add({b + 0, b + 4, b + 5, b + 1}, c);
    faces.add({b + 1, b + 5, b + 6, b + 2}, c);
    faces.add({b + 2, b + 6, b + 7, c == broken ? b + 11 : b + 3}, c);
    faces.add({b + 3, b + 7, b + 4, b + 0}, c);
  }
  return faces;
}

TEST(CellsFromFaces, Int32LabelsWithoutOffsetsGiveTheSameCellsAndSides) {
  // 40,000 cubes in a row, every face a quad: the same list as int64 with offsets and as int32
  // with face_size 4 (how the OpenFOAM and Fluent readers hand over large meshes) must give the
  // same cells and sides, at 1 and 4 threads; one block in file order needs no maps.
  const std::int64_t n = 40000;
  const Faces faces = cube_row(n);
  const std::vector<std::int32_t> nodes(faces.nodes.begin(), faces.nodes.end()), owner(faces.owner.begin(), faces.owner.end()),
      neighbour(faces.neighbour.begin(), faces.neighbour.end());
  FaceCellInput narrow;
  narrow.face_size = 4;
  narrow.face_nodes = nodes;
  narrow.owner = owner;
  narrow.neighbour = neighbour;
  narrow.num_cells = n;
  const auto reference = mpp::io::build_cells_from_faces(faces.input(n));
  ASSERT_EQ(reference.blocks.size(), 1u);
  EXPECT_TRUE(reference.in_file_order());
  EXPECT_EQ(reference.block_major(123), 123);
  EXPECT_EQ(reference.cell_of(456), 456);
  for (unsigned threads : {1u, 4u}) {
    mpp::set_thread_count(threads);
    const auto cells = mpp::io::build_cells_from_faces(narrow);
    ASSERT_EQ(cells.blocks.size(), 1u);
    EXPECT_EQ(cells.blocks[0].type, "hexahedron");
    const auto x = reference.blocks[0].connectivity.values<std::int64_t>();
    const auto y = cells.blocks[0].connectivity.values<std::int64_t>();
    EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end()));
    EXPECT_EQ(owner_sides(cells, faces), owner_sides(reference, faces));
    EXPECT_EQ(neighbour_sides(cells, faces), neighbour_sides(reference, faces));
    // Cell values in file order are already in block order: shared, not copied.
    const mpp::NDArray values = mpp::NDArray::zeros(mpp::DType::float64, {n});
    const std::vector<mpp::NDArray> by_block = mpp::io::cell_values_by_block(cells, values);
    ASSERT_EQ(by_block.size(), 1u);
    EXPECT_EQ(by_block[0].data(), values.data());
  }
  mpp::set_thread_count(0);
  narrow.face_size = 5;  // more nodes than the list holds
  EXPECT_THROW(mpp::io::build_cells_from_faces(narrow), std::invalid_argument);
}

TEST(CellsFromFaces, ACellThatDoesNotCloseIsAPolyhedronAndTheOthersKeepTheirSides) {
  // 40,000 cubes in a row; cube 30,001 lists six quads, but one of them names a node of the
  // next cube instead of its own: its face counts promise a hexahedron, its faces do not close
  // into one, so the blocks are planned again (the second pass). The other cubes must come out
  // as they do without the broken one, sides included, at 1 and 4 threads.
  const std::int64_t n = 40000, broken = 30001;
  const Faces sound = cube_row(n), faces = cube_row(n, broken);
  const auto reference = mpp::io::build_cells_from_faces(sound.input(n));
  for (unsigned threads : {1u, 4u}) {
    mpp::set_thread_count(threads);
    const auto cells = mpp::io::build_cells_from_faces(faces.input(n));
    ASSERT_EQ(cells.blocks.size(), 2u);
    EXPECT_EQ(cells.blocks[0].type, "hexahedron");
    EXPECT_EQ(cells.blocks[0].num_cells(), n - 1);
    EXPECT_EQ(cells.blocks[1].type, "polyhedron");
    const auto got = cells.blocks[0].connectivity.values<std::int64_t>();
    const auto all = reference.blocks[0].connectivity.values<std::int64_t>();
    EXPECT_TRUE(std::equal(got.begin(), got.begin() + 8 * broken, all.begin()));
    EXPECT_TRUE(std::equal(got.begin() + 8 * broken, got.end(), all.begin() + 8 * (broken + 1)));
    const std::vector<std::int64_t> sides = owner_sides(cells, faces), expected = owner_sides(reference, sound);
    for (std::size_t f = 0; f < sides.size(); f += 2) {
      const std::int64_t cell = faces.owner[f / 2];
      if (cell == broken) {
        EXPECT_EQ(sides[f], n - 1);  // the polyhedron, last block-major; facet = face position
        continue;
      }
      EXPECT_EQ(sides[f], expected[f] - (cell > broken ? 1 : 0)) << "face " << f / 2;
      EXPECT_EQ(sides[f + 1], expected[f + 1]) << "face " << f / 2;
    }
  }
  mpp::set_thread_count(0);
}

TEST(CellsFromFaces, BadInputThrowsInvalidArgumentNamingTheProblem) {
  Faces faces;
  add_cube(faces, 0);
  EXPECT_THROW(mpp::io::build_cells_from_faces(faces.input(0)), std::invalid_argument);  // owner 0 of 0 cells
  EXPECT_THROW(mpp::io::build_cells_from_faces(faces.input(2)), std::invalid_argument);  // cell 1 has no faces
  Faces open;
  open.add({0, 1}, 0);
  open.add({1, 2}, 0);
  open.add({3, 4}, 0);
  try {
    mpp::io::build_cells_from_faces(open.input(1, 2));
    FAIL() << "an open loop was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("closed loop"), std::string::npos);
  }
  Faces degenerate;
  degenerate.add({0, 1}, 0);
  EXPECT_THROW(mpp::io::build_cells_from_faces(degenerate.input(1, 3)), std::invalid_argument);
}

}  // namespace
