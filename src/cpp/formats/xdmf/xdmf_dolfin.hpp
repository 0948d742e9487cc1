// What DOLFIN and DOLFINx put in XDMF beyond plain grids, local to the XDMF folder:
//   meshtags grids (XDMFFile.write_meshtags)       → regions of the mesh (xdmf_meshtags.cpp)
//   Attribute ItemType="FiniteElementFunction"     → point / cell / field data (xdmf_fe_function.cpp)
//     (legacy DOLFIN's and early DOLFINx's write_checkpoint)
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "formats/xdmf/xdmf_document.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::xdmf {

// A grid that shares `mesh`'s Geometry (`tags`: its one block and its one integer Cell
// attribute, already split per block) is DOLFINx meshtags when its entities are cells or
// facets of the mesh's highest-dimensional cells. Tagged cells become one Cell region per tag
// value ("<tags name>:<value>", tag = value) and cell_data[<tags name>] on the mesh's blocks
// (0 on untagged cells); tagged facets become Side regions (cell, local facet) through
// derive_side_regions(). Returns true when `tags` was taken in. Otherwise (other entities:
// edges of a 3-D mesh, vertices, facets of no cell) it returns false and, when `tags` has the
// meshtags shape, gives it the same Cell regions over its own block, which the caller merges
// as a block of its own.
bool absorb_meshtags(Mesh& mesh, Mesh& tags);

// Where an Attribute's arrays go.
struct AttributeSink {
  NamedList<NDArray>& point_data;
  std::vector<std::pair<std::string, NDArray>>& raw_cell_data;  // rows over all the grid's cells
  NamedList<NDArray>& field_data;
  NamedList<std::vector<std::string>>* string_field_data;  // null for time steps
};

bool is_finite_element_function(const Node& attribute);

// DOLFIN's write_checkpoint Attribute (ItemType="FiniteElementFunction", four DataItems:
// cell_dofs, vector, x_cell_dofs, cells) on a grid with `cells` and `num_points` points:
// Lagrange degree 1 (CG/Q/P 1) → point_data (dof values mapped through the dofmap to the
// cells' nodes), discontinuous degree 0 (DG/DQ 0) → cell data; any other space → field_data
// "<name>:vector", ":cell_dofs", ":x_cell_dofs", ":cells" and string_field_data
// "<name>:element" = [family, degree, cell, AttributeType]. Vectors are padded to 3
// components and 2-D tensors to 3x3, as VTK's XDMF 3 reader does.
void read_finite_element_function(Context& context, const Node& attribute, const std::vector<CellBlock>& cells,
                                  std::int64_t num_points, AttributeSink sink);

}  // namespace meshioplusplus::xdmf
