// MSH writer, the plan: what a mesh becomes before anything is formatted — its blocks' Gmsh
// element types, the physical groups made of its regions (or of meshio's gmsh:physical and
// field_data names), $Periodic links, the entities (one per elementary tag and group
// signature) with their bounding boxes, and the element and node runs on them. Apart from the
// formatting (gmsh_writer.cpp, gmsh_writer_data.cpp), which only writes what the plan says.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/gmsh/gmsh_writer_internal.hpp"
#include "io/source/parallel.hpp"

namespace meshioplusplus::gmsh::detail::writer {
namespace {

// Calls fn(row, value) for each element of an integer array, whatever its dtype.
template <class Fn> void for_each_integer(const NDArray& array, Fn&& fn) {
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* values = array.data_as<T>();
    const std::size_t count = array.size();
    for (std::size_t i = 0; i < count; ++i) fn(static_cast<std::int64_t>(i), static_cast<std::int64_t>(values[i]));
  });
}

bool is_integer(DType dtype) noexcept { return dtype_is_signed_int(dtype) || dtype_is_unsigned_int(dtype); }

// (dim, tag) of a field_data entry laid out as meshio lays out Gmsh physical names: two
// integral numbers [tag, dim] with dim 0-3; nullopt for anything else.
std::optional<std::pair<int, std::int32_t>> physical_name_entry(std::string_view name, const NDArray& array) {
  if (name.starts_with("gmsh:")) return std::nullopt;  // the reader's own entries ($Periodic)
  if (array.size() != 2 || (!is_integer(array.dtype()) && !dtype_is_float(array.dtype()))) return std::nullopt;
  double values[2]{};
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    for (int i = 0; i < 2; ++i) values[i] = static_cast<double>(array.data_as<T>()[i]);
  });
  const double tag = values[0], dim = values[1];
  if (!(dim >= 0 && dim <= 3 && dim == static_cast<int>(dim))) return std::nullopt;
  if (!(tag > std::numeric_limits<std::int32_t>::min() && tag < std::numeric_limits<std::int32_t>::max() &&
        tag == static_cast<double>(static_cast<std::int32_t>(tag))))
    return std::nullopt;
  return std::make_pair(static_cast<int>(dim), static_cast<std::int32_t>(tag));
}

class PlanBuilder {
 public:
  PlanBuilder(const Mesh& mesh, const Options& options) : mesh_(mesh), options_(options) {}

  WritePlan build() {
    plan_blocks();
    plan_points();
    if (std::any_of(mesh_.regions.begin(), mesh_.regions.end(),
                    [](const Region& region) { return region.kind != RegionKind::Side; }))
      plan_groups_from_regions();
    else
      plan_groups_from_cell_data();
    plan_field_data_names();
    plan_periodic();
    plan_entities();
    if (options_.entities()) {  // 2.2 has neither node blocks nor $Entities
      plan_node_runs();
      compute_boxes();
    }
    return std::move(plan_);
  }

 private:
  void plan_blocks() {
    std::int64_t base = 0;
    for (const CellBlock& block : mesh_.cells) {
      const GmshElementType* type = element_type_from_name(block.type);
      if (type == nullptr || block.is_ragged()) reject("Gmsh has no element type for cell type '" + block.type + "'");
      if (block.connectivity.dtype() != DType::int64 || block.connectivity.ndim() != 2 ||
          block.connectivity.dim(1) != type->num_nodes)
        reject("cells of type '" + block.type + "' must be int64 (n, " + std::to_string(type->num_nodes) + ")");
      plan_.blocks.push_back({type, &block, base, block.num_cells()});
      base += block.num_cells();
    }
    plan_.num_cells = base;
    const std::int64_t limit = std::numeric_limits<std::int32_t>::max() - 1;
    if (options_.int32_tags() && (base > limit || mesh_.num_points() > limit))
      reject("MSH 2.2 and 4.0 store tags as 32-bit integers: too many cells or points (use fmt_version 4.1)");
  }

  void plan_points() {
    const NDArray& points = mesh_.points;
    if (points.ndim() != 2 || !dtype_is_float(points.dtype()) || points.dim(1) < 1 || points.dim(1) > 3)
      reject("points must be float (n, 1..3)");
    if (points.dtype() == DType::float64 && points.dim(1) == 3) return;  // written straight from the mesh
    const std::int64_t n = points.rows(), width = points.dim(1);
    plan_.xyz.assign(static_cast<std::size_t>(3 * n), 0.0);
    visit_dtype(points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_floating_point_v<T>) {
        const T* in = points.data_as<T>();
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t a = 0; a < width; ++a) plan_.xyz[3 * i + a] = static_cast<double>(in[i * width + a]);
      }
    });
  }

  // Region entries come mostly sorted: the block of the previous lookup is tried first.
  int dim_of_cell(std::int64_t cell) {
    const BlockPlan* block = &plan_.blocks[last_block_];
    if (cell < block->base || cell >= block->base + block->count) {
      const auto found = std::upper_bound(plan_.blocks.begin(), plan_.blocks.end(), cell,
                                          [](std::int64_t c, const BlockPlan& b) { return c < b.base; });
      last_block_ = static_cast<std::size_t>(found - 1 - plan_.blocks.begin());
      block = &plan_.blocks[last_block_];
    }
    return block->type->dimension;
  }

  std::int32_t* writable_cell_signatures() {
    if (plan_.cell_signature_array.empty_handle()) {
      plan_.cell_signature_array = NDArray::allocate_scratch(DType::int32, {plan_.num_cells});
      std::fill_n(plan_.cell_signature_array.data_as<std::int32_t>(), plan_.num_cells, 0);
    }
    return plan_.cell_signature_array.data_as<std::int32_t>();
  }
  std::int32_t& signature_of_cell(std::int64_t cell) { return writable_cell_signatures()[cell]; }

  std::int32_t add_group(int dim, std::int32_t tag, const std::string& name) {
    const auto index = static_cast<std::int32_t>(plan_.groups.size());
    group_index_[{dim, tag}] = index;
    plan_.groups.push_back({dim, tag, name});
    return index;
  }

  // Each region keeps its tag unless that (dim, tag) is taken or invalid; then a fresh one,
  // above every region's and every field_data name's tag.
  void plan_groups_from_regions() {
    std::int64_t largest = 0;
    for (const Region& region : mesh_.regions)
      if (region.tag > 0 && region.tag < std::numeric_limits<std::int32_t>::max()) largest = std::max(largest, region.tag);
    for (const auto& [name, array] : mesh_.field_data)
      if (const std::optional<std::pair<int, std::int32_t>> named = physical_name_entry(name, array))
        largest = std::max<std::int64_t>(largest, named->second);
    next_free_tag_ = static_cast<std::int32_t>(largest + 1);
    for (const Region& region : mesh_.regions) {
      if (region.kind == RegionKind::Side) continue;
      check_entries(region);
      if (region.kind == RegionKind::Cell) add_cell_region(region);
      else add_point_region(region);
    }
  }

  void check_entries(const Region& region) const {
    const std::int64_t limit = region.kind == RegionKind::Cell ? plan_.num_cells : mesh_.num_points();
    if (region.entries.dtype() != DType::int64) reject("region '" + region.name + "' entries must be int64");
    for (const std::int64_t entry : region.entries.values<std::int64_t>())
      if (entry < 0 || entry >= limit) reject("region '" + region.name + "' holds an out-of-range index");
  }

  // A (dim, tag) is taken by an earlier group, or by a field_data name of another name (which
  // goes to $PhysicalNames too and would rename the group when read back).
  std::int32_t choose_tag(const Region& region, unsigned dims_mask) {
    const bool valid = region.tag > 0 && region.tag < std::numeric_limits<std::int32_t>::max();
    bool taken = !valid;
    for (int dim = 0; dim < 4 && !taken; ++dim) {
      if (((dims_mask >> dim) & 1u) == 0) continue;
      const std::pair<int, std::int32_t> key{dim, static_cast<std::int32_t>(region.tag)};
      taken = group_index_.count(key) != 0;
      for (const auto& [name, array] : mesh_.field_data)
        if (!taken && name != region.name && physical_name_entry(name, array) == key) taken = true;
    }
    return taken ? next_free_tag_++ : static_cast<std::int32_t>(region.tag);
  }

  // Calls fn(first cell, count, dimension) per stretch of consecutive entries in one block:
  // regions are mostly ranges of cells, so the per-cell work shrinks to tight loops.
  template <class Fn> void for_each_stretch(std::span<const std::int64_t> cells, Fn&& fn) {
    for (std::size_t i = 0; i < cells.size();) {
      const std::int64_t first = cells[i];
      const int dim = dim_of_cell(first);
      const BlockPlan& block = plan_.blocks[last_block_];
      const std::int64_t end = std::min<std::int64_t>(block.base + block.count, first + static_cast<std::int64_t>(cells.size() - i));
      std::size_t next = i + 1;
      while (first + static_cast<std::int64_t>(next - i) < end && cells[next] == first + static_cast<std::int64_t>(next - i)) ++next;
      fn(first, static_cast<std::int64_t>(next - i), dim);
      i = next;
    }
  }

  void add_cell_region(const Region& region) {
    const std::span<const std::int64_t> cells = region.entries.values<std::int64_t>();
    unsigned dims_mask = 0;
    for_each_stretch(cells, [&dims_mask](std::int64_t, std::int64_t, int dim) { dims_mask |= 1u << dim; });
    // An empty region still names its group ($PhysicalNames), so it reads back empty.
    if (dims_mask == 0 && region.dim >= 0 && region.dim <= 3) dims_mask = 1u << region.dim;
    const std::int32_t tag = choose_tag(region, dims_mask);
    std::array<std::int32_t, 4> group_of_dim{-1, -1, -1, -1};
    for (int dim = 0; dim < 4; ++dim)
      if ((dims_mask >> dim) & 1u) group_of_dim[dim] = add_group(dim, tag, region.name);
    std::int32_t* signatures = writable_cell_signatures();
    std::int32_t before = -1, after = 0, group = -1;  // the last (signature, group) -> signature
    for_each_stretch(cells, [&](std::int64_t first, std::int64_t count, int dim) {
      const std::int32_t added = group_of_dim[dim];
      for (std::int64_t cell = first; cell < first + count; ++cell) {
        if (signatures[cell] != before || added != group) {
          before = signatures[cell];
          group = added;
          after = plan_.signatures.with_group(before, added);
        }
        signatures[cell] = after;
      }
    });
  }

  // Gmsh groups points through vertex elements. A Point region whose every point has a vertex
  // cell becomes a group on those cells; any other is not written: elements added for it
  // would read back as a vertex block the mesh did not have (meshio writes no point sets).
  void add_point_region(const Region& region) {
    const std::vector<std::int64_t>& vertex_cells = vertex_cell_of_point();
    const std::span<const std::int64_t> points = region.entries.values<std::int64_t>();
    if (vertex_cells.empty() ||
        std::any_of(points.begin(), points.end(), [&](std::int64_t point) { return vertex_cells[static_cast<std::size_t>(point)] < 0; }))
      return;
    const std::int32_t group = add_group(0, choose_tag(region, 1u), region.name);
    for (const std::int64_t point : points) {
      std::int32_t& signature = signature_of_cell(vertex_cells[static_cast<std::size_t>(point)]);
      signature = plan_.signatures.with_group(signature, group);
    }
  }

  const std::vector<std::int64_t>& vertex_cell_of_point() {
    if (!vertex_cells_.empty() || mesh_.num_points() == 0) return vertex_cells_;
    vertex_cells_.assign(static_cast<std::size_t>(mesh_.num_points()), -1);
    for (const BlockPlan& block : plan_.blocks) {
      if (block.type->name != "vertex") continue;
      const std::int64_t* nodes = block.cells->connectivity.data_as<std::int64_t>();
      for (std::int64_t row = 0; row < block.count; ++row) {
        std::int64_t& cell = vertex_cells_[static_cast<std::size_t>(nodes[row])];
        if (cell < 0) cell = block.base + row;
      }
    }
    return vertex_cells_;
  }

  // meshio-style meshes: "gmsh:physical" per cell, names from field_data [tag, dim].
  void plan_groups_from_cell_data() {
    const std::vector<NDArray>* physical = mesh_.cell_data.find("gmsh:physical");
    if (physical == nullptr || physical->size() != plan_.blocks.size()) return;
    for (std::size_t b = 0; b < plan_.blocks.size(); ++b) {
      const BlockPlan& block = plan_.blocks[b];
      const NDArray& tags = (*physical)[b];
      if (!is_integer(tags.dtype()) || static_cast<std::int64_t>(tags.size()) != block.count) continue;
      const int dim = block.type->dimension;
      for_each_integer(tags, [&](std::int64_t row, std::int64_t tag) {
        if (tag <= 0 || tag >= std::numeric_limits<std::int32_t>::max()) return;
        const auto key = std::make_pair(dim, static_cast<std::int32_t>(tag));
        auto found = group_index_.find(key);
        const std::int32_t group =
            found != group_index_.end() ? found->second : add_group(dim, key.second, field_data_name(dim, key.second));
        std::int32_t& signature = signature_of_cell(block.base + row);
        signature = plan_.signatures.with_group(signature, group);
      });
    }
  }

  std::string field_data_name(int dim, std::int32_t tag) const {
    for (const auto& [name, array] : mesh_.field_data)
      if (physical_name_entry(name, array) == std::make_pair(dim, tag)) return name;
    return std::to_string(tag);
  }

  // meshio's field_data for Gmsh: name -> [tag, dim]. Every entry no group already names is
  // written to $PhysicalNames too (as meshio writes all of them), so field_data reads back.
  void plan_field_data_names() {
    for (const auto& [name, array] : mesh_.field_data) {
      const std::optional<std::pair<int, std::int32_t>> named = physical_name_entry(name, array);
      if (!named) continue;
      const auto group = group_index_.find(*named);
      if (group != group_index_.end() && plan_.groups[static_cast<std::size_t>(group->second)].name == name) continue;
      plan_.extra_names.push_back({named->first, named->second, name});
    }
  }

  // field_data "gmsh:periodic" (int64: per link dim, tag, master, number of affine values,
  // number of node pairs, the pairs) with "gmsh:periodic_affine" (float64), checked whole
  // before anything is written.
  void plan_periodic() {
    const NDArray* links = mesh_.field_data.find("gmsh:periodic");
    if (links == nullptr) return;
    const NDArray* affine = mesh_.field_data.find("gmsh:periodic_affine");
    const auto bad = [](const std::string& why) { reject("field_data 'gmsh:periodic' " + why); };
    if (links->dtype() != DType::int64 || links->ndim() != 1) bad("must be a flat int64 array");
    if (affine != nullptr && (affine->dtype() != DType::float64 || affine->ndim() != 1))
      bad("needs 'gmsh:periodic_affine' as a flat float64 array");
    const std::span<const std::int64_t> words = links->values<std::int64_t>();
    const std::span<const double> reals = affine ? affine->values<double>() : std::span<const double>{};
    std::size_t at = 0, real = 0;
    const auto fits_int = [](std::int64_t v) { return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max(); };
    while (at < words.size()) {
      if (words.size() - at < 5) bad("ends inside a link header");
      const std::int64_t dim = words[at], tag = words[at + 1], master = words[at + 2], num_affine = words[at + 3],
                         pairs = words[at + 4];
      if (dim < 0 || dim > 3 || !fits_int(tag) || !fits_int(master)) bad("has a bad link (dim, tag, master)");
      if (num_affine < 0 || static_cast<std::uint64_t>(num_affine) > reals.size() - real) bad("needs more affine values than given");
      if (pairs < 0 || static_cast<std::uint64_t>(pairs) > (words.size() - at - 5) / 2) bad("needs more node pairs than given");
      const std::span<const std::int64_t> nodes = words.subspan(at + 5, static_cast<std::size_t>(2 * pairs));
      for (const std::int64_t node : nodes)
        if (node < 0 || node >= mesh_.num_points()) bad("names a point index out of range");
      plan_.periodic.push_back({static_cast<std::int32_t>(dim), static_cast<std::int32_t>(tag),
                                static_cast<std::int32_t>(master), reals.subspan(real, static_cast<std::size_t>(num_affine)), nodes});
      at += 5 + static_cast<std::size_t>(2 * pairs);
      real += static_cast<std::size_t>(num_affine);
    }
  }

  // ---- entities: one per (dim, gmsh:geometrical tag, group signature) -----------------
  struct EntityKey {
    int dim;
    std::int64_t geometrical;
    std::int32_t signature;
    bool operator==(const EntityKey&) const = default;
  };
  struct EntityKeyHash {
    std::size_t operator()(const EntityKey& key) const noexcept {
      return std::hash<std::int64_t>()(key.geometrical * 1000003 + key.signature * 7 + key.dim);
    }
  };

  std::int32_t entity_for(const EntityKey& key) {
    if (last_entity_ >= 0 && drafts_[static_cast<std::size_t>(last_entity_)] == key) return last_entity_;  // runs
    const auto [found, added] = entity_index_.try_emplace(key, static_cast<std::int32_t>(drafts_.size()));
    if (added) drafts_.push_back(key);
    return last_entity_ = found->second;
  }

  // Entities in order of first appearance, and the element runs: consecutive cells of one
  // block with the same gmsh:geometrical tag and group signature share their entity.
  void plan_entities() {
    const std::vector<NDArray>* geometrical = mesh_.cell_data.find("gmsh:geometrical");
    for (std::size_t b = 0; b < plan_.blocks.size(); ++b) {
      const BlockPlan& block = plan_.blocks[b];
      const NDArray* tags = geometrical != nullptr && geometrical->size() == plan_.blocks.size() ? &(*geometrical)[b] : nullptr;
      if (tags != nullptr && (!is_integer(tags->dtype()) || static_cast<std::int64_t>(tags->size()) != block.count))
        tags = nullptr;
      const std::int32_t* signatures = plan_.cell_signatures() == nullptr ? nullptr : plan_.cell_signatures() + block.base;
      const auto plan_runs = [&](const auto& geometrical_of) {
        for (std::int64_t row = 0; row < block.count;) {
          const std::int64_t tag = geometrical_of(row);
          const std::int32_t signature = signatures != nullptr ? signatures[row] : 0;
          std::int64_t end = row + 1;
          while (end < block.count && geometrical_of(end) == tag && (signatures == nullptr || signatures[end] == signature))
            ++end;
          // 4.x attaches groups to entities, so differently grouped cells need distinct ones.
          // 2.2 tags each element with its group itself: a valid elementary tag is kept as is.
          const bool keep_tag = !options_.entities() && tag > 0 && tag < std::numeric_limits<std::int32_t>::max();
          append_element_run(b, row, end - row, entity_for({block.type->dimension, tag, keep_tag ? 0 : signature}));
          row = end;
        }
      };
      if (tags == nullptr) {
        plan_runs([](std::int64_t) { return std::int64_t{0}; });
        continue;
      }
      visit_dtype(tags->dtype(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_integral_v<T>) {
          const T* values = tags->data_as<T>();
          plan_runs([values](std::int64_t row) { return static_cast<std::int64_t>(values[row]); });
        }
      });
    }
    assign_entity_tags();
  }

  void append_element_run(std::size_t block, std::int64_t first, std::int64_t count, std::int32_t entity) {
    ElementRun* last = plan_.element_runs.empty() ? nullptr : &plan_.element_runs.back();
    if (last != nullptr && last->block == block && last->entity == entity && last->first + last->count == first)
      last->count += count;
    else
      plan_.element_runs.push_back({block, first, count, entity});
  }

  // A draft keeps its gmsh:geometrical tag when it is the first to claim it in its
  // dimension; the others get tags above every claimed one.
  void assign_entity_tags() {
    std::map<std::pair<int, std::int64_t>, bool> claimed;
    std::array<std::int64_t, 4> largest{0, 0, 0, 0};
    std::vector<std::int32_t> tags(drafts_.size(), 0);
    for (std::size_t i = 0; i < drafts_.size(); ++i) {
      const EntityKey& key = drafts_[i];
      if (key.geometrical <= 0 || key.geometrical >= std::numeric_limits<std::int32_t>::max()) continue;
      if (!claimed.try_emplace({key.dim, key.geometrical}, true).second) continue;
      tags[i] = static_cast<std::int32_t>(key.geometrical);
      largest[key.dim] = std::max(largest[key.dim], key.geometrical);
    }
    for (std::size_t i = 0; i < drafts_.size(); ++i)
      if (tags[i] == 0) tags[i] = static_cast<std::int32_t>(++largest[drafts_[i].dim]);
    for (std::size_t i = 0; i < drafts_.size(); ++i)
      plan_.entities.push_back(Entity{drafts_[i].dim, tags[i], drafts_[i].signature});
  }

  // ---- node classification (4.1 needs every node on an entity) ---------------------------
  void plan_node_runs() {
    const std::int64_t n = mesh_.num_points();
    if (n == 0) return;
    if (const NDArray* dim_tags = usable_dim_tags()) {
      std::map<std::pair<int, std::int32_t>, std::int32_t> by_dim_tag;
      for (std::size_t e = 0; e < plan_.entities.size(); ++e)
        by_dim_tag.try_emplace({plan_.entities[e].dim, plan_.entities[e].tag}, static_cast<std::int32_t>(e));
      visit_dtype(dim_tags->dtype(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_integral_v<T>) {
          const T* values = dim_tags->data_as<T>();
          for (std::int64_t i = 0; i < n;) {
            // Nodes come in stretches on one entity: one lookup per stretch.
            std::int64_t end = i + 1;
            while (end < n && values[2 * end] == values[2 * i] && values[2 * end + 1] == values[2 * i + 1]) ++end;
            const auto key = std::make_pair(static_cast<int>(values[2 * i]), static_cast<std::int32_t>(values[2 * i + 1]));
            const auto [found, added] = by_dim_tag.try_emplace(key, static_cast<std::int32_t>(plan_.entities.size()));
            if (added) plan_.entities.push_back(Entity{key.first, key.second, 0});
            add_nodes(i, end - i, found->second);
            i = end;
          }
        }
      });
      return;
    }
    // One block on the first entity of the highest dimension (a point entity if none).
    std::int32_t host = -1;
    for (std::size_t e = 0; e < plan_.entities.size(); ++e)
      if (host < 0 || plan_.entities[e].dim > plan_.entities[static_cast<std::size_t>(host)].dim)
        host = static_cast<std::int32_t>(e);
    if (host < 0) {
      host = 0;
      plan_.entities.push_back(Entity{0, 1, 0});
    }
    plan_.node_runs.push_back({0, n, host});
  }

  void add_nodes(std::int64_t first, std::int64_t count, std::int32_t entity) {
    if (!plan_.node_runs.empty() && plan_.node_runs.back().entity == entity) plan_.node_runs.back().count += count;
    else plan_.node_runs.push_back({first, count, entity});
  }

  // gmsh:dim_tags (n, 2) with dims 0-3 and positive tags; nullptr when absent or unusable.
  const NDArray* usable_dim_tags() const {
    const NDArray* dim_tags = mesh_.point_data.find("gmsh:dim_tags");
    if (dim_tags == nullptr || !is_integer(dim_tags->dtype()) || dim_tags->ndim() != 2 || dim_tags->dim(1) != 2 ||
        dim_tags->rows() != mesh_.num_points())
      return nullptr;
    bool usable = true;
    for_each_integer(*dim_tags, [&](std::int64_t i, std::int64_t value) {
      if (i % 2 == 0 ? (value < 0 || value > 3) : (value <= 0 || value >= std::numeric_limits<std::int32_t>::max()))
        usable = false;
    });
    return usable ? dim_tags : nullptr;
  }

  const double* xyz() const {
    return plan_.xyz.empty() ? mesh_.points.data_as<double>() : plan_.xyz.data();
  }

  // Each entity's box covers the nodes of its elements and its own nodes; runs are walked on
  // all cores, each part keeping its box in registers.
  void compute_boxes() {
    const double* points = xyz();
    std::mutex merging;
    // Rows [0, count) of `k` point indices each, `nodes` row-major; k == 0: the points
    // first_point, first_point + 1, ... themselves.
    const auto box_of_rows = [&](std::int32_t entity, std::int64_t count, const std::int64_t* nodes, std::int64_t k,
                                 std::int64_t first_point) {
      io::parallel_ranges(static_cast<std::size_t>(count), kBoxRowsPerThread, [&](std::size_t first, std::size_t last) {
        // Six scalars, not arrays: the compiler keeps these in registers.
        double low_x = kInfinity, low_y = kInfinity, low_z = kInfinity;
        double high_x = -kInfinity, high_y = -kInfinity, high_z = -kInfinity;
        const auto add = [&](const double* p) {
          low_x = std::min(low_x, p[0]), low_y = std::min(low_y, p[1]), low_z = std::min(low_z, p[2]);
          high_x = std::max(high_x, p[0]), high_y = std::max(high_y, p[1]), high_z = std::max(high_z, p[2]);
        };
        if (k == 0) {
          for (std::size_t i = first; i < last; ++i) add(points + 3 * (first_point + static_cast<std::int64_t>(i)));
        } else {
          const std::int64_t* const end = nodes + static_cast<std::int64_t>(last) * k;
          for (const std::int64_t* node = nodes + static_cast<std::int64_t>(first) * k; node < end; ++node)
            add(points + 3 * *node);
        }
        const std::lock_guard lock(merging);
        plan_.entities[static_cast<std::size_t>(entity)].merge({low_x, low_y, low_z, high_x, high_y, high_z});
      });
    };
    for (const NodeRun& run : plan_.node_runs) box_of_rows(run.entity, run.count, nullptr, 0, run.first);
    // Elements only reference points, so an entity whose own nodes already span the bounds of
    // all points cannot grow: its element runs are skipped (a mesh classified on one volume).
    std::array<double, 6> all_points{kInfinity, kInfinity, kInfinity, -kInfinity, -kInfinity, -kInfinity};
    for (const Entity& entity : plan_.entities)
      for (int a = 0; a < 3; ++a)
        all_points[a] = std::min(all_points[a], entity.box[a]), all_points[3 + a] = std::max(all_points[3 + a], entity.box[3 + a]);
    for (const ElementRun& run : plan_.element_runs) {
      if (plan_.entities[static_cast<std::size_t>(run.entity)].box == all_points) continue;
      const BlockPlan& block = plan_.blocks[run.block];
      const std::int64_t k = block.type->num_nodes;
      box_of_rows(run.entity, run.count, block.cells->connectivity.data_as<std::int64_t>() + run.first * k, k, 0);
    }
  }

  const Mesh& mesh_;
  Options options_;
  WritePlan plan_;
  std::map<std::pair<int, std::int32_t>, std::int32_t> group_index_;
  std::int32_t next_free_tag_ = 1;
  std::vector<std::int64_t> vertex_cells_;
  std::unordered_map<EntityKey, std::int32_t, EntityKeyHash> entity_index_;
  std::vector<EntityKey> drafts_;
  std::int32_t last_entity_ = -1;
  std::size_t last_block_ = 0;
};

}  // namespace

WritePlan plan_write(const Mesh& mesh, const Options& options) { return PlanBuilder(mesh, options).build(); }

}  // namespace meshioplusplus::gmsh::detail::writer
