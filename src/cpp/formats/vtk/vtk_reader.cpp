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
//  - Polyhedra (type 42) become one "polyhedron" block per run (faces as listed, VTK orients
//    them outwards): each polyhedron's CELLS list is its face stream [nfaces, n0, ids…, …],
//    in 4.2 files as in 5.1 ones (OFFSETS/CONNECTIVITY), which is what VTK 9's writer emits
//    for both (no FACES section exists in either). A stream that runs past or stops short of
//    its cell's list, or names a missing point, is a ReadError at the CELLS line.
//  - String arrays are not supported and raise a ReadError.
//
// The reader is one class (vtk_reader_internal.hpp) defined over three files; this one holds
// the preamble, the keyword dispatch, the header-line values and the array payloads (ASCII and
// big-endian binary), and the entry point.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/vtk/vtk.hpp"
#include "formats/vtk/vtk_common.hpp"
#include "formats/vtk/vtk_reader_internal.hpp"
#include "io/source/byte_order.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtk::detail {
namespace {

constexpr std::pair<std::string_view, Dataset> kDatasets[] = {
    {"UNSTRUCTURED_GRID", Dataset::unstructured_grid}, {"POLYDATA", Dataset::polydata},
    {"STRUCTURED_POINTS", Dataset::structured_points}, {"STRUCTURED_GRID", Dataset::structured_grid},
    {"RECTILINEAR_GRID", Dataset::rectilinear_grid},
};

}  // namespace

std::string_view dataset_name(Dataset dataset) {
  for (const auto& [name, value] : kDatasets)
    if (value == dataset) return name;
  return "?";
}

Mesh LegacyReader::read() {
  read_preamble();
  while (true) {
    scan_.skip_whitespace();
    if (scan_.at_end()) break;
    dispatch(next_header_line());
  }
  return finish();
}

// ---- preamble and keyword dispatch ----

void LegacyReader::read_preamble() {
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

void LegacyReader::check_version(std::string_view text) {
  text = trim(text);
  int major = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), major);
  if (result.ec != std::errc{} || major < 1 || major > 5)
    scan_.fail_at(0, "unsupported file version '" + std::string(text.substr(0, 20)) + "' (1.0 to 5.1 are read)");
}

std::string_view LegacyReader::trim(std::string_view text) {
  while (!text.empty() && io::is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && io::is_space(text.back())) text.remove_suffix(1);
  return text;
}

// Reads a whole keyword line, so binary data starts right after its line break.
HeaderLine LegacyReader::next_header_line() {
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

void LegacyReader::dispatch(const HeaderLine& header) {
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

bool LegacyReader::dispatch_geometry(const HeaderLine& header) {
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

bool LegacyReader::dispatch_attribute(const HeaderLine& header) {
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

void LegacyReader::read_dataset_kind(const HeaderLine& header) {
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
void LegacyReader::skip_metadata() {
  while (!scan_.at_end())
    if (trim(scan_.next_line()).empty()) return;
}

// ---- header-line values ----

[[noreturn]] void LegacyReader::fail(const HeaderLine& header, const std::string& message) const {
  scan_.fail_at(header.offset, message);
}

void LegacyReader::require_tokens(const HeaderLine& header, std::size_t count, std::string_view usage) const {
  if (header.tokens.size() < count) fail(header, "expected '" + std::string(usage) + "'");
}

std::int64_t LegacyReader::header_count(const HeaderLine& header, std::size_t index, std::string_view what) const {
  const std::string_view token = header.tokens.at(index);
  std::int64_t value = 0;
  const auto result = std::from_chars(token.data(), token.data() + token.size(), value);
  if (result.ec != std::errc{} || result.ptr != token.data() + token.size() || value < 0)
    fail(header, "invalid " + std::string(what) + " '" + std::string(token.substr(0, 40)) + "' in " +
                     std::string(header.keyword()));
  return value;
}

double LegacyReader::header_real(const HeaderLine& header, std::size_t index) const {
  const std::string_view token = header.tokens.at(index);
  double value = 0;
  const char* first = token.data() + (token.starts_with('+') ? 1 : 0);
  const auto result = std::from_chars(first, token.data() + token.size(), value);
  if (result.ec != std::errc{} || result.ptr != token.data() + token.size())
    fail(header, "invalid number '" + std::string(token.substr(0, 40)) + "' in " + std::string(header.keyword()));
  return value;
}

LegacyType LegacyReader::header_type(const HeaderLine& header, std::size_t index) const {
  const std::string_view token = header.tokens.at(index);
  if (const auto type = detail::parse_legacy_type(token)) return *type;
  fail(header, "unsupported data type '" + std::string(token.substr(0, 40)) + "' in " + std::string(header.keyword()));
}

LegacyType LegacyReader::header_index_type(const HeaderLine& header, std::size_t index) const {
  const LegacyType type = header_type(header, index);
  if (dtype_is_float(type.memory_dtype))
    fail(header, std::string(header.keyword()) + " must hold integers, not '" + std::string(header.tokens[index]) + "'");
  return type;
}

std::array<double, 3> LegacyReader::read_triple(const HeaderLine& header) const {
  require_tokens(header, 4, std::string(header.keyword()) + " x y z");
  return {header_real(header, 1), header_real(header, 2), header_real(header, 3)};
}

// True (and positioned on it) when the next line starts with `keyword`; otherwise the
// position is left alone, since in a binary file the data may start right here.
bool LegacyReader::next_line_starts_with(std::string_view keyword) {
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

std::uint64_t LegacyReader::element_count(const Shape& shape) {
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
void LegacyReader::require_available(std::uint64_t count, const LegacyType& type, std::string_view what) const {
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
void LegacyReader::decode_values(const LegacyType& type, DType target_dtype, void* target, std::size_t count) {
  if (binary_) return decode_binary(type, target_dtype, target, count);
  visit_dtype(target_dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = static_cast<T*>(target);
    for (std::size_t i = 0; i < count; ++i) out[i] = scan_.next_number<T>();
    if (type.packed_bits)
      for (std::size_t i = 0; i < count; ++i) out[i] = out[i] != T{0} ? T{1} : T{0};
  });
}

void LegacyReader::decode_binary(const LegacyType& type, DType target_dtype, void* target, std::size_t count) {
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

NDArray LegacyReader::read_array(const LegacyType& type, Shape shape, std::string_view what) {
  return read_array(type, std::move(shape), what, type.memory_dtype);
}

NDArray LegacyReader::read_array(const LegacyType& type, Shape shape, std::string_view what, DType memory_dtype) {
  const std::uint64_t count = element_count(shape);
  require_available(count, type, what);
  NDArray array = NDArray::allocate(memory_dtype, std::move(shape));
  decode_values(type, memory_dtype, array.data(), static_cast<std::size_t>(count));
  return array;
}

std::vector<std::int64_t> LegacyReader::read_index_vector(const LegacyType& type, std::int64_t count, std::string_view what) {
  require_available(static_cast<std::uint64_t>(count), type, what);
  std::vector<std::int64_t> values(static_cast<std::size_t>(count));
  decode_values(type, DType::int64, values.data(), values.size());
  return values;
}

void LegacyReader::skip_values(const LegacyType& type, std::uint64_t count, std::string_view what) {
  require_available(count, type, what);
  if (binary_) {
    scan_.seek(scan_.position() + (type.packed_bits ? (count + 7) / 8 : count * dtype_size(type.file_dtype)));
    return;
  }
  for (std::uint64_t i = 0; i < count; ++i) scan_.next_number<double>();
}

}  // namespace meshioplusplus::vtk::detail

namespace meshioplusplus::vtk {

Mesh read(const std::string& path) {
  const io::MappedFile file(path, detail::kFormatName);
  io::reject_empty_file(file.bytes(), path, detail::kFormatName);
  return detail::LegacyReader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::vtk
