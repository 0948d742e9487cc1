// PLY (.ply): the Stanford polygon format, ASCII or binary (either byte order).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::ply {

Mesh read(const std::string& path);
// Options: binary ("true", as meshio) — binary_little_endian, else ascii.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::ply
