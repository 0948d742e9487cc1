// STL reader.
//
// Flavour: a file is binary when its size is exactly 84 + 50 n bytes, n being the uint32 at
// byte 80 — so binary files whose 80-byte header starts with "solid" (SolidWorks writes
// them) are read as binary. Any other file must be ASCII.
//
// Both flavours list three corners per triangle. Corners with equal coordinates (compared by
// value, so -0 and 0 merge) become one point, numbered in order of first appearance: the
// points and triangles meshio reads.
//
// What is kept:
//  - ASCII: points float64; the facet normals as cell data "facet_normals" (float64 (n, 3)),
//    as meshio; every named solid as a Cell region (dim 2) of its facets — solids that share
//    a name share a region, unnamed solids get none. Several solids in one file are read in
//    order into the one triangle block. Keywords are matched case-insensitively; each facet
//    must be a triangle and each solid must end with "endsolid".
//  - binary: points float32 (the file's precision). Facet normals are dropped, as meshio
//    drops them (the corner order implies them and many writers leave them zero). The 16-bit
//    attribute fields become cell data "stl:attribute" (uint16 (n,)) when any is non-zero:
//    some tools keep colours there.
//
// Memory: the binary header gives the triangle count, so the connectivity is allocated once
// in its final shape and corners are welded straight from the mapped file. ASCII gives no
// count up front: corners are parsed into a scratch vector (welding needs them all) and
// normals only located; once the count is known each array is allocated once and the
// normals are parsed straight into theirs.
//
// A large file of one solid is parsed on all cores: its facets are cut into one run per
// thread at "endfacet" lines, each run parsed by the same facet code into its own corners,
// then joined in order; the welding stays on one thread (points are numbered by first
// appearance). Any error in any run sends the file to the sequential parse, which reports
// it where and as it always does.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/stl/stl.hpp"
#include "io/source/byte_order.hpp"
#include "io/cells/coordinate_welder.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::stl {
namespace {

constexpr std::string_view kFormat = "stl";
constexpr std::size_t kBinaryHeaderSize = 84;  // 80 free bytes + uint32 triangle count
constexpr std::size_t kBinaryRecordSize = 50;  // normal, 3 corners (12 float32), uint16
constexpr std::size_t kAttributeOffset = 48;   // of the uint16 within a record

std::uint32_t binary_triangle_count(std::string_view bytes) {
  std::uint32_t count = 0;
  io::copy_from_file_order(&count, bytes.data() + 80, sizeof count, 1, true);
  return count;
}

bool is_binary(std::string_view bytes) {
  return bytes.size() >= kBinaryHeaderSize &&
         kBinaryHeaderSize + kBinaryRecordSize * std::uint64_t{binary_triangle_count(bytes)} == bytes.size();
}

// ---- welding corners into points -------------------------------------------------------

// Points and triangles from 3 corners per triangle; `corner_at(c)` gives corner c's
// coordinates as std::array<T, 3>. The welder holds, per distinct position, the first
// corner found there, so no coordinates are copied before the points array is allocated.
template <class T, class CornerAt>
void weld_corners(std::int64_t num_triangles, const CornerAt& corner_at, Mesh& mesh) {
  const std::int64_t num_corners = 3 * num_triangles;
  NDArray connectivity = NDArray::allocate(DType::int64, {num_triangles, 3});
  std::int64_t* point_of_corner = connectivity.data_as<std::int64_t>();
  io::CoordinateWelder<T> first_corner_at(3, static_cast<std::size_t>(num_triangles) / 2);
  std::int64_t num_points = 0;
  for (std::int64_t corner = 0; corner < num_corners; ++corner) {
    const std::array<T, 3> xyz = corner_at(corner);
    const std::int64_t first = first_corner_at.find_or_add(xyz.data(), corner, corner_at);
    point_of_corner[corner] = first == corner ? num_points++ : point_of_corner[first];
  }
  mesh.points = NDArray::allocate(dtype_of<T>(), {num_points, 3});
  T* out = mesh.points.data_as<T>();
  std::int64_t written = 0;
  for (std::int64_t corner = 0; corner < num_corners && written < num_points; ++corner) {
    if (point_of_corner[corner] != written) continue;  // not this point's first corner
    const std::array<T, 3> xyz = corner_at(corner);
    std::memcpy(out + 3 * written, xyz.data(), sizeof xyz);
    ++written;
  }
  if (num_triangles > 0) mesh.cells.push_back(CellBlock{"triangle", std::move(connectivity), {}, {}});
}

// ---- binary ------------------------------------------------------------------------------

Mesh read_binary(std::string_view bytes) {
  const std::int64_t num_triangles = binary_triangle_count(bytes);
  const char* records = bytes.data() + kBinaryHeaderSize;
  const auto corner_at = [records](std::int64_t corner) {
    std::array<float, 3> xyz;
    const std::size_t offset = kBinaryRecordSize * static_cast<std::size_t>(corner / 3) + 12 +
                               12 * static_cast<std::size_t>(corner % 3);
    io::copy_from_file_order(xyz.data(), records + offset, sizeof(float), 3, true);
    return xyz;
  };
  Mesh mesh;
  weld_corners<float>(num_triangles, corner_at, mesh);

  const auto attribute_at = [records](std::int64_t triangle) {
    std::uint16_t value;
    io::copy_from_file_order(&value, records + kBinaryRecordSize * triangle + kAttributeOffset,
                             sizeof value, 1, true);
    return value;
  };
  bool any_attribute = false;
  for (std::int64_t t = 0; t < num_triangles && !any_attribute; ++t) any_attribute = attribute_at(t) != 0;
  if (any_attribute) {
    NDArray attributes = NDArray::allocate(DType::uint16, {num_triangles});
    std::uint16_t* out = attributes.data_as<std::uint16_t>();
    for (std::int64_t t = 0; t < num_triangles; ++t) out[t] = attribute_at(t);
    mesh.cell_data.set("stl:attribute", {std::move(attributes)});
  }
  return mesh;
}

// ---- ASCII -------------------------------------------------------------------------------

bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && io::is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && io::is_space(text.back())) text.remove_suffix(1);
  return text;
}

class AsciiParser {
 public:
  AsciiParser(std::string_view bytes, const std::string& path) : path_(path), scanner_(bytes, path, kFormat) {}
  // Facets only, in [begin, end) of `bytes` (a run of parse_in_parallel).
  AsciiParser(std::string_view bytes, const std::string& path, std::size_t begin, std::size_t end)
      : path_(path), scanner_(bytes, begin, end, path, kFormat) {}

  Mesh parse() {
    if (std::optional<Mesh> mesh = parse_in_parallel()) return std::move(*mesh);
    scanner_.skip_whitespace();
    if (scanner_.at_end()) scanner_.fail("empty file: neither binary nor ASCII STL");
    while (!scanner_.at_end()) {
      expect_keyword("solid");
      parse_solid();
      scanner_.skip_whitespace();
    }
    return build_mesh(corners_.data());
  }

 private:
  struct Solid {
    std::string name;
    std::int64_t first_facet;
    std::int64_t end_facet;
  };

  std::int64_t num_facets() const noexcept { return static_cast<std::int64_t>(normal_offsets_.size()); }

  // Every facet of this parser's range.
  void parse_facets() {
    scanner_.skip_whitespace();
    while (!scanner_.at_end()) {
      expect_lowercase_keyword("facet");
      parse_facet();
      scanner_.skip_whitespace();
    }
  }

  // A file of one large solid, its facets parsed on all cores; nullopt when the sequential
  // parse must read it (another layout, several solids, any error).
  std::optional<Mesh> parse_in_parallel() {
    const std::string_view document = scanner_.document();
    const std::size_t parts = thread_count();
    if (parts < 2 || document.size() < 2 * io::kParallelLinesMinBytes) return std::nullopt;
    // "solid [name]" first, "endsolid [name]" the last line with anything on it.
    io::TextScanner head(document, path_, kFormat);
    head.skip_whitespace();
    if (!equals_ignoring_case(head.next_token(), "solid")) return std::nullopt;
    std::string name(trim(head.next_line()));
    const std::size_t body_begin = head.position();
    std::size_t last = document.size();
    while (last > body_begin && io::is_space(document[last - 1])) --last;
    const std::size_t newline = document.rfind('\n', last == 0 ? 0 : last - 1);
    if (newline == std::string_view::npos || newline < body_begin) return std::nullopt;
    const std::size_t body_end = newline + 1;
    const std::string_view last_line = trim(document.substr(body_end, last - body_end));
    if (last_line.size() < 8 || !equals_ignoring_case(last_line.substr(0, 8), "endsolid") ||
        (last_line.size() > 8 && !io::is_space(last_line[8])))
      return std::nullopt;
    // Runs end after an "endfacet" line.
    std::vector<std::size_t> cuts{body_begin};
    for (std::size_t p = 1; p < parts; ++p) {
      const std::size_t at = std::max(cuts.back(), body_begin + (body_end - body_begin) / parts * p);
      const std::size_t found = document.find("endfacet", at);
      if (found == std::string_view::npos || found >= body_end) break;
      const std::size_t line_end = document.find('\n', found);
      cuts.push_back(line_end == std::string_view::npos ? body_end : std::min(body_end, line_end + 1));
    }
    cuts.push_back(body_end);
    const std::size_t runs = cuts.size() - 1;
    std::vector<std::vector<double>> corners(runs);
    std::vector<std::vector<std::size_t>> normal_offsets(runs);
    try {
      io::parallel_ranges(runs, 1, [&](std::size_t first, std::size_t end) {
        for (std::size_t r = first; r < end; ++r) {
          AsciiParser run(document, path_, cuts[r], cuts[r + 1]);
          run.corners_.reserve((cuts[r + 1] - cuts[r]) / 24);  // ~250 bytes a facet, 9 values each
          run.parse_facets();
          corners[r] = std::move(run.corners_);
          normal_offsets[r] = std::move(run.normal_offsets_);
        }
      });
    } catch (const ReadError&) {
      return std::nullopt;
    }
    std::size_t total_corners = 0, total_facets = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      total_corners += corners[r].size();
      total_facets += normal_offsets[r].size();
    }
    // Joined in a scratch array (not a vector: nothing is zero-filled before it is written).
    NDArray joined = NDArray::allocate(DType::float64, {static_cast<std::int64_t>(total_corners)});
    normal_offsets_.reserve(total_facets);
    std::size_t at = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      io::copy_in_parallel(joined.data_as<double>() + at, corners[r].data(), corners[r].size() * sizeof(double));
      at += corners[r].size();
      std::vector<double>().swap(corners[r]);
      normal_offsets_.insert(normal_offsets_.end(), normal_offsets[r].begin(), normal_offsets[r].end());
    }
    solids_.push_back(Solid{std::move(name), 0, num_facets()});
    return build_mesh(joined.data_as<double>());
  }

  std::size_t offset_of(std::string_view token) const noexcept {
    return static_cast<std::size_t>(token.data() - scanner_.document().data());
  }

  // A token quoted (and cut short) for a message.
  static std::string describe(std::string_view token) {
    if (token.empty()) return "the end of the file";
    std::string text(1, '\'');
    text.append(token.substr(0, 40)).push_back('\'');
    return text;
  }

  void expect_keyword(std::string_view keyword, std::string_view hint = {}) {
    const std::string_view token = scanner_.next_token();
    if (equals_ignoring_case(token, keyword)) return;
    scanner_.fail_at(offset_of(token), "expected '" + std::string(keyword) + "', found " + describe(token) + std::string(hint));
  }

  // expect_keyword for the lowercase spelling every writer uses, compared where it stands
  // (no token scan); any other text goes to expect_keyword, which decides it and words errors.
  void expect_lowercase_keyword(std::string_view keyword, std::string_view hint = {}) {
    scanner_.skip_whitespace();
    const std::size_t at = scanner_.position();
    const std::size_t after = at + keyword.size();
    const std::string_view document = scanner_.document();
    if (after <= scanner_.end() && document.compare(at, keyword.size(), keyword) == 0 &&
        (after == scanner_.end() || io::is_space(document[after]))) {
      scanner_.seek(after);
      return;
    }
    expect_keyword(keyword, hint);
  }

  void read_vector(std::vector<double>& out) {
    for (int axis = 0; axis < 3; ++axis) out.push_back(scanner_.next_number<double>());
  }

  void parse_solid() {
    const std::string name(trim(scanner_.next_line()));
    const std::int64_t first_facet = num_facets();
    for (;;) {
      const std::string_view token = scanner_.next_token();
      if (equals_ignoring_case(token, "facet")) {
        parse_facet();
      } else if (equals_ignoring_case(token, "endsolid")) {
        scanner_.next_line();  // the name repeated (or not): writers disagree, so not checked
        break;
      } else {
        scanner_.fail_at(offset_of(token), "expected 'facet' or 'endsolid', found " + describe(token));
      }
    }
    solids_.push_back(Solid{name, first_facet, num_facets()});
  }

  void parse_facet() {
    expect_lowercase_keyword("normal");
    // The facet count is known only at the end, so normals are parsed then, straight into
    // their array; here their tokens are only stepped over.
    normal_offsets_.push_back(scanner_.position());
    for (int axis = 0; axis < 3; ++axis)
      if (scanner_.next_token().empty()) scanner_.fail("unexpected end of data while reading a number");
    expect_lowercase_keyword("outer");
    expect_lowercase_keyword("loop");
    for (int corner = 0; corner < 3; ++corner) {
      expect_lowercase_keyword("vertex");
      read_vector(corners_);
    }
    expect_lowercase_keyword("endloop", " (STL facets are triangles)");
    expect_lowercase_keyword("endfacet");
  }

  // `corners`: 9 per facet, in facet order.
  Mesh build_mesh(const double* corners) {
    Mesh mesh;
    const auto corner_at = [corners](std::int64_t corner) {
      return std::array<double, 3>{corners[3 * corner], corners[3 * corner + 1], corners[3 * corner + 2]};
    };
    weld_corners<double>(num_facets(), corner_at, mesh);
    if (num_facets() > 0) {
      NDArray normals = NDArray::allocate(DType::float64, {num_facets(), 3});
      double* const out = normals.data_as<double>();
      // On all cores for many facets: ranges report their first error, the earliest range's
      // wins, so the error is the one a walk in order meets first.
      io::parallel_ranges(normal_offsets_.size(), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
        io::TextScanner scanner = scanner_;
        for (std::size_t facet = first; facet < last; ++facet) {
          scanner.seek(normal_offsets_[facet]);
          scanner.next_numbers(out + 3 * facet, 3);
        }
      });
      mesh.cell_data.set("facet_normals", {std::move(normals)});
    }
    add_solid_regions(mesh);
    return mesh;
  }

  void add_solid_regions(Mesh& mesh) const {
    std::vector<std::string> names;
    for (const Solid& solid : solids_)
      if (!solid.name.empty() && std::find(names.begin(), names.end(), solid.name) == names.end())
        names.push_back(solid.name);
    for (const std::string& name : names) {
      std::int64_t size = 0;
      for (const Solid& solid : solids_)
        if (solid.name == name) size += solid.end_facet - solid.first_facet;
      Region region{name, RegionKind::Cell, 2, -1, NDArray::allocate(DType::int64, {size})};
      std::int64_t* entries = region.entries.data_as<std::int64_t>();
      for (const Solid& solid : solids_)
        if (solid.name == name)
          for (std::int64_t facet = solid.first_facet; facet < solid.end_facet; ++facet) *entries++ = facet;
      mesh.regions.push_back(std::move(region));
    }
  }

  const std::string& path_;
  io::TextScanner scanner_;
  std::vector<double> corners_;  // 9 per facet
  std::vector<std::size_t> normal_offsets_;  // scratch: where each facet's normal is written
  std::vector<Solid> solids_;
};

// Text never holds NUL bytes; binary STL nearly always does (small counts, zero attributes).
bool looks_binary(std::string_view bytes) {
  return bytes.substr(0, 4096).find('\0') != std::string_view::npos;
}

// A file that fails as ASCII but looks binary is likely a truncated or padded binary file:
// say what the size check expected.
[[noreturn]] void rethrow_with_size_hint(const ReadError& error, std::string_view bytes) {
  const std::uint64_t expected = kBinaryHeaderSize + kBinaryRecordSize * std::uint64_t{binary_triangle_count(bytes)};
  throw ReadError(error.path(), error.format(),
                  error.reason() + " (nor is it binary STL: its header announces " +
                      std::to_string(binary_triangle_count(bytes)) + " triangles, i.e. " +
                      std::to_string(expected) + " bytes, but the file has " + std::to_string(bytes.size()) + ")",
                  error.byte_offset(), error.line());
}

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  const std::string_view bytes = file.bytes();
  if (is_binary(bytes)) return read_binary(bytes);
  try {
    return AsciiParser(bytes, path).parse();
  } catch (const ReadError& error) {
    if (bytes.size() >= kBinaryHeaderSize && looks_binary(bytes)) rethrow_with_size_hint(error, bytes);
    throw;
  }
}

}  // namespace meshioplusplus::stl
