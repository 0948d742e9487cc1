// DOLFIN XML reader and writer: files as DOLFIN and meshio write them, sibling mesh-function
// files, round trips of every cell type with data, and malformed input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/dolfin/dolfin.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// As DOLFIN 2019 writes a mesh (vertices and cells out of order here, which is allowed).
const char* const kDolfinMesh =
    "<?xml version=\"1.0\"?>\n"
    "<dolfin xmlns:dolfin=\"http://fenicsproject.org\">\n"
    "  <mesh celltype=\"triangle\" dim=\"2\">\n"
    "    <vertices size=\"4\">\n"
    "      <vertex index=\"0\" x=\"0.0\" y=\"0.0\" />\n"
    "      <vertex index=\"2\" x=\"1.0\" y=\"1.0\" />\n"
    "      <vertex index=\"1\" x=\"1.0\" y=\"0.0\" />\n"
    "      <vertex index=\"3\" x=\"0.0\" y=\"1.0e+00\" />\n"
    "    </vertices>\n"
    "    <cells size=\"2\">\n"
    "      <triangle index=\"1\" v0=\"0\" v1=\"2\" v2=\"3\" />\n"
    "      <triangle index=\"0\" v0=\"0\" v1=\"1\" v2=\"2\" />\n"
    "    </cells>\n"
    "    <domains>\n"
    "      <mesh_value_collection name=\"m\" type=\"uint\" dim=\"2\" size=\"0\" />\n"
    "    </domains>\n"
    "  </mesh>\n"
    "</dolfin>\n";

// As meshio 5.3.5 writes a cell function (numpy 2 turns the values into "np.int64(…)").
const char* const kMeshioFunction =
    "<dolfin nsmap=\"{'dolfin': 'https://fenicsproject.org/'}\"><mesh_function type=\"int\" dim=\"2\" size=\"2\">"
    "<entity index=\"0\" value=\"np.int64(7)\" /><entity index=\"1\" value=\"8\" /></mesh_function></dolfin>";

const char* const kFacetFunction =
    "<?xml version=\"1.0\"?>\n<dolfin>\n  <mesh_function type=\"size_t\" dim=\"1\" size=\"5\">\n"
    "    <entity index=\"0\" value=\"1\" />\n    <entity index=\"4\" value=\"2\" />\n  </mesh_function>\n</dolfin>\n";

}  // namespace

TEST(DolfinRead, DolfinFileWithSiblingFunctions) {
  const ScratchDir dir;
  const std::string path = dir.write("square.xml", kDolfinMesh);
  dir.write("square_subdomains.xml", kMeshioFunction);
  dir.write("square_facets.xml", kFacetFunction);
  dir.write("square_not.data.xml", kFacetFunction);  // a '.' in the name: not a function of this mesh
  const Mesh mesh = dolfin::read(path);
  EXPECT_EQ(mesh.points.shape(), (Shape{4, 2}));
  EXPECT_EQ(mesh.points.data_as<double>()[4], 1.0);
  EXPECT_EQ(block_summary(mesh), "triangle:2");
  const auto corners = mesh.cells[0].connectivity.values<std::int64_t>();
  EXPECT_EQ((std::vector<std::int64_t>(corners.begin(), corners.end())), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  const auto* subdomains = mesh.cell_data.find("subdomains");
  ASSERT_NE(subdomains, nullptr);
  EXPECT_EQ((*subdomains)[0].dtype(), DType::int64);
  EXPECT_EQ((*subdomains)[0].data_as<std::int64_t>()[0], 7);
  const NDArray* facets = mesh.field_data.find("facets");  // one value per edge: not cell data
  ASSERT_NE(facets, nullptr);
  EXPECT_EQ(facets->dtype(), DType::uint64);
  EXPECT_EQ(facets->data_as<std::uint64_t>()[4], 2u);
  EXPECT_EQ(mesh.field_data.size(), 1u);
}

TEST(DolfinRoundTrip, EveryCellTypeWithPointAndCellData) {
  for (const auto& [type, k] : std::vector<std::pair<std::string, int>>{
           {"line", 2}, {"triangle", 3}, {"quad", 4}, {"tetra", 4}, {"hexahedron", 8}}) {
    const ScratchDir dir;
    Mesh mesh;
    std::vector<double> xyz;
    for (int i = 0; i < 8; ++i)
      for (double v : {0.1 * i, 1.0 / (i + 3), -1e-300 * i}) xyz.push_back(v);
    mesh.points = array_of<double>({8, 3}, xyz);
    std::vector<std::int64_t> nodes;
    for (int c = 0; c < 2; ++c)
      for (int n = 0; n < k; ++n) nodes.push_back((n + c) % 8);
    mesh.cells.push_back({type, int64_matrix(1, k, std::vector<std::int64_t>(nodes.begin(), nodes.begin() + k)), {}, {}});
    mesh.cells.push_back({type, int64_matrix(1, k, std::vector<std::int64_t>(nodes.begin() + k, nodes.end())), {}, {}});
    mesh.point_data.set("T", array_of<double>({8}, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0 / 3}));
    mesh.cell_data.set("m", {int64_vector({3}), int64_vector({-4})});
    mesh.cell_data.set("u", {array_of<std::uint32_t>({1}, {5}), array_of<std::uint32_t>({1}, {6})});
    const std::string path = dir.file("mesh.xml");
    dolfin::write(path, mesh, {});
    EXPECT_TRUE(std::filesystem::exists(dir.file("mesh_m.xml")));
    const Mesh back = dolfin::read(path);
    EXPECT_TRUE(same_bits(back.points, mesh.points)) << type;
    ASSERT_EQ(back.cells.size(), 1u);
    EXPECT_EQ(back.cells[0].type, type);
    EXPECT_TRUE(same_bits(back.cells[0].connectivity, int64_matrix(2, k, nodes))) << type;
    EXPECT_TRUE(same_bits(*back.point_data.find("T"), *mesh.point_data.find("T")));
    EXPECT_TRUE(same_bits((*back.cell_data.find("m"))[0], int64_vector({3, -4})));
    EXPECT_EQ((*back.cell_data.find("u"))[0].dtype(), DType::uint64);
  }
}

TEST(DolfinWrite, MixedTypesVectorsAndBadNamesAreRefused) {
  const ScratchDir dir;
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.point_data.set("v", array_of<double>({4, 2}, std::vector<double>(8, 1.0)));
  EXPECT_THROW(dolfin::write(dir.file("a.xml"), mesh, {}), std::invalid_argument);
  mesh.point_data = {};
  mesh.cell_data.set("a.b", {int64_vector({1})});
  EXPECT_THROW(dolfin::write(dir.file("a.xml"), mesh, {}), std::invalid_argument);
  mesh.cell_data = {};
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  EXPECT_THROW(dolfin::write(dir.file("a.xml"), mesh, {}), std::invalid_argument);
}

TEST(DolfinBadInput, TruncatedAndMissingEntries) {
  const ScratchDir dir;
  std::string text = kDolfinMesh;
  const ReadError truncated = expect_read_error([&] { dolfin::read(dir.write("t.xml", text.substr(0, 200))); });
  EXPECT_NE(std::string(truncated.what()).find("<vertex>"), std::string::npos) << truncated.what();
  EXPECT_EQ(truncated.byte_offset(), 200u - 19);  // where the cut-off tag's attributes stop
  EXPECT_EQ(truncated.line(), 6u);
  std::string missing = text;
  const std::size_t line = missing.find("      <vertex index=\"2\"");
  missing.erase(line, missing.find('\n', line) + 1 - line);
  const ReadError count = expect_read_error([&] { dolfin::read(dir.write("m.xml", missing)); });
  EXPECT_NE(std::string(count.what()).find("announces 4 vertices, the file has 3"), std::string::npos) << count.what();
  EXPECT_EQ(count.line(), 4u);
}

TEST(DolfinBadInput, BadNumberAndIndexOutOfRange) {
  const ScratchDir dir;
  std::string text = kDolfinMesh;
  std::string bad = text;
  bad.replace(bad.find("y=\"1.0e+00\""), 11, "y=\"1.0e+x0\"");
  const ReadError number = expect_read_error([&] { dolfin::read(dir.write("n.xml", bad)); });
  EXPECT_NE(std::string(number.what()).find("invalid number"), std::string::npos) << number.what();
  EXPECT_EQ(number.line(), 8u);
  EXPECT_EQ(number.byte_offset(), text.find("1.0e+00"));
  std::string range = text;
  range.replace(range.find("v2=\"3\""), 6, "v2=\"9\"");
  const ReadError index = expect_read_error([&] { dolfin::read(dir.write("r.xml", range)); });
  EXPECT_NE(std::string(index.what()).find("v2 9 is outside [0, 4)"), std::string::npos) << index.what();
  EXPECT_EQ(index.line(), 11u);
}

TEST(DolfinBadInput, UnknownCellTypeAndBadFunctionFile) {
  const ScratchDir dir;
  std::string text = kDolfinMesh;
  text.replace(text.find("celltype=\"triangle\""), 19, "celltype=\"prism\"");
  const ReadError type = expect_read_error([&] { dolfin::read(dir.write("c.xml", text)); });
  EXPECT_NE(std::string(type.what()).find("unsupported celltype 'prism'"), std::string::npos) << type.what();
  const std::string path = dir.write("ok.xml", kDolfinMesh);
  dir.write("ok_bad.xml", "<dolfin><mesh_function type=\"int\" dim=\"2\" size=\"2\"><entity index=\"5\" value=\"1\"/>"
                          "</mesh_function></dolfin>");
  const ReadError function = expect_read_error([&] { dolfin::read(path); });
  EXPECT_NE(std::string(function.what()).find("index 5 is outside [0, 2)"), std::string::npos) << function.what();
  EXPECT_EQ(function.path(), dir.file("ok_bad.xml"));
}

// ---- hostile input (issue 18; tests/data/fuzz-regressions/dolfin/) ----

// Each <cells> started a new block but only the last one's count was checked: a stray
// earlier <cells size="2"> returned two rows of uninitialised heap memory.
TEST(DolfinHostile, SecondCellsBlockIsAReadError) {
  const std::string path = write_scratch("stray.xml", R"(<?xml version="1.0"?>
<dolfin>
  <mesh celltype="triangle" dim="2">
    <vertices size="3">
      <vertex index="0" x="0" y="0"/>
      <vertex index="1" x="1" y="0"/>
      <vertex index="2" x="0" y="1"/>
    </vertices>
    <cells size="2">
    </cells>
    <cells size="1">
      <triangle index="0" v0="0" v1="1" v2="2"/>
    </cells>
  </mesh>
</dolfin>
)");
  const ReadError error = expect_read_error([&] { dolfin::read(path); });
  EXPECT_EQ(error.line(), std::optional<std::uint64_t>(11));
  EXPECT_NE(error.reason().find("second <cells>"), std::string::npos) << error.what();
}

// A block announcing more cells than it lists is refused (no unfilled rows).
TEST(DolfinHostile, CellsBlockWithFewerCellsThanItsSizeIsAReadError) {
  const std::string path = write_scratch("short.xml", R"(<dolfin><mesh celltype="triangle" dim="2">
<vertices size="3"><vertex index="0" x="0" y="0"/><vertex index="1" x="1" y="0"/><vertex index="2" x="0" y="1"/></vertices>
<cells size="2"><triangle index="1" v0="0" v1="1" v2="2"/></cells></mesh></dolfin>)");
  const ReadError error = expect_read_error([&] { dolfin::read(path); });
  EXPECT_NE(error.reason().find("announces 2 cells"), std::string::npos) << error.what();
}

// A second <mesh> would change the point dimension while points are being filled.
TEST(DolfinHostile, SecondMeshOrVerticesIsAReadError) {
  const std::string mesh_twice = write_scratch("mesh2.xml", R"(<dolfin><mesh celltype="triangle" dim="2">
<vertices size="1"><vertex index="0" x="0" y="0"/></vertices></mesh><mesh celltype="tetrahedron" dim="3">
<vertex index="0" x="0" y="0" z="0"/></mesh></dolfin>)");
  EXPECT_NE(expect_read_error([&] { dolfin::read(mesh_twice); }).reason().find("second <mesh>"), std::string::npos);
  const std::string vertices_twice = write_scratch("vertices2.xml", R"(<dolfin><mesh celltype="triangle" dim="2">
<vertices size="1"><vertex index="0" x="0" y="0"/></vertices><vertices size="1"></vertices></mesh></dolfin>)");
  EXPECT_NE(expect_read_error([&] { dolfin::read(vertices_twice); }).reason().find("second <vertices>"),
            std::string::npos);
}
