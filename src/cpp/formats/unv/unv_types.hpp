// I-deas FE descriptor ids <-> cell types and the node orders that differ from ours (VTK's),
// shared by the reader and the writer.
//
// The descriptor table is I-deas' (the 2412 dataset's "FE descriptor id"), as Gmsh
// (GModelIO_UNV.cpp) and Salome (UNV2412_Structure, DriverUNV_R_SMDS_Mesh) read it: a
// family of physical element kinds (plane stress, plane strain, plate, membrane,
// axisymmetric solid, thin shell …) per geometry. The geometry decides the cell type; the
// node count tells linear from quadratic where one id serves both (beams, Salome's 9-node
// quadrilaterals).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace meshioplusplus::unv::detail {

// Beam elements carry an extra record (orientation node, fore/aft cross sections) between
// the element's first record and its node labels: rod, linear/tapered/curved/parabolic beam,
// straight/curved pipe (Gmsh) and 25 (Salome).
inline bool is_beam(std::int64_t descriptor) noexcept {
  switch (descriptor) {
    case 11: case 21: case 22: case 23: case 24: case 25: case 31: case 32:
      return true;
    default:
      return false;
  }
}

// The cell type of a descriptor with `nodes` nodes; empty when the pair is not a geometry we
// read (springs, dampers, gaps, rigid elements, cubic elements, …).
inline std::string_view cell_type_of(std::int64_t descriptor, std::int64_t nodes) noexcept {
  if (is_beam(descriptor)) return nodes == 2 ? "line" : nodes == 3 ? "line3" : "";
  switch (descriptor) {
    case 41: case 51: case 61: case 74: case 81: case 91:  // linear triangles
      return nodes == 3 ? "triangle" : "";
    case 42: case 52: case 62: case 72: case 82: case 92:  // parabolic triangles
      return nodes == 6 ? "triangle6" : "";
    case 44: case 54: case 64: case 71: case 84: case 94:  // linear quadrilaterals
      return nodes == 4 ? "quad" : "";
    case 45: case 55: case 65: case 75: case 85: case 95:  // parabolic quadrilaterals
      return nodes == 8 ? "quad8" : nodes == 9 ? "quad9" : "";
    case 111: return nodes == 4 ? "tetra" : "";            // solid linear tetrahedron
    case 118: return nodes == 10 ? "tetra10" : "";         // solid parabolic tetrahedron
    case 101: case 112: return nodes == 6 ? "wedge" : "";  // thick shell / solid linear wedge
    case 102: case 113: return nodes == 15 ? "wedge15" : "";
    case 104: case 115: return nodes == 8 ? "hexahedron" : "";  // thick shell / solid linear brick
    case 105: case 116: return nodes == 20 ? "hexahedron20" : "";
    case 161: return nodes == 1 ? "vertex" : "";  // lumped mass
    default: return "";
  }
}

// The descriptor the writer uses per type: thin shells for surfaces, solids for volumes,
// linear/parabolic beams for lines (what Gmsh writes).
inline std::int64_t descriptor_of(std::string_view type) noexcept {
  static constexpr struct {
    std::string_view type;
    std::int64_t descriptor;
  } kWrite[] = {
      {"vertex", 161},   {"line", 21},       {"line3", 24},        {"triangle", 91},  {"triangle6", 92},
      {"quad", 94},      {"quad8", 95},      {"quad9", 95},        {"tetra", 111},    {"tetra10", 118},
      {"wedge", 112},    {"wedge15", 113},   {"hexahedron", 115},  {"hexahedron20", 116},
  };
  for (const auto& entry : kWrite)
    if (entry.type == type) return entry.descriptor;
  return 0;
}

// ours[order[k]] = file[k] on read, file[k] = ours[order[k]] on write; empty where the orders
// agree. I-deas lists the mid-side nodes of parabolic elements between the corners they join
// ("c0 m01 c1 m12 c2 …"); the solids list the bottom ring, then the vertical mid-edges, then
// the top ring (Gmsh's and Salome's readers undo the same orders).
inline std::span<const std::int8_t> node_order(std::string_view type) noexcept {
  static constexpr std::int8_t kLine3[] = {0, 2, 1};
  static constexpr std::int8_t kTriangle6[] = {0, 3, 1, 4, 2, 5};
  static constexpr std::int8_t kQuad8[] = {0, 4, 1, 5, 2, 6, 3, 7};
  static constexpr std::int8_t kQuad9[] = {0, 4, 1, 5, 2, 6, 3, 7, 8};
  static constexpr std::int8_t kTetra10[] = {0, 4, 1, 5, 2, 6, 7, 8, 9, 3};
  static constexpr std::int8_t kWedge15[] = {0, 6, 1, 7, 2, 8, 12, 13, 14, 3, 9, 4, 10, 5, 11};
  static constexpr std::int8_t kHexahedron20[] = {0, 8, 1, 9, 2, 10, 3, 11, 16, 17,
                                                  18, 19, 4, 12, 5, 13, 6, 14, 7, 15};
  if (type == "line3") return kLine3;
  if (type == "triangle6") return kTriangle6;
  if (type == "quad8") return kQuad8;
  if (type == "quad9") return kQuad9;
  if (type == "tetra10") return kTetra10;
  if (type == "wedge15") return kWedge15;
  if (type == "hexahedron20") return kHexahedron20;
  return {};
}

// Permanent-group datasets whose entity records are (type, tag, leaf, component) quadruples,
// two per line: 2467 (I-deas 10+), 2477 (Gmsh's), and the older 2452 / 2435.
inline bool is_group_dataset(std::int64_t number) noexcept {
  return number == 2467 || number == 2477 || number == 2452 || number == 2435;
}

inline constexpr std::int64_t kNodeEntity = 7;
inline constexpr std::int64_t kElementEntity = 8;

}  // namespace meshioplusplus::unv::detail
