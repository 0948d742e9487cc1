// The XDMF writer's DOLFINx layout (write option layout="dolfinx"), local to the XDMF folder:
// what dolfinx.io.XDMFFile.read_mesh(name="Grid") and read_meshtags(mesh, name="Grid") read —
// the files of the meshio recipe FEniCS users paste (one cell type per file, the physical tags as
// a Cell Attribute "name_to_read"). docs/formats.md ("FEniCS / DOLFINx") says what goes where.
#pragma once

#include <optional>
#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::xdmf {

// The two grids, both on the same points (pruned to XY per prune_z), each one block and at most
// one integer cell-data array (the tags, named after the attribute_name option).
struct DolfinxGrids {
  Mesh cells;                  // the cells of the mesh's top dimension
  std::optional<Mesh> facets;  // its cells of dimension top - 1, when it has any
  std::string facets_path;     // "<stem>_facets.xdmf" beside `path`
};

// Whether `options` ask for the DOLFINx layout (layout="dolfinx"; "meshio", the default, is the
// plain one). WriteError on any other value.
bool wants_dolfinx_layout(const std::string& path, const WriteOptions& options);

// WriteError when DOLFINx could not read the result: several cell types of the top (or facet)
// dimension, a type DOLFINx's XDMF reader has no name for, no cells, tags that are not integers.
DolfinxGrids dolfinx_grids(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::xdmf
