// extract_surface and check() (include/meshioplusplus/mesh_ops.hpp): both look at the facets of
// the top-dimensional cells (side_regions.hpp's outward facet table), bucketed by their smallest
// corner — O(facets) integers, no table of keys.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/facet_map.hpp"
#include "core/mesh_ops_internal.hpp"
#include "core/parallel_ranges.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/mesh_ops.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus {
using namespace detail;
namespace {

std::string_view facet_type(int corners) { return corners == 2 ? "line" : corners == 3 ? "triangle" : "quad"; }

}  // namespace

Mesh extract_surface(const Mesh& mesh) {
  check_connectivity(mesh);
  int top = -1;
  for (const CellBlock& block : mesh.cells) top = std::max(top, dimension_of(block));
  if (top < 2) fail("extract_surface: the mesh has no 2-D or 3-D cells");
  const NDArray bases_array = block_bases(mesh.cells);
  const std::int64_t* bases = bases_array.data_as<std::int64_t>();

  // A facet is on the boundary when no other facet of a top-dimensional cell has its corners.
  // Facets are bucketed by their smallest corner (a CSR over the points: a few dozen facets a
  // bucket, sorted by key there), which needs O(facets) integers, not a table of keys.
  struct Source {
    std::size_t block;
    std::span<const FacetCorners> facets;
  };
  std::vector<Source> sources;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    if (dimension_of(block) != top || block.is_ragged()) continue;
    if (const std::span<const FacetCorners> facets = cell_facets(block.type); !facets.empty()) sources.push_back({b, facets});
  }
  auto key_of = [&](std::size_t b, std::int64_t local, const FacetCorners& facet) {
    const CellBlock& block = mesh.cells[b];
    const std::int64_t* cell = block.connectivity.data_as<std::int64_t>() + local * block.connectivity.row_width();
    detail::FacetKey key = detail::make_key(cell, facet);
    std::rotate(key.begin(), std::find_if(key.begin(), key.end(), [](std::int64_t v) { return v >= 0; }), key.end());
    return key;  // corners ascending, then the -1 padding: key[0] is the smallest corner
  };
  auto smallest_corner = [&](std::size_t b, std::int64_t local, const FacetCorners& facet) {
    const CellBlock& block = mesh.cells[b];
    const std::int64_t* cell = block.connectivity.data_as<std::int64_t>() + local * block.connectivity.row_width();
    std::int64_t smallest = cell[facet.corners[0]];
    for (int i = 1; i < facet.count; ++i) smallest = std::min(smallest, cell[facet.corners[static_cast<std::size_t>(i)]]);
    return static_cast<std::size_t>(smallest);
  };
  const auto num_points = static_cast<std::size_t>(mesh.num_points());
  std::vector<std::int64_t> start(num_points + 1, 0);
  for (const Source& source : sources)
    for (std::int64_t c = 0; c < mesh.cells[source.block].num_cells(); ++c)
      for (const FacetCorners& facet : source.facets) ++start[smallest_corner(source.block, c, facet) + 1];
  for (std::size_t p = 0; p < num_points; ++p) start[p + 1] += start[p];
  // A facet instance: (global cell) * 8 + local facet.
  std::vector<std::int64_t> bucket(static_cast<std::size_t>(start[num_points]));
  {
    std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
    for (const Source& source : sources)
      for (std::int64_t c = 0; c < mesh.cells[source.block].num_cells(); ++c)
        for (std::size_t f = 0; f < source.facets.size(); ++f) {
          const std::size_t p = smallest_corner(source.block, c, source.facets[f]);
          bucket[static_cast<std::size_t>(fill[p]++)] = (bases[source.block] + c) * 8 + static_cast<std::int64_t>(f);
        }
  }
  auto block_of = [&](std::int64_t cell) {
    return static_cast<std::size_t>(std::upper_bound(bases, bases + mesh.cells.size() + 1, cell) - bases) - 1;
  };
  auto instance_key = [&](std::int64_t instance) {
    const std::int64_t cell = instance / 8;
    const std::size_t b = block_of(cell);
    return key_of(b, cell - bases[b], cell_facets(mesh.cells[b].type)[static_cast<std::size_t>(instance % 8)]);
  };
  // Buckets are independent: split over the cores (bytes, not bits: threads write side by side).
  std::vector<std::uint8_t> boundary(static_cast<std::size_t>(bases[mesh.cells.size()]) * 8, 0);
  parallel_ranges(num_points, 4096, [&](std::size_t first, std::size_t last) {
    std::vector<std::pair<detail::FacetKey, std::int64_t>> keyed;
    for (std::size_t p = first; p < last; ++p) {
      keyed.clear();
      for (std::int64_t i = start[p]; i < start[p + 1]; ++i)
        keyed.emplace_back(instance_key(bucket[static_cast<std::size_t>(i)]), bucket[static_cast<std::size_t>(i)]);
      std::sort(keyed.begin(), keyed.end());
      for (std::size_t i = 0; i < keyed.size(); ++i) {
        const bool alone = (i == 0 || keyed[i - 1].first != keyed[i].first) &&
                           (i + 1 == keyed.size() || keyed[i + 1].first != keyed[i].first);
        if (alone) boundary[static_cast<std::size_t>(keyed[i].second)] = 1;
      }
    }
  });

  // Boundary facets grouped by corner count, cell by cell in block-major order.
  struct Facet {
    std::int64_t cell;
    std::int32_t facet;
  };
  std::vector<std::vector<Facet>> by_corners(5);
  for (const Source& source : sources)
    for (std::int64_t c = 0; c < mesh.cells[source.block].num_cells(); ++c)
      for (std::size_t f = 0; f < source.facets.size(); ++f) {
        const std::int64_t cell = bases[source.block] + c;
        if (boundary[static_cast<std::size_t>(cell * 8 + static_cast<std::int64_t>(f))])
          by_corners[static_cast<std::size_t>(source.facets[f].count)].push_back({cell, static_cast<std::int32_t>(f)});
      }

  auto locate = [&](std::int64_t cell) {
    const std::size_t b = static_cast<std::size_t>(std::upper_bound(bases, bases + mesh.cells.size() + 1, cell) - bases) - 1;
    return std::pair{b, cell - bases[b]};
  };

  Mesh surface;
  surface.points = mesh.points;
  surface.point_data = mesh.point_data;
  surface.field_data = mesh.field_data;
  surface.string_field_data = mesh.string_field_data;
  std::vector<Facet> listed;  // surface cell (block-major) → its origin
  std::vector<NDArray> origin_cell, origin_facet;
  for (int corners = 2; corners <= 4; ++corners) {
    const std::vector<Facet>& facets = by_corners[static_cast<std::size_t>(corners)];
    if (facets.empty()) continue;
    const auto n = static_cast<std::int64_t>(facets.size());
    CellBlock block{std::string(facet_type(corners)), NDArray::allocate(DType::int64, {n, corners}), {}, {}};
    std::int64_t* out = block.connectivity.data_as<std::int64_t>();
    NDArray cells = NDArray::allocate(DType::int64, {n}), locals = NDArray::allocate(DType::int64, {n});
    for (std::int64_t i = 0; i < n; ++i) {
      const auto [b, local] = locate(facets[static_cast<std::size_t>(i)].cell);
      const CellBlock& source = mesh.cells[b];
      const std::int64_t* cell = source.connectivity.data_as<std::int64_t>() + local * source.connectivity.row_width();
      const FacetCorners& facet = cell_facets(source.type)[static_cast<std::size_t>(facets[static_cast<std::size_t>(i)].facet)];
      for (int k = 0; k < corners; ++k) out[i * corners + k] = cell[facet.corners[static_cast<std::size_t>(k)]];
      cells.data_as<std::int64_t>()[i] = facets[static_cast<std::size_t>(i)].cell;
      locals.data_as<std::int64_t>()[i] = facets[static_cast<std::size_t>(i)].facet;
      listed.push_back(facets[static_cast<std::size_t>(i)]);
    }
    surface.cells.push_back(std::move(block));
    origin_cell.push_back(std::move(cells));
    origin_facet.push_back(std::move(locals));
  }
  if (surface.cells.empty()) fail("extract_surface: no boundary facet (no cell type with a facet table)");

  // Cell data of the source, each facet taking its cell's row.
  for (const auto& [name, arrays] : mesh.cell_data) {
    std::vector<NDArray> per_block;
    std::size_t at = 0;
    for (const CellBlock& block : surface.cells) {
      std::vector<std::int64_t> rows;
      std::size_t source_block = SIZE_MAX;
      bool one_block = true;
      for (std::int64_t i = 0; i < block.num_cells(); ++i) {
        const auto [b, local] = locate(listed[at + static_cast<std::size_t>(i)].cell);
        if (source_block == SIZE_MAX) source_block = b;
        one_block = one_block && b == source_block;
        rows.push_back(local);
      }
      if (!one_block) {  // facets of cells of several blocks: gather through a stacked copy
        std::vector<std::int64_t> global;
        for (std::int64_t i = 0; i < block.num_cells(); ++i) global.push_back(listed[at + static_cast<std::size_t>(i)].cell);
        const NDArray& first = arrays.front();
        Shape shape = first.shape();
        shape[0] = bases[mesh.cells.size()];
        bool stackable = true;
        for (const NDArray& array : arrays) stackable = stackable && array.dtype() == first.dtype() && array.row_width() == first.row_width();
        if (!stackable) fail("extract_surface: cell data '" + name + "' differs in dtype or shape between blocks");
        NDArray stacked = NDArray::allocate(first.dtype(), shape);
        std::size_t offset = 0;
        for (const NDArray& array : arrays) {
          std::memcpy(static_cast<unsigned char*>(stacked.data()) + offset, array.data(), array.nbytes());
          offset += array.nbytes();
        }
        per_block.push_back(gather_rows(stacked, global));
      } else {
        per_block.push_back(gather_rows(arrays[source_block], rows));
      }
      at += static_cast<std::size_t>(block.num_cells());
    }
    surface.cell_data.set(name, std::move(per_block));
  }
  surface.cell_data.set("surface:cell", std::move(origin_cell));
  surface.cell_data.set("surface:facet", std::move(origin_facet));

  // Side regions of the source → Cell regions of the surface (their facets on the boundary).
  std::unordered_map<std::int64_t, std::int64_t> surface_cell_of;  // cell * 8 + facet → surface cell
  for (std::size_t i = 0; i < listed.size(); ++i) surface_cell_of[listed[i].cell * 8 + listed[i].facet] = static_cast<std::int64_t>(i);
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Side) continue;
    const std::span<const std::int64_t> pairs = region.entries.values<std::int64_t>();
    std::vector<std::int64_t> entries;
    for (std::size_t i = 0; i + 1 < pairs.size(); i += 2)
      if (const auto found = surface_cell_of.find(pairs[i] * 8 + pairs[i + 1]); found != surface_cell_of.end())
        entries.push_back(found->second);
    if (entries.empty()) continue;
    Region cells{region.name, RegionKind::Cell, top - 1, region.tag, NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size())})};
    std::copy(entries.begin(), entries.end(), cells.entries.data_as<std::int64_t>());
    surface.regions.push_back(std::move(cells));
  }
  remove_orphaned_nodes(surface);
  return surface;
}

}  // namespace meshioplusplus

namespace meshioplusplus {
using namespace detail;

namespace {

using Vec = std::array<double, 3>;

Vec point_of(const Mesh& mesh, std::int64_t index, const std::vector<double>& xyz) {
  const auto width = static_cast<std::size_t>(mesh.points.row_width());
  Vec p{0, 0, 0};
  for (std::size_t k = 0; k < width && k < 3; ++k) p[k] = xyz[static_cast<std::size_t>(index) * width + k];
  return p;
}

Vec minus(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec cross(const Vec& a, const Vec& b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

}  // namespace

MeshCheck check(const Mesh& mesh) {
  check_connectivity(mesh);
  MeshCheck report;
  const auto n = static_cast<std::size_t>(mesh.num_points());
  const auto width = static_cast<std::size_t>(mesh.points.row_width());
  std::vector<double> xyz(n * width);
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* values = mesh.points.data_as<T>();
    for (std::size_t i = 0; i < n * width; ++i) xyz[i] = static_cast<double>(values[i]);
  });
  // Planar in x-y: 2-D points, or 3-D ones of one z — then a 2-D cell's orientation is defined.
  bool planar = width < 3;
  if (!planar && n > 0) {
    planar = true;
    for (std::size_t i = 1; i < n && planar; ++i) planar = xyz[i * width + 2] == xyz[2];
  }
  std::vector<bool> used(n, false);
  const NDArray bases_array = block_bases(mesh.cells);
  const std::int64_t* bases = bases_array.data_as<std::int64_t>();
  // Duplicates: cells of one type (in any block) with the same sorted node list — kept flat per
  // type (one array of width-wide rows, no allocation a cell), compared after sorting row indices.
  struct SortedRows {
    std::int64_t width = 0;
    std::vector<std::int64_t> nodes;  // row r: [r * width, (r + 1) * width), ascending
    std::vector<std::int64_t> cells;  // row r's block-major cell
  };
  std::unordered_map<std::string, SortedRows> node_sets;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    for (std::int64_t node : block.connectivity.values<std::int64_t>()) used[static_cast<std::size_t>(node)] = true;
    if (block.is_ragged()) continue;
    const std::int64_t k = block.connectivity.row_width();
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    const int dimension = dimension_of(block);
    const std::span<const FacetCorners> facets = cell_facets(block.type);
    // Corner nodes lead a cell's node list: as many as its facets name (tetra10: 4), else all.
    int corners = facets.empty() ? static_cast<int>(k) : 0;
    for (const FacetCorners& facet : facets)
      for (int i = 0; i < facet.count; ++i) corners = std::max(corners, facet.corners[static_cast<std::size_t>(i)] + 1);
    SortedRows& rows = node_sets[block.type];
    rows.width = k;  // one type, one node count (a rectangular block)
    rows.nodes.reserve(rows.nodes.size() + static_cast<std::size_t>(block.num_cells() * k));
    rows.cells.reserve(rows.cells.size() + static_cast<std::size_t>(block.num_cells()));
    for (std::int64_t c = 0; c < block.num_cells(); ++c) {
      const std::int64_t* cell = nodes + c * k;
      const std::int64_t global = bases[b] + c;
      const std::size_t at = rows.nodes.size();
      rows.nodes.insert(rows.nodes.end(), cell, cell + k);
      const auto sorted_begin = rows.nodes.begin() + static_cast<std::ptrdiff_t>(at);
      std::sort(sorted_begin, rows.nodes.end());
      rows.cells.push_back(global);
      const bool repeated = std::adjacent_find(sorted_begin, rows.nodes.end()) != rows.nodes.end();
      double measure = 0, scale = 0;  // signed volume/area/length and the square of the cell's size
      for (int i = 1; i < corners; ++i)
        scale = std::max(scale, dot(minus(point_of(mesh, cell[i], xyz), point_of(mesh, cell[0], xyz)),
                                    minus(point_of(mesh, cell[i], xyz), point_of(mesh, cell[0], xyz))));
      bool oriented = false;
      if (dimension == 3 && !facets.empty()) {  // divergence theorem over the outward facets, fans of triangles
        for (const FacetCorners& facet : facets) {
          const Vec a = point_of(mesh, cell[facet.corners[0]], xyz);
          for (int i = 1; i + 1 < facet.count; ++i)
            measure += dot(a, cross(point_of(mesh, cell[facet.corners[static_cast<std::size_t>(i)]], xyz),
                                    point_of(mesh, cell[facet.corners[static_cast<std::size_t>(i + 1)]], xyz))) / 6.0;
        }
        oriented = true;
      } else if (dimension == 2 && corners >= 3) {  // fan from the first corner
        const Vec a = point_of(mesh, cell[0], xyz);
        Vec normal{0, 0, 0};
        for (int i = 1; i + 1 < corners; ++i) {
          const Vec t = cross(minus(point_of(mesh, cell[i], xyz), a), minus(point_of(mesh, cell[i + 1], xyz), a));
          normal = {normal[0] + t[0], normal[1] + t[1], normal[2] + t[2]};
        }
        measure = planar ? normal[2] / 2 : std::sqrt(dot(normal, normal)) / 2;
        oriented = planar;
      } else if (dimension == 1 && corners >= 2) {
        measure = std::sqrt(scale);
      } else {
        measure = 1;  // vertices, unknown types: nothing to measure
      }
      const double size = dimension == 3 ? std::pow(scale, 1.5) : dimension == 2 ? scale : std::sqrt(scale);
      if (repeated || std::abs(measure) <= 1e-12 * size) report.degenerate.push_back(global);
      else if (oriented && measure < 0) report.inverted.push_back(global);
    }
  }
  for (const auto& entry : node_sets) {
    const SortedRows& rows = entry.second;  // a named reference: lambdas below capture it (not a binding)
    const auto width = static_cast<std::size_t>(rows.width);
    auto row = [&](std::size_t r) { return std::span<const std::int64_t>(rows.nodes.data() + r * width, width); };
    std::vector<std::size_t> order(rows.cells.size());
    for (std::size_t r = 0; r < order.size(); ++r) order[r] = r;
    // by nodes, then by cell: the first of equal ones stays
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      const auto a = row(x), b = row(y);
      if (std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end())) return true;
      if (std::lexicographical_compare(b.begin(), b.end(), a.begin(), a.end())) return false;
      return rows.cells[x] < rows.cells[y];
    });
    for (std::size_t i = 1; i < order.size(); ++i) {
      const auto a = row(order[i - 1]), b = row(order[i]);
      if (std::equal(a.begin(), a.end(), b.begin())) report.duplicate.push_back(rows.cells[order[i]]);
    }
  }
  std::sort(report.duplicate.begin(), report.duplicate.end());
  for (std::size_t i = 0; i < n; ++i)
    if (!used[i]) report.unused_points.push_back(static_cast<std::int64_t>(i));

  // Facets of the top-dimensional cells seen more than twice.
  int top = -1;
  for (const CellBlock& block : mesh.cells) top = std::max(top, dimension_of(block));
  std::vector<std::pair<detail::FacetKey, std::int64_t>> facets;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    if (dimension_of(block) != top || block.is_ragged() || top < 2) continue;
    const std::int64_t k = block.connectivity.row_width();
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    for (const FacetCorners& facet : cell_facets(block.type))
      for (std::int64_t c = 0; c < block.num_cells(); ++c) facets.emplace_back(detail::make_key(nodes + c * k, facet), bases[b] + c);
  }
  std::sort(facets.begin(), facets.end());
  for (std::size_t i = 0; i < facets.size();) {
    std::size_t j = i;
    while (j < facets.size() && facets[j].first == facets[i].first) ++j;
    if (j - i > 2) {
      ++report.non_manifold_facets;
      for (std::size_t m = i; m < j; ++m) report.non_manifold_cells.push_back(facets[m].second);
    }
    i = j;
  }
  std::sort(report.non_manifold_cells.begin(), report.non_manifold_cells.end());
  report.non_manifold_cells.erase(std::unique(report.non_manifold_cells.begin(), report.non_manifold_cells.end()),
                                  report.non_manifold_cells.end());
  return report;
}

}  // namespace meshioplusplus
