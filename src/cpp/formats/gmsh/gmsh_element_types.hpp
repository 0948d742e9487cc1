// Gmsh element type ids and their meshio names, with the node-order permutations where
// Gmsh numbers the nodes of an element differently from meshio (= VTK for these types).
// Private to the gmsh format folder (and the bindings, which export the table to Python).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::gmsh {

struct GmshElementType {
  int gmsh_id = 0;
  std::string_view name;  // meshio cell type name
  int num_nodes = 0;
  int dimension = 0;
  // meshio node i is Gmsh node meshio_from_gmsh[i]; empty when both orders agree.
  std::span<const std::uint16_t> meshio_from_gmsh;
  // Gmsh node j is meshio node gmsh_from_meshio[j] (the inverse); empty when orders agree.
  std::span<const std::uint16_t> gmsh_from_meshio;
};

// Largest Gmsh element id (GmshDefines.h MSH_MAX_NUM); ids above it are invalid.
inline constexpr int kMaxGmshElementId = 140;

// nullptr for ids meshio has no name for (incomplete/serendipity variants, polygons, …).
const GmshElementType* element_type_from_gmsh(int gmsh_id) noexcept;
// nullptr for meshio types Gmsh cannot store (polygon, polyhedron, hexahedron24, …).
const GmshElementType* element_type_from_name(std::string_view name) noexcept;
// The whole table, in Gmsh id order (_core.gmsh_element_types: meshio's gmsh tables).
std::span<const GmshElementType> element_types() noexcept;

}  // namespace meshioplusplus::gmsh
