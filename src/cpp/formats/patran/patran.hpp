// MSC Patran neutral file (.pat, .out): 80-column text packets, each a header card
// "IT ID IV KC N1 N2 N3 N4 N5" (I2, 8I8) followed by KC data cards.
//
// What a read produces (formats/patran/patran_reader.cpp says what becomes what in detail):
//   points      packet 01 nodes, float64 (n, 3), node ids renumbered 0..n-1 in file order.
//   cells       packet 02 elements, one block per cell type in order of first appearance: the
//               shape code and the node count give the type, Patran's quadratic wedge and
//               hexahedron node orders are turned into VTK's.
//   cell_data   "patran:property": each element's property id (int64).
//   regions     packet 21 named components: node members -> a Point region, element members
//               -> a Cell region of the same name (both when a component has both), tag = the
//               component number.
// Packets 25/26 (title, summary), loads and every other packet are skipped; 99 ends the file.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::patran {

Mesh read(const std::string& path);

// No options. Writes 25 (title), 26 (summary), 01 per node, 02 per element and 21 per region
// name, then 99. Coordinates are E16.9 as the format fixes them: ten significant digits, so a
// read gives the points back to a relative 5e-10, not bit for bit. Cell types without a Patran
// shape are refused (std::invalid_argument); point/cell data other than "patran:property",
// and Side regions, are not written.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

// A "25" title packet header, then a "26" summary packet, as the first cards.
bool looks_like(std::string_view head) noexcept;

}  // namespace meshioplusplus::patran
