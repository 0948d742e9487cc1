// STL writer: ASCII (default, as meshio) or binary little-endian.
//
// The triangles come from surface_triangles(): the 2-D cells, or the boundary of the 3-D
// cells when there are any. Per-cell data of 2-D cells is used where STL has a slot for it:
// "facet_normals" (n, 3) as the normals (computed from the corners otherwise; zero for
// degenerate triangles) and, in binary files, "stl:attribute" as the 16-bit attribute.
// ASCII numbers are the shortest text that reads back to the same value, in the array's own
// precision, so points round-trip bit-exactly; binary stores float32.
//
// ASCII solids: when the Cell regions split the triangles' cells into disjoint groups, each
// region becomes a solid of its name (cells in no region go first, into an unnamed solid),
// which is how the reader returns several solids. Otherwise one unnamed solid.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "formats/stl/stl.hpp"
#include "formats/stl/stl_surface.hpp"
#include "io/output/atomic_file.hpp"
#include "io/source/byte_order.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::stl {
namespace {

constexpr std::string_view kFormat = "stl";

// Locates the (block, row) of a block-major cell number.
class CellLocator {
 public:
  explicit CellLocator(const Mesh& mesh) : bases_(block_bases(mesh.cells)) {}
  std::pair<std::size_t, std::int64_t> locate(std::int64_t cell) const {
    const auto bases = bases_.values<std::int64_t>();
    const auto after = std::upper_bound(bases.begin(), bases.end(), cell);
    const auto block = static_cast<std::size_t>(after - bases.begin() - 1);
    return {block, cell - bases[block]};
  }

 private:
  NDArray bases_;
};

double element_as_double(const NDArray& array, std::int64_t index) {
  return visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    return static_cast<double>(static_cast<const T*>(array.data())[index]);
  });
}

// The per-cell arrays a facet may draw on, when the triangles come from 2-D cells.
class FacetData {
 public:
  FacetData(const Mesh& mesh, const detail::SurfaceTriangles& surface)
      : locator_(mesh), surface_(surface), points_(mesh.points) {
    if (surface.from_volume) return;
    normals_ = per_cell_array(mesh, "facet_normals", 3);
    attributes_ = per_cell_array(mesh, "stl:attribute", 1);
  }

  // Writes facet t's normal through `put(array, index)` (the stored one, in its own dtype) or
  // `put_computed(double)`.
  template <class PutStored, class PutComputed>
  void normal(std::size_t t, PutStored put_stored, PutComputed put_computed) const {
    if (normals_ != nullptr) {
      const auto [block, row] = locator_.locate(surface_.source_cell[t]);
      for (std::int64_t a = 0; a < 3; ++a) put_stored((*normals_)[block], 3 * row + a);
      return;
    }
    for (double value : computed_normal(t)) put_computed(value);
  }

  std::uint16_t attribute(std::size_t t) const {
    if (attributes_ == nullptr) return 0;
    const auto [block, row] = locator_.locate(surface_.source_cell[t]);
    const double value = element_as_double((*attributes_)[block], row);
    return value >= 0 && value <= 65535 ? static_cast<std::uint16_t>(value) : 0;
  }

  std::array<double, 3> computed_normal(std::size_t t) const {
    const auto p = detail::point_xyz(points_, surface_.corners[3 * t]);
    const auto q = detail::point_xyz(points_, surface_.corners[3 * t + 1]);
    const auto r = detail::point_xyz(points_, surface_.corners[3 * t + 2]);
    const std::array<double, 3> u{q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    const std::array<double, 3> v{r[0] - p[0], r[1] - p[1], r[2] - p[2]};
    std::array<double, 3> n{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (length > 0)
      for (double& value : n) value /= length;
    return n;
  }

 private:
  // The cell data `name` when every block has it with `width` values per cell.
  static const std::vector<NDArray>* per_cell_array(const Mesh& mesh, std::string_view name, std::int64_t width) {
    const std::vector<NDArray>* arrays = mesh.cell_data.find(name);
    if (arrays == nullptr || arrays->size() != mesh.cells.size()) return nullptr;
    for (std::size_t b = 0; b < arrays->size(); ++b)
      if ((*arrays)[b].row_width() != width || (*arrays)[b].rows() != mesh.cells[b].num_cells()) return nullptr;
    return arrays;
  }

  CellLocator locator_;
  const detail::SurfaceTriangles& surface_;
  const NDArray& points_;
  const std::vector<NDArray>* normals_ = nullptr;
  const std::vector<NDArray>* attributes_ = nullptr;
};

// ---- ASCII -------------------------------------------------------------------------------

struct Solid {
  std::string name;
  std::vector<std::size_t> triangles;
};

// One solid per Cell region when the regions do not overlap on the triangles' cells.
std::vector<Solid> plan_solids(const Mesh& mesh, const detail::SurfaceTriangles& surface, const std::string& path) {
  const std::size_t num_triangles = surface.source_cell.size();
  std::vector<int> region_of_cell;
  if (!surface.from_volume) {
    region_of_cell.assign(static_cast<std::size_t>(mesh.num_cells()), -1);
    for (std::size_t r = 0; r < mesh.regions.size(); ++r) {
      const Region& region = mesh.regions[r];
      if (region.kind != RegionKind::Cell) continue;
      if (region.name.find_first_of("\r\n") != std::string::npos)
        throw WriteError(path, std::string(kFormat), "region name '" + region.name + "' holds a line break");
      for (std::int64_t cell : region.entries.values<std::int64_t>()) {
        int& owner = region_of_cell[static_cast<std::size_t>(cell)];
        if (owner >= 0 && owner != static_cast<int>(r)) return {Solid{"", {}}};  // overlapping: one solid
        owner = static_cast<int>(r);
      }
    }
  }
  std::vector<Solid> solids(mesh.regions.size() + 1);
  for (std::size_t r = 0; r < mesh.regions.size(); ++r) solids[r + 1].name = mesh.regions[r].name;
  for (std::size_t t = 0; t < num_triangles; ++t) {
    const int region = region_of_cell.empty() ? -1 : region_of_cell[static_cast<std::size_t>(surface.source_cell[t])];
    solids[static_cast<std::size_t>(region + 1)].triangles.push_back(t);
  }
  std::erase_if(solids, [](const Solid& solid) { return solid.triangles.empty(); });
  if (solids.empty()) solids.push_back(Solid{"", {}});
  return solids;
}

void put_stored_number(io::OutputBuffer& out, const NDArray& array, std::int64_t index) {
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    out.number(static_cast<const T*>(array.data())[index]);
  });
}

void write_ascii(io::OutputBuffer& out, const Mesh& mesh, const detail::SurfaceTriangles& surface,
                 const std::string& path) {
  const FacetData data(mesh, surface);
  const std::int64_t dim = mesh.points.row_width();
  const auto put_vertex = [&](std::int64_t point) {
    out.text("  vertex");
    for (std::int64_t a = 0; a < 3; ++a) {
      out.put(' ');
      if (a < dim) put_stored_number(out, mesh.points, point * dim + a);
      else out.put('0');
    }
    out.put('\n');
  };
  for (const Solid& solid : plan_solids(mesh, surface, path)) {
    out.text(solid.name.empty() ? "solid\n" : "solid " + solid.name + "\n");
    for (std::size_t t : solid.triangles) {
      out.text("facet normal");
      data.normal(
          t, [&](const NDArray& array, std::int64_t index) { out.put(' '); put_stored_number(out, array, index); },
          [&](double value) { out.put(' '); out.number(value); });
      out.text("\n outer loop\n");
      for (int corner = 0; corner < 3; ++corner) put_vertex(surface.corners[3 * t + corner]);
      out.text(" endloop\nendfacet\n");
    }
    out.text(solid.name.empty() ? "endsolid\n" : "endsolid " + solid.name + "\n");
  }
}

// ---- binary ------------------------------------------------------------------------------

void write_binary(io::OutputBuffer& out, const Mesh& mesh, const detail::SurfaceTriangles& surface,
                  const std::string& path) {
  const std::size_t num_triangles = surface.source_cell.size();
  if (num_triangles > std::numeric_limits<std::uint32_t>::max())
    throw WriteError(path, std::string(kFormat), "binary STL holds at most 2^32 - 1 triangles");
  // A header starting with "solid" would make naive readers take the file for ASCII.
  std::string header = "meshio++ binary STL";
  header.resize(80, ' ');
  out.text(header);
  std::uint32_t count = static_cast<std::uint32_t>(num_triangles);
  if (!io::kHostIsLittleEndian) io::swap_bytes_in_place(&count, sizeof count, 1);
  out.bytes(&count, sizeof count);

  const FacetData data(mesh, surface);
  for (std::size_t t = 0; t < num_triangles; ++t) {
    std::array<float, 12> values;  // normal, then three corners
    std::size_t next = 0;
    data.normal(
        t, [&](const NDArray& array, std::int64_t index) { values[next++] = static_cast<float>(element_as_double(array, index)); },
        [&](double value) { values[next++] = static_cast<float>(value); });
    for (int corner = 0; corner < 3; ++corner)
      for (double value : detail::point_xyz(mesh.points, surface.corners[3 * t + corner]))
        values[next++] = static_cast<float>(value);
    std::uint16_t attribute = data.attribute(t);
    if (!io::kHostIsLittleEndian) {
      io::swap_bytes_in_place(values.data(), sizeof(float), values.size());
      io::swap_bytes_in_place(&attribute, sizeof attribute, 1);
    }
    out.bytes(values.data(), sizeof values);
    out.bytes(&attribute, sizeof attribute);
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const bool binary = options.get_bool("binary", false);
  if (mesh.points.ndim() != 2 || (mesh.points.dim(1) != 2 && mesh.points.dim(1) != 3))
    throw WriteError(path, std::string(kFormat), "STL needs 2-D or 3-D points");
  const detail::SurfaceTriangles surface = detail::surface_triangles(mesh);
  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  if (binary) write_binary(out, mesh, surface, path);
  else write_ascii(out, mesh, surface, path);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::stl
