// What the Patran reader and writer share: element shapes and their cell types.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace meshioplusplus::patran::detail {

inline constexpr std::string_view kFormat = "patran";

struct Shape {
  int code;               // packet 02's IV: 2 bar, 3 tri, 4 quad, 5 tet, 7 wedge, 8 hex, 9 pyramid
  int nodes;              // the node count on the element's first data card
  std::string_view type;  // our cell type
  int component_code;     // packet 21's entity type: 6 bar … 12 hex, + 100 for the quadratic ones
};

inline constexpr std::array<Shape, 16> kShapes{{
    {2, 2, "line", 6},          {2, 3, "line3", 106},        {3, 3, "triangle", 7},
    {3, 6, "triangle6", 107},   {3, 7, "triangle7", 107},    {4, 4, "quad", 8},
    {4, 8, "quad8", 108},       {4, 9, "quad9", 108},        {5, 4, "tetra", 9},
    {5, 10, "tetra10", 109},    {9, 5, "pyramid", 10},       {7, 6, "wedge", 11},
    {7, 15, "wedge15", 111},    {8, 8, "hexahedron", 12},    {8, 20, "hexahedron20", 112},
    {6, 5, "pyramid", 10},  // shape 6: what meshio++ 17.21 reads as a pyramid
}};

inline const Shape* shape_of(std::int64_t code, std::int64_t nodes) noexcept {
  for (const Shape& shape : kShapes)
    if (shape.code == code && shape.nodes == nodes) return &shape;
  return nullptr;
}

inline const Shape* shape_of_type(std::string_view type) noexcept {
  for (const Shape& shape : kShapes)
    if (shape.type == type) return &shape;
  return nullptr;
}

}  // namespace meshioplusplus::patran::detail
