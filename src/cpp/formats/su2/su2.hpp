// SU2 (.su2): the native ASCII mesh of the SU2 suite — VTK cell ids, boundary markers,
// optionally several zones.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::su2 {

Mesh read(const std::string& path);
// No options.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::su2
