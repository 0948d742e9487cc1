// OpenFOAM cases written by OpenFOAM itself (tests/data/openfoam, MANIFEST.tsv): ASCII with
// zones, gzip, binary decomposed, 64-bit labels, a moving mesh, tetra/pyramid and
// hexahedron/wedge/polyhedron meshes, OpenFOAM 5's binary without arch; the entry points (case
// directory, .foam file, polyMesh directory), the time series, and hostile edits of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "formats/openfoam/openfoam.hpp"
#include "formats/openfoam/openfoam_parse.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/side_regions.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;
namespace fs = std::filesystem;

namespace {

std::string case_dir(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "openfoam" / name).string(); }

std::map<std::string, std::int64_t> type_counts(const Mesh& mesh) {
  std::map<std::string, std::int64_t> counts;
  for (const CellBlock& block : mesh.cells) counts[block.type] += block.num_cells();
  return counts;
}

std::int64_t region_size(const Mesh& mesh, const std::string& name) {
  const Region* region = find_region(mesh, name);
  return region == nullptr ? -1 : region->entries.rows();
}

const std::vector<std::string>& strings(const Mesh& mesh, const std::string& name) {
  static const std::vector<std::string> none;
  const auto* values = mesh.string_field_data.find(name);
  return values == nullptr ? none : *values;
}

// A copy of a data case in the test's scratch folder, to edit.
fs::path copy_case(const std::string& name) {
  const fs::path target = scratch(name);
  fs::copy(case_dir(name), target, fs::copy_options::recursive);
  return target;
}

void replace_in_file(const fs::path& path, const std::string& from, const std::string& to) {
  std::string text = read_file(path);
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << path;
  text.replace(at, from.size(), to);
  write_file(path, text);
}

// The centroid of each cell (block-major), from its distinct nodes.
std::vector<std::array<double, 3>> centroids(const Mesh& mesh) {
  std::vector<std::array<double, 3>> out;
  const double* xyz = mesh.points.data_as<double>();
  for (const CellBlock& block : mesh.cells) {
    for (std::int64_t c = 0; c < block.num_cells(); ++c) {
      std::vector<std::int64_t> nodes;
      if (block.type == "polyhedron") {
        const auto* offsets = block.offsets.data_as<std::int64_t>();
        const auto* face_offsets = block.face_offsets.data_as<std::int64_t>();
        const auto* conn = block.connectivity.data_as<std::int64_t>();
        for (std::int64_t f = offsets[c]; f < offsets[c + 1]; ++f)
          for (std::int64_t i = face_offsets[f]; i < face_offsets[f + 1]; ++i) nodes.push_back(conn[i]);
      } else {
        const std::int64_t k = block.connectivity.dim(1);
        const auto* conn = block.connectivity.data_as<std::int64_t>() + c * k;
        nodes.assign(conn, conn + k);
      }
      std::sort(nodes.begin(), nodes.end());
      nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
      std::array<double, 3> sum{0, 0, 0};
      for (std::int64_t n : nodes)
        for (int d = 0; d < 3; ++d) sum[d] += xyz[3 * n + d] / static_cast<double>(nodes.size());
      out.push_back(sum);
    }
  }
  return out;
}

}  // namespace

TEST(OpenFoam, AsciiCavityWithZonesAndLatestTime) {
  const Mesh mesh = openfoam::read(case_dir("cavity"));
  EXPECT_EQ(mesh.points.rows(), 882);
  EXPECT_EQ(type_counts(mesh), (std::map<std::string, std::int64_t>{{"hexahedron", 400}}));
  EXPECT_EQ(strings(mesh, "openfoam:patch_names"), (std::vector<std::string>{"movingWall", "fixedWalls", "frontAndBack"}));
  EXPECT_EQ(strings(mesh, "openfoam:patch_types"), (std::vector<std::string>{"wall", "wall", "empty"}));
  EXPECT_EQ(strings(mesh, "openfoam:patch_groups"), (std::vector<std::string>{"wall", "wall", "empty"}));
  EXPECT_EQ(region_size(mesh, "movingWall"), 20);
  EXPECT_EQ(region_size(mesh, "fixedWalls"), 60);
  EXPECT_EQ(region_size(mesh, "frontAndBack"), 800);  // the empty patch of a 2-D case stays
  const Region* moving = find_region(mesh, "movingWall");
  EXPECT_EQ(moving->kind, RegionKind::Side);
  EXPECT_EQ(moving->tag, 0);
  // Every movingWall facet is a hexahedron facet at y = 0.1 (the lid).
  const auto* conn = mesh.cells[0].connectivity.data_as<std::int64_t>();
  const auto facets = cell_facets("hexahedron");
  for (std::int64_t i = 0; i < moving->entries.rows(); ++i) {
    const std::int64_t cell = moving->entries.data_as<std::int64_t>()[2 * i];
    const std::int64_t facet = moving->entries.data_as<std::int64_t>()[2 * i + 1];
    for (int c = 0; c < facets[facet].count; ++c)
      EXPECT_DOUBLE_EQ(mesh.points.data_as<double>()[3 * conn[8 * cell + facets[facet].corners[c]] + 1], 0.1);
  }
  // Zones: cellZone lid (y > 0.08), faceZone mid (x = 0.05, flipMap 1: the cells right of it),
  // pointZone corner.
  const Region* lid = find_region(mesh, "lid", RegionKind::Cell);
  ASSERT_NE(lid, nullptr);
  EXPECT_EQ(lid->entries.rows(), 80);
  const auto centres = centroids(mesh);
  for (std::int64_t cell : lid->entries.values<std::int64_t>()) EXPECT_GT(centres[cell][1], 0.08);
  const Region* mid = find_region(mesh, "mid", RegionKind::Side);
  ASSERT_NE(mid, nullptr);
  EXPECT_EQ(mid->entries.rows(), 20);
  EXPECT_EQ(mid->tag, 3);
  for (std::int64_t i = 0; i < mid->entries.rows(); ++i) EXPECT_GT(centres[mid->entries.data_as<std::int64_t>()[2 * i]][0], 0.05);
  EXPECT_EQ(region_size(mesh, "corner"), 18);
  // The latest time's fields.
  ASSERT_TRUE(mesh.field_data.contains("openfoam:time"));
  EXPECT_DOUBLE_EQ(mesh.field_data.find("openfoam:time")->data_as<double>()[0], 0.1);
  ASSERT_TRUE(mesh.cell_data.contains("p"));
  ASSERT_TRUE(mesh.cell_data.contains("U"));
  EXPECT_FALSE(mesh.cell_data.contains("phi"));  // a surface field
  EXPECT_EQ(mesh.cell_data.find("U")->front().shape(), (Shape{400, 3}));
  // Cell 0 of the file is the first hexahedron (one block, file order kept).
  const std::string p_text = read_file(fs::path(case_dir("cavity")) / "0.1" / "p");
  const std::size_t list = p_text.find("400\n(\n");
  ASSERT_NE(list, std::string::npos);
  EXPECT_DOUBLE_EQ(mesh.cell_data.find("p")->front().data_as<double>()[0], std::stod(p_text.substr(list + 6, 20)));
  validate(mesh);
}

TEST(OpenFoam, EntryPointsAndRegistry) {
  const std::string root = case_dir("cavity");
  const Mesh by_dir = read(root);  // the registry names a case directory openfoam
  const Mesh by_marker = read(root + "/case.foam");
  const Mesh by_poly_mesh = read(root + "/constant/polyMesh");
  ASSERT_NE(format_for_path(root), nullptr);
  EXPECT_EQ(format_for_path(root)->name, "openfoam");
  EXPECT_EQ(format_for_path(root + "/case.foam")->name, "openfoam");
  EXPECT_EQ(format_for_path(root + "/constant"), nullptr);  // a directory holding no case
  for (const Mesh* mesh : {&by_marker, &by_poly_mesh}) {
    EXPECT_TRUE(same_bits(mesh->points, by_dir.points));
    EXPECT_TRUE(same_bits(mesh->cells[0].connectivity, by_dir.cells[0].connectivity));
    EXPECT_TRUE(same_bits(mesh->cell_data.find("p")->front(), by_dir.cell_data.find("p")->front()));
  }
  const ReadError error = expect_read_error([&] { read(root + "/constant"); });
  EXPECT_NE(std::string(error.what()).find("cannot tell the format"), std::string::npos) << error.what();
  const ReadError not_case = expect_read_error([&] { openfoam::read(root + "/system"); });
  EXPECT_NE(std::string(not_case.what()).find("not an OpenFOAM case"), std::string::npos) << not_case.what();
}

TEST(OpenFoam, GzipAndBinaryAndLabel64ReadAsTheAsciiCase) {
  const Mesh ascii = openfoam::read(case_dir("cavity"));
  const Mesh gz = openfoam::read(case_dir("cavity_gz"));
  const Mesh binary = openfoam::read(case_dir("cavity_decomposed_binary"));  // constant/polyMesh: reconstructed
  const Mesh wide = openfoam::read(case_dir("cavity_label64"));
  EXPECT_TRUE(same_bits(gz.points, ascii.points));
  EXPECT_TRUE(same_bits(wide.points, binary.points));
  for (std::size_t i = 0; i < ascii.points.size(); ++i)  // ASCII rounds blockMesh's points to 6 digits
    EXPECT_NEAR(binary.points.data_as<double>()[i], ascii.points.data_as<double>()[i], 1e-12);
  for (const Mesh* mesh : {&gz, &binary, &wide}) {
    EXPECT_TRUE(same_bits(mesh->cells[0].connectivity, ascii.cells[0].connectivity));
    for (const std::string patch : {"movingWall", "fixedWalls", "frontAndBack"})
      EXPECT_TRUE(same_bits(find_region(*mesh, patch)->entries, find_region(ascii, patch)->entries)) << patch;
    ASSERT_TRUE(mesh->cell_data.contains("p"));
    EXPECT_EQ(mesh->cell_data.find("U")->front().shape(), (Shape{400, 3}));
  }
  // The gzip case is the ASCII run again: the same digits. Binary holds the full doubles the
  // ASCII files round to 6 digits.
  EXPECT_TRUE(same_bits(gz.cell_data.find("p")->front(), ascii.cell_data.find("p")->front()));
  EXPECT_TRUE(same_bits(wide.cell_data.find("U")->front(), binary.cell_data.find("U")->front()));
  const double* a = ascii.cell_data.find("p")->front().data_as<double>();
  const double* b = binary.cell_data.find("p")->front().data_as<double>();
  for (int i = 0; i < 400; ++i) EXPECT_NEAR(a[i], b[i], 1e-5 * std::max(1.0, std::abs(b[i])));
  // The headers as written: 64-bit labels in cavity_label64, 32-bit in the binary case.
  openfoam::FoamFile owner(case_dir("cavity_label64") + "/constant/polyMesh/owner");
  EXPECT_EQ(owner.header().label_bytes, 8);
  EXPECT_TRUE(owner.header().binary);
  openfoam::FoamFile points(case_dir("cavity_gz") + "/constant/polyMesh/points");
  EXPECT_TRUE(points.compressed());
  EXPECT_EQ(points.path(), case_dir("cavity_gz") + "/constant/polyMesh/points.gz");
}

TEST(OpenFoam, DecomposedCaseJoinedFromItsProcessors) {
  const Mesh reconstructed = openfoam::read(case_dir("cavity_decomposed_binary"));
  const fs::path copy = copy_case("cavity_decomposed_binary");
  fs::remove_all(copy / "constant" / "polyMesh");
  fs::remove_all(copy / "0");
  fs::remove_all(copy / "0.1");
  const Mesh joined = openfoam::read(copy.string());
  // pointProcAddressing / cellProcAddressing give the undecomposed numbering back.
  EXPECT_TRUE(same_bits(joined.points, reconstructed.points));
  EXPECT_EQ(type_counts(joined), type_counts(reconstructed));
  EXPECT_EQ(centroids(joined), centroids(reconstructed));
  EXPECT_EQ(strings(joined, "openfoam:patch_names"), strings(reconstructed, "openfoam:patch_names"));
  for (const std::string patch : {"movingWall", "fixedWalls", "frontAndBack"})
    EXPECT_EQ(region_size(joined, patch), region_size(reconstructed, patch)) << patch;
  EXPECT_EQ(find_region(joined, "procBoundary0to1"), nullptr);
  EXPECT_TRUE(same_bits(joined.cell_data.find("p")->front(), reconstructed.cell_data.find("p")->front()));
  EXPECT_TRUE(same_bits(joined.cell_data.find("U")->front(), reconstructed.cell_data.find("U")->front()));
  // One processor read as a case: its processor patches, and global_ids from its addressing.
  const Mesh one = openfoam::read(case_dir("cavity_decomposed_binary") + "/processor1");
  EXPECT_EQ(one.cells[0].num_cells(), 100);
  EXPECT_EQ(region_size(one, "procBoundary1to0"), 10);
  ASSERT_TRUE(one.point_data.contains("global_ids"));
  ASSERT_TRUE(one.cell_data.contains("global_ids"));
  const auto* ids = one.point_data.find("global_ids")->data_as<std::int64_t>();
  for (std::int64_t i = 0; i < one.points.rows(); ++i)
    for (int d = 0; d < 3; ++d) EXPECT_EQ(one.points.data_as<double>()[3 * i + d], reconstructed.points.data_as<double>()[3 * ids[i] + d]);
  // Without addressing the processors follow one another, their points kept apart.
  for (int k = 0; k < 4; ++k) {
    fs::remove(copy / ("processor" + std::to_string(k)) / "constant" / "polyMesh" / "pointProcAddressing");
    fs::remove(copy / ("processor" + std::to_string(k)) / "constant" / "polyMesh" / "cellProcAddressing");
  }
  const Mesh unaddressed = openfoam::read(copy.string());
  EXPECT_EQ(unaddressed.num_cells(), 400);
  EXPECT_EQ(unaddressed.points.rows(), 4 * 242);
  EXPECT_EQ(region_size(unaddressed, "movingWall"), 20);
}

TEST(OpenFoam, AsciiDecomposedFromFluidfoam) {
  const Mesh mesh = openfoam::read(case_dir("fluidfoam_par1"));  // reconstructed mesh, fields only in processors
  EXPECT_EQ(mesh.cells[0].num_cells(), 20);
  EXPECT_FALSE(mesh.cell_data.contains("alpha"));
  const fs::path copy = copy_case("fluidfoam_par1");
  fs::remove_all(copy / "constant");
  const Mesh joined = openfoam::read(copy.string());
  EXPECT_TRUE(same_bits(joined.points, mesh.points));
  ASSERT_TRUE(joined.cell_data.contains("alpha"));
  const NDArray& alpha = joined.cell_data.find("alpha")->front();
  for (double value : alpha.values<double>()) EXPECT_FALSE(std::isnan(value));
}

TEST(OpenFoam, MovingMeshAndPointFieldsAsTimeSeries) {
  const std::string root = case_dir("movingCone");
  const Mesh latest = openfoam::read(root);
  EXPECT_EQ(type_counts(latest), (std::map<std::string, std::int64_t>{{"hexahedron", 1865}, {"wedge", 35}}));
  const NDArray moved = openfoam::read_list_file(openfoam::FoamFile(root + "/0.0004/polyMesh/points"),
                                                 openfoam::ElementKind::scalar, 3, "points");
  EXPECT_TRUE(same_bits(latest.points, moved));
  ASSERT_TRUE(latest.point_data.contains("pointMotionUx"));  // a pointScalarField
  EXPECT_EQ(latest.point_data.find("pointMotionUx")->shape(), (Shape{4035}));
  EXPECT_EQ(region_size(latest, "axis"), 0);

  auto series = open_time_series(root);
  ASSERT_EQ(series->num_steps(), 3u);
  EXPECT_DOUBLE_EQ(series->time(0), 0);
  EXPECT_DOUBLE_EQ(series->time(1), 0.0002);
  EXPECT_DOUBLE_EQ(series->time(2), 0.0004);
  const Mesh first = series->read_mesh();
  const NDArray constant = openfoam::read_list_file(openfoam::FoamFile(root + "/constant/polyMesh/points"),
                                                    openfoam::ElementKind::scalar, 3, "points");
  EXPECT_TRUE(same_bits(first.points, constant));
  const TimeStep step = series->read_step(1);
  EXPECT_DOUBLE_EQ(step.time, 0.0002);
  EXPECT_TRUE(step.cell_data.contains("p"));
  EXPECT_FALSE(step.cell_data.contains("U"));  // not written at that time in this case
  EXPECT_TRUE(step.point_data.contains("pointMotionUx"));
  const NDArray at_step = openfoam::read_list_file(openfoam::FoamFile(root + "/0.0002/polyMesh/points"),
                                                   openfoam::ElementKind::scalar, 3, "points");
  EXPECT_TRUE(same_bits(series->read_mesh().points, at_step));
  EXPECT_THROW(series->read_step(3), ReadError);
}

TEST(OpenFoam, CavityTimeSeries) {
  auto series = open_time_series(case_dir("cavity") + "/case.foam");
  ASSERT_EQ(series->num_steps(), 3u);
  const Mesh mesh = series->read_mesh();
  EXPECT_FALSE(mesh.cell_data.contains("p"));
  const TimeStep step0 = series->read_step(0);
  const TimeStep step2 = series->read_step(2);
  const Mesh latest = openfoam::read(case_dir("cavity"));
  EXPECT_TRUE(same_bits(step2.cell_data.find("p")->front(), latest.cell_data.find("p")->front()));
  for (double value : step0.cell_data.find("p")->front().values<double>()) EXPECT_EQ(value, 0.0);  // uniform 0
}

TEST(OpenFoam, TetraPyramidAndPolyhedraMeshes) {
  const Mesh tets = openfoam::read(case_dir("tetpyr"));
  EXPECT_EQ(type_counts(tets), (std::map<std::string, std::int64_t>{{"tetra", 608}, {"pyramid", 9}}));
  EXPECT_EQ(region_size(tets, "fluid"), 617);  // gmshToFoam's cellZone
  EXPECT_EQ(region_size(tets, "outlet"), 9);
  validate(tets);
  const Mesh mixed = openfoam::read(case_dir("hexwedgepoly"));
  EXPECT_EQ(type_counts(mixed), (std::map<std::string, std::int64_t>{{"hexahedron", 122}, {"wedge", 12}, {"polyhedron", 18}}));
  EXPECT_EQ(strings(mixed, "openfoam:patch_types"), (std::vector<std::string>{"patch", "wall", "symmetry", "empty"}));
  validate(mixed);
}

TEST(OpenFoam, BinaryWithoutArchTellsSizesByTheLists) {
  const Mesh mesh = openfoam::read(case_dir("fluidfoam_bin"));  // OpenFOAM 5: binary, no arch line
  EXPECT_EQ(mesh.points.rows(), 260);
  EXPECT_EQ(mesh.cells[0].num_cells(), 64);
  EXPECT_EQ(mesh.cell_data.find("Taus")->front().shape(), (Shape{64, 9}));   // volTensorField
  EXPECT_EQ(mesh.cell_data.find("sigma")->front().shape(), (Shape{64, 6}));  // volSymmTensorField
  EXPECT_EQ(mesh.cell_data.find("alpha")->front().shape(), (Shape{64}));
  EXPECT_EQ(strings(mesh, "openfoam:patch_types")[0], "cyclic");
}

// ---- hostile input -----------------------------------------------------------------------

TEST(OpenFoam, FaceNamingAMissingPointNamesTheFacesFile) {
  const fs::path root = copy_case("cavity");
  replace_in_file(root / "constant/polyMesh/faces", "4(1 22 463 442)", "4(1 22 463 9999)");
  const ReadError error = expect_read_error([&] { openfoam::read((root / "case.foam").string()); });
  EXPECT_EQ(error.path(), (root / "constant/polyMesh/faces").string());
  EXPECT_NE(std::string(error.what()).find("names point 9999"), std::string::npos) << error.what();
  EXPECT_NE(std::string(error.what()).find("case.foam"), std::string::npos) << error.what();  // the case
}

TEST(OpenFoam, OwnerAndNeighbourOfDifferentLengths) {
  const fs::path root = copy_case("cavity");
  std::string owner = read_file(root / "constant/polyMesh/owner");
  const std::size_t list = owner.find("\n1640\n(");
  ASSERT_NE(list, std::string::npos);
  owner.replace(list, 7, "\n1639\n(");
  owner.erase(owner.rfind("\n)") - 4, 4);  // drop a label (the last one fits in 3 digits and a newline)
  write_file(root / "constant/polyMesh/owner", owner);
  const ReadError short_owner = expect_read_error([&] { openfoam::read(root.string()); });
  EXPECT_EQ(short_owner.path(), (root / "constant/polyMesh/owner").string());
  EXPECT_NE(std::string(short_owner.what()).find("one owner per face"), std::string::npos) << short_owner.what();

  const fs::path other = scratch("longer");
  fs::copy(case_dir("cavity"), other, fs::copy_options::recursive);
  std::string neighbour = read_file(other / "constant/polyMesh/neighbour");
  const std::size_t count = neighbour.find("\n760\n(");
  ASSERT_NE(count, std::string::npos);
  std::string labels;
  for (int i = 0; i < 900; ++i) labels += "1\n";
  neighbour.replace(count, 6, "\n1660\n(\n" + labels);
  write_file(other / "constant/polyMesh/neighbour", neighbour);
  const ReadError long_neighbour = expect_read_error([&] { openfoam::read(other.string()); });
  EXPECT_EQ(long_neighbour.path(), (other / "constant/polyMesh/neighbour").string());
  EXPECT_NE(std::string(long_neighbour.what()).find("more than the 1640 faces"), std::string::npos) << long_neighbour.what();
}

TEST(OpenFoam, BinaryListLongerThanTheFile) {
  const fs::path root = copy_case("cavity_label64");
  replace_in_file(root / "constant/polyMesh/owner", "\n1640\n(", "\n900000000000\n(");
  const ReadError error = expect_read_error([&] { openfoam::read(root.string()); });
  EXPECT_EQ(error.path(), (root / "constant/polyMesh/owner").string());
  EXPECT_NE(std::string(error.what()).find("900000000000"), std::string::npos) << error.what();
  EXPECT_TRUE(error.byte_offset().has_value());
}

TEST(OpenFoam, BrokenFilesNameThemselves) {
  const fs::path root = copy_case("cavity");
  // A field with fewer values than cells.
  replace_in_file(root / "0.1/p", "\n400\n(", "\n3\n(1 2 3)\n/*");
  replace_in_file(root / "0.1/p", "\n)\n;", "*/\n;");
  const ReadError field = expect_read_error([&] { openfoam::read(root.string()); });
  EXPECT_EQ(field.path(), (root / "0.1/p").string());
  EXPECT_NE(std::string(field.what()).find("3 values for the 400 cells"), std::string::npos) << field.what();
  // A patch past the faces, a truncated gzip file, a collated decomposition.
  const fs::path other = scratch("patch");
  fs::copy(case_dir("cavity"), other, fs::copy_options::recursive);
  replace_in_file(other / "constant/polyMesh/boundary", "startFace       840;", "startFace       1630;");
  const ReadError patch = expect_read_error([&] { openfoam::read(other.string()); });
  EXPECT_EQ(patch.path(), (other / "constant/polyMesh/boundary").string());
  const fs::path gz = copy_case("cavity_gz");
  std::string points = read_file(gz / "constant/polyMesh/points.gz");
  write_file(gz / "constant/polyMesh/points.gz", points.substr(0, points.size() / 2));
  EXPECT_EQ(expect_read_error([&] { openfoam::read(gz.string()); }).path(), (gz / "constant/polyMesh/points.gz").string());
  const fs::path collated = scratch("collated");
  fs::create_directories(collated / "processors4" / "constant");
  fs::create_directories(collated / "system");
  EXPECT_NE(std::string(expect_read_error([&] { openfoam::read(collated.string()); }).what()).find("collated"), std::string::npos);
}

TEST(OpenFoam, ListGrammar) {
  const fs::path dir = scratch("grammar");
  fs::create_directories(dir);
  // Comments, a count-less list, a uniform list, a directive line, nested dictionaries.
  write_file(dir / "a", "/* c */ FoamFile { format ascii; class labelList; } // x\n#include \"nothing\"\n3 /*x*/ (1 // y\n 2 3)\n");
  write_file(dir / "b", "FoamFile { format ascii; class labelList; }\n(4 5 6 7)\n");
  write_file(dir / "c", "FoamFile { format ascii; class labelList; }\n5{9}\n");
  write_file(dir / "d", "FoamFile { format ascii; class labelList; }\n3(1 2)\n");
  using openfoam::ElementKind;
  EXPECT_EQ(int_values(openfoam::read_list_file(openfoam::FoamFile((dir / "a").string()), ElementKind::label, 1, "a")),
            (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(int_values(openfoam::read_list_file(openfoam::FoamFile((dir / "b").string()), ElementKind::label, 1, "b")),
            (std::vector<std::int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(int_values(openfoam::read_list_file(openfoam::FoamFile((dir / "c").string()), ElementKind::label, 1, "c")),
            (std::vector<std::int64_t>{9, 9, 9, 9, 9}));
  const ReadError short_list = expect_read_error([&] {
    openfoam::read_list_file(openfoam::FoamFile((dir / "d").string()), ElementKind::label, 1, "d");
  });
  EXPECT_EQ(short_list.path(), (dir / "d").string());
  EXPECT_TRUE(short_list.line().has_value());
}
