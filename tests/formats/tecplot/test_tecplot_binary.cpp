// Tecplot binary .plt: a file written by Tecplot 360 (Tecplot's handyscripts), round trips
// through our writer, zones over time as a time series (a step reads only its zones), ordered
// zones with cell-centred ghosts, and hostile input (ReadError with the byte offset).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/tecplot/tecplot_binary.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data_file(const std::string& name) {
  return (meshioplusplus::testing::test_data_dir() / "tecplot_binary" / name).string();
}

// A little builder of .plt bytes (little-endian, #!TDV112).
struct Plt {
  std::string bytes = "#!TDV112";
  void i32(std::int32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); }
  void f32(float v) { bytes.append(reinterpret_cast<const char*>(&v), 4); }
  void f64(double v) { bytes.append(reinterpret_cast<const char*>(&v), 8); }
  void text(std::string_view s) {
    for (char c : s) i32(c);
    i32(0);
  }
};

struct ZoneSpec {
  std::string name;
  std::int32_t strand;
  double time;
  std::int32_t type;  // 0 ordered, 2 triangle
  std::vector<std::int32_t> ijk;  // ordered
  std::int64_t points, cells;
  std::vector<char> cell_centered;
};

// Variables X, Y, T; every zone's values are given per variable, connectivity 0-based.
std::string make_plt(const std::vector<ZoneSpec>& zones, const std::vector<std::vector<std::vector<double>>>& values,
                     const std::vector<std::vector<std::int32_t>>& connectivity) {
  Plt p;
  p.i32(1);
  p.i32(0);
  p.text("test");
  p.i32(3);
  p.text("X"), p.text("Y"), p.text("T");
  for (const ZoneSpec& z : zones) {
    p.f32(299.0f);
    p.text(z.name);
    p.i32(-1);
    p.i32(z.strand);
    p.f64(z.time);
    p.i32(-1);
    p.i32(z.type);
    p.i32(1);
    for (char c : z.cell_centered) p.i32(c);
    p.i32(0);
    p.i32(0);
    if (z.type == 0) {
      for (std::int32_t d : z.ijk) p.i32(d);
    } else {
      p.i32(static_cast<std::int32_t>(z.points));
      p.i32(static_cast<std::int32_t>(z.cells));
      p.i32(0), p.i32(0), p.i32(0);
    }
    p.i32(0);
  }
  p.f32(357.0f);
  for (std::size_t k = 0; k < zones.size(); ++k) {
    p.f32(299.0f);
    for (int v = 0; v < 3; ++v) p.i32(2);
    p.i32(0);
    p.i32(0);
    p.i32(-1);
    for (int v = 0; v < 3; ++v) p.f64(0.0), p.f64(1.0);
    for (const std::vector<double>& column : values[k])
      for (double x : column) p.f64(x);
    for (std::int32_t n : connectivity[k]) p.i32(n);
  }
  return p.bytes;
}

Mesh sample_mesh() {
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {9, 3});
  for (std::int64_t k = 0; k < 27; ++k) mesh.points.data_as<double>()[k] = 0.1 * static_cast<double>(k * k % 17) + 1e-17 * k;
  CellBlock tets{"tetra", int64_matrix(2, 4, {0, 1, 2, 3, 1, 2, 3, 4}), {}, {}};
  CellBlock hexes{"hexahedron", int64_matrix(1, 8, {0, 1, 2, 3, 4, 5, 6, 7}), {}, {}};
  CellBlock triangles{"triangle", int64_matrix(2, 3, {0, 1, 8, 2, 3, 8}), {}, {}};
  mesh.cells = {tets, hexes, triangles};
  NDArray u = NDArray::allocate(DType::float64, {9, 2});
  for (std::int64_t k = 0; k < 18; ++k) u.data_as<double>()[k] = std::sqrt(static_cast<double>(k));
  mesh.point_data.set("u", u);
  NDArray t = NDArray::allocate(DType::float32, {9});
  for (std::int64_t k = 0; k < 9; ++k) t.data_as<float>()[k] = 0.5f * static_cast<float>(k);
  mesh.point_data.set("temperature", t);
  mesh.cell_data.set("p", {NDArray::from_values<double>({1.5, 2.5}), NDArray::from_values<double>({3.5}),
                           NDArray::from_values<double>({4.5, 5.25})});
  mesh.regions.push_back(cell_region("solid", 3, 1, {0, 1}));
  return mesh;
}

}  // namespace

TEST(TecplotBinary, ReadsAFileWrittenByTecplot360) {
  // Tecplot Inc.'s handyscripts: one FETRIANGLE zone, X Y Z and Cp as float32.
  const Mesh mesh = read(unpacked(data_file("NASA_Blended_Wing.plt.gz")));
  ASSERT_EQ(mesh.num_points(), 17744);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "triangle");
  EXPECT_EQ(mesh.cells[0].num_cells(), 35484);
  std::int64_t node_sum = 0;
  for (std::int64_t n : nodes_of(mesh.cells[0])) node_sum += n;
  EXPECT_EQ(node_sum, 946064957);  // as meshio++ 17.21 reads it
  EXPECT_NEAR(point_sum(mesh), 1966610.0522148272, 1e-6);
  const NDArray* cp = mesh.point_data.find("Cp");
  ASSERT_NE(cp, nullptr);
  double sum = 0.0;
  for (double v : cp->values<double>()) sum += v;
  EXPECT_NEAR(sum, -3130.10946455482, 1e-8);
  EXPECT_EQ(format_for_path("a.plt")->name, "tecplot_binary");
}

TEST(TecplotBinary, RoundTripIsBitExact) {
  const Mesh mesh = sample_mesh();
  const std::string path = scratch("round.plt").string();
  write(path, mesh);
  const Mesh back = read(path);
  ASSERT_EQ(back.num_points(), 9);  // the zones share the first zone's nodes
  EXPECT_TRUE(same_bits(back.points, mesh.points));
  ASSERT_EQ(back.cells.size(), 3u);
  EXPECT_EQ(back.cells[0].type, "tetra");
  EXPECT_EQ(back.cells[1].type, "hexahedron");
  EXPECT_EQ(back.cells[2].type, "triangle");
  for (std::size_t b = 0; b < 3; ++b) EXPECT_EQ(nodes_of(back.cells[b]), nodes_of(mesh.cells[b]));
  ASSERT_NE(back.point_data.find("u_1"), nullptr);
  for (std::int64_t k = 0; k < 9; ++k)
    EXPECT_EQ(back.point_data.find("u_1")->data_as<double>()[k], mesh.point_data.find("u")->data_as<double>()[2 * k + 1]);
  EXPECT_EQ(back.point_data.find("temperature")->data_as<double>()[3], 1.5);
  const auto* p = back.cell_data.find("p");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ((*p)[2].data_as<double>()[1], 5.25);
  ASSERT_NE(find_region(back, "solid"), nullptr);  // the region named the zone
  ASSERT_NE(find_region(back, "triangle 3"), nullptr);
}

TEST(TecplotBinary, Float32OptionAndWedgesAsBricks) {
  Mesh mesh = sample_mesh();
  mesh.cells = {CellBlock{"wedge", int64_matrix(1, 6, {0, 1, 2, 3, 4, 5}), {}, {}}};
  mesh.cell_data = {};
  mesh.regions = {};
  WriteOptions options;
  options.set("float32", "true");
  const std::string path = scratch("single.plt").string();
  write(path, mesh, {}, options);
  const Mesh back = read(path);
  EXPECT_EQ(back.cells[0].type, "hexahedron");
  EXPECT_EQ(nodes_of(back.cells[0]), (std::vector<std::int64_t>{0, 1, 4, 3, 2, 2, 5, 5}));
  for (std::int64_t k = 0; k < 27; ++k)
    EXPECT_EQ(back.points.data_as<double>()[k], static_cast<double>(static_cast<float>(mesh.points.data_as<double>()[k])));
}

TEST(TecplotBinary, SolutionTimesAreSteps) {
  // Two strands' zones at t=1 and t=2, then a static zone: two steps of two zones each.
  const std::vector<ZoneSpec> zones{{"a", 0, 1.0, 2, {}, 3, 1, {0, 0, 1}},
                                    {"b", 0, 2.0, 2, {}, 3, 1, {0, 0, 1}},
                                    {"wall", -1, 0.0, 2, {}, 3, 1, {0, 0, 1}}};
  const std::vector<std::vector<std::vector<double>>> values{
      {{0, 1, 0}, {0, 0, 1}, {10}}, {{0, 2, 0}, {0, 0, 2}, {20}}, {{5, 6, 5}, {5, 5, 6}, {9}}};
  const std::string bytes = make_plt(zones, values, {{0, 1, 2}, {0, 1, 2}, {0, 2, 1}});
  const std::string path = write_scratch("steps.plt", bytes);
  auto series = open_time_series(path);
  ASSERT_EQ(series->num_steps(), 2u);
  EXPECT_EQ(series->time(1), 2.0);
  const TimeStep second = series->read_step(1);
  const Mesh mesh = series->read_mesh();
  ASSERT_EQ(mesh.cells.size(), 2u);  // zone b and the static wall
  EXPECT_EQ(mesh.num_points(), 6);
  EXPECT_EQ(mesh.points.data_as<double>()[2], 2.0);  // zone b's second x
  ASSERT_NE(second.cell_data.find("T"), nullptr);
  EXPECT_EQ((*second.cell_data.find("T"))[0].data_as<double>()[0], 20.0);
  EXPECT_EQ((*second.cell_data.find("T"))[1].data_as<double>()[0], 9.0);
  EXPECT_EQ(second.point_data.find("T"), nullptr);
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[1].name, "wall");
}

TEST(TecplotBinary, AStepReadsOnlyItsZones) {
  // Zone a's connectivity names node 99: step 0 fails, step 1 still reads.
  const std::vector<ZoneSpec> zones{{"a", 0, 1.0, 2, {}, 3, 1, {0, 0, 1}}, {"b", 0, 2.0, 2, {}, 3, 1, {0, 0, 1}}};
  const std::string bytes = make_plt(zones, {{{0, 1, 0}, {0, 0, 1}, {10}}, {{0, 2, 0}, {0, 0, 2}, {20}}}, {{0, 1, 99}, {0, 1, 2}});
  const std::string path = write_scratch("bad_step.plt", bytes);
  auto series = open_time_series(path);
  series->read_step(1);
  EXPECT_EQ(series->read_mesh().cells[0].num_cells(), 1);
  series->read_step(0);
  try {
    series->read_mesh();
    FAIL() << "an out-of-range node was accepted";
  } catch (const ReadError& error) {
    EXPECT_TRUE(error.byte_offset().has_value());
    EXPECT_NE(std::string(error.what()).find("out of range"), std::string::npos);
  }
}

TEST(TecplotBinary, OrderedZoneWithCellCentredGhosts) {
  // I=3, J=2: two quads; T cell-centred is stored over 3 x 1 values (one ghost at the end).
  const std::vector<ZoneSpec> zones{{"grid", -1, 0.0, 0, {3, 2, 1}, 6, 2, {0, 0, 1}}};
  const std::string bytes = make_plt(zones, {{{0, 1, 2, 0, 1, 2}, {0, 0, 0, 1, 1, 1}, {7, 8, -1}}}, {{}});
  const Mesh mesh = read(write_scratch("ordered.plt", bytes), "tecplot_binary");
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "quad");
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 4, 3, 1, 2, 5, 4}));
  const auto* t = mesh.cell_data.find("T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ((*t)[0].data_as<double>()[0], 7.0);
  EXPECT_EQ((*t)[0].data_as<double>()[1], 8.0);
}

TEST(TecplotBinary, HostileInputIsAReadError) {
  const std::vector<ZoneSpec> zones{{"a", -1, 0.0, 2, {}, 3, 1, {0, 0, 0}}};
  const std::string good = make_plt(zones, {{{0, 1, 0}, {0, 0, 1}, {1, 2, 3}}}, {{0, 1, 2}});
  for (std::size_t size = 0; size < good.size(); size += 3) {
    const std::string path = write_scratch("cut.plt", good.substr(0, size));
    EXPECT_THROW(read(path, "tecplot_binary"), ReadError) << size;
  }
  std::string szl = "#!SZPLT" + std::string(64, '\0');
  try {
    read(write_scratch("a.szplt", szl));
    FAIL();
  } catch (const ReadError& error) {
    EXPECT_NE(std::string(error.what()).find("SZL"), std::string::npos);
  }
  std::string old = good;
  old.replace(5, 3, "075");
  EXPECT_THROW(read(write_scratch("old.plt", old)), ReadError);
  // A point count of 2^31-1 with all of its values missing.
  std::string huge = good;
  const std::size_t points_at = huge.find(std::string("\x03\x00\x00\x00\x01\x00\x00\x00", 8));
  ASSERT_NE(points_at, std::string::npos);
  huge[points_at] = '\xff', huge[points_at + 1] = '\xff', huge[points_at + 2] = '\xff', huge[points_at + 3] = '\x7f';
  try {
    read(write_scratch("huge.plt", huge));
    FAIL();
  } catch (const ReadError& error) {
    EXPECT_TRUE(error.byte_offset().has_value());
  }
  EXPECT_THROW(read(write_scratch("text.plt", "TITLE = \"x\"\nVARIABLES = X Y\n")), ReadError);
}
