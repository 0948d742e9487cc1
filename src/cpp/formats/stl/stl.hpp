// STL (.stl): triangle soups, ASCII or binary.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::stl {

// Binary when the size is exactly 84 + 50 × (triangle count in the header), whatever the
// header says; ASCII otherwise. Corners with equal coordinates are merged into one point.
Mesh read(const std::string& path);
// Options: binary ("false", as meshio).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::stl
