// OFF reader (ASCII).
//
// Layout: a keyword [ST][C][N][n]OFF, for nOFF the vertex dimension, then the vertex, face
// and (ignored) edge counts — on one line or several; the edge count may be missing. Then
// one vertex per line: coordinates, [normal], [colour], [texture coordinates]; then one face
// per line: its corner count, the corners (0-based), and an optional colour of 0 to 4
// values. '#' starts a comment anywhere, also after data; blank lines and leading blanks
// are allowed. Homogeneous (4OFF) and binary OFF are rejected with a ReadError.
//
// What becomes what: points float64 (n, 3) — (n, Ndim) for nOFF. Vertex normals, colours
// and texture coordinates become point data "off:normal" (n, 3), "off:color" (n, 1|3|4)
// (the width the first vertex shows; every vertex must agree) and "off:texcoord" (n, 2).
// Faces of any size are grouped into one block per cell type (triangle, quad, polygon, and
// vertex/line for 1/2 corners), in order of first appearance — meshio reads triangles
// only. Face colours become cell data "off:color", float64 (faces, widest colour); faces
// with a shorter colour (or none) are padded with NaN. Values are kept as written: 0-255
// integers or 0-1 floats alike.
//
// Arrays: the header gives the counts, so points and point data are allocated once in final
// shape. Faces take two passes over their lines: the first collects corner counts and colour
// widths, the second writes straight into blocks allocated once in final shape.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/off/off.hpp"
#include "io/cells/face_blocks.hpp"
#include "io/text/line_values.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/parallel.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::off {
namespace {

constexpr std::string_view kFormat = "off";

using io::LineSpan;

// The significant lines: text after '#' and blank lines are dropped.
class DataLines : public io::SignificantLines {
 public:
  DataLines(std::string_view document, const std::string& path) : SignificantLines(document, path, kFormat, '#') {}
  std::size_t remaining() const noexcept { return bytes_left(); }
};

std::size_t count_tokens(io::TextScanner scanner) {
  std::size_t tokens = 0;
  while (!scanner.next_token().empty()) ++tokens;
  return tokens;
}

// What the keyword announces per vertex.
struct VertexLayout {
  bool texcoords = false;  // ST
  bool colors = false;     // C
  bool normals = false;    // N
  bool dimension_given = false;  // n
  std::int64_t dim = 3;
  std::int64_t color_width = 0;  // decided by the first vertex line

  std::int64_t values() const noexcept { return dim + (normals ? 3 : 0) + color_width + (texcoords ? 2 : 0); }
};

struct Counts {
  std::int64_t vertices = 0;
  std::int64_t faces = 0;
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : bytes_(bytes), lines_(bytes, path) {}

  Mesh read() {
    const Counts counts = read_header();
    read_vertices(counts.vertices);
    read_faces(counts.faces, counts.vertices);
    return std::move(mesh_);
  }

 private:
  VertexLayout parse_keyword(std::string_view keyword, std::size_t offset) {
    VertexLayout layout;
    std::string_view rest = keyword;
    const auto take = [&rest](std::string_view prefix) {
      if (!rest.starts_with(prefix)) return false;
      rest.remove_prefix(prefix.size());
      return true;
    };
    layout.texcoords = take("ST");
    layout.colors = take("C");
    layout.normals = take("N");
    if (take("4")) lines_.fail_at(offset, "homogeneous (4OFF) coordinates are not supported");
    layout.dimension_given = take("n");
    if (rest != "OFF") lines_.fail_at(offset, "not an OFF file: expected a [ST][C][N][n]OFF keyword, found '" +
                                               std::string(keyword.substr(0, 40)) + "'");
    return layout;
  }

  // Keyword, [dimension], vertex, face and edge counts: whitespace-separated across lines.
  Counts read_header() {
    const LineSpan keyword_line = lines_.require("the OFF keyword");
    // TextScanner holds references, so it is re-created (not assigned) for each line.
    std::optional<io::TextScanner> scanner(std::in_place, lines_.scanner(keyword_line));
    layout_ = parse_keyword(scanner->next_token(), keyword_line.begin);
    scanner->skip_whitespace();
    if (scanner->document().substr(scanner->position(), scanner->end() - scanner->position()).starts_with("BINARY"))
      lines_.fail_at(scanner->position(), "binary OFF is not supported");

    const auto next_count = [&](std::string_view what) {
      scanner->skip_whitespace();
      while (scanner->at_end()) {
        scanner.emplace(lines_.scanner(lines_.require(what)));
        scanner->skip_whitespace();
      }
      const std::size_t offset = scanner->position();
      const auto value = scanner->next_number<std::int64_t>();
      if (value < 0) scanner->fail_at(offset, "negative " + std::string(what));
      return std::pair{value, offset};
    };
    if (layout_.dimension_given) {
      const auto [dim, offset] = next_count("the vertex dimension");
      if (dim < 1 || dim > 3) lines_.fail_at(offset, "vertex dimension must be 1, 2 or 3");
      layout_.dim = dim;
    }
    Counts counts;
    counts.vertices = next_count("the vertex count").first;
    counts.faces = next_count("the face count").first;
    scanner->skip_whitespace();
    if (!scanner->at_end()) scanner->next_number<std::int64_t>();  // the edge count, unused
    scanner->skip_whitespace();
    if (!scanner->at_end()) scanner->fail("unexpected value after the counts");
    check_room(counts.vertices, layout_.dim, "vertices");
    check_room(counts.faces, 2, "faces");
    return counts;
  }

  // A corrupt count must not drive a huge allocation: each record needs `values` numbers of
  // at least two bytes (a digit and a separator).
  void check_room(std::int64_t records, std::int64_t values, std::string_view what) {
    const std::uint64_t room = (lines_.remaining() + 1) / (2 * static_cast<std::uint64_t>(values));
    if (static_cast<std::uint64_t>(records) > room)
      lines_.fail_at(lines_.position(), "the header announces " + std::to_string(records) + " " + std::string(what) +
                                            ", more than the rest of the file can hold");
  }

  // Where the next record starts: past blank and comment lines (meshio puts a blank line
  // before each section), so that the records that follow can be one per line.
  std::size_t next_record_begin() {
    const std::size_t here = lines_.position();
    const std::optional<LineSpan> line = lines_.next();
    lines_.seek(here);
    return line ? line->begin : here;
  }

  // ---- vertices ----

  void read_vertices(std::int64_t count) {
    const std::size_t start = lines_.position();
    if (count > 0 && layout_.colors) {
      const LineSpan first = lines_.require("a vertex");
      const auto extra = static_cast<std::int64_t>(count_tokens(lines_.scanner(first))) - layout_.values();
      if (extra != 1 && extra != 3 && extra != 4)
        lines_.fail_at(first.begin, "a COFF vertex needs 1, 3 or 4 colour values after its coordinates");
      layout_.color_width = extra;
      lines_.seek(start);
    }
    mesh_.points = NDArray::allocate(DType::float64, {count, layout_.dim});
    NDArray normals, colors, texcoords;
    if (layout_.normals) normals = NDArray::allocate(DType::float64, {count, 3});
    if (layout_.colors) colors = NDArray::allocate(DType::float64, {count, layout_.color_width});
    if (layout_.texcoords) texcoords = NDArray::allocate(DType::float64, {count, 2});

    // One vertex per line, as writers lay them out: all cores. Anything else (comments, blank
    // lines, odd values) is read, or reported, by the sequential loop below.
    const auto vertex_line = [&](std::uint64_t row, std::size_t begin, std::size_t end) {
      io::LineValues line(bytes_.data() + begin, bytes_.data() + end, bytes_.data() + bytes_.size());
      for (NDArray* array : {&mesh_.points, &normals, &colors, &texcoords}) {
        if (array->empty_handle()) continue;
        const std::int64_t width = array->row_width();
        double* values = array->data_as<double>() + static_cast<std::int64_t>(row) * width;
        for (std::int64_t k = 0; k < width; ++k)
          if (!line.next(values[k])) return false;
      }
      return line.done();
    };
    if (const std::optional<std::size_t> end =
            io::parse_lines_in_parallel(bytes_, next_record_begin(), static_cast<std::uint64_t>(count), vertex_line)) {
      lines_.seek(*end);
      count = 0;  // all read
    }
    // One pass per line: the numbers are parsed where they land, and a line with too few or
    // too many values is caught by the end-of-line checks instead of a separate token count.
    for (std::int64_t i = 0; i < count; ++i) {
      const LineSpan line = lines_.require("vertex", i);
      io::TextScanner scanner = lines_.scanner(line);
      const auto wrong_width = [&] {
        lines_.fail_at(line.begin, "vertex " + std::to_string(i) + " needs " + std::to_string(layout_.values()) + " values");
      };
      const auto fill = [&](NDArray& array) {
        if (array.empty_handle()) return;
        const std::int64_t width = array.row_width();
        double* row = array.data_as<double>() + i * width;
        for (std::int64_t k = 0; k < width; ++k) {
          scanner.skip_whitespace();
          if (scanner.at_end()) wrong_width();
          row[k] = scanner.next_number<double>();
        }
      };
      fill(mesh_.points);
      fill(normals);
      fill(colors);
      fill(texcoords);
      scanner.skip_whitespace();
      if (!scanner.at_end()) wrong_width();
    }
    if (layout_.normals) mesh_.point_data.set("off:normal", std::move(normals));
    if (layout_.colors) mesh_.point_data.set("off:color", std::move(colors));
    if (layout_.texcoords) mesh_.point_data.set("off:texcoord", std::move(texcoords));
  }

  // ---- faces ----

  struct FacePlan {
    std::vector<std::int64_t> corner_counts;
    std::int64_t color_width = 0;  // the widest
  };

  // First pass: corner counts and colour widths, checking each line's shape. One face per
  // line with plain numbers goes on all cores; anything else (and every error) sequentially.
  FacePlan plan_faces(std::int64_t count) {
    FacePlan plan;
    std::vector<std::int64_t> corner_counts(static_cast<std::size_t>(count));  // bounded by check_room
    std::vector<std::uint8_t> color_widths(static_cast<std::size_t>(count));
    const auto plan_line = [&](std::uint64_t face, std::size_t begin, std::size_t end) {
      io::LineValues line(bytes_.data() + begin, bytes_.data() + end, bytes_.data() + bytes_.size());
      std::int64_t corners = 0;
      if (!line.next(corners) || corners < 1) return false;
      std::int64_t values = 0;  // counted, as the sequential plan does; read in the second pass
      while (values <= corners + 4 && line.skip_tokens(1)) ++values;
      if (!line.done() || values < corners || values - corners > 4) return false;
      corner_counts[face] = corners;
      color_widths[face] = static_cast<std::uint8_t>(values - corners);
      return true;
    };
    if (const auto end = io::parse_lines_in_parallel(bytes_, next_record_begin(), static_cast<std::uint64_t>(count), plan_line)) {
      plan.corner_counts = std::move(corner_counts);
      plan.color_width = *std::max_element(color_widths.begin(), color_widths.end());
      lines_.seek(*end);
      return plan;
    }
    plan.corner_counts.reserve(static_cast<std::size_t>(count));  // bounded by check_room
    for (std::int64_t face = 0; face < count; ++face) {
      const LineSpan line = lines_.require("face", face);
      io::TextScanner scanner = lines_.scanner(line);
      const std::int64_t corners = scanner.next_number<std::int64_t>();
      const auto values = static_cast<std::int64_t>(count_tokens(scanner));
      if (corners < 1 || corners > values)
        lines_.fail_at(line.begin, "face " + std::to_string(face) + " announces " + std::to_string(corners) +
                                       " corners but lists " + std::to_string(values) + " values");
      if (values - corners > 4)
        lines_.fail_at(line.begin, "face " + std::to_string(face) + " has more than 4 colour values after its corners");
      plan.corner_counts.push_back(corners);
      plan.color_width = std::max(plan.color_width, values - corners);
    }
    return plan;
  }

  // Faces of `corners` corners (and nothing else) on every line, read on all cores in one pass
  // straight into their block; false, having moved nothing, for any other layout.
  bool read_uniform_faces(std::int64_t count, std::int64_t corners, std::int64_t num_points) {
    NDArray connectivity = NDArray::allocate(DType::int64, {count, corners});
    std::int64_t* out = connectivity.data_as<std::int64_t>();
    const auto fill_line = [&](std::uint64_t face, std::size_t begin, std::size_t end) {
      io::LineValues line(bytes_.data() + begin, bytes_.data() + end, bytes_.data() + bytes_.size());
      std::int64_t listed = 0, index = 0;
      if (!line.next(listed) || listed != corners) return false;
      for (std::int64_t k = 0; k < corners; ++k) {
        if (!line.next(index) || index < 0 || index >= num_points) return false;
        out[static_cast<std::int64_t>(face) * corners + k] = index;
      }
      return line.done();
    };
    const auto end = io::parse_lines_in_parallel(bytes_, next_record_begin(), static_cast<std::uint64_t>(count), fill_line);
    if (!end) return false;
    lines_.seek(*end);
    mesh_.cells.push_back(CellBlock{std::string(io::face_cell_type(corners)), std::move(connectivity), {}, {}});
    return true;
  }

  // The corner count of the first face when its line is plainly "k i1 … ik" (no colour).
  std::optional<std::int64_t> first_face_corners() {
    const std::size_t here = lines_.position();
    const std::optional<LineSpan> line = lines_.next();
    lines_.seek(here);
    if (!line) return std::nullopt;
    io::LineValues values(bytes_.data() + line->begin, bytes_.data() + line->end, bytes_.data() + bytes_.size());
    std::int64_t corners = 0, index = 0;
    if (!values.next(corners) || corners < 1) return std::nullopt;
    for (std::int64_t k = 0; k < corners; ++k)
      if (!values.next(index)) return std::nullopt;
    return values.done() ? std::optional<std::int64_t>(corners) : std::nullopt;
  }

  void read_faces(std::int64_t count, std::int64_t num_points) {
    // Most files are all triangles (or all quads): try that in one pass, without planning —
    // when the file is large enough for all cores, and only on the default heap: a guess that
    // fails wastes its array, which an installed allocator (pinned memory) must never see.
    if (thread_count() >= 2 && bytes_.size() - lines_.position() >= io::kParallelLinesMinBytes &&
        !current_buffer_allocator())
      if (const std::optional<std::int64_t> corners = first_face_corners(); corners && (*corners == 3 || *corners == 4))
        if (read_uniform_faces(count, *corners, num_points)) return;
    const std::size_t start = lines_.position();
    const FacePlan plan = plan_faces(count);
    const io::FaceBlockLayout layout(plan.corner_counts);
    std::vector<CellBlock> blocks = layout.allocate_blocks();
    std::vector<NDArray> colors;
    if (plan.color_width > 0)
      colors = layout.allocate_per_face(DType::float64, std::vector<std::int64_t>(layout.num_blocks(), plan.color_width));

    lines_.seek(start);
    io::FaceBlockFiller filler(layout, blocks);
    for (std::int64_t face = 0; face < count; ++face) {
      io::TextScanner scanner = lines_.scanner(lines_.require("face", face));
      const std::int64_t corners = scanner.next_number<std::int64_t>();
      const io::FaceSlot slot = filler.place(corners);
      for (std::int64_t k = 0; k < corners; ++k) {
        scanner.skip_whitespace();
        const std::size_t offset = scanner.position();
        const auto index = scanner.next_number<std::int64_t>();
        if (index < 0 || index >= num_points)
          scanner.fail_at(offset, "face " + std::to_string(face) + " refers to vertex " + std::to_string(index) +
                                      ", outside [0, " + std::to_string(num_points) + ")");
        slot.corners[k] = index;
      }
      if (!colors.empty()) read_face_color(scanner, colors[slot.block].data_as<double>() + slot.row * plan.color_width,
                                           plan.color_width);
    }
    mesh_.cells = std::move(blocks);
    if (!colors.empty()) mesh_.cell_data.set("off:color", std::move(colors));
  }

  static void read_face_color(io::TextScanner& scanner, double* color, std::int64_t width) {
    for (std::int64_t c = 0; c < width; ++c) {
      scanner.skip_whitespace();
      color[c] = scanner.at_end() ? std::numeric_limits<double>::quiet_NaN() : scanner.next_number<double>();
    }
  }

  std::string_view bytes_;
  DataLines lines_;
  VertexLayout layout_;
  Mesh mesh_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::off
