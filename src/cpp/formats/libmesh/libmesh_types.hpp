// libMesh element types (enum ElemType, include/enums/enum_elem_type.h) as our cell types,
// with the node-order and side-number conversions the reader and writer share.
//
// Node order: libMesh numbers the mid-edge nodes of HEX20/HEX27 and PRISM15/PRISM18 bottom
// ring, vertical edges, top ring (as Exodus); VTK's order puts the top ring before the
// vertical edges. HEX27's face centres are bottom, front (y-), right (x+), back (y+), left
// (x-), top; VTK's are x-, x+, y-, y+, z-, z+. Every other type is in VTK's order.
// ours[i] = file[order[i]]; the writer inverts it.
//
// Sides: libMesh's side_nodes_map (cell_hex8.C, cell_tet4.C, cell_prism6.C …) numbers
// sides differently from include/meshioplusplus/side_regions.hpp: HEX side 0 is the bottom,
// TET side 0 is (0,2,1), PRISM side 0 the bottom triangle. ours = side_map[libmesh side].
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::libmesh::detail {

inline constexpr std::string_view kFormat = "libmesh";

struct ElemType {
  int id;                 // libMesh ElemType value
  std::string_view name;  // our cell type
  int num_nodes;
  int dim;
  std::span<const std::int8_t> order;     // empty: VTK's order
  std::span<const std::int8_t> side_map;  // empty: libMesh's sides are ours
};

inline constexpr std::array<std::int8_t, 20> kHex20Order{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15};
inline constexpr std::array<std::int8_t, 27> kHex27Order{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 16, 17,
                                                         18, 19, 12, 13, 14, 15, 24, 22, 21, 23, 20, 25, 26};
inline constexpr std::array<std::int8_t, 15> kWedge15Order{0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11};
inline constexpr std::array<std::int8_t, 18> kWedge18Order{0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11, 15, 16, 17};
inline constexpr std::array<std::int8_t, 6> kHexSides{4, 0, 1, 2, 3, 5};
inline constexpr std::array<std::int8_t, 4> kTetSides{3, 0, 1, 2};
inline constexpr std::array<std::int8_t, 5> kWedgeSides{3, 0, 1, 2, 4};

inline constexpr std::array<ElemType, 25> kElemTypes{{
    {0, "line", 2, 1, {}, {}},
    {1, "line3", 3, 1, {}, {}},
    {2, "line4", 4, 1, {}, {}},
    {3, "triangle", 3, 2, {}, {}},
    {4, "triangle6", 6, 2, {}, {}},
    {5, "quad", 4, 2, {}, {}},
    {6, "quad8", 8, 2, {}, {}},
    {7, "quad9", 9, 2, {}, {}},
    {8, "tetra", 4, 3, {}, kTetSides},
    {9, "tetra10", 10, 3, {}, kTetSides},
    {10, "hexahedron", 8, 3, {}, kHexSides},
    {11, "hexahedron20", 20, 3, kHex20Order, kHexSides},
    {12, "hexahedron27", 27, 3, kHex27Order, kHexSides},
    {13, "wedge", 6, 3, {}, kWedgeSides},
    {14, "wedge15", 15, 3, kWedge15Order, kWedgeSides},
    {15, "wedge18", 18, 3, kWedge18Order, kWedgeSides},
    {16, "pyramid", 5, 3, {}, {}},
    {17, "pyramid13", 13, 3, {}, {}},
    {18, "pyramid14", 14, 3, {}, {}},
    {27, "vertex", 1, 0, {}, {}},
    {30, "triangle", 3, 2, {}, {}},   // TRISHELL3
    {31, "quad", 4, 2, {}, {}},       // QUADSHELL4
    {32, "quad8", 8, 2, {}, {}},      // QUADSHELL8
    {33, "triangle7", 7, 2, {}, {}},  // TRI7
    {38, "quad9", 9, 2, {}, {}},      // QUADSHELL9
}};

// The node counts of libMesh types we do not map (infinite elements, TRI3SUBDIVISION, TET14,
// PRISM20/21, PYRAMID18, QUADSHELL9), so an error can name them; 0 where unknown.
inline std::string_view unsupported_type_name(std::int64_t id) noexcept {
  switch (id) {
    case 19: return "INFEDGE2";
    case 20: return "INFQUAD4";
    case 21: return "INFQUAD6";
    case 22: return "INFHEX8";
    case 23: return "INFHEX16";
    case 24: return "INFHEX18";
    case 25: return "INFPRISM6";
    case 26: return "INFPRISM12";
    case 28: return "REMOTEELEM";
    case 29: return "TRI3SUBDIVISION";
    case 34: return "TET14";
    case 35: return "PRISM20";
    case 36: return "PRISM21";
    case 37: return "PYRAMID18";
    case 39: return "C0POLYGON";
    case 40: return "C0POLYHEDRON";
    default: return {};
  }
}

// How many sides (facets) a cell of `type` has.
inline int num_sides(const ElemType& type) noexcept {
  if (!type.side_map.empty()) return static_cast<int>(type.side_map.size());
  if (type.name.starts_with("pyramid")) return 5;
  if (type.name.starts_with("quad")) return 4;
  if (type.name.starts_with("triangle")) return 3;
  return type.dim == 1 ? 2 : 0;
}

// Element records name their type once each: a table indexed by the id, built once.
inline const ElemType* find_by_id(std::int64_t id) noexcept {
  static constexpr auto kById = [] {
    std::array<const ElemType*, 64> table{};
    for (const ElemType& type : kElemTypes) table[static_cast<std::size_t>(type.id)] = &type;
    return table;
  }();
  return id >= 0 && id < static_cast<std::int64_t>(kById.size()) ? kById[static_cast<std::size_t>(id)] : nullptr;
}

// The first (non-shell) libMesh type of our cell type, nullptr when libMesh has none.
inline const ElemType* find_by_name(std::string_view name) noexcept {
  for (const ElemType& type : kElemTypes)
    if (type.name == name) return &type;
  return nullptr;
}

}  // namespace meshioplusplus::libmesh::detail
