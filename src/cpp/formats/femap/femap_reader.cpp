// Femap neutral file reader (.neu).
//
// A neutral file is a run of data blocks: a "   -1" line, the block id, the block's records and
// a closing "   -1" line. Records are free format (values separated by commas and/or blanks,
// Fortran D exponents allowed); a title is a line of its own ("<NULL>" meaning empty). Their
// layout changes with the Femap version (block 100), so records are read by position. What
// becomes what:
//   100 header      the version decides whether elements carry node lists (4.5 and later).
//   403 nodes       "id, define_sys, output_sys, layer, color, 6 permanent constraints, x, y,
//                   z" -> points float64 (n, 3) (x, y, z are fields 11-13 in every version),
//                   ids renumbered 0..n-1 in file order. Several 403 blocks add up.
//   404 elements    "id, color, property, type, topology, layer, orient id, …", two lines of
//                   ten node slots, orientation and two offset lines, then the release/list
//                   flags line; from 4.5 every non-zero list flag (fields 12-15) is followed by
//                   a node list ending at a "-1" record. The topology gives the cell type
//                   (formats/femap/femap_internal.hpp: 20 slots laid out as a degenerate
//                   brick, turned into VTK's order); one block per topology in order of first
//                   appearance. Rigid, multi-list, contact and weld elements (no shape we hold)
//                   are passed over. The property and element type become cell_data
//                   "femap:property" / "femap:type" (int64).
//   402 properties  "id, color, material, type, layer, ref CS", the title, flags, then counted
//                   lists (laminae, values, and Femap 2401's function references) -> one Cell
//                   region per property the elements use, named by its title ("property_<id>"
//                   when empty or already taken), tag = the property id, in property id order.
//   450 output sets "id", title, program/analysis line, the value, a note count and notes.
//   451 / 1051      output vectors: "set, vector, …", title, ranges, two component lines,
//                   "id_min, id_max, out_type, ent_type", flags, then "id, value" records (1051
//                   also "first id, last id, values…" ranges) until a "-1" record. The vectors
//                   of the first output set in the file become data: ent_type 7 (nodal) ->
//                   point_data, 8 (elemental) -> cell_data, float64 named by their titles
//                   (a repeated title gets " <vector id>"), NaN where an entity has no value;
//                   field_data "femap:output_set" [set id] and "femap:output_value" [value].
//                   Other sets are read only for their structure (no time series here).
//   anything else   (materials 601, groups 408, loads, constraints, geometry …) is passed over
//                   by its delimiters; the core has no warning channel, so silently
//                   (docs/formats.md lists what is read).
// Speed: a large node block, and an element block of one topology without node lists, are
// parsed on all cores (io::parse_lines_in_parallel, up to the block's "-1"); anything else
// goes to the sequential loops, which word the errors.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "formats/femap/femap.hpp"
#include "formats/femap/femap_internal.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/uninitialized.hpp"
#include "io/text/fortran_fields.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::femap {
namespace {

using detail::kFormat;
using detail::Topology;

struct Line {
  std::string_view text;  // without the line break and a '\r'
  std::size_t offset = 0;
  std::uint64_t number = 0;  // 1-based
};

bool is_separator(char c) noexcept { return c == ',' || c == ' ' || c == '\t' || c == '\r'; }

// Up to `max` values of a record, split at commas and blanks (empty fields between two commas
// do not count: the blocks read here never rely on them).
std::size_t split(std::string_view text, std::string_view* out, std::size_t max) noexcept {
  std::size_t count = 0;
  std::size_t i = 0;
  while (count < max) {
    while (i < text.size() && is_separator(text[i])) ++i;
    if (i == text.size()) break;
    const std::size_t begin = i;
    while (i < text.size() && !is_separator(text[i])) ++i;
    out[count++] = text.substr(begin, i - begin);
  }
  return count;
}

// The values of one record read in place, left to right (the hot blocks 403 and 404).
class Record {
 public:
  explicit Record(std::string_view text) noexcept : p_(text.data()), end_(text.data() + text.size()) {}
  // The next value, or empty at the record's end.
  std::string_view token() noexcept {
    while (p_ < end_ && is_separator(*p_)) ++p_;
    const char* const begin = p_;
    while (p_ < end_ && !is_separator(*p_)) ++p_;
    return {begin, static_cast<std::size_t>(p_ - begin)};
  }
  // The next value as an integer: false at the record's end or a value that is none.
  bool integer(std::int64_t& value, std::string_view& token_read) noexcept {
    token_read = token();
    if (token_read.empty()) return false;
    const bool negative = token_read.front() == '-';
    std::uint64_t magnitude = 0;
    const char* const first = token_read.data() + (negative ? 1 : 0);
    const char* const last = token_read.data() + token_read.size();
    if (io::plain_digits(first, last, magnitude) == last) {
      value = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
      return true;
    }
    return io::fortran_integer(token_read, value);
  }
  bool real(double& value, std::string_view& token_read) noexcept {
    token_read = token();
    if (token_read.empty()) return false;
    const auto result = std::from_chars(token_read.data(), token_read.data() + token_read.size(), value);
    if (result.ec == std::errc{} && result.ptr == token_read.data() + token_read.size()) return true;
    return io::parse_fortran_real(token_read, value);
  }

 private:
  const char* p_;
  const char* end_;
};

bool is_delimiter(std::string_view text) noexcept { return io::trim_blanks(text) == "-1"; }

std::string title_of(std::string_view text) {
  text = io::trim_blanks(text);
  if (text == "<NULL>") return {};
  return std::string(text);
}

// The file's lines; a block's reader asks for lines until its closing delimiter.
class Lines {
 public:
  Lines(std::string_view document, const std::string& path) : document_(document), path_(path) {}

  // The next line, or false at the end of the file.
  bool next(Line& line) noexcept {
    if (pos_ >= document_.size()) return false;
    const char* const begin = document_.data() + pos_;
    const char* const newline = io::find_newline(begin, document_.data() + document_.size());
    const std::size_t stop = newline ? static_cast<std::size_t>(newline - document_.data()) : document_.size();
    std::size_t end = stop;
    if (end > pos_ && document_[end - 1] == '\r') --end;
    line = {document_.substr(pos_, end - pos_), pos_, ++number_};
    pos_ = stop + 1;
    return true;
  }
  // The next line of the current block: false at its closing "-1" (consumed) or the file's end.
  bool next_in_block(Line& line) noexcept {
    if (!next(line)) {
      block_open_ = false;
      return false;
    }
    if (is_delimiter(line.text)) {
      block_open_ = false;
      return false;
    }
    return true;
  }
  // A record line the block must still have; `what` names it in the error.
  Line require(std::string_view what, const Line& after) {
    Line line;
    if (!next_in_block(line)) fail(after, "block ends inside " + std::string(what));
    return line;
  }
  void skip_block() {
    Line line;
    while (next_in_block(line)) {
    }
  }
  bool block_open() const noexcept { return block_open_; }
  void open_block() noexcept { block_open_ = true; }

  [[noreturn]] void fail(const Line& line, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, line.offset, line.number);
  }
  std::int64_t integer(const Line& line, std::string_view field, std::string_view what) const {
    std::int64_t value = 0;
    if (field.empty() || !io::fortran_integer(field, value))
      fail(line, "invalid " + std::string(what) + " '" + std::string(field.substr(0, 32)) + "'");
    return value;
  }
  double real(const Line& line, std::string_view field, std::string_view what) const {
    double value = 0;
    if (!io::parse_fortran_real(field, value))
      fail(line, "invalid " + std::string(what) + " '" + std::string(field.substr(0, 32)) + "'");
    return value;
  }
  std::size_t bytes_left() const noexcept { return document_.size() - std::min(pos_, document_.size()); }
  std::size_t position() const noexcept { return pos_; }
  std::string_view document() const noexcept { return document_; }
  // Moves past `lines` lines ending at `offset` (read by a parallel pass).
  void skip_to(std::size_t offset, std::uint64_t lines) noexcept {
    pos_ = offset;
    number_ += lines;
  }
  // The number of lines before the current block's closing delimiter, when one follows
  // (a line that is "-1" once trimmed); nullopt at the file's end. Only a '-' can start one,
  // so the search jumps from '-' to '-' (record lines of meshes hold few).
  std::optional<std::uint64_t> lines_before_delimiter() const noexcept {
    const char* const text = document_.data();
    const char* const end = text + document_.size();
    const char* at = text + std::min(pos_, document_.size());
    for (const char* minus = at; (minus = static_cast<const char*>(std::memchr(minus, '-', end - minus))) != nullptr; ++minus) {
      const char* line_begin = minus;
      while (line_begin > at && line_begin[-1] != '\n') --line_begin;
      const char* const newline = io::find_newline(minus, end);
      const char* const line_end = newline ? newline : end;
      if (is_delimiter(std::string_view(line_begin, static_cast<std::size_t>(line_end - line_begin))))
        return io::count_newlines(at, line_begin);
    }
    return std::nullopt;
  }

 private:
  std::string_view document_;
  const std::string& path_;
  std::size_t pos_ = 0;
  std::uint64_t number_ = 0;
  bool block_open_ = false;
};

// The cells of one topology as the file lists them.
struct ElementBlock {
  const Topology* topology;
  io::UninitializedVector<std::int64_t> element_ids, node_ids, properties, types;  // filled right after sizing
};

struct OutputSet {
  std::int64_t id;
  double value;
};

struct Vector {
  std::int64_t set, id, entity;
  std::string title;
  std::vector<std::int64_t> ids;
  std::vector<double> values;
};

class Reader {
 public:
  Reader(std::string_view text, const std::string& path) : text_(text), path_(path), lines_(text, path) {}

  Mesh read() {
    reject_other_formats();
    Line line;
    while (lines_.next(line)) {
      if (io::trim_blanks(line.text).empty()) continue;
      if (!is_delimiter(line.text)) lines_.fail(line, "expected '   -1' opening a data block, found '" +
                                                          std::string(io::trim_blanks(line.text).substr(0, 40)) + "'");
      Line id_line;
      if (!lines_.next(id_line)) lines_.fail(line, "the file ends after '-1': expected a block id");
      const std::int64_t block = lines_.integer(id_line, io::trim_blanks(id_line.text), "block id");
      lines_.open_block();
      switch (block) {
        case 100: read_header(id_line); break;
        case 403: read_nodes(); break;
        case 404: read_elements(id_line); break;
        case 402: read_properties(id_line); break;
        case 450: read_output_sets(id_line); break;
        case 451: read_vectors(id_line, false); break;
        case 1051: read_vectors(id_line, true); break;
        default: break;
      }
      if (lines_.block_open()) lines_.skip_block();
    }
    return build();
  }

 private:
  void reject_other_formats() {
    const std::string_view head = io::trim_blanks(text_.substr(0, std::min<std::size_t>(text_.size(), 64)));
    const std::string_view first = head.substr(0, head.find('\n'));
    if (io::trim_blanks(first).starts_with("CONTROL INFO"))
      throw ReadError(path_, std::string(kFormat),
                      "this is a Gambit neutral file (CONTROL INFO), not a Femap neutral file; meshio++ has no Gambit reader",
                      0, 1);
    io::reject_empty_file(text_, path_, kFormat);
  }

  void read_header(const Line& id_line) {
    Line line;
    if (!lines_.next_in_block(line)) return;  // an empty header: the version stays unknown
    const Line version = lines_.require("the header's version", line);
    std::string_view fields[2];
    if (split(version.text, fields, 2) >= 1) version_ = lines_.real(version, fields[0], "Femap version");
    (void)id_line;
  }

  // A large block of one-line node records on all cores; false, with nothing read, when a
  // record is not plainly written (the sequential loop then words the error).
  bool read_nodes_in_parallel() {
    const std::optional<std::uint64_t> records = lines_.lines_before_delimiter();
    const std::string_view document = lines_.document();
    // A node record holds 14 values, each a character and a comma: no more than the block holds.
    if (!records || *records < 2 || *records * 28 > document.size() - lines_.position()) return false;
    const std::size_t before = node_ids_.size();
    node_ids_.resize(before + *records);
    coordinates_.resize(3 * (before + *records));
    std::int64_t* const ids = node_ids_.data() + before;
    double* const xyz = coordinates_.data() + 3 * before;
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        document, lines_.position(), *records, [&](std::uint64_t i, std::size_t from, std::size_t to) {
          Record record(document.substr(from, to - from));
          std::string_view token;
          if (!record.integer(ids[i], token)) return false;
          for (int k = 0; k < 10; ++k)
            if (record.token().empty()) return false;
          for (int k = 0; k < 3; ++k)
            if (!record.real(xyz[3 * i + static_cast<std::size_t>(k)], token)) return false;
          return true;
        });
    if (!end) {
      node_ids_.resize(before);
      coordinates_.resize(3 * before);
      return false;
    }
    lines_.skip_to(*end, *records);
    return true;
  }

  void read_nodes() {
    if (read_nodes_in_parallel()) return;
    Line line;
    while (lines_.next_in_block(line)) {
      Record record(line.text);
      std::string_view token;
      std::int64_t id = 0;
      if (!record.integer(id, token)) lines_.integer(line, token, "node id");  // fails, naming the value
      for (int k = 0; k < 10; ++k)
        if (record.token().empty()) lines_.fail(line, "a node record needs 14 values (id, 10 attributes, x, y, z)");
      double xyz[3];
      for (double& value : xyz)
        if (!record.real(value, token)) {
          if (token.empty()) lines_.fail(line, "a node record needs 14 values (id, 10 attributes, x, y, z)");
          lines_.real(line, token, "coordinate");
        }
      node_ids_.push_back(id);
      coordinates_.insert(coordinates_.end(), xyz, xyz + 3);
    }
  }

  ElementBlock& block_of(const Topology* topology) {
    for (ElementBlock& block : blocks_)
      if (block.topology == topology) return block;
    return blocks_.emplace_back(ElementBlock{topology, {}, {}, {}, {}});
  }

  // A large block of elements of one topology, each in its seven plain lines without node
  // lists, on all cores; false, with nothing read, for anything else (the sequential loop
  // reads the block then and words any error).
  bool read_elements_in_parallel() {
    constexpr std::uint64_t kLinesPerElement = 7;
    const std::optional<std::uint64_t> records = lines_.lines_before_delimiter();
    if (!records || *records < 2 * kLinesPerElement || *records % kLinesPerElement != 0) return false;
    const std::string_view document = lines_.document();
    const std::uint64_t count = *records / kLinesPerElement;
    // Writers give an element's seven lines 90 bytes and more (a hand-trimmed block is read
    // sequentially): the allocation stays within a small multiple of the file.
    if (count * 90 > document.size() - lines_.position()) return false;
    // The first element's topology: every element must have it.
    const std::size_t first_end = document.find('\n', lines_.position());
    Record first(document.substr(lines_.position(), first_end == std::string_view::npos ? std::string_view::npos
                                                                                           : first_end - lines_.position()));
    std::int64_t head[5];
    std::string_view token;
    for (std::int64_t& value : head)
      if (!first.integer(value, token)) return false;
    const Topology* topology = detail::topology_of_code(head[4]);
    if (topology == nullptr) return false;
    const std::int64_t code = head[4];
    const bool has_flags = version_ >= 4.5 - 1e-9;
    ElementBlock& block = block_of(topology);
    const std::size_t before = block.element_ids.size();
    const auto width = static_cast<std::size_t>(topology->nodes);
    block.element_ids.resize(before + count);
    block.properties.resize(before + count);
    block.types.resize(before + count);
    block.node_ids.resize((before + count) * width);
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        document, lines_.position(), *records, [&](std::uint64_t line, std::size_t from, std::size_t to) {
          const std::uint64_t element = line / kLinesPerElement;
          const std::size_t at = before + element;
          Record record(document.substr(from, to - from));
          std::string_view value_token;
          switch (line % kLinesPerElement) {
            case 0: {
              std::int64_t values[5];
              for (std::int64_t& value : values)
                if (!record.integer(value, value_token)) return false;
              if (values[4] != code) return false;
              block.element_ids[at] = values[0];
              block.properties[at] = values[2];
              block.types[at] = values[3];
              return true;
            }
            case 1:
            case 2: {  // node slots 0-9, 10-19: the topology's slots into VTK's order
              const int part = static_cast<int>(line % kLinesPerElement) - 1;
              std::int64_t slots[10] = {};
              for (int k = 0; k < 10; ++k)
                if (!record.integer(slots[k], value_token)) {
                  if (value_token.empty()) break;
                  return false;
                }
              std::int64_t* const row = block.node_ids.data() + at * width;
              for (std::size_t i = 0; i < width; ++i) {
                const int slot = topology->slots[i];
                if (slot / 10 != part) continue;
                if (slots[slot % 10] <= 0) return false;
                row[i] = slots[slot % 10];
              }
              return true;
            }
            case 6: {  // flags: a node list (a flag not 0) is read by the sequential loop
              if (!has_flags) return true;
              for (int k = 0; k < 12; ++k)
                if (record.token().empty()) return true;
              for (int k = 12; k < 16; ++k) {
                std::int64_t flag = 0;
                if (!record.integer(flag, value_token)) return value_token.empty();
                if (flag != 0) return false;
              }
              return true;
            }
            default: return true;  // orientation and offsets: not read
          }
        });
    if (!end) {
      block.element_ids.resize(before);
      block.properties.resize(before);
      block.types.resize(before);
      block.node_ids.resize(before * width);
      if (before == 0) blocks_.pop_back();  // block_of opened it: the sequential loop opens it again
      return false;
    }
    lines_.skip_to(*end, *records);
    return true;
  }

  void read_elements(const Line& id_line) {
    if (!elements_line_) elements_line_ = id_line;
    if (read_elements_in_parallel()) return;
    Line head;
    while (lines_.next_in_block(head)) {
      std::int64_t values[5];
      {
        Record record(head.text);
        std::string_view token;
        static constexpr const char* kNames[5] = {"element id", "element color", "element property", "element type",
                                                  "element topology"};
        for (int k = 0; k < 5; ++k)
          if (!record.integer(values[k], token)) {
            if (token.empty()) lines_.fail(head, "an element record starts with id, color, property, type and topology");
            lines_.integer(head, token, kNames[k]);
          }
      }
      const std::int64_t id = values[0], property = values[2], type = values[3], code = values[4];
      std::array<std::int64_t, 20> slots{};
      Line line = head;
      for (int part = 0; part < 2; ++part) {
        line = lines_.require("an element's node slots", line);
        Record record(line.text);
        std::string_view token;
        for (int k = 0; k < 10; ++k)
          if (!record.integer(slots[static_cast<std::size_t>(part * 10 + k)], token)) {
            if (token.empty()) break;
            lines_.integer(line, token, "node id");
          }
      }
      for (int k = 0; k < 3; ++k) line = lines_.require("an element's orientation and offsets", line);
      line = lines_.require("an element's flags", line);
      if (version_ >= 4.5 - 1e-9) {
        Record flags(line.text);
        bool present = true;
        for (int k = 0; k < 12 && present; ++k) present = !flags.token().empty();
        const Line flags_line = line;
        for (int k = 12; k < 16 && present; ++k) {
          const std::string_view token = flags.token();
          present = !token.empty();
          if (present && lines_.integer(flags_line, token, "list flag") != 0) skip_node_list(line);
        }
      }
      const Topology* topology = detail::topology_of_code(code);
      if (topology == nullptr) continue;  // rigid, multi-list, contact, weld: no shape we hold
      ElementBlock& block = block_of(topology);
      block.element_ids.push_back(id);
      block.properties.push_back(property);
      block.types.push_back(type);
      for (int i = 0; i < topology->nodes; ++i) {
        const std::int64_t node = slots[static_cast<std::size_t>(topology->slots[static_cast<std::size_t>(i)])];
        if (node <= 0) lines_.fail(head, "element " + std::to_string(id) + " (" + std::string(topology->type) +
                                             ") has no node in slot " + std::to_string(topology->slots[static_cast<std::size_t>(i)]));
        block.node_ids.push_back(node);
      }
    }
  }

  void skip_node_list(Line& line) {
    std::string_view first[1];
    for (;;) {
      line = lines_.require("an element's node list (ended by -1)", line);
      if (split(line.text, first, 1) == 1 && first[0] == "-1") return;
    }
  }

  // A line of exactly one integer: a count of the property's lists.
  static bool single_integer(std::string_view text, std::int64_t& value) noexcept {
    std::string_view fields[2];
    return split(text, fields, 2) == 1 && io::fortran_integer(fields[0], value);
  }

  void read_properties(const Line& id_line) {
    std::vector<Line> records;
    Line line;
    while (lines_.next_in_block(line)) records.push_back(line);
    std::size_t i = 0;
    auto take = [&](std::string_view what) -> const Line& {
      if (i >= records.size()) lines_.fail(records.empty() ? id_line : records.back(), "block ends inside " + std::string(what));
      return records[i++];
    };
    std::string_view fields[8];
    while (i < records.size()) {
      const Line& head = take("a property");
      if (split(head.text, fields, 1) < 1) lines_.fail(head, "empty property record");
      const std::int64_t id = lines_.integer(head, fields[0], "property id");
      const std::string title = title_of(take("a property title").text);
      take("property flags");
      std::int64_t values = 0;
      for (const auto& [per_line, what] : {std::pair{8, "laminate count"}, std::pair{5, "property value count"}}) {
        const Line& count_line = take(what);
        std::int64_t count = 0;
        if (!single_integer(count_line.text, count) || count < 0)
          lines_.fail(count_line, std::string("invalid ") + what);
        const std::uint64_t lines_needed = (static_cast<std::uint64_t>(count) + per_line - 1) / per_line;
        if (lines_needed > records.size() - i) lines_.fail(count_line, std::string(what) + " past the block's end");
        i += lines_needed;
        values = count;
      }
      // Femap 2401 follows the values with as many function references, five a line: a repeat
      // of the value count, then lines of several integers.
      std::int64_t repeat = 0;
      if (values > 0 && i + 1 < records.size() && single_integer(records[i].text, repeat) && repeat == values &&
          split(records[i + 1].text, fields, 2) > 1) {
        const std::uint64_t lines_needed = (static_cast<std::uint64_t>(values) + 4) / 5;
        if (lines_needed <= records.size() - i - 1) i += 1 + lines_needed;
      }
      // Outline point lists: a count line, then that many points.
      std::int64_t outline = 0;
      while (i < records.size() && single_integer(records[i].text, outline) && outline >= 0 &&
             static_cast<std::uint64_t>(outline) <= records.size() - i - 1)
        i += 1 + static_cast<std::size_t>(outline);
      property_titles_[id] = title;
    }
  }

  static bool integer_line(std::string_view text, std::size_t low, std::size_t high, bool positive) noexcept {
    std::string_view fields[8];
    const std::size_t count = split(text, fields, 8);
    if (count < low || count > high) return false;
    for (std::size_t k = 0; k < count; ++k) {
      std::int64_t value = 0;
      if (!io::fortran_integer(fields[k], value) || (positive && value <= 0)) return false;
    }
    return true;
  }
  static bool real_line(std::string_view text) noexcept {
    std::string_view fields[2];
    double value = 0;
    return split(text, fields, 2) == 1 && io::parse_fortran_real(fields[0], value);
  }
  // Whether an output set record starts at records[i]: its id, title, two to four integers,
  // the value and the note count.
  static bool set_starts(const std::vector<Line>& records, std::size_t i) noexcept {
    return i + 4 < records.size() && integer_line(records[i].text, 1, 1, true) &&
           integer_line(records[i + 2].text, 2, 4, false) && real_line(records[i + 3].text) &&
           integer_line(records[i + 4].text, 1, 1, false);
  }

  void read_output_sets(const Line& id_line) {
    std::vector<Line> records;
    Line line;
    while (lines_.next_in_block(line)) records.push_back(line);
    std::size_t i = 0;
    std::string_view fields[2];
    while (i < records.size()) {
      if (!set_starts(records, i)) lines_.fail(records[i], "expected an output set record (id, title, program, value, notes)");
      split(records[i].text, fields, 1);
      const std::int64_t id = lines_.integer(records[i], fields[0], "output set id");
      split(records[i + 3].text, fields, 1);
      const double value = lines_.real(records[i + 3], fields[0], "output set value");
      i += 5;
      while (i < records.size() && !set_starts(records, i)) ++i;  // notes and later versions' extra records
      if (wanted_set_ < 0) wanted_set_ = id;
      sets_.push_back({id, value});
    }
    (void)id_line;
  }

  void read_vectors(const Line& id_line, bool ranges) {
    Line head;
    std::string_view fields[12];
    while (lines_.next_in_block(head)) {
      if (split(head.text, fields, 2) < 2) lines_.fail(head, "an output vector starts with its set and vector ids");
      Vector vector{lines_.integer(head, fields[0], "output set id"), lines_.integer(head, fields[1], "output vector id"), 0, {}, {}, {}};
      Line line = lines_.require("an output vector title", head);
      vector.title = title_of(line.text);
      for (int k = 0; k < 3; ++k) line = lines_.require("an output vector's range and components", line);
      line = lines_.require("an output vector's entity type", line);
      std::size_t count = split(line.text, fields, 4);
      if (count == 1) {
        line = lines_.require("an output vector's entity type", line);
        count = split(line.text, fields, 4);
      }
      if (count < 4) lines_.fail(line, "expected id_min, id_max, out_type, ent_type");
      vector.entity = lines_.integer(line, fields[3], "output vector entity type");
      line = lines_.require("an output vector's flags", line);
      if (wanted_set_ < 0) wanted_set_ = vector.set;
      const bool keep = vector.set == wanted_set_;
      for (;;) {
        line = lines_.require("output vector data (ended by -1)", line);
        count = split(line.text, fields, 12);
        if (count == 0) continue;
        if (fields[0] == "-1") break;
        std::int64_t second = 0;
        if (!ranges || count < 3 || !io::fortran_integer(fields[1], second)) {
          if (count < 2) lines_.fail(line, "an output record needs an id and a value");
          const std::int64_t id = lines_.integer(line, fields[0], "entity id");
          const double value = lines_.real(line, fields[1], "output value");
          if (keep) vector.ids.push_back(id), vector.values.push_back(value);
          continue;
        }
        const std::int64_t first = lines_.integer(line, fields[0], "range start");
        if (second < first) lines_.fail(line, "output range " + std::to_string(first) + ".." + std::to_string(second));
        const std::uint64_t total = static_cast<std::uint64_t>(second) - static_cast<std::uint64_t>(first) + 1;
        io::check_claim_fits_file(path_, kFormat, "output range values", total, 2, lines_.bytes_left() + line.text.size(),
                                  {line.offset, line.number});
        std::size_t k = 2;
        for (std::uint64_t n = 0; n < total; ++n, ++k) {
          if (k >= count) {
            line = lines_.require("output range values", line);
            count = split(line.text, fields, 12);
            k = 0;
            if (count == 0) lines_.fail(line, "empty line inside an output range");
          }
          const double value = lines_.real(line, fields[k], "output value");
          if (keep) vector.ids.push_back(first + static_cast<std::int64_t>(n)), vector.values.push_back(value);
        }
      }
      if (keep) vectors_.push_back(std::move(vector));
    }
    (void)id_line;
  }

  Mesh build() {
    Mesh mesh;
    if (node_ids_.empty())
      throw ReadError(path_, std::string(kFormat), "the file holds no nodes (block 403): a geometry-only or results-only neutral file");
    const auto nodes = static_cast<std::int64_t>(node_ids_.size());
    mesh.points = NDArray::allocate(DType::float64, {nodes, 3});
    std::copy(coordinates_.begin(), coordinates_.end(), mesh.points.data_as<double>());
    io::IdMap node_map;
    if (const auto repeated = node_map.build(node_ids_))
      throw ReadError(path_, std::string(kFormat), "node id " + std::to_string(node_ids_[*repeated]) + " is defined twice");

    std::vector<std::int64_t> global_ids;  // element ids in block-major order
    std::vector<NDArray> property_arrays, type_arrays;
    for (const ElementBlock& block : blocks_) {
      const auto cells = static_cast<std::int64_t>(block.element_ids.size());
      CellBlock cell_block{std::string(block.topology->type), NDArray::allocate(DType::int64, {cells, block.topology->nodes}), {}, {}};
      std::int64_t* connectivity = cell_block.connectivity.data_as<std::int64_t>();
      // On all cores: parallel_ranges rethrows the earliest range's error, so an unknown node
      // is reported for the first element naming one, as a sequential loop does.
      io::parallel_ranges(block.node_ids.size(), std::size_t{1} << 18, [&](std::size_t first, std::size_t last) {
        for (std::size_t k = first; k < last; ++k) {
          const std::int64_t position = node_map.find(block.node_ids[k]);
          if (position < 0) {
            const std::int64_t element = block.element_ids[k / static_cast<std::size_t>(block.topology->nodes)];
            lines_.fail(*elements_line_, "element " + std::to_string(element) + " names node " + std::to_string(block.node_ids[k]) +
                                             ", which no 403 block defines");
          }
          connectivity[k] = position;
        }
      });
      mesh.cells.push_back(std::move(cell_block));
      property_arrays.push_back(int64_array(block.properties));
      type_arrays.push_back(int64_array(block.types));
      global_ids.insert(global_ids.end(), block.element_ids.begin(), block.element_ids.end());
    }
    if (!blocks_.empty()) {
      mesh.cell_data.set("femap:property", std::move(property_arrays));
      mesh.cell_data.set("femap:type", std::move(type_arrays));
    }
    add_property_regions(mesh);
    add_output(mesh, node_map, global_ids);
    return mesh;
  }

  template <class Values> static NDArray int64_array(const Values& values) {
    NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
    return array;
  }

  void add_property_regions(Mesh& mesh) const {
    std::map<std::int64_t, std::vector<std::int64_t>> cells_of;  // property id -> block-major cells
    std::map<std::int64_t, int> dimension_of;
    std::int64_t base = 0;
    for (const ElementBlock& block : blocks_) {
      const int dimension = cell_type(block.topology->type).dimension;
      // A run of cells with one property at a time (one run per property, as a rule): two map
      // lookups a cell took 40 ms for a million cells.
      for (std::size_t k = 0; k < block.properties.size();) {
        std::size_t run_end = k + 1;
        while (run_end < block.properties.size() && block.properties[run_end] == block.properties[k]) ++run_end;
        std::vector<std::int64_t>& cells = cells_of[block.properties[k]];
        const std::size_t before = cells.size();
        cells.resize(before + (run_end - k));
        std::iota(cells.begin() + static_cast<std::ptrdiff_t>(before), cells.end(), base + static_cast<std::int64_t>(k));
        int& dim = dimension_of[block.properties[k]];
        dim = std::max(dim, dimension);
        k = run_end;
      }
      base += static_cast<std::int64_t>(block.properties.size());
    }
    std::vector<std::string> taken;
    for (const auto& [id, cells] : cells_of) {
      const auto title = property_titles_.find(id);
      std::string name = title == property_titles_.end() ? std::string() : title->second;
      if (name.empty() || std::find(taken.begin(), taken.end(), name) != taken.end()) name = "property_" + std::to_string(id);
      taken.push_back(name);
      mesh.regions.push_back(Region{name, RegionKind::Cell, dimension_of[id], id, int64_array(cells)});
    }
  }

  void add_output(Mesh& mesh, const io::IdMap& node_map, const std::vector<std::int64_t>& element_ids) const {
    const std::int64_t set = wanted_set_;
    if (set < 0) return;
    io::IdMap element_map;
    element_map.build(element_ids);  // repeated element ids: the first one wins
    std::vector<std::string> names;
    bool any = false;
    for (const Vector& vector : vectors_) {
      if (vector.set != set || (vector.entity != 7 && vector.entity != 8)) continue;
      const bool nodal = vector.entity == 7;
      const std::int64_t size = nodal ? mesh.num_points() : static_cast<std::int64_t>(element_ids.size());
      NDArray values = NDArray::allocate(DType::float64, {size});
      double* data = values.data_as<double>();
      std::fill(data, data + size, std::numeric_limits<double>::quiet_NaN());
      for (std::size_t k = 0; k < vector.ids.size(); ++k) {
        const std::int64_t position = nodal ? node_map.find(vector.ids[k]) : element_map.find(vector.ids[k]);
        if (position >= 0) data[position] = vector.values[k];  // an entity the mesh lacks (a skipped rigid element …)
      }
      std::string name = vector.title.empty() ? "vector_" + std::to_string(vector.id) : vector.title;
      if (std::find(names.begin(), names.end(), name) != names.end()) name += " " + std::to_string(vector.id);
      names.push_back(name);
      any = true;
      if (nodal) {
        mesh.point_data.set(name, std::move(values));
        continue;
      }
      std::vector<NDArray> per_block;
      std::int64_t base = 0;
      for (const CellBlock& block : mesh.cells) {
        const std::int64_t cells = block.num_cells();
        NDArray part = NDArray::allocate(DType::float64, {cells});
        std::copy(data + base, data + base + cells, part.data_as<double>());
        per_block.push_back(std::move(part));
        base += cells;
      }
      mesh.cell_data.set(name, std::move(per_block));
    }
    if (!any && sets_.empty()) return;
    mesh.field_data.set("femap:output_set", NDArray::from_values<std::int64_t>({set}));
    for (const OutputSet& output : sets_)
      if (output.id == set) mesh.field_data.set("femap:output_value", NDArray::from_values<double>({output.value}));
  }

  std::string_view text_;
  const std::string& path_;
  Lines lines_;
  double version_ = 0.0;
  std::vector<std::int64_t> node_ids_;
  std::vector<double> coordinates_;
  std::vector<ElementBlock> blocks_;
  std::optional<Line> elements_line_;
  std::map<std::int64_t, std::string> property_titles_;
  std::vector<OutputSet> sets_;
  std::int64_t wanted_set_ = -1;  // the set whose vectors are kept: the first one met
  std::vector<Vector> vectors_;
};

}  // namespace

Mesh read(const std::string& path) {
  io::MappedFile file(path, kFormat);
  return Reader(file.bytes(), path).read();
}

bool looks_like(std::string_view head) noexcept {
  std::size_t i = 0;
  auto next_line = [&]() -> std::string_view {
    while (i < head.size()) {
      const std::size_t end = std::min(head.find('\n', i), head.size());
      const std::string_view line = io::trim_blanks(head.substr(i, end - i));
      i = end + 1;
      if (!line.empty()) return line;
    }
    return {};
  };
  if (next_line() != "-1") return false;
  const std::string_view id = next_line();
  std::int64_t value = 0;
  return !id.empty() && io::fortran_integer(id, value) && value > 0;
}

}  // namespace meshioplusplus::femap
