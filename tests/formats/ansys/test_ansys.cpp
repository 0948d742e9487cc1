// ANSYS Fluent mesh reader and writer: real files (TGrid 2-D, Fluent 6 interface 3-D, and
// foamMeshToFluent with mixed face zones, from foam-extend's tutorials in tests/data/ansys),
// Fluent-style binary sections built by hand, round trips in both encodings, the .msh content
// sniffing of the registry, and one malformed input per failure kind.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/ansys/ansys.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
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

WriteOptions binary_option(bool binary) {
  WriteOptions options;
  options.set("binary", binary ? "true" : "false");
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
  for (std::int32_t value : {2, 1, 2, 1, 0, /**/ 3, 1, 2, 3, 1, 0, /**/ 5, 5, 1, 2, 3, 4, 5, 1, 0}) append(bytes, value);
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
  std::int64_t faces = 0;
  for (const CellBlock& block : mesh.cells) {
    EXPECT_EQ(block.type, "line");
    faces += block.num_cells();
  }
  EXPECT_EQ(faces, 0x5ae);
  ASSERT_EQ(mesh.cells.size(), 6u);  // face zones 3..8; the cell zone lists no nodes
  EXPECT_EQ(nodes_of(mesh.cells[0]).at(0), 0x25 - 1);
  EXPECT_EQ(nodes_of(mesh.cells[0]).at(1), 0x35 - 1);
  const Region* wall = find_region(mesh, "wall-4");
  ASSERT_NE(wall, nullptr);
  EXPECT_EQ(wall->tag, 4);
  EXPECT_EQ(wall->dim, 1);
  EXPECT_EQ(wall->entries.rows(), mesh.cells[1].num_cells());
  EXPECT_EQ(find_region(mesh, "fluid-9"), nullptr);  // a cell zone without nodes has no cells here
  const auto* zones = mesh.cell_data.find("ansys:zone");
  ASSERT_NE(zones, nullptr);
  EXPECT_EQ((*zones)[5].data_as<std::int64_t>()[0], 8);
}

TEST(AnsysRealFiles, FluentSixInterfaceHexMeshFacesAsMeshioReadsThem) {
  SKIP_WITHOUT_DATA("rotate_sphere.msh");
  const Mesh mesh = ansys::read(data_file("rotate_sphere.msh"));
  // meshio 5.3.5: points (1887, 3), blocks quad 4800 + quad 384, sum 0.20954924405688047,
  // first faces [[0, 4, 5, 1], [2, 3, 7, 6]].
  EXPECT_EQ(mesh.points.shape(), (Shape{1887, 3}));
  EXPECT_NEAR(point_sum(mesh), 0.20954924405688047, 1e-12);
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(mesh.cells[0].type, "quad");
  EXPECT_EQ(mesh.cells[0].num_cells(), 4800);
  EXPECT_EQ(mesh.cells[1].num_cells(), 384);
  const std::vector<std::int64_t> first = nodes_of(mesh.cells[0]);
  EXPECT_EQ(std::vector<std::int64_t>(first.begin(), first.begin() + 8), (std::vector<std::int64_t>{0, 4, 5, 1, 2, 3, 7, 6}));
  const Region* surface = find_region(mesh, "surface");
  ASSERT_NE(surface, nullptr);
  EXPECT_EQ(surface->dim, 2);
  EXPECT_EQ(surface->entries.rows(), 384);
  EXPECT_EQ(surface->entries.data_as<std::int64_t>()[0], 4800);
}

TEST(AnsysRealFiles, FoamToFluentMixedFaceZonesAndMixedCellBody) {
  SKIP_WITHOUT_DATA("hron_turek_solid.msh");
  const Mesh mesh = ansys::read(data_file("hron_turek_solid.msh"));
  // meshio 5.3.5: (830, 3), quad 570 / 4 / 168 / 656, sum 499.06972149100005,
  // first faces [[169, 172, 587, 584], [168, 583, 587, 172]].
  EXPECT_EQ(mesh.points.shape(), (Shape{830, 3}));
  EXPECT_NEAR(point_sum(mesh), 499.06972149100005, 1e-9);
  ASSERT_EQ(mesh.cells.size(), 4u) << block_summary(mesh);
  const std::vector<std::int64_t> counts{570, 4, 168, 656};
  for (std::size_t b = 0; b < 4; ++b) EXPECT_EQ(mesh.cells[b].num_cells(), counts[b]);
  const std::vector<std::int64_t> first = nodes_of(mesh.cells[0]);
  EXPECT_EQ(std::vector<std::int64_t>(first.begin(), first.begin() + 8),
            (std::vector<std::int64_t>{169, 172, 587, 584, 168, 583, 587, 172}));
  ASSERT_NE(find_region(mesh, "plateFix"), nullptr);  // zone "10" names the face zone 'a'
  EXPECT_EQ(find_region(mesh, "plateFix")->tag, 10);
}

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
      "(13 (2 1 2 3 5)(\n4 1 2 3 4 1 0\n3 1 2 3 1 0\n))\n(12 (3 1 1 1 7))\n";
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
  write(ansys_path, volume_mesh(), "ansys");
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
