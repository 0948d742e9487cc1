// Floor 2: cell blocks -> face-based volume mesh (the inverse of cells_from_faces.hpp).
//
// CFD formats (OpenFOAM polyMesh, Fluent .msh/.cas, CGNS NGON_n/NFACE_n) store a volume mesh
// as a list of unique faces, each with the cell on either side. faces_from_cells() makes that
// list from our cell blocks:
//   - the volume cells are the cells of the top-dimensional blocks (3-D: tetra, pyramid, wedge,
//     hexahedron through core/side_regions' facet tables, polyhedron through its own faces;
//     2-D: triangle, quad, polygon, whose faces are their edges). Blocks of lower dimension
//     (boundary triangles beside tetrahedra, lines, vertices) hold no volume cells and are
//     skipped; higher-order or other types of the top dimension are refused (std::invalid_argument
//     naming the block): the face-based formats are linear, and dropping mid-nodes silently
//     would change the geometry the caller asked to write.
//   - volume cells are numbered 0.. in block-major order of those blocks (`volume_cells` maps
//     them back to block-major cell numbers; with only volume blocks both numberings agree);
//   - faces are matched by their node sets, exactly (O(cells): half-faces are split over a fixed
//     number of hash partitions, each matched in its own open-addressing table on any core; the
//     result does not depend on the thread count);
//   - every face is oriented out of its owner: its nodes in the order the owner's facet lists
//     them (outward for positively oriented cells, the tables' and VTK's rule). In 2-D, walking
//     the edge from its first to its second node keeps the owner on the left (counter-clockwise
//     cells), the convention build_cells_from_faces() reads;
//   - order (OpenFOAM's, which Fluent and CGNS accept too): internal faces first, in
//     upper-triangular order — owner < neighbour, sorted by owner, then neighbour (then the
//     owner's local facet where two cells share several faces); then the boundary faces grouped
//     by the caller's `boundary_groups` (patches), in that order, each group's faces by
//     (owner, local facet); the boundary faces in no group last.
//   - for every face, the owner's and neighbour's local facet (core/side_regions' numbering for
//     the standard shapes, the position in the cell's face list for polyhedra, edge i = nodes
//     (i, i+1) for polygons), so Side regions map to faces and back.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io {

struct FacesFromCellsInput {
  std::span<const CellBlock> blocks;
  // Boundary face groups (patches), each a Side region's entries: (block-major cell, local
  // facet) pairs, flat int64 [cell0, facet0, cell1, facet1, ...]. A face named by several
  // groups goes to the first; an entry naming an internal face or a cell that is not a volume
  // cell is skipped and counted in FaceTopology::skipped_group_entries. A local facet outside
  // the cell's range throws std::invalid_argument.
  std::vector<std::span<const std::int64_t>> boundary_groups;
};

struct FaceTopology {
  int dimension = 3;  // 3: faces are polygons; 2: faces are edges
  std::vector<std::int64_t> volume_cells;  // block-major number of each volume cell, ascending
  // Face f's nodes: face_nodes[face_offsets[f] .. face_offsets[f + 1]).
  std::vector<std::int64_t> face_offsets;  // num_faces + 1
  std::vector<std::int64_t> face_nodes;
  // Volume-cell numbers; neighbour is -1 for a boundary face. owner < neighbour always.
  std::vector<std::int64_t> owner;
  std::vector<std::int64_t> neighbour;
  // The face's local facet in its owner / neighbour (-1 where there is no neighbour).
  std::vector<std::int64_t> owner_facet;
  std::vector<std::int64_t> neighbour_facet;
  std::int64_t num_internal_faces = 0;
  // boundary_groups.size() + 2 entries: group g's faces are [group_starts[g], group_starts[g+1]);
  // the last range holds the boundary faces in no group. group_starts[0] == num_internal_faces.
  std::vector<std::int64_t> group_starts;
  std::int64_t skipped_group_entries = 0;

  std::int64_t num_faces() const noexcept { return static_cast<std::int64_t>(owner.size()); }
  std::int64_t num_cells() const noexcept { return static_cast<std::int64_t>(volume_cells.size()); }
};

// Throws std::invalid_argument (writers turn it into a WriteError naming their file) when there
// are no volume cells or they are of a type named above as refused, a node set is the face of
// more than two cells (or twice of one cell), or a group entry names a facet the cell lacks.
// Node indices are not checked (validate() has).
FaceTopology faces_from_cells(const FacesFromCellsInput& input);

}  // namespace meshioplusplus::io
