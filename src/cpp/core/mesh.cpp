#include "meshioplusplus/mesh.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "core/parallel_ranges.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus {

std::int64_t Mesh::num_cells() const noexcept {
  std::int64_t total = 0;
  for (const CellBlock& block : cells) total += block.num_cells();
  return total;
}

NDArray block_bases(std::span<const std::int64_t> cell_counts) {
  NDArray bases = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(cell_counts.size()) + 1});
  std::int64_t* out = bases.data_as<std::int64_t>();
  out[0] = 0;
  for (std::size_t i = 0; i < cell_counts.size(); ++i) {
    if (cell_counts[i] < 0) throw std::invalid_argument("negative cell count");
    out[i + 1] = out[i] + cell_counts[i];
  }
  return bases;
}

NDArray block_bases(const std::vector<CellBlock>& blocks) {
  std::vector<std::int64_t> counts;
  counts.reserve(blocks.size());
  for (const CellBlock& block : blocks) counts.push_back(block.num_cells());
  return block_bases(counts);
}

namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

void check_indices(const NDArray& indices, std::int64_t limit, const std::string& what) {
  if (indices.dtype() != DType::int64) fail(what + " must be int64");
  // Every write checks every index (first_index_outside: one vectorised pass).
  const std::span<const std::int64_t> values = indices.values<std::int64_t>();
  if (const std::size_t bad = first_index_outside(values, limit); bad != values.size())
    fail(what + " holds index " + std::to_string(values[bad]) + " outside [0, " + std::to_string(limit) + ")");
}

// How validate's messages name block `b`: "cells[2] (tetra)".
std::string block_label(std::size_t b, const CellBlock& block) {
  return "cells[" + std::to_string(b) + "] (" + block.type + ")";
}

void check_offsets(const NDArray& offsets, std::int64_t target_size, const std::string& what) {
  if (offsets.dtype() != DType::int64 || offsets.ndim() != 1 || offsets.rows() < 1)
    fail(what + " offsets must be int64 (n+1,)");
  auto values = offsets.values<std::int64_t>();
  if (values.front() != 0 || values.back() != target_size)
    fail(what + " offsets must start at 0 and end at " + std::to_string(target_size));
  for (std::size_t i = 1; i < values.size(); ++i)
    if (values[i] < values[i - 1]) fail(what + " offsets must not decrease");
}

}  // namespace

void validate(const Mesh& mesh, CellCheck cell_check) {
  if (mesh.points.ndim() != 2) fail("points must be a 2-D array (n, dim)");
  if (!dtype_is_float(mesh.points.dtype())) fail("points must be float32 or float64");
  const std::int64_t num_points = mesh.num_points();
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const std::string what = block_label(b, block);
    const CellTypeInfo* info = find_cell_type(block.type);
    if (block.type.empty()) fail(what + ": empty cell type name");
    if (info == nullptr || info->num_nodes == kAnyNodeCount) {
      // A type outside the table (kept as meshio keeps any name) or a Lagrange family: one
      // rectangular (n, k) block; writers that cannot carry the type name it in their error.
      if (block.is_ragged())
        fail(what + ": " + (info == nullptr ? "a cell type outside the known table" : "this type") +
             " must be a rectangular (n, k) block, not offsets");
      if (block.connectivity.ndim() != 2 || block.connectivity.dim(1) < 1)
        fail(what + ": connectivity must be (n, k) with k >= 1");
    } else if (info->num_nodes == 0) {
      if (!block.is_ragged()) fail(what + ": ragged type needs offsets");
      if (block.type == "polyhedron") {
        if (block.face_offsets.empty_handle()) fail(what + ": polyhedron needs face offsets");
        check_offsets(block.face_offsets, block.connectivity.rows(), what + " face");
        check_offsets(block.offsets, block.face_offsets.rows() - 1, what);
      } else {
        check_offsets(block.offsets, block.connectivity.rows(), what);
      }
    } else if (block.connectivity.ndim() != 2 || block.connectivity.dim(1) != info->num_nodes) {
      fail(what + ": connectivity must be (n, " + std::to_string(info->num_nodes) + ")");
    }
    if (cell_check == CellCheck::node_indices) check_indices(block.connectivity, num_points, what);
  }
  for (const auto& [name, array] : mesh.point_data)
    if (array.rows() != num_points) fail("point_data['" + name + "'] length differs from points");
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (arrays.size() != mesh.cells.size())
      fail("cell_data['" + name + "'] needs one array per cell block");
    for (std::size_t b = 0; b < arrays.size(); ++b)
      if (arrays[b].rows() != mesh.cells[b].num_cells())
        fail("cell_data['" + name + "'][" + std::to_string(b) + "] length differs from its block");
  }
  const std::int64_t num_cells = mesh.num_cells();
  for (const Region& region : mesh.regions) {
    const std::string what = "region '" + region.name + "'";
    switch (region.kind) {
      case RegionKind::Point: check_indices(region.entries, num_points, what); break;
      case RegionKind::Cell: check_indices(region.entries, num_cells, what); break;
      case RegionKind::Side:
        if (region.entries.ndim() != 2 || region.entries.dim(1) != 2)
          fail(what + ": side entries must be (n, 2)");
        if (region.entries.dtype() != DType::int64) fail(what + " must be int64");
        {
          auto values = region.entries.values<std::int64_t>();
          for (std::size_t i = 0; i < values.size(); i += 2)
            if (values[i] < 0 || values[i] >= num_cells || values[i + 1] < 0)
              fail(what + " holds an invalid (cell, facet) pair");
        }
        break;
    }
  }
}

void validate_node_indices(const Mesh& mesh) {
  const std::int64_t num_points = mesh.num_points();
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    check_indices(mesh.cells[b].connectivity, num_points, block_label(b, mesh.cells[b]));
}

NDArray polyhedron_node_counts(const CellBlock& block) {
  if (block.type != "polyhedron" || block.offsets.empty_handle() || block.face_offsets.empty_handle())
    throw std::invalid_argument("polyhedron_node_counts: not a polyhedron block");
  const auto cells = block.offsets.values<std::int64_t>();
  const auto faces = block.face_offsets.values<std::int64_t>();
  const auto nodes = block.connectivity.values<std::int64_t>();
  const std::int64_t count = block.num_cells();
  if (cells.empty() || cells.front() != 0 || cells.back() + 1 != static_cast<std::int64_t>(faces.size()) ||
      faces.front() != 0 || faces.back() != static_cast<std::int64_t>(nodes.size()))
    throw std::invalid_argument("polyhedron_node_counts: offsets do not match the faces and nodes");
  NDArray counts = NDArray::allocate(DType::int64, {count});
  std::int64_t* out = counts.data_as<std::int64_t>();
  parallel_ranges(static_cast<std::size_t>(count), std::size_t{1} << 14, [&](std::size_t first, std::size_t last) {
    std::vector<std::int64_t> corners;
    for (std::size_t c = first; c < last; ++c) {
      if (cells[c] > cells[c + 1]) throw std::invalid_argument("polyhedron_node_counts: offsets decrease");
      const std::int64_t begin = faces[static_cast<std::size_t>(cells[c])];
      const std::int64_t end = faces[static_cast<std::size_t>(cells[c + 1])];
      if (begin < 0 || begin > end || end > static_cast<std::int64_t>(nodes.size()))
        throw std::invalid_argument("polyhedron_node_counts: face offsets outside the nodes");
      corners.assign(nodes.begin() + begin, nodes.begin() + end);
      std::sort(corners.begin(), corners.end());
      out[c] = std::unique(corners.begin(), corners.end()) - corners.begin();
    }
  });
  return counts;
}

Mesh deep_copy(const Mesh& mesh) {
  Mesh out;
  if (!mesh.points.empty_handle()) out.points = mesh.points.copy();
  for (const CellBlock& block : mesh.cells) {
    CellBlock copy{block.type, block.connectivity.copy(), {}, {}};
    if (!block.offsets.empty_handle()) copy.offsets = block.offsets.copy();
    if (!block.face_offsets.empty_handle()) copy.face_offsets = block.face_offsets.copy();
    out.cells.push_back(std::move(copy));
  }
  for (const auto& [name, values] : mesh.point_data) out.point_data.append_new(name, values.copy());
  for (const auto& [name, arrays] : mesh.cell_data) {
    std::vector<NDArray> copies;
    for (const NDArray& array : arrays) copies.push_back(array.copy());
    out.cell_data.append_new(name, std::move(copies));
  }
  for (const auto& [name, values] : mesh.field_data) out.field_data.append_new(name, values.copy());
  out.string_field_data = mesh.string_field_data;
  for (const Region& region : mesh.regions) {
    Region copy = region;
    if (!region.entries.empty_handle()) copy.entries = region.entries.copy();
    out.regions.push_back(std::move(copy));
  }
  return out;
}

}  // namespace meshioplusplus
