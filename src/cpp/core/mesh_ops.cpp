// Clean-up operations (include/meshioplusplus/mesh_ops.hpp). Two renumberings carry every
// operation: of points (old index → new or -1: connectivity, point data, Point regions) and of
// cells (old block-major index → new or -1: cell data, Cell and Side regions).
#include "meshioplusplus/mesh_ops.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "meshioplusplus/cell_types.hpp"
#include "core/facet_map.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus {
namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

// Rows of `array` kept, in the order `kept` lists them (a gather over any dtype and shape).
NDArray gather_rows(const NDArray& array, const std::vector<std::int64_t>& kept) {
  Shape shape = array.shape();
  shape[0] = static_cast<std::int64_t>(kept.size());
  NDArray out = NDArray::allocate(array.dtype(), shape);
  const std::size_t row_bytes = static_cast<std::size_t>(array.row_width()) * dtype_size(array.dtype());
  const auto* from = static_cast<const unsigned char*>(array.data());
  auto* to = static_cast<unsigned char*>(out.data());
  for (std::size_t i = 0; i < kept.size(); ++i)
    std::memcpy(to + i * row_bytes, from + static_cast<std::size_t>(kept[i]) * row_bytes, row_bytes);
  return out;
}

// The node list of a block (rectangular connectivity, or the flat list of a ragged one).
std::span<std::int64_t> node_list(CellBlock& block) { return block.connectivity.values<std::int64_t>(); }

void check_connectivity(const Mesh& mesh) {
  const std::int64_t n = mesh.num_points();
  for (const CellBlock& block : mesh.cells) {
    if (block.connectivity.dtype() != DType::int64) fail("cells['" + block.type + "'] must be int64");
    for (std::int64_t node : block.connectivity.values<std::int64_t>())
      if (node < 0 || node >= n)
        fail("cells['" + block.type + "'] holds node " + std::to_string(node) + " outside [0, " + std::to_string(n) + ")");
  }
}

// Applies old → new point numbers (-1: removed; no cell may use a removed point).
void renumber_points(Mesh& mesh, const std::vector<std::int64_t>& new_index, const std::vector<std::int64_t>& kept) {
  for (CellBlock& block : mesh.cells) {
    if (!block.connectivity.owns_data()) block.connectivity = block.connectivity.copy();
    for (std::int64_t& node : node_list(block)) node = new_index[static_cast<std::size_t>(node)];
  }
  mesh.points = gather_rows(mesh.points, kept);
  for (auto& [name, array] : mesh.point_data) array = gather_rows(array, kept);
  std::vector<bool> seen(kept.size());
  for (Region& region : mesh.regions) {
    if (region.kind != RegionKind::Point) continue;
    std::vector<std::int64_t> entries;
    std::fill(seen.begin(), seen.end(), false);
    for (std::int64_t old : region.entries.values<std::int64_t>()) {
      if (old < 0 || old >= static_cast<std::int64_t>(new_index.size())) continue;
      const std::int64_t now = new_index[static_cast<std::size_t>(old)];
      if (now >= 0 && !seen[static_cast<std::size_t>(now)]) {
        seen[static_cast<std::size_t>(now)] = true;
        entries.push_back(now);
      }
    }
    region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size())});
    std::copy(entries.begin(), entries.end(), region.entries.data_as<std::int64_t>());
  }
}

// Regions the operation emptied go (`had_entries`: taken before it); empty ones it found stay.
std::vector<bool> regions_with_entries(const Mesh& mesh) {
  std::vector<bool> had;
  for (const Region& region : mesh.regions) had.push_back(region.entries.rows() > 0);
  return had;
}

void drop_emptied_regions(Mesh& mesh, const std::vector<bool>& had_entries) {
  std::vector<Region> kept;
  for (std::size_t r = 0; r < mesh.regions.size(); ++r)
    if (!had_entries[r] || mesh.regions[r].entries.rows() > 0) kept.push_back(std::move(mesh.regions[r]));
  mesh.regions = std::move(kept);
}

int dimension_of(const CellBlock& block) {
  if (const CellTypeInfo* info = find_cell_type(block.type)) return info->dimension;
  return -1;  // unknown types: kept only when nothing has a dimension
}

}  // namespace

bool prune_z_0(Mesh& mesh, double tolerance) {
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) != 3 || mesh.num_points() == 0) return false;
  bool flat = true;
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      const T* values = mesh.points.data_as<T>();
      for (std::int64_t i = 0; flat && i < mesh.num_points(); ++i) flat = std::abs(static_cast<double>(values[3 * i + 2])) < tolerance;
    } else {
      const T* values = mesh.points.data_as<T>();
      for (std::int64_t i = 0; flat && i < mesh.num_points(); ++i) flat = values[3 * i + 2] == 0;
    }
  });
  if (!flat) return false;
  NDArray pruned = NDArray::allocate(mesh.points.dtype(), {mesh.num_points(), 2});
  const std::size_t size = dtype_size(mesh.points.dtype());
  const auto* from = static_cast<const unsigned char*>(mesh.points.data());
  auto* to = static_cast<unsigned char*>(pruned.data());
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) std::memcpy(to + 2 * size * i, from + 3 * size * i, 2 * size);
  mesh.points = std::move(pruned);
  return true;
}

std::int64_t remove_orphaned_nodes(Mesh& mesh) {
  check_connectivity(mesh);
  const auto n = static_cast<std::size_t>(mesh.num_points());
  std::vector<bool> used(n, false);
  for (const CellBlock& block : mesh.cells)
    for (std::int64_t node : block.connectivity.values<std::int64_t>()) used[static_cast<std::size_t>(node)] = true;
  std::vector<std::int64_t> new_index(n, -1), kept;
  for (std::size_t i = 0; i < n; ++i)
    if (used[i]) {
      new_index[i] = static_cast<std::int64_t>(kept.size());
      kept.push_back(static_cast<std::int64_t>(i));
    }
  const auto removed = static_cast<std::int64_t>(n - kept.size());
  if (removed == 0) return 0;
  const std::vector<bool> had_entries = regions_with_entries(mesh);
  renumber_points(mesh, new_index, kept);
  drop_emptied_regions(mesh, had_entries);
  return removed;
}

std::int64_t remove_lower_dimensional_cells(Mesh& mesh) {
  int top = -1;
  for (const CellBlock& block : mesh.cells) top = std::max(top, dimension_of(block));
  std::vector<bool> keep_block(mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) keep_block[b] = dimension_of(mesh.cells[b]) == top;
  if (std::all_of(keep_block.begin(), keep_block.end(), [](bool keep) { return keep; })) return 0;

  // Old block-major cell index → new, or -1 in a removed block.
  const NDArray old_bases = block_bases(mesh.cells);
  const std::int64_t* bases = old_bases.data_as<std::int64_t>();
  const std::int64_t total = bases[mesh.cells.size()];
  std::vector<std::int64_t> new_cell(static_cast<std::size_t>(total), -1);
  std::int64_t next = 0;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    if (keep_block[b])
      for (std::int64_t c = bases[b]; c < bases[b + 1]; ++c) new_cell[static_cast<std::size_t>(c)] = next++;

  const std::vector<bool> had_entries = regions_with_entries(mesh);
  std::vector<CellBlock> blocks;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    if (keep_block[b]) blocks.push_back(std::move(mesh.cells[b]));
  mesh.cells = std::move(blocks);
  for (auto& [name, arrays] : mesh.cell_data) {
    std::vector<NDArray> kept;
    for (std::size_t b = 0; b < arrays.size() && b < keep_block.size(); ++b)
      if (keep_block[b]) kept.push_back(std::move(arrays[b]));
    arrays = std::move(kept);
  }
  for (Region& region : mesh.regions) {
    if (region.kind == RegionKind::Point) continue;
    const std::int64_t width = region.kind == RegionKind::Side ? 2 : 1;
    const std::span<const std::int64_t> entries = region.entries.values<std::int64_t>();
    std::vector<std::int64_t> kept;
    for (std::size_t i = 0; i + static_cast<std::size_t>(width) <= entries.size(); i += static_cast<std::size_t>(width)) {
      const std::int64_t old = entries[i];
      if (old < 0 || old >= total || new_cell[static_cast<std::size_t>(old)] < 0) continue;
      kept.push_back(new_cell[static_cast<std::size_t>(old)]);
      if (width == 2) kept.push_back(entries[i + 1]);
    }
    const auto rows = static_cast<std::int64_t>(kept.size()) / width;
    region.entries = NDArray::allocate(DType::int64, width == 2 ? Shape{rows, 2} : Shape{rows});
    std::copy(kept.begin(), kept.end(), region.entries.data_as<std::int64_t>());
  }
  drop_emptied_regions(mesh, had_entries);
  return total - next;
}

std::int64_t merge_points(Mesh& mesh, double tolerance) {
  if (!(tolerance >= 0.0) || !std::isfinite(tolerance)) fail("merge_points: the tolerance must be finite and >= 0");
  check_connectivity(mesh);
  const auto n = static_cast<std::size_t>(mesh.num_points());
  if (n == 0) return 0;
  const auto width = static_cast<std::size_t>(mesh.points.row_width());
  if (width > 3) fail("merge_points: points of more than 3 coordinates");
  std::vector<double> xyz(n * width);
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* values = mesh.points.data_as<T>();
    for (std::size_t i = 0; i < n * width; ++i) xyz[i] = static_cast<double>(values[i]) + 0.0;  // -0 → +0
  });
  // Grid cells of edge `tolerance` (0: a cell per exact position, keyed by the coordinates'
  // bits): a point looks in its cell and the 3^d around it for an earlier representative
  // within the tolerance. The table holds one representative per occupied cell (open
  // addressing on the cell's coordinates, recomputed from that point), the others of the cell
  // chained behind it — ids only, no keys stored.
  using Cell = std::array<std::int64_t, 3>;
  // Edge 2 × tolerance: a point within the tolerance of p lies in p's cell or, along each axis,
  // in the neighbour on the side of the cell p is nearer to — 2^d cells to look in, p's first.
  const double edge = 2 * tolerance;
  auto cell_of = [&](std::size_t i) {
    Cell c{0, 0, 0};
    for (std::size_t k = 0; k < width; ++k)
      c[k] = tolerance > 0 ? static_cast<std::int64_t>(std::floor(xyz[i * width + k] / edge))
                           : std::bit_cast<std::int64_t>(xyz[i * width + k]);
    return c;
  };
  auto hash = [](const Cell& c) {
    std::uint64_t h = 0;
    for (std::int64_t v : c) h = detail::mix(h ^ static_cast<std::uint64_t>(v));
    return h;
  };
  std::vector<Cell> cells(n);
  for (std::size_t i = 0; i < n; ++i) cells[i] = cell_of(i);
  std::vector<std::int64_t> table(std::bit_ceil(std::max<std::size_t>(64, 2 * n)), -1);  // head representative of a cell
  std::vector<std::int64_t> next(n, -1);  // the next representative of the same cell
  const std::size_t mask = table.size() - 1;
  auto slot_of = [&](const Cell& c) {
    std::size_t slot = hash(c) & mask;
    while (table[slot] >= 0 && cells[static_cast<std::size_t>(table[slot])] != c) slot = (slot + 1) & mask;
    return slot;
  };
  std::vector<std::int64_t> representative(n);
  const double squared = tolerance * tolerance;
  const std::size_t probes = tolerance > 0 ? (std::size_t{1} << width) : 1;
  for (std::size_t i = 0; i < n; ++i) {
    const double* p = &xyz[i * width];
    std::int64_t found = -1;
    const Cell home = cells[i];
    Cell toward{0, 0, 0};  // -1 or +1: the nearer neighbour along each axis
    if (tolerance > 0)
      for (std::size_t k = 0; k < width; ++k) toward[k] = p[k] / edge - static_cast<double>(home[k]) < 0.5 ? -1 : 1;
    for (std::size_t probe_bits = 0; probe_bits < probes && found < 0; ++probe_bits) {
      Cell probe = home;
      for (std::size_t k = 0; k < width; ++k)
        if (probe_bits >> k & 1) probe[k] += toward[k];
      for (std::int64_t j = table[slot_of(probe)]; j >= 0; j = next[static_cast<std::size_t>(j)]) {
        const double* q = &xyz[static_cast<std::size_t>(j) * width];
        double distance = 0;
        bool equal = true;
        for (std::size_t k = 0; k < width; ++k) {
          distance += (p[k] - q[k]) * (p[k] - q[k]);
          equal = equal && p[k] == q[k];
        }
        if (tolerance > 0 ? distance <= squared : equal) {
          found = j;
          break;
        }
      }
    }
    if (found >= 0) {
      representative[i] = found;
      continue;
    }
    representative[i] = static_cast<std::int64_t>(i);
    const std::size_t slot = slot_of(home);  // at most n cells: the table never fills past half
    if (table[slot] < 0) {
      table[slot] = static_cast<std::int64_t>(i);
    } else {  // append behind the head: earlier representatives are found first
      std::int64_t last = table[slot];
      while (next[static_cast<std::size_t>(last)] >= 0) last = next[static_cast<std::size_t>(last)];
      next[static_cast<std::size_t>(last)] = static_cast<std::int64_t>(i);
    }
  }
  std::vector<std::int64_t> new_index(n, -1), kept;
  for (std::size_t i = 0; i < n; ++i)
    if (representative[i] == static_cast<std::int64_t>(i)) {
      new_index[i] = static_cast<std::int64_t>(kept.size());
      kept.push_back(static_cast<std::int64_t>(i));
    }
  for (std::size_t i = 0; i < n; ++i) new_index[i] = new_index[static_cast<std::size_t>(representative[i])];
  const auto removed = static_cast<std::int64_t>(n - kept.size());
  if (removed == 0) return 0;
  renumber_points(mesh, new_index, kept);
  return removed;
}

void transform(Mesh& mesh, std::span<const double> matrix, std::int64_t rows, std::int64_t columns) {
  if (mesh.points.ndim() != 2) fail("transform: points must be (n, d)");
  const std::int64_t d = mesh.points.dim(1);
  const bool linear = rows == d && columns == d, affine = rows == d && columns == d + 1,
             homogeneous = rows == d + 1 && columns == d + 1;
  if (!(linear || affine || homogeneous) || static_cast<std::int64_t>(matrix.size()) != rows * columns)
    fail("transform: a matrix of shape (" + std::to_string(rows) + ", " + std::to_string(columns) + ") for points with " +
         std::to_string(d) + " columns (give d×d, d×(d+1) or (d+1)×(d+1))");
  if (homogeneous) {
    for (std::int64_t k = 0; k < d; ++k)
      if (matrix[static_cast<std::size_t>(d * columns + k)] != 0.0) fail("transform: the last row of a homogeneous matrix must be 0 … 0 1");
    if (matrix[static_cast<std::size_t>(d * columns + d)] != 1.0) fail("transform: the last row of a homogeneous matrix must be 0 … 0 1");
  }
  if (!mesh.points.owns_data()) mesh.points = mesh.points.copy();
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_floating_point_v<T>) {
      fail("transform: points must be floating point");
    } else {
      T* values = mesh.points.data_as<T>();
      std::vector<double> in(static_cast<std::size_t>(d));
      for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
        T* p = values + i * d;
        for (std::int64_t k = 0; k < d; ++k) in[static_cast<std::size_t>(k)] = static_cast<double>(p[k]);
        for (std::int64_t r = 0; r < d; ++r) {
          double sum = columns > d ? matrix[static_cast<std::size_t>(r * columns + d)] : 0.0;
          for (std::int64_t k = 0; k < d; ++k) sum += matrix[static_cast<std::size_t>(r * columns + k)] * in[static_cast<std::size_t>(k)];
          p[r] = static_cast<T>(sum);
        }
      }
    }
  });
}

}  // namespace meshioplusplus

namespace meshioplusplus {
namespace {

std::string_view facet_type(int corners) { return corners == 2 ? "line" : corners == 3 ? "triangle" : "quad"; }

}  // namespace

Mesh extract_surface(const Mesh& mesh) {
  check_connectivity(mesh);
  int top = -1;
  for (const CellBlock& block : mesh.cells) top = std::max(top, dimension_of(block));
  if (top < 2) fail("extract_surface: the mesh has no 2-D or 3-D cells");
  const NDArray bases_array = block_bases(mesh.cells);
  const std::int64_t* bases = bases_array.data_as<std::int64_t>();

  // A facet is on the boundary when no other facet of a top-dimensional cell has its corners.
  // Facets are bucketed by their smallest corner (a CSR over the points: a few dozen facets a
  // bucket, sorted by key there), which needs O(facets) integers, not a table of keys.
  struct Source {
    std::size_t block;
    std::span<const FacetCorners> facets;
  };
  std::vector<Source> sources;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    if (dimension_of(block) != top || block.is_ragged()) continue;
    if (const std::span<const FacetCorners> facets = cell_facets(block.type); !facets.empty()) sources.push_back({b, facets});
  }
  auto key_of = [&](std::size_t b, std::int64_t local, const FacetCorners& facet) {
    const CellBlock& block = mesh.cells[b];
    const std::int64_t* cell = block.connectivity.data_as<std::int64_t>() + local * block.connectivity.row_width();
    detail::FacetKey key = detail::make_key(cell, facet);
    std::rotate(key.begin(), std::find_if(key.begin(), key.end(), [](std::int64_t v) { return v >= 0; }), key.end());
    return key;  // corners ascending, then the -1 padding: key[0] is the smallest corner
  };
  auto smallest_corner = [&](std::size_t b, std::int64_t local, const FacetCorners& facet) {
    const CellBlock& block = mesh.cells[b];
    const std::int64_t* cell = block.connectivity.data_as<std::int64_t>() + local * block.connectivity.row_width();
    std::int64_t smallest = cell[facet.corners[0]];
    for (int i = 1; i < facet.count; ++i) smallest = std::min(smallest, cell[facet.corners[static_cast<std::size_t>(i)]]);
    return static_cast<std::size_t>(smallest);
  };
  const auto num_points = static_cast<std::size_t>(mesh.num_points());
  std::vector<std::int64_t> start(num_points + 1, 0);
  for (const Source& source : sources)
    for (std::int64_t c = 0; c < mesh.cells[source.block].num_cells(); ++c)
      for (const FacetCorners& facet : source.facets) ++start[smallest_corner(source.block, c, facet) + 1];
  for (std::size_t p = 0; p < num_points; ++p) start[p + 1] += start[p];
  // A facet instance: (global cell) * 8 + local facet.
  std::vector<std::int64_t> bucket(static_cast<std::size_t>(start[num_points]));
  {
    std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
    for (const Source& source : sources)
      for (std::int64_t c = 0; c < mesh.cells[source.block].num_cells(); ++c)
        for (std::size_t f = 0; f < source.facets.size(); ++f) {
          const std::size_t p = smallest_corner(source.block, c, source.facets[f]);
          bucket[static_cast<std::size_t>(fill[p]++)] = (bases[source.block] + c) * 8 + static_cast<std::int64_t>(f);
        }
  }
  auto block_of = [&](std::int64_t cell) {
    return static_cast<std::size_t>(std::upper_bound(bases, bases + mesh.cells.size() + 1, cell) - bases) - 1;
  };
  auto instance_key = [&](std::int64_t instance) {
    const std::int64_t cell = instance / 8;
    const std::size_t b = block_of(cell);
    return key_of(b, cell - bases[b], cell_facets(mesh.cells[b].type)[static_cast<std::size_t>(instance % 8)]);
  };
  std::vector<bool> boundary(static_cast<std::size_t>(bases[mesh.cells.size()]) * 8, false);
  std::vector<std::pair<detail::FacetKey, std::int64_t>> keyed;
  for (std::size_t p = 0; p < num_points; ++p) {
    keyed.clear();
    for (std::int64_t i = start[p]; i < start[p + 1]; ++i) keyed.emplace_back(instance_key(bucket[static_cast<std::size_t>(i)]), bucket[static_cast<std::size_t>(i)]);
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t i = 0; i < keyed.size(); ++i) {
      const bool alone = (i == 0 || keyed[i - 1].first != keyed[i].first) &&
                         (i + 1 == keyed.size() || keyed[i + 1].first != keyed[i].first);
      if (alone) boundary[static_cast<std::size_t>(keyed[i].second)] = true;
    }
  }

  // Boundary facets grouped by corner count, cell by cell in block-major order.
  struct Facet {
    std::int64_t cell;
    std::int32_t facet;
  };
  std::vector<std::vector<Facet>> by_corners(5);
  for (const Source& source : sources)
    for (std::int64_t c = 0; c < mesh.cells[source.block].num_cells(); ++c)
      for (std::size_t f = 0; f < source.facets.size(); ++f) {
        const std::int64_t cell = bases[source.block] + c;
        if (boundary[static_cast<std::size_t>(cell * 8 + static_cast<std::int64_t>(f))])
          by_corners[static_cast<std::size_t>(source.facets[f].count)].push_back({cell, static_cast<std::int32_t>(f)});
      }

  auto locate = [&](std::int64_t cell) {
    const std::size_t b = static_cast<std::size_t>(std::upper_bound(bases, bases + mesh.cells.size() + 1, cell) - bases) - 1;
    return std::pair{b, cell - bases[b]};
  };

  Mesh surface;
  surface.points = mesh.points;
  surface.point_data = mesh.point_data;
  surface.field_data = mesh.field_data;
  surface.string_field_data = mesh.string_field_data;
  std::vector<Facet> listed;  // surface cell (block-major) → its origin
  std::vector<NDArray> origin_cell, origin_facet;
  for (int corners = 2; corners <= 4; ++corners) {
    const std::vector<Facet>& facets = by_corners[static_cast<std::size_t>(corners)];
    if (facets.empty()) continue;
    const auto n = static_cast<std::int64_t>(facets.size());
    CellBlock block{std::string(facet_type(corners)), NDArray::allocate(DType::int64, {n, corners}), {}, {}};
    std::int64_t* out = block.connectivity.data_as<std::int64_t>();
    NDArray cells = NDArray::allocate(DType::int64, {n}), locals = NDArray::allocate(DType::int64, {n});
    for (std::int64_t i = 0; i < n; ++i) {
      const auto [b, local] = locate(facets[static_cast<std::size_t>(i)].cell);
      const CellBlock& source = mesh.cells[b];
      const std::int64_t* cell = source.connectivity.data_as<std::int64_t>() + local * source.connectivity.row_width();
      const FacetCorners& facet = cell_facets(source.type)[static_cast<std::size_t>(facets[static_cast<std::size_t>(i)].facet)];
      for (int k = 0; k < corners; ++k) out[i * corners + k] = cell[facet.corners[static_cast<std::size_t>(k)]];
      cells.data_as<std::int64_t>()[i] = facets[static_cast<std::size_t>(i)].cell;
      locals.data_as<std::int64_t>()[i] = facets[static_cast<std::size_t>(i)].facet;
      listed.push_back(facets[static_cast<std::size_t>(i)]);
    }
    surface.cells.push_back(std::move(block));
    origin_cell.push_back(std::move(cells));
    origin_facet.push_back(std::move(locals));
  }
  if (surface.cells.empty()) fail("extract_surface: no boundary facet (no cell type with a facet table)");

  // Cell data of the source, each facet taking its cell's row.
  for (const auto& [name, arrays] : mesh.cell_data) {
    std::vector<NDArray> per_block;
    std::size_t at = 0;
    for (const CellBlock& block : surface.cells) {
      std::vector<std::int64_t> rows;
      std::size_t source_block = SIZE_MAX;
      bool one_block = true;
      for (std::int64_t i = 0; i < block.num_cells(); ++i) {
        const auto [b, local] = locate(listed[at + static_cast<std::size_t>(i)].cell);
        if (source_block == SIZE_MAX) source_block = b;
        one_block = one_block && b == source_block;
        rows.push_back(local);
      }
      if (!one_block) {  // facets of cells of several blocks: gather through a stacked copy
        std::vector<std::int64_t> global;
        for (std::int64_t i = 0; i < block.num_cells(); ++i) global.push_back(listed[at + static_cast<std::size_t>(i)].cell);
        const NDArray& first = arrays.front();
        Shape shape = first.shape();
        shape[0] = bases[mesh.cells.size()];
        bool stackable = true;
        for (const NDArray& array : arrays) stackable = stackable && array.dtype() == first.dtype() && array.row_width() == first.row_width();
        if (!stackable) fail("extract_surface: cell data '" + name + "' differs in dtype or shape between blocks");
        NDArray stacked = NDArray::allocate(first.dtype(), shape);
        std::size_t offset = 0;
        for (const NDArray& array : arrays) {
          std::memcpy(static_cast<unsigned char*>(stacked.data()) + offset, array.data(), array.nbytes());
          offset += array.nbytes();
        }
        per_block.push_back(gather_rows(stacked, global));
      } else {
        per_block.push_back(gather_rows(arrays[source_block], rows));
      }
      at += static_cast<std::size_t>(block.num_cells());
    }
    surface.cell_data.set(name, std::move(per_block));
  }
  surface.cell_data.set("surface:cell", std::move(origin_cell));
  surface.cell_data.set("surface:facet", std::move(origin_facet));

  // Side regions of the source → Cell regions of the surface (their facets on the boundary).
  std::unordered_map<std::int64_t, std::int64_t> surface_cell_of;  // cell * 8 + facet → surface cell
  for (std::size_t i = 0; i < listed.size(); ++i) surface_cell_of[listed[i].cell * 8 + listed[i].facet] = static_cast<std::int64_t>(i);
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Side) continue;
    const std::span<const std::int64_t> pairs = region.entries.values<std::int64_t>();
    std::vector<std::int64_t> entries;
    for (std::size_t i = 0; i + 1 < pairs.size(); i += 2)
      if (const auto found = surface_cell_of.find(pairs[i] * 8 + pairs[i + 1]); found != surface_cell_of.end())
        entries.push_back(found->second);
    if (entries.empty()) continue;
    Region cells{region.name, RegionKind::Cell, top - 1, region.tag, NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size())})};
    std::copy(entries.begin(), entries.end(), cells.entries.data_as<std::int64_t>());
    surface.regions.push_back(std::move(cells));
  }
  remove_orphaned_nodes(surface);
  return surface;
}

}  // namespace meshioplusplus
