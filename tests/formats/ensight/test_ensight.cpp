// EnSight Gold: cases written by OpenFOAM's foamToEnsight (tests/data/ensight, MANIFEST.tsv) —
// C Binary and ASCII, cell and node values, polyhedra, transient geometry — and, written here
// by the format's description, what those files do not hold: structured blocks (uniform,
// rectilinear, curvilinear, iblanked), Fortran binary of either byte order, a FILE set (steps
// in one file), undef/partial values, constants, ghost elements; the writer's round trips and
// the errors.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "formats/ensight/ensight.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;
namespace fs = std::filesystem;

namespace {

std::string data_case(const std::string& folder, const std::string& name) {
  return (meshioplusplus::testing::test_data_dir() / "ensight" / folder / name).string();
}

std::map<std::string, std::int64_t> type_counts(const Mesh& mesh) {
  std::map<std::string, std::int64_t> counts;
  for (const CellBlock& block : mesh.cells) counts[block.type] += block.num_cells();
  return counts;
}

// Binary records as EnSight lays them out: C (raw) or Fortran (length markers), either order.
class BinaryFile {
 public:
  BinaryFile(bool fortran, bool big_endian) : fortran_(fortran), big_(big_endian) {}
  BinaryFile& text(std::string_view value) {
    std::string record(80, '\0');
    record.replace(0, value.size(), value);
    return raw(record);
  }
  BinaryFile& ints(std::initializer_list<std::int32_t> values) {
    std::string record;
    for (std::int32_t v : values) record += word(std::bit_cast<std::uint32_t>(v));
    return raw(record);
  }
  BinaryFile& floats(std::initializer_list<float> values) {
    std::string record;
    for (float v : values) record += word(std::bit_cast<std::uint32_t>(v));
    return raw(record);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string word(std::uint32_t v) const {
    std::string out(4, '\0');
    for (int k = 0; k < 4; ++k) out[big_ ? 3 - k : k] = static_cast<char>((v >> (8 * k)) & 0xff);
    return out;
  }
  BinaryFile& raw(const std::string& record) {
    if (fortran_) bytes_ += word(static_cast<std::uint32_t>(record.size()));
    bytes_ += record;
    if (fortran_) bytes_ += word(static_cast<std::uint32_t>(record.size()));
    return *this;
  }
  bool fortran_, big_;
  std::string bytes_;
};

const char* kCaseOneGeometry = "FORMAT\ntype: ensight gold\nGEOMETRY\nmodel: mesh.geo\n";

}  // namespace

TEST(EnsightReal, CavityBinaryCellValuesAndSteps) {
  const std::string path = data_case("cavity_binary", "cavity.case");
  const Mesh mesh = read(path);
  EXPECT_EQ(mesh.num_points(), 1046);  // internalMesh 882 + movingWall 42 + fixedWalls 122
  EXPECT_EQ(block_summary(mesh), "hexahedron:400;quad:20;quad:60");
  ASSERT_EQ(mesh.regions.size(), 3u);
  EXPECT_EQ(mesh.regions[0].name, "internalMesh");
  EXPECT_EQ(mesh.regions[1].name, "movingWall");
  EXPECT_EQ(mesh.regions[1].entries.rows(), 20);
  ASSERT_TRUE(mesh.cell_data.contains("U"));
  EXPECT_EQ(mesh.cell_data.find("U")->at(0).dtype(), DType::float32);  // binary values as stored
  EXPECT_EQ(mesh.cell_data.find("U")->at(0).shape(), (Shape{400, 3}));
  auto series = open_time_series(path);
  ASSERT_EQ(series->num_steps(), 3u);
  EXPECT_DOUBLE_EQ(series->time(2), 0.1);
  const TimeStep first = series->read_step(0), last = series->read_step(2);
  const auto* p0 = first.cell_data.find("p")->at(0).data_as<float>();
  const auto* p2 = last.cell_data.find("p")->at(0).data_as<float>();
  EXPECT_EQ(p0[0], 0.0f);   // the initial field
  EXPECT_NE(p2[0], 0.0f);   // the solution at t = 0.1
}

TEST(EnsightReal, AsciiNodeValues) {
  const Mesh mesh = read(data_case("cavity_ascii_nodes", "cavity.case"));
  EXPECT_EQ(mesh.num_points(), 1046);
  ASSERT_TRUE(mesh.point_data.contains("U"));
  const NDArray& u = *mesh.point_data.find("U");
  EXPECT_EQ(u.dtype(), DType::float64);
  EXPECT_EQ(u.shape(), (Shape{1046, 3}));
  EXPECT_EQ(open_time_series(data_case("cavity_ascii_nodes", "cavity.case"))->num_steps(), 2u);
}

TEST(EnsightReal, PolyhedraOutwardAndPolygons) {
  const Mesh mesh = read(data_case("hexwedgepoly_ascii", "hexwedgepoly.case"));
  const auto counts = type_counts(mesh);
  EXPECT_EQ(counts.at("wedge"), 12);
  EXPECT_EQ(counts.at("hexahedron"), 122);
  EXPECT_GT(counts.at("polyhedron"), 0);
  EXPECT_GT(counts.at("polygon"), 0);
  // The volume part's cells fill the mesh: their signed volumes (divergence theorem over the
  // outward faces of each polyhedron) are all positive.
  for (const CellBlock& block : mesh.cells) {
    if (block.type != "polyhedron") continue;
    const auto* offsets = block.offsets.data_as<std::int64_t>();
    const auto* faces = block.face_offsets.data_as<std::int64_t>();
    const auto* nodes = block.connectivity.data_as<std::int64_t>();
    const auto* xyz = mesh.points.data_as<double>();
    for (std::int64_t cell = 0; cell < block.num_cells(); ++cell) {
      double volume = 0;
      for (std::int64_t f = offsets[cell]; f < offsets[cell + 1]; ++f)
        for (std::int64_t k = faces[f] + 1; k + 1 < faces[f + 1]; ++k) {
          const double* a = xyz + 3 * nodes[faces[f]];
          const double* b = xyz + 3 * nodes[k];
          const double* c = xyz + 3 * nodes[k + 1];
          volume += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
        }
      EXPECT_GT(volume, 0) << "cell " << cell;
    }
  }
}

TEST(EnsightReal, TransientGeometryFollowsTheStep) {
  auto series = open_time_series(data_case("movingcone_wall", "movingCone.case"));
  ASSERT_EQ(series->num_steps(), 3u);
  series->read_step(0);
  const Mesh first = series->read_mesh();
  series->read_step(2);
  const Mesh last = series->read_mesh();
  ASSERT_EQ(first.num_points(), last.num_points());
  EXPECT_NE(point_sum(first), point_sum(last));  // the wall moved
  EXPECT_EQ(block_summary(first), block_summary(last));
}

TEST(EnsightReal, TetraPyramid) {
  const auto counts = type_counts(read(data_case("tetpyr_binary", "tetpyr.case")));
  EXPECT_EQ(counts.at("tetra"), 608);
  EXPECT_EQ(counts.at("pyramid"), 9);
}

TEST(EnsightWriter, RoundTripsBinaryAndAscii) {
  const Mesh source = read(data_case("hexwedgepoly_ascii", "hexwedgepoly.case"));
  for (const char* binary : {"true", "false"}) {
    ScratchDir dir;
    WriteOptions options;
    options.set("binary", binary);
    write(dir.file("out.case"), source, "ensight", options);
    const Mesh back = read(dir.file("out.case"));
    EXPECT_EQ(block_summary(back), block_summary(source));
    ASSERT_EQ(back.regions.size(), source.regions.size());
    for (std::size_t r = 0; r < back.regions.size(); ++r) EXPECT_EQ(back.regions[r].name, source.regions[r].name);
    ASSERT_EQ(back.num_points(), source.num_points());
    const auto* a = source.points.data_as<double>();
    const auto* b = back.points.data_as<double>();
    for (std::int64_t k = 0; k < 3 * source.num_points(); ++k)
      EXPECT_NEAR(b[k], a[k], 1e-5 * (1 + std::abs(a[k])));  // float32 / six digits
    for (std::size_t blk = 0; blk < source.cells.size(); ++blk)
      EXPECT_TRUE(same_bits(source.cells[blk].connectivity, back.cells[blk].connectivity)) << blk;
  }
}

TEST(EnsightWriter, DataConstantsAndLoosePoints) {
  Mesh mesh;
  mesh.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 9, 9, 9});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 1, 3, 2}), {}, {}});
  mesh.point_data.set("phi", array_of<double>({5}, {0, 1, 2, 3, 4}));
  mesh.point_data.set("grad", array_of<float>({5, 3}, std::vector<float>(15, 0.5f)));
  mesh.cell_data.set("c", {array_of<std::int32_t>({2}, {7, 8})});
  mesh.field_data.set("Reynolds", array_of<double>({1}, {100.0}));
  ScratchDir dir;
  write(dir.file("d.case"), mesh, "ensight");
  const Mesh back = read(dir.file("d.case"));
  EXPECT_EQ(back.num_points(), 5);  // one part "mesh": every point, the unused one too
  EXPECT_EQ(block_summary(back), "triangle:2");
  const auto* phi = back.point_data.find("phi")->data_as<float>();
  EXPECT_EQ(phi[3], 3.0f);
  EXPECT_EQ(phi[4], 4.0f);
  EXPECT_EQ(back.point_data.find("grad")->shape(), (Shape{5, 3}));
  EXPECT_EQ(back.cell_data.find("c")->at(0).data_as<float>()[1], 8.0f);
  EXPECT_EQ(back.field_data.find("Reynolds")->data_as<double>()[0], 100.0);
  // Cell regions that give each cell one part: a part each, the unused point in a last part.
  mesh.regions.push_back(cell_region("left", 2, 1, {0}));
  mesh.regions.push_back(cell_region("right", 2, 2, {1}));
  write(dir.file("r.case"), mesh, "ensight");
  const Mesh parts = read(dir.file("r.case"));
  EXPECT_EQ(block_summary(parts), "triangle:1;triangle:1;vertex:1");
  EXPECT_EQ(parts.num_points(), 3 + 3 + 1);
  EXPECT_EQ(parts.regions.at(1).name, "right");
  EXPECT_TRUE(std::isnan(parts.cell_data.find("c")->at(2).data_as<float>()[0]));  // the points part has none
  mesh.cells.push_back({"quad9", int64_matrix(1, 9, {0, 1, 3, 2, 0, 1, 3, 2, 4}), {}, {}});
  EXPECT_THROW(write(dir.file("e.case"), mesh, "ensight"), WriteError);
}

TEST(EnsightFormat, StructuredBlocksAscii) {
  ScratchDir dir;
  dir.write("s.case", kCaseOneGeometry);
  dir.write("mesh.geo",
            "structured\nblocks\nnode id off\nelement id off\n"
            "part\n1\nuniform\nblock uniform\n3 2 2\n0 0 0\n1 1 1\n"
            "part\n2\nrect\nblock rectilinear\n2 3 1\n0 1\n0 1 3\n5\n"
            "part\n3\ncurvi iblanked\nblock iblanked\n3 2 1\n0 1 2 0 1 2\n0 0 0 1 1 1\n0 0 0 0 0 0\n1 1 0 1 1 0\n");
  const Mesh mesh = read(dir.file("s.case"));
  EXPECT_EQ(block_summary(mesh), "hexahedron:2;quad:2;quad:1");  // the blanked cell left out
  EXPECT_EQ(mesh.num_points(), 12 + 6 + 6);
  const auto* xyz = mesh.points.data_as<double>();
  EXPECT_EQ(xyz[3 * 11 + 0], 2.0);  // the uniform block's last node (2, 1, 1)
  EXPECT_EQ(xyz[3 * 11 + 2], 1.0);
  EXPECT_EQ(xyz[3 * (12 + 5) + 1], 3.0);  // the rectilinear block's y
  const auto* hex = mesh.cells[0].connectivity.data_as<std::int64_t>();
  EXPECT_EQ((std::vector<std::int64_t>(hex, hex + 8)), (std::vector<std::int64_t>{0, 1, 4, 3, 6, 7, 10, 9}));
}

TEST(EnsightFormat, FortranBinaryBothOrdersAndVariables) {
  for (bool big : {false, true}) {
    ScratchDir dir;
    dir.write("f.case", std::string(kCaseOneGeometry) +
                            "VARIABLE\nscalar per node: t mesh.t\nvector per element: v mesh.v\n"
                            "constant per case: g 9.81\n");
    BinaryFile geo(true, big);
    geo.text("Fortran Binary").text("fortran").text("test").text("node id given").text("element id off");
    geo.text("part").ints({1}).text("tri").text("coordinates").ints({3}).ints({10, 20, 30});
    geo.floats({0, 1, 0}).floats({0, 0, 1}).floats({0, 0, 0});
    geo.text("tria3").ints({1}).ints({1, 2, 3});
    dir.write("mesh.geo", geo.bytes());
    BinaryFile t(true, big);
    t.text("t").text("part").ints({1}).text("coordinates").floats({1.5f, 2.5f, 3.5f});
    dir.write("mesh.t", t.bytes());
    BinaryFile v(true, big);
    v.text("v").text("part").ints({1}).text("tria3").floats({1}).floats({2}).floats({3});
    dir.write("mesh.v", v.bytes());
    const Mesh mesh = read(dir.file("f.case"));
    EXPECT_EQ(block_summary(mesh), "triangle:1");
    EXPECT_EQ(mesh.points.data_as<double>()[3], 1.0);
    EXPECT_EQ(mesh.point_data.find("t")->data_as<float>()[2], 3.5f);
    const NDArray& vec = mesh.cell_data.find("v")->at(0);
    EXPECT_EQ(vec.shape(), (Shape{1, 3}));
    EXPECT_EQ(vec.data_as<float>()[2], 3.0f);
    EXPECT_DOUBLE_EQ(mesh.field_data.find("g")->data_as<double>()[0], 9.81);
  }
}

TEST(EnsightFormat, CBinaryFileSetUndefPartialGhosts) {
  ScratchDir dir;
  dir.write("c.case", "FORMAT\ntype: ensight gold\nGEOMETRY\nmodel: mesh.geo\n"
                      "VARIABLE\nscalar per node: 1 1 s mesh.s\nscalar per element: e mesh.e\n"
                      "TIME\ntime set: 1\nnumber of steps: 2\ntime values: 0.5 1.5\n"
                      "FILE\nfile set: 1\nnumber of steps: 2\n");
  BinaryFile geo(false, false);
  geo.text("C Binary").text("a").text("b").text("node id assign").text("element id given");
  geo.text("extents").floats({0, 1, 0, 1, 0, 0});
  geo.text("part").ints({7}).text("quads").text("coordinates").ints({4});
  geo.floats({0, 1, 1, 0}).floats({0, 0, 1, 1}).floats({0, 0, 0, 0});
  geo.text("quad4").ints({1}).ints({100}).ints({1, 2, 3, 4});
  geo.text("g_tria3").ints({1}).ints({101}).ints({1, 2, 3});
  dir.write("mesh.geo", geo.bytes());
  BinaryFile s(false, false);
  for (float scale : {1.0f, 2.0f}) {
    s.text("BEGIN TIME STEP").text("s").text("part").ints({7}).text("coordinates partial").ints({2}).ints({1, 4});
    s.floats({scale, 4 * scale}).text("END TIME STEP");
  }
  dir.write("mesh.s", s.bytes());
  BinaryFile e(false, false);
  e.text("e").text("part").ints({7}).text("quad4 undef").floats({-99}).floats({-99});
  e.text("g_tria3").floats({5});
  dir.write("mesh.e", e.bytes());
  auto series = open_time_series(dir.file("c.case"));
  ASSERT_EQ(series->num_steps(), 2u);
  EXPECT_EQ(series->time(1), 1.5);
  const TimeStep step = series->read_step(1);
  const auto* values = step.point_data.find("s")->data_as<float>();
  EXPECT_EQ(values[0], 2.0f);
  EXPECT_TRUE(std::isnan(values[1]));
  EXPECT_EQ(values[3], 8.0f);
  EXPECT_TRUE(std::isnan(step.cell_data.find("e")->at(0).data_as<float>()[0]));  // undef
  EXPECT_EQ(step.cell_data.find("e")->at(1).data_as<float>()[0], 5.0f);
  const Mesh mesh = series->read_mesh();
  ASSERT_TRUE(mesh.cell_data.contains("vtkGhostType"));
  EXPECT_EQ(mesh.cell_data.find("vtkGhostType")->at(1).data_as<std::uint8_t>()[0], 1);
  EXPECT_EQ(mesh.regions.at(0).tag, 7);
}

TEST(EnsightFormat, Errors) {
  ScratchDir dir;
  const auto expect_read_error = [&](const std::string& case_text, const std::string& geo, const std::string& needle) {
    dir.write("x.case", case_text);
    dir.write("mesh.geo", geo);
    try {
      read(dir.file("x.case"));
      ADD_FAILURE() << "no error for " << needle;
    } catch (const ReadError& error) {
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
    }
  };
  const std::string head = "g\ng\nnode id assign\nelement id assign\npart\n1\np\ncoordinates\n";
  expect_read_error("FORMAT\ntype: ensight\nGEOMETRY\nmodel: mesh.geo\n", "", "EnSight 6");
  expect_read_error("FORMAT\ntype: ensight gold\n", "", "GEOMETRY");
  expect_read_error(kCaseOneGeometry, head + "3\n0\n1\n", "ends");
  expect_read_error(kCaseOneGeometry, head + "99999999\n0\n", "coordinates");
  expect_read_error(kCaseOneGeometry, head + "1\n0\n0\n0\ntria3\n1\n1 2 3\n", "out of the part's range");
  expect_read_error(kCaseOneGeometry, head + "1\n0\n0\n0\nhexa27\n1\n", "unknown element type");
  expect_read_error(std::string(kCaseOneGeometry) + "VARIABLE\nscalar per node: 1 s s_****\n", head + "1\n0\n0\n0\n",
                    "time set 1");
  expect_read_error("FORMAT\ntype: ensight gold\nGEOMETRY\nmodel: none.geo\n", "", "none.geo");
  BinaryFile truncated(false, false);
  truncated.text("C Binary").text("a").text("b").text("node id off").text("element id off").text("part").ints({1});
  dir.write("t.case", kCaseOneGeometry);
  dir.write("mesh.geo", truncated.bytes().substr(0, truncated.bytes().size() - 2));
  EXPECT_THROW(read(dir.file("t.case")), ReadError);
}
