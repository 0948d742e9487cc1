// LS-DYNA keyword decks: real decks (pydyna's test data, one through two *INCLUDEs), the
// field formats (standard, I10, long, free, mixed), element forms (degenerate solids and
// shells, the two-line solid, tetra10, option cards), parts and sets, includes, round trips
// of every cell type the writer has an element for, and the errors on broken decks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/lsdyna/lsdyna.hpp"
#include "formats/lsdyna/lsdyna_cards.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "lsdyna" / name).string(); }

std::vector<std::int64_t> row(const Mesh& mesh, std::size_t block, std::int64_t cell) {
  const NDArray& connectivity = mesh.cells[block].connectivity;
  const std::int64_t* first = connectivity.data_as<std::int64_t>() + cell * connectivity.row_width();
  return {first, first + connectivity.row_width()};
}

std::vector<std::int64_t> entries(const Mesh& mesh, const std::string& name) {
  const Region* region = find_region(mesh, name);
  EXPECT_NE(region, nullptr) << name;
  return region == nullptr ? std::vector<std::int64_t>{} : int_values(region->entries);
}

std::vector<double> point(const Mesh& mesh, std::int64_t i) {
  const double* x = mesh.points.data_as<double>() + 3 * i;
  return {x[0], x[1], x[2]};
}

// ---- real decks ----------------------------------------------------------------------

TEST(LsdynaReal, FrfSolidHexahedraPartsAndNodeSets) {
  const Mesh mesh = lsdyna::read(data("frf_solid.k"));
  EXPECT_EQ(mesh.num_points(), 440);  // lsdyna-mesh-reader: 440 nodes, 252 solids
  EXPECT_EQ(block_summary(mesh), "hexahedron:252");
  EXPECT_EQ(point(mesh, 0), (std::vector<double>{-68.7941971, 1247.9399414, 0.0}));  // "163 -68.7941971 1247.9399414 0.0"
  EXPECT_EQ(point(mesh, 439), (std::vector<double>{36.2061996, 1437.9399414, 703.0}));
  ASSERT_EQ(mesh.regions.size(), 4u);
  const Region& lower = mesh.regions[0];
  EXPECT_EQ(lower.name, "lower_post");
  EXPECT_EQ(lower.kind, RegionKind::Cell);
  EXPECT_EQ(lower.tag, 4);
  EXPECT_EQ(lower.dim, 3);
  EXPECT_EQ(lower.entries.rows(), 108);
  EXPECT_EQ(mesh.regions[1].name, "upper_post");
  EXPECT_EQ(mesh.regions[1].entries.rows(), 144);
  const Region& nodes = mesh.regions[2];
  EXPECT_EQ(nodes.name, "NODE set 1");
  EXPECT_EQ(nodes.kind, RegionKind::Point);
  EXPECT_EQ(nodes.tag, 1);
  EXPECT_EQ(nodes.entries.rows(), 28);
  std::int64_t sum = 0;
  for (const std::int64_t v : int_values(nodes.entries)) sum += v;
  EXPECT_EQ(sum, 5003);  // meshio++ 17.21 reads the same set
}

TEST(LsdynaReal, ThermalStressOneBrickEightSets) {
  const Mesh mesh = lsdyna::read(data("thermal_stress.k"));
  EXPECT_EQ(block_summary(mesh), "hexahedron:1");
  EXPECT_EQ(row(mesh, 0, 0), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  ASSERT_EQ(mesh.regions.size(), 9u);
  EXPECT_EQ(mesh.regions[0].name, "slab");
  for (int k = 1; k <= 8; ++k) EXPECT_EQ(entries(mesh, "NODE set " + std::to_string(k)), (std::vector<std::int64_t>{k - 1}));
}

TEST(LsdynaReal, SetsOfUndefinedPartsAreEmpty) {
  // pydyna's mech.k: *SET_PART_LIST names parts 2 and 3, which the deck does not define.
  const Mesh mesh = lsdyna::read(data("mech.k"));
  EXPECT_EQ(block_summary(mesh), "quad:1");
  EXPECT_EQ(mesh.regions[0].name, "Part 1");  // blank title
  EXPECT_TRUE(entries(mesh, "PART set 1").empty());
}

TEST(LsdynaReal, IncludesBlankPartTitlesGenerateAndBeams) {
  // bird_B.k includes control_cards.k, which includes mesh.k (pydyna keeps it in fol/).
  const Mesh mesh = lsdyna::read(data("bird/bird_B.k"));
  EXPECT_EQ(mesh.num_points(), 1781);
  EXPECT_EQ(block_summary(mesh), "hexahedron:729;quad:99;line:4");
  EXPECT_EQ(point(mesh, 0), (std::vector<double>{0.0, 6.000000238E-01, 0.0}));
  const std::vector<std::string> names{"Part 3", "Part 4", "Part 5", "Part 6", "NODE set 96", "PART set 1",
                                       "NODE set 95", "NODESET(SPC) 99"};
  ASSERT_EQ(mesh.regions.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(mesh.regions[i].name, names[i]);
  EXPECT_EQ(mesh.regions[3].dim, 1);                     // the beams' part
  EXPECT_EQ(entries(mesh, "PART set 1").size(), 729u);   // parts 4 and 5
  EXPECT_EQ(entries(mesh, "NODE set 95").size(), 1568u);  // GENERATE 1569..3136
}

// ---- field formats -------------------------------------------------------------------

// One hexahedron, one triangle shell on its bottom face: the same mesh in every format.
const char* kStandard =
    "*KEYWORD\n"
    "$ comment\n"
    "*NODE\n"
    "       1             0.0             0.0             0.0       0       0\n"
    "       2             1.0             0.0             0.0\n"
    "       3             1.0             1.0             0.0\n"
    "       4             0.0             1.0             0.0\n"
    "       5             0.0             0.0          1.5-01\n"
    "       6             1.0             0.0             1.0\n"
    "       7             1.0             1.0           1.D+0\n"
    "       8             0.0             1.0             1.0\n"
    "*ELEMENT_SOLID\n"
    "      10       1       1       2       3       4       5       6       7       8\n"
    "*ELEMENT_SHELL\n"
    "      20       2       1       2       3       3\n"
    "*END\n";

const char* kFree =
    "*node\n"
    "1,0,0,0\n2, 1.0, 0, 0\n3,1,1,0\n4,0,1,0\n5,0,0,0.15\n6,1,0,1\n7,1,1,1\n8,0,1,1\n"
    "*element_solid\n10,1,1,2,3,4,5,6,7,8\n"
    "*ELEMENT_SHELL\n20,2,1,2,3\n";

const char* kI10 =
    "*KEYWORD I10=Y\n"
    "*NODE\n"
    "         1             0.0             0.0             0.0\n"
    "         2             1.0             0.0             0.0\n"
    "         3             1.0             1.0             0.0\n"
    "         4             0.0             1.0             0.0\n"
    "         5             0.0             0.0            0.15\n"
    "         6             1.0             0.0             1.0\n"
    "         7             1.0             1.0             1.0\n"
    "         8             0.0             1.0             1.0\n"
    "*ELEMENT_SOLID\n"
    "        10         1         1         2         3         4         5         6         7         8\n"
    "*ELEMENT_SHELL -\n"  // back to the standard format for one keyword
    "      20       2       1       2       3       3\n";

std::string long_field(const std::string& text) { return std::string(20 - text.size(), ' ') + text; }

std::string long_deck(const std::string& keyword_line, const std::string& suffix) {
  std::string deck = keyword_line;
  deck += "*NODE" + suffix + "\n";
  const double xyz[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 0.15}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  for (int i = 0; i < 8; ++i) {
    deck += long_field(std::to_string(i + 1));
    for (const double x : xyz[i]) deck += long_field(x == 0.15 ? "0.15" : std::to_string(x));
    deck += '\n';
  }
  deck += "*ELEMENT_SOLID" + suffix + "\n" + long_field("10") + long_field("1");
  for (int k = 1; k <= 8; ++k) deck += long_field(std::to_string(k));
  deck += "\n*ELEMENT_SHELL" + suffix + "\n" + long_field("20") + long_field("2");
  for (const int k : {1, 2, 3, 3}) deck += long_field(std::to_string(k));
  return deck + "\n";
}

void expect_reference_mesh(const Mesh& mesh) {
  ASSERT_EQ(mesh.num_points(), 8);
  EXPECT_EQ(point(mesh, 4), (std::vector<double>{0.0, 0.0, 0.15}));
  EXPECT_EQ(point(mesh, 6), (std::vector<double>{1.0, 1.0, 1.0}));
  EXPECT_EQ(block_summary(mesh), "hexahedron:1;triangle:1");
  EXPECT_EQ(row(mesh, 0, 0), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(row(mesh, 1, 0), (std::vector<std::int64_t>{0, 1, 2}));
}

TEST(LsdynaFormats, StandardFreeI10LongAndSuffixesReadTheSameMesh) {
  expect_reference_mesh(lsdyna::read(write_scratch("standard.k", kStandard)));
  expect_reference_mesh(lsdyna::read(write_scratch("free.k", kFree)));  // no *KEYWORD, lower case
  expect_reference_mesh(lsdyna::read(write_scratch("i10.k", kI10)));
  expect_reference_mesh(lsdyna::read(write_scratch("long.k", long_deck("*KEYWORD LONG=Y\n", ""))));
  expect_reference_mesh(lsdyna::read(write_scratch("plus.k", long_deck("*KEYWORD\n", "+"))));
  expect_reference_mesh(lsdyna::read(write_scratch("plus_space.k", long_deck("", " +"))));
}

TEST(LsdynaFormats, IdsFillingTheirFieldsRunTogether) {
  // As EXP_SC_JOINT_SCREW.key writes them: 8-digit ids with no blank between.
  const std::string deck =
      "*NODE\n10000001             0.0             0.0             0.0\n10000002             1.0             0.0             0.0\n"
      "10000003             0.0             1.0             0.0\n"
      "*ELEMENT_SHELL\n9999999910000000100000011000000210000003\n"
      "*PART\nbig ids\n  10000000\n";
  const Mesh mesh = lsdyna::read(write_scratch("joined.k", deck));
  EXPECT_EQ(block_summary(mesh), "triangle:1");
  EXPECT_EQ(row(mesh, 0, 0), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(mesh.regions[0].name, "big ids");
  EXPECT_EQ(mesh.regions[0].tag, 10000000);
}

TEST(LsdynaCards, KeywordMarksAndFortranReals) {
  using namespace lsdyna::detail;
  EXPECT_EQ(parse_keyword("*node %").name, "NODE");
  EXPECT_EQ(parse_keyword("*NODE %").mode, FieldMode::i10);
  EXPECT_EQ(parse_keyword("*ELEMENT_SOLID+").mode, FieldMode::long_format);
  EXPECT_EQ(parse_keyword("*MAT_SAMP-1").name, "MAT_SAMP-1");
  EXPECT_EQ(keyword_mode("LONG=S", FieldMode::standard), FieldMode::long_format);
  EXPECT_EQ(keyword_mode("1000000 I10=Y", FieldMode::standard), FieldMode::i10);
  EXPECT_EQ(parse_real("1.00000+4"), 1.0e4);
  EXPECT_EQ(parse_real("-2.5D-3"), -2.5e-3);
  EXPECT_EQ(parse_real(""), 0.0);
  EXPECT_FALSE(parse_real("1.0.0"));
  EXPECT_FALSE(parse_integer("&nid"));
}

TEST(LsdynaCards, LinesToNextKeywordCountsRecordLines) {
  using namespace lsdyna::detail;
  std::mt19937 random(11);
  const std::string pieces[] = {"       1       2\n", "$ comment\n", "\n", "1,2,3\n", "  *not a keyword\n", "$\n"};
  for (int round = 0; round < 300; ++round) {
    std::string section;
    const int lines = static_cast<int>(random() % 60);
    std::uint64_t expected = 0;
    for (int k = 0; k < lines; ++k) {
      const std::string& piece = pieces[random() % 6];
      section += piece;
      expected += piece.front() != '$';
    }
    const bool at_end = random() % 2 == 0;
    std::string document = section + (at_end ? "" : "*NODE\n1,0,0,0\n");
    if (at_end && random() % 2 == 0 && !document.empty() && document.back() == '\n' && document.front() != '$') {
      document += "9 9";  // a last line without its newline
      ++expected;
    }
    Lines walker(document);
    EXPECT_EQ(walker.lines_to_next_keyword(), expected) << document;
  }
}

// A deck large enough (> 4 MB) for its element section to be read on all cores.
std::string large_deck(int cells, const std::string& middle) {
  std::string deck = "*NODE\n";
  for (int i = 1; i <= cells + 7; ++i) deck += std::to_string(i) + "," + std::to_string(i) + ".5,0,0\n";
  deck += "*ELEMENT_SOLID\n$#   eid     pid      n1      n2      n3      n4      n5      n6      n7      n8\n";
  char line[96];
  for (int e = 1; e <= cells; ++e) {
    if (e == cells / 2) deck += middle;
    std::snprintf(line, sizeof line, "%8d%8d%8d%8d%8d%8d%8d%8d%8d%8d\n", e, 1 + e % 3, e, e + 1, e + 2, e + 3, e + 4, e + 5,
                  e + 6, e + 7);
    deck += line;
  }
  return deck + "*END\n";
}

TEST(LsdynaParallel, LargeSectionsReadAsTheSequentialLoopWould) {
  const int cells = 60000;  // 4.9 MB of element cards
  for (const std::string middle : {std::string(), std::string("$ a comment inside\n"), std::string("\n"),
                                   std::string("   99999       1       1       2       3       4       4       4       4       4\n")}) {
    const Mesh mesh = lsdyna::read(write_scratch("large.k", large_deck(cells, middle)));
    const bool tet = middle.find("99999") != std::string::npos;
    ASSERT_EQ(block_summary(mesh), tet ? "hexahedron:" + std::to_string(cells) + ";tetra:1" : "hexahedron:" + std::to_string(cells));
    for (const std::int64_t e : {0, 1, cells / 2, cells - 1})
      EXPECT_EQ(row(mesh, 0, e), (std::vector<std::int64_t>{e, e + 1, e + 2, e + 3, e + 4, e + 5, e + 6, e + 7}));
    ASSERT_EQ(mesh.regions.size(), 0u);
  }
  // An undefined node deep in the section: the line of its card.
  std::string deck = large_deck(cells, "  888888       1       1       2       3       4       5       6       7 9999999\n");
  const ReadError error = expect_read_error([&] { lsdyna::read(write_scratch("large_bad.k", deck)); });
  EXPECT_NE(std::string(error.what()).find("SOLID element 888888 refers to node 9999999"), std::string::npos) << error.what();
  EXPECT_EQ(error.line(), static_cast<std::uint64_t>(1 + (cells + 7) + 2 + cells / 2));
}

// ---- element forms -------------------------------------------------------------------

std::string nodes_deck(int count) {
  std::string deck = "*NODE\n";
  for (int i = 1; i <= count; ++i)
    deck += std::to_string(i) + "," + std::to_string(i % 3) + "," + std::to_string(i / 3 % 3) + "," + std::to_string(i / 9) + "\n";
  return deck;
}

TEST(LsdynaElements, DegenerateSolidsBecomeTheirCells) {
  const std::string deck = nodes_deck(12) +
                           "*ELEMENT_SOLID\n"
                           "1,1,1,2,3,4,4,4,4,4\n"      // tet
                           "2,1,1,2,3,3,4,4,4,4\n"      // tet, other form
                           "3,1,1,2,3,4,5,5,5,5\n"      // pyramid
                           "4,1,1,2,3,4,5,5,6,6\n"      // wedge: triangles 1 5 2 / 4 6 3
                           "5,1,1,2,3,3,5,6,7,7\n"      // wedge: triangles 1 2 3 / 5 6 7
                           "6,1,1,2,3,4,5,6,7,8\n"      // hexahedron
                           "*ELEMENT_SOLID\n"
                           "$ two-line form\n"
                           "7,1\n1,2,3,4,5,6,7,8,9,10\n"  // tetra10
                           "8,1\n1,2,3,4,4,4,4,4\n"       // tet in the two-line form
                           "9,1\n1,2,3,4\n"               // four nodes
                           "*ELEMENT_TSHELL\n10,2,1,2,3,3,5,6,7,7\n"
                           "*ELEMENT_SOLID_TET4TOTET10\n11,1,1,2,3,4,4,4,4,4\n";
  const Mesh mesh = lsdyna::read(write_scratch("solids.k", deck));
  EXPECT_EQ(block_summary(mesh), "tetra:2;pyramid:1;wedge:2;hexahedron:1;tetra10:1;tetra:2;wedge:1;tetra:1");
  EXPECT_EQ(row(mesh, 0, 1), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(row(mesh, 1, 0), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(row(mesh, 2, 0), (std::vector<std::int64_t>{0, 4, 1, 3, 5, 2}));
  EXPECT_EQ(row(mesh, 2, 1), (std::vector<std::int64_t>{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(row(mesh, 4, 0), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(row(mesh, 6, 0), (std::vector<std::int64_t>{0, 1, 2, 4, 5, 6}));  // the thick shell
}

TEST(LsdynaElements, ShellsBeamsDiscreteSphMassAndOptionCards) {
  const std::string deck = nodes_deck(9) +
                           "*ELEMENT_SHELL_THICKNESS\n"
                           "       1       1       1       2       3       4\n"
                           "             0.1             0.1             0.1             0.1\n"
                           "       2       1       1       2       3\n"
                           "             0.1             0.1             0.1\n"
                           "       3       1       1       2       3       4       5       6       7       8\n"
                           "      0.1      0.1\n"
                           "      0.2      0.2\n"  // THIC5..8 of an 8-node shell
                           "       4       1       1       2       3       3       5       6       7       7\n"
                           "\n"
                           "\n"
                           "*ELEMENT_BEAM_THICKNESS_PID\n"
                           "       5       2       1       2       3\n"
                           "     1.0     1.0\n"
                           "       1       1\n"
                           "*ELEMENT_DISCRETE\n       6       3       8       9\n"
                           "*ELEMENT_SPH\n       9       4   1.0e-04\n"
                           "*ELEMENT_MASS\n       7       5            0.25       4\n"
                           "*ELEMENT_SHELL_COMPOSITE\n       8       1       1       2       3       4\n    1  0.1  0.0\n";
  const Mesh mesh = lsdyna::read(write_scratch("shells.k", deck));
  EXPECT_EQ(block_summary(mesh), "quad:1;triangle:1;quad8:1;triangle6:1;line:1;line:1;vertex:1;vertex:1");
  EXPECT_EQ(row(mesh, 3, 0), (std::vector<std::int64_t>{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(row(mesh, 4, 0), (std::vector<std::int64_t>{0, 1}));  // N3 orients the beam
  EXPECT_EQ(row(mesh, 5, 0), (std::vector<std::int64_t>{7, 8}));
  EXPECT_EQ(row(mesh, 6, 0), (std::vector<std::int64_t>{8}));  // the SPH node
  EXPECT_EQ(row(mesh, 7, 0), (std::vector<std::int64_t>{4}));
}

// ---- parts and sets ------------------------------------------------------------------

TEST(LsdynaRegions, PartsAndEverySetForm) {
  const std::string deck = nodes_deck(8) +
                           "*ELEMENT_SHELL\n1,1,1,2,3,4\n2,1,5,6,7,8\n3,2,1,2,6,5\n"
                           "*ELEMENT_SOLID\n10,3,1,2,3,4,5,6,7,8\n"
                           "*PART\n$ title\nfront plate\n         1         1         1\n"
                           "$ a second part in the same keyword, blank title\n\n         2         1         1\n"
                           "*PART_CONTACT\nbrick\n         3         2         2\n         0.1\n"
                           "*SET_NODE_LIST_TITLE\ncorner nodes\n        10\n         1         3         3         0         8\n"
                           "*SET_NODE_LIST_GENERATE\n        11\n         2         4         7        99\n"
                           "*SET_NODE_LIST_GENERATE_INCREMENT\n        12\n         1         8         3\n"
                           "*SET_SHELL_LIST\n         5\n         3         1\n"
                           "*SET_SHELL_GENERATE\n         6\n         1         2\n"
                           "*SET_SOLID\n         7\n        10\n"
                           "*SET_PART_LIST\n         8\n         3         2\n"
                           "*SET_PART_LIST_GENERATE\n         9\n         1         2\n"
                           "*SET_NODE_ADD\n        13\n        10        11\n"
                           "*SET_SEGMENT\n        14\n         1         2         3         4\n";
  const Mesh mesh = lsdyna::read(write_scratch("sets.k", deck));
  EXPECT_EQ(block_summary(mesh), "quad:3;hexahedron:1");
  ASSERT_EQ(mesh.regions.size(), 12u);
  // The segment is the brick's bottom face (test_lsdyna_segments.cpp has the other forms).
  EXPECT_EQ(mesh.regions[11].name, "SEGMENT set 14");
  EXPECT_EQ(mesh.regions[11].kind, RegionKind::Side);
  EXPECT_EQ(int_values(mesh.regions[11].entries), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(mesh.regions[0].name, "front plate");
  EXPECT_EQ(mesh.regions[0].dim, 2);
  EXPECT_EQ(int_values(mesh.regions[0].entries), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(mesh.regions[1].name, "Part 2");
  EXPECT_EQ(mesh.regions[2].name, "brick");
  EXPECT_EQ(mesh.regions[2].tag, 3);
  EXPECT_EQ(mesh.regions[2].dim, 3);
  EXPECT_EQ(entries(mesh, "corner nodes"), (std::vector<std::int64_t>{0, 2, 7}));  // repeats dropped
  EXPECT_EQ(find_region(mesh, "corner nodes")->kind, RegionKind::Point);
  EXPECT_EQ(find_region(mesh, "corner nodes")->tag, 10);
  EXPECT_EQ(entries(mesh, "NODE set 11"), (std::vector<std::int64_t>{1, 2, 3, 6, 7}));  // 7..99: those there
  EXPECT_EQ(entries(mesh, "NODE set 12"), (std::vector<std::int64_t>{0, 3, 6}));
  EXPECT_EQ(entries(mesh, "SHELL set 5"), (std::vector<std::int64_t>{2, 0}));  // file order
  EXPECT_EQ(entries(mesh, "SHELL set 6"), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(entries(mesh, "SOLID set 7"), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(entries(mesh, "PART set 8"), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(entries(mesh, "PART set 9"), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(find_region(mesh, "PART set 9")->dim, -1);
}

TEST(LsdynaRegions, HugeGenerateRangesWalkTheIds) {
  const std::string deck = nodes_deck(3) + "*SET_NODE_GENERATE\n1\n1,9000000000000000000\n";
  const Mesh mesh = lsdyna::read(write_scratch("range.k", deck));
  EXPECT_EQ(entries(mesh, "NODE set 1"), (std::vector<std::int64_t>{0, 1, 2}));
}

// ---- includes ------------------------------------------------------------------------

TEST(LsdynaInclude, RelativeToTheIncludingFileAndIncludePaths) {
  const fs::path dir = scratch_dir();
  fs::create_directories(dir / "sub" / "deeper");
  fs::create_directories(dir / "lib");
  write_file(dir / "main.k", "*KEYWORD\n*INCLUDE\nsub/part.k\n*INCLUDE_PATH_RELATIVE\nlib\n*INCLUDE\nshells.k\n*END\n*NODE\n99,0,0,0\n");
  write_file(dir / "sub" / "part.k", nodes_deck(4) + "*INCLUDE\ndeeper\\\\elements.k\n");
  write_file(dir / "sub" / "deeper" / "elements.k", "*ELEMENT_SOLID\n1,1,1,2,3,4,4,4,4,4\n*END\n*NODE\n98,0,0,0\n");
  write_file(dir / "lib" / "shells.k", "*ELEMENT_SHELL\n2,2,1,2,3\n");
  const Mesh mesh = lsdyna::read((dir / "main.k").string());
  EXPECT_EQ(mesh.num_points(), 4);  // *END ends each file: nodes 98, 99 are not read
  EXPECT_EQ(block_summary(mesh), "tetra:1;triangle:1");
}

TEST(LsdynaInclude, LoopsAndMissingFilesAreErrors) {
  const fs::path dir = scratch_dir();
  write_file(dir / "a.k", "*INCLUDE\nb.k\n");
  write_file(dir / "b.k", "$ b\n*INCLUDE\na.k\n");
  const ReadError loop = expect_read_error([&] { lsdyna::read((dir / "a.k").string()); });
  EXPECT_NE(std::string(loop.what()).find("makes a loop"), std::string::npos) << loop.what();
  EXPECT_EQ(loop.line(), 3u);
  EXPECT_EQ(fs::path(loop.path()).filename(), "b.k");
  write_file(dir / "c.k", "*KEYWORD\n*INCLUDE\nnowhere.k\n");
  const ReadError missing = expect_read_error([&] { lsdyna::read((dir / "c.k").string()); });
  EXPECT_NE(std::string(missing.what()).find("'nowhere.k' not found"), std::string::npos) << missing.what();
  EXPECT_EQ(missing.line(), 3u);
}

// ---- errors --------------------------------------------------------------------------

TEST(LsdynaErrors, NameTheFileAndLine) {
  struct Case {
    std::string deck, message;
    std::uint64_t line;
  };
  const std::vector<Case> cases{
      {"*NODE\n1,0,0,0\nx,0,0,0\n", "expected an integer node id, found 'x'", 3},
      {"*NODE\n1,0,0,zero\n", "expected a real coordinate, found 'zero'", 2},
      {"*NODE\n1,0,0,0\n1,1,0,0\n", "node 1 is defined twice", 3},
      {"*NODE\n1,0,0,0\n*ELEMENT_BEAM\n$\n5,1,1,2\n", "BEAM element 5 refers to node 2, which is not defined", 5},
      {"*ELEMENT_SOLID\n7,1\n*NODE\n", "the node card of the two-line form is missing", 2},
      {"*ELEMENT_SOLID\n7,1,1,2,3,4,5\n", "gives 5 nodes", 2},
      {nodes_deck(4) + "*ELEMENT_SHELL\n1,1,1,2,3\n1,1,1,2,4\n", "SHELL element 1 is defined twice", 8},
      {"*ELEMENT_SHELL_THICKNESS\n1,1,1,2,3\n", "option cards", 2},
      {"*PART\np\n1\n*PART\nq\n1\n", "part 1 is defined twice", 6},
      {"*SET_NODE_LIST\n1\n1,&n\n", "expected an integer id, found '&n'", 3},
  };
  for (const Case& c : cases) {
    const std::string path = write_scratch("bad.k", c.deck);
    const ReadError error = expect_read_error([&] { lsdyna::read(path); });
    EXPECT_NE(std::string(error.what()).find(c.message), std::string::npos) << error.what();
    EXPECT_EQ(error.line(), c.line) << c.deck;
    EXPECT_EQ(error.path(), path);
    EXPECT_EQ(error.format(), "lsdyna");
  }
  expect_read_error([&] { lsdyna::read(write_scratch("empty.k", "")); });
  expect_read_error([&] { lsdyna::read(scratch("absent.k").string()); });
}

// ---- round trips ---------------------------------------------------------------------

Mesh every_type(int dimension) {
  const std::vector<std::string> types{"vertex", "line",  "triangle",   "quad",   "triangle6", "quad8",
                                       "tetra",  "pyramid", "wedge", "hexahedron", "tetra10"};
  Mesh mesh;
  const std::int64_t num_points = 60;
  mesh.points = NDArray::allocate(DType::float64, {num_points, dimension});
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> value(-1e3, 1e3);
  for (double& x : mesh.points.values<double>()) x = value(random) / 7.0;
  double* x = mesh.points.data_as<double>();
  x[0] = 1e-300;
  x[1] = -0.0;
  x[2] = std::numeric_limits<double>::max();
  x[3] = -std::numeric_limits<double>::denorm_min();
  x[4] = 1.0;
  x[5] = 12345678901234567.0;
  std::int64_t first = 0;
  for (const std::string& type : types) {
    const std::int64_t width = cell_type(type).num_nodes;
    std::vector<std::int64_t> nodes;
    for (std::int64_t r = 0; r < 3; ++r)
      for (std::int64_t k = 0; k < width; ++k) nodes.push_back((first + r * width + k) % num_points);
    first += 7;
    mesh.cells.push_back(CellBlock{type, int64_matrix(3, width, nodes), {}, {}});
  }
  return mesh;
}

void expect_same_cells(const Mesh& read, const Mesh& mesh) {
  ASSERT_EQ(read.cells.size(), mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    EXPECT_EQ(read.cells[b].type, mesh.cells[b].type);
    EXPECT_TRUE(same_bits(read.cells[b].connectivity, mesh.cells[b].connectivity)) << mesh.cells[b].type;
  }
}

TEST(LsdynaRoundTrip, EveryTypeBitForBitWithPartsAndSets) {
  Mesh mesh = every_type(3);
  // Parts for the shells (blocks 2-5: cells 6..17) and the solids (18..32), a cell set
  // across families, a node set; the vertices and lines get a part per block.
  std::vector<std::int64_t> shells, solids;
  for (std::int64_t c = 6; c < 18; ++c) shells.push_back(c);
  for (std::int64_t c = 18; c < 33; ++c) solids.push_back(c);
  mesh.regions.push_back(cell_region("*skin", 2, 7, shells));
  mesh.regions.push_back(cell_region("solids", 3, -1, solids));
  mesh.regions.push_back(cell_region("picked", -1, 4, {20, 7}));
  Region nodes;
  nodes.name = "fixed";
  nodes.kind = RegionKind::Point;
  nodes.tag = 3;
  nodes.entries = int64_vector({5, 1, 59});
  mesh.regions.push_back(nodes);
  const std::string path = scratch("every.k").string();
  lsdyna::write(path, mesh, {});
  const std::string text = read_file(path);
  EXPECT_EQ(text.rfind("*KEYWORD\n", 0), 0u);
  // A free-format line for what 16 columns cannot hold; fixed columns elsewhere.
  EXPECT_NE(text.find("\n1,1.0e-300,-0.0,1.7976931348623157e+308\n"), std::string::npos);
  EXPECT_NE(text.find("*END\n"), std::string::npos);
  const Mesh read = lsdyna::read(path);
  EXPECT_TRUE(same_bits(read.points, mesh.points));
  expect_same_cells(read, mesh);
  ASSERT_EQ(read.regions.size(), 7u);
  EXPECT_EQ(read.regions[0].name, "*skin");
  EXPECT_EQ(read.regions[0].tag, 7);
  EXPECT_EQ(read.regions[0].dim, 2);
  EXPECT_EQ(int_values(read.regions[0].entries), shells);
  EXPECT_EQ(read.regions[1].name, "solids");
  EXPECT_EQ(read.regions[1].tag, 8);  // the next free pid
  EXPECT_EQ(int_values(read.regions[1].entries), solids);
  EXPECT_EQ(read.regions[2].name, "vertex");  // a part per block for cells in none
  EXPECT_EQ(int_values(read.regions[2].entries), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(read.regions[3].name, "line");
  EXPECT_EQ(read.regions[4].name, "picked");  // sets in the order of the regions: its solid cell
  EXPECT_EQ(int_values(read.regions[4].entries), (std::vector<std::int64_t>{20}));
  EXPECT_EQ(read.regions[5].name, "picked");  // and its shell
  EXPECT_EQ(int_values(read.regions[5].entries), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(read.regions[6].name, "fixed");
  EXPECT_EQ(read.regions[6].kind, RegionKind::Point);
  EXPECT_EQ(read.regions[6].tag, 3);
  EXPECT_EQ(int_values(read.regions[6].entries), (std::vector<std::int64_t>{5, 1, 59}));
}

TEST(LsdynaRoundTrip, PlanarPointsGetZeroZ) {
  Mesh mesh = every_type(2);
  mesh.cells.resize(4);  // vertex, line, triangle, quad
  const std::string path = scratch("planar.k").string();
  lsdyna::write(path, mesh, {});
  const Mesh read = lsdyna::read(path);
  ASSERT_EQ(read.points.dim(1), 3);
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
    EXPECT_EQ(point(read, i)[0], mesh.points.data_as<double>()[2 * i]);
    EXPECT_EQ(point(read, i)[2], 0.0);
  }
  expect_same_cells(read, mesh);
}

TEST(LsdynaRoundTrip, RefusesCellsWithoutAnElement) {
  Mesh mesh = every_type(3);
  mesh.cells.push_back(CellBlock{"line3", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  const std::string path = scratch("refused.k").string();
  EXPECT_THROW(lsdyna::write(path, mesh, {}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(path));
}

TEST(LsdynaRoundTrip, RealDeckThroughOurWriter) {
  const Mesh mesh = lsdyna::read(data("bird/bird_B.k"));
  const std::string path = scratch("bird.k").string();
  lsdyna::write(path, mesh, {});
  const Mesh read = lsdyna::read(path);
  EXPECT_TRUE(same_bits(read.points, mesh.points));
  expect_same_cells(read, mesh);
  ASSERT_EQ(read.regions.size(), mesh.regions.size());
  for (std::size_t i = 0; i < mesh.regions.size(); ++i) {
    EXPECT_EQ(read.regions[i].name, mesh.regions[i].name);
    EXPECT_TRUE(same_bits(read.regions[i].entries, mesh.regions[i].entries)) << mesh.regions[i].name;
  }
}

}  // namespace
