// Abaqus element names ↔ meshio cell types.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::abaqus::detail {

struct ElementType {
  const CellTypeInfo* cell = nullptr;
  // Abaqus node k goes to meshio node order[k]; empty when the orders agree.
  std::span<const int> file_to_meshio;
};

// `name` upper case. Abaqus names first, then meshio's own type names (written by meshio
// with translate_cell_names=False). cell == nullptr when unknown.
ElementType element_type(std::string_view name) noexcept;

// The name written for `cell_type`; empty when Abaqus has none. `planar`: the points are
// 2-D, so surfaces become plane-stress and lines 2-D trusses.
std::string_view abaqus_name(std::string_view cell_type, bool planar) noexcept;
// meshio node k of a cell written as Abaqus node order[k]; empty when the orders agree.
std::span<const int> meshio_to_file(std::string_view cell_type) noexcept;

// The tables behind element_type and abaqus_name (the bindings export them to Python as
// meshio's abaqus_to_meshio_type / meshio_to_abaqus_type).
struct NameRow {
  std::string_view abaqus;
  std::string_view cell;
};
std::span<const NameRow> element_names() noexcept;  // Abaqus name → cell type, upper case
struct WrittenName {
  std::string_view cell;
  std::string_view planar;  // for 2-D points
  std::string_view spatial;
};
std::span<const WrittenName> written_names() noexcept;

// Surfaces: the Abaqus face label Sn of a cell of `cell_type` ↔ the local facet in the
// project's side numbering (0-based Exodus II order, as meshioplusplus/side_regions.hpp
// tabulates it). Solids and plane
// elements have tables; facet_of_face returns -1 for a label the cell does not have and -2
// for types without a table (lines, vertices), whose surfaces are not kept.
int facet_of_face(std::string_view cell_type, int label) noexcept;
// The label n of Sn for `facet`; 0 when there is none.
int face_of_facet(std::string_view cell_type, std::int64_t facet) noexcept;

}  // namespace meshioplusplus::abaqus::detail
