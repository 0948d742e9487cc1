// Fluent CFF: the real case/data/mesh files Fluent wrote (ansys/example-data; counts and sums
// as VTK's vtkFLUENTCFFReader gives them, see test_fluent_cff_interop.py), a small case built
// here in the layout of those files (two quads, with a data file of two phases), and damaged
// files refused with a ReadError naming the file and the HDF5 object.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <numeric>

#include "formats/fluent_cff/fluent_cff.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"
#include "support/hdf5_skip.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) {
  return (meshioplusplus::testing::test_data_dir() / "fluent_cff" / name).string();
}

// Signed area of a 2-D polygon given by rows of `points` (counter-clockwise positive).
double signed_area(const Mesh& mesh, std::span<const std::int64_t> nodes) {
  const double* p = mesh.points.data_as<double>();
  double twice = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::int64_t a = nodes[i], b = nodes[(i + 1) % nodes.size()];
    twice += p[2 * a] * p[2 * b + 1] - p[2 * b] * p[2 * a + 1];
  }
  return twice / 2;
}

// Signed volume of a VTK hexahedron: its outward faces, fanned around their centroids.
double hexahedron_volume(const Mesh& mesh, const std::int64_t* hex) {
  static constexpr int kFaces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  const double* p = mesh.points.data_as<double>();
  double volume = 0;
  for (const auto& face : kFaces) {
    double c[3] = {0, 0, 0};
    for (int k : face)
      for (int d = 0; d < 3; ++d) c[d] += p[3 * hex[k] + d] / 4;
    for (int k = 0; k < 4; ++k) {
      const double* a = p + 3 * hex[face[k]];
      const double* b = p + 3 * hex[face[(k + 1) % 4]];
      volume += (c[0] * (a[1] * b[2] - a[2] * b[1]) + c[1] * (a[2] * b[0] - a[0] * b[2]) +
                 c[2] * (a[0] * b[1] - a[1] * b[0])) / 6;
    }
  }
  return volume;
}

// ---- a two-quad case in the layout of Fluent's files ----------------------------------
//   4 --- 5 --- 6      cells 1 (left) and 2 (right), zone 2 "fluid";
//   |  1  |  2  |      face 1 (2 -> 5) interior, zone 3; faces 2-7 boundary, zone 4 "wall",
//   1 --- 2 --- 3      each walked with its cell (c0) on the left.
struct CaseParts {
  std::int64_t face_count = 7;
  std::int64_t wall_max_id = 7;
  std::int64_t last_node_of_face_7 = 5;
  std::int64_t cell_count = 2;
  bool with_mesh_group = true;
};

void set_range(io::hdf5::File& file, const std::string& path, std::int64_t first, std::int64_t last) {
  file.set_attribute(path, "minId", first);
  file.set_attribute(path, "maxId", last);
}

void write_zones(io::hdf5::File& file, const std::string& group, const std::vector<std::int64_t>& ids,
                 const std::vector<std::int64_t>& first, const std::vector<std::int64_t>& last, const std::string& names) {
  file.create_group(group);
  file.write(group + "/id", int64_vector(ids));
  file.write(group + "/minId", int64_vector(first));
  file.write(group + "/maxId", int64_vector(last));
  file.write_strings(group + "/name", {names});
}

std::string write_case(const std::string& path, const CaseParts& parts = {}) {
  io::hdf5::File file = io::hdf5::File::create(path, "test");
  file.create_group("/settings");
  if (parts.with_mesh_group) {
    const std::string mesh = "/meshes/1";
    file.create_group("/meshes");
    file.create_group(mesh);
    file.set_attribute(mesh, "dimension", std::int64_t{2});
    file.set_attribute(mesh, "nodeCount", std::int64_t{6});
    file.set_attribute(mesh, "cellCount", parts.cell_count);
    file.set_attribute(mesh, "faceCount", parts.face_count);
    file.create_group(mesh + "/nodes");
    file.create_group(mesh + "/nodes/coords");
    file.write(mesh + "/nodes/coords/1", array_of<double>({6, 2}, {0, 0, 1, 0, 2, 0, 0, 1, 1, 1, 2, 1}));
    set_range(file, mesh + "/nodes/coords/1", 1, 6);
    file.create_group(mesh + "/cells");
    write_zones(file, mesh + "/cells/zoneTopology", {2}, {1}, {2}, "fluid");
    file.create_group(mesh + "/faces");
    write_zones(file, mesh + "/faces/zoneTopology", {3, 4}, {1, 2}, {1, parts.wall_max_id}, "interior-fluid;wall");
    file.create_group(mesh + "/faces/nodes");
    file.create_group(mesh + "/faces/nodes/1");
    set_range(file, mesh + "/faces/nodes/1", 1, 7);
    file.write(mesh + "/faces/nodes/1/nnodes", array_of<std::int16_t>({7}, {2, 2, 2, 2, 2, 2, 2}));
    file.write(mesh + "/faces/nodes/1/nodes",
               array_of<std::uint32_t>({14}, {2, 5, 1, 2, 5, 4, 4, 1, 2, 3, 3, 6, 6,
                                               static_cast<std::uint32_t>(parts.last_node_of_face_7)}));
    file.create_group(mesh + "/faces/c0");
    file.write(mesh + "/faces/c0/1", array_of<std::uint32_t>({7}, {1, 1, 1, 1, 2, 2, 2}));
    set_range(file, mesh + "/faces/c0/1", 1, 7);
    file.create_group(mesh + "/faces/c1");
    file.write(mesh + "/faces/c1/1", array_of<std::uint32_t>({1}, {2}));
    set_range(file, mesh + "/faces/c1/1", 1, 1);
  }
  file.commit();
  return path;
}

// Phase 1: SV_P on both cells, SV_U as (2, 2) vectors; phase 2: SV_VOF on cell 2 only.
// `pressure_max_id` past 2 claims a cell the case does not have.
std::string write_data(const std::string& path, std::int64_t pressure_max_id = 2) {
  io::hdf5::File file = io::hdf5::File::create(path, "test");
  for (const char* group : {"/results", "/results/1", "/results/1/phase-1", "/results/1/phase-1/cells",
                            "/results/1/phase-1/cells/SV_P", "/results/1/phase-1/cells/SV_U", "/results/1/phase-2",
                            "/results/1/phase-2/cells", "/results/1/phase-2/cells/SV_VOF"})
    file.create_group(group);
  file.write_strings("/results/1/phase-1/cells/fields", {"SV_P;SV_U;"});
  file.write("/results/1/phase-1/cells/SV_P/1", array_of<double>({2}, {10, 20}));
  set_range(file, "/results/1/phase-1/cells/SV_P/1", 1, pressure_max_id);
  file.write("/results/1/phase-1/cells/SV_U/1", array_of<float>({2, 2}, {1, 2, 3, 4}));
  set_range(file, "/results/1/phase-1/cells/SV_U/1", 1, 2);
  file.write_strings("/results/1/phase-2/cells/fields", {"SV_VOF;"});
  file.write("/results/1/phase-2/cells/SV_VOF/1", array_of<double>({1}, {0.5}));
  set_range(file, "/results/1/phase-2/cells/SV_VOF/1", 2, 2);
  file.commit();
  return path;
}

ReadError read_error(const std::string& path) {
  return expect_read_error([&] { fluent_cff::read(path); });
}

}  // namespace

TEST(FluentCff, ReadsThe2DCaseWithItsDataAsVtkDoes) {
  SKIP_WITHOUT_HDF5();
  const Mesh mesh = fluent_cff::read(data_file("FFF.cas.h5"));
  EXPECT_EQ(mesh.points.shape(), (Shape{1430, 2}));
  EXPECT_NEAR(point_sum(mesh), 38.83812559, 1e-7);
  ASSERT_EQ(block_summary(mesh), "quad:1344");
  double area = 0;
  const std::span<const std::int64_t> quads = mesh.cells[0].connectivity.values<std::int64_t>();
  for (std::size_t c = 0; c < 1344; ++c) {
    const double a = signed_area(mesh, quads.subspan(4 * c, 4));
    EXPECT_GT(a, 0) << "cell " << c;
    area += a;
  }
  EXPECT_NEAR(area, 6.000000523e-05, 1e-12);  // VTK's vtkCellSizeFilter
  EXPECT_EQ(mesh.cell_data.size(), 28u);       // ansys:zone + the data file's 27 cell fields
  EXPECT_EQ((*mesh.cell_data.find("SV_Y"))[0].shape(), (Shape{1344, 4}));
  const std::span<const double> pressure = (*mesh.cell_data.find("SV_P"))[0].values<double>();
  EXPECT_NEAR(std::accumulate(pressure.begin(), pressure.end(), 0.0), 50.99803191, 1e-6);  // VTK's sum
  const Region* wall = find_region(mesh, "wall-6", RegionKind::Side);
  ASSERT_NE(wall, nullptr);
  EXPECT_EQ(wall->tag, 6);
  EXPECT_EQ(wall->dim, 1);
  EXPECT_EQ(wall->entries.shape(), (Shape{70, 2}));
  EXPECT_EQ(find_region(mesh, "interior-3", RegionKind::Side)->entries.rows(), 2603);  // c0 sides
  EXPECT_EQ(find_region(mesh, "fluid-1", RegionKind::Cell)->entries.rows(), 1344);
}

TEST(FluentCff, ReadingTheDataFileReadsItsCase) {
  SKIP_WITHOUT_HDF5();
  const Mesh by_data = fluent_cff::read(data_file("FFF.dat.h5"));
  const Mesh by_case = fluent_cff::read(data_file("FFF.cas.h5"));
  EXPECT_TRUE(same_bits(by_data.points, by_case.points));
  EXPECT_TRUE(same_bits((*by_data.cell_data.find("SV_T"))[0], (*by_case.cell_data.find("SV_T"))[0]));
  // The registry sends all three extensions here (nothing else claims .h5).
  EXPECT_EQ(format_for_path("a/b.CAS.H5")->name, "fluent_cff");
  EXPECT_EQ(format_for_path("b.dat.h5")->name, "fluent_cff");
  EXPECT_EQ(format_for_path("b.msh.h5")->name, "fluent_cff");
}

TEST(FluentCff, ReadsTheMixed2DCaseWithoutData) {
  SKIP_WITHOUT_HDF5();
  const Mesh mesh = fluent_cff::read(data_file("nozzle-2D-WB.cas.h5"));
  EXPECT_EQ(mesh.points.rows(), 4324);
  EXPECT_EQ(block_summary(mesh), "quad:4182;triangle:8");
  EXPECT_EQ(mesh.cell_data.size(), 1u);
  EXPECT_EQ(mesh.regions.size(), 5u);
}

TEST(FluentCff, ReadsAFluentMeshingFileWithOneSectionPerZone) {
  SKIP_WITHOUT_HDF5();
  const Mesh mesh = fluent_cff::read(data_file("simple-duct.msh.h5"));
  EXPECT_EQ(mesh.points.shape(), (Shape{44, 3}));
  ASSERT_EQ(block_summary(mesh), "hexahedron:10");
  double volume = 0;
  for (std::int64_t c = 0; c < 10; ++c) {
    const double v = hexahedron_volume(mesh, mesh.cells[0].connectivity.data_as<std::int64_t>() + 8 * c);
    EXPECT_GT(v, 0) << "cell " << c;
    volume += v;
  }
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  const std::span<const double> p = mesh.points.values<double>();
  for (std::size_t i = 0; i < p.size(); ++i) {
    lo[i % 3] = std::min(lo[i % 3], p[i]);
    hi[i % 3] = std::max(hi[i % 3], p[i]);
  }
  EXPECT_NEAR(volume, (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]), 1e-12);  // a box, filled
  const Region* inlet = find_region(mesh, "inlet", RegionKind::Side);
  ASSERT_NE(inlet, nullptr);
  EXPECT_EQ(inlet->dim, 2);
  EXPECT_EQ(inlet->entries.rows(), 1);
}

TEST(FluentCff, BuildsCellsZonesAndTwoPhasesOfDataFromABuiltCase) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string case_path = write_case(dir.file("two.cas.h5"));
  write_data(dir.file("two.dat.h5"));
  const Mesh mesh = fluent_cff::read(case_path);
  ASSERT_EQ(block_summary(mesh), "quad:2");
  const std::span<const std::int64_t> quads = mesh.cells[0].connectivity.values<std::int64_t>();
  EXPECT_DOUBLE_EQ(signed_area(mesh, quads.subspan(0, 4)), 1.0);
  EXPECT_DOUBLE_EQ(signed_area(mesh, quads.subspan(4, 4)), 1.0);
  EXPECT_EQ(int_values((*mesh.cell_data.find("ansys:zone"))[0]), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(int_values((*mesh.cell_data.find("SV_P"))[0]), (std::vector<std::int64_t>{10, 20}));
  const NDArray& velocity = (*mesh.cell_data.find("SV_U"))[0];
  EXPECT_EQ(velocity.dtype(), DType::float32);  // single-precision data stay float32
  EXPECT_EQ(velocity.shape(), (Shape{2, 2}));
  const std::span<const double> vof = (*mesh.cell_data.find("phase_1-SV_VOF"))[0].values<double>();
  EXPECT_TRUE(std::isnan(vof[0]));  // phase 2's field covers cell 2 only
  EXPECT_EQ(vof[1], 0.5);
  const Region* wall = find_region(mesh, "wall", RegionKind::Side);
  ASSERT_NE(wall, nullptr);
  EXPECT_EQ(wall->entries.rows(), 6);
  const Region* interior = find_region(mesh, "interior-fluid", RegionKind::Side);
  ASSERT_NE(interior, nullptr);
  // The interior face (nodes 2 and 5, 0-based 1 and 4) on its c0 side: a facet of cell 0.
  const std::vector<std::int64_t> side = int_values(interior->entries);
  ASSERT_EQ(side.size(), 2u);
  EXPECT_EQ(side[0], 0);
  const std::int64_t a = quads[static_cast<std::size_t>(side[1])], b = quads[static_cast<std::size_t>((side[1] + 1) % 4)];
  EXPECT_EQ(std::minmax(a, b), std::minmax(std::int64_t{1}, std::int64_t{4}));
  EXPECT_EQ(int_values(find_region(mesh, "fluid", RegionKind::Cell)->entries), (std::vector<std::int64_t>{0, 1}));
  // The data file read directly brings its case.
  EXPECT_EQ(fluent_cff::read(dir.file("two.dat.h5")).cell_data.size(), 4u);
}

TEST(FluentCff, RefusesAFileWhoseSignatureALineEndingConversionBroke) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  std::string bytes = read_file(data_file("FFF.cas.h5"));
  ASSERT_EQ(bytes.substr(0, 8), std::string("\x89HDF\r\n\x1a\n", 8));
  bytes.erase(4, 1);  // "\r\n" -> "\n", as a text-mode transfer does
  const std::string path = dir.write("damaged.cas.h5", bytes);
  const ReadError error = read_error(path);
  EXPECT_EQ(error.path(), path);
  EXPECT_EQ(error.format(), "fluent_cff");
}

TEST(FluentCff, RefusesDamagedStructureNamingTheObject) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const auto message_of = [&](const std::string& name, const CaseParts& parts) {
    const std::string path = write_case(dir.file(name), parts);
    const ReadError error = read_error(path);
    EXPECT_EQ(error.path(), path);
    return std::string(error.what());
  };
  CaseParts zone_past_faces;
  zone_past_faces.wall_max_id = 9;
  EXPECT_NE(message_of("zone.cas.h5", zone_past_faces).find("/meshes/1/faces/zoneTopology/maxId"), std::string::npos);
  CaseParts missing_node;
  missing_node.last_node_of_face_7 = 7;
  EXPECT_NE(message_of("node.cas.h5", missing_node).find("/meshes/1/faces/nodes/1/nodes"), std::string::npos);
  CaseParts faces_missing;
  faces_missing.face_count = 8;
  EXPECT_NE(message_of("faces.cas.h5", faces_missing).find("/meshes/1/faces/nodes"), std::string::npos);
  CaseParts huge_cell_count;
  huge_cell_count.cell_count = std::int64_t{1} << 50;
  EXPECT_NE(message_of("cells.cas.h5", huge_cell_count).find("cellCount"), std::string::npos);
  CaseParts no_mesh;
  no_mesh.with_mesh_group = false;
  EXPECT_NE(message_of("none.cas.h5", no_mesh).find("/meshes/1"), std::string::npos);
}

TEST(FluentCff, RefusesADataFileThatClaimsMoreCellsThanItsCase) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string case_path = write_case(dir.file("two.cas.h5"));
  const std::string data_path = write_data(dir.file("two.dat.h5"), 3);
  for (const std::string& path : {case_path, data_path}) {
    const ReadError error = read_error(path);
    EXPECT_EQ(error.path(), data_path);  // the file at fault, whichever was named
    EXPECT_NE(std::string(error.what()).find("/results/1/phase-1/cells/SV_P/1"), std::string::npos) << error.what();
  }
}

TEST(FluentCff, RefusesADataFileWithoutItsCase) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string path = write_data(dir.file("alone.dat.h5"));
  const ReadError error = read_error(path);
  EXPECT_EQ(error.path(), path);
  EXPECT_NE(std::string(error.what()).find("alone.cas.h5"), std::string::npos);
}

TEST(FluentCff, TruncatedFilesAreReadErrors) {
  SKIP_WITHOUT_HDF5();
  ScratchDir dir;
  const std::string bytes = read_file(data_file("FFF.cas.h5"));
  for (const std::size_t keep : {std::size_t{100}, bytes.size() / 2, bytes.size() - 1000}) {
    const std::string path = dir.write("cut" + std::to_string(keep) + ".cas.h5", bytes.substr(0, keep));
    EXPECT_EQ(read_error(path).path(), path);
  }
}
