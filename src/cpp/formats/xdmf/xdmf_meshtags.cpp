// DOLFINx meshtags → regions (what becomes what: xdmf_dolfin.hpp). DOLFINx's
// XDMFFile.write_meshtags (cpp/dolfinx/io/xdmf_meshtags.h) writes one Uniform grid per MeshTags
// after the mesh grid: an XInclude of the mesh grid's Geometry
// (xpointer(/Xdmf/Domain/Grid[@Name='mesh']/Geometry)), a Topology listing the tagged entities
// (cells, facets, edges or vertices) by their geometry nodes, and a Cell Attribute named after
// the tags holding one int32 value per entity.
#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>

#include "formats/xdmf/xdmf_dolfin.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::xdmf {
namespace {

struct Tags {
  std::string name;
  const CellBlock* block = nullptr;
  NDArray array;                     // the attribute as read (its dtype and shape)
  std::vector<std::int64_t> values;  // one per entity
};

// The meshtags shape: one rectangular block, one integer Cell attribute of one value per entity.
std::optional<Tags> tags_of(const Mesh& grid) {
  if (grid.cells.size() != 1 || grid.cells[0].is_ragged() || grid.cell_data.size() != 1 || !grid.point_data.empty())
    return std::nullopt;
  const auto& [name, arrays] = *grid.cell_data.begin();
  if (arrays.size() != 1 || dtype_is_float(arrays[0].dtype()) || arrays[0].row_width() != 1 ||
      arrays[0].rows() != grid.cells[0].num_cells())
    return std::nullopt;
  Tags tags{name, &grid.cells[0], arrays[0], {}};
  const NDArray wide = arrays[0].astype(DType::int64);
  tags.values.assign(wide.values<std::int64_t>().begin(), wide.values<std::int64_t>().end());
  return tags;
}

int dimension_of(const std::string& type) {
  const CellTypeInfo* info = find_cell_type(type);
  return info != nullptr ? info->dimension : -1;
}

// One Cell region per tag value (increasing), whose entries are `entries[i]` of the entities i
// with that value, in entity order.
void add_regions(std::vector<Region>& regions, const Tags& tags, int dim, const std::vector<std::int64_t>& entries) {
  std::map<std::int64_t, std::vector<std::int64_t>> members;
  for (std::size_t i = 0; i < tags.values.size(); ++i) members[tags.values[i]].push_back(entries[i]);
  for (const auto& [value, cells] : members) {
    NDArray entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(cells.size())});
    std::copy(cells.begin(), cells.end(), entries.data_as<std::int64_t>());
    regions.push_back(Region{tags.name + ":" + std::to_string(value), RegionKind::Cell, dim, value, std::move(entries)});
  }
}

// A cell's nodes sorted, and a hash of them: equal for the same cell listed in any node order.
std::uint64_t sorted_key(const std::int64_t* nodes, std::int64_t width, std::vector<std::int64_t>& sorted) {
  sorted.assign(nodes, nodes + width);
  std::sort(sorted.begin(), sorted.end());
  std::uint64_t hash = 0x9e3779b97f4a7c15ULL;
  for (const std::int64_t node : sorted) {
    hash ^= static_cast<std::uint64_t>(node) + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
    hash *= 0xbf58476d1ce4e5b9ULL;
  }
  return hash;
}

// The block-major index of the mesh cell with the nodes of each tagged entity (same type, any
// node order), or nothing when some entity is no cell of the mesh.
std::optional<std::vector<std::int64_t>> match_cells(const Mesh& mesh, const CellBlock& entities) {
  struct Entry {
    std::uint64_t key;
    std::size_t block;
    std::int64_t row;
    bool operator<(const Entry& other) const noexcept { return key < other.key; }
  };
  const std::int64_t width = entities.connectivity.row_width();
  const NDArray bases = block_bases(mesh.cells);
  std::vector<Entry> index;
  std::vector<std::int64_t> sorted, other;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    if (block.type != entities.type || block.is_ragged() || block.connectivity.row_width() != width) continue;
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t row = 0; row < block.num_cells(); ++row) index.push_back({sorted_key(nodes + row * width, width, sorted), b, row});
  }
  std::sort(index.begin(), index.end());
  std::vector<std::int64_t> cells;
  const std::int64_t* nodes = entities.connectivity.data_as<std::int64_t>();
  for (std::int64_t row = 0; row < entities.num_cells(); ++row) {
    const Entry probe{sorted_key(nodes + row * width, width, sorted), 0, 0};
    const auto [first, last] = std::equal_range(index.begin(), index.end(), probe);
    const auto found = std::find_if(first, last, [&](const Entry& entry) {
      sorted_key(mesh.cells[entry.block].connectivity.data_as<std::int64_t>() + entry.row * width, width, other);
      return other == sorted;
    });
    if (found == last) return std::nullopt;
    cells.push_back(bases.data_as<std::int64_t>()[found->block] + found->row);
  }
  return cells;
}

// cell_data[<tags name>] over the mesh's blocks: the tag of each tagged cell, 0 elsewhere.
void add_cell_data(Mesh& mesh, const Tags& tags, const std::vector<std::int64_t>& cells) {
  const NDArray bases = block_bases(mesh.cells);
  std::vector<NDArray> per_block;
  for (const CellBlock& block : mesh.cells) {
    Shape shape = tags.array.shape();
    shape[0] = block.num_cells();
    per_block.push_back(NDArray::zeros(tags.array.dtype(), shape));
  }
  const std::size_t row_bytes = dtype_size(tags.array.dtype());
  const std::int64_t* base = bases.data_as<std::int64_t>();
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::size_t b = static_cast<std::size_t>(std::upper_bound(base, base + mesh.cells.size() + 1, cells[i]) - base - 1);
    std::memcpy(static_cast<char*>(per_block[b].data()) + static_cast<std::size_t>(cells[i] - base[b]) * row_bytes,
                static_cast<const char*>(tags.array.data()) + i * row_bytes, row_bytes);
  }
  mesh.cell_data.set(tags.name, std::move(per_block));
}

// The Side regions of tagged facets, or nothing when some facet bounds no cell of the mesh.
std::optional<std::vector<Region>> side_regions(const Mesh& mesh, const Tags& tags, int dim) {
  Mesh scratch;
  scratch.points = mesh.points;
  scratch.cells = mesh.cells;
  scratch.cells.push_back(*tags.block);
  std::vector<std::int64_t> entries(tags.values.size());
  std::iota(entries.begin(), entries.end(), mesh.num_cells());
  add_regions(scratch.regions, tags, dim, entries);
  const std::size_t cell_regions = scratch.regions.size();
  const SideRegionReport report = derive_side_regions(scratch);
  if (report.region_names.size() != cell_regions ||
      std::any_of(report.unmatched_counts.begin(), report.unmatched_counts.end(), [](std::int64_t n) { return n != 0; }))
    return std::nullopt;
  return std::vector<Region>(std::make_move_iterator(scratch.regions.begin() + static_cast<std::ptrdiff_t>(cell_regions)),
                             std::make_move_iterator(scratch.regions.end()));
}

}  // namespace

bool absorb_meshtags(Mesh& mesh, Mesh& grid) {
  const std::optional<Tags> tags = tags_of(grid);
  if (!tags) return false;
  int top = -1;
  for (const CellBlock& block : mesh.cells) top = std::max(top, dimension_of(block.type));
  const int dim = dimension_of(tags->block->type);
  if (dim >= 0 && dim == top) {
    if (const auto cells = match_cells(mesh, *tags->block)) {
      add_regions(mesh.regions, *tags, dim, *cells);
      add_cell_data(mesh, *tags, *cells);
      return true;
    }
  } else if (dim >= 0 && dim == top - 1) {
    if (auto sides = side_regions(mesh, *tags, dim)) {
      for (Region& region : *sides) mesh.regions.push_back(std::move(region));
      return true;
    }
  }
  std::vector<std::int64_t> own(tags->values.size());
  std::iota(own.begin(), own.end(), std::int64_t{0});
  add_regions(grid.regions, *tags, dim, own);
  return false;
}

}  // namespace meshioplusplus::xdmf
