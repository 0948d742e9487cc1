// Cell blocks -> unique faces with owner and neighbour (faces_from_cells.hpp says what and why).
//
// Every cell's faces ("half-faces", numbered cell by cell) get an order-independent hash of
// their nodes. The half-faces are scattered into a fixed number of partitions by the hash's
// top bits (ascending half-face order inside each, whatever the thread count), and each
// partition is matched in its own open-addressing table: a node set seen twice is an internal
// face, once a boundary face, three times an error. Each partition's hashes and (for faces of up
// to 4 nodes below 2^31, every standard shape) sorted node keys are copied beside each other in
// the scatter, so matching reads no cell: 1 M tetrahedra went from 3.2 s to 1.0 s on 2 busy
// cores once the keys were compared there instead of through the cells' nodes. Polyhedra with
// larger faces compare node sets through their cells. Internal faces are then emitted cell by
// cell (the owner is the lower cell), each cell's sorted by neighbour; boundary faces follow,
// group by group.
#include "io/cells/faces_from_cells.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "core/parallel_ranges.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/side_regions.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::io {
namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

std::string block_name(std::size_t b, const CellBlock& block) {
  return "cells[" + std::to_string(b) + "] (" + block.type + ")";
}

constexpr std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// One top-dimensional block as the half-face walk sees it.
struct VolumeBlock {
  const CellBlock* block = nullptr;
  std::size_t index = 0;           // position in the input's blocks (for messages)
  std::int64_t first_cell = 0;     // volume-cell number of its first cell
  std::int64_t block_major = 0;    // block-major number of its first cell
  std::span<const FacetCorners> facets;  // standard shapes; empty for polygon / polyhedron
  std::int64_t width = 0;          // nodes per cell (standard shapes)
  bool polyhedron = false;
  const std::int64_t* connectivity = nullptr;
  const std::int64_t* offsets = nullptr;       // ragged blocks
  const std::int64_t* face_offsets = nullptr;  // polyhedron
};

// The half-faces of the volume cells: counts, nodes and owners, whatever the block kind.
class HalfFaces {
 public:
  HalfFaces(std::span<const CellBlock> blocks, FaceTopology& topology) {
    int top = -1;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const CellTypeInfo* info = find_cell_type(blocks[b].type);
      if (info == nullptr) fail(block_name(b, blocks[b]) + " has a cell type of unknown dimension");
      top = std::max(top, info->dimension);
    }
    if (top != 2 && top != 3) fail("the mesh has no 2-D or 3-D cells to build faces from");
    topology.dimension = top;
    std::int64_t block_major = 0;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const CellBlock& block = blocks[b];
      const std::int64_t count = block.num_cells();
      if (find_cell_type(block.type)->dimension == top) add_block(b, block, block_major, top);
      block_major += count;
    }
    if (num_cells_ == 0) fail("the mesh has no volume cells");
    topology.volume_cells.resize(static_cast<std::size_t>(num_cells_));
    for (const VolumeBlock& view : views_)
      for (std::int64_t i = 0; i < view.block->num_cells(); ++i)
        topology.volume_cells[static_cast<std::size_t>(view.first_cell + i)] = view.block_major + i;
    count_half_faces();
  }

  std::int64_t num_cells() const noexcept { return num_cells_; }
  std::int64_t num_half_faces() const noexcept { return first_[static_cast<std::size_t>(num_cells_)]; }
  std::int64_t first(std::int64_t cell) const noexcept { return first_[static_cast<std::size_t>(cell)]; }
  std::int64_t cell_of(std::int64_t half) const noexcept { return cell_[static_cast<std::size_t>(half)]; }
  const std::vector<VolumeBlock>& views() const noexcept { return views_; }

  // The nodes of facet `k` of volume cell `cell`, in the cell's outward order; `scratch` holds
  // them where they are not contiguous in the block.
  std::span<const std::int64_t> nodes(std::int64_t cell, std::int64_t k, std::array<std::int64_t, 4>& scratch) const {
    const VolumeBlock& view = view_of(cell);
    const std::int64_t row = cell - view.first_cell;
    if (!view.facets.empty()) {
      const FacetCorners& facet = view.facets[static_cast<std::size_t>(k)];
      const std::int64_t* corners = view.connectivity + row * view.width;
      for (int c = 0; c < facet.count; ++c) scratch[static_cast<std::size_t>(c)] = corners[facet.corners[static_cast<std::size_t>(c)]];
      return {scratch.data(), static_cast<std::size_t>(facet.count)};
    }
    if (view.polyhedron) {
      const std::int64_t face = view.offsets[row] + k;
      const std::int64_t begin = view.face_offsets[face];
      return {view.connectivity + begin, static_cast<std::size_t>(view.face_offsets[face + 1] - begin)};
    }
    const std::int64_t begin = view.offsets[row], size = view.offsets[row + 1] - begin;  // polygon edge k
    scratch[0] = view.connectivity[begin + k];
    scratch[1] = view.connectivity[begin + (k + 1) % size];
    return {scratch.data(), 2};
  }

  // Block-major number of a volume cell (messages).
  std::int64_t block_major(std::int64_t cell) const noexcept {
    const VolumeBlock& view = view_of(cell);
    return view.block_major + (cell - view.first_cell);
  }

 private:
  void add_block(std::size_t b, const CellBlock& block, std::int64_t block_major, int top) {
    VolumeBlock view;
    view.block = &block;
    view.index = b;
    view.first_cell = num_cells_;
    view.block_major = block_major;
    const bool standard = top == 3 ? (block.type == "tetra" || block.type == "pyramid" || block.type == "wedge" ||
                                      block.type == "hexahedron")
                                   : (block.type == "triangle" || block.type == "quad");
    view.polyhedron = block.type == "polyhedron";
    if (!standard && !view.polyhedron && block.type != "polygon")
      fail(block_name(b, block) + ": face-based meshes are linear; legal " + (top == 3 ? "3-D cells are tetra, pyramid, "
           "wedge, hexahedron and polyhedron" : "2-D cells are triangle, quad and polygon") +
           " (convert higher-order cells to their corners first)");
    view.connectivity = block.connectivity.data_as<std::int64_t>();
    if (standard) {
      view.facets = cell_facets(block.type);
      view.width = block.connectivity.row_width();
    } else {
      view.offsets = block.offsets.data_as<std::int64_t>();
      if (view.polyhedron) view.face_offsets = block.face_offsets.data_as<std::int64_t>();
    }
    num_cells_ += block.num_cells();
    views_.push_back(view);
  }

  const VolumeBlock& view_of(std::int64_t cell) const noexcept {
    if (views_.size() == 1) return views_.front();
    auto after = std::upper_bound(views_.begin(), views_.end(), cell,
                                  [](std::int64_t c, const VolumeBlock& v) { return c < v.first_cell; });
    return *(after - 1);
  }

  void count_half_faces() {
    first_.assign(static_cast<std::size_t>(num_cells_) + 1, 0);
    for (const VolumeBlock& view : views_) {
      const std::int64_t count = view.block->num_cells();
      for (std::int64_t row = 0; row < count; ++row) {
        std::int64_t faces = 0;
        if (!view.facets.empty()) {
          faces = static_cast<std::int64_t>(view.facets.size());
        } else {
          faces = view.offsets[row + 1] - view.offsets[row];
          const bool too_few = view.polyhedron ? faces < 4 : faces < 3;
          if (too_few)
            fail(block_name(view.index, *view.block) + " cell " + std::to_string(row) + " has " + std::to_string(faces) +
                 (view.polyhedron ? " faces (a polyhedron needs 4 or more)" : " nodes (a polygon needs 3 or more)"));
          if (view.polyhedron)
            for (std::int64_t face = view.offsets[row]; face < view.offsets[row + 1]; ++face)
              if (view.face_offsets[face + 1] - view.face_offsets[face] < 3)
                fail(block_name(view.index, *view.block) + " cell " + std::to_string(row) + " has a face of fewer than 3 nodes");
        }
        first_[static_cast<std::size_t>(view.first_cell + row) + 1] = faces;
      }
    }
    for (std::size_t c = 0; c < static_cast<std::size_t>(num_cells_); ++c) first_[c + 1] += first_[c];
    cell_.resize(static_cast<std::size_t>(num_half_faces()));
    parallel_ranges(static_cast<std::size_t>(num_cells_), std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
      for (std::size_t c = begin; c < end; ++c)
        std::fill(cell_.begin() + first_[c], cell_.begin() + first_[c + 1], static_cast<std::int64_t>(c));
    });
  }

  std::vector<VolumeBlock> views_;
  std::int64_t num_cells_ = 0;
  std::vector<std::int64_t> first_;  // num_cells + 1: each cell's first half-face
  std::vector<std::int64_t> cell_;   // num_half_faces: the cell of each half-face
};

// Whether two half-faces have the same node set (faces of polyhedra may have any number of
// nodes; the common ones of 3 or 4 are compared on the stack).
bool same_node_set(const HalfFaces& halves, std::int64_t a, std::int64_t b, std::vector<std::int64_t>& scratch_a,
                   std::vector<std::int64_t>& scratch_b) {
  std::array<std::int64_t, 4> corners_a, corners_b;
  const std::int64_t cell_a = halves.cell_of(a), cell_b = halves.cell_of(b);
  const std::span<const std::int64_t> nodes_a = halves.nodes(cell_a, a - halves.first(cell_a), corners_a);
  const std::span<const std::int64_t> nodes_b = halves.nodes(cell_b, b - halves.first(cell_b), corners_b);
  if (nodes_a.size() != nodes_b.size()) return false;
  if (nodes_a.size() <= 4) {
    std::array<std::int64_t, 4> sorted_a{-1, -1, -1, -1}, sorted_b{-1, -1, -1, -1};
    std::copy(nodes_a.begin(), nodes_a.end(), sorted_a.begin());
    std::copy(nodes_b.begin(), nodes_b.end(), sorted_b.begin());
    std::sort(sorted_a.begin(), sorted_a.end());
    std::sort(sorted_b.begin(), sorted_b.end());
    return sorted_a == sorted_b;
  }
  scratch_a.assign(nodes_a.begin(), nodes_a.end());
  scratch_b.assign(nodes_b.begin(), nodes_b.end());
  std::sort(scratch_a.begin(), scratch_a.end());
  std::sort(scratch_b.begin(), scratch_b.end());
  return scratch_a == scratch_b;
}

// Sorted node set of a half-face (messages).
std::vector<std::int64_t> sorted_nodes(const HalfFaces& halves, std::int64_t half) {
  std::array<std::int64_t, 4> scratch;
  const std::int64_t cell = halves.cell_of(half);
  const std::span<const std::int64_t> nodes = halves.nodes(cell, half - halves.first(cell), scratch);
  std::vector<std::int64_t> out(nodes.begin(), nodes.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::uint64_t node_set_hash(std::span<const std::int64_t> nodes) noexcept {
  std::uint64_t sum = 0;  // a sum of mixed values: the same for any order of the nodes
  for (const std::int64_t node : nodes) sum += mix(static_cast<std::uint64_t>(node) + 0x9e3779b97f4a7c15ULL);
  return mix(sum ^ (static_cast<std::uint64_t>(nodes.size()) << 56));
}

std::string describe_nodes(const std::vector<std::int64_t>& nodes) {
  std::string text;
  for (const std::int64_t node : nodes) text += (text.empty() ? "" : " ") + std::to_string(node);
  return text;
}

// The first cell with a face whose mate is in the same cell, or the number of cells.
std::size_t find_first_in_cells(const HalfFaces& halves, const std::vector<std::int64_t>& mate) {
  const auto cells = static_cast<std::size_t>(halves.num_cells());
  std::size_t found = cells;
  for (std::size_t c = 0; c < cells && found == cells; ++c) {
    const auto cell = static_cast<std::int64_t>(c);
    for (std::int64_t h = halves.first(cell); h < halves.first(cell + 1); ++h) {
      const std::int64_t other = mate[static_cast<std::size_t>(h)];
      if (other >= halves.first(cell) && other < halves.first(cell + 1)) {
        found = c;
        break;
      }
    }
  }
  return found;
}

// A face of up to 4 nodes below 2^31, sorted and padded with -1: compared where it lies, beside
// its partition's other keys, instead of fetching both faces' nodes from their cells.
using CompactKey = std::array<std::int32_t, 4>;

CompactKey compact_key(std::span<const std::int64_t> nodes) noexcept {
  CompactKey key{-1, -1, -1, -1};
  for (std::size_t i = 0; i < nodes.size(); ++i) key[i] = static_cast<std::int32_t>(nodes[i]);
  std::sort(key.begin(), key.end());
  return key;
}

// mate[h]: the half-face with the same node set as h, or -1.
std::vector<std::int64_t> match_half_faces(const HalfFaces& halves) {
  const auto n = static_cast<std::size_t>(halves.num_half_faces());
  const auto cells = static_cast<std::size_t>(halves.num_cells());
  // Partitions by the hash's top bits; their number depends on the size only, never the threads.
  const std::size_t partitions = std::clamp<std::size_t>(std::bit_ceil(n / 8192 + 1), 1, 4096);
  const int shift = 64 - std::countr_zero(partitions);
  const auto partition_of = [&](std::uint64_t hash) { return partitions == 1 ? 0 : static_cast<std::size_t>(hash >> shift); };
  // Cells in chunks (contiguous half-faces); the chunking is fixed before any thread starts.
  const std::size_t chunks = n >= (std::size_t{1} << 16) ? std::min<std::size_t>(thread_count(), 64) : 1;
  const auto chunk_cells = [&](std::size_t chunk) { return std::pair{cells * chunk / chunks, cells * (chunk + 1) / chunks}; };
  const auto for_each_half = [&](std::size_t chunk, auto&& visit) {
    std::array<std::int64_t, 4> scratch;
    const auto [first_cell, last_cell] = chunk_cells(chunk);
    for (auto cell = static_cast<std::int64_t>(first_cell); cell < static_cast<std::int64_t>(last_cell); ++cell)
      for (std::int64_t h = halves.first(cell); h < halves.first(cell + 1); ++h)
        visit(h, halves.nodes(cell, h - halves.first(cell), scratch));
  };

  std::vector<std::size_t> counts(chunks * partitions, 0);
  std::vector<char> compact_chunk(chunks, 1);
  parallel_ranges(chunks, 1, [&](std::size_t first_chunk, std::size_t last_chunk) {
    for (std::size_t chunk = first_chunk; chunk < last_chunk; ++chunk)
      for_each_half(chunk, [&](std::int64_t, std::span<const std::int64_t> nodes) {
        ++counts[chunk * partitions + partition_of(node_set_hash(nodes))];
        if (nodes.size() > 4) compact_chunk[chunk] = 0;
        for (const std::int64_t node : nodes)
          if (node > std::numeric_limits<std::int32_t>::max()) compact_chunk[chunk] = 0;
      });
  });
  const bool compact = std::all_of(compact_chunk.begin(), compact_chunk.end(), [](char c) { return c != 0; });
  // Each (chunk, partition)'s first slot: partitions in order, chunks in order inside each.
  std::vector<std::size_t> partition_start(partitions + 1, 0), cursor(chunks * partitions);
  std::size_t running = 0;
  for (std::size_t p = 0; p < partitions; ++p) {
    partition_start[p] = running;
    for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
      cursor[chunk * partitions + p] = running;
      running += counts[chunk * partitions + p];
    }
  }
  partition_start[partitions] = running;
  std::vector<std::int64_t> order(n);  // slot -> half-face, ascending inside each partition
  std::vector<std::uint64_t> hashes(n);
  std::vector<CompactKey> keys(compact ? n : 0);
  parallel_ranges(chunks, 1, [&](std::size_t first_chunk, std::size_t last_chunk) {
    for (std::size_t chunk = first_chunk; chunk < last_chunk; ++chunk)
      for_each_half(chunk, [&](std::int64_t h, std::span<const std::int64_t> nodes) {
        const std::uint64_t hash = node_set_hash(nodes);
        const std::size_t slot = cursor[chunk * partitions + partition_of(hash)]++;
        order[slot] = h;
        hashes[slot] = hash;
        if (compact) keys[slot] = compact_key(nodes);
      });
  });

  // Matching, partition by partition: slots only, until the pairs are known.
  std::vector<std::int64_t> mate_slot(n, -1);
  parallel_ranges(partitions, 1, [&](std::size_t first_partition, std::size_t last_partition) {
    std::vector<std::int64_t> table, nodes_a, nodes_b;
    for (std::size_t p = first_partition; p < last_partition; ++p) {
      const std::size_t begin = partition_start[p], end = partition_start[p + 1];
      const std::size_t capacity = std::bit_ceil(2 * (end - begin) + 2);
      table.assign(capacity, -1);
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint64_t hash = hashes[i];
        std::size_t bucket = static_cast<std::size_t>(hash) & (capacity - 1);
        std::int64_t found = -1;
        for (; table[bucket] >= 0; bucket = (bucket + 1) & (capacity - 1)) {
          const auto other = static_cast<std::size_t>(table[bucket]);
          if (hashes[other] != hash) continue;
          if (compact ? keys[other] == keys[i] : same_node_set(halves, order[i], order[other], nodes_a, nodes_b)) {
            found = static_cast<std::int64_t>(other);
            break;
          }
        }
        if (found < 0) {
          table[bucket] = static_cast<std::int64_t>(i);
          continue;
        }
        const auto earlier = static_cast<std::size_t>(found);
        if (mate_slot[earlier] >= 0) {
          const std::int64_t h = order[i];
          fail("the face of nodes (" + describe_nodes(sorted_nodes(halves, h)) + ") belongs to more than two cells (block-major " +
               std::to_string(halves.block_major(halves.cell_of(order[static_cast<std::size_t>(mate_slot[earlier])]))) + ", " +
               std::to_string(halves.block_major(halves.cell_of(order[earlier]))) + " and " +
               std::to_string(halves.block_major(halves.cell_of(h))) + ")");
        }
        mate_slot[earlier] = static_cast<std::int64_t>(i);
        mate_slot[i] = found;
      }
    }
  });
  std::vector<std::int64_t> mate(n, -1);
  parallel_ranges(n, std::size_t{1} << 18, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      if (mate_slot[i] >= 0) mate[static_cast<std::size_t>(order[i])] = order[static_cast<std::size_t>(mate_slot[i])];
  });
  // A cell with the same face twice (a degenerate cell) would be its own neighbour.
  const std::size_t twice = find_first_in_cells(halves, mate);
  if (twice < cells)
    fail("cell " + std::to_string(halves.block_major(static_cast<std::int64_t>(twice))) + " (block-major) has one of its faces twice");
  return mate;
}

}  // namespace

FaceTopology faces_from_cells(const FacesFromCellsInput& input) {
  FaceTopology topology;
  const HalfFaces halves(input.blocks, topology);
  const std::vector<std::int64_t> mate = match_half_faces(halves);
  const std::int64_t num_cells = halves.num_cells();
  const auto cells = static_cast<std::size_t>(num_cells);

  // Internal faces: each cell owns the faces it shares with higher cells.
  std::vector<std::int64_t> owned(cells + 1, 0);
  parallel_ranges(cells, std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) {
      const auto cell = static_cast<std::int64_t>(c);
      for (std::int64_t h = halves.first(cell); h < halves.first(cell + 1); ++h) {
        const std::int64_t other = mate[static_cast<std::size_t>(h)];
        if (other >= 0 && halves.cell_of(other) > cell) ++owned[c + 1];
      }
    }
  });
  for (std::size_t c = 0; c < cells; ++c) owned[c + 1] += owned[c];
  const std::int64_t num_internal = owned[cells];
  const std::int64_t num_boundary = static_cast<std::int64_t>(
      std::count(mate.begin(), mate.end(), std::int64_t{-1}));
  const auto num_faces = static_cast<std::size_t>(num_internal + num_boundary);
  std::vector<std::int64_t> source(num_faces);  // the owner's half-face of each face
  parallel_ranges(cells, std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
    std::vector<std::pair<std::int64_t, std::int64_t>> shared;  // (neighbour, half-face)
    for (std::size_t c = begin; c < end; ++c) {
      const auto cell = static_cast<std::int64_t>(c);
      shared.clear();
      for (std::int64_t h = halves.first(cell); h < halves.first(cell + 1); ++h) {
        const std::int64_t other = mate[static_cast<std::size_t>(h)];
        if (other >= 0 && halves.cell_of(other) > cell) shared.emplace_back(halves.cell_of(other), h);
      }
      std::sort(shared.begin(), shared.end());
      for (std::size_t i = 0; i < shared.size(); ++i) source[static_cast<std::size_t>(owned[c]) + i] = shared[i].second;
    }
  });

  // Boundary faces: group by group, then the rest.
  const std::size_t groups = input.boundary_groups.size();
  std::vector<std::int32_t> group_of(mate.size(), -1);
  std::vector<std::int64_t> group_count(groups + 1, 0);
  std::vector<std::int64_t> volume_of_block(input.blocks.size(), -1), block_major_base(input.blocks.size() + 1, 0);
  for (std::size_t b = 0; b < input.blocks.size(); ++b) block_major_base[b + 1] = block_major_base[b] + input.blocks[b].num_cells();
  for (const VolumeBlock& view : halves.views()) volume_of_block[view.index] = view.first_cell;
  for (std::size_t g = 0; g < groups; ++g) {
    const std::span<const std::int64_t> pairs = input.boundary_groups[g];
    for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
      const std::int64_t block_major = pairs[i], facet = pairs[i + 1];
      const auto after = std::upper_bound(block_major_base.begin(), block_major_base.end(), block_major);
      if (block_major < 0 || after == block_major_base.end()) {
        ++topology.skipped_group_entries;
        continue;
      }
      const auto b = static_cast<std::size_t>(after - block_major_base.begin() - 1);
      if (volume_of_block[b] < 0) {
        ++topology.skipped_group_entries;
        continue;
      }
      const std::int64_t cell = volume_of_block[b] + (block_major - block_major_base[b]);
      if (facet < 0 || facet >= halves.first(cell + 1) - halves.first(cell))
        fail("boundary group " + std::to_string(g) + " names facet " + std::to_string(facet) + " of cell " +
             std::to_string(block_major) + ", which has " + std::to_string(halves.first(cell + 1) - halves.first(cell)));
      const auto half = static_cast<std::size_t>(halves.first(cell) + facet);
      if (mate[half] >= 0 || group_of[half] >= 0) {
        ++topology.skipped_group_entries;
        continue;
      }
      group_of[half] = static_cast<std::int32_t>(g);
      ++group_count[g];
    }
  }
  group_count[groups] = num_boundary;
  for (std::size_t g = 0; g < groups; ++g) group_count[groups] -= group_count[g];
  topology.group_starts.assign(groups + 2, num_internal);
  for (std::size_t g = 0; g <= groups; ++g) topology.group_starts[g + 1] = topology.group_starts[g] + group_count[g];
  std::vector<std::int64_t> next_slot(topology.group_starts.begin(), topology.group_starts.end() - 1);
  for (std::size_t h = 0; h < mate.size(); ++h) {
    if (mate[h] >= 0) continue;
    const std::size_t g = group_of[h] >= 0 ? static_cast<std::size_t>(group_of[h]) : groups;
    source[static_cast<std::size_t>(next_slot[g]++)] = static_cast<std::int64_t>(h);
  }

  // Faces from their owners' half-faces.
  topology.num_internal_faces = num_internal;
  topology.owner.resize(num_faces);
  topology.neighbour.resize(num_faces);
  topology.owner_facet.resize(num_faces);
  topology.neighbour_facet.resize(num_faces);
  topology.face_offsets.assign(num_faces + 1, 0);
  parallel_ranges(num_faces, std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
    std::array<std::int64_t, 4> scratch;
    for (std::size_t f = begin; f < end; ++f) {
      const std::int64_t h = source[f], cell = halves.cell_of(h), other = mate[static_cast<std::size_t>(h)];
      topology.owner[f] = cell;
      topology.owner_facet[f] = h - halves.first(cell);
      topology.neighbour[f] = other >= 0 ? halves.cell_of(other) : -1;
      topology.neighbour_facet[f] = other >= 0 ? other - halves.first(halves.cell_of(other)) : -1;
      topology.face_offsets[f + 1] = static_cast<std::int64_t>(halves.nodes(cell, topology.owner_facet[f], scratch).size());
    }
  });
  for (std::size_t f = 0; f < num_faces; ++f) topology.face_offsets[f + 1] += topology.face_offsets[f];
  topology.face_nodes.resize(static_cast<std::size_t>(topology.face_offsets[num_faces]));
  parallel_ranges(num_faces, std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
    std::array<std::int64_t, 4> scratch;
    for (std::size_t f = begin; f < end; ++f) {
      const std::span<const std::int64_t> nodes = halves.nodes(topology.owner[f], topology.owner_facet[f], scratch);
      std::copy(nodes.begin(), nodes.end(), topology.face_nodes.begin() + topology.face_offsets[f]);
    }
  });
  return topology;
}

}  // namespace meshioplusplus::io
