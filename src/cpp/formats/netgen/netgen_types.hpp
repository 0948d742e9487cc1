// Netgen element node counts <-> cell types and node orders, shared by reader and writer.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::netgen::detail {

struct ElementKind {
  std::string_view type;
  int dimension;
  int num_nodes;
  // meshio_node[k] = netgen_node[to_meshio[k]] (meshio's netgen_to_meshio_pmap).
  std::span<const int> to_meshio;
};

inline constexpr int kVertex[] = {0};
inline constexpr int kLine[] = {0, 1};
inline constexpr int kTriangle[] = {0, 1, 2};
inline constexpr int kTriangle6[] = {0, 1, 2, 5, 3, 4};
inline constexpr int kQuad[] = {0, 1, 2, 3};
inline constexpr int kQuad8[] = {0, 1, 2, 3, 4, 7, 5, 6};
inline constexpr int kTetra[] = {0, 2, 1, 3};
inline constexpr int kTetra10[] = {0, 2, 1, 3, 5, 7, 4, 6, 9, 8};
inline constexpr int kPyramid[] = {0, 3, 2, 1, 4};
inline constexpr int kPyramid13[] = {0, 3, 2, 1, 4, 7, 6, 8, 5, 9, 12, 11, 10};
inline constexpr int kWedge[] = {0, 2, 1, 3, 5, 4};
inline constexpr int kWedge15[] = {0, 2, 1, 3, 5, 4, 7, 8, 6, 13, 14, 12, 9, 11, 10};
inline constexpr int kHexahedron[] = {0, 3, 2, 1, 4, 7, 6, 5};
inline constexpr int kHexahedron20[] = {0, 3, 2, 1, 4, 7, 6, 5, 10, 9, 11, 8, 16, 19, 18, 17, 14, 13, 15, 12};

inline constexpr ElementKind kKinds[] = {
    {"vertex", 0, 1, kVertex},         {"line", 1, 2, kLine},
    {"triangle", 2, 3, kTriangle},     {"triangle6", 2, 6, kTriangle6},
    {"quad", 2, 4, kQuad},             {"quad8", 2, 8, kQuad8},
    {"tetra", 3, 4, kTetra},           {"tetra10", 3, 10, kTetra10},
    {"pyramid", 3, 5, kPyramid},       {"pyramid13", 3, 13, kPyramid13},
    {"wedge", 3, 6, kWedge},           {"wedge15", 3, 15, kWedge15},
    {"hexahedron", 3, 8, kHexahedron}, {"hexahedron20", 3, 20, kHexahedron20},
};

inline const ElementKind* kind_of(int dimension, std::int64_t num_nodes) noexcept {
  for (const ElementKind& kind : kKinds)
    if (kind.dimension == dimension && kind.num_nodes == num_nodes) return &kind;
  return nullptr;
}

inline const ElementKind* kind_of(std::string_view type) noexcept {
  for (const ElementKind& kind : kKinds)
    if (kind.type == type) return &kind;
  return nullptr;
}

}  // namespace meshioplusplus::netgen::detail
