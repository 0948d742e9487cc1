// Nastran element cards -> our cells, shared by the readers of Nastran's binary outputs (OP2's
// GEOM2 records, MSC Nastran's HDF5 /NASTRAN/INPUT/ELEMENT tables): which cell each card
// becomes, how many grid ids it names, whether it names a property, and the linear cell a
// second-order card becomes when its midside grids are left blank. Node orders are the bulk
// data reader's (io/cells/node_orders.hpp: vertical_edges_before_top_order for CHEXA20 and
// CPENTA15). Spring, damper and mass cards (CELAS*, CDAMP*, CONM*) and rigid elements are not
// here: they become no cells.
#pragma once

#include <array>
#include <string_view>

namespace meshioplusplus::io {

struct NastranCellShape {
  int nodes = 0;  // grid ids the cell takes (0: no such shape)
  std::string_view cell;
};

struct NastranElementType {
  std::string_view card;  // "CTRIA3"
  bool has_property;      // the card's second field is a property id (CONROD names a material)
  // The full shape first; the second: the linear cell when midside grids are blank.
  std::array<NastranCellShape, 2> shapes;
};

inline constexpr NastranElementType kNastranElementTypes[] = {
    {"CTRIA3", true, {{{3, "triangle"}, {0, ""}}}},
    {"CTRIAR", true, {{{3, "triangle"}, {0, ""}}}},
    {"CTRIA6", true, {{{6, "triangle6"}, {3, "triangle"}}}},
    {"CQUAD4", true, {{{4, "quad"}, {0, ""}}}},
    {"CQUADR", true, {{{4, "quad"}, {0, ""}}}},
    {"CQUAD8", true, {{{8, "quad8"}, {4, "quad"}}}},
    {"CTETRA", true, {{{10, "tetra10"}, {4, "tetra"}}}},
    {"CPYRAM", true, {{{13, "pyramid13"}, {5, "pyramid"}}}},
    {"CPENTA", true, {{{15, "wedge15"}, {6, "wedge"}}}},
    {"CHEXA", true, {{{20, "hexahedron20"}, {8, "hexahedron"}}}},
    {"CBAR", true, {{{2, "line"}, {0, ""}}}},
    {"CBEAM", true, {{{2, "line"}, {0, ""}}}},
    {"CROD", true, {{{2, "line"}, {0, ""}}}},
    {"CTUBE", true, {{{2, "line"}, {0, ""}}}},
    {"CONROD", false, {{{2, "line"}, {0, ""}}}},
};

// The row of `card` (upper case, as Nastran spells it), nullptr when it becomes no cell.
constexpr const NastranElementType* nastran_element_type(std::string_view card) noexcept {
  for (const NastranElementType& type : kNastranElementTypes)
    if (type.card == card) return &type;
  return nullptr;
}

// The shape a card's grid ids make: the linear one when any midside id (past the linear
// shape's count) is 0, else the full one.
template <class IdAt>
constexpr const NastranCellShape& nastran_cell_shape(const NastranElementType& type, IdAt&& id_at) {
  if (type.shapes[1].nodes != 0)
    for (int k = type.shapes[1].nodes; k < type.shapes[0].nodes; ++k)
      if (id_at(k) == 0) return type.shapes[1];
  return type.shapes[0];
}

}  // namespace meshioplusplus::io
