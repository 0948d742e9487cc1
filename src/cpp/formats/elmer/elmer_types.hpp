// Elmer element type codes (TNN: family digit, node count) and their node orders, shared by
// the reader and the writer. Node positions are those of ElmerSolver's elements.def (the
// "Basic element types" appendix of the ElmerSolver manual); where they differ from VTK's
// (meshio's) order, `vtk_from_elmer[k]` is the Elmer node that becomes VTK node k:
// - 820: Elmer lists the bottom mid-edges, the vertical mid-edges, then the top ones; VTK
//   puts the top ring before the vertical edges;
// - 827: as 820, and the mid-height face centres run y-, x+, y+, x- (VTK: x-, x+, y-, y+);
// - 416: Elmer walks each edge around the quadrilateral (1→2, 2→3, 3→4, 4→1) and its inner
//   nodes counter-clockwise; VTK's Lagrange quadrilateral runs edges 3→4 and 1→4 the other
//   way (along +u, +v) and the inner nodes in tensor order.
// Every other type listed is in VTK's order already (checked node by node against elements.def).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::elmer::detail {

struct ElementType {
  int code;
  std::string_view cell_type;  // meshio's name
  int nodes;
  std::span<const int> vtk_from_elmer;  // empty: the same order
};

inline constexpr std::array<int, 20> kHex20Order{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15};
inline constexpr std::array<int, 27> kHex27Order{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 16, 17,
                                                 18, 19, 12, 13, 14, 15, 23, 21, 20, 22, 24, 25, 26};
inline constexpr std::array<int, 16> kQuad16Order{0, 1, 2, 3, 4, 5, 6, 7, 9, 8, 11, 10, 12, 13, 15, 14};

inline constexpr std::array<ElementType, 20> kElementTypes{{
    {101, "vertex", 1, {}},
    {202, "line", 2, {}},
    {203, "line3", 3, {}},
    {204, "line4", 4, {}},
    {303, "triangle", 3, {}},
    {306, "triangle6", 6, {}},
    {310, "triangle10", 10, {}},
    {404, "quad", 4, {}},
    {408, "quad8", 8, {}},
    {409, "quad9", 9, {}},
    {416, "quad16", 16, kQuad16Order},
    {504, "tetra", 4, {}},
    {510, "tetra10", 10, {}},
    {605, "pyramid", 5, {}},
    {613, "pyramid13", 13, {}},
    {706, "wedge", 6, {}},
    {715, "wedge15", 15, {}},
    {808, "hexahedron", 8, {}},
    {820, "hexahedron20", 20, kHex20Order},
    {827, "hexahedron27", 27, kHex27Order},
}};

inline const ElementType* type_by_code(std::int64_t code) noexcept {
  for (const ElementType& type : kElementTypes)
    if (type.code == code) return &type;
  return nullptr;
}

inline const ElementType* type_by_name(std::string_view cell_type) noexcept {
  for (const ElementType& type : kElementTypes)
    if (type.cell_type == cell_type) return &type;
  return nullptr;
}

// The file names of a mesh directory.
inline constexpr std::string_view kHeader = "mesh.header", kNodes = "mesh.nodes", kElements = "mesh.elements",
                                  kBoundary = "mesh.boundary", kNames = "mesh.names";

}  // namespace meshioplusplus::elmer::detail
