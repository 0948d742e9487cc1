// MFEM mesh reader and writer: MFEM's own data/ meshes (v1.0 and v1.3, every geometry, curved
// P2 meshes), the .mesh sniff against Medit, refusals by name (NC, NURBS, INLINE, periodic
// L2 nodes), round trips, malformed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/mfem/mfem.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_data.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

std::string data(const std::string& name) { return (meshioplusplus::testing::test_data_dir() / "mfem" / name).string(); }

// Each cell's nodes sorted, the rows sorted: MFEM reorients tetrahedra and may reorder
// elements when it loads a mesh, so its VTK export agrees with the file up to that.
std::vector<std::vector<std::int64_t>> node_sets(const CellBlock& block) {
  const std::vector<std::int64_t> nodes = nodes_of(block);
  const std::size_t width = static_cast<std::size_t>(block.connectivity.dim(1));
  std::vector<std::vector<std::int64_t>> rows;
  for (std::size_t i = 0; i < nodes.size(); i += width) {
    rows.emplace_back(nodes.begin() + i, nodes.begin() + i + width);
    std::sort(rows.back().begin(), rows.back().end());
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

TEST(MfemRead, AgreesWithMfemsOwnVtkExport) {
  for (const char* stem : {"star", "beam-tet", "beam-hex", "escher", "fichera"}) {
    const Mesh ours = mfem::read(data(std::string(stem) + ".mesh"));
    const Mesh vtk = read(data(std::string(stem) + ".vtk"));
    ASSERT_EQ(ours.num_points(), vtk.num_points()) << stem;
    const double* a = ours.points.data_as<double>();
    const double* b = vtk.points.data_as<double>();
    const std::int64_t w = ours.points.dim(1);
    for (std::int64_t i = 0; i < ours.num_points(); ++i)
      for (std::int64_t d = 0; d < w; ++d) ASSERT_EQ(a[i * w + d], b[i * 3 + d]) << stem;
    ASSERT_EQ(vtk.cells.size(), 1u);
    EXPECT_EQ(ours.cells[0].type, vtk.cells[0].type) << stem;
    EXPECT_EQ(node_sets(ours.cells[0]), node_sets(vtk.cells[0])) << stem;
  }
  // Quads and hexahedra keep the file's order exactly.
  EXPECT_EQ(nodes_of(mfem::read(data("beam-hex.mesh")).cells[0]), nodes_of(read(data("beam-hex.vtk")).cells[0]));
  EXPECT_EQ(nodes_of(mfem::read(data("star.mesh")).cells[0]), nodes_of(read(data("star.vtk")).cells[0]));
}

TEST(MfemRead, CountsAttributesAndRegions) {
  const Mesh star = mfem::read(data("star.mesh"));
  EXPECT_EQ(block_summary(star), "quad:20;line:20");
  EXPECT_EQ(star.points.shape(), (Shape{31, 2}));
  const std::vector<NDArray>* attribute = star.cell_data.find("mfem:attribute");
  ASSERT_NE(attribute, nullptr);
  EXPECT_EQ((*attribute)[0].dtype(), DType::int32);
  ASSERT_NE(find_region(star, "mfem:attribute 1"), nullptr);
  EXPECT_EQ(find_region(star, "mfem:attribute 1")->entries.rows(), 20);
  EXPECT_EQ(find_region(star, "mfem:attribute 1")->dim, 2);
  ASSERT_NE(find_region(star, "mfem:boundary 1"), nullptr);
  EXPECT_EQ(find_region(star, "mfem:boundary 1")->dim, 1);
  EXPECT_EQ(int_values(find_region(star, "mfem:boundary 1")->entries).front(), 20);

  const Mesh zoo = mfem::read(data("tinyzoo-3d.mesh"));
  EXPECT_EQ(block_summary(zoo).substr(0, 40), "hexahedron:1;wedge:1;pyramid:1;tetra:1;q");
  EXPECT_EQ(zoo.num_points(), 12);
}

TEST(MfemRead, PrismsKeepTheirOrder) {
  // File: "1 6  0  9 18  1 10 19": MFEM's prism is meshio's wedge (PyMFEM's PrintVTK writes
  // "0 18 9 1 19 10", VTK's mirror, which the VTK reader turns back into this).
  const Mesh mesh = mfem::read(data("beam-wedge.mesh"));
  EXPECT_EQ(mesh.cells[0].type, "wedge");
  const std::vector<std::int64_t> nodes = nodes_of(mesh.cells[0]);
  EXPECT_EQ(std::vector<std::int64_t>(nodes.begin(), nodes.begin() + 6), (std::vector<std::int64_t>{0, 9, 18, 1, 10, 19}));
}

TEST(MfemRead, Version13AttributeSetsBecomeRegions) {
  const Mesh mesh = mfem::read(data("compass.mesh"));
  EXPECT_EQ(mesh.num_points(), 13);
  const Region* rose = find_region(mesh, "Rose");
  ASSERT_NE(rose, nullptr);
  EXPECT_EQ(rose->entries.rows(), 8);  // attributes 10 … 17, one element each
  const Region* boundary = find_region(mesh, "Boundary");
  ASSERT_NE(boundary, nullptr);
  EXPECT_EQ(boundary->entries.rows(), 8);
  EXPECT_EQ(boundary->dim, 1);
  const Region* base = find_region(mesh, "Base");
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->entries.rows(), 4);  // the four quads of attribute 9
}

TEST(MfemRead, TwoDimensionalP2MeshesBecomeQuadraticCells) {
  // Dof numbering checked against PyMFEM's FiniteElementSpace.GetElementDofs (interop test).
  const Mesh q2 = mfem::read(data("star-q2.mesh"));
  const Mesh linear = mfem::read(data("star.mesh"));
  EXPECT_EQ(block_summary(q2), "quad9:20;line3:20");
  ASSERT_EQ(q2.num_points(), 101);  // 31 vertices, 50 edges, 20 quad centres
  const std::vector<std::int64_t> nodes = nodes_of(q2.cells[0]), corners = nodes_of(linear.cells[0]);
  for (std::size_t i = 0; i < 20; ++i)
    for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(nodes[i * 9 + k], corners[i * 4 + k]);
  EXPECT_EQ(nodes[8], 31 + 50);  // the first quad's centre comes after every edge node
  // star-q2 moves vertex 0 to (-0.0245438, 0.0302653) (Ordering 0: all x, then all y).
  EXPECT_EQ(q2.points.data_as<double>()[0], -0.0245438);
  EXPECT_EQ(q2.points.data_as<double>()[1], 0.0302653);
  EXPECT_EQ(q2.string_field_data.find("mfem:dropped"), nullptr);
  EXPECT_EQ(block_summary(mfem::read(data("square-disc-p2.mesh"))), "triangle6:154;line3:48");
  EXPECT_EQ(mfem::read(data("star-mixed-p2.mesh")).num_points(), 101);
}

TEST(MfemRead, TetrahedralP2MeshesBecomeTetra10) {
  const Mesh mesh = mfem::read(data("escher-p2.mesh"));
  EXPECT_EQ(block_summary(mesh), "tetra10:42;triangle6:48");
  EXPECT_EQ(mesh.num_points(), 117);  // 26 vertices + 91 edges
  const Mesh linear = mfem::read(data("escher.mesh"));
  const std::vector<std::int64_t> nodes = nodes_of(mesh.cells[0]), corners = nodes_of(linear.cells[0]);
  for (std::size_t i = 0; i < 42; ++i)
    for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(nodes[i * 10 + k], corners[i * 4 + k]);
  EXPECT_EQ(nodes[4], 26);  // the first tetrahedron's edge 0-1 is the first edge met
}

TEST(MfemRead, OtherCurvedMeshesKeepTheirVerticesAndSayWhatWasDropped) {
  const Mesh mesh = mfem::read(data("star-q3.mesh"));
  EXPECT_EQ(block_summary(mesh), "quad:20;line:20");
  EXPECT_EQ(mesh.num_points(), 31);
  const auto* dropped = mesh.string_field_data.find("mfem:dropped");
  ASSERT_NE(dropped, nullptr);
  EXPECT_NE(dropped->front().find("Cubic: the 180 node positions"), std::string::npos) << dropped->front();
  EXPECT_EQ(nodes_of(mesh.cells[0]), nodes_of(mfem::read(data("star.mesh")).cells[0]));
}

TEST(MfemRead, RefusesWhatItDoesNotReadByName) {
  const auto reason = [&](const char* name) { return expect_read_error([&] { mfem::read(data(name)); }).reason(); };
  EXPECT_NE(reason("amr-quad.mesh").find("MFEM NC mesh v1.0"), std::string::npos);
  EXPECT_NE(reason("square-nurbs.mesh").find("NURBS"), std::string::npos);
  EXPECT_NE(reason("inline-tri.mesh").find("MFEM INLINE"), std::string::npos);
  EXPECT_NE(reason("periodic-square.mesh").find("L2_T1_2D_P1"), std::string::npos);
  write_scratch("v9.mesh", "MFEM mesh v9.9\n");
  EXPECT_NE(expect_read_error([&] { mfem::read(scratch("v9.mesh").string()); }).reason().find("v9.9"), std::string::npos);
}

TEST(MfemSniff, MeshFilesGoToMfemOrMedit) {
  EXPECT_EQ(block_summary(read(data("star.mesh"))), "quad:20;line:20");
  // The NC mesh is MFEM's: its refusal is MFEM's, not a Medit number error.
  EXPECT_EQ(expect_read_error([&] { read(data("amr-quad.mesh")); }).format(), "mfem");
  write_scratch("m.mesh", "# a Medit file\nMeshVersionFormatted 2\nDimension 3\nVertices\n1\n0 0 0 0\nEnd\n");
  EXPECT_EQ(read(scratch("m.mesh").string()).num_points(), 1);
  write_scratch("neither.mesh", "hello\n");
  const ReadError error = expect_read_error([&] { read(scratch("neither.mesh").string()); });
  EXPECT_NE(error.reason().find("medit, mfem"), std::string::npos) << error.what();
  EXPECT_TRUE(mfem::looks_like("\n# comment\nMFEM mesh v1.0\n"));
  EXPECT_FALSE(mfem::looks_like("MeshVersionFormatted 2\n"));
}

TEST(MfemWrite, RoundTripsBitForBit) {
  for (const char* name : {"star.mesh", "beam-wedge.mesh", "tinyzoo-3d.mesh", "compass.mesh", "escher.mesh"}) {
    const Mesh mesh = mfem::read(data(name));
    const std::string out = scratch(std::string("rt-") + name).string();
    mfem::write(out, mesh, {});
    const Mesh back = mfem::read(out);
    EXPECT_TRUE(same_bits(back.points, mesh.points)) << name;
    ASSERT_EQ(back.cells.size(), mesh.cells.size()) << name;
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      EXPECT_EQ(back.cells[b].type, mesh.cells[b].type) << name;
      EXPECT_EQ(nodes_of(back.cells[b]), nodes_of(mesh.cells[b])) << name;
      EXPECT_TRUE(same_bits((*back.cell_data.find("mfem:attribute"))[b], (*mesh.cell_data.find("mfem:attribute"))[b]));
    }
  }
  Mesh bad;
  bad.points = array_of<double>({3, 2}, {0, 0, 1, 0, 0, 1});
  bad.cells.push_back(CellBlock{"triangle6", int64_matrix(1, 6, {0, 1, 2, 0, 1, 2}), {}, {}});
  EXPECT_THROW(mfem::write(scratch("bad.mesh").string(), bad, {}), std::invalid_argument);
}

TEST(MfemErrors, MalformedInputNamesFileAndLine) {
  write_scratch("range.mesh", "MFEM mesh v1.0\ndimension\n1\nelements\n1\n1 1 0 5\nvertices\n2\n1\n0\n1\n");
  const ReadError range = expect_read_error([&] { mfem::read(scratch("range.mesh").string()); });
  EXPECT_EQ(range.line(), 6u);
  EXPECT_NE(range.reason().find("outside [0, 2)"), std::string::npos) << range.what();
  write_scratch("geom.mesh", "MFEM mesh v1.0\ndimension\n1\nelements\n1\n1 9 0 1\n");
  EXPECT_NE(expect_read_error([&] { mfem::read(scratch("geom.mesh").string()); }).reason().find("unknown geometry"),
            std::string::npos);
  write_scratch("big.mesh", "MFEM mesh v1.0\ndimension\n1\nelements\n100000000000\n1 1 0 1\n");
  EXPECT_NE(expect_read_error([&] { mfem::read(scratch("big.mesh").string()); }).reason().find("more than the rest"),
            std::string::npos);
  write_scratch("cut.mesh", "MFEM mesh v1.0\ndimension\n1\nelements\n2\n1 1 0 1\n# only one of the two\n");
  EXPECT_NE(expect_read_error([&] { mfem::read(scratch("cut.mesh").string()); }).reason().find("unexpected end"),
            std::string::npos);
  write_scratch("sec.mesh", "MFEM mesh v1.0\nbogus\n");
  EXPECT_EQ(expect_read_error([&] { mfem::read(scratch("sec.mesh").string()); }).line(), 2u);
}
