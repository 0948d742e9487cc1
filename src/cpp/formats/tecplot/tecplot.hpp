// Tecplot ASCII data (.dat, .tec): finite-element zones.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::tecplot {

Mesh read(const std::string& path);
// No options.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::tecplot
