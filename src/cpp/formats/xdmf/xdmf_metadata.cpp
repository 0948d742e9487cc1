// XDMF read_metadata (read_selection.hpp): what xdmf::read gives, from the light data (the
// Dimensions, DataType and Precision of each DataItem; for HDF heavy data the dataset's header)
// without reading points, connectivity or attributes — for the layouts whose counts the light
// data states: one Uniform grid, meshio's and DOLFINx's mesh grid beside temporal collections,
// or one temporal collection, each with an XYZ/XY Geometry, one Topology of a fixed cell type,
// and plain Node/Cell/Grid Attributes. Anything else (Mixed or Polyhedron topologies, whose
// blocks need the data; structured grids; several grids to merge or DOLFINx meshtags;
// FiniteElementFunction attributes; <Information> maps; HyperSlab and Function DataItems) is
// read in full and summarised (header_only false).
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "formats/xdmf/xdmf.hpp"
#include "formats/xdmf/xdmf_document.hpp"
#include "formats/xdmf/xdmf_dolfin.hpp"
#include "io/cells/xdmf_cell_types.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::xdmf {

namespace {

std::string attribute_or(const Node& node, std::string_view first, std::string_view second, std::string fallback) {
  if (const std::string* value = node.attribute(first)) return *value;
  if (const std::string* value = node.attribute(second)) return *value;
  return fallback;
}

// One array the read keeps, in its NamedList's order: set() replaces a name in place.
void set_array(std::vector<ArraySummary>& arrays, ArraySummary array) {
  for (ArraySummary& existing : arrays)
    if (existing.name == array.name) {
      existing = std::move(array);
      return;
    }
  arrays.push_back(std::move(array));
}

class HeaderReader {
 public:
  explicit HeaderReader(Context& context) : context_(context) {}

  // The summary, or nullopt where the light data alone cannot say what the read gives.
  std::optional<MeshMetadata> summary() {
    const Node root = context_.root();
    if (root.name() != "Xdmf") return std::nullopt;
    const std::vector<Node> domains = context_.children_named(root, "Domain");
    if (domains.empty()) return std::nullopt;
    std::vector<Node> uniform, temporal;
    const std::vector<Node> grids = context_.children_named(domains.front(), "Grid");
    for (const Node& grid : grids) {
      const std::string type = attribute_or(grid, "GridType", "Type", "Uniform");
      if (type == "Uniform") uniform.push_back(grid);
      else if (type == "Collection" && attribute_or(grid, "CollectionType", "CollectionType", "Spatial") == "Temporal")
        temporal.push_back(grid);
      else return std::nullopt;
    }
    std::vector<Node> temporal_first_steps;
    for (const Node& collection : temporal) {
      const std::vector<Node> steps = context_.children_named(collection, "Grid");
      if (!steps.empty()) temporal_first_steps.push_back(steps.front());
    }
    MeshMetadata summary;
    summary.header_only = true;
    summary.variant = "XDMF " + attribute_or(root, "Version", "Version", "2");
    if (uniform.size() == 1) {
      if (!mesh_grid(uniform.front(), summary)) return std::nullopt;
      // Each collection's first step adds the arrays that fit the mesh grid.
      for (const Node& step : temporal_first_steps)
        if (!attributes(step, summary, true)) return std::nullopt;
    } else if (uniform.empty() && !temporal.empty()) {
      // read(): the first collection's first step, mesh and data.
      if (temporal_first_steps.empty() || !mesh_grid(temporal_first_steps.front(), summary)) return std::nullopt;
    } else {
      return std::nullopt;
    }
    summary.arrays = std::move(point_arrays_);
    summary.arrays.insert(summary.arrays.end(), cell_arrays_.begin(), cell_arrays_.end());
    summary.arrays.insert(summary.arrays.end(), field_arrays_.begin(), field_arrays_.end());
    return summary;
  }

 private:
  // The points, the cells and the arrays of a Uniform grid.
  bool mesh_grid(const Node& grid, MeshMetadata& summary) {
    std::size_t geometries = 0, topologies = 0;
    for (const Node& child : context_.children(grid)) {
      if (child.name() == "Geometry") {
        if (++geometries > 1 || !geometry(context_.resolve(child), summary)) return false;
      } else if (child.name() == "Topology") {
        if (++topologies > 1 || !topology(context_.resolve(child), summary)) return false;
      }
    }
    return geometries == 1 && topologies == 1 && attributes(grid, summary, false);
  }

  bool geometry(const Node& node, MeshMetadata& summary) {
    const std::string type = attribute_or(node, "Type", "GeometryType", "XYZ");
    const std::vector<Node> items = context_.children_named(node, "DataItem");
    if ((type != "XYZ" && type != "XY") || items.size() != 1) return false;
    const auto info = context_.data_item_info(items.front());
    const std::int64_t width = type == "XYZ" ? 3 : 2;
    if (!info || info->second.size() != 2 || info->second[1] != width) return false;
    summary.num_points = info->second[0];
    summary.point_dim = static_cast<int>(width);
    return true;
  }

  bool topology(const Node& node, MeshMetadata& summary) {
    const std::string type = attribute_or(node, "Type", "TopologyType", "");
    const io::TopologyName* name = io::topology_from_xdmf(type);
    const std::vector<Node> items = context_.children_named(node, "DataItem");
    if (name == nullptr || items.size() != 1) return false;
    const CellTypeInfo* info = find_cell_type(name->ours);
    const auto item = context_.data_item_info(items.front());
    if (info == nullptr || info->num_nodes <= 0 || !item) return false;
    // Another node count (a Polyline of line3 …) is the full read's to interpret.
    if (const std::string* per = node.attribute("NodesPerElement"); per != nullptr && *per != std::to_string(info->num_nodes))
      return false;
    std::int64_t values = 1;
    for (std::int64_t extent : item->second) {
      if (extent < 0 || (extent > 0 && values > std::numeric_limits<std::int64_t>::max() / extent)) return false;
      values *= extent;
    }
    if (values % info->num_nodes != 0) return false;
    summary.cell_blocks.push_back({std::string(name->ours), values / info->num_nodes});
    return true;
  }

  // `fitting`: a temporal step's arrays, kept only where their rows fit the mesh grid.
  bool attributes(const Node& grid, const MeshMetadata& summary, bool fitting) {
    for (const Node& child : context_.children(grid)) {
      if (child.name() == "Information") return false;  // field data maps: the full read says
      if (child.name() != "Attribute") continue;
      if (is_finite_element_function(child)) return false;
      const std::string* name = child.attribute("Name");
      const std::vector<Node> items = context_.children_named(child, "DataItem");
      if (name == nullptr || items.size() != 1) return false;
      const auto info = context_.data_item_info(items.front());
      if (!info || info->second.empty()) return false;
      std::vector<std::int64_t> shape(info->second.begin(), info->second.end());
      const std::string center = attribute_or(child, "Center", "Center", "Node");
      if (center == "Node") {
        if (!fitting || shape[0] == summary.num_points) set_array(point_arrays_, {*name, DataAssociation::point, info->first, shape});
      } else if (center == "Cell") {
        if (!fitting || shape[0] == summary.num_cells()) set_array(cell_arrays_, {*name, DataAssociation::cell, info->first, shape});
      } else if (center == "Grid") {
        set_array(field_arrays_, {*name, DataAssociation::field, info->first, shape});
      } else {
        return false;
      }
    }
    return true;
  }

  Context& context_;
  std::vector<ArraySummary> point_arrays_, cell_arrays_, field_arrays_;
};

}  // namespace

MeshMetadata read_metadata(const std::string& path) {
  std::optional<MeshMetadata> header;
  {
    Context context(path);
    header = HeaderReader(context).summary();
  }
  MeshMetadata summary = header ? std::move(*header) : summarize(read(path), kFormat);
  // The steps: the time series' (light data only); a file without a temporal collection has none.
  try {
    const std::unique_ptr<TimeSeriesReader> series = open_time_series(path);
    for (std::size_t step = 0; step < series->num_steps(); ++step) summary.times.push_back(series->time(step));
  } catch (const ReadError&) {
  }
  return summary;
}

}  // namespace meshioplusplus::xdmf
