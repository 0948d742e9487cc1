#include "formats/abaqus/abaqus_element_types.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace meshioplusplus::abaqus::detail {
namespace {

// 3-node beams and trusses number the middle node second; meshio's line3 puts it last.
// The permutation is its own inverse.
constexpr std::array<int, 3> kMiddleNodeSecond{0, 2, 1};

// Continuum, shell, membrane, surface, rigid, beam and truss elements with a meshio type;
// the hybrid (H), reduced (R), incompatible-mode (I), modified (M), pore-pressure (P) and
// heat-transfer (DC…) variants share their base element's nodes.
constexpr std::array kNames{
    // lines: trusses, beams, pipes, rigid links
    NameRow{"T2D2", "line"}, NameRow{"T2D2H", "line"}, NameRow{"T3D2", "line"}, NameRow{"T3D2H", "line"},
    NameRow{"B21", "line"}, NameRow{"B21H", "line"}, NameRow{"B23", "line"}, NameRow{"B23H", "line"},
    NameRow{"B31", "line"}, NameRow{"B31H", "line"}, NameRow{"B33", "line"}, NameRow{"B33H", "line"},
    NameRow{"PIPE21", "line"}, NameRow{"PIPE31", "line"}, NameRow{"R2D2", "line"}, NameRow{"RB2D2", "line"},
    NameRow{"RB3D2", "line"}, NameRow{"RAX2", "line"}, NameRow{"DC1D2", "line"},
    NameRow{"T2D3", "line3"}, NameRow{"T2D3H", "line3"}, NameRow{"T3D3", "line3"}, NameRow{"T3D3H", "line3"},
    NameRow{"B22", "line3"}, NameRow{"B22H", "line3"}, NameRow{"B32", "line3"}, NameRow{"B32H", "line3"},
    NameRow{"PIPE22", "line3"}, NameRow{"PIPE32", "line3"}, NameRow{"DC1D3", "line3"},
    // triangles
    NameRow{"S3", "triangle"}, NameRow{"S3R", "triangle"}, NameRow{"S3RS", "triangle"}, NameRow{"STRI3", "triangle"},
    NameRow{"M3D3", "triangle"}, NameRow{"R3D3", "triangle"}, NameRow{"SFM3D3", "triangle"},
    NameRow{"CPS3", "triangle"}, NameRow{"CPE3", "triangle"}, NameRow{"CPE3H", "triangle"},
    NameRow{"CAX3", "triangle"}, NameRow{"CAX3H", "triangle"}, NameRow{"DC2D3", "triangle"},
    NameRow{"DCAX3", "triangle"},
    NameRow{"STRI65", "triangle6"}, NameRow{"M3D6", "triangle6"}, NameRow{"SFM3D6", "triangle6"},
    NameRow{"CPS6", "triangle6"}, NameRow{"CPS6M", "triangle6"}, NameRow{"CPE6", "triangle6"},
    NameRow{"CPE6H", "triangle6"}, NameRow{"CPE6M", "triangle6"}, NameRow{"CPE6MH", "triangle6"},
    NameRow{"CAX6", "triangle6"}, NameRow{"CAX6H", "triangle6"}, NameRow{"CAX6M", "triangle6"},
    NameRow{"CAX6MH", "triangle6"}, NameRow{"DC2D6", "triangle6"}, NameRow{"DCAX6", "triangle6"},
    // quadrilaterals
    NameRow{"S4", "quad"}, NameRow{"S4R", "quad"}, NameRow{"S4RS", "quad"}, NameRow{"S4RSW", "quad"},
    NameRow{"S4R5", "quad"}, NameRow{"M3D4", "quad"}, NameRow{"M3D4R", "quad"}, NameRow{"R3D4", "quad"},
    NameRow{"SFM3D4", "quad"}, NameRow{"SFM3D4R", "quad"},
    NameRow{"CPS4", "quad"}, NameRow{"CPS4R", "quad"}, NameRow{"CPS4I", "quad"},
    NameRow{"CPE4", "quad"}, NameRow{"CPE4R", "quad"}, NameRow{"CPE4I", "quad"}, NameRow{"CPE4H", "quad"},
    NameRow{"CPE4RH", "quad"}, NameRow{"CPE4IH", "quad"}, NameRow{"CPE4P", "quad"}, NameRow{"CPE4RP", "quad"},
    NameRow{"CAX4", "quad"}, NameRow{"CAX4R", "quad"}, NameRow{"CAX4I", "quad"}, NameRow{"CAX4H", "quad"},
    NameRow{"CAX4RH", "quad"}, NameRow{"CAX4IH", "quad"}, NameRow{"CAX4P", "quad"}, NameRow{"CAX4RP", "quad"},
    NameRow{"DC2D4", "quad"}, NameRow{"DCAX4", "quad"},
    NameRow{"S8R", "quad8"}, NameRow{"S8R5", "quad8"}, NameRow{"M3D8", "quad8"}, NameRow{"M3D8R", "quad8"},
    NameRow{"SFM3D8", "quad8"}, NameRow{"SFM3D8R", "quad8"},
    NameRow{"CPS8", "quad8"}, NameRow{"CPS8R", "quad8"}, NameRow{"CPE8", "quad8"}, NameRow{"CPE8R", "quad8"},
    NameRow{"CPE8H", "quad8"}, NameRow{"CPE8RH", "quad8"}, NameRow{"CPE8P", "quad8"}, NameRow{"CPE8RP", "quad8"},
    NameRow{"CAX8", "quad8"}, NameRow{"CAX8R", "quad8"}, NameRow{"CAX8H", "quad8"}, NameRow{"CAX8RH", "quad8"},
    NameRow{"CAX8P", "quad8"}, NameRow{"CAX8RP", "quad8"}, NameRow{"DC2D8", "quad8"}, NameRow{"DCAX8", "quad8"},
    NameRow{"S9R5", "quad9"}, NameRow{"M3D9", "quad9"}, NameRow{"M3D9R", "quad9"},
    // solids
    NameRow{"C3D4", "tetra"}, NameRow{"C3D4H", "tetra"}, NameRow{"DC3D4", "tetra"},
    NameRow{"C3D10", "tetra10"}, NameRow{"C3D10H", "tetra10"}, NameRow{"C3D10I", "tetra10"},
    NameRow{"C3D10M", "tetra10"}, NameRow{"C3D10MH", "tetra10"}, NameRow{"C3D10HS", "tetra10"},
    NameRow{"DC3D10", "tetra10"},
    NameRow{"C3D5", "pyramid"}, NameRow{"C3D5H", "pyramid"},
    NameRow{"C3D6", "wedge"}, NameRow{"C3D6H", "wedge"}, NameRow{"SC6R", "wedge"}, NameRow{"DC3D6", "wedge"},
    NameRow{"C3D15", "wedge15"}, NameRow{"C3D15H", "wedge15"}, NameRow{"DC3D15", "wedge15"},
    NameRow{"C3D8", "hexahedron"}, NameRow{"C3D8H", "hexahedron"}, NameRow{"C3D8I", "hexahedron"},
    NameRow{"C3D8IH", "hexahedron"}, NameRow{"C3D8R", "hexahedron"}, NameRow{"C3D8RH", "hexahedron"},
    NameRow{"C3D8P", "hexahedron"}, NameRow{"C3D8RP", "hexahedron"}, NameRow{"SC8R", "hexahedron"},
    NameRow{"DC3D8", "hexahedron"},
    NameRow{"C3D20", "hexahedron20"}, NameRow{"C3D20H", "hexahedron20"}, NameRow{"C3D20R", "hexahedron20"},
    NameRow{"C3D20RH", "hexahedron20"}, NameRow{"C3D20P", "hexahedron20"}, NameRow{"C3D20RP", "hexahedron20"},
    NameRow{"DC3D20", "hexahedron20"},
};

constexpr std::array kWrittenNames{
    WrittenName{"line", "T2D2", "T3D2"},          WrittenName{"line3", "T2D3", "T3D3"},
    WrittenName{"triangle", "CPS3", "S3"},        WrittenName{"triangle6", "CPS6", "STRI65"},
    WrittenName{"quad", "CPS4", "S4"},            WrittenName{"quad8", "CPS8", "S8R"},
    WrittenName{"quad9", "M3D9", "S9R5"},         WrittenName{"tetra", "C3D4", "C3D4"},
    WrittenName{"tetra10", "C3D10", "C3D10"},     WrittenName{"pyramid", "C3D5", "C3D5"},
    WrittenName{"wedge", "C3D6", "C3D6"},         WrittenName{"wedge15", "C3D15", "C3D15"},
    WrittenName{"hexahedron", "C3D8", "C3D8"},    WrittenName{"hexahedron20", "C3D20", "C3D20"},
};

// Facet (Exodus order) of face label S1, S2, … per cell family, from the faces' corners:
// e.g. a hexahedron's S1 is corners 1-2-3-4, its bottom, which is Exodus side 4.
struct FaceTable {
  std::string_view family;
  std::array<int, 6> facet_of_label;
  int labels;
};

constexpr std::array kFaceTables{
    FaceTable{"triangle", {0, 1, 2}, 3},
    FaceTable{"quad", {0, 1, 2, 3}, 4},
    FaceTable{"tetra", {3, 0, 1, 2}, 4},
    FaceTable{"pyramid", {4, 0, 1, 2, 3}, 5},
    FaceTable{"wedge", {3, 4, 0, 1, 2}, 5},
    FaceTable{"hexahedron", {4, 5, 0, 1, 2, 3}, 6},
};

// "hexahedron20" → the hexahedron table: higher-order cells share their family's faces.
const FaceTable* face_table(std::string_view cell_type) noexcept {
  while (!cell_type.empty() && std::isdigit(static_cast<unsigned char>(cell_type.back()))) cell_type.remove_suffix(1);
  for (const FaceTable& table : kFaceTables)
    if (table.family == cell_type) return &table;
  return nullptr;
}

std::span<const int> permutation_for(std::string_view cell_type) noexcept {
  if (cell_type == "line3") return kMiddleNodeSecond;
  return {};
}

}  // namespace

ElementType element_type(std::string_view name) noexcept {
  for (const NameRow& row : kNames)
    if (row.abaqus == name) return {find_cell_type(row.cell), permutation_for(row.cell)};
  // meshio's own names, written upper case by the Abaqus convention; these are in meshio's
  // node order already.
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const CellTypeInfo* cell = find_cell_type(lower);
  if (cell != nullptr && cell->num_nodes == 0) cell = nullptr;  // ragged types have no fixed row
  return {cell, {}};
}

std::string_view abaqus_name(std::string_view cell_type, bool planar) noexcept {
  for (const WrittenName& row : kWrittenNames)
    if (row.cell == cell_type) return planar ? row.planar : row.spatial;
  return {};
}

std::span<const int> meshio_to_file(std::string_view cell_type) noexcept { return permutation_for(cell_type); }

std::span<const NameRow> element_names() noexcept { return kNames; }

std::span<const WrittenName> written_names() noexcept { return kWrittenNames; }

}  // namespace meshioplusplus::abaqus::detail

namespace meshioplusplus::abaqus::detail {

int facet_of_face(std::string_view cell_type, int label) noexcept {
  const FaceTable* table = face_table(cell_type);
  if (table == nullptr) return -2;
  return label >= 1 && label <= table->labels ? table->facet_of_label[label - 1] : -1;
}

int face_of_facet(std::string_view cell_type, std::int64_t facet) noexcept {
  const FaceTable* table = face_table(cell_type);
  if (table == nullptr) return 0;
  for (int label = 1; label <= table->labels; ++label)
    if (table->facet_of_label[label - 1] == facet) return label;
  return 0;
}

}  // namespace meshioplusplus::abaqus::detail
