// Femap neutral file (.neu): text data blocks, each opened by a "   -1" line and its block id
// and closed by the next "   -1" line; records free-format, comma (or blank) separated.
//
// What a read produces (formats/femap/femap_reader.cpp says what becomes what in detail):
//   points      block 403 nodes, float64 (n, 3), node ids renumbered 0..n-1 in file order.
//   cells       block 404 elements, one block per topology in order of first appearance,
//               the 20-slot node layout of the neutral file turned into VTK's order.
//   cell_data   "femap:property" / "femap:type": each element's property id and element type.
//   regions     block 402 properties: one Cell region per property the elements use, named by
//               the property title, tag = the property id.
//   data        blocks 450/451/1051: the first output set's nodal vectors -> point_data, its
//               elemental vectors -> cell_data (float64, NaN where an entity has no value);
//               field_data "femap:output_set" [id] and "femap:output_value" [value].
// Other blocks are skipped by their delimiters. A Gambit neutral file (also .neu, "CONTROL
// INFO" first) is refused by name.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::femap {

Mesh read(const std::string& path);

// No options. Writes 100 (version 8.2), 402 (one property per "femap:property" value, titled
// by the Cell region of that tag when there is one), 403, 404 and, when the mesh has numeric
// point or cell data, one output set (450) with a vector (451) per array component. Cell
// types without a Femap topology are refused (std::invalid_argument).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

// A "-1" line, then an integer block id, as the first significant lines.
bool looks_like(std::string_view head) noexcept;

}  // namespace meshioplusplus::femap
