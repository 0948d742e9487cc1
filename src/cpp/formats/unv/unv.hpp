// I-deas Universal File (.unv, .uff): a sequence of text datasets, each between two "-1"
// lines, the first line after the opening "-1" giving the dataset number.
//
// What a read produces (formats/unv/unv_reader.cpp says what becomes what in detail):
//   points      float64 (n, 3) from datasets 2411 (double precision, Fortran D exponents) and
//               15 (single precision); node labels renumbered 0..n-1 in file order.
//   cells       2412 elements, one block per cell type in order of first appearance; the FE
//               descriptor id and node count give the type (formats/unv/unv_types.hpp), the
//               parabolic node orders are turned into VTK's.
//   cell_data   "unv:pid" / "unv:mid": each element's physical and material property table.
//   regions     2467 / 2477 / 2452 / 2435 permanent groups: node members -> a Point region,
//               element members -> a Cell region (both, named alike, when a group has both);
//               tag = the group number.
//   field_data  164 units: "unv:units" int64 [code], "unv:unit_factors" float64 [length,
//               force, temperature, temperature offset].
//   2420        Cartesian coordinate systems move their nodes into the global system.
// Other datasets (151 header, results …) are skipped; 2414 and 55 results are the steps of
// unv::open_time_series (formats/unv/unv_time_series.hpp).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::unv {

Mesh read(const std::string& path);

// No options. Writes 164 (when the mesh has "unv:units"/"unv:unit_factors" field data),
// 2411 (labels 1..n, coordinates as 1P3E25.16: seventeen significant digits, so a read gives
// the same doubles back; 1-D and 2-D points get zero y/z, and read back as 3-D), 2412 (labels 1..m across the blocks in order; "unv:pid"/"unv:mid"
// cell data as the property tables when present, else 1) and 2467 (one group per region name:
// its Point region's nodes and its Cell region's elements). Cell types without a descriptor
// (formats/unv/unv_types.hpp) are refused (std::invalid_argument); point/cell data other than
// the property tables, and Side regions, are not written.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::unv
