// Exodus element names ↔ our cell types, node orders, and side numbering; shared by the
// Exodus reader and writer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace meshioplusplus::exodus {

// How Exodus numbers the sides of a cell relative to our local facets (side_regions.hpp).
enum class SideRule {
  facet,  // side s is facet s-1: volume cells, and 2-D cells of a 2-D mesh
  shell,  // sides 1, 2 are the two faces (none of ours); side s >= 3 is edge s-3
  none,   // vertices, bars, polygons: no facet numbering of ours
};

// Our cell type for an Exodus element name (any case, e.g. "HEX8", "hex", "TETRA10",
// "SHELL4") with `nodes` nodes per element; empty when unknown.
std::string_view cell_type_for(std::string_view exodus_name, std::int64_t nodes);
// The element name written for our cell type (meshio's choice where meshio has one); empty
// when Exodus has no such element.
std::string_view exodus_name_for(std::string_view cell_type);
// Whether an Exodus element name denotes a shell (SHELL*, TRISHELL*).
bool is_shell_name(std::string_view exodus_name);

// Exodus node i of a cell sits at our position exodus_to_ours[i]; empty when identical.
std::span<const std::int8_t> node_permutation(std::string_view cell_type);

SideRule side_rule(std::string_view cell_type, std::string_view exodus_name, int mesh_dimension);

}  // namespace meshioplusplus::exodus
