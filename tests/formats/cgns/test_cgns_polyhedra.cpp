// CGNS polyhedra (NFACE_n over NGON_n faces) and polygons (NGON_n cells): what the writer puts in
// the file (section types, element ranges, signed face numbers, read through the CGNS library
// itself), round trips alone and beside standard cells, the layouts other writers use (faces
// numbered before the cells), and hostile face numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "formats/cgns/cgns.hpp"
#include "io/cgns/cgns_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/polyhedron_checks.hpp"
#include "support/test_support.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_CGNS
#include <cgnslib.h>
#endif

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

#ifdef MESHIOPLUSPLUS_HAVE_CGNS

using Face = Polyhedron::value_type;  // Polyhedron: tests/support/polyhedron_checks.hpp

// A unit cube (points 0-7), a pyramid on its top (apex 8) and a second cube right of it
// (points 1, 9, 10, 2, 5, 11, 12, 6).
NDArray test_points() {
  return array_of<double>({13, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0.5, 0.5, 2,
                                    2, 0, 0, 2, 1, 0, 2, 0, 1, 2, 1, 1});
}
const Polyhedron kCube = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
const Polyhedron kPyramid = {{4, 7, 6, 5}, {4, 5, 8}, {5, 6, 8}, {6, 7, 8}, {7, 4, 8}};

// The face with its smallest node first, keeping the cyclic order (its orientation).
Face canonical(Face face) {
  std::rotate(face.begin(), std::min_element(face.begin(), face.end()), face.end());
  return face;
}

// Equal up to a rotation of each face's nodes (a shared face is stored once, as its owner
// lists it, and read back reversed in the neighbour).
void expect_same_polyhedra(const std::vector<Polyhedron>& expected, const std::vector<Polyhedron>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t c = 0; c < expected.size(); ++c) {
    ASSERT_EQ(expected[c].size(), actual[c].size()) << "cell " << c;
    for (std::size_t f = 0; f < expected[c].size(); ++f)
      EXPECT_EQ(canonical(expected[c][f]), canonical(actual[c][f])) << "cell " << c << " face " << f;
  }
}

// Signed volume by the divergence theorem: positive when every face is oriented outward.
double volume(const Polyhedron& cell, const NDArray& points) {
  const double* p = points.data_as<double>();
  auto at = [&](std::int64_t i) { return std::array<double, 3>{p[3 * i], p[3 * i + 1], p[3 * i + 2]}; };
  double six_volume = 0;
  for (const Face& face : cell)
    for (std::size_t i = 1; i + 1 < face.size(); ++i) {
      const auto a = at(face[0]), b = at(face[i]), c = at(face[i + 1]);
      six_volume += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
  return six_volume / 6;
}

Mesh write_and_read(const Mesh& mesh, const std::string& name, const char* backend = "hdf5") {
  const std::string path = scratch(name).string();
  WriteOptions options;
  options.set("backend", backend);
  cgns::write(path, mesh, options);
  return cgns::read(path);
}

struct SectionInfo {
  std::string name;
  ElementType_t type;
  cgsize_t start, end;
  std::vector<cgsize_t> data, offsets;
};

// Every section of /Base/Zone1, read through the CGNS library.
std::vector<SectionInfo> sections_of(const std::string& path) {
  int fn = 0, count = 0;
  EXPECT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_READ, &fn));
  cg_nsections(fn, 1, 1, &count);
  std::vector<SectionInfo> out;
  for (int s = 1; s <= count; ++s) {
    char name[33] = {};
    SectionInfo info{};
    int boundary = 0, parent = 0;
    cgsize_t size = 0;
    cg_section_read(fn, 1, 1, s, name, &info.type, &info.start, &info.end, &boundary, &parent);
    cg_ElementDataSize(fn, 1, 1, s, &size);
    info.name = name;
    info.data.resize(static_cast<std::size_t>(size));
    if (info.type == NGON_n || info.type == NFACE_n || info.type == MIXED) {
      info.offsets.resize(static_cast<std::size_t>(info.end - info.start + 2));
      EXPECT_EQ(CG_OK, cg_poly_elements_read(fn, 1, 1, s, info.data.data(), info.offsets.data(), nullptr));
    } else {
      EXPECT_EQ(CG_OK, cg_elements_read(fn, 1, 1, s, info.data.data(), nullptr));
    }
    out.push_back(std::move(info));
  }
  cg_close(fn);
  return out;
}

TEST(CgnsPolyhedra, OnePolyhedronRoundTripsThroughBothBackEnds) {
  Mesh mesh;
  mesh.points = test_points();
  mesh.cells.push_back(polyhedron_block({kCube}));
  for (const char* backend : {"hdf5", "adf"}) {
    SCOPED_TRACE(backend);
    const Mesh read = write_and_read(mesh, std::string("one_") + backend + ".cgns", backend);
    ASSERT_EQ(1u, read.cells.size());
    EXPECT_EQ("polyhedron", read.cells[0].type);
    expect_same_polyhedra({kCube}, polyhedra_of(read.cells[0]));
    EXPECT_NEAR(1.0, volume(polyhedra_of(read.cells[0])[0], read.points), 1e-12);
  }
  // The file: an NFACE_n cell (element 1) over six NGON_n faces (elements 2-7), all positive
  // (each face's normal points out of the cell).
  const std::vector<SectionInfo> sections = sections_of(scratch("one_hdf5.cgns").string());
  ASSERT_EQ(2u, sections.size());
  EXPECT_EQ(NFACE_n, sections[0].type);
  EXPECT_EQ("GridElements", sections[0].name);
  EXPECT_EQ(1, sections[0].start);
  EXPECT_EQ(1, sections[0].end);
  EXPECT_EQ((std::vector<cgsize_t>{2, 3, 4, 5, 6, 7}), sections[0].data);
  EXPECT_EQ((std::vector<cgsize_t>{0, 6}), sections[0].offsets);
  EXPECT_EQ(NGON_n, sections[1].type);
  EXPECT_EQ(2, sections[1].start);
  EXPECT_EQ(7, sections[1].end);
  EXPECT_EQ((std::vector<cgsize_t>{1, 4, 3, 2}), std::vector<cgsize_t>(sections[1].data.begin(), sections[1].data.begin() + 4));
}

// Polyhedra, then a hexahedron, then a boundary triangle, with cell data and a cell region.
Mesh mixed_mesh() {
  Mesh mesh;
  mesh.points = test_points();
  mesh.cells.push_back(polyhedron_block({kCube, kPyramid}));
  mesh.cells.push_back({"hexahedron", int64_matrix(1, 8, {1, 9, 10, 2, 5, 11, 12, 6}), {}, {}});
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {4, 5, 8}), {}, {}});
  mesh.cell_data.set("p", std::vector<NDArray>{array_of<double>({2}, {1.5, 2.5}), array_of<double>({1}, {3.5}),
                                                array_of<double>({1}, {-1})});
  mesh.regions.push_back(cell_region("cube_and_hex", 3, -1, {0, 2}));
  return mesh;
}

TEST(CgnsPolyhedra, PolyhedraBesideHexahedraKeepTheirBlocksDataAndRegions) {
  const Mesh mesh = mixed_mesh();
  const Mesh read = write_and_read(mesh, "mixed.cgns");
  ASSERT_EQ(3u, read.cells.size());
  EXPECT_EQ("polyhedron", read.cells[0].type);
  EXPECT_EQ("hexahedron", read.cells[1].type);
  EXPECT_EQ("triangle", read.cells[2].type);
  const std::vector<Polyhedron> polyhedra = polyhedra_of(read.cells[0]);
  expect_same_polyhedra({kCube, kPyramid}, polyhedra);
  EXPECT_NEAR(1.0, volume(polyhedra[0], read.points), 1e-12);
  EXPECT_NEAR(1.0 / 3, volume(polyhedra[1], read.points), 1e-12);
  EXPECT_EQ(int_values(mesh.cells[1].connectivity), int_values(read.cells[1].connectivity));
  const auto* p = read.cell_data.find("p");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(1.5, (*p)[0].data_as<double>()[0]);
  EXPECT_EQ(2.5, (*p)[0].data_as<double>()[1]);
  EXPECT_EQ(3.5, (*p)[1].data_as<double>()[0]);
  EXPECT_TRUE(std::isnan((*p)[2].data_as<double>()[0])) << "CellCenter values cover the 3-D cells only";
  const Region* region = find_region(read, "cube_and_hex", RegionKind::Cell);
  ASSERT_NE(region, nullptr);
  EXPECT_EQ((std::vector<std::int64_t>{0, 2}), int_values(region->entries));

  // Element numbers: the hexahedron (1), the polyhedra (2-3), the triangle (4), the faces (5-).
  const std::vector<SectionInfo> sections = sections_of(scratch("mixed.cgns").string());
  ASSERT_EQ(4u, sections.size());
  EXPECT_EQ(NFACE_n, sections[0].type);
  EXPECT_EQ(2, sections[0].start);
  EXPECT_EQ(3, sections[0].end);
  EXPECT_EQ(HEXA_8, sections[1].type);
  EXPECT_EQ(1, sections[1].start);
  EXPECT_EQ(TRI_3, sections[2].type);
  EXPECT_EQ(4, sections[2].start);
  EXPECT_EQ(NGON_n, sections[3].type);
  EXPECT_EQ("PolyhedronFaces", sections[3].name);
  EXPECT_EQ(5, sections[3].start);
  EXPECT_EQ(14, sections[3].end) << "11 faces, the cube's top (the pyramid's base) written once";
  int negative = 0;
  for (cgsize_t entry : sections[0].data) {
    negative += entry < 0;
    EXPECT_GE(std::abs(entry), 5);
    EXPECT_LE(std::abs(entry), sections[3].end);
  }
  EXPECT_EQ(1, negative) << "the shared face is reversed in its neighbour";
  EXPECT_EQ(11u, sections[0].data.size());
}

// A node set on three cells is no face topology: every cell then keeps its own faces (valid
// CGNS too) rather than the write being refused.
TEST(CgnsPolyhedra, CoincidentPolyhedraKeepTheirOwnFaces) {
  Mesh mesh;
  mesh.points = test_points();
  mesh.cells.push_back(polyhedron_block({kCube, kCube, kCube}));
  const Mesh read = write_and_read(mesh, "coincident.cgns");
  ASSERT_EQ(1u, read.cells.size());
  expect_same_polyhedra({kCube, kCube, kCube}, polyhedra_of(read.cells[0]));
  const std::vector<SectionInfo> sections = sections_of(scratch("coincident.cgns").string());
  ASSERT_EQ(2u, sections.size());
  EXPECT_EQ(18 + 3, sections[1].end);
  for (cgsize_t entry : sections[0].data) EXPECT_GT(entry, 0);
}

TEST(CgnsPolyhedra, PolygonsAreNgonCellsWithoutNface) {
  Mesh mesh;
  mesh.points = array_of<double>({6, 2}, {0, 0, 1, 0, 2, 1, 1.5, 2, 0.5, 1, 3, 0});
  CellBlock polygons;
  polygons.type = "polygon";
  polygons.connectivity = int64_vector({0, 1, 2, 3, 4, 1, 5, 2});
  polygons.offsets = int64_vector({0, 5, 8});
  mesh.cells.push_back(polygons);
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 1}), {}, {}});
  const Mesh read = write_and_read(mesh, "polygons.cgns");
  ASSERT_EQ(2u, read.cells.size());
  EXPECT_EQ("polygon", read.cells[0].type);
  EXPECT_EQ(int_values(polygons.connectivity), int_values(read.cells[0].connectivity));
  EXPECT_EQ(int_values(polygons.offsets), int_values(read.cells[0].offsets));
  EXPECT_EQ("line", read.cells[1].type);
  const std::vector<SectionInfo> sections = sections_of(scratch("polygons.cgns").string());
  ASSERT_EQ(2u, sections.size());
  EXPECT_EQ(NGON_n, sections[0].type);
  EXPECT_EQ(1, sections[0].start);
  EXPECT_EQ(2, sections[0].end);
}

TEST(CgnsPolyhedra, PolygonsBesidePolyhedraAreRefusedWithTheReason) {
  Mesh mesh = mixed_mesh();
  mesh.cell_data = {};
  CellBlock polygons;
  polygons.type = "polygon";
  polygons.connectivity = int64_vector({0, 1, 2, 3, 4});
  polygons.offsets = int64_vector({0, 5});
  mesh.cells.push_back(polygons);
  const std::string path = scratch("refused.cgns").string();
  try {
    cgns::write(path, mesh, {});
    ADD_FAILURE() << "no WriteError";
  } catch (const WriteError& error) {
    EXPECT_NE(std::string(error.what()).find("NGON_n"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path)) << "a refused write leaves no file";
}

// Fluent's and STAR-CCM+'s layout: faces first (1-10), cells after them, here with a boundary
// triangle section listed first in the file: CellCenter values belong to the cells in
// element-number order, not to the triangle.
TEST(CgnsPolyhedra, FacesNumberedBeforeTheCellsLeaveCellValuesOnTheCells) {
  const std::string path = scratch("faces_first.cgns").string();
  int fn = 0, base = 0, zone = 0, index = 0, section = 0, solution = 0;
  ASSERT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_WRITE, &fn));
  cg_base_write(fn, "Base", 3, 3, &base);
  cgsize_t size[3] = {9, 2, 0};
  cg_zone_write(fn, base, "Zone", size, Unstructured, &zone);
  const double x[9] = {0, 1, 1, 0, 0, 1, 1, 0, 0.5}, y[9] = {0, 0, 1, 1, 0, 0, 1, 1, 0.5}, z[9] = {0, 0, 0, 0, 1, 1, 1, 1, 2};
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateX", x, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateY", y, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateZ", z, &index);
  const cgsize_t triangle[] = {5, 6, 9};
  ASSERT_EQ(CG_OK, cg_section_write(fn, base, zone, "Boundary", TRI_3, 13, 13, 0, triangle, &section));
  const cgsize_t faces[] = {1, 4, 3, 2, 1, 2, 6, 5, 2, 3, 7, 6, 3, 4, 8, 7, 4, 1, 5, 8, 5, 6, 7, 8,
                            5, 6, 9, 6, 7, 9, 7, 8, 9, 8, 5, 9};
  const cgsize_t face_offsets[] = {0, 4, 8, 12, 16, 20, 24, 27, 30, 33, 36};
  ASSERT_EQ(CG_OK, cg_poly_section_write(fn, base, zone, "Faces", NGON_n, 1, 10, 0, faces, face_offsets, &section));
  const cgsize_t cells[] = {1, 2, 3, 4, 5, 6, -6, 7, 8, 9, 10};
  const cgsize_t cell_offsets[] = {0, 6, 11};
  ASSERT_EQ(CG_OK, cg_poly_section_write(fn, base, zone, "Cells", NFACE_n, 11, 12, 0, cells, cell_offsets, &section));
  cg_sol_write(fn, base, zone, "S", CellCenter, &solution);
  const double pressure[2] = {10, 20};
  cg_field_write(fn, base, zone, solution, RealDouble, "p", pressure, &index);
  ASSERT_EQ(CG_OK, cg_close(fn));
  const Mesh mesh = cgns::read(path);
  ASSERT_EQ(2u, mesh.cells.size());
  EXPECT_EQ("triangle", mesh.cells[0].type);
  EXPECT_EQ("polyhedron", mesh.cells[1].type);
  const auto* p = mesh.cell_data.find("p");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(std::isnan((*p)[0].data_as<double>()[0]));
  EXPECT_EQ(10, (*p)[1].data_as<double>()[0]);
  EXPECT_EQ(20, (*p)[1].data_as<double>()[1]);
  const std::vector<Polyhedron> polyhedra = polyhedra_of(mesh.cells[1]);
  EXPECT_NEAR(1.0, volume(polyhedra[0], mesh.points), 1e-12);
  EXPECT_NEAR(1.0 / 3, volume(polyhedra[1], mesh.points), 1e-12) << "the shared face (-6) reversed: outward";
}

// A tetrahedron's four faces in `face_sections` NGON_n sections (split as given) and an NFACE_n
// cell listing `cell_faces`.
std::string write_tetra(const std::string& name, const std::vector<std::pair<cgsize_t, cgsize_t>>& face_sections,
                        const std::vector<cgsize_t>& cell_faces) {
  const std::string path = scratch(name).string();
  int fn = 0, base = 0, zone = 0, index = 0, section = 0;
  EXPECT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_WRITE, &fn));
  cg_base_write(fn, "Base", 3, 3, &base);
  cgsize_t size[3] = {4, 1, 0};
  cg_zone_write(fn, base, "Zone", size, Unstructured, &zone);
  const double x[4] = {0, 1, 0, 0}, y[4] = {0, 0, 1, 0}, z[4] = {0, 0, 0, 1};
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateX", x, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateY", y, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateZ", z, &index);
  const cgsize_t faces[] = {1, 3, 2, 1, 2, 4, 2, 3, 4, 3, 1, 4};
  for (std::size_t s = 0; s < face_sections.size(); ++s) {
    const auto [start, end] = face_sections[s];
    std::vector<cgsize_t> offsets;
    for (cgsize_t i = 0; i <= end - start + 1; ++i) offsets.push_back(3 * i);
    const cgsize_t first = (start - 1) % 4;
    EXPECT_EQ(CG_OK, cg_poly_section_write(fn, base, zone, ("Faces" + std::to_string(s)).c_str(), NGON_n, start, end, 0,
                                           faces + 3 * first, offsets.data(), &section));
  }
  const cgsize_t cell_offsets[] = {0, static_cast<cgsize_t>(cell_faces.size())};
  EXPECT_EQ(CG_OK, cg_poly_section_write(fn, base, zone, "Tet", NFACE_n, 9, 9, 0, cell_faces.data(), cell_offsets, &section));
  EXPECT_EQ(CG_OK, cg_close(fn));
  return path;
}

TEST(CgnsPolyhedra, FacesInSeveralNgonSectionsAreFound) {
  const Mesh mesh = cgns::read(write_tetra("split.cgns", {{3, 4}, {1, 2}}, {1, 2, 3, 4}));
  ASSERT_EQ(1u, mesh.cells.size());
  const std::vector<Polyhedron> cells = polyhedra_of(mesh.cells[0]);
  ASSERT_EQ(1u, cells.size());
  EXPECT_EQ((Face{0, 2, 1}), cells[0][0]);
  EXPECT_EQ((Face{2, 0, 3}), cells[0][3]);
  EXPECT_NEAR(1.0 / 6, volume(cells[0], mesh.points), 1e-12);
}

TEST(CgnsPolyhedra, HostileFaceNumbersAreReadErrors) {
  const cgsize_t lowest = std::numeric_limits<cgsize_t>::min();
  ReadError error = expect_read_error([&] { cgns::read(write_tetra("lowest.cgns", {{1, 4}}, {1, 2, 3, lowest})); });
  EXPECT_NE(std::string(error.what()).find("/Base/Zone/Tet"), std::string::npos) << error.what();
  EXPECT_NE(std::string(error.what()).find("is in no NGON_n section"), std::string::npos) << error.what();
  error = expect_read_error([&] { cgns::read(write_tetra("zero.cgns", {{1, 4}}, {1, 2, 0, 4})); });
  EXPECT_NE(std::string(error.what()).find("face 0"), std::string::npos) << error.what();
  error = expect_read_error([&] { cgns::read(write_tetra("overlap.cgns", {{1, 4}, {3, 4}}, {1, 2, 3, 4})); });
  EXPECT_NE(std::string(error.what()).find("overlap"), std::string::npos) << error.what();
}

#endif

}  // namespace
