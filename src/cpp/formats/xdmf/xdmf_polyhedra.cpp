#include "formats/xdmf/xdmf_polyhedra.hpp"

#include <limits>

#include "io/vtk/vtk_face_stream.hpp"

namespace meshioplusplus::xdmf {

CellBlock polyhedra_from_streams(std::span<const std::int64_t> values) {
  // Point indices are checked against the grid's points once both are read (the Topology
  // may come before the Geometry), as for every other topology.
  io::PolyhedronBlockBuilder builder(std::numeric_limits<std::int64_t>::max());
  for (std::size_t at = 0; at < values.size();) {
    const std::int64_t cell = builder.num_cells();
    std::int64_t length = 0;
    try {
      length = io::polyhedron_face_stream_length(values.subspan(at));
    } catch (const io::CellStreamError& error) {
      throw io::CellStreamError("cell " + std::to_string(cell) + ": " + error.what());
    }
    builder.add_cell(values.subspan(at, static_cast<std::size_t>(length)), cell);
    at += static_cast<std::size_t>(length);
  }
  return builder.finish();
}

std::int64_t mixed_polyhedra_size(const CellBlock& block) {
  const io::PolyhedronFaceStreams streams(block);
  return streams.num_cells() + streams.total_size();
}

std::int64_t* write_mixed_polyhedra(const CellBlock& block, std::int64_t* out) {
  const io::PolyhedronFaceStreams streams(block);
  for (std::int64_t cell = 0; cell < streams.num_cells(); ++cell) {
    *out++ = kMixedPolyhedron.id;
    streams.emit(cell, [&out](std::int64_t value) { *out++ = value; });
  }
  return out;
}

}  // namespace meshioplusplus::xdmf
