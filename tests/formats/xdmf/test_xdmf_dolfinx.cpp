// The XDMF writer's DOLFINx layout (layout="dolfinx", xdmf_dolfinx_layout.hpp): one grid per
// file, the facets beside, tags from cell data or regions, prune_z, and its WriteErrors. The
// comparison with meshio's recipe on real Gmsh files: test_xdmf_dolfinx.py.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "formats/xdmf/xdmf.hpp"
#include "meshioplusplus/errors.hpp"
#include "support/test_support.hpp"

using namespace meshioplusplus;
using namespace meshioplusplus::testing_support;
namespace fs = std::filesystem;

namespace {

// Two triangles in z = 0 with their four boundary lines and a vertex (ignored).
Mesh square() {
  Mesh mesh;
  mesh.points = array_of<double>({4, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0});
  mesh.cells = {CellBlock{"vertex", int64_matrix(1, 1, {0}), {}, {}},
                CellBlock{"line", int64_matrix(2, 2, {0, 1, 1, 2}), {}, {}},
                CellBlock{"triangle", int64_matrix(1, 3, {0, 1, 2}), {}, {}},
                CellBlock{"line", int64_matrix(2, 2, {2, 3, 3, 0}), {}, {}},
                CellBlock{"triangle", int64_matrix(1, 3, {0, 2, 3}), {}, {}}};
  return mesh;
}

WriteOptions dolfinx_options(std::initializer_list<std::pair<std::string, std::string>> extra = {}) {
  WriteOptions options;
  options.set("layout", "dolfinx");
  options.set("data_format", "XML");
  for (const auto& [name, value] : extra) options.set(name, value);
  return options;
}

template <class Fn> std::string write_error_of(Fn&& fn) {
  try {
    fn();
  } catch (const WriteError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no WriteError";
  return {};
}

}  // namespace

TEST(XdmfDolfinx, WritesTopCellsAndFacetsAsTwoOneGridFiles) {
  Mesh mesh = square();
  mesh.cell_data.set("gmsh:physical", {int64_vector({9}), int64_vector({1, 2}), int64_vector({7}),
                                       int64_vector({3, 4}), int64_vector({8})});
  const std::string path = scratch("square.xdmf").string();
  xdmf::write(path, mesh, dolfinx_options());
  const Mesh cells = xdmf::read(path);
  EXPECT_EQ(block_summary(cells), "triangle:2");
  EXPECT_EQ(nodes_of(cells.cells[0]), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(cells.points.dim(1), 2);  // z was all 0
  EXPECT_EQ(int_values(cells.cell_data.find("name_to_read")->at(0)), (std::vector<std::int64_t>{7, 8}));
  const Mesh facets = xdmf::read(scratch("square_facets.xdmf").string());
  EXPECT_EQ(nodes_of(facets.cells.at(0)), (std::vector<std::int64_t>{0, 1, 1, 2, 2, 3, 3, 0}));
  EXPECT_EQ(int_values(facets.cell_data.find("name_to_read")->at(0)), (std::vector<std::int64_t>{1, 2, 3, 4}));
  const std::string xml = read_file(path);
  EXPECT_NE(xml.find("<Grid Name=\"Grid\" GridType=\"Uniform\">"), std::string::npos);
  EXPECT_NE(xml.find("TopologyType=\"Triangle\""), std::string::npos);
  EXPECT_NE(xml.find("<Attribute Name=\"name_to_read\" AttributeType=\"Scalar\" Center=\"Cell\">"), std::string::npos);
  EXPECT_EQ(xml.find("Polyvertex"), std::string::npos);
}

TEST(XdmfDolfinx, TakesTagsFromCellRegionsAndKeepsZWhenAsked) {
  Mesh mesh = square();
  // Block-major ids: vertex 0, lines 1-2, triangle 3, lines 4-5, triangle 6.
  mesh.regions = {cell_region("left", 2, 5, {3}), cell_region("right", 2, -1, {6}), cell_region("wall", 1, 11, {1, 5})};
  const std::string path = scratch("regions.xdmf").string();
  xdmf::write(path, mesh, dolfinx_options({{"prune_z", "false"}, {"attribute_name", "markers"}}));
  const Mesh cells = xdmf::read(path);
  EXPECT_EQ(cells.points.dim(1), 3);
  // "right" has no tag: its position among the Cell regions (2).
  EXPECT_EQ(int_values(cells.cell_data.find("markers")->at(0)), (std::vector<std::int64_t>{5, 2}));
  const Mesh facets = xdmf::read(scratch("regions_facets.xdmf").string());
  EXPECT_EQ(int_values(facets.cell_data.find("markers")->at(0)), (std::vector<std::int64_t>{11, 0, 0, 11}));
}

TEST(XdmfDolfinx, RefusesWhatDolfinxCannotRead) {
  Mesh mixed = square();
  mixed.cells.push_back(CellBlock{"quad", int64_matrix(1, 4, {0, 1, 2, 3}), {}, {}});
  const std::string path = scratch("bad.xdmf").string();
  EXPECT_NE(write_error_of([&] { xdmf::write(path, mixed, dolfinx_options()); }).find("one cell type per mesh"),
            std::string::npos);
  Mesh pyramids;
  pyramids.points = array_of<double>({5, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 1});
  pyramids.cells = {CellBlock{"pyramid", int64_matrix(1, 5, {0, 1, 2, 3, 4}), {}, {}}};
  EXPECT_NE(write_error_of([&] { xdmf::write(path, pyramids, dolfinx_options()); }).find("no cell type for 'pyramid'"),
            std::string::npos);
  EXPECT_NE(write_error_of([&] { xdmf::write(path, square(), dolfinx_options({{"tags", "missing"}})); })
                .find("no cell data 'missing'"),
            std::string::npos);
  EXPECT_NE(write_error_of([&] { xdmf::write(path, square(), dolfinx_options({{"prune_z", "maybe"}})); }).find("prune_z"),
            std::string::npos);
  EXPECT_NE(write_error_of([&] { xdmf::write(path, square(), dolfinx_options({{"layout", "fenics"}})); })
                .find("unknown layout"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(path));
}

TEST(XdmfDolfinx, TakesFacetsFromSideRegionsWhenTheMeshHasNoFacetCells) {
  Mesh mesh;
  mesh.points = array_of<double>({4, 2}, {0, 0, 1, 0, 1, 1, 0, 1});
  mesh.cells = {CellBlock{"triangle", int64_matrix(2, 3, {0, 1, 2, 0, 2, 3}), {}, {}}};
  Region wall{"wall", RegionKind::Side, 1, 4, int64_matrix(2, 2, {0, 0, 1, 2})};  // edges (0,1), (3,0)
  // The diagonal from both sides (triangle 0 facet 2, triangle 1 facet 0): written once.
  Region diagonal{"diagonal", RegionKind::Side, 1, -1, int64_matrix(2, 2, {0, 2, 1, 0})};
  mesh.regions = {wall, diagonal};
  const std::string path = scratch("sides.xdmf").string();
  xdmf::write(path, mesh, dolfinx_options());
  const Mesh facets = xdmf::read(scratch("sides_facets.xdmf").string());
  EXPECT_EQ(block_summary(facets), "line:3");
  EXPECT_EQ(nodes_of(facets.cells[0]), (std::vector<std::int64_t>{0, 1, 3, 0, 2, 0}));
  EXPECT_EQ(int_values(facets.cell_data.find("name_to_read")->at(0)), (std::vector<std::int64_t>{4, 4, 2}));
  mesh.regions.push_back(Region{"bad", RegionKind::Side, 1, 1, int64_matrix(1, 2, {1, 3})});  // a triangle has 3 facets
  EXPECT_NE(write_error_of([&] { xdmf::write(path, mesh, dolfinx_options()); }).find("no facet 3"), std::string::npos);
}
