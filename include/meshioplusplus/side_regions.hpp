// Floor 1: turning boundary-element regions into side regions.
//
// Many formats (Gmsh, MED, Abaqus surfaces as elements) describe a boundary as a group of
// lower-dimensional elements — triangles on the faces of tetrahedra. Solvers and formats
// with side sets (Exodus, Abaqus *SURFACE) want (cell, local facet) pairs instead.
// derive_side_regions() builds the second form from the first.
//
// LOCAL FACET NUMBERING (0-based Exodus II side numbering; node numbers are corner indices
// of the cell in meshio/VTK order, and each facet's corners are listed so that its normal
// points out of the cell). Higher-order variants of a family (tetra10, hexahedron27,
// triangle6, wedge15, quad9, …) use their family's table: they are matched by corner nodes.
//
//   cell family   facet: corners
//   line          0: (0)        1: (1)
//   triangle      0: (0,1)      1: (1,2)      2: (2,0)
//   quad          0: (0,1)      1: (1,2)      2: (2,3)      3: (3,0)
//   tetra         0: (0,1,3)    1: (1,2,3)    2: (0,3,2)    3: (0,2,1)
//   pyramid       0: (0,1,4)    1: (1,2,4)    2: (2,3,4)    3: (3,0,4)    4: (0,3,2,1)
//   wedge         0: (0,1,4,3)  1: (1,2,5,4)  2: (0,3,5,2)  3: (0,2,1)    4: (3,4,5)
//   hexahedron    0: (0,1,5,4)  1: (1,2,6,5)  2: (2,3,7,6)  3: (0,4,7,3)  4: (0,3,2,1)
//                 5: (4,5,6,7)
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus {

// One local facet: its corner nodes as indices into the cell's node list.
struct FacetCorners {
  std::array<std::int8_t, 4> corners;
  int count;  // 1 (vertex), 2 (edge), 3 (triangle) or 4 (quadrilateral)
};

// The local facets of `cell_type` in the order of the table above; empty for types without
// a table (vertex, polygon, polyhedron, unknown names).
std::span<const FacetCorners> cell_facets(std::string_view cell_type) noexcept;

// What derive_side_regions() did, one entry per Side region it added (parallel vectors).
struct SideRegionReport {
  std::vector<std::string> region_names;
  // Cells of that Cell region that are a facet of no D-dimensional cell (or are of a type
  // that cannot be a facet). They are reported, never turned into invented pairs.
  std::vector<std::int64_t> unmatched_counts;
  // Cell regions skipped because a Side region of the same name already exists.
  std::vector<std::string> already_present;
};

// For each Cell region of dimension D-1 (D = highest cell dimension in the mesh; a region
// with dim -1 qualifies when all its cells have dimension D-1), adds a Side region with the
// same name, dim and tag whose entries are the (cell, local facet) pairs, int64 (n, 2), of
// the D-dimensional cells having one of the region's cells as a facet. Cells are block-major
// indices. A facet shared by two cells yields both pairs. Pairs follow the order of the
// region's entries. Facets are matched by their sorted corner nodes in a hash table: O(cells).
SideRegionReport derive_side_regions(Mesh& mesh);

}  // namespace meshioplusplus
