// VTKHDF (.vtkhdf, .hdf): VTK's HDF5 file format (spec 1.x/2.x), read and written through the
// shared HDF5 floor. See docs/formats.md#vtkhdf for what becomes what.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::vtkhdf {

Mesh read(const std::string& path);
// Options: compression (gzip or none; default none), compression_opts (gzip level, default 4).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::vtkhdf
