// VTK legacy reader, geometry: POINTS, the cell sections (CELLS / CELL_TYPES, and POLYDATA's
// VERTICES / LINES / POLYGONS / TRIANGLE_STRIPS, in the counted layout before 5.0 and the
// OFFSETS / CONNECTIVITY one from 5.0 on), the structured grids' DIMENSIONS, ORIGIN, SPACING
// and *_COORDINATES, and then the points and cell blocks each dataset kind becomes (cell data
// split over them). Apart from the parsing of keyword lines and payloads (vtk_reader.cpp) and
// the attribute sections (vtk_reader_attributes.cpp): this is what differs per dataset kind.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/vtk/vtk_reader_internal.hpp"
#include "io/source/byte_order.hpp"
#include "io/source/read_limits.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::vtk::detail {
namespace {

constexpr LegacyType kInt32AsInt64{DType::int32, DType::int64};

// Looked up once per cell, so a table of all 256 possible ids rather than a search.
bool is_known_vtk_id(std::int64_t id) {
  static const std::array<bool, 256> known = [] {
    std::array<bool, 256> table{};
    for (int k : {kVtkPixel, kVtkVoxel, kVtkPolygon, kVtkPolyhedron}) table[static_cast<std::size_t>(k)] = true;
    for (const CellTypeInfo& info : cell_types())
      if (info.vtk_id >= 0 && info.vtk_id < 256) table[static_cast<std::size_t>(info.vtk_id)] = true;
    return table;
  }();
  return id >= 0 && id < 256 && known[static_cast<std::size_t>(id)];
}

NDArray slice_rows(const NDArray& data, std::int64_t first, std::int64_t count) {
  Shape shape = data.shape();
  shape[0] = count;
  NDArray part = NDArray::allocate(data.dtype(), shape);
  const std::size_t row_bytes = static_cast<std::size_t>(data.row_width()) * dtype_size(data.dtype());
  if (count > 0)
    std::memcpy(part.data(), static_cast<const char*>(data.data()) + first * row_bytes,
                static_cast<std::size_t>(count) * row_bytes);
  return part;
}

NDArray gather_rows(const NDArray& data, const std::vector<std::int64_t>& rows) {
  Shape shape = data.shape();
  shape[0] = static_cast<std::int64_t>(rows.size());
  NDArray part = NDArray::allocate(data.dtype(), shape);
  const std::size_t row_bytes = static_cast<std::size_t>(data.row_width()) * dtype_size(data.dtype());
  auto* out = static_cast<char*>(part.data());
  const auto* source = static_cast<const char*>(data.data());
  for (std::size_t i = 0; i < rows.size(); ++i)
    std::memcpy(out + i * row_bytes, source + rows[i] * row_bytes, row_bytes);
  return part;
}

std::vector<NDArray> distribute_cell_data(const NDArray& data, const std::vector<BlockRows>& blocks) {
  const bool contiguous = std::all_of(blocks.begin(), blocks.end(), [](const BlockRows& b) { return b.rows.empty(); });
  if (contiguous) {
    std::vector<io::CellRun> runs;
    runs.reserve(blocks.size());
    for (const BlockRows& block : blocks) runs.push_back({block.first, block.count});
    return io::split_cell_data(data, runs);
  }
  std::vector<NDArray> parts;
  parts.reserve(blocks.size());
  for (const BlockRows& block : blocks)
    parts.push_back(block.rows.empty() ? slice_rows(data, block.first, block.count) : gather_rows(data, block.rows));
  return parts;
}

// numpy.linspace(start, stop, n)[i], computed the way numpy computes it so generated
// image coordinates match meshio's bit for bit.
double linspace_value(double start, double stop, std::int64_t n, std::int64_t i) {
  if (n == 1) return start;
  if (i == n - 1) return stop;
  const double delta = stop - start;
  const auto divisions = static_cast<double>(n - 1);
  const double step = delta / divisions;
  if (step == 0) return static_cast<double>(i) / divisions * delta + start;
  return static_cast<double>(i) * step + start;
}

double value_as_double(const NDArray& array, std::int64_t index) {
  return visit_dtype(array.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return static_cast<double>(static_cast<const T*>(array.data())[index]);
  });
}

}  // namespace

// ---- geometry sections ----

void LegacyReader::read_points(const HeaderLine& header) {
  require_tokens(header, 3, "POINTS n dataType");
  const std::int64_t count = header_count(header, 1, "point count");
  const LegacyType type = header_type(header, 2);
  // Points are floating point in the mesh model; integral coordinates widen to float64.
  const DType memory = dtype_is_float(type.memory_dtype) ? type.memory_dtype : DType::float64;
  if (metadata_only_) {  // the count is the summary's; the coordinates are jumped over
    declared_points_ = count;
    skip_file_values(type, static_cast<std::uint64_t>(count) * 3, "POINTS");
    points_offset_ = header.offset;
    return;
  }
  mesh_.points = read_array(type, {count, 3}, "POINTS", memory);
  points_offset_ = header.offset;
}

CellArray& LegacyReader::polydata_section(const HeaderLine& header) {
  if (header.is("VERTICES")) return vertices_;
  if (header.is("LINES")) return lines_;
  if (header.is("POLYGONS")) return polygons_;
  return strips_;
}

// "KEYWORD n size" then either n cells as [count, ids…] (before 5.0), or, from 5.0 on,
// "KEYWORD n+1 size" followed by OFFSETS and CONNECTIVITY arrays.
void LegacyReader::read_cell_array(const HeaderLine& header, CellArray& cells) {
  if (cells.present) fail(header, "a second " + std::string(header.keyword()) + " section");
  require_tokens(header, 3, std::string(header.keyword()) + " n size");
  cells.present = true;
  cells.offset = header.offset;
  const std::int64_t first = header_count(header, 1, "cell count");
  const std::int64_t size = header_count(header, 2, "size");
  if (skips_cells()) return skip_cell_array(header, cells);
  if (next_line_starts_with("OFFSETS")) {
    read_offsets_and_connectivity(header, cells, first, size);
  } else {
    read_counted_cells(header, cells, first, size);
  }
}

void LegacyReader::read_offsets_and_connectivity(const HeaderLine& header, CellArray& cells, std::int64_t num_offsets,
                                   std::int64_t size) {
  const HeaderLine offsets_header = next_header_line();
  require_tokens(offsets_header, 2, "OFFSETS dataType");
  cells.offsets = read_index_vector(header_index_type(offsets_header, 1), num_offsets, "OFFSETS");
  if (cells.offsets.empty()) cells.offsets.push_back(0);
  const HeaderLine connectivity_header = next_header_line();
  if (!connectivity_header.is("CONNECTIVITY")) fail(connectivity_header, "expected CONNECTIVITY after OFFSETS");
  require_tokens(connectivity_header, 2, "CONNECTIVITY dataType");
  const LegacyType connectivity_type = header_index_type(connectivity_header, 1);
  if (binary_ && &cells == &cells_ && !connectivity_type.packed_bits) {
    require_available(static_cast<std::uint64_t>(size), connectivity_type, "CONNECTIVITY");
    cells.connectivity = NDArray::view(const_cast<char*>(document_.data() + scan_.position()),
                                       connectivity_type.file_dtype, {size});
    cells.connectivity_byte_swapped = io::kHostIsLittleEndian;
    scan_.seek(scan_.position() + static_cast<std::size_t>(size) * dtype_size(connectivity_type.file_dtype));
  } else {
    cells.connectivity = read_array(connectivity_type, {size}, "CONNECTIVITY", DType::int64);
  }
  if (cells.offsets.front() != 0 || cells.offsets.back() != size)
    fail(offsets_header, "OFFSETS must start at 0 and end at the connectivity size " + std::to_string(size));
  for (std::size_t c = 1; c < cells.offsets.size(); ++c)
    if (cells.offsets[c] < cells.offsets[c - 1]) fail(offsets_header, "OFFSETS decrease at cell " + std::to_string(c - 1));
}

void LegacyReader::read_counted_cells(const HeaderLine& header, CellArray& cells, std::int64_t num_cells, std::int64_t size) {
  if (size < num_cells) fail(header, "size " + std::to_string(size) + " is smaller than the cell count");
  require_available(static_cast<std::uint64_t>(size), kInt32AsInt64, header.keyword());
  const std::int64_t total = size - num_cells;  // every cell spends one value on its count
  cells.connectivity = NDArray::allocate(DType::int64, {total});
  cells.offsets.assign(static_cast<std::size_t>(num_cells) + 1, 0);
  std::int64_t* ids = cells.connectivity.data_as<std::int64_t>();
  const char* binary_cursor = document_.data() + scan_.position();
  auto next_value = [&]() -> std::int64_t {
    if (!binary_) return scan_.next_number<std::int64_t>();
    std::int32_t value;
    io::copy_from_file_order(&value, binary_cursor, 4, 1, false);
    binary_cursor += 4;
    return value;
  };
  std::int64_t written = 0;
  for (std::int64_t c = 0; c < num_cells; ++c) {
    if (!binary_) scan_.skip_whitespace();
    const auto count_offset =
        binary_ ? static_cast<std::size_t>(binary_cursor - document_.data()) : scan_.position();
    const std::int64_t count = next_value();
    if (count < 0 || count > total - written)
      scan_.fail_at(count_offset,
                    "cell " + std::to_string(c) + " of " + std::string(header.keyword()) + " claims " +
                        std::to_string(count) + " points, more than the declared size leaves");
    for (std::int64_t k = 0; k < count; ++k) ids[written++] = next_value();
    cells.offsets[static_cast<std::size_t>(c) + 1] = written;
  }
  if (binary_) scan_.seek(scan_.position() + static_cast<std::size_t>(size) * 4);
  if (written != total)
    fail(header, "declared size " + std::to_string(size) + " but the cells hold " + std::to_string(written + num_cells) +
                     " values");
}

void LegacyReader::read_cell_types(const HeaderLine& header) {
  require_tokens(header, 2, "CELL_TYPES n");
  if (skips_cells() && !metadata_only_) {  // points_only: no cells
    skip_file_values(kInt32AsInt64, static_cast<std::uint64_t>(header_count(header, 1, "cell count")), "CELL_TYPES");
    return;
  }
  cell_types_offset_ = header.offset;
  has_cell_types_ = true;
  // One byte per cell (every VTK id is below 256), decoded in chunks: no int64 copy of a
  // million-cell list. Unknown ids are reported here, at the section.
  const std::int64_t count = header_count(header, 1, "cell count");
  require_available(static_cast<std::uint64_t>(count), kInt32AsInt64, "CELL_TYPES");
  if (binary_) {
    if (metadata_only_ && file_ != nullptr && file_->is_mapped()) {
      read_cell_type_runs(count);  // vtk_reader_metadata.cpp: by pread, kept as runs
    } else {
      cell_types_.resize(static_cast<std::size_t>(count));
      decode_binary_cell_types(reinterpret_cast<const unsigned char*>(document_.data() + scan_.position()), count, 0,
                               cell_types_.data());
    }
    scan_.seek(scan_.position() + static_cast<std::size_t>(count) * 4);
    return;
  }
  cell_types_.resize(static_cast<std::size_t>(count));
  std::array<std::int64_t, 4096> chunk;
  for (std::int64_t first = 0; first < count; first += static_cast<std::int64_t>(chunk.size())) {
    const auto size = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(chunk.size()), count - first));
    decode_values(kInt32AsInt64, DType::int64, chunk.data(), size);
    for (std::size_t k = 0; k < size; ++k) {
      if (!is_known_vtk_id(chunk[k]))
        scan_.fail_at(cell_types_offset_, "unknown VTK cell type " + std::to_string(chunk[k]) + " (cell " +
                                              std::to_string(first + static_cast<std::int64_t>(k)) + ")");
      cell_types_[static_cast<std::size_t>(first) + k] = static_cast<std::uint8_t>(chunk[k]);
    }
  }
}

// `count` big-endian int32 cell types (cells first_cell…), read in place: an id is the last byte
// of a value whose first three are zero (the decode costs more than the rest of a metadata read).
// Each value is checked once per run of equal values, the run's end found 64 values at a time
// (then 8, then 1): a mesh of one type is one run. Written to `ids` (one byte a cell), or, when null,
// appended to cell_type_runs_ (a run going on from the previous call is extended).
void LegacyReader::decode_binary_cell_types(const unsigned char* bytes, std::int64_t count, std::int64_t first_cell,
                                            std::uint8_t* ids) {
  for (std::int64_t c = 0; c < count;) {
    const unsigned char* at = bytes + 4 * c;
    const std::uint32_t value = (std::uint32_t{at[0]} << 24) | (std::uint32_t{at[1]} << 16) |
                                (std::uint32_t{at[2]} << 8) | std::uint32_t{at[3]};
    if (value > 255 || !is_known_vtk_id(value))
      scan_.fail_at(cell_types_offset_, "unknown VTK cell type " + std::to_string(static_cast<std::int32_t>(value)) +
                                            " (cell " + std::to_string(first_cell + c) + ")");
    std::uint32_t raw;
    std::memcpy(&raw, at, sizeof raw);
    const std::uint64_t twice = std::uint64_t{raw} | std::uint64_t{raw} << 32;
    const auto differs = [&](std::int64_t k) {  // values k, k + 1 against the run's
      std::uint64_t pair;
      std::memcpy(&pair, bytes + 4 * k, sizeof pair);
      return pair ^ twice;
    };
    std::int64_t end = c + 1;
    // 64 values equal their predecessors, hence the run's value: one vectorised memcmp.
    while (count - end >= 64 && std::memcmp(bytes + 4 * (end - 1), bytes + 4 * end, 256) == 0) end += 64;
    while (count - end >= 8 && (differs(end) | differs(end + 2) | differs(end + 4) | differs(end + 6)) == 0) end += 8;
    while (end < count && std::memcmp(bytes + 4 * end, &raw, sizeof raw) == 0) ++end;
    const auto id = static_cast<std::uint8_t>(value);
    if (ids != nullptr) std::memset(ids + c, id, static_cast<std::size_t>(end - c));
    else if (!cell_type_runs_.empty() && cell_type_runs_.back().id == id) cell_type_runs_.back().cells += end - c;
    else cell_type_runs_.push_back({id, end - c});
    c = end;
  }
}

void LegacyReader::read_dimensions(const HeaderLine& header) {
  require_tokens(header, 4, "DIMENSIONS nx ny nz");
  dimensions_offset_ = header.offset;
  std::array<std::int64_t, 3> dims{};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    dims[axis] = header_count(header, axis + 1, "dimension");
    if (dims[axis] < 1) fail(header, "DIMENSIONS must be at least 1 along every axis");
  }
  if (element_count({dims[0], dims[1], dims[2]}) > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / 64))
    fail(header, "DIMENSIONS describe more points than can be addressed");
  // STRUCTURED_POINTS and RECTILINEAR_GRID points (and every grid's cells) are generated,
  // not read: a few bytes of header would otherwise decide gigabytes. Checked against the
  // read limit here, before anything is allocated for them.
  if (dataset_ == Dataset::structured_points || dataset_ == Dataset::rectilinear_grid) {
    const std::uint64_t points = element_count({dims[0], dims[1], dims[2]});
    io::check_claim_fits_limit(scan_.path(), detail::kFormatName, "grid points (DIMENSIONS)", points,
                               3 * sizeof(double), io::ClaimSite{header.offset, io::line_of_offset(document_, header.offset)});
    // Hexahedra, 8 int64 nodes each, at most one per point.
    io::check_claim_fits_limit(scan_.path(), detail::kFormatName, "grid cells (DIMENSIONS)", points,
                               8 * sizeof(std::int64_t), io::ClaimSite{header.offset, io::line_of_offset(document_, header.offset)});
  }
  dimensions_ = dims;
}

void LegacyReader::read_coordinates(const HeaderLine& header) {
  require_tokens(header, 3, std::string(header.keyword()) + " n dataType");
  const auto axis = static_cast<std::size_t>(std::toupper(static_cast<unsigned char>(header.keyword()[0])) - 'X');
  const std::int64_t count = header_count(header, 1, "coordinate count");
  coordinates_[axis] = read_array(header_type(header, 2), {count}, header.keyword());
  coordinates_offset_[axis] = header.offset;
}

// ---- assembling the mesh ----

Mesh LegacyReader::finish() {
  if (!dataset_) scan_.fail_at(document_.size(), "no DATASET in the file");
  try {
    switch (*dataset_) {
      case Dataset::unstructured_grid: finish_unstructured_grid(); break;
      case Dataset::polydata: finish_polydata(); break;
      case Dataset::structured_points: finish_structured_points(); break;
      case Dataset::structured_grid: finish_structured_grid(); break;
      case Dataset::rectilinear_grid: finish_rectilinear_grid(); break;
    }
  } catch (const std::bad_alloc&) {
    scan_.fail_at(dimensions_offset_, "the dataset is too large to build in memory");
  }
  check_attribute_counts();
  for (const auto& [name, data] : raw_cell_data_) mesh_.cell_data.set(name, distribute_cell_data(data, block_rows_));
  return std::move(mesh_);
}

void LegacyReader::require_points() {
  if (mesh_.points.empty_handle()) scan_.fail_at(document_.size(), std::string(dataset_name(*dataset_)) + " without POINTS");
}

void LegacyReader::add_blocks(io::VtkCells cells, std::int64_t source_base, const std::vector<std::int64_t>& source_of_cell) {
  for (std::size_t b = 0; b < cells.blocks.size(); ++b) {
    const io::CellRun run = cells.runs[b];
    BlockRows rows{source_base + run.first_cell, run.cell_count, {}};
    if (!source_of_cell.empty()) {
      rows.rows.reserve(static_cast<std::size_t>(run.cell_count));
      for (std::int64_t c = run.first_cell; c < run.first_cell + run.cell_count; ++c)
        rows.rows.push_back(source_base + source_of_cell[static_cast<std::size_t>(c)]);
    }
    mesh_.cells.push_back(std::move(cells.blocks[b]));
    block_rows_.push_back(std::move(rows));
  }
}

io::VtkCells LegacyReader::convert_cells(const CellArray& cells, std::span<const std::uint8_t> types) {
  io::VtkCellStream stream;
  stream.types = types;
  stream.offsets = cells.offsets;
  stream.connectivity = cells.connectivity;
  stream.connectivity_byte_swapped = cells.connectivity_byte_swapped;
  stream.num_points = mesh_.num_points();
  // A polyhedron's list holds its face stream [nfaces, n0, ids…, …] (VTK writes it so in 4.2
  // and in 5.1 alike, and has no separate FACES section): the cell list is the face list.
  if (std::find(types.begin(), types.end(), static_cast<std::uint8_t>(kVtkPolyhedron)) != types.end()) {
    stream.faces = cells.connectivity;
    stream.face_offsets = cells.offsets;
    stream.faces_byte_swapped = cells.connectivity_byte_swapped;
  }
  try {
    return io::cells_from_vtk(stream);
  } catch (const io::CellStreamError& error) {
    scan_.fail_at(cells.offset, error.what());
  }
}

void LegacyReader::finish_unstructured_grid() {
  require_points();
  if (!cells_.present && !has_cell_types_) return;  // a point cloud
  if (!cells_.present) scan_.fail_at(cell_types_offset_, "CELL_TYPES without CELLS");
  if (!has_cell_types_) scan_.fail_at(cells_.offset, "CELLS without CELL_TYPES");
  if (static_cast<std::int64_t>(cell_types_.size()) != cells_.num_cells())
    scan_.fail_at(cell_types_offset_, "CELL_TYPES lists " + std::to_string(cell_types_.size()) +
                                          " cells but CELLS has " + std::to_string(cells_.num_cells()));
  num_source_cells_ = cells_.num_cells();
  add_blocks(convert_cells(cells_, cell_types_), 0, {});
}

void LegacyReader::require_min_size(const CellArray& section, std::int64_t minimum, std::string_view what) {
  for (std::int64_t c = 0; c < section.num_cells(); ++c)
    if (section.size_of(c) < minimum)
      scan_.fail_at(section.offset, std::string(what) + " cell " + std::to_string(c) + " has " +
                                        std::to_string(section.size_of(c)) + " points, fewer than " +
                                        std::to_string(minimum));
}

bool LegacyReader::all_sizes_equal(const CellArray& section, std::int64_t size) const {
  for (std::int64_t c = 0; c < section.num_cells(); ++c)
    if (section.size_of(c) != size) return false;
  return true;
}

LegacyReader::PolydataCells LegacyReader::vertex_cells(const CellArray& section) {
  require_min_size(section, 1, "VERTICES");
  PolydataCells out{section, {}, {}};
  if (!all_sizes_equal(section, 1)) {
    // Each point of a poly-vertex becomes its own vertex; the connectivity is unchanged.
    const std::int64_t total = section.offsets.back();
    out.cells.offsets.resize(static_cast<std::size_t>(total) + 1);
    for (std::int64_t i = 0; i <= total; ++i) out.cells.offsets[static_cast<std::size_t>(i)] = i;
    for (std::int64_t c = 0; c < section.num_cells(); ++c)
      out.source_of_cell.insert(out.source_of_cell.end(), static_cast<std::size_t>(section.size_of(c)), c);
  }
  out.types.assign(static_cast<std::size_t>(out.cells.num_cells()), 1);
  return out;
}

// Splits every cell of `section` into `pieces(size)` cells of `nodes` points each,
// filling their point ids with `emit(source ids, piece, out)`.
template <class Pieces, class Emit>
LegacyReader::PolydataCells LegacyReader::split_cells(const CellArray& section, int vtk_id, std::int64_t nodes, Pieces pieces, Emit emit) {
  std::int64_t total = 0;
  for (std::int64_t c = 0; c < section.num_cells(); ++c) total += pieces(section.size_of(c));
  PolydataCells out;
  out.cells.present = true;
  out.cells.offset = section.offset;
  out.cells.connectivity = NDArray::allocate(DType::int64, {total * nodes});
  out.cells.offsets.resize(static_cast<std::size_t>(total) + 1);
  out.types.assign(static_cast<std::size_t>(total), vtk_id);
  out.source_of_cell.reserve(static_cast<std::size_t>(total));
  const std::int64_t* source = section.connectivity.data_as<std::int64_t>();
  std::int64_t* target = out.cells.connectivity.data_as<std::int64_t>();
  std::int64_t cell = 0;
  for (std::int64_t c = 0; c < section.num_cells(); ++c) {
    const std::int64_t* ids = source + section.offsets[static_cast<std::size_t>(c)];
    for (std::int64_t piece = 0; piece < pieces(section.size_of(c)); ++piece, ++cell) {
      emit(ids, piece, target + cell * nodes);
      out.cells.offsets[static_cast<std::size_t>(cell) + 1] = (cell + 1) * nodes;
      out.source_of_cell.push_back(c);
    }
  }
  return out;
}

LegacyReader::PolydataCells LegacyReader::line_cells(const CellArray& section) {
  require_min_size(section, 2, "LINES");
  if (all_sizes_equal(section, 2))
    return {section, std::vector<std::uint8_t>(static_cast<std::size_t>(section.num_cells()), 3), {}};
  return split_cells(
      section, 3, 2, [](std::int64_t size) { return size - 1; },
      [](const std::int64_t* ids, std::int64_t piece, std::int64_t* out) {
        out[0] = ids[piece];
        out[1] = ids[piece + 1];
      });
}

LegacyReader::PolydataCells LegacyReader::polygon_cells(const CellArray& section) {
  require_min_size(section, 3, "POLYGONS");
  const int vtk_id = all_sizes_equal(section, 3) ? 5 : all_sizes_equal(section, 4) ? 9 : kVtkPolygon;
  return {section, std::vector<std::uint8_t>(static_cast<std::size_t>(section.num_cells()), static_cast<std::uint8_t>(vtk_id)), {}};
}

LegacyReader::PolydataCells LegacyReader::strip_cells(const CellArray& section) {
  require_min_size(section, 3, "TRIANGLE_STRIPS");
  // VTK's decomposition: triangle i is (i, i+1, i+2), with the first two swapped for odd
  // i so that all triangles share the strip's orientation.
  return split_cells(
      section, 5, 3, [](std::int64_t size) { return size - 2; },
      [](const std::int64_t* ids, std::int64_t piece, std::int64_t* out) {
        const bool odd = piece % 2 == 1;
        out[0] = ids[piece + (odd ? 1 : 0)];
        out[1] = ids[piece + (odd ? 0 : 1)];
        out[2] = ids[piece + 2];
      });
}

void LegacyReader::finish_polydata() {
  require_points();
  // VTK numbers polydata cells (and their cell data) vertices, lines, polygons, strips.
  const std::pair<const CellArray*, PolydataCells (LegacyReader::*)(const CellArray&)> sections[] = {
      {&vertices_, &LegacyReader::vertex_cells},
      {&lines_, &LegacyReader::line_cells},
      {&polygons_, &LegacyReader::polygon_cells},
      {&strips_, &LegacyReader::strip_cells},
  };
  std::int64_t source_base = 0;
  for (const auto& [section, convert] : sections) {
    if (!section->present) continue;
    const PolydataCells cells = (this->*convert)(*section);
    add_blocks(convert_cells(cells.cells, cells.types), source_base, cells.source_of_cell);
    source_base += section->num_cells();
  }
  num_source_cells_ = source_base;
}

std::array<std::int64_t, 3> LegacyReader::require_dimensions() {
  if (!dimensions_) scan_.fail_at(document_.size(), std::string(dataset_name(*dataset_)) + " without DIMENSIONS");
  return *dimensions_;
}

// meshio's cells for a structured grid (io::structured_grid_cells): the axes longer than
// one point span lines, quads or hexahedra, x varying fastest in both numberings.
void LegacyReader::add_structured_cells(const std::array<std::int64_t, 3>& dims) {
  std::optional<CellBlock> block = io::structured_grid_cells(dims);
  if (!block) return;
  const std::int64_t num_cells = block->num_cells();
  mesh_.cells.push_back(std::move(*block));
  block_rows_.push_back({0, num_cells, {}});
  num_source_cells_ = num_cells;
}

void LegacyReader::finish_structured_points() {
  const auto dims = require_dimensions();
  const std::array<double, 3> origin = origin_.value_or(std::array<double, 3>{0, 0, 0});
  const std::array<double, 3> spacing = spacing_.value_or(std::array<double, 3>{1, 1, 1});
  std::array<std::vector<double>, 3> axes;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const double stop = origin[axis] + static_cast<double>(dims[axis] - 1) * spacing[axis];
    for (std::int64_t i = 0; i < dims[axis]; ++i)
      axes[axis].push_back(linspace_value(origin[axis], stop, dims[axis], i));
  }
  mesh_.points = NDArray::allocate(DType::float64, {dims[0] * dims[1] * dims[2], 3});
  fill_grid_points<double>(dims, [&](std::size_t axis, std::int64_t i) { return axes[axis][static_cast<std::size_t>(i)]; });
  add_structured_cells(dims);
}

template <class T, class Coordinate>
void LegacyReader::fill_grid_points(const std::array<std::int64_t, 3>& dims, Coordinate coordinate) {
  T* out = mesh_.points.data_as<T>();
  for (std::int64_t k = 0; k < dims[2]; ++k)
    for (std::int64_t j = 0; j < dims[1]; ++j)
      for (std::int64_t i = 0; i < dims[0]; ++i) {
        *out++ = static_cast<T>(coordinate(0, i));
        *out++ = static_cast<T>(coordinate(1, j));
        *out++ = static_cast<T>(coordinate(2, k));
      }
}

void LegacyReader::finish_structured_grid() {
  const auto dims = require_dimensions();
  require_points();
  if (mesh_.num_points() != dims[0] * dims[1] * dims[2])
    scan_.fail_at(points_offset_, "POINTS holds " + std::to_string(mesh_.num_points()) + " points but DIMENSIONS need " +
                                      std::to_string(dims[0] * dims[1] * dims[2]));
  add_structured_cells(dims);
}

void LegacyReader::finish_rectilinear_grid() {
  const auto dims = require_dimensions();
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (coordinates_[axis].empty_handle())
      scan_.fail_at(document_.size(), "RECTILINEAR_GRID without " + std::string(1, static_cast<char>('X' + axis)) +
                                          "_COORDINATES");
    if (coordinates_[axis].rows() != dims[axis])
      scan_.fail_at(coordinates_offset_[axis], "coordinate count " + std::to_string(coordinates_[axis].rows()) +
                                                   " differs from DIMENSIONS " + std::to_string(dims[axis]));
  }
  const DType x_dtype = coordinates_[0].dtype();
  const DType dtype = dtype_is_float(x_dtype) ? x_dtype : DType::float64;
  mesh_.points = NDArray::allocate(dtype, {dims[0] * dims[1] * dims[2], 3});
  auto coordinate = [&](std::size_t axis, std::int64_t i) { return value_as_double(coordinates_[axis], i); };
  if (dtype == DType::float32) {
    fill_grid_points<float>(dims, coordinate);
  } else {
    fill_grid_points<double>(dims, coordinate);
  }
  add_structured_cells(dims);
}

}  // namespace meshioplusplus::vtk::detail
