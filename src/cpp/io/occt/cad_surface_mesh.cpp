// io/occt: the Mesh of a tessellated CAD file (compiled the same with or without OpenCASCADE).
//
// What becomes what:
//   - points: float64 (n, 3), in the file's model units as OCCT converts them (millimetres
//     unless the reader is told otherwise); nodes on a common edge or vertex are shared, and
//     in an IGES file (whose surfaces share no edge) nodes at exactly equal coordinates.
//   - cells: one "triangle" block, triangles oriented as their faces (out of a solid).
//   - cell data "cad:face_id" and "cad:solid_id": int32, 1-based numbers of the triangle's CAD
//     face (faces numbered in the order of the parts, then of their solids, as
//     TopExp_Explorer meets them) and of its solid (a solid of a part instance, or the faces
//     of a part that lie in no solid).
//   - regions (Cell, dim 2): one per solid name first — the file's name of the solid, else
//     its product's (every instance of a product in one region, tag = the first instance's
//     number), else "solid <i>" — then one per CAD face holding triangles: the file's face
//     name where it has one not used yet, else "face <i>" (tag = the face number).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "io/cells/coordinate_welder.hpp"
#include "io/occt/cad_surface.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io::occt {

namespace {

NDArray int32_column(const std::vector<std::int32_t>& values) {
  NDArray array = NDArray::allocate(DType::int32, {static_cast<std::int64_t>(values.size())});
  std::int32_t* out = array.data_as<std::int32_t>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i] + 1;
  return array;
}

// The triangles of each group (face or solid), in triangle order.
std::vector<std::vector<std::int64_t>> triangles_by(const std::vector<std::int32_t>& group_of, std::size_t groups) {
  std::vector<std::vector<std::int64_t>> members(groups);
  for (std::size_t t = 0; t < group_of.size(); ++t) members[static_cast<std::size_t>(group_of[t])].push_back(static_cast<std::int64_t>(t));
  return members;
}

// IGES: OCCT transfers each trimmed surface as a face of its own, with edges of its own, so no
// two faces share a node by topology. Nodes at exactly the same coordinates become one (the
// corners and edge nodes that the files' surfaces share exactly; meshio's STL rule), and a
// triangle that this collapses is dropped.
void weld_coincident_nodes(CadSurface& surface) {
  const std::size_t count = surface.points.size() / 3;
  std::vector<double> kept;
  kept.reserve(surface.points.size());
  std::vector<std::int64_t> node_of(count);
  CoordinateWelder<double> welder(3, count);
  for (std::size_t i = 0; i < count; ++i) {
    const double* values = surface.points.data() + 3 * i;
    const auto next = static_cast<std::int64_t>(kept.size() / 3);
    const std::int64_t node = welder.find_or_add(values, next, [&](std::int64_t k) { return kept.data() + 3 * k; });
    if (node == next) kept.insert(kept.end(), values, values + 3);
    node_of[i] = node;
  }
  surface.points = std::move(kept);
  std::size_t out = 0;
  for (std::size_t t = 0; t < surface.face_of_triangle.size(); ++t) {
    const std::int64_t a = node_of[surface.triangles[3 * t]], b = node_of[surface.triangles[3 * t + 1]],
                       c = node_of[surface.triangles[3 * t + 2]];
    if (a == b || b == c || a == c) continue;
    surface.triangles[3 * out] = a;
    surface.triangles[3 * out + 1] = b;
    surface.triangles[3 * out + 2] = c;
    surface.face_of_triangle[out] = surface.face_of_triangle[t];
    surface.solid_of_triangle[out] = surface.solid_of_triangle[t];
    ++out;
  }
  surface.triangles.resize(3 * out);
  surface.face_of_triangle.resize(out);
  surface.solid_of_triangle.resize(out);
}

Region cell_region(std::string name, std::int64_t tag, const std::vector<std::int64_t>& cells) {
  NDArray entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(cells.size())});
  std::copy(cells.begin(), cells.end(), entries.data_as<std::int64_t>());
  return Region{std::move(name), RegionKind::Cell, 2, tag, std::move(entries)};
}

}  // namespace

std::string_view format_name(CadFile kind) noexcept { return kind == CadFile::step ? "step" : "iges"; }

Mesh mesh_from_surface(CadSurface surface) {
  Mesh mesh;
  const auto num_points = static_cast<std::int64_t>(surface.points.size() / 3);
  const auto num_triangles = static_cast<std::int64_t>(surface.triangles.size() / 3);
  mesh.points = NDArray::allocate(DType::float64, {num_points, 3});
  std::memcpy(mesh.points.data_as<double>(), surface.points.data(), surface.points.size() * sizeof(double));
  CellBlock block;
  block.type = "triangle";
  block.connectivity = NDArray::allocate(DType::int64, {num_triangles, 3});
  std::memcpy(block.connectivity.data_as<std::int64_t>(), surface.triangles.data(),
              surface.triangles.size() * sizeof(std::int64_t));
  mesh.cells.push_back(std::move(block));
  mesh.cell_data.set("cad:face_id", {int32_column(surface.face_of_triangle)});
  mesh.cell_data.set("cad:solid_id", {int32_column(surface.solid_of_triangle)});

  std::unordered_set<std::string> used;
  const auto solids = triangles_by(surface.solid_of_triangle, surface.solid_names.size());
  std::unordered_map<std::string, std::size_t> region_of_name;
  for (std::size_t s = 0; s < solids.size(); ++s) {
    if (solids[s].empty()) continue;
    const std::string& name = surface.solid_names[s];
    if (!name.empty()) {
      const auto [it, added] = region_of_name.emplace(name, mesh.regions.size());
      if (!added) {
        // Another instance of the same product: its triangles join the region (kept sorted).
        Region& region = mesh.regions[it->second];
        std::vector<std::int64_t> cells(region.entries.values<std::int64_t>().begin(), region.entries.values<std::int64_t>().end());
        cells.insert(cells.end(), solids[s].begin(), solids[s].end());
        std::sort(cells.begin(), cells.end());
        region = cell_region(name, region.tag, cells);
        continue;
      }
    }
    std::string region_name = name.empty() ? "solid " + decimal(static_cast<std::int64_t>(s) + 1) : name;
    used.insert(region_name);
    mesh.regions.push_back(cell_region(std::move(region_name), static_cast<std::int64_t>(s) + 1, solids[s]));
  }

  const auto faces = triangles_by(surface.face_of_triangle, surface.face_names.size());
  for (std::size_t f = 0; f < faces.size(); ++f) {
    if (faces[f].empty()) continue;
    const std::string numbered = "face " + decimal(static_cast<std::int64_t>(f) + 1);
    const std::string& named = surface.face_names[f];
    std::string name = !named.empty() && !used.contains(named) ? named : numbered;
    if (used.contains(name)) name += " (face)";  // a solid named "face 3"
    used.insert(name);
    mesh.regions.push_back(cell_region(std::move(name), static_cast<std::int64_t>(f) + 1, faces[f]));
  }
  return mesh;
}

Mesh read_surface(const std::string& path, CadFile kind, const TessellationOptions& options) {
  if (!std::isfinite(options.linear_deflection))
    throw ReadError(path, std::string(format_name(kind)), "linear_deflection must be a finite number");
  if (!(options.angular_deflection > 0) || !std::isfinite(options.angular_deflection))
    throw ReadError(path, std::string(format_name(kind)), "angular_deflection must be a positive number of radians");
  CadSurface surface = tessellate(path, kind, options);
  if (kind == CadFile::iges) weld_coincident_nodes(surface);
  return mesh_from_surface(std::move(surface));
}

}  // namespace meshioplusplus::io::occt
