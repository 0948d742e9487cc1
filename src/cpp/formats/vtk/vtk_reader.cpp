// VTK legacy (.vtk) reader: file versions 1.0-5.1, ASCII and BINARY (big-endian), datasets
// UNSTRUCTURED_GRID, POLYDATA, STRUCTURED_POINTS, STRUCTURED_GRID and RECTILINEAR_GRID.
//
// The file is memory-mapped and parsed in one forward pass. Every array is allocated once,
// in its final dtype and shape, and decoded straight into it; only per-cell bookkeeping
// (cell types, offsets) goes through scratch vectors. Counts are checked against the file
// length before anything is allocated, so a corrupt header cannot drive a huge allocation
// or a read past the end.
//
// Where this reader follows meshio (5.3) and where it deliberately differs:
//  - Structured datasets become points (x fastest) plus one block of line (1-D), quad (2-D:
//    one dimension is 1) or hexahedron cells, numbered exactly as meshio numbers them.
//    STRUCTURED_POINTS coordinates are computed like numpy.linspace; points are float64.
//    RECTILINEAR_GRID points take the dtype of X_COORDINATES (float64 if that is integral).
//    Missing ORIGIN / SPACING default to 0 / 1 (VTK's defaults; meshio fails).
//  - SCALARS are (n, numComp) even for one component, VECTORS and NORMALS (n, 3), TENSORS
//    (n, 3, 3), FIELD arrays (numTuples,) for one component and (numTuples, numComp)
//    otherwise — all as meshio. METADATA blocks are skipped up to the blank line that ends
//    them, as meshio does.
//  - meshio rejects POLYDATA. Here VERTICES become vertex cells, LINES line cells, POLYGONS
//    triangle (all have 3 nodes), quad (all have 4) or polygon cells, TRIANGLE_STRIPS the
//    triangles VTK decomposes them into (alternate ones flipped to keep the orientation).
//    Poly-vertices and polylines are split into vertices and segments the same way; cell
//    data is repeated for every piece a cell was split into.
//  - meshio drops COLOR_SCALARS and fails on NORMALS, TEXTURE_COORDINATES, TENSORS6,
//    GLOBAL_IDS and PEDIGREE_IDS; they are kept here: COLOR_SCALARS as float32 (ASCII) or
//    uint8 (binary) (n, nValues), TEXTURE_COORDINATES (n, dim), TENSORS6 (n, 6), the ids (n,).
//  - Array names are %XX-decoded (VTK escapes blanks that way); meshio keeps them raw.
//  - Binary 'bit' arrays are unpacked (8 values per byte, most significant bit first) into
//    uint8 0/1; 'vtkIdType' arrays, which VTK writes as 32-bit ints, become int64.
//  - Wedges are reordered into meshio's node order, as meshio does (io::cells_from_vtk).
//  - Polyhedra (type 42) and string arrays are not supported and raise a ReadError.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/vtk/vtk.hpp"
#include "formats/vtk/vtk_common.hpp"
#include "io/byte_order.hpp"
#include "io/mapped_file.hpp"
#include "io/read_limits.hpp"
#include "io/text_scanner.hpp"
#include "io/vtk_cells.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtk {
namespace {

using detail::equals_ignoring_case;
using detail::LegacyType;

enum class Dataset { unstructured_grid, polydata, structured_points, structured_grid, rectilinear_grid };

constexpr std::pair<std::string_view, Dataset> kDatasets[] = {
    {"UNSTRUCTURED_GRID", Dataset::unstructured_grid}, {"POLYDATA", Dataset::polydata},
    {"STRUCTURED_POINTS", Dataset::structured_points}, {"STRUCTURED_GRID", Dataset::structured_grid},
    {"RECTILINEAR_GRID", Dataset::rectilinear_grid},
};

std::string_view dataset_name(Dataset dataset) {
  for (const auto& [name, value] : kDatasets)
    if (value == dataset) return name;
  return "?";
}

// Which part of the dataset the attribute arrays being read belong to.
enum class Attribute { none, point, cell };

constexpr LegacyType kInt32AsInt64{DType::int32, DType::int64};

// One keyword line: "POINTS 8 float", "SCALARS pressure double 1" …
struct HeaderLine {
  std::size_t offset = 0;
  std::vector<std::string_view> tokens;

  std::string_view keyword() const noexcept { return tokens.empty() ? std::string_view() : tokens[0]; }
  bool is(std::string_view name) const noexcept { return equals_ignoring_case(keyword(), name); }
};

// A cell list as stored in CELLS, VERTICES, LINES, POLYGONS or TRIANGLE_STRIPS.
struct CellArray {
  bool present = false;
  std::size_t offset = 0;                // of its keyword, for errors
  std::vector<std::int64_t> offsets{0};  // n+1 start offsets into connectivity
  NDArray connectivity;                  // int64 (total,), or the file's bytes (below)
  // A binary UNSTRUCTURED_GRID's CONNECTIVITY is a view of the file's big-endian values: the
  // cell converter swaps them as it gathers them into blocks, one pass instead of two.
  bool connectivity_byte_swapped = false;

  std::int64_t num_cells() const noexcept { return static_cast<std::int64_t>(offsets.size()) - 1; }
  std::int64_t size_of(std::int64_t cell) const noexcept { return offsets[cell + 1] - offsets[cell]; }
};

// A declared POINT_DATA / CELL_DATA count and where it was declared.
struct DeclaredCount {
  std::int64_t count = -1;
  std::size_t offset = 0;
};

// The source cells whose data a block carries: a contiguous range, or explicit rows when
// cells were split (polylines, strips).
struct BlockRows {
  std::int64_t first = 0;
  std::int64_t count = 0;
  std::vector<std::int64_t> rows;  // empty: [first, first + count)
};

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

class LegacyReader {
 public:
  LegacyReader(std::string_view bytes, const std::string& path)
      : document_(bytes), scan_(bytes, path, detail::kFormatName) {}

  Mesh read() {
    read_preamble();
    while (true) {
      scan_.skip_whitespace();
      if (scan_.at_end()) break;
      dispatch(next_header_line());
    }
    return finish();
  }

 private:
  // ---- preamble and keyword dispatch ----

  void read_preamble() {
    const std::string_view signature = scan_.next_line();
    constexpr std::string_view kSignature = "# vtk DataFile Version";
    if (signature.size() < kSignature.size() ||
        !equals_ignoring_case(signature.substr(0, kSignature.size()), kSignature))
      scan_.fail_at(0, "not a VTK legacy file: the first line must start with '# vtk DataFile Version'");
    check_version(signature.substr(kSignature.size()));
    scan_.next_line();  // the title: free text
    scan_.skip_whitespace();
    const std::size_t format_offset = scan_.position();
    const std::string_view format = trim(scan_.next_line());
    if (equals_ignoring_case(format, "BINARY")) {
      binary_ = true;
    } else if (!equals_ignoring_case(format, "ASCII")) {
      scan_.fail_at(format_offset, "expected ASCII or BINARY, found '" + std::string(format.substr(0, 40)) + "'");
    }
  }

  void check_version(std::string_view text) {
    text = trim(text);
    int major = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), major);
    if (result.ec != std::errc{} || major < 1 || major > 5)
      scan_.fail_at(0, "unsupported file version '" + std::string(text.substr(0, 20)) + "' (1.0 to 5.1 are read)");
  }

  static std::string_view trim(std::string_view text) {
    while (!text.empty() && io::is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && io::is_space(text.back())) text.remove_suffix(1);
    return text;
  }

  // Reads a whole keyword line, so binary data starts right after its line break.
  HeaderLine next_header_line() {
    scan_.skip_whitespace();
    HeaderLine header;
    header.offset = scan_.position();
    const std::string_view line = scan_.next_line();
    std::size_t at = 0;
    while (at < line.size()) {
      while (at < line.size() && io::is_space(line[at])) ++at;
      const std::size_t start = at;
      while (at < line.size() && !io::is_space(line[at])) ++at;
      if (at > start) header.tokens.push_back(line.substr(start, at - start));
    }
    return header;
  }

  void dispatch(const HeaderLine& header) {
    if (header.is("METADATA")) return skip_metadata();
    if (!dataset_) {
      if (!header.is("DATASET"))
        fail(header, "expected DATASET, found '" + std::string(header.keyword().substr(0, 40)) + "'");
      return read_dataset_kind(header);
    }
    if (header.is("DATASET")) fail(header, "a second DATASET line");
    if (header.is("FIELD")) return read_field(header);
    if (header.is("POINT_DATA")) return declare_attribute(header, Attribute::point, point_data_count_);
    if (header.is("CELL_DATA")) return declare_attribute(header, Attribute::cell, cell_data_count_);
    if (dispatch_geometry(header)) return;
    if (dispatch_attribute(header)) return;
    fail(header, "unknown keyword '" + std::string(header.keyword().substr(0, 40)) + "'");
  }

  bool dispatch_geometry(const HeaderLine& header) {
    const Dataset dataset = *dataset_;
    auto allowed = [&](std::initializer_list<Dataset> kinds) {
      if (std::find(kinds.begin(), kinds.end(), dataset) == kinds.end())
        fail(header, std::string(header.keyword()) + " does not belong in a " + std::string(dataset_name(dataset)) +
                         " dataset");
    };
    if (header.is("POINTS")) {
      allowed({Dataset::unstructured_grid, Dataset::polydata, Dataset::structured_grid});
      read_points(header);
    } else if (header.is("CELLS")) {
      allowed({Dataset::unstructured_grid});
      read_cell_array(header, cells_);
    } else if (header.is("CELL_TYPES")) {
      allowed({Dataset::unstructured_grid});
      read_cell_types(header);
    } else if (header.is("VERTICES") || header.is("LINES") || header.is("POLYGONS") ||
               header.is("TRIANGLE_STRIPS")) {
      allowed({Dataset::polydata});
      read_cell_array(header, polydata_section(header));
    } else if (header.is("DIMENSIONS")) {
      allowed({Dataset::structured_points, Dataset::structured_grid, Dataset::rectilinear_grid});
      read_dimensions(header);
    } else if (header.is("ORIGIN")) {
      allowed({Dataset::structured_points});
      origin_ = read_triple(header);
    } else if (header.is("SPACING") || header.is("ASPECT_RATIO")) {
      allowed({Dataset::structured_points});
      spacing_ = read_triple(header);
    } else if (header.is("X_COORDINATES") || header.is("Y_COORDINATES") || header.is("Z_COORDINATES")) {
      allowed({Dataset::rectilinear_grid});
      read_coordinates(header);
    } else {
      return false;
    }
    return true;
  }

  bool dispatch_attribute(const HeaderLine& header) {
    constexpr std::string_view kAttributeKeywords[] = {
        "SCALARS", "COLOR_SCALARS", "LOOKUP_TABLE", "VECTORS", "NORMALS", "TEXTURE_COORDINATES",
        "TENSORS", "TENSORS6", "GLOBAL_IDS", "PEDIGREE_IDS"};
    if (std::none_of(std::begin(kAttributeKeywords), std::end(kAttributeKeywords),
                     [&](std::string_view keyword) { return header.is(keyword); }))
      return false;
    if (attribute_ == Attribute::none)
      fail(header, std::string(header.keyword()) + " outside POINT_DATA / CELL_DATA");
    const std::int64_t rows = attribute_count().count;
    if (header.is("SCALARS")) {
      read_scalars(header, rows);
    } else if (header.is("COLOR_SCALARS")) {
      read_color_scalars(header, rows);
    } else if (header.is("LOOKUP_TABLE")) {
      skip_lookup_table(header);
    } else if (header.is("VECTORS") || header.is("NORMALS")) {
      read_named_array(header, {rows, 3});
    } else if (header.is("TEXTURE_COORDINATES")) {
      read_texture_coordinates(header, rows);
    } else if (header.is("TENSORS")) {
      read_named_array(header, {rows, 3, 3});
    } else if (header.is("TENSORS6")) {
      read_named_array(header, {rows, 6});
    } else {  // GLOBAL_IDS, PEDIGREE_IDS
      read_named_array(header, {rows});
    }
    return true;
  }

  void read_dataset_kind(const HeaderLine& header) {
    require_tokens(header, 2, "DATASET type");
    for (const auto& [name, value] : kDatasets)
      if (equals_ignoring_case(header.tokens[1], name)) {
        dataset_ = value;
        return;
      }
    fail(header, "unknown DATASET '" + std::string(header.tokens[1].substr(0, 40)) +
                     "' (known: UNSTRUCTURED_GRID, POLYDATA, STRUCTURED_POINTS, STRUCTURED_GRID, "
                     "RECTILINEAR_GRID)");
  }

  // METADATA (INFORMATION / COMPONENT_NAMES) describes arrays for VTK's pipeline only; it
  // ends at the first blank line.
  void skip_metadata() {
    while (!scan_.at_end())
      if (trim(scan_.next_line()).empty()) return;
  }

  // ---- header-line values ----

  [[noreturn]] void fail(const HeaderLine& header, const std::string& message) const {
    scan_.fail_at(header.offset, message);
  }

  void require_tokens(const HeaderLine& header, std::size_t count, std::string_view usage) const {
    if (header.tokens.size() < count) fail(header, "expected '" + std::string(usage) + "'");
  }

  std::int64_t header_count(const HeaderLine& header, std::size_t index, std::string_view what) const {
    const std::string_view token = header.tokens.at(index);
    std::int64_t value = 0;
    const auto result = std::from_chars(token.data(), token.data() + token.size(), value);
    if (result.ec != std::errc{} || result.ptr != token.data() + token.size() || value < 0)
      fail(header, "invalid " + std::string(what) + " '" + std::string(token.substr(0, 40)) + "' in " +
                       std::string(header.keyword()));
    return value;
  }

  double header_real(const HeaderLine& header, std::size_t index) const {
    const std::string_view token = header.tokens.at(index);
    double value = 0;
    const char* first = token.data() + (token.starts_with('+') ? 1 : 0);
    const auto result = std::from_chars(first, token.data() + token.size(), value);
    if (result.ec != std::errc{} || result.ptr != token.data() + token.size())
      fail(header, "invalid number '" + std::string(token.substr(0, 40)) + "' in " + std::string(header.keyword()));
    return value;
  }

  LegacyType header_type(const HeaderLine& header, std::size_t index) const {
    const std::string_view token = header.tokens.at(index);
    if (const auto type = detail::parse_legacy_type(token)) return *type;
    fail(header, "unsupported data type '" + std::string(token.substr(0, 40)) + "' in " + std::string(header.keyword()));
  }

  LegacyType header_index_type(const HeaderLine& header, std::size_t index) const {
    const LegacyType type = header_type(header, index);
    if (dtype_is_float(type.memory_dtype))
      fail(header, std::string(header.keyword()) + " must hold integers, not '" + std::string(header.tokens[index]) + "'");
    return type;
  }

  std::array<double, 3> read_triple(const HeaderLine& header) const {
    require_tokens(header, 4, std::string(header.keyword()) + " x y z");
    return {header_real(header, 1), header_real(header, 2), header_real(header, 3)};
  }

  // True (and positioned on it) when the next line starts with `keyword`; otherwise the
  // position is left alone, since in a binary file the data may start right here.
  bool next_line_starts_with(std::string_view keyword) {
    std::size_t at = scan_.position();
    while (at < document_.size() && io::is_space(document_[at])) ++at;
    if (document_.size() - at < keyword.size() || !equals_ignoring_case(document_.substr(at, keyword.size()), keyword))
      return false;
    const std::size_t after = at + keyword.size();
    if (after < document_.size() && !io::is_space(document_[after])) return false;
    scan_.seek(at);
    return true;
  }

  // ---- array payloads ----

  static std::uint64_t element_count(const Shape& shape) {
    std::uint64_t count = 1;
    for (const std::int64_t dim : shape) {
      const auto extent = static_cast<std::uint64_t>(dim);
      if (extent != 0 && count > std::numeric_limits<std::uint64_t>::max() / 16 / extent)
        return std::numeric_limits<std::uint64_t>::max();
      count *= extent;
    }
    return count;
  }

  // Fails unless `count` values of `type` can still follow, so no corrupt count leads to a
  // huge allocation or to reading past the end of the file.
  void require_available(std::uint64_t count, const LegacyType& type, std::string_view what) const {
    const std::uint64_t remaining = document_.size() - scan_.position();
    if (binary_) {
      const std::uint64_t element = dtype_size(type.file_dtype);
      const bool too_many = count > std::numeric_limits<std::uint64_t>::max() / 8;
      const std::uint64_t needed = type.packed_bits ? (count + 7) / 8 : count * element;
      if (too_many || needed > remaining)
        scan_.fail(std::string(what) + " needs " + (too_many ? std::string("too many") : std::to_string(needed)) +
                   " bytes of binary data but only " + std::to_string(remaining) + " remain");
    } else if (count > (remaining + 1) / 2) {
      scan_.fail(std::string(what) + " declares " + std::to_string(count) +
                 " values but the rest of the file can hold at most " + std::to_string((remaining + 1) / 2));
    }
  }

  // Decodes `count` values into `target`, converting from the file's type to `target_dtype`.
  void decode_values(const LegacyType& type, DType target_dtype, void* target, std::size_t count) {
    if (binary_) return decode_binary(type, target_dtype, target, count);
    visit_dtype(target_dtype, [&](auto tag) {
      using T = decltype(tag);
      T* out = static_cast<T*>(target);
      for (std::size_t i = 0; i < count; ++i) out[i] = scan_.next_number<T>();
      if (type.packed_bits)
        for (std::size_t i = 0; i < count; ++i) out[i] = out[i] != T{0} ? T{1} : T{0};
    });
  }

  void decode_binary(const LegacyType& type, DType target_dtype, void* target, std::size_t count) {
    const char* source = document_.data() + scan_.position();
    if (type.packed_bits) {
      // Packed bits only ever land in uint8 targets (their memory dtype).
      auto* out = static_cast<std::uint8_t*>(target);
      for (std::size_t i = 0; i < count; ++i)
        out[i] = (static_cast<unsigned char>(source[i / 8]) >> (7 - i % 8)) & 1u;
      scan_.seek(scan_.position() + (count + 7) / 8);
      return;
    }
    const std::size_t element = dtype_size(type.file_dtype);
    if (type.file_dtype == target_dtype) {
      io::copy_from_file_order(target, source, element, count, /*file_is_little_endian=*/false);
    } else {
      visit_dtype(type.file_dtype, [&](auto file_tag) {
        using FileT = decltype(file_tag);
        visit_dtype(target_dtype, [&](auto target_tag) {
          using T = decltype(target_tag);
          T* out = static_cast<T*>(target);
          for (std::size_t i = 0; i < count; ++i) {
            FileT value;
            io::copy_from_file_order(&value, source + i * sizeof(FileT), sizeof(FileT), 1, false);
            out[i] = static_cast<T>(value);
          }
        });
      });
    }
    scan_.seek(scan_.position() + count * element);
  }

  NDArray read_array(const LegacyType& type, Shape shape, std::string_view what) {
    return read_array(type, std::move(shape), what, type.memory_dtype);
  }

  NDArray read_array(const LegacyType& type, Shape shape, std::string_view what, DType memory_dtype) {
    const std::uint64_t count = element_count(shape);
    require_available(count, type, what);
    NDArray array = NDArray::allocate(memory_dtype, std::move(shape));
    decode_values(type, memory_dtype, array.data(), static_cast<std::size_t>(count));
    return array;
  }

  std::vector<std::int64_t> read_index_vector(const LegacyType& type, std::int64_t count, std::string_view what) {
    require_available(static_cast<std::uint64_t>(count), type, what);
    std::vector<std::int64_t> values(static_cast<std::size_t>(count));
    decode_values(type, DType::int64, values.data(), values.size());
    return values;
  }

  void skip_values(const LegacyType& type, std::uint64_t count, std::string_view what) {
    require_available(count, type, what);
    if (binary_) {
      scan_.seek(scan_.position() + (type.packed_bits ? (count + 7) / 8 : count * dtype_size(type.file_dtype)));
      return;
    }
    for (std::uint64_t i = 0; i < count; ++i) scan_.next_number<double>();
  }

  // ---- geometry sections ----

  void read_points(const HeaderLine& header) {
    require_tokens(header, 3, "POINTS n dataType");
    const std::int64_t count = header_count(header, 1, "point count");
    const LegacyType type = header_type(header, 2);
    // Points are floating point in the mesh model; integral coordinates widen to float64.
    const DType memory = dtype_is_float(type.memory_dtype) ? type.memory_dtype : DType::float64;
    mesh_.points = read_array(type, {count, 3}, "POINTS", memory);
    points_offset_ = header.offset;
  }

  CellArray& polydata_section(const HeaderLine& header) {
    if (header.is("VERTICES")) return vertices_;
    if (header.is("LINES")) return lines_;
    if (header.is("POLYGONS")) return polygons_;
    return strips_;
  }

  // "KEYWORD n size" then either n cells as [count, ids…] (before 5.0), or, from 5.0 on,
  // "KEYWORD n+1 size" followed by OFFSETS and CONNECTIVITY arrays.
  void read_cell_array(const HeaderLine& header, CellArray& cells) {
    if (cells.present) fail(header, "a second " + std::string(header.keyword()) + " section");
    require_tokens(header, 3, std::string(header.keyword()) + " n size");
    cells.present = true;
    cells.offset = header.offset;
    const std::int64_t first = header_count(header, 1, "cell count");
    const std::int64_t size = header_count(header, 2, "size");
    if (next_line_starts_with("OFFSETS")) {
      read_offsets_and_connectivity(header, cells, first, size);
    } else {
      read_counted_cells(header, cells, first, size);
    }
  }

  void read_offsets_and_connectivity(const HeaderLine& header, CellArray& cells, std::int64_t num_offsets,
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

  void read_counted_cells(const HeaderLine& header, CellArray& cells, std::int64_t num_cells, std::int64_t size) {
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

  void read_cell_types(const HeaderLine& header) {
    require_tokens(header, 2, "CELL_TYPES n");
    cell_types_offset_ = header.offset;
    has_cell_types_ = true;
    // One byte per cell (every VTK id is below 256), decoded in chunks: no int64 copy of a
    // million-cell list. Unknown ids are reported here, at the section.
    const std::int64_t count = header_count(header, 1, "cell count");
    require_available(static_cast<std::uint64_t>(count), kInt32AsInt64, "CELL_TYPES");
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

  void read_dimensions(const HeaderLine& header) {
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

  void read_coordinates(const HeaderLine& header) {
    require_tokens(header, 3, std::string(header.keyword()) + " n dataType");
    const auto axis = static_cast<std::size_t>(std::toupper(static_cast<unsigned char>(header.keyword()[0])) - 'X');
    const std::int64_t count = header_count(header, 1, "coordinate count");
    coordinates_[axis] = read_array(header_type(header, 2), {count}, header.keyword());
    coordinates_offset_[axis] = header.offset;
  }

  // ---- attribute sections ----

  void declare_attribute(const HeaderLine& header, Attribute attribute, DeclaredCount& declared) {
    require_tokens(header, 2, std::string(header.keyword()) + " n");
    const std::int64_t count = header_count(header, 1, "count");
    if (declared.count >= 0 && declared.count != count)
      fail(header, std::string(header.keyword()) + " declared again with a different count");
    declared = {count, header.offset};
    attribute_ = attribute;
  }

  const DeclaredCount& attribute_count() const {
    return attribute_ == Attribute::point ? point_data_count_ : cell_data_count_;
  }

  void store_attribute(std::string_view encoded_name, NDArray array) {
    std::string name = detail::decode_name(encoded_name);
    if (attribute_ == Attribute::point) {
      mesh_.point_data.set(std::move(name), std::move(array));
    } else if (attribute_ == Attribute::cell) {
      raw_cell_data_.set(std::move(name), std::move(array));
    } else {
      mesh_.field_data.set(std::move(name), std::move(array));
    }
  }

  // "KEYWORD name dataType" followed by rows of fixed shape.
  void read_named_array(const HeaderLine& header, Shape shape) {
    require_tokens(header, 3, std::string(header.keyword()) + " name dataType");
    store_attribute(header.tokens[1], read_array(header_type(header, 2), std::move(shape), header.keyword()));
  }

  void read_scalars(const HeaderLine& header, std::int64_t rows) {
    require_tokens(header, 3, "SCALARS name dataType [numComp]");
    const LegacyType type = header_type(header, 2);
    const std::int64_t components = header.tokens.size() > 3 ? header_count(header, 3, "numComp") : 1;
    if (components < 1 || components > 4) fail(header, "SCALARS numComp must be 1 to 4");
    if (next_line_starts_with("LOOKUP_TABLE")) scan_.next_line();  // the table's name; colours are not kept
    store_attribute(header.tokens[1], read_array(type, {rows, components}, "SCALARS"));
  }

  // Colours are bytes in binary files but floats in [0, 1] in ASCII ones; each keeps its type.
  void read_color_scalars(const HeaderLine& header, std::int64_t rows) {
    require_tokens(header, 3, "COLOR_SCALARS name nValues");
    const std::int64_t components = header_count(header, 2, "nValues");
    store_attribute(header.tokens[1], read_array(color_type(), {rows, components}, "COLOR_SCALARS"));
  }

  LegacyType color_type() const noexcept {
    return binary_ ? LegacyType{DType::uint8, DType::uint8} : LegacyType{DType::float32, DType::float32};
  }

  void read_texture_coordinates(const HeaderLine& header, std::int64_t rows) {
    require_tokens(header, 4, "TEXTURE_COORDINATES name dim dataType");
    const std::int64_t dim = header_count(header, 2, "dim");
    if (dim < 1 || dim > 3) fail(header, "TEXTURE_COORDINATES dim must be 1, 2 or 3");
    store_attribute(header.tokens[1], read_array(header_type(header, 3), {rows, dim}, "TEXTURE_COORDINATES"));
  }

  void skip_lookup_table(const HeaderLine& header) {
    require_tokens(header, 3, "LOOKUP_TABLE name size");
    const std::int64_t size = header_count(header, 2, "size");
    if (size > std::numeric_limits<std::int64_t>::max() / 4) fail(header, "LOOKUP_TABLE size is too large");
    skip_values(color_type(), static_cast<std::uint64_t>(size) * 4, "LOOKUP_TABLE");  // RGBA per entry
  }

  void read_field(const HeaderLine& header) {
    require_tokens(header, 3, "FIELD name numArrays");
    const std::int64_t num_arrays = header_count(header, 2, "array count");
    for (std::int64_t index = 0; index < num_arrays;) {
      scan_.skip_whitespace();
      if (scan_.at_end())
        fail(header, "FIELD declares " + std::to_string(num_arrays) + " arrays but the file ends after " +
                         std::to_string(index));
      const HeaderLine array_header = next_header_line();
      if (array_header.is("METADATA")) {
        skip_metadata();
        continue;
      }
      ++index;
      if (array_header.is("NULL_ARRAY")) continue;
      read_field_array(array_header);
    }
  }

  void read_field_array(const HeaderLine& header) {
    require_tokens(header, 4, "arrayName numComponents numTuples dataType");
    const std::int64_t components = header_count(header, 1, "numComponents");
    const std::int64_t tuples = header_count(header, 2, "numTuples");
    if (components < 1) fail(header, "numComponents must be at least 1");
    if (attribute_ != Attribute::none && tuples != attribute_count().count)
      fail(header, "array '" + std::string(header.tokens[0]) + "' has " + std::to_string(tuples) +
                       " tuples but its section declares " + std::to_string(attribute_count().count));
    const LegacyType type = header_type(header, 3);
    Shape shape = components == 1 ? Shape{tuples} : Shape{tuples, components};
    store_attribute(header.tokens[0], read_array(type, std::move(shape), "FIELD array"));
  }

  // ---- assembling the mesh ----

  Mesh finish() {
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

  void require_points() {
    if (mesh_.points.empty_handle()) scan_.fail_at(document_.size(), std::string(dataset_name(*dataset_)) + " without POINTS");
  }

  void add_blocks(io::VtkCells cells, std::int64_t source_base, const std::vector<std::int64_t>& source_of_cell) {
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

  io::VtkCells convert_cells(const CellArray& cells, std::span<const std::uint8_t> types) {
    io::VtkCellStream stream;
    stream.types = types;
    stream.offsets = cells.offsets;
    stream.connectivity = cells.connectivity;
    stream.connectivity_byte_swapped = cells.connectivity_byte_swapped;
    stream.num_points = mesh_.num_points();
    try {
      return io::cells_from_vtk(stream);
    } catch (const io::CellStreamError& error) {
      scan_.fail_at(cells.offset, error.what());
    }
  }

  void finish_unstructured_grid() {
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

  // One POLYDATA section turned into a VTK cell stream of single cells, plus, when cells
  // were split, which source cell each output cell came from.
  struct PolydataCells {
    CellArray cells;
    std::vector<std::uint8_t> types;
    std::vector<std::int64_t> source_of_cell;
  };

  void require_min_size(const CellArray& section, std::int64_t minimum, std::string_view what) {
    for (std::int64_t c = 0; c < section.num_cells(); ++c)
      if (section.size_of(c) < minimum)
        scan_.fail_at(section.offset, std::string(what) + " cell " + std::to_string(c) + " has " +
                                          std::to_string(section.size_of(c)) + " points, fewer than " +
                                          std::to_string(minimum));
  }

  bool all_sizes_equal(const CellArray& section, std::int64_t size) const {
    for (std::int64_t c = 0; c < section.num_cells(); ++c)
      if (section.size_of(c) != size) return false;
    return true;
  }

  PolydataCells vertex_cells(const CellArray& section) {
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
  PolydataCells split_cells(const CellArray& section, int vtk_id, std::int64_t nodes, Pieces pieces, Emit emit) {
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

  PolydataCells line_cells(const CellArray& section) {
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

  PolydataCells polygon_cells(const CellArray& section) {
    require_min_size(section, 3, "POLYGONS");
    const int vtk_id = all_sizes_equal(section, 3) ? 5 : all_sizes_equal(section, 4) ? 9 : kVtkPolygon;
    return {section, std::vector<std::uint8_t>(static_cast<std::size_t>(section.num_cells()), static_cast<std::uint8_t>(vtk_id)), {}};
  }

  PolydataCells strip_cells(const CellArray& section) {
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

  void finish_polydata() {
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

  std::array<std::int64_t, 3> require_dimensions() {
    if (!dimensions_) scan_.fail_at(document_.size(), std::string(dataset_name(*dataset_)) + " without DIMENSIONS");
    return *dimensions_;
  }

  // meshio's cells for a structured grid (io::structured_grid_cells): the axes longer than
  // one point span lines, quads or hexahedra, x varying fastest in both numberings.
  void add_structured_cells(const std::array<std::int64_t, 3>& dims) {
    std::optional<CellBlock> block = io::structured_grid_cells(dims);
    if (!block) return;
    const std::int64_t num_cells = block->num_cells();
    mesh_.cells.push_back(std::move(*block));
    block_rows_.push_back({0, num_cells, {}});
    num_source_cells_ = num_cells;
  }

  void finish_structured_points() {
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
  void fill_grid_points(const std::array<std::int64_t, 3>& dims, Coordinate coordinate) {
    T* out = mesh_.points.data_as<T>();
    for (std::int64_t k = 0; k < dims[2]; ++k)
      for (std::int64_t j = 0; j < dims[1]; ++j)
        for (std::int64_t i = 0; i < dims[0]; ++i) {
          *out++ = static_cast<T>(coordinate(0, i));
          *out++ = static_cast<T>(coordinate(1, j));
          *out++ = static_cast<T>(coordinate(2, k));
        }
  }

  void finish_structured_grid() {
    const auto dims = require_dimensions();
    require_points();
    if (mesh_.num_points() != dims[0] * dims[1] * dims[2])
      scan_.fail_at(points_offset_, "POINTS holds " + std::to_string(mesh_.num_points()) + " points but DIMENSIONS need " +
                                        std::to_string(dims[0] * dims[1] * dims[2]));
    add_structured_cells(dims);
  }

  void finish_rectilinear_grid() {
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

  void check_attribute_counts() {
    if (point_data_count_.count >= 0 && point_data_count_.count != mesh_.num_points())
      scan_.fail_at(point_data_count_.offset, "POINT_DATA declares " + std::to_string(point_data_count_.count) +
                                                  " values but the dataset has " + std::to_string(mesh_.num_points()) +
                                                  " points");
    if (cell_data_count_.count >= 0 && cell_data_count_.count != num_source_cells_)
      scan_.fail_at(cell_data_count_.offset, "CELL_DATA declares " + std::to_string(cell_data_count_.count) +
                                                 " values but the dataset has " + std::to_string(num_source_cells_) +
                                                 " cells");
  }

  std::string_view document_;
  io::TextScanner scan_;
  bool binary_ = false;
  std::optional<Dataset> dataset_;
  Attribute attribute_ = Attribute::none;
  Mesh mesh_;

  std::size_t points_offset_ = 0;
  CellArray cells_, vertices_, lines_, polygons_, strips_;
  std::vector<std::uint8_t> cell_types_;
  bool has_cell_types_ = false;
  std::size_t cell_types_offset_ = 0;

  std::optional<std::array<std::int64_t, 3>> dimensions_;
  std::size_t dimensions_offset_ = 0;
  std::optional<std::array<double, 3>> origin_, spacing_;
  std::array<NDArray, 3> coordinates_;
  std::array<std::size_t, 3> coordinates_offset_{};

  DeclaredCount point_data_count_, cell_data_count_;
  NamedList<NDArray> raw_cell_data_;  // one row per source cell, split into blocks at the end
  std::vector<BlockRows> block_rows_;
  std::int64_t num_source_cells_ = 0;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, detail::kFormatName);
  io::reject_empty_file(file.bytes(), path, detail::kFormatName);
  return LegacyReader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::vtk
