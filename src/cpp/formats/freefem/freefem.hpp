// FreeFEM 2-D mesh (.msh, as savemesh/readmesh write and read it): a count line, vertices,
// triangles, boundary edges, 1-based. FreeFEM's 3-D .mesh files are Medit's format.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::freefem {

Mesh read(const std::string& path);
// No options. Triangles and lines of a 2-D mesh (or 3-D points with z = 0).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// The first non-blank line holds exactly three non-negative integers (nv nt nbe): what no
// Gmsh (`$MeshFormat`) or Fluent (`(` section) file starts with.
bool looks_like(std::string_view head) noexcept;

}  // namespace meshioplusplus::freefem
