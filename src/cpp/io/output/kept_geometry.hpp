// Floor 2: the geometry a time-series writer keeps from write_mesh() until later steps write it
// (PVD, EnSight, file sequences). The arrays a caller passes may be views of memory that is
// freed when the call returns (the Python bindings hand numpy arrays over without a copy, and a
// temporary such as `points + shift` dies right after), so a writer that keeps them copies them.
#pragma once

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io {

// Points, cells and regions of `mesh`, every array deep-copied; no data.
inline Mesh kept_geometry(const Mesh& mesh) {
  Mesh kept;
  kept.points = mesh.points.copy();
  for (const CellBlock& block : mesh.cells) {
    CellBlock copy = block;
    copy.connectivity = block.connectivity.copy();
    if (!block.offsets.empty_handle()) copy.offsets = block.offsets.copy();
    if (!block.face_offsets.empty_handle()) copy.face_offsets = block.face_offsets.copy();
    kept.cells.push_back(std::move(copy));
  }
  for (const Region& region : mesh.regions) {
    Region copy = region;
    copy.entries = region.entries.copy();
    kept.regions.push_back(std::move(copy));
  }
  return kept;
}

}  // namespace meshioplusplus::io
