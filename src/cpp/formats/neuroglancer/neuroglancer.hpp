// Neuroglancer precomputed mesh fragments (no extension; file_format "neuroglancer"), as
// meshio reads and writes them: little-endian uint32 vertex count, float32 xyz per vertex,
// then uint32 triangle corner indices up to the end of the file.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::neuroglancer {

Mesh read(const std::string& path);
// No options. Only triangle blocks can be written; any other block is a WriteError.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::neuroglancer
