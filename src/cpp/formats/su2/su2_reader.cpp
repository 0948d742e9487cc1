// SU2 reader (ASCII).
//
// Layout: "KEYWORD= value" lines (blanks around '=' optional) introduce sections: NDIME,
// NELEM (then one element per line: VTK id, node indices, optional element index), NPOIN
// (then one point per line: NDIME coordinates, then up to two index columns), NMARK,
// MARKER_TAG + MARKER_ELEMS (boundary elements in the NELEM layout). SU2 writes NELEM before
// NPOIN, so indices are checked only once every section is known. '%' starts a comment.
// NZONE/IZONE files are read with their zones merged: each zone's indices are shifted by
// the points of the zones before it. Unknown keywords (FFD_* boxes …) are skipped together
// with the lines that follow them up to the next keyword.
//
// What becomes what (meshio's conventions, so the arrays compare equal): points float64
// (n, NDIME); NELEM elements one block per type in ascending VTK id; marker elements one
// block per type, in order of first appearance, marker after marker; cell data "su2:tag"
// int32: 0 for NELEM elements, for marker elements the tag when it is an integer, else the
// previous tag + 1. Additionally each marker becomes a Cell region named by its tag (markers
// of the same name in several zones merge), dim = its elements' dimension. Wedges are
// converted from VTK's node order to ours (meshio keeps VTK's order).
//
// Two passes: the first walks the keyword lines and checks each element line's shape,
// counting elements per type, so every array is allocated once in its final shape; the
// second parses the numbers straight into them. Large sections of plainly written lines (one
// record per line, no comment, blank or '=' among them — what writers produce) take both
// passes on all cores (io::parse_lines_in_parallel): the first parses the points outright
// and notes each element's type, the second fills the elements at rows known from those
// types. A large element section of one type (what SU2 and our writer produce for a mesh of
// one cell type) is parsed outright in the first pass instead, into its own array, which the
// second pass range-checks and adopts as its block (or copies in): its lines are read once.
// Any other layout, and any line the fast readers do not take, leaves the whole section to
// the sequential walk, which words every error as before.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/su2/su2.hpp"
#include "formats/su2/su2_types.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::su2 {
namespace {

using detail::kElementTypes;
constexpr std::string_view kFormat = "su2";
constexpr std::size_t kNumTypes = kElementTypes.size();

using io::LineSpan;

// The significant lines: text after '%' and blank lines are dropped.
class Lines : public io::SignificantLines {
 public:
  Lines(std::string_view document, const std::string& path) : SignificantLines(document, path, kFormat, '%') {}
};

struct KeywordLine {
  std::string_view key;
  std::string_view value;
  std::size_t value_offset;
};

std::optional<KeywordLine> split_keyword(std::string_view line, std::size_t line_offset) {
  const std::size_t equals = line.find('=');
  if (equals == std::string_view::npos) return std::nullopt;
  std::string_view key = line.substr(0, equals);
  while (!key.empty() && io::is_space(key.back())) key.remove_suffix(1);
  std::size_t value_begin = equals + 1;
  while (value_begin < line.size() && io::is_space(line[value_begin])) ++value_begin;
  return KeywordLine{key, line.substr(value_begin), line_offset + value_begin};
}

std::size_t count_tokens(io::TextScanner scanner) {
  std::size_t tokens = 0;
  while (!scanner.next_token().empty()) ++tokens;
  return tokens;
}

// Tokens on the raw line [p, end), or -1 when it holds '=' or '%' (a keyword or a comment:
// only the sequential walk decides what those mean).
int plain_tokens(const char* p, const char* end) noexcept {
  int tokens = 0;
  bool after_space = true;
  for (; p < end; ++p) {
    const char c = *p;
    if (c == '=' || c == '%') return -1;
    const bool space = io::is_space(c);
    tokens += after_space && !space;
    after_space = space;
  }
  return tokens;
}

struct ElementSection {
  std::size_t start;  // position of the line after the keyword
  std::int64_t count;
  int zone;
  int marker;  // -1: NELEM
  std::array<std::int64_t, kNumTypes> per_type{};
  std::vector<std::uint8_t> types;  // each element's type index when pass 1 ran on all cores
  // (count, nodes) file indices in our node order when pass 1 parsed a one-type section on
  // all cores; not yet range-checked (NPOIN may come later) nor shifted by the zone's points.
  NDArray parsed;
  int parsed_type = -1;
};

struct PointSection {
  std::size_t start;
  std::int64_t count;
  int zone;
  NDArray parsed;  // (count, NDIME) when pass 1 parsed the points on all cores
  bool is_parsed = false;
};

struct Marker {
  std::string name;
  std::int32_t tag;
  int zone;
  int region = -1;
  bool has_elements = false;
};

struct Zone {
  std::int64_t num_points = -1;  // -1 until its NPOIN
  std::int64_t first_point = 0;
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : lines_(bytes, path), bytes_(bytes), size_(bytes.size()) {}

  Mesh read() {
    scan_structure();
    plan();
    read_points();
    read_elements();
    return std::move(mesh_);
  }

 private:
  // ---- pass 1 ----

  std::int64_t value_number(const KeywordLine& keyword, const LineSpan& line, bool rest_allowed = false) {
    io::TextScanner scanner(lines_.scanner(line));
    scanner.seek(keyword.value_offset);
    const auto value = scanner.next_number<std::int64_t>();
    scanner.skip_whitespace();
    if (!rest_allowed && !scanner.at_end()) scanner.fail("unexpected text after the value of " + std::string(keyword.key));
    if (value < 0) lines_.fail_at(keyword.value_offset, "negative " + std::string(keyword.key));
    return value;
  }

  Zone& zone() { return zones_.back(); }

  void scan_structure() {
    zones_.emplace_back();
    bool skipping_unknown = false;
    int izone_seen = 0;
    while (std::optional<LineSpan> line = lines_.next()) {
      const std::optional<KeywordLine> keyword = split_keyword(lines_.text(*line), line->begin);
      if (!keyword) {
        if (skipping_unknown) continue;
        lines_.fail_at(line->begin, "expected a KEYWORD= line, found '" + std::string(lines_.text(*line).substr(0, 40)) +
                                        "' (does a count above announce too few lines?)");
      }
      skipping_unknown = false;
      const std::string_view key = keyword->key;
      if (key == "NDIME") {
        const std::int64_t dim = value_number(*keyword, *line);
        if (dim != 2 && dim != 3) lines_.fail_at(keyword->value_offset, "NDIME must be 2 or 3");
        if (dim_ != 0 && dim != dim_) lines_.fail_at(keyword->value_offset, "zones of different NDIME cannot be merged");
        dim_ = static_cast<int>(dim);
      } else if (key == "NZONE") {
        value_number(*keyword, *line);
      } else if (key == "IZONE") {
        value_number(*keyword, *line);
        if (izone_seen++ > 0) zones_.emplace_back();
      } else if (key == "NELEM") {
        scan_elements(*keyword, *line, -1);
      } else if (key == "NPOIN") {
        scan_points(*keyword, *line);
      } else if (key == "NMARK") {
        const std::int64_t markers = value_number(*keyword, *line);
        // Each marker takes a MARKER_TAG= and a MARKER_ELEMS= line: a count the rest of the
        // file cannot hold is refused, which also keeps the sum over zones from overflowing.
        if (static_cast<std::uint64_t>(markers) > (bytes_left() + 1) / 24)
          lines_.fail_at(keyword->value_offset, "NMARK announces " + std::to_string(markers) +
                                                    " markers, more than the rest of the file can hold");
        expected_markers_ += markers;
        if (nmark_offset_ == 0) nmark_offset_ = keyword->value_offset;
      } else if (key == "MARKER_TAG") {
        add_marker(*keyword);
      } else if (key == "MARKER_ELEMS") {
        if (markers_.empty() || markers_.back().has_elements || markers_.back().zone != current_zone())
          lines_.fail_at(line->begin, "MARKER_ELEMS without a MARKER_TAG before it");
        markers_.back().has_elements = true;
        scan_elements(*keyword, *line, static_cast<int>(markers_.size()) - 1);
      } else {
        skipping_unknown = true;
      }
    }
    if (dim_ == 0) lines_.fail_at(lines_.position(), "no NDIME in the file");
    if (static_cast<std::int64_t>(markers_.size()) != expected_markers_)
      lines_.fail_at(nmark_offset_ != 0 ? nmark_offset_ : lines_.position(),
                     "NMARK announces " + std::to_string(expected_markers_) + " markers, the file has " +
                         std::to_string(markers_.size()));
    for (std::size_t z = 0; z < zones_.size(); ++z)
      if (zones_[z].num_points < 0)
        lines_.fail_at(lines_.position(), "no NPOIN section" + (zones_.size() > 1 ? " in zone " + std::to_string(z + 1) : ""));
    for (const Marker& marker : markers_)
      if (!marker.has_elements) lines_.fail_at(lines_.position(), "marker '" + marker.name + "' has no MARKER_ELEMS");
  }

  int current_zone() const noexcept { return static_cast<int>(zones_.size()) - 1; }

  void add_marker(const KeywordLine& keyword) {
    if (keyword.value.empty()) lines_.fail_at(keyword.value_offset, "empty MARKER_TAG");
    // meshio's numbering: an integer tag is its own number, any other the previous one + 1.
    std::int64_t number = 0;
    std::string_view text = keyword.value;
    if (text.starts_with('+')) text.remove_prefix(1);
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error == std::errc{} && end == text.data() + text.size()) {
      if (number < std::numeric_limits<std::int32_t>::min() || number > std::numeric_limits<std::int32_t>::max())
        lines_.fail_at(keyword.value_offset, "marker tag out of the 32-bit range of su2:tag");
      last_tag_ = number;
    } else {
      ++last_tag_;
    }
    markers_.push_back(Marker{std::string(keyword.value), static_cast<std::int32_t>(last_tag_), current_zone()});
  }

  void scan_points(const KeywordLine& keyword, const LineSpan& line) {
    if (dim_ == 0) lines_.fail_at(line.begin, "NPOIN before NDIME");
    if (zone().num_points >= 0) lines_.fail_at(line.begin, "a second NPOIN in one zone");
    // "NPOIN= n [n_domain]": the second count (points owned by this partition) is not needed.
    const std::int64_t count = value_number(keyword, line, true);
    check_room(count, 2 * dim_, "points");
    point_sections_.push_back(PointSection{lines_.position(), count, current_zone(), {}});
    zone().num_points = count;
    if (parse_points_in_parallel(point_sections_.back())) return;
    for (std::int64_t i = 0; i < count; ++i) lines_.require([&] { return "point " + std::to_string(i) + " of " + std::to_string(count); });
  }

  // The points of a large plainly written section, parsed here on all cores; false (nothing
  // kept) where the sequential passes must read them.
  bool parse_points_in_parallel(PointSection& section) {
    if (section.count < 2 || bytes_left() < io::kParallelLinesMinBytes) return false;
    const std::optional<std::size_t> start = io::records_begin(bytes_, section.start);
    if (!start || *start != section.start) return false;
    NDArray parsed = NDArray::allocate(DType::float64, {section.count, dim_});
    double* const points = parsed.data_as<double>();
    const int dim = dim_;
    const char* const text = bytes_.data();
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        bytes_, section.start, static_cast<std::uint64_t>(section.count), [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
          const char* const first = text + begin;
          const char* const last = text + stop;
          const char* p = first;
          double* row = points + i * static_cast<std::uint64_t>(dim);
          for (int k = 0; k < dim; ++k) {
            p = io::plain_real(p, last, row[k]);
            if (p == nullptr) return false;
          }
          // Up to two index columns may follow (SU2 writes the point's own index).
          const int rest = plain_tokens(p, last);
          return rest >= 0 && rest <= 2;
        });
    if (!end) return false;
    lines_.seek(*end);
    section.parsed = std::move(parsed);
    section.is_parsed = true;
    return true;
  }

  void scan_elements(const KeywordLine& keyword, const LineSpan& line, int marker) {
    const std::int64_t count = value_number(keyword, line);
    check_room(count, 4, "elements");
    ElementSection section{lines_.position(), count, current_zone(), marker, {}, {}, {}, -1};
    if (parse_one_type_in_parallel(section) || scan_elements_in_parallel(section)) {
      element_sections_.push_back(std::move(section));
      return;
    }
    const std::string what = marker < 0 ? std::string("NELEM") : "marker '" + markers_[marker].name + "'";
    for (std::int64_t i = 0; i < count; ++i) {
      const LineSpan element = lines_.require([&] { return "element " + std::to_string(i) + " of " + what; });
      io::TextScanner scanner = lines_.scanner(element);
      if (lines_.text(element).find('=') != std::string_view::npos)
        lines_.fail_at(element.begin, what + " announces " + std::to_string(count) + " elements, found only " +
                                          std::to_string(i));
      const auto vtk_id = scanner.next_number<std::int64_t>();
      const int type = detail::type_index_of_vtk(vtk_id);
      if (type < 0) lines_.fail_at(element.begin, "unknown SU2 element type " + std::to_string(vtk_id));
      const auto values = static_cast<std::int64_t>(count_tokens(scanner));
      const int nodes = kElementTypes[type].nodes;
      if (values != nodes && values != nodes + 1)
        lines_.fail_at(element.begin, "element " + std::to_string(i) + " of " + what + " (type " +
                                          std::to_string(vtk_id) + ") needs " + std::to_string(nodes) +
                                          " node indices and an optional index, found " + std::to_string(values) + " values");
      ++section.per_type[type];
    }
    element_sections_.push_back(std::move(section));
  }

  // Pass 1 and 2 at once over a large plainly written section whose lines all have the first
  // line's type: the node indices parsed into the section's own array. False (nothing kept)
  // at the first line of another type or shape: the two-pass path takes the section then.
  bool parse_one_type_in_parallel(ElementSection& section) {
    // parse_lines_in_parallel's own bar, asked before allocating `parsed`.
    if (section.count < 2 || meshioplusplus::thread_count() < 2 || bytes_left() < io::kParallelLinesMinBytes) return false;
    const std::optional<std::size_t> start = io::records_begin(bytes_, section.start);
    if (!start || *start != section.start) return false;
    const char* const text = bytes_.data();
    const char* const readable_end = text + bytes_.size();
    const char* const first_end = io::find_newline(text + section.start, readable_end);
    std::int64_t vtk_id = 0;
    if (first_end == nullptr || io::plain_integer(text + section.start, first_end, vtk_id) == nullptr) return false;
    const int type = detail::type_index_of_vtk(vtk_id);
    if (type < 0) return false;
    const int nodes = kElementTypes[type].nodes;
    const int* const order = vtk_id == 13 ? io::vtk_node_permutation(13) : nullptr;
    NDArray parsed = NDArray::allocate(DType::int64, {section.count, nodes});
    std::int64_t* const connectivity = parsed.data_as<std::int64_t>();
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        bytes_, section.start, static_cast<std::uint64_t>(section.count), [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
          const char* const last = text + stop;
          std::int64_t line_id = 0;
          const char* p = io::plain_integer(text + begin, last, line_id, readable_end);
          if (p == nullptr || line_id != vtk_id) return false;
          std::int64_t file_nodes[8];
          for (int k = 0; k < nodes; ++k) {
            p = io::plain_integer(p, last, file_nodes[k], readable_end);
            if (p == nullptr) return false;
          }
          // An optional element index may follow, nothing else ('=' or '%': the walk decides).
          const int rest = plain_tokens(p, last);
          if (rest < 0 || rest > 1) return false;
          std::int64_t* const row = connectivity + i * static_cast<std::uint64_t>(nodes);
          for (int k = 0; k < nodes; ++k) row[k] = file_nodes[order != nullptr ? order[k] : k];
          return true;
        });
    if (!end) return false;
    section.per_type[type] = section.count;
    section.parsed = std::move(parsed);
    section.parsed_type = type;
    lines_.seek(*end);
    return true;
  }

  // Pass 1 over a large plainly written element section on all cores: each line's type and
  // shape checked, its type noted for pass 2. False (nothing kept) where the sequential walk
  // must run: it alone words errors.
  bool scan_elements_in_parallel(ElementSection& section) {
    if (section.count < 2 || bytes_left() < io::kParallelLinesMinBytes) return false;
    const std::optional<std::size_t> start = io::records_begin(bytes_, section.start);
    if (!start || *start != section.start) return false;
    std::vector<std::uint8_t> types(static_cast<std::size_t>(section.count));
    const char* const text = bytes_.data();
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        bytes_, section.start, static_cast<std::uint64_t>(section.count), [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
          const char* const last = text + stop;
          std::int64_t vtk_id = 0;
          const char* const p = io::plain_integer(text + begin, last, vtk_id);
          if (p == nullptr) return false;
          const int type = detail::type_index_of_vtk(vtk_id);
          if (type < 0) return false;
          const int values = plain_tokens(p, last);
          const int nodes = kElementTypes[type].nodes;
          if (values != nodes && values != nodes + 1) return false;
          types[i] = static_cast<std::uint8_t>(type);
          return true;
        });
    if (!end) return false;
    for (const std::uint8_t type : types) ++section.per_type[type];
    lines_.seek(*end);
    section.types = std::move(types);
    return true;
  }

  // A corrupt count must not drive a huge allocation: each record needs at least
  // `min_bytes` bytes of the file.
  void check_room(std::int64_t records, std::int64_t min_bytes, std::string_view what) {
    const std::uint64_t room = (bytes_left() + 1) / static_cast<std::uint64_t>(min_bytes);
    if (static_cast<std::uint64_t>(records) > room)
      lines_.fail_at(lines_.position(), "the file announces " + std::to_string(records) + " " + std::string(what) +
                                            ", more than the rest of the file can hold");
  }
  std::uint64_t bytes_left() const noexcept { return size_ - lines_.position(); }

  // ---- layout ----

  void plan() {
    std::int64_t first_point = 0;
    for (Zone& z : zones_) {
      z.first_point = first_point;
      first_point += z.num_points;
    }
    total_points_ = first_point;

    std::array<std::int64_t, kNumTypes> volume{};
    for (const ElementSection& section : element_sections_)
      if (section.marker < 0)
        for (std::size_t t = 0; t < kNumTypes; ++t) volume[t] += section.per_type[t];
    for (std::size_t t = 0; t < kNumTypes; ++t)
      if (volume[t] > 0) add_block(t, volume[t], volume_block_);

    std::array<std::int64_t, kNumTypes> boundary{};
    std::vector<std::size_t> boundary_order;
    for (const ElementSection& section : element_sections_)
      if (section.marker >= 0)
        for (std::size_t t = 0; t < kNumTypes; ++t)
          if (section.per_type[t] > 0) {
            if (boundary[t] == 0) boundary_order.push_back(t);
            boundary[t] += section.per_type[t];
          }
    for (std::size_t t : boundary_order) add_block(t, boundary[t], marker_block_);

    std::int64_t first_cell = 0;
    for (const CellBlock& block : mesh_.cells) {
      bases_.push_back(first_cell);
      first_cell += block.num_cells();
    }
    plan_regions();
  }

  void add_block(std::size_t type, std::int64_t count, std::array<int, kNumTypes>& block_of_type) {
    block_of_type[type] = static_cast<int>(mesh_.cells.size());
    mesh_.cells.push_back(CellBlock{std::string(kElementTypes[type].name),
                                    NDArray::allocate(DType::int64, {count, kElementTypes[type].nodes}), {}, {}});
    tags_.push_back(NDArray::allocate(DType::int32, {count}));
    rows_filled_.push_back(0);
  }

  void plan_regions() {
    std::vector<std::int64_t> sizes;
    for (Marker& marker : markers_) {
      const auto same = std::find_if(mesh_.regions.begin(), mesh_.regions.end(),
                                     [&](const Region& region) { return region.name == marker.name; });
      marker.region = static_cast<int>(same - mesh_.regions.begin());
      if (same == mesh_.regions.end()) {
        Region region;
        region.name = marker.name;
        region.kind = RegionKind::Cell;
        region.dim = -1;
        region.tag = marker.tag;
        mesh_.regions.push_back(std::move(region));
        sizes.push_back(0);
      }
    }
    for (const ElementSection& section : element_sections_) {
      if (section.marker < 0) continue;
      Region& region = mesh_.regions[markers_[section.marker].region];
      for (std::size_t t = 0; t < kNumTypes; ++t) {
        if (section.per_type[t] == 0) continue;
        sizes[markers_[section.marker].region] += section.per_type[t];
        region.dim = std::max(region.dim, cell_type(kElementTypes[t].name).dimension);
      }
    }
    for (std::size_t r = 0; r < mesh_.regions.size(); ++r) {
      if (mesh_.regions[r].dim < 0) mesh_.regions[r].dim = dim_ - 1;
      mesh_.regions[r].entries = NDArray::allocate(DType::int64, {sizes[r]});
    }
    region_filled_.assign(mesh_.regions.size(), 0);
  }

  // ---- pass 2 ----

  void read_points() {
    if (point_sections_.size() == 1 && point_sections_[0].is_parsed) {
      mesh_.points = std::move(point_sections_[0].parsed);
      return;
    }
    mesh_.points = NDArray::allocate(DType::float64, {total_points_, dim_});
    double* points = mesh_.points.data_as<double>();
    for (const PointSection& section : point_sections_) {
      double* row = points + zones_[section.zone].first_point * dim_;
      if (section.is_parsed) {
        io::copy_in_parallel(row, section.parsed.data_as<double>(),
                             static_cast<std::size_t>(section.count * dim_) * sizeof(double));
        continue;
      }
      lines_.seek(section.start);
      for (std::int64_t i = 0; i < section.count; ++i, row += dim_) {
        const LineSpan line = lines_.require("a point");
        io::TextScanner scanner = lines_.scanner(line);
        scanner.next_numbers(row, static_cast<std::size_t>(dim_));
        // Up to two index columns may follow (SU2 writes the point's own index).
        if (count_tokens(scanner) > 2)
          lines_.fail_at(line.begin, "point " + std::to_string(i) + " has more than " + std::to_string(dim_) +
                                         " coordinates and two index columns (does NDIME match?)");
      }
    }
  }

  void read_elements() {
    const int* wedge_order = io::vtk_node_permutation(13);
    for (ElementSection& section : element_sections_) {
      lines_.seek(section.start);
      const Zone& zone = zones_[section.zone];
      const std::array<int, kNumTypes>& block_of_type = section.marker < 0 ? volume_block_ : marker_block_;
      const std::int32_t tag = section.marker < 0 ? 0 : markers_[section.marker].tag;
      std::int64_t* region_entries = nullptr;
      std::int64_t* region_filled = nullptr;
      if (section.marker >= 0) {
        const int region = markers_[section.marker].region;
        region_entries = mesh_.regions[region].entries.data_as<std::int64_t>();
        region_filled = &region_filled_[region];
      }
      if (adopt_parsed_elements(section, block_of_type, tag, region_entries, region_filled)) continue;
      if (fill_elements_in_parallel(section, block_of_type, tag, region_entries, region_filled)) continue;
      for (std::int64_t i = 0; i < section.count; ++i) {
        io::TextScanner scanner = lines_.scanner(lines_.require("an element"));
        const int type = detail::type_index_of_vtk(scanner.next_number<std::int64_t>());
        const int nodes = kElementTypes[type].nodes;
        const int block = block_of_type[type];
        const std::int64_t row = rows_filled_[block]++;
        std::int64_t file_nodes[8];
        for (int k = 0; k < nodes; ++k) {
          scanner.skip_whitespace();
          const std::size_t offset = scanner.position();
          const auto index = scanner.next_number<std::int64_t>();
          if (index < 0 || index >= zone.num_points)
            scanner.fail_at(offset, "element " + std::to_string(i) + " refers to point " + std::to_string(index) +
                                        ", outside [0, " + std::to_string(zone.num_points) + ")");
          file_nodes[k] = index + zone.first_point;
        }
        std::int64_t* target = mesh_.cells[block].connectivity.data_as<std::int64_t>() + row * nodes;
        const bool wedge = kElementTypes[type].vtk_id == 13;
        for (int k = 0; k < nodes; ++k) target[k] = file_nodes[wedge ? wedge_order[k] : k];
        tags_[block].data_as<std::int32_t>()[row] = tag;
        if (region_entries != nullptr) region_entries[(*region_filled)++] = bases_[block] + row;
      }
    }
    if (!mesh_.cells.empty()) mesh_.cell_data.set("su2:tag", std::move(tags_));
  }

  // Pass 2 over a one-type section pass 1 parsed: its indices checked against the zone's
  // points, then its array becomes the block's connectivity when it is the whole block, else
  // is copied to the block's next rows. False (nothing written) where an index is out of
  // range: the sequential loop reads the section again and words the error.
  bool adopt_parsed_elements(ElementSection& section, const std::array<int, kNumTypes>& block_of_type, std::int32_t tag,
                             std::int64_t* region_entries, std::int64_t* region_filled) {
    if (section.parsed_type < 0) return false;
    const Zone& zone = zones_[section.zone];
    const std::span<const std::int64_t> indices(section.parsed.data_as<std::int64_t>(),
                                                static_cast<std::size_t>(section.parsed.size()));
    if (io::first_index_outside(indices, zone.num_points) != indices.size()) return false;
    const int block = block_of_type[section.parsed_type];
    NDArray& connectivity = mesh_.cells[block].connectivity;
    const std::int64_t first_row = rows_filled_[block];
    const std::int64_t shift = zone.first_point;
    if (first_row == 0 && section.count == mesh_.cells[block].num_cells() && shift == 0) {
      connectivity = std::move(section.parsed);
    } else {
      std::int64_t* const target = connectivity.data_as<std::int64_t>() + first_row * kElementTypes[section.parsed_type].nodes;
      io::parallel_ranges(indices.size(), std::size_t{1} << 20, [&](std::size_t first, std::size_t last) {
        for (std::size_t k = first; k < last; ++k) target[k] = indices[k] + shift;
      });
      section.parsed = NDArray();
    }
    std::int32_t* const tags = tags_[block].data_as<std::int32_t>() + first_row;
    std::fill(tags, tags + section.count, tag);
    if (region_entries != nullptr) {
      const std::int64_t first_cell = bases_[block] + first_row;
      for (std::int64_t i = 0; i < section.count; ++i) region_entries[*region_filled + i] = first_cell + i;
      *region_filled += section.count;
    }
    rows_filled_[block] += section.count;
    return true;
  }

  // Pass 2 over a section pass 1 scanned on all cores: every element's row is known from the
  // types, so the lines fill their rows in any order. False (rows written here are written
  // again) where the sequential loop must run: an index out of range or a line the fast
  // reader does not take, which it alone words errors for.
  bool fill_elements_in_parallel(const ElementSection& section, const std::array<int, kNumTypes>& block_of_type,
                                 std::int32_t tag, std::int64_t* region_entries, std::int64_t* region_filled) {
    if (section.types.empty()) return false;
    const Zone& zone = zones_[section.zone];
    const std::uint8_t* const types = section.types.data();
    // Each element's row in its block: the block's rows so far plus the same-typed elements
    // before it (a sum only written out when the section mixes types).
    const bool one_type = std::count(section.per_type.begin(), section.per_type.end(), 0) ==
                          static_cast<std::ptrdiff_t>(kNumTypes) - 1;
    std::vector<std::int64_t> rows;
    if (!one_type) {
      rows.resize(section.types.size());
      std::array<std::int64_t, kNumTypes> next{};
      for (std::size_t t = 0; t < kNumTypes; ++t) next[t] = section.per_type[t] > 0 ? rows_filled_[block_of_type[t]] : 0;
      for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = next[types[i]]++;
    }
    const std::int64_t first_row = one_type ? rows_filled_[block_of_type[types[0]]] : 0;
    const std::int64_t first_entry = region_filled != nullptr ? *region_filled : 0;
    const int* const wedge_order = io::vtk_node_permutation(13);
    const char* const text = bytes_.data();
    const char* const readable_end = text + bytes_.size();
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        bytes_, section.start, static_cast<std::uint64_t>(section.count), [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
          const int type = types[i];
          const int nodes = kElementTypes[type].nodes;
          const int block = block_of_type[type];
          const std::int64_t row = one_type ? first_row + static_cast<std::int64_t>(i) : rows[i];
          io::LineValues values(text + begin, text + stop, readable_end);
          if (!values.skip_tokens(1)) return false;  // the VTK id, read in pass 1
          std::int64_t file_nodes[8];
          for (int k = 0; k < nodes; ++k) {
            std::int64_t index = 0;
            if (!values.next(index) || index < 0 || index >= zone.num_points) return false;
            file_nodes[k] = index + zone.first_point;
          }
          std::int64_t* target = mesh_.cells[block].connectivity.data_as<std::int64_t>() + row * nodes;
          const bool wedge = kElementTypes[type].vtk_id == 13;
          for (int k = 0; k < nodes; ++k) target[k] = file_nodes[wedge ? wedge_order[k] : k];
          tags_[block].data_as<std::int32_t>()[row] = tag;
          if (region_entries != nullptr) region_entries[first_entry + static_cast<std::int64_t>(i)] = bases_[block] + row;
          return true;
        });
    if (!end) return false;
    for (std::size_t t = 0; t < kNumTypes; ++t)
      if (section.per_type[t] > 0) rows_filled_[block_of_type[t]] += section.per_type[t];
    if (region_filled != nullptr) *region_filled += section.count;
    return true;
  }

  Lines lines_;
  std::string_view bytes_;
  std::size_t size_ = 0;
  int dim_ = 0;
  std::vector<Zone> zones_;
  std::vector<PointSection> point_sections_;
  std::vector<ElementSection> element_sections_;
  std::vector<Marker> markers_;
  std::int64_t last_tag_ = 0;
  std::int64_t expected_markers_ = 0;
  std::size_t nmark_offset_ = 0;
  std::int64_t total_points_ = 0;
  std::array<int, kNumTypes> volume_block_{};
  std::array<int, kNumTypes> marker_block_{};
  std::vector<std::int64_t> bases_;
  std::vector<NDArray> tags_;
  std::vector<std::int64_t> rows_filled_;
  std::vector<std::int64_t> region_filled_;
  Mesh mesh_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::su2
