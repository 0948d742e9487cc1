// merge, crop and extract_region (include/meshioplusplus/mesh_ops.hpp): new meshes made of
// parts of others, through the renumberings of mesh_ops_internal.hpp.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/mesh_ops_internal.hpp"
#include "core/parallel_ranges.hpp"
#include "meshioplusplus/mesh_ops.hpp"

namespace meshioplusplus {
using namespace detail;

namespace {

bool same_layout(const NDArray& a, const NDArray& b) {
  return a.dtype() == b.dtype() && a.ndim() == b.ndim() && a.row_width() == b.row_width();
}

NDArray stack_rows(const std::vector<const NDArray*>& parts) {
  Shape shape = parts.front()->shape();
  shape[0] = 0;
  for (const NDArray* part : parts) shape[0] += part->rows();
  NDArray out = NDArray::allocate(parts.front()->dtype(), shape);
  std::size_t offset = 0;
  for (const NDArray* part : parts) {
    std::memcpy(static_cast<unsigned char*>(out.data()) + offset, part->data(), part->nbytes());
    offset += part->nbytes();
  }
  return out;
}

// An int64 array plus `by` (in its first column only: Side entries' cells), in a new array: read
// and written in one pass on all cores.
NDArray shifted(const NDArray& array, std::int64_t by, bool first_column_only = false) {
  const std::int64_t* from = array.data_as<std::int64_t>();
  NDArray out = NDArray::allocate(DType::int64, array.shape());
  std::int64_t* to = out.data_as<std::int64_t>();
  const auto width = static_cast<std::size_t>(std::max<std::int64_t>(array.row_width(), 1));
  parallel_ranges(out.size() / width, std::size_t{1} << 14, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first * width; i < last * width; ++i) to[i] = from[i] + by;
    if (first_column_only)
      for (std::size_t row = first; row < last; ++row)
        for (std::size_t k = 1; k < width; ++k) to[row * width + k] = from[row * width + k];
  });
  return out;
}

// The mesh with only the flagged cells (a byte a cell, nonzero: kept) and the points they use;
// `checked`: the mesh's connectivity is known to be in range (else the part's is checked as its
// used points are marked).
Mesh subset(const Mesh& mesh, std::span<const std::uint8_t> keep, bool checked = false) {
  Mesh part = mesh;  // shares the arrays; every operation below makes new ones where it changes them
  keep_cells(part, keep);
  remove_unused_points(part, !checked);
  return part;
}

Mesh subset(const Mesh& mesh, const std::vector<bool>& keep, bool checked = false) {
  const std::vector<std::uint8_t> flags(keep.begin(), keep.end());
  return subset(mesh, flags, checked);
}

}  // namespace

Mesh merge(const std::vector<Mesh>& meshes) {
  if (meshes.empty()) fail("merge: no meshes");
  Mesh merged;
  const std::int64_t width = meshes.front().points.ndim() == 2 ? meshes.front().points.dim(1) : 0;
  std::vector<const NDArray*> points;
  for (const Mesh& mesh : meshes) {
    check_connectivity(mesh);
    if (mesh.points.ndim() != 2 || mesh.points.dim(1) != width || mesh.points.dtype() != meshes.front().points.dtype())
      fail("merge: the meshes' points differ in dtype or columns (" + shape_text(mesh.points.shape()) + " and " +
           shape_text(meshes.front().points.shape()) + ")");
    points.push_back(&mesh.points);
  }
  merged.points = stack_rows(points);
  // Point data every part has with one layout.
  for (const auto& [name, first] : meshes.front().point_data) {
    std::vector<const NDArray*> parts;
    for (const Mesh& mesh : meshes)
      if (const NDArray* array = mesh.point_data.find(name); array && same_layout(*array, first)) parts.push_back(array);
    if (parts.size() == meshes.size()) merged.point_data.set(name, stack_rows(parts));
  }
  std::vector<std::string> cell_names;  // cell data every part has, one layout across all blocks
  for (const auto& [name, first_arrays] : meshes.front().cell_data) {
    bool everywhere = true;
    for (const Mesh& mesh : meshes) {
      const std::vector<NDArray>* arrays = mesh.cell_data.find(name);
      everywhere = everywhere && arrays && arrays->size() == mesh.cells.size();
      if (everywhere && !first_arrays.empty())
        for (const NDArray& array : *arrays) everywhere = everywhere && same_layout(array, first_arrays.front());
    }
    if (everywhere) cell_names.push_back(name);
  }
  for (const std::string& name : cell_names) merged.cell_data.set(name, {});
  std::int64_t point_base = 0, cell_base = 0;
  for (const Mesh& mesh : meshes) {
    for (const CellBlock& block : mesh.cells) {
      CellBlock moved = block;
      moved.connectivity = shifted(block.connectivity, point_base);
      merged.cells.push_back(std::move(moved));
    }
    for (const std::string& name : cell_names)
      for (const NDArray& array : *mesh.cell_data.find(name)) merged.cell_data.find(name)->push_back(array);
    for (const Region& region : mesh.regions) {
      const std::int64_t by = region.kind == RegionKind::Point ? point_base : cell_base;
      NDArray entries = shifted(region.entries, by, region.kind == RegionKind::Side);
      Region* same = nullptr;
      for (Region& existing : merged.regions)
        if (existing.name == region.name && existing.kind == region.kind) same = &existing;
      if (same == nullptr) {
        merged.regions.push_back({region.name, region.kind, region.dim, region.tag, std::move(entries)});
      } else {
        same->entries = stack_rows({&same->entries, &entries});
      }
    }
    point_base += mesh.num_points();
    cell_base += mesh.num_cells();
  }
  merged.field_data = meshes.front().field_data;
  merged.string_field_data = meshes.front().string_field_data;
  return merged;
}

Mesh crop(const Mesh& mesh, std::span<const double> low, std::span<const double> high, bool any_corner) {
  for (const CellBlock& block : mesh.cells)
    if (block.connectivity.dtype() != DType::int64) check_connectivity(mesh);  // throws, naming the block
  const std::int64_t width = mesh.points.row_width();
  if (static_cast<std::int64_t>(low.size()) != width || static_cast<std::int64_t>(high.size()) != width)
    fail("crop: the box has " + std::to_string(low.size()) + " and " + std::to_string(high.size()) +
         " coordinates for points of " + std::to_string(width));
  // Bytes, not bits: the cores write side by side, and a byte is a plain store.
  // One more, never inside: where a node outside the points looks (then reported below).
  std::vector<std::uint8_t> inside(static_cast<std::size_t>(mesh.num_points()) + 1, 0);
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* p = mesh.points.data_as<T>();
    parallel_ranges(inside.size() - 1, std::size_t{1} << 15, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) {
        bool in = true;
        for (std::int64_t k = 0; k < width && in; ++k) {
          const auto value = static_cast<double>(p[static_cast<std::int64_t>(i) * width + k]);
          in = value >= low[static_cast<std::size_t>(k)] && value <= high[static_cast<std::size_t>(k)];
        }
        inside[i] = in;
      }
    });
  });
  // Each node's range is checked as it is looked up (no pass of its own over the connectivity);
  // a node outside has check_connectivity name the first offender.
  const auto num_points = static_cast<std::uint64_t>(inside.size() - 1);
  std::atomic<bool> outside{false};
  std::vector<std::uint8_t> kept_flags(static_cast<std::size_t>(mesh.num_cells()));
  std::int64_t base = 0;
  for (const CellBlock& block : mesh.cells) {
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    auto judge = [&](std::int64_t first, std::int64_t last, bool& bad) {
      unsigned all = 1, any = 0, beyond = 0;  // bitwise, no branches: a cell's corners are few
      for (std::int64_t i = first; i < last; ++i) {
        const auto node = static_cast<std::uint64_t>(nodes[i]);
        const unsigned out_of_range = node >= num_points;
        beyond |= out_of_range;
        const unsigned in = inside[out_of_range ? num_points : node];
        all &= in;
        any |= in;
      }
      bad = bad || beyond != 0;
      return static_cast<std::uint8_t>(any_corner ? any : all);
    };
    std::uint8_t* flags = kept_flags.data() + base;
    if (!block.is_ragged()) {
      const std::int64_t k = block.connectivity.row_width();
      parallel_ranges(static_cast<std::size_t>(block.num_cells()), std::size_t{1} << 14, [&](std::size_t first, std::size_t last) {
        bool bad = false;
        for (std::size_t c = first; c < last; ++c)
          flags[c] = judge(static_cast<std::int64_t>(c) * k, static_cast<std::int64_t>(c + 1) * k, bad);
        if (bad) outside.store(true, std::memory_order_relaxed);
      });
    } else {
      const std::int64_t* offsets = block.offsets.data_as<std::int64_t>();
      const std::int64_t* faces = block.face_offsets.empty_handle() ? nullptr : block.face_offsets.data_as<std::int64_t>();
      bool bad = false;
      for (std::int64_t c = 0; c < block.num_cells(); ++c)
        flags[c] = faces ? judge(faces[offsets[c]], faces[offsets[c + 1]], bad) : judge(offsets[c], offsets[c + 1], bad);
      if (bad) outside.store(true, std::memory_order_relaxed);
    }
    base += block.num_cells();
  }
  if (outside.load()) check_connectivity(mesh);  // throws
  return subset(mesh, kept_flags, true);
}

Mesh extract_region(const Mesh& mesh, std::string_view name) {
  const Region* found = nullptr;
  for (const Region& region : mesh.regions)
    if (region.name == name && region.kind != RegionKind::Point) found = &region;
  if (found == nullptr) {
    std::string names;
    for (const Region& region : mesh.regions)
      if (region.kind != RegionKind::Point) names += (names.empty() ? "'" : ", '") + region.name + "'";
    fail("extract_region: no Cell or Side region '" + std::string(name) + "' (the mesh has " +
         (names.empty() ? std::string("none") : names) + ")");
  }
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(mesh.num_cells()), 0);
  const std::int64_t width = found->kind == RegionKind::Side ? 2 : 1;
  const std::span<const std::int64_t> entries = found->entries.values<std::int64_t>();
  for (std::size_t i = 0; i < entries.size(); i += static_cast<std::size_t>(width))
    if (entries[i] >= 0 && entries[i] < mesh.num_cells()) keep[static_cast<std::size_t>(entries[i])] = 1;
  return subset(mesh, keep);
}

Mesh extract_cell_type(const Mesh& mesh, std::string_view cell_type) {
  std::vector<std::uint8_t> keep;
  keep.reserve(static_cast<std::size_t>(mesh.num_cells()));
  bool any = false;
  for (const CellBlock& block : mesh.cells) {
    any = any || block.type == cell_type;
    keep.insert(keep.end(), static_cast<std::size_t>(block.num_cells()), block.type == cell_type);
  }
  if (!any) fail("extract_cell_type: the mesh has no '" + std::string(cell_type) + "' cells");
  return subset(mesh, keep);
}

Mesh select_cells(const Mesh& mesh, const std::vector<bool>& keep) {
  if (static_cast<std::int64_t>(keep.size()) != mesh.num_cells())
    fail("select_cells: " + std::to_string(keep.size()) + " flags for " + std::to_string(mesh.num_cells()) + " cells");
  check_connectivity(mesh);
  return subset(mesh, keep, true);
}

}  // namespace meshioplusplus
