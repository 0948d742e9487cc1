// libMesh XdrIO reader and writer: libMesh's own files of every layout (0.7.0+, 0.9.6+,
// 1.3.0 with adaptive refinement, 1.8.0 ASCII and XDR), round trips through both encodings,
// and malformed input.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/libmesh/libmesh.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "libmesh" / name).string(); }

std::int64_t sum_of(const NDArray& array) {
  std::int64_t sum = 0;
  for (const std::int64_t value : int_values(array)) sum += value;
  return sum;
}

}  // namespace

TEST(LibmeshRead, Version180AsciiAndXdrAgree) {
  const Mesh ascii = libmesh::read(data("read_xdrio_QUAD4.xda"));
  const Mesh xdr = libmesh::read(data("read_xdrio_QUAD4.xdr"));
  for (const Mesh* mesh : {&ascii, &xdr}) {
    EXPECT_EQ(mesh->points.shape(), (Shape{9, 3}));
    EXPECT_DOUBLE_EQ(point_sum(*mesh), 63.0);
    ASSERT_EQ(mesh->cells.size(), 1u);
    EXPECT_EQ(mesh->cells[0].type, "quad");
    EXPECT_EQ(nodes_of(mesh->cells[0]), (std::vector<std::int64_t>{0, 1, 2, 3, 1, 4, 5, 2, 3, 2, 6, 7, 2, 5, 8, 6}));
    EXPECT_EQ(int_values(mesh->cell_data.find("libmesh:subdomain")->front()), (std::vector<std::int64_t>{10, 11, 12, 13}));
    const Region* subdomain = find_region(*mesh, "a_very_long_subdomain_name_for_the_subdomain_with_number_12");
    ASSERT_NE(subdomain, nullptr);
    EXPECT_EQ(subdomain->tag, 12);
    EXPECT_EQ(int_values(subdomain->entries), (std::vector<std::int64_t>{2}));
    // Sideset "right" (id 1): element 1 side 1 and element 3 side 1; quads keep libMesh's sides.
    const Region* right = find_region(*mesh, "right", RegionKind::Side);
    ASSERT_NE(right, nullptr);
    EXPECT_EQ(right->tag, 1);
    EXPECT_EQ(int_values(right->entries), (std::vector<std::int64_t>{1, 1, 3, 1}));
    const Region* top = find_region(*mesh, "top", RegionKind::Point);
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(int_values(top->entries), (std::vector<std::int64_t>{6, 7, 8}));
  }
  EXPECT_TRUE(same_bits(ascii.points, xdr.points));
}

TEST(LibmeshRead, QuadraticTypesInVtkOrder) {
  const Mesh hex = libmesh::read(data("read_xdrio_HEX27.xdr"));
  ASSERT_EQ(hex.cells.size(), 1u);
  EXPECT_EQ(hex.cells[0].type, "hexahedron27");
  EXPECT_EQ(hex.cells[0].connectivity.shape(), (Shape{8, 27}));
  EXPECT_EQ(sum_of(hex.cells[0].connectivity), 11589);
  // VTK's hex27: node 20 is the centre of the x- face, 24 of the z- face, 26 the body centre.
  const auto cell = int_values(hex.cells[0].connectivity);
  const double* xyz = hex.points.data_as<double>();
  auto coordinate = [&](int node, int axis) { return xyz[3 * cell[static_cast<std::size_t>(node)] + axis]; };
  EXPECT_DOUBLE_EQ(coordinate(20, 0), coordinate(0, 0));
  EXPECT_DOUBLE_EQ(coordinate(24, 2), coordinate(0, 2));
  EXPECT_DOUBLE_EQ(coordinate(26, 0), (coordinate(0, 0) + coordinate(1, 0)) / 2);
  // VTK's hex20 run: 12-15 the top ring (z of node 4), 16-19 the vertical edges.
  EXPECT_DOUBLE_EQ(coordinate(12, 2), coordinate(4, 2));
  EXPECT_DOUBLE_EQ(coordinate(16, 2), (coordinate(0, 2) + coordinate(4, 2)) / 2);
  const Mesh ascii = libmesh::read(data("read_xdrio_HEX27.xda"));
  EXPECT_EQ(nodes_of(ascii.cells[0]), nodes_of(hex.cells[0]));

  const Mesh wedge = libmesh::read(data("read_xdrio_PRISM18.xda"));
  EXPECT_EQ(wedge.cells[0].type, "wedge18");
  EXPECT_EQ(wedge.cells[0].connectivity.shape(), (Shape{16, 18}));
  EXPECT_EQ(sum_of(wedge.cells[0].connectivity), 15765);
  const Mesh tet = libmesh::read(data("read_xdrio_TET10.xdr"));
  EXPECT_EQ(tet.cells[0].connectivity.shape(), (Shape{192, 10}));
  EXPECT_EQ(sum_of(tet.cells[0].connectivity), 334292);
  EXPECT_DOUBLE_EQ(point_sum(tet), 4000.5);
  const Mesh pyramid = libmesh::read(data("read_xdrio_PYRAMID14.xda"));
  EXPECT_EQ(pyramid.cells[0].type, "pyramid14");
  EXPECT_EQ(pyramid.cells[0].connectivity.shape(), (Shape{48, 14}));
}

TEST(LibmeshRead, OldestLayoutWithBoundaryConditions) {
  const Mesh mesh = libmesh::read(data("one_hex.xda"));  // libMesh-0.7.0+
  EXPECT_EQ(mesh.points.shape(), (Shape{8, 3}));
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Six conditions "0 s s+1": libMesh side s of a hex becomes our facet 4, 0, 1, 2, 3, 5.
  const std::vector<std::int64_t> facets{4, 0, 1, 2, 3, 5};
  for (int s = 0; s < 6; ++s) {
    const Region* region = find_region(mesh, "boundary_" + std::to_string(s + 1), RegionKind::Side);
    ASSERT_NE(region, nullptr);
    EXPECT_EQ(int_values(region->entries), (std::vector<std::int64_t>{0, facets[static_cast<std::size_t>(s)]}));
  }
  const Mesh hybrid = libmesh::read(data("hybrid_3d.xda"));
  EXPECT_EQ(block_summary(hybrid), block_summary([] {
              Mesh m;
              m.cells.push_back({"wedge", NDArray::allocate(DType::int64, {2, 6}), {}, {}});
              m.cells.push_back({"tetra", NDArray::allocate(DType::int64, {2, 4}), {}, {}});
              return m;
            }()));
  const Mesh lshaped = libmesh::read(data("lshaped3D.xda"));  // libMesh-0.9.6+
  EXPECT_EQ(lshaped.cells[0].connectivity.shape(), (Shape{3, 8}));
  ASSERT_NE(find_region(lshaped, "boundary_0", RegionKind::Side), nullptr);
  EXPECT_EQ(find_region(lshaped, "boundary_0", RegionKind::Side)->entries.rows(), 14);
}

TEST(LibmeshRead, AdaptiveRefinementKeepsLeavesAndMovesConditions) {
  const Mesh mesh = libmesh::read(data("mesh_assign_test_mesh.xda"));  // 42 elements over 3 levels
  EXPECT_EQ(mesh.points.rows(), 153);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "quad9");
  EXPECT_EQ(mesh.cells[0].num_cells(), 32);
  EXPECT_EQ(sum_of(mesh.cells[0].connectivity), 18661);
  const Region* bottom = find_region(mesh, "bottom", RegionKind::Side);
  ASSERT_NE(bottom, nullptr);
  EXPECT_EQ(bottom->entries.rows(), 8);  // two level-0 sides, each over four leaves
  EXPECT_EQ(find_region(mesh, "left", RegionKind::Side)->entries.rows(), 4);
  EXPECT_EQ(find_region(mesh, "top", RegionKind::Point)->entries.rows(), 5);
}

TEST(LibmeshWrite, RoundTripsAsciiAndXdr) {
  const Mesh original = libmesh::read(data("read_xdrio_HEX27.xda"));
  const ScratchDir dir;
  for (const std::string name : {"out.xda", "out.xdr"}) {
    libmesh::write(dir.file(name), original, {});
    const Mesh back = libmesh::read(dir.file(name));
    EXPECT_TRUE(same_bits(back.points, original.points)) << name;
    EXPECT_EQ(nodes_of(back.cells[0]), nodes_of(original.cells[0])) << name;
    EXPECT_EQ(int_values(back.cell_data.find("libmesh:subdomain")->front()),
              int_values(original.cell_data.find("libmesh:subdomain")->front()));
    ASSERT_EQ(back.regions.size(), original.regions.size()) << name;
    for (const Region& region : original.regions) {
      const Region* copy = find_region(back, region.name, region.kind);
      ASSERT_NE(copy, nullptr) << region.name;
      EXPECT_EQ(copy->tag, region.tag);
      EXPECT_EQ(int_values(copy->entries), int_values(region.entries)) << region.name;
    }
  }
  const std::string xdr = read_file(dir.file("out.xdr"));
  EXPECT_EQ(xdr.substr(4, 13), "libMesh-1.3.0");
  WriteOptions ascii;
  ascii.set("binary", "false");
  libmesh::write(dir.file("ascii.xdr"), original, ascii);
  EXPECT_EQ(read_file(dir.file("ascii.xdr")).substr(0, 13), "libMesh-1.3.0");
}

TEST(LibmeshWrite, RefusesTypesLibmeshLacks) {
  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {3, 2});
  mesh.cells.push_back({"polygon", int64_vector({0, 1, 2}), int64_vector({0, 3}), {}});
  const ScratchDir dir;
  EXPECT_THROW(libmesh::write(dir.file("p.xda"), mesh, {}), std::invalid_argument);
}

TEST(LibmeshRead, MalformedInputRaisesReadError) {
  const ScratchDir dir;
  const std::string text = read_file(data("read_xdrio_QUAD4.xda"));
  const ReadError truncated = expect_read_error([&] { libmesh::read(dir.write("t.xda", text.substr(0, 900))); });
  EXPECT_NE(std::string(truncated.what()).find("t.xda"), std::string::npos);
  const std::string binary = read_file(data("read_xdrio_QUAD4.xdr"));
  for (std::size_t cut : {8u, 40u, 300u, 600u, 1000u}) {
    const ReadError cut_xdr = expect_read_error([&] { libmesh::read(dir.write("t.xdr", binary.substr(0, cut))); });
    EXPECT_TRUE(cut_xdr.byte_offset().has_value()) << cut;
  }
  std::string huge = text;
  huge.replace(huge.find("4\t # number of elements"), 1, "999999999999");
  const ReadError count = expect_read_error([&] { libmesh::read(dir.write("c.xda", huge)); });
  EXPECT_NE(std::string(count.what()).find("elements"), std::string::npos);
  std::string node = text;
  node.replace(node.find("5 9 10 0 1 2 3"), 14, "5 9 10 0 1 2 99");
  const ReadError range = expect_read_error([&] { libmesh::read(dir.write("r.xda", node)); });
  EXPECT_TRUE(range.line().has_value());
  std::string type = text;
  type.replace(type.find("5 9 10 0 1 2 3"), 1, "19");
  const ReadError infinite = expect_read_error([&] { libmesh::read(dir.write("i.xda", type)); });
  EXPECT_NE(std::string(infinite.what()).find("INFEDGE2"), std::string::npos);
  expect_read_error([&] { libmesh::read(dir.write("v.xda", "3\n1\n")); });
  std::string side = text;
  side.replace(side.find("0 3 3\n"), 6, "0 7 3\n");
  expect_read_error([&] { libmesh::read(dir.write("s.xda", side)); });
}
