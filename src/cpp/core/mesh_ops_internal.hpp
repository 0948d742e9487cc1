// Floor 1, private to src/cpp/core: what the clean-up operations (mesh_ops.cpp,
// mesh_surface.cpp, mesh_subsets.cpp) share — the point and cell renumberings every operation
// is made of, so data and regions follow them in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::detail {

[[noreturn]] void fail(const std::string& message);  // std::invalid_argument

// Rows of `array` in the order `kept` lists them (any dtype and shape).
NDArray gather_rows(const NDArray& array, std::span<const std::int64_t> kept);

// int64 connectivity, every node in [0, points): std::invalid_argument otherwise.
void check_connectivity(const Mesh& mesh);

// Old → new point numbers (-1: removed; no cell may use a removed point), `kept` the old
// indices of the new points: connectivity, point data and Point regions follow.
void renumber_points(Mesh& mesh, std::span<const std::int64_t> new_index, std::span<const std::int64_t> kept);

// remove_orphaned_nodes; `check_range`: the connectivity's dtype and range are checked as its
// nodes are read (a std::invalid_argument as check_connectivity's), else known to be right.
std::int64_t remove_unused_points(Mesh& mesh, bool check_range = false);

// How many flags are set, and where (ascending; `count` of them): on all cores.
std::size_t count_flagged(std::span<const std::uint8_t> flags);
std::vector<std::int64_t> flagged_positions(std::span<const std::uint8_t> flags, std::size_t count);

// Regions an operation empties go; empty ones it found stay (`had_entries`: taken before).
std::vector<bool> regions_with_entries(const Mesh& mesh);
void drop_emptied_regions(Mesh& mesh, const std::vector<bool>& had_entries);

// The cell type's topological dimension, -1 for unknown types.
int dimension_of(const CellBlock& block);

// Keeps the cells flagged (one flag per block-major cell): blocks, cell data, Cell and Side
// regions follow; a block left without cells goes. Returns how many cells went.
std::int64_t keep_cells(Mesh& mesh, std::span<const std::uint8_t> keep);  // a byte a cell, nonzero: kept
std::int64_t keep_cells(Mesh& mesh, const std::vector<bool>& keep);

}  // namespace meshioplusplus::detail
