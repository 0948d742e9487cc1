// Floor 2, private to io/occt: the tessellated surface as plain arrays, between the part that
// sees OCCT's headers (occt_tessellation.cpp) and the part that builds the Mesh
// (cad_surface_mesh.cpp), which compiles the same with or without OCCT.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "io/occt/cad_tessellation.hpp"

namespace meshioplusplus::io::occt {

struct CadSurface {
  std::vector<double> points;                // x y z per node
  std::vector<std::int64_t> triangles;       // 3 nodes per triangle, oriented out of the solid
  std::vector<std::int32_t> face_of_triangle;   // 0-based CAD face
  std::vector<std::int32_t> solid_of_triangle;  // 0-based solid / part instance
  std::vector<std::string> face_names;   // per CAD face ("" when the file names none)
  std::vector<std::string> solid_names;  // per solid ("" when the file names none)
};

// "12" for region and part names (std::to_chars: locale-independent).
inline std::string decimal(std::int64_t value) {
  char text[24];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

// Reads and tessellates (occt_tessellation.cpp); ReadError on any failure.
CadSurface tessellate(const std::string& path, CadFile kind, const TessellationOptions& options);

// The Mesh of a surface (cad_surface_mesh.cpp).
Mesh mesh_from_surface(CadSurface surface);

}  // namespace meshioplusplus::io::occt
