// What the Femap reader and writer share: the element topologies and their node slots.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace meshioplusplus::femap::detail {

inline constexpr std::string_view kFormat = "femap";

// A neutral-file element lists its nodes in 20 slots laid out as a brick: corners 0-7, then
// the mid-edge nodes of the bottom edges (8-11), the vertical edges (12-15) and the top edges
// (16-19); lower shapes use it degenerate (a tetra's apex in slot 4). `slots[i]` is the slot
// of VTK's node i.
struct Topology {
  int code;                 // the neutral file's topology number
  std::string_view type;    // our cell type
  int nodes;
  int default_type;         // the element type written when the mesh has no "femap:type"
  std::array<std::int8_t, 20> slots;
};

inline constexpr std::array<Topology, 14> kTopologies{{
    {0, "line", 2, 1, {0, 1}},
    {1, "line3", 3, 1, {0, 1, 2}},
    {2, "triangle", 3, 17, {0, 1, 2}},
    {3, "triangle6", 6, 18, {0, 1, 2, 4, 5, 6}},
    {4, "quad", 4, 17, {0, 1, 2, 3}},
    {5, "quad8", 8, 18, {0, 1, 2, 3, 4, 5, 6, 7}},
    {6, "tetra", 4, 25, {0, 1, 2, 4}},
    {7, "wedge", 6, 25, {0, 1, 2, 4, 5, 6}},
    {8, "hexahedron", 8, 25, {0, 1, 2, 3, 4, 5, 6, 7}},
    {9, "vertex", 1, 27, {0}},
    {10, "tetra10", 10, 26, {0, 1, 2, 4, 8, 9, 10, 12, 13, 14}},
    {11, "wedge15", 15, 26, {0, 1, 2, 4, 5, 6, 8, 9, 10, 16, 17, 18, 12, 13, 14}},
    {12, "hexahedron20", 20, 26, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15}},
    {14, "pyramid", 5, 25, {0, 1, 2, 3, 4}},
}};

inline const Topology* topology_of_code(std::int64_t code) noexcept {
  for (const Topology& topology : kTopologies)
    if (topology.code == code) return &topology;
  return nullptr;
}

inline const Topology* topology_of_type(std::string_view type) noexcept {
  for (const Topology& topology : kTopologies)
    if (topology.type == type) return &topology;
  return nullptr;
}

}  // namespace meshioplusplus::femap::detail
