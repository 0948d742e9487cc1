// VTK legacy (.vtk).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::vtk {

Mesh read(const std::string& path);
// Reading less (read_selection.hpp; vtk_reader_metadata.cpp): a read that jumps over the
// attribute arrays `request` does not name (points_only alone: the cell sections too), and
// the summary of the headers — header_only for UNSTRUCTURED_GRID (POINTS, CELLS and the
// attribute values jumped over, CELL_TYPES read for the blocks: runs of one VTK type, as the
// full read cuts them); the other datasets are read and summarised.
Mesh read_selected(const std::string& path, const ReadRequest& request);
MeshMetadata read_metadata(const std::string& path);
// Options: binary (true), fmt_version ("4.2" | "5.1").
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::vtk
