// H5M reader and writer (MOAB's native format, the subset meshio reads and writes).
// What becomes what:
//   /tstt/nodes/coordinates (attribute start_id: the id of the first node)  → points
//   /tstt/nodes/tags/<name> (dense tags; k components as array elements)   → point_data
//   /tstt/elements/<Type><n>/connectivity (node ids)                        → one cell block
//     (Edge2 line, Tri3 triangle, Quad4 quad, Tet4 tetra, Pyramid5 pyramid, Prism6 wedge, Hex8 hexahedron)
//   /tstt/elements/<Type><n>/tags/<name> present on every element group     → cell_data
// Sets (MOAB's partitions and material sets) have no counterpart and are not read.
#include "formats/h5m/h5m.hpp"

#include <array>
#include <cstring>
#include <limits>

#include "core/parallel_ranges.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "io/hdf5/hdf5_options.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::h5m {

namespace {

constexpr std::string_view kFormat = "h5m";

struct ElementName {
  std::string_view moab;  // group name
  std::string_view ours;
  std::string_view family;  // member of MOAB's element-type enum
  int family_id;
};

constexpr std::array kElementNames{
    ElementName{"Edge2", "line", "Edge", 1},        ElementName{"Tri3", "triangle", "Tri", 2},
    ElementName{"Quad4", "quad", "Quad", 3},        ElementName{"Tet4", "tetra", "Tet", 5},
    ElementName{"Pyramid5", "pyramid", "Pyramid", 6}, ElementName{"Prism6", "wedge", "Prism", 7},
    ElementName{"Hex8", "hexahedron", "Hex", 9},
};

// MOAB's mhdf element-type enum, stored once as /tstt/elemtypes.
const std::vector<std::pair<std::string, int>> kElementTypeEnum{
    {"Edge", 1}, {"Tri", 2},   {"Quad", 3}, {"Polygon", 4}, {"Tet", 5},
    {"Pyramid", 6}, {"Prism", 7}, {"Knife", 8}, {"Hex", 9},   {"Polyhedron", 10},
};

const ElementName* element_from_moab(std::string_view name) {
  for (const ElementName& entry : kElementNames)
    if (entry.moab == name) return &entry;
  return nullptr;
}

const ElementName* element_from_ours(std::string_view name) {
  for (const ElementName& entry : kElementNames)
    if (entry.ours == name) return &entry;
  return nullptr;
}

// MOAB numbers entities from 1: the node indices plus one, as int64, in one pass on all cores
// (a write's scratch: it never leaves the writer).
NDArray one_based(const NDArray& connectivity) {
  NDArray out = NDArray::allocate_scratch(DType::int64, connectivity.shape());
  std::int64_t* const target = out.data_as<std::int64_t>();
  visit_dtype(connectivity.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* const source = connectivity.data_as<T>();
    parallel_ranges(connectivity.size(), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) target[i] = static_cast<std::int64_t>(source[i]) + 1;
    });
  });
  return out;
}

}  // namespace

Mesh read(const std::string& path) {
  io::hdf5::File file = io::hdf5::File::open(path, kFormat);
  const std::string coordinates = "/tstt/nodes/coordinates";
  if (file.kind(coordinates) != io::hdf5::ObjectKind::dataset) file.fail(coordinates, "no such dataset (not an H5M file?)");
  Mesh mesh;
  mesh.points = file.read(coordinates);
  if (mesh.points.ndim() != 2) file.fail(coordinates, "coordinates must be a 2-D dataset");
  const std::int64_t first_node_id = file.integer_attribute(coordinates, "start_id").value_or(1);
  // MOAB's entity handles are positive; the last node's id (start_id + rows - 1) must be an int64 too.
  if (first_node_id < 0 || first_node_id - 1 > std::numeric_limits<std::int64_t>::max() - mesh.points.rows())
    file.fail(coordinates, "start_id " + std::to_string(first_node_id) + " is not a valid first node id for " +
                               std::to_string(mesh.points.rows()) + " nodes");

  if (file.kind("/tstt/nodes/tags") == io::hdf5::ObjectKind::group)
    for (const std::string& name : file.children("/tstt/nodes/tags")) {
      const std::string object = "/tstt/nodes/tags/" + name;
      if (file.kind(object) != io::hdf5::ObjectKind::dataset) continue;  // sparse tags are groups
      NDArray data = file.read(object);
      if (data.rows() != mesh.points.rows())
        file.fail(object, std::to_string(data.rows()) + " rows for " + std::to_string(mesh.points.rows()) + " nodes");
      mesh.point_data.set(name, std::move(data));
    }

  std::vector<std::string> element_groups;
  if (file.kind("/tstt/elements") == io::hdf5::ObjectKind::group)
    for (const std::string& name : file.children("/tstt/elements"))
      if (file.kind("/tstt/elements/" + name) == io::hdf5::ObjectKind::group) element_groups.push_back(name);

  std::vector<std::vector<std::pair<std::string, NDArray>>> block_tags;
  for (const std::string& name : element_groups) {
    const std::string group = "/tstt/elements/" + name;
    const ElementName* element = element_from_moab(name);
    if (element == nullptr) file.fail(group, "element type '" + name + "' is not supported");
    const std::string object = group + "/connectivity";
    CellBlock block;
    block.type = std::string(element->ours);
    block.connectivity = file.read(object, DType::int64);
    const std::int64_t nodes = static_cast<std::int64_t>(element->moab.back() - '0');
    file.expect_shape(object, block.connectivity.shape(), {-1, nodes});
    for (std::int64_t& id : block.connectivity.values<std::int64_t>()) {
      const std::int64_t position = io::id_offset(id, first_node_id);
      if (!io::id_within(position, mesh.points.rows()))
        file.fail(object, "node id " + std::to_string(id) + " outside the nodes' ids " + std::to_string(first_node_id) + ".." +
                              std::to_string(first_node_id + mesh.points.rows() - 1));
      id = position;
    }
    std::vector<std::pair<std::string, NDArray>> tags;
    if (file.kind(group + "/tags") == io::hdf5::ObjectKind::group)
      for (const std::string& tag : file.children(group + "/tags")) {
        const std::string tag_object = group + "/tags/" + tag;
        if (file.kind(tag_object) != io::hdf5::ObjectKind::dataset) continue;
        NDArray data = file.read(tag_object);
        if (data.rows() != block.connectivity.rows())
          file.fail(tag_object, std::to_string(data.rows()) + " rows for " + std::to_string(block.connectivity.rows()) + " elements");
        tags.emplace_back(tag, std::move(data));
      }
    block_tags.push_back(std::move(tags));
    mesh.cells.push_back(std::move(block));
  }
  // Element tags become cell data when every block has them.
  if (!block_tags.empty())
    for (const auto& [name, first] : block_tags.front()) {
      std::vector<NDArray> per_block;
      for (const auto& tags : block_tags)
        for (const auto& [tag, data] : tags)
          if (tag == name) per_block.push_back(data);
      if (per_block.size() == block_tags.size()) mesh.cell_data.set(name, std::move(per_block));
    }
  return mesh;
}

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const io::hdf5::DatasetWriteOptions compressed{.gzip_level = io::hdf5::gzip_level_option(options, path, kFormat)};
  const bool add_global_ids = options.get_bool("add_global_ids", true);
  for (const CellBlock& block : mesh.cells)
    if (element_from_ours(block.type) == nullptr || block.is_ragged())
      throw WriteError(path, std::string(kFormat), "H5M writing supports line, triangle, quad, tetra, pyramid, wedge and "
                                                   "hexahedron cells, not '" + block.type + "'");
  io::hdf5::File file = io::hdf5::File::create(path, kFormat);
  std::int64_t global_id = 1;  // MOAB ids are 1-based and shared by nodes and elements
  file.write("/tstt/nodes/coordinates", mesh.points, compressed);
  file.set_attribute("/tstt/nodes/coordinates", "start_id", global_id);
  global_id += mesh.points.rows();
  file.create_group("/tstt/tags");

  NamedList<NDArray> point_data = mesh.point_data;
  NDArray ids;
  if (add_global_ids && !point_data.contains("GLOBAL_ID")) {
    ids = NDArray::allocate_scratch(DType::int64, {mesh.points.rows()});
    std::int64_t next = 1;
    for (std::int64_t& id : ids.values<std::int64_t>()) id = next++;
    point_data.set("GLOBAL_ID", ids);
  }
  for (const auto& [name, data] : point_data) {
    io::hdf5::DatasetWriteOptions tag_options = compressed;
    tag_options.as_array_type = true;  // MOAB wants n rows of k-tuples, not an n×k dataset
    file.write("/tstt/nodes/tags/" + name, data, tag_options);
    if (data.ndim() > 2) throw WriteError(path, std::string(kFormat), "point data '" + name + "' has more than 2 dimensions");
    file.commit_datatype("/tstt/tags/" + name + "/type", data.dtype(), data.ndim() == 2 ? static_cast<int>(data.dim(1)) : 1);
    file.set_attribute("/tstt/tags/" + name, "class", std::int64_t{2});  // mhdf_DENSE_TYPE
  }

  file.create_group("/tstt/elements");
  file.commit_enum_datatype("/tstt/elemtypes", kElementTypeEnum);
  file.write_strings("/tstt/history", {"meshioplusplus.h5m", "0.1.0", "meshio++"}, compressed.gzip_level);
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const ElementName* element = element_from_ours(block.type);
    const std::string group = "/tstt/elements/" + std::string(element->moab);
    if (file.exists(group))
      throw WriteError(path, std::string(kFormat), "two '" + block.type + "' blocks: H5M holds one group per element type");
    file.create_group(group);
    file.set_enum_attribute(group, "element_type", "/tstt/elemtypes", element->family_id);
    file.write(group + "/connectivity", one_based(block.connectivity), compressed);
    file.set_attribute(group + "/connectivity", "start_id", global_id);
    global_id += block.num_cells();
    for (const auto& [name, arrays] : mesh.cell_data) {
      if (b >= arrays.size()) continue;
      io::hdf5::DatasetWriteOptions tag_options = compressed;
      tag_options.as_array_type = true;
      file.write(group + "/tags/" + name, arrays[b], tag_options);
    }
  }
  file.create_group("/tstt/sets/tags");  // MOAB expects the (empty) set tables' group
  file.set_attribute("/tstt", "max_id", static_cast<std::uint64_t>(global_id));
  file.commit();
}

}  // namespace meshioplusplus::h5m
