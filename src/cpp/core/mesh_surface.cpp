// extract_surface and check() (include/meshioplusplus/mesh_ops.hpp): both look at the facets of
// the top-dimensional cells (side_regions.hpp's outward facet table), bucketed by their smallest
// corner — two or three integers a facet, no hash table of keys.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/facet_map.hpp"
#include "core/mesh_ops_internal.hpp"
#include "core/parallel_ranges.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/mesh_ops.hpp"
#include "meshioplusplus/side_regions.hpp"
#include "meshioplusplus/threads.hpp"

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
  // Facets are bucketed by their smallest corner (a counting sort over the points, a few dozen
  // facets a bucket) with their other corners packed into one integer; a bucket sorted by that
  // integer shows its facets seen once. Every pass runs on all cores: the cells are cut into
  // chunks, each counting into its own row of the histogram, so a bucket lists its facets in
  // block-major order as a sequential pass would.
  struct Source {
    std::size_t block;
    std::span<const FacetCorners> facets;
    std::int64_t first;  // this block's first cell among the sources' cells
  };
  std::vector<Source> sources;
  std::int64_t source_cells = 0, instances = 0;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    if (dimension_of(block) != top || block.is_ragged()) continue;
    if (const std::span<const FacetCorners> facets = cell_facets(block.type); !facets.empty()) {
      sources.push_back({b, facets, source_cells});
      source_cells += block.num_cells();
      instances += block.num_cells() * static_cast<std::int64_t>(facets.size());
    }
  }
  // Calls visit(source, local cell, its nodes) for the sources' cells [first, last).
  auto for_cells = [&](std::int64_t first, std::int64_t last, auto&& visit) {
    for (const Source& source : sources) {
      const CellBlock& block = mesh.cells[source.block];
      const std::int64_t begin = std::max(first, source.first) - source.first;
      const std::int64_t end = std::min(last, source.first + block.num_cells()) - source.first;
      const std::int64_t width = block.connectivity.row_width();
      const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
      for (std::int64_t c = begin; c < end; ++c) visit(source, c, nodes + c * width);
    }
  };
  const auto num_points = static_cast<std::size_t>(mesh.num_points());
  // Chunks: one a thread, fewer when their histograms (a row of points each) would outgrow the facets.
  const auto chunks = static_cast<std::size_t>(std::clamp<std::int64_t>(
      std::min<std::int64_t>(thread_count(), source_cells / 4096), 1,
      std::max<std::int64_t>(1, 2 * instances / static_cast<std::int64_t>(num_points + 1))));
  auto chunk_cells = [&](std::size_t chunk) {
    return std::pair{source_cells * static_cast<std::int64_t>(chunk) / static_cast<std::int64_t>(chunks),
                     source_cells * static_cast<std::int64_t>(chunk + 1) / static_cast<std::int64_t>(chunks)};
  };
  auto on_chunks = [&](auto&& work) {
    parallel_ranges(chunks, 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t chunk = first; chunk < last; ++chunk) work(chunk);
    });
  };
  // A facet's corners, ascending (count of them valid).
  auto sorted_corners = [](const std::int64_t* cell, const FacetCorners& facet) {
    std::array<std::int64_t, 4> v{};
    if (facet.count == 3) {  // triangles (tetrahedra, prisms): min/max, no branches
      const std::int64_t a = cell[facet.corners[0]], b = cell[facet.corners[1]], c = cell[facet.corners[2]];
      const std::int64_t low = std::min(a, b), high = std::max(a, b);
      v[0] = std::min(low, c);
      v[1] = std::max(low, std::min(high, c));
      v[2] = std::max(high, c);
      return v;
    }
    const auto count = static_cast<std::size_t>(std::clamp(facet.count, 0, 4));
    for (std::size_t i = 0; i < count; ++i) {  // insertion sort of at most four
      std::int64_t value = cell[facet.corners[i]];
      std::size_t j = i;
      for (; j > 0 && v[j - 1] > value; --j) v[j] = v[j - 1];
      v[j] = value;
    }
    return v;
  };
  std::vector<std::int64_t> fill(chunks * num_points, 0);  // counts, then each chunk's next position
  on_chunks([&](std::size_t chunk) {
    std::int64_t* counts = fill.data() + chunk * num_points;
    const auto [first, last] = chunk_cells(chunk);
    for_cells(first, last, [&](const Source& source, std::int64_t, const std::int64_t* cell) {
      for (const FacetCorners& facet : source.facets) {
        std::int64_t smallest = cell[facet.corners[0]];
        for (int i = 1; i < facet.count; ++i) smallest = std::min(smallest, cell[facet.corners[static_cast<std::size_t>(i)]]);
        ++counts[smallest];
      }
    });
  });
  std::vector<std::int64_t> start(num_points + 1, 0);
  for (std::size_t p = 0, running = 0; p < num_points; ++p) {
    start[p] = static_cast<std::int64_t>(running);
    for (std::size_t chunk = 0; chunk < chunks; ++chunk)
      running += static_cast<std::size_t>(std::exchange(fill[chunk * num_points + p], static_cast<std::int64_t>(running)));
    start[p + 1] = static_cast<std::int64_t>(running);
  }
  // Buckets are independent: split over the cores (bytes, not bits: threads write side by side).
  std::vector<std::uint8_t> boundary(static_cast<std::size_t>(bases[mesh.cells.size()]) * 8, 0);
  // The corners after the smallest, each plus one (0: none), in `bits`-bit fields: equal
  // exactly when the facets' sorted corner lists are.
  auto find_boundary = [&]<class Key>(Key, int bits) {
    struct Entry {
      Key rest;
      std::int64_t instance;  // (global cell) * 8 + local facet
    };
    // Scratch from the library's heap: large blocks come on huge pages (fewer faults and TLB
    // misses for the scattered writes) and are reused by the next call of the same size.
    NDArray bucket_bytes = NDArray::allocate_scratch(DType::uint8, {instances * static_cast<std::int64_t>(sizeof(Entry))});
    const std::span<Entry> bucket(static_cast<Entry*>(bucket_bytes.data()), static_cast<std::size_t>(instances));
    on_chunks([&](std::size_t chunk) {
      std::int64_t* next = fill.data() + chunk * num_points;
      const auto [first, last] = chunk_cells(chunk);
      for_cells(first, last, [&](const Source& source, std::int64_t c, const std::int64_t* cell) {
        const std::int64_t global = bases[source.block] + c;
        for (std::size_t f = 0; f < source.facets.size(); ++f) {
          const auto v = sorted_corners(cell, source.facets[f]);
          Key rest = 0;
          for (int i = 1; i < 4; ++i)
            rest = rest << bits | (i < source.facets[f].count ? static_cast<Key>(v[static_cast<std::size_t>(i)] + 1) : Key{0});
          bucket[static_cast<std::size_t>(next[v[0]]++)] = {rest, global * 8 + static_cast<std::int64_t>(f)};
        }
      });
    });
    parallel_ranges(num_points, 4096, [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p) {
        Entry* begin = bucket.data() + start[p];
        Entry* end = bucket.data() + start[p + 1];
        if (end - begin <= 32) {  // a few dozen: insertion sort
          for (Entry* i = begin + 1; i < end; ++i) {
            const Entry moving = *i;
            Entry* j = i;
            for (; j > begin && j[-1].rest > moving.rest; --j) *j = j[-1];
            *j = moving;
          }
        } else {
          std::sort(begin, end, [](const Entry& x, const Entry& y) { return x.rest < y.rest; });
        }
        for (Entry* i = begin; i < end; ++i)
          if ((i == begin || i[-1].rest != i->rest) && (i + 1 == end || i[1].rest != i->rest))
            boundary[static_cast<std::size_t>(i->instance)] = 1;
      }
    });
  };
  if (num_points + 1 < (std::size_t{1} << 21)) find_boundary(std::uint64_t{0}, 21);
  else if (num_points + 1 < (std::size_t{1} << 42)) find_boundary(static_cast<unsigned __int128>(0), 42);
  else fail("extract_surface: more than 2^42 points");
  fill = {};
  start = {};

  // Boundary facets grouped by corner count, cell by cell in block-major order: counted by
  // chunk, then each chunk writes its share.
  struct Facet {
    std::int64_t cell;
    std::int32_t facet;
  };
  std::vector<std::array<std::size_t, 5>> found(chunks + 1, std::array<std::size_t, 5>{});
  auto scan = [&](std::size_t chunk, auto&& take) {
    const auto [first, last] = chunk_cells(chunk);
    for_cells(first, last, [&](const Source& source, std::int64_t c, const std::int64_t*) {
      const std::int64_t cell = bases[source.block] + c;
      for (std::size_t f = 0; f < source.facets.size(); ++f)
        if (boundary[static_cast<std::size_t>(cell * 8 + static_cast<std::int64_t>(f))])
          take(source.facets[f].count, Facet{cell, static_cast<std::int32_t>(f)});
    });
  };
  on_chunks([&](std::size_t chunk) { scan(chunk, [&](int corners, Facet) { ++found[chunk + 1][static_cast<std::size_t>(corners)]; }); });
  for (std::size_t chunk = 0; chunk < chunks; ++chunk)
    for (std::size_t k = 0; k < 5; ++k) found[chunk + 1][k] += found[chunk][k];
  std::vector<std::vector<Facet>> by_corners(5);
  for (std::size_t k = 0; k < 5; ++k) by_corners[k].resize(found[chunks][k]);
  on_chunks([&](std::size_t chunk) {
    std::array<std::size_t, 5> at = found[chunk];
    scan(chunk, [&](int corners, Facet facet) { by_corners[static_cast<std::size_t>(corners)][at[static_cast<std::size_t>(corners)]++] = facet; });
  });

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
    std::vector<std::span<const FacetCorners>> block_facets(mesh.cells.size());  // looked up once a block
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) block_facets[b] = cell_facets(mesh.cells[b].type);
    parallel_ranges(static_cast<std::size_t>(n), std::size_t{1} << 14, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) {
        const auto [b, local] = locate(facets[i].cell);
        const CellBlock& source = mesh.cells[b];
        const std::int64_t* cell = source.connectivity.data_as<std::int64_t>() + local * source.connectivity.row_width();
        const FacetCorners& facet = block_facets[b][static_cast<std::size_t>(facets[i].facet)];
        for (int k = 0; k < corners; ++k) out[i * static_cast<std::size_t>(corners) + static_cast<std::size_t>(k)] = cell[facet.corners[static_cast<std::size_t>(k)]];
        cells.data_as<std::int64_t>()[i] = facets[i].cell;
        locals.data_as<std::int64_t>()[i] = facets[i].facet;
      }
    });
    listed.insert(listed.end(), facets.begin(), facets.end());
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
  if (std::any_of(mesh.regions.begin(), mesh.regions.end(), [](const Region& region) { return region.kind == RegionKind::Side; }))
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
