// XDMF writer: XDMF 3 as meshio writes it — one Uniform grid (Geometry, one Topology, Mixed
// when there are several blocks, Node/Cell Attributes), heavy data in an HDF5 file beside the
// .xdmf ("<stem>.h5", datasets /data0, /data1 …, gzip level 4 by default), in raw binary files
// ("<stem><k>.bin") or inline. Polyhedra go into the Mixed topology as id 16 + face stream
// (xdmf_polyhedra.hpp), the layout VTK's XDMF reader reads. Field data of meshio's gmsh kind
// ([tag, dim]) goes into an <Information> block meshio reads back. The time-series writer:
// meshio's layout exactly — the Temporal collection first, each step XIncluding the Geometry
// and Topology of the Uniform "mesh" grid, which follows the collection as the Domain's last
// grid. VTK's XDMF readers then give the collection, with every step's data, as block 0 and the
// bare mesh as block 1, as for meshio's files (felupe's ViewXdmf, for one, takes block 0); a
// mesh grid written before the collection made block 0 the bare mesh and hid the data from
// ParaView/PyVista users.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>

#include "formats/xdmf/xdmf.hpp"
#include "formats/xdmf/xdmf_document.hpp"
#include "formats/xdmf/xdmf_dolfinx_layout.hpp"
#include "formats/xdmf/xdmf_polyhedra.hpp"
#include "io/cells/xdmf_cell_types.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/series_append.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "io/hdf5/hdf5_options.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::xdmf {

using io::topology_from_xdmf;
using io::topology_from_ours;
using io::mixed_from_id;
using io::mixed_from_ours;
using io::TopologyName;
using io::MixedId;

namespace {

enum class DataFormat { xml, binary, hdf };

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct HeavyOptions {
  DataFormat format = DataFormat::hdf;
  int gzip_level = 4;  // -1: none
  // meshio's TimeSeriesWriter puts "<stem>.h5" / "<stem><k>.bin" into the working directory and
  // names them without a folder (readers look beside the .xdmf): heavy_data_location=
  // "working_directory" does the same, for the code that moves the file beside it afterwards.
  bool in_working_directory = false;
  bool append = false;  // continue an existing .h5 / numbering (append_time_series)
};

HeavyOptions parse_options(const std::string& path, const WriteOptions& options) {
  HeavyOptions result;
  const std::string format = lower(options.get("data_format", "HDF"));
  if (format == "xml") result.format = DataFormat::xml;
  else if (format == "binary") result.format = DataFormat::binary;
  else if (format == "hdf" || format == "hdf5") result.format = DataFormat::hdf;
  else throw WriteError(path, std::string(kFormat), "unknown data_format '" + std::string(options.get("data_format", "")) + "' (XML, Binary or HDF)");
  result.gzip_level = io::hdf5::gzip_level_option(options, path, kFormat);
  const std::string location = lower(options.get("heavy_data_location", "beside"));
  if (location == "working_directory") result.in_working_directory = true;
  else if (location != "beside")
    throw WriteError(path, std::string(kFormat), "unknown heavy_data_location '" +
                                                     std::string(options.get("heavy_data_location", "")) +
                                                     "' (beside or working_directory)");
  return result;
}

std::pair<std::string_view, std::string_view> xdmf_number_type(DType dtype) {
  switch (dtype) {
    case DType::int8: return {"Int", "1"};
    case DType::int16: return {"Int", "2"};
    case DType::int32: return {"Int", "4"};
    case DType::int64: return {"Int", "8"};
    case DType::uint8: return {"UInt", "1"};
    case DType::uint16: return {"UInt", "2"};
    case DType::uint32: return {"UInt", "4"};
    case DType::uint64: return {"UInt", "8"};
    case DType::float32: return {"Float", "4"};
    case DType::float64: break;
  }
  return {"Float", "8"};
}

std::string dimensions_text(const Shape& shape) {
  std::string text;
  for (std::int64_t extent : shape) {
    if (!text.empty()) text += ' ';
    text += std::to_string(extent);
  }
  return text.empty() ? "1" : text;
}

// meshio's AttributeType from an array's shape.
std::string_view attribute_type(const Shape& shape) {
  if (shape.size() == 1 || (shape.size() == 2 && shape[1] == 1)) return "Scalar";
  if (shape.size() == 2 && (shape[1] == 2 || shape[1] == 3)) return "Vector";
  if ((shape.size() == 2 && shape[1] == 9) || (shape.size() == 3 && shape[1] == 3 && shape[2] == 3)) return "Tensor";
  if (shape.size() == 2 && shape[1] == 6) return "Tensor6";
  return "Matrix";
}

// Where arrays go: each call appends one <DataItem> element to `xml`.
class HeavyData {
 public:
  HeavyData(const std::string& xdmf_path, HeavyOptions options) : xdmf_path_(xdmf_path), options_(options) {
    const std::filesystem::path path(xdmf_path);
    directory_ = options_.in_working_directory ? std::filesystem::path() : path.parent_path();
    stem_ = path.stem().string();
    if (options_.format == DataFormat::hdf) {
      h5_name_ = stem_ + ".h5";
      const std::string h5_path = (directory_ / h5_name_).string();
      std::error_code error;
      if (options_.append && std::filesystem::exists(h5_path, error)) {
        h5_.emplace(io::hdf5::File::append(h5_path, kFormat));
        for (const std::string& child : h5_->children("/")) counter_ = std::max(counter_, data_number(child) + 1);
      } else {
        h5_.emplace(io::hdf5::File::create(h5_path, kFormat));
      }
    } else if (options_.format == DataFormat::binary && options_.append) {
      std::error_code error;
      while (std::filesystem::exists(directory_ / binary_name(counter_), error)) ++counter_;
    }
  }

  void data_item(std::string& xml, const NDArray& array, bool compress = true) {
    const auto [type, precision] = xdmf_number_type(array.dtype());
    xml += "<DataItem DataType=\"";
    xml += type;
    xml += "\" Dimensions=\"" + dimensions_text(array.shape()) + "\" Format=\"";
    xml += options_.format == DataFormat::xml ? "XML" : options_.format == DataFormat::binary ? "Binary" : "HDF";
    xml += "\" Precision=\"";
    xml += precision;
    xml += "\">";
    switch (options_.format) {
      case DataFormat::xml: inline_values(xml, array); break;
      case DataFormat::binary: {
        const std::string name = binary_name(counter_++);
        io::AtomicFile file((directory_ / name).string(), kFormat);
        file.write(array.data(), array.nbytes());
        file.commit();
        xml += io::escape_xml_attribute(name);
        break;
      }
      case DataFormat::hdf: {
        const std::string dataset = "/data" + std::to_string(counter_++);
        h5_->write(dataset, array, {.gzip_level = compress ? options_.gzip_level : -1});
        xml += io::escape_xml_attribute(h5_name_ + ":" + dataset);
        break;
      }
    }
    xml += "</DataItem>";
  }

  // The HDF5 file is complete before the XML that points into it replaces anything.
  void commit() {
    if (h5_) h5_->commit();
  }

 private:
  std::string binary_name(int k) const { return stem_ + std::to_string(k) + ".bin"; }
  // "data12" → 12; other names → -1 (an appended step never reuses a dataset's name).
  static int data_number(std::string_view name) {
    if (name.substr(0, 4) != "data" || name.size() == 4) return -1;
    int number = -1;
    const auto [end, error] = std::from_chars(name.data() + 4, name.data() + name.size(), number);
    return error == std::errc() && end == name.data() + name.size() ? number : -1;
  }

  static void inline_values(std::string& xml, const NDArray& array) {
    const std::int64_t width = std::max<std::int64_t>(array.row_width(), 1);
    visit_dtype(array.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = array.data_as<T>();
      char scratch[40];
      for (std::size_t i = 0; i < array.size(); ++i) {
        xml += (i % static_cast<std::size_t>(width) == 0) ? '\n' : ' ';
        std::to_chars_result result;
        if constexpr (sizeof(T) == 1) result = std::to_chars(scratch, scratch + sizeof scratch, static_cast<int>(values[i]));
        else result = std::to_chars(scratch, scratch + sizeof scratch, values[i]);
        xml.append(scratch, static_cast<std::size_t>(result.ptr - scratch));
      }
    });
    xml += '\n';
  }

  std::string xdmf_path_;
  HeavyOptions options_;
  std::filesystem::path directory_;
  std::string stem_, h5_name_;
  std::optional<io::hdf5::File> h5_;
  int counter_ = 0;
};

std::string xml_quoted(std::string_view text) { return "\"" + io::escape_xml_attribute(text) + "\""; }

void write_geometry(std::string& xml, HeavyData& heavy, const NDArray& points, const std::string& path) {
  if (points.ndim() != 2 || points.dim(1) < 1 || points.dim(1) > 3)
    throw WriteError(path, std::string(kFormat), "XDMF holds points of dimension 2 or 3 (as rows of XY or XYZ)");
  const std::string type = std::string("XYZ").substr(0, static_cast<std::size_t>(points.dim(1)));
  xml += "<Geometry GeometryType=" + xml_quoted(type) + ">";
  heavy.data_item(xml, points);
  xml += "</Geometry>";
}

void write_topology(std::string& xml, HeavyData& heavy, const std::vector<CellBlock>& cells, const std::string& path) {
  if (cells.empty()) return;
  if (cells.size() == 1 && !cells[0].is_ragged()) {
    const CellBlock& block = cells[0];
    const TopologyName* name = topology_from_ours(block.type);
    if (name == nullptr) throw WriteError(path, std::string(kFormat), "XDMF has no cell type for '" + block.type + "'");
    xml += "<Topology TopologyType=" + xml_quoted(name->xdmf) + " NumberOfElements=\"" + std::to_string(block.num_cells()) +
           "\" NodesPerElement=\"" + std::to_string(block.connectivity.row_width()) + "\">";
    heavy.data_item(xml, block.connectivity);
    xml += "</Topology>";
    return;
  }
  // Mixed: each cell is its id, the node count for Polyvertex/Polyline/Polygon, its nodes;
  // a polyhedron (even a single block of them, which VTK reads only so) its id and face stream.
  std::int64_t total = 0, cells_total = 0;
  for (const CellBlock& block : cells) {
    if (block.type == kMixedPolyhedron.ours) {
      cells_total += block.num_cells();
      total += mixed_polyhedra_size(block);
      continue;
    }
    const MixedId* id = mixed_from_ours(block.type);
    if (id == nullptr) throw WriteError(path, std::string(kFormat), "XDMF Mixed topology has no id for '" + block.type + "'");
    const std::int64_t n = block.num_cells();
    cells_total += n;
    total += n * (id->nodes == 0 ? 2 : 1) + static_cast<std::int64_t>(block.connectivity.size());
  }
  NDArray stream = NDArray::allocate_scratch(DType::int64, {total});
  std::int64_t* out = stream.data_as<std::int64_t>();
  for (const CellBlock& block : cells) {
    if (block.type == kMixedPolyhedron.ours) {
      out = write_mixed_polyhedra(block, out);
      continue;
    }
    const MixedId* id = mixed_from_ours(block.type);
    const NDArray connectivity = block.connectivity.dtype() == DType::int64 ? block.connectivity : block.connectivity.astype(DType::int64);
    const std::int64_t* nodes = connectivity.data_as<std::int64_t>();
    const std::int64_t n = block.num_cells();
    const NDArray offsets = block.is_ragged() ? (block.offsets.dtype() == DType::int64 ? block.offsets : block.offsets.astype(DType::int64)) : NDArray();
    for (std::int64_t cell = 0; cell < n; ++cell) {
      const std::int64_t begin = block.is_ragged() ? offsets.data_as<std::int64_t>()[cell] : cell * connectivity.row_width();
      const std::int64_t end = block.is_ragged() ? offsets.data_as<std::int64_t>()[cell + 1] : begin + connectivity.row_width();
      *out++ = id->id;
      if (id->nodes == 0) *out++ = end - begin;
      for (std::int64_t i = begin; i < end; ++i) *out++ = nodes[i];
    }
  }
  xml += "<Topology TopologyType=\"Mixed\" NumberOfElements=\"" + std::to_string(cells_total) + "\">";
  heavy.data_item(xml, stream);
  xml += "</Topology>";
}

void write_attributes(std::string& xml, HeavyData& heavy, const NamedList<NDArray>& point_data,
                      const NamedList<std::vector<NDArray>>& cell_data, const std::string& path) {
  for (const auto& [name, array] : point_data) {
    xml += "<Attribute Name=" + xml_quoted(name) + " AttributeType=\"" + std::string(attribute_type(array.shape())) + "\" Center=\"Node\">";
    heavy.data_item(xml, array);
    xml += "</Attribute>";
  }
  for (const auto& [name, arrays] : cell_data) {
    if (arrays.empty()) continue;
    // Concatenated over the blocks (meshio's raw cell data).
    Shape shape = arrays[0].shape();
    std::int64_t rows = 0;
    for (const NDArray& array : arrays) {
      Shape tail(array.shape().begin() + (array.ndim() ? 1 : 0), array.shape().end());
      Shape first_tail(shape.begin() + (shape.empty() ? 0 : 1), shape.end());
      if (tail != first_tail || array.dtype() != arrays[0].dtype())
        throw WriteError(path, std::string(kFormat), "cell data '" + name + "' differs in shape or dtype between blocks");
      rows += array.rows();
    }
    if (shape.empty()) shape.push_back(0);
    shape[0] = rows;
    NDArray raw = NDArray::allocate_scratch(arrays[0].dtype(), shape);
    std::size_t at = 0;
    for (const NDArray& array : arrays) {
      if (array.nbytes()) std::memcpy(static_cast<char*>(raw.data()) + at, array.data(), array.nbytes());
      at += array.nbytes();
    }
    xml += "<Attribute Name=" + xml_quoted(name) + " AttributeType=\"" + std::string(attribute_type(shape)) + "\" Center=\"Cell\">";
    heavy.data_item(xml, raw);
    xml += "</Attribute>";
  }
}

// meshio's gmsh-style field data ([tag, dim] integer pairs) as <Information> it reads back.
void write_information(std::string& xml, const NamedList<NDArray>& field_data) {
  std::string maps;
  for (const auto& [name, array] : field_data) {
    if (array.size() != 2 || dtype_is_float(array.dtype())) continue;
    const NDArray values = array.astype(DType::int64);
    maps += "<map key=" + xml_quoted(name) + " dim=\"" + std::to_string(values.data_as<std::int64_t>()[1]) + "\">" +
            std::to_string(values.data_as<std::int64_t>()[0]) + "</map>";
  }
  if (maps.empty()) return;
  xml += "<Information Name=\"Information\" Value=\"" + std::to_string(field_data.size()) + "\"><![CDATA[<main>" + maps +
         "</main>]]></Information>";
}

constexpr std::string_view kHeader =
    "<?xml version=\"1.0\"?>\n<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\"><Domain>";
constexpr std::string_view kFooter = "</Domain></Xdmf>\n";

void write_text_file(const std::string& path, const std::string& xml) {
  io::AtomicFile file(path, kFormat);
  file.write(xml);
  file.commit();
}

// layout="dolfinx" (xdmf_dolfinx_layout.hpp): one file per grid, each its own Uniform "Grid"
// on the one Geometry DataItem (the same HDF5 dataset). The facet file goes first: the mesh file
// replacing an old one last leaves no new mesh beside stale facets when a write fails.
void write_dolfinx(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const HeavyOptions heavy_options = parse_options(path, options);
  if (heavy_options.format == DataFormat::binary)
    throw WriteError(path, std::string(kFormat), "layout=dolfinx: DOLFINx reads XDMF heavy data as HDF or XML, not Binary");
  const DolfinxGrids grids = dolfinx_grids(path, mesh, options);
  HeavyData heavy(path, heavy_options);
  std::string geometry;
  write_geometry(geometry, heavy, grids.cells.points, path);
  const NamedList<NDArray> no_point_data;
  const auto document = [&](const Mesh& grid) {
    std::string xml(kHeader);
    xml += "<Grid Name=\"Grid\" GridType=\"Uniform\">" + geometry;
    write_topology(xml, heavy, grid.cells, path);
    write_attributes(xml, heavy, no_point_data, grid.cell_data, path);
    xml += "</Grid>";
    xml += kFooter;
    return xml;
  };
  const std::string cells_xml = document(grids.cells);
  const std::string facets_xml = grids.facets ? document(*grids.facets) : std::string();
  heavy.commit();
  if (grids.facets) write_text_file(grids.facets_path, facets_xml);
  write_text_file(path, cells_xml);
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  if (wants_dolfinx_layout(path, options)) return write_dolfinx(path, mesh, options);
  HeavyData heavy(path, parse_options(path, options));
  std::string xml(kHeader);
  xml += "<Grid Name=\"Grid\" GridType=\"Uniform\">";
  write_information(xml, mesh.field_data);
  write_geometry(xml, heavy, mesh.points, path);
  write_topology(xml, heavy, mesh.cells, path);
  write_attributes(xml, heavy, mesh.point_data, mesh.cell_data, path);
  xml += "</Grid>";
  xml += kFooter;
  heavy.commit();
  write_text_file(path, xml);
}

// ---- time series ----------------------------------------------------------------------------

namespace {

class XdmfTimeSeriesWriter final : public TimeSeriesWriter {
 public:
  XdmfTimeSeriesWriter(const std::string& path, const WriteOptions& options, bool append)
      : path_(path), heavy_(path, [&] {
          HeavyOptions parsed = parse_options(path, options);
          // meshio's time series writes uncompressed datasets unless told otherwise.
          parsed.gzip_level = io::hdf5::gzip_level_option(options, path, kFormat, "none");
          parsed.append = append && std::filesystem::exists(path);
          // Appending: the heavy data goes on where the file's is, beside it (where every reader
          // looks, and where it was read from), never into a second "<stem>.h5" elsewhere.
          if (parsed.append) parsed.in_working_directory = false;
          return parsed;
        }()) {
    if (append && std::filesystem::exists(path)) open_existing();
  }

  void write_mesh(const Mesh& mesh) override {
    if (have_mesh_ && !appending_) throw WriteError(path_, std::string(kFormat), "write_points_cells() called twice");
    if (appending_) {  // the file's mesh stays; the one given must be it
      io::check_appended_mesh(path_, kFormat, stored_mesh_, mesh);
      return;
    }
    write_geometry(mesh_xml_, heavy_, mesh.points, path_);
    write_topology(mesh_xml_, heavy_, mesh.cells, path_);
    num_blocks_ = mesh.cells.size();
    have_mesh_ = true;
  }

  void write_step(const TimeStep& step) override {
    if (!have_mesh_) throw WriteError(path_, std::string(kFormat), "write_data() before write_points_cells()");
    for (const auto& [name, arrays] : step.cell_data)
      if (arrays.size() != num_blocks_)
        throw WriteError(path_, std::string(kFormat), "cell data '" + name + "' has " + std::to_string(arrays.size()) +
                                                          " arrays for " + std::to_string(num_blocks_) + " cell blocks");
    // Every step XIncludes the mesh grid's Topology and Geometry (written after the collection).
    steps_ += "<Grid GridType=\"Uniform\"><xi:include xpointer=\"xpointer(//Grid[@Name=&quot;mesh&quot;]/*[self::Topology or self::Geometry])\"/>";
    char scratch[40];
    const auto result = std::to_chars(scratch, scratch + sizeof scratch, step.time);
    steps_ += "<Time Value=\"" + std::string(scratch, result.ptr) + "\"/>";
    write_attributes(steps_, heavy_, step.point_data, step.cell_data, path_);
    steps_ += "</Grid>";
  }

  void close() override {
    if (closed_) return;
    std::string xml;
    if (appending_) {  // the file as it was, the new steps at the end of its collection
      xml.reserve(existing_.size() + steps_.size());
      xml.append(existing_, 0, insert_at_);
      xml += steps_;
      xml.append(existing_, insert_at_, std::string::npos);
    } else {
      xml = kHeader;
      xml += "<Grid Name=\"TimeSeries_meshio\" GridType=\"Collection\" CollectionType=\"Temporal\">";
      xml += steps_;
      xml += "</Grid>";
      if (have_mesh_) xml += "<Grid Name=\"mesh\" GridType=\"Uniform\">" + mesh_xml_ + "</Grid>";
      xml += kFooter;
    }
    heavy_.commit();
    write_text_file(path_, xml);
    closed_ = true;
  }

 private:
  // Append: the series as meshio and we write it — a Temporal collection whose steps XInclude
  // the Uniform grid "mesh". New steps go before the collection's end tag.
  void open_existing() {
    Context context(path_);
    const Document& document = *context.root().document;
    const Element* collection = nullptr;
    bool has_mesh_grid = false;
    for (const Element& element : document.elements) {
      if (element.name != "Grid") continue;
      const std::string* type = element.attribute("CollectionType");
      const std::string* name = element.attribute("Name");
      if (type && lower(*type) == "temporal" && !collection) collection = &element;
      if (name && *name == "mesh") has_mesh_grid = true;
    }
    if (!collection || !has_mesh_grid)
      throw WriteError(path_, std::string(kFormat),
                       "append: the file is not a time series of a Temporal collection and a Grid named 'mesh' "
                       "(meshio's and meshio++'s layout)");
    existing_ = std::string(document.bytes);
    insert_at_ = collection->content_end;
    stored_mesh_ = open_time_series(path_)->read_mesh();
    num_blocks_ = stored_mesh_.cells.size();
    have_mesh_ = appending_ = true;
  }

  std::string path_;
  HeavyData heavy_;
  std::string mesh_xml_, steps_;  // the mesh's Geometry and Topology; the step grids
  std::size_t num_blocks_ = 0;
  bool have_mesh_ = false, closed_ = false;
  bool appending_ = false;
  std::string existing_;       // append: the file's text
  std::size_t insert_at_ = 0;  // append: where the collection's end tag starts
  Mesh stored_mesh_;           // append: the file's mesh, which write_mesh() must match
};

}  // namespace

std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options) {
  return std::make_unique<XdmfTimeSeriesWriter>(path, options, false);
}

std::unique_ptr<TimeSeriesWriter> append_time_series(const std::string& path, const WriteOptions& options) {
  return std::make_unique<XdmfTimeSeriesWriter>(path, options, true);
}

}  // namespace meshioplusplus::xdmf
