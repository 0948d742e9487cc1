// Floor 2: FEBio's element and facet type names (FEBio manual, "Geometry"/"Mesh" section;
// FECore FEElementLibrary) as our cell types, shared by the .feb reader/writer and the .xplt
// plot-file reader. Every type is in VTK's node order except hex27,
// whose face-centre nodes FECore's FEHex27 numbers y-, x+, y+, x-, z-, z+ where VTK has
// x-, x+, y-, y+, z-, z+: ours[i] = file[order[i]].
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::io::febio_elements {

struct FebioType {
  std::string_view febio_name;
  std::string_view name;  // ours
  int num_nodes;
  int dim;
  std::span<const std::int8_t> order;  // empty: VTK's order
};

inline constexpr std::array<std::int8_t, 27> kHex27Order{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                                         14, 15, 16, 17, 18, 19, 23, 21, 20, 22, 24, 25, 26};

inline constexpr std::array<FebioType, 17> kTypes{{
    {"line2", "line", 2, 1, {}},
    {"line3", "line3", 3, 1, {}},
    {"tri3", "triangle", 3, 2, {}},
    {"tri6", "triangle6", 6, 2, {}},
    {"tri7", "triangle7", 7, 2, {}},
    {"quad4", "quad", 4, 2, {}},
    {"quad8", "quad8", 8, 2, {}},
    {"quad9", "quad9", 9, 2, {}},
    {"tet4", "tetra", 4, 3, {}},
    {"tet10", "tetra10", 10, 3, {}},
    {"penta6", "wedge", 6, 3, {}},
    {"penta15", "wedge15", 15, 3, {}},
    {"hex8", "hexahedron", 8, 3, {}},
    {"hex20", "hexahedron20", 20, 3, {}},
    {"hex27", "hexahedron27", 27, 3, kHex27Order},
    {"pyra5", "pyramid", 5, 3, {}},
    {"pyra13", "pyramid13", 13, 3, {}},
}};

inline const FebioType* find_by_febio_name(std::string_view name) noexcept {
  for (const FebioType& type : kTypes)
    if (type.febio_name == name) return &type;
  return nullptr;
}
inline const FebioType* find_by_name(std::string_view name) noexcept {
  for (const FebioType& type : kTypes)
    if (type.name == name) return &type;
  return nullptr;
}

}  // namespace meshioplusplus::io::febio_elements
