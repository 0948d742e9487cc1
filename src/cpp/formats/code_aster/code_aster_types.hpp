// code_aster's element keywords and our cell types. Private to the .mail reader and writer.
// Linear cells and the quadratic lines, triangles, quadrangles and tetrahedra list their
// nodes in our order; the others are permuted (node_order below).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "io/cells/node_orders.hpp"

namespace meshioplusplus::code_aster::detail {

struct ElementType {
  std::string_view keyword;
  std::string_view cell_type;
  int nodes;
};

inline constexpr std::array<ElementType, 20> kElementTypes{{
    {"POI1", "vertex", 1},       {"SEG2", "line", 2},           {"SEG3", "line3", 3},
    {"SEG4", "line4", 4},        {"TRIA3", "triangle", 3},      {"TRIA6", "triangle6", 6},
    {"TRIA7", "triangle7", 7},   {"QUAD4", "quad", 4},          {"QUAD8", "quad8", 8},
    {"QUAD9", "quad9", 9},       {"TETRA4", "tetra", 4},        {"TETRA10", "tetra10", 10},
    {"PENTA6", "wedge", 6},      {"PENTA15", "wedge15", 15},    {"PENTA18", "wedge18", 18},
    {"HEXA8", "hexahedron", 8},  {"HEXA20", "hexahedron20", 20}, {"HEXA27", "hexahedron27", 27},
    {"PYRAM5", "pyramid", 5},    {"PYRAM13", "pyramid13", 13},
}};

// code_aster numbers the mid-edge nodes of HEXA20/HEXA27 and PENTA15/PENTA18 bottom edges,
// vertical edges, top edges (as Exodus and CGNS do; io/cells/node_orders.hpp), and HEXA27's
// face centres bottom, the four sides from face 1-2-6-5 on, top — VTK's: x-, x+, y-, y+,
// bottom, top. node_order(type)[i] is the file's position of our node i (empty: as stored);
// checked on code_aster's own test meshes (mid-edge nodes at the middle of their edges).
inline constexpr std::array<std::int8_t, 27> kHexa27Order{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 16, 17,
                                                         18, 19, 12, 13, 14, 15, 24, 22, 21, 23, 20, 25, 26};
inline constexpr std::array<std::int8_t, 18> kPenta18Order{0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11, 15, 16, 17};

inline std::span<const std::int8_t> node_order(std::string_view cell_type) noexcept {
  if (cell_type == "hexahedron27") return kHexa27Order;
  if (cell_type == "wedge18") return kPenta18Order;
  return io::vertical_edges_before_top_order(cell_type);  // hexahedron20, wedge15
}

inline const ElementType* type_of_keyword(std::string_view keyword) noexcept {
  for (const ElementType& type : kElementTypes)
    if (type.keyword == keyword) return &type;
  return nullptr;
}

inline const ElementType* type_of_cell(std::string_view cell_type) noexcept {
  for (const ElementType& type : kElementTypes)
    if (type.cell_type == cell_type) return &type;
  return nullptr;
}

}  // namespace meshioplusplus::code_aster::detail
