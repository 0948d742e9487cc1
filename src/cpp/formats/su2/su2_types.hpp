// The element types SU2 knows: VTK ids, node counts, our names. Private to the SU2 reader
// and writer.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace meshioplusplus::su2::detail {

struct ElementType {
  int vtk_id;
  int nodes;
  std::string_view name;
};

// Ascending VTK id: the reader orders its volume blocks this way (as meshio does).
inline constexpr std::array<ElementType, 7> kElementTypes{{
    {3, 2, "line"},
    {5, 3, "triangle"},
    {9, 4, "quad"},
    {10, 4, "tetra"},
    {12, 8, "hexahedron"},
    {13, 6, "wedge"},
    {14, 5, "pyramid"},
}};

// Index into kElementTypes, or -1.
inline int type_index_of_vtk(std::int64_t vtk_id) noexcept {
  for (std::size_t i = 0; i < kElementTypes.size(); ++i)
    if (kElementTypes[i].vtk_id == vtk_id) return static_cast<int>(i);
  return -1;
}

inline int type_index_of_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kElementTypes.size(); ++i)
    if (kElementTypes[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace meshioplusplus::su2::detail
