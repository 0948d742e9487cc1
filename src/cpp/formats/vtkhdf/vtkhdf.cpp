// VTKHDF reader and writer. What becomes what:
//   /VTKHDF (attributes Type = UnstructuredGrid | PolyData, Version = [1|2, x])
//   Points (all partitions stacked)                        → points (partitions merged; the
//                                                            connectivity of partition p is
//                                                            shifted by the points before it)
//   UnstructuredGrid Types/Offsets/Connectivity            → cell blocks (runs of one VTK type,
//                                                            as for .vtu; wedge order converted)
//   PolyData Vertices/Lines/Polygons groups                → vertex / line / triangle, quad,
//                                                            polygon blocks, in that order
//   PointData/<name>, CellData/<name>                      → point_data, cell_data (split over
//                                                            the blocks)
//   FieldData/<name>                                       → field_data (strings: string field data)
//   Steps (temporal files)                                 → the first step: the first
//                                                            NumberOfParts[0] partitions at the
//                                                            step-0 offsets
// Not read: polyhedra (FaceConnectivity …), PolyData Strips, other VTKHDF types
// (ImageData, OverlappingAMR, PartitionedDataSetCollection): ReadError naming the type.
// The writer writes an UnstructuredGrid, version 2.0, one partition.
#include "formats/vtkhdf/vtkhdf.hpp"

#include <array>
#include <cstring>

#include "io/hdf5_file.hpp"
#include "io/hdf5_options.hpp"
#include "io/vtk_cells.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtkhdf {

namespace {

constexpr std::string_view kFormat = "vtkhdf";
constexpr std::string_view kRoot = "/VTKHDF";

std::string at(std::string_view name) { return std::string(kRoot) + "/" + std::string(name); }

std::int64_t sum_first(const NDArray& counts, std::int64_t parts) {
  std::int64_t total = 0;
  const std::int64_t* values = counts.data_as<std::int64_t>();
  for (std::int64_t p = 0; p < parts; ++p) total += values[p];
  return total;
}

// The VTK cell stream of one topology (UnstructuredGrid, or one PolyData group) over `parts`
// partitions: offsets made global, connectivity shifted by each partition's first point.
struct Topology {
  NDArray types;         // uint8 (cells,)
  NDArray offsets;       // int64 (cells + 1,) global
  NDArray connectivity;  // int64 (ids,)
};

Topology read_topology(const io::hdf5::File& file, const std::string& group, std::int64_t parts,
                       const NDArray& points_per_part) {
  const NDArray cells = file.read(group + "/NumberOfCells", DType::int64);
  const NDArray ids = file.read(group + "/NumberOfConnectivityIds", DType::int64);
  if (cells.size() < static_cast<std::size_t>(parts) || ids.size() < static_cast<std::size_t>(parts))
    file.fail(group, "fewer partition counts than the " + std::to_string(parts) + " partitions");
  const std::int64_t total_cells = sum_first(cells, parts), total_ids = sum_first(ids, parts);
  const NDArray local_offsets = file.read_rows(group + "/Offsets", 0, total_cells + parts, DType::int64);
  Topology topology;
  topology.connectivity = file.read_rows(group + "/Connectivity", 0, total_ids, DType::int64);
  topology.offsets = NDArray::allocate_scratch(DType::int64, {total_cells + 1});
  std::int64_t* offsets = topology.offsets.data_as<std::int64_t>();
  std::int64_t* connectivity = topology.connectivity.data_as<std::int64_t>();
  const std::int64_t* local = local_offsets.data_as<std::int64_t>();
  std::int64_t cell = 0, id_base = 0, point_base = 0, row = 0;
  for (std::int64_t p = 0; p < parts; ++p) {
    const std::int64_t n = cells.data_as<std::int64_t>()[p], k = ids.data_as<std::int64_t>()[p];
    const std::int64_t points = points_per_part.data_as<std::int64_t>()[p];
    if (local[row] != 0 || local[row + n] != k)
      file.fail(group + "/Offsets", "partition " + std::to_string(p) + " offsets do not run from 0 to its " +
                                        std::to_string(k) + " connectivity ids");
    for (std::int64_t c = 0; c < n; ++c) {
      if (local[row + c + 1] < local[row + c])
        file.fail(group + "/Offsets", "offsets decrease at cell " + std::to_string(cell + c));
      offsets[cell + c] = id_base + local[row + c];
    }
    for (std::int64_t i = id_base; i < id_base + k; ++i) {
      if (connectivity[i] < 0 || connectivity[i] >= points)
        file.fail(group + "/Connectivity", "point id " + std::to_string(connectivity[i]) + " outside partition " +
                                               std::to_string(p) + "'s " + std::to_string(points) + " points");
      connectivity[i] += point_base;
    }
    cell += n;
    id_base += k;
    point_base += points;
    row += n + 1;
  }
  offsets[total_cells] = total_ids;
  if (file.exists(group + "/Types")) topology.types = file.read_rows(group + "/Types", 0, total_cells, DType::uint8);
  return topology;
}

// PolyData groups carry no types: they follow from the group and the cell size.
NDArray polydata_types(const Topology& topology, std::string_view group) {
  const std::int64_t cells = topology.offsets.rows() - 1;
  NDArray types = NDArray::allocate_scratch(DType::uint8, {cells});
  const std::int64_t* offsets = topology.offsets.data_as<std::int64_t>();
  for (std::int64_t c = 0; c < cells; ++c) {
    const std::int64_t size = offsets[c + 1] - offsets[c];
    std::uint8_t type = 7;  // polygon
    if (group == "Vertices") type = size == 1 ? 1 : 2;
    else if (group == "Lines") type = size == 2 ? 3 : 4;
    else if (size == 3) type = 5;
    else if (size == 4) type = 9;
    types.data_as<std::uint8_t>()[c] = type;
  }
  return types;
}

void append_blocks(const io::hdf5::File& file, const std::string& where, const Topology& topology,
                   std::int64_t num_points, Mesh& mesh, std::vector<io::CellRun>& runs, std::int64_t first_cell) {
  io::VtkCellStream stream;
  stream.types = topology.types.values<std::uint8_t>();
  stream.offsets = topology.offsets.values<std::int64_t>();
  stream.connectivity = topology.connectivity;
  stream.connectivity_is_shareable = true;  // read through the hook, already global ids
  stream.num_points = num_points;
  io::VtkCells cells;
  try {
    cells = io::cells_from_vtk(stream);
  } catch (const io::CellStreamError& error) {
    file.fail(where, error.what());
  }
  for (std::size_t b = 0; b < cells.blocks.size(); ++b) {
    mesh.cells.push_back(std::move(cells.blocks[b]));
    runs.push_back({cells.runs[b].first_cell + first_cell, cells.runs[b].cell_count});
  }
}

void read_data_group(const io::hdf5::File& file, const std::string& group, std::int64_t rows,
                     NamedList<NDArray>& out) {
  if (file.kind(group) != io::hdf5::ObjectKind::group) return;
  for (const std::string& name : file.children(group)) {
    const std::string object = group + "/" + name;
    if (file.kind(object) != io::hdf5::ObjectKind::dataset) continue;
    out.set(name, file.read_rows(object, 0, rows));
  }
}

}  // namespace

Mesh read(const std::string& path) {
  io::hdf5::File file = io::hdf5::File::open(path, kFormat);
  if (file.kind(kRoot) != io::hdf5::ObjectKind::group) file.fail(kRoot, "no such group: not a VTKHDF file");
  const std::string type = file.string_attribute(kRoot, "Type").value_or("");
  const std::int64_t major = file.integer_attribute(kRoot, "Version").value_or(0);
  if (major < 1 || major > 2) file.fail(kRoot, "VTKHDF version " + std::to_string(major) + " is not supported (1 or 2)");
  if (type != "UnstructuredGrid" && type != "PolyData")
    file.fail(kRoot, "VTKHDF Type '" + type + "' is not read (UnstructuredGrid or PolyData)");
  if (file.exists(at("FaceConnectivity"))) file.fail(at("FaceConnectivity"), "polyhedra are not read");

  const NDArray points_per_part = file.read(at("NumberOfPoints"), DType::int64);
  std::int64_t parts = static_cast<std::int64_t>(points_per_part.size());
  if (file.exists(at("Steps/NumberOfParts"))) {  // temporal: the first step's partitions
    const NDArray steps = file.read(at("Steps/NumberOfParts"), DType::int64);
    if (steps.size() == 0) file.fail(at("Steps/NumberOfParts"), "a temporal file without steps");
    parts = steps.data_as<std::int64_t>()[0];
    if (parts < 0 || parts > static_cast<std::int64_t>(points_per_part.size()))
      file.fail(at("Steps/NumberOfParts"), "step 0 has " + std::to_string(parts) + " partitions, the file " +
                                               std::to_string(points_per_part.size()));
  }
  Mesh mesh;
  const std::int64_t num_points = sum_first(points_per_part, parts);
  mesh.points = file.read_rows(at("Points"), 0, num_points);

  std::vector<io::CellRun> runs;
  std::int64_t num_cells = 0;
  if (type == "UnstructuredGrid") {
    Topology topology = read_topology(file, std::string(kRoot), parts, points_per_part);
    if (topology.types.empty_handle()) file.fail(at("Types"), "no such dataset");
    append_blocks(file, std::string(kRoot), topology, num_points, mesh, runs, 0);
    num_cells = topology.offsets.rows() - 1;
  } else {
    if (file.exists(at("Strips")) && file.exists(at("Strips/NumberOfCells"))) {
      const NDArray strips = file.read(at("Strips/NumberOfCells"), DType::int64);
      if (sum_first(strips, std::min<std::int64_t>(parts, static_cast<std::int64_t>(strips.size()))) > 0)
        file.fail(at("Strips"), "triangle strips are not read");
    }
    for (std::string_view group : {"Vertices", "Lines", "Polygons"}) {
      const std::string where = at(group);
      if (file.kind(where) != io::hdf5::ObjectKind::group) continue;
      Topology topology = read_topology(file, where, parts, points_per_part);
      topology.types = polydata_types(topology, group);
      append_blocks(file, where, topology, num_points, mesh, runs, num_cells);
      num_cells += topology.offsets.rows() - 1;
    }
  }

  read_data_group(file, at("PointData"), num_points, mesh.point_data);
  NamedList<NDArray> cell_data;
  read_data_group(file, at("CellData"), num_cells, cell_data);
  for (auto& [name, data] : cell_data) mesh.cell_data.set(name, io::split_cell_data(data, runs));
  if (file.kind(at("FieldData")) == io::hdf5::ObjectKind::group)
    for (const std::string& name : file.children(at("FieldData"))) {
      const std::string object = at("FieldData/" + name);
      if (file.kind(object) != io::hdf5::ObjectKind::dataset) continue;
      const io::hdf5::DatasetInfo info = file.dataset_info(object);
      if (info.string) mesh.string_field_data.set(name, file.read_strings(object));
      else if (!info.compound) mesh.field_data.set(name, file.read(object));
    }
  return mesh;
}

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const io::hdf5::DatasetWriteOptions dataset_options{
      .gzip_level = io::hdf5::gzip_level_option(options, path, kFormat, "none")};
  for (const CellBlock& block : mesh.cells)
    if (!block.face_offsets.empty_handle() || block.type.starts_with("polyhedron"))
      throw WriteError(path, std::string(kFormat), "polyhedra are not written to VTKHDF");
  io::VtkCellArrays cells;
  try {
    cells = io::cells_to_vtk(mesh.cells);
  } catch (const std::invalid_argument& error) {
    throw WriteError(path, std::string(kFormat), error.what());
  }
  io::hdf5::File file = io::hdf5::File::create(path, kFormat);
  file.create_group(kRoot);
  file.set_attribute(kRoot, "Version", std::vector<std::int64_t>{2, 0});
  file.set_fixed_string_attribute(kRoot, "Type", "UnstructuredGrid");
  const std::int64_t n = mesh.points.rows(), c = cells.types.rows(), k = cells.connectivity.rows();
  file.write(at("NumberOfPoints"), NDArray::from_values<std::int64_t>({n}));
  file.write(at("NumberOfCells"), NDArray::from_values<std::int64_t>({c}));
  file.write(at("NumberOfConnectivityIds"), NDArray::from_values<std::int64_t>({k}));
  if (mesh.points.row_width() == 3) {
    file.write(at("Points"), mesh.points, dataset_options);
  } else {  // VTK points are 3-D
    NDArray points = NDArray::zeros(mesh.points.dtype(), {n, 3});
    const std::size_t item = dtype_size(mesh.points.dtype());
    const std::int64_t width = std::min<std::int64_t>(mesh.points.row_width(), 3);
    for (std::int64_t i = 0; i < n; ++i)
      std::memcpy(static_cast<char*>(points.data()) + i * 3 * item,
                  static_cast<const char*>(mesh.points.data()) + i * mesh.points.row_width() * item, width * item);
    file.write(at("Points"), points, dataset_options);
  }
  NDArray offsets = NDArray::allocate_scratch(DType::int64, {c + 1});
  offsets.data_as<std::int64_t>()[0] = 0;
  if (c > 0) std::memcpy(offsets.data_as<std::int64_t>() + 1, cells.offsets.data(), cells.offsets.nbytes());
  file.write(at("Types"), cells.types, dataset_options);
  file.write(at("Offsets"), offsets, dataset_options);
  file.write(at("Connectivity"), cells.connectivity, dataset_options);
  file.create_group(at("PointData"));
  for (const auto& [name, array] : mesh.point_data) file.write(at("PointData/" + name), array, dataset_options);
  file.create_group(at("CellData"));
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (arrays.empty()) continue;
    Shape shape = arrays[0].shape();
    for (const NDArray& array : arrays)
      if (array.dtype() != arrays[0].dtype() || array.row_width() != arrays[0].row_width())
        throw WriteError(path, std::string(kFormat), "cell data '" + name + "' differs in dtype or width between blocks");
    shape[0] = c;
    NDArray raw = NDArray::allocate_scratch(arrays[0].dtype(), shape);
    std::size_t offset = 0;
    for (const NDArray& array : arrays) {
      if (array.nbytes()) std::memcpy(static_cast<char*>(raw.data()) + offset, array.data(), array.nbytes());
      offset += array.nbytes();
    }
    if (offset != raw.nbytes()) throw WriteError(path, std::string(kFormat), "cell data '" + name + "' does not match the cells");
    file.write(at("CellData/" + name), raw, dataset_options);
  }
  file.create_group(at("FieldData"));
  for (const auto& [name, array] : mesh.field_data) file.write(at("FieldData/" + name), array, dataset_options);
  for (const auto& [name, strings] : mesh.string_field_data) file.write_strings(at("FieldData/" + name), strings);
  file.commit();
}

}  // namespace meshioplusplus::vtkhdf
