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

// Surfaces: the Abaqus face label Sn of a cell of `cell_type` ↔ the local facet in the
// project's side numbering (0-based Exodus II order, as meshioplusplus/side_regions.hpp
// tabulates it). Solids and plane
// elements have tables; facet_of_face returns -1 for a label the cell does not have and -2
// for types without a table (lines, vertices), whose surfaces are not kept.
int facet_of_face(std::string_view cell_type, int label) noexcept;
// The label n of Sn for `facet`; 0 when there is none.
int face_of_facet(std::string_view cell_type, std::int64_t facet) noexcept;

}  // namespace meshioplusplus::abaqus::detail
