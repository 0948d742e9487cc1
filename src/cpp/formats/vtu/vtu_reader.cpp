// VTK XML UnstructuredGrid reader.
//
// The shared DataArray layer (io/vtk/vtk_xml_data.hpp) scans the XML part of the mapped file once
// into a layout (which arrays exist, where their bytes are) and decodes every array straight
// into an NDArray allocated once in its final dtype and shape. This file is what is particular
// to an UnstructuredGrid: the Cells section (types, offsets, connectivity, polyhedron faces in
// both of VTK's layouts) turned into blocks by the VTK cell-stream converter. Nothing is
// trusted before it is checked against the file: sizes against the bytes present, counts
// against NumberOfPoints/NumberOfCells, indices by the converter.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/vtk_xml/vtk_xml_common.hpp"
#include "formats/vtu/vtu.hpp"
#include "formats/vtu/vtu_common.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "io/vtk/vtk_type_runs.hpp"
#include "io/vtk/vtk_xml_data.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtu {
namespace {

using detail::kFormatName;
using namespace vtk_xml_detail;

constexpr std::array<std::string_view, 1> kTypes{"UnstructuredGrid"};

// A polyhedron face stream in the legacy VTU layout, as io::cells_from_vtk expects it.
struct FaceStream {
  NDArray faces;
  std::vector<std::int64_t> starts;
};

class Reader {
 public:
  explicit Reader(const io::MappedFile& file) : reader_(file, kFormatName) {}

  Mesh read(const ReadRequest* request = nullptr) {
    scan();
    if (request != nullptr && request->arrays) {
      check_requested_arrays(*request, reader_.data_array_names(), reader_.path());
      reader_.keep_data_arrays(*request->arrays);
    } else if (request != nullptr && request->points_only) {
      reader_.keep_data_arrays({});
    }
    Mesh mesh;
    mesh.points = read_points(reader_, points_);
    read_point_data(reader_, points_, mesh);
    // points_only skips the cells, unless a cell array is asked for too: the registry then
    // checks the names against what was read, and drops the cells itself.
    if (request == nullptr || !request->points_only || asks_for_cell_data(*request)) read_cells(mesh);
    reader_.read_field_data(mesh);
    return mesh;
  }

  MeshMetadata metadata() {
    scan();
    MeshMetadata summary;
    summary.header_only = true;
    const io::vtk_xml::DocumentLayout& layout = reader_.layout();
    summary.variant = layout.has_appended ? (layout.appended_base64 ? "appended base64" : "appended raw") : "inline";
    if (!layout.compressor.empty()) summary.variant += ", " + layout.compressor;
    std::int64_t total_cells = 0;
    io::VtkTypeCounts counts;  // counted by runs: a mesh of one type is one run
    for (std::size_t p = 0; p < layout.pieces.size(); ++p) {
      summary.num_points += points_[p];
      total_cells += cells_[p];
      if (cells_[p] == 0) continue;
      reader_.count_cell_types(require_cell_array(layout.pieces[p], cells_[p], "types"), cells_[p], counts);
    }
    const auto& per_type = counts.cells;
    // One entry per type, in file order, named as the reader names its blocks (polygons and
    // polyhedra of every size: one entry each); the full read splits a type into runs.
    for (std::size_t id : counts.first_seen) {
      const CellTypeInfo* type = id == kVtkPolygon ? find_cell_type("polygon")
                                 : id == kVtkPolyhedron ? find_cell_type("polyhedron")
                                                        : cell_type_from_vtk(static_cast<int>(id), 0);
      summary.cell_blocks.push_back({type != nullptr ? std::string(type->name) : "vtk" + std::to_string(id), per_type[id]});
    }
    const auto add_arrays = [&](std::string_view section_name, DataAssociation association, std::int64_t rows) {
      for (const Piece& piece : layout.pieces) {
        const Section* section = piece.section(section_name);
        if (section == nullptr) continue;
        for (const ArrayInfo& info : section->arrays) {
          std::vector<std::int64_t> shape{rows};
          if (info.components > 1) shape.push_back(info.components);
          summary.arrays.push_back({info.name, association, *info.dtype, std::move(shape)});
        }
        return;  // the first piece names the arrays every piece has
      }
    };
    add_arrays("PointData", DataAssociation::point, summary.num_points);
    add_arrays("CellData", DataAssociation::cell, total_cells);
    for (const ArrayInfo& info : layout.field_data) {
      if (info.is_string()) continue;
      std::vector<std::int64_t> shape{info.tuples.value_or(-1)};
      if (info.components > 1) shape.push_back(info.components);
      summary.arrays.push_back({info.name, DataAssociation::field, *info.dtype, std::move(shape)});
    }
    return summary;
  }

 private:
  bool asks_for_cell_data(const ReadRequest& request) const {
    if (!request.arrays) return false;
    for (const Piece& piece : reader_.layout().pieces)
      if (const Section* cell_data = piece.section("CellData"))
        for (const ArrayInfo& info : cell_data->arrays)
          if (std::find(request.arrays->begin(), request.arrays->end(), info.name) != request.arrays->end()) return true;
    return false;
  }

  void scan() {
    reader_.scan(kTypes);
    for (const Piece& piece : reader_.layout().pieces) {
      points_.push_back(piece_count(reader_, piece, "NumberOfPoints"));
      cells_.push_back(piece_count(reader_, piece, "NumberOfCells"));
    }
  }

  std::size_t cells_offset(const Piece& piece) const {
    const Section* cells = piece.section("Cells");
    return cells ? cells->tag_offset : piece.tag_offset;
  }

  const ArrayInfo& require_cell_array(const Piece& piece, std::int64_t num_cells, std::string_view name) const {
    const Section* cells = piece.section("Cells");
    const ArrayInfo* info = cells ? cells->find(name) : nullptr;
    if (info == nullptr)
      reader_.fail(cells_offset(piece), "piece has " + std::to_string(num_cells) + " cells but no '" + std::string(name) +
                                            "' array");
    if (info->is_string()) reader_.fail(info->tag_offset, DataArrayReader::label(*info) + " must be numeric");
    return *info;
  }

  FaceStream read_legacy_faces(const Piece& piece, std::int64_t num_cells, std::span<const std::uint8_t> types) const {
    const ArrayInfo& offsets_info = require_cell_array(piece, num_cells, "faceoffsets");
    const std::vector<std::int64_t> ends = reader_.read_index_vector(offsets_info, num_cells);
    FaceStream stream;
    stream.starts.assign(types.size() + 1, 0);
    std::int64_t end = 0;
    // Non-polyhedron cells carry -1; a polyhedron's faces run from the previous one's end.
    for (std::size_t c = 0; c < types.size(); ++c) {
      if (types[c] == kVtkPolyhedron) {
        if (ends[c] < end) reader_.fail(offsets_info.tag_offset, DataArrayReader::label(offsets_info) + " decreases at cell " + std::to_string(c));
        end = ends[c];
      }
      stream.starts[c + 1] = end;
    }
    stream.faces = reader_.read_integer_array(require_cell_array(piece, num_cells, "faces"), end, Lifetime::scratch);
    return stream;
  }

  // VTK 9.4+ layout: polyhedron_offsets/polyhedron_to_faces index a face table
  // (face_offsets/face_connectivity); rebuilt here as the legacy per-cell face stream.
  FaceStream read_face_table(const Piece& piece, std::int64_t num_cells, std::span<const std::uint8_t> types) const {
    const ArrayInfo& cell_offsets_info = require_cell_array(piece, num_cells, "polyhedron_offsets");
    const NDArray cell_starts_array = reader_.read_starts(cell_offsets_info, num_cells);
    const std::span<const std::int64_t> cell_starts = cell_starts_array.values<std::int64_t>();
    const ArrayInfo& to_faces_info = require_cell_array(piece, num_cells, "polyhedron_to_faces");
    const std::vector<std::int64_t> to_faces = reader_.read_index_vector(to_faces_info, cell_starts.back());
    const ArrayInfo& face_offsets_info = require_cell_array(piece, num_cells, "face_offsets");
    const auto face_count = static_cast<std::int64_t>(reader_.stored_count(face_offsets_info));
    const NDArray face_starts_array = reader_.read_starts(face_offsets_info, face_count);
    const std::span<const std::int64_t> face_starts = face_starts_array.values<std::int64_t>();
    const std::vector<std::int64_t> nodes =
        reader_.read_index_vector(require_cell_array(piece, num_cells, "face_connectivity"), face_starts.back());

    // A face belongs to at most two cells in any real mesh; a table that references faces
    // far more often than that would only inflate memory.
    const auto expansion_limit = 4 * static_cast<std::int64_t>(types.size() + to_faces.size() + nodes.size());
    std::int64_t total = 0;
    for (std::size_t c = 0; c < types.size(); ++c) {
      if (types[c] != kVtkPolyhedron) continue;
      total += 1;
      for (std::int64_t k = cell_starts[c]; k < cell_starts[c + 1]; ++k) {
        const std::int64_t face = to_faces[static_cast<std::size_t>(k)];
        if (face < 0 || face >= face_count)
          reader_.fail(to_faces_info.tag_offset, DataArrayReader::label(to_faces_info) + " names face " + std::to_string(face) + " of " +
                                             std::to_string(face_count));
        total += 1 + face_starts[face + 1] - face_starts[face];
        if (total > expansion_limit)
          reader_.fail(to_faces_info.tag_offset, "polyhedron face table references its faces implausibly often");
      }
    }
    FaceStream stream;
    stream.faces = NDArray::allocate_scratch(DType::int64, {total});
    std::int64_t* out = stream.faces.data_as<std::int64_t>();
    stream.starts.assign(types.size() + 1, 0);
    std::int64_t written = 0;
    for (std::size_t c = 0; c < types.size(); ++c) {
      if (types[c] == kVtkPolyhedron) {
        out[written++] = cell_starts[c + 1] - cell_starts[c];
        for (std::int64_t k = cell_starts[c]; k < cell_starts[c + 1]; ++k) {
          const std::int64_t face = to_faces[static_cast<std::size_t>(k)];
          out[written++] = face_starts[face + 1] - face_starts[face];
          for (std::int64_t i = face_starts[face]; i < face_starts[face + 1]; ++i) out[written++] = nodes[i];
        }
      }
      stream.starts[c + 1] = written;
    }
    return stream;
  }

  static bool forms_one_rectangular_run(std::span<const std::uint8_t> types, std::span<const std::int64_t> starts) {
    if (types.empty() || types.front() == kVtkPolygon || types.front() == kVtkPolyhedron) return false;
    const std::int64_t nodes = starts[1] - starts[0];
    const std::uint8_t type = types.front();
    return !io::any_in_parallel(types.size(), [&types, &starts, type, nodes](std::size_t c) {
      return (types[c] != type) | (starts[c + 1] - starts[c] != nodes);
    });
  }

  io::VtkCells read_piece_cells(const Piece& piece, std::int64_t num_points, std::int64_t num_cells) const {
    if (num_cells == 0) return {};
    const NDArray types_array = reader_.read_cell_types(require_cell_array(piece, num_cells, "types"), num_cells);
    const NDArray starts_array = reader_.read_starts(require_cell_array(piece, num_cells, "offsets"), num_cells);
    const std::span<const std::uint8_t> types = types_array.values<std::uint8_t>();
    const std::span<const std::int64_t> starts = starts_array.values<std::int64_t>();
    io::VtkCellStream stream;
    stream.types = types;
    stream.offsets = starts;
    // int64 connectivity of a single rectangular run becomes the block's array as it is;
    // anything else is parsing scratch, converted/split into blocks allocated once each.
    const ArrayInfo& connectivity = require_cell_array(piece, num_cells, "connectivity");
    const bool kept_as_is = *connectivity.dtype == DType::int64 && forms_one_rectangular_run(types, starts);
    std::optional<NDArray> in_file = kept_as_is ? std::nullopt : reader_.mapped_values(connectivity, starts.back());
    stream.connectivity = in_file ? std::move(*in_file)
                                  : reader_.read_integer_array(connectivity, starts.back(),
                                                               kept_as_is ? Lifetime::result : Lifetime::scratch);
    stream.connectivity_is_shareable = kept_as_is;
    stream.num_points = num_points;
    FaceStream faces;
    if (std::memchr(types.data(), kVtkPolyhedron, types.size()) != nullptr) {
      const Section* cells = piece.section("Cells");
      faces = cells->find("polyhedron_offsets") ? read_face_table(piece, num_cells, types)
                                                 : read_legacy_faces(piece, num_cells, types);
      stream.faces = faces.faces;
      stream.face_offsets = faces.starts;
    }
    try {
      return io::cells_from_vtk(stream);
    } catch (const io::CellStreamError& error) {
      reader_.fail(cells_offset(piece), error.what());
    }
  }

  void read_cells(Mesh& mesh) const {
    const auto& pieces = reader_.layout().pieces;
    const Piece* reference = nullptr;
    for (std::size_t p = 0; p < pieces.size(); ++p)
      if (reference == nullptr && cells_[p] > 0) reference = &pieces[p];
    std::int64_t first_point = 0;
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      io::VtkCells cells = read_piece_cells(pieces[p], points_[p], cells_[p]);
      if (cells_[p] > 0) {
        std::vector<RowSelection> selections;
        for (const io::CellRun& run : cells.runs) selections.push_back({run.first_cell, run.cell_count, {}});
        append_cell_data(reader_, pieces[p], cells_[p], selections, *reference, mesh);
      }
      shift_point_indices(cells.blocks, first_point);
      for (CellBlock& block : cells.blocks) mesh.cells.push_back(std::move(block));
      first_point += points_[p];
    }
  }

  DataArrayReader reader_;
  std::vector<std::int64_t> points_, cells_;  // per piece
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormatName);
  io::reject_empty_file(file.bytes(), path, kFormatName);
  return Reader(file).read();
}

Mesh read_selected(const std::string& path, const ReadRequest& request) {
  const io::MappedFile file(path, kFormatName);
  io::reject_empty_file(file.bytes(), path, kFormatName);
  return Reader(file).read(&request);
}

MeshMetadata read_metadata(const std::string& path) {
  const io::MappedFile file(path, kFormatName);
  io::reject_empty_file(file.bytes(), path, kFormatName);
  return Reader(file).metadata();
}

}  // namespace meshioplusplus::vtu
