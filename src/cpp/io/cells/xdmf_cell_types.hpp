// Floor 2: XDMF topology names and Mixed-topology ids ↔ our cell type names (XDMF's own table,
// XdmfTopologyType.cpp; the alternative spellings files use are accepted on read).
// Shared by the XDMF folder and HMF, which names its topologies the XDMF way.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace meshioplusplus::io {

struct TopologyName {
  std::string_view xdmf;  // first of a type's spellings is the one written
  std::string_view ours;
};

inline constexpr std::array kTopologyNames{
    TopologyName{"Polyvertex", "vertex"},       TopologyName{"Polyline", "line"},
    TopologyName{"Edge_3", "line3"},            TopologyName{"Triangle", "triangle"},
    TopologyName{"Triangle_6", "triangle6"},    TopologyName{"Tri_6", "triangle6"},
    TopologyName{"Quadrilateral", "quad"},      TopologyName{"Quadrilateral_8", "quad8"},
    TopologyName{"Quad_8", "quad8"},            TopologyName{"Quadrilateral_9", "quad9"},
    TopologyName{"Quad_9", "quad9"},            TopologyName{"Tetrahedron", "tetra"},
    TopologyName{"Tetrahedron_10", "tetra10"},  TopologyName{"Tet_10", "tetra10"},
    TopologyName{"Pyramid", "pyramid"},         TopologyName{"Pyramid_13", "pyramid13"},
    TopologyName{"Wedge", "wedge"},             TopologyName{"Wedge_15", "wedge15"},
    TopologyName{"Wedge_18", "wedge18"},        TopologyName{"Hexahedron", "hexahedron"},
    TopologyName{"Hexahedron_20", "hexahedron20"}, TopologyName{"Hex_20", "hexahedron20"},
    TopologyName{"Hexahedron_24", "hexahedron24"}, TopologyName{"Hex_24", "hexahedron24"},
    TopologyName{"Hexahedron_27", "hexahedron27"}, TopologyName{"Hex_27", "hexahedron27"},
    TopologyName{"Hexahedron_64", "hexahedron64"}, TopologyName{"Hex_64", "hexahedron64"},
    TopologyName{"Hexahedron_125", "hexahedron125"}, TopologyName{"Hex_125", "hexahedron125"},
    TopologyName{"Hexahedron_216", "hexahedron216"}, TopologyName{"Hex_216", "hexahedron216"},
    TopologyName{"Hexahedron_343", "hexahedron343"}, TopologyName{"Hex_343", "hexahedron343"},
    TopologyName{"Hexahedron_512", "hexahedron512"}, TopologyName{"Hex_512", "hexahedron512"},
    TopologyName{"Hexahedron_729", "hexahedron729"}, TopologyName{"Hex_729", "hexahedron729"},
    TopologyName{"Hexahedron_1000", "hexahedron1000"}, TopologyName{"Hex_1000", "hexahedron1000"},
    TopologyName{"Hexahedron_1331", "hexahedron1331"}, TopologyName{"Hex_1331", "hexahedron1331"},
};

// Ids in a Mixed topology's stream. Polyvertex, Polyline and Polygon are followed by their
// node count; the others have a fixed one (`nodes`).
struct MixedId {
  int id;
  std::string_view ours;
  int nodes;  // 0: a node count follows the id
};

inline constexpr std::array kMixedIds{
    MixedId{0x1, "vertex", 0},         MixedId{0x2, "line", 0},           MixedId{0x3, "polygon", 0},
    MixedId{0x4, "triangle", 3},       MixedId{0x5, "quad", 4},           MixedId{0x6, "tetra", 4},
    MixedId{0x7, "pyramid", 5},        MixedId{0x8, "wedge", 6},          MixedId{0x9, "hexahedron", 8},
    MixedId{0x22, "line3", 3},         MixedId{0x23, "quad9", 9},         MixedId{0x24, "triangle6", 6},
    MixedId{0x25, "quad8", 8},         MixedId{0x26, "tetra10", 10},      MixedId{0x27, "pyramid13", 13},
    MixedId{0x28, "wedge15", 15},      MixedId{0x29, "wedge18", 18},      MixedId{0x30, "hexahedron20", 20},
    MixedId{0x31, "hexahedron24", 24}, MixedId{0x32, "hexahedron27", 27}, MixedId{0x33, "hexahedron64", 64},
    MixedId{0x34, "hexahedron125", 125}, MixedId{0x35, "hexahedron216", 216}, MixedId{0x36, "hexahedron343", 343},
    MixedId{0x37, "hexahedron512", 512}, MixedId{0x38, "hexahedron729", 729}, MixedId{0x39, "hexahedron1000", 1000},
    MixedId{0x40, "hexahedron1331", 1331},
};

// Case-insensitive: writers differ (DOLFINx writes "PolyLine", meshio "Polyline").
inline const TopologyName* topology_from_xdmf(std::string_view name) noexcept {
  const auto same = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
    return true;
  };
  for (const TopologyName& entry : kTopologyNames)
    if (same(entry.xdmf, name)) return &entry;
  return nullptr;
}
inline const TopologyName* topology_from_ours(std::string_view name) noexcept {
  for (const TopologyName& entry : kTopologyNames)
    if (entry.ours == name) return &entry;
  return nullptr;
}
inline const MixedId* mixed_from_id(std::int64_t id) noexcept {
  for (const MixedId& entry : kMixedIds)
    if (entry.id == id) return &entry;
  return nullptr;
}
inline const MixedId* mixed_from_ours(std::string_view name) noexcept {
  for (const MixedId& entry : kMixedIds)
    if (entry.ours == name) return &entry;
  return nullptr;
}

}  // namespace meshioplusplus::io
