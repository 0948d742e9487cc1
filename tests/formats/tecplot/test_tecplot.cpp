// Tecplot ASCII reader and writer: BLOCK and POINT packing, the old F=FEPOINT/FEBLOCK records,
// multi-line VARIABLES and ZONE headers, VARLOCATION and NV, several zones, round trips of
// every cell type, and malformed input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "formats/tecplot/tecplot.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;


TEST(TecplotRead, BlockPackingWithCellCentredVariablesOverSeveralLines) {
  const std::string text =
      "# a comment\n"
      "TITLE = \"example\"\n"
      "VARIABLES = \"X\", \"Y\"\n"
      "\"P\"\n"
      "\"cell value\"\n"
      "ZONE NODES = 4, ELEMENTS = 2\n"
      ", DATAPACKING = BLOCK, ZONETYPE = FETRIANGLE\n"
      ", VARLOCATION = ([4] = CELLCENTERED)\n"
      "0 1 1 0\n"
      "0 0 1 1\n"
      "10 11 12 13\n"
      "0.5 0.25\n"
      "1 2 3\n"
      "1 3 4\n";
  const Mesh mesh = tecplot::read(write_scratch("block.dat", text));
  EXPECT_EQ(mesh.points.shape(), (Shape{4, 2}));
  EXPECT_EQ(mesh.points.data_as<double>()[2], 1.0);
  EXPECT_EQ(block_summary(mesh), "triangle:2");
  EXPECT_EQ(nodes_of(mesh.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  ASSERT_NE(mesh.point_data.find("P"), nullptr);
  EXPECT_EQ(mesh.point_data.find("P")->data_as<double>()[3], 13);
  const auto* cell = mesh.cell_data.find("cell_value");
  ASSERT_NE(cell, nullptr);
  EXPECT_EQ((*cell)[0].data_as<double>()[1], 0.25);
  EXPECT_TRUE(mesh.regions.empty());
}

TEST(TecplotRead, PointPackingAndOldFepointRecord) {
  const std::string point =
      "VARIABLES = X Y Z T\n"
      "ZONE T=\"solid\", N=4, E=1, DATAPACKING=POINT, ZONETYPE=FETETRAHEDRON\n"
      "0 0 0 1\n1 0 0 2\n0 1 0 3\n0 0 1 4.5e-3\n"
      "1 2 3 4\n";
  const Mesh a = tecplot::read(write_scratch("point.dat", point));
  EXPECT_EQ(a.points.shape(), (Shape{4, 3}));
  EXPECT_EQ(a.point_data.find("T")->data_as<double>()[3], 4.5e-3);
  EXPECT_EQ(block_summary(a), "tetra:1");
  const std::string old =
      "variables = \"x\", \"y\", \"z\", \"T\"\n"
      "zone n=4, e=1, f=fepoint, et=tetrahedron\n"
      "0 0 0 1\n1 0 0 2\n0 1 0 3\n0 0 1 4.5e-3\n"
      "1 2 3 4\n";
  const Mesh b = tecplot::read(write_scratch("fepoint.dat", old));
  EXPECT_TRUE(same_bits(a.points, b.points));
  EXPECT_TRUE(same_bits(*a.point_data.find("T"), *b.point_data.find("T")));
}

TEST(TecplotRead, FeblockWithNvAndBricks) {
  const std::string text =
      "VARIABLES = \"X\" \"Y\" \"Z\" \"Q\"\n"
      "ZONE N=8, E=1, F=FEBLOCK, ET=BRICK, NV=3\n"
      "0 1 1 0 0 1 1 0\n0 0 1 1 0 0 1 1\n0 0 0 0 1 1 1 1\n"
      "42\n"
      "1 2 3 4 5 6 7 8\n";
  const Mesh mesh = tecplot::read(write_scratch("feblock.dat", text));
  EXPECT_EQ(block_summary(mesh), "hexahedron:1");
  EXPECT_EQ((*mesh.cell_data.find("Q"))[0].data_as<double>()[0], 42);
}

TEST(TecplotRead, SeveralZonesAreMergedWithOneRegionEach) {
  const std::string text =
      "VARIABLES = \"X\", \"Y\", \"T\"\n"
      "ZONE T=\"left\", N=3, E=1, ZONETYPE=FETRIANGLE\n"
      "0 1 0  0 0 1  1 2 3\n"
      "1 2 3\n"
      "ZONE T=\"right\", N=4, E=1, ZONETYPE=FEQUADRILATERAL, DATAPACKING=BLOCK\n"
      "1 2 2 1  0 0 1 1  4 5 6 7\n"
      "1 2 3 4\n";
  const Mesh mesh = tecplot::read(write_scratch("zones.dat", text));
  EXPECT_EQ(mesh.num_points(), 7);
  EXPECT_EQ(block_summary(mesh), "triangle:1;quad:1");
  EXPECT_EQ(nodes_of(mesh.cells[1]), (std::vector<std::int64_t>{3, 4, 5, 6}));
  EXPECT_EQ(mesh.point_data.find("T")->data_as<double>()[6], 7);
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[1].name, "right");
  EXPECT_EQ(mesh.regions[1].entries.data_as<std::int64_t>()[0], 1);
}

TEST(TecplotRoundTrip, EveryCellTypeAloneIsBitExact) {
  for (const auto& [type, k] : std::vector<std::pair<std::string, int>>{
           {"line", 2}, {"triangle", 3}, {"quad", 4}, {"tetra", 4}, {"hexahedron", 8}}) {
    Mesh mesh;
    std::vector<double> xyz;
    for (int i = 0; i < 8; ++i)
      for (double v : {0.1 * i, 1.0 / (i + 3), 1e-300 * i}) xyz.push_back(v);
    mesh.points = array_of<double>({8, 3}, xyz);
    std::vector<std::int64_t> nodes;
    for (int c = 0; c < 2; ++c)
      for (int n = 0; n < k; ++n) nodes.push_back((n + c) % 8);
    mesh.cells.push_back({type, int64_matrix(2, k, nodes), {}, {}});
    mesh.point_data.set("T", array_of<double>({8}, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0 / 3}));
    mesh.cell_data.set("c", {array_of<double>({2}, {1.0 / 7, -2.5})});
    const std::string path = scratch("alone_" + type + ".dat").string();
    tecplot::write(path, mesh, {});
    const Mesh back = tecplot::read(path);
    EXPECT_TRUE(same_bits(back.points, mesh.points)) << type;
    ASSERT_EQ(back.cells.size(), 1u);
    EXPECT_EQ(back.cells[0].type, type);
    EXPECT_TRUE(same_bits(back.cells[0].connectivity, mesh.cells[0].connectivity)) << type;
    EXPECT_TRUE(same_bits(*back.point_data.find("T"), *mesh.point_data.find("T")));
    EXPECT_TRUE(same_bits((*back.cell_data.find("c"))[0], (*mesh.cell_data.find("c"))[0]));
  }
}

TEST(TecplotRoundTrip, MixedTypesBecomeDegenerateQuadsAndBricks) {
  Mesh mesh;
  mesh.points = array_of<double>({6, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1});
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cells.push_back({"wedge", int64_matrix(1, 6, {0, 1, 2, 3, 5, 4}), {}, {}});
  mesh.cells.push_back({"pyramid", int64_matrix(1, 5, {0, 1, 4, 2, 3}), {}, {}});
  mesh.point_data.set("v", array_of<double>({6, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  const std::string path = scratch("mixed.dat").string();
  tecplot::write(path, mesh, {});
  const Mesh back = tecplot::read(path);
  EXPECT_EQ(block_summary(back), "hexahedron:3");
  EXPECT_EQ(nodes_of(back.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 2, 3, 3, 3, 3, 0, 1, 5, 3, 2, 2, 4, 4,
                                                                 0, 1, 4, 2, 3, 3, 3, 3}));
  EXPECT_EQ(back.point_data.find("v_1")->data_as<double>()[5], 11);
  mesh.cells.push_back({"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}});
  EXPECT_THROW(tecplot::write(path, mesh, {}), std::invalid_argument);
}

TEST(TecplotBadInput, TruncatedData) {
  const ReadError e = expect_read_error([] {
    tecplot::read(write_scratch("t.dat", "VARIABLES = X Y\nZONE N=3, E=1, ZONETYPE=FETRIANGLE\n0 1 0\n0 0 1\n1 2\n"));
  });
  EXPECT_NE(std::string(e.what()).find("unexpected end of file"), std::string::npos) << e.what();
  EXPECT_EQ(e.byte_offset(), 67u);
}

TEST(TecplotBadInput, BadNumberNamesLine) {
  const ReadError e = expect_read_error([] {
    tecplot::read(write_scratch("n.dat", "VARIABLES = X Y\nZONE N=3, E=1, ZONETYPE=FETRIANGLE\n0 1 0\n0 0 1.5.2\n1 2 3\n"));
  });
  EXPECT_NE(std::string(e.what()).find("invalid number '1.5.2'"), std::string::npos) << e.what();
  EXPECT_EQ(e.line(), 4u);
  EXPECT_EQ(e.byte_offset(), 61u);
}

TEST(TecplotBadInput, NodeOutOfRange) {
  const ReadError e = expect_read_error([] {
    tecplot::read(write_scratch("r.dat", "VARIABLES = X Y\nZONE N=3, E=1, ZONETYPE=FETRIANGLE\n0 1 0\n0 0 1\n1 2 4\n"));
  });
  EXPECT_NE(std::string(e.what()).find("refers to node 4, outside 1-3"), std::string::npos) << e.what();
  EXPECT_EQ(e.line(), 5u);
}

TEST(TecplotBadInput, UnsupportedZonesAndMissingRecords) {
  const auto message = [](const std::string& name, const std::string& text) {
    return std::string(expect_read_error([&] { tecplot::read(write_scratch(name, text)); }).what());
  };
  EXPECT_NE(message("o.dat", "VARIABLES = X Y\nZONE I=2, J=2\n0 1 0 1 0 0 1 1\n").find("ordered zones"), std::string::npos);
  EXPECT_NE(message("p.dat", "VARIABLES = X Y\nZONE N=3, E=1, ZONETYPE=FEPOLYGON\n").find("unsupported zone type"),
            std::string::npos);
  EXPECT_NE(message("v.dat", "ZONE N=3, E=1, ZONETYPE=FETRIANGLE\n").find("ZONE before VARIABLES"), std::string::npos);
  EXPECT_NE(message("x.dat", "VARIABLES = A B\nZONE N=1, E=0, ZONETYPE=FETRIANGLE\n0 0\n").find("need X and Y"),
            std::string::npos);
  EXPECT_NE(message("s.dat", "VARIABLES = X Y\nZONE N=3, E=1, ZONETYPE=FETRIANGLE, VARSHARELIST=([1-2]=1)\n")
                .find("VARSHARELIST"),
            std::string::npos);
  EXPECT_NE(message("l.dat", "VARIABLES = X Y\nZONE N=3, E=1, ZONETYPE=FETRIANGLE, VARLOCATION=([3]=CELLCENTERED)\n0 1 0 0 0 1 9\n1 2 3\n")
                .find("outside 1-2"),
            std::string::npos);
  EXPECT_NE(message("h.dat", "VARIABLES = X Y\nZONE N=99999999, E=1, ZONETYPE=FETRIANGLE\n1 2\n")
                .find("more nodes or elements than the rest of the file"),
            std::string::npos);
}
