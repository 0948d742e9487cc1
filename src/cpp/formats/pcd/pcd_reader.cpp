// PCD reader: the Point Cloud Library's format, header versions .5, .6 and 0.7.
//
// The header (one keyword a line, '#' lines are comments) declares FIELDS (COLUMNS in .5),
// their SIZE in bytes, TYPE (I signed, U unsigned, F float) and COUNT (values per point),
// WIDTH and HEIGHT (an organised cloud: HEIGHT rows of WIDTH points, row-major), VIEWPOINT
// (sensor origin x y z and orientation quaternion w x y z), POINTS and DATA, after which the
// points follow as
//  - ascii: one point a line, its fields' values in order (empty lines skipped, as PCL does);
//  - binary: packed records of all fields in order, little-endian (what PCL writes on x86);
//  - binary_compressed: two uint32 (compressed, decompressed size), then an LZF stream
//    (io/codecs/lzf) whose output holds the fields one after the other (all points' x, then
//    all y, …), padding fields left out.
//
// What becomes what:
//  - x, y, z (COUNT 1) are the points: float32 when all of them are F 4, float64 otherwise;
//    a missing one is 0 (a cloud of colours or descriptors without x/y/z still reads, with
//    every point at the origin).
//  - every other field is point data under its own name and dtype, as the PLY reader keeps
//    PLY's names (normal_x, curvature, intensity …): (n,) for COUNT 1, (n, COUNT) otherwise.
//    The packed colour "rgb"/"rgba" stays as stored (float32 or uint32 bits 0x00RRGGBB), as
//    PCL's PCLPointCloud2 and pypcd4 keep it, so it writes back bit for bit; in ascii, an
//    F 4 "rgb" written as an integer (PCL's ascii writer does) is read as those bits.
//  - fields named "_" are padding and skipped.
//  - NaN points of organised clouds are kept, so point i is pixel (i / WIDTH, i % WIDTH).
//  - field data: "pcd:width" and "pcd:height" (int64) for organised clouds (HEIGHT > 1), and
//    "pcd:viewpoint" (float64, 7) when VIEWPOINT is not the identity "0 0 0 1 0 0 0".
//  - cells: one "vertex" block [0, n), as meshio gives point clouds.
//
// Hostile input: SIZE/TYPE/COUNT lists that disagree with FIELDS, WIDTH * HEIGHT unlike
// POINTS, data shorter than the header claims, a compressed block cut off or whose sizes
// disagree with the fields, and LZF back-references before the start are ReadErrors; every
// count is checked against the file size and read_limits before allocating.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "formats/pcd/pcd.hpp"
#include "formats/pcd/pcd_internal.hpp"
#include "io/cells/vertex_block.hpp"
#include "io/codecs/lzf.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/fast_decimal.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::pcd {
namespace {

using detail::kFormat;

enum class Encoding { ascii, binary, binary_compressed };

struct Field {
  std::string name;
  int size = 4;
  char type = 'F';
  std::int64_t count = 1;
  DType dtype = DType::float32;
  std::size_t record_offset = 0;  // in a binary record
  bool packed_colour = false;     // an F 4 "rgb"/"rgba": an integer token is its bits
  bool padding() const noexcept { return name == "_"; }
  std::size_t bytes() const noexcept { return static_cast<std::size_t>(size) * static_cast<std::size_t>(count); }
};

struct Header {
  std::vector<Field> fields;
  std::int64_t width = -1, height = -1, points = -1;
  std::array<double, 7> viewpoint{0, 0, 0, 1, 0, 0, 0};
  bool has_viewpoint = false;
  Encoding encoding = Encoding::ascii;
  std::size_t data_begin = 0;  // just past the DATA line
  std::size_t record_bytes = 0;
  std::size_t unpadded_bytes = 0;  // per point, padding left out
};

// Where one field's values go: a column of the points (converted to the points' dtype) or a
// point data array of the field's own dtype (copied as is).
struct Destination {
  std::uint8_t* base = nullptr;
  std::size_t stride = 0;  // bytes from one point to the next
  bool to_double = false;  // a coordinate converted to float64
  bool skip = false;       // padding
};

// One value of an ascii point line (a field's k-th of COUNT): read by `parse` straight into
// base + i * stride for point i. The dtype is chosen once per field here, not per value.
// Float fields also have `scan`, which reads a plain decimal in the same pass that finds its
// end (io::scan_plain_decimal) and returns that end, or nullptr for `parse`'s way.
using ParseValue = bool (*)(const char* first, const char* last, std::uint8_t* at) noexcept;
using ScanValue = const char* (*)(const char* first, const char* last, std::uint8_t* at) noexcept;
struct Slot {
  ParseValue parse = nullptr;  // nullptr: padding, skipped
  ScanValue scan = nullptr;
  std::uint8_t* base = nullptr;
  std::size_t stride = 0;
};

template <class T, class Stored> const char* scan_as(const char* first, const char* last, std::uint8_t* at) noexcept {
  T value{};
  const char* const end = io::scan_plain_decimal(first, last, value);
  if (end == nullptr) return nullptr;
  const auto stored = static_cast<Stored>(value);
  std::memcpy(at, &stored, sizeof stored);
  return end;
}

// An integer field's value written plainly (an optional '-' for signed types, up to 18
// digits, io::plain_digits) in the pass that finds its end; anything else, or out of the
// type's range, goes to `parse` (from_chars and its errors).
template <class T> const char* scan_integer(const char* first, const char* last, std::uint8_t* at) noexcept {
  const bool negative = std::is_signed_v<T> && first < last && *first == '-';
  std::uint64_t magnitude = 0;
  const char* const end = io::plain_digits(first + (negative ? 1 : 0), last, magnitude);
  if (end == nullptr || (end < last && static_cast<unsigned char>(*end - '0') < 10)) return nullptr;
  const auto largest = static_cast<std::uint64_t>(std::numeric_limits<T>::max()) + (negative ? 1 : 0);
  if (magnitude > largest) return nullptr;
  const auto value = static_cast<T>(negative ? std::uint64_t{0} - magnitude : magnitude);  // two's complement
  std::memcpy(at, &value, sizeof value);
  return end;
}

// A token as T (an optional '+', then what from_chars reads, the whole token).
template <class T> bool parse_token(const char* first, const char* last, T& value) noexcept {
  if (first < last && *first == '+') ++first;
  if constexpr (std::is_floating_point_v<T>)
    if (io::parse_plain_decimal(first, last, value)) return true;  // from_chars' bits, faster
  const std::from_chars_result result = std::from_chars(first, last, value);
  return result.ec == std::errc{} && result.ptr == last;
}

template <class T> bool parse_as(const char* first, const char* last, std::uint8_t* at) noexcept {
  T value{};
  if (!parse_token(first, last, value)) return false;
  std::memcpy(at, &value, sizeof value);
  return true;
}

// A coordinate of another dtype than float64 when the points are float64.
template <class T> bool parse_as_double(const char* first, const char* last, std::uint8_t* at) noexcept {
  T value{};
  if (!parse_token(first, last, value)) return false;
  const auto wide = static_cast<double>(value);
  std::memcpy(at, &wide, sizeof wide);
  return true;
}

// An F 4 "rgb"/"rgba": digits only are the colour's bits (PCL's ascii writer), else a float.
bool parse_packed_colour(const char* first, const char* last, std::uint8_t* at) noexcept {
  if (std::all_of(first, last, [](char c) { return c >= '0' && c <= '9'; })) return parse_as<std::uint32_t>(first, last, at);
  return parse_as<float>(first, last, at);
}

ParseValue value_parser(const Field& field, bool to_double) {
  if (field.packed_colour && !to_double) return parse_packed_colour;
  return visit_dtype(field.dtype, [&](auto zero) -> ParseValue {
    using T = decltype(zero);
    return to_double ? parse_as_double<T> : parse_as<T>;
  });
}

template <class T> double as_double(const std::uint8_t* bytes) noexcept {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return static_cast<double>(value);
}

double value_as_double(DType dtype, const std::uint8_t* bytes) noexcept {
  switch (dtype) {
    case DType::int8: return as_double<std::int8_t>(bytes);
    case DType::int16: return as_double<std::int16_t>(bytes);
    case DType::int32: return as_double<std::int32_t>(bytes);
    case DType::int64: return as_double<std::int64_t>(bytes);
    case DType::uint8: return as_double<std::uint8_t>(bytes);
    case DType::uint16: return as_double<std::uint16_t>(bytes);
    case DType::uint32: return as_double<std::uint32_t>(bytes);
    case DType::uint64: return as_double<std::uint64_t>(bytes);
    case DType::float32: return as_double<float>(bytes);
    case DType::float64: return as_double<double>(bytes);
  }
  return 0;
}

// Stores `size` bytes of field `field` for point `i` from `bytes` (one value, or all COUNT).
// The usual sizes copy with a fixed-size memcpy (one load and store, not a library call).
inline void store(const Destination& to, const Field& field, std::int64_t i, const std::uint8_t* bytes, std::size_t size) noexcept {
  std::uint8_t* const at = to.base + static_cast<std::size_t>(i) * to.stride;
  if (to.to_double) {
    const double value = value_as_double(field.dtype, bytes);
    std::memcpy(at, &value, sizeof value);
    return;
  }
  switch (size) {
    case 1: *at = *bytes; break;
    case 2: std::memcpy(at, bytes, 2); break;
    case 4: std::memcpy(at, bytes, 4); break;
    case 8: std::memcpy(at, bytes, 8); break;
    case 12: std::memcpy(at, bytes, 12); break;
    case 16: std::memcpy(at, bytes, 16); break;
    default: std::memcpy(at, bytes, size);
  }
}

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  Mesh read() {
    parse_header();
    const std::int64_t n = header_.points;
    Mesh mesh;
    prepare(mesh, n);
    switch (header_.encoding) {
      case Encoding::ascii: read_ascii(n); break;
      case Encoding::binary: read_binary(n); break;
      case Encoding::binary_compressed: read_compressed(n); break;
    }
    mesh.cells.push_back(io::vertex_block(n));
    if (header_.height != 1) {
      mesh.field_data.set("pcd:width", NDArray::from_values<std::int64_t>({header_.width}));
      mesh.field_data.set("pcd:height", NDArray::from_values<std::int64_t>({header_.height}));
    }
    if (header_.has_viewpoint && header_.viewpoint != std::array<double, 7>{0, 0, 0, 1, 0, 0, 0}) {
      NDArray viewpoint = NDArray::allocate(DType::float64, {7});
      std::copy(header_.viewpoint.begin(), header_.viewpoint.end(), viewpoint.data_as<double>());
      mesh.field_data.set("pcd:viewpoint", std::move(viewpoint));
    }
    return mesh;
  }

 private:
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(bytes_, offset));
  }

  template <class T> T number_at(std::string_view token, std::size_t offset, std::string_view what) const {
    T value{};
    const std::from_chars_result result = std::from_chars(token.data(), token.data() + token.size(), value);
    if (result.ec != std::errc{} || result.ptr != token.data() + token.size())
      fail_at(offset, "invalid " + std::string(what) + " '" + std::string(token) + "'");
    return value;
  }

  void parse_header() {
    io::TextScanner scanner(bytes_, path_, kFormat);
    std::vector<std::string_view> sizes, types, counts;
    std::size_t fields_offset = 0;
    bool has_fields = false;
    while (true) {
      if (scanner.at_end()) fail_at(bytes_.size(), "the header ends without a DATA line");
      const std::size_t line_begin = scanner.position();
      const std::string_view line = scanner.next_line();
      io::TextScanner words(bytes_, line_begin, line_begin + line.size(), path_, kFormat);
      const std::string_view keyword = words.next_token();
      if (keyword.empty() || keyword.front() == '#') continue;
      std::vector<std::string_view> values;
      for (std::string_view token = words.next_token(); !token.empty(); token = words.next_token()) values.push_back(token);
      const auto one_integer = [&](std::string_view what) {
        if (values.size() != 1) fail_at(line_begin, std::string(keyword) + " needs one value");
        const auto value = number_at<std::int64_t>(values[0], line_begin, what);
        if (value < 0) fail_at(line_begin, std::string(what) + " is negative");
        return value;
      };
      if (keyword == "VERSION") continue;
      if (keyword == "FIELDS" || keyword == "COLUMNS") {
        has_fields = true;
        fields_offset = line_begin;
        header_.fields.clear();
        for (std::string_view name : values) header_.fields.push_back(Field{std::string(name)});
      } else if (keyword == "SIZE") {
        sizes = values;
      } else if (keyword == "TYPE") {
        types = values;
      } else if (keyword == "COUNT") {
        counts = values;
      } else if (keyword == "WIDTH") {
        header_.width = one_integer("WIDTH");
      } else if (keyword == "HEIGHT") {
        header_.height = one_integer("HEIGHT");
      } else if (keyword == "POINTS") {
        header_.points = one_integer("POINTS");
      } else if (keyword == "VIEWPOINT") {
        if (values.size() != 7) fail_at(line_begin, "VIEWPOINT needs 7 values (x y z qw qx qy qz)");
        for (std::size_t k = 0; k < 7; ++k) header_.viewpoint[k] = number_at<double>(values[k], line_begin, "VIEWPOINT value");
        header_.has_viewpoint = true;
      } else if (keyword == "DATA") {
        if (values.size() != 1) fail_at(line_begin, "DATA needs one of ascii, binary, binary_compressed");
        if (values[0] == "ascii") header_.encoding = Encoding::ascii;
        else if (values[0] == "binary") header_.encoding = Encoding::binary;
        else if (values[0] == "binary_compressed") header_.encoding = Encoding::binary_compressed;
        else fail_at(line_begin, "unknown DATA encoding '" + std::string(values[0]) + "'");
        header_.data_begin = scanner.position();
        data_line_ = line_begin;
        break;
      } else {
        fail_at(line_begin, "unknown header keyword '" + std::string(keyword.substr(0, 40)) + "'");
      }
    }
    if (!has_fields || header_.fields.empty()) fail_at(data_line_, "the header has no FIELDS");
    const std::size_t nfields = header_.fields.size();
    if (sizes.size() != nfields) fail_at(fields_offset, "SIZE lists " + std::to_string(sizes.size()) + " values for " + std::to_string(nfields) + " fields");
    if (types.size() != nfields) fail_at(fields_offset, "TYPE lists " + std::to_string(types.size()) + " values for " + std::to_string(nfields) + " fields");
    if (!counts.empty() && counts.size() != nfields)
      fail_at(fields_offset, "COUNT lists " + std::to_string(counts.size()) + " values for " + std::to_string(nfields) + " fields");
    for (std::size_t f = 0; f < nfields; ++f) {
      Field& field = header_.fields[f];
      field.size = number_at<int>(sizes[f], fields_offset, "SIZE");
      field.type = types[f].size() == 1 ? types[f][0] : '?';
      if (!counts.empty()) field.count = number_at<std::int64_t>(counts[f], fields_offset, "COUNT");
      if (field.count < 1 || field.count > (std::int64_t{1} << 20))
        fail_at(fields_offset, "field '" + field.name + "' has COUNT " + std::to_string(field.count));
      const std::optional<DType> dtype = detail::dtype_of_field(field.type, field.size);
      if (!dtype) fail_at(fields_offset, "field '" + field.name + "' has TYPE " + std::string(types[f]) + " with SIZE " + std::to_string(field.size));
      field.dtype = *dtype;
      field.packed_colour = detail::is_packed_colour(field.name, field.dtype);
      field.record_offset = header_.record_bytes;
      header_.record_bytes += field.bytes();
      if (!field.padding()) header_.unpadded_bytes += field.bytes();
      for (std::size_t g = 0; g < f; ++g)
        if (!field.padding() && header_.fields[g].name == field.name) fail_at(fields_offset, "field '" + field.name + "' is declared twice");
    }
    if (header_.height < 0) header_.height = 1;
    if (header_.points < 0 && header_.width < 0) fail_at(data_line_, "the header has neither WIDTH nor POINTS");
    if (header_.width < 0) header_.width = header_.height == 0 ? 0 : header_.points / header_.height;
    const std::optional<std::uint64_t> area = io::checked_product(static_cast<std::uint64_t>(header_.width), static_cast<std::uint64_t>(header_.height));
    if (!area || *area > static_cast<std::uint64_t>(INT64_MAX)) fail_at(data_line_, "WIDTH * HEIGHT overflows");
    if (header_.points < 0) header_.points = static_cast<std::int64_t>(*area);
    if (static_cast<std::uint64_t>(header_.points) != *area)
      fail_at(data_line_, "POINTS " + std::to_string(header_.points) + " is not WIDTH * HEIGHT = " + std::to_string(*area));
  }

  void prepare(Mesh& mesh, std::int64_t n) {
    const std::uint64_t left = bytes_.size() - header_.data_begin;
    const io::ClaimSite site{data_line_, io::line_of_offset(bytes_, data_line_)};
    std::uint64_t values_per_point = 0;
    for (const Field& field : header_.fields) values_per_point += static_cast<std::uint64_t>(field.count);
    switch (header_.encoding) {
      case Encoding::ascii: io::check_claim_fits_file(path_, kFormat, "points", static_cast<std::uint64_t>(n), 2 * values_per_point, left, site); break;
      case Encoding::binary: io::check_claim_fits_file(path_, kFormat, "points", static_cast<std::uint64_t>(n), header_.record_bytes, left, site); break;
      case Encoding::binary_compressed: break;  // the decompressed size is checked against the stream
    }
    io::check_claim_fits_limit(path_, kFormat, "points", static_cast<std::uint64_t>(n), header_.unpadded_bytes + 3 * 8 + 8, site);

    const auto coordinate = [](std::string_view name) { return name == "x" ? 0 : name == "y" ? 1 : name == "z" ? 2 : -1; };
    bool all_float32 = true;
    for (const Field& field : header_.fields)
      if (field.count == 1 && coordinate(field.name) >= 0 && field.dtype != DType::float32) all_float32 = false;
    const DType point_dtype = all_float32 ? DType::float32 : DType::float64;
    // Not zeroed: the parse writes every coordinate (and touches the fresh pages first, on all
    // cores); only a cloud without some of x/y/z needs the zeros.
    bool has_axis[3] = {false, false, false};
    for (const Field& field : header_.fields)
      if (field.count == 1 && coordinate(field.name) >= 0) has_axis[coordinate(field.name)] = true;
    mesh.points = has_axis[0] && has_axis[1] && has_axis[2] ? NDArray::allocate(point_dtype, {n, 3}) : NDArray::zeros(point_dtype, {n, 3});
    auto* const points = static_cast<std::uint8_t*>(mesh.points.data());
    const std::size_t point_size = dtype_size(point_dtype);

    destinations_.resize(header_.fields.size());
    for (std::size_t f = 0; f < header_.fields.size(); ++f) {
      const Field& field = header_.fields[f];
      Destination& to = destinations_[f];
      if (field.padding()) {
        to.skip = true;
        continue;
      }
      const int axis = field.count == 1 ? coordinate(field.name) : -1;
      if (axis >= 0) {
        to.base = points + static_cast<std::size_t>(axis) * point_size;
        to.stride = 3 * point_size;
        to.to_double = point_dtype == DType::float64;
        continue;
      }
      Shape shape = field.count == 1 ? Shape{n} : Shape{n, field.count};
      NDArray& array = mesh.point_data.append_new(field.name, NDArray::allocate(field.dtype, shape));
      to.base = static_cast<std::uint8_t*>(array.data());
      to.stride = field.bytes();
    }
    if (header_.encoding != Encoding::ascii) return;
    for (std::size_t f = 0; f < header_.fields.size(); ++f) {
      const Field& field = header_.fields[f];
      const Destination& to = destinations_[f];
      const ParseValue parse = to.skip ? nullptr : value_parser(field, to.to_double);
      ScanValue scan = nullptr;
      if (!to.skip && !field.packed_colour && field.dtype == DType::float32) scan = to.to_double ? scan_as<float, double> : scan_as<float, float>;
      if (!to.skip && field.dtype == DType::float64) scan = scan_as<double, double>;
      if (!to.skip && !to.to_double && !dtype_is_float(field.dtype))
        scan = visit_dtype(field.dtype, [](auto zero) -> ScanValue {
          if constexpr (std::is_integral_v<decltype(zero)>) return scan_integer<decltype(zero)>;
          else return nullptr;
        });
      for (std::int64_t k = 0; k < field.count; ++k)
        slots_.push_back(Slot{parse, scan, to.base + static_cast<std::size_t>(k) * static_cast<std::size_t>(field.size), to.stride});
    }
  }

  // One byte run of a binary record copied to one destination: consecutive fields bound for
  // consecutive bytes of the same array (x, y, z of float32 points) are one run.
  struct RecordRun {
    std::size_t from = 0;  // offset in the record
    std::uint8_t* base = nullptr;
    std::size_t stride = 0;
    std::size_t size = 0;
  };

  // Runs of fixed sizes copy with one load and store each; the record is walked once, all its
  // fields together, so each cache line of the file is read once.
  static void copy_records(const std::uint8_t* records, std::size_t record, const std::vector<RecordRun>& runs, std::size_t first,
                           std::size_t last) noexcept {
    for (std::size_t i = first; i < last; ++i) {
      const std::uint8_t* const at = records + i * record;
      for (const RecordRun& run : runs) {
        std::uint8_t* const to = run.base + i * run.stride;
        const std::uint8_t* const from = at + run.from;
        detail::copy_field(to, from, run.size);
      }
    }
  }

  void read_binary(std::int64_t n) {
    const auto* const records = reinterpret_cast<const std::uint8_t*>(bytes_.data() + header_.data_begin);
    const std::size_t record = header_.record_bytes;
    std::vector<RecordRun> runs;
    bool converts = false;  // a coordinate widened to float64: values, not bytes
    for (std::size_t f = 0; f < header_.fields.size(); ++f) {
      const Field& field = header_.fields[f];
      const Destination& to = destinations_[f];
      if (to.skip) continue;
      if (to.to_double) {
        converts = true;
        continue;
      }
      RecordRun* const previous = runs.empty() ? nullptr : &runs.back();
      if (previous != nullptr && previous->stride == to.stride && previous->from + previous->size == field.record_offset &&
          previous->base + previous->size == to.base)
        previous->size += field.bytes();
      else
        runs.push_back(RecordRun{field.record_offset, to.base, to.stride, field.bytes()});
    }
    io::parallel_ranges(static_cast<std::size_t>(n), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      copy_records(records, record, runs, first, last);
      if (!converts) return;
      for (std::size_t f = 0; f < header_.fields.size(); ++f) {
        const Field& field = header_.fields[f];
        const Destination& to = destinations_[f];
        if (!to.to_double) continue;
        for (std::size_t i = first; i < last; ++i) store(to, field, static_cast<std::int64_t>(i), records + i * record + field.record_offset, field.bytes());
      }
    });
  }

  void read_compressed(std::int64_t n) {
    const std::size_t at = header_.data_begin;
    if (bytes_.size() - at < 8) fail_at(at, "the compressed block's sizes are cut off");
    std::uint32_t compressed = 0, decompressed = 0;
    std::memcpy(&compressed, bytes_.data() + at, 4);
    std::memcpy(&decompressed, bytes_.data() + at + 4, 4);
    if (compressed > bytes_.size() - at - 8)
      fail_at(at, "the compressed block claims " + std::to_string(compressed) + " bytes, the file holds " + std::to_string(bytes_.size() - at - 8));
    const std::uint64_t needed = static_cast<std::uint64_t>(n) * header_.unpadded_bytes;
    // PCL leaves padding out of the planes; a writer that kept it would store more.
    if (decompressed < needed || decompressed > static_cast<std::uint64_t>(n) * header_.record_bytes)
      fail_at(at, "the compressed block decompresses to " + std::to_string(decompressed) + " bytes, the fields need " + std::to_string(needed));
    if (decompressed > static_cast<std::uint64_t>(compressed) * io::kLzfMaxExpansion)
      fail_at(at, "the compressed block is too short for " + std::to_string(decompressed) + " bytes");
    if (n == 0) return;
    // Scratch, not a std::vector: no zeroing of what the decoder writes anyway.
    NDArray scratch = NDArray::allocate_scratch(DType::uint8, {static_cast<std::int64_t>(decompressed)});
    std::uint8_t* const planes = scratch.data_as<std::uint8_t>();
    const std::size_t nfields = header_.fields.size();
    std::vector<std::size_t> plane_begin(nfields, 0);  // padding is left out of the planes
    std::size_t plane = 0;
    for (std::size_t f = 0; f < nfields; ++f) {
      if (destinations_[f].skip) continue;
      plane_begin[f] = plane;
      plane += static_cast<std::size_t>(n) * header_.fields[f].bytes();
    }
    const std::size_t produced = io::lzf_decompress(reinterpret_cast<const std::uint8_t*>(bytes_.data() + at + 8), compressed, planes, decompressed);
    if (produced != decompressed) fail_at(at + 8, "the LZF stream is corrupt or does not decompress to " + std::to_string(decompressed) + " bytes");
    // Each thread places a range of points of every field: a field's own array gets that
    // range of its plane with one memcpy, the points' columns value by value.
    io::parallel_ranges(static_cast<std::size_t>(n), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      place_planes(planes, plane_begin, first, last);
    });
  }

  // Points [first, last) of every field from the planes (a field's values one after another,
  // starting at plane_begin) into their arrays.
  void place_planes(const std::uint8_t* planes, const std::vector<std::size_t>& plane_begin, std::size_t first, std::size_t last) const noexcept {
    for (std::size_t f = 0; f < header_.fields.size(); ++f) {
      const Field& field = header_.fields[f];
      const Destination& to = destinations_[f];
      if (to.skip) continue;
      const std::size_t size = field.bytes();
      const std::uint8_t* const from = planes + plane_begin[f];
      if (to.stride == size && !to.to_double) {
        std::memcpy(to.base + first * size, from + first * size, (last - first) * size);
      } else if (!to.to_double && size == 4) {  // float32 points: one move a value
        for (std::size_t i = first; i < last; ++i) std::memcpy(to.base + i * to.stride, from + i * 4, 4);
      } else {
        for (std::size_t i = first; i < last; ++i) store(to, field, static_cast<std::int64_t>(i), from + i * size, size);
      }
    }
  }

  // Point `i` from the line [first, last); the offset of the first bad token (or of the
  // line's end when values are missing, or of a surplus value) otherwise.
  std::optional<std::size_t> parse_point(std::int64_t i, const char* first, const char* last) const noexcept {
    const char* p = first;
    const auto row = static_cast<std::size_t>(i);
    for (const Slot& slot : slots_) {
      while (p < last && io::is_space(*p)) ++p;
      const char* const token = p;
      if (slot.scan != nullptr) {
        const char* const end = slot.scan(p, last, slot.base + row * slot.stride);
        if (end != nullptr && (end == last || io::is_space(*end))) {
          p = end;
          continue;
        }
      }
      while (p < last && !io::is_space(*p)) ++p;
      if (token == p) return static_cast<std::size_t>(token - bytes_.data());
      if (slot.parse != nullptr && !slot.parse(token, p, slot.base + row * slot.stride))
        return static_cast<std::size_t>(token - bytes_.data());
    }
    while (p < last && io::is_space(*p)) ++p;
    if (p != last) return static_cast<std::size_t>(p - bytes_.data());
    return std::nullopt;
  }

  void read_ascii(std::int64_t n) {
    const std::optional<std::size_t> parallel_end = io::parse_lines_in_parallel(
        bytes_, header_.data_begin, static_cast<std::uint64_t>(n),
        [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
          return !parse_point(static_cast<std::int64_t>(i), bytes_.data() + begin, bytes_.data() + stop).has_value();
        });
    if (parallel_end) return;
    std::size_t position = header_.data_begin;
    for (std::int64_t i = 0; i < n;) {
      if (position >= bytes_.size()) fail_at(bytes_.size(), "the data ends after " + std::to_string(i) + " of " + std::to_string(n) + " points");
      const char* const begin = bytes_.data() + position;
      const char* const newline = io::find_newline(begin, bytes_.data() + bytes_.size());
      const char* const end = newline ? newline : bytes_.data() + bytes_.size();
      position = static_cast<std::size_t>(end - bytes_.data()) + 1;
      if (std::all_of(begin, end, [](char c) { return io::is_space(c); })) continue;  // PCL skips empty lines
      if (const std::optional<std::size_t> bad = parse_point(i, begin, end)) {
        if (*bad >= static_cast<std::size_t>(end - bytes_.data()))
          fail_at(*bad, "point " + std::to_string(i) + " has fewer values than its fields need");
        const char* stop = bytes_.data() + *bad;
        while (stop < end && !io::is_space(*stop) && stop - (bytes_.data() + *bad) < 32) ++stop;
        fail_at(*bad, "point " + std::to_string(i) + ": invalid or surplus value '" + std::string(bytes_.data() + *bad, stop) + "'");
      }
      ++i;
    }
  }

  std::string_view bytes_;
  const std::string& path_;
  Header header_;
  std::size_t data_line_ = 0;
  std::vector<Destination> destinations_;
  std::vector<Slot> slots_;  // ascii: one per value of a point line
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::pcd
