// FLAC3D cell kinds shared by the reader and the writer: which meshio types are zones
// (volume) and which are faces, and how FLAC3D numbers their corners.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace meshioplusplus::flac3d::detail {

struct Kind {
  std::string_view type;      // meshio's name
  std::string_view keyword;   // FLAC3D's record type
  int nodes;
  bool zone;                  // zones (Z) are volumes, faces (F) surfaces
  // Our corner k is FLAC3D's corner to_ours[k] (meshio's flac3d_to_meshio_order).
  std::array<int, 8> to_ours;
  // Written corner k is our corner to_flac[k] when the first four corners make a
  // right-handed frame, else alt_to_flac[k] (FLAC3D demands the right-handed one; the
  // alternative is the mirrored numbering of the same cell, as meshio writes it).
  std::array<int, 8> to_flac;
  std::array<int, 8> alt_to_flac;
};

// Faces first: FLAC3D files (and meshio) put face blocks before zone blocks.
inline constexpr std::array<Kind, 6> kKinds{{
    {"triangle", "T3", 3, false, {0, 1, 2}, {0, 1, 2}, {0, 1, 2}},
    {"quad", "Q4", 4, false, {0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3}},
    {"tetra", "T4", 4, true, {0, 1, 2, 3}, {0, 1, 2, 3}, {0, 2, 1, 3}},
    {"pyramid", "P5", 5, true, {0, 1, 4, 2, 3}, {0, 1, 3, 4, 2}, {0, 3, 1, 4, 2}},
    {"wedge", "W6", 6, true, {0, 1, 3, 2, 4, 5}, {0, 1, 3, 2, 4, 5}, {0, 2, 3, 1, 5, 4}},
    {"hexahedron", "B8", 8, true, {0, 1, 4, 2, 3, 6, 7, 5}, {0, 1, 3, 4, 2, 7, 5, 6}, {0, 3, 1, 4, 2, 5, 7, 6}},
}};

inline constexpr std::size_t kNoKind = kKinds.size();

// The kind of a record with `nodes` corners (a 7-corner degenerate brick counts as a brick).
inline std::size_t kind_of(bool zone, std::int64_t nodes) noexcept {
  if (zone && nodes == 7) nodes = 8;
  for (std::size_t k = 0; k < kKinds.size(); ++k)
    if (kKinds[k].zone == zone && kKinds[k].nodes == nodes) return k;
  return kNoKind;
}

// The binary file's leading two words, as meshio writes them (their meaning is undocumented).
inline constexpr std::uint32_t kBinaryMagic = 1375135718u;
inline constexpr std::uint32_t kBinaryVersion = 3u;

}  // namespace meshioplusplus::flac3d::detail
