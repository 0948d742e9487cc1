// Gmsh MSH (.msh): reads versions 2.x, 4.0 and 4.1, ASCII and binary; writes 2.2 and 4.1.
//
// What a read produces:
//   points      (n, 3) float64, in file order; sparse node tags become dense 0-based indices.
//   cells       one block per cell type, in order of the type's first appearance; rows in
//               file order. Node orders are converted to meshio's (see gmsh_element_types).
//   cell_data   "gmsh:geometrical" (int32 entity tag) per block; "gmsh:physical" (int32, the
//               first physical tag, 0 for none) when the file carries physical information;
//               $ElementData / $ElementNodeData as float64 (NaN where an element has no value;
//               ElementNodeData rows hold nodes × components in meshio node order).
//   point_data  $NodeData as float64 (NaN where a node has no value); for 4.x files
//               "gmsh:dim_tags" (n, 2) int32: the entity (dim, tag) each node is classified on.
//   field_data  name → int32 [tag, dim] for each $PhysicalNames entry (meshio's layout).
//   regions     one per physical group, named from $PhysicalNames (else the tag as text),
//               dim = group dimension, tag = physical tag. Dimension-0 groups are Point
//               regions (the nodes of their vertex elements), others Cell regions
//               (block-major cell indices, ascending).
// Data sections: the first time step of a view keeps the view's name; later time steps of
// the same view are named "name[step k]" (k = the integer time-step tag). Sections for the
// same view and step (e.g. one per partition) fill the same array.
// Skipped: parametric node coordinates, $Periodic, $GhostElements, $Parametrizations,
// $InterpolationScheme and unknown sections.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::gmsh {

inline constexpr std::string_view kFormatName = "gmsh";  // as errors name the format

Mesh read(const std::string& path);

// Options: fmt_version ("4.1" default | "2.2"), binary ("true" default).
// Physical groups come from the regions: each Cell region becomes a physical group (of the
// dimension of its cells) on its elements, each Point region a dimension-0 group on vertex
// elements (existing vertex cells on those points, else added vertex elements). Elements in
// no region get no group (physical 0 in 2.2). Without Cell/Point regions, "gmsh:physical"
// cell data and field_data names are used instead. "gmsh:geometrical" chooses entity tags
// when present. Side regions are not written. MSH 2.2 stores one physical tag per element
// (the first group's).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::gmsh
