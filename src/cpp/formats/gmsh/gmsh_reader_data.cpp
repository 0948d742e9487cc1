// MSH reader, data and assembly: $NodeData / $ElementData / $ElementNodeData (text headers,
// values in the file's encoding, one array per view step and the names gmsh.hpp describes),
// then the Mesh made of everything read — blocks, data arrays, gmsh:physical / gmsh:geometrical,
// $PhysicalNames as field_data, regions and $Periodic as field_data. The sections before build
// the reader's state; this file turns it into what a read returns.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "formats/gmsh/gmsh_reader_internal.hpp"

namespace meshioplusplus::gmsh::detail::reader {
namespace {

std::string_view section_name(DataKind kind) noexcept {
  switch (kind) {
    case DataKind::node: return "NodeData";
    case DataKind::element: return "ElementData";
    case DataKind::element_node: break;
  }
  return "ElementNodeData";
}

NDArray nan_array(Shape shape) {
  NDArray array = NDArray::allocate(DType::float64, std::move(shape));
  std::fill_n(array.data_as<double>(), array.size(), std::numeric_limits<double>::quiet_NaN());
  return array;
}

}  // namespace

// ---- $NodeData / $ElementData / $ElementNodeData -------------------------------------
void MshReader::read_data(DataKind kind, std::size_t start) {
  if (kind == DataKind::node ? !nodes_read_ : !elements_read_)
    cursor_.fail_at(start, "$" + std::string(section_name(kind)) + " comes before the mesh it refers to");
  std::vector<std::string> strings(static_cast<std::size_t>(small_count("string tag")));
  for (std::string& text : strings) text = cursor_.text_quoted();
  const std::int64_t num_reals = small_count("real tag");
  double time = 0;
  for (std::int64_t i = 0; i < num_reals; ++i) {
    const auto value = cursor_.text_number<double>();
    if (i == 0) time = value;
  }
  std::vector<std::int64_t> integers(static_cast<std::size_t>(small_count("integer tag")));
  for (std::int64_t& value : integers) value = cursor_.text_number<std::int64_t>();
  const std::int64_t step = integers.size() > 0 ? integers[0] : 0;
  const std::int64_t components = integers.size() > 1 ? integers[1] : 1;
  const std::int64_t count = integers.size() > 2 ? integers[2] : 0;
  if (components < 1 || components > 1024) cursor_.fail_at(start, "bad number of components " + std::to_string(components));
  if (count < 0) cursor_.fail_at(start, "negative number of data entries");
  if (cursor_.binary()) cursor_.end_text_line();
  const std::string view = strings.empty() ? std::string("data") : strings[0];
  DataTarget& target = data_target(kind, view, step, time, components, start, skips_view(view));
  cursor_.check_count(static_cast<std::uint64_t>(count), cursor_.binary() ? 12 : 4, "data entry");
  if (target.skipped) skip_data_entries(target, count);
  else
    for (std::int64_t i = 0; i < count; ++i) read_data_entry(target);
  expect_end(section_name(kind));
}

std::int64_t MshReader::small_count(std::string_view what) {
  const auto value = cursor_.text_number<std::int64_t>();
  if (value < 0 || value > 1024) cursor_.fail("bad number of " + std::string(what) + "s: " + std::to_string(value));
  return value;
}

DataTarget& MshReader::data_target(DataKind kind, const std::string& view, std::int64_t step, double time,
                        std::int64_t components, std::size_t start, bool skip) {
  for (DataTarget& target : targets_) {
    if (target.kind != kind || target.view != view || target.step != step) continue;
    if (target.components != components)
      cursor_.fail_at(start, "data '" + view + "' changes its number of components");
    return target;
  }
  DataTarget target;
  target.kind = kind;
  target.view = view;
  target.step = step;
  target.time = time;
  target.components = components;
  target.skipped = skip;
  if (skip) {
  } else if (kind == DataKind::node) {
    target.point_values = nan_array(value_shape(num_points(), components));
  } else {
    for (const BlockBuild& block : blocks_) {
      const std::int64_t width = kind == DataKind::element ? components : block.type->num_nodes * components;
      target.cell_values.push_back(nan_array(value_shape(block.count, width)));
    }
  }
  return targets_.emplace_back(std::move(target));
}

Shape MshReader::value_shape(std::int64_t rows, std::int64_t width) {
  return width == 1 ? Shape{rows} : Shape{rows, width};
}

// Names the arrays of every data target (see gmsh.hpp): a view read as one plain array
// keeps its name; a view with several steps, or one step that is not step 0 at time 0,
// gets "view[step k]" / "view[step k, time t]" per step, and its plain name shows the last
// step — the largest step index, which in files written step after step is the last
// section, the one meshio's reader keeps under the name.
// Element data and element-node data share cell_data; their names are kept apart.
void MshReader::name_data_targets() {
  std::vector<std::string> taken_point, taken_cell;
  const auto claim = [&](DataKind kind, const std::string& wanted) {
    std::vector<std::string>& taken = kind == DataKind::node ? taken_point : taken_cell;
    std::string name = wanted;
    for (int suffix = 2; std::find(taken.begin(), taken.end(), name) != taken.end(); ++suffix)
      name = wanted + " (" + std::to_string(suffix) + ")";
    taken.push_back(name);
    return name;
  };
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    DataTarget& target = targets_[i];
    const auto same_view = [&](const DataTarget& other) { return other.kind == target.kind && other.view == target.view; };
    const auto first = std::find_if(targets_.begin(), targets_.end(), same_view);
    if (&*first != &target) continue;  // named with the view's first step
    std::vector<DataTarget*> steps;
    for (DataTarget& other : targets_)
      if (same_view(other)) steps.push_back(&other);
    const bool plain = steps.size() == 1 && target.step == 0 && target.time == 0;
    const std::string view = claim(target.kind, target.view);
    if (plain) {
      target.output_name = view;
      continue;
    }
    target.alias_of_last = *std::max_element(steps.begin(), steps.end(), [](const DataTarget* a, const DataTarget* b) {
      return a->step < b->step;
    });
    target.alias_name = view;
    for (DataTarget* step : steps) step->output_name = claim(step->kind, step_name(view, step->step, step->time));
  }
}

std::string MshReader::step_name(const std::string& view, std::int64_t step, double time) {
  std::string name = view + "[step " + std::to_string(step);
  if (time != static_cast<double>(step)) {
    char text[32];
    const auto written = std::to_chars(text, text + sizeof text, time);
    name += ", time " + std::string(text, written.ptr);
  }
  return name + "]";
}

void MshReader::read_data_entry(DataTarget& target) {
  if (!cursor_.binary()) cursor_.skip_whitespace();
  const std::size_t entry_at = cursor_.position();
  const std::uint64_t tag = cursor_.binary() ? static_cast<std::uint64_t>(cursor_.raw<std::int32_t>())
                                             : cursor_.text_number<std::uint64_t>();
  if (target.kind == DataKind::node) {
    const std::int64_t node = node_index_.find(tag);
    if (node < 0) cursor_.fail_at(entry_at, "data for node tag " + std::to_string(tag) + ", which $Nodes does not define");
    read_values(target.point_values.data_as<double>() + node * target.components, target.components);
    return;
  }
  // Gmsh tags are positive. meshio's 4.0 writer numbers elements from 0 but their
  // $ElementData from 1: in a file with an element tag 0, data tag t is element t - 1.
  const TagIndex& elements = element_index();
  if (!elements_from_zero_) elements_from_zero_ = elements.find(0) >= 0;
  const std::int64_t cell = *elements_from_zero_ ? (tag == 0 ? -1 : elements.find(tag - 1)) : elements.find(tag);
  if (cell < 0 && partitioned_) return skip_data_values(target);  // an element of another partition
  if (cell < 0)
    cursor_.fail_at(entry_at, "data for element tag " + std::to_string(tag) + ", which $Elements does not define");
  const auto block = static_cast<std::size_t>(std::upper_bound(bases_.begin(), bases_.end(), cell) - bases_.begin() - 1);
  const std::int64_t row = cell - bases_[block];
  if (target.kind == DataKind::element) {
    read_values(target.cell_values[block].data_as<double>() + row * target.components, target.components);
    return;
  }
  const GmshElementType& type = *blocks_[block].type;
  const std::int64_t nodes = cursor_.binary() ? cursor_.raw<std::int32_t>() : cursor_.text_number<std::int64_t>();
  if (nodes != type.num_nodes)
    cursor_.fail_at(entry_at, "element-node data gives " + std::to_string(nodes) + " nodes for a " +
                                  std::string(type.name) + " element");
  const std::int64_t width = nodes * target.components;
  node_values_.resize(static_cast<std::size_t>(width));
  read_values(node_values_.data(), width);
  double* out = target.cell_values[block].data_as<double>() + row * width;
  const std::span<const std::uint16_t> order = type.meshio_from_gmsh;
  for (std::int64_t i = 0; i < nodes; ++i) {
    const std::int64_t from = order.empty() ? i : order[static_cast<std::size_t>(i)];
    std::copy_n(node_values_.data() + from * target.components, target.components, out + i * target.components);
  }
}

// The values of an entry for an element a partitioned read left out.
void MshReader::skip_data_values(const DataTarget& target) {
  std::int64_t width = target.components;
  if (target.kind == DataKind::element_node) {
    const std::int64_t nodes = cursor_.binary() ? cursor_.raw<std::int32_t>() : cursor_.text_number<std::int64_t>();
    if (nodes < 1 || nodes > 1024) cursor_.fail("element-node data gives " + std::to_string(nodes) + " nodes");
    width *= nodes;
  }
  node_values_.resize(static_cast<std::size_t>(width));
  read_values(node_values_.data(), width);
}

void MshReader::read_values(double* out, std::int64_t count) {
  if (cursor_.binary()) {
    std::memcpy(out, cursor_.take(cursor_.checked_bytes(static_cast<std::uint64_t>(count), 8)),
                static_cast<std::size_t>(count) * 8);
    return;
  }
  cursor_.text().next_numbers(out, static_cast<std::size_t>(count));
}

// ---- assembling the mesh -------------------------------------------------------------
Mesh MshReader::assemble() {
  if (partitioned_) keep_only_used_nodes();
  Mesh mesh;
  mesh.points = points_.empty_handle() ? NDArray::allocate(DType::float64, {0, 3}) : points_;
  for (const BlockBuild& block : blocks_) {
    CellBlock& cells = mesh.cells.emplace_back();
    cells.type = block.type->name;
    cells.connectivity = block.connectivity;
  }
  name_data_targets();
  for (const DataTarget& target : targets_) {
    if (target.skipped) continue;  // a view the selective read was not asked for
    // The plain name first (where meshio's dict has it), sharing the last step's arrays.
    if (target.alias_of_last != nullptr) {
      if (target.kind == DataKind::node) mesh.point_data.set(target.alias_name, target.alias_of_last->point_values);
      else mesh.cell_data.set(target.alias_name, target.alias_of_last->cell_values);
    }
    if (target.kind == DataKind::node) mesh.point_data.set(target.output_name, target.point_values);
    else mesh.cell_data.set(target.output_name, target.cell_values);
  }
  if (!dim_tags_.empty_handle()) mesh.point_data.set("gmsh:dim_tags", dim_tags_);
  if (!blocks_.empty()) {
    if (version_ != Version::v2) derive_physical_from_entities();
    if (has_physical_information()) mesh.cell_data.set("gmsh:physical", collect(&BlockBuild::physical));
    mesh.cell_data.set("gmsh:geometrical", collect(&BlockBuild::geometrical));
  }
  for (const PhysicalName& name : physical_names_)
    mesh.field_data.set(name.name, NDArray::from_values<std::int64_t>({name.tag, name.dim}));
  mesh.regions = build_regions();
  if (partitioned_) {
    mesh.point_data.set("global_ids", node_tags_of_points_);
    mesh.cell_data.set("global_ids", collect(&BlockBuild::element_tags));
    if (ghost_cells_) {
      mesh.point_data.set("vtkGhostType", point_ghost_types());
      mesh.cell_data.set("vtkGhostType", collect(&BlockBuild::ghost_type));
    }
  } else {
    store_periodic(mesh);  // a partitioned read leaves the links out: their nodes span partitions
  }
  return mesh;
}

// field_data "gmsh:periodic" (int64): per link dim, tag, master tag, number of affine
// values, number of node pairs, then the pairs as point indices; "gmsh:periodic_affine"
// (float64): the links' affine values one after another. (The Python Mesh shows them as
// meshio's gmsh_periodic.)
void MshReader::store_periodic(Mesh& mesh) const {
  if (periodic_.empty()) return;
  std::int64_t words = 0, reals = 0;
  for (const PeriodicLink& link : periodic_) {
    words += 5 + static_cast<std::int64_t>(link.nodes.size());
    reals += static_cast<std::int64_t>(link.affine.size());
  }
  NDArray links = NDArray::allocate(DType::int64, {words});
  NDArray affine = NDArray::allocate(DType::float64, {reals});
  std::int64_t* word = links.data_as<std::int64_t>();
  double* real = affine.data_as<double>();
  for (const PeriodicLink& link : periodic_) {
    *word++ = link.dim;
    *word++ = link.tag;
    *word++ = link.master;
    *word++ = static_cast<std::int64_t>(link.affine.size());
    *word++ = static_cast<std::int64_t>(link.nodes.size() / 2);
    word = std::copy(link.nodes.begin(), link.nodes.end(), word);
    real = std::copy(link.affine.begin(), link.affine.end(), real);
  }
  mesh.field_data.set("gmsh:periodic", links);
  mesh.field_data.set("gmsh:periodic_affine", affine);
}

std::vector<NDArray> MshReader::collect(NDArray BlockBuild::*member) const {
  std::vector<NDArray> arrays;
  for (const BlockBuild& block : blocks_) arrays.push_back(block.*member);
  return arrays;
}

bool MshReader::has_physical_information() const {
  return version_ == Version::v2 ? any_physical_ : !entity_physicals_.empty();
}

// The physical tags of the entity (dim, tag); null when it has none.
const std::vector<std::int32_t>* MshReader::entity_physicals(int dim, int tag) const {
  const auto found = entity_physicals_.find(entity_key(dim, tag));
  return found == entity_physicals_.end() ? nullptr : &found->second;
}

// meshio's "gmsh:physical" for 4.x: the entity's first physical tag, 0 for none (meshio
// leaves such blocks out of the list, which then no longer matches the blocks).
void MshReader::derive_physical_from_entities() {
  if (entity_physicals_.empty()) return;
  for (BlockBuild& block : blocks_) block.physical = NDArray::allocate(DType::int64, {block.count});
  for (const ElementRun& run : runs_) {
    const std::vector<std::int32_t>* tags = entity_physicals(run.entity_dim, run.entity_tag);
    std::fill_n(blocks_[run.block].physical.data_as<std::int64_t>() + run.first_row, run.count,
                std::int64_t{tags ? tags->front() : 0});
  }
}

// Calls fn(dim, physical tag, block, first row, end row) for each run of consecutive cells
// of a block that belong to one physical group (cells with equal tags share their groups).
// 4.x: a run lies on one entity, whose groups hold all its cells; the group's dimension is
// the entity's. 2.x: each element carries its (first) physical tag. In block-major order.
template <class Fn> void MshReader::for_each_membership_run(Fn&& fn) const {
  if (version_ != Version::v2) {
    for (const ElementRun& run : runs_)
      if (const std::vector<std::int32_t>* groups = entity_physicals(run.entity_dim, run.entity_tag))
        for (const std::int32_t tag : *groups)
          fn(run.entity_dim, tag, run.block, run.first_row, run.first_row + static_cast<std::int64_t>(run.count));
    return;
  }
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const BlockBuild& block = blocks_[b];
    const int dim = block.type->dimension;
    const std::int32_t* tags = block.physical.data_as<std::int32_t>();
    for (std::int64_t first = 0; first < block.count;) {
      std::int64_t end = first + 1;
      while (end < block.count && tags[end] == tags[first]) ++end;
      if (tags[first] != 0) fn(dim, tags[first], b, first, end);
      first = end;
    }
  }
}

std::vector<Region> MshReader::build_regions() const {
  using GroupKey = std::pair<int, int>;  // (dim, physical tag), ordered as the regions are
  std::map<GroupKey, std::int64_t> counts;
  for (const PhysicalName& name : physical_names_) counts.try_emplace({name.dim, name.tag}, 0);
  for (const auto& [key, tags] : entity_physicals_)
    for (const std::int32_t tag : tags) counts.try_emplace({static_cast<int>(key >> 32), tag}, 0);
  for_each_membership_run([&](int dim, int tag, std::size_t, std::int64_t first, std::int64_t end) {
    counts[{dim, tag}] += end - first;
  });

  std::vector<Region> regions;
  std::map<GroupKey, std::pair<std::size_t, std::int64_t>> cursor;  // region, next entry
  for (const auto& [key, count] : counts) {
    Region region;
    region.name = group_name(key.first, key.second);
    region.kind = key.first == 0 ? RegionKind::Point : RegionKind::Cell;
    region.dim = key.first;
    region.tag = key.second;
    region.entries = NDArray::allocate(DType::int64, {count});
    cursor[key] = {regions.size(), 0};
    regions.push_back(std::move(region));
  }
  for_each_membership_run([&](int dim, int tag, std::size_t block, std::int64_t first, std::int64_t end) {
    auto& [index, next] = cursor[{dim, tag}];
    std::int64_t* out = regions[index].entries.data_as<std::int64_t>() + next;
    const BlockBuild& cells = blocks_[block];
    for (std::int64_t row = first; row < end; ++row)
      *out++ = dim == 0 ? cells.connectivity.data_as<std::int64_t>()[row * cells.type->num_nodes] : bases_[block] + row;
    next += end - first;
  });
  for (Region& region : regions)
    if (region.kind == RegionKind::Point) sort_unique_points(region);
  return regions;
}

std::string MshReader::group_name(int dim, int tag) const {
  for (const PhysicalName& name : physical_names_)
    if (name.dim == dim && name.tag == tag) return name.name;
  return std::to_string(tag);
}

// Several vertex elements may sit on one node; a Point region lists each node once.
void MshReader::sort_unique_points(Region& region) {
  std::int64_t* begin = region.entries.data_as<std::int64_t>();
  std::int64_t* end = begin + region.entries.size();
  std::sort(begin, end);
  const std::int64_t unique = std::unique(begin, end) - begin;
  if (unique == region.entries.rows()) return;
  NDArray exact = NDArray::allocate(DType::int64, {unique});
  std::copy_n(begin, unique, exact.data_as<std::int64_t>());
  region.entries = exact;
}

}  // namespace meshioplusplus::gmsh::detail::reader
