// Medit internals shared by the readers and the writer: which sections hold elements, and
// how parsed sections become a Mesh.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::medit::detail {

// libMeshb keyword codes the binary reader and writer need by name.
inline constexpr int kCodeDimension = 3;
inline constexpr int kCodeVertices = 4;
inline constexpr int kCodeEnd = 54;

// An element section: its keyword, binary code and the cell type it holds.
struct ElementSection {
  std::string_view keyword;
  int code;
  std::string_view cell_type;
  int num_nodes;
};

// nullptr when `keyword` names no element section we read (compared without case; the
// "Hexaedra" spelling some writers use is accepted).
const ElementSection* element_section_by_keyword(std::string_view keyword) noexcept;
const ElementSection* element_section_by_code(int code) noexcept;
const ElementSection* element_section_for_cell_type(std::string_view cell_type) noexcept;

// How to step over an ASCII section we do not use: `count_lines` sections list a count and
// then that many text lines; the others a count and count records of `values_per_record`
// numbers (`dim_multiple`: that many values per space dimension, added on top).
struct SkippedSection {
  std::string_view keyword;
  int values_per_record;
  int dim_multiple = 0;
  bool count_lines = false;
};
const SkippedSection* skipped_section_by_keyword(std::string_view keyword) noexcept;

bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept;

// One element section as read: 0-based connectivity (not yet range-checked) and refs.
struct ParsedBlock {
  const ElementSection* section = nullptr;
  NDArray connectivity;  // int64 (n, k)
  NDArray refs;          // int32 or int64 (n,)
  std::size_t offset = 0;  // byte offset of the section, for errors
  std::string_view text;   // the ASCII document, so errors can name the line of `offset` (empty: binary)
};

// Everything a reader gathers, turned into a Mesh by assemble().
struct ParsedMesh {
  NDArray points;      // (n, dim) float32/float64
  NDArray point_refs;  // (n,) int32/int64
  std::vector<ParsedBlock> blocks;
};

// Checks every node index against the point count (ReadError naming `path` and the section),
// then builds the Mesh with its "medit:ref" data and its ref regions.
Mesh assemble(ParsedMesh parsed, const std::string& path);

}  // namespace meshioplusplus::medit::detail
