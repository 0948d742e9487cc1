// ANSYS Fluent mesh and case files (.msh — shared with Gmsh and FreeFEM —, .cas, and their .gz):
// nested, parenthesised sections with hexadecimal indices, ASCII or binary bodies; volume cells
// defined by their faces.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::ansys {

Mesh read(const std::string& path);
// Options: binary ("true": 3010/2010 nodes and 3012/3013 index sections), layout ("meshio":
// cells list their nodes, as meshio writes and reads; "fluent": cells by their faces, as Fluent
// and VTK read).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// Whether the first bytes of a file look like a Fluent mesh: '(' then a section number.
bool looks_like(std::string_view head) noexcept;

}  // namespace meshioplusplus::ansys
