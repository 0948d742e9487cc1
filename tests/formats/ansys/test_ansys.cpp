// ANSYS Fluent mesh reader and writer: real files (TGrid 2-D, Fluent 6 interface 3-D, and
// foamMeshToFluent with mixed face zones, from foam-extend's tutorials in tests/data/ansys),
// Fluent-style binary sections built by hand, round trips in both encodings, the .msh content
// sniffing of the registry, and one malformed input per failure kind.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "formats/ansys/ansys.hpp"
#include "io/source/parallel.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

const fs::path kDataDir = meshioplusplus::testing::test_data_dir() / "ansys";

// The files ship with the repository: a missing one fails the test.
#define SKIP_WITHOUT_DATA(name) \
  ASSERT_TRUE(fs::exists(kDataDir / (name))) << "tests/data/ansys/" << (name) << " is missing (tests/data/MANIFEST.tsv)"

std::string data_file(const std::string& name) { return (kDataDir / name).string(); }

bool same_array(const NDArray& a, const NDArray& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

template <class T> void append(std::string& bytes, T value) { bytes.append(reinterpret_cast<const char*>(&value), sizeof value); }

Mesh volume_mesh() {
  Mesh mesh;
  mesh.points = array_of<double>({8, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0.1, 1.0 / 3, 1e-300});
  mesh.cells.push_back({"tetra", array_of<std::int64_t>({2, 4}, {0, 1, 2, 4, 1, 2, 3, 7}), {}, {}});
  mesh.cells.push_back({"hexahedron", array_of<std::int64_t>({1, 8}, {0, 1, 2, 3, 4, 5, 6, 7}), {}, {}});
  mesh.cells.push_back({"pyramid", array_of<std::int64_t>({1, 5}, {0, 1, 2, 3, 7}), {}, {}});
  mesh.cells.push_back({"wedge", array_of<std::int64_t>({1, 6}, {0, 1, 2, 4, 5, 6}), {}, {}});
  mesh.cells.push_back({"triangle", array_of<std::int64_t>({1, 3}, {0, 1, 2}), {}, {}});
  mesh.cells.push_back({"quad", array_of<std::int64_t>({1, 4}, {4, 5, 6, 7}), {}, {}});
  mesh.cells.push_back({"line", array_of<std::int64_t>({2, 2}, {0, 7, 1, 6}), {}, {}});
  mesh.cells.push_back({"polygon", NDArray::from_values<std::int64_t>({0, 1, 2, 3, 7, 4, 5, 6, 7, 0}),
                        NDArray::from_values<std::int64_t>({0, 5, 10}), {}});
  return mesh;
}

void expect_same_cells(const Mesh& back, const Mesh& mesh) {
  ASSERT_EQ(back.cells.size(), mesh.cells.size()) << block_summary(back);
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type) << b;
    EXPECT_TRUE(same_array(back.cells[b].connectivity, mesh.cells[b].connectivity)) << b;
    if (mesh.cells[b].is_ragged()) {
      EXPECT_TRUE(same_array(back.cells[b].offsets, mesh.cells[b].offsets)) << b;
    }
  }
}

// meshio's layout: these meshes' cells list arbitrary nodes (no closed volume mesh), which only
// that layout stores as they are.
WriteOptions binary_option(bool binary) {
  WriteOptions options;
  options.set("binary", binary ? "true" : "false");
  options.set("layout", "meshio");
  return options;
}

// A Fluent-style binary file: data right after the body's '(' (no newline), trailers, single
// precision nodes in two zones listed out of order, a mixed face zone with a polygon, a
// periodic section and a comment with parentheses and quotes, all to be read or skipped.
std::string fluent_binary_file() {
  std::string bytes = "(0 \"a comment (with parentheses) \")\n(0 grid:\n  nodes: (10 (id start end type) (x y))\n)\n(2 2)\n";
  bytes += "(10 (0 1 5 0 2))\n";
  bytes += "(2010 (2 4 5 1 2)(";
  for (float value : {4.0f, 4.5f, 5.0f, 5.5f}) append(bytes, value);
  bytes += ")End of Binary Section 2010)\n";
  bytes += "(2010 (1 1 3 1 2)(";
  for (float value : {1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 3.5f}) append(bytes, value);
  bytes += ")End of Binary Section   2010)\n";
  bytes += "(2013 (3 1 3 2 0)(";
  // Each face of a mixed zone starts with its node count (Fluent's files, VTK); no face names a
  // cell, so the file reads as faces (the cell zone alone defines no cells).
  for (std::int32_t value : {2, 1, 2, 0, 0, /**/ 3, 1, 2, 3, 0, 0, /**/ 5, 1, 2, 3, 4, 5, 0, 0}) append(bytes, value);
  bytes += ")End of Binary Section 2013)\n";
  bytes += "(2018 (1 2 3 4)(";
  for (std::int32_t value : {41, 40, 0x29, 0x28}) append(bytes, value);  // '(' and ')' bytes inside
  bytes += ")End of Binary Section 2018)\n";
  bytes += "(12 (4 1 1 1 0)(\n 1\n))\n(45 (3 wall outer-wall)())\n(39 (4 fluid inside)())\n";
  return bytes;
}

}  // namespace

// ---- real files --------------------------------------------------------------------------

TEST(AnsysRealFiles, TgridTwoDimensionalElbowWithNodeZonesOutOfOrder) {
  SKIP_WITHOUT_DATA("elbow.msh");
  const Mesh mesh = ansys::read(data_file("elbow.msh"));
  // Node zone 1 holds ids 9b..219 and comes first; zone 2 holds 1..9a (meshio refuses this).
  ASSERT_EQ(mesh.points.shape(), (Shape{0x219, 2}));
  const double* points = mesh.points.data_as<double>();
  EXPECT_EQ(points[0], 32.0);
  EXPECT_EQ(points[1], 16.0);
  EXPECT_EQ(points[2 * 0x9a], 47.10158094);
  EXPECT_EQ(points[2 * 0x9a + 1], 22.88611594);
  // The cell zone (9, 1..396, declared without an element type) rebuilt from the 0x5ae edges;
  // this expectation replaced "six line blocks" when the reader began to rebuild cells (VTK
  // cannot read this file; the triangles' areas are all positive, tests/formats/ansys pytest).
  ASSERT_EQ(mesh.cells.size(), 1u) << block_summary(mesh);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 0x396);
  const Region* wall = find_region(mesh, "wall-4");
  ASSERT_NE(wall, nullptr);
  EXPECT_EQ(wall->kind, RegionKind::Side);
  EXPECT_EQ(wall->tag, 4);
  EXPECT_EQ(wall->dim, 1);
  EXPECT_EQ(wall->entries.rows(), 0x64);
  const Region* fluid = find_region(mesh, "fluid-9");
  ASSERT_NE(fluid, nullptr);
  EXPECT_EQ(fluid->kind, RegionKind::Cell);
  EXPECT_EQ(fluid->entries.rows(), 0x396);
  const auto* zones = mesh.cell_data.find("ansys:zone");
  ASSERT_NE(zones, nullptr);
  EXPECT_EQ((*zones)[0].data_as<std::int64_t>()[0], 9);
}

TEST(AnsysRealFiles, FluentSixInterfaceHexMeshBecomesHexahedra) {
  SKIP_WITHOUT_DATA("rotate_sphere.msh");
  const Mesh mesh = ansys::read(data_file("rotate_sphere.msh"));
  // vtkFLUENTReader: 1887 points, 1664 hexahedra in the cell zone (meshio reads only the faces:
  // quad 4800 + 384, now the interior and "surface" Side regions).
  EXPECT_EQ(mesh.points.shape(), (Shape{1887, 3}));
  EXPECT_NEAR(point_sum(mesh), 0.20954924405688047, 1e-12);
  ASSERT_EQ(mesh.cells.size(), 1u) << block_summary(mesh);
  EXPECT_EQ(mesh.cells[0].type, "hexahedron");
  EXPECT_EQ(mesh.cells[0].num_cells(), 1664);
  const Region* surface = find_region(mesh, "surface");
  ASSERT_NE(surface, nullptr);
  EXPECT_EQ(surface->kind, RegionKind::Side);
  EXPECT_EQ(surface->dim, 2);
  EXPECT_EQ(surface->entries.shape(), (Shape{384, 2}));
}

TEST(AnsysRealFiles, FoamToFluentMixedFaceZonesAndMixedCellBody) {
  SKIP_WITHOUT_DATA("hron_turek_solid.msh");
  const Mesh mesh = ansys::read(data_file("hron_turek_solid.msh"));
  // vtkFLUENTReader: 830 points, 328 hexahedra; meshio's face blocks quad 570 / 4 / 168 / 656.
  EXPECT_EQ(mesh.points.shape(), (Shape{830, 3}));
  EXPECT_NEAR(point_sum(mesh), 499.06972149100005, 1e-9);
  ASSERT_EQ(mesh.cells.size(), 1u) << block_summary(mesh);
  EXPECT_EQ(mesh.cells[0].type, "hexahedron");
  EXPECT_EQ(mesh.cells[0].num_cells(), 328);
  ASSERT_NE(find_region(mesh, "plateFix"), nullptr);  // zone "10" names the face zone 'a'
  EXPECT_EQ(find_region(mesh, "plateFix")->tag, 10);
  EXPECT_EQ(find_region(mesh, "plateFix")->entries.rows(), 4);
}

// Files of ansys/example-data (pyfluent), written by Fluent / Fluent Meshing; the first three
// failed before with "expected the body's '(' or the section's ')'" (binary cell zones closed by
// the trailer alone). Counts and points as vtkFLUENTReader gives them (tests/formats/ansys pytest
// compares volumes and areas with VTK).
struct FluentFile {
  const char* name;
  std::int64_t points, dim, cells;
  const char* type;
  const char* zone;  // a named face zone
};

class AnsysFluentFiles : public ::testing::TestWithParam<FluentFile> {};

TEST_P(AnsysFluentFiles, VolumeCellsAsVtkReadsThem) {
  const FluentFile& file = GetParam();
  SKIP_WITHOUT_DATA(file.name);
  const Mesh mesh = ansys::read(data_file(file.name));
  EXPECT_EQ(mesh.points.shape(), (Shape{file.points, file.dim}));
  ASSERT_EQ(mesh.cells.size(), 1u) << block_summary(mesh);
  EXPECT_EQ(mesh.cells[0].type, file.type);
  EXPECT_EQ(mesh.cells[0].num_cells(), file.cells);
  const Region* zone = find_region(mesh, file.zone);
  ASSERT_NE(zone, nullptr);
  EXPECT_EQ(zone->kind, RegionKind::Side);
  EXPECT_EQ(zone->dim, file.dim - 1);
  EXPECT_GT(zone->entries.rows(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    ExampleData, AnsysFluentFiles,
    ::testing::Values(FluentFile{"prime_hex.msh", 343, 3, 216, "hexahedron", "WALL_SOLID"},
                      FluentFile{"lid_driven_cavity.msh", 3672, 2, 3550, "quad", "interior-surface_body"},
                      FluentFile{"pro_species.cas", 861, 2, 800, "quad", "int_FLUID"},
                      FluentFile{"gascomb.msh.gz", 1705, 2, 1615, "quad", "interior-4"},
                      FluentFile{"mixing_elbow.cas.gz", 9203, 3, 45637, "tetra", "inlet1"}),
    [](const auto& info) {
      std::string name = info.param.name;
      for (char& c : name)
        if (c == '.' || c == '-') c = '_';
      return name;
    });

// ---- hand-built variants -----------------------------------------------------------------

TEST(AnsysRead, FluentBinarySectionsMixedFacesAndSkippedSections) {
  const Mesh mesh = ansys::read(write_scratch("fluent_binary.msh", fluent_binary_file()));
  ASSERT_EQ(mesh.points.dtype(), DType::float32);
  ASSERT_EQ(mesh.points.shape(), (Shape{5, 2}));
  EXPECT_EQ(point_sum(mesh), 1.0 + 1.5 + 2 + 2.5 + 3 + 3.5 + 4 + 4.5 + 5 + 5.5);
  EXPECT_EQ(mesh.points.data_as<float>()[6], 4.0f);  // id 4 from the zone listed first
  ASSERT_EQ(mesh.cells.size(), 3u) << block_summary(mesh);
  EXPECT_EQ(mesh.cells[0].type, "line");
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(mesh.cells[1].type, "triangle");
  EXPECT_EQ(nodes_of(mesh.cells[1]), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(mesh.cells[2].type, "polygon");
  EXPECT_EQ(nodes_of(mesh.cells[2]), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  const Region* wall = find_region(mesh, "outer-wall");
  ASSERT_NE(wall, nullptr);
  EXPECT_EQ(int_values(wall->entries), (std::vector<std::int64_t>{0, 1, 2}));
}

TEST(AnsysRead, AsciiPolygonZoneAndDeclarationsWithoutBodies) {
  const std::string text =
      "(1 \"hand written\")\n(10 (0 1 4 0))\n(13 (0 1 2 0))\n(10 (1 1 4 1 3)(\n0 0 0\n1 0 0\n1 1 0\n0 1 +1e-3\n))\n"
      "(13 (2 1 2 3 5)(\n4 1 2 3 4 0 0\n3 1 2 3 0 0\n))\n(12 (3 1 1 1 7))\n";
  const Mesh mesh = ansys::read(write_scratch("polygons.msh", text));
  ASSERT_EQ(mesh.cells.size(), 2u) << block_summary(mesh);
  EXPECT_EQ(mesh.cells[0].type, "quad");
  EXPECT_EQ(mesh.cells[1].type, "triangle");
  EXPECT_EQ(mesh.points.data_as<double>()[11], 1e-3);
}

// ---- round trips -------------------------------------------------------------------------

class AnsysRoundTrip : public ::testing::TestWithParam<bool> {};

TEST_P(AnsysRoundTrip, EveryWritableCellTypeAndExactPoints) {
  const Mesh mesh = volume_mesh();
  const std::string path = scratch("round.msh").string();
  write(path, mesh, "ansys", binary_option(GetParam()));
  const Mesh back = ansys::read(path);
  EXPECT_TRUE(same_array(back.points, mesh.points));
  expect_same_cells(back, mesh);
}

TEST_P(AnsysRoundTrip, TwoDimensionalFloat32PointsAndAnEmptyMesh) {
  Mesh mesh;
  mesh.points = array_of<float>({4, 2}, {0, 0, 1, 0, 1, 1, 0.1f, 1});
  mesh.cells.push_back({"triangle", array_of<std::int64_t>({2, 3}, {0, 1, 2, 0, 2, 3}), {}, {}});
  const std::string path = scratch("flat.msh").string();
  write(path, mesh, "ansys", binary_option(GetParam()));
  const Mesh back = ansys::read(path);
  EXPECT_EQ(back.points.dtype(), GetParam() ? DType::float32 : DType::float64);
  EXPECT_TRUE(same_array(back.points.astype(DType::float32), mesh.points));
  expect_same_cells(back, mesh);

  Mesh empty;
  empty.points = NDArray::allocate(DType::float64, {0, 3});
  write(path, empty, "ansys", binary_option(GetParam()));
  const Mesh none = ansys::read(path);
  EXPECT_EQ(none.points.shape(), (Shape{0, 3}));
  EXPECT_TRUE(none.cells.empty());
}

INSTANTIATE_TEST_SUITE_P(AsciiAndBinary, AnsysRoundTrip, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "binary" : "ascii"; });

TEST(AnsysWrite, UnsupportedCellTypeAndOneDimensionalPointsAreWriteErrors) {
  Mesh mesh = volume_mesh();
  mesh.cells.push_back({"vertex", array_of<std::int64_t>({1, 1}, {0}), {}, {}});
  EXPECT_THROW(write(scratch("vertex.msh").string(), mesh, "ansys"), WriteError);
  Mesh line;
  line.points = array_of<double>({2, 1}, {0, 1});
  EXPECT_THROW(write(scratch("line.msh").string(), line, "ansys"), WriteError);
}

// ---- .msh content sniffing (registry) ----------------------------------------------------

TEST(AnsysSniff, MshWithoutFormatNameIsReadByContent) {
  const std::string ansys_path = scratch("by_content.msh").string();
  write(ansys_path, volume_mesh(), "ansys", binary_option(true));
  EXPECT_EQ(read(ansys_path).cells.size(), volume_mesh().cells.size());

  Mesh tetra = volume_mesh();
  tetra.cells.resize(1);
  const std::string gmsh_path = scratch("gmsh_default.msh").string();
  write(gmsh_path, tetra);  // .msh without a format name stays Gmsh
  EXPECT_EQ(read_file(gmsh_path).substr(0, 11), "$MeshFormat");
  EXPECT_EQ(read(gmsh_path).num_points(), 8);

  EXPECT_TRUE(ansys::looks_like("  \n(1 \"x\")"));
  EXPECT_TRUE(ansys::looks_like("(0 \"comment\")"));
  EXPECT_FALSE(ansys::looks_like("$MeshFormat\n4.1 0 8\n"));
  EXPECT_FALSE(ansys::looks_like("(x"));
}

TEST(AnsysSniff, MshOfNoClaimantIsAClearReadError) {
  // Three counts on the first line are FreeFEM's (tests/formats/freefem); this is nobody's.
  const std::string path = write_scratch("neither.msh", "4 2\n0 0 1\n");
  const ReadError error = expect_read_error([&] { read(path); });
  EXPECT_NE(error.reason().find("gmsh, ansys, freefem"), std::string::npos) << error.what();
}

// ---- malformed input: one per failure kind -----------------------------------------------

namespace {
const std::string kSmallAscii =
    "(2 2)\n(10 (1 1 3 1 2)(\n0 0\n1 0\n0 1\n))\n(13 (2 1 1 3 3)(\n1 2 3 1 0\n))\n";

ReadError error_for(const std::string& name, const std::string& text) {
  return expect_read_error([&] { ansys::read(write_scratch(name, text)); });
}
}  // namespace

TEST(AnsysErrors, ValidBaseCaseReads) { EXPECT_EQ(ansys::read(write_scratch("base.msh", kSmallAscii)).cells.size(), 1u); }

TEST(AnsysErrors, NodeIdOutsideTheNodesNamesItsLine) {
  std::string text = kSmallAscii;
  text.replace(text.find("1 2 3 1 0"), 9, "1 2 4 1 0");
  const ReadError error = error_for("node_id.msh", text);
  EXPECT_EQ(error.line(), 8u);
  EXPECT_EQ(error.format(), "ansys");
  EXPECT_NE(error.reason().find("node id 4"), std::string::npos) << error.what();
}

TEST(AnsysErrors, UnclosedSectionAndStrayText) {
  EXPECT_NE(error_for("unclosed.msh", "(0 \"never closed\"\n(2 3").reason().find("unclosed"), std::string::npos);
  EXPECT_EQ(error_for("stray.msh", "(2 3)\nnot a section\n").line(), 2u);
}

TEST(AnsysErrors, BadHexadecimalAndUnknownFaceType) {
  std::string text = kSmallAscii;
  text.replace(text.find("1 2 3 1 0"), 9, "1 2 g 1 0");
  EXPECT_EQ(error_for("hex.msh", text).line(), 8u);
  std::string face_type = kSmallAscii;
  face_type.replace(face_type.find("(2 1 1 3 3)"), 11, "(2 1 1 3 9)");
  EXPECT_NE(error_for("face_type.msh", face_type).reason().find("face type 9"), std::string::npos);
}

TEST(AnsysErrors, TooFewAndTooManyValues) {
  std::string few = kSmallAscii;
  few.replace(few.find("0 1\n))"), 6, "0\n))");
  EXPECT_NE(error_for("few.msh", few).reason().find("ends after"), std::string::npos);
  std::string many = kSmallAscii;
  many.replace(many.find("1 2 3 1 0"), 9, "1 2 3 1 0 7");
  EXPECT_NE(error_for("many.msh", many).reason().find("more values"), std::string::npos);
}

TEST(AnsysErrors, CountsLargerThanTheFileFailBeforeAllocating) {
  std::string text = kSmallAscii;
  text.replace(text.find("(1 1 3 1 2)"), 11, "(1 1 fffffffffff 1 2)");
  const ReadError error = error_for("huge.msh", text);
  EXPECT_EQ(error.line(), 2u);
  std::string faces = kSmallAscii;
  faces.replace(faces.find("(2 1 1 3 3)"), 11, "(2 1 7fffffffffff 3 3)");
  EXPECT_EQ(error_for("huge_faces.msh", faces).line(), 7u);
}

// Fuzz finding (tests/data/fuzz-regressions/ansys/): ids are any int64 in the file, and the
// reader subtracted before comparing (INT64_MIN - first overflowed) and computed a section's
// count as last - first + 1 before checking the range (overflow at INT64_MAX).
TEST(AnsysErrors, IdsAtTheInt64LimitsAreReadErrorsWithoutOverflow) {
  std::string node = kSmallAscii;
  node.replace(node.find("1 2 3 1 0"), 9, "1 2 -8000000000000000 1 0");
  const ReadError low = error_for("int64_min_node.msh", node);
  EXPECT_EQ(low.line(), 8u);
  EXPECT_NE(low.reason().find("node id"), std::string::npos) << low.what();
  std::string high = kSmallAscii;
  high.replace(high.find("1 2 3 1 0"), 9, "1 2 7fffffffffffffff 1 0");
  EXPECT_NE(error_for("int64_max_node.msh", high).reason().find("node id"), std::string::npos);
  for (const char* header : {"(1 0 7fffffffffffffff 1 2)", "(1 -8000000000000000 7fffffffffffffff 1 2)",
                             "(1 5 3 1 2)"}) {
    SCOPED_TRACE(header);
    std::string range = kSmallAscii;
    range.replace(range.find("(1 1 3 1 2)"), 11, header);
    const ReadError error = error_for("range.msh", range);
    EXPECT_EQ(error.line(), 2u);
    EXPECT_NE(error.reason().find("invalid index range"), std::string::npos) << error.what();
  }
}

TEST(AnsysErrors, NodeZonesWithAGap) {
  const std::string text = "(10 (1 1 2 1 2)(\n0 0\n1 0\n))\n(10 (2 4 4 1 2)(\n0 1\n))\n";
  EXPECT_NE(error_for("gap.msh", text).reason().find("without gaps"), std::string::npos);
}

TEST(AnsysErrors, TruncatedBinaryBodyNamesItsOffset) {
  std::string bytes = fluent_binary_file();
  bytes.resize(bytes.find("End of Binary Section 2013") - 9);
  const ReadError error = expect_read_error([&] { ansys::read(write_scratch("truncated.msh", bytes)); });
  ASSERT_TRUE(error.byte_offset().has_value());
  EXPECT_EQ(*error.byte_offset(), bytes.find("(2013 (3 1 3 2 0)(") + 17);
}

TEST(AnsysErrors, BinaryTrailerNamingAnotherSection) {
  std::string bytes = fluent_binary_file();
  bytes.replace(bytes.find("End of Binary Section 2018"), 26, "End of Binary Section 2019");
  EXPECT_NE(error_for("trailer.msh", bytes).reason().find("trailer"), std::string::npos);
}

// ---- Fluent's face-based layout (layout=fluent) ------------------------------------------

class AnsysFluentLayout : public ::testing::TestWithParam<bool> {};

TEST_P(AnsysFluentLayout, RealHexMeshRoundTripsCellsZonesAndSides) {
  SKIP_WITHOUT_DATA("prime_hex.msh");
  const Mesh mesh = ansys::read(data_file("prime_hex.msh"));
  WriteOptions options;
  options.set("binary", GetParam() ? "true" : "false");
  options.set("layout", "fluent");
  const std::string path = scratch(GetParam() ? "fluent_binary.msh.gz" : "fluent_ascii.msh").string();
  write(path, mesh, "ansys", options);
  if (GetParam()) EXPECT_EQ(read_file(path).substr(0, 2), "\x1f\x8b");  // .gz by name
  const Mesh back = read(path);
  EXPECT_TRUE(same_array(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), 1u) << block_summary(back);
  EXPECT_EQ(back.cells[0].type, "hexahedron");
  EXPECT_EQ(back.cells[0].num_cells(), 216);
  for (const char* name : {"SOLID", "interior-SOLID", "WALL_SOLID"}) {
    const Region* before = find_region(mesh, name);
    const Region* after = find_region(back, name);
    ASSERT_NE(before, nullptr) << name;
    ASSERT_NE(after, nullptr) << name;
    EXPECT_EQ(after->kind, before->kind) << name;
    EXPECT_EQ(after->tag, before->tag) << name;  // the file's zone ids are kept
    EXPECT_EQ(after->entries.rows(), before->entries.rows()) << name;
  }
}

TEST_P(AnsysFluentLayout, MixedCellTypesMakeAMixedCellZone) {
  // A hexahedron with a wedge beside it and a pyramid on top: one mixed cell zone (element
  // type 0 with a body of element types).
  Mesh mesh;
  mesh.points = array_of<double>({15, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1,
                                           2, 0, 0, 2, 1, 0, 2, 0, 1, 2, 1, 1, 0.5, 0.5, 2});
  mesh.cells.push_back({"hexahedron", array_of<std::int64_t>({1, 8}, {0, 1, 2, 3, 4, 5, 6, 7}), {}, {}});
  mesh.cells.push_back({"wedge", array_of<std::int64_t>({1, 6}, {1, 8, 2, 5, 10, 6}), {}, {}});
  mesh.cells.push_back({"pyramid", array_of<std::int64_t>({1, 5}, {4, 5, 6, 7, 12}), {}, {}});
  WriteOptions options;
  options.set("binary", GetParam() ? "true" : "false");
  options.set("layout", "fluent");
  const std::string path = scratch("mixed.msh").string();
  write(path, mesh, "ansys", options);
  const Mesh back = ansys::read(path);
  std::map<std::string, std::int64_t> counts;
  for (const CellBlock& block : back.cells) counts[block.type] += block.num_cells();
  // The wedge's orientation follows the shared builder (io/cells/cells_from_faces).
  EXPECT_EQ(counts, (std::map<std::string, std::int64_t>{{"hexahedron", 1}, {"pyramid", 1}, {"wedge", 1}}));
  EXPECT_NE(read_file(path).find(GetParam() ? "(3012 (1 1 3 1 0)" : "(12 (1 1 3 1 0)"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(AsciiAndBinary, AnsysFluentLayout, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "binary" : "ascii"; });

// A text face zone past io::kParallelLinesMinBytes is parsed on every core: the cells, zones and
// sides must be those of the sequential parse and of the binary file.
TEST(AnsysFluentLayout, LargeTextFaceZonesReadTheSameOnOneAndTwoThreadsAndAsBinary) {
  const int nx = 60, ny = 60, nz = 40;
  std::vector<double> xyz;
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) xyz.insert(xyz.end(), {double(i), double(j), double(k)});
  const auto node = [&](int i, int j, int k) { return std::int64_t{(k * (ny + 1) + j) * (nx + 1) + i}; };
  std::vector<std::int64_t> hexes;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        hexes.insert(hexes.end(), {node(i, j, k), node(i + 1, j, k), node(i + 1, j + 1, k), node(i, j + 1, k),
                                   node(i, j, k + 1), node(i + 1, j, k + 1), node(i + 1, j + 1, k + 1), node(i, j + 1, k + 1)});
  Mesh mesh;
  mesh.points = array_of<double>({static_cast<std::int64_t>(xyz.size() / 3), 3}, xyz);
  mesh.cells.push_back({"hexahedron", array_of<std::int64_t>({nx * ny * nz, 8}, hexes), {}, {}});
  const std::string text = scratch("large_ascii.msh").string(), binary = scratch("large_binary.msh").string();
  WriteOptions options;
  options.set("layout", "fluent");
  options.set("binary", "false");
  write(text, mesh, "ansys", options);
  ASSERT_EQ(read_file(text).find("(2013 "), std::string::npos);  // text face sections only
  options.set("binary", "true");
  write(binary, mesh, "ansys", options);
  ASSERT_GT(fs::file_size(text), 3 * io::kParallelLinesMinBytes);
  const unsigned threads = thread_count();
  set_thread_count(1);
  const Mesh serial = ansys::read(text);
  set_thread_count(2);
  const Mesh parallel = ansys::read(text);
  const Mesh from_binary = ansys::read(binary);
  set_thread_count(threads);
  ASSERT_EQ(serial.cells.size(), 1u);
  EXPECT_EQ(serial.cells[0].type, "hexahedron");
  EXPECT_EQ(serial.cells[0].num_cells(), nx * ny * nz);
  for (const Mesh* other : {&parallel, &from_binary}) {
    ASSERT_EQ(other->cells.size(), 1u);
    EXPECT_TRUE(same_array(serial.cells[0].connectivity, other->cells[0].connectivity));
    ASSERT_EQ(other->regions.size(), serial.regions.size());
    for (std::size_t r = 0; r < serial.regions.size(); ++r) {
      EXPECT_EQ(other->regions[r].name, serial.regions[r].name);
      EXPECT_TRUE(same_array(other->regions[r].entries, serial.regions[r].entries)) << serial.regions[r].name;
    }
  }
  EXPECT_TRUE(same_array(serial.points, parallel.points));
  // A node id past the nodes deep in the large zone: the sequential loop words the error, with
  // the same line and offset on one thread and on two.
  std::string bytes = read_file(text);
  const std::size_t line = bytes.find('\n', bytes.size() * 3 / 4) + 1;
  bytes.replace(line, bytes.find(' ', line) - line, "fffffff");
  const std::string broken = scratch("large_broken.msh").string();
  { std::ofstream(broken, std::ios::binary) << bytes; }
  std::string messages[2];
  for (unsigned threads : {1u, 2u}) {
    set_thread_count(threads);
    try {
      ansys::read(broken);
      ADD_FAILURE() << "a node id past the nodes was accepted on " << threads << " threads";
    } catch (const ReadError& error) {
      messages[threads - 1] = error.what();
    }
  }
  set_thread_count(threads);
  EXPECT_NE(messages[0].find("node id fffffff"), std::string::npos) << messages[0];
  EXPECT_EQ(messages[0], messages[1]);
}

TEST(AnsysFluentLayout, SurfaceMeshFallsBackToMeshioLayout) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0});
  mesh.cells.push_back({"triangle", array_of<std::int64_t>({1, 3}, {0, 1, 2}), {}, {}});
  const std::string path = scratch("surface.msh").string();
  WriteOptions fluent;
  fluent.set("layout", "fluent");
  write(path, mesh, "ansys", fluent);
  const Mesh back = ansys::read(path);
  ASSERT_EQ(back.cells.size(), 1u);
  EXPECT_EQ(nodes_of(back.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
  WriteOptions bad;
  bad.set("layout", "tgrid");
  EXPECT_THROW(write(path, mesh, "ansys", bad), WriteError);
}

// ---- malformed volume meshes -------------------------------------------------------------

namespace {
// One triangle cell (2-D) defined by its three edges; c0 = 1 on the left of each edge.
const std::string kTriangleCell =
    "(2 2)\n(10 (1 1 3 1 2)(\n0 0\n1 0\n0 1\n))\n(12 (5 1 1 1 1))\n(13 (6 1 3 3 2)(\n1 2 1 0\n2 3 1 0\n3 1 1 0\n))\n"
    "(45 (5 fluid inside)())\n(45 (6 wall rim)())\n";
}  // namespace

TEST(AnsysErrors, VolumeBaseCaseReads) {
  const Mesh mesh = ansys::read(write_scratch("tri.msh", kTriangleCell));
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(find_region(mesh, "rim")->entries.shape(), (Shape{3, 2}));
  EXPECT_EQ(find_region(mesh, "inside")->kind, RegionKind::Cell);
}

TEST(AnsysErrors, FaceNamingAMissingCellOrNodeNamesItsLineAndOffset) {
  std::string cell = kTriangleCell;
  cell.replace(cell.find("2 3 1 0"), 7, "2 3 2 0");
  const ReadError missing_cell = error_for("missing_cell.msh", cell);
  EXPECT_EQ(missing_cell.line(), 10u);
  ASSERT_TRUE(missing_cell.byte_offset().has_value());
  EXPECT_EQ(*missing_cell.byte_offset(), cell.find("2 3 2 0") + 4);
  EXPECT_NE(missing_cell.reason().find("not among the cells"), std::string::npos) << missing_cell.what();
  std::string node = kTriangleCell;
  node.replace(node.find("3 1 1 0"), 7, "4 1 1 0");
  const ReadError missing_node = error_for("missing_node.msh", node);
  EXPECT_EQ(missing_node.line(), 11u);
  EXPECT_NE(missing_node.reason().find("node id 4"), std::string::npos) << missing_node.what();
}

TEST(AnsysErrors, CountsPastTheEndAndOpenCellsAreReadErrors) {
  std::string faces = kTriangleCell;
  faces.replace(faces.find("(6 1 3 3 2)"), 11, "(6 1 7fffffff 3 2)");
  EXPECT_EQ(error_for("faces_past_end.msh", faces).line(), 8u);
  std::string cells = kTriangleCell;
  cells.replace(cells.find("(5 1 1 1 1)"), 11, "(5 1 ffffffffff 1 1)");
  EXPECT_NE(error_for("cells_past_end.msh", cells).reason().find("more cells than the file"), std::string::npos);
  std::string open = kTriangleCell;
  open.replace(open.find("3 1 1 0"), 7, "3 1 0 0");  // the triangle loses an edge
  EXPECT_NE(error_for("open_cell.msh", open).reason().find("do not make volume cells"), std::string::npos);
}
