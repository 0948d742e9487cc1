// FEBio input files (.feb): the XML model FEBio and FEBio Studio read, febio_spec 2.5, 3.0
// and 4.0; the mesh part of it (nodes, elements, node/element sets, surfaces).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::febio {

Mesh read(const std::string& path);
// Option `spec`: "4.0" (default) or "3.0".
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::febio
