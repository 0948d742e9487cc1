// Triangle reader: X.node, X.ele, X.edge and X.poly, as Triangle's own reader takes them.
//
// .node: "<points> [<dimension: 2> [<attributes> [<boundary markers: 0 or 1>]]]", then per
// point its number, x, y, attributes and marker. .ele: "<triangles> <nodes per triangle: 3
// or 6> [<attributes>]", then per triangle its number, nodes and regional attributes. .edge:
// "<edges> [<markers: 0 or 1>]", then number, two endpoints, marker. .poly: a .node section
// (or "0 2 a m": the points are X.node's), a segment section like .edge's, then (optional)
// the holes "<holes>" + "<number> <x> <y>" and the regional attributes "<regions>" +
// "<number> <x> <y> <attribute> [<maximum area>]" (a missing area is the attribute, as in
// Triangle). '#' starts a comment anywhere; blank lines do not count. As in Triangle, the
// first point's number is the index base (0 or 1; Triangle's -z) for every file of the
// stem, and points are taken in file order (later numbers are read but not checked).
//
// What becomes what: points float64 (n, 2); point attributes "triangle:attr1", … float64
// (n,) and the boundary marker "triangle:ref" int32 (n,) (the names meshio++ 17.21 and the
// TetGen reader use). Triangles → one "triangle" block, 6-node ones (-o2) → "triangle6" with
// the node order turned into VTK's (Triangle lists the corners, then the midpoints opposite
// corners 1, 2, 3: midpoints of edges 2-3, 3-1, 1-2; VTK wants 1-2, 2-3, 3-1); regional
// attributes → cell data "triangle:ref", "triangle:ref2", … float64 (Triangle's REALs).
// Segments and edges → one "line" block, markers → cell data "triangle:ref" int32. Holes →
// field data "triangle:holes" float64 (h, 2) (x, y); regional attribute points → field data
// "triangle:regions" float64 (r, 4) (x, y, attribute, maximum area): they are inputs to the
// mesher, not mesh entities, and are kept for a .poly write. Reading X.node reads X.ele too
// when it exists (a lone .node is a point cloud); a .poly never reads an .ele. A Voronoi
// .v.edge (an endpoint -1 and a ray direction) is refused: a ray is no cell.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/triangle/triangle.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/parallel_records.hpp"
#include "io/text/shewchuk_sniff.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::triangle {
namespace {

constexpr std::string_view kFormat = "triangle";

using io::LineSpan;

class Lines : public io::SignificantLines {
 public:
  Lines(std::string_view document, const std::string& path) : SignificantLines(document, path, kFormat, '#') {}
};

// One file of the stem, mapped, with its line walker.
struct Document {
  Document(const std::string& path) : file(path, kFormat), lines(file.bytes(), path) {
    io::reject_empty_file(file.bytes(), path, kFormat);
  }
  std::string_view bytes() const noexcept { return file.bytes(); }
  io::MappedFile file;
  Lines lines;
};

// Header values: `required` of them, then up to `optional` more (missing ones: `defaults`).
std::vector<std::int64_t> read_header(Lines& lines, std::size_t required, const std::vector<std::int64_t>& defaults,
                                      const char* what, std::size_t* line_begin = nullptr) {
  return io::read_count_header(lines, required, defaults, what, line_begin);
}

// Records of `width` values each need at least two bytes per value: a corrupt count must not
// drive a huge allocation. Column counts are bounded by the file and the read limit too.
void check_room(const std::string& path, const Lines& lines, std::int64_t records, std::int64_t width,
                std::size_t offset, const char* what) {
  io::check_claim_fits_file(path, kFormat, "columns", static_cast<std::uint64_t>(width), 1, lines.bytes_left() + 1,
                            io::ClaimSite{offset, std::nullopt});
  io::check_claim_fits_limit(path, kFormat, "columns", static_cast<std::uint64_t>(width), 256,
                             io::ClaimSite{offset, std::nullopt});
  const std::uint64_t room = (lines.bytes_left() + 1) / (2 * static_cast<std::uint64_t>(std::max<std::int64_t>(width, 1)));
  if (static_cast<std::uint64_t>(records) > room)
    lines.fail_at(offset, "the header announces " + std::to_string(records) + " " + what +
                              ", more than the rest of the file can hold");
}

// `count` records from `lines`' position: on all cores when they lie one per line, else one
// significant line each (`what` names a missing one).
template <class Fast, class Parse>
void read_records(Document& doc, std::int64_t count, const Fast& fast, const Parse& parse, const char* what) {
  if (io::parse_records_in_parallel(doc.lines, doc.bytes(), count, fast, parse)) return;
  for (std::int64_t i = 0; i < count; ++i) {
    const LineSpan line = doc.lines.require(what, i);
    io::TextScanner scanner = doc.lines.scanner(line);
    parse(scanner, line.begin, i);
  }
}

void expect_line_end(io::TextScanner& scanner, const char* what, std::int64_t i, std::int64_t width) {
  scanner.skip_whitespace();
  if (!scanner.at_end())
    scanner.fail(std::string(what) + " " + std::to_string(i) + " has more than the header's " + std::to_string(width) +
                 " values");
}

std::string numbered(const std::string& base, std::int64_t k) { return k == 0 ? base : base + std::to_string(k + 1); }

struct Nodes {
  std::int64_t base = 0;
  std::int64_t count = 0;
};

// A node section from `doc`'s position, whose header values are `header` (read at `offset`).
Nodes read_node_records(Document& doc, const std::string& path, const std::vector<std::int64_t>& header,
                        std::size_t offset, Mesh& mesh) {
  const std::int64_t count = header[0], dim = header[1], num_attrs = header[2], num_markers = header[3];
  if (dim != 2) doc.lines.fail_at(offset, "the point dimension must be 2 (Triangle is 2-D), not " + std::to_string(dim));
  if (num_markers > 1) doc.lines.fail_at(offset, "a point has 0 or 1 boundary markers, not " + std::to_string(num_markers));
  if (num_attrs > std::numeric_limits<std::int32_t>::max()) doc.lines.fail_at(offset, "too many point attributes");
  const std::int64_t width = 3 + num_attrs + num_markers;
  check_room(path, doc.lines, count, width, offset, "points");

  mesh.points = NDArray::allocate(DType::float64, {count, 2});
  std::vector<NDArray> attrs;
  for (std::int64_t k = 0; k < num_attrs; ++k) attrs.push_back(NDArray::allocate(DType::float64, {count}));
  NDArray markers = NDArray::allocate(DType::int32, {num_markers ? count : 0});
  double* points = mesh.points.data_as<double>();
  std::int32_t* marker = markers.data_as<std::int32_t>();
  const auto parse = [&](io::TextScanner& scanner, std::size_t, std::int64_t i) {
    scanner.next_number<std::int64_t>();  // its number: only the first one's matters (the base)
    scanner.next_numbers(points + i * 2, 2);
    for (NDArray& attr : attrs) attr.data_as<double>()[i] = scanner.next_number<double>();
    if (num_markers) marker[i] = scanner.next_number<std::int32_t>();
    expect_line_end(scanner, "point", i, width);
  };
  const char* const file_end = doc.bytes().data() + doc.bytes().size();
  const auto fast = [&](std::int64_t i, const char* p, const char* end) {
    if (num_attrs != 0) return false;
    io::LineValues values(p, end, file_end);
    std::int64_t number = 0;
    if (!values.next(number) || !values.next(points[i * 2]) || !values.next(points[i * 2 + 1])) return false;
    if (num_markers && !values.next(marker[i])) return false;
    return values.done();
  };
  Nodes nodes{0, count};
  if (count > 0) {
    // The first record's number is the index base.
    const LineSpan first = doc.lines.require("point", 0);
    io::TextScanner scanner = doc.lines.scanner(first);
    nodes.base = io::TextScanner(scanner).next_number<std::int64_t>();
    if (!io::checked_sum(nodes.base, count)) doc.lines.fail_at(first.begin, "point numbers run past the 64-bit range");
    parse(scanner, first.begin, 0);
    const std::int64_t rest = count - 1;
    read_records(
        doc, rest, [&](std::int64_t i, const char* p, const char* end) { return fast(i + 1, p, end); },
        [&](io::TextScanner& s, std::size_t at, std::int64_t i) { parse(s, at, i + 1); }, "point");
  }
  mesh.point_data.reserve(static_cast<std::size_t>(num_attrs + num_markers));
  for (std::int64_t k = 0; k < num_attrs; ++k)
    mesh.point_data.append_new("triangle:attr" + std::to_string(k + 1), std::move(attrs[k]));
  if (num_markers) mesh.point_data.append_new("triangle:ref", std::move(markers));
  return nodes;
}

Nodes read_node_file(const std::string& path, Mesh& mesh) {
  Document doc(path);
  std::size_t offset = 0;
  const std::vector<std::int64_t> header = read_header(doc.lines, 1, {2, 0, 0}, "point", &offset);
  return read_node_records(doc, path, header, offset, mesh);
}

// A node index as the file writes it → its position, or the error.
std::int64_t node_position(io::TextScanner& scanner, const Nodes& nodes, const char* what, std::int64_t i) {
  scanner.skip_whitespace();
  const std::size_t offset = scanner.position();
  const auto index = scanner.next_number<std::int64_t>();
  const std::uint64_t position = static_cast<std::uint64_t>(index) - static_cast<std::uint64_t>(nodes.base);
  if (index < nodes.base || position >= static_cast<std::uint64_t>(nodes.count))
    scanner.fail_at(offset, std::string(what) + " " + std::to_string(i) + " refers to point " + std::to_string(index) +
                                ", outside [" + std::to_string(nodes.base) + ", " +
                                std::to_string(nodes.base + nodes.count) + ")");
  return static_cast<std::int64_t>(position);
}

bool fast_position(io::LineValues& values, const Nodes& nodes, std::int64_t& out) {
  std::int64_t index = 0;
  if (!values.next(index)) return false;
  const std::uint64_t position = static_cast<std::uint64_t>(index) - static_cast<std::uint64_t>(nodes.base);
  if (index < nodes.base || position >= static_cast<std::uint64_t>(nodes.count)) return false;
  out = static_cast<std::int64_t>(position);
  return true;
}

// Triangle's -o2 order (corners, then the midpoints opposite corners 1, 2, 3) → VTK's.
constexpr std::array<int, 6> kTriangle6ToVtk{0, 1, 2, 5, 3, 4};

void read_elements(const std::string& path, const Nodes& nodes, Mesh& mesh) {
  Document doc(path);
  std::size_t offset = 0;
  const std::vector<std::int64_t> header = read_header(doc.lines, 2, {0}, "triangle", &offset);
  const std::int64_t count = header[0], corners = header[1], num_attrs = header[2];
  if (corners != 3 && corners != 6)
    doc.lines.fail_at(offset, "triangles of " + std::to_string(corners) + " nodes are not Triangle's (3, or 6 with -o2)");
  const std::int64_t width = 1 + corners + num_attrs;
  check_room(path, doc.lines, count, width, offset, "triangles");
  NDArray connectivity = NDArray::allocate(DType::int64, {count, corners});
  std::vector<NDArray> attrs;
  for (std::int64_t k = 0; k < num_attrs; ++k) attrs.push_back(NDArray::allocate(DType::float64, {count}));
  std::int64_t* cells = connectivity.data_as<std::int64_t>();
  const auto slot = [&](std::int64_t k) { return corners == 6 ? kTriangle6ToVtk[static_cast<std::size_t>(k)] : k; };
  const auto parse = [&](io::TextScanner& scanner, std::size_t, std::int64_t i) {
    scanner.next_number<std::int64_t>();
    // Triangle's slot k goes to VTK's slot s where kTriangle6ToVtk[s] == k.
    std::int64_t row[6];
    for (std::int64_t k = 0; k < corners; ++k) row[k] = node_position(scanner, nodes, "triangle", i);
    for (std::int64_t s = 0; s < corners; ++s) cells[i * corners + s] = row[slot(s)];
    for (NDArray& attr : attrs) attr.data_as<double>()[i] = scanner.next_number<double>();
    expect_line_end(scanner, "triangle", i, width);
  };
  const char* const file_end = doc.bytes().data() + doc.bytes().size();
  const auto fast = [&](std::int64_t i, const char* p, const char* end) {
    if (num_attrs != 0) return false;
    io::LineValues values(p, end, file_end);
    std::int64_t number = 0, row[6];
    if (!values.next(number)) return false;
    for (std::int64_t k = 0; k < corners; ++k)
      if (!fast_position(values, nodes, row[k])) return false;
    if (!values.done()) return false;
    for (std::int64_t s = 0; s < corners; ++s) cells[i * corners + s] = row[slot(s)];
    return true;
  };
  read_records(doc, count, fast, parse, "triangle");
  mesh.cells.push_back(CellBlock{corners == 6 ? "triangle6" : "triangle", std::move(connectivity), {}, {}});
  for (std::int64_t k = 0; k < num_attrs; ++k) {
    std::vector<NDArray> per_block;
    per_block.push_back(std::move(attrs[k]));
    mesh.cell_data.append_new(numbered("triangle:ref", k), std::move(per_block));
  }
}

// A segment (.poly) or edge (.edge) section from `doc`'s position → one line block.
void read_segments(Document& doc, const std::string& path, const Nodes& nodes, const char* what, Mesh& mesh) {
  std::size_t offset = 0;
  const std::vector<std::int64_t> header = read_header(doc.lines, 1, {0}, what, &offset);
  const std::int64_t count = header[0], num_markers = header[1];
  if (num_markers > 1) doc.lines.fail_at(offset, std::string("a ") + what + " has 0 or 1 boundary markers");
  const std::int64_t width = 3 + num_markers;
  check_room(path, doc.lines, count, width, offset, "segments");
  NDArray connectivity = NDArray::allocate(DType::int64, {count, 2});
  NDArray markers = NDArray::allocate(DType::int32, {num_markers ? count : 0});
  std::int64_t* cells = connectivity.data_as<std::int64_t>();
  std::int32_t* marker = markers.data_as<std::int32_t>();
  const auto parse = [&](io::TextScanner& scanner, std::size_t line_begin, std::int64_t i) {
    scanner.next_number<std::int64_t>();
    cells[i * 2] = node_position(scanner, nodes, what, i);
    {
      io::TextScanner peek(scanner);
      peek.skip_whitespace();
      const std::size_t at = peek.position();
      if (peek.next_token() == "-1")
        scanner.fail_at(at, std::string(what) + " " + std::to_string(i) + " is a Voronoi ray (endpoint -1 and a " +
                                "direction, Triangle's -v .v.edge): rays are not mesh cells");
      (void)line_begin;
    }
    cells[i * 2 + 1] = node_position(scanner, nodes, what, i);
    if (num_markers) marker[i] = scanner.next_number<std::int32_t>();
    expect_line_end(scanner, what, i, width);
  };
  const char* const file_end = doc.bytes().data() + doc.bytes().size();
  const auto fast = [&](std::int64_t i, const char* p, const char* end) {
    io::LineValues values(p, end, file_end);
    std::int64_t number = 0;
    if (!values.next(number) || !fast_position(values, nodes, cells[i * 2]) ||
        !fast_position(values, nodes, cells[i * 2 + 1]))
      return false;
    if (num_markers && !values.next(marker[i])) return false;
    return values.done();
  };
  read_records(doc, count, fast, parse, what);
  mesh.cells.push_back(CellBlock{"line", std::move(connectivity), {}, {}});
  if (num_markers) {
    std::vector<NDArray> per_block;
    per_block.push_back(std::move(markers));
    mesh.cell_data.append_new("triangle:ref", std::move(per_block));
  }
}

// Holes or regional attributes of a .poly: `columns` reals after each record's number (the
// last one optional, defaulting to the one before it: Triangle's missing area constraint).
void read_points_list(Document& doc, const std::string& path, const char* what, const char* name, std::int64_t columns,
                      bool last_optional, Mesh& mesh) {
  std::size_t offset = 0;
  const std::vector<std::int64_t> header = read_header(doc.lines, 1, {}, what, &offset);
  const std::int64_t count = header[0];
  check_room(path, doc.lines, count, 1 + columns - (last_optional ? 1 : 0), offset, what);
  NDArray values = NDArray::allocate(DType::float64, {count, columns});
  double* out = values.data_as<double>();
  for (std::int64_t i = 0; i < count; ++i) {
    const LineSpan line = doc.lines.require(what, i);
    io::TextScanner scanner = doc.lines.scanner(line);
    scanner.next_number<std::int64_t>();
    for (std::int64_t k = 0; k < columns; ++k) {
      scanner.skip_whitespace();
      if (k == columns - 1 && last_optional && scanner.at_end()) {
        out[i * columns + k] = out[i * columns + k - 1];
        break;
      }
      out[i * columns + k] = scanner.next_number<double>();
    }
    expect_line_end(scanner, what, i, 1 + columns);
  }
  mesh.field_data.append_new(name, std::move(values));
}

Mesh read_poly(const std::string& path, const std::string& stem) {
  Mesh mesh;
  Document doc(path);
  std::size_t offset = 0;
  const std::vector<std::int64_t> header = read_header(doc.lines, 1, {2, 0, 0}, "point", &offset);
  Nodes nodes;
  if (header[0] == 0) {
    // "0 2 a m": the points are in X.node.
    const std::string node_path = stem + ".node";
    std::error_code error;
    if (!std::filesystem::is_regular_file(node_path, error))
      doc.lines.fail_at(offset, "the .poly lists no points (count 0), so they are in " + node_path +
                                    ", which does not exist");
    nodes = read_node_file(node_path, mesh);
  } else {
    nodes = read_node_records(doc, path, header, offset, mesh);
  }
  read_segments(doc, path, nodes, "segment", mesh);
  // Holes and regions are optional at the end of the file (Triangle reads them only with -p).
  if (doc.lines.bytes_left() > 0) {
    const std::size_t before = doc.lines.position();
    if (doc.lines.next()) {
      doc.lines.seek(before);
      read_points_list(doc, path, "hole", "triangle:holes", 2, false, mesh);
      const std::size_t after = doc.lines.position();
      if (doc.lines.next()) {
        doc.lines.seek(after);
        read_points_list(doc, path, "region", "triangle:regions", 4, true, mesh);
        if (const std::optional<LineSpan> extra = doc.lines.next())
          doc.lines.fail_at(extra->begin, "unexpected text after the regional attributes");
      }
    }
  }
  return mesh;
}

// X and the lower-case extension of X.node / .ele / .edge / .poly, or nullopt.
std::optional<std::pair<std::string, std::string>> split_path(const std::string& path) {
  for (const std::string_view ext : {".node", ".ele", ".edge", ".poly"}) {
    if (path.size() < ext.size()) continue;
    bool match = true;
    for (std::size_t i = 0; i < ext.size(); ++i)
      match = match && std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) == ext[i];
    if (match) return std::pair{path.substr(0, path.size() - ext.size()), std::string(ext)};
  }
  return std::nullopt;
}

}  // namespace

bool looks_like(std::string_view head) noexcept {
  return io::classify_node_ele(head, kSniffBytes) == io::ShewchukKind::triangle;
}

Mesh read(const std::string& path) {
  const auto parts = split_path(path);
  if (!parts) throw ReadError(path, std::string(kFormat), "a Triangle file name ends in .node, .ele, .edge or .poly");
  const auto& [stem, ext] = *parts;
  if (ext == ".poly") return read_poly(path, stem);
  Mesh mesh;
  const Nodes nodes = read_node_file(stem + ".node", mesh);
  if (ext == ".edge") {
    Document doc(path);
    read_segments(doc, path, nodes, "edge", mesh);
    if (const std::optional<LineSpan> extra = doc.lines.next())
      doc.lines.fail_at(extra->begin, "unexpected text after the edges");
    return mesh;
  }
  std::error_code error;
  if (ext == ".ele" || std::filesystem::is_regular_file(stem + ".ele", error)) read_elements(stem + ".ele", nodes, mesh);
  return mesh;
}

}  // namespace meshioplusplus::triangle
