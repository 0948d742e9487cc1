// VTKHDF writer: an UnstructuredGrid, version 2.0, one partition per geometry (write(): one;
// the time-series writer: a static mesh with per-step data, or one geometry per write_mesh(),
// with Steps), types and offsets derived block by block as they are written; and
// write_partitioned_main, the main file of a partitioned dataset as virtual datasets over one
// file per partition. Apart from the reader (vtkhdf.cpp, which says what becomes what): they
// share only the layout's names (vtkhdf_internal.hpp).
#include "formats/vtkhdf/vtkhdf.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>

#include "formats/vtkhdf/vtkhdf_internal.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "io/hdf5/hdf5_options.hpp"
#include "io/output/kept_geometry.hpp"
#include "io/output/series_append.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtkhdf {

namespace {

// One geometry in VTK's arrays, as pieces the file stacks: each block's connectivity stays
// the block's own array (io::vtk_connectivity_segments). The types and offsets are derived
// block by block as they are written (fill_stacked_types / fill_stacked_offsets, below).
struct VtkGeometry {
  NDArray points;                     // (n, 3)
  std::vector<NDArray> connectivity;  // int64, one piece per block
  std::int64_t num_cells = 0, num_ids = 0;
};

NDArray int64_array(const std::vector<std::int64_t>& values) {
  NDArray out = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(values.size())});
  if (!values.empty()) std::memcpy(out.data(), values.data(), values.size() * sizeof(std::int64_t));
  return out;
}

// A new VTKHDF file with the root group VTK expects and the per-partition counts (the first
// thing both a whole write and a partitioned main file write).
io::hdf5::File create_with_counts(const std::string& path, const std::vector<std::int64_t>& num_points,
                                  const std::vector<std::int64_t>& num_cells, const std::vector<std::int64_t>& num_ids) {
  io::hdf5::File file = io::hdf5::File::create(path, kFormat);
  file.create_group(kRoot);
  file.set_attribute(kRoot, "Version", std::vector<std::int64_t>{2, 0});
  file.set_fixed_string_attribute(kRoot, "Type", "UnstructuredGrid");
  file.write(at("NumberOfPoints"), int64_array(num_points));
  file.write(at("NumberOfCells"), int64_array(num_cells));
  file.write(at("NumberOfConnectivityIds"), int64_array(num_ids));
  return file;
}

VtkGeometry to_vtk(const std::string& path, const Mesh& mesh) {
  VtkGeometry out;
  try {
    for (const CellBlock& block : mesh.cells) {
      if (!block.face_offsets.empty_handle() || block.type.starts_with("polyhedron"))
        throw WriteError(path, std::string(kFormat), "polyhedra are not written to VTKHDF");
      io::vtk_id_for(block);  // a type VTK lacks fails here, before anything is written
      out.num_cells += block.num_cells();
      out.num_ids += static_cast<std::int64_t>(block.connectivity.size());
    }
    // Blocks are (cells, nodes) arrays; the dataset is one flat run of ids.
    const std::optional<std::vector<NDArray>> pieces = io::vtk_connectivity_segments(mesh.cells);
    for (const NDArray& block : pieces.value())
      out.connectivity.push_back(block.reshaped({static_cast<std::int64_t>(block.size())}));
  } catch (const std::invalid_argument& error) {
    throw WriteError(path, std::string(kFormat), error.what());
  }
  const std::int64_t n = mesh.points.rows();
  if (mesh.points.row_width() == 3 && mesh.points.ndim() == 2) {
    out.points = mesh.points;
  } else {  // VTK points are 3-D
    out.points = NDArray::zeros(mesh.points.dtype(), {n, 3});
    const std::size_t item = dtype_size(mesh.points.dtype());
    const std::int64_t width = std::min<std::int64_t>(mesh.points.row_width(), 3);
    for (std::int64_t i = 0; i < n; ++i)
      std::memcpy(static_cast<char*>(out.points.data()) + i * 3 * item,
                  static_cast<const char*>(mesh.points.data()) + i * mesh.points.row_width() * item, width * item);
  }
  return out;
}

// Rows [first, first + count) of the Types dataset: each geometry's cells' VTK types, stacked.
void fill_stacked_types(const std::vector<Mesh>& meshes, const std::vector<std::int64_t>& num_cells,
                        std::int64_t first, std::int64_t count, std::uint8_t* out) {
  std::int64_t base = 0;
  for (std::size_t g = 0; g < meshes.size(); ++g) {
    const std::int64_t from = std::max(first, base), to = std::min(first + count, base + num_cells[g]);
    if (from < to) io::fill_vtk_types(meshes[g].cells, from - base, to - from, out + (from - first));
    base += num_cells[g];
  }
}

// Rows [first, first + count) of the Offsets dataset: per geometry a leading 0, then its
// cells' end offsets.
void fill_stacked_offsets(const std::vector<Mesh>& meshes, const std::vector<std::int64_t>& num_cells,
                          std::int64_t first, std::int64_t count, std::int64_t* out) {
  std::int64_t base = 0;
  for (std::size_t g = 0; g < meshes.size(); ++g) {
    const std::int64_t rows = num_cells[g] + 1;
    std::int64_t from = std::max(first, base);
    const std::int64_t to = std::min(first + count, base + rows);
    if (from < to && from == base) out[from++ - first] = 0;
    if (from < to) io::fill_vtk_end_offsets(meshes[g].cells, from - base - 1, to - from, out + (from - first));
    base += rows;
  }
}

// The row count of arrays of one dtype and row width that are written stacked.
std::int64_t stacked_rows(const std::string& path, const std::string& what, const std::vector<NDArray>& arrays) {
  if (arrays.empty()) throw WriteError(path, std::string(kFormat), what + ": nothing to write");
  std::int64_t rows = 0;
  for (const NDArray& array : arrays) {
    if (array.dtype() != arrays[0].dtype() || array.row_width() != arrays[0].row_width())
      throw WriteError(path, std::string(kFormat), what + " differs in dtype or width between blocks or steps");
    rows += array.ndim() == 0 ? 1 : array.rows();
  }
  return rows;
}

// Checks that a cell data entry (one array per block) has one row per cell.
void check_cell_data_rows(const std::string& path, const std::string& name, const std::vector<NDArray>& arrays,
                          std::int64_t cells) {
  const std::int64_t rows = stacked_rows(path, "cell data '" + name + "'", arrays);
  if (rows != cells)
    throw WriteError(path, std::string(kFormat), "cell data '" + name + "' has " + std::to_string(rows) +
                                                     " rows for " + std::to_string(cells) + " cells");
}

void write_stacked(io::hdf5::File& file, const std::string& path, const std::string& dataset, const std::string& what,
                   const std::vector<NDArray>& pieces, const io::hdf5::DatasetWriteOptions& options) {
  stacked_rows(path, what, pieces);
  file.write_stacked(dataset, pieces, options);
}

// The whole file: `geometries` as one partition each; without `steps` the first geometry's
// own point/cell data, else Steps with step k on geometry step_geometry[k].
void write_file(const std::string& path, const WriteOptions& options, const std::vector<Mesh>& meshes,
                const std::vector<TimeStep>* steps, const std::vector<std::size_t>& step_geometry) {
  const io::hdf5::DatasetWriteOptions dataset_options{
      .gzip_level = io::hdf5::gzip_level_option(options, path, kFormat, "none")};
  std::vector<VtkGeometry> geometries;
  for (const Mesh& mesh : meshes) geometries.push_back(to_vtk(path, mesh));
  std::vector<std::int64_t> num_points, num_cells, num_ids;
  std::vector<NDArray> points, connectivity;
  for (const VtkGeometry& geometry : geometries) {
    num_points.push_back(geometry.points.rows());
    num_cells.push_back(geometry.num_cells);
    num_ids.push_back(geometry.num_ids);
    points.push_back(geometry.points);
    connectivity.insert(connectivity.end(), geometry.connectivity.begin(), geometry.connectivity.end());
  }
  if (connectivity.empty()) connectivity.push_back(NDArray::allocate_scratch(DType::int64, {0}));
  io::hdf5::File file = create_with_counts(path, num_points, num_cells, num_ids);
  write_stacked(file, path, at("Points"), "points", points, dataset_options);
  write_stacked(file, path, at("Connectivity"), "connectivity", connectivity, dataset_options);
  // VTK's types and offsets (9 MB per million cells) are derived 2 MiB at a time as they are
  // written (File::write_generated): never held whole, no fresh pages per write.
  const std::int64_t total_cells = std::accumulate(num_cells.begin(), num_cells.end(), std::int64_t{0});
  const auto num_geometries = static_cast<std::int64_t>(meshes.size());
  file.write_generated(
      at("Types"), DType::uint8, total_cells,
      [&](std::int64_t first, std::int64_t count, void* out) {
        fill_stacked_types(meshes, num_cells, first, count, static_cast<std::uint8_t*>(out));
      },
      dataset_options);
  file.write_generated(
      at("Offsets"), DType::int64, total_cells + num_geometries,
      [&](std::int64_t first, std::int64_t count, void* out) {
        fill_stacked_offsets(meshes, num_cells, first, count, static_cast<std::int64_t*>(out));
      },
      dataset_options);
  file.create_group(at("PointData"));
  file.create_group(at("CellData"));
  if (steps == nullptr) {
    const Mesh& mesh = meshes[0];
    for (const auto& [name, array] : mesh.point_data) file.write(at("PointData/" + name), array, dataset_options);
    for (const auto& [name, arrays] : mesh.cell_data) {
      if (arrays.empty()) continue;
      check_cell_data_rows(path, name, arrays, num_cells[0]);
      file.write_stacked(at("CellData/" + name), arrays, dataset_options);
    }
  } else {
    const std::int64_t n = static_cast<std::int64_t>(steps->size());
    const std::string group = at("Steps");
    file.create_group(group);
    file.set_attribute(group, "NSteps", n);
    NDArray times = NDArray::allocate_scratch(DType::float64, {n});
    std::vector<std::int64_t> part_offsets, parts(n, 1), point_offsets, cell_offsets, id_offsets;
    std::vector<std::int64_t> point_base{0}, cell_base{0}, id_base{0};
    for (std::size_t g = 0; g < geometries.size(); ++g) {
      point_base.push_back(point_base.back() + num_points[g]);
      cell_base.push_back(cell_base.back() + num_cells[g]);
      id_base.push_back(id_base.back() + num_ids[g]);
    }
    for (std::int64_t k = 0; k < n; ++k) {
      const std::size_t g = step_geometry[k];
      times.data_as<double>()[k] = (*steps)[k].time;
      part_offsets.push_back(static_cast<std::int64_t>(g));
      point_offsets.push_back(point_base[g]);
      cell_offsets.push_back(cell_base[g]);
      id_offsets.push_back(id_base[g]);
    }
    file.write(group + "/Values", times);
    file.write(group + "/PartOffsets", int64_array(part_offsets));
    file.write(group + "/NumberOfParts", int64_array(parts));
    file.write(group + "/PointOffsets", int64_array(point_offsets));
    file.write(group + "/CellOffsets", int64_array(cell_offsets));
    file.write(group + "/ConnectivityIdOffsets", int64_array(id_offsets));
    file.create_group(group + "/PointDataOffsets");
    file.create_group(group + "/CellDataOffsets");
    // Names of step 0; every step must carry the same arrays.
    if (n > 0) {
      for (const auto& [name, first] : (*steps)[0].point_data) {
        std::vector<NDArray> rows;
        std::vector<std::int64_t> at_row;
        std::int64_t row = 0;
        for (std::int64_t k = 0; k < n; ++k) {
          const NDArray* array = (*steps)[k].point_data.find(name);
          if (!array) throw WriteError(path, std::string(kFormat), "step " + std::to_string(k) + " lacks point data '" + name + "'");
          if (array->rows() != num_points[step_geometry[k]])
            throw WriteError(path, std::string(kFormat), "point data '" + name + "' of step " + std::to_string(k) +
                                                             " has " + std::to_string(array->rows()) + " rows for " +
                                                             std::to_string(num_points[step_geometry[k]]) + " points");
          at_row.push_back(row);
          row += array->rows();
          rows.push_back(*array);
        }
        write_stacked(file, path, at("PointData/" + name), "point data '" + name + "'", rows, dataset_options);
        file.write(group + "/PointDataOffsets/" + name, int64_array(at_row));
      }
      for (const auto& [name, first] : (*steps)[0].cell_data) {
        std::vector<NDArray> rows;
        std::vector<std::int64_t> at_row;
        std::int64_t row = 0;
        for (std::int64_t k = 0; k < n; ++k) {
          const std::vector<NDArray>* arrays = (*steps)[k].cell_data.find(name);
          if (!arrays) throw WriteError(path, std::string(kFormat), "step " + std::to_string(k) + " lacks cell data '" + name + "'");
          check_cell_data_rows(path, name, *arrays, num_cells[step_geometry[k]]);
          at_row.push_back(row);
          row += num_cells[step_geometry[k]];
          rows.insert(rows.end(), arrays->begin(), arrays->end());
        }
        write_stacked(file, path, at("CellData/" + name), "cell data '" + name + "'", rows, dataset_options);
        file.write(group + "/CellDataOffsets/" + name, int64_array(at_row));
      }
    }
  }
  file.create_group(at("FieldData"));
  for (const auto& [name, array] : meshes[0].field_data) file.write(at("FieldData/" + name), array, dataset_options);
  // Variable-length, as vtkHDFWriter writes string arrays: the one string type vtkHDFReader reads.
  for (const auto& [name, strings] : meshes[0].string_field_data)
    file.write_strings(at("FieldData/" + name), strings, -1, io::hdf5::File::StringStorage::variable_length);
  file.commit();
}

class SeriesWriter final : public TimeSeriesWriter {
 public:
  SeriesWriter(std::string path, WriteOptions options) : path_(std::move(path)), options_(std::move(options)) {
    if (const std::string* files = options_.find("partition_files")) {
      std::string_view rest = *files;
      while (!rest.empty()) {
        const std::size_t cut = rest.find(';');
        partition_files_.emplace_back(rest.substr(0, cut));
        rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
      }
      partitioned_ = true;
    }
  }

  // Append: the file's geometries and steps, held as if written by this writer (the file is
  // rewritten by close(), through a temporary, as every VTKHDF series is).
  void load_existing() {
    if (partitioned_) throw WriteError(path_, std::string(kFormat), "append: not with partition_files");
    {
      const io::hdf5::File file = io::hdf5::File::open(path_, kFormat);
      if (!file.exists(at("Steps")))
        throw WriteError(path_, std::string(kFormat), "append: the file has no Steps (not a time series)");
    }
    std::unique_ptr<TimeSeriesReader> reader = open_time_series(path_);
    for (std::size_t k = 0; k < reader->num_steps(); ++k) {
      TimeStep step = reader->read_step(k);
      Mesh mesh = reader->read_mesh();  // step k's geometry
      if (meshes_.empty() || !same_geometry(meshes_.back(), mesh)) {
        mesh.point_data = {};
        mesh.cell_data = {};
        meshes_.push_back(std::move(mesh));
      }
      steps_.push_back(std::move(step));
      step_geometry_.push_back(meshes_.size() - 1);
    }
    appending_ = !meshes_.empty();
  }

  void write_mesh(const Mesh& mesh) override {
    if (closed_) throw WriteError(path_, std::string(kFormat), "write_mesh() after close()");
    if (appending_ && !appended_mesh_checked_) {  // the file's last geometry goes on
      io::check_appended_mesh(path_, kFormat, meshes_.back(), mesh);
      appended_mesh_checked_ = true;
      return;
    }
    Mesh geometry = io::kept_geometry(mesh);
    geometry.regions.clear();
    for (const auto& [name, array] : mesh.field_data) geometry.field_data.set(name, array.copy());
    geometry.string_field_data = mesh.string_field_data;
    if (!meshes_.empty() && step_geometry_.empty()) meshes_.back() = std::move(geometry);
    else if (!meshes_.empty() && step_geometry_.back() != meshes_.size() - 1) meshes_.back() = std::move(geometry);
    else meshes_.push_back(std::move(geometry));
  }

  void write_step(const TimeStep& step) override {
    if (closed_) throw WriteError(path_, std::string(kFormat), "write_step() after close()");
    if (meshes_.empty()) throw WriteError(path_, std::string(kFormat), "write_step() before write_mesh()");
    TimeStep copy;
    copy.time = step.time;
    for (const auto& [name, array] : step.point_data) copy.point_data.set(name, array.copy());
    for (const auto& [name, arrays] : step.cell_data) {
      std::vector<NDArray> per_block;
      for (const NDArray& array : arrays) per_block.push_back(array.copy());
      copy.cell_data.set(name, std::move(per_block));
    }
    steps_.push_back(std::move(copy));
    step_geometry_.push_back(meshes_.size() - 1);
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    if (partitioned_) {
      write_partitioned_main(path_, partition_files_);
      return;
    }
    if (meshes_.empty()) throw WriteError(path_, std::string(kFormat), "close() before write_mesh()");
    // A geometry written after the last step holds no step: dropped.
    if (!step_geometry_.empty()) meshes_.resize(step_geometry_.back() + 1);
    write_file(path_, options_, meshes_, &steps_, step_geometry_);
  }

 private:
  static bool same_array(const NDArray& a, const NDArray& b) {
    if (a.data() == b.data()) return true;
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
  }
  static bool same_geometry(const Mesh& a, const Mesh& b) {
    if (!same_array(a.points, b.points) || a.cells.size() != b.cells.size()) return false;
    for (std::size_t k = 0; k < a.cells.size(); ++k)
      if (a.cells[k].type != b.cells[k].type || !same_array(a.cells[k].connectivity, b.cells[k].connectivity))
        return false;
    return true;
  }

  std::string path_;
  WriteOptions options_;
  bool partitioned_ = false, closed_ = false;
  bool appending_ = false, appended_mesh_checked_ = false;
  std::vector<std::string> partition_files_;
  std::vector<Mesh> meshes_;
  std::vector<TimeStep> steps_;
  std::vector<std::size_t> step_geometry_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  write_file(path, options, std::vector<Mesh>{mesh}, nullptr, {0});
}

std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options) {
  for (const auto& [name, value] : options.items())
    if (name != "compression" && name != "compression_opts" && name != "partition_files")
      throw WriteError(path, std::string(kFormat), "unknown option '" + name + "' (compression, compression_opts, partition_files)");
  return std::make_unique<SeriesWriter>(path, options);
}

std::unique_ptr<TimeSeriesWriter> append_time_series(const std::string& path, const WriteOptions& options) {
  auto writer = create_time_series(path, options);
  std::error_code error;
  if (std::filesystem::exists(path, error)) static_cast<SeriesWriter&>(*writer).load_existing();
  return writer;
}

void write_partitioned_main(const std::string& path, const std::vector<std::string>& partition_files) {
  if (partition_files.empty()) throw WriteError(path, std::string(kFormat), "no partition files");
  const std::string folder = folder_of(path);
  std::vector<std::int64_t> num_points, num_cells, num_ids;
  struct Array {
    DType dtype;
    Shape row_shape;
    std::vector<io::hdf5::VirtualSource> sources;
    std::vector<std::size_t> parts;  // which partition files hold it
  };
  std::map<std::string, Array> arrays;  // dataset path (under /VTKHDF) → its sources
  std::vector<std::string> order;
  std::optional<io::hdf5::File> first_file;
  std::size_t num_files = 0;
  for (const std::string& name : partition_files) {
    const std::string part_path = std::filesystem::path(name).is_absolute() ? name : folder + "/" + name;
    io::hdf5::File part = [&] {
      try {
        return io::hdf5::File::open(part_path, kFormat);
      } catch (const ReadError& error) {
        throw WriteError(path, std::string(kFormat), std::string("partition file: ") + error.what());
      }
    }();
    if (part.string_attribute(kRoot, "Type").value_or("") != "UnstructuredGrid" || part.exists(at("Steps")))
      throw WriteError(path, std::string(kFormat), part_path + " is not a VTKHDF UnstructuredGrid without steps");
    const std::vector<std::int64_t> p = int_values(part, at("NumberOfPoints")), c = int_values(part, at("NumberOfCells")),
                                    k = int_values(part, at("NumberOfConnectivityIds"));
    num_points.insert(num_points.end(), p.begin(), p.end());
    num_cells.insert(num_cells.end(), c.begin(), c.end());
    num_ids.insert(num_ids.end(), k.begin(), k.end());
    std::vector<std::string> datasets{"Points", "Types", "Offsets", "Connectivity"};
    for (std::string_view data_group : {"PointData", "CellData"})
      if (part.kind(at(data_group)) == io::hdf5::ObjectKind::group)
        for (const std::string& child : part.children(at(data_group))) datasets.push_back(std::string(data_group) + "/" + child);
    for (const std::string& dataset : datasets) {
      const io::hdf5::DatasetInfo info = part.dataset_info(at(dataset));
      if (info.compound || info.string || info.shape.empty())
        throw WriteError(path, std::string(kFormat), part_path + ": " + dataset + " is not a numeric array");
      const Shape row_shape(info.shape.begin() + 1, info.shape.end());
      auto [entry, added] = arrays.try_emplace(dataset, Array{info.dtype, row_shape, {}, {}});
      if (added) order.push_back(dataset);
      else if (entry->second.dtype != info.dtype || entry->second.row_shape != row_shape)
        throw WriteError(path, std::string(kFormat), part_path + ": " + dataset + " differs in dtype or shape from the partitions before");
      entry->second.sources.push_back({name, at(dataset), info.shape[0]});
      entry->second.parts.push_back(num_files);
    }
    if (!first_file) first_file.emplace(std::move(part));
    ++num_files;
  }
  // Every partition with points (cells) must hold every point (cell) array. Partition files
  // hold one partition each here.
  for (const auto& [dataset, array] : arrays) {
    const bool point_array = dataset.starts_with("PointData/"), cell_array = dataset.starts_with("CellData/");
    if (!point_array && !cell_array) continue;
    for (std::size_t p = 0; p < partition_files.size(); ++p) {
      if (std::find(array.parts.begin(), array.parts.end(), p) != array.parts.end()) continue;
      if ((point_array ? num_points : num_cells)[p] > 0)
        throw WriteError(path, std::string(kFormat), partition_files[p] + " lacks " + dataset);
    }
  }
  io::hdf5::File file = create_with_counts(path, num_points, num_cells, num_ids);
  file.create_group(at("PointData"));
  file.create_group(at("CellData"));
  for (const std::string& dataset : order) {
    const Array& array = arrays.at(dataset);
    file.write_virtual(at(dataset), array.dtype, array.row_shape, array.sources);
  }
  file.create_group(at("FieldData"));
  if (first_file && first_file->kind(at("FieldData")) == io::hdf5::ObjectKind::group)
    for (const std::string& name : first_file->children(at("FieldData"))) {
      const std::string object = at("FieldData/" + name);
      const io::hdf5::DatasetInfo info = first_file->dataset_info(object);
      if (info.string)
        file.write_strings(object, first_file->read_strings(object), -1, io::hdf5::File::StringStorage::variable_length);
      else if (!info.compound) file.write(object, first_file->read(object));
    }
  file.commit();
}

}  // namespace meshioplusplus::vtkhdf
