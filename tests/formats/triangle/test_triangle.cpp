// Triangle reader and writer: files Triangle wrote itself (1- and 0-based, -o2 six-node
// triangles, regional attributes, .edge, .poly with and without points, holes, regions), the
// .node/.ele sniff against TetGen, round trips through every write path, malformed input.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "formats/triangle/triangle.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "triangle" / name).string(); }

std::int64_t connectivity_sum(const CellBlock& block) {
  std::int64_t sum = 0;
  for (const std::int64_t v : int_values(block.connectivity)) sum += v;
  return sum;
}

}  // namespace

// Counts and sums cross-checked with the `triangle` package's triangle.loads (PyPI).
TEST(TriangleRead, TriangleOutputOneBasedWithAttributeAndMarkers) {
  for (const char* name : {"A.1.node", "A.1.ele"}) {
    const Mesh mesh = triangle::read(data(name));
    EXPECT_EQ(mesh.points.shape(), (Shape{56, 2}));
    EXPECT_NEAR(point_sum(mesh), -7.725362571940491, 1e-12);
    EXPECT_EQ(block_summary(mesh), "triangle:60");
    EXPECT_EQ(connectivity_sum(mesh.cells[0]), 5331);
    // "1 29 2 1" in the file: 1-based.
    EXPECT_EQ(int_values(mesh.cells[0].connectivity)[0], 28);
    ASSERT_NE(mesh.point_data.find("triangle:attr1"), nullptr);
    EXPECT_EQ(mesh.point_data.find("triangle:attr1")->data_as<double>()[0], -0.56999999999999995);
    ASSERT_NE(mesh.point_data.find("triangle:ref"), nullptr);
    EXPECT_EQ(mesh.point_data.find("triangle:ref")->dtype(), DType::int32);
  }
}

TEST(TriangleRead, ZeroBasedNumberingFromTheFirstPoint) {
  const Mesh mesh = triangle::read(data("spiral0.1.ele"));
  EXPECT_EQ(mesh.points.shape(), (Shape{15, 2}));
  EXPECT_NEAR(point_sum(mesh), 14.125, 1e-12);
  EXPECT_EQ(connectivity_sum(mesh.cells[0]), 227);
  EXPECT_EQ(nodes_of(mesh.cells[0])[0], 0);
  EXPECT_EQ(nodes_of(mesh.cells[0])[1], 4);
}

TEST(TriangleRead, SixNodeTrianglesTakeVtkOrder) {
  const Mesh mesh = triangle::read(data("Ao2.1.ele"));
  EXPECT_EQ(block_summary(mesh), "triangle6:60");
  EXPECT_EQ(mesh.num_points(), 172);
  // File: "1  29 2 1  58 59 57": 58 opposite corner 1 (edge 2-3), 59 edge 3-1, 57 edge 1-2.
  const std::vector<std::int64_t> first = nodes_of(mesh.cells[0]);
  EXPECT_EQ(std::vector<std::int64_t>(first.begin(), first.begin() + 6), (std::vector<std::int64_t>{28, 1, 0, 56, 57, 58}));
  const double* p = mesh.points.data_as<double>();
  const std::vector<std::int64_t> c = nodes_of(mesh.cells[0]);
  for (std::size_t t = 0; t < 60; ++t)
    for (int e = 0; e < 3; ++e) {
      const std::int64_t a = c[t * 6 + e], b = c[t * 6 + (e + 1) % 3], m = c[t * 6 + 3 + e];
      EXPECT_EQ(p[m * 2], (p[a * 2] + p[b * 2]) / 2);
      EXPECT_EQ(p[m * 2 + 1], (p[a * 2 + 1] + p[b * 2 + 1]) / 2);
    }
}

TEST(TriangleRead, RegionalAttributesBecomeCellData) {
  const Mesh mesh = triangle::read(data("la.1.ele"));
  EXPECT_EQ(block_summary(mesh), "triangle:265");
  EXPECT_EQ(connectivity_sum(mesh.cells[0]), 55912);
  const std::vector<NDArray>* ref = mesh.cell_data.find("triangle:ref");
  ASSERT_NE(ref, nullptr);
  EXPECT_EQ((*ref)[0].dtype(), DType::float64);
  EXPECT_EQ((*ref)[0].data_as<double>()[0], 3.0);
  EXPECT_EQ((*ref)[0].data_as<double>()[1], 0.0);
}

TEST(TriangleRead, EdgesWithMarkers) {
  const Mesh mesh = triangle::read(data("A.1.edge"));
  EXPECT_EQ(block_summary(mesh), "line:116");
  const std::vector<NDArray>* ref = mesh.cell_data.find("triangle:ref");
  ASSERT_NE(ref, nullptr);
  EXPECT_EQ(int_values((*ref)[0])[0], 0);
  EXPECT_EQ(int_values((*ref)[0])[1], 1);
}

TEST(TriangleRead, PolyWithPointsHolesAndRegions) {
  const Mesh a = triangle::read(data("A.poly"));
  EXPECT_EQ(a.points.shape(), (Shape{29, 2}));
  EXPECT_EQ(block_summary(a), "line:29");
  ASSERT_NE(a.field_data.find("triangle:holes"), nullptr);
  EXPECT_EQ(a.field_data.find("triangle:holes")->shape(), (Shape{1, 2}));
  EXPECT_EQ(a.field_data.find("triangle:holes")->data_as<double>()[0], 0.47);

  const Mesh box = triangle::read(data("box.poly"));  // comments after values, a marker 33
  EXPECT_EQ(block_summary(box), "line:5");
  EXPECT_EQ(int_values(*box.point_data.find("triangle:ref"))[3], 33);
  EXPECT_EQ(int_values((*box.cell_data.find("triangle:ref"))[0]), (std::vector<std::int64_t>{5, 0, 0, 10, 0}));

  const Mesh la = triangle::read(data("la.poly"));
  EXPECT_EQ(block_summary(la), "line:148");
  const NDArray* regions = la.field_data.find("triangle:regions");
  ASSERT_NE(regions, nullptr);
  EXPECT_EQ(regions->shape(), (Shape{6, 4}));
  // "1  6 -0.2 0.05": no area constraint; Triangle takes the attribute for it.
  EXPECT_EQ(regions->data_as<double>()[2], 0.05);
  EXPECT_EQ(regions->data_as<double>()[3], 0.05);
  EXPECT_EQ(la.points.data_as<double>()[1], -0.0);  // "-.000000E+00"
}

TEST(TriangleRead, PolyWithoutPointsReadsTheNodeFile) {
  const Mesh mesh = triangle::read(data("box.1.poly"));
  EXPECT_EQ(mesh.points.shape(), (Shape{8, 2}));
  EXPECT_EQ(block_summary(mesh), "line:8");
}

TEST(TriangleSniff, NodeAndEleGoToTriangleOrTetgenByContent) {
  EXPECT_EQ(block_summary(read(data("A.1.node"))), "triangle:60");
  EXPECT_EQ(block_summary(read(data("spiral0.1.ele"))), "triangle:15");
  EXPECT_EQ(block_summary(read(data("Ao2.1.ele"))), "triangle6:60");
  // TetGen's 3-D pair, as TetGen writes it (a point at the origin, integer coordinates).
  write_scratch("tet.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n");
  write_scratch("tet.ele", "1 4 0\n1 1 2 3 4\n");
  EXPECT_EQ(block_summary(read(scratch("tet.node").string())), "tetra:1");
  EXPECT_EQ(block_summary(read(scratch("tet.ele").string())), "tetra:1");
  write_scratch("tet3.node", "4 3\n1 0.5 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n");
  write_scratch("tet3.ele", "1 4\n1 1 2 3 4\n");
  EXPECT_EQ(block_summary(read(scratch("tet3.node").string())), "tetra:1");
  EXPECT_TRUE(triangle::looks_like("15 3 0\n0 0 4 5\n1 0 5 6\n"));
  EXPECT_FALSE(triangle::looks_like("15 3 0\n0 0 0 5\n"));
  EXPECT_FALSE(triangle::looks_like("8 3 0 1\n"));
  // Neither: the refusal names both.
  write_scratch("odd.node", "hello\n");
  const ReadError error = expect_read_error([&] { read(scratch("odd.node").string()); });
  EXPECT_NE(error.reason().find("tetgen, triangle"), std::string::npos) << error.what();
}

TEST(TriangleWrite, RoundTripsEveryPath) {
  for (const char* name : {"A.1.ele", "Ao2.1.ele", "la.1.ele"}) {
    const Mesh mesh = triangle::read(data(name));
    const std::string out = scratch(std::string("rt-") + name).string();
    triangle::write(out, mesh, {});
    const Mesh back = triangle::read(out);
    EXPECT_TRUE(same_bits(back.points, mesh.points)) << name;
    EXPECT_EQ(nodes_of(back.cells[0]), nodes_of(mesh.cells[0])) << name;
    ASSERT_EQ(back.point_data.size(), mesh.point_data.size());
    for (const auto& [key, array] : mesh.point_data) EXPECT_TRUE(same_bits(*back.point_data.find(key), array)) << key;
    for (const auto& [key, arrays] : mesh.cell_data) EXPECT_TRUE(same_bits((*back.cell_data.find(key))[0], arrays[0]));
  }
  for (const char* name : {"la.poly", "box.poly"}) {
    const Mesh mesh = triangle::read(data(name));
    const std::string out = scratch(std::string("rt-") + name).string();
    triangle::write(out, mesh, {});
    const Mesh back = triangle::read(out);
    EXPECT_TRUE(same_bits(back.points, mesh.points));
    EXPECT_EQ(nodes_of(back.cells[0]), nodes_of(mesh.cells[0]));
    for (const auto& [key, array] : mesh.field_data) EXPECT_TRUE(same_bits(*back.field_data.find(key), array)) << key;
  }
  const Mesh edges = triangle::read(data("A.1.edge"));
  triangle::write(scratch("rt.edge").string(), edges, {});
  const Mesh back = triangle::read(scratch("rt.edge").string());
  EXPECT_EQ(nodes_of(back.cells[0]), nodes_of(edges.cells[0]));
  EXPECT_TRUE(same_bits((*back.cell_data.find("triangle:ref"))[0], (*edges.cell_data.find("triangle:ref"))[0]));
}

TEST(TriangleWrite, RefusesWhatTriangleCannotHold) {
  Mesh mesh;
  mesh.points = array_of<double>({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0.5});
  mesh.cells.push_back(CellBlock{"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  EXPECT_THROW(triangle::write(scratch("z.node").string(), mesh, {}), std::invalid_argument);
  mesh.points.data_as<double>()[8] = 0;  // z all 0: written as 2-D
  triangle::write(scratch("z.node").string(), mesh, {});
  EXPECT_EQ(triangle::read(scratch("z.node").string()).points.shape(), (Shape{3, 2}));
  EXPECT_THROW(triangle::write(scratch("z.poly").string(), mesh, {}), std::invalid_argument);
  mesh.cells.push_back(CellBlock{"quad", int64_matrix(1, 4, {0, 1, 2, 0}), {}, {}});
  EXPECT_THROW(triangle::write(scratch("q.node").string(), mesh, {}), std::invalid_argument);
}

TEST(TriangleErrors, MalformedInputNamesFileAndLine) {
  write_scratch("e.node", "3 2 0 0\n1 0 0\n2 1 0\n3 0 1\n");
  write_scratch("e.ele", "1 3 0\n1 1 2 4\n");
  const ReadError range = expect_read_error([&] { triangle::read(scratch("e.ele").string()); });
  EXPECT_EQ(range.path(), scratch("e.ele").string());
  EXPECT_EQ(range.format(), "triangle");
  EXPECT_EQ(range.line(), 2u);
  EXPECT_NE(range.reason().find("outside [1, 4)"), std::string::npos) << range.what();

  write_scratch("f.node", "3 3 0 0\n1 0 0 0\n");
  EXPECT_NE(expect_read_error([&] { triangle::read(scratch("f.node").string()); }).reason().find("dimension must be 2"),
            std::string::npos);
  write_scratch("g.node", "1000000000 2 0 0\n1 0 0\n");
  EXPECT_NE(expect_read_error([&] { triangle::read(scratch("g.node").string()); }).reason().find("more than the rest"),
            std::string::npos);
  write_scratch("h.node", "3 2 0 0\n1 0.000 0.000\n2 1.000 0.000\n");
  const ReadError cut = expect_read_error([&] { triangle::read(scratch("h.node").string()); });
  EXPECT_NE(cut.reason().find("unexpected end of file"), std::string::npos) << cut.what();
  write_scratch("h2.node", "3 2 0 0\n1 0 0\n2 1 x\n3 0 1\n");
  EXPECT_EQ(expect_read_error([&] { triangle::read(scratch("h2.node").string()); }).line(), 3u);
  write_scratch("v.node", "2 2 0 0\n1 0 0\n2 1 0\n");
  write_scratch("v.edge", "1 0\n1 1 -1 0.5 0.5\n");
  EXPECT_NE(expect_read_error([&] { triangle::read(scratch("v.edge").string()); }).reason().find("Voronoi ray"),
            std::string::npos);
  write_scratch("k.ele", "1 4 0\n1 1 2 3 1\n");
  write_scratch("k.node", "3 2 0 0\n1 0 0\n2 1 0\n3 0 1\n");
  EXPECT_NE(expect_read_error([&] { triangle::read(scratch("k.ele").string()); }).reason().find("not Triangle's"),
            std::string::npos);
  write_scratch("p.poly", "0 2 0 0\n0 0\n");
  EXPECT_NE(expect_read_error([&] { triangle::read(scratch("p.poly").string()); }).reason().find("does not exist"),
            std::string::npos);
  write_scratch("m.node", "2 2 0 2\n1 0 0 1 1\n2 1 0 1 1\n");
  EXPECT_NE(expect_read_error([&] { triangle::read(scratch("m.node").string()); }).reason().find("0 or 1"),
            std::string::npos);
  EXPECT_THROW(triangle::read(scratch("x.vtk").string()), ReadError);
}
