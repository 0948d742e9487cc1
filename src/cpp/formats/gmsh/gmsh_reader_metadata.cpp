// MSH reader, reading less (include/meshioplusplus/read_selection.hpp): the selective read
// (data sections of views a request does not name are jumped over; points_only keeps only the
// vertex elements, whose physical groups are the Point regions) and the metadata read, which
// runs the section parsers in metadata_only_ mode: $Nodes keeps its count and jumps over the
// blocks, $Elements is scanned for its runs (the first pass of the full read) and not filled,
// data sections keep their headers and jump over their values. The summary is then assembled
// here the way assemble() would name and shape the arrays, so it equals summarize(read(path)).
//
// What the headers do not say: the size of a Point region (the distinct nodes of its vertex
// elements) is -1 unless the group has no elements; 2.x physical groups are counted from the
// elements' first tags (read from each record: the format keeps them nowhere else).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_reader_internal.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"

namespace meshioplusplus::gmsh::detail::reader {
namespace {

// Sets `entry` in `list` as NamedList::set does: a name already there is replaced in place.
void set_summary(std::vector<ArraySummary>& list, ArraySummary entry) {
  for (ArraySummary& held : list)
    if (held.name == entry.name) {
      held = std::move(entry);
      return;
    }
  list.push_back(std::move(entry));
}

}  // namespace

Mesh MshReader::read_selected(const ReadRequest& request) {
  request_ = &request;
  return read();
}

// points_only without arrays: the points and the Point regions only. With arrays the elements
// are read too, since any cell array may be named (the registry checks the names against what
// the read returns, then drops the cells).
bool MshReader::points_alone() const { return request_ != nullptr && request_->points_only && !request_->arrays; }

// Whether a data section of `view` is jumped over. A requested name keeps its view when it is
// the view's name or one of its step names ("view[step k…]", "view (2)"); the registry then
// drops the arrays of the view that were not asked for.
bool MshReader::skips_view(const std::string& view) const {
  if (metadata_only_) return true;
  if (request_ == nullptr) return false;
  if (!request_->arrays) return request_->points_only;  // points_only alone keeps no data
  for (const std::string& name : *request_->arrays)
    if (name.starts_with(view) && (name.size() == view.size() || name[view.size()] == '[' || name[view.size()] == ' '))
      return false;
  return true;
}

void MshReader::skip_data_entries(const DataTarget& target, std::int64_t count) {
  const auto entries = static_cast<std::uint64_t>(count);
  const auto width = static_cast<std::uint64_t>(target.components);
  if (target.kind != DataKind::element_node) {
    // tag + values: 4 + 8 c bytes binary, 1 + c tokens ASCII
    if (cursor_.binary()) cursor_.skip_values(entries, 4 + 8 * static_cast<std::size_t>(width));
    else cursor_.skip_values(entries * (1 + width), 0);
    return;
  }
  for (std::uint64_t i = 0; i < entries; ++i) {
    cursor_.skip_values(1, 4);  // the element tag
    const std::int64_t nodes = cursor_.binary() ? cursor_.raw<std::int32_t>() : cursor_.text_number<std::int64_t>();
    if (nodes < 1 || nodes > 1024) cursor_.fail("element-node data gives " + std::to_string(nodes) + " nodes");
    cursor_.skip_values(static_cast<std::uint64_t>(nodes) * width, 8);
  }
}

void MshReader::skip_node_block(bool v41, std::uint64_t count, int extra) {
  const auto coordinates = 3 + static_cast<std::uint64_t>(extra);
  if (cursor_.binary()) {
    if (v41) {
      cursor_.skip_values(count, 8);  // tags
      cursor_.skip_values(count, 8 * static_cast<std::size_t>(coordinates));
    } else {
      cursor_.skip_values(count, 4 + 8 * static_cast<std::size_t>(coordinates));  // int tag, coordinates
    }
    return;
  }
  cursor_.skip_values(count * (1 + coordinates), 0);
}

void MshReader::count_physical_2(const GmshElementType& type, std::int32_t physical) {
  any_physical_ = true;
  if (physical != 0) ++physical_counts_2_[{type.dimension, physical}];
}

// 2.x binary: the first tag of each record of `run` (laid out as fill_run_2_binary reads it).
void MshReader::count_physicals_2_binary(const ElementRun& run) {
  if (run.binary_tags < 1 || run.count == 0) return;
  const std::size_t record =
      run.header_bytes + 4 * (1 + static_cast<std::size_t>(run.binary_tags) + static_cast<std::size_t>(run.type->num_nodes));
  const char* data = cursor_.document().data() + run.data_offset;
  any_physical_ = true;
  // Counted per stretch of equal tags: one map update per stretch, not per element.
  std::int32_t physical = load<std::int32_t>(data + 4);
  std::int64_t stretch = 0;
  for (std::uint64_t e = 0; e < run.count; ++e, ++stretch) {
    const auto tag = load<std::int32_t>(data + record * e + 4);
    if (tag == physical) continue;
    if (physical != 0) physical_counts_2_[{run.type->dimension, physical}] += stretch;
    physical = tag;
    stretch = 0;
  }
  if (physical != 0) physical_counts_2_[{run.type->dimension, physical}] += stretch;
}

// The regions build_regions() makes, with their sizes where the headers give them.
std::vector<RegionSummary> MshReader::region_summaries() const {
  std::map<std::pair<int, int>, std::int64_t> counts;  // (dim, physical tag), ordered as the regions
  for (const PhysicalName& name : physical_names_) counts.try_emplace({name.dim, name.tag}, 0);
  for (const auto& [key, tags] : entity_physicals_)
    for (const std::int32_t tag : tags) counts.try_emplace({static_cast<int>(key >> 32), tag}, 0);
  if (version_ == Version::v2) {
    for (const auto& [key, count] : physical_counts_2_) counts[key] += count;
  } else {
    for (const ElementRun& run : runs_)
      if (const std::vector<std::int32_t>* groups = entity_physicals(run.entity_dim, run.entity_tag))
        for (const std::int32_t tag : *groups) counts[{run.entity_dim, tag}] += static_cast<std::int64_t>(run.count);
  }
  std::vector<RegionSummary> regions;
  for (const auto& [key, count] : counts) {
    const bool points = key.first == 0;
    regions.push_back({group_name(key.first, key.second), points ? RegionKind::Point : RegionKind::Cell, key.first,
                       key.second, points && count > 0 ? -1 : count});
  }
  return regions;
}

MeshMetadata MshReader::metadata() {
  metadata_only_ = true;
  read_mesh_format();
  while (true) {
    cursor_.skip_whitespace();
    if (cursor_.at_end()) break;
    read_section();
  }
  MeshMetadata summary;
  summary.header_only = true;
  summary.variant = std::string(version_ == Version::v2 ? "2" : version_ == Version::v40 ? "4.0" : "4.1") +
                    (binary_ ? " binary" : " ascii");
  summary.num_points = num_points();
  std::int64_t total_cells = 0;
  for (const BlockBuild& block : blocks_) {
    summary.cell_blocks.push_back({std::string(block.type->name), block.count});
    total_cells += block.count;
  }

  // The arrays in the order assemble() sets them.
  name_data_targets();
  std::vector<ArraySummary> point, cell, field;
  for (const DataTarget& target : targets_) {
    std::vector<std::int64_t> shape;
    if (target.kind == DataKind::node) {
      shape = value_shape(num_points(), target.components);
    } else {
      if (blocks_.empty()) continue;  // no blocks: no arrays to hold it
      const std::int64_t width =
          target.kind == DataKind::element ? target.components : blocks_.front().type->num_nodes * target.components;
      shape = value_shape(total_cells, width);
    }
    const bool node = target.kind == DataKind::node;
    std::vector<ArraySummary>& list = node ? point : cell;
    const DataAssociation association = node ? DataAssociation::point : DataAssociation::cell;
    if (target.alias_of_last != nullptr) set_summary(list, {target.alias_name, association, DType::float64, shape});
    set_summary(list, {target.output_name, association, DType::float64, shape});
  }
  if (version_ != Version::v2 && nodes_read_)
    set_summary(point, {"gmsh:dim_tags", DataAssociation::point, DType::int64, {num_points(), 2}});
  if (!blocks_.empty()) {
    const DType tags = version_ == Version::v2 ? DType::int32 : DType::int64;
    if (has_physical_information()) set_summary(cell, {"gmsh:physical", DataAssociation::cell, tags, {total_cells}});
    set_summary(cell, {"gmsh:geometrical", DataAssociation::cell, tags, {total_cells}});
  }
  for (const PhysicalName& name : physical_names_) set_summary(field, {name.name, DataAssociation::field, DType::int64, {2}});
  if (!periodic_.empty()) {
    std::int64_t words = 0, reals = 0;
    for (const PeriodicLink& link : periodic_) {
      words += 5 + static_cast<std::int64_t>(link.nodes.size());
      reals += static_cast<std::int64_t>(link.affine.size());
    }
    set_summary(field, {"gmsh:periodic", DataAssociation::field, DType::int64, {words}});
    set_summary(field, {"gmsh:periodic_affine", DataAssociation::field, DType::float64, {reals}});
  }

  // The steps as the time-series reader (gmsh_time_series.cpp) finds them in a full read: per
  // view array, point data first, its step index and time; a plain view is step 0 at time 0;
  // the plain alias of a stepped view adds nothing. The first time seen for a step is its time.
  std::map<std::int64_t, double> step_times;
  for (const std::vector<ArraySummary>* list : {&point, &cell})
    for (const ArraySummary& entry : *list) {
      if (entry.name.starts_with("gmsh:")) continue;
      for (const DataTarget& target : targets_) {
        if ((target.kind == DataKind::node) != (list == &point) || target.output_name != entry.name) continue;
        const bool stepped = std::any_of(targets_.begin(), targets_.end(), [&](const DataTarget& other) {
          return other.kind == target.kind && other.view == target.view && !other.alias_name.empty();
        });
        step_times.emplace(stepped ? target.step : 0, stepped ? target.time : 0.0);
        break;
      }
    }
  for (const auto& [step, time] : step_times) summary.times.push_back(time);

  summary.arrays = std::move(point);
  summary.arrays.insert(summary.arrays.end(), cell.begin(), cell.end());
  summary.arrays.insert(summary.arrays.end(), field.begin(), field.end());
  summary.regions = region_summaries();
  return summary;
}

}  // namespace meshioplusplus::gmsh::detail::reader

namespace meshioplusplus::gmsh {

Mesh read_selected(const std::string& path, const ReadRequest& request) {
  const io::MappedFile file(path, kFormatName);
  io::reject_empty_file(file.bytes(), path, kFormatName);
  detail::reader::MshReader reader(file.bytes(), path, ReadOptions{});
  return reader.read_selected(request);
}

MeshMetadata read_metadata(const std::string& path) {
  const io::MappedFile file(path, kFormatName);
  io::reject_empty_file(file.bytes(), path, kFormatName);
  detail::reader::MshReader reader(file.bytes(), path, ReadOptions{});
  return reader.metadata();
}

}  // namespace meshioplusplus::gmsh
