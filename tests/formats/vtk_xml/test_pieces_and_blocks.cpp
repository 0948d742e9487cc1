// Partitioned files read one piece at a time or with merged points (PartitionedReadOptions),
// and a list of named meshes as one multiblock file (vtm::write_blocks / read_blocks).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "formats/vtk_xml/vtk_xml.hpp"
#include "formats/vtk_xml/vtk_xml_common.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
namespace fs = std::filesystem;
using namespace meshioplusplus::testing_support;

namespace {

// A 3 x 2 quad grid (12 points, 6 cells): pieces cut from it share the points on their borders.
mpp::Mesh grid_mesh(double offset = 0) {
  mpp::Mesh mesh;
  std::vector<double> xyz;
  std::vector<double> u;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 4; ++i) {
      xyz.insert(xyz.end(), {i + offset, double(j), 0.0});
      u.push_back(10.0 * i + j);
    }
  mesh.points = array_of<double>({12, 3}, xyz);
  std::vector<std::int64_t> quads;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i) quads.insert(quads.end(), {4 * j + i, 4 * j + i + 1, 4 * j + i + 5, 4 * j + i + 4});
  mesh.cells.push_back({"quad", int64_matrix(6, 4, quads), {}, {}});
  mesh.point_data.set("u", array_of<double>({12}, u));
  mesh.cell_data.set("id", {array_of<std::int32_t>({6}, {0, 1, 2, 3, 4, 5})});
  return mesh;
}

std::vector<std::int64_t> all_ids(const mpp::Mesh& mesh) {
  std::vector<std::int64_t> ids;
  for (const mpp::NDArray& part : *mesh.cell_data.find("id"))
    for (std::int64_t v : int_values(part)) ids.push_back(v);
  return ids;
}

TEST(PartitionedPieces, OnePieceByIndexAndOutOfRange) {
  ScratchDir dir;
  for (const std::string format : {"pvtu", "pvtp"}) {
    mpp::WriteOptions options;
    options.set("pieces", "3");
    const std::string path = dir.file("p." + format);
    mpp::write(path, grid_mesh(), "", options);
    const auto num_pieces = format == "pvtu" ? mpp::pvtu::num_pieces : mpp::pvtp::num_pieces;
    const auto read = [&](const mpp::PartitionedReadOptions& o) {
      return format == "pvtu" ? mpp::pvtu::read(path, o) : mpp::pvtp::read(path, o);
    };
    EXPECT_EQ(3u, num_pieces(path));
    std::vector<std::int64_t> ids;
    for (std::size_t k = 0; k < 3; ++k) {
      mpp::PartitionedReadOptions options_k;
      options_k.piece = k;
      const mpp::Mesh piece = read(options_k);
      // The piece equals its own file read alone.
      const mpp::Mesh alone = mpp::read(dir.file("p_" + std::to_string(k) + "." + format.substr(1)));
      EXPECT_TRUE(same_bits(alone.points, piece.points)) << format << k;
      EXPECT_EQ(all_ids(alone), all_ids(piece));
      for (std::int64_t id : all_ids(piece)) ids.push_back(id);
    }
    EXPECT_EQ((std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}), ids) << format;
    mpp::PartitionedReadOptions past;
    past.piece = 3;
    const mpp::ReadError error = expect_read_error([&] { read(past); });
    EXPECT_EQ(path, error.path());
    EXPECT_NE(std::string(error.what()).find("piece 3 out of range: the index lists 3 pieces"), std::string::npos)
        << error.what();
  }
}

TEST(PartitionedPieces, MergePointsWeldsSharedBorders) {
  ScratchDir dir;
  mpp::WriteOptions options;
  options.set("pieces", "3");
  const std::string path = dir.file("p.pvtu");
  const mpp::Mesh mesh = grid_mesh();
  mpp::write(path, mesh, "", options);
  EXPECT_GT(mpp::read(path).num_points(), 12);
  mpp::PartitionedReadOptions merge;
  merge.merge_points = true;
  const mpp::Mesh merged = mpp::pvtu::read(path, merge);
  ASSERT_EQ(12, merged.num_points());
  EXPECT_EQ(all_ids(mesh), all_ids(merged));
  // Every cell's corners are the source cell's corners, every point keeps its u.
  const double* xyz = merged.points.data_as<double>();
  const double* u = merged.point_data.find("u")->data_as<double>();
  for (std::int64_t p = 0; p < 12; ++p) EXPECT_EQ(10.0 * xyz[3 * p] + xyz[3 * p + 1], u[p]);
  std::vector<std::int64_t> corners;
  for (const mpp::CellBlock& block : merged.cells)
    for (std::int64_t id : int_values(block.connectivity)) corners.push_back(id);
  const std::vector<std::int64_t> source = int_values(mesh.cells[0].connectivity);
  const double* source_xyz = mesh.points.data_as<double>();
  ASSERT_EQ(source.size(), corners.size());
  for (std::size_t c = 0; c < corners.size(); ++c)
    for (int axis = 0; axis < 3; ++axis) EXPECT_EQ(source_xyz[3 * source[c] + axis], xyz[3 * corners[c] + axis]);
}

TEST(PartitionedPieces, MissingPieceFileIsNamed) {
  ScratchDir dir;
  mpp::WriteOptions options;
  options.set("pieces", "2");
  const std::string path = dir.file("p.pvtu");
  mpp::write(path, grid_mesh(), "", options);
  fs::remove(dir.file("p_1.vtu"));
  mpp::PartitionedReadOptions first;
  first.piece = 0;
  EXPECT_GT(mpp::pvtu::read(path, first).num_points(), 0);  // the other piece still reads
  mpp::PartitionedReadOptions second;
  second.piece = 1;
  const mpp::ReadError error = expect_read_error([&] { mpp::pvtu::read(path, second); });
  EXPECT_EQ(path, error.path());
  EXPECT_NE(std::string(error.what()).find("piece 1: file 'p_1.vtu' not found"), std::string::npos) << error.what();
}

// Pieces are cut by extract_cell_range, which views whole rows of the mesh instead of copying
// them; for every range it must give what the general cut (extract_cells) gives: a piece whose
// points are a run starting at 0 (views only), a run further on (shifted node numbers), points
// with gaps (gathered), and a range that reaches the polygons (the general cut itself).
TEST(PieceCutting, EveryCellRangeEqualsTheGeneralCut) {
  mpp::Mesh mesh;
  std::vector<double> xyz;
  std::vector<double> u;
  for (int p = 0; p < 9; ++p) {
    xyz.insert(xyz.end(), {double(p), double(p * p), 0.5 * p});
    u.push_back(100.0 + p);
  }
  mesh.points = array_of<double>({9, 3}, xyz);
  mesh.point_data.set("u", array_of<double>({9}, u));
  // Triangles over points 0..4 in order, then quads that skip points, then two polygons.
  mesh.cells.push_back({"triangle", int64_matrix(3, 3, {0, 1, 2, 1, 2, 3, 2, 3, 4}), {}, {}});
  mesh.cells.push_back({"quad", int64_matrix(2, 4, {4, 6, 8, 5, 5, 8, 7, 4}), {}, {}});
  mesh.cells.push_back({"polygon", int64_vector({0, 2, 4, 6, 1, 3, 5, 7, 8}), int64_vector({0, 4, 9}), {}});
  mesh.cell_data.set("id", {array_of<std::int32_t>({3}, {0, 1, 2}), array_of<std::int32_t>({2}, {3, 4}),
                            array_of<std::int32_t>({2}, {5, 6})});
  mesh.field_data.set("time", array_of<double>({1}, {2.5}));
  const std::int64_t total = mesh.num_cells();
  for (std::int64_t first = 0; first < total; ++first)
    for (std::int64_t last = first + 1; last <= total; ++last) {
      SCOPED_TRACE("cells [" + std::to_string(first) + ", " + std::to_string(last) + ")");
      std::vector<std::int64_t> cells;
      for (std::int64_t c = first; c < last; ++c) cells.push_back(c);
      const mpp::Mesh expected = mpp::vtk_xml_detail::extract_cells(mesh, cells);
      const mpp::Mesh cut = mpp::vtk_xml_detail::extract_cell_range(mesh, first, last);
      EXPECT_TRUE(same_bits(cut.points, expected.points));
      EXPECT_TRUE(same_bits(*cut.point_data.find("u"), *expected.point_data.find("u")));
      ASSERT_EQ(cut.cells.size(), expected.cells.size());
      for (std::size_t b = 0; b < cut.cells.size(); ++b) {
        EXPECT_EQ(cut.cells[b].type, expected.cells[b].type);
        EXPECT_TRUE(same_bits(cut.cells[b].connectivity, expected.cells[b].connectivity));
        EXPECT_EQ(cut.cells[b].is_ragged(), expected.cells[b].is_ragged());
        if (expected.cells[b].is_ragged()) EXPECT_TRUE(same_bits(cut.cells[b].offsets, expected.cells[b].offsets));
        EXPECT_TRUE(same_bits((*cut.cell_data.find("id"))[b], (*expected.cell_data.find("id"))[b]));
      }
      EXPECT_EQ(all_ids(cut), all_ids(expected));
      EXPECT_TRUE(same_bits(*cut.field_data.find("time"), *mesh.field_data.find("time")));
    }
  // The first triangle's piece uses points 0..2 in order: its rows are views of the mesh.
  const mpp::Mesh head = mpp::vtk_xml_detail::extract_cell_range(mesh, 0, 1);
  EXPECT_EQ(head.points.data(), mesh.points.data());
  EXPECT_EQ(head.cells[0].connectivity.data(), mesh.cells[0].connectivity.data());
  // The second triangle's piece uses points 1..3: viewed points, node numbers shifted by one.
  const mpp::Mesh second = mpp::vtk_xml_detail::extract_cell_range(mesh, 1, 2);
  EXPECT_EQ(second.points.data(), static_cast<const double*>(mesh.points.data()) + 3);
  EXPECT_EQ(nodes_of(second.cells[0]), (std::vector<std::int64_t>{0, 1, 2}));
}

TEST(MultiblockList, NamedMeshesWrittenAndReadBackApart) {
  ScratchDir dir;
  mpp::Mesh solid = grid_mesh(10);
  solid.point_data = {};
  solid.point_data.set("T", array_of<float>({12}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  const std::vector<std::pair<std::string, mpp::Mesh>> blocks{{"fluid", grid_mesh()}, {"solid & co", solid}};
  const std::string path = dir.file("scene.vtm");
  mpp::vtm::write_blocks(path, blocks, {});
  const auto back = mpp::vtm::read_blocks(path);
  ASSERT_EQ(2u, back.size());
  for (std::size_t n = 0; n < 2; ++n) {
    EXPECT_EQ(blocks[n].first, back[n].first);
    EXPECT_TRUE(same_bits(blocks[n].second.points, back[n].second.points));
    EXPECT_EQ(int_values(blocks[n].second.cells[0].connectivity), int_values(back[n].second.cells[0].connectivity));
    for (const auto& [name, array] : blocks[n].second.point_data) {
      ASSERT_NE(nullptr, back[n].second.point_data.find(name)) << name;
      EXPECT_TRUE(same_bits(array, *back[n].second.point_data.find(name))) << name;
    }
  }
  // The plain read: one mesh, a Cell region per block.
  const mpp::Mesh joined = mpp::read(path);
  EXPECT_EQ(24, joined.num_points());
  ASSERT_EQ(2u, joined.regions.size());
  EXPECT_EQ("solid & co", joined.regions[1].name);
  // Unnamed blocks get block<n>; two of one name are refused before anything is written.
  mpp::vtm::write_blocks(dir.file("u.vtm"), {{"", grid_mesh()}, {"", grid_mesh()}}, {});
  EXPECT_EQ("block1", mpp::vtm::read_blocks(dir.file("u.vtm"))[1].first);
  EXPECT_THROW(mpp::vtm::write_blocks(dir.file("d.vtm"), {{"x", grid_mesh()}, {"x", grid_mesh()}}, {}), mpp::WriteError);
  EXPECT_FALSE(fs::exists(dir.file("d.vtm")));
  fs::remove(dir.file("scene/scene_1.vtu"));
  const mpp::ReadError error = expect_read_error([&] { mpp::vtm::read_blocks(path); });
  EXPECT_NE(std::string(error.what()).find("dataset 1 ('solid & co')"), std::string::npos) << error.what();
}

}  // namespace
