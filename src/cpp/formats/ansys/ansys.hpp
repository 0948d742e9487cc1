// ANSYS Fluent mesh (.msh, shared with Gmsh): nested, parenthesised sections with hexadecimal
// indices, ASCII or binary bodies.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::ansys {

Mesh read(const std::string& path);
// Options: binary ("true": double-precision 3010 nodes and 64-bit 3012/3013 index sections).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// Whether the first bytes of a file look like a Fluent mesh: '(' then a section number.
bool looks_like(std::string_view head) noexcept;

}  // namespace meshioplusplus::ansys
