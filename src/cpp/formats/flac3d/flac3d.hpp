// FLAC3D (.f3grid): Itasca's grid file, ASCII and binary.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::flac3d {

Mesh read(const std::string& path);
// Options: binary ("false").
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::flac3d
