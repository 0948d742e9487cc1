// FEBio .feb reader and writer: febio-python's files of specs 2.5, 3.0 and 4.0, surfaces as
// side regions, round trips through both written specs, and malformed input.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/febio/febio.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "febio" / name).string(); }

std::int64_t sum_of(const NDArray& array) {
  std::int64_t sum = 0;
  for (const std::int64_t value : int_values(array)) sum += value;
  return sum;
}

const char* const kSmall =
    "<?xml version=\"1.0\"?>\n<febio_spec version=\"4.0\">\n<Material><material id=\"3\" name=\"Steel\" type=\"neo-Hookean\"/></Material>\n"
    "<Mesh>\n<Nodes name=\"n\">\n"
    "<node id=\"10\">0,0,0</node>\n<node id=\"11\">1,0,0</node>\n<node id=\"12\">0,1,0</node>\n<node id=\"13\">0,0,1</node>\n"
    "<node id=\"14\">1,1,1</node>\n</Nodes>\n"
    "<Elements type=\"tet4\" name=\"Body\">\n<elem id=\"1\">10,11,12,13</elem>\n<elem id=\"2\">11,12,13,14</elem>\n</Elements>\n"
    "<NodeSet name=\"base\">10, 11,12</NodeSet>\n<ElementSet name=\"second\">2</ElementSet>\n"
    "<Surface name=\"bottom\">\n<tri3 id=\"1\">10,12,11</tri3>\n</Surface>\n</Mesh>\n"
    "<MeshDomains><SolidDomain name=\"Body\" mat=\"Steel\"/></MeshDomains>\n</febio_spec>\n";

}  // namespace

TEST(FebioRead, Spec25And30And40HexBeams) {
  for (const std::string name : {"hexbeam_with_pressure_load_v25.feb", "hexbeam_with_pressure_load_v30.feb",
                                 "sample_surface_load_case_1_v40.feb"}) {
    const Mesh mesh = febio::read(data(name));
    EXPECT_EQ(mesh.points.shape(), (Shape{1331, 3})) << name;
    EXPECT_NEAR(point_sum(mesh), 665.5, 1e-9) << name;
    ASSERT_EQ(mesh.cells.size(), 1u) << name;  // the surface's quads lie on the hexahedra
    EXPECT_EQ(mesh.cells[0].type, "hexahedron");
    EXPECT_EQ(mesh.cells[0].num_cells(), 1000);
    EXPECT_EQ(sum_of(mesh.cells[0].connectivity), 5320000);
    std::int64_t sides = 0, points = 0;
    for (const Region& region : mesh.regions) {
      if (region.kind == RegionKind::Side) sides += region.entries.rows();
      if (region.kind == RegionKind::Point) points += region.entries.rows();
    }
    EXPECT_EQ(sides, 100) << name;
    EXPECT_EQ(points, 121) << name;
  }
  const Mesh v25 = febio::read(data("hexbeam_with_pressure_load_v25.feb"));
  const Mesh v30 = febio::read(data("hexbeam_with_pressure_load_v30.feb"));
  EXPECT_EQ(nodes_of(v25.cells[0]), nodes_of(v30.cells[0]));
  EXPECT_EQ(find_region(v25, "Part1-Elements", RegionKind::Cell)->tag, 1);  // mat="1"
  EXPECT_EQ(int_values(v25.cell_data.find("febio:material")->front())[0], 1);
}

TEST(FebioRead, ShellPartAndDuplicateIds) {
  const Mesh plane = febio::read(data("plane_mesh_v40.feb"));
  EXPECT_EQ(plane.points.rows(), 231);
  EXPECT_EQ(plane.cells[0].type, "triangle");
  EXPECT_EQ(plane.cells[0].num_cells(), 400);
  EXPECT_EQ(find_region(plane, "left_edge", RegionKind::Point)->entries.rows(), 11);
  // Element ids 1295 and 1296 are used by both parts; FEBio numbers elements in file order.
  const Mesh mixed = febio::read(unpacked(data("hex_half_ellipsoid_with_discrete_set.feb.gz")));
  EXPECT_EQ(mixed.points.rows(), 2021);
  ASSERT_EQ(mixed.cells.size(), 2u);
  EXPECT_EQ(mixed.cells[0].num_cells(), 1296);
  EXPECT_EQ(mixed.cells[1].type, "quad");
  EXPECT_EQ(mixed.cells[1].num_cells(), 144);
  EXPECT_EQ(find_region(mixed, "SurfaceLoadSurface", RegionKind::Side)->entries.rows(), 432);
  EXPECT_EQ(find_region(mixed, "TopNodes", RegionKind::Point)->entries.rows(), 192);  // second <Nodes>
}

TEST(FebioRead, IdsSetsMaterialsAndSurfaces) {
  const ScratchDir dir;
  const Mesh mesh = febio::read(dir.write("s.feb", kSmall));
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 3, 1, 2, 3, 4}));
  EXPECT_EQ(find_region(mesh, "Body", RegionKind::Cell)->tag, 3);  // via MeshDomains and <Material>
  EXPECT_EQ(int_values(mesh.cell_data.find("febio:material")->front()), (std::vector<std::int64_t>{3, 3}));
  EXPECT_EQ(int_values(find_region(mesh, "base", RegionKind::Point)->entries), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(int_values(find_region(mesh, "second", RegionKind::Cell)->entries), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(int_values(find_region(mesh, "bottom", RegionKind::Side)->entries), (std::vector<std::int64_t>{0, 3}));
  // A surface on no cell stays a cell block with its Cell region.
  std::string free = kSmall;
  free.replace(free.find("10,12,11</tri3>"), 8, "10,11,14");
  const Mesh shell = febio::read(dir.write("f.feb", free));
  ASSERT_EQ(shell.cells.size(), 2u);
  EXPECT_EQ(shell.cells[1].type, "triangle");
  EXPECT_EQ(find_region(shell, "bottom", RegionKind::Cell)->entries.rows(), 1);
}

TEST(FebioWrite, RoundTripsBothSpecs) {
  const Mesh original = febio::read(data("sample_surface_load_case_1_v40.feb"));
  const ScratchDir dir;
  for (const std::string spec : {"4.0", "3.0"}) {
    WriteOptions options;
    options.set("spec", spec);
    const std::string path = dir.file("out" + spec + ".feb");
    febio::write(path, original, options);
    const Mesh back = febio::read(path);
    EXPECT_TRUE(same_bits(back.points, original.points)) << spec;
    EXPECT_EQ(nodes_of(back.cells[0]), nodes_of(original.cells[0])) << spec;
    for (const Region& region : original.regions) {
      const Region* copy = find_region(back, region.name, region.kind);
      ASSERT_NE(copy, nullptr) << region.name;
      EXPECT_EQ(int_values(copy->entries), int_values(region.entries)) << region.name;
    }
  }
  WriteOptions bad;
  bad.set("spec", "1.2");
  EXPECT_THROW(febio::write(dir.file("x.feb"), original, bad), std::invalid_argument);
}

TEST(FebioRead, MalformedInputRaisesReadError) {
  const ScratchDir dir;
  const std::string text = kSmall;
  auto with = [&](std::string_view from, std::string_view to) {
    std::string changed = text;
    changed.replace(changed.find(from), from.size(), to);
    return changed;
  };
  const ReadError node = expect_read_error([&] { febio::read(dir.write("a.feb", with("11,12,13,14", "11,12,13,99"))); });
  EXPECT_NE(std::string(node.what()).find("99"), std::string::npos);
  const ReadError count = expect_read_error([&] { febio::read(dir.write("b.feb", with("11,12,13,14", "11,12,13"))); });
  EXPECT_TRUE(count.line().has_value());
  expect_read_error([&] { febio::read(dir.write("c.feb", with("0,1,0", "0,x,0"))); });
  expect_read_error([&] { febio::read(dir.write("d.feb", with("tet4", "tet99"))); });
  expect_read_error([&] { febio::read(dir.write("e.feb", with("<node id=\"14\">", "<node id=\"13\">"))); });
  expect_read_error([&] { febio::read(dir.write("f.feb", with(">2</ElementSet>", ">7</ElementSet>"))); });
  expect_read_error([&] { febio::read(dir.write("g.feb", text.substr(0, 300))); });
  expect_read_error([&] { febio::read(dir.write("h.feb", "<dolfin/>")); });
  expect_read_error([&] { febio::read(dir.write("i.feb", with("<tri3 id=\"1\">", "<hex8 id=\"1\">"))); });
}
