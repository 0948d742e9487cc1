#include "meshioplusplus/cell_types.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace meshioplusplus {
namespace {

// VTK's arbitrary-order Lagrange cells. meshio types of third order and up have no fixed VTK
// id and are written with these (node order passed through as VTK's); read back, every
// Lagrange cell is a VTK_LAGRANGE_* block, as meshio reads it.
constexpr int kLagrangeCurve = 68, kLagrangeTriangle = 69, kLagrangeQuad = 70,
              kLagrangeTetra = 71, kLagrangeHexahedron = 72, kLagrangeWedge = 73, kLagrangePyramid = 74;

constexpr std::array kCellTypes = {
    CellTypeInfo{"vertex", 1, 0, 1},
    CellTypeInfo{"line", 2, 1, 3},
    CellTypeInfo{"triangle", 3, 2, 5},
    CellTypeInfo{"quad", 4, 2, 9},
    CellTypeInfo{"quad8", 8, 2, 23},
    CellTypeInfo{"tetra", 4, 3, 10},
    CellTypeInfo{"hexahedron", 8, 3, 12},
    CellTypeInfo{"hexahedron20", 20, 3, 25},
    CellTypeInfo{"hexahedron24", 24, 3, 33},
    CellTypeInfo{"wedge", 6, 3, 13},
    CellTypeInfo{"pyramid", 5, 3, 14},
    // second order
    CellTypeInfo{"line3", 3, 1, 21},
    CellTypeInfo{"triangle6", 6, 2, 22},
    CellTypeInfo{"quad9", 9, 2, 28},
    CellTypeInfo{"tetra10", 10, 3, 24},
    CellTypeInfo{"hexahedron27", 27, 3, 29},
    CellTypeInfo{"wedge15", 15, 3, 26},
    CellTypeInfo{"wedge18", 18, 3, 32},
    CellTypeInfo{"pyramid13", 13, 3, 27},
    CellTypeInfo{"pyramid14", 14, 3, 37},
    // third order and up: Lagrange families
    CellTypeInfo{"line4", 4, 1, 35},
    CellTypeInfo{"triangle10", 10, 2, kLagrangeTriangle},
    CellTypeInfo{"quad16", 16, 2, kLagrangeQuad},
    CellTypeInfo{"tetra20", 20, 3, kLagrangeTetra},
    CellTypeInfo{"wedge40", 40, 3, kLagrangeWedge},
    CellTypeInfo{"hexahedron64", 64, 3, kLagrangeHexahedron},
    CellTypeInfo{"line5", 5, 1, kLagrangeCurve},
    CellTypeInfo{"triangle15", 15, 2, kLagrangeTriangle},
    CellTypeInfo{"quad25", 25, 2, kLagrangeQuad},
    CellTypeInfo{"tetra35", 35, 3, kLagrangeTetra},
    CellTypeInfo{"wedge75", 75, 3, kLagrangeWedge},
    CellTypeInfo{"hexahedron125", 125, 3, kLagrangeHexahedron},
    CellTypeInfo{"line6", 6, 1, kLagrangeCurve},
    CellTypeInfo{"triangle21", 21, 2, kLagrangeTriangle},
    CellTypeInfo{"quad36", 36, 2, kLagrangeQuad},
    CellTypeInfo{"tetra56", 56, 3, kLagrangeTetra},
    CellTypeInfo{"wedge126", 126, 3, kLagrangeWedge},
    CellTypeInfo{"hexahedron216", 216, 3, kLagrangeHexahedron},
    CellTypeInfo{"line7", 7, 1, kLagrangeCurve},
    CellTypeInfo{"triangle28", 28, 2, kLagrangeTriangle},
    CellTypeInfo{"quad49", 49, 2, kLagrangeQuad},
    CellTypeInfo{"tetra84", 84, 3, kLagrangeTetra},
    CellTypeInfo{"wedge196", 196, 3, kLagrangeWedge},
    CellTypeInfo{"hexahedron343", 343, 3, kLagrangeHexahedron},
    CellTypeInfo{"line8", 8, 1, kLagrangeCurve},
    CellTypeInfo{"triangle36", 36, 2, kLagrangeTriangle},
    CellTypeInfo{"quad64", 64, 2, kLagrangeQuad},
    CellTypeInfo{"tetra120", 120, 3, kLagrangeTetra},
    CellTypeInfo{"wedge288", 288, 3, kLagrangeWedge},
    CellTypeInfo{"hexahedron512", 512, 3, kLagrangeHexahedron},
    CellTypeInfo{"line9", 9, 1, kLagrangeCurve},
    CellTypeInfo{"triangle45", 45, 2, kLagrangeTriangle},
    CellTypeInfo{"quad81", 81, 2, kLagrangeQuad},
    CellTypeInfo{"tetra165", 165, 3, kLagrangeTetra},
    CellTypeInfo{"wedge405", 405, 3, kLagrangeWedge},
    CellTypeInfo{"hexahedron729", 729, 3, kLagrangeHexahedron},
    CellTypeInfo{"line10", 10, 1, kLagrangeCurve},
    CellTypeInfo{"triangle55", 55, 2, kLagrangeTriangle},
    CellTypeInfo{"quad100", 100, 2, kLagrangeQuad},
    CellTypeInfo{"tetra220", 220, 3, kLagrangeTetra},
    CellTypeInfo{"wedge550", 550, 3, kLagrangeWedge},
    CellTypeInfo{"hexahedron1000", 1000, 3, kLagrangeHexahedron},
    CellTypeInfo{"hexahedron1331", 1331, 3, kLagrangeHexahedron},
    CellTypeInfo{"line11", 11, 1, kLagrangeCurve},
    CellTypeInfo{"triangle66", 66, 2, kLagrangeTriangle},
    CellTypeInfo{"quad121", 121, 2, kLagrangeQuad},
    CellTypeInfo{"tetra286", 286, 3, kLagrangeTetra},
    // VTK cells outside meshio's table
    CellTypeInfo{"triangle7", 7, 2, 34},
    CellTypeInfo{"quad6", 6, 2, 30},
    CellTypeInfo{"wedge12", 12, 3, 31},
    // VTK Lagrange families, any order: rectangular blocks of any width
    CellTypeInfo{"VTK_LAGRANGE_CURVE", kAnyNodeCount, 1, kLagrangeCurve},
    CellTypeInfo{"VTK_LAGRANGE_TRIANGLE", kAnyNodeCount, 2, kLagrangeTriangle},
    CellTypeInfo{"VTK_LAGRANGE_QUADRILATERAL", kAnyNodeCount, 2, kLagrangeQuad},
    CellTypeInfo{"VTK_LAGRANGE_TETRAHEDRON", kAnyNodeCount, 3, kLagrangeTetra},
    CellTypeInfo{"VTK_LAGRANGE_HEXAHEDRON", kAnyNodeCount, 3, kLagrangeHexahedron},
    CellTypeInfo{"VTK_LAGRANGE_WEDGE", kAnyNodeCount, 3, kLagrangeWedge},
    CellTypeInfo{"VTK_LAGRANGE_PYRAMID", kAnyNodeCount, 3, kLagrangePyramid},
    // ragged
    CellTypeInfo{"polygon", 0, 2, kVtkPolygon},
    CellTypeInfo{"polyhedron", 0, 3, kVtkPolyhedron},
};

}  // namespace

std::span<const CellTypeInfo> cell_types() noexcept { return kCellTypes; }

const CellTypeInfo* find_cell_type(std::string_view name) noexcept {
  for (const CellTypeInfo& info : kCellTypes)
    if (info.name == name) return &info;
  return nullptr;
}

const CellTypeInfo& cell_type(std::string_view name) {
  if (const CellTypeInfo* info = find_cell_type(name)) return *info;
  throw std::invalid_argument("unknown cell type '" + std::string(name) + "'");
}

bool is_ragged_cell_type(std::string_view name) noexcept {
  const CellTypeInfo* info = find_cell_type(name);
  return info != nullptr && info->num_nodes == 0;
}

const CellTypeInfo* cell_type_from_vtk(int vtk_id, std::int64_t num_nodes) noexcept {
  if (vtk_id == kVtkPixel) return find_cell_type("quad");
  if (vtk_id == kVtkVoxel) return find_cell_type("hexahedron");
  // The fixed-order types written with a Lagrange id share it with the VTK_LAGRANGE_* entry;
  // reading takes the latter (whose node count is any).
  const bool lagrange = vtk_id >= kLagrangeCurve && vtk_id <= kLagrangePyramid;
  for (const CellTypeInfo& info : kCellTypes)
    if (info.vtk_id == vtk_id && (!lagrange || info.num_nodes == kAnyNodeCount)) return &info;
  return nullptr;
}

}  // namespace meshioplusplus
