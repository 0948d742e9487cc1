// The triangles an STL file can hold, taken from any mesh (the STL writer's local helper).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::stl::detail {

struct SurfaceTriangles {
  std::vector<std::int64_t> corners;      // 3 point indices per triangle
  std::vector<std::int64_t> source_cell;  // the block-major cell each triangle came from
  bool from_volume = false;               // the triangles bound 3-D cells
};

// When the mesh has 3-D cells: their boundary — faces used by exactly one 3-D cell (matched
// by node set), each turned to face away from its cell's centroid, so the orientation does not
// depend on any node-order convention — and the mesh's 2-D cells are left out (they are
// usually boundary markers of those same cells). Otherwise: every 2-D cell. Faces are
// fan-triangulated; higher-order cells contribute their corner nodes only. 0-D and 1-D
// cells have no area and are left out. Triangles keep the cells' order.
SurfaceTriangles surface_triangles(const Mesh& mesh);

// The coordinates of point `index` of any dtype and width, as double, z = 0 for 2-D points.
std::array<double, 3> converted_point_xyz(const NDArray& points, std::int64_t index);

// The same, inline for the usual float32/float64 (n, 3) points: writers call it per corner.
inline std::array<double, 3> point_xyz(const NDArray& points, std::int64_t index) {
  if (points.ndim() == 2 && points.dim(1) == 3) {
    if (points.dtype() == DType::float32) {
      const float* xyz = static_cast<const float*>(points.data()) + 3 * index;
      return {xyz[0], xyz[1], xyz[2]};
    }
    if (points.dtype() == DType::float64) {
      const double* xyz = static_cast<const double*>(points.data()) + 3 * index;
      return {xyz[0], xyz[1], xyz[2]};
    }
  }
  return converted_point_xyz(points, index);
}

}  // namespace meshioplusplus::stl::detail
