// DOLFIN XML (.xml): the legacy mesh format of FEniCS/DOLFIN, with its mesh functions stored
// in sibling files "<stem>_<name>.xml".
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::dolfin {

Mesh read(const std::string& path);
// No options.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::dolfin
