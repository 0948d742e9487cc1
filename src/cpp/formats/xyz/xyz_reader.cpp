// XYZ-family reader: ASCII point clouds, one point a line, values separated by blanks,
// commas or semicolons (CloudCompare's and Metashape's separators).
//
// Lines before the first point: blank lines; comment lines opening with '#' or '//' (the
// last one before the data names the columns when it holds as many names as the points have
// values: CloudCompare's "//X Y Z R G B Nx Ny Nz"); a line of one integer (the point count
// of Leica/Faro .pts, and of every scan of a multi-scan .pts, where it is skipped too); and a
// line of names without a comment mark (some exporters). The columns are, in this order of
// precedence: the `columns` read option; the header's names; the extension's layout —
//  .xyzn   x y z nx ny nz                     .xyzrgb x y z r g b (Open3D)
//  .pts    x y z [intensity] [r g b]         (Leica PTS: 3, 4, 6 or 7 values)
//  .xyz / .asc by the value count: 3 x y z; 4 x y z intensity; 6 x y z and r g b when the
//          first point's last three are integers, else nx ny nz; 7 as .pts; 9 x y z, then
//          r g b and nx ny nz in the order the first point's integers say; other counts
//          x y z and column_3, column_4 ….
//
// What becomes what: x, y, z are the points (float64, (n, 3); a missing one is 0). Every
// other column is point data under PLY's names (as formats/ply reads them): nx ny nz, red
// green blue alpha (uint8 when every value is an integer 0-255, else float64 as written:
// 0-1 colours stay floats), intensity, and other names as written (float64). A column
// named "_" is skipped. Cells: one "vertex" block [0, n).
//
// Every point must have the first point's number of values: a line with more or fewer is a
// ReadError naming its line. Large files parse on all cores (io::parse_lines_in_parallel)
// with the same result and errors as the sequential loop.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "formats/xyz/xyz.hpp"
#include "io/cells/vertex_block.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/fast_decimal.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::xyz {
namespace {

constexpr std::string_view kFormat = "xyz";

inline bool is_separator(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == ',' || c == ';' || c == '\v' || c == '\f'; }

// The tokens of [first, last) split at separators.
std::vector<std::string_view> split(const char* first, const char* last) {
  std::vector<std::string_view> tokens;
  while (true) {
    while (first < last && is_separator(*first)) ++first;
    if (first == last) return tokens;
    const char* const start = first;
    while (first < last && !is_separator(*first)) ++first;
    tokens.emplace_back(start, static_cast<std::size_t>(first - start));
  }
}

bool parse_real(std::string_view token, double& value) noexcept {
  const char* first = token.data();
  const char* const last = first + token.size();
  if (first < last && *first == '+') ++first;
  if (io::parse_plain_decimal(first, last, value)) return true;  // from_chars' bits, faster
  const std::from_chars_result result = std::from_chars(first, last, value, std::chars_format::general);
  return result.ec == std::errc{} && result.ptr == last;
}

bool is_plain_integer(std::string_view token) noexcept {
  if (!token.empty() && (token.front() == '-' || token.front() == '+')) token.remove_prefix(1);
  return !token.empty() && std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// A column name as written (header, option) under the name the mesh uses.
std::string canonical_name(std::string_view name) {
  const std::string key = lower(name);
  if (key == "r" || key == "red") return "red";
  if (key == "g" || key == "green") return "green";
  if (key == "b" || key == "blue") return "blue";
  if (key == "a" || key == "alpha") return "alpha";
  if (key == "i" || key == "intensity") return "intensity";
  if (key == "x" || key == "y" || key == "z" || key == "nx" || key == "ny" || key == "nz") return key;
  if (key == "normal_x" || key == "normal_y" || key == "normal_z") return std::string("n") + key.back();
  return std::string(name);
}

bool is_colour(std::string_view name) noexcept { return name == "red" || name == "green" || name == "blue" || name == "alpha"; }

std::string extension_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return lower(std::string_view(path).substr(dot));
}

std::vector<std::string> layout_of(std::string_view extension, const std::vector<std::string_view>& first_point) {
  const std::size_t k = first_point.size();
  const auto integers = [&](std::size_t from) {
    return k >= from + 3 && is_plain_integer(first_point[from]) && is_plain_integer(first_point[from + 1]) && is_plain_integer(first_point[from + 2]);
  };
  std::vector<std::string> names{"x", "y", "z"};
  if (k == 2) return {"x", "y"};
  if (extension == ".xyzn" && k == 6) return {"x", "y", "z", "nx", "ny", "nz"};
  if (extension == ".xyzrgb" && k == 6) return {"x", "y", "z", "red", "green", "blue"};
  if (k == 3) return names;
  if (k == 4) return {"x", "y", "z", "intensity"};
  if (k == 6) {
    if (extension == ".pts" || integers(3)) return {"x", "y", "z", "red", "green", "blue"};
    return {"x", "y", "z", "nx", "ny", "nz"};
  }
  if (k == 7) return {"x", "y", "z", "intensity", "red", "green", "blue"};
  if (k == 9) {
    if (integers(3)) return {"x", "y", "z", "red", "green", "blue", "nx", "ny", "nz"};
    return {"x", "y", "z", "nx", "ny", "nz", "red", "green", "blue"};
  }
  for (std::size_t c = 3; c < k; ++c) names.push_back("column_" + std::to_string(c));
  return names;
}

// '\n' bytes in [first, last), counted on all cores: the count is the file's first pass, and
// whichever thread touches a page of the mapped file first maps it in, which costs more than
// counting its bytes (78 MB on one thread: 2.5 ms with the pages mapped, far more on first touch).
std::uint64_t count_newlines_on_all_cores(const char* first, const char* last) {
  const auto size = static_cast<std::size_t>(last - first);
  std::atomic<std::uint64_t> total{0};
  io::parallel_ranges(size, io::kParallelLinesMinBytes, [&](std::size_t begin, std::size_t end) {
    total.fetch_add(io::count_newlines(first + begin, first + end), std::memory_order_relaxed);
  });
  return total.load();
}

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path, const ReadOptions& options)
      : bytes_(bytes), path_(path), options_(options) {}

  Mesh read() {
    const std::size_t data_begin = find_first_point();
    const std::uint64_t left = bytes_.size() - data_begin;
    const std::uint64_t lines = count_newlines_on_all_cores(bytes_.data() + data_begin, bytes_.data() + bytes_.size()) + (bytes_.back() != '\n' ? 1 : 0);
    const io::ClaimSite site{data_begin, io::line_of_offset(bytes_, data_begin)};
    io::check_claim(path_, kFormat, "points", lines, 1, left, 8 * (columns_.size() + 3), site);
    // Colours the first point writes as integers are read straight into bytes (no float64
    // column to fill and narrow); should a later one not be a 0-255 integer, the file is read
    // again the general way, which gives what it always gave.
    if (std::optional<Mesh> mesh = read_points(data_begin, static_cast<std::int64_t>(lines), colours_look_like_bytes_)) return std::move(*mesh);
    return *read_points(data_begin, static_cast<std::int64_t>(lines), false);
  }

 private:
  // The points from `data_begin` into arrays of `capacity` rows; nullopt when colours read as
  // bytes met a value that is not one.
  std::optional<Mesh> read_points(std::size_t data_begin, std::int64_t capacity, bool colours_as_bytes) {
    const auto has = [&](const char* name) { return std::find(columns_.begin(), columns_.end(), name) != columns_.end(); };
    // Not zeroed when every point writes x, y and z (rows past the last point are cut off).
    points_ = has("x") && has("y") && has("z") ? NDArray::allocate(DType::float64, {capacity, 3}) : NDArray::zeros(DType::float64, {capacity, 3});
    targets_.assign(columns_.size(), nullptr);
    byte_targets_.assign(columns_.size(), nullptr);
    strides_.assign(columns_.size(), 1);
    colour_not_a_byte_ = false;
    std::vector<std::pair<std::string, NDArray>> data;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string& name = columns_[c];
      if (name == "_") continue;
      if (name == "x" || name == "y" || name == "z") {
        targets_[c] = points_.data_as<double>() + (name[0] - 'x');
        strides_[c] = 3;
        continue;
      }
      const auto same = std::find_if(data.begin(), data.end(), [&](const auto& entry) { return entry.first == name; });
      if (same != data.end()) fail_at(data_begin, "two columns are named '" + name + "'");
      if (colours_as_bytes && is_colour(name)) {
        data.emplace_back(name, NDArray::allocate(DType::uint8, {capacity}));
        byte_targets_[c] = data.back().second.data_as<std::uint8_t>();
        continue;
      }
      data.emplace_back(name, NDArray::allocate(DType::float64, {capacity}));
      targets_[c] = data.back().second.data_as<double>();
    }

    std::int64_t n = 0;
    const std::optional<std::size_t> parallel_end = io::parse_lines_in_parallel(bytes_, data_begin, static_cast<std::uint64_t>(capacity), [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
      return parse_point(static_cast<std::int64_t>(i), bytes_.data() + begin, bytes_.data() + stop) == nullptr;
    });
    if (parallel_end) n = capacity;
    else n = read_sequentially(data_begin);
    if (colour_not_a_byte_) return std::nullopt;

    Mesh mesh;
    mesh.points = n == capacity ? points_ : first_rows(points_, n);
    for (auto& [name, array] : data) {
      NDArray column = n == capacity ? std::move(array) : first_rows(array, n);
      if (column.dtype() == DType::uint8) column = floats_if_all_zero_or_one(column);
      else if (is_colour(name)) column = colour_bytes_if_exact(column);
      mesh.point_data.append_new(name, std::move(column));
    }
    mesh.cells.push_back(io::vertex_block(n));
    return mesh;
  }

  // colour_bytes_if_exact's rule for colours read as bytes: all 0 or 1 stay floats.
  static NDArray floats_if_all_zero_or_one(const NDArray& bytes) {
    const std::span<const std::uint8_t> values = bytes.values<std::uint8_t>();
    if (values.empty() || !std::all_of(values.begin(), values.end(), [](std::uint8_t v) { return v <= 1; })) return bytes;
    return bytes.astype(DType::float64);
  }

 [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(bytes_, offset));
  }

  static NDArray first_rows(const NDArray& array, std::int64_t n) {
    Shape shape = array.shape();
    shape[0] = n;
    NDArray out = NDArray::allocate(array.dtype(), shape);
    std::memcpy(out.data(), array.data(), out.nbytes());
    return out;
  }

  // Colours written as 0-255 integers become uint8; 0-1 floats (Open3D) stay float64.
  static NDArray colour_bytes_if_exact(const NDArray& column) {
    const std::span<const double> values = column.values<double>();
    if (!std::all_of(values.begin(), values.end(), [](double v) { return v >= 0 && v <= 255 && v == static_cast<double>(static_cast<int>(v)); }))
      return column;
    if (std::all_of(values.begin(), values.end(), [](double v) { return v <= 1; }) && !values.empty()) return column;  // 0/1: floats
    NDArray bytes = NDArray::allocate(DType::uint8, {column.rows()});
    std::uint8_t* out = bytes.data_as<std::uint8_t>();
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<std::uint8_t>(values[i]);
    return bytes;
  }

  // Walks the lines before the first point, decides the columns, returns the first point's offset.
  std::size_t find_first_point() {
    std::size_t position = 0;
    std::vector<std::string_view> header_names;
    while (position < bytes_.size()) {
      const char* const begin = bytes_.data() + position;
      const char* const newline = io::find_newline(begin, bytes_.data() + bytes_.size());
      const char* const end = newline ? newline : bytes_.data() + bytes_.size();
      const std::size_t line_begin = position;
      position = static_cast<std::size_t>(end - bytes_.data()) + (newline ? 1 : 0);
      const char* p = begin;
      while (p < end && is_separator(*p)) ++p;
      if (p == end) continue;
      if (*p == '#' || (end - p >= 2 && p[0] == '/' && p[1] == '/')) {
        header_names = split(p + (*p == '#' ? 1 : 2), end);
        continue;
      }
      const std::vector<std::string_view> tokens = split(p, end);
      if (tokens.size() == 1 && is_plain_integer(tokens[0])) continue;  // a .pts point count
      double probe = 0;
      if (!parse_real(tokens[0], probe)) {
        header_names = tokens;  // names without a comment mark
        continue;
      }
      decide_columns(tokens, header_names, line_begin);
      return line_begin;
    }
    fail_at(bytes_.size(), "the file holds no point");
  }

  void decide_columns(const std::vector<std::string_view>& first_point, const std::vector<std::string_view>& header_names, std::size_t offset) {
    const std::size_t k = first_point.size();
    if (k < 2) fail_at(offset, "a point needs at least two values (x y)");
    if (!options_.columns.empty()) {
      const std::vector<std::string_view> names = split(options_.columns.data(), options_.columns.data() + options_.columns.size());
      if (names.size() != k)
        fail_at(offset, "the columns option names " + std::to_string(names.size()) + " columns, the first point has " + std::to_string(k) + " values");
      for (std::string_view name : names) columns_.push_back(canonical_name(name));
    } else if (header_names.size() == k) {
      for (std::string_view name : header_names) columns_.push_back(canonical_name(name));
    } else {
      columns_ = layout_of(extension_of(path_), first_point);
    }
    colours_look_like_bytes_ = true;
    for (std::size_t c = 0; c < columns_.size() && c < k; ++c)
      if (is_colour(columns_[c]) && !(first_point[c].size() <= 3 && std::all_of(first_point[c].begin(), first_point[c].end(), [](char d) { return d >= '0' && d <= '9'; })))
        colours_look_like_bytes_ = false;
  }

  // Point `i` from [first, last); nullptr when it is read, else where it goes wrong (a bad
  // value, or the line's end when values are missing).
  const char* parse_point(std::int64_t i, const char* first, const char* last) const noexcept {
    const char* p = first;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      while (p < last && is_separator(*p)) ++p;
      const char* const token = p;
      if (byte_targets_[c] != nullptr) {
        unsigned byte = 0;
        const char* q = p;
        for (; q < last && q - p < 4 && static_cast<unsigned char>(*q - '0') < 10; ++q) byte = byte * 10 + static_cast<unsigned>(*q - '0');
        if (q > p && q - p <= 3 && byte <= 255 && (q == last || is_separator(*q))) {
          byte_targets_[c][i] = static_cast<std::uint8_t>(byte);
          p = q;
          continue;
        }
        // Not a byte: a number still (the file is then read again as float64) or an error.
        while (p < last && !is_separator(*p)) ++p;
        double value = 0;
        if (token == p || !parse_real(std::string_view(token, static_cast<std::size_t>(p - token)), value)) return token;
        colour_not_a_byte_.store(true, std::memory_order_relaxed);
        continue;
      }
      double value = 0;
      // A plain decimal is read in the same pass that finds its end; anything else as one token.
      const char* const end = io::scan_plain_decimal(p, last, value);
      if (end != nullptr && (end == last || is_separator(*end))) {
        p = end;
      } else {
        while (p < last && !is_separator(*p)) ++p;
        if (token == p) return token;
        if (!parse_real(std::string_view(token, static_cast<std::size_t>(p - token)), value)) return token;
      }
      if (targets_[c] != nullptr) targets_[c][static_cast<std::size_t>(i) * strides_[c]] = value;
    }
    while (p < last && is_separator(*p)) ++p;
    return p == last ? nullptr : p;
  }

  std::int64_t read_sequentially(std::size_t position) {
    std::int64_t n = 0;
    while (position < bytes_.size()) {
      const char* const begin = bytes_.data() + position;
      const char* const newline = io::find_newline(begin, bytes_.data() + bytes_.size());
      const char* const end = newline ? newline : bytes_.data() + bytes_.size();
      position = static_cast<std::size_t>(end - bytes_.data()) + 1;
      const char* p = begin;
      while (p < end && is_separator(*p)) ++p;
      if (p == end || *p == '#' || (end - p >= 2 && p[0] == '/' && p[1] == '/')) continue;
      if (const char* bad = parse_point(n, begin, end)) {
        const std::vector<std::string_view> tokens = split(begin, end);
        if (tokens.size() == 1 && is_plain_integer(tokens[0])) continue;  // the count of a further .pts scan
        const auto offset = static_cast<std::size_t>(bad - bytes_.data());
        if (tokens.size() != columns_.size())
          fail_at(offset, "point " + std::to_string(n) + " has " + std::to_string(tokens.size()) + " values, the first point " + std::to_string(columns_.size()));
        const char* stop = bad;
        while (stop < end && !is_separator(*stop) && stop - bad < 32) ++stop;
        fail_at(offset, "point " + std::to_string(n) + ": invalid number '" + std::string(bad, stop) + "'");
      }
      ++n;
    }
    return n;
  }

  std::string_view bytes_;
  const std::string& path_;
  const ReadOptions& options_;
  std::vector<std::string> columns_;
  NDArray points_;
  std::vector<double*> targets_;  // per column: where point 0's value goes (nullptr: skipped)
  std::vector<std::uint8_t*> byte_targets_;  // colours read as bytes: where point 0's goes
  bool colours_look_like_bytes_ = false;     // the first point's colours are plain integers
  mutable std::atomic<bool> colour_not_a_byte_{false};
  std::vector<std::size_t> strides_;
};

}  // namespace

Mesh read(const std::string& path, const ReadOptions& options) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path, options).read();
}

Mesh read(const std::string& path) { return read(path, ReadOptions{}); }

}  // namespace meshioplusplus::xyz
