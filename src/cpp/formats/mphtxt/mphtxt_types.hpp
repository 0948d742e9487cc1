// COMSOL's element type names, our cell types and the node orders between them. Private to
// the .mphtxt reader and writer.
//
// COMSOL numbers an element's corners lexicographically in its reference coordinates (first
// coordinate fastest): a quad's corners are (0,0) (1,0) (0,1) (1,1), so VTK's 0 1 2 3 are
// COMSOL's 0 1 3 2 (hexahedra and pyramid bases likewise). Second-order elements list the
// corners so, then the other nodes in the lexicographic order of the corner pairs (edges) and
// quadruples (faces) they lie between: tri2 01 02 12, tet2 01 02 12 03 13 23, quad2 01 02
// centre 13 23. The prism's corners are in our order (meshio's and Gmsh's, not VTK's), tet
// and tri in VTK's. order[i] is the COMSOL position of our node i. Checked on COMSOL-written files (tests/data/mphtxt): mid-edge nodes
// halfway along VTK's edges, positive volumes. prism2 and pyr2 are not read (no file to
// check them on).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::mphtxt::detail {

struct ElementType {
  std::string_view name;  // COMSOL's
  std::string_view cell_type;
  int nodes;
  int dim;
  std::span<const std::int8_t> order;  // empty: as stored
};

inline constexpr std::array<std::int8_t, 6> kTri2{0, 1, 2, 3, 5, 4};
inline constexpr std::array<std::int8_t, 4> kQuad{0, 1, 3, 2};
inline constexpr std::array<std::int8_t, 9> kQuad2{0, 1, 3, 2, 4, 7, 8, 5, 6};
inline constexpr std::array<std::int8_t, 10> kTet2{0, 1, 2, 3, 4, 6, 5, 7, 8, 9};
inline constexpr std::array<std::int8_t, 5> kPyr{0, 1, 3, 2, 4};
inline constexpr std::array<std::int8_t, 8> kHex{0, 1, 3, 2, 4, 5, 7, 6};
inline constexpr std::array<std::int8_t, 27> kHex2{0,  1,  3,  2,  4,  5,  7,  6,  8,  11, 12, 9,  22, 25,
                                                   26, 23, 13, 15, 21, 19, 16, 18, 14, 20, 10, 24, 17};

inline constexpr std::array<ElementType, 13> kElementTypes{{
    {"vtx", "vertex", 1, 0, {}},
    {"edg", "line", 2, 1, {}},
    {"edg2", "line3", 3, 1, {}},
    {"tri", "triangle", 3, 2, {}},
    {"tri2", "triangle6", 6, 2, kTri2},
    {"quad", "quad", 4, 2, kQuad},
    {"quad2", "quad9", 9, 2, kQuad2},
    {"tet", "tetra", 4, 3, {}},
    {"tet2", "tetra10", 10, 3, kTet2},
    {"pyr", "pyramid", 5, 3, kPyr},
    {"prism", "wedge", 6, 3, {}},
    {"hex", "hexahedron", 8, 3, kHex},
    {"hex2", "hexahedron27", 27, 3, kHex2},
}};

inline const ElementType* type_of_name(std::string_view name) noexcept {
  for (const ElementType& type : kElementTypes)
    if (type.name == name) return &type;
  return nullptr;
}

inline const ElementType* type_of_cell(std::string_view cell_type) noexcept {
  for (const ElementType& type : kElementTypes)
    if (type.cell_type == cell_type) return &type;
  return nullptr;
}

}  // namespace meshioplusplus::mphtxt::detail
