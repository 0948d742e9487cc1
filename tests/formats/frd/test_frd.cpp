// CalculiX .frd results: files of ccx's own test suite, every element type with its node order,
// short and long formats, steps grouped from result blocks, malformed input with its line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "formats/frd/frd.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/threads.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "frd" / name).string(); }

// Short format (I5 ids): a wedge, a pe15 and a he20 in cgx's node order, two steps.
std::string short_file() {
  std::string text =
      "    1C\n"
      "    1UUSER\n"
      "    1UMAT    3STEEL\n"
      "    2C                            20                                     0\n";
  for (int i = 1; i <= 20; ++i) {
    char line[80];
    std::snprintf(line, sizeof line, " -1%5d%12.5E%12.5E%12.5E\n", i, 0.5 * i, -1.0 * i, i == 20 ? 1.5e-100 : 0.25);
    text += line;
  }
  text +=
      " -3\n"
      "    3C                             3                                     0\n"
      " -1    1    2    0    3\n"
      " -2    1    2    3    4    5    6\n"
      " -1    2    5    0    3\n"
      " -2    1    2    3    4    5    6    7    8    9   10   11   12   13   14   15\n"
      " -1    3    4    7    1\n"
      " -2    1    2    3    4    5    6    7    8    9   10   11   12   13   14   15\n"
      " -2   16   17   18   19   20\n"
      " -3\n"
      "    1PSTEP                         1           1           1\n"
      "  100CL  101 1.00000E+00          20                     0    1           0\n"
      " -4  DISP        4    1\n"
      " -5  D1          1    2    1    0\n"
      " -5  D2          1    2    2    0\n"
      " -5  D3          1    2    3    0\n"
      " -5  ALL         1    2    0    0    1ALL\n"
      " -1    1 1.00000E+00 2.00000E+00 3.00000E+00\n"
      " -1    7-1.00000E+00-2.00000E+00 1.23456+100\n"
      " -3\n"
      "  100CL  101 1.00000E+00          20                     0    1           0\n"
      " -4  STRESS      6    1\n"
      " -5  SXX         1    4    1    1\n"
      " -5  SYY         1    4    2    2\n"
      " -5  SZZ         1    4    3    3\n"
      " -5  SXY         1    4    1    2\n"
      " -5  SYZ         1    4    2    3\n"
      " -5  SZX         1    4    3    1\n"
      " -1    2 1.00000E+00 2.00000E+00 3.00000E+00 4.00000E+00 5.00000E+00 6.00000E+00\n"
      " -3\n"
      "  100CL  102 2.50000E+00          20                     0    2           0\n"
      " -4  NDTEMP      1    1\n"
      " -5  T           1    1    0    0\n"
      " -1   20 NaN\n"
      " -3\n"
      " 9999\n";
  return text;
}

}  // namespace

TEST(FrdRead, ShortFormatEveryOrderAndTheLastStep) {
  const std::string path = write_scratch("short.frd", short_file());
  const Mesh mesh = frd::read(path);
  ASSERT_EQ(mesh.points.shape(), (Shape{20, 3}));
  EXPECT_EQ(mesh.points.data_as<double>()[19 * 3 + 0], 10.0);
  ASSERT_EQ(mesh.cells.size(), 3u);
  EXPECT_EQ(mesh.cells[0].type, "wedge");
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
  // pe15 and he20: the file's vertical mid-edges (after the bottom ones) go after the top ones.
  EXPECT_EQ(mesh.cells[1].type, "wedge15");
  EXPECT_EQ(nodes_of(mesh.cells[1]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11}));
  EXPECT_EQ(mesh.cells[2].type, "hexahedron20");
  EXPECT_EQ(nodes_of(mesh.cells[2]),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15}));
  EXPECT_EQ(int_values(mesh.cell_data.find("frd:group")->at(2)), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(int_values(mesh.cell_data.find("frd:material")->at(0)), (std::vector<std::int64_t>{3}));
  // read(): the last step (time 2.5, step 2) only.
  ASSERT_EQ(mesh.point_data.size(), 1u);
  const NDArray& t = *mesh.point_data.find("NDTEMP");
  EXPECT_EQ(t.shape(), (Shape{20}));
  EXPECT_TRUE(std::isnan(t.data_as<double>()[0]));
  EXPECT_TRUE(std::isnan(t.data_as<double>()[19]));  // written as NaN
  EXPECT_EQ(mesh.field_data.find("frd:time")->data_as<double>()[0], 2.5);
  EXPECT_EQ(mesh.field_data.find("frd:step")->data_as<std::int64_t>()[0], 2);
  EXPECT_EQ(*mesh.string_field_data.find("frd:components:NDTEMP"), (std::vector<std::string>{"T"}));
  EXPECT_EQ(*mesh.string_field_data.find("frd:material_names"), (std::vector<std::string>{"STEEL"}));

  auto series = open_time_series(path, "frd");
  ASSERT_EQ(series->num_steps(), 2u);
  EXPECT_EQ(series->time(0), 1.0);
  const TimeStep first = series->read_step(0);
  ASSERT_EQ(first.point_data.size(), 2u);  // DISP and STRESS: one step number and value
  const NDArray& disp = *first.point_data.find("DISP");
  EXPECT_EQ(disp.shape(), (Shape{20, 3}));
  EXPECT_EQ(disp.data_as<double>()[0 * 3 + 2], 3.0);
  EXPECT_EQ(disp.data_as<double>()[6 * 3 + 2], 1.23456e100);  // the E left out of a 3-digit exponent
  EXPECT_TRUE(std::isnan(disp.data_as<double>()[1 * 3]));
  const NDArray& stress = *first.point_data.find("STRESS");
  EXPECT_EQ(stress.shape(), (Shape{20, 6}));
  EXPECT_EQ(stress.data_as<double>()[1 * 6 + 5], 6.0);
  EXPECT_THROW(series->read_step(2), ReadError);
}

TEST(FrdRead, CcxFilesEveryElementType) {
  Mesh mesh = frd::read(data_file("simplebeam.frd"));  // be3: ends, then the middle node
  ASSERT_EQ(mesh.cells[0].type, "line3");
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 2, 1}));
  EXPECT_EQ(mesh.points.data_as<double>()[1 * 3 + 2], 5.0);  // node 2 halfway along z
  EXPECT_EQ(mesh.point_data.size(), 2u);

  mesh = frd::read(data_file("artery3.frd"));
  ASSERT_EQ(mesh.cells.size(), 3u);
  EXPECT_EQ(mesh.cells[0].type, "quad8");
  EXPECT_EQ(mesh.cells[1].type, "line");
  EXPECT_EQ(mesh.cells[1].num_cells(), 2);
  EXPECT_EQ(mesh.cells[2].type, "line3");

  for (const auto& [file, type, count] : std::vector<std::tuple<std::string, std::string, std::int64_t>>{
           {"planestress3.frd", "quad", 4}, {"membrane2.frd", "triangle", 4}, {"submodeltwobeamtemp.frd", "hexahedron20", 2},
           {"contactdeleteelement.frd", "tetra10", 5}, {"zerocoeff.frd", "hexahedron", 1}, {"channelcbs.frd", "hexahedron", 40}}) {
    mesh = frd::read(data_file(file));
    ASSERT_EQ(mesh.cells.size(), 1u) << file;
    EXPECT_EQ(mesh.cells[0].type, type) << file;
    EXPECT_EQ(mesh.cells[0].num_cells(), count) << file;
  }
  // A material given by name in the element records.
  EXPECT_EQ(*mesh.string_field_data.find("frd:material_names"), (std::vector<std::string>{"WATER"}));

  // he20 in VTK's order: each mid-side node at its edge's midpoint (beam of straight edges).
  mesh = frd::read(data_file("submodeltwobeamtemp.frd"));
  const double* xyz = mesh.points.data_as<double>();
  const int edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const std::vector<std::int64_t> hex = nodes_of(mesh.cells[0]);
  for (int e = 0; e < 12; ++e)
    for (int axis = 0; axis < 3; ++axis)
      EXPECT_NEAR(xyz[hex[8 + e] * 3 + axis], 0.5 * (xyz[hex[edges[e][0]] * 3 + axis] + xyz[hex[edges[e][1]] * 3 + axis]), 1e-9)
          << "edge " << e;
}

TEST(FrdRead, StepsOfAFrequencyAnalysis) {
  auto series = open_time_series(data_file("beamf.frd"), "frd");
  ASSERT_EQ(series->num_steps(), 10u);
  EXPECT_EQ(series->time(0), 13096.03106);
  const TimeStep mode = series->read_step(9);
  EXPECT_EQ(mode.point_data.find("DISP")->shape(), (Shape{261, 3}));
  EXPECT_EQ(mode.field_data.find("frd:step")->data_as<std::int64_t>()[0], 10);
  const Mesh mesh = series->read_mesh();
  EXPECT_EQ(mesh.cells[0].num_cells(), 32);
  // Values at nodes the nodal block does not define are passed over (*MODEL CHANGE files).
  const Mesh changed = frd::read(data_file("modelchel.frd"));
  EXPECT_EQ(changed.points.rows(), 258);
  EXPECT_EQ(changed.point_data.find("STRESS")->shape(), (Shape{258, 6}));
  // Tabs inside the -5 records (a ccx sensitivity run): ALL still left out.
  const Mesh sens = frd::read(data_file("sens2d.frd"));
  EXPECT_EQ(sens.point_data.size(), 1u);
}

TEST(FrdRead, BinaryFileAsItsAsciiTwin) {
  const Mesh binary = frd::read(data_file("beampdouble.frd"));
  const Mesh ascii = frd::read(data_file("beamp.frd"));
  ASSERT_EQ(binary.points.shape(), (Shape{261, 3}));
  EXPECT_TRUE(same_bits(binary.points, ascii.points));  // coordinates that E12.5 holds exactly
  ASSERT_EQ(binary.cells.size(), 1u);
  EXPECT_EQ(binary.cells[0].type, "hexahedron20");
  EXPECT_TRUE(same_bits(binary.cells[0].connectivity, ascii.cells[0].connectivity));
  const NDArray& b = *binary.point_data.find("DISP");
  const NDArray& a = *ascii.point_data.find("DISP");
  ASSERT_EQ(b.shape(), a.shape());
  for (std::size_t k = 0; k < b.size(); ++k)
    EXPECT_NEAR(b.data_as<double>()[k], a.data_as<double>()[k], 5e-6 * std::abs(a.data_as<double>()[k]) + 1e-12) << k;
}

TEST(FrdBadInput, ErrorsNameTheLine) {
  const std::string good = short_file();
  const auto fails = [](const std::string& name, const std::string& text) {
    return expect_read_error([&] { frd::read(write_scratch(name, text)); });
  };
  ReadError error = fails("a.frd", "    1C\n 9999\n");
  EXPECT_NE(error.reason().find("no nodal block"), std::string::npos);

  std::string text = good;
  text.replace(text.find(" -1    3 1.50000E+00"), 20, " -1    3 1.5x000E+00");
  error = fails("b.frd", text);
  EXPECT_NE(error.reason().find("invalid coordinate '1.5x000E+00'"), std::string::npos);
  EXPECT_EQ(error.line(), 7u);

  text = good;
  text.replace(text.find(" -1    2    5    0    3"), 23, " -1    2   55    0    3");
  error = fails("c.frd", text);
  EXPECT_NE(error.reason().find("element 2 has unknown type 55"), std::string::npos);

  text = good;
  text.replace(text.find(" -2    1    2    3    4    5    6\n"), 8, " -2   99");
  error = fails("d.frd", text);
  EXPECT_NE(error.reason().find("names node 99"), std::string::npos);
  EXPECT_EQ(error.line(), 28u);

  text = good;
  text.replace(text.find("                                     0\n"), 39, "                                     7\n");
  error = fails("e.frd", text);
  EXPECT_NE(error.reason().find("unknown format flag '7'"), std::string::npos);
  // Binary blocks cut short: refused before reading past the end.
  const std::string binary = read_file(data_file("beampdouble.frd"));
  error = fails("cut.frd", binary.substr(0, binary.find("    3C") - 100));
  EXPECT_NE(error.reason().find("binary nodal block of 261 records runs past the end of the file"), std::string::npos);
  error = fails("cut2.frd", binary.substr(0, binary.find("    3C") + 400));
  EXPECT_NE(error.reason().find("claims 32 elements"), std::string::npos);

  error = fails("f.frd", good.substr(0, good.find(" -2   16")));
  EXPECT_NE(error.reason().find("unexpected end of file inside the element"), std::string::npos);
  error = fails("g.frd", good.substr(0, good.find(" -5  D3")));
  EXPECT_NE(error.reason().find("needs 4 ' -5' component lines"), std::string::npos);

  // A node count claim larger than the file is refused before allocating.
  text = good;
  text.replace(text.find("    2C                            20"), 36, "    2C                  999999999999");
  error = fails("h.frd", text);
  EXPECT_NE(error.reason().find("nodes"), std::string::npos);

  // Steps are read when asked: a bad value shows then, with its line.
  text = good;
  text.replace(text.find(" -1    1 1.00000E+00 2.00000E+00"), 32, " -1    1 1.00000E+00 2.0000?E+00");
  auto series = open_time_series(write_scratch("i.frd", text), "frd");
  error = expect_read_error([&] { series->read_step(0); });
  EXPECT_NE(error.reason().find("invalid value of DISP '2.0000?E+00'"), std::string::npos);
  EXPECT_EQ(error.line(), 42u);
}

namespace {

// A long-format file as ccx writes it, large enough (about 11 MB) for the node and element
// blocks to be read on all cores: kLargeNodes nodes, the first ones a grid of cubes split in
// 6 tetrahedra each, the first kLargeElements of them the elements (materials 1..3).
constexpr int kLargeNodes = 100000, kLargeElements = 80000, kGrid = 41;
std::string element_head(int element) {
  char line[64];
  std::snprintf(line, sizeof line, " -1%10d%5d%5d%5d\n", element, 3, 0, 1 + element % 3);
  return line;
}
std::string large_file() {
  const int n = kGrid, cubes = kGrid - 1;
  std::string text = "    1C\n    1UUSER\n";
  char line[160];
  std::snprintf(line, sizeof line, "    2C%30d%37d\n", kLargeNodes, 1);
  text += line;
  for (int i = 0; i < kLargeNodes; ++i) {
    std::snprintf(line, sizeof line, " -1%10d%12.5E%12.5E%12.5E\n", i + 1, 0.1 * (i / (n * n)), 0.1 * (i / n % n), 0.1 * (i % n));
    text += line;
  }
  text += " -3\n";
  std::snprintf(line, sizeof line, "    3C%30d%37d\n", kLargeElements, 1);
  text += line;
  int element = 0;
  static constexpr int kKuhn[6][4] = {{0, 4, 6, 7}, {0, 4, 5, 7}, {0, 1, 5, 7}, {0, 1, 3, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}};
  for (int i = 0; i < cubes; ++i)
    for (int j = 0; j < cubes; ++j)
      for (int k = 0; k < cubes; ++k) {
        const int base = i * n * n + j * n + k;
        int corner[8];
        for (int c = 0; c < 8; ++c) corner[c] = base + (c >> 2) * n * n + ((c >> 1) & 1) * n + (c & 1) + 1;
        for (const auto& tet : kKuhn) {
          if (++element > kLargeElements) break;
          text += element_head(element);
          std::snprintf(line, sizeof line, " -2%10d%10d%10d%10d\n", corner[tet[0]], corner[tet[1]], corner[tet[2]], corner[tet[3]]);
          text += line;
        }
      }
  text += " -3\n    1PSTEP                         1           1           1\n";
  std::snprintf(line, sizeof line, "  100CL  101 0.000000000%12d                     0    1           1\n", kLargeNodes);
  text += line;
  text += " -4  DISP        4    1\n -5  D1          1    2    1    0\n -5  D2          1    2    2    0\n"
          " -5  D3          1    2    3    0\n -5  ALL         1    2    0    0    1ALL\n";
  for (int i = 0; i < kLargeNodes; ++i) {
    std::snprintf(line, sizeof line, " -1%10d%12.5E%12.5E%12.5E\n", i + 1, 1e-3 * i, -2e-3 * i, 0.5);
    text += line;
  }
  text += " -3\n 9999\n";
  return text;
}

// Reads `path` with one thread and with two; both must give the same mesh (or error).
Mesh read_at_one_and_two_threads(const std::string& path) {
  set_thread_count(1);
  Mesh one = frd::read(path);
  set_thread_count(2);
  Mesh two = frd::read(path);
  set_thread_count(0);
  EXPECT_TRUE(same_bits(one.points, two.points));
  EXPECT_EQ(one.cells.size(), two.cells.size());
  for (std::size_t b = 0; b < std::min(one.cells.size(), two.cells.size()); ++b) {
    EXPECT_TRUE(same_bits(one.cells[b].connectivity, two.cells[b].connectivity));
    for (const char* name : {"frd:group", "frd:material"})
      EXPECT_TRUE(same_bits((*one.cell_data.find(name))[b], (*two.cell_data.find(name))[b])) << name;
  }
  EXPECT_EQ(one.point_data.size(), two.point_data.size());
  for (const auto& [name, values] : one.point_data)
    if (const NDArray* other = two.point_data.find(name)) EXPECT_TRUE(same_bits(values, *other)) << name;
  return two;
}

}  // namespace

TEST(FrdRead, LargeBlocksOnAllCoresAsOnOne) {
  const std::string text = large_file();
  const Mesh mesh = read_at_one_and_two_threads(write_scratch("large.frd", text));
  const std::int64_t points = kLargeNodes, cells = kLargeElements;
  ASSERT_EQ(mesh.points.rows(), points);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "tetra");
  ASSERT_EQ(mesh.cells[0].num_cells(), cells);
  const std::vector<std::int64_t> nodes = nodes_of(mesh.cells[0]);
  EXPECT_EQ(std::vector<std::int64_t>(nodes.begin(), nodes.begin() + 4), (std::vector<std::int64_t>{0, 41 * 41, 41 * 41 + 41, 41 * 41 + 42}));
  EXPECT_EQ(nodes[4 * (cells - 1)], (cells - 1) / 6 / (kGrid - 1) / (kGrid - 1) * kGrid * kGrid + (cells - 1) / 6 / (kGrid - 1) % (kGrid - 1) * kGrid + (cells - 1) / 6 % (kGrid - 1));
  const std::vector<std::int64_t> materials = int_values((*mesh.cell_data.find("frd:material"))[0]);
  EXPECT_EQ(materials[0], 2);
  EXPECT_EQ(materials[cells - 1], 1 + cells % 3);
  EXPECT_DOUBLE_EQ(mesh.points.data_as<double>()[3 * (points - 1) + 2], 0.1 * ((points - 1) % kGrid));
  const NDArray* displacement = mesh.point_data.find("DISP");
  ASSERT_NE(displacement, nullptr);
  ASSERT_EQ(displacement->rows(), points);
  EXPECT_DOUBLE_EQ(displacement->data_as<double>()[3 * 12345], 12.345);
  EXPECT_DOUBLE_EQ(displacement->data_as<double>()[3 * 12345 + 1], -24.69);

  // A node listed twice in the results: read by the sequential loop, where the last line wins.
  std::string twice = text;
  const std::size_t result_line = twice.find(" -1     12346 1.23450E+01");
  ASSERT_NE(result_line, std::string::npos);
  twice.replace(result_line, 13, " -1     54321");
  const Mesh with_twice = read_at_one_and_two_threads(write_scratch("twice.frd", twice));
  EXPECT_DOUBLE_EQ(with_twice.point_data.find("DISP")->data_as<double>()[3 * 54320], 54.32);  // its own line comes later
  EXPECT_TRUE(std::isnan(with_twice.point_data.find("DISP")->data_as<double>()[3 * 12345]));  // no line names node 12346 now

  // A material name deep in the block: the sequential loop reads the block, numbering it.
  std::string named = text;
  named.replace(named.find(element_head(70000)), element_head(70000).size(), element_head(70000).substr(0, 23) + "WATER\n");
  const Mesh with_name = read_at_one_and_two_threads(write_scratch("named.frd", named));
  EXPECT_EQ(int_values((*with_name.cell_data.find("frd:material"))[0])[69999], 1);
  EXPECT_EQ(int_values((*with_name.cell_data.find("frd:material"))[0])[69998], 1 + 69999 % 3);

  // Errors deep in either block: the same message, line and offset at one thread and two.
  const std::size_t node_line = text.find(" -1     90000");
  const std::size_t element_line = text.find('\n', text.find(element_head(70000))) + 1;
  for (const auto& [offset, field, message] :
       {std::tuple<std::size_t, std::string, std::string>{node_line + 27, "?", "invalid coordinate"},
        {text.find(" -1     90000", text.find("DISP")) + 27, "?", "invalid value of DISP"},
        {element_line + 3, "    999999", "names node 999999"}}) {
    std::string broken = text;
    broken.replace(offset, field.size(), field);
    const std::string path = write_scratch("broken.frd", broken);
    std::vector<std::string> messages;
    for (unsigned threads : {1u, 2u}) {
      set_thread_count(threads);
      const ReadError error = expect_read_error([&] { frd::read(path); });
      set_thread_count(0);
      EXPECT_NE(error.reason().find(message), std::string::npos) << error.what();
      EXPECT_EQ(error.byte_offset(), field == "?" ? offset - 2 : offset) << error.what();
      messages.push_back(error.what());
    }
    EXPECT_EQ(messages[0], messages[1]);
  }
}
