// Clean-up operations (include/meshioplusplus/mesh_ops.hpp). Two renumberings carry every
// operation: of points (old index → new or -1: connectivity, point data, Point regions) and of
// cells (old block-major index → new or -1: cell data, Cell and Side regions).
#include "meshioplusplus/mesh_ops.hpp"

#include "core/mesh_ops_internal.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/threads.hpp"
#include "core/facet_map.hpp"
#include "core/parallel_ranges.hpp"

namespace meshioplusplus {
namespace detail {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

NDArray gather_rows(const NDArray& array, std::span<const std::int64_t> kept) {
  Shape shape = array.shape();
  shape[0] = static_cast<std::int64_t>(kept.size());
  NDArray out = NDArray::allocate(array.dtype(), shape);
  const std::size_t row_bytes = static_cast<std::size_t>(array.row_width()) * dtype_size(array.dtype());
  const auto* from = static_cast<const unsigned char*>(array.data());
  auto* to = static_cast<unsigned char*>(out.data());
  // Rows of a size known here are copied inline (a tetrahedron, a point: 32, 24 bytes), where a
  // call of memcpy a row costs more than the copy.
  auto copy = [&]<std::size_t Bytes>(std::integral_constant<std::size_t, Bytes>) {
    parallel_ranges(kept.size(), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i)
        std::memcpy(to + i * (Bytes ? Bytes : row_bytes), from + static_cast<std::size_t>(kept[i]) * (Bytes ? Bytes : row_bytes),
                    Bytes ? Bytes : row_bytes);
    });
  };
  switch (row_bytes) {
    case 4: copy(std::integral_constant<std::size_t, 4>{}); break;
    case 8: copy(std::integral_constant<std::size_t, 8>{}); break;
    case 12: copy(std::integral_constant<std::size_t, 12>{}); break;
    case 16: copy(std::integral_constant<std::size_t, 16>{}); break;
    case 24: copy(std::integral_constant<std::size_t, 24>{}); break;
    case 32: copy(std::integral_constant<std::size_t, 32>{}); break;
    case 64: copy(std::integral_constant<std::size_t, 64>{}); break;
    default: copy(std::integral_constant<std::size_t, 0>{});
  }
  return out;
}

std::size_t count_flagged(std::span<const std::uint8_t> flags) {
  const std::size_t ranges = flags.size() >= (std::size_t{1} << 16) ? std::max(1u, thread_count()) : 1;
  std::vector<std::size_t> counts(ranges, 0);
  parallel_ranges(ranges, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t range = first; range < last; ++range) {
      std::size_t count = 0;  // a local: the ranges' totals share a cache line
      for (std::size_t i = flags.size() * range / ranges; i < flags.size() * (range + 1) / ranges; ++i) count += flags[i] != 0;
      counts[range] = count;
    }
  });
  std::size_t total = 0;
  for (std::size_t count : counts) total += count;
  return total;
}

std::vector<std::int64_t> flagged_positions(std::span<const std::uint8_t> flags, std::size_t count) {
  std::vector<std::int64_t> positions(count);
  const std::size_t ranges = flags.size() >= (std::size_t{1} << 16) ? std::max(1u, thread_count()) : 1;
  std::vector<std::size_t> first_of(ranges + 1, 0);  // each range's count, then its first output
  parallel_ranges(ranges, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t range = first; range < last; ++range) {
      std::size_t found = 0;
      for (std::size_t i = flags.size() * range / ranges; i < flags.size() * (range + 1) / ranges; ++i) found += flags[i] != 0;
      first_of[range + 1] = found;
    }
  });
  for (std::size_t range = 0; range < ranges; ++range) first_of[range + 1] += first_of[range];
  if (first_of[ranges] != count) fail("flagged_positions: the count does not match the flags");
  parallel_ranges(ranges, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t range = first; range < last; ++range) {
      std::size_t at = first_of[range];
      const std::size_t begin = flags.size() * range / ranges;
      // Up to the range's last flagged index only: past it every write would land in the next
      // range's first slot, which that range's thread may already have filled (a race that put
      // an unused point into extract_surface's output and -1 into its cells at 2 threads).
      std::size_t end = flags.size() * (range + 1) / ranges;
      while (end > begin && flags[end - 1] == 0) --end;
      for (std::size_t i = begin; i < end; ++i) {
        positions[at] = static_cast<std::int64_t>(i);  // kept only when flagged: no branch to mispredict
        at += flags[i] != 0;
      }
    }
  });
  return positions;
}

namespace {
// The node list of a block (rectangular connectivity, or the flat list of a ragged one).
std::span<const std::int64_t> node_list(const CellBlock& block) { return block.connectivity.values<std::int64_t>(); }
}  // namespace

void check_connectivity(const Mesh& mesh) {
  const std::int64_t n = mesh.num_points();
  for (const CellBlock& block : mesh.cells) {
    if (block.connectivity.dtype() != DType::int64) fail("cells['" + block.type + "'] must be int64");
    const std::span<const std::int64_t> nodes = block.connectivity.values<std::int64_t>();
    if (const std::size_t at = first_index_outside(nodes, n); at < nodes.size())
      fail("cells['" + block.type + "'] holds node " + std::to_string(nodes[at]) + " outside [0, " + std::to_string(n) + ")");
  }
}

void renumber_points(Mesh& mesh, std::span<const std::int64_t> new_index, std::span<const std::int64_t> kept) {
  for (CellBlock& block : mesh.cells) {  // into new arrays: the old ones may be shared (a subset's source)
    NDArray renumbered = NDArray::allocate(DType::int64, block.connectivity.shape());
    std::int64_t* out = renumbered.data_as<std::int64_t>();
    const std::span<const std::int64_t> nodes = node_list(block);
    parallel_ranges(nodes.size(), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) out[i] = new_index[static_cast<std::size_t>(nodes[i])];
    });
    block.connectivity = std::move(renumbered);
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

// The kept cells of a block, in order (ragged blocks: their node lists and offsets rebuilt;
// a polyhedron's faces with it). Empty blocks are kept as blocks of no cells.
CellBlock subset_block(const CellBlock& block, const std::vector<std::int64_t>& cells) {
  if (!block.is_ragged()) return {block.type, gather_rows(block.connectivity, cells), {}, {}};
  const std::int64_t* offsets = block.offsets.data_as<std::int64_t>();
  const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
  const bool polyhedron = !block.face_offsets.empty_handle();
  const std::int64_t* face_offsets = polyhedron ? block.face_offsets.data_as<std::int64_t>() : nullptr;
  std::vector<std::int64_t> new_offsets{0}, new_faces{0}, new_nodes;
  for (std::int64_t c : cells) {
    if (polyhedron) {
      for (std::int64_t f = offsets[c]; f < offsets[c + 1]; ++f) {
        new_nodes.insert(new_nodes.end(), nodes + face_offsets[f], nodes + face_offsets[f + 1]);
        new_faces.push_back(static_cast<std::int64_t>(new_nodes.size()));
      }
      new_offsets.push_back(static_cast<std::int64_t>(new_faces.size()) - 1);
    } else {
      new_nodes.insert(new_nodes.end(), nodes + offsets[c], nodes + offsets[c + 1]);
      new_offsets.push_back(static_cast<std::int64_t>(new_nodes.size()));
    }
  }
  auto array = [](const std::vector<std::int64_t>& values) {
    NDArray out = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), out.data_as<std::int64_t>());
    return out;
  };
  return {block.type, array(new_nodes), array(new_offsets), polyhedron ? array(new_faces) : NDArray()};
}

std::int64_t keep_cells(Mesh& mesh, const std::vector<bool>& keep) {
  const std::vector<std::uint8_t> flags(keep.begin(), keep.end());
  return keep_cells(mesh, flags);
}

std::int64_t keep_cells(Mesh& mesh, std::span<const std::uint8_t> keep) {
  const NDArray bases_array = block_bases(mesh.cells);
  const std::int64_t* bases = bases_array.data_as<std::int64_t>();
  const std::int64_t total = bases[mesh.cells.size()];
  if (static_cast<std::int64_t>(keep.size()) != total) fail("keep_cells: one flag per cell");
  // Kept cells per block: a block kept whole moves as it is, one kept in part lists its cells.
  std::vector<std::int64_t> kept_count(mesh.cells.size(), 0);
  std::int64_t next = 0;
  auto flags_of = [&](std::size_t b) { return keep.subspan(static_cast<std::size_t>(bases[b]), static_cast<std::size_t>(bases[b + 1] - bases[b])); };
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    kept_count[b] = static_cast<std::int64_t>(count_flagged(flags_of(b)));
    next += kept_count[b];
  }
  if (next == total) return 0;
  std::vector<std::vector<std::int64_t>> kept_in(mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    if (kept_count[b] == 0 || kept_count[b] == bases[b + 1] - bases[b]) continue;
    kept_in[b] = flagged_positions(flags_of(b), static_cast<std::size_t>(kept_count[b]));
  }
  // Old block-major cell index → new, or -1: for the Cell and Side regions only.
  std::vector<std::int64_t> new_cell;
  if (std::any_of(mesh.regions.begin(), mesh.regions.end(), [](const Region& r) { return r.kind != RegionKind::Point; })) {
    new_cell.assign(static_cast<std::size_t>(total), -1);
    std::int64_t numbered = 0;
    for (std::int64_t c = 0; c < total; ++c)
      if (keep[static_cast<std::size_t>(c)]) new_cell[static_cast<std::size_t>(c)] = numbered++;
  }
  const std::vector<bool> had_entries = regions_with_entries(mesh);
  std::vector<CellBlock> blocks;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    if (kept_count[b] == 0) continue;
    if (kept_count[b] == mesh.cells[b].num_cells()) blocks.push_back(std::move(mesh.cells[b]));
    else blocks.push_back(subset_block(mesh.cells[b], kept_in[b]));
  }
  for (auto& [name, arrays] : mesh.cell_data) {
    std::vector<NDArray> kept;
    for (std::size_t b = 0; b < arrays.size() && b < kept_count.size(); ++b) {
      if (kept_count[b] == 0) continue;
      if (kept_count[b] == arrays[b].rows()) kept.push_back(std::move(arrays[b]));
      else kept.push_back(gather_rows(arrays[b], kept_in[b]));
    }
    arrays = std::move(kept);
  }
  mesh.cells = std::move(blocks);
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

}  // namespace detail

using namespace detail;

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

std::int64_t remove_orphaned_nodes(Mesh& mesh) { return detail::remove_unused_points(mesh, true); }

std::int64_t detail::remove_unused_points(Mesh& mesh, bool check_range) {
  const auto n = static_cast<std::size_t>(mesh.num_points());
  if (check_range)
    for (const CellBlock& block : mesh.cells)
      if (block.connectivity.dtype() != DType::int64) check_connectivity(mesh);  // throws, naming the block
  // Bytes, each set by a relaxed atomic store (a plain one on x86): the cores mark side by side,
  // and a point two cells use is marked by both. The range is checked as the nodes are read;
  // check_connectivity then names the first offender, as a pass of its own would.
  std::vector<std::uint8_t> used(n, 0);
  std::atomic<bool> outside{false};
  for (const CellBlock& block : mesh.cells) {
    const std::span<const std::int64_t> nodes = block.connectivity.values<std::int64_t>();
    parallel_ranges(nodes.size(), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      bool bad = false;
      for (std::size_t i = first; i < last; ++i) {
        const auto node = static_cast<std::uint64_t>(nodes[i]);
        if (node >= n) {
          bad = true;
          continue;
        }
        std::atomic_ref<std::uint8_t>(used[node]).store(1, std::memory_order_relaxed);
      }
      if (bad) outside.store(true, std::memory_order_relaxed);
    });
  }
  if (outside.load()) {
    check_connectivity(mesh);
    fail("remove_orphaned_nodes: a node outside the points");  // not reached: the check names it
  }
  const std::size_t count = count_flagged(used);
  if (count == n) return 0;
  std::vector<std::int64_t> kept = flagged_positions(used, count);
  std::vector<std::int64_t> new_index(n, -1);
  parallel_ranges(kept.size(), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) new_index[static_cast<std::size_t>(kept[i])] = static_cast<std::int64_t>(i);
  });
  const auto removed = static_cast<std::int64_t>(n - kept.size());
  const std::vector<bool> had_entries = regions_with_entries(mesh);
  renumber_points(mesh, new_index, kept);
  drop_emptied_regions(mesh, had_entries);
  return removed;
}

std::int64_t remove_lower_dimensional_cells(Mesh& mesh) {
  int top = -1;
  for (const CellBlock& block : mesh.cells) top = std::max(top, dimension_of(block));
  const NDArray bases_array = block_bases(mesh.cells);
  const std::int64_t* bases = bases_array.data_as<std::int64_t>();
  std::vector<bool> keep(static_cast<std::size_t>(bases[mesh.cells.size()]), false);
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    if (dimension_of(mesh.cells[b]) == top) std::fill(keep.begin() + bases[b], keep.begin() + bases[b + 1], true);
  return detail::keep_cells(mesh, keep);
}

namespace {

// static_cast<std::int64_t>(std::floor(q)) without the call into libm (the build targets plain
// x86-64, which has no rounding instruction): the same value wherever that one is defined.
// NaN and values past int64's range (a NaN point; a coordinate over 2^63 tolerances) give
// INT64_MIN, what x86-64's conversion gives them, without the undefined cast.
inline std::int64_t floor_to_int(double q) noexcept {
  if (!(q >= -0x1p63 && q < 0x1p63)) return INT64_MIN;
  const auto truncated = static_cast<std::int64_t>(q);
  return truncated - (truncated != INT64_MIN && static_cast<double>(truncated) > q ? 1 : 0);
}

// Which earlier point each point is welded into (itself when none): merge_points' search.
// Grid cells of edge 2 × tolerance (0: one cell per exact position, keyed by the coordinates'
// bits, -0 as +0): a point within the tolerance of p lies in p's cell or, along each axis, in
// the neighbour on the side of the cell p is nearer to — 2^d cells to look in, p's own first.
// The table holds the first representative of each occupied cell (open addressing), the
// cell's others chained behind it; it grows with the representatives (a few % of the points
// when most are copies), so it stays in cache where a table sized by the points would not.
// The loop is sequential (whether a point is a representative depends on all before it) and
// bound by memory waits: a representative's cell and coordinates share one cache line (no
// trip to the point array), and the table slot of a point some steps ahead is prefetched. The
// cell hashes are computed before it on all cores, and a point with the bits of its cell's
// first representative (a mesh's copies of a point: most points) is settled without its cell.
// (Settling cells without neighbours on all cores, as a first pass, costs a second look-up a
// point: more CPU than it saves on 2 cores, measured.)
template <class T>
NDArray weld_targets(const T* xyz, std::size_t n, std::size_t width, double tolerance) {
  using Cell = std::array<std::int64_t, 3>;
  const double edge = 2 * tolerance;
  auto cell_of = [&](std::size_t i) {
    Cell c{0, 0, 0};
    for (std::size_t k = 0; k < width; ++k) {
      const double value = static_cast<double>(xyz[i * width + k]) + 0.0;  // -0 → +0
      c[k] = tolerance > 0 ? floor_to_int(value / edge) : std::bit_cast<std::int64_t>(value);
    }
    return c;
  };
  auto hash = [](const Cell& c) {
    std::uint64_t h = 0;
    for (std::int64_t v : c) h = detail::mix(h ^ static_cast<std::uint64_t>(v));
    return h;
  };
  // Per representative (in the order found): its cell, its coordinates, its point and the next
  // one of its cell; rep_last: for a cell's first, the last of the cell.
  struct alignas(64) Representative {
    Cell cell;
    std::array<T, 3> at;
    std::int64_t point;
    std::int64_t next;
  };
  std::vector<Representative> reps;
  std::vector<std::int64_t> rep_last;
  // A slot: a cell's first representative and the cell's hash, so that a probe passes slots of
  // other cells without a trip to their representatives.
  struct Slot {
    std::int64_t head = -1;
    std::uint64_t hash = 0;
  };
  std::vector<Slot> table(1024);
  // A filter of the occupied cells: 8 bits a slot, the bit a cell's hash picks set. A neighbour
  // cell whose bit is clear holds nothing (most of them, on a mesh's copies of points): the bits
  // stay in the core's cache where the table does not, and these look-ups are not prefetched.
  std::vector<std::uint64_t> occupied_bits(table.size() * 8 / 64, 0);
  auto mark = [&](std::uint64_t h) { occupied_bits[(h >> 6) & (occupied_bits.size() - 1)] |= std::uint64_t{1} << (h & 63); };
  auto maybe_occupied = [&](std::uint64_t h) { return (occupied_bits[(h >> 6) & (occupied_bits.size() - 1)] >> (h & 63) & 1) != 0; };
  auto same = [](const Cell& a, const Cell& b) { return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2])) == 0; };
  auto slot_of = [&](const Cell& c, std::uint64_t h) {
    const std::size_t mask = table.size() - 1;
    std::size_t slot = h & mask;
    while (table[slot].head >= 0 &&
           !(table[slot].hash == h && same(reps[static_cast<std::size_t>(table[slot].head)].cell, c)))
      slot = (slot + 1) & mask;
    return slot;
  };
  std::size_t occupied = 0;
  auto grow = [&] {
    std::vector<Slot> heads;
    for (const Slot& slot : table)
      if (slot.head >= 0) heads.push_back(slot);
    table.assign(table.size() * 2, Slot{});
    occupied_bits.assign(table.size() * 8 / 64, 0);
    for (const Slot& head : heads) {  // distinct cells: the first free slot from the hash's
      std::size_t slot = head.hash & (table.size() - 1);
      while (table[slot].head >= 0) slot = (slot + 1) & (table.size() - 1);
      table[slot] = head;
      mark(head.hash);
    }
  };
  // Every point's cell hash first, on all cores (three divisions and three mixes a point: half
  // the loop's work when it was done in it). The loop computes a point's cell only when it
  // needs it: a copy of its cell's first representative (equal bits, so the same cell) welds
  // into that one, as the full search would, without it.
  // The hashes are kept where the results go: the loop reads a point's hash (and those of the
  // points ahead) before it writes the point's result, and no other array is faulted in.
  NDArray representative_array = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(n)});
  std::int64_t* representative = representative_array.data_as<std::int64_t>();
  auto* hashes = reinterpret_cast<std::uint64_t*>(representative);
  parallel_ranges(n, std::size_t{1} << 15, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) hashes[i] = hash(cell_of(i));
  });
  // The table slot of a point `ahead` steps on is prefetched, and its representative half as far.
  constexpr std::size_t ahead = 64;
  for (std::size_t i = 0; i < std::min(n, ahead); ++i) __builtin_prefetch(&table[hashes[i] & (table.size() - 1)]);
  const double squared = tolerance * tolerance;
  const std::size_t probes = tolerance > 0 ? (std::size_t{1} << width) : 1;
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>>;
  auto welds = [&](const T* p, const Representative& rep) {
    double distance = 0;
    bool equal = true;
    for (std::size_t k = 0; k < width; ++k) {
      const double d = static_cast<double>(p[k]) - static_cast<double>(rep.at[k]);
      distance += d * d;
      equal = equal && p[k] == rep.at[k];  // -0 == +0
    }
    return tolerance > 0 ? distance <= squared : equal;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const T* p = xyz + i * width;
    std::int64_t found = -1;
    const std::uint64_t home_hash = hashes[i];
    if (i + ahead < n) __builtin_prefetch(&table[hashes[i + ahead] & (table.size() - 1)]);
    if (i + ahead / 2 < n) {  // its slot is in cache by now: fetch the representative it names
      const std::int64_t head = table[hashes[i + ahead / 2] & (table.size() - 1)].head;
      if (head >= 0) __builtin_prefetch(&reps[static_cast<std::size_t>(head)]);
    }
    // A copy: among the slots of p's hash, one whose first representative has p's bits is p's
    // cell's (equal bits, equal cell), and the search would try that representative first.
    for (std::size_t slot = home_hash & (table.size() - 1); table[slot].head >= 0; slot = (slot + 1) & (table.size() - 1)) {
      if (table[slot].hash != home_hash) continue;
      const Representative& head = reps[static_cast<std::size_t>(table[slot].head)];
      bool same_bits = true;
      for (std::size_t k = 0; k < width; ++k) same_bits = same_bits && std::bit_cast<Bits>(head.at[k]) == std::bit_cast<Bits>(p[k]);
      if (!same_bits) continue;
      if (welds(p, head)) found = head.point;
      break;
    }
    if (found >= 0) {
      representative[i] = found;
      continue;
    }
    const Cell home = cell_of(i);
    Cell toward{0, 0, 0};  // -1 or +1: the nearer neighbour along each axis (needed once p's cell failed)
    for (std::size_t probe_bits = 0; probe_bits < probes && found < 0; ++probe_bits) {
      if (probe_bits == 1)
        for (std::size_t k = 0; k < width; ++k)
          toward[k] = static_cast<double>(p[k]) / edge - static_cast<double>(home[k]) < 0.5 ? -1 : 1;
      Cell probe = home;
      for (std::size_t k = 0; k < width; ++k)
        if (probe_bits >> k & 1) probe[k] += toward[k];
      const std::uint64_t probe_hash = probe_bits == 0 ? home_hash : hash(probe);
      if (probe_bits != 0 && !maybe_occupied(probe_hash)) continue;
      for (std::int64_t r = table[slot_of(probe, probe_hash)].head; r >= 0; r = reps[static_cast<std::size_t>(r)].next) {
        const Representative& rep = reps[static_cast<std::size_t>(r)];
        if (welds(p, rep)) {
          found = rep.point;
          break;
        }
      }
    }
    if (found >= 0) {
      representative[i] = found;
      continue;
    }
    representative[i] = static_cast<std::int64_t>(i);
    const auto r = static_cast<std::int64_t>(reps.size());
    Representative added{home, {}, static_cast<std::int64_t>(i), -1};
    for (std::size_t k = 0; k < width; ++k) added.at[k] = p[k];
    reps.push_back(added);
    rep_last.push_back(r);
    std::size_t slot = slot_of(home, home_hash);
    if (table[slot].head < 0) {
      if (2 * (occupied + 1) > table.size()) {
        grow();
        slot = slot_of(home, home_hash);
      }
      table[slot] = {r, home_hash};
      mark(home_hash);
      ++occupied;
    } else {  // behind the cell's others: earlier representatives are found first
      const auto head = static_cast<std::size_t>(table[slot].head);
      reps[static_cast<std::size_t>(rep_last[head])].next = r;
      rep_last[head] = r;
    }
  }
  return representative_array;
}

}  // namespace

std::int64_t merge_points(Mesh& mesh, double tolerance) {
  if (!(tolerance >= 0.0) || !std::isfinite(tolerance)) fail("merge_points: the tolerance must be finite and >= 0");
  check_connectivity(mesh);
  const auto n = static_cast<std::size_t>(mesh.num_points());
  if (n == 0) return 0;
  const auto width = static_cast<std::size_t>(mesh.points.row_width());
  if (width > 3) fail("merge_points: points of more than 3 coordinates");
  NDArray representative_array;
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    representative_array = weld_targets(mesh.points.data_as<T>(), n, width, tolerance);
  });
  const std::int64_t* representative = representative_array.data_as<std::int64_t>();
  // Representatives numbered in order (counted by range, then each range numbers its own), then
  // every point takes its representative's number: two passes on all cores.
  const std::size_t ranges = std::max<std::size_t>(1, std::min<std::size_t>(thread_count(), n >> 16));
  std::vector<std::size_t> first_kept(ranges + 1, 0);
  auto is_kept = [&](std::size_t i) { return representative[i] == static_cast<std::int64_t>(i); };
  parallel_ranges(ranges, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t range = first; range < last; ++range) {
      std::size_t count = 0;  // a local: the ranges' totals share a cache line
      for (std::size_t i = n * range / ranges; i < n * (range + 1) / ranges; ++i) count += is_kept(i);
      first_kept[range + 1] = count;
    }
  });
  for (std::size_t range = 0; range < ranges; ++range) first_kept[range + 1] += first_kept[range];
  // Scratch, not zeroed vectors: every entry is written below, so nothing is zero-filled
  // first (34 MB each on the bench's 4 M points). Scratch is unmapped when freed, so a
  // repeated call still faults its pages in afresh.
  NDArray kept_array = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(first_kept[ranges])});
  NDArray new_index_array = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(n)});
  const std::span<std::int64_t> kept(kept_array.data_as<std::int64_t>(), first_kept[ranges]);
  const std::span<std::int64_t> new_index(new_index_array.data_as<std::int64_t>(), n);
  parallel_ranges(ranges, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t range = first; range < last; ++range) {
      std::size_t at = first_kept[range];
      for (std::size_t i = n * range / ranges; i < n * (range + 1) / ranges; ++i)
        if (is_kept(i)) {
          new_index[i] = static_cast<std::int64_t>(at);
          kept[at++] = static_cast<std::int64_t>(i);
        }
    }
  });
  const auto removed = static_cast<std::int64_t>(n - kept.size());
  if (removed == 0) return 0;
  parallel_ranges(n, std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i)
      if (!is_kept(i)) new_index[i] = new_index[static_cast<std::size_t>(representative[i])];
  });
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
  // Into a new array (the old one may be shared with another mesh), read and written in one
  // pass on all cores; each coordinate summed in the same order whatever the path (same bits).
  const NDArray& source = mesh.points;
  NDArray moved = NDArray::allocate(source.dtype(), source.shape());
  const auto n = static_cast<std::size_t>(mesh.num_points());
  const auto m = [&](std::int64_t r, std::int64_t k) { return matrix[static_cast<std::size_t>(r * columns + k)]; };
  visit_dtype(source.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_floating_point_v<T>) {
      fail("transform: points must be floating point");
    } else {
      const T* from = source.data_as<T>();
      T* to = moved.data_as<T>();
      if (d == 3) {  // the common case: the matrix in registers, no per-point loops
        const double m00 = m(0, 0), m01 = m(0, 1), m02 = m(0, 2), m10 = m(1, 0), m11 = m(1, 1), m12 = m(1, 2),
                     m20 = m(2, 0), m21 = m(2, 1), m22 = m(2, 2);
        const double t0 = columns > d ? m(0, 3) : 0.0, t1 = columns > d ? m(1, 3) : 0.0, t2 = columns > d ? m(2, 3) : 0.0;
        parallel_ranges(n, std::size_t{1} << 15, [&](std::size_t first, std::size_t last) {
          for (std::size_t i = first; i < last; ++i) {
            const double x = static_cast<double>(from[3 * i]), y = static_cast<double>(from[3 * i + 1]),
                         z = static_cast<double>(from[3 * i + 2]);
            to[3 * i] = static_cast<T>(t0 + m00 * x + m01 * y + m02 * z);
            to[3 * i + 1] = static_cast<T>(t1 + m10 * x + m11 * y + m12 * z);
            to[3 * i + 2] = static_cast<T>(t2 + m20 * x + m21 * y + m22 * z);
          }
        });
        return;
      }
      parallel_ranges(n, std::size_t{1} << 15, [&](std::size_t first, std::size_t last) {
        std::vector<double> in(static_cast<std::size_t>(d));
        for (std::size_t i = first; i < last; ++i) {
          const T* p = from + i * static_cast<std::size_t>(d);
          for (std::int64_t k = 0; k < d; ++k) in[static_cast<std::size_t>(k)] = static_cast<double>(p[k]);
          for (std::int64_t r = 0; r < d; ++r) {
            double sum = columns > d ? m(r, d) : 0.0;
            for (std::int64_t k = 0; k < d; ++k) sum += m(r, k) * in[static_cast<std::size_t>(k)];
            to[i * static_cast<std::size_t>(d) + static_cast<std::size_t>(r)] = static_cast<T>(sum);
          }
        }
      });
    }
  });
  mesh.points = std::move(moved);
}

}  // namespace meshioplusplus

