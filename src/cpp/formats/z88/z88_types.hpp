// Z88 element types (the numbers of Z88OS V15's manual and of its reader ri188r.c) → meshio
// cell types, with the node orders that differ from VTK's (`vtk_from_z88[k]`: the Z88 node
// that becomes VTK node k). Derived from Z88's shape functions (hexa88.c, tetr88.c) and
// checked on the Z88OS examples:
// - 1 / 10 hexahedra: Z88 numbers the face at t = +1 first (nodes 1-4), then t = -1 (5-8),
//   both counter-clockwise seen from +t, then the mid-edges of those faces and the four
//   edges between them: VTK's bottom face is Z88's second one (every hexahedron of the
//   example b5 has a negative Jacobian read in Z88's order);
// - 16 tetra10: the last three mid-edge nodes are 2-4, 3-4, 1-4 (VTK: 1-4, 2-4, 3-4);
// - 19 plate: the 16 nodes of a 4 x 4 lattice row by row (example b18); VTK's Lagrange
//   quadrilateral takes corners, edges, then the inner nodes.
// Types 11 and 12 (12-node cubic serendipity quadrilaterals) and 21 and 22 (16- and 12-node
// volume shells) have no meshio cell type and are refused by name.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::z88::detail {

struct ElementType {
  int number;
  std::string_view cell_type;  // empty: no meshio cell type
  int nodes;
  int dofs_per_node;  // what Z88 gives each node of such an element
  bool plane;  // an element of 2-D models (ndim 2)
  std::string_view description;
  std::span<const int> vtk_from_z88;  // empty: the same order
};

inline constexpr std::array<int, 8> kHexOrder{4, 5, 6, 7, 0, 1, 2, 3};
inline constexpr std::array<int, 20> kHex20Order{4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 16, 17, 18, 19};
inline constexpr std::array<int, 10> kTet10Order{0, 1, 2, 3, 4, 5, 6, 9, 7, 8};
inline constexpr std::array<int, 16> kQuad16Order{0, 12, 15, 3, 4, 8, 13, 14, 7, 11, 1, 2, 5, 9, 6, 10};

inline constexpr std::array<ElementType, 25> kElementTypes{{
    {1, "hexahedron", 8, 3, false, "8-node hexahedron", kHexOrder},
    {2, "line", 2, 6, false, "beam", {}},
    {3, "triangle6", 6, 2, true, "6-node plane stress triangle", {}},
    {4, "line", 2, 3, false, "space truss", {}},
    {5, "line", 2, 6, false, "shaft", {}},
    {6, "triangle", 3, 2, true, "3-node torus triangle", {}},
    {7, "quad8", 8, 2, true, "8-node plane stress quadrilateral", {}},
    {8, "quad8", 8, 2, true, "8-node torus quadrilateral", {}},
    {9, "line", 2, 2, true, "plane truss", {}},
    {10, "hexahedron20", 20, 3, false, "20-node hexahedron", kHex20Order},
    {11, "", 12, 2, true, "12-node plane stress quadrilateral", {}},
    {12, "", 12, 2, true, "12-node torus quadrilateral", {}},
    {13, "line", 2, 3, true, "plane beam", {}},
    {14, "triangle6", 6, 2, true, "6-node plane stress triangle", {}},
    {15, "triangle6", 6, 2, true, "6-node torus triangle", {}},
    {16, "tetra10", 10, 3, false, "10-node tetrahedron", kTet10Order},
    {17, "tetra", 4, 3, false, "4-node tetrahedron", {}},
    {18, "triangle6", 6, 3, true, "6-node plate", {}},
    {19, "quad16", 16, 3, true, "16-node plate", kQuad16Order},
    {20, "quad8", 8, 3, true, "8-node plate", {}},
    {21, "", 16, 3, false, "16-node volume shell", {}},
    {22, "", 12, 3, false, "12-node volume shell", {}},
    {23, "quad8", 8, 6, false, "8-node shell", {}},
    {24, "triangle6", 6, 6, false, "6-node shell", {}},
    {25, "line", 2, 6, false, "Timoshenko beam", {}},
}};

inline const ElementType* type_by_number(std::int64_t number) noexcept {
  return number >= 1 && number <= static_cast<std::int64_t>(kElementTypes.size()) ? &kElementTypes[number - 1] : nullptr;
}

}  // namespace meshioplusplus::z88::detail
