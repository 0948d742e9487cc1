// Floor 1: what every cell type name means — node count, topological dimension, VTK id.
// Names are meshio's, so files and code move between the two without translation.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus {

// A node count of 0 marks a ragged type (polygon, polyhedron): each cell has its own size.
// kAnyNodeCount marks a rectangular type whose blocks may have any number of nodes per cell
// (all cells of one block the same): VTK's arbitrary-order Lagrange cells, named as meshio
// names them (VTK_LAGRANGE_TRIANGLE, …).
//
// Names outside this table are legal too: a block of an unknown type is rectangular (n, k);
// formats that cannot carry it raise a WriteError naming it.
inline constexpr int kAnyNodeCount = -1;

struct CellTypeInfo {
  std::string_view name;
  int num_nodes;
  int dimension;
  // The VTK cell id written for this type; -1 when VTK has no cell of that name.
  int vtk_id;
};

// Every known type: meshio's 67 fixed-size types, a few VTK extras, VTK's seven Lagrange
// families and the ragged ones.
std::span<const CellTypeInfo> cell_types() noexcept;
// nullptr when the name is unknown.
const CellTypeInfo* find_cell_type(std::string_view name) noexcept;
// Throws std::invalid_argument naming the type when unknown.
const CellTypeInfo& cell_type(std::string_view name);
bool is_ragged_cell_type(std::string_view name) noexcept;

// VTK id → our type name for a cell of `num_nodes` nodes. Lagrange ids 68-74 map to
// VTK_LAGRANGE_* whatever the node count, as meshio reads them. nullptr when there is none.
const CellTypeInfo* cell_type_from_vtk(int vtk_id, std::int64_t num_nodes) noexcept;

// VTK ids whose node order differs from ours and is permuted on read (pixel, voxel).
inline constexpr int kVtkPixel = 8;
inline constexpr int kVtkVoxel = 11;
inline constexpr int kVtkPolygon = 7;
inline constexpr int kVtkPolyhedron = 42;

}  // namespace meshioplusplus
