// MSH reader, entities and partitions: $Entities and $PartitionedEntities (the physical tags
// of each entity, and the partitions that own it), the choice of partitions a partitioned read
// keeps, $GhostElements and the ghost cells picked out of other partitions' blocks, and the
// partitioned read's last steps (only the used nodes, their vtkGhostType). Apart from the
// sections every read parses (gmsh_reader.cpp): this is the MSH 4.x model of entities and
// partitions, which 2.x files do not have.
#include <algorithm>
#include <limits>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "formats/gmsh/gmsh_reader_internal.hpp"
#include "io/text/text_scanner.hpp"

namespace meshioplusplus::gmsh::detail::reader {

// ---- $Entities / $PartitionedEntities: physical tags of each entity ------------------
void MshReader::read_entities() {
  std::uint64_t counts[4];
  for (std::uint64_t& count : counts) count = cursor_.size_value();
  for (int dim = 0; dim < 4; ++dim) {
    cursor_.check_count(counts[dim], cursor_.binary() ? 20 : 8, "entity");
    for (std::uint64_t i = 0; i < counts[dim]; ++i) {
      const int tag = cursor_.int32();
      // 4.1 points have a position; everything else (and 4.0 points) a bounding box.
      cursor_.skip_values(dim == 0 && version_ == Version::v41 ? 3 : 6, 8);
      read_entity_physicals(dim, tag);
      if (dim > 0) cursor_.skip_values(cursor_.size_value(), 4);  // bounding entities
    }
  }
  expect_end("Entities");
}

// A partitioned read also keeps, per partitioned entity, the partition that owns its
// elements (the lowest it is listed in), and the ghost entities' tags with the partition
// each is a ghost in (their elements are other partitions' cells). A ghost_cells read keeps
// every partition an entity lists: the blocks that may hold a kept partition's ghosts are
// those on entities of the partitions owning them.
void MshReader::read_partitioned_entities() {
  const std::size_t section_at = cursor_.position();
  const std::uint64_t num_partitions = cursor_.size_value();
  const std::uint64_t ghosts = cursor_.size_value();
  cursor_.check_count(ghosts, cursor_.binary() ? 8 : 4, "ghost entity");
  for (std::uint64_t i = 0; i < ghosts; ++i) {
    const int tag = cursor_.int32();
    ghost_entity_partition_[tag] = cursor_.int32();
  }
  std::uint64_t counts[4];
  for (std::uint64_t& count : counts) count = cursor_.size_value();
  for (int dim = 0; dim < 4; ++dim) {
    cursor_.check_count(counts[dim], cursor_.binary() ? 32 : 12, "partitioned entity");
    for (std::uint64_t i = 0; i < counts[dim]; ++i) {
      const int tag = cursor_.int32();
      cursor_.skip_values(2, 4);  // parent dim and tag
      const std::size_t partitions_at = cursor_.position();
      const std::uint64_t num_listed = cursor_.size_value();
      cursor_.check_count(num_listed, cursor_.binary() ? 4 : 2, "entity partition");
      int owner = std::numeric_limits<int>::max();
      std::vector<int>* listed = ghost_cells_ ? &entity_partitions_[entity_key(dim, tag)] : nullptr;
      for (std::uint64_t k = 0; k < num_listed; ++k) {
        const int partition = cursor_.int32();
        owner = std::min(owner, partition);
        if (listed != nullptr) listed->push_back(partition);
      }
      if (partitioned_ && (num_listed == 0 || owner < 1 || static_cast<std::uint64_t>(owner) > num_partitions))
        cursor_.fail_at(partitions_at, "partitioned entity (" + std::to_string(dim) + ", " + std::to_string(tag) +
                                           ") lists no partition of 1.." + std::to_string(num_partitions));
      entity_owner_[entity_key(dim, tag)] = owner;
      cursor_.skip_values(dim == 0 ? 3 : 6, 8);  // position or bounding box
      read_entity_physicals(dim, tag);
      if (dim > 0) cursor_.skip_values(cursor_.size_value(), 4);
    }
  }
  expect_end("PartitionedEntities");
  if (partitioned_) choose_partitions(num_partitions, section_at);
  partitioned_entities_read_ = true;
}

// The partitions a partitioned read keeps: the named ones, or the rank's share of the file's.
void MshReader::choose_partitions(std::uint64_t num_partitions, std::size_t section_at) {
  kept_partitions_.clear();
  if (options_.ranks > 0) {
    const auto ranks = static_cast<std::uint64_t>(options_.ranks);
    const auto rank = static_cast<std::uint64_t>(options_.rank);
    const std::uint64_t base = num_partitions / ranks, extra = num_partitions % ranks;
    const std::uint64_t first = rank * base + std::min(rank, extra);
    const std::uint64_t count = base + (rank < extra ? 1 : 0);
    for (std::uint64_t k = 0; k < count; ++k) kept_partitions_.insert(static_cast<int>(first + k + 1));
    return;
  }
  for (const int partition : options_.partitions) {
    if (partition < 1 || static_cast<std::uint64_t>(partition) > num_partitions)
      cursor_.fail_at(section_at, "partition " + std::to_string(partition) + " was asked for, but the file has " +
                                      std::to_string(num_partitions) + " (numbered 1.." +
                                      std::to_string(num_partitions) + ")");
    kept_partitions_.insert(partition);
  }
}

[[noreturn]] void MshReader::fail_not_partitioned(std::size_t at) const {
  cursor_.fail_at(at, "a partitioned read needs a MSH 4.1 file partitioned by Gmsh, with $PartitionedEntities "
                      "(gmsh -part N; or split files name_1.msh … written with Mesh.PartitionSplitMeshFiles=1), "
                      "and this file has none before its elements");
}

// Whether a partitioned read keeps the elements on entity (dim, tag), and as what; every
// read keeps all, as owned.
MshReader::Keep MshReader::keeps_entity(int dim, int tag, std::size_t block_at) const {
  if (!partitioned_) return Keep::owned;
  const auto found = entity_owner_.find(entity_key(dim, tag));
  if (found != entity_owner_.end()) return kept_partitions_.contains(found->second) ? Keep::owned : Keep::none;
  // A ghost entity's elements are copies of other partitions' cells (split files).
  if (const auto ghost = ghost_entity_partition_.find(tag); ghost != ghost_entity_partition_.end())
    return ghost_cells_ && kept_partitions_.contains(ghost->second) ? Keep::ghost : Keep::none;
  cursor_.fail_at(block_at, "an element block lies on entity (" + std::to_string(dim) + ", " + std::to_string(tag) +
                                "), which $PartitionedEntities does not list: its elements belong to no partition");
}

// Whether entity (dim, tag) is listed in one of `partitions` (ghost_cells reads).
bool MshReader::entity_in_any(int dim, int tag, const std::unordered_set<int>& partitions) const {
  const auto found = entity_partitions_.find(entity_key(dim, tag));
  if (found == entity_partitions_.end()) return false;
  return std::any_of(found->second.begin(), found->second.end(), [&](int p) { return partitions.contains(p); });
}

void MshReader::read_entity_physicals(int dim, int tag) {
  const std::uint64_t count = cursor_.size_value();
  cursor_.check_count(count, cursor_.binary() ? 4 : 2, "physical tag");
  if (count == 0) return;
  std::vector<std::int32_t>& tags = entity_physicals_[entity_key(dim, tag)];
  tags.clear();
  for (std::uint64_t k = 0; k < count; ++k) tags.push_back(cursor_.int32());
}

// ---- $GhostElements (4.1): per element its tag, owner and the partitions it is a ghost in
// Parsed (so that it is skipped safely in binary) and, when a ghost_cells read has not taken
// the list yet, kept: the tags of the elements that are ghosts of a kept partition and owned
// by a partition that is not kept (those are owned cells here), and their owners.
void MshReader::read_ghost_elements_41() {
  const bool keep = ghost_cells_ && partitioned_entities_read_ && !ghost_list_read_;
  const std::uint64_t count = cursor_.size_value();
  cursor_.check_count(count, cursor_.binary() ? 20 : 6, "ghost element");
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t tag = cursor_.size_value();
    const int owner = cursor_.int32();
    const std::uint64_t num_ghost_partitions = cursor_.size_value();
    cursor_.check_count(num_ghost_partitions, cursor_.binary() ? 4 : 2, "ghost partition");
    bool ghost_here = false;
    for (std::uint64_t k = 0; k < num_ghost_partitions; ++k) ghost_here |= kept_partitions_.contains(cursor_.int32());
    if (keep && ghost_here && !kept_partitions_.contains(owner)) {
      ghost_element_tags_.insert(tag);
      ghost_owners_.insert(owner);
    }
  }
  expect_end("GhostElements");
  if (keep) ghost_list_read_ = true;
}

// A single file lists its ghosts in $GhostElements, which Gmsh writes after $Elements: the
// element pass needs the list before it allocates, so it looks ahead for the section header
// in the mapped bytes from `from` (the end of the element scan) instead of reading the file
// twice. The header must stand on a line of its own; in binary files a match inside payload
// bytes is possible in principle, so a match whose section does not parse is passed over.
// No section: no ghosts. Leaves the cursor where it was.
void MshReader::look_ahead_for_ghost_elements(std::size_t from) {
  constexpr std::string_view header = "$GhostElements";
  const std::string_view document = cursor_.document();
  const std::size_t resume = cursor_.position();
  for (std::size_t at = document.find(header, from); at != std::string_view::npos && !ghost_list_read_;
       at = document.find(header, at + 1)) {
    const std::size_t after = at + header.size();
    if ((at != 0 && document[at - 1] != '\n') || (after != document.size() && !io::is_space(document[after])))
      continue;
    cursor_.seek(after);
    try {
      if (cursor_.binary()) cursor_.end_text_line();
      read_ghost_elements_41();
    } catch (const ReadError&) {
      if (!cursor_.binary()) throw;  // text cannot hold the header by chance: a broken section
      ghost_element_tags_.clear();
      ghost_owners_.clear();
    }
  }
  ghost_list_read_ = true;  // found or not: looked once
  cursor_.seek(resume);
}

// ghost_cells reads of a single file: runs of the ghost cells of the kept partitions, picked
// out of the element blocks that were not kept (only blocks on entities of the partitions
// owning such ghosts are walked). They join the kept runs in file order. Split files carry
// their ghosts as whole blocks on ghost entities (kept by the scan) and need none of this.
void MshReader::add_ghost_element_runs() {
  if (!ghost_cells_ || ghost_blocks_kept_ || ghost_candidates_.empty()) return;
  const std::size_t resume = cursor_.position();
  if (!ghost_list_read_) look_ahead_for_ghost_elements(resume);
  bool added = false;
  for (ElementRun& run : ghost_candidates_) {
    if (ghost_element_tags_.empty()) break;
    if (!entity_in_any(run.entity_dim, run.entity_tag, ghost_owners_)) continue;
    const auto k = static_cast<std::uint64_t>(run.type->num_nodes);
    if (cursor_.binary()) {  // 4.1 records: tag and node tags, 8 bytes each
      const std::size_t record = 8 * (1 + k);
      for (std::uint64_t e = 0; e < run.count; ++e) {
        const std::size_t at = run.data_offset + record * e;
        if (ghost_element_tags_.contains(load<std::uint64_t>(cursor_.document().data() + at)))
          run.selected_records.push_back(at);
      }
    } else {
      cursor_.seek(run.data_offset);
      for (std::uint64_t e = 0; e < run.count; ++e) {
        cursor_.skip_whitespace();
        const std::size_t at = cursor_.position();
        if (ghost_element_tags_.contains(cursor_.size_value())) run.selected_records.push_back(at);
        cursor_.skip_values(k, 8);
      }
    }
    if (run.selected_records.empty()) continue;
    run.count = run.selected_records.size();
    run.ghost = true;
    runs_.push_back(std::move(run));
    added = true;
  }
  ghost_candidates_.clear();
  cursor_.seek(resume);
  if (added)
    std::stable_sort(runs_.begin(), runs_.end(),
                     [](const ElementRun& a, const ElementRun& b) { return a.data_offset < b.data_offset; });
}

// A partitioned read: only the nodes the kept cells use, in file order; connectivity, node
// data, gmsh:dim_tags and the node tags follow.
void MshReader::keep_only_used_nodes() {
  const std::int64_t all = num_points();
  std::vector<std::int64_t> renumber(static_cast<std::size_t>(all), -1);
  for (const BlockBuild& block : blocks_) {
    const std::int64_t* node = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t i = 0, n = block.count * block.type->num_nodes; i < n; ++i) renumber[node[i]] = 0;
  }
  std::int64_t kept = 0;
  for (std::int64_t& index : renumber)
    if (index == 0) index = kept++;
  const auto gather = [&](NDArray& rows, std::int64_t width) {
    if (rows.empty_handle()) return;
    Shape shape = rows.shape();
    shape[0] = kept;
    NDArray compact = NDArray::allocate(rows.dtype(), std::move(shape));
    const std::size_t row_bytes = static_cast<std::size_t>(width) * dtype_size(rows.dtype());
    const auto* from = static_cast<const char*>(rows.data());
    auto* to = static_cast<char*>(compact.data());
    for (std::int64_t i = 0; i < all; ++i)
      if (renumber[i] >= 0) std::memcpy(to + renumber[i] * row_bytes, from + i * row_bytes, row_bytes);
    rows = std::move(compact);
  };
  gather(points_, 3);
  gather(dim_tags_, 2);
  gather(node_tags_of_points_, 1);
  for (DataTarget& target : targets_)
    if (target.kind == DataKind::node) gather(target.point_values, target.components);
  for (BlockBuild& block : blocks_) {
    std::int64_t* node = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t i = 0, n = block.count * block.type->num_nodes; i < n; ++i) node[i] = renumber[node[i]];
  }
  if (points_.empty_handle()) points_ = NDArray::allocate(DType::float64, {0, 3});
  if (node_tags_of_points_.empty_handle()) node_tags_of_points_ = NDArray::allocate(DType::int64, {0});
}

// ghost_cells reads: vtkGhostType of the kept points, 0 where a kept partition owns the node,
// else DUPLICATEPOINT. The owner is the lowest partition of the partitioned entity the node
// is classified on (gmsh:dim_tags): an interface entity lists every partition meeting there,
// so this is the partition the elements' rule gives shared entities, it is decided alike on
// every rank, and each node is owned by exactly one. A node on an entity the file does not
// list in $PartitionedEntities is owned where an owned cell uses it.
NDArray MshReader::point_ghost_types() const {
  const std::int64_t count = num_points();
  NDArray types = NDArray::allocate(DType::uint8, {count});
  std::uint8_t* type = types.data_as<std::uint8_t>();
  const std::int64_t* dim_tags = dim_tags_.empty_handle() ? nullptr : dim_tags_.data_as<std::int64_t>();
  bool unlisted = false;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto owner = dim_tags == nullptr ? entity_owner_.end()
                                           : entity_owner_.find(entity_key(static_cast<int>(dim_tags[2 * i]),
                                                                           static_cast<int>(dim_tags[2 * i + 1])));
    if (owner == entity_owner_.end()) {
      type[i] = kUnlistedPoint;
      unlisted = true;
    } else {
      type[i] = kept_partitions_.contains(owner->second) ? std::uint8_t{0} : kDuplicatePoint;
    }
  }
  if (!unlisted) return types;
  for (const BlockBuild& block : blocks_) {
    const std::int64_t* node = block.connectivity.data_as<std::int64_t>();
    const std::uint8_t* ghost = block.ghost_type.data_as<std::uint8_t>();
    const int k = block.type->num_nodes;
    for (std::int64_t row = 0; row < block.count; ++row)
      if (ghost[row] == 0)
        for (int j = 0; j < k; ++j)
          if (type[node[row * k + j]] == kUnlistedPoint) type[node[row * k + j]] = 0;
  }
  std::replace(type, type + count, kUnlistedPoint, kDuplicatePoint);
  return types;
}

}  // namespace meshioplusplus::gmsh::detail::reader
