// Floor 1: clean-up operations on a Mesh (meshio 4's prune_z_0 / remove_orphaned_nodes /
// remove_lower_dimensional_cells, removed in meshio 5, plus merge_points and transform).
//
// Each works in place and keeps what hangs on the mesh consistent:
// - point data rows and Point regions follow a point renumbering (a Point region keeps the
//   points that remain, once each, in its order);
// - cell data arrays and Cell/Side regions follow a cell removal (block-major numbering is
//   recomputed; a Region left without entries is removed — derive_side_regions() first keeps
//   boundary groups as Side regions of the volume cells);
// - field data is untouched.
// Connectivity must be valid (validate()); std::invalid_argument otherwise.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus {

// Drops the z column of (n, 3) points when every |z| < tolerance (meshio 4's rule and default).
// Returns whether it did.
bool prune_z_0(Mesh& mesh, double tolerance = 1.0e-13);

// Removes the points no cell uses; connectivity is renumbered. Returns how many went.
std::int64_t remove_orphaned_nodes(Mesh& mesh);

// Keeps the blocks of the highest topological dimension (ragged polygon: 2, polyhedron: 3).
// Returns how many cells went.
std::int64_t remove_lower_dimensional_cells(Mesh& mesh);

// Welds points within `tolerance` (Euclidean; 0: equal coordinates, -0 == 0) into an earlier
// point within it — the first of its group in file order wherever groups lie farther apart
// than the tolerance (duplicates, noisy copies), whose point data stays; connectivity is
// renumbered, the welded points are removed. Cells that become degenerate are kept. Returns
// how many points went. Time O(points), memory O(points).
std::int64_t merge_points(Mesh& mesh, double tolerance = 0.0);

// Applies an affine map to the points (d = their column count): `matrix` row-major d×d
// (linear), d×(d+1) (linear and translation) or (d+1)×(d+1) (homogeneous, last row 0…0 1).
// Point data is not transformed (a vector field's meaning is the caller's).
void transform(Mesh& mesh, std::span<const double> matrix, std::int64_t rows, std::int64_t columns);

// The outward boundary of the cells of the highest dimension D (3: faces, 2: edges): the facets
// (side_regions.hpp's local facet table) that belong to one cell only, as a new mesh on the
// same points (orphans removed) with one block per facet type ("triangle"/"quad" for D = 3,
// "line" for D = 2), each facet's corners listed so that its normal points out of its cell.
// Second-order cells give quadratic facets (triangle6, quad8, quad9, line3: the corners, then
// the mid-edge nodes, then the face centre, in VTK's order). What comes along:
// - point data (renumbered), field data;
// - cell data "surface:cell" and "surface:facet": the (cell, local facet) each facet came
//   from — a Side region's entries, in the source mesh's block-major numbering — and every
//   cell data array of the source, taken from that cell;
// - each Side region of the source as a Cell region of its facets that are on the boundary.
// Types without a facet table (polyhedron, polygon, unknown) are not looked at.
Mesh extract_surface(const Mesh& mesh);

// What check() finds — a report, nothing is changed. Cells are block-major indices.
struct MeshCheck {
  // Signed volume (3-D cells: from their outward facets, corners only) or signed area (2-D
  // cells when the points are planar in x-y) below zero: the node order is mirrored.
  std::vector<std::int64_t> inverted;
  // A node repeated, or a volume/area/length of zero (below 1e-12 of the cell's size²/³).
  std::vector<std::int64_t> degenerate;
  // A cell with the same type and the same set of nodes as an earlier one (the later ones).
  std::vector<std::int64_t> duplicate;
  std::vector<std::int64_t> unused_points;
  // Facets of the top-dimensional cells shared by more than two cells, and those cells.
  std::int64_t non_manifold_facets = 0;
  std::vector<std::int64_t> non_manifold_cells;
};
MeshCheck check(const Mesh& mesh);

// Several meshes as one: points stacked, cell blocks in order (blocks of the same type are not
// joined: block-major numbering of each part stays a contiguous run), point/cell data kept
// where every part has the array with the same dtype and trailing shape, regions of the same
// name and kind joined, field data of the first part. No welding: merge_points() afterwards.
Mesh merge(const std::vector<Mesh>& meshes);

// The cells whose corners all lie in the box [low, high] (mode "all") or any of whose corners
// does (mode "any"), as a new mesh; data and regions follow (as remove_orphaned_nodes and a cell
// removal), orphaned points removed.
Mesh crop(const Mesh& mesh, std::span<const double> low, std::span<const double> high, bool any_corner = false);

// The cells of `region` (a Cell region; Side regions give their cells) as a new mesh, as crop.
Mesh extract_region(const Mesh& mesh, std::string_view region);
// The blocks of `cell_type` as a new mesh, as crop.
Mesh extract_cell_type(const Mesh& mesh, std::string_view cell_type);
// The cells flagged in `keep` (one flag per block-major cell) as a new mesh, as crop: what the
// CLI's --drop and `clean` (degenerate and duplicate cells out) are made of.
Mesh select_cells(const Mesh& mesh, const std::vector<bool>& keep);

}  // namespace meshioplusplus
