#include "formats/stl/stl_surface.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <span>
#include <string_view>

#include "io/cells/face_blocks.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::stl::detail {
namespace {

// A face of a reference cell, by local corner numbers. Orientation is fixed later from the
// geometry, so only the cyclic order matters here.
struct LocalFace {
  int size;
  std::array<int, 4> corners;
};

constexpr LocalFace kTetraFaces[] = {{3, {0, 1, 2}}, {3, {0, 1, 3}}, {3, {1, 2, 3}}, {3, {0, 2, 3}}};
constexpr LocalFace kHexahedronFaces[] = {{4, {0, 1, 2, 3}}, {4, {4, 5, 6, 7}}, {4, {0, 1, 5, 4}},
                                          {4, {1, 2, 6, 5}}, {4, {2, 3, 7, 6}}, {4, {3, 0, 4, 7}}};
constexpr LocalFace kWedgeFaces[] = {{3, {0, 1, 2}}, {3, {3, 4, 5}}, {4, {0, 1, 4, 3}},
                                     {4, {1, 2, 5, 4}}, {4, {2, 0, 3, 5}}};
constexpr LocalFace kPyramidFaces[] = {{4, {0, 1, 2, 3}}, {3, {0, 1, 4}}, {3, {1, 2, 4}},
                                       {3, {2, 3, 4}}, {3, {3, 0, 4}}};

struct VolumeShape {
  std::string_view family;  // matches every order: tetra10, hexahedron27, …
  int corners;
  std::span<const LocalFace> faces;
};

constexpr VolumeShape kVolumeShapes[] = {
    {"tetra", 4, kTetraFaces},
    {"hexahedron", 8, kHexahedronFaces},
    {"wedge", 6, kWedgeFaces},
    {"pyramid", 5, kPyramidFaces},
};

const VolumeShape* volume_shape(std::string_view type) {
  for (const VolumeShape& shape : kVolumeShapes)
    if (type.starts_with(shape.family)) return &shape;
  return nullptr;
}

int dimension_of(const CellBlock& block) {
  const CellTypeInfo* info = find_cell_type(block.type);
  return info != nullptr ? info->dimension : -1;
}

// Corner nodes of a 2-D cell: the first 3 (triangle family) or 4 (quad family), or all of a
// polygon.
std::span<const std::int64_t> surface_corners(const CellBlock& block, std::int64_t cell) {
  const std::span<const std::int64_t> nodes = io::cell_nodes(block, cell);
  if (block.is_ragged()) return nodes;
  return nodes.first(block.type.starts_with("triangle") ? 3 : 4);
}

void add_fan(std::span<const std::int64_t> polygon, std::int64_t source_cell, SurfaceTriangles& out) {
  for (std::size_t i = 1; i + 1 < polygon.size(); ++i) {
    out.corners.insert(out.corners.end(), {polygon[0], polygon[i], polygon[i + 1]});
    out.source_cell.push_back(source_cell);
  }
}

// Every face of every 3-D cell, in cell order, as flat node lists.
struct FaceList {
  std::vector<std::int64_t> nodes;
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int64_t> owner;        // block-major cell
  std::vector<std::array<double, 3>> owner_centroid;

  std::span<const std::int64_t> face(std::size_t f) const {
    return {nodes.data() + offsets[f], static_cast<std::size_t>(offsets[f + 1] - offsets[f])};
  }
  std::size_t size() const noexcept { return owner.size(); }
};

std::array<double, 3> centroid(const NDArray& points, std::span<const std::int64_t> nodes) {
  std::array<double, 3> sum{0, 0, 0};
  for (std::int64_t node : nodes) {
    const std::array<double, 3> xyz = point_xyz(points, node);
    for (int a = 0; a < 3; ++a) sum[a] += xyz[a];
  }
  for (double& value : sum) value /= static_cast<double>(std::max<std::size_t>(1, nodes.size()));
  return sum;
}

void add_shape_faces(const NDArray& points, const CellBlock& block, const VolumeShape& shape,
                     std::int64_t first_cell, FaceList& faces) {
  const std::int64_t width = block.connectivity.row_width();
  const std::int64_t* connectivity = block.connectivity.data_as<std::int64_t>();
  for (std::int64_t cell = 0; cell < block.num_cells(); ++cell) {
    const std::int64_t* nodes = connectivity + cell * width;
    const std::array<double, 3> middle = centroid(points, {nodes, static_cast<std::size_t>(shape.corners)});
    for (const LocalFace& local : shape.faces) {
      for (int i = 0; i < local.size; ++i) faces.nodes.push_back(nodes[local.corners[i]]);
      faces.offsets.push_back(static_cast<std::int64_t>(faces.nodes.size()));
      faces.owner.push_back(first_cell + cell);
      faces.owner_centroid.push_back(middle);
    }
  }
}

void add_polyhedron_faces(const NDArray& points, const CellBlock& block, std::int64_t first_cell,
                          FaceList& faces) {
  const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
  const std::int64_t* cell_faces = block.offsets.data_as<std::int64_t>();
  const std::int64_t* face_nodes = block.face_offsets.data_as<std::int64_t>();
  for (std::int64_t cell = 0; cell < block.num_cells(); ++cell) {
    const std::int64_t first = face_nodes[cell_faces[cell]], last = face_nodes[cell_faces[cell + 1]];
    const std::array<double, 3> middle = centroid(points, {nodes + first, static_cast<std::size_t>(last - first)});
    for (std::int64_t f = cell_faces[cell]; f < cell_faces[cell + 1]; ++f) {
      faces.nodes.insert(faces.nodes.end(), nodes + face_nodes[f], nodes + face_nodes[f + 1]);
      faces.offsets.push_back(static_cast<std::int64_t>(faces.nodes.size()));
      faces.owner.push_back(first_cell + cell);
      faces.owner_centroid.push_back(middle);
    }
  }
}

// Faces whose node set no other face shares.
std::vector<bool> unshared_faces(const FaceList& faces) {
  std::vector<std::int64_t> sorted_nodes = faces.nodes;
  for (std::size_t f = 0; f < faces.size(); ++f)
    std::sort(sorted_nodes.begin() + faces.offsets[f], sorted_nodes.begin() + faces.offsets[f + 1]);
  const auto key = [&](std::size_t f) {
    return std::span<const std::int64_t>(sorted_nodes.data() + faces.offsets[f],
                                         static_cast<std::size_t>(faces.offsets[f + 1] - faces.offsets[f]));
  };
  const auto less = [&](std::size_t a, std::size_t b) {
    const auto ka = key(a), kb = key(b);
    return std::lexicographical_compare(ka.begin(), ka.end(), kb.begin(), kb.end());
  };
  const auto equal = [&](std::size_t a, std::size_t b) {
    const auto ka = key(a), kb = key(b);
    return std::equal(ka.begin(), ka.end(), kb.begin(), kb.end());
  };
  std::vector<std::size_t> order(faces.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), less);
  std::vector<bool> unshared(faces.size(), false);
  for (std::size_t begin = 0, end; begin < order.size(); begin = end) {
    for (end = begin + 1; end < order.size() && equal(order[begin], order[end]);) ++end;
    if (end - begin == 1) unshared[order[begin]] = true;
  }
  return unshared;
}

// Newell's normal: robust for any planar-ish polygon, zero only for degenerate ones.
std::array<double, 3> polygon_normal(const NDArray& points, std::span<const std::int64_t> polygon) {
  std::array<double, 3> normal{0, 0, 0};
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    const auto p = point_xyz(points, polygon[i]);
    const auto q = point_xyz(points, polygon[(i + 1) % polygon.size()]);
    normal[0] += (p[1] - q[1]) * (p[2] + q[2]);
    normal[1] += (p[2] - q[2]) * (p[0] + q[0]);
    normal[2] += (p[0] - q[0]) * (p[1] + q[1]);
  }
  return normal;
}

void add_outward_fan(const NDArray& points, std::span<const std::int64_t> face,
                     const std::array<double, 3>& owner_centroid, std::int64_t owner,
                     SurfaceTriangles& out) {
  const std::array<double, 3> normal = polygon_normal(points, face);
  const std::array<double, 3> middle = centroid(points, face);
  double outward = 0;
  for (int a = 0; a < 3; ++a) outward += normal[a] * (middle[a] - owner_centroid[a]);
  if (outward >= 0) return add_fan(face, owner, out);
  std::vector<std::int64_t> reversed(face.rbegin(), face.rend());
  add_fan(reversed, owner, out);
}

SurfaceTriangles volume_boundary(const Mesh& mesh, const NDArray& bases) {
  FaceList faces;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    if (dimension_of(block) != 3) continue;
    const std::int64_t first_cell = bases.data_as<std::int64_t>()[b];
    if (block.type == "polyhedron") {
      add_polyhedron_faces(mesh.points, block, first_cell, faces);
    } else if (const VolumeShape* shape = volume_shape(block.type)) {
      add_shape_faces(mesh.points, block, *shape, first_cell, faces);
    }
  }
  const std::vector<bool> unshared = unshared_faces(faces);
  SurfaceTriangles out;
  out.from_volume = true;
  for (std::size_t f = 0; f < faces.size(); ++f)
    if (unshared[f]) add_outward_fan(mesh.points, faces.face(f), faces.owner_centroid[f], faces.owner[f], out);
  return out;
}

}  // namespace

std::array<double, 3> converted_point_xyz(const NDArray& points, std::int64_t index) {
  std::array<double, 3> xyz{0, 0, 0};
  const std::int64_t dim = std::min<std::int64_t>(3, points.row_width());
  visit_dtype(points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* row = static_cast<const T*>(points.data()) + index * points.row_width();
    for (std::int64_t a = 0; a < dim; ++a) xyz[static_cast<std::size_t>(a)] = static_cast<double>(row[a]);
  });
  return xyz;
}

SurfaceTriangles surface_triangles(const Mesh& mesh) {
  const NDArray bases = block_bases(mesh.cells);
  const bool has_volume = std::any_of(mesh.cells.begin(), mesh.cells.end(),
                                      [](const CellBlock& block) { return dimension_of(block) == 3; });
  if (has_volume) return volume_boundary(mesh, bases);
  SurfaceTriangles out;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    if (dimension_of(block) != 2) continue;
    const std::int64_t first_cell = bases.data_as<std::int64_t>()[b];
    for (std::int64_t cell = 0; cell < block.num_cells(); ++cell)
      add_fan(surface_corners(block, cell), first_cell + cell, out);
  }
  return out;
}

}  // namespace meshioplusplus::stl::detail
