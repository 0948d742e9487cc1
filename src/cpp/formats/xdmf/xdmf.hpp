// XDMF 2 and 3 (.xdmf, .xmf): an XML "light data" document describing grids, whose arrays
// ("heavy data") sit inline in the XML, in raw binary files, or in HDF5 files
// ("mesh.h5:/path/to/dataset"). See docs/formats.md#xdmf for what is read and written.
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::xdmf {

Mesh read(const std::string& path);
// read() without reading the Attributes not asked for (read_selection.hpp) in the first grid
// and in temporal steps; with points_only (and no arrays) a file of one grid or one temporal
// collection skips the Topology too (grids to merge need their cells). The registry narrows
// the rest.
Mesh read_selected(const std::string& path, const ReadRequest& request);
// What read() gives, from the light data and HDF5 dataset headers where the layout states it
// (xdmf_metadata.cpp); other layouts are read in full and summarised (header_only false).
MeshMetadata read_metadata(const std::string& path);
// Options: data_format (XML, Binary or HDF; default HDF), compression (gzip or none, for HDF),
// compression_opts (gzip level, default 4).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

// A temporal collection (meshio's TimeSeriesWriter layout, DOLFINx function output, DOLFIN
// checkpoints, or any Collection of Uniform grids with <Time>): steps read lazily.
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);
// meshio's layout: one Temporal collection whose steps XInclude the Topology and Geometry of
// the Uniform grid "mesh" after it. Options: data_format, compression, heavy_data_location
// ("beside" the .xdmf, or "working_directory" as meshio's TimeSeriesWriter puts it).
std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options);
// Continues an existing series (or starts one): include/meshioplusplus/time_series.hpp.
std::unique_ptr<TimeSeriesWriter> append_time_series(const std::string& path, const WriteOptions& options);

}  // namespace meshioplusplus::xdmf
