#include <gtest/gtest.h>

#include <set>
#include <string>

#include "meshioplusplus/cell_types.hpp"

namespace mpp = meshioplusplus;

TEST(CellTypes, HasAllSixtySevenMeshioTypesWithDimensions) {
  int fixed_meshio_types = 0;
  std::set<std::string_view> names;
  for (const mpp::CellTypeInfo& info : mpp::cell_types()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_GE(info.dimension, 0) << info.name;
    EXPECT_LE(info.dimension, 3) << info.name;
    if (info.num_nodes > 0 && info.name != "triangle7" && info.name != "quad6" && info.name != "wedge12")
      ++fixed_meshio_types;
  }
  EXPECT_EQ(fixed_meshio_types, 67);
  // The three meshio's own dimension table misses.
  EXPECT_EQ(mpp::cell_type("wedge15").dimension, 3);
  EXPECT_EQ(mpp::cell_type("pyramid13").dimension, 3);
  EXPECT_EQ(mpp::cell_type("hexahedron24").dimension, 3);
  EXPECT_EQ(mpp::cell_type("hexahedron24").num_nodes, 24);
}

TEST(CellTypes, VtkIdsMapBothWays) {
  EXPECT_EQ(mpp::cell_type_from_vtk(10, 4)->name, "tetra");
  EXPECT_EQ(mpp::cell_type_from_vtk(26, 15)->name, "wedge15");
  EXPECT_EQ(mpp::cell_type_from_vtk(8, 4)->name, "quad");        // pixel
  EXPECT_EQ(mpp::cell_type_from_vtk(11, 8)->name, "hexahedron");  // voxel
  // Lagrange ids read as meshio reads them, whatever the node count.
  EXPECT_EQ(mpp::cell_type_from_vtk(69, 15)->name, "VTK_LAGRANGE_TRIANGLE");
  EXPECT_EQ(mpp::cell_type_from_vtk(72, 64)->name, "VTK_LAGRANGE_HEXAHEDRON");
  EXPECT_EQ(mpp::cell_type_from_vtk(68, 6)->name, "VTK_LAGRANGE_CURVE");
  EXPECT_EQ(mpp::cell_type_from_vtk(74, 30)->name, "VTK_LAGRANGE_PYRAMID");
  EXPECT_EQ(mpp::cell_type_from_vtk(70, 9)->name, "VTK_LAGRANGE_QUADRILATERAL");
  EXPECT_EQ(mpp::cell_type_from_vtk(999, 3), nullptr);
  EXPECT_EQ(mpp::cell_type_from_vtk(34, 7)->name, "triangle7");
  // Fixed-order types still write with a Lagrange id; the Lagrange families take any width.
  EXPECT_EQ(mpp::cell_type("triangle15").vtk_id, 69);
  EXPECT_EQ(mpp::cell_type("VTK_LAGRANGE_WEDGE").vtk_id, 73);
  EXPECT_EQ(mpp::cell_type("VTK_LAGRANGE_WEDGE").num_nodes, mpp::kAnyNodeCount);
  EXPECT_EQ(mpp::cell_type("VTK_LAGRANGE_TETRAHEDRON").dimension, 3);
  EXPECT_TRUE(mpp::is_ragged_cell_type("polygon"));
  EXPECT_FALSE(mpp::is_ragged_cell_type("quad"));
  EXPECT_THROW(mpp::cell_type("blob"), std::invalid_argument);
}
