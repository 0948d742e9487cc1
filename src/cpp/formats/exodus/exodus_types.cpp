#include "formats/exodus/exodus_types.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "io/cells/node_orders.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::exodus {

namespace {

std::string upper_family(std::string_view name) {
  // "HEX8" → "HEX", "tetra10" → "TETRA", " EDGE2 " → "EDGE": the family is the name without
  // its node count (and without the blanks Fortran writers pad names with).
  std::string family;
  for (char c : name) family += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  while (!family.empty() && family.back() == ' ') family.pop_back();
  while (!family.empty() && std::isdigit(static_cast<unsigned char>(family.back()))) family.pop_back();
  while (!family.empty() && family.back() == ' ') family.pop_back();
  const std::size_t first = family.find_first_not_of(' ');
  return first == std::string::npos ? std::string() : family.substr(first);
}

struct FamilyMember {
  std::int64_t nodes;
  std::string_view cell_type;
};

struct Family {
  std::array<std::string_view, 6> names;
  std::array<FamilyMember, 5> members;
};

// The names of the Exodus II element-type documentation (SEACAS exodus-element-types.md) and
// of VTK's vtkExodusIIReader (DetermineVtkCellType), plus the long spellings some writers use.
// Exodus writes the family and, usually, the node count ("HEX20"); the node count of the block
// decides the member, so "HEX" with 20 nodes is a hexahedron20 too and "TETRA" with 10 nodes a
// tetra10. meshio's exotic members (quad5, tetra8, tetra14, hexahedron9) keep meshio's names.
// Members we have no cell type for (TRI4, TETRA15, WEDGE16/20/21, …) are left out, so the
// reader refuses them by name rather than dropping nodes as VTK does.
constexpr std::array kFamilies{
    Family{{"SPHERE", "CIRCLE"}, {{{1, "vertex"}}}},
    // Bars: Exodus's BAR/BEAM/TRUSS, VTK's EDGE (MOOSE's EDGE2/EDGE3) and STRAIGHT, IOSS's
    // SPRING; ROD is older meshio++ usage.
    Family{{"BAR", "BEAM", "TRUSS", "EDGE", "SPRING", "ROD"}, {{{2, "line"}, {3, "line3"}}}},
    Family{{"STRAIGHT"}, {{{2, "line"}}}},
    Family{{"TRI", "TRIANGLE", "TRISHELL"}, {{{3, "triangle"}, {6, "triangle6"}, {7, "triangle7"}}}},
    Family{{"QUAD", "QUADRILATERAL"}, {{{4, "quad"}, {5, "quad5"}, {8, "quad8"}, {9, "quad9"}}}},
    // SHELL2 is the 2-D shell, a bar (Exodus: "same as BEAM"). SHELL3 is left out: a 3-node
    // bar to nem_slice, a triangle to VTK.
    Family{{"SHELL"}, {{{2, "line"}, {4, "quad"}, {8, "quad8"}, {9, "quad9"}}}},
    Family{{"TETRA", "TET", "TETRAHEDRON"}, {{{4, "tetra"}, {8, "tetra8"}, {10, "tetra10"}, {14, "tetra14"}}}},
    Family{{"PYRAMID", "PYRA"}, {{{5, "pyramid"}, {13, "pyramid13"}, {14, "pyramid14"}}}},
    Family{{"WEDGE", "PENTA"}, {{{6, "wedge"}, {15, "wedge15"}, {18, "wedge18"}}}},
    Family{{"HEX", "HEXAHEDRON"}, {{{8, "hexahedron"}, {9, "hexahedron9"}, {20, "hexahedron20"}, {27, "hexahedron27"}}}},
};

struct WrittenName {
  std::string_view cell_type, exodus_name;
};
// meshio's names for the types it writes, plus the higher-order members it lacks.
constexpr std::array kWrittenNames{
    WrittenName{"vertex", "SPHERE"},       WrittenName{"line", "BAR2"},          WrittenName{"line3", "BEAM3"},
    WrittenName{"triangle", "TRI3"},       WrittenName{"triangle6", "TRI6"},     WrittenName{"triangle7", "TRI7"},
    WrittenName{"quad", "QUAD4"},          WrittenName{"quad5", "QUAD5"},        WrittenName{"quad8", "QUAD8"},
    WrittenName{"quad9", "QUAD9"},         WrittenName{"tetra", "TETRA"},        WrittenName{"tetra8", "TETRA8"},
    WrittenName{"tetra10", "TETRA10"},     WrittenName{"tetra14", "TETRA14"},    WrittenName{"pyramid", "PYRAMID"},
    WrittenName{"pyramid13", "PYRAMID13"}, WrittenName{"pyramid14", "PYRAMID14"}, WrittenName{"wedge", "WEDGE"},
    WrittenName{"wedge15", "WEDGE15"},     WrittenName{"wedge18", "WEDGE18"},    WrittenName{"hexahedron", "HEX8"},
    WrittenName{"hexahedron9", "HEX9"},    WrittenName{"hexahedron20", "HEX20"}, WrittenName{"hexahedron27", "HEX27"},
    WrittenName{"polygon", "NSIDED"},      WrittenName{"polyhedron", "NFACED"},
};

}  // namespace

std::string_view cell_type_for(std::string_view exodus_name, std::int64_t nodes) {
  const std::string family = upper_family(exodus_name);
  // Ragged blocks: the entity counts (ebepecnt), not a node count, size each element.
  if (family == "NSIDED") return "polygon";
  if (family == "NFACED") return "polyhedron";
  if (family.empty()) return {};  // not one of the families' unused (empty) name slots
  for (const Family& candidate : kFamilies) {
    if (std::find(candidate.names.begin(), candidate.names.end(), family) == candidate.names.end()) continue;
    for (const FamilyMember& member : candidate.members)
      if (member.nodes == nodes && !member.cell_type.empty()) return member.cell_type;
    return {};
  }
  return {};
}

std::string_view exodus_name_for(std::string_view cell_type) {
  for (const WrittenName& entry : kWrittenNames)
    if (entry.cell_type == cell_type) return entry.exodus_name;
  return {};
}

bool is_shell_name(std::string_view exodus_name) {
  const std::string family = upper_family(exodus_name);
  return family == "SHELL" || family == "TRISHELL";
}

std::span<const std::int8_t> node_permutation(std::string_view cell_type) {
  return io::vertical_edges_before_top_order(cell_type);
}

SideRule side_rule(std::string_view cell_type, std::string_view exodus_name, int mesh_dimension) {
  const CellTypeInfo* info = find_cell_type(cell_type);
  const int dimension = info ? info->dimension : (cell_type.starts_with("quad") || cell_type.starts_with("triangle") ? 2 : 3);
  if (cell_type == "polygon" || cell_type == "polyhedron" || cell_type == "vertex" || dimension < 2)
    return SideRule::none;
  if (dimension == 2 && (mesh_dimension >= 3 || is_shell_name(exodus_name))) return SideRule::shell;
  return SideRule::facet;
}

}  // namespace meshioplusplus::exodus
