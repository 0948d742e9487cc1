// Netgen reader.
//
// Sections announce their record counts, but element sections mix types (a volume section
// may hold tetrahedra and pyramids) and blocks follow runs of one type. So the first pass
// walks the sections, reading only each element's node count to plan the blocks; the second
// revisits the element sections and fills blocks allocated once in their final shape. Points
// may come after the elements (meshio writes them so), so node indices are checked in the
// second pass, when the point count is known.
//
// Large sections of one record per line (what Netgen and meshio write) are read on all cores
// in both passes through io/text/parallel_records.hpp: the first pass then keeps each
// record's kind, the second fills each record's row from it; plainly written points are read
// as the first pass reaches them, so no pass walks their lines one by one. The first pass
// also reads records of the section's first kind whole, into a block of the whole section:
// when every record was of that kind and plainly written (what Netgen and meshio write) and
// every node is within the points (checked once the point count is known), that block is
// the section's and the second pass skips it. Anything else
// (blank or comment lines, records it cannot read plainly) falls back to the sequential walk,
// which words every error with its line and byte offset as before.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/netgen/netgen.hpp"
#include "formats/netgen/netgen_types.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/parallel_records.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::netgen {
namespace {

constexpr std::string_view kFormat = "netgen";

using io::LineSpan;

// The significant lines: blank lines and lines starting with '#' are skipped; blanks trimmed.
class Lines : public io::SignificantLines {
 public:
  Lines(std::string_view document, const std::string& path)
      : SignificantLines(document, path, kFormat, '#', io::CommentAt::line_start) {}
  std::size_t remaining() const noexcept { return bytes_left(); }
};

enum class SectionKind { point, edge, surface, volume };

struct CellSection {
  SectionKind kind;
  std::size_t start;  // position of the first record
  std::int64_t count;
  bool two_lines;  // edgesegmentsgi2 records split over two lines
  // Each record's kind (its place in detail::kKinds: a byte, not a pointer, since this is
  // 1 per element of fresh memory) when the first pass read the section on all cores (else
  // empty): the second pass then reads it on all cores too.
  std::vector<std::uint8_t> kinds;
  // When that parallel pass found every record plainly written and of one kind, it read them
  // whole into these, the rows of the section's block (nodes 0-based in meshio's order, not
  // yet checked against the point count: the points may come later); otherwise empty, and
  // the second pass reads the records again.
  NDArray prefilled_cells, prefilled_index;
  std::int64_t largest_node = 0;  // 1-based, of the prefilled records
};

struct BlockPlan {
  const detail::ElementKind* kind;
  std::int64_t count;
};

struct Name {
  std::string name;
  std::int64_t index;
  int dim;
};

SectionKind section_kind(std::string_view word, bool& is_cells) {
  is_cells = true;
  if (word == "pointelements") return SectionKind::point;
  if (word == "edgesegments" || word == "edgesegmentsgi" || word == "edgesegmentsgi2") return SectionKind::edge;
  if (word == "surfaceelements" || word == "surfaceelementsgi" || word == "surfaceelementsuv") return SectionKind::surface;
  if (word == "volumeelements") return SectionKind::volume;
  is_cells = false;
  return SectionKind::point;
}

int codimension_of(std::string_view word) {
  if (word == "materials") return 0;
  if (word == "bcnames") return 1;
  if (word == "cd2names") return 2;
  if (word == "cd3names") return 3;
  return -1;
}

bool is_skipped_section(std::string_view word) {
  return word == "face_colours" || word == "singular_edge_left" || word == "singular_edge_right" ||
         word == "singular_face_inside" || word == "singular_face_outside" || word == "singular_points";
}

class Reader {
 public:
  Reader(std::string_view document, const std::string& path) : lines_(document, path) {}

  Mesh read() {
    const std::optional<LineSpan> first = lines_.next();
    if (!first || lines_.text(*first) != "mesh3d")
      lines_.fail_at(first ? first->begin : 0, "not a Netgen mesh: the file must start with 'mesh3d'");
    scan();
    if (!points_read_early_) read_points();
    read_cells();
    build_names();
    return std::move(mesh_);
  }

 private:
  // A count on the line after a section word: non-negative, and small enough that the rest of
  // the file can hold that many records of at least `min_bytes` each.
  std::int64_t read_count(std::string_view section, std::int64_t min_bytes = 2) {
    const LineSpan line = lines_.require("the " + std::string(section) + " count");
    io::TextScanner scanner = lines_.scanner(line);
    const auto count = scanner.next_number<std::int64_t>();
    scanner.skip_whitespace();
    if (!scanner.at_end()) scanner.fail("expected only the " + std::string(section) + " count on this line");
    if (count < 0) lines_.fail_at(line.begin, "negative " + std::string(section) + " count");
    if (static_cast<std::uint64_t>(count) > (lines_.remaining() + 1) / static_cast<std::uint64_t>(min_bytes))
      lines_.fail_at(line.begin, "the " + std::string(section) + " count " + std::to_string(count) +
                                     " is more than the rest of the file can hold");
    return count;
  }

  void skip_lines(std::int64_t count, std::string_view section) {
    for (std::int64_t i = 0; i < count; ++i) lines_.require([&] { return std::string(section) + " record " + std::to_string(i); });
  }

  // ---- first pass ----

  void scan() {
    bool two_line_edges = false;
    while (std::optional<LineSpan> line = lines_.next()) {
      const std::string_view word = lines_.text(*line);
      bool is_cells = false;
      const SectionKind kind = section_kind(word, is_cells);
      if (word == "dimension") {
        const LineSpan value = lines_.require("the dimension");
        dimension_ = static_cast<int>(lines_.scanner(value).next_number<std::int64_t>());
        if (dimension_ < 1 || dimension_ > 3) lines_.fail_at(value.begin, "dimension must be 1, 2 or 3");
        points_read_early_ = false;  // their width changes: read_points reads them again
      } else if (word == "geomtype") {
        lines_.scanner(lines_.require("the geomtype")).next_number<std::int64_t>();
      } else if (word == "points") {
        if (points_start_) lines_.fail_at(line->begin, "a second points section");
        num_points_ = read_count("points", 6);
        points_start_ = lines_.position();
        if (!read_points_early()) skip_lines(num_points_, "points");
      } else if (is_cells) {
        const std::int64_t count = read_count(word);
        CellSection section{kind, lines_.position(), count, kind == SectionKind::edge && two_line_edges, {}, {}, {}, 0};
        plan_section(section);
        sections_.push_back(std::move(section));
      } else if (word == "endmesh") {
        break;
      } else if (is_split_header(word)) {
        two_line_edges = true;
      } else if (const int codim = codimension_of(word); codim >= 0) {
        read_names(word, codim);
      } else if (word == "identifications") {
        read_identifications();
      } else if (word == "identificationtypes") {
        read_identification_types();
      } else if (is_skipped_section(word)) {
        skip_lines(read_count(word), word);
      } else {
        lines_.fail_at(line->begin, "unknown Netgen section '" + std::string(word.substr(0, 60)) + "'");
      }
    }
  }

  // "surf1  surf2  p1  p2" with any blanks between the words.
  static bool is_split_header(std::string_view line) {
    static constexpr std::string_view kWords[] = {"surf1", "surf2", "p1", "p2"};
    std::size_t pos = 0;
    for (std::string_view word : kWords) {
      while (pos < line.size() && io::is_space(line[pos])) ++pos;
      if (line.substr(pos, word.size()) != word) return false;
      pos += word.size();
      if (pos < line.size() && !io::is_space(line[pos])) return false;
    }
    while (pos < line.size() && io::is_space(line[pos])) ++pos;
    return pos == line.size();
  }

  // The record's element kind, leaving the scanner after the record's leading fields; `index`
  // receives the record's netgen:index.
  const detail::ElementKind* read_record_head(SectionKind kind, io::TextScanner& scanner, const LineSpan& line,
                                              std::int64_t& index) const {
    std::int64_t fields[5];
    switch (kind) {
      case SectionKind::point:
        index = -1;  // after the node: read by the caller
        return detail::kind_of(0, 1);
      case SectionKind::edge:
        scanner.next_numbers(fields, 2);  // surface id, 0
        index = fields[0];
        return detail::kind_of(1, 2);
      case SectionKind::surface: {
        scanner.next_numbers(fields, 5);  // surfnr bcnr domin domout np
        index = fields[1];
        const detail::ElementKind* found = detail::kind_of(2, fields[4]);
        if (found == nullptr)
          lines_.fail_at(line.begin, "a surface element with " + std::to_string(fields[4]) + " nodes (3, 4, 6 or 8 expected)");
        return found;
      }
      case SectionKind::volume: {
        scanner.next_numbers(fields, 2);  // matnr np
        index = fields[0];
        const detail::ElementKind* found = detail::kind_of(3, fields[1]);
        if (found == nullptr)
          lines_.fail_at(line.begin, "a volume element with " + std::to_string(fields[1]) +
                                         " nodes (4, 5, 6, 8, 10, 13, 15 or 20 expected)");
        return found;
      }
    }
    return nullptr;
  }

  // read_record_head for a plainly written record (the numbers TextScanner reads the same
  // way, a known kind): nullptr for anything else, which read_record_head then reads again
  // and words the error for. `values` is left after the head.
  static const detail::ElementKind* plain_record_head(SectionKind kind, io::LineValues& values, std::int64_t& index) {
    std::int64_t fields[5];
    switch (kind) {
      case SectionKind::point:
        index = -1;
        return detail::kind_of(0, 1);
      case SectionKind::edge:
        if (!values.next(fields[0]) || !values.next(fields[1])) return nullptr;
        index = fields[0];
        return detail::kind_of(1, 2);
      case SectionKind::surface:
        for (std::int64_t& field : fields)
          if (!values.next(field)) return nullptr;
        index = fields[1];
        return detail::kind_of(2, fields[4]);
      case SectionKind::volume:
        if (!values.next(fields[0]) || !values.next(fields[1])) return nullptr;
        index = fields[0];
        return detail::kind_of(3, fields[1]);
    }
    return nullptr;
  }

  io::LineValues line_values(const LineSpan& line) const {
    const std::string_view document = lines_.document();
    return {document.data() + line.begin, document.data() + line.end, document.data() + document.size()};
  }

  void add_to_plan(const detail::ElementKind* kind) {
    if (!blocks_.empty() && blocks_.back().kind == kind)
      ++blocks_.back().count;
    else
      blocks_.push_back({kind, 1});
  }

  // The kind of the record on the line at `lines_`' position when that line is plainly
  // written (what the first parallel pass guesses every record of the section to be).
  const detail::ElementKind* first_record_kind(SectionKind section) const {
    const std::string_view document = lines_.document();
    const std::size_t begin = lines_.position();
    const char* newline = io::find_newline(document.data() + begin, document.data() + document.size());
    io::LineValues values(document.data() + begin, newline != nullptr ? newline : document.data() + document.size(),
                          document.data() + document.size());
    std::int64_t index = 0;
    return plain_record_head(section, values, index);
  }

  // The section's record kinds on all cores; false (nothing planned, lines_ where it was) when
  // the sequential walk must read it. Records of the first record's kind are read whole on
  // the way (the second pass then need not read the section again), until one is not.
  bool plan_section_in_parallel(CellSection& section) {
    if (section.two_lines) return false;
    std::vector<std::uint8_t> kinds(static_cast<std::size_t>(section.count));
    const auto place = [](const detail::ElementKind* kind) { return static_cast<std::uint8_t>(kind - detail::kKinds); };
    const detail::ElementKind* const guess = first_record_kind(section.kind);
    NDArray cells, index_of_row;
    if (guess != nullptr) {
      cells = NDArray::allocate(DType::int64, {section.count, guess->num_nodes});
      index_of_row = NDArray::allocate(DType::int64, {section.count});
    }
    std::atomic<bool> whole{guess != nullptr};  // every record so far read into `cells`
    // The largest node per 4096 records (a slot shared only where two pieces meet).
    constexpr int kSlotShift = 12;
    std::vector<std::atomic<std::int64_t>> largest(static_cast<std::size_t>(section.count >> kSlotShift) + 1);
    const auto fast = [&](std::int64_t i, const char* first, const char* last) {
      io::LineValues values(first, last, lines_.document().data() + lines_.document().size());
      std::int64_t index = 0;
      const detail::ElementKind* kind = plain_record_head(section.kind, values, index);
      if (kind == nullptr) return false;
      std::int64_t netgen_nodes[20];
      std::int64_t top = 0;
      const bool read = read_plain_nodes(section.kind, *kind, values, netgen_nodes, index, top);
      // A point element's head holds no number: its whole record must be there, so that a
      // blank line is never taken for a record.
      if (section.kind == SectionKind::point && !read) return false;
      kinds[static_cast<std::size_t>(i)] = place(kind);
      if (!whole.load(std::memory_order_relaxed)) return true;
      if (!read || kind != guess) {
        whole.store(false, std::memory_order_relaxed);
        return true;
      }
      store_record(kind, netgen_nodes, index, cells.data_as<std::int64_t>(), index_of_row.data_as<std::int64_t>(), i);
      std::atomic<std::int64_t>& slot = largest[static_cast<std::size_t>(i >> kSlotShift)];
      for (std::int64_t seen = slot.load(std::memory_order_relaxed);
           top > seen && !slot.compare_exchange_weak(seen, top, std::memory_order_relaxed);) {
      }
      return true;
    };
    const auto parse = [&](io::TextScanner& scanner, std::size_t line_begin, std::int64_t i) {
      std::int64_t index = 0;
      kinds[static_cast<std::size_t>(i)] = place(read_record_head(section.kind, scanner, LineSpan{line_begin, line_begin}, index));
      whole.store(false, std::memory_order_relaxed);
    };
    if (!io::parse_records_in_parallel(lines_, lines_.document(), section.count, fast, parse)) return false;
    for (const std::uint8_t kind : kinds) add_to_plan(&detail::kKinds[kind]);
    section.kinds = std::move(kinds);
    if (whole.load()) {
      section.prefilled_cells = std::move(cells);
      section.prefilled_index = std::move(index_of_row);
      for (const std::atomic<std::int64_t>& slot : largest) section.largest_node = std::max(section.largest_node, slot.load());
    }
    return true;
  }

  void plan_section(CellSection& section) {
    if (plan_section_in_parallel(section)) return;
    for (std::int64_t i = 0; i < section.count; ++i) {
      const LineSpan line = lines_.require("element", i);
      std::int64_t index = 0;
      io::LineValues values = line_values(line);
      const detail::ElementKind* kind = plain_record_head(section.kind, values, index);
      if (kind == nullptr) {
        io::TextScanner scanner = lines_.scanner(line);
        kind = read_record_head(section.kind, scanner, line, index);
      }
      add_to_plan(kind);
      if (section.two_lines) lines_.require("the second line of element", i);
    }
  }

  void read_names(std::string_view word, int codim) {
    const std::int64_t count = read_count(word);
    for (std::int64_t i = 0; i < count; ++i) {
      const LineSpan line = lines_.require([&] { return std::string(word) + " entry " + std::to_string(i); });
      io::TextScanner scanner = lines_.scanner(line);
      const auto index = scanner.next_number<std::int64_t>();
      const std::string_view name = scanner.next_token();
      // An index without a name (Netgen writes "3 " for an unnamed domain) names nothing; a
      // name with blanks cannot be written by Netgen and is skipped as meshio does.
      if (name.empty() || !scanner.next_token().empty()) continue;
      names_.push_back({std::string(name), index, dimension_ - codim});
    }
  }

  void read_identifications() {
    const std::int64_t count = read_count("identifications", 6);
    NDArray table = NDArray::allocate(DType::int64, {count, 3});
    std::int64_t* out = table.data_as<std::int64_t>();
    for (std::int64_t i = 0; i < count; ++i) {
      io::TextScanner scanner = lines_.scanner(lines_.require("identification", i));
      scanner.next_numbers(out + 3 * i, 3);
      expect_line_end(scanner, "identification");
    }
    mesh_.field_data.set("netgen:identifications", std::move(table));
  }

  void read_identification_types() {
    const std::int64_t count = read_count("identificationtypes");
    NDArray types = NDArray::allocate(DType::int64, {1, count});
    std::int64_t* out = types.data_as<std::int64_t>();
    // Netgen writes the types on one line; any line breaks are accepted.
    std::int64_t filled = 0;
    while (filled < count) {
      io::TextScanner scanner = lines_.scanner(lines_.require("identification types"));
      scanner.skip_whitespace();
      while (!scanner.at_end() && filled < count) {
        out[filled++] = scanner.next_number<std::int64_t>();
        scanner.skip_whitespace();
      }
      expect_line_end(scanner, "identificationtypes");
    }
    mesh_.field_data.set("netgen:identificationtypes", std::move(types));
  }

  static void expect_line_end(io::TextScanner& scanner, std::string_view what) {
    scanner.skip_whitespace();
    if (!scanner.at_end()) scanner.fail("unexpected value after the " + std::string(what) + " record");
  }

  // ---- second pass ----

  void read_points() {
    const int stored = dimension_;
    mesh_.points = NDArray::allocate(DType::float64, {num_points_, stored});
    if (num_points_ == 0) return;
    lines_.seek(*points_start_);
    double* const out = mesh_.points.data_as<double>();
    const auto store = [&](std::int64_t i, const double* xyz) {
      for (int k = 0; k < stored; ++k) out[i * stored + k] = xyz[k];
    };
    const auto fast = [&](std::int64_t i, const char* first, const char* last) {
      io::LineValues values(first, last);
      double xyz[3];
      if (!values.next(xyz[0]) || !values.next(xyz[1]) || !values.next(xyz[2]) || !values.done()) return false;
      store(i, xyz);
      return true;
    };
    const auto parse = [&](io::TextScanner& scanner, std::size_t, std::int64_t i) {
      double xyz[3];
      scanner.next_numbers(xyz, 3);
      expect_line_end(scanner, "point");
      store(i, xyz);
    };
    if (io::parse_records_in_parallel(lines_, lines_.document(), num_points_, fast, parse)) return;
    for (std::int64_t i = 0; i < num_points_; ++i) {
      const LineSpan line = lines_.require("point", i);
      io::TextScanner scanner = lines_.scanner(line);
      parse(scanner, line.begin, i);
    }
  }

  // The points read on all cores as the first pass comes to them, when every line of the
  // section is one plainly written point: the first pass then need not walk them line by line.
  // False (lines_ where it was) for anything else: the lines are skipped, and read_points reads
  // them after the first pass, as before, so that every error comes in file order.
  bool read_points_early() {
    if (num_points_ == 0) return false;
    const int stored = dimension_;
    NDArray points = NDArray::allocate(DType::float64, {num_points_, stored});
    double* const out = points.data_as<double>();
    const std::string_view document = lines_.document();
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        document, lines_.position(), static_cast<std::uint64_t>(num_points_), [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
          io::LineValues values(document.data() + begin, document.data() + stop);
          double xyz[3];
          if (!values.next(xyz[0]) || !values.next(xyz[1]) || !values.next(xyz[2]) || !values.done()) return false;
          for (int k = 0; k < stored; ++k) out[i * static_cast<std::uint64_t>(stored) + static_cast<std::uint64_t>(k)] = xyz[k];
          return true;
        });
    if (!end) return false;
    lines_.seek(*end);
    mesh_.points = std::move(points);
    points_read_early_ = true;
    return true;
  }

  std::int64_t read_node(io::TextScanner& scanner) const {
    scanner.skip_whitespace();
    const std::size_t offset = scanner.position();
    const auto node = scanner.next_number<std::int64_t>();
    if (node < 1 || node > num_points_)
      scanner.fail_at(offset, "node " + std::to_string(node) + " is outside the points [1, " + std::to_string(num_points_) + "]");
    return node - 1;
  }

  // A whole element record read as read_cells' scanner path reads it, when it is plainly
  // written and every node is in range; false sends the line to that path (and its errors).
  bool read_plain_record(SectionKind section, const LineSpan& line, const detail::ElementKind*& kind,
                         std::int64_t* nodes, std::int64_t& index) const {
    io::LineValues values = line_values(line);
    kind = plain_record_head(section, values, index);
    std::int64_t largest = 0;
    return kind != nullptr && read_plain_nodes(section, *kind, values, nodes, index, largest) && largest <= num_points_;
  }

  // The nodes after a plainly written record head (0-based; `largest` gets the largest
  // 1-based one, which the caller checks against the point count), then a point element's
  // index; false when they are not plainly written or a node is below 1.
  static bool read_plain_nodes(SectionKind section, const detail::ElementKind& kind, io::LineValues& values,
                               std::int64_t* nodes, std::int64_t& index, std::int64_t& largest) {
    for (int k = 0; k < kind.num_nodes; ++k) {
      if (!values.next(nodes[k]) || nodes[k] < 1) return false;
      largest = std::max(largest, nodes[k]);
      --nodes[k];
    }
    return section != SectionKind::point || values.next(index);
  }

  // Per section, the block its prefilled records are, whole: a block of exactly its records,
  // every node within the points. Otherwise none, and read_cells reads the section again.
  std::vector<std::optional<std::size_t>> prefilled_blocks() const {
    std::vector<std::optional<std::size_t>> owned(sections_.size());
    std::int64_t section_first = 0, block_first = 0;
    std::size_t block = 0;
    for (std::size_t s = 0; s < sections_.size(); ++s) {
      const CellSection& section = sections_[s];
      while (block < blocks_.size() && block_first < section_first) block_first += blocks_[block++].count;
      if (!section.prefilled_cells.empty_handle() && section.count > 0 && section.largest_node <= num_points_ &&
          block < blocks_.size() && block_first == section_first && blocks_[block].count == section.count)
        owned[s] = block;
      section_first += section.count;
    }
    return owned;
  }

  void read_cells() {
    const std::vector<std::optional<std::size_t>> owned = prefilled_blocks();
    std::vector<NDArray> indices(blocks_.size());
    for (const BlockPlan& plan : blocks_) mesh_.cells.push_back({std::string(plan.kind->type), NDArray{}, {}, {}});
    for (std::size_t s = 0; s < sections_.size(); ++s)
      if (owned[s]) {
        mesh_.cells[*owned[s]].connectivity = std::move(sections_[s].prefilled_cells);
        indices[*owned[s]] = std::move(sections_[s].prefilled_index);
      }
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      if (indices[b].empty_handle()) {
        mesh_.cells[b].connectivity = NDArray::allocate(DType::int64, {blocks_[b].count, blocks_[b].kind->num_nodes});
        indices[b] = NDArray::allocate(DType::int64, {blocks_[b].count});
      }
    std::size_t block = 0;
    std::int64_t row = 0;
    for (std::size_t s = 0; s < sections_.size(); ++s) {
      const CellSection& section = sections_[s];
      if (owned[s]) {  // read whole by the first pass: the walk goes on after it
        block = *owned[s];
        row = section.count;
        continue;
      }
      lines_.seek(section.start);
      if (!section.kinds.empty() && fill_section_in_parallel(section, indices, block, row)) continue;
      std::int64_t netgen_nodes[20];
      std::int64_t index_of_row = 0;
      for (std::int64_t i = 0; i < section.count; ++i) {
        const LineSpan line = lines_.require("element", i);
        if (row == blocks_[block].count) {
          ++block;
          row = 0;
        }
        const detail::ElementKind* kind = read_record(section, line, netgen_nodes, index_of_row);
        store_record(kind, netgen_nodes, index_of_row, mesh_.cells[block], indices[block], row);
        ++row;
        if (section.two_lines) lines_.require("the second line of element", i);
      }
    }
    if (!mesh_.cells.empty()) mesh_.cell_data.set("netgen:index", std::move(indices));
  }

  // One element record's kind, nodes (0-based, Netgen's order) and netgen:index, read plainly
  // or else by the scanner path (which words the errors).
  const detail::ElementKind* read_record(const CellSection& section, const LineSpan& line, std::int64_t* netgen_nodes,
                                         std::int64_t& index) const {
    const detail::ElementKind* kind = nullptr;
    index = 0;
    if (read_plain_record(section.kind, line, kind, netgen_nodes, index)) return kind;
    io::TextScanner scanner = lines_.scanner(line);
    return read_scanned_record(section, scanner, line, netgen_nodes, index);
  }

  const detail::ElementKind* read_scanned_record(const CellSection& section, io::TextScanner& scanner, const LineSpan& line,
                                                 std::int64_t* netgen_nodes, std::int64_t& index) const {
    const detail::ElementKind* kind = read_record_head(section.kind, scanner, line, index);
    for (int k = 0; k < kind->num_nodes; ++k) netgen_nodes[k] = read_node(scanner);
    if (section.kind == SectionKind::point) index = scanner.next_number<std::int64_t>();
    return kind;
  }

  static void store_record(const detail::ElementKind* kind, const std::int64_t* netgen_nodes, std::int64_t index,
                           std::int64_t* connectivity, std::int64_t* indices, std::int64_t row) {
    const auto n = static_cast<std::size_t>(kind->num_nodes);
    std::int64_t* nodes = connectivity + row * kind->num_nodes;
    for (std::size_t k = 0; k < n; ++k) nodes[k] = netgen_nodes[kind->to_meshio[k]];
    indices[row] = index;
  }
  static void store_record(const detail::ElementKind* kind, const std::int64_t* netgen_nodes, std::int64_t index,
                           CellBlock& cells, NDArray& indices, std::int64_t row) {
    store_record(kind, netgen_nodes, index, cells.connectivity.data_as<std::int64_t>(), indices.data_as<std::int64_t>(), row);
  }

  // A section whose kinds the first pass read on all cores, read on all cores into the rows
  // the sequential walk would give its records; `block` and `row` then stand where that walk
  // leaves them. False (nothing moved) when the walk must read it instead.
  bool fill_section_in_parallel(const CellSection& section, std::vector<NDArray>& indices, std::size_t& block,
                                std::int64_t& row) {
    struct Run {  // records [first, next run's first) go to rows row, row + 1, … of block
      std::int64_t first;
      std::size_t block;
      std::int64_t row;
    };
    std::vector<Run> runs;
    std::size_t end_block = block;
    std::int64_t end_row = row;
    for (std::int64_t i = 0; i < section.count; ++i) {
      if (end_row == blocks_[end_block].count) {
        ++end_block;
        end_row = 0;
      }
      if (runs.empty() || runs.back().block != end_block) runs.push_back({i, end_block, end_row});
      ++end_row;
    }
    const auto store = [&](std::int64_t i, const detail::ElementKind* kind, const std::int64_t* netgen_nodes,
                           std::int64_t index) {
      const Run& run = *(std::upper_bound(runs.begin(), runs.end(), i, [](std::int64_t value, const Run& r) {
                           return value < r.first;
                         }) - 1);
      if (kind != &detail::kKinds[section.kinds[static_cast<std::size_t>(i)]] || blocks_[run.block].kind != kind)
        lines_.fail_at(section.start, "internal error: the planning pass disagrees with the reading pass");
      store_record(kind, netgen_nodes, index, mesh_.cells[run.block], indices[run.block], run.row + (i - run.first));
    };
    const std::string_view document = lines_.document();
    const auto fast = [&](std::int64_t i, const char* first, const char* last) {
      const LineSpan line{static_cast<std::size_t>(first - document.data()), static_cast<std::size_t>(last - document.data())};
      std::int64_t netgen_nodes[20];
      std::int64_t index = 0;
      const detail::ElementKind* kind = nullptr;
      if (!read_plain_record(section.kind, line, kind, netgen_nodes, index)) return false;
      store(i, kind, netgen_nodes, index);
      return true;
    };
    const auto parse = [&](io::TextScanner& scanner, std::size_t line_begin, std::int64_t i) {
      std::int64_t netgen_nodes[20];
      std::int64_t index = 0;
      const detail::ElementKind* kind = read_scanned_record(section, scanner, LineSpan{line_begin, line_begin}, netgen_nodes, index);
      store(i, kind, netgen_nodes, index);
    };
    if (!io::parse_records_in_parallel(lines_, document, section.count, fast, parse)) return false;
    block = end_block;
    row = end_row;
    return true;
  }

  // field_data as meshio, and one Cell region per (name, dimension).
  void build_names() {
    struct Build {
      std::string name;
      int dim;
      std::int64_t tag;
      std::vector<std::int64_t> cells;
    };
    std::vector<Build> regions;
    std::map<std::pair<int, std::int64_t>, std::size_t> region_of;  // (dim, index) -> region
    for (const Name& entry : names_) {
      NDArray value = NDArray::allocate(DType::int64, {2});
      value.data_as<std::int64_t>()[0] = entry.index;
      value.data_as<std::int64_t>()[1] = entry.dim;
      mesh_.field_data.set(entry.name, std::move(value));
      const auto same = std::find_if(regions.begin(), regions.end(),
                                     [&](const Build& r) { return r.name == entry.name && r.dim == entry.dim; });
      std::size_t slot = static_cast<std::size_t>(same - regions.begin());
      if (same == regions.end())
        regions.push_back({entry.name, entry.dim, entry.index, {}});
      else if (same->tag != entry.index)
        same->tag = -1;
      region_of.emplace(std::pair{entry.dim, entry.index}, slot);
    }
    if (regions.empty()) return;
    const std::vector<NDArray>* indices = mesh_.cell_data.find("netgen:index");
    std::int64_t global = 0;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const int dim = blocks_[b].kind->dimension;
      const std::int64_t* index = (*indices)[b].data_as<std::int64_t>();
      for (std::int64_t c = 0; c < blocks_[b].count; ++c, ++global) {
        const auto found = region_of.find({dim, index[c]});
        if (found != region_of.end()) regions[found->second].cells.push_back(global);
      }
    }
    for (Build& build : regions) {
      Region region;
      region.name = std::move(build.name);
      region.kind = RegionKind::Cell;
      region.dim = build.dim;
      region.tag = build.tag;
      region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(build.cells.size())});
      std::copy(build.cells.begin(), build.cells.end(), region.entries.data_as<std::int64_t>());
      mesh_.regions.push_back(std::move(region));
    }
  }

  Lines lines_;
  int dimension_ = 3;
  std::int64_t num_points_ = 0;
  std::optional<std::size_t> points_start_;
  bool points_read_early_ = false;  // read_points_early filled mesh_.points
  std::vector<CellSection> sections_;
  std::vector<BlockPlan> blocks_;
  std::vector<Name> names_;
  Mesh mesh_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  std::string_view bytes = file.bytes();
  std::string inflated;
  const std::string_view text = io::maybe_gunzip(bytes, inflated, path, kFormat);
  io::reject_empty_file(text, path, kFormat);
  return Reader(text, path).read();
}

}  // namespace meshioplusplus::netgen
