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

// The coordinates of point `index`, as double, with z = 0 for 2-D points.
std::array<double, 3> point_xyz(const NDArray& points, std::int64_t index);

}  // namespace meshioplusplus::stl::detail
