// VTK legacy (.vtk).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::vtk {

Mesh read(const std::string& path);
// Options: binary (true), fmt_version ("4.2" | "5.1").
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::vtk
