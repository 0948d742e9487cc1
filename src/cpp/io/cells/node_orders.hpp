// Floor 2: node orders of higher-order cells that differ between file formats and ours (VTK's).
//
// Exodus II and CGNS number the mid-edge nodes of a quadratic hexahedron and wedge bottom
// edges, then the vertical edges, then the top edges; VTK (and so meshio and we) put the top
// edges before the vertical ones. Each table swaps the two runs, so it maps both ways:
// ours[i] = file[order[i]] and file[i] = ours[order[i]].
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::io {

inline std::span<const std::int8_t> vertical_edges_before_top_order(std::string_view cell_type) noexcept {
  static constexpr std::array<std::int8_t, 20> kHex20{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                                      10, 11, 16, 17, 18, 19, 12, 13, 14, 15};
  static constexpr std::array<std::int8_t, 15> kWedge15{0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11};
  if (cell_type == "hexahedron20") return kHex20;
  if (cell_type == "wedge15") return kWedge15;
  return {};
}

}  // namespace meshioplusplus::io
