// VTK legacy (.vtk) polyhedra (type 42): each cell's list is its face stream, in 4.2 and 5.1
// alike (what VTK 9's vtkUnstructuredGridWriter writes). Round trips through every write
// variant, VTK's own bytes, real files (SimuCell3D, written by VTK/ParaView), and the errors a
// broken stream raises.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "formats/vtk/vtk.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/polyhedron_checks.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

template <class T>
std::vector<T> values_of(const NDArray& array) {
  const auto values = array.values<T>();
  return {values.begin(), values.end()};
}

WriteOptions options_for(const std::string& version, bool binary) {
  WriteOptions options;
  options.set("fmt_version", version);
  options.set("binary", binary ? "true" : "false");
  return options;
}

// Polyhedron faces as nested lists, one cell at a time.
using Faces = Polyhedron;  // tests/support/polyhedron_checks.hpp

// A unit cube and a pyramid beside it as polyhedra (faces outwards), between a tetra and a
// triangle: the layout of tests/formats/vtk/test_vtk_interop.py's VTK-written grid.
const Faces kCube = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
const Faces kPyramid = {{1, 2, 9, 8}, {1, 8, 5}, {8, 9, 5}, {9, 2, 5}, {2, 1, 5}};

Mesh mixed_mesh() {
  Mesh mesh;
  mesh.points = array_of<double>({10, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1,
                                             1, 0, 1, 1, 1, 1, 0, 1, 1, 2, 0, 0, 2, 1, 0});
  CellBlock tetra;
  tetra.type = "tetra";
  tetra.connectivity = array_of<std::int64_t>({1, 4}, {1, 8, 2, 5});
  CellBlock triangle;
  triangle.type = "triangle";
  triangle.connectivity = array_of<std::int64_t>({1, 3}, {8, 9, 5});
  mesh.cells = {tetra, polyhedron_block({kCube, kPyramid}), triangle};
  mesh.cell_data.set("id", {array_of<std::int32_t>({1}, {7}), array_of<std::int32_t>({2}, {8, 9}),
                            array_of<std::int32_t>({1}, {10})});
  return mesh;
}

class VtkPolyhedronRoundTrip : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(VtkPolyhedronRoundTrip, FacesPointsAndCellDataComeBack) {
  const auto& [version, binary] = GetParam();
  ScratchDir scratch;
  const std::string path = scratch.file("poly.vtk");
  const Mesh mesh = mixed_mesh();
  vtk::write(path, mesh, options_for(version, binary));
  const Mesh back = vtk::read(path);
  EXPECT_EQ(values_of<double>(back.points), values_of<double>(mesh.points));
  ASSERT_EQ(back.cells.size(), 3u);
  EXPECT_EQ(back.cells[0].type, "tetra");
  EXPECT_EQ(back.cells[1].type, "polyhedron");
  EXPECT_EQ(back.cells[2].type, "triangle");
  EXPECT_EQ(polyhedra_of(back.cells[1]), (std::vector<Faces>{kCube, kPyramid}));
  EXPECT_EQ(values_of<std::int64_t>(back.cells[0].connectivity), (std::vector<std::int64_t>{1, 8, 2, 5}));
  const auto* ids = back.cell_data.find("id");
  ASSERT_NE(ids, nullptr);
  ASSERT_EQ(ids->size(), 3u);
  EXPECT_EQ(values_of<std::int32_t>((*ids)[1]), (std::vector<std::int32_t>{8, 9}));
  // And through the registry, by extension.
  meshioplusplus::write(scratch.file("again.vtk"), back);
  EXPECT_EQ(polyhedra_of(meshioplusplus::read(scratch.file("again.vtk")).cells[1]), (std::vector<Faces>{kCube, kPyramid}));
}

INSTANTIATE_TEST_SUITE_P(AllVariants, VtkPolyhedronRoundTrip,
                         ::testing::Combine(::testing::Values("4.2", "5.1"), ::testing::Bool()));

// vtkUnstructuredGridWriter (VTK 9.7) on the same grid, ASCII: 4.2 and 5.1 hold the face
// stream in the cell's list. Ours must be the same bytes in those sections.
constexpr const char* kVtkCells42 =
    "CELLS 3 60\n4 1 8 2 5\n"
    "31 6 4 0 3 2 1 4 4 5 6 7 4 0 1 5 4 4 1 2 6 5 4 2 3 7 6 4 3 0 4 7\n"
    "22 5 4 1 2 9 8 3 1 8 5 3 8 9 5 3 9 2 5 3 2 1 5\n";
constexpr const char* kVtkFile51 =
    "# vtk DataFile Version 5.1\nvtk output\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 10 float\n"
    "0 0 0 1 0 0 1 1 0 \n0 1 0 0 0 1 1 0 1 \n1 1 1 0 1 1 2 0 0 \n2 1 0 \n"
    "CELLS 4 57\nOFFSETS vtktypeint64\n0 4 35 57 \nCONNECTIVITY vtktypeint64\n"
    "1 8 2 5 6 4 0 3 2 \n1 4 4 5 6 7 4 0 1 \n5 4 4 1 2 6 5 4 2 \n3 7 6 4 3 0 4 7 5 \n"
    "4 1 2 9 8 3 1 8 5 \n3 8 9 5 3 9 2 5 3 \n2 1 5 \nCELL_TYPES 3\n10\n42\n42\n";

TEST(VtkPolyhedronLayout, OursMatchesVtkWriterAndVtkFilesRead) {
  ScratchDir scratch;
  Mesh mesh = mixed_mesh();
  mesh.cells.pop_back();
  mesh.cell_data = {};
  const std::string path = scratch.file("ours.vtk");
  vtk::write(path, mesh, options_for("4.2", false));
  std::string text = read_file(path);
  EXPECT_NE(text.find(kVtkCells42), std::string::npos) << text;
  EXPECT_NE(text.find("CELL_TYPES 3\n10\n42\n42\n"), std::string::npos) << text;
  vtk::write(path, mesh, options_for("5.1", false));
  text = read_file(path);
  EXPECT_NE(text.find("CELLS 4 57\nOFFSETS vtktypeint64\n0 4 35 57\n"), std::string::npos) << text;

  const Mesh from_vtk = vtk::read(scratch.write("vtk51.vtk", kVtkFile51));
  ASSERT_EQ(from_vtk.cells.size(), 2u);
  EXPECT_EQ(polyhedra_of(from_vtk.cells[1]), (std::vector<Faces>{kCube, kPyramid}));
  EXPECT_EQ(from_vtk.num_points(), 10);
}

TEST(VtkPolyhedronLayout, RunsSplitWherePolyhedraAlternateWithOtherCells) {
  ScratchDir scratch;
  Mesh mesh = mixed_mesh();
  mesh.cells = {polyhedron_block({kCube}), mesh.cells[0], polyhedron_block({kPyramid}), polyhedron_block({kCube, kPyramid})};
  mesh.cell_data = {};
  const std::string path = scratch.file("runs.vtk");
  vtk::write(path, mesh, options_for("5.1", true));
  const Mesh back = vtk::read(path);
  ASSERT_EQ(back.cells.size(), 3u);  // the last two polyhedron blocks are one run
  EXPECT_EQ(polyhedra_of(back.cells[0]), (std::vector<Faces>{kCube}));
  EXPECT_EQ(back.cells[1].type, "tetra");
  EXPECT_EQ(polyhedra_of(back.cells[2]), (std::vector<Faces>{kPyramid, kCube, kPyramid}));
}

// ---- real files: SimuCell3D's input meshes, written by VTK (ParaView) 4.2 ASCII ----------

fs::path data_file(const std::string& name) { return meshioplusplus::testing::test_data_dir() / "vtk" / name; }

struct FaceStreamSummary {
  std::int64_t faces = 0, nodes = 0, node_sum = 0;
};

FaceStreamSummary summarize(const CellBlock& block) {
  FaceStreamSummary summary;
  summary.faces = block.face_offsets.rows() - 1;
  summary.nodes = static_cast<std::int64_t>(block.connectivity.size());
  for (const std::int64_t node : values_of<std::int64_t>(block.connectivity)) summary.node_sum += node;
  return summary;
}

// The expected numbers are VTK 9.7's (vtkUnstructuredGridReader, GetFaceStream per cell):
// tests/formats/vtk/test_vtk_interop.py checks the same files cell by cell against VTK.
TEST(VtkPolyhedronRealFiles, SimuCell3DTwoCubes) {
  const fs::path path = data_file("simucell3d_2_cubes.vtk");
  ASSERT_TRUE(fs::exists(path)) << path << " is missing (tests/data/MANIFEST.tsv)";
  const Mesh mesh = vtk::read(path.string());
  EXPECT_EQ(mesh.num_points(), 16);
  EXPECT_EQ(mesh.points.dtype(), DType::float32);
  EXPECT_NEAR(point_sum(mesh.points), 0.000236, 1e-9);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].type, "polyhedron");
  EXPECT_EQ(mesh.cells[0].num_cells(), 2);
  const FaceStreamSummary summary = summarize(mesh.cells[0]);
  EXPECT_EQ(summary.faces, 24);
  EXPECT_EQ(summary.nodes, 72);
  EXPECT_EQ(summary.node_sum, 540);
  EXPECT_EQ(polyhedra_of(mesh.cells[0])[0][0], (std::vector<std::int64_t>{0, 1, 3}));
  ASSERT_NE(mesh.cell_data.find("cell_type_id"), nullptr);
  ASSERT_NE(mesh.point_data.find("vtkOriginalPointIds"), nullptr);
}

TEST(VtkPolyhedronRealFiles, SimuCell3DHexagonalCellLayerRoundTrips) {
  const fs::path path = data_file("simucell3d_hexagonal_cell_layer.vtk");
  ASSERT_TRUE(fs::exists(path)) << path << " is missing (tests/data/MANIFEST.tsv)";
  const Mesh mesh = vtk::read(path.string());
  EXPECT_EQ(mesh.num_points(), 300);
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(mesh.cells[0].num_cells(), 25);
  const FaceStreamSummary summary = summarize(mesh.cells[0]);
  EXPECT_EQ(summary.faces, 200);
  EXPECT_EQ(summary.nodes, 900);
  EXPECT_EQ(summary.node_sum, 134550);
  // Hexagonal prisms: two hexagons and six quads each.
  EXPECT_EQ(polyhedra_of(mesh.cells[0])[0].front().size(), 6u);
  ScratchDir scratch;
  for (const auto& [version, binary] : {std::pair{"4.2", true}, std::pair{"5.1", false}}) {
    vtk::write(scratch.file("layer.vtk"), mesh, options_for(version, binary));
    const Mesh back = vtk::read(scratch.file("layer.vtk"));
    EXPECT_EQ(polyhedra_of(back.cells[0]), polyhedra_of(mesh.cells[0])) << version;
    EXPECT_EQ(values_of<float>(back.points), values_of<float>(mesh.points)) << version;
  }
}

// ---- broken streams -----------------------------------------------------------------------

class VtkPolyhedronBadInput : public ::testing::Test {
 protected:
  void expect_read_error(const std::string& text, const std::string& reason, std::size_t line) {
    const std::string path = scratch_.write("broken.vtk", text);
    try {
      vtk::read(path);
      ADD_FAILURE() << "no ReadError for '" << reason << "'";
    } catch (const ReadError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(reason), std::string::npos) << what;
      EXPECT_NE(what.find(path), std::string::npos) << what;
      ASSERT_TRUE(error.byte_offset().has_value()) << what;
      ASSERT_TRUE(error.line().has_value()) << what;
      EXPECT_EQ(*error.line(), line) << what;
    }
  }
  ScratchDir scratch_;
};

const std::string kHeader42 =
    "# vtk DataFile Version 4.2\nbad\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 1\n";
// A tetrahedron as a polyhedron: 4 triangles.
const std::string kTetStream = "4 3 0 2 1 3 0 1 3 3 1 2 3 3 2 0 3";

TEST_F(VtkPolyhedronBadInput, AWellFormedTetrahedronReads) {
  const Mesh mesh = vtk::read(scratch_.write("ok.vtk", kHeader42 + "CELLS 1 18\n17 " + kTetStream + "\nCELL_TYPES 1\n42\n"));
  ASSERT_EQ(mesh.cells.size(), 1u);
  EXPECT_EQ(polyhedra_of(mesh.cells[0])[0], (Faces{{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}}));
}

TEST_F(VtkPolyhedronBadInput, FaceStreamRunsPastTheCellsList) {
  // The cell's list holds 6 values, its stream announces a second face that is not there.
  expect_read_error(kHeader42 + "CELLS 1 7\n6 2 3 0 1 2 3\nCELL_TYPES 1\n42\n", "cell 0: polyhedron face 1 claims 3 points", 7);
  expect_read_error(kHeader42 + "CELLS 1 6\n5 2 3 0 1 2\nCELL_TYPES 1\n42\n", "ends inside face 1 of 2", 7);
  // Stops short: values left over after the last face.
  expect_read_error(kHeader42 + "CELLS 1 7\n6 1 3 0 1 2 3\nCELL_TYPES 1\n42\n", "holds 6 values but its faces take 5", 7);
  expect_read_error(kHeader42 + "CELLS 1 2\n1 -1\nCELL_TYPES 1\n42\n", "negative face count", 7);
  expect_read_error(kHeader42 + "CELLS 1 1\n0\nCELL_TYPES 1\n42\n", "ends before its face count", 7);
  // 5.1: the same in OFFSETS / CONNECTIVITY.
  const std::string v51 = "# vtk DataFile Version 5.1\nbad\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 float\n0 0 0 1 0 0 0 1 0 0 0 1\n";
  expect_read_error(v51 + "CELLS 2 5\nOFFSETS vtktypeint64\n0 5\nCONNECTIVITY vtktypeint64\n2 3 0 1 2\nCELL_TYPES 1\n42\n",
                    "ends inside face 1 of 2", 7);
}

TEST_F(VtkPolyhedronBadInput, FaceNamingAMissingPoint) {
  expect_read_error(kHeader42 + "CELLS 2 23\n4 0 1 2 3\n17 4 3 0 2 1 3 0 1 3 3 1 2 3 3 2 0 9\nCELL_TYPES 2\n10 42\n",
                    "cell 1: polyhedron face 3 names point 9 outside [0, 4)", 7);
  expect_read_error(kHeader42 + "CELLS 1 18\n17 4 3 0 2 1 3 0 -1 3 3 1 2 3 3 2 0 3\nCELL_TYPES 1\n42\n",
                    "names point -1", 7);
}

TEST_F(VtkPolyhedronBadInput, DamagedBinaryFilesNeverCrash) {
  const std::string path = scratch_.file("whole.vtk");
  for (const char* version : {"4.2", "5.1"}) {
    vtk::write(path, mixed_mesh(), options_for(version, true));
    const std::string whole = read_file(path);
    const std::size_t cells = whole.find("CELLS");
    ASSERT_NE(cells, std::string::npos);
    int errors = 0;
    // Cut, and flip one byte at a time, through the cell lists: a ReadError or a mesh, never more.
    for (std::size_t at = cells; at < whole.find("CELL_TYPES"); ++at) {
      for (const bool cut : {true, false}) {
        std::string bytes = cut ? whole.substr(0, at) : whole;
        if (!cut) bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
        const std::string damaged = scratch_.write("damaged.vtk", bytes);
        try {
          const Mesh mesh = vtk::read(damaged);
          validate(mesh);
        } catch (const ReadError&) {
          ++errors;
        }
      }
    }
    EXPECT_GT(errors, 0) << version;
  }
}

}  // namespace
