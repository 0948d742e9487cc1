// Kratos Multiphysics model part (.mdpa), ASCII.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::mdpa {

Mesh read(const std::string& path);
// No options (meshio's float_fmt is accepted and ignored by the Python layer).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::mdpa
