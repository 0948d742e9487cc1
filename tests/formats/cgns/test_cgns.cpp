// CGNS reader and writer: the multi-zone structured ADF file of the corpus (counts from
// EXPECTED_ref.tsv; meshio cannot read it), files built with the CGNS library (MIXED sections,
// a structured zone with a solution, boundary conditions), round trips through both back
// ends, and malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/cgns/cgns.hpp"
#include "io/cgns/cgns_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_CGNS
#include <cgnslib.h>
#endif

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

#define SKIP_WITHOUT_CGNS() \
  if (!io::cgns_available()) GTEST_SKIP() << "built without the CGNS library"

NDArray doubles(Shape shape, const std::vector<double>& values) { return array_of<double>(std::move(shape), values); }

std::vector<double> double_values(const NDArray& array) {
  const NDArray converted = array.astype(DType::float64);
  const auto values = converted.values<double>();
  return {values.begin(), values.end()};
}

// The cgns/ row of EXPECTED_ref.tsv: file, tool, points, cells, point sum, …
struct ReferenceRow {
  std::int64_t points = 0, cells = 0;
  double point_sum = 0;
};

std::optional<ReferenceRow> reference_row(const std::string& file) {
  std::ifstream table(kCorpusDir / "EXPECTED_ref.tsv");
  std::string line;
  while (std::getline(table, line)) {
    if (!line.starts_with(file + "\t")) continue;
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, '\t')) fields.push_back(field);
    return ReferenceRow{std::stoll(fields.at(2)), std::stoll(fields.at(3)), std::stod(fields.at(4))};
  }
  return std::nullopt;
}

TEST(CgnsCorpus, MultiZoneStructuredAdfFileReadsWithTheReferenceCounts) {
  SKIP_WITHOUT_CGNS();
  SKIP_WITHOUT_CORPUS_FILE("cgns/multi.cgns");
  const auto row = reference_row("cgns/multi.cgns");
  ASSERT_TRUE(row.has_value());
  const Mesh mesh = cgns::read(corpus_file("cgns/multi.cgns"));
  EXPECT_EQ(row->points, mesh.num_points());
  EXPECT_EQ(row->cells, mesh.num_cells());
  EXPECT_NEAR(row->point_sum, point_sum(mesh), 1e-6 * std::abs(row->point_sum));
  for (const CellBlock& cells : mesh.cells) EXPECT_EQ("hexahedron", cells.type);
  // One Cell region per zone, covering the zone's cells; BCs at vertices are Point regions.
  std::int64_t zone_cells = 0;
  std::size_t point_regions = 0;
  for (const Region& region : mesh.regions) {
    if (region.kind == RegionKind::Cell) zone_cells += region.entries.rows();
    if (region.kind == RegionKind::Point) {
      ++point_regions;
      EXPECT_NE(region.name.find('/'), std::string::npos) << "several zones: BC names carry the zone";
      for (std::int64_t point : int_values(region.entries)) EXPECT_LT(point, mesh.num_points());
    }
  }
  EXPECT_EQ(mesh.num_cells(), zone_cells);
  EXPECT_GT(point_regions, 0u);
  // The CellCenter FlowSolution of every zone fills every cell.
  const auto* density = mesh.cell_data.find("Density");
  ASSERT_NE(density, nullptr);
  for (const NDArray& values : *density)
    for (double value : double_values(values)) ASSERT_FALSE(std::isnan(value));
}

Mesh mixed_mesh() {
  Mesh mesh;
  mesh.points = doubles({5, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  mesh.cells.push_back({"tetra", int64_matrix(2, 4, {0, 1, 2, 3, 1, 2, 3, 4}), {}, {}});
  mesh.point_data.set("pressure", doubles({5}, {1, 2, 3, 4, 5}));
  mesh.point_data.set("velocity", doubles({5, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
  mesh.cell_data.set("density", std::vector<NDArray>{doubles({1}, {0}), doubles({2}, {7.5, 8.5})});
  mesh.regions.push_back(cell_region("wall", 2, -1, {0}));
  Region inlet;
  inlet.name = "inlet";
  inlet.kind = RegionKind::Point;
  inlet.entries = int64_vector({1, 4});
  mesh.regions.push_back(std::move(inlet));
  return mesh;
}

// `mesh` written through `backend` to the scratch file `path`, and read back.
Mesh write_and_read(const Mesh& mesh, const std::string& path, const char* backend) {
  WriteOptions options;
  options.set("backend", backend);
  cgns::write(path, mesh, options);
  return cgns::read(path);
}

TEST(CgnsRoundTrip, BothBackEndsKeepSectionsRegionsAndSolutions) {
  SKIP_WITHOUT_CGNS();
  const Mesh mesh = mixed_mesh();
  for (const char* backend : {"hdf5", "adf"}) {
    SCOPED_TRACE(backend);
    const Mesh read = write_and_read(mesh, scratch(std::string("mixed_") + backend + ".cgns").string(), backend);
    EXPECT_EQ(double_values(mesh.points), double_values(read.points));
    ASSERT_EQ(2u, read.cells.size());
    EXPECT_EQ("triangle", read.cells[0].type);
    EXPECT_EQ(nodes_of(mesh.cells[0]), nodes_of(read.cells[0]));
    EXPECT_EQ("tetra", read.cells[1].type);
    EXPECT_EQ(nodes_of(mesh.cells[1]), nodes_of(read.cells[1]));
    EXPECT_EQ((std::vector<double>{1, 2, 3, 4, 5}), double_values(*read.point_data.find("pressure")));
    ASSERT_NE(read.point_data.find("velocityY"), nullptr);
    EXPECT_EQ((std::vector<double>{1, 4, 7, 10, 13}), double_values(*read.point_data.find("velocityY")));
    // Cell data of the tetrahedra (the zone's cells); the triangle has no CellCenter value.
    const auto& density = *read.cell_data.find("density");
    EXPECT_TRUE(std::isnan(density[0].data_as<double>()[0]));
    EXPECT_EQ((std::vector<double>{7.5, 8.5}), double_values(density[1]));
    const Region* wall = find_region(read, "wall", RegionKind::Cell);
    ASSERT_NE(wall, nullptr);
    EXPECT_EQ((std::vector<std::int64_t>{0}), int_values(wall->entries));
    const Region* inlet = find_region(read, "inlet", RegionKind::Point);
    ASSERT_NE(inlet, nullptr);
    EXPECT_EQ((std::vector<std::int64_t>{1, 4}), int_values(inlet->entries));
  }
}

#ifdef MESHIOPLUSPLUS_HAVE_CGNS

// A 3 × 2 × 2-vertex structured zone with a vertex solution and a BC on the i = 1 face.
std::string write_structured(const std::string& name) {
  const std::string path = scratch(name).string();
  int fn = 0, base = 0, zone = 0, index = 0;
  EXPECT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_WRITE, &fn));
  cg_base_write(fn, "B", 3, 3, &base);
  cgsize_t size[9] = {3, 2, 2, 2, 1, 1, 0, 0, 0};
  cg_zone_write(fn, base, "block", size, Structured, &zone);
  std::vector<double> x, y, z, t;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 3; ++i) x.push_back(i), y.push_back(j), z.push_back(k), t.push_back(i + 10 * j + 100 * k);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateX", x.data(), &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateY", y.data(), &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateZ", z.data(), &index);
  int solution = 0;
  cg_sol_write(fn, base, zone, "S", Vertex, &solution);
  cg_field_write(fn, base, zone, solution, RealDouble, "T", t.data(), &index);
  cgsize_t range[6] = {1, 1, 1, 1, 2, 2};
  int bc = 0;
  cg_boco_write(fn, base, zone, "imin", BCWall, PointRange, 2, range, &bc);
  EXPECT_EQ(CG_OK, cg_close(fn));
  return path;
}

TEST(CgnsStructured, ZoneBecomesHexahedraOverTheIFastestGrid) {
  const Mesh mesh = cgns::read(write_structured("structured.cgns"));
  EXPECT_EQ(12, mesh.num_points());
  ASSERT_EQ(1u, mesh.cells.size());
  EXPECT_EQ("hexahedron", mesh.cells[0].type);
  // Cell (0,0,0): vertices (0,0,0) (1,0,0) (1,1,0) (0,1,0) and the k = 1 layer: 6 vertices per layer.
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 4, 3, 6, 7, 10, 9, 1, 2, 5, 4, 7, 8, 11, 10}), nodes_of(mesh.cells[0]));
  EXPECT_EQ(100.0 + 10 + 2, mesh.point_data.find("T")->data_as<double>()[11]);
  const Region* imin = find_region(mesh, "imin", RegionKind::Point);
  ASSERT_NE(imin, nullptr);
  EXPECT_EQ((std::vector<std::int64_t>{0, 3, 6, 9}), int_values(imin->entries));
  EXPECT_EQ(static_cast<std::int64_t>(BCWall), imin->tag);
}

TEST(CgnsMixed, MixedSectionsSplitIntoRunsInElementOrder) {
  const std::string path = scratch("mixed_section.cgns").string();
  int fn = 0, base = 0, zone = 0, index = 0, section = 0;
  ASSERT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_WRITE, &fn));
  cg_base_write(fn, "Base", 2, 2, &base);
  cgsize_t size[3] = {5, 3, 0};
  cg_zone_write(fn, base, "Zone", size, Unstructured, &zone);
  const double x[5] = {0, 1, 1, 0, 2}, y[5] = {0, 0, 1, 1, 0};
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateX", x, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateY", y, &index);
  const cgsize_t elements[] = {TRI_3, 1, 2, 3, TRI_3, 1, 3, 4, QUAD_4, 2, 5, 3, 3};
  const cgsize_t offsets[] = {0, 4, 8, 13};
  ASSERT_EQ(CG_OK, cg_poly_section_write(fn, base, zone, "Mixed", MIXED, 1, 3, 0, elements, offsets, &section));
  ASSERT_EQ(CG_OK, cg_close(fn));
  const Mesh mesh = cgns::read(path);
  ASSERT_EQ(2u, mesh.cells.size());
  EXPECT_EQ("triangle", mesh.cells[0].type);
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}), nodes_of(mesh.cells[0]));
  EXPECT_EQ("quad", mesh.cells[1].type);
  EXPECT_EQ((std::vector<std::int64_t>{1, 4, 2, 2}), nodes_of(mesh.cells[1]));
}

TEST(CgnsErrors, NameTheFileAndTheNode) {
  const std::string text = write_scratch("text.cgns", "not a CGNS file at all\n");
  ReadError error = expect_read_error([&] { cgns::read(text); });
  EXPECT_NE(std::string(error.what()).find("text.cgns"), std::string::npos) << error.what();

  const std::string path = scratch("bad_vertex.cgns").string();
  int fn = 0, base = 0, zone = 0, index = 0, section = 0;
  ASSERT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_WRITE, &fn));
  cg_base_write(fn, "Base", 2, 2, &base);
  cgsize_t size[3] = {3, 1, 0};
  cg_zone_write(fn, base, "Zone", size, Unstructured, &zone);
  const double x[3] = {0, 1, 0};
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateX", x, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateY", x, &index);
  const cgsize_t nodes[3] = {1, 2, 9};
  cg_section_write(fn, base, zone, "Tris", TRI_3, 1, 1, 0, nodes, &section);
  ASSERT_EQ(CG_OK, cg_close(fn));
  error = expect_read_error([&] { cgns::read(path); });
  EXPECT_NE(std::string(error.what()).find("/Base/Zone/Tris"), std::string::npos) << error.what();
  EXPECT_NE(std::string(error.what()).find("vertex 9"), std::string::npos) << error.what();
}

TEST(CgnsPoly, NgonSectionsWithoutNfaceArePolygons) {
  const std::string path = scratch("ngon_2d.cgns").string();
  int fn = 0, base = 0, zone = 0, index = 0, section = 0;
  ASSERT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_WRITE, &fn));
  cg_base_write(fn, "Base", 2, 2, &base);
  cgsize_t size[3] = {6, 2, 0};
  cg_zone_write(fn, base, "Zone", size, Unstructured, &zone);
  const double x[6] = {0, 1, 2, 1.5, 0.5, 3}, y[6] = {0, 0, 1, 2, 1, 0};
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateX", x, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateY", y, &index);
  const cgsize_t nodes[] = {1, 2, 3, 4, 5, 2, 6, 3};
  const cgsize_t offsets[] = {0, 5, 8};
  ASSERT_EQ(CG_OK, cg_poly_section_write(fn, base, zone, "Polygons", NGON_n, 1, 2, 0, nodes, offsets, &section));
  ASSERT_EQ(CG_OK, cg_close(fn));
  const Mesh mesh = cgns::read(path);
  ASSERT_EQ(1u, mesh.cells.size());
  EXPECT_EQ("polygon", mesh.cells[0].type);
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 3, 4, 1, 5, 2}), int_values(mesh.cells[0].connectivity));
  EXPECT_EQ((std::vector<std::int64_t>{0, 5, 8}), int_values(mesh.cells[0].offsets));
  ASSERT_EQ(1u, mesh.regions.size());
  EXPECT_EQ(2, mesh.regions[0].entries.rows());
}

// A cube and a pyramid on its top face: NFACE_n (written first) over NGON_n faces 1–10, the
// shared face reversed (-6) in the pyramid; a cell-centred solution; a BC on a face.
std::string write_polyhedra(const std::string& name) {
  const std::string path = scratch(name).string();
  int fn = 0, base = 0, zone = 0, index = 0, section = 0, solution = 0, bc = 0;
  EXPECT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_WRITE, &fn));
  cg_base_write(fn, "Base", 3, 3, &base);
  cgsize_t size[3] = {9, 2, 0};
  cg_zone_write(fn, base, "Zone", size, Unstructured, &zone);
  const double x[9] = {0, 1, 1, 0, 0, 1, 1, 0, 0.5}, y[9] = {0, 0, 1, 1, 0, 0, 1, 1, 0.5}, z[9] = {0, 0, 0, 0, 1, 1, 1, 1, 2};
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateX", x, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateY", y, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateZ", z, &index);
  const cgsize_t cells[] = {1, 2, 3, 4, 5, 6, -6, 7, 8, 9, 10};
  const cgsize_t cell_offsets[] = {0, 6, 11};
  EXPECT_EQ(CG_OK, cg_poly_section_write(fn, base, zone, "Cells", NFACE_n, 11, 12, 0, cells, cell_offsets, &section));
  const cgsize_t faces[] = {1, 4, 3, 2, 1, 2, 6, 5, 2, 3, 7, 6, 3, 4, 8, 7, 4, 1, 5, 8, 5, 6, 7, 8,
                            5, 6, 9, 6, 7, 9, 7, 8, 9, 8, 5, 9};
  const cgsize_t face_offsets[] = {0, 4, 8, 12, 16, 20, 24, 27, 30, 33, 36};
  EXPECT_EQ(CG_OK, cg_poly_section_write(fn, base, zone, "Faces", NGON_n, 1, 10, 0, faces, face_offsets, &section));
  cg_sol_write(fn, base, zone, "S", CellCenter, &solution);
  const double pressure[2] = {10, 20};
  cg_field_write(fn, base, zone, solution, RealDouble, "p", pressure, &index);
  const cgsize_t range[2] = {1, 1};
  cg_boco_write(fn, base, zone, "bottom", BCWall, PointRange, 2, range, &bc);
  cg_boco_gridlocation_write(fn, base, zone, bc, FaceCenter);
  EXPECT_EQ(CG_OK, cg_close(fn));
  return path;
}

TEST(CgnsPoly, NfaceSectionsArePolyhedraOverTheirNgonFaces) {
  const Mesh mesh = cgns::read(write_polyhedra("nface.cgns"));
  ASSERT_EQ(1u, mesh.cells.size()) << "the NGON_n faces are not cells of their own";
  const CellBlock& block = mesh.cells[0];
  EXPECT_EQ("polyhedron", block.type);
  EXPECT_EQ((std::vector<std::int64_t>{0, 6, 11}), int_values(block.offsets));
  EXPECT_EQ(12, block.face_offsets.rows());
  const std::vector<std::int64_t> nodes = int_values(block.connectivity);
  const std::vector<std::int64_t> offsets = int_values(block.face_offsets);
  // Face 6 of the pyramid is the cube's top reversed: 8 7 6 5 → points 7 6 5 4.
  EXPECT_EQ((std::vector<std::int64_t>{7, 6, 5, 4}), std::vector<std::int64_t>(nodes.begin() + offsets[6], nodes.begin() + offsets[7]));
  EXPECT_EQ((std::vector<std::int64_t>{0, 3, 2, 1}), std::vector<std::int64_t>(nodes.begin(), nodes.begin() + 4));
  const auto* p = mesh.cell_data.find("p");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ((std::vector<double>{10, 20}), double_values((*p)[0]));
  bool bottom_found = false;
  for (const Region& region : mesh.regions)
    if (region.name == "bottom") {
      bottom_found = true;
      EXPECT_EQ(0, region.entries.rows()) << "faces are not our cells";
    }
  EXPECT_TRUE(bottom_found);
}

TEST(CgnsPoly, NfaceWithAMissingFaceNamesTheSection) {
  const std::string path = scratch("nface_bad.cgns").string();
  int fn = 0, base = 0, zone = 0, index = 0, section = 0;
  ASSERT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_WRITE, &fn));
  cg_base_write(fn, "Base", 3, 3, &base);
  cgsize_t size[3] = {4, 1, 0};
  cg_zone_write(fn, base, "Zone", size, Unstructured, &zone);
  const double x[4] = {0, 1, 0, 0}, y[4] = {0, 0, 1, 0}, z[4] = {0, 0, 0, 1};
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateX", x, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateY", y, &index);
  cg_coord_write(fn, base, zone, RealDouble, "CoordinateZ", z, &index);
  const cgsize_t faces[] = {1, 3, 2, 1, 2, 4, 2, 3, 4, 3, 1, 4};
  const cgsize_t face_offsets[] = {0, 3, 6, 9, 12};
  cg_poly_section_write(fn, base, zone, "Faces", NGON_n, 1, 4, 0, faces, face_offsets, &section);
  const cgsize_t cells[] = {1, 2, 3, 9};
  const cgsize_t cell_offsets[] = {0, 4};
  cg_poly_section_write(fn, base, zone, "Tet", NFACE_n, 5, 5, 0, cells, cell_offsets, &section);
  ASSERT_EQ(CG_OK, cg_close(fn));
  const ReadError error = expect_read_error([&] { cgns::read(path); });
  EXPECT_NE(std::string(error.what()).find("/Base/Zone/Tet"), std::string::npos) << error.what();
  EXPECT_NE(std::string(error.what()).find("face 9"), std::string::npos) << error.what();
}

// A point set and a cell set of one name (Gmsh physical groups, meshio's point_sets beside its
// cell_sets) would be two ZoneBC children of one name, which CGNS refuses ("Duplicate child
// name"); so would two names equal in their first 32 characters. The cell sets keep their
// names, the point sets' BCs are suffixed, and each read gives every region its own name back.
TEST(CgnsRoundTrip, PointAndCellSetsOfOneNameKeepTheirNames) {
  Mesh mesh = mixed_mesh();
  const std::string long_name(40, 'b');
  auto point_region = [](const std::string& name, const std::vector<std::int64_t>& points) {
    Region region;
    region.name = name;
    region.kind = RegionKind::Point;
    region.dim = 0;
    region.entries = int64_vector(points);
    return region;
  };
  mesh.regions.push_back(point_region("6", {1, 4}));  // before its cell set: the order does not matter
  mesh.regions.push_back(cell_region("6", 2, -1, {0}));
  mesh.regions.push_back(cell_region(long_name + "1", 3, -1, {1}));
  mesh.regions.push_back(cell_region(long_name + "2", 3, -1, {2}));
  mesh.regions.push_back(point_region(long_name + "1", {0}));
  for (const char* backend : {"hdf5", "adf"}) {
    SCOPED_TRACE(backend);
    const std::string path = scratch(std::string("shared_names_") + backend + ".cgns").string();
    const Mesh read = write_and_read(mesh, path, backend);
    for (const Region& region : mesh.regions) {
      const Region* found = find_region(read, region.name, region.kind);
      ASSERT_NE(found, nullptr) << region.name;
      EXPECT_EQ(int_values(region.entries), int_values(found->entries)) << region.name;
    }
    EXPECT_EQ(mesh.regions.size() + 1, read.regions.size());  // and the zone's own region
    // The BC names in the file, in region order.
    int fn = 0, count = 0;
    ASSERT_EQ(CG_OK, cg_open(path.c_str(), CG_MODE_READ, &fn));
    ASSERT_EQ(CG_OK, cg_nbocos(fn, 1, 1, &count));
    std::vector<std::string> names;
    for (int bc = 1; bc <= count; ++bc) {
      char name[33] = {};
      BCType_t type;
      PointSetType_t set;
      cgsize_t entries = 0, normals = 0;
      int normal_index[3] = {}, datasets = 0;
      DataType_t normal_type;
      ASSERT_EQ(CG_OK, cg_boco_info(fn, 1, 1, bc, name, &type, &set, &entries, normal_index, &normals, &normal_type, &datasets));
      names.push_back(name);
    }
    ASSERT_EQ(CG_OK, cg_close(fn));
    EXPECT_EQ((std::vector<std::string>{"wall", "inlet", "6_points", "6", std::string(32, 'b'), std::string(30, 'b') + "_2",
                                        std::string(25, 'b') + "_points"}),
              names);
  }
}

#endif

}  // namespace
