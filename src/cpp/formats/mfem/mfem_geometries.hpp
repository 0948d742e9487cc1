// MFEM's geometry numbers (the second value of an element line) and the cell types they are:
// one table for the reader and the writer. MFEM's node order equals ours for all eight
// (its prism is meshio's wedge; mfem/mesh/vtk.cpp's maps apply inside VTK files only).
#pragma once

#include <array>
#include <string_view>

namespace meshioplusplus::mfem::detail {

struct Geometry {
  const char* type;
  int nodes;
  int dim;
};

// Indexed by MFEM's geometry number: 0 point, 1 segment, 2 triangle, 3 square, 4 tetrahedron,
// 5 cube, 6 prism, 7 pyramid.
inline constexpr std::array<Geometry, 8> kGeometries{{{"vertex", 1, 0},
                                                      {"line", 2, 1},
                                                      {"triangle", 3, 2},
                                                      {"quad", 4, 2},
                                                      {"tetra", 4, 3},
                                                      {"hexahedron", 8, 3},
                                                      {"wedge", 6, 3},
                                                      {"pyramid", 5, 3}}};

// The geometry number of a cell type, -1 when MFEM has none.
constexpr int geometry_of(std::string_view type) noexcept {
  for (std::size_t g = 0; g < kGeometries.size(); ++g)
    if (type == kGeometries[g].type) return static_cast<int>(g);
  return -1;
}

}  // namespace meshioplusplus::mfem::detail
