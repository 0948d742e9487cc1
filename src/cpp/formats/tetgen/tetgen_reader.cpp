// TetGen reader: X.node + X.ele, whichever of the two is named.
//
// .node: "<points> <dimension> [<attributes> [<boundary markers>]]", then per point its
// index, coordinates, attributes and markers. .ele: "<elements> <nodes per element>
// [<region attributes>]", then per element its index, node indices and attributes. '#'
// starts a comment anywhere. The first point's index is the index base (TetGen writes 0 or
// 1); points must be numbered consecutively from it, and the .ele refers to them by it.
//
// What becomes what (meshio's names): points float64 (n, dim); point attributes
// "tetgen:attr1", … float64 (n,); boundary markers "tetgen:ref", "tetgen:ref2", … int32 (n,)
// (meshio keeps them float64; they are integers in TetGen); 4-node elements → one tetra
// block (3-node elements, Triangle's 2-D .ele, → triangle); region attributes "tetgen:ref",
// "tetgen:ref2", … int64 when every value is an integer (as meshio), float64 otherwise.
// Additionally one Cell region per non-zero integer "tetgen:ref" value, "tetgen:ref <n>"
// (dim of the elements, tag n).
//
// The headers give every count, so all arrays are allocated once in their final shape.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "formats/tetgen/tetgen.hpp"
#include "formats/tetgen/tetgen_paths.hpp"
#include "io/text/line_values.hpp"
#include "io/text/parallel_records.hpp"
#include "io/text/shewchuk_sniff.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::tetgen {
namespace {

constexpr std::string_view kFormat = "tetgen";

using io::LineSpan;

// The significant lines: text after '#' and blank lines are dropped.
class Lines : public io::SignificantLines {
 public:
  Lines(std::string_view document, const std::string& path) : SignificantLines(document, path, kFormat, '#') {}
};

using io::parse_records_in_parallel;

// The index base: the number starting the first point's line (io/text/parallel_records.hpp).
std::optional<std::int64_t> peek_base(const Lines& lines, std::string_view document) {
  return io::peek_first_integer(lines, document);
}

// Header values: `required` of them, then up to `optional` more (missing ones are 0).
std::vector<std::int64_t> read_header(Lines& lines, std::size_t required, std::size_t optional, const char* what) {
  return io::read_count_header(lines, required, std::vector<std::int64_t>(optional, 0), what);
}

// A corrupt count must not drive a huge allocation: each record needs `values` numbers of
// at least two bytes.
void check_room(const Lines& lines, std::int64_t records, std::int64_t values, std::size_t offset, const char* what) {
  const std::uint64_t room = (lines.bytes_left() + 1) / (2 * static_cast<std::uint64_t>(std::max<std::int64_t>(values, 1)));
  if (static_cast<std::uint64_t>(records) > room)
    lines.fail_at(offset, "the header announces " + std::to_string(records) + " " + what +
                              ", more than the rest of the file can hold");
}

// Values per record: `fixed` plus the header's attribute (and marker) counts. Each column
// becomes a named array even when there are no records, so the column count is bounded on
// its own: by the file's size (a column takes at least a byte of every record, and a header
// claiming more columns than its file has bytes is corrupt) and by the read limit (a few
// hundred bytes of bookkeeping per column). The sum is formed only once it cannot overflow.
std::int64_t record_width(std::int64_t fixed, std::int64_t columns_a, std::int64_t columns_b, const std::string& path,
                          std::size_t file_size) {
  constexpr std::uint64_t kBytesPerColumn = 256;
  const std::optional<std::int64_t> columns = io::checked_sum(columns_a, columns_b);
  const std::uint64_t claimed = columns ? static_cast<std::uint64_t>(*columns) : ~0ull;
  io::check_claim_fits_file(path, kFormat, "attribute columns", claimed, 1, file_size, io::ClaimSite{0, std::nullopt});
  io::check_claim_fits_limit(path, kFormat, "attribute columns", claimed, kBytesPerColumn, io::ClaimSite{0, std::nullopt});
  return fixed + *columns;
}

// Index `index` of a record counted from `base`, or nullopt outside [base, base + count)
// (unsigned arithmetic: bases and indices anywhere in int64 cannot overflow).
std::optional<std::int64_t> position_from(std::int64_t index, std::int64_t base, std::int64_t count) noexcept {
  const std::uint64_t position = static_cast<std::uint64_t>(index) - static_cast<std::uint64_t>(base);
  if (index < base || position >= static_cast<std::uint64_t>(count)) return std::nullopt;
  return static_cast<std::int64_t>(position);
}

// base + i as the file would write it, for messages and comparisons, without overflow.
std::int64_t numbered_from(std::int64_t base, std::int64_t i) noexcept {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(i));
}

// Numbered names as meshio gives them: base, base2, base3, …
std::string numbered(const std::string& base, std::int64_t k) { return k == 0 ? base : base + std::to_string(k + 1); }

struct Nodes {
  std::int64_t base = 0;
  std::int64_t count = 0;
};

Nodes read_nodes(const std::string& path, Mesh& mesh) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  Lines lines(file.bytes(), path);
  const std::vector<std::int64_t> header = read_header(lines, 2, 2, "node");
  const std::int64_t count = header[0], dim = header[1], num_attrs = header[2], num_markers = header[3];
  if (dim != 2 && dim != 3) lines.fail_at(0, "the node dimension must be 3 (TetGen) or 2 (Triangle)");
  const std::int64_t width = record_width(1 + dim, num_attrs, num_markers, path, file.bytes().size());
  check_room(lines, count, width, 0, "points");

  mesh.points = NDArray::allocate(DType::float64, {count, dim});
  std::vector<NDArray> attrs, markers;
  for (std::int64_t k = 0; k < num_attrs; ++k) attrs.push_back(NDArray::allocate(DType::float64, {count}));
  for (std::int64_t k = 0; k < num_markers; ++k) markers.push_back(NDArray::allocate(DType::int32, {count}));

  Nodes nodes{0, count};
  double* points = mesh.points.data_as<double>();
  // Point i from its significant line, which starts at `line_begin`; `nodes.base` is known.
  const auto parse_point = [&](io::TextScanner& scanner, std::size_t line_begin, std::int64_t i) {
    const auto index = scanner.next_number<std::int64_t>();
    if (index != numbered_from(nodes.base, i))
      scanner.fail_at(line_begin, "point " + std::to_string(i) + " is numbered " + std::to_string(index) +
                                      ", expected " + std::to_string(numbered_from(nodes.base, i)) +
                                      " (points must be numbered consecutively)");
    scanner.next_numbers(points + i * dim, static_cast<std::size_t>(dim));
    for (NDArray& attr : attrs) attr.data_as<double>()[i] = scanner.next_number<double>();
    for (NDArray& marker : markers) {
      scanner.skip_whitespace();
      const std::size_t offset = scanner.position();
      // Markers are integers; meshio writes float markers as "1.0", so those are accepted too.
      const double value = scanner.next_number<double>();
      if (value != std::trunc(value) || std::abs(value) > std::numeric_limits<std::int32_t>::max())
        scanner.fail_at(offset, "a boundary marker must be an integer");
      marker.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(value);
    }
    scanner.skip_whitespace();
    if (!scanner.at_end())
      scanner.fail("point " + std::to_string(i) + " has more than the header's " + std::to_string(width) + " values");
  };
  // Index and coordinates only (TetGen's and meshio's usual layout).
  const char* const file_end = file.bytes().data() + file.bytes().size();  // see io::plain_digits
  const auto fast_point = [&](std::int64_t i, const char* p, const char* end) {
    if (num_attrs != 0 || num_markers != 0) return false;
    std::int64_t index = 0;
    if ((p = io::plain_integer(p, end, index, file_end)) == nullptr || index != numbered_from(nodes.base, i)) return false;
    for (std::int64_t k = 0; k < dim; ++k)
      if ((p = io::plain_real(p, end, points[i * dim + k])) == nullptr) return false;
    return io::only_blanks(p, end);
  };
  // The points are numbered base .. base + count - 1: a base that makes the last one
  // overflow is refused, so that numbered_from() never wraps.
  const auto check_base = [&](std::size_t offset) {
    if (count > 0 && !io::checked_sum(nodes.base, count - 1))
      lines.fail_at(offset, "points numbered from " + std::to_string(nodes.base) + " run past the 64-bit range");
  };
  const std::optional<std::int64_t> base = peek_base(lines, file.bytes());
  if (base) {
    nodes.base = *base;
    check_base(lines.position());
  }
  if (!base || !parse_records_in_parallel(lines, file.bytes(), count, fast_point, parse_point)) {
    for (std::int64_t i = 0; i < count; ++i) {
      const LineSpan line = lines.require("point", i);
      io::TextScanner scanner = lines.scanner(line);
      if (i == 0) {
        nodes.base = io::TextScanner(scanner).next_number<std::int64_t>();  // parse_point reads it again
        check_base(line.begin);
      }
      parse_point(scanner, line.begin, i);
    }
  }
  // Names numbered here are new (the mesh has no point data yet): no search per column.
  mesh.point_data.reserve(static_cast<std::size_t>(num_attrs + num_markers));
  for (std::int64_t k = 0; k < num_attrs; ++k)
    mesh.point_data.append_new("tetgen:attr" + std::to_string(k + 1), std::move(attrs[k]));
  for (std::int64_t k = 0; k < num_markers; ++k) mesh.point_data.append_new(numbered("tetgen:ref", k), std::move(markers[k]));
  return nodes;
}

void read_elements(const std::string& path, const Nodes& nodes, Mesh& mesh) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  Lines lines(file.bytes(), path);
  const std::vector<std::int64_t> header = read_header(lines, 2, 1, "element");
  const std::int64_t count = header[0], corners = header[1], num_attrs = header[2];
  if (corners != 4 && corners != 3)
    lines.fail_at(0, "elements of " + std::to_string(corners) + " nodes are not supported (4: tetra, 3: triangle)");
  const std::int64_t width = record_width(1 + corners, num_attrs, 0, path, file.bytes().size());
  check_room(lines, count, width, 0, "elements");

  NDArray connectivity = NDArray::allocate(DType::int64, {count, corners});
  std::vector<NDArray> attrs;
  for (std::int64_t k = 0; k < num_attrs; ++k) attrs.push_back(NDArray::allocate(DType::float64, {count}));
  std::int64_t* cells = connectivity.data_as<std::int64_t>();
  // Element i from its significant line.
  const auto parse_element = [&](io::TextScanner& scanner, std::size_t, std::int64_t i) {
    scanner.next_number<std::int64_t>();  // the element's own number: not needed
    for (std::int64_t k = 0; k < corners; ++k) {
      scanner.skip_whitespace();
      const std::size_t offset = scanner.position();
      const auto index = scanner.next_number<std::int64_t>();
      const std::optional<std::int64_t> position = position_from(index, nodes.base, nodes.count);
      if (!position)
        scanner.fail_at(offset, "element " + std::to_string(i) + " refers to point " + std::to_string(index) +
                                    ", outside [" + std::to_string(nodes.base) + ", " +
                                    std::to_string(numbered_from(nodes.base, nodes.count)) + ")");
      cells[i * corners + k] = *position;
    }
    for (NDArray& attr : attrs) attr.data_as<double>()[i] = scanner.next_number<double>();
    scanner.skip_whitespace();
    if (!scanner.at_end())
      scanner.fail("element " + std::to_string(i) + " has more than the header's " + std::to_string(width) + " values");
  };
  // Number and corners only.
  const char* const file_end = file.bytes().data() + file.bytes().size();  // see io::plain_digits
  const auto fast_element = [&](std::int64_t i, const char* p, const char* end) {
    if (num_attrs != 0) return false;
    std::int64_t index = 0;
    if ((p = io::plain_integer(p, end, index, file_end)) == nullptr) return false;
    for (std::int64_t k = 0; k < corners; ++k) {
      p = io::plain_integer(p, end, index, file_end);
      const std::optional<std::int64_t> position = p == nullptr ? std::nullopt : position_from(index, nodes.base, nodes.count);
      if (!position) return false;
      cells[i * corners + k] = *position;
    }
    return io::only_blanks(p, end);
  };
  if (!parse_records_in_parallel(lines, file.bytes(), count, fast_element, parse_element)) {
    for (std::int64_t i = 0; i < count; ++i) {
      const LineSpan line = lines.require("element", i);
      io::TextScanner scanner = lines.scanner(line);
      parse_element(scanner, line.begin, i);
    }
  }
  std::vector<bool> integral(static_cast<std::size_t>(num_attrs), true);
  for (std::int64_t k = 0; k < num_attrs; ++k) {
    const double* values = attrs[k].data_as<double>();
    integral[k] = std::all_of(values, values + count,
                              [](double value) { return value == std::trunc(value) && std::abs(value) <= 9.0e15; });
  }
  const int dim = corners == 4 ? 3 : 2;
  mesh.cells.push_back(CellBlock{corners == 4 ? "tetra" : "triangle", std::move(connectivity), {}, {}});
  for (std::int64_t k = 0; k < num_attrs; ++k) {
    NDArray values = integral[k] ? attrs[k].astype(DType::int64) : std::move(attrs[k]);
    if (k == 0 && integral[k]) {
      std::map<std::int64_t, std::vector<std::int64_t>> members;
      const std::int64_t* refs = values.data_as<std::int64_t>();
      // Refs come in runs: look the list up once per run.
      std::vector<std::int64_t>* run = nullptr;
      for (std::int64_t i = 0; i < count; ++i) {
        if (refs[i] == 0) continue;
        if (run == nullptr || refs[i] != refs[i - 1]) run = &members[refs[i]];
        run->push_back(i);
      }
      for (auto& [ref, entries] : members) {
        Region region;
        region.name = "tetgen:ref " + std::to_string(ref);
        region.kind = RegionKind::Cell;
        region.dim = dim;
        region.tag = ref;
        region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size())});
        std::copy(entries.begin(), entries.end(), region.entries.data_as<std::int64_t>());
        mesh.regions.push_back(std::move(region));
      }
    }
    std::vector<NDArray> per_block;
    per_block.push_back(std::move(values));
    mesh.cell_data.append_new(numbered("tetgen:ref", k), std::move(per_block));
  }
}

}  // namespace

bool looks_like(std::string_view head) noexcept {
  return io::classify_node_ele(head, kSniffBytes) == io::ShewchukKind::tetgen;
}

Mesh read(const std::string& path) {
  const std::optional<std::string> stem = detail::pair_stem(path);
  if (!stem) throw ReadError(path, std::string(kFormat), "a TetGen file name ends in .node or .ele");
  Mesh mesh;
  const Nodes nodes = read_nodes(*stem + ".node", mesh);
  read_elements(*stem + ".ele", nodes, mesh);
  return mesh;
}

}  // namespace meshioplusplus::tetgen
