// DOLFIN cell names, shared by the reader and the writer of this folder. DOLFIN's vertex
// order within a cell is meshio's for every type listed here.
#pragma once

#include <array>
#include <string_view>

namespace meshioplusplus::dolfin::detail {

struct DolfinCellType {
  std::string_view dolfin_name;
  std::string_view name;  // meshio's
  int num_nodes;
  int dim;
};

inline constexpr std::array<DolfinCellType, 5> kCellTypes{{
    {"interval", "line", 2, 1},
    {"triangle", "triangle", 3, 2},
    {"quadrilateral", "quad", 4, 2},
    {"tetrahedron", "tetra", 4, 3},
    {"hexahedron", "hexahedron", 8, 3},
}};

inline const DolfinCellType* find_by_dolfin_name(std::string_view name) noexcept {
  for (const DolfinCellType& t : kCellTypes)
    if (t.dolfin_name == name) return &t;
  return nullptr;
}
inline const DolfinCellType* find_by_name(std::string_view name) noexcept {
  for (const DolfinCellType& t : kCellTypes)
    if (t.name == name) return &t;
  return nullptr;
}

// Attribute names v0 … v7.
inline constexpr std::array<std::string_view, 8> kVertexAttributes{"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"};

}  // namespace meshioplusplus::dolfin::detail
