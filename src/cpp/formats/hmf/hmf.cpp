// HMF reader and writer. What becomes what (see hmf.hpp for the layout):
//   /domain/grid/Geometry                → points
//   /domain/grid/Topology<k>             → cell block k (TopologyType: XDMF name), in k order
//   /domain/grid/NodeAttributes/<name>   → point_data
//   /domain/grid/CellAttributes/<name>   → cell_data, split over the blocks
// Without HDF5 in the build, reading or writing raises ReadError/WriteError saying so.
#include "formats/hmf/hmf.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "io/hdf5/hdf5_file.hpp"
#include "io/hdf5/hdf5_options.hpp"
#include "io/source/parallel.hpp"
#include "io/cells/xdmf_cell_types.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::hmf {

namespace {

constexpr std::string_view kFormat = "hmf";
constexpr std::string_view kGrid = "/domain/grid";

// "Topology12" → 12; names sort by their number, not as text (Topology10 after Topology9).
std::optional<long> topology_number(std::string_view name) {
  if (!name.starts_with("Topology")) return std::nullopt;
  const std::string_view digits = name.substr(8);
  if (digits.empty()) return 0;
  long value = -1;
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (result.ec != std::errc{} || result.ptr != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace

Mesh read(const std::string& path) {
  io::hdf5::File file = io::hdf5::File::open(path, kFormat);
  const std::optional<std::string> type = file.string_attribute("/", "type");
  if (type != "hmf") file.fail("/", "not an HMF file (root attribute type is not \"hmf\")");
  if (file.kind(kGrid) != io::hdf5::ObjectKind::group) file.fail(kGrid, "no such group (only one domain with one grid is supported)");

  Mesh mesh;
  std::vector<std::pair<long, std::string>> topologies;
  for (const std::string& name : file.children(kGrid))
    if (auto number = topology_number(name)) topologies.emplace_back(*number, name);
  std::sort(topologies.begin(), topologies.end());

  const std::string geometry = std::string(kGrid) + "/Geometry";
  if (!file.exists(geometry)) file.fail(geometry, "no such dataset");
  mesh.points = file.read(geometry);
  if (mesh.points.ndim() == 1) mesh.points = mesh.points.reshaped({mesh.points.rows(), 1});
  if (mesh.points.ndim() != 2) file.fail(geometry, "points must be a 2-D dataset");

  for (const auto& [number, name] : topologies) {
    const std::string object = std::string(kGrid) + "/" + name;
    const std::optional<std::string> xdmf_type = file.string_attribute(object, "TopologyType");
    if (!xdmf_type) file.fail(object, "no TopologyType attribute");
    const io::TopologyName* topology = io::topology_from_xdmf(*xdmf_type);
    if (topology == nullptr) file.fail(object, "unknown TopologyType '" + *xdmf_type + "'");
    CellBlock block;
    block.type = std::string(topology->ours);
    block.connectivity = file.read(object, DType::int64);
    const std::int64_t nodes = cell_type(block.type).num_nodes;
    if (block.connectivity.ndim() != 2 || block.connectivity.dim(1) != nodes)
      file.expect_shape(object, block.connectivity.shape(), {-1, nodes});
    const std::span<const std::int64_t> indices = block.connectivity.values<std::int64_t>();
    if (const std::size_t bad = io::first_index_outside(indices, mesh.points.rows()); bad != indices.size())
      file.fail(object, "node index " + std::to_string(indices[bad]) + " outside the " + std::to_string(mesh.points.rows()) + " points");
    mesh.cells.push_back(std::move(block));
  }

  const std::string node_attributes = std::string(kGrid) + "/NodeAttributes";
  if (file.kind(node_attributes) == io::hdf5::ObjectKind::group)
    for (const std::string& name : file.children(node_attributes)) {
      const std::string object = node_attributes + "/" + name;
      NDArray data = file.read(object);
      if (data.rows() != mesh.points.rows())
        file.fail(object, std::to_string(data.rows()) + " rows for " + std::to_string(mesh.points.rows()) + " points");
      mesh.point_data.set(name, std::move(data));
    }

  const std::string cell_attributes = std::string(kGrid) + "/CellAttributes";
  if (file.kind(cell_attributes) == io::hdf5::ObjectKind::group) {
    std::int64_t total = 0;
    for (const CellBlock& block : mesh.cells) total += block.num_cells();
    for (const std::string& name : file.children(cell_attributes)) {
      const std::string object = cell_attributes + "/" + name;
      const NDArray raw = file.read(object);
      if (raw.rows() != total)
        file.fail(object, std::to_string(raw.rows()) + " rows for " + std::to_string(total) + " cells");
      std::vector<NDArray> per_block;
      if (mesh.cells.size() == 1) {  // the array is the block's data as it is
        per_block.push_back(raw);
        mesh.cell_data.set(name, std::move(per_block));
        continue;
      }
      const std::size_t row_bytes = static_cast<std::size_t>(raw.row_width()) * dtype_size(raw.dtype());
      std::int64_t row = 0;
      for (const CellBlock& block : mesh.cells) {
        Shape shape = raw.shape();
        shape[0] = block.num_cells();
        NDArray part = NDArray::allocate(raw.dtype(), shape);
        if (part.nbytes()) std::memcpy(part.data(), static_cast<const char*>(raw.data()) + row * row_bytes, part.nbytes());
        row += block.num_cells();
        per_block.push_back(std::move(part));
      }
      mesh.cell_data.set(name, std::move(per_block));
    }
  }
  return mesh;
}

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const io::hdf5::DatasetWriteOptions dataset_options{.gzip_level = io::hdf5::gzip_level_option(options, path, kFormat)};
  io::hdf5::File file = io::hdf5::File::create(path, kFormat);
  file.set_attribute("/", "type", std::string_view("hmf"));
  file.set_attribute("/", "version", std::string_view("0.1-alpha"));
  file.create_group(kGrid);
  const std::string grid(kGrid);
  file.write(grid + "/Geometry", mesh.points, dataset_options);
  file.set_attribute(grid + "/Geometry", "GeometryType",
                     std::string_view("XYZ").substr(0, static_cast<std::size_t>(std::clamp<std::int64_t>(mesh.points.row_width(), 1, 3))));
  for (std::size_t k = 0; k < mesh.cells.size(); ++k) {
    const CellBlock& block = mesh.cells[k];
    const io::TopologyName* topology = io::topology_from_ours(block.type);
    if (topology == nullptr || block.is_ragged())
      throw WriteError(path, std::string(kFormat), "HMF has no topology for '" + block.type + "' cells");
    const std::string object = grid + "/Topology" + std::to_string(k);
    file.write(object, block.connectivity, dataset_options);
    file.set_attribute(object, "TopologyType", topology->xdmf);
  }
  file.create_group(grid + "/NodeAttributes");
  for (const auto& [name, array] : mesh.point_data) file.write(grid + "/NodeAttributes/" + name, array, dataset_options);
  file.create_group(grid + "/CellAttributes");
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (arrays.empty()) continue;
    Shape shape = arrays[0].shape();
    std::int64_t rows = 0;
    for (const NDArray& array : arrays) {
      if (array.dtype() != arrays[0].dtype() || array.row_width() != arrays[0].row_width())
        throw WriteError(path, std::string(kFormat), "cell data '" + name + "' differs in dtype or width between blocks");
      rows += array.rows();
    }
    shape[0] = rows;
    NDArray raw = NDArray::allocate_scratch(arrays[0].dtype(), shape);
    std::size_t at = 0;
    for (const NDArray& array : arrays) {
      if (array.nbytes()) std::memcpy(static_cast<char*>(raw.data()) + at, array.data(), array.nbytes());
      at += array.nbytes();
    }
    file.write(grid + "/CellAttributes/" + name, raw, dataset_options);
  }
  file.commit();
}

}  // namespace meshioplusplus::hmf
