// The cells of Nastran's binary outputs (OP2's GEOM2 records, MSC Nastran's HDF5 element
// tables), gathered per element type as a reader meets them, then laid into the mesh the one way
// both readers show them: a block per gathered type, the element ids and property ids as the
// cell data "nastran:element_id" and "nastran:ref", a Cell region "property_<pid>" (tag pid) per
// property, and the index results tables need to find an element's block and row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::io {

struct NastranBlock {
  std::string type;
  int nodes = 0;
  std::vector<std::int64_t> connectivity, element_ids, properties;
};

// Every element in block-major order: its id, its block and its row there.
struct NastranElements {
  std::vector<std::int64_t> ids;
  std::vector<std::int32_t> block;
  std::vector<std::int64_t> row;
};

NastranElements add_nastran_blocks(const std::vector<NastranBlock>& blocks, Mesh& mesh);

// The cell data `name` of a step: one float64 array per block of `mesh` (rows, or rows × width),
// NaN where no result row sets it (elements a table does not cover); made on first use.
std::vector<NDArray>& nastran_cell_results(NamedList<std::vector<NDArray>>& data, const std::string& name,
                                           const Mesh& mesh, std::int64_t width);

// read(): the mesh with its first step's data and "nastran:time" (the mesh alone without steps).
Mesh nastran_mesh_with_first_step(TimeSeriesReader& series);

}  // namespace meshioplusplus::io
