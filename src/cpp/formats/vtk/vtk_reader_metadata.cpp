// VTK legacy reader, reading less (include/meshioplusplus/read_selection.hpp): a selective read
// that jumps over the attribute arrays a request does not name (binary: by their byte count;
// ASCII: token by token, without number conversion) and, for points_only alone, over the cell
// sections; and a header-only summary of an UNSTRUCTURED_GRID: POINTS and CELLS are jumped
// over, CELL_TYPES (one small value per cell; a mapped file's by pread) is read for the blocks, the attribute headers
// give the arrays' names, dtypes and shapes. The blocks are the full read's runs of one VTK
// type (io::cells_from_vtk also cuts a run where a fixed-size type's node count changes, which
// only a malformed or Lagrange-type file does; such a file's blocks are named by type alone).
// The other datasets are read and summarised: their blocks (POLYDATA's splits, the structured
// grids' computed cells) depend on more than the headers.
#include <algorithm>
#include <string>
#include <utility>

#include "formats/vtk/vtk.hpp"
#include "formats/vtk/vtk_reader_internal.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/vtk/vtk_type_runs.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::vtk::detail {
namespace {

constexpr LegacyType kInt32Values{DType::int32, DType::int64};

}  // namespace

Mesh LegacyReader::read_selected(const ReadRequest& request) {
  request_ = &request;
  return read();
}

bool LegacyReader::skips_array(const std::string& name) const {
  if (metadata_only_) return true;
  if (request_ == nullptr) return false;
  if (!request_->arrays) return request_->points_only;  // points_only alone keeps no data
  return std::find(request_->arrays->begin(), request_->arrays->end(), name) == request_->arrays->end();
}

// points_only without arrays keeps no cells; with arrays the cells are read, since a cell array
// may be named (the registry checks the names against the read, then drops the cells).
bool LegacyReader::skips_cells() const {
  return metadata_only_ || (request_ != nullptr && request_->points_only && !request_->arrays);
}

void LegacyReader::skip_file_values(const LegacyType& type, std::uint64_t count, std::string_view what) {
  require_available(count, type, what);
  if (binary_) {
    scan_.seek(scan_.position() + (type.packed_bits ? (count + 7) / 8 : count * dtype_size(type.file_dtype)));
    return;
  }
  // A tight loop over the bytes: every byte up to ' ' separates tokens.
  const char* data = document_.data();
  std::size_t at = scan_.position();
  const auto separator = [](char c) { return static_cast<unsigned char>(c) <= ' '; };
  for (std::uint64_t i = 0; i < count; ++i) {
    while (at < document_.size() && separator(data[at])) ++at;
    if (at == document_.size())
      scan_.fail_at(at, std::string(what) + ": the file ends after " + std::to_string(i) + " of " +
                            std::to_string(count) + " values");
    while (at < document_.size() && !separator(data[at])) ++at;
  }
  scan_.seek(at);
}

// The cell section after its "KEYWORD n size" line, jumped over: [count, ids…] lists or
// (5.x) OFFSETS and CONNECTIVITY.
void LegacyReader::skip_cell_array(const HeaderLine& header, CellArray& cells) {
  const std::int64_t first = header_count(header, 1, "cell count");
  const std::int64_t size = header_count(header, 2, "size");
  cells.present = !skips_cells() || metadata_only_;
  if (!next_line_starts_with("OFFSETS")) return skip_file_values(kInt32Values, static_cast<std::uint64_t>(size), header.keyword());
  const HeaderLine offsets_header = next_header_line();
  require_tokens(offsets_header, 2, "OFFSETS dataType");
  skip_file_values(header_index_type(offsets_header, 1), static_cast<std::uint64_t>(first), "OFFSETS");
  const HeaderLine connectivity_header = next_header_line();
  if (!connectivity_header.is("CONNECTIVITY")) fail(connectivity_header, "expected CONNECTIVITY after OFFSETS");
  require_tokens(connectivity_header, 2, "CONNECTIVITY dataType");
  skip_file_values(header_index_type(connectivity_header, 1), static_cast<std::uint64_t>(size), "CONNECTIVITY");
}

// An attribute or FIELD array: read and stored, or jumped over (and summarised in a metadata
// read) when the request leaves it out.
void LegacyReader::read_attribute(std::string_view encoded_name, const LegacyType& type, Shape shape,
                                  std::string_view what) {
  const std::string name = decode_name(encoded_name);
  if (!skips_array(name)) return store_attribute(encoded_name, read_array(type, std::move(shape), what));
  skip_file_values(type, element_count(shape), what);
  if (!metadata_only_) return;
  const DataAssociation association = attribute_ == Attribute::point  ? DataAssociation::point
                                      : attribute_ == Attribute::cell ? DataAssociation::cell
                                                                      : DataAssociation::field;
  NamedList<ArraySummary>& list = attribute_ == Attribute::point  ? point_summaries_
                                  : attribute_ == Attribute::cell ? cell_summaries_
                                                                  : field_summaries_;
  list.set(name, ArraySummary{name, association, type.memory_dtype, std::vector<std::int64_t>(shape.begin(), shape.end())});
}

// CELL_TYPES of a mapped binary file, copied out by pread a cache-sized chunk at a time and kept
// as runs: mapping its 4 MB (a million cells) in and out cost more than the rest of the summary.
void LegacyReader::read_cell_type_runs(std::int64_t count) {
  constexpr std::int64_t kChunkValues = 65536;
  std::vector<unsigned char> chunk(4 * static_cast<std::size_t>(std::min(count, kChunkValues)));
  const std::size_t start = scan_.position();
  cell_type_runs_.clear();  // a second CELL_TYPES replaces the first, as in the full read
  for (std::int64_t done = 0; done < count;) {
    const std::int64_t values = std::min(kChunkValues, count - done);
    const std::size_t offset = start + 4 * static_cast<std::size_t>(done);
    if (!file_->copy_out(offset, chunk.data(), 4 * static_cast<std::size_t>(values)))
      scan_.fail_at(offset, "CELL_TYPES: the file ended while being read");
    decode_binary_cell_types(chunk.data(), values, done, nullptr);
    done += values;
  }
}

std::optional<MeshMetadata> LegacyReader::metadata() {
  metadata_only_ = true;
  read_preamble();
  while (true) {
    scan_.skip_whitespace();
    if (scan_.at_end()) break;
    dispatch(next_header_line());
    if (dataset_ && *dataset_ != Dataset::unstructured_grid) return std::nullopt;
  }
  if (!dataset_) scan_.fail_at(document_.size(), "no DATASET in the file");
  if (points_offset_ == 0) scan_.fail_at(document_.size(), "UNSTRUCTURED_GRID without POINTS");
  if (cells_.present && !has_cell_types_) scan_.fail_at(cells_.offset, "CELLS without CELL_TYPES");
  if (!cells_.present && has_cell_types_) scan_.fail_at(cell_types_offset_, "CELL_TYPES without CELLS");
  for (std::size_t first = 0; first < cell_types_.size();) {  // not read as runs: cut into runs here
    const std::size_t end = io::vtk_type_run_end({cell_types_.data(), cell_types_.size()}, first);
    cell_type_runs_.push_back({cell_types_[first], static_cast<std::int64_t>(end - first)});
    first = end;
  }
  std::int64_t num_cells = 0;
  for (const TypeRun& run : cell_type_runs_) num_cells += run.cells;
  if (point_data_count_.count >= 0 && point_data_count_.count != declared_points_)
    scan_.fail_at(point_data_count_.offset, "POINT_DATA declares " + std::to_string(point_data_count_.count) +
                                                " values but the dataset has " + std::to_string(declared_points_) + " points");
  if (cell_data_count_.count >= 0 && cell_data_count_.count != num_cells)
    scan_.fail_at(cell_data_count_.offset, "CELL_DATA declares " + std::to_string(cell_data_count_.count) +
                                               " values but the dataset has " + std::to_string(num_cells) + " cells");

  MeshMetadata summary;
  summary.header_only = true;
  summary.variant = binary_ ? "binary" : "ascii";
  summary.num_points = declared_points_;
  for (const auto& [id, cells] : cell_type_runs_) {
    const CellTypeInfo* type = id == kVtkPolygon      ? find_cell_type("polygon")
                               : id == kVtkPolyhedron ? find_cell_type("polyhedron")
                                                      : cell_type_from_vtk(id, 0);
    summary.cell_blocks.push_back({type != nullptr ? std::string(type->name) : "vtk" + std::to_string(id), cells});
  }
  for (const NamedList<ArraySummary>* list : {&point_summaries_, &cell_summaries_, &field_summaries_})
    for (const auto& [name, entry] : *list) summary.arrays.push_back(entry);
  return summary;
}

}  // namespace meshioplusplus::vtk::detail

namespace meshioplusplus::vtk {

Mesh read_selected(const std::string& path, const ReadRequest& request) {
  const io::MappedFile file(path, detail::kFormatName);
  io::reject_empty_file(file.bytes(), path, detail::kFormatName);
  return detail::LegacyReader(file.bytes(), path).read_selected(request);
}

MeshMetadata read_metadata(const std::string& path) {
  {
    const io::MappedFile file(path, detail::kFormatName);
    io::reject_empty_file(file.bytes(), path, detail::kFormatName);
    if (std::optional<MeshMetadata> summary = detail::LegacyReader(file.bytes(), path, &file).metadata()) return *std::move(summary);
  }
  return summarize(read(path), detail::kFormatName);
}

}  // namespace meshioplusplus::vtk
