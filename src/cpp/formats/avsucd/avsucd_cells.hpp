// AVS-UCD cell names and node orders, shared by the reader and the writer of this folder.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace meshioplusplus::avsucd::detail {

struct UcdCellType {
  std::string_view ucd_name;
  std::string_view name;  // meshio's
  int num_nodes;
  // AVS numbers the nodes of 3-D cells from the top face down (and a pyramid from its apex),
  // meshio from the bottom up: avs[k] = meshio[to_ucd[k]], meshio[k] = avs[from_ucd[k]].
  std::array<int, 8> to_ucd;
  std::array<int, 8> from_ucd;
};

inline constexpr std::array<UcdCellType, 8> kCellTypes{{
    {"pt", "vertex", 1, {0}, {0}},
    {"line", "line", 2, {0, 1}, {0, 1}},
    {"tri", "triangle", 3, {0, 1, 2}, {0, 1, 2}},
    {"quad", "quad", 4, {0, 1, 2, 3}, {0, 1, 2, 3}},
    {"tet", "tetra", 4, {0, 1, 3, 2}, {0, 1, 3, 2}},
    {"pyr", "pyramid", 5, {4, 0, 1, 2, 3}, {1, 2, 3, 4, 0}},
    {"prism", "wedge", 6, {3, 4, 5, 0, 1, 2}, {3, 4, 5, 0, 1, 2}},
    {"hex", "hexahedron", 8, {4, 5, 6, 7, 0, 1, 2, 3}, {4, 5, 6, 7, 0, 1, 2, 3}},
}};

// Index into kCellTypes; -1 when unknown.
inline int find_by_ucd_name(std::string_view ucd_name) noexcept {
  for (std::size_t i = 0; i < kCellTypes.size(); ++i)
    if (kCellTypes[i].ucd_name == ucd_name) return static_cast<int>(i);
  return -1;
}
inline int find_by_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kCellTypes.size(); ++i)
    if (kCellTypes[i].name == name) return static_cast<int>(i);
  return -1;
}

inline constexpr std::string_view kMaterial = "avsucd:material";

}  // namespace meshioplusplus::avsucd::detail
