// VTK's XML family beyond .vtu: PolyData, structured grids, partitioned files, multiblock,
// PVD. Round trips through every encoding/compressor, corpus files with the counts of
// EXPECTED_ref.tsv, hand-built files for what our writers never produce, hostile input.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/vtk_xml/vtk_xml.hpp"
#include "io/codecs/base64.hpp"
#include "io/codecs/block_codec.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
namespace fs = std::filesystem;
using namespace meshioplusplus::testing_support;

namespace {

std::vector<std::vector<std::pair<std::string, std::string>>> encodings() {
  std::vector<std::vector<std::pair<std::string, std::string>>> variants{
      {{"binary", "false"}},
      {{"compression", "none"}},
      {{"compression", "none"}, {"appended", "true"}, {"header_type", "UInt64"}},
  };
  for (const mpp::io::BlockCodec& codec : mpp::io::block_codecs()) {
    if (!codec.available) continue;
    variants.push_back({{"compression", std::string(codec.name)}});
    variants.push_back({{"compression", std::string(codec.name)}, {"appended", "true"}, {"header_type", "UInt64"}});
  }
  return variants;
}

mpp::WriteOptions options_of(const std::vector<std::pair<std::string, std::string>>& list) {
  mpp::WriteOptions options;
  for (const auto& [name, value] : list) options.set(name, value);
  return options;
}

void expect_same_mesh(const mpp::Mesh& expected, const mpp::Mesh& actual) {
  EXPECT_TRUE(same_bits(expected.points, actual.points));
  ASSERT_EQ(block_summary(expected), block_summary(actual));
  for (std::size_t b = 0; b < expected.cells.size(); ++b) {
    EXPECT_EQ(int_values(expected.cells[b].connectivity), int_values(actual.cells[b].connectivity)) << b;
    if (expected.cells[b].is_ragged()) {
      EXPECT_EQ(int_values(expected.cells[b].offsets), int_values(actual.cells[b].offsets));
    }
  }
  for (const auto& [name, array] : expected.point_data) {
    const mpp::NDArray* other = actual.point_data.find(name);
    ASSERT_NE(nullptr, other) << name;
    EXPECT_TRUE(same_bits(array, *other)) << name;
  }
  for (const auto& [name, arrays] : expected.cell_data) {
    const std::vector<mpp::NDArray>* other = actual.cell_data.find(name);
    ASSERT_NE(nullptr, other) << name;
    ASSERT_EQ(arrays.size(), other->size());
    for (std::size_t b = 0; b < arrays.size(); ++b) EXPECT_TRUE(same_bits(arrays[b], (*other)[b])) << name << b;
  }
}

// vertex, line, triangle, quad and polygon blocks with point and cell data.
mpp::Mesh surface_mesh() {
  mpp::Mesh mesh;
  std::vector<double> xyz;
  for (int i = 0; i < 12; ++i)
    for (int axis = 0; axis < 3; ++axis) xyz.push_back(0.1 * i + 0.37 * axis + (axis == 2 ? 1e-17 : 0));
  mesh.points = array_of<double>({12, 3}, xyz);
  mesh.cells.push_back({"vertex", int64_matrix(2, 1, {0, 5}), {}, {}});
  mesh.cells.push_back({"line", int64_matrix(2, 2, {0, 1, 1, 2}), {}, {}});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 2, 3, 4}), {}, {}});
  mesh.cells.push_back({"quad", int64_matrix(1, 4, {4, 5, 6, 7}), {}, {}});
  mesh.cells.push_back({"polygon", int64_vector({7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5}), int64_vector({0, 5, 11}), {}});
  mesh.point_data.set("height", array_of<float>({12}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  mesh.cell_data.set("id", {array_of<std::int32_t>({2}, {1, 2}), array_of<std::int32_t>({2}, {3, 4}),
                            array_of<std::int32_t>({2}, {5, 6}), array_of<std::int32_t>({1}, {7}),
                            array_of<std::int32_t>({2}, {8, 9})});
  mesh.field_data.set("answer", array_of<double>({1}, {42}));
  return mesh;
}

TEST(Vtp, RoundTripsEveryEncoding) {
  ScratchDir dir;
  const mpp::Mesh mesh = surface_mesh();
  for (const auto& variant : encodings()) {
    mpp::write(dir.file("s.vtp"), mesh, "", options_of(variant));
    const mpp::Mesh read = mpp::read(dir.file("s.vtp"));
    expect_same_mesh(mesh, read);
    EXPECT_TRUE(same_bits(*mesh.field_data.find("answer"), *read.field_data.find("answer")));
  }
}

TEST(Vtp, VolumeCellsAreAWriteErrorNamingTheType) {
  ScratchDir dir;
  mpp::Mesh mesh = surface_mesh();
  mesh.cells.push_back({"tetra", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  mesh.cell_data.find("id")->push_back(array_of<std::int32_t>({1}, {10}));
  try {
    mpp::write(dir.file("v.vtp"), mesh);
    ADD_FAILURE() << "tetra written to PolyData";
  } catch (const mpp::WriteError& error) {
    EXPECT_NE(std::string(error.what()).find("tetra"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(fs::exists(dir.file("v.vtp")));
}

TEST(Vtp, StripsPolylinesAndPolyVerticesAreSplit) {
  ScratchDir dir;
  const std::string file = R"(<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian"><PolyData>
<Piece NumberOfPoints="5" NumberOfVerts="1" NumberOfLines="1" NumberOfStrips="1" NumberOfPolys="0">
<CellData><DataArray type="Int32" Name="c" format="ascii">10 20 30</DataArray></CellData>
<Points><DataArray type="Float32" NumberOfComponents="3" format="ascii">0 0 0 1 0 0 0 1 0 1 1 0 2 0 0</DataArray></Points>
<Verts><DataArray type="Int64" Name="connectivity" format="ascii">0 1</DataArray>
<DataArray type="Int64" Name="offsets" format="ascii">2</DataArray></Verts>
<Lines><DataArray type="Int32" Name="connectivity" format="ascii">0 1 2</DataArray>
<DataArray type="Int32" Name="offsets" format="ascii">3</DataArray></Lines>
<Strips><DataArray type="Int32" Name="connectivity" format="ascii">0 1 2 3 4</DataArray>
<DataArray type="Int32" Name="offsets" format="ascii">5</DataArray></Strips>
</Piece></PolyData></VTKFile>)";
  write_file(dir.file("strip.vtp"), file);
  const mpp::Mesh mesh = mpp::read(dir.file("strip.vtp"));
  EXPECT_EQ("vertex:2;line:2;triangle:3", block_summary(mesh));
  EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 2, 1, 3, 2, 3, 4}), int_values(mesh.cells[2].connectivity));
  const auto& c = *mesh.cell_data.find("c");
  EXPECT_EQ((std::vector<std::int64_t>{10, 10}), int_values(c[0]));
  EXPECT_EQ((std::vector<std::int64_t>{20, 20}), int_values(c[1]));
  EXPECT_EQ((std::vector<std::int64_t>{30, 30, 30}), int_values(c[2]));
}

TEST(VtkXmlCorpus, FilesReadWithTheReferenceCounts) {
  SKIP_WITHOUT_CORPUS_DIR();
  struct Expected {
    std::string file;
    std::int64_t points, cells;
    double sum;
    std::string types;
  };
  // EXPECTED_ref.tsv (VTK 9.7).
  const std::vector<Expected> expected{
      {"vtk_xml/StructuredGrid.vts", 648, 440, 20246.76068, "hexahedron"},
      {"vtk_xml/vase.vti", 871125, 843600, 125442000, "hexahedron"},
      {"vtk_xml/Bunny.vtp", 872, 1502, -8.731420357, "vertex;triangle"},
  };
  for (const Expected& row : expected) {
    if (!fs::exists(corpus_file(row.file))) continue;
    const mpp::Mesh mesh = mpp::read(corpus_file(row.file));
    EXPECT_EQ(row.points, mesh.num_points()) << row.file;
    EXPECT_EQ(row.cells, mesh.num_cells()) << row.file;
    EXPECT_NEAR(row.sum, point_sum(mesh), 1e-6 * std::max(1.0, std::abs(row.sum))) << row.file;
    std::string types;
    for (const mpp::CellBlock& block : mesh.cells) types += (types.empty() ? "" : ";") + block.type;
    EXPECT_EQ(row.types, types) << row.file;
  }
}

TEST(VtkXmlCorpus, StructuredFilesWriteBackAndReadEqual) {
  SKIP_WITHOUT_CORPUS_DIR();
  ScratchDir dir;
  for (const std::string name : {"vtk_xml/StructuredGrid.vts", "vtk_xml/vase.vti"}) {
    if (!fs::exists(corpus_file(name))) continue;
    const mpp::Mesh mesh = mpp::read(corpus_file(name));
    const std::string copy = dir.file(fs::path(name).filename().string());
    mpp::write(copy, mesh);
    const mpp::Mesh again = mpp::read(copy);
    expect_same_mesh(mesh, again);
    EXPECT_TRUE(same_bits(*mesh.field_data.find("vtk:WholeExtent"), *again.field_data.find("vtk:WholeExtent")));
  }
}

TEST(VtkXmlCorpus, PvdStepsAndFirstStep) {
  SKIP_WITHOUT_CORPUS_FILE("pvd/singleSphereAnimation.pvd");
  const auto steps = mpp::pvd::read_steps(corpus_file("pvd/singleSphereAnimation.pvd"));
  ASSERT_EQ(11u, steps.size());
  for (std::size_t s = 0; s < steps.size(); ++s) {
    EXPECT_EQ(static_cast<double>(s), steps[s].first);
    EXPECT_TRUE(fs::exists(steps[s].second)) << steps[s].second;
  }
  const mpp::Mesh first = mpp::read(corpus_file("pvd/singleSphereAnimation.pvd"));
  EXPECT_EQ("triangle:104", block_summary(first));
  EXPECT_EQ(64, first.num_points());
  EXPECT_EQ(0.0, first.field_data.find("pvd:time")->data_as<double>()[0]);
  for (const auto& [time, file] : steps) EXPECT_EQ("triangle:104", block_summary(mpp::read(file))) << file;
}

mpp::Mesh grid_mesh(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  // Read back from a hand-made image: the reader builds points and cells, we check the writers.
  mpp::Mesh mesh;
  std::vector<double> xyz;
  for (std::int64_t k = 0; k < nz; ++k)
    for (std::int64_t j = 0; j < ny; ++j)
      for (std::int64_t i = 0; i < nx; ++i) {
        xyz.push_back(0.5 + 0.25 * static_cast<double>(i));
        xyz.push_back(-1.0 + 2.0 * static_cast<double>(j));
        xyz.push_back(3.0 + static_cast<double>(k));
      }
  mesh.points = array_of<double>({nx * ny * nz, 3}, xyz);
  mesh.field_data.set("vtk:WholeExtent", array_of<std::int64_t>({6}, {2, 2 + nx - 1, 0, ny - 1, 0, nz - 1}));
  return mesh;
}

TEST(Structured, EachKindRoundTripsAndVtkCellsMatchTheExtent) {
  ScratchDir dir;
  for (const std::string extension : {".vts", ".vtr", ".vti"}) {
    for (const auto& variant : encodings()) {
      mpp::Mesh mesh = grid_mesh(4, 3, 2);
      std::vector<float> values;
      for (int i = 0; i < 24; ++i) values.push_back(static_cast<float>(i) * 0.5f);
      mesh.point_data.set("p", array_of<float>({24}, values));
      const std::string path = dir.file("g" + extension);
      mpp::write(path, mesh, "", options_of(variant));
      const mpp::Mesh read = mpp::read(path);
      EXPECT_TRUE(same_bits(mesh.points, read.points)) << extension;
      EXPECT_EQ("hexahedron:6", block_summary(read)) << extension;
      // First hexahedron: VTK's voxel (0,0,0) in hexahedron order.
      const auto first = int_values(read.cells[0].connectivity);
      EXPECT_EQ((std::vector<std::int64_t>{0, 1, 5, 4, 12, 13, 17, 16}),
                std::vector<std::int64_t>(first.begin(), first.begin() + 8)) << extension;
      EXPECT_TRUE(same_bits(*mesh.point_data.find("p"), *read.point_data.find("p"))) << extension;
      // Cell data follows VTK's cell numbering and writes back.
      mpp::Mesh with_cells = read;
      with_cells.cell_data.set("c", {array_of<std::int32_t>({6}, {0, 1, 2, 3, 4, 5})});
      mpp::write(path, with_cells, "", options_of(variant));
      EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}), int_values(mpp::read(path).cell_data.find("c")->front()));
    }
  }
}

// The deferred read (what Python's read uses) plus the functions that make the geometry later
// give, bit for bit, what the explicit read builds, for every kind and encoding (a rotated image too).
TEST(Structured, ImplicitReadPlusMadeGeometryEqualsTheExplicitRead) {
  ScratchDir dir;
  for (const std::string format : {"vts", "vtr", "vti"}) {
    for (const auto& variant : encodings()) {
      mpp::Mesh mesh = grid_mesh(5, 3, 2);
      if (format == "vti") {
        mesh.field_data.set("vtk:Origin", array_of<double>({3}, {0.5, -1.25, 3.0}));
        mesh.field_data.set("vtk:Spacing", array_of<double>({3}, {0.1, 0.2, 0.7}));
        mesh.field_data.set("vtk:Direction", array_of<double>({9}, {0.8, -0.6, 0, 0.6, 0.8, 0, 0, 0, 1}));
      }
      const std::string path = dir.file("g." + format);
      mpp::write(path, mesh, "", options_of(variant));
      const mpp::Mesh explicit_read = mpp::read(path);
      mpp::StructuredImplicitRead implicit = mpp::read_structured_implicit(path, format);
      EXPECT_TRUE(implicit.mesh.cells.empty()) << format;
      EXPECT_EQ((std::array<std::int64_t, 3>{5, 3, 2}), implicit.dims) << format;
      if (format == "vts") {
        EXPECT_TRUE(same_bits(explicit_read.points, implicit.mesh.points));
      } else {
        EXPECT_TRUE(implicit.mesh.points.empty_handle()) << format;
        mpp::NDArray made;
        if (format == "vtr") {
          made = mpp::rectilinear_grid_points(implicit.axes, implicit.points_dtype);
        } else {
          std::array<std::int64_t, 6> extent{};
          std::array<double, 3> origin{}, spacing{};
          std::array<double, 9> direction{};
          std::copy_n(implicit.mesh.field_data.find("vtk:WholeExtent")->data_as<std::int64_t>(), 6, extent.begin());
          std::copy_n(implicit.mesh.field_data.find("vtk:Origin")->data_as<double>(), 3, origin.begin());
          std::copy_n(implicit.mesh.field_data.find("vtk:Spacing")->data_as<double>(), 3, spacing.begin());
          std::copy_n(implicit.mesh.field_data.find("vtk:Direction")->data_as<double>(), 9, direction.begin());
          made = mpp::image_grid_points(extent, origin, spacing, direction);
        }
        EXPECT_TRUE(same_bits(explicit_read.points, made)) << format;
      }
      const std::optional<mpp::CellBlock> cells = mpp::io::structured_grid_cells(implicit.dims);
      ASSERT_TRUE(cells.has_value());
      EXPECT_EQ(int_values(explicit_read.cells[0].connectivity), int_values(cells->connectivity)) << format;
      for (const auto& [name, array] : explicit_read.field_data)
        EXPECT_TRUE(same_bits(array, *implicit.mesh.field_data.find(name))) << format << " " << name;
    }
  }
}

TEST(Structured, MissingExtentOrNonRectilinearPointsAreWriteErrors) {
  ScratchDir dir;
  mpp::Mesh mesh = surface_mesh();
  EXPECT_THROW(mpp::write(dir.file("x.vts"), mesh), mpp::WriteError);
  mpp::Mesh bent = grid_mesh(3, 2, 1);
  bent.points.data_as<double>()[3 * 4] += 0.125;  // point (1, 1) moves off its x line
  EXPECT_THROW(mpp::write(dir.file("x.vtr"), bent), mpp::WriteError);
  EXPECT_NO_THROW(mpp::write(dir.file("x.vts"), bent));
}

TEST(Structured, ExtentsThatDisagreeWithTheDataNameThePiece) {
  ScratchDir dir;
  const std::string file = R"(<VTKFile type="StructuredGrid" version="0.1" byte_order="LittleEndian"><StructuredGrid WholeExtent="0 1 0 1 0 0">
<Piece Extent="0 1 0 1 0 0"><Points><DataArray type="Float64" NumberOfComponents="3" format="binary">)";
  // 3 points (72 bytes) where the extent needs 4.
  std::string raw(4 + 72, '\0');
  raw[0] = 72;
  std::string body;
  mpp::io::base64_encode_append(raw.data(), raw.size(), body);
  write_file(dir.file("bad.vts"), file + body + "</DataArray></Points></Piece></StructuredGrid></VTKFile>");
  try {
    mpp::read(dir.file("bad.vts"));
    ADD_FAILURE() << "read a piece whose Points disagree with its Extent";
  } catch (const mpp::ReadError& error) {
    EXPECT_NE(std::string(error.what()).find("piece 0"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("bad.vts"), std::string::npos) << error.what();
  }
}

// Fuzz finding (CI smoke, tests/data/fuzz-regressions/vts/): a piece one point layer thick
// along an axis where the whole extent is not holds no cell of the whole; its own (1-D) cell
// data was placed past the end of the whole's cell array.
TEST(Structured, PieceFlatWhereTheWholeIsNotAddsNoCells) {
  ScratchDir dir;
  const auto ones = [](std::string name, int count, int components) {
    std::string values;
    for (int i = 0; i < count * components; ++i) values += i ? " 2" : "2";
    return "<DataArray type=\"Float64\" Name=\"" + name + "\" NumberOfComponents=\"" + std::to_string(components) +
           "\" format=\"ascii\">" + values + "</DataArray>";
  };
  const auto piece = [&](std::string extent, int points, int cells) {
    return "<Piece Extent=\"" + extent + "\"><CellData>" + ones("c", cells, 1) + "</CellData><Points>" +
           ones("p", points, 3) + "</Points></Piece>";
  };
  write_file(dir.file("flat.vts"),
             R"(<VTKFile type="StructuredGrid" version="1.0"><StructuredGrid WholeExtent="0 2 0 2 0 0">)" +
                 piece("0 1 0 2 0 0", 6, 2) + piece("2 2 0 2 0 0", 3, 2) + "</StructuredGrid></VTKFile>");
  const mpp::Mesh mesh = mpp::read(dir.file("flat.vts"));
  ASSERT_EQ(1u, mesh.cells.size());
  EXPECT_EQ(4, mesh.cells[0].num_cells());
  // The first piece's two cells (x column 0) are placed; the flat piece's are not.
  const mpp::NDArray& c = mesh.cell_data.find("c")->front();
  ASSERT_EQ(4, c.shape()[0]);
  const double* v = c.data_as<double>();
  EXPECT_EQ((std::vector<double>{2, 0, 2, 0}), std::vector<double>(v, v + 4));
}

TEST(Parallel, PiecesReadBackAsOneMeshAndMissingPiecesAreNamed) {
  ScratchDir dir;
  const mpp::Mesh mesh = surface_mesh();
  for (const std::string extension : {".pvtu", ".pvtp"}) {
    mpp::WriteOptions options;
    options.set("pieces", "3");
    const std::string path = dir.file("p" + extension);
    mpp::write(path, mesh, "", options);
    const mpp::Mesh read = mpp::read(path);
    EXPECT_EQ(mesh.num_cells(), read.num_cells()) << extension;
    // Every cell keeps its points' coordinates and its data.
    std::vector<std::int64_t> ids;
    for (const auto& part : *read.cell_data.find("id"))
      for (std::int64_t v : int_values(part)) ids.push_back(v);
    EXPECT_EQ((std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}), ids) << extension;
    const std::string piece = dir.file(std::string("p_1") + (extension == ".pvtu" ? ".vtu" : ".vtp"));
    ASSERT_TRUE(fs::exists(piece));
    fs::remove(piece);
    try {
      mpp::read(path);
      ADD_FAILURE() << "read with a missing piece";
    } catch (const mpp::ReadError& error) {
      EXPECT_NE(std::string(error.what()).find("piece 1"), std::string::npos) << error.what();
    }
  }
}

TEST(Multiblock, CellRegionsBecomeLeavesAndComeBack) {
  ScratchDir dir;
  mpp::Mesh mesh = surface_mesh();
  mesh.regions.push_back(cell_region("lines", 1, 1, {2, 3}));
  mesh.regions.push_back(cell_region("faces", 2, 2, {4, 5, 6, 7, 8}));
  mpp::write(dir.file("m.vtm"), mesh);
  const mpp::Mesh read = mpp::read(dir.file("m.vtm"));
  EXPECT_EQ("line:2;triangle:2;quad:1;polygon:2", block_summary(read));
  ASSERT_EQ(2u, read.regions.size());
  EXPECT_EQ("lines", read.regions[0].name);
  EXPECT_EQ((std::vector<std::int64_t>{0, 1}), int_values(read.regions[0].entries));
  EXPECT_EQ("faces", read.regions[1].name);
  EXPECT_EQ((std::vector<std::int64_t>{2, 3, 4, 5, 6}), int_values(read.regions[1].entries));
  fs::remove(dir.file("m/m_1.vtu"));
  EXPECT_THROW(mpp::read(dir.file("m.vtm")), mpp::ReadError);
}

TEST(Pvd, OneStepWrittenAndListed) {
  ScratchDir dir;
  mpp::WriteOptions options;
  options.set("time", "2.5");
  mpp::write(dir.file("t.pvd"), surface_mesh(), "", options);
  const auto steps = mpp::pvd::read_steps(dir.file("t.pvd"));
  ASSERT_EQ(1u, steps.size());
  EXPECT_EQ(2.5, steps[0].first);
  const mpp::Mesh read = mpp::read(dir.file("t.pvd"));
  EXPECT_EQ(block_summary(surface_mesh()), block_summary(read));
  EXPECT_EQ(2.5, read.field_data.find("pvd:time")->data_as<double>()[0]);
}

}  // namespace
