// Reading less (include/meshioplusplus/read_selection.hpp): the generic narrowing every format
// gets (data, blocks and regions follow a cell-type selection), the VTU reader's own skipping
// (equal to the generic result), time steps through the series readers, and summaries. The
// Python suite (tests/python/test_read_less.py) runs the same options over every real file.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"
#include "support/test_support.hpp"

namespace mpp = meshioplusplus;
using namespace meshioplusplus::testing_support;

namespace {

// Two triangles, a line, a vertex; a Cell region over a triangle and the line, a Side region on
// the second triangle, a Point region; point, cell and field data.
mpp::Mesh mixed_mesh() {
  mpp::Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0});
  mesh.cells.push_back({"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}});
  mesh.cells.push_back({"line", int64_matrix(1, 2, {0, 1}), {}, {}});
  mesh.cells.push_back({"vertex", int64_matrix(1, 1, {3}), {}, {}});
  mesh.point_data.set("T", array_of<double>({4}, {1, 2, 3, 4}));
  mesh.cell_data.set("id", {int64_vector({10, 11}), int64_vector({12}), int64_vector({13})});
  mesh.field_data.set("version", int64_vector({2}));
  mesh.regions.push_back(cell_region("mixed", 2, 5, {1, 2}));
  mpp::Region side{"edge", mpp::RegionKind::Side, 1, 7, int64_matrix(1, 2, {1, 0})};
  mesh.regions.push_back(side);
  mpp::Region corner{"corner", mpp::RegionKind::Point, 0, 9, int64_vector({3})};
  mesh.regions.push_back(corner);
  mesh.regions.push_back(cell_region("point-cell", 0, 3, {3}));
  return mesh;
}

mpp::ReadRequest cell_types(std::vector<std::string> types) {
  mpp::ReadRequest request;
  request.cell_types = std::move(types);
  return request;
}

}  // namespace

TEST(ReadSelection, CellTypesKeepBlocksWithTheirDataAndRenumberedRegions) {
  mpp::Mesh mesh = mixed_mesh();
  mpp::apply_read_request(mesh, cell_types({"line", "triangle"}), "mixed");
  ASSERT_EQ(2u, mesh.cells.size());  // file order, not request order
  EXPECT_EQ("triangle", mesh.cells[0].type);
  EXPECT_EQ("line", mesh.cells[1].type);
  EXPECT_EQ(4, mesh.num_points());  // points stay whole: indices keep their meaning
  const auto& ids = *mesh.cell_data.find("id");
  ASSERT_EQ(2u, ids.size());
  EXPECT_EQ((std::vector<std::int64_t>{10, 11}), int_values(ids[0]));
  EXPECT_EQ((std::vector<std::int64_t>{12}), int_values(ids[1]));
  EXPECT_EQ((std::vector<std::int64_t>{1, 2}), int_values(find_region(mesh, "mixed")->entries));
  EXPECT_EQ((std::vector<std::int64_t>{1, 0}), int_values(find_region(mesh, "edge")->entries));
  EXPECT_NE(nullptr, find_region(mesh, "corner"));
  EXPECT_EQ(nullptr, find_region(mesh, "point-cell"));  // its only cell (the vertex) went

  mpp::Mesh lines = mixed_mesh();
  mpp::apply_read_request(lines, cell_types({"line"}), "mixed");
  ASSERT_EQ(1u, lines.cells.size());
  EXPECT_EQ((std::vector<std::int64_t>{0}), int_values(find_region(lines, "mixed")->entries));  // cell 2 is now 0
  EXPECT_EQ(nullptr, find_region(lines, "edge"));
}

TEST(ReadSelection, ArraysAndPointsOnly) {
  mpp::Mesh mesh = mixed_mesh();
  mpp::ReadRequest request;
  request.arrays = std::vector<std::string>{"id"};
  mpp::apply_read_request(mesh, request, "mixed");
  EXPECT_TRUE(mesh.point_data.empty());
  EXPECT_TRUE(mesh.field_data.empty());
  EXPECT_TRUE(mesh.cell_data.contains("id"));
  EXPECT_EQ(3u, mesh.cells.size());

  mpp::Mesh points = mixed_mesh();
  mpp::ReadRequest only;
  only.points_only = true;
  mpp::apply_read_request(points, only, "mixed");
  EXPECT_TRUE(points.cells.empty());
  EXPECT_TRUE(points.point_data.empty() && points.cell_data.empty() && points.field_data.empty());
  ASSERT_EQ(1u, points.regions.size());  // the Point region alone
  EXPECT_EQ("corner", points.regions[0].name);

  mpp::Mesh with_data = mixed_mesh();
  only.arrays = std::vector<std::string>{"T"};
  mpp::apply_read_request(with_data, only, "mixed");
  EXPECT_TRUE(with_data.point_data.contains("T"));
  EXPECT_TRUE(with_data.cells.empty());
}

TEST(ReadSelection, BadRequestsNameWhatWasAsked) {
  const auto message = [](const mpp::ReadRequest& request) {
    mpp::Mesh mesh = mixed_mesh();
    try {
      mpp::apply_read_request(mesh, request, "mixed.vtu");
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  mpp::ReadRequest unknown_array;
  unknown_array.arrays = std::vector<std::string>{"P"};
  EXPECT_EQ("mixed.vtu: arrays: no array 'P' in the file (it has 'T', 'id', 'version')", message(unknown_array));
  EXPECT_EQ("mixed.vtu: cell_types: no 'tetra' cells in the file (it has 'triangle', 'line', 'vertex')",
            message(cell_types({"tetra"})));
  EXPECT_EQ("cell_types: unknown cell type 'tetrahedron'", message(cell_types({"tetrahedron"})));
}

TEST(ReadSelection, VtuSkipsOnDiskWhatTheGenericPathDrops) {
  ScratchDir dir;
  mpp::Mesh mesh = mixed_mesh();
  mesh.regions.clear();  // VTU keeps no regions
  mesh.field_data = {};
  for (const char* layout : {"false", "true"}) {
    mpp::WriteOptions options;
    options.set("appended", layout);
    const std::string path = dir.file(std::string("mixed-") + layout + ".vtu");
    mpp::write(path, mesh, "vtu", options);
    const mpp::Mesh full = mpp::read(path);
    for (const mpp::ReadRequest& request : [] {
           std::vector<mpp::ReadRequest> requests(3);
           requests[0].arrays = std::vector<std::string>{"T"};
           requests[1].points_only = true;
           requests[2].cell_types = std::vector<std::string>{"triangle"};
           return requests;
         }()) {
      const mpp::Mesh narrowed = mpp::read(path, "", request);  // the VTU reader's own path
      mpp::Mesh expected = full;
      mpp::apply_read_request(expected, request, path);  // what any format gives
      EXPECT_TRUE(same_bits(expected.points, narrowed.points));
      EXPECT_EQ(block_summary(expected), block_summary(narrowed));
      ASSERT_EQ(expected.point_data.size(), narrowed.point_data.size());
      for (const auto& [name, values] : expected.point_data) EXPECT_TRUE(same_bits(values, *narrowed.point_data.find(name)));
      ASSERT_EQ(expected.cell_data.size(), narrowed.cell_data.size());
    }
    const mpp::MeshMetadata header = mpp::read_metadata(path);
    const mpp::MeshMetadata read = mpp::summarize(full, "vtu");
    EXPECT_TRUE(header.header_only);
    EXPECT_EQ(read.num_points, header.num_points);
    ASSERT_EQ(read.cell_blocks.size(), header.cell_blocks.size());
    for (std::size_t b = 0; b < read.cell_blocks.size(); ++b) {
      EXPECT_EQ(read.cell_blocks[b].type, header.cell_blocks[b].type);
      EXPECT_EQ(read.cell_blocks[b].count, header.cell_blocks[b].count);
    }
    ASSERT_EQ(read.arrays.size(), header.arrays.size());
    for (std::size_t a = 0; a < read.arrays.size(); ++a) {
      EXPECT_EQ(read.arrays[a].name, header.arrays[a].name);
      EXPECT_EQ(read.arrays[a].dtype, header.arrays[a].dtype);
      EXPECT_EQ(read.arrays[a].shape, header.arrays[a].shape);
    }
  }
}

TEST(ReadSelection, TimeStepReadsThatStepThroughTheSeriesReader) {
  ScratchDir dir;
  const std::string path = dir.file("series.xdmf");
  mpp::Mesh mesh = mixed_mesh();
  mesh.cells.resize(1);
  mesh.cell_data = {};
  mesh.point_data = {};
  mesh.field_data = {};
  mesh.regions.clear();
  {
    auto writer = mpp::create_time_series(path, "xdmf");
    writer->write_mesh(mesh);
    for (int k = 0; k < 3; ++k) {
      mpp::TimeStep step;
      step.time = 0.5 * k;
      step.point_data.set("T", array_of<double>({4}, {1.0 * k, 2, 3, 4}));
      writer->write_step(step);
    }
    writer->close();
  }
  for (std::int64_t step : {1, -2}) {
    mpp::ReadRequest request;
    request.time_step = step;
    const mpp::Mesh read = mpp::read(path, "", request);
    EXPECT_EQ(1.0, read.point_data.find("T")->data_as<double>()[0]);
  }
  mpp::ReadRequest past;
  past.time_step = 3;
  EXPECT_THROW(mpp::read(path, "", past), std::invalid_argument);
  EXPECT_EQ((std::vector<double>{0.0, 0.5, 1.0}), mpp::read_metadata(path).times);
}
