// XDMF polyhedra: written into a Mixed topology as id 16 + face stream (the layout VTK's XDMF
// reader reads), read from Mixed and from TopologyType="Polyhedron"; round trips in the three
// heavy-data forms, and the errors a broken face stream raises.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/xdmf/xdmf.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/polyhedron_checks.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

using Faces = Polyhedron;  // tests/support/polyhedron_checks.hpp

const Faces kCube = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
const Faces kPyramid = {{1, 2, 9, 8}, {1, 8, 5}, {8, 9, 5}, {9, 2, 5}, {2, 1, 5}};

Mesh mesh_with_polyhedra() {
  Mesh mesh;
  mesh.points = array_of<double>({10, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1,
                                           1, 0, 1, 1, 1, 1, 0, 1, 1, 2, 0, 0, 2, 1, 0});
  mesh.cells = {CellBlock{"tetra", int64_matrix(1, 4, {1, 8, 2, 5}), {}, {}}, polyhedron_block({kCube, kPyramid}),
                CellBlock{"triangle", int64_matrix(1, 3, {8, 9, 5}), {}, {}}};
  mesh.cell_data.set("id", {array_of<std::int32_t>({1}, {7}), array_of<std::int32_t>({2}, {8, 9}),
                            array_of<std::int32_t>({1}, {10})});
  return mesh;
}

const char* kGeometry =
    R"xml(<Geometry GeometryType="XYZ"><DataItem Dimensions="10 3" Format="XML" Precision="8">)xml"
    "0 0 0 1 0 0 1 1 0 0 1 0 0 0 1 1 0 1 1 1 1 0 1 1 2 0 0 2 1 0</DataItem></Geometry>";

std::string document(const std::string& topology) {
  return std::string(R"xml(<Xdmf Version="3.0"><Domain><Grid Name="g">)xml") + "\n" + kGeometry + "\n" + topology +
         "\n</Grid></Domain></Xdmf>\n";
}

}  // namespace

TEST(XdmfPolyhedra, RoundTripInEveryHeavyDataForm) {
  ScratchDir dir;
  for (const char* data_format : {"XML", "Binary", "HDF"}) {
    if (std::string(data_format) == "HDF" && !io::hdf5::available()) continue;
    SCOPED_TRACE(data_format);
    const std::string path = dir.file(std::string("poly_") + data_format + ".xdmf");
    WriteOptions options;
    options.set("data_format", data_format);
    write(path, mesh_with_polyhedra(), "", options);
    const Mesh back = read(path);
    ASSERT_TRUE(same_bits(back.points, mesh_with_polyhedra().points));
    ASSERT_EQ(back.cells.size(), 3u);
    EXPECT_EQ(back.cells[0].type, "tetra");
    EXPECT_EQ(polyhedra_of(back.cells[1]), (std::vector<Faces>{kCube, kPyramid}));
    EXPECT_EQ(int_values(back.cells[2].connectivity), (std::vector<std::int64_t>{8, 9, 5}));
    const auto* ids = back.cell_data.find("id");
    ASSERT_NE(ids, nullptr);
    ASSERT_EQ(ids->size(), 3u);
    EXPECT_EQ(int_values((*ids)[1]), (std::vector<std::int64_t>{8, 9}));
  }
}

TEST(XdmfPolyhedra, ASinglePolyhedronBlockIsWrittenAsMixedWithId16) {
  ScratchDir dir;
  Mesh mesh = mesh_with_polyhedra();
  mesh.cells = {polyhedron_block({kPyramid, kCube})};
  mesh.cell_data = {};
  const std::string path = dir.file("single.xdmf");
  WriteOptions options;
  options.set("data_format", "XML");
  write(path, mesh, "", options);
  const std::string text = read_file(path);
  EXPECT_NE(text.find(R"(TopologyType="Mixed" NumberOfElements="2")"), std::string::npos) << text;
  EXPECT_NE(text.find(">\n16\n5\n4\n1\n2\n9\n8\n3\n1\n8\n5\n"), std::string::npos) << text;
  EXPECT_EQ(polyhedra_of(read(path).cells[0]), (std::vector<Faces>{kPyramid, kCube}));
}

TEST(XdmfPolyhedra, ReadsPolyhedronTopologyAndMixedRuns) {
  ScratchDir dir;
  // XDMF 3's TopologyType="Polyhedron": the face streams back to back.
  const Mesh uniform = read(dir.write("uniform.xdmf", document(
      R"xml(<Topology TopologyType="Polyhedron" NumberOfElements="2"><DataItem Dimensions="53" Format="XML">)xml"
      "6 4 0 3 2 1 4 4 5 6 7 4 0 1 5 4 4 1 2 6 5 4 2 3 7 6 4 3 0 4 7 "
      "5 4 1 2 9 8 3 1 8 5 3 8 9 5 3 9 2 5 3 2 1 5</DataItem></Topology>")));
  ASSERT_EQ(uniform.cells.size(), 1u);
  EXPECT_EQ(polyhedra_of(uniform.cells[0]), (std::vector<Faces>{kCube, kPyramid}));
  // Mixed: polyhedron, tetra, polyhedron → three blocks.
  const Mesh mixed = read(dir.write("mixed.xdmf", document(
      R"xml(<Topology TopologyType="Mixed" NumberOfElements="3"><DataItem Dimensions="60" Format="XML">)xml"
      "16 6 4 0 3 2 1 4 4 5 6 7 4 0 1 5 4 4 1 2 6 5 4 2 3 7 6 4 3 0 4 7 "
      "6 1 8 2 5 "
      "16 5 4 1 2 9 8 3 1 8 5 3 8 9 5 3 9 2 5 3 2 1 5</DataItem></Topology>")));
  ASSERT_EQ(mixed.cells.size(), 3u);
  EXPECT_EQ(polyhedra_of(mixed.cells[0]), (std::vector<Faces>{kCube}));
  EXPECT_EQ(mixed.cells[1].type, "tetra");
  EXPECT_EQ(polyhedra_of(mixed.cells[2]), (std::vector<Faces>{kPyramid}));
}

TEST(XdmfPolyhedra, BrokenFaceStreamsAreReadErrors) {
  ScratchDir dir;
  const std::pair<std::string, const char*> cases[] = {
      // The second face announces 3 points, the data end after 1.
      {R"xml(<Topology TopologyType="Mixed"><DataItem Dimensions="8" Format="XML">16 2 3 0 1 2 3 4</DataItem></Topology>)xml",
       "polyhedron face 1 claims 3 points"},
      {R"xml(<Topology TopologyType="Mixed"><DataItem Dimensions="6" Format="XML">16 2 3 0 1 2</DataItem></Topology>)xml",
       "ends inside face 1 of 2"},
      {R"xml(<Topology TopologyType="Mixed"><DataItem Dimensions="2" Format="XML">16 -3</DataItem></Topology>)xml",
       "negative face count"},
      {R"xml(<Topology TopologyType="Polyhedron"><DataItem Dimensions="6" Format="XML">2 3 0 1 2 9</DataItem></Topology>)xml",
       "cell 0: polyhedron face 1 claims 9 points"},
      {R"xml(<Topology TopologyType="Polyhedron" NumberOfElements="3"><DataItem Dimensions="5" Format="XML">1 3 0 1 2</DataItem></Topology>)xml",
       "NumberOfElements 3 but the Polyhedron data holds 1"},
      // A face naming a point the grid does not have.
      {R"xml(<Topology TopologyType="Mixed"><DataItem Dimensions="15" Format="XML">16 2 3 0 1 2 3 0 2 10 6 1 2 3 4</DataItem></Topology>)xml",
       "node index 10"},
  };
  int k = 0;
  for (const auto& [topology, needle] : cases) {
    const std::string path = dir.write("bad" + std::to_string(k++) + ".xdmf", document(topology));
    const ReadError error = expect_read_error([&] { read(path); });
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
    EXPECT_TRUE(error.line().has_value()) << error.what();
    if (error.line()) EXPECT_EQ(*error.line(), 3u) << error.what();  // the Topology's line
  }
}
