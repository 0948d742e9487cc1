// I-deas Universal File reader and writer: files Salome and pyuff's sources wrote (counts
// cross-checked with pyuff and meshio++ 17.21 in test_unv_interop.py), the records the format
// allows (D exponents, beams' extra record, node labels over several lines, touching fields,
// unknown and binary datasets), every writable cell type round-tripped bit for bit, malformed
// input with its line, and 2414 results as time steps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "formats/unv/unv.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "unv" / name).string(); }

std::vector<std::int64_t> entries(const Region& region) { return int_values(region.entries); }

std::vector<std::int64_t> row(const CellBlock& block, std::int64_t cell) {
  const std::int64_t n = block.connectivity.row_width();
  const std::int64_t* data = block.connectivity.data_as<std::int64_t>() + cell * n;
  return {data, data + n};
}

// A file as the format allows it: a header dataset, units, D exponents, a node dataset split
// in two, linear and parabolic beams with their extra record, a spring (no geometry of ours),
// a touching ten-digit label, an unknown dataset, groups with nodes and elements.
const char* const kDeck =
    "    -1\n"
    "   151\n"
    "model\n"
    "NONE\n"
    "    -1\n"
    "    -1\n"
    "   164\n"
    "         5  MM: mm (milli newton)         2\n"
    "  1.00000000000000000D+03  1.00000000000000000D+03  1.00000000000000000D+00\n"
    "  2.73149999999999977D+02\n"
    "    -1\n"
    "    -1\n"
    "  2411\n"
    "        10         1         1        11\n"
    "   0.0000000000000000D+00   0.0000000000000000D+00   0.0000000000000000D+00\n"
    "        20         1         1        11\n"
    "   1.0000000000000000D+00   0.0000000000000000E+00   0.0000000000000000e+00\n"
    "        30         0         0        11\n"
    "   1.0000000000000000d+00   1.0000000000000000D+00   0.0\n"
    "    -1\n"
    "    -1\n"
    "  2411\n"
    "        40         1         1        11\n"
    "   0.0000000000000000D+00   1.0000000000000000D+00  -2.5000000000000000D-01\n"
    "1234567890         1         1        11\n"
    "   5.0000000000000000D-01   5.0000000000000000D-01   1.0000000000000000D+00\n"
    "    -1\n"
    "    -1\n"
    "  2412\n"
    "         1        21         1         1         7         2\n"
    "         0         1         1\n"
    "        10        20\n"
    "         2        94         2         3         7         4\n"
    "        10        20        30        40\n"
    "         3       136         1         1         7         2\n"
    "        10        30\n"
    "         4        91         2         3         7         3\n"
    "        20        301234567890\n"
    "         5        24         1         1         7         3\n"
    "         0         1         1\n"
    "        10        40        20\n"
    "    -1\n"
    "    -1\n"
    "  2420\n"
    "         1\n"
    "SMESH_Mesh\n"
    "    -1\n"
    "    -1\n"
    "  2467\n"
    "         7         0         0         0         0         0         0         4\n"
    "Top face\n"
    "         7        30         0         0         7        40         0         0\n"
    "         8         4         0         0         8         3         0         0\n"
    "        11         0         0         0         0         0         0         2\n"
    "beams\n"
    "         8         5         0         0         8         1         0         0\n"
    "    -1\n";

}  // namespace

TEST(Unv, ReadsTheRecordsTheFormatAllows) {
  const std::string path = write_scratch("deck.unv", kDeck);
  const Mesh mesh = unv::read(path);
  ASSERT_EQ(mesh.num_points(), 5);
  ASSERT_EQ(mesh.points.dim(1), 3);
  const double* xyz = mesh.points.data_as<double>();
  EXPECT_EQ(xyz[3], 1.0);
  EXPECT_EQ(xyz[6], 1.0);
  EXPECT_EQ(xyz[7], 1.0);
  EXPECT_EQ(xyz[11], -0.25);
  EXPECT_EQ(xyz[12], 0.5);
  EXPECT_EQ(block_summary(mesh), "line:1;quad:1;triangle:1;line3:1");
  EXPECT_EQ(row(mesh.cells[0], 0), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(row(mesh.cells[1], 0), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(row(mesh.cells[2], 0), (std::vector<std::int64_t>{1, 2, 4}));
  // A parabolic beam lists end, middle, end; ours is end, end, middle.
  EXPECT_EQ(row(mesh.cells[3], 0), (std::vector<std::int64_t>{0, 1, 3}));
  const auto* pid = mesh.cell_data.find("unv:pid");
  const auto* mid = mesh.cell_data.find("unv:mid");
  ASSERT_TRUE(pid && mid);
  EXPECT_EQ(int_values((*pid)[1]), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(int_values((*mid)[2]), (std::vector<std::int64_t>{3}));
  // Groups: nodes and elements of "Top face"; the spring (element 3) is not read.
  const Region* top_nodes = find_region(mesh, "Top face", RegionKind::Point);
  const Region* top_cells = find_region(mesh, "Top face", RegionKind::Cell);
  ASSERT_TRUE(top_nodes && top_cells);
  EXPECT_EQ(entries(*top_nodes), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(entries(*top_cells), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(top_cells->tag, 7);
  EXPECT_EQ(top_cells->dim, 2);
  const Region* beams = find_region(mesh, "beams", RegionKind::Cell);
  ASSERT_TRUE(beams);
  EXPECT_EQ(entries(*beams), (std::vector<std::int64_t>{3, 0}));
  EXPECT_EQ(beams->dim, 1);
  EXPECT_EQ(find_region(mesh, "beams", RegionKind::Point), nullptr);
  const NDArray* units = mesh.field_data.find("unv:units");
  const NDArray* factors = mesh.field_data.find("unv:unit_factors");
  ASSERT_TRUE(units && factors);
  EXPECT_EQ(int_values(*units), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(factors->data_as<double>()[0], 1000.0);
  EXPECT_EQ(factors->data_as<double>()[3], 273.15);
}

TEST(Unv, ReadsSalomeFiles) {
  // Salome's 3-D compound (every solid type) and 2-D compound (every line/face type).
  const Mesh solids = unv::read(data_file("salome_Compound_Mesh_3D.unv"));
  EXPECT_EQ(solids.num_points(), 63);
  EXPECT_EQ(block_summary(solids), "tetra:1;wedge:1;wedge15:1;hexahedron:1;hexahedron20:1;tetra10:1");
  EXPECT_NEAR(point_sum(solids), 14.250000184774398, 1e-12);
  std::int64_t sum = 0;
  for (const CellBlock& block : solids.cells)
    for (const std::int64_t node : nodes_of(block)) sum += node;
  EXPECT_EQ(sum, 6 + 39 + 255 + 228 + 850 + 575);  // the sums meshio++ 17.21 reads
  EXPECT_EQ(solids.regions.size(), 20u);
  const Mesh faces = unv::read(data_file("salome_Compound_Mesh_2D.unv"));
  EXPECT_EQ(faces.num_points(), 26);
  EXPECT_EQ(block_summary(faces), "line:1;line3:1;triangle:1;triangle6:1;quad:1;quad8:1");
  // A parabolic hexahedron: the file lists 1 12 4 11 3 10 2 9 | 17 20 19 18 | 5 16 8 15 7 14 6 13
  // (corner, mid-edge, corner … bottom, the vertical mid-edges, then the top): meshio++ 17.21
  // reads the same connectivity.
  const Mesh hex20 = unv::read(data_file("salome_116.unv"));
  ASSERT_EQ(block_summary(hex20), "hexahedron20:1");
  EXPECT_EQ(row(hex20.cells[0], 0),
            (std::vector<std::int64_t>{0, 3, 2, 1, 4, 7, 6, 5, 11, 10, 9, 8, 15, 14, 13, 12, 16, 19, 18, 17}));
  // An empty element group stays, as an empty Cell region.
  const Mesh empty = unv::read(data_file("salome_Niclas_Stenberg_Empty_set.unv"));
  const Region* set = find_region(empty, "empty_e", RegionKind::Cell);
  ASSERT_TRUE(set);
  EXPECT_EQ(set->entries.size(), 0);
}

TEST(Unv, ReadsPyuffFiles) {
  // Salome groups with element members only; dataset 15 nodes; results datasets passed over.
  const Mesh groups = unv::read(data_file("pyuff_groups_test.uff"));
  EXPECT_EQ(groups.num_points(), 74);
  EXPECT_EQ(block_summary(groups), "line:48;triangle:144;tetra:149");
  const Region* surface = find_region(groups, "Surface", RegionKind::Cell);
  ASSERT_TRUE(surface);
  EXPECT_EQ(surface->entries.size(), 136);
  EXPECT_EQ(surface->tag, 3);
  const Mesh legacy = unv::read(data_file("pyuff_mesh_test_uff2412_mixed.uff"));
  EXPECT_EQ(legacy.num_points(), 5);
  EXPECT_EQ(block_summary(legacy), "quad:1;triangle:4");
  EXPECT_DOUBLE_EQ(point_sum(legacy), 7.0);
  const Mesh results = unv::read(data_file("pyuff_2411_and_2414.uff"));
  EXPECT_EQ(results.num_points(), 441);
  EXPECT_EQ(block_summary(results), "quad:400");
}

TEST(Unv, RoundTripsEveryWritableTypeBitForBit) {
  const std::vector<std::string> types = {"vertex", "line",  "line3",  "triangle", "triangle6",  "quad",       "quad8",
                                          "quad9",  "tetra", "tetra10", "wedge",   "wedge15", "hexahedron", "hexahedron20"};
  Mesh mesh;
  const std::int64_t n = 40;
  mesh.points = NDArray::allocate(DType::float64, {n, 3});
  double* xyz = mesh.points.data_as<double>();
  for (std::int64_t i = 0; i < 3 * n; ++i) xyz[i] = std::sin(0.37 * static_cast<double>(i)) * std::pow(10.0, static_cast<double>(i % 9) - 4);
  xyz[0] = -0.0;
  xyz[1] = std::numeric_limits<double>::denorm_min();
  xyz[2] = 1.7976931348623157e308;
  std::int64_t counter = 0;
  std::vector<NDArray> pids;
  for (const std::string& type : types) {
    const std::int64_t k = cell_type(type).num_nodes;
    std::vector<std::int64_t> nodes;
    for (std::int64_t c = 0; c < 2 * k; ++c) nodes.push_back((counter++ * 7) % n);
    mesh.cells.push_back({type, int64_matrix(2, k, nodes), {}, {}});
    pids.push_back(int64_vector({static_cast<std::int64_t>(pids.size()) + 1, 99}));
  }
  mesh.cell_data.set("unv:pid", std::move(pids));
  mesh.regions.push_back(cell_region("solids", 3, 12, {16, 17, 25}));
  Region nodes;
  nodes.name = "fixed nodes";
  nodes.kind = RegionKind::Point;
  nodes.entries = int64_vector({39, 0, 5});
  mesh.regions.push_back(nodes);
  mesh.regions.push_back(cell_region("fixed nodes", 1, -1, {2, 3}));
  mesh.field_data.set("unv:units", int64_vector({1}));
  mesh.field_data.set("unv:unit_factors", array_of<double>({4}, {1.0, 1.0, 1.0, 273.15}));

  const std::string path = scratch("round.unv").string();
  unv::write(path, mesh, {});
  const Mesh back = unv::read(path);
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(back.cells[b].type, mesh.cells[b].type);
    EXPECT_EQ(nodes_of(back.cells[b]), nodes_of(mesh.cells[b])) << mesh.cells[b].type;
  }
  EXPECT_EQ(int_values((*back.cell_data.find("unv:pid"))[4]), (std::vector<std::int64_t>{5, 99}));
  EXPECT_EQ(int_values((*back.cell_data.find("unv:mid"))[4]), (std::vector<std::int64_t>{1, 1}));
  const Region* solids = find_region(back, "solids", RegionKind::Cell);
  ASSERT_TRUE(solids);
  EXPECT_EQ(entries(*solids), (std::vector<std::int64_t>{16, 17, 25}));
  EXPECT_EQ(solids->tag, 12);
  EXPECT_EQ(solids->dim, 3);
  const Region* fixed = find_region(back, "fixed nodes", RegionKind::Point);
  ASSERT_TRUE(fixed);
  EXPECT_EQ(entries(*fixed), (std::vector<std::int64_t>{39, 0, 5}));
  EXPECT_EQ(entries(*find_region(back, "fixed nodes", RegionKind::Cell)), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(int_values(*back.field_data.find("unv:units")), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(back.field_data.find("unv:unit_factors")->data_as<double>()[3], 273.15);
}

TEST(Unv, WritesTwoDimensionalPointsWithZeroZ) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 2}, {0.0, 0.0, 1.0, 0.0, 0.0, 1.0});
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  const std::string path = scratch("flat.unv").string();
  unv::write(path, mesh, {});
  const std::string text = read_file(path);
  EXPECT_NE(text.find("   1.0000000000000000E+00   0.0000000000000000E+00   0.0000000000000000E+00\n"), std::string::npos);
  EXPECT_NE(text.find("         1        91         1         1         7         3\n"), std::string::npos);
  const Mesh back = unv::read(path);
  EXPECT_EQ(back.points.dim(1), 3);
  EXPECT_EQ(back.points.data_as<double>()[3], 1.0);
}

TEST(Unv, RefusesCellTypesWithoutDescriptor) {
  Mesh mesh;
  mesh.points = NDArray::zeros(DType::float64, {5, 3});
  mesh.cells.push_back({"pyramid", int64_matrix(1, 5, {0, 1, 2, 3, 4}), {}, {}});
  EXPECT_THROW(unv::write(scratch("pyramid.unv").string(), mesh, {}), std::invalid_argument);
}

TEST(Unv, SkipsBinaryDatasetsByTheirSize) {
  // A 58b dataset whose bytes hold a "-1" line: its declared size steps over them.
  std::string deck = "    -1\n    58b     1     2          1         12\nheader\n";
  deck += "\n    -1\nabcd";  // 12 bytes
  deck += "    -1\n" + std::string(kDeck);
  const Mesh mesh = unv::read(write_scratch("binary.uff", deck));
  EXPECT_EQ(mesh.num_points(), 5);
}

namespace {

struct BadCase {
  const char* name;
  std::string text;
  std::uint64_t line;
  const char* message;
};

std::string nodes_then(const std::string& elements) {
  return "    -1\n  2411\n         1         1         1        11\n   0.0D+00   0.0D+00   0.0D+00\n"
         "         2         1         1        11\n   1.0D+00   0.0D+00   0.0D+00\n    -1\n" + elements;
}

}  // namespace

TEST(Unv, MalformedInputNamesTheLine) {
  const std::vector<BadCase> cases = {
      {"not_unv", "hello\n", 1, "does not start with a '-1' line"},
      {"unclosed", "    -1\n  2411\n         1         1         1        11\n", 2, "not closed"},
      {"odd_nodes", "    -1\n  2411\n         1         1         1        11\n    -1\n", 2, "each node takes two"},
      {"bad_real", "    -1\n  2411\n         1         1         1        11\n   0.0D+00   x.0D+00   0.0D+00\n    -1\n", 4,
       "invalid real number 'x.0D+00'"},
      {"two_coordinates", "    -1\n  2411\n         1         1         1        11\n   0.0D+00   0.0D+00\n    -1\n", 4,
       "needs 3 coordinates"},
      {"twice", nodes_then("").replace(nodes_then("").find("         2 "), 10, "         1"), 5, "defined twice"},
      {"undefined_node", nodes_then("    -1\n  2412\n         1        21         1         1         7         2\n"
                                    "         0         1         1\n         1         3\n    -1\n"), 10, "names node 3"},
      {"short_element", nodes_then("    -1\n  2412\n         1        91         1         1         7         3\n"
                                   "         1         2\n    -1\n"), 10, "ends after 2 of its 3"},
      {"long_element", nodes_then("    -1\n  2412\n         1        91         1         1         7         3\n"
                                  "         1         2\n         1         2\n    -1\n"), 12, "lists 4 node labels"},
      {"huge_node_count", nodes_then("    -1\n  2412\n         1        91         1         1         7 999999999\n    -1\n"), 10,
       "has 999999999 nodes"},
      {"outside", nodes_then("stray text\n"), 8, "text outside a dataset"},
      {"bad_number", "    -1\n  24x1\n    -1\n", 2, "invalid dataset number"},
      {"group_overrun", nodes_then("    -1\n  2467\n         1         0         0         0         0         0         0         3\n"
                                   "g\n         7         1         0         0         7         2         0         0\n    -1\n"), 10,
       "ends after 2 of its 3 entities"},
      {"group_unknown_node", nodes_then("    -1\n  2467\n         1         0         0         0         0         0         0         1\n"
                                        "g\n         7         9         0         0\n    -1\n"), 12, "names node 9"},
      {"binary_past_end", "    -1\n    58b     1     2          1     999999\nheader\n", 2, "past the end of the file"},
      {"units_short", "    -1\n   164\n         1  SI: Meter (newton)         2\n  1.0D+00\n    -1\n", 2, "needs 4 conversion factors"},
  };
  for (const BadCase& bad : cases) {
    const std::string path = write_scratch(std::string(bad.name) + ".unv", bad.text);
    const ReadError error = expect_read_error([&] { unv::read(path); });
    EXPECT_EQ(error.path(), path) << bad.name;
    ASSERT_TRUE(error.line().has_value()) << bad.name << ": " << error.what();
    EXPECT_EQ(*error.line(), bad.line) << bad.name << ": " << error.what();
    EXPECT_NE(std::string(error.what()).find(bad.message), std::string::npos) << bad.name << ": " << error.what();
  }
}

TEST(Unv, EmptyFileIsAReadError) {
  const std::string path = write_scratch("empty.unv", "  \n");
  EXPECT_THROW(unv::read(path), ReadError);
}

// ---- results (dataset 2414) as time steps ----

namespace {

std::string result_2414(int label, const char* name, int location, int analysis, int data_type, int values, int load_set,
                        const char* time, const std::string& records) {
  std::string text = "    -1\n  2414\n" + std::to_string(label) + "\n" + name + "\n" + std::to_string(location) + "\n";
  text += "NONE\nNONE\nNONE\nNONE\nNONE\n";
  text += "         1" + std::string(9 - std::to_string(analysis).size(), ' ') + " " + std::to_string(analysis) +
          "         2         8" + std::string(9 - std::to_string(data_type).size(), ' ') + " " + std::to_string(data_type) +
          std::string(9 - std::to_string(values).size(), ' ') + " " + std::to_string(values) + "\n";
  text += "         0         0         0         0" + std::string(9 - std::to_string(load_set).size(), ' ') + " " +
          std::to_string(load_set) + "         0         0         0\n";
  text += "         0         0\n";
  text += std::string("  ") + time + "  0.00000E+00  0.00000E+00  0.00000E+00  0.00000E+00  0.00000E+00\n";
  text += "  0.00000E+00  0.00000E+00  0.00000E+00  0.00000E+00  0.00000E+00  0.00000E+00\n";
  return text + records + "    -1\n";
}

const std::string kResultsMesh =
    "    -1\n  2411\n"
    "         1         1         1        11\n   0.0D+00   0.0D+00   0.0D+00\n"
    "         2         1         1        11\n   1.0D+00   0.0D+00   0.0D+00\n"
    "         3         1         1        11\n   0.0D+00   1.0D+00   0.0D+00\n"
    "    -1\n    -1\n  2412\n"
    "        10        91         1         1         7         3\n         1         2         3\n"
    "        11        21         1         1         7         2\n         0         1         1\n         1         2\n"
    "    -1\n";

}  // namespace

TEST(Unv, ResultsAreTimeSteps) {
  std::string deck = kResultsMesh;
  // Step 1 (static, load set 1, time 0 -> its load set): displacements at two of the nodes.
  deck += result_2414(1, "Displacement", 1, 1, 2, 3, 1, "0.00000E+00",
                      "         1\n  1.00000E+00  2.00000E+00  3.00000E+00\n"
                      "         3\n -4.00000E+00-5.00000E+00 -6.00000E+00\n");
  // Step 2 (transient-like key: load set 2 at time 2.5): complex element values, a NONE name.
  deck += result_2414(2, "NONE", 2, 0, 5, 1, 2, "2.50000E+00",
                      "        11         1\n  7.00000E+00  8.00000E+00\n"
                      "        10         1\n  9.00000E+00 -1.00000E+00\n");
  // Step 1 again: a second array of the same step, same name.
  deck += result_2414(3, "Displacement", 1, 1, 2, 1, 1, "0.00000E+00", "         2\n  5.00000E-01\n");
  const std::string path = write_scratch("results.unv", deck);
  const auto series = open_time_series(path);
  ASSERT_EQ(series->num_steps(), 2u);
  EXPECT_EQ(series->time(0), 1.0);
  EXPECT_EQ(series->time(1), 2.5);
  const Mesh mesh = series->read_mesh();
  EXPECT_EQ(block_summary(mesh), "triangle:1;line:1");
  const TimeStep first = series->read_step(0);
  const NDArray* displacement = first.point_data.find("Displacement");
  ASSERT_TRUE(displacement);
  ASSERT_EQ(displacement->shape(), (Shape{3, 3}));
  const double* d = displacement->data_as<double>();
  EXPECT_EQ(d[0], 1.0);
  EXPECT_EQ(d[2], 3.0);
  EXPECT_TRUE(std::isnan(d[3]));
  EXPECT_EQ(d[7], -5.0);  // touching E13.5 fields cut in their columns
  const NDArray* second = first.point_data.find("Displacement_2");
  ASSERT_TRUE(second);
  ASSERT_EQ(second->shape(), (Shape{3}));
  EXPECT_EQ(second->data_as<double>()[1], 0.5);
  const TimeStep other = series->read_step(1);
  const auto* real = other.cell_data.find("displacement_real");
  const auto* imag = other.cell_data.find("displacement_imag");
  ASSERT_TRUE(real && imag);
  ASSERT_EQ(real->size(), 2u);
  EXPECT_EQ((*real)[0].data_as<double>()[0], 9.0);
  EXPECT_EQ((*imag)[0].data_as<double>()[0], -1.0);
  EXPECT_EQ((*real)[1].data_as<double>()[0], 7.0);
  EXPECT_EQ((*imag)[1].data_as<double>()[0], 8.0);
  EXPECT_THROW(series->read_step(2), ReadError);
}

TEST(Unv, ResultsNamingUnknownEntitiesNameTheLine) {
  std::string deck = kResultsMesh;
  deck += result_2414(1, "T", 1, 1, 2, 1, 1, "0.00000E+00", "         7\n  1.00000E+00\n");
  const std::string path = write_scratch("bad_results.unv", deck);
  const auto series = open_time_series(path);
  const ReadError error = expect_read_error([&] { series->read_step(0); });
  EXPECT_NE(std::string(error.what()).find("names node 7"), std::string::npos) << error.what();
  ASSERT_TRUE(error.line().has_value());
  EXPECT_EQ(*error.line(), 33u);  // the record of node 7
}

TEST(Unv, ResultsOfRealFilesAreSteps) {
  // 176 complex mode shapes written by Simcenter/NX; ten real modes written by PERMAS.
  const auto modes = open_time_series(data_file("pyuff_nx_simulation_output.uff"));
  EXPECT_EQ(modes->num_steps(), 176u);
  EXPECT_NEAR(modes->time(0), 23383.2, 1e-9);
  const TimeStep mode = modes->read_step(175);
  EXPECT_TRUE(mode.point_data.contains("Mode shape record 176_real"));
  const auto permas = open_time_series(data_file("pyuff_2411_and_2414.uff"));
  EXPECT_EQ(permas->num_steps(), 10u);
  EXPECT_EQ(permas->time(0), 0.956363);
  EXPECT_EQ(permas->read_step(0).point_data.find("STEP_1")->shape(), (Shape{441, 6}));
}

TEST(Unv, NodesOfCartesianSystemsAreMovedIntoTheGlobalOne) {
  // System 5: x_global = R x + origin, R's rows the matrix's first three records (Salome's and
  // 17.21's reading): a quarter turn about z and an origin at (10, 0, 0). System 6 is
  // cylindrical: its nodes are left as written.
  const std::string deck =
      "    -1\n  2420\n         1\nPart\n"
      "         5         0         2\nturned\n"
      "   0.0D+00  -1.0D+00   0.0D+00\n   1.0D+00   0.0D+00   0.0D+00\n   0.0D+00   0.0D+00   1.0D+00\n"
      "   1.0D+01   0.0D+00   0.0D+00\n"
      "         6         1         2\ncylinder\n"
      "   1.0D+00   0.0D+00   0.0D+00\n   0.0D+00   1.0D+00   0.0D+00\n   0.0D+00   0.0D+00   1.0D+00\n"
      "   5.0D+00   0.0D+00   0.0D+00\n"
      "    -1\n    -1\n  2411\n"
      "         1         5         5        11\n   1.0D+00   2.0D+00   3.0D+00\n"
      "         2         6         6        11\n   1.0D+00   2.0D+00   3.0D+00\n"
      "         3         1         1        11\n   1.0D+00   2.0D+00   3.0D+00\n"
      "    -1\n";
  const Mesh mesh = unv::read(write_scratch("systems.unv", deck));
  const double* xyz = mesh.points.data_as<double>();
  EXPECT_EQ((std::vector<double>(xyz, xyz + 9)), (std::vector<double>{8.0, 1.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0}));
}

TEST(Unv, Dataset55NodeResultsAreTimeSteps) {
  // Normal modes (analysis 2): NINT = 2 (load case, mode), NRV = 4 (frequency first).
  std::string deck = kResultsMesh;
  for (int mode = 1; mode <= 2; ++mode)
    deck += "    -1\n    55\nmode shape\nNONE\nNONE\nNONE\nNONE\n"
            "         1         2         2         8         2         3\n"
            "         2         4         1         " + std::to_string(mode) + "\n"
            "  " + std::to_string(10 * mode) + ".0000e+00  0.00000e+00  0.00000e+00  0.00000e+00\n"
            "         2\n  1.00000e+00  2.00000e+00 -3.00000e+00\n    -1\n";
  const auto series = open_time_series(write_scratch("modes.unv", deck));
  ASSERT_EQ(series->num_steps(), 2u);
  EXPECT_EQ(series->time(0), 10.0);
  EXPECT_EQ(series->time(1), 20.0);
  const TimeStep step = series->read_step(1);
  const NDArray* shape = step.point_data.find("mode shape");
  ASSERT_TRUE(shape);
  ASSERT_EQ(shape->shape(), (Shape{3, 3}));
  EXPECT_TRUE(std::isnan(shape->data_as<double>()[0]));
  EXPECT_EQ(shape->data_as<double>()[5], -3.0);
}
