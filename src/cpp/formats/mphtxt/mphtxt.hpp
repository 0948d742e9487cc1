// COMSOL Multiphysics text mesh (.mphtxt): sectioned, count-prefixed records with '#'
// comments; one or more Mesh objects of points and per-type element blocks.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::mphtxt {

Mesh read(const std::string& path);
// No options.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::mphtxt
