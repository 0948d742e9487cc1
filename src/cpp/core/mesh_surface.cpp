// extract_surface and check() (include/meshioplusplus/mesh_ops.hpp): both look at the facets of
// the top-dimensional cells (side_regions.hpp's outward facet table), bucketed by their smallest
// corner — two or three integers a facet, no hash table of keys. Second-order cells are matched
// by their corners too and give quadratic facets (surface_facets below).
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
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

// What a boundary facet becomes. Linear cells give their corner facets (side_regions.hpp's
// outward table). Second-order cells give the quadratic facet on the same corners, as
// vtkUnstructuredGridGeometryFilter does: the corners, then the mid-edge node of each facet
// edge (corner i to corner i + 1, VTK's line3/triangle6/quad8 order), then the face-centre node
// where the cell has one (quad9). Kinds are listed so a linear mesh's blocks keep their order.
enum FacetKind : std::uint8_t { kLine, kLine3, kTriangle, kTriangle6, kQuad, kQuad8, kQuad9, kFacetKinds };
constexpr std::array<std::string_view, kFacetKinds> kFacetKindName{"line", "line3", "triangle", "triangle6",
                                                                   "quad", "quad8", "quad9"};
constexpr std::array<int, kFacetKinds> kFacetKindNodes{2, 3, 3, 6, 4, 8, 9};

struct SurfaceFacet {
  FacetKind kind;
  std::array<std::int8_t, 9> nodes;  // indices into the cell's node list, kFacetKindNodes[kind] of them
};

// A second-order family's extra nodes in VTK's (and meshio's) order: the mid-edge node of each
// edge, and the centre node of each face that has one.
struct MidEdge {
  std::int8_t a, b, node;
};
struct FaceCentre {
  std::array<std::int8_t, 4> corners;  // in any order
  std::int8_t node;
};
struct SecondOrder {
  std::string_view type;
  std::span<const MidEdge> edges;
  std::span<const FaceCentre> centres;
};
constexpr std::array<MidEdge, 3> kTriangleEdges{{{0, 1, 3}, {1, 2, 4}, {2, 0, 5}}};
constexpr std::array<MidEdge, 4> kQuadEdges{{{0, 1, 4}, {1, 2, 5}, {2, 3, 6}, {3, 0, 7}}};
constexpr std::array<MidEdge, 6> kTetraEdges{{{0, 1, 4}, {1, 2, 5}, {2, 0, 6}, {0, 3, 7}, {1, 3, 8}, {2, 3, 9}}};
constexpr std::array<MidEdge, 8> kPyramidEdges{
    {{0, 1, 5}, {1, 2, 6}, {2, 3, 7}, {3, 0, 8}, {0, 4, 9}, {1, 4, 10}, {2, 4, 11}, {3, 4, 12}}};
constexpr std::array<MidEdge, 9> kWedgeEdges{
    {{0, 1, 6}, {1, 2, 7}, {2, 0, 8}, {3, 4, 9}, {4, 5, 10}, {5, 3, 11}, {0, 3, 12}, {1, 4, 13}, {2, 5, 14}}};
constexpr std::array<MidEdge, 12> kHexahedronEdges{{{0, 1, 8}, {1, 2, 9}, {2, 3, 10}, {3, 0, 11}, {4, 5, 12}, {5, 6, 13},
                                                    {6, 7, 14}, {7, 4, 15}, {0, 4, 16}, {1, 5, 17}, {2, 6, 18}, {3, 7, 19}}};
constexpr std::array<FaceCentre, 3> kWedge18Centres{{{{0, 1, 4, 3}, 15}, {{1, 2, 5, 4}, 16}, {{2, 0, 3, 5}, 17}}};
constexpr std::array<FaceCentre, 6> kHexahedron27Centres{{{{0, 3, 7, 4}, 20}, {{1, 2, 6, 5}, 21}, {{0, 1, 5, 4}, 22},
                                                          {{3, 2, 6, 7}, 23}, {{0, 1, 2, 3}, 24}, {{4, 5, 6, 7}, 25}}};
constexpr std::array<FaceCentre, 1> kQuad9Centre{{{{0, 1, 2, 3}, 8}}};
constexpr std::array kSecondOrder{
    SecondOrder{"triangle6", kTriangleEdges, {}},        SecondOrder{"triangle7", kTriangleEdges, {}},
    SecondOrder{"quad8", kQuadEdges, {}},                SecondOrder{"quad9", kQuadEdges, kQuad9Centre},
    SecondOrder{"tetra10", kTetraEdges, {}},             SecondOrder{"pyramid13", kPyramidEdges, {}},
    SecondOrder{"wedge15", kWedgeEdges, {}},             SecondOrder{"wedge18", kWedgeEdges, kWedge18Centres},
    SecondOrder{"hexahedron20", kHexahedronEdges, {}},   SecondOrder{"hexahedron27", kHexahedronEdges, kHexahedron27Centres},
};

// The surface facets of a block: one per entry of its facet table. Corner facets unless the
// type is second order (and its rows hold the nodes the tables name).
std::vector<SurfaceFacet> surface_facets(const CellBlock& block, std::span<const FacetCorners> facets) {
  const SecondOrder* family = nullptr;
  for (const SecondOrder& candidate : kSecondOrder)
    if (candidate.type == block.type) family = &candidate;
  const std::int64_t width = block.connectivity.row_width();
  std::vector<SurfaceFacet> out;
  for (const FacetCorners& facet : facets) {
    SurfaceFacet surface{facet.count == 2 ? kLine : facet.count == 3 ? kTriangle : kQuad, {}};
    const auto count = static_cast<std::size_t>(facet.count);
    std::copy_n(facet.corners.begin(), count, surface.nodes.begin());
    SurfaceFacet quadratic = surface;
    bool complete = family != nullptr;
    for (std::size_t i = 0; complete && i < count; ++i) {
      const std::int8_t a = facet.corners[i], b = facet.corners[(i + 1) % count];
      const auto edge = std::find_if(family->edges.begin(), family->edges.end(), [&](const MidEdge& e) {
        return (e.a == a && e.b == b) || (e.a == b && e.b == a);
      });
      complete = edge != family->edges.end() && edge->node < width;
      if (complete) quadratic.nodes[count + i] = edge->node;
      if (count == 2) break;  // an edge facet: one edge, not two
    }
    if (complete) {
      quadratic.kind = facet.count == 2 ? kLine3 : facet.count == 3 ? kTriangle6 : kQuad8;
      for (const FaceCentre& centre : family->centres)
        if (count == 4 && centre.node < width &&
            std::is_permutation(centre.corners.begin(), centre.corners.end(), facet.corners.begin())) {
          quadratic.kind = kQuad9;
          quadratic.nodes[8] = centre.node;
        }
    }
    out.push_back(complete ? quadratic : surface);
  }
  return out;
}

// The top-dimensional cells that have a facet table — the facets extract_surface and check()
// look at — cut into chunks for the cores: each chunk counts into its own row of a histogram,
// so that a pass over chunks sees the cells in block-major order as a sequential pass would.
// How many leading nodes of a cell its facet table names (tetra10: 4), 0 for none; a block whose
// rows are narrower is refused (a std::invalid_argument naming the operation).
int facet_corners(const CellBlock& block, std::span<const FacetCorners> facets, std::string_view operation) {
  int corners = 0;
  for (const FacetCorners& facet : facets)
    for (int i = 0; i < facet.count; ++i) corners = std::max(corners, facet.corners[static_cast<std::size_t>(i)] + 1);
  if (block.connectivity.row_width() < corners)
    fail(std::string(operation) + ": cells['" + block.type + "'] have " + std::to_string(block.connectivity.row_width()) +
         " nodes, fewer than the " + std::to_string(corners) + " corners of their type");
  return corners;
}

class TopCells {
 public:
  struct Source {
    std::size_t block;
    std::span<const FacetCorners> facets;
    std::int64_t first;  // this block's first cell among the sources' cells
  };

  TopCells(const Mesh& mesh, int top, std::string_view operation) : mesh_(mesh) {
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      const CellBlock& block = mesh.cells[b];
      if (dimension_of(block) != top || block.is_ragged()) continue;
      if (const std::span<const FacetCorners> facets = cell_facets(block.type); !facets.empty()) {
        facet_corners(block, facets, operation);
        sources.push_back({b, facets, cells});
        cells += block.num_cells();
        instances += block.num_cells() * static_cast<std::int64_t>(facets.size());
      }
    }
    // One chunk a thread, fewer when their histograms (a row of points each) would outgrow the facets.
    chunks = static_cast<std::size_t>(std::clamp<std::int64_t>(
        std::min<std::int64_t>(thread_count(), cells / 4096), 1,
        std::max<std::int64_t>(1, 2 * instances / (mesh.num_points() + 1))));
  }
  // Calls visit(source, local cell, its nodes) for the sources' cells [first, last).
  template <class Visit>
  void for_cells(std::int64_t first, std::int64_t last, Visit&& visit) const {
    for (const Source& source : sources) {
      const CellBlock& block = mesh_.cells[source.block];
      const std::int64_t begin = std::max(first, source.first) - source.first;
      const std::int64_t end = std::min(last, source.first + block.num_cells()) - source.first;
      const std::int64_t width = block.connectivity.row_width();
      const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
      for (std::int64_t c = begin; c < end; ++c) visit(source, c, nodes + c * width);
    }
  }
  std::pair<std::int64_t, std::int64_t> chunk_cells(std::size_t chunk) const {
    return {cells * static_cast<std::int64_t>(chunk) / static_cast<std::int64_t>(chunks),
            cells * static_cast<std::int64_t>(chunk + 1) / static_cast<std::int64_t>(chunks)};
  }
  template <class Work>
  void on_chunks(Work&& work) const {
    parallel_ranges(chunks, 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t chunk = first; chunk < last; ++chunk) work(chunk);
    });
  }

  std::vector<Source> sources;
  std::int64_t cells = 0, instances = 0;
  std::size_t chunks = 1;

 private:
  const Mesh& mesh_;
};

// Per facet instance (index (block-major cell) * 8 + local facet, 0 for cells that are no
// source): how many facets of the sources have its corners, at most 127, plus 128 on the
// first of them in block-major order. Facets are bucketed by their smallest corner (a counting
// sort over the points, a few dozen facets a bucket) with their other corners packed into one
// integer; a bucket sorted by that integer shows its groups of equal facets. Every pass runs on
// all cores.
// With `over_two` (check(), which needs only the facets seen more than twice): no multiplicity
// array at all (a byte for each of 8 facets a cell, most of its writes at random), only those
// facets' instances (ascending) and how many distinct facets they are.
constexpr std::uint8_t kFirstOfItsFacet = 128, kFacetCount = 127;
struct FacetsOverTwo {
  std::vector<std::int64_t> instances;
  std::int64_t facets = 0;
};
std::vector<std::uint8_t> facet_multiplicity(const Mesh& mesh, const TopCells& top, const std::int64_t* bases,
                                             std::string_view operation, FacetsOverTwo* over_two = nullptr) {
  const auto num_points = static_cast<std::size_t>(mesh.num_points());
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
  std::vector<std::int64_t> fill(top.chunks * num_points, 0);  // counts, then each chunk's next position
  top.on_chunks([&](std::size_t chunk) {
    std::int64_t* counts = fill.data() + chunk * num_points;
    const auto [first, last] = top.chunk_cells(chunk);
    top.for_cells(first, last, [&](const TopCells::Source& source, std::int64_t, const std::int64_t* cell) {
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
    for (std::size_t chunk = 0; chunk < top.chunks; ++chunk)
      running += static_cast<std::size_t>(std::exchange(fill[chunk * num_points + p], static_cast<std::int64_t>(running)));
    start[p + 1] = static_cast<std::int64_t>(running);
  }
  // Buckets are independent: split over the cores (bytes, not bits: threads write side by side).
  std::vector<std::uint8_t> multiplicity(over_two ? 0 : static_cast<std::size_t>(bases[mesh.cells.size()]) * 8, 0);
  std::mutex over_two_mutex;  // each range adds what it found once, at its end
  // The corners after the smallest, each plus one (0: none), in `fields` fields of `bits` bits:
  // equal exactly when the facets' sorted corner lists are. Packed: that key and the instance
  // in one 64-bit word (key above, instance below), when they fit — tetrahedra of up to
  // 2^18 points and 2^20 cells: half the bytes scattered into the buckets, the costliest pass.
  auto count_facets = [&]<class Key, bool kPacked>(Key, int bits, int fields, int instance_bits) {
    struct Wide {
      Key rest;
      std::int64_t instance;  // (global cell) * 8 + local facet
    };
    using Entry = std::conditional_t<kPacked, std::uint64_t, Wide>;
    const std::uint64_t instance_mask = (std::uint64_t{1} << instance_bits) - 1;
    auto rest_of = [&](const Entry& e) -> Key {
      if constexpr (kPacked) return e >> instance_bits;
      else return e.rest;
    };
    auto instance_of = [&](const Entry& e) -> std::int64_t {
      if constexpr (kPacked) return static_cast<std::int64_t>(e & instance_mask);
      else return e.instance;
    };
    // Packed entries order by key, then instance: the whole word.
    auto before = [&](const Entry& x, const Entry& y) {
      if constexpr (kPacked) return x < y;
      else return x.rest < y.rest;
    };
    // Scratch from the library's heap: large blocks come on huge pages (fewer faults and TLB
    // misses for the scattered writes).
    NDArray bucket_bytes = NDArray::allocate_scratch(DType::uint8, {top.instances * static_cast<std::int64_t>(sizeof(Entry))});
    const std::span<Entry> bucket(static_cast<Entry*>(bucket_bytes.data()), static_cast<std::size_t>(top.instances));
    top.on_chunks([&](std::size_t chunk) {
      std::int64_t* next = fill.data() + chunk * num_points;
      const auto [first, last] = top.chunk_cells(chunk);
      top.for_cells(first, last, [&](const TopCells::Source& source, std::int64_t c, const std::int64_t* cell) {
        const std::int64_t global = bases[source.block] + c;
        for (std::size_t f = 0; f < source.facets.size(); ++f) {
          const auto v = sorted_corners(cell, source.facets[f]);
          Key rest = 0;
          for (int i = 1; i <= fields; ++i)
            rest = rest << bits | (i < source.facets[f].count ? static_cast<Key>(v[static_cast<std::size_t>(i)] + 1) : Key{0});
          const std::int64_t instance = global * 8 + static_cast<std::int64_t>(f);
          if constexpr (kPacked) bucket[static_cast<std::size_t>(next[v[0]]++)] = rest << instance_bits | static_cast<std::uint64_t>(instance);
          else bucket[static_cast<std::size_t>(next[v[0]]++)] = {rest, instance};
        }
      });
    });
    parallel_ranges(num_points, 4096, [&](std::size_t first, std::size_t last) {
      FacetsOverTwo found;
      for (std::size_t p = first; p < last; ++p) {
        Entry* begin = bucket.data() + start[p];
        Entry* end = bucket.data() + start[p + 1];
        if (end - begin <= 32) {  // a few dozen: insertion sort
          for (Entry* i = begin + 1; i < end; ++i) {
            const Entry moving = *i;
            Entry* j = i;
            for (; j > begin && before(moving, j[-1]); --j) *j = j[-1];
            *j = moving;
          }
        } else {
          std::sort(begin, end, before);
        }
        for (Entry* i = begin; i < end;) {
          Entry* j = i + 1;
          while (j < end && rest_of(*j) == rest_of(*i)) ++j;
          if (over_two) {
            if (j - i > 2) {
              ++found.facets;
              for (Entry* k = i; k < j; ++k) found.instances.push_back(instance_of(*k));
            }
            i = j;
            continue;
          }
          const auto count = static_cast<std::uint8_t>(std::min<std::ptrdiff_t>(j - i, kFacetCount));
          std::int64_t first_instance = instance_of(*i);  // instances grow in block-major order
          for (Entry* k = i; k < j; ++k) {
            multiplicity[static_cast<std::size_t>(instance_of(*k))] = count;
            first_instance = std::min(first_instance, instance_of(*k));
          }
          multiplicity[static_cast<std::size_t>(first_instance)] |= kFirstOfItsFacet;
          i = j;
        }
      }
      if (over_two && found.facets > 0) {
        const std::lock_guard lock(over_two_mutex);
        over_two->facets += found.facets;
        over_two->instances.insert(over_two->instances.end(), found.instances.begin(), found.instances.end());
      }
    });
  };
  int most_corners = 0;  // of a facet
  for (const TopCells::Source& source : top.sources)
    for (const FacetCorners& facet : source.facets) most_corners = std::max(most_corners, facet.count);
  const int point_bits = std::bit_width(num_points);  // a corner plus one is at most num_points
  const int instance_bits = std::bit_width(static_cast<std::uint64_t>(bases[mesh.cells.size()]) * 8);
  if (most_corners >= 2 && (most_corners - 1) * point_bits + instance_bits <= 64)
    count_facets.template operator()<std::uint64_t, true>(std::uint64_t{0}, point_bits, most_corners - 1, instance_bits);
  else if (num_points + 1 < (std::size_t{1} << 21))
    count_facets.template operator()<std::uint64_t, false>(std::uint64_t{0}, 21, 3, 0);
  else if (num_points + 1 < (std::size_t{1} << 42))
    count_facets.template operator()<unsigned __int128, false>(static_cast<unsigned __int128>(0), 42, 3, 0);
  else fail(std::string(operation) + ": more than 2^42 points");
  if (over_two) std::sort(over_two->instances.begin(), over_two->instances.end());  // the ranges' order: the threads'
  return multiplicity;
}

}  // namespace

Mesh extract_surface(const Mesh& mesh) {
  check_connectivity(mesh);
  int top = -1;
  for (const CellBlock& block : mesh.cells) top = std::max(top, dimension_of(block));
  if (top < 2) fail("extract_surface: the mesh has no 2-D or 3-D cells");
  const NDArray bases_array = block_bases(mesh.cells);
  const std::int64_t* bases = bases_array.data_as<std::int64_t>();

  // A facet is on the boundary when no other facet of a top-dimensional cell has its corners.
  const TopCells cells_of_top(mesh, top, "extract_surface");
  std::vector<std::vector<SurfaceFacet>> block_facets(mesh.cells.size());  // what each facet of a source becomes
  for (const TopCells::Source& source : cells_of_top.sources)
    block_facets[source.block] = surface_facets(mesh.cells[source.block], source.facets);
  const std::vector<std::uint8_t> multiplicity = facet_multiplicity(mesh, cells_of_top, bases, "extract_surface");
  const std::size_t chunks = cells_of_top.chunks;
  auto on_chunks = [&](auto&& work) { cells_of_top.on_chunks(work); };

  // Boundary facets grouped by kind, cell by cell in block-major order: counted by chunk, then
  // each chunk writes its share.
  struct Facet {
    std::int64_t cell;
    std::int32_t facet;
  };
  std::vector<std::array<std::size_t, kFacetKinds>> found(chunks + 1, std::array<std::size_t, kFacetKinds>{});
  auto scan = [&](std::size_t chunk, auto&& take) {
    const auto [first, last] = cells_of_top.chunk_cells(chunk);
    cells_of_top.for_cells(first, last, [&](const TopCells::Source& source, std::int64_t c, const std::int64_t*) {
      const std::int64_t cell = bases[source.block] + c;
      const std::vector<SurfaceFacet>& kinds = block_facets[source.block];
      for (std::size_t f = 0; f < source.facets.size(); ++f)
        if ((multiplicity[static_cast<std::size_t>(cell * 8 + static_cast<std::int64_t>(f))] & kFacetCount) == 1)
          take(kinds[f].kind, Facet{cell, static_cast<std::int32_t>(f)});
    });
  };
  on_chunks([&](std::size_t chunk) { scan(chunk, [&](FacetKind kind, Facet) { ++found[chunk + 1][kind]; }); });
  for (std::size_t chunk = 0; chunk < chunks; ++chunk)
    for (std::size_t k = 0; k < kFacetKinds; ++k) found[chunk + 1][k] += found[chunk][k];
  std::vector<std::vector<Facet>> by_kind(kFacetKinds);
  for (std::size_t k = 0; k < kFacetKinds; ++k) by_kind[k].resize(found[chunks][k]);
  on_chunks([&](std::size_t chunk) {
    std::array<std::size_t, kFacetKinds> at = found[chunk];
    scan(chunk, [&](FacetKind kind, Facet facet) { by_kind[kind][at[kind]++] = facet; });
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
  for (std::size_t kind = 0; kind < kFacetKinds; ++kind) {
    const std::vector<Facet>& facets = by_kind[kind];
    if (facets.empty()) continue;
    const auto n = static_cast<std::int64_t>(facets.size());
    const int width = kFacetKindNodes[kind];
    CellBlock block{std::string(kFacetKindName[kind]), NDArray::allocate(DType::int64, {n, width}), {}, {}};
    std::int64_t* out = block.connectivity.data_as<std::int64_t>();
    NDArray cells = NDArray::allocate(DType::int64, {n}), locals = NDArray::allocate(DType::int64, {n});
    parallel_ranges(static_cast<std::size_t>(n), std::size_t{1} << 14, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) {
        const auto [b, local] = locate(facets[i].cell);
        const CellBlock& source = mesh.cells[b];
        const std::int64_t* cell = source.connectivity.data_as<std::int64_t>() + local * source.connectivity.row_width();
        const SurfaceFacet& facet = block_facets[b][static_cast<std::size_t>(facets[i].facet)];
        for (int k = 0; k < width; ++k) out[i * static_cast<std::size_t>(width) + static_cast<std::size_t>(k)] = cell[facet.nodes[static_cast<std::size_t>(k)]];
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

// The points as doubles: the array itself when it is float64 (no copy), else a converted copy.
struct PointsAsDouble {
  explicit PointsAsDouble(const NDArray& points) : width(static_cast<std::size_t>(points.row_width())) {
    const std::size_t count = static_cast<std::size_t>(points.rows()) * width;
    if (points.dtype() == DType::float64) {
      data = points.data_as<double>();
      return;
    }
    converted.resize(count);
    visit_dtype(points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = points.data_as<T>();
      parallel_ranges(count, std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) converted[i] = static_cast<double>(values[i]);
      });
    });
    data = converted.data();
  }
  Vec operator[](std::int64_t index) const {
    Vec p{0, 0, 0};
    for (std::size_t k = 0; k < width && k < 3; ++k) p[k] = data[static_cast<std::size_t>(index) * width + k];
    return p;
  }
  std::size_t width;
  const double* data = nullptr;
  std::vector<double> converted;
};

// A cell's node list in ascending order: a network of compare-exchanges (min/max, no branches
// to mispredict) for three and four nodes, std::sort for the others.
void sort_few(std::int64_t* v, std::int64_t count) {
  const auto exchange = [v](int i, int j) {
    const std::int64_t low = std::min(v[i], v[j]), high = std::max(v[i], v[j]);
    v[i] = low;
    v[j] = high;
  };
  if (count == 4) {
    exchange(0, 1), exchange(2, 3), exchange(0, 2), exchange(1, 3), exchange(1, 2);
  } else if (count == 3) {
    exchange(0, 1), exchange(1, 2), exchange(0, 1);
  } else {
    std::sort(v, v + count);
  }
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
  const PointsAsDouble xyz(mesh.points);
  // Planar in x-y: 2-D points, or 3-D ones of one z — then a 2-D cell's orientation is defined.
  bool planar = width < 3;
  if (!planar && n > 0) {
    planar = true;
    for (std::size_t i = 1; i < n && planar; ++i) planar = xyz.data[i * width + 2] == xyz.data[2];
  }
  // Bytes set by relaxed atomic stores (plain ones on x86): the cores mark side by side.
  std::vector<std::uint8_t> used(n, 0);
  const NDArray bases_array = block_bases(mesh.cells);
  const std::int64_t* bases = bases_array.data_as<std::int64_t>();
  // Duplicates: cells of one type (in any block) with the same sorted node list — kept flat per
  // type (one array of width-wide rows, no allocation a cell), bucketed by their smallest node.
  struct SortedRows {
    std::int64_t width = 0;
    std::vector<std::int64_t> nodes;  // row r: [r * width, (r + 1) * width), ascending
    std::vector<std::int64_t> cells;  // row r's block-major cell (ascending)
  };
  std::unordered_map<std::string, SortedRows> node_sets;
  std::vector<std::string> type_order;  // the types in the order first met
  constexpr std::uint8_t kDegenerate = 1, kInverted = 2;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const std::span<const std::int64_t> all_nodes = block.connectivity.values<std::int64_t>();
    parallel_ranges(all_nodes.size(), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i)
        std::atomic_ref<std::uint8_t>(used[static_cast<std::size_t>(all_nodes[i])]).store(1, std::memory_order_relaxed);
    });
    if (block.is_ragged()) continue;
    const std::int64_t k = block.connectivity.row_width();
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    const int dimension = dimension_of(block);
    const std::span<const FacetCorners> facets = cell_facets(block.type);
    // Corner nodes lead a cell's node list: as many as its facets name (tetra10: 4), else all.
    const int corners = facets.empty() ? static_cast<int>(k) : facet_corners(block, facets, "check");
    if (!node_sets.contains(block.type)) type_order.push_back(block.type);
    SortedRows& rows = node_sets[block.type];
    rows.width = k;  // one type, one node count (a rectangular block)
    const std::size_t first_row = rows.cells.size();
    const auto cells = static_cast<std::size_t>(block.num_cells());
    rows.nodes.resize((first_row + cells) * static_cast<std::size_t>(k));
    rows.cells.resize(first_row + cells);
    std::vector<std::uint8_t> found(cells, 0);  // each cell's flags: its own, so the cores write apart
    // The corners' coordinates, read once a cell (a facet table names them many times); cells of
    // more corners than that read them where used.
    constexpr int kHeld = 16;
    parallel_ranges(cells, 4096, [&](std::size_t first, std::size_t last) {
      std::array<Vec, kHeld> held{};
      for (std::size_t c = first; c < last; ++c) {
        const std::int64_t* cell = nodes + static_cast<std::int64_t>(c) * k;
        const auto sorted_begin = rows.nodes.begin() + static_cast<std::ptrdiff_t>((first_row + c) * static_cast<std::size_t>(k));
        const auto sorted_end = sorted_begin + static_cast<std::ptrdiff_t>(k);
        std::copy(cell, cell + k, sorted_begin);
        sort_few(&*sorted_begin, k);
        rows.cells[first_row + c] = bases[b] + static_cast<std::int64_t>(c);
        const bool repeated = std::adjacent_find(sorted_begin, sorted_end) != sorted_end;
        for (int i = 0; i < std::min(corners, kHeld); ++i) held[static_cast<std::size_t>(i)] = xyz[cell[i]];
        auto corner = [&](int i) { return i < kHeld ? held[static_cast<std::size_t>(i)] : xyz[cell[i]]; };
        double measure = 0, scale = 0;  // signed volume/area/length and the square of the cell's size
        const Vec origin = corner(0);
        for (int i = 1; i < corners; ++i) {
          const Vec edge = minus(corner(i), origin);
          scale = std::max(scale, dot(edge, edge));
        }
        bool oriented = false;
        if (dimension == 3 && !facets.empty()) {  // divergence theorem over the outward facets, fans of triangles
          for (const FacetCorners& facet : facets) {
            const Vec a = corner(facet.corners[0]);
            for (int i = 1; i + 1 < facet.count; ++i)
              measure += dot(a, cross(corner(facet.corners[static_cast<std::size_t>(i)]),
                                      corner(facet.corners[static_cast<std::size_t>(i + 1)]))) / 6.0;
          }
          oriented = true;
        } else if (dimension == 2 && corners >= 3) {  // fan from the first corner
          const Vec a = origin;
          Vec normal{0, 0, 0};
          for (int i = 1; i + 1 < corners; ++i) {
            const Vec t = cross(minus(corner(i), a), minus(corner(i + 1), a));
            normal = {normal[0] + t[0], normal[1] + t[1], normal[2] + t[2]};
          }
          measure = planar ? normal[2] / 2 : std::sqrt(dot(normal, normal)) / 2;
          oriented = planar;
        } else if (dimension == 1 && corners >= 2) {
          measure = std::sqrt(scale);
        } else {
          measure = 1;  // vertices, unknown types: nothing to measure
        }
        // scale^(3/2) as scale·√scale: the same threshold without a call of pow a cell.
        const double size = dimension == 3 ? scale * std::sqrt(scale) : dimension == 2 ? scale : std::sqrt(scale);
        if (repeated || std::abs(measure) <= 1e-12 * size) found[c] = kDegenerate;
        else if (oriented && measure < 0) found[c] = kInverted;
      }
    });
    for (std::size_t c = 0; c < cells; ++c) {
      if (found[c] == kDegenerate) report.degenerate.push_back(bases[b] + static_cast<std::int64_t>(c));
      if (found[c] == kInverted) report.inverted.push_back(bases[b] + static_cast<std::int64_t>(c));
    }
  }
  for (const std::string& type : type_order) {
    const SortedRows& rows = node_sets[type];  // a named reference: lambdas below capture it (not a binding)
    const auto row_width = static_cast<std::size_t>(rows.width);
    if (row_width == 0) continue;
    auto row = [&](std::size_t r) { return std::span<const std::int64_t>(rows.nodes.data() + r * row_width, row_width); };
    // Rows bucketed by their smallest node (a counting sort: each bucket in cell order), a bucket
    // sorted by nodes then cell: the first of equal ones stays.
    std::vector<std::size_t> start(n + 1, 0);
    for (std::size_t r = 0; r < rows.cells.size(); ++r) ++start[static_cast<std::size_t>(rows.nodes[r * row_width]) + 1];
    for (std::size_t p = 0; p < n; ++p) start[p + 1] += start[p];
    std::vector<std::size_t> order(rows.cells.size()), next(start.begin(), start.end() - 1);
    for (std::size_t r = 0; r < rows.cells.size(); ++r) order[next[static_cast<std::size_t>(rows.nodes[r * row_width])]++] = r;
    auto before = [&](std::size_t x, std::size_t y) {
      const auto a = row(x), b = row(y);
      if (std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end())) return true;
      if (std::lexicographical_compare(b.begin(), b.end(), a.begin(), a.end())) return false;
      return rows.cells[x] < rows.cells[y];
    };
    parallel_ranges(n, 4096, [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p)
        std::sort(order.begin() + static_cast<std::ptrdiff_t>(start[p]), order.begin() + static_cast<std::ptrdiff_t>(start[p + 1]), before);
    });
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t i = start[p] + 1; i < start[p + 1]; ++i) {
        const auto a = row(order[i - 1]), b = row(order[i]);
        if (std::equal(a.begin(), a.end(), b.begin())) report.duplicate.push_back(rows.cells[order[i]]);
      }
  }
  std::sort(report.duplicate.begin(), report.duplicate.end());
  for (std::size_t i = 0; i < n; ++i)
    if (used[i] == 0) report.unused_points.push_back(static_cast<std::int64_t>(i));

  // Facets of the top-dimensional cells seen more than twice (extract_surface's facet count).
  int top = -1;
  for (const CellBlock& block : mesh.cells) top = std::max(top, dimension_of(block));
  if (top >= 2) {
    const TopCells cells_of_top(mesh, top, "check");
    FacetsOverTwo over_two;
    facet_multiplicity(mesh, cells_of_top, bases, "check", &over_two);
    report.non_manifold_facets = over_two.facets;
    for (const std::int64_t instance : over_two.instances) {
      const std::int64_t cell = instance / 8;
      if (report.non_manifold_cells.empty() || report.non_manifold_cells.back() != cell) report.non_manifold_cells.push_back(cell);
    }
  }
  return report;
}

}  // namespace meshioplusplus
