// *SET_SEGMENT sets → regions (lsdyna_internal.hpp says which form each set takes). A
// segment is matched to a cell face by its sorted corner points: one hash table of the
// segments of every set, one pass over the faces of the deck's solids (cell_facets order,
// side_regions.hpp), one over its shells.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/lsdyna/lsdyna_internal.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::lsdyna::detail {
namespace {

using Key = std::array<std::int64_t, 4>;  // sorted corners; a triangle's fourth is -1

struct KeyHash {
  std::size_t operator()(const Key& key) const noexcept {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (const std::int64_t v : key) h = (h ^ static_cast<std::uint64_t>(v)) * 0xBF58476D1CE4E5B9ull;
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
};

Key key_of(const std::int64_t* corners, int count) {
  Key key{-1, -1, -1, -1};
  for (int k = 0; k < count; ++k) {  // insertion sort of at most four
    int at = k;
    for (; at > 0 && key[static_cast<std::size_t>(at - 1)] > corners[k]; --at)
      key[static_cast<std::size_t>(at)] = key[static_cast<std::size_t>(at - 1)];
    key[static_cast<std::size_t>(at)] = corners[k];
  }
  return key;
}

int corners_of(const Segment& segment) { return segment[3] == segment[2] ? 3 : 4; }

NDArray column(const std::vector<std::int64_t>& values, std::int64_t width) {
  NDArray array = width == 1 ? NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())})
                             : NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size()) / width, width});
  std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
  return array;
}

}  // namespace

void add_segment_regions(Mesh& mesh, const std::vector<SegmentSet>& sets) {
  if (sets.empty()) return;
  // Each distinct segment's first solid face (cell, local facet) and shell cell.
  std::unordered_map<Key, std::size_t, KeyHash> slot_of;
  for (const SegmentSet& set : sets)
    for (const Segment& segment : set.segments) slot_of.try_emplace(key_of(segment.data(), corners_of(segment)), slot_of.size());
  std::vector<std::array<std::int64_t, 2>> face(slot_of.size(), {-1, -1});
  std::vector<std::int64_t> shell(slot_of.size(), -1);
  std::int64_t first_cell = 0;
  for (const CellBlock& block : mesh.cells) {
    const int dim = cell_type(block.type).dimension;
    const std::int64_t width = block.connectivity.row_width(), rows = block.num_cells();
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    const std::span<const FacetCorners> facets = cell_facets(block.type);
    for (std::int64_t r = 0; r < rows && (dim == 3 || dim == 2); ++r) {
      const std::int64_t* row = nodes + r * width;
      if (dim == 2) {  // the shell itself: its corners (3 or 4)
        const int corners = block.type.starts_with("triangle") ? 3 : 4;
        const auto found = slot_of.find(key_of(row, corners));
        if (found != slot_of.end() && shell[found->second] < 0) shell[found->second] = first_cell + r;
        continue;
      }
      for (std::size_t f = 0; f < facets.size(); ++f) {
        std::int64_t corners[4];
        for (int k = 0; k < facets[f].count; ++k) corners[k] = row[facets[f].corners[static_cast<std::size_t>(k)]];
        const auto found = slot_of.find(key_of(corners, facets[f].count));
        if (found != slot_of.end() && face[found->second][0] < 0)
          face[found->second] = {first_cell + r, static_cast<std::int64_t>(f)};
      }
    }
    first_cell += rows;
  }

  std::vector<std::int64_t> triangles, quads;  // the surface cells of unmatched sets, appended as blocks
  std::vector<std::pair<std::size_t, std::vector<std::int64_t>>> surface_sets;  // region index, (block, row) pairs
  for (const SegmentSet& set : sets) {
    std::vector<std::size_t> slots;
    for (const Segment& segment : set.segments) slots.push_back(slot_of.at(key_of(segment.data(), corners_of(segment))));
    Region region;
    region.name = set.title.empty() ? "SEGMENT set " + std::to_string(set.sid) : set.title;
    region.tag = set.sid;
    region.dim = 2;
    std::vector<std::int64_t> entries;
    if (std::all_of(slots.begin(), slots.end(), [&](std::size_t s) { return face[s][0] >= 0; })) {
      region.kind = RegionKind::Side;
      for (const std::size_t s : slots) entries.insert(entries.end(), face[s].begin(), face[s].end());
      region.entries = column(entries, 2);
    } else if (std::all_of(slots.begin(), slots.end(), [&](std::size_t s) { return shell[s] >= 0; })) {
      region.kind = RegionKind::Cell;
      for (const std::size_t s : slots) entries.push_back(shell[s]);
      region.entries = column(entries, 1);
    } else {
      region.kind = RegionKind::Cell;
      for (const Segment& segment : set.segments) {
        std::vector<std::int64_t>& cells = corners_of(segment) == 3 ? triangles : quads;
        entries.push_back(corners_of(segment) == 3 ? 0 : 1);
        entries.push_back(static_cast<std::int64_t>(cells.size()) / (corners_of(segment) == 3 ? 3 : 4));
        cells.insert(cells.end(), segment.begin(), segment.begin() + corners_of(segment));
      }
      surface_sets.emplace_back(mesh.regions.size(), std::move(entries));
    }
    mesh.regions.push_back(std::move(region));
  }
  if (surface_sets.empty()) return;
  // The blocks go after the deck's: their first cells' block-major indices are known now.
  const std::int64_t triangle_base = first_cell;
  const std::int64_t quad_base = triangle_base + static_cast<std::int64_t>(triangles.size() / 3);
  for (auto& [index, pairs] : surface_sets) {
    std::vector<std::int64_t> cells;
    for (std::size_t k = 0; k < pairs.size(); k += 2) cells.push_back((pairs[k] == 0 ? triangle_base : quad_base) + pairs[k + 1]);
    mesh.regions[index].entries = column(cells, 1);
  }
  if (!triangles.empty()) mesh.cells.push_back(CellBlock{"triangle", column(triangles, 3), {}, {}});
  if (!quads.empty()) mesh.cells.push_back(CellBlock{"quad", column(quads, 4), {}, {}});
}

}  // namespace meshioplusplus::lsdyna::detail
