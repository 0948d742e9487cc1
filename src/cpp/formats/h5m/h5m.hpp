// H5M (.h5m): MOAB's native HDF5 mesh file, as meshio reads and writes it. /tstt/nodes/coordinates
// → points, /tstt/nodes/tags/<name> → point data (k-component tags are HDF5 array elements),
// /tstt/elements/<Type>/connectivity (1-based ids) → cell blocks.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::h5m {

Mesh read(const std::string& path);
// Options: add_global_ids (default true), compression (gzip or none), compression_opts.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::h5m
