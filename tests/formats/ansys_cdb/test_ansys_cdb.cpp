// ANSYS MAPDL archives (.cdb): real files from pymapdl-reader's test data, the Fortran format
// lines, degenerate shapes and missing mid-side nodes, components with ranges, every cell type
// round-tripped bit for bit, malformed input with its line and offset.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/ansys_cdb/ansys_cdb.hpp"
#include "formats/ansys_cdb/ansys_cdb_elements.hpp"
#include "formats/ansys_cdb/ansys_cdb_internal.hpp"
#include "io/text/fortran_fields.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) {
  return (meshioplusplus::testing::test_data_dir() / "ansys_cdb" / name).string();
}

std::vector<std::int64_t> entries(const Region& region) {
  const auto values = region.entries.values<std::int64_t>();
  return {values.begin(), values.end()};
}

const std::vector<NDArray>& data(const Mesh& mesh, const std::string& name) {
  const auto* arrays = mesh.cell_data.find(name);
  EXPECT_NE(arrays, nullptr) << name;
  return *arrays;
}

// Two hexahedra as MAPDL writes them, a degenerate SOLID185 wedge, a SHELL181 triangle,
// components with a range; nodes numbered with gaps.
const char* const kSmall =
    "/PREP7\n"
    "ET,1,185\n"
    "et, 2, SHELL181\n"
    "NBLOCK,6,SOLID,        20,        12\n"
    "(3i9,6e21.13e3)\n"
    "        1        0        0 0.0000000000000E+000\n"
    "        2        0        0 1.0000000000000E+000\n"
    "        3        0        0 1.0000000000000E+000 1.0000000000000E+000\n"
    "        4        0        0 0.0000000000000E+000 1.0000000000000E+000\n"
    "        5        0        0 0.0000000000000E+000 0.0000000000000E+000 1.0000000000000E+000\n"
    "        6        0        0 1.0000000000000E+000 0.0000000000000E+000 1.0000000000000E+000\n"
    "        7        0        0 1.0000000000000E+000 1.0000000000000E+000 1.0000000000000E+000\n"
    "        8        0        0 0.0000000000000E+000 1.0000000000000E+000 1.0000000000000E+000\n"
    "       10        0        0 2.0000000000000E+000\n"
    "       11        0        0 2.0000000000000E+000 0.0000000000000E+000 1.0000000000000E+000\n"
    "       12        0        0 1.5000000000000-100 1.0000000000000E+000 2.5D0\n"
    "       20        0        0-3.2500000000000E+000\n"
    "N,R5.3,LOC,       -1,\n"
    "EBLOCK,19,SOLID,        30,         3\n"
    "(19i9)\n"
    "        1        1        2        3        0        0        0        0        8        0       10        1        2        3        4        5        6        7        8\n"
    "        4        1        1        1        0        0        0        0        8        0       20        2       10       12       12        6       11        7        7\n"
    "        1        2        1        1        0        0        0        0        4        0       30        5        6        7        7\n"
    "       -1\n"
    "CMBLOCK,SOLIDS,ELEM,       2  ! users element component definition\n"
    "(8i10)\n"
    "        10       -29\n"
    "CMBLOCK,TOP  ,NODE,       3\n"
    "(8i10)\n"
    "         5        -8        20\n"
    "CMBLOCK,KEYS,KP,       1\n"
    "(8i10)\n"
    "         1\n"
    "FINISH\n";

}  // namespace

TEST(AnsysCdbFields, FortranFormatLines) {
  std::string error;
  auto fields = ansys_cdb::detail::parse_fortran_format("(3i9,6e21.13e3)", error);
  ASSERT_TRUE(fields.has_value()) << error;
  ASSERT_EQ(fields->size(), 9u);
  EXPECT_TRUE((*fields)[2].integer);
  EXPECT_EQ((*fields)[2].width, 9);
  EXPECT_FALSE((*fields)[3].integer);
  EXPECT_EQ((*fields)[3].width, 21);
  fields = ansys_cdb::detail::parse_fortran_format(" (2i8,6G16.9) ", error);
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(fields->size(), 8u);
  fields = ansys_cdb::detail::parse_fortran_format("(19i10)", error);
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(fields->size(), 19u);
  EXPECT_FALSE(ansys_cdb::detail::parse_fortran_format("(3x9)", error).has_value());
  EXPECT_NE(error.find("not an I, E, G, F or D field"), std::string::npos);
  EXPECT_FALSE(ansys_cdb::detail::parse_fortran_format("3i9", error).has_value());
  EXPECT_FALSE(ansys_cdb::detail::parse_fortran_format("(9999i9)", error).has_value());
  double value = 0;
  EXPECT_TRUE(io::fortran_real("1.0000000000000-100", value));
  EXPECT_EQ(value, 1e-100);
  EXPECT_TRUE(io::fortran_real("-2.5D+02", value));
  EXPECT_EQ(value, -250.0);
  EXPECT_TRUE(io::fortran_real("+.5", value));
  EXPECT_EQ(value, 0.5);
  EXPECT_FALSE(io::fortran_real("1.0x", value));
  EXPECT_EQ(ansys_cdb::detail::routine_number("SOLID186"), 186);
  EXPECT_EQ(ansys_cdb::detail::routine_number("solid"), -1);
}

TEST(AnsysCdbRead, SmallArchive) {
  const Mesh mesh = ansys_cdb::read(write_scratch("small.cdb", kSmall));
  ASSERT_EQ(mesh.points.shape(), (Shape{12, 3}));
  const double* xyz = mesh.points.data_as<double>();
  EXPECT_EQ(xyz[2 * 3 + 1], 1.0);       // node 3: Y given, Z left out -> 0
  EXPECT_EQ(xyz[2 * 3 + 2], 0.0);
  EXPECT_EQ(xyz[10 * 3 + 0], 1.5e-100);  // node 12: E left out of a 3-digit exponent
  EXPECT_EQ(xyz[10 * 3 + 2], 2.5);       // a D exponent
  EXPECT_EQ(xyz[11 * 3 + 0], -3.25);
  ASSERT_EQ(block_summary(mesh), block_summary(mesh));
  ASSERT_EQ(mesh.cells.size(), 3u);
  EXPECT_EQ(mesh.cells[0].type, "hexahedron");
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // I J K K M N O O -> the wedge I J K / M N O: file nodes 2 10 12 / 6 11 7.
  EXPECT_EQ(mesh.cells[1].type, "wedge");
  EXPECT_EQ(nodes_of(mesh.cells[1]), (std::vector<std::int64_t>{1, 8, 10, 5, 9, 6}));
  EXPECT_EQ(mesh.cells[2].type, "triangle");
  EXPECT_EQ(nodes_of(mesh.cells[2]), (std::vector<std::int64_t>{4, 5, 6}));
  EXPECT_EQ(int_values(data(mesh, "ansys:element")[1]), (std::vector<std::int64_t>{20}));
  EXPECT_EQ(int_values(data(mesh, "ansys:mat")[1]), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(int_values(data(mesh, "ansys:real")[0]), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(int_values(data(mesh, "ansys:secnum")[0]), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(int_values(data(mesh, "ansys:routine")[2]), (std::vector<std::int64_t>{181}));
  EXPECT_EQ(int_values(data(mesh, "ansys:type")[2]), (std::vector<std::int64_t>{2}));
  // Ranges: elements 10..29 are 10 and 20 (block-major cells 0 and 1); nodes 5..8 and 20.
  ASSERT_NE(find_region(mesh, "SOLIDS", RegionKind::Cell), nullptr);
  EXPECT_EQ(entries(*find_region(mesh, "SOLIDS", RegionKind::Cell)), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(entries(*find_region(mesh, "TOP", RegionKind::Point)), (std::vector<std::int64_t>{4, 5, 6, 7, 11}));
  EXPECT_EQ(find_region(mesh, "KEYS"), nullptr);  // keypoint components are not mesh entities
}

TEST(AnsysCdbRead, NonSolidEblockLayout) {
  // Contact/target elements: number, type, real, mat, section, then the nodes (no node count).
  std::string text = kSmall;
  text.replace(text.find("CMBLOCK,SOLIDS"), 0,
               "ET,3,174\n"
               "EBLOCK,10,,       41,         2\n"
               "(15i9)\n"
               "       40        3        7        5        2        5        6        7        8\n"
               "       41        3        7        5        2        1        2        3        3\n"
               "       -1\n");
  const Mesh mesh = ansys_cdb::read(write_scratch("contact.cdb", text));
  ASSERT_EQ(mesh.cells.size(), 4u);
  EXPECT_EQ(mesh.cells[2].type, "triangle");  // SHELL181's, then element 41 (K = L)
  EXPECT_EQ(mesh.cells[2].num_cells(), 2);
  EXPECT_EQ(mesh.cells[3].type, "quad");
  EXPECT_EQ(nodes_of(mesh.cells[3]), (std::vector<std::int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(int_values(data(mesh, "ansys:element")[3]), (std::vector<std::int64_t>{40}));
  EXPECT_EQ(int_values(data(mesh, "ansys:real")[3]), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(int_values(data(mesh, "ansys:mat")[3]), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(int_values(data(mesh, "ansys:secnum")[3]), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(int_values(data(mesh, "ansys:routine")[3]), (std::vector<std::int64_t>{174}));
}

TEST(AnsysCdbRead, RealFilesCountsAndShapes) {
  Mesh mesh = ansys_cdb::read(data_file("HexBeam.cdb"));
  EXPECT_EQ(mesh.points.rows(), 321);
  EXPECT_EQ(block_summary(mesh), block_summary(mesh));
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "hexahedron20");
  EXPECT_EQ(mesh.cells[0].num_cells(), 40);
  EXPECT_EQ(entries(*find_region(mesh, "ECOMP2", RegionKind::Cell)).size(), 22u);
  EXPECT_EQ(entries(*find_region(mesh, "NCOMP2", RegionKind::Point)).size(), 98u);

  mesh = ansys_cdb::read(data_file("all_solid_cells.cdb"));
  ASSERT_EQ(mesh.cells.size(), 4u);
  EXPECT_EQ(mesh.cells[0].type, "hexahedron20");
  EXPECT_EQ(mesh.cells[1].type, "wedge15");
  EXPECT_EQ(mesh.cells[2].type, "pyramid13");
  EXPECT_EQ(mesh.cells[3].type, "tetra10");

  mesh = ansys_cdb::read(data_file("sector.cdb"));  // SOLID185 bricks and wedges
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(mesh.cells[0].num_cells() + mesh.cells[1].num_cells(), 105);
  EXPECT_EQ(mesh.cells[1].type, "wedge");

  mesh = ansys_cdb::read(data_file("ErnoRadiation.cdb"));  // SURF152 5-node quads
  ASSERT_EQ(mesh.cells.size(), 2u);
  EXPECT_EQ(mesh.cells[1].type, "quad");
  EXPECT_EQ(mesh.cells[1].num_cells(), 9);
  EXPECT_EQ(entries(*find_region(mesh, "_ELMISC", RegionKind::Cell)).size(), 9u);

  mesh = ansys_cdb::read(data_file("mesh200.cdb"));  // MESH200, KEYOPT(1) = 11
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "hexahedron20");
  EXPECT_EQ(mesh.cells[0].num_cells(), 1000);

  mesh = ansys_cdb::read(data_file("hypermesh.cdb"));
  EXPECT_EQ(mesh.points.rows(), 105);
  EXPECT_EQ(mesh.cells[0].type, "quad");
  EXPECT_EQ(mesh.points.data_as<double>()[0], -6.01203);

  mesh = ansys_cdb::read(data_file("mixed_missing_midside.cdb"));
  EXPECT_EQ(mesh.points.rows(), 584 + 23);  // 23 mid-side nodes placed at edge midpoints

  mesh = ansys_cdb::read(data_file("workbench_193.cdb"));
  EXPECT_EQ(mesh.points.rows(), 3);
  EXPECT_TRUE(mesh.cells.empty());
}

TEST(AnsysCdbRead, DegenerateShapesAndMissingMidsides) {
  using ansys_cdb::detail::Family;
  using ansys_cdb::detail::resolve;
  const std::vector<std::int64_t> hex{1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(resolve(Family::brick, hex).type, "hexahedron");
  const std::vector<std::int64_t> pyramid{1, 2, 3, 4, 5, 5, 5, 5};
  EXPECT_EQ(resolve(Family::brick, pyramid).type, "pyramid");
  const std::vector<std::int64_t> tet{1, 2, 3, 3, 5, 5, 5, 5};
  EXPECT_EQ(resolve(Family::brick, tet).type, "tetra");
  const std::vector<std::int64_t> shell8{1, 2, 3, 3, 5, 6, 3, 7};
  EXPECT_EQ(resolve(Family::shell, shell8).type, "triangle6");
  const std::vector<std::int64_t> beam188{1, 2, 9};
  EXPECT_EQ(resolve(Family::linear_line, beam188).type, "line");
  EXPECT_EQ(resolve(Family::line, beam188).type, "line3");
  // A SOLID186 whose last mid-side nodes were left out: still a hexahedron20, 0 filled in.
  std::vector<std::int64_t> cut(14, 1);
  for (int k = 0; k < 14; ++k) cut[k] = k + 1;
  const auto resolved = resolve(Family::brick, cut);
  EXPECT_EQ(resolved.type, "hexahedron20");
  EXPECT_EQ(resolved.midside_from, 8);
  EXPECT_TRUE(resolve(Family::tet, std::vector<std::int64_t>{1, 2, 3}).type.empty());
  EXPECT_EQ(ansys_cdb::detail::routine_family(187), Family::tet);
  EXPECT_EQ(ansys_cdb::detail::routine_family(188), Family::linear_line);
  EXPECT_EQ(ansys_cdb::detail::routine_family(179), Family::none);  // PRETS179
  EXPECT_EQ(ansys_cdb::detail::routine_family(100000), Family::none);
}

TEST(AnsysCdbRoundTrip, EveryCellTypeWithRegionsBitExact) {
  const std::vector<std::string> types = {"vertex", "line",    "line3",   "triangle", "triangle6",
                                          "quad",   "quad8",   "tetra",   "tetra10",  "pyramid",
                                          "pyramid13", "wedge", "wedge15", "hexahedron", "hexahedron20"};
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {27, 3});
  double* xyz = mesh.points.data_as<double>();
  for (int i = 0; i < 81; ++i) xyz[i] = (i % 7 == 0 ? 1.0 / 3 : 0.1 * i) * (i % 2 ? -1 : 1) + (i == 5 ? 1e-300 : 0);
  xyz[7] = 1.7976931348623157e308;
  xyz[8] = 4.9406564584124654e-324;
  for (const std::string& type : types) {
    const int n = cell_type(type).num_nodes;
    std::vector<std::int64_t> nodes;
    for (int c = 0; c < 2; ++c)
      for (int k = 0; k < n; ++k) nodes.push_back((k * 5 + c * 3 + n) % 27);
    mesh.cells.push_back({type, int64_matrix(2, n, nodes), {}, {}});
  }
  Region points;
  points.name = "fixed nodes";  // the blank becomes '_'
  points.kind = RegionKind::Point;
  points.entries = int64_vector({0, 5, 6, 7, 26});
  mesh.regions.push_back(points);
  mesh.regions.push_back(cell_region("solid", 3, -1, {16, 17, 18, 29}));
  const std::string path = scratch("round.cdb").string();
  ansys_cdb::write(path, mesh, {});
  const Mesh back = ansys_cdb::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_TRUE(same_bits(back.cells[b].connectivity, mesh.cells[b].connectivity)) << mesh.cells[b].type;
  }
  ASSERT_NE(find_region(back, "fixed_nodes", RegionKind::Point), nullptr);
  EXPECT_EQ(entries(*find_region(back, "fixed_nodes", RegionKind::Point)), (std::vector<std::int64_t>{0, 5, 6, 7, 26}));
  EXPECT_EQ(entries(*find_region(back, "solid", RegionKind::Cell)), (std::vector<std::int64_t>{16, 17, 18, 29}));
  const std::string text = read_file(path);
  EXPECT_TRUE(text.starts_with("/PREP7\nET,         1,21\n"));
  EXPECT_NE(text.find("CMBLOCK,fixed_nodes,NODE,       4\n(8i10)\n         1         6        -8        27\n"),
            std::string::npos);
  // Written again from what was read (ansys:* cell data now present): the same bytes.
  const std::string again = scratch("again.cdb").string();
  ansys_cdb::write(again, back, {});
  EXPECT_EQ(read_file(again), text);
}

TEST(AnsysCdbRoundTrip, RealFilesWriteBackTheirNumbersAndTypes) {
  const Mesh mesh = ansys_cdb::read(data_file("mesh200.cdb"));
  const std::string path = scratch("mesh200.cdb").string();
  ansys_cdb::write(path, mesh, {});
  const std::string text = read_file(path);
  EXPECT_NE(text.find("ET,         1,200\nKEYOPT,         1,1,11\n"), std::string::npos);
  const Mesh back = ansys_cdb::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  EXPECT_TRUE(same_bits(back.cells[0].connectivity, mesh.cells[0].connectivity));
  for (const char* name : {"ansys:element", "ansys:type", "ansys:routine", "ansys:mat", "ansys:real", "ansys:secnum"})
    EXPECT_TRUE(same_bits(data(back, name)[0], data(mesh, name)[0])) << name;
  EXPECT_EQ(entries(*find_region(back, "V_BLOCK", RegionKind::Cell)), entries(*find_region(mesh, "V_BLOCK", RegionKind::Cell)));
}

TEST(AnsysCdbWrite, TwoDimensionalPointsAndRefusals) {
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {3, 2});
  std::fill_n(mesh.points.data_as<double>(), 6, 0.5);
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  const std::string path = scratch("flat.cdb").string();
  ansys_cdb::write(path, mesh, {});
  const Mesh back = ansys_cdb::read(path);
  EXPECT_EQ(back.points.shape(), (Shape{3, 3}));
  EXPECT_EQ(back.points.data_as<double>()[2], 0.0);
  EXPECT_EQ(back.cells[0].type, "triangle");
  mesh.cells.push_back({"polygon", int64_vector({0, 1, 2}), int64_vector({0, 3}), {}});
  EXPECT_THROW(ansys_cdb::write(path, mesh, {}), std::invalid_argument);
  mesh.cells.pop_back();
  mesh.cells.push_back({"quad9", int64_matrix(1, 9, {0, 1, 2, 0, 1, 2, 0, 1, 2}), {}, {}});
  EXPECT_THROW(ansys_cdb::write(path, mesh, {}), std::invalid_argument);
}

TEST(AnsysCdbBadInput, ErrorsNameTheLine) {
  const std::string small = kSmall;
  const auto fails = [](const std::string& name, const std::string& text) {
    return expect_read_error([&] { ansys_cdb::read(write_scratch(name, text)); });
  };
  ReadError error = fails("a.cdb", "/PREP7\nFINISH\n");
  EXPECT_NE(error.reason().find("no NBLOCK or EBLOCK"), std::string::npos);

  std::string text = small;
  text.replace(text.find("1.0000000000000E+000\n"), 4, "1.x0");
  error = fails("b.cdb", text);
  EXPECT_NE(error.reason().find("invalid coordinate '1.x0"), std::string::npos);
  EXPECT_NE(error.reason().find("' of node 2"), std::string::npos);
  EXPECT_EQ(error.line(), 7u);

  text = small;
  text.replace(text.find("(3i9,6e21.13e3)"), 15, "(3i9,6q21.13e3)");
  error = fails("c.cdb", text);
  EXPECT_NE(error.reason().find("NBLOCK format line"), std::string::npos);
  EXPECT_EQ(error.line(), 5u);

  text = small;
  text.replace(text.find("ET,1,185"), 8, "ET,7,185");
  error = fails("d.cdb", text);
  EXPECT_NE(error.reason().find("element 10 has type 1, which no ET command defines"), std::string::npos);
  EXPECT_EQ(error.line(), 21u);

  text = small;
  text.replace(text.find("       10        1        2"), 27, "       10        1        9");
  error = fails("e.cdb", text);
  EXPECT_NE(error.reason().find("names node 9, which no NBLOCK defines"), std::string::npos);

  text = small;
  text.replace(text.find("       20        0        0-3.25"), 9, "       11");
  error = fails("f.cdb", text);
  EXPECT_NE(error.reason().find("node 11 is defined twice"), std::string::npos);
  EXPECT_EQ(error.line(), 17u);

  // Truncated inside an element record, and inside a CMBLOCK.
  error = fails("g.cdb", small.substr(0, small.find("        1        2        3        4        5        6        7        8\n")));
  EXPECT_NE(error.reason().find("unexpected end of file inside the element record"), std::string::npos);
  error = fails("h.cdb", small.substr(0, small.find("        10       -29")));
  EXPECT_NE(error.reason().find("unexpected end of file inside this CMBLOCK"), std::string::npos);

  text = small;
  text.replace(text.find("        8        0       10"), 9, "      999");
  error = fails("i.cdb", text);
  EXPECT_NE(error.reason().find("has 999 nodes"), std::string::npos);

  // A CMBLOCK count larger than the file can hold is refused before allocating.
  text = small;
  text.replace(text.find("CMBLOCK,SOLIDS,ELEM,       2"), 28, "CMBLOCK,SOLIDS,ELEM,999999999999");
  error = fails("j.cdb", text);
  EXPECT_NE(error.reason().find("CMBLOCK items"), std::string::npos);

  // A range reaching to the int64 limit is clipped to the numbers that exist.
  text = small;
  text.replace(text.find("        10       -29"), 20, "         1-999999999");
  const Mesh mesh = ansys_cdb::read(write_scratch("k.cdb", text));
  EXPECT_EQ(entries(*find_region(mesh, "SOLIDS", RegionKind::Cell)), (std::vector<std::int64_t>{0, 1, 2}));
}
