// Floor 1: the mesh model every reader produces and every writer consumes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus {

// One block of cells of a single type.
//   rectangular types: `connectivity` is int64 (n, k).
//   polygon:    `connectivity` is the flat int64 node list, `offsets` int64 (n+1) into it.
//   polyhedron: `offsets` int64 (n+1) into the faces, `face_offsets` int64 (nfaces+1) into the
//               flat node list `connectivity`.
struct CellBlock {
  std::string type;
  NDArray connectivity;
  NDArray offsets;
  NDArray face_offsets;

  bool is_ragged() const noexcept { return !offsets.empty_handle(); }
  // Inline: writers call it in their per-cell loop conditions.
  std::int64_t num_cells() const noexcept {
    if (is_ragged()) return offsets.rows() > 0 ? offsets.rows() - 1 : 0;
    return connectivity.rows();
  }
};

enum class RegionKind : int { Point = 0, Cell = 1, Side = 2 };

// A named group. Entries: Point → point indices (n,); Cell → block-major global cell
// indices (n,); Side → (cell, local facet) pairs (n, 2). All int64.
struct Region {
  std::string name;
  RegionKind kind = RegionKind::Cell;
  int dim = -1;
  std::int64_t tag = -1;
  NDArray entries;
};

// Insertion-ordered name → value list; formats care about the order of their arrays.
template <class Value> class NamedList {
 public:
  using Entry = std::pair<std::string, Value>;

  Value& set(std::string name, Value value) {
    for (Entry& entry : entries_)
      if (entry.first == name) return entry.second = std::move(value);
    return entries_.emplace_back(std::move(name), std::move(value)).second;
  }
  // Appends without looking for `name` first: for readers adding names they know are new
  // (numbered columns), where set()'s search would make thousands of columns quadratic.
  Value& append_new(std::string name, Value value) {
    return entries_.emplace_back(std::move(name), std::move(value)).second;
  }
  void reserve(std::size_t count) { entries_.reserve(count); }
  const Value* find(std::string_view name) const noexcept {
    for (const Entry& entry : entries_)
      if (entry.first == name) return &entry.second;
    return nullptr;
  }
  Value* find(std::string_view name) noexcept {
    for (Entry& entry : entries_)
      if (entry.first == name) return &entry.second;
    return nullptr;
  }
  bool contains(std::string_view name) const noexcept { return find(name) != nullptr; }
  std::size_t size() const noexcept { return entries_.size(); }
  bool empty() const noexcept { return entries_.empty(); }
  auto begin() const noexcept { return entries_.begin(); }
  auto end() const noexcept { return entries_.end(); }
  auto begin() noexcept { return entries_.begin(); }
  auto end() noexcept { return entries_.end(); }

 private:
  std::vector<Entry> entries_;
};

struct Mesh {
  NDArray points;  // (n, dim), float
  std::vector<CellBlock> cells;
  NamedList<NDArray> point_data;
  NamedList<std::vector<NDArray>> cell_data;  // one array per block, in block order
  NamedList<NDArray> field_data;
  NamedList<std::vector<std::string>> string_field_data;  // text arrays (VTK String)
  std::vector<Region> regions;

  std::int64_t num_points() const noexcept { return points.rows(); }
  std::int64_t num_cells() const noexcept;
};

// A mesh whose every array is a new copy of `mesh`'s (points, cells, data, region entries): for
// readers that keep one mesh and hand out copies the caller may change (time-series read_mesh).
Mesh deep_copy(const Mesh& mesh);

// The single owner of block-major cell numbering: int64 prefix sums of the cell counts,
// length nblocks + 1, counting every block (ragged and empty ones too).
NDArray block_bases(const std::vector<CellBlock>& blocks);
NDArray block_bases(std::span<const std::int64_t> cell_counts);

// The number of distinct nodes of each cell of a "polyhedron" block, int64 (num_cells,):
// meshio names polyhedron blocks by it ("polyhedron8" for a cube). Runs on every core.
// Throws std::invalid_argument when the block is not a polyhedron block with consistent offsets.
NDArray polyhedron_node_counts(const CellBlock& block);

// How much of the cells validate() reads: every node index (a writer that writes them), or
// only the blocks' types and shapes (a format whose cells are implied by its structure, like
// VTK's structured grids, where a pass over the largest array would check nothing written).
enum class CellCheck { node_indices, shapes_only };

// Checks the invariants a writer relies on (shapes, dtypes, index ranges, data lengths).
// Throws std::invalid_argument describing the first violation.
void validate(const Mesh& mesh, CellCheck cell_check = CellCheck::node_indices);

// The part of validate() that CellCheck::shapes_only leaves out: every node index of every
// block in [0, num_points). Call it after validate(mesh, CellCheck::shapes_only) (it relies on
// the shapes and dtypes that checks). Throws std::invalid_argument as validate() does.
void validate_node_indices(const Mesh& mesh);

}  // namespace meshioplusplus
