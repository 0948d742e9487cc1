// Content test for the .msh extension Gmsh shares with ANSYS Fluent (used by registry.cpp).
#pragma once

#include <string_view>

namespace meshioplusplus::gmsh {

// Whether a file's first bytes look like MSH: "$MeshFormat" (2.x, 4.x) after any blanks.
bool looks_like(std::string_view head) noexcept;

}  // namespace meshioplusplus::gmsh
