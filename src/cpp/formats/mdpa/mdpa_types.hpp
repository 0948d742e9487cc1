// Kratos names and node orders shared by the MDPA reader and writer.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::mdpa::detail {

// Kratos geometry names (as meshio lists them, plus the prism and pyramid ones) and our types.
struct Geometry {
  std::string_view name;
  std::string_view type;
};
inline constexpr std::array<Geometry, 26> kGeometries{{
    {"Point2D", "vertex"}, {"Point3D", "vertex"},
    {"Line2D2", "line"}, {"Line3D2", "line"}, {"Line2D3", "line3"}, {"Line3D3", "line3"},
    {"Triangle2D3", "triangle"}, {"Triangle3D3", "triangle"}, {"Triangle2D6", "triangle6"}, {"Triangle3D6", "triangle6"},
    {"Quadrilateral2D4", "quad"}, {"Quadrilateral3D4", "quad"}, {"Quadrilateral2D8", "quad8"},
    {"Quadrilateral3D8", "quad8"}, {"Quadrilateral2D9", "quad9"}, {"Quadrilateral3D9", "quad9"},
    {"Tetrahedra3D4", "tetra"}, {"Tetrahedra3D10", "tetra10"}, {"Pyramid3D5", "pyramid"},
    {"Prism3D6", "wedge"}, {"Prism3D15", "wedge15"},
    {"Hexahedra3D8", "hexahedron"}, {"Hexahedra3D20", "hexahedron20"}, {"Hexahedra3D27", "hexahedron27"},
    {"Line2D4", ""}, {"Line3D4", ""},  // cubic lines: no meshio type
}};

// Kratos numbers the midside nodes of these differently from meshio/VTK: our node k is
// Kratos node kratos_of[k]. Kratos (GiD) lists the vertical edges of hexahedra and prisms
// before the top edges and walks the bottom edges the other way round; meshio 5.3.5 holds
// the hexahedron tables too but never applies them (its `in` test on a list of blocks is
// always false).
struct Order {
  std::string_view type;
  std::span<const int> kratos_of;
};
inline constexpr std::array<int, 20> kHex20{0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 10, 9, 16, 19, 18, 17, 12, 13, 14, 15};
inline constexpr std::array<int, 27> kHex27{0,  1,  2,  3,  4,  5,  6,  7,  8,  11, 10, 9,  16, 19,
                                            18, 17, 12, 13, 14, 15, 22, 24, 21, 23, 20, 25, 26};
inline constexpr std::array<int, 15> kWedge15{0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11};
inline constexpr std::array<Order, 3> kOrders{{
    {"hexahedron20", kHex20}, {"hexahedron27", kHex27}, {"wedge15", kWedge15}}};

inline std::span<const int> kratos_order(std::string_view type) noexcept {
  for (const Order& order : kOrders)
    if (order.type == type) return order.kratos_of;
  return {};
}

}  // namespace meshioplusplus::mdpa::detail
