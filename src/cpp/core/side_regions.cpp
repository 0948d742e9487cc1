#include "meshioplusplus/side_regions.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>

#include "core/facet_map.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus {
namespace {

using detail::FacetKey;
using detail::FacetMap;
using detail::make_key;

using F = FacetCorners;
constexpr std::array kLineFacets{F{{0}, 1}, F{{1}, 1}};
constexpr std::array kTriangleFacets{F{{0, 1}, 2}, F{{1, 2}, 2}, F{{2, 0}, 2}};
constexpr std::array kQuadFacets{F{{0, 1}, 2}, F{{1, 2}, 2}, F{{2, 3}, 2}, F{{3, 0}, 2}};
constexpr std::array kTetraFacets{F{{0, 1, 3}, 3}, F{{1, 2, 3}, 3}, F{{0, 3, 2}, 3}, F{{0, 2, 1}, 3}};
constexpr std::array kPyramidFacets{F{{0, 1, 4}, 3}, F{{1, 2, 4}, 3}, F{{2, 3, 4}, 3}, F{{3, 0, 4}, 3},
                                    F{{0, 3, 2, 1}, 4}};
constexpr std::array kWedgeFacets{F{{0, 1, 4, 3}, 4}, F{{1, 2, 5, 4}, 4}, F{{0, 3, 5, 2}, 4}, F{{0, 2, 1}, 3},
                                  F{{3, 4, 5}, 3}};
constexpr std::array kHexahedronFacets{F{{0, 1, 5, 4}, 4}, F{{1, 2, 6, 5}, 4}, F{{2, 3, 7, 6}, 4},
                                       F{{0, 4, 7, 3}, 4}, F{{0, 3, 2, 1}, 4}, F{{4, 5, 6, 7}, 4}};

struct Family {
  std::string_view name;
  std::span<const FacetCorners> facets;
  int corners;  // corner nodes of a cell of this family (its size when it is a facet)
};

constexpr std::array kFamilies{
    Family{"line", kLineFacets, 2},          Family{"triangle", kTriangleFacets, 3},
    Family{"quad", kQuadFacets, 4},          Family{"tetra", kTetraFacets, 4},
    Family{"pyramid", kPyramidFacets, 5},    Family{"wedge", kWedgeFacets, 6},
    Family{"hexahedron", kHexahedronFacets, 8},
};

// "tetra10" belongs to the tetra family: the family name followed by digits only.
const Family* family_of(std::string_view cell_type) noexcept {
  for (const Family& family : kFamilies) {
    if (!cell_type.starts_with(family.name)) continue;
    const std::string_view rest = cell_type.substr(family.name.size());
    if (std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; })) return &family;
  }
  return nullptr;
}

// How many leading nodes identify a cell of this type when it is used as a facet.
int corners_as_facet(std::string_view cell_type) noexcept {
  if (cell_type == "vertex") return 1;
  const Family* family = family_of(cell_type);
  return family != nullptr && family->corners <= 4 ? family->corners : 0;
}

struct BlockView {
  const CellBlock* block;
  std::int64_t base;
  int dimension;  // -1 for unknown types
  int width;      // nodes per cell, 0 for ragged
};

struct Candidate {
  std::size_t region;
  std::int64_t first_slot;  // slots: one per region entry, numbered across all candidates
};

struct Match {
  std::int64_t slot;
  std::int64_t cell;
  std::int64_t facet;
};

std::vector<BlockView> view_blocks(const Mesh& mesh) {
  std::vector<BlockView> views;
  std::int64_t base = 0;
  for (const CellBlock& block : mesh.cells) {
    const CellTypeInfo* info = find_cell_type(block.type);
    const bool rectangular = !block.is_ragged() && block.connectivity.ndim() == 2 &&
                             block.connectivity.dtype() == DType::int64;
    views.push_back({&block, base, info ? info->dimension : -1,
                     rectangular ? static_cast<int>(block.connectivity.dim(1)) : 0});
    base += block.num_cells();
  }
  return views;
}

const BlockView* block_of_cell(const std::vector<BlockView>& views, std::int64_t cell) {
  const auto found = std::upper_bound(views.begin(), views.end(), cell,
                                      [](std::int64_t c, const BlockView& view) { return c < view.base; });
  if (found == views.begin()) return nullptr;
  const BlockView& view = *(found - 1);
  return cell < view.base + view.block->num_cells() ? &view : nullptr;
}

bool qualifies(const Region& region, const std::vector<BlockView>& views, int facet_dim) {
  if (region.kind != RegionKind::Cell || region.entries.dtype() != DType::int64) return false;
  if (region.dim >= 0) return region.dim == facet_dim;
  if (region.entries.size() == 0) return false;
  for (const std::int64_t cell : region.entries.values<std::int64_t>()) {
    const BlockView* view = block_of_cell(views, cell);
    if (view == nullptr || view->dimension != facet_dim) return false;
  }
  return true;
}

bool has_side_region(const Mesh& mesh, const std::string& name) {
  return std::any_of(mesh.regions.begin(), mesh.regions.end(), [&](const Region& region) {
    return region.kind == RegionKind::Side && region.name == name;
  });
}

}  // namespace

std::span<const FacetCorners> cell_facets(std::string_view cell_type) noexcept {
  const Family* family = family_of(cell_type);
  return family != nullptr ? family->facets : std::span<const FacetCorners>{};
}

SideRegionReport derive_side_regions(Mesh& mesh) {
  SideRegionReport report;
  const std::vector<BlockView> views = view_blocks(mesh);
  int top_dim = -1;
  for (const BlockView& view : views) top_dim = std::max(top_dim, view.dimension);
  if (top_dim < 1) return report;

  std::vector<Candidate> candidates;
  std::int64_t num_slots = 0;
  for (std::size_t r = 0; r < mesh.regions.size(); ++r) {
    const Region& region = mesh.regions[r];
    if (!qualifies(region, views, top_dim - 1)) continue;
    if (has_side_region(mesh, region.name)) {
      report.already_present.push_back(region.name);
      continue;
    }
    candidates.push_back({r, num_slots});
    num_slots += static_cast<std::int64_t>(region.entries.size());
  }
  if (candidates.empty()) return report;

  // Index every region facet by its corners; mark the nodes they use so that the scan
  // below skips interior facets with a byte lookup instead of a hash probe.
  FacetMap facets(static_cast<std::size_t>(num_slots));
  std::vector<std::int64_t> next(static_cast<std::size_t>(num_slots), -1);
  std::vector<std::uint8_t> on_region_facet(static_cast<std::size_t>(mesh.num_points()), 0);
  for (const Candidate& candidate : candidates) {
    const std::span<const std::int64_t> cells = mesh.regions[candidate.region].entries.values<std::int64_t>();
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const BlockView* view = block_of_cell(views, cells[i]);
      const int corners = view != nullptr && view->dimension == top_dim - 1 ? corners_as_facet(view->block->type) : 0;
      if (corners == 0 || view->width < corners) continue;
      const std::int64_t* nodes = view->block->connectivity.data_as<std::int64_t>() + (cells[i] - view->base) * view->width;
      const std::int64_t slot = candidate.first_slot + static_cast<std::int64_t>(i);
      facets.insert(make_key(nodes, corners), slot, next);
      for (int c = 0; c < corners; ++c) on_region_facet[static_cast<std::size_t>(nodes[c])] = 1;
    }
  }

  // One pass over the facets of all top-dimensional cells.
  std::vector<Match> matches;
  for (const BlockView& view : views) {
    const std::span<const FacetCorners> local = cell_facets(view.block->type);
    if (view.dimension != top_dim || local.empty() || view.width == 0) continue;
    const std::int64_t* connectivity = view.block->connectivity.data_as<std::int64_t>();
    const std::int64_t count = view.block->num_cells();
    for (std::int64_t row = 0; row < count; ++row) {
      const std::int64_t* nodes = connectivity + row * view.width;
      for (std::size_t f = 0; f < local.size(); ++f) {
        const FacetCorners& facet = local[f];
        bool candidate = true;
        for (int c = 0; c < facet.count && candidate; ++c)
          candidate = on_region_facet[static_cast<std::size_t>(nodes[facet.corners[static_cast<std::size_t>(c)]])] != 0;
        if (!candidate) continue;
        for (std::int64_t slot = facets.find(make_key(nodes, facet)); slot >= 0; slot = next[static_cast<std::size_t>(slot)])
          matches.push_back({slot, view.base + row, static_cast<std::int64_t>(f)});
      }
    }
  }

  // Counting sort by slot keeps the pairs in the order of the region entries.
  std::vector<std::int64_t> slot_start(static_cast<std::size_t>(num_slots) + 1, 0);
  for (const Match& match : matches) ++slot_start[static_cast<std::size_t>(match.slot) + 1];
  for (std::size_t s = 0; s < static_cast<std::size_t>(num_slots); ++s) slot_start[s + 1] += slot_start[s];
  std::vector<std::int64_t> sorted_pairs(2 * matches.size());
  {
    std::vector<std::int64_t> fill(slot_start.begin(), slot_start.end() - 1);
    for (const Match& match : matches) {
      const std::int64_t at = fill[static_cast<std::size_t>(match.slot)]++;
      sorted_pairs[static_cast<std::size_t>(2 * at)] = match.cell;
      sorted_pairs[static_cast<std::size_t>(2 * at + 1)] = match.facet;
    }
  }

  std::vector<Region> added;
  for (const Candidate& candidate : candidates) {
    const Region& source = mesh.regions[candidate.region];
    const auto first = static_cast<std::size_t>(candidate.first_slot);
    const std::size_t last = first + source.entries.size();
    Region side;
    side.name = source.name;
    side.kind = RegionKind::Side;
    side.dim = source.dim;
    side.tag = source.tag;
    side.entries = NDArray::allocate(DType::int64, {slot_start[last] - slot_start[first], 2});
    std::copy(sorted_pairs.begin() + 2 * slot_start[first], sorted_pairs.begin() + 2 * slot_start[last],
              side.entries.data_as<std::int64_t>());
    std::int64_t unmatched = 0;
    for (std::size_t s = first; s < last; ++s) unmatched += slot_start[s + 1] == slot_start[s] ? 1 : 0;
    report.region_names.push_back(side.name);
    report.unmatched_counts.push_back(unmatched);
    added.push_back(std::move(side));
  }
  for (Region& region : added) mesh.regions.push_back(std::move(region));
  return report;
}

}  // namespace meshioplusplus
