#include "formats/exodus/exodus_types.hpp"

#include <array>
#include <cctype>

#include "io/node_orders.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::exodus {

namespace {

std::string upper_family(std::string_view name) {
  // "HEX8" → "HEX", "tetra10" → "TETRA": the family is the name without its node count.
  std::string family;
  for (char c : name) family += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  while (!family.empty() && std::isdigit(static_cast<unsigned char>(family.back()))) family.pop_back();
  while (!family.empty() && family.back() == ' ') family.pop_back();
  return family;
}

struct FamilyMember {
  std::int64_t nodes;
  std::string_view cell_type;
};

struct Family {
  std::array<std::string_view, 4> names;
  std::array<FamilyMember, 4> members;
};

// Exodus writes the family and, usually, the node count ("HEX20"); the node count of the block
// decides the member, so "HEX" with 20 nodes is a hexahedron20 too. meshio's exotic members
// (quad5, tetra8, tetra14, hexahedron9) keep meshio's names.
constexpr std::array kFamilies{
    Family{{"SPHERE", "CIRCLE", "", ""}, {{{1, "vertex"}}}},
    Family{{"BAR", "BEAM", "TRUSS", "ROD"}, {{{2, "line"}, {3, "line3"}}}},
    Family{{"TRI", "TRIANGLE", "TRISHELL", ""}, {{{3, "triangle"}, {6, "triangle6"}, {7, "triangle7"}}}},
    Family{{"QUAD", "SHELL", "QUADRILATERAL", ""}, {{{4, "quad"}, {5, "quad5"}, {8, "quad8"}, {9, "quad9"}}}},
    Family{{"TETRA", "TET", "TETRAHEDRON", ""}, {{{4, "tetra"}, {8, "tetra8"}, {10, "tetra10"}, {14, "tetra14"}}}},
    Family{{"PYRAMID", "PYRA", "", ""}, {{{5, "pyramid"}, {13, "pyramid13"}, {14, "pyramid14"}}}},
    Family{{"WEDGE", "PENTA", "", ""}, {{{6, "wedge"}, {15, "wedge15"}, {18, "wedge18"}}}},
    Family{{"HEX", "HEXAHEDRON", "", ""}, {{{8, "hexahedron"}, {9, "hexahedron9"}, {20, "hexahedron20"}, {27, "hexahedron27"}}}},
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
    WrittenName{"polygon", "NSIDED"},
};

}  // namespace

std::string_view cell_type_for(std::string_view exodus_name, std::int64_t nodes) {
  const std::string family = upper_family(exodus_name);
  if (family == "NSIDED") return "polygon";
  for (const Family& candidate : kFamilies) {
    bool named = false;
    for (std::string_view name : candidate.names) named = named || (!name.empty() && name == family);
    if (!named) continue;
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
  if (cell_type == "polygon" || cell_type == "vertex" || dimension < 2) return SideRule::none;
  if (dimension == 2 && (mesh_dimension >= 3 || is_shell_name(exodus_name))) return SideRule::shell;
  return SideRule::facet;
}

}  // namespace meshioplusplus::exodus
