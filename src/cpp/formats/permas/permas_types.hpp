// PERMAS element classes <-> cell types, shared by the reader and the writer.
#pragma once

#include <span>
#include <string_view>

namespace meshioplusplus::permas::detail {

// The class names meshio 5.3.5 knows and the geometry each one has.
struct ElementClass {
  std::string_view permas;
  std::string_view type;
};

inline constexpr ElementClass kClasses[] = {
    {"PLOT1", "vertex"},      {"PLOTL2", "line"},      {"FLA2", "line"},          {"FLA3", "line3"},
    {"PLOTL3", "line3"},      {"BECOS", "line"},       {"BECOC", "line"},         {"BETAC", "line"},
    {"BECOP", "line"},        {"BETOP", "line"},       {"BEAM2", "line"},         {"FSCPIPE2", "line"},
    {"LOADA4", "quad"},       {"PLOTA4", "quad"},      {"QUAD4", "quad"},         {"QUAD4S", "quad"},
    {"QUAMS4", "quad"},       {"SHELL4", "quad"},      {"PLOTA8", "quad8"},       {"LOADA8", "quad8"},
    {"QUAMS8", "quad8"},      {"PLOTA9", "quad9"},     {"LOADA9", "quad9"},       {"QUAMS9", "quad9"},
    {"PLOTA3", "triangle"},   {"SHELL3", "triangle"},  {"TRIA3", "triangle"},     {"TRIA3K", "triangle"},
    {"TRIA3S", "triangle"},   {"TRIMS3", "triangle"},  {"LOADA6", "triangle6"},   {"TRIMS6", "triangle6"},
    {"HEXE8", "hexahedron"},  {"HEXFO8", "hexahedron"}, {"HEXE20", "hexahedron20"}, {"HEXE27", "hexahedron27"},
    {"TET4", "tetra"},        {"TET10", "tetra10"},    {"PYRA5", "pyramid"},      {"PENTA6", "wedge"},
    {"PENTA15", "wedge15"},
};

// The class the writer uses per type: the plain structural or plot element (meshio's
// inverted table happens to pick FSCPIPE2, SHELL4, TRIMS3, HEXFO8 — solver-specific classes).
inline constexpr ElementClass kWriteClasses[] = {
    {"PLOT1", "vertex"},     {"PLOTL2", "line"},     {"PLOTL3", "line3"},          {"TRIA3", "triangle"},
    {"TRIMS6", "triangle6"}, {"QUAD4", "quad"},      {"QUAMS8", "quad8"},          {"QUAMS9", "quad9"},
    {"TET4", "tetra"},       {"TET10", "tetra10"},   {"PYRA5", "pyramid"},         {"PENTA6", "wedge"},
    {"PENTA15", "wedge15"},  {"HEXE8", "hexahedron"}, {"HEXE20", "hexahedron20"}, {"HEXE27", "hexahedron27"},
};

// file_node[k] = meshio_node[order[k]] for the types whose PERMAS order walks the edges
// (meshio's writer orders); empty for types written as they are.
inline std::span<const int> permas_order(std::string_view type) noexcept {
  static constexpr int kTriangle6[] = {0, 3, 1, 4, 2, 5};
  static constexpr int kTetra10[] = {0, 4, 1, 5, 2, 6, 7, 8, 9, 3};
  static constexpr int kQuad9[] = {0, 4, 1, 7, 8, 5, 3, 6, 2};
  static constexpr int kWedge15[] = {0, 6, 1, 7, 2, 8, 9, 10, 11, 3, 12, 4, 13, 5, 14};
  if (type == "triangle6") return kTriangle6;
  if (type == "tetra10") return kTetra10;
  if (type == "quad9") return kQuad9;
  if (type == "wedge15") return kWedge15;
  return {};
}

}  // namespace meshioplusplus::permas::detail
