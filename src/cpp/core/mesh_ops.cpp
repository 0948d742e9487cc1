// Clean-up operations (include/meshioplusplus/mesh_ops.hpp). Two renumberings carry every
// operation: of points (old index → new or -1: connectivity, point data, Point regions) and of
// cells (old block-major index → new or -1: cell data, Cell and Side regions).
#include "meshioplusplus/mesh_ops.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "meshioplusplus/cell_types.hpp"

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
  std::vector<double> xyz(n * width);
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* values = mesh.points.data_as<T>();
    for (std::size_t i = 0; i < n * width; ++i) xyz[i] = static_cast<double>(values[i]) + 0.0;  // -0 → +0
  });
  // Grid cells of edge `tolerance`: a point looks in its cell and the 3^d neighbours for an
  // earlier representative within the tolerance (0: one bucket per exact position).
  const double cell = tolerance;
  auto key_of = [&](const std::int64_t* c) {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (std::size_t k = 0; k < width; ++k) h = (h ^ static_cast<std::uint64_t>(c[k])) * 0x100000001B3ull;
    return h;
  };
  std::unordered_map<std::uint64_t, std::vector<std::int64_t>> grid;
  grid.reserve(n);
  std::vector<std::int64_t> representative(n), coords(width), probe(width);
  const double squared = tolerance * tolerance;
  std::size_t neighbours = 1;
  for (std::size_t k = 0; k < width; ++k) neighbours *= tolerance > 0 ? 3 : 1;
  for (std::size_t i = 0; i < n; ++i) {
    const double* p = &xyz[i * width];
    // tolerance 0: the key is the coordinates' bits (equal points, -0 made +0 above, share it)
    for (std::size_t k = 0; k < width; ++k)
      coords[k] = tolerance > 0 ? static_cast<std::int64_t>(std::floor(p[k] / cell)) : std::bit_cast<std::int64_t>(p[k]);
    std::int64_t found = -1;
    for (std::size_t offset = 0; offset < neighbours && found < 0; ++offset) {
      std::size_t rest = offset;
      for (std::size_t k = 0; k < width; ++k) {
        probe[k] = coords[k] + (tolerance > 0 ? static_cast<std::int64_t>(rest % 3) - 1 : 0);
        rest /= 3;
      }
      const auto bucket = grid.find(key_of(probe.data()));
      if (bucket == grid.end()) continue;
      for (std::int64_t j : bucket->second) {
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
    } else {
      representative[i] = static_cast<std::int64_t>(i);
      grid[key_of(coords.data())].push_back(static_cast<std::int64_t>(i));
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
