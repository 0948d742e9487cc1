// CGNS element types ↔ our cell types (only with the CGNS library in the build).
#pragma once

#include <cgnslib.h>

#include <array>
#include <cstddef>
#include <string_view>

namespace meshioplusplus::cgns {

// The longest node name CGNS stores (SIDS: 32 characters).
inline constexpr std::size_t kCgnsNameLength = 32;
// The Descriptor_t under a BC_t whose name is not its region's (made unique, or cut to 32
// characters, by the writer): its text is the region's name, which the reader uses instead.
inline constexpr const char* kRegionNameDescriptor = "RegionName";

struct CgnsType {
  ElementType_t type;
  std::string_view cell_type;
  int nodes;
};

// Types whose node order is ours, or converted (HEXA_20, PENTA_15: io/cells/node_orders.hpp).
// HEXA_27, PENTA_18 and PYRA_14 number their face and volume nodes differently from VTK and are
// left out rather than read in the wrong order.
inline constexpr std::array kCgnsTypes{
    CgnsType{NODE, "vertex", 1},          CgnsType{BAR_2, "line", 2},         CgnsType{BAR_3, "line3", 3},
    CgnsType{TRI_3, "triangle", 3},       CgnsType{TRI_6, "triangle6", 6},    CgnsType{QUAD_4, "quad", 4},
    CgnsType{QUAD_8, "quad8", 8},         CgnsType{QUAD_9, "quad9", 9},       CgnsType{TETRA_4, "tetra", 4},
    CgnsType{TETRA_10, "tetra10", 10},    CgnsType{PYRA_5, "pyramid", 5},     CgnsType{PYRA_13, "pyramid13", 13},
    CgnsType{PENTA_6, "wedge", 6},        CgnsType{PENTA_15, "wedge15", 15},  CgnsType{HEXA_8, "hexahedron", 8},
    CgnsType{HEXA_20, "hexahedron20", 20},
};

inline const CgnsType* cgns_type(ElementType_t type) {
  for (const CgnsType& entry : kCgnsTypes)
    if (entry.type == type) return &entry;
  return nullptr;
}

inline const CgnsType* cgns_type_for(std::string_view cell_type) {
  for (const CgnsType& entry : kCgnsTypes)
    if (entry.cell_type == cell_type) return &entry;
  return nullptr;
}

}  // namespace meshioplusplus::cgns
