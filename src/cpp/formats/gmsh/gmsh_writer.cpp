// MSH writer: 2.2, 4.0 and 4.1, ASCII and binary. See gmsh.hpp for how regions become physical
// groups. A WritePlan is computed first (element types, groups, entities, runs); the
// emitters then only format.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_element_types.hpp"
#include "formats/gmsh/gmsh_time_series.hpp"
#include "io/atomic_file.hpp"
#include "io/parallel.hpp"

namespace meshioplusplus::gmsh {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Work sizes below which a thread costs more than it saves.
constexpr std::size_t kBoxRowsPerThread = std::size_t{1} << 15;
constexpr std::size_t kRecordsPerThread = std::size_t{1} << 14;
constexpr std::size_t kRecordChunkBytes = std::size_t{4} << 20;  // binary element records filled per write

[[noreturn]] void reject(const std::string& message) { throw std::invalid_argument(message); }

enum class Version { v22, v40, v41 };

struct Options {
  Version version = Version::v41;
  bool binary = true;
  // 4.x: $Entities and node blocks; 2.2 tags every element with its groups instead.
  bool entities() const noexcept { return version != Version::v22; }
  // 2.2 and 4.0 store node and element tags as 32-bit ints (4.1 as size_t).
  bool int32_tags() const noexcept { return version != Version::v41; }
};

Options parse_options(const WriteOptions& options) {
  Options parsed;
  const std::string_view version = options.get("fmt_version", "4.1");
  if (version == "2.2") parsed.version = Version::v22;
  else if (version == "4.0") parsed.version = Version::v40;
  else if (version != "4.1") reject("fmt_version must be 2.2, 4.0 or 4.1, got '" + std::string(version) + "'");
  parsed.binary = options.get_bool("binary", true);
  return parsed;
}

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

// ---- physical groups ------------------------------------------------------------------

struct Group {
  int dim;
  std::int32_t tag;
  std::string name;
};

// Sets of groups, numbered; signature 0 is the empty set. Cells in several regions get the
// signature of the union, so each distinct combination becomes its own Gmsh entity.
class SignatureTable {
 public:
  SignatureTable() : members_(1) {}

  std::int32_t with_group(std::int32_t signature, std::int32_t group) {
    const std::uint64_t key = (static_cast<std::uint64_t>(signature) << 32) | static_cast<std::uint32_t>(group);
    if (key == last_key_) return last_result_;  // consecutive cells mostly share their groups
    last_key_ = key;
    if (const auto cached = cache_.find(key); cached != cache_.end()) return last_result_ = cached->second;
    std::vector<std::int32_t> members = members_[static_cast<std::size_t>(signature)];
    const auto at = std::lower_bound(members.begin(), members.end(), group);
    if (at == members.end() || *at != group) members.insert(at, group);
    const auto [found, added] = ids_.try_emplace(members, static_cast<std::int32_t>(members_.size()));
    if (added) members_.push_back(members);
    return last_result_ = cache_[key] = found->second;
  }
  const std::vector<std::int32_t>& members(std::int32_t signature) const {
    return members_[static_cast<std::size_t>(signature)];
  }

 private:
  std::vector<std::vector<std::int32_t>> members_;
  std::map<std::vector<std::int32_t>, std::int32_t> ids_;
  std::unordered_map<std::uint64_t, std::int32_t> cache_;
  std::uint64_t last_key_ = ~std::uint64_t{0};  // no signature is -1
  std::int32_t last_result_ = 0;
};

struct BlockPlan {
  const GmshElementType* type;
  const CellBlock* cells;
  std::int64_t base;  // block-major index of the first cell
  std::int64_t count;
};

struct Entity {
  int dim;
  std::int32_t tag;
  std::int32_t signature;
  std::array<double, 6> box{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  void expand(const double* xyz) {
    for (int a = 0; a < 3; ++a) {
      box[a] = std::min(box[a], xyz[a]);
      box[3 + a] = std::max(box[3 + a], xyz[a]);
    }
  }
  void merge(const std::array<double, 6>& other) {
    for (int a = 0; a < 3; ++a) {
      box[a] = std::min(box[a], other[a]);
      box[3 + a] = std::max(box[3 + a], other[3 + a]);
    }
  }
  // An entity without nodes gets a degenerate box at the origin rather than infinities.
  std::array<double, 6> written_box() const {
    if (box[0] > box[3]) return {0, 0, 0, 0, 0, 0};
    return box;
  }
};

// A stretch of consecutive cells of one block on one entity.
struct ElementRun {
  std::size_t block;
  std::int64_t first;
  std::int64_t count;
  std::int32_t entity;
};

// One $Periodic link, from field_data "gmsh:periodic" / "gmsh:periodic_affine" (the
// reader's layout, see gmsh.hpp).
struct PeriodicLink {
  std::int32_t dim, tag, master;
  std::span<const double> affine;
  std::span<const std::int64_t> nodes;  // (node, master node) point-index pairs
};

struct NodeRun {
  std::int64_t first;
  std::int64_t count;
  std::int32_t entity;
};

struct WritePlan {
  std::vector<BlockPlan> blocks;
  std::int64_t num_cells = 0;
  std::vector<Group> groups;
  SignatureTable signatures;
  NDArray cell_signature_array;  // int32 per cell (scratch); an empty handle when no groups
  // field_data [tag, dim] entries no group names, written to $PhysicalNames as meshio does.
  std::vector<Group> extra_names;
  std::vector<PeriodicLink> periodic;
  std::vector<Entity> entities;
  std::vector<ElementRun> element_runs;
  std::vector<NodeRun> node_runs;
  std::vector<double> xyz;  // points as (n, 3) float64 when the mesh's are not already

  std::int32_t physical_of(std::int32_t signature) const {
    const std::vector<std::int32_t>& members = signatures.members(signature);
    return members.empty() ? 0 : groups[static_cast<std::size_t>(members.front())].tag;
  }
  // Per-cell signatures, or nullptr when every cell has the empty one.
  const std::int32_t* cell_signatures() const {
    return cell_signature_array.empty_handle() ? nullptr : cell_signature_array.data_as<std::int32_t>();
  }
  std::int32_t cell_signature_of(std::int64_t cell) const {
    return cell_signatures() == nullptr ? 0 : cell_signatures()[cell];
  }
};

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

// ---- formatting ---------------------------------------------------------------------------

// Writes values as text (space-separated, one record per line) or raw host-order bytes.
class ValueWriter {
 public:
  ValueWriter(io::OutputBuffer& out, bool binary) : out_(out), binary_(binary) {}

  bool binary() const noexcept { return binary_; }
  io::OutputBuffer& out() noexcept { return out_; }

  void int32(std::int32_t value) { put(value); }
  void size(std::uint64_t value) { put(value); }
  void real(double value) { put(value); }
  void end_record() {
    if (!binary_) out_.put('\n');
    line_start_ = true;
  }
  // Text in both encodings (section markers, counts before 2.2 binary payloads, headers).
  void text_line(std::string_view text) {
    out_.text(text);
    out_.put('\n');
  }
  void begin_section(std::string_view name) {
    out_.put('$');
    text_line(name);
  }
  // Binary payloads end with a newline before the $End marker, as Gmsh writes them.
  void end_section(std::string_view name) {
    if (binary_) out_.put('\n');
    out_.text("$End");
    text_line(name);
  }

 private:
  template <class T> void put(T value) {
    if (binary_) {
      out_.bytes(&value, sizeof value);
      return;
    }
    if (!line_start_) out_.put(' ');
    out_.number(value);
    line_start_ = false;
  }

  io::OutputBuffer& out_;
  bool binary_;
  bool line_start_ = true;
};

// Gmsh cannot escape quotes inside names.
std::string quoted(std::string_view name) {
  std::string text = "\"";
  for (const char c : name) text += c == '"' ? '\'' : (c == '\n' || c == '\r') ? ' ' : c;
  return text + "\"";
}

std::string number_text(std::int64_t value) { return std::to_string(value); }

// ---- $NodeData / $ElementData / $ElementNodeData ---------------------------------------
// One section per view step: the view name (string tag), the time (real tag), then as integer
// tags the time-step index, the component count, the number of records and — for the
// time-series writer — the partition (0: the whole model, as Gmsh reads a missing one).
// Shared by write() and MshStream (the time-series writer).

struct DataStep {
  std::string view;
  std::int64_t step = 0;
  double time = 0;
  bool named_step = false;  // write(): the array was named "view[step k…]"
};

class DataSectionWriter {
 public:
  DataSectionWriter(ValueWriter& out, const std::vector<BlockPlan>& blocks, bool partition_tag)
      : out_(out), blocks_(blocks), partition_tag_(partition_tag) {}

  // $NodeData: one record per point that has a value (all-NaN rows are left out).
  void node_data(const DataStep& step, const NDArray& array) {
    header("NodeData", step, array.row_width(), count_rows(array));
    write_rows(array, 1, array.row_width());
    out_.end_section("NodeData");
  }

  // One array per block, rows matching the blocks (the caller checks). Equal widths in every
  // block: $ElementData. Widths of (nodes of the block's type) × c for one c, as the reader
  // makes from $ElementNodeData: $ElementNodeData again. Other widths: nothing, false.
  bool element_data(const DataStep& step, const std::vector<NDArray>& arrays) {
    if (!fits(blocks_, arrays)) return false;
    std::int64_t count = 0;
    for (const NDArray& array : arrays) count += count_rows(array);
    if (const std::int64_t width = common_width(arrays); width > 0) {
      header("ElementData", step, width, count);
      for (std::size_t b = 0; b < arrays.size(); ++b) write_rows(arrays[b], blocks_[b].base + 1, width);
      out_.end_section("ElementData");
      return true;
    }
    if (const std::int64_t components = per_node_components(blocks_, arrays); components > 0) {
      header("ElementNodeData", step, components, count);
      for (std::size_t b = 0; b < arrays.size(); ++b)
        write_rows(arrays[b], blocks_[b].base + 1, components, blocks_[b].type);
      out_.end_section("ElementNodeData");
      return true;
    }
    return false;
  }

  // Whether element_data() can write `arrays` (one per block, at least one block).
  static bool fits(const std::vector<BlockPlan>& blocks, const std::vector<NDArray>& arrays) {
    return common_width(arrays) > 0 || per_node_components(blocks, arrays) > 0;
  }

 private:
  static std::int64_t common_width(const std::vector<NDArray>& arrays) {
    for (const NDArray& array : arrays)
      if (array.row_width() != arrays.front().row_width()) return 0;
    return arrays.front().row_width();
  }

  static std::int64_t per_node_components(const std::vector<BlockPlan>& blocks, const std::vector<NDArray>& arrays) {
    const std::int64_t components = arrays.front().row_width() / blocks.front().type->num_nodes;
    for (std::size_t b = 0; b < arrays.size(); ++b)
      if (components == 0 || arrays[b].row_width() != blocks[b].type->num_nodes * components) return 0;
    return components;
  }

  void header(std::string_view section, const DataStep& step, std::int64_t components, std::int64_t count) {
    out_.begin_section(section);
    out_.text_line("1");
    out_.text_line(quoted(step.view));
    out_.text_line("1");
    char time[32];
    const auto result = std::to_chars(time, time + sizeof time, step.time);
    out_.text_line(std::string_view(time, static_cast<std::size_t>(result.ptr - time)));
    out_.text_line(partition_tag_ ? "4" : "3");
    out_.text_line(number_text(step.step));
    out_.text_line(number_text(components));
    out_.text_line(number_text(count));
    if (partition_tag_) out_.text_line("0");
  }

  // A row the reader would have made from no entry (all NaN) is left out again.
  template <class T> static bool has_values(const T* row, std::int64_t width) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::any_of(row, row + width, [](T value) { return value == value; });
    } else {
      return width > 0;
    }
  }

  // Writes the rows of `array` as data records tagged first_tag, first_tag + 1, ….
  // `type` given: element-node records (tag, node count, values per node in Gmsh node
  // order) for elements of `type`.
  void write_rows(const NDArray& array, std::int64_t first_tag, std::int64_t components,
                  const GmshElementType* type = nullptr) {
    visit_dtype(array.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = array.data_as<T>();
      const std::int64_t width = array.row_width();
      std::vector<double> row(static_cast<std::size_t>(width));
      for (std::int64_t r = 0; r < array.rows(); ++r) {
        const T* in = values + r * width;
        if (!has_values(in, width)) continue;
        if (type == nullptr) {
          for (std::int64_t c = 0; c < width; ++c) row[static_cast<std::size_t>(c)] = static_cast<double>(in[c]);
        } else {
          const std::span<const std::uint16_t> order = type->gmsh_from_meshio;
          for (int j = 0; j < type->num_nodes; ++j) {
            const std::int64_t from = order.empty() ? j : order[static_cast<std::size_t>(j)];
            for (std::int64_t c = 0; c < components; ++c)
              row[static_cast<std::size_t>(j * components + c)] = static_cast<double>(in[from * components + c]);
          }
        }
        write_record(first_tag + r, type ? type->num_nodes : 0, row);
      }
    });
  }

  void write_record(std::int64_t tag, int node_count, const std::vector<double>& row) {
    if (out_.binary()) {
      const auto tag32 = static_cast<std::int32_t>(tag);
      out_.out().bytes(&tag32, 4);
      if (node_count > 0) out_.out().bytes(&node_count, 4);
      out_.out().bytes(row.data(), row.size() * 8);
      return;
    }
    out_.size(static_cast<std::uint64_t>(tag));
    if (node_count > 0) out_.int32(node_count);
    for (const double value : row) out_.real(value);
    out_.end_record();
  }

  static std::int64_t count_rows(const NDArray& array) {
    std::int64_t count = 0;
    visit_dtype(array.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = array.data_as<T>();
      const std::int64_t width = array.row_width();
      for (std::int64_t r = 0; r < array.rows(); ++r) count += has_values(values + r * width, width) ? 1 : 0;
    });
    return count;
  }

  ValueWriter& out_;
  const std::vector<BlockPlan>& blocks_;
  bool partition_tag_;
};

class MshWriter {
 public:
  MshWriter(io::OutputBuffer& out, const Mesh& mesh, const WritePlan& plan, const Options& options)
      : out_(out, options.binary), mesh_(mesh), plan_(plan), options_(options), data_(out_, plan_.blocks, false) {}

  void write() {
    write_mesh_sections();
    write_point_data();
    write_cell_data();
  }

  // Everything but the data sections (MshStream writes those step by step).
  void write_mesh_sections() {
    write_mesh_format();
    write_block_marker();
    write_physical_names();
    if (options_.entities()) {
      write_entities();
      write_nodes_4();
      write_elements_4();
    } else {
      write_nodes_22();
      write_elements_22();
    }
    write_periodic();
  }

 private:
  const double* xyz() const { return plan_.xyz.empty() ? mesh_.points.data_as<double>() : plan_.xyz.data(); }
  std::int64_t num_points() const { return mesh_.num_points(); }

  void write_mesh_format() {
    out_.begin_section("MeshFormat");
    // "4.0", not "4": readers (meshio's among them) take a bare "4" for 4.1.
    const std::string_view version = options_.version == Version::v22 ? "2.2" : options_.version == Version::v40 ? "4.0" : "4.1";
    out_.text_line(std::string(version) + (options_.binary ? " 1 8" : " 0 8"));
    if (options_.binary) {
      const std::int32_t one = 1;
      out_.out().bytes(&one, 4);
      out_.out().put('\n');
    }
    out_.text_line("$EndMeshFormat");
  }

  // Readers cut blocks as meshio does: 4.x one per element block, 2.x one per stretch of one
  // type. Where that would not give back the mesh's blocks (a block split over entities, an
  // empty block, two consecutive blocks of one type in 2.2), $MeshioplusplusBlocks lists
  // them (type and size) for our reader; Gmsh and meshio skip sections they do not know.
  void write_block_marker() {
    bool needed = false;
    if (options_.entities()) {
      std::vector<std::int64_t> runs(plan_.blocks.size(), 0);
      for (const ElementRun& run : plan_.element_runs) ++runs[run.block];
      needed = std::any_of(runs.begin(), runs.end(), [](std::int64_t count) { return count != 1; });
    } else {
      for (std::size_t b = 0; b < plan_.blocks.size() && !needed; ++b)
        needed = plan_.blocks[b].count == 0 || (b > 0 && plan_.blocks[b].type == plan_.blocks[b - 1].type);
    }
    if (!needed) return;
    out_.text_line("$MeshioplusplusBlocks");
    out_.text_line(number_text(static_cast<std::int64_t>(plan_.blocks.size())));
    for (const BlockPlan& block : plan_.blocks)
      out_.text_line(std::to_string(block.type->gmsh_id) + " " + number_text(block.count));
    out_.text_line("$EndMeshioplusplusBlocks");
  }

  // Names equal to the tag were made up by the reader; leave them out so they stay made up.
  // Sorted by (dim, tag, name) as meshio sorts them.
  void write_physical_names() {
    std::vector<const Group*> named;
    for (const Group& group : plan_.groups)
      if (group.name != std::to_string(group.tag)) named.push_back(&group);
    for (const Group& extra : plan_.extra_names) named.push_back(&extra);
    if (named.empty()) return;
    std::stable_sort(named.begin(), named.end(), [](const Group* a, const Group* b) {
      return std::tie(a->dim, a->tag, a->name) < std::tie(b->dim, b->tag, b->name);
    });
    out_.text_line("$PhysicalNames");
    out_.text_line(number_text(static_cast<std::int64_t>(named.size())));
    for (const Group* group : named)
      out_.text_line(std::to_string(group->dim) + " " + std::to_string(group->tag) + " " + quoted(group->name));
    out_.text_line("$EndPhysicalNames");
  }

  std::vector<std::size_t> entities_in_order() const {
    std::vector<std::size_t> order(plan_.entities.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const Entity& x = plan_.entities[a];
      const Entity& y = plan_.entities[b];
      return x.dim != y.dim ? x.dim < y.dim : x.tag < y.tag;
    });
    return order;
  }

  void write_entities() {
    out_.begin_section("Entities");
    std::array<std::uint64_t, 4> counts{};
    for (const Entity& entity : plan_.entities) ++counts[static_cast<std::size_t>(entity.dim)];
    for (const std::uint64_t count : counts) out_.size(count);
    out_.end_record();
    for (const std::size_t e : entities_in_order()) {
      const Entity& entity = plan_.entities[e];
      const std::array<double, 6> box = entity.written_box();
      out_.int32(entity.tag);
      // 4.1 gives a point entity its position, 4.0 a (degenerate) box like any other.
      const int box_values = entity.dim == 0 && options_.version == Version::v41 ? 3 : 6;
      for (int a = 0; a < box_values; ++a) out_.real(box[static_cast<std::size_t>(a)]);
      const std::vector<std::int32_t>& members = plan_.signatures.members(entity.signature);
      out_.size(members.size());
      for (const std::int32_t group : members) out_.int32(plan_.groups[static_cast<std::size_t>(group)].tag);
      if (entity.dim > 0) out_.size(0);  // bounding entities: unknown
      out_.end_record();
    }
    out_.end_section("Entities");
  }

  // A 4.x block header: 4.1 names the entity (dim, tag), 4.0 (tag, dim).
  void entity_header(const Entity& entity) {
    const bool v41 = options_.version == Version::v41;
    out_.int32(v41 ? entity.dim : entity.tag);
    out_.int32(v41 ? entity.tag : entity.dim);
  }

  // 4.1: per block all tags, then all coordinates; min and max tag in the section header.
  // 4.0: per node its (int) tag and coordinates.
  void write_nodes_4() {
    const bool v41 = options_.version == Version::v41;
    out_.begin_section("Nodes");
    const auto n = static_cast<std::uint64_t>(num_points());
    out_.size(plan_.node_runs.size());
    out_.size(n);
    if (v41) {
      out_.size(n == 0 ? 0 : 1);
      out_.size(n);
    }
    out_.end_record();
    const double* points = xyz();
    for (const NodeRun& run : plan_.node_runs) {
      entity_header(plan_.entities[static_cast<std::size_t>(run.entity)]);
      out_.int32(0);  // no parametric coordinates
      out_.size(static_cast<std::uint64_t>(run.count));
      out_.end_record();
      if (!v41) {
        if (out_.binary()) write_binary_nodes_40(run);
        else
          for (std::int64_t i = run.first; i < run.first + run.count; ++i) {
            out_.int32(static_cast<std::int32_t>(i + 1));
            write_xyz_record(points + 3 * i);
          }
        continue;
      }
      if (out_.binary()) {
        write_binary_node_tags(run);
        out_.out().bytes(points + 3 * run.first, static_cast<std::size_t>(run.count) * 24);
        continue;
      }
      for (std::int64_t i = run.first; i < run.first + run.count; ++i) {
        out_.size(static_cast<std::uint64_t>(i) + 1);
        out_.end_record();
      }
      for (std::int64_t i = run.first; i < run.first + run.count; ++i) write_xyz_record(points + 3 * i);
    }
    out_.end_section("Nodes");
  }

  // 4.0 binary node records: int32 tag and three doubles (28 bytes), gathered in chunks.
  void write_binary_nodes_40(const NodeRun& run) {
    constexpr std::int64_t kChunk = 4096;
    constexpr std::size_t kRecord = 4 + 24;
    std::vector<char> records(kChunk * kRecord);
    const double* points = xyz();
    for (std::int64_t first = run.first; first < run.first + run.count; first += kChunk) {
      const std::int64_t count = std::min(kChunk, run.first + run.count - first);
      for (std::int64_t i = 0; i < count; ++i) {
        const auto tag = static_cast<std::int32_t>(first + i + 1);
        char* record = records.data() + static_cast<std::size_t>(i) * kRecord;
        std::memcpy(record, &tag, 4);
        std::memcpy(record + 4, points + 3 * (first + i), 24);
      }
      out_.out().bytes(records.data(), static_cast<std::size_t>(count) * kRecord);
    }
  }

  void write_binary_node_tags(const NodeRun& run) {
    constexpr std::int64_t kChunk = 4096;
    std::array<std::uint64_t, kChunk> tags;
    for (std::int64_t first = run.first; first < run.first + run.count; first += kChunk) {
      const std::int64_t count = std::min(kChunk, run.first + run.count - first);
      for (std::int64_t i = 0; i < count; ++i) tags[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(first + i + 1);
      out_.out().bytes(tags.data(), static_cast<std::size_t>(count) * 8);
    }
  }

  void write_xyz_record(const double* point) {
    out_.real(point[0]);
    out_.real(point[1]);
    out_.real(point[2]);
    out_.end_record();
  }

  // Gmsh-ordered point indices of one element.
  void gmsh_nodes(const GmshElementType& type, const std::int64_t* meshio_nodes, std::int64_t* out) const {
    const std::span<const std::uint16_t> order = type.gmsh_from_meshio;
    for (int j = 0; j < type.num_nodes; ++j) out[j] = meshio_nodes[order.empty() ? j : order[static_cast<std::size_t>(j)]];
  }

  struct ElementView {
    std::int64_t tag;
    const GmshElementType* type;
    std::int32_t signature;
  };

  // Element `i` of `run`; its gmsh-ordered point indices go to `nodes` (room for 1024).
  ElementView element_of(const ElementRun& run, std::int64_t i, std::int64_t* nodes) const {
    const BlockPlan& block = plan_.blocks[run.block];
    const std::int64_t row = run.first + i;
    gmsh_nodes(*block.type, block.cells->connectivity.data_as<std::int64_t>() + row * block.type->num_nodes, nodes);
    return {block.base + row + 1, block.type, plan_.cell_signature_of(block.base + row)};
  }

  // Calls fn(element tag, type, gmsh-ordered node indices, group signature) per element.
  template <class Fn> void for_each_element(const ElementRun& run, Fn&& fn) const {
    std::int64_t nodes[1024];  // the largest element, hexahedron1000, fits
    for (std::int64_t i = 0; i < run.count; ++i) {
      const ElementView element = element_of(run, i, nodes);
      fn(element.tag, *element.type, nodes, element.signature);
    }
  }

  // A run's binary element records, `words` Words each: filled by fill(element, nodes,
  // record) a few MiB at a time on all cores, each piece written as it is ready.
  template <class Word, class Fill> void write_binary_records(const ElementRun& run, std::size_t words, const Fill& fill) {
    const auto per_chunk = static_cast<std::int64_t>(std::max<std::size_t>(1, kRecordChunkBytes / (words * sizeof(Word))));
    // Scratch memory of the default heap: whole huge pages, not a fault per 4 KiB page.
    NDArray chunk_array = NDArray::allocate_scratch(dtype_of<Word>(), {std::min(per_chunk, run.count) * static_cast<std::int64_t>(words)});
    Word* const chunk = chunk_array.data_as<Word>();
    for (std::int64_t first = 0; first < run.count; first += per_chunk) {
      const std::int64_t count = std::min(per_chunk, run.count - first);
      io::parallel_ranges(static_cast<std::size_t>(count), kRecordsPerThread, [&](std::size_t begin, std::size_t end) {
        std::int64_t nodes[1024];
        // A block's cells straight from its connectivity: the per-element lookups of
        // element_of hoisted out of the loop.
        const BlockPlan& block = plan_.blocks[run.block];
        const std::int64_t k = block.type->num_nodes, row = run.first + first;
        const std::int64_t* connectivity = block.cells->connectivity.data_as<std::int64_t>() + row * k;
        const std::int32_t* signatures =
            plan_.cell_signatures() == nullptr ? nullptr : plan_.cell_signatures() + block.base + row;
        const bool reordered = !block.type->gmsh_from_meshio.empty();
        for (std::size_t i = begin; i < end; ++i) {
          const std::int64_t* cell = connectivity + static_cast<std::int64_t>(i) * k;
          if (reordered) {
            gmsh_nodes(*block.type, cell, nodes);
            cell = nodes;
          }
          fill(ElementView{block.base + row + static_cast<std::int64_t>(i) + 1, block.type,
                           signatures != nullptr ? signatures[i] : 0},
               cell, chunk + i * words);
        }
      });
      out_.out().bytes(chunk, static_cast<std::size_t>(count) * words * sizeof(Word));
    }
  }

  const GmshElementType& run_type(const ElementRun& run) const { return *plan_.blocks[run.block].type; }

  std::int64_t num_elements() const { return plan_.num_cells; }

  // 4.1 element records are size_t words, 4.0 ones ints; 4.0 has no min/max tags.
  void write_elements_4() {
    const bool v41 = options_.version == Version::v41;
    out_.begin_section("Elements");
    const auto total = static_cast<std::uint64_t>(num_elements());
    out_.size(plan_.element_runs.size());
    out_.size(total);
    if (v41) {
      out_.size(total == 0 ? 0 : 1);
      out_.size(total);
    }
    out_.end_record();
    for (const ElementRun& run : plan_.element_runs) {
      const GmshElementType& type = run_type(run);
      entity_header(plan_.entities[static_cast<std::size_t>(run.entity)]);
      out_.int32(type.gmsh_id);
      out_.size(static_cast<std::uint64_t>(run.count));
      out_.end_record();
      if (out_.binary()) {
        const auto fill = [](const ElementView& element, const std::int64_t* nodes, auto* record) {
          using Word = std::remove_pointer_t<decltype(record)>;
          record[0] = static_cast<Word>(element.tag);
          for (int j = 0; j < element.type->num_nodes; ++j) record[1 + j] = static_cast<Word>(nodes[j] + 1);
        };
        const std::size_t words = 1 + static_cast<std::size_t>(type.num_nodes);
        if (v41) write_binary_records<std::uint64_t>(run, words, [&](const ElementView& e, const std::int64_t* nodes, std::uint64_t* record) { fill(e, nodes, record); });
        else write_binary_records<std::int32_t>(run, words, [&](const ElementView& e, const std::int64_t* nodes, std::int32_t* record) { fill(e, nodes, record); });
        continue;
      }
      for_each_element(run, [&](std::int64_t tag, const GmshElementType& element_type, const std::int64_t* nodes, std::int32_t) {
        out_.size(static_cast<std::uint64_t>(tag));
        for (int j = 0; j < element_type.num_nodes; ++j) out_.size(static_cast<std::uint64_t>(nodes[j]) + 1);
        out_.end_record();
      });
    }
    out_.end_section("Elements");
  }

  void write_nodes_22() {
    out_.begin_section("Nodes");
    out_.text_line(number_text(num_points()));
    const double* points = xyz();
    char record[28];
    for (std::int64_t i = 0; i < num_points(); ++i) {
      const auto tag = static_cast<std::int32_t>(i + 1);
      if (out_.binary()) {
        std::memcpy(record, &tag, 4);
        std::memcpy(record + 4, points + 3 * i, 24);
        out_.out().bytes(record, sizeof record);
        continue;
      }
      out_.int32(tag);
      write_xyz_record(points + 3 * i);
    }
    out_.end_section("Nodes");
  }

  // 2.2: (tag, type, 2 tags: physical and elementary, nodes); binary under one header per run.
  void write_elements_22() {
    out_.begin_section("Elements");
    out_.text_line(number_text(num_elements()));
    for (const ElementRun& run : plan_.element_runs) {
      const GmshElementType& type = run_type(run);
      const Entity& entity = plan_.entities[static_cast<std::size_t>(run.entity)];
      if (out_.binary()) {
        const std::int32_t header[3]{type.gmsh_id, static_cast<std::int32_t>(run.count), 2};
        out_.out().bytes(header, sizeof header);
      }
      if (out_.binary()) {
        write_binary_records<std::int32_t>(
            run, 3 + static_cast<std::size_t>(type.num_nodes),
            [&](const ElementView& element, const std::int64_t* nodes, std::int32_t* record) {
              record[0] = static_cast<std::int32_t>(element.tag);
              record[1] = plan_.physical_of(element.signature);
              record[2] = entity.tag;
              for (int j = 0; j < element.type->num_nodes; ++j) record[3 + j] = static_cast<std::int32_t>(nodes[j] + 1);
            });
        continue;
      }
      for_each_element(run, [&](std::int64_t tag, const GmshElementType& element_type, const std::int64_t* nodes,
                                std::int32_t signature) {
        const std::int32_t physical = plan_.physical_of(signature);
        out_.int32(static_cast<std::int32_t>(tag));
        out_.int32(element_type.gmsh_id);
        out_.int32(2);
        out_.int32(physical);
        out_.int32(entity.tag);
        for (int j = 0; j < element_type.num_nodes; ++j) out_.int32(static_cast<std::int32_t>(nodes[j] + 1));
        out_.end_record();
      });
    }
    out_.end_section("Elements");
  }

  // ---- $Periodic: 4.1 in the file's encoding, 2.2 as text (Gmsh writes it so in binary
  // files too). 4.0's layout is not written (its reader here skips the section as well).
  void write_periodic() {
    if (plan_.periodic.empty() || options_.version == Version::v40) return;
    if (options_.version == Version::v22) {
      out_.text_line("$Periodic");
      out_.text_line(number_text(static_cast<std::int64_t>(plan_.periodic.size())));
      for (const PeriodicLink& link : plan_.periodic) {
        out_.text_line(std::to_string(link.dim) + " " + std::to_string(link.tag) + " " + std::to_string(link.master));
        if (!link.affine.empty()) {
          std::string line = "Affine";
          char text[32];
          for (const double value : link.affine) {
            line += ' ';
            line.append(text, std::to_chars(text, text + sizeof text, value).ptr);
          }
          out_.text_line(line);
        }
        out_.text_line(number_text(static_cast<std::int64_t>(link.nodes.size() / 2)));
        for (std::size_t k = 0; k < link.nodes.size(); k += 2)
          out_.text_line(number_text(link.nodes[k] + 1) + " " + number_text(link.nodes[k + 1] + 1));
      }
      out_.text_line("$EndPeriodic");
      return;
    }
    out_.begin_section("Periodic");
    out_.size(plan_.periodic.size());
    out_.end_record();
    for (const PeriodicLink& link : plan_.periodic) {
      out_.int32(link.dim);
      out_.int32(link.tag);
      out_.int32(link.master);
      out_.end_record();
      out_.size(link.affine.size());
      for (const double value : link.affine) out_.real(value);
      out_.end_record();
      out_.size(link.nodes.size() / 2);
      out_.end_record();
      for (std::size_t k = 0; k < link.nodes.size(); k += 2) {
        out_.size(static_cast<std::uint64_t>(link.nodes[k]) + 1);
        out_.size(static_cast<std::uint64_t>(link.nodes[k + 1]) + 1);
        out_.end_record();
      }
    }
    out_.end_section("Periodic");
  }

  // ---- $NodeData / $ElementData ------------------------------------------------------
  // The reader names the steps of a view read as steps "view[step k]" or "view[step k,
  // time t]" (t when it is not k) and shows the last step plainly as "view" too, sharing its
  // arrays: the steps are written back as steps of "view", the plain alias not again.
  static DataStep parse_data_name(const std::string& name) {
    const DataStep plain{name};
    const std::size_t open = name.rfind("[step ");
    if (open == std::string::npos || open == 0 || !name.ends_with("]")) return plain;
    const char* const last = name.data() + name.size() - 1;
    DataStep parsed{name.substr(0, open)};
    const auto [step_end, step_error] = std::from_chars(name.data() + open + 6, last, parsed.step);
    if (step_error != std::errc{} || parsed.step < 0) return plain;
    parsed.time = static_cast<double>(parsed.step);
    parsed.named_step = true;
    if (step_end == last) return parsed;
    constexpr std::string_view kTime = ", time ";
    if (std::string_view(step_end, static_cast<std::size_t>(last - step_end)).substr(0, kTime.size()) != kTime) return plain;
    const auto [time_end, time_error] = std::from_chars(step_end + kTime.size(), last, parsed.time);
    return time_error == std::errc{} && time_end == last ? parsed : plain;
  }

  // Equal dtype, shape and bytes (NaN rows included): the reader's alias, also after a copy.
  static bool same_bytes(const NDArray& a, const NDArray& b) {
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
    return a.data() == b.data() || std::memcmp(a.data(), b.data(), a.size() * dtype_size(a.dtype())) == 0;
  }

  // A plain entry equal to a "name[step …]" entry of its view (the alias the reader makes
  // of the last step) is already written as that step.
  template <class Entries, class SameArrays>
  static bool is_step_alias(const Entries& entries, const std::string& name, SameArrays&& same_arrays) {
    for (const auto& [other, arrays] : entries) {
      if (other.size() <= name.size() || !other.starts_with(name) || other.compare(name.size(), 6, "[step ") != 0) continue;
      if (parse_data_name(other).named_step && same_arrays(arrays)) return true;
    }
    return false;
  }

  // A plain entry beside step entries of the same view (not their alias: an array the caller
  // set) becomes the step after the view's last.
  template <class Entries> static DataStep data_step_of(const Entries& entries, const std::string& name) {
    DataStep step = parse_data_name(name);
    if (step.named_step) return step;
    for (const auto& [other, arrays] : entries) {
      const DataStep other_step = parse_data_name(other);
      if (!other_step.named_step || other_step.view != name || other_step.step < step.step) continue;
      step.step = other_step.step + 1;
      step.time = static_cast<double>(step.step);
    }
    return step;
  }

  void write_point_data() {
    for (const auto& [name, array] : mesh_.point_data) {
      if (name == "gmsh:dim_tags" || array.rows() != num_points() || array.row_width() == 0) continue;
      // Init-captures: a lambda may not capture a structured binding itself before C++20's P1091 (Clang 14).
      if (is_step_alias(mesh_.point_data, name, [&array = array](const NDArray& other) { return same_bytes(other, array); }))
        continue;
      data_.node_data(data_step_of(mesh_.point_data, name), array);
    }
  }

  // Arrays that fit neither $ElementData nor $ElementNodeData are left out.
  void write_cell_data() {
    for (const auto& [name, arrays] : mesh_.cell_data) {
      if (name == "gmsh:physical" || name == "gmsh:geometrical" || arrays.size() != plan_.blocks.size()) continue;
      if (plan_.num_cells == 0 || !rows_match_blocks(arrays)) continue;
      const auto same_arrays = [&arrays = arrays](const std::vector<NDArray>& other) {
        return other.size() == arrays.size() && std::equal(other.begin(), other.end(), arrays.begin(), same_bytes);
      };
      if (is_step_alias(mesh_.cell_data, name, same_arrays)) continue;
      data_.element_data(data_step_of(mesh_.cell_data, name), arrays);
    }
  }

  bool rows_match_blocks(const std::vector<NDArray>& arrays) const {
    for (std::size_t b = 0; b < arrays.size(); ++b)
      if (arrays[b].rows() != plan_.blocks[b].count) return false;
    return true;
  }

  ValueWriter out_;
  const Mesh& mesh_;
  const WritePlan& plan_;
  Options options_;
  DataSectionWriter data_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const Options parsed = parse_options(options);
  const WritePlan plan = PlanBuilder(mesh, parsed).build();
  io::AtomicFile file(path, kFormatName);
  io::OutputBuffer out(file);
  MshWriter(out, mesh, plan, parsed).write();
  out.flush();
  file.commit();
}

// ---- MshStream (gmsh_time_series.hpp): the pieces above, one step at a time ------------------

struct MshStream::State {
  State(const std::string& path, const Options& parsed) : options(parsed), file(path, kFormatName), out(file) {}
  Options options;
  io::AtomicFile file;
  io::OutputBuffer out;
  std::vector<BlockPlan> blocks;  // type, base and count per block (no cells: the mesh may be gone)
  std::int64_t num_points = 0;
};

MshStream::MshStream(const std::string& path, const WriteOptions& options) {
  const Options parsed = parse_options(options);  // bad options fail before a file is created
  state_ = std::make_unique<State>(path, parsed);
}

MshStream::~MshStream() = default;

void MshStream::write_mesh(const Mesh& mesh) {
  const WritePlan plan = PlanBuilder(mesh, state_->options).build();
  MshWriter(state_->out, mesh, plan, state_->options).write_mesh_sections();
  state_->blocks = plan.blocks;
  for (BlockPlan& block : state_->blocks) block.cells = nullptr;
  state_->num_points = mesh.num_points();
}

std::int64_t MshStream::num_points() const { return state_->num_points; }

std::vector<std::int64_t> MshStream::block_sizes() const {
  std::vector<std::int64_t> sizes;
  for (const BlockPlan& block : state_->blocks) sizes.push_back(block.count);
  return sizes;
}

void MshStream::write_node_data(std::string_view view, std::int64_t step, double time, const NDArray& values) {
  ValueWriter out(state_->out, state_->options.binary);
  DataSectionWriter(out, state_->blocks, true).node_data({std::string(view), step, time}, values);
}

bool MshStream::write_element_data(std::string_view view, std::int64_t step, double time,
                                   const std::vector<NDArray>& per_block) {
  if (per_block.empty()) return true;  // a mesh without blocks: nothing to write
  ValueWriter out(state_->out, state_->options.binary);
  return DataSectionWriter(out, state_->blocks, true).element_data({std::string(view), step, time}, per_block);
}

bool MshStream::fits_element_data(const std::vector<NDArray>& per_block) const {
  return per_block.empty() || DataSectionWriter::fits(state_->blocks, per_block);
}

void MshStream::commit() {
  state_->out.flush();
  state_->file.commit();
}

}  // namespace meshioplusplus::gmsh
