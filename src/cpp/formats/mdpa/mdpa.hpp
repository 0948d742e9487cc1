// Kratos Multiphysics model part (.mdpa), ASCII.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::mdpa {

Mesh read(const std::string& path);
// Options: float_fmt (meshio's: a Python format spec for floats, io/output/float_format.hpp;
// default: shortest round-trip form).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::mdpa
