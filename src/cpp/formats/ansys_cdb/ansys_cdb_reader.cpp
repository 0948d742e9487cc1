// ANSYS MAPDL archive (.cdb) reader.
//
// A .cdb file is an APDL command stream: one command a line ("ET,1,186", "KEYOPT,1,1,11"),
// and blocks whose data lines follow a Fortran format line of their own. What becomes what:
//   ET,itype,ename        element type number -> routine (186 or SOLID186: the trailing digits)
//   KEYOPT,itype,1,v      MESH200's KEYOPT(1), which decides its cells (ansys_cdb_elements.hpp)
//   NBLOCK,n,SOLID,max,count + (3i9,6e21.13e3)
//                         nodes: the integer fields (node number, two solid-model refs), then
//                         X Y Z THXY THYZ THZX; the widths come from the format line, never
//                         assumed; trailing fields left out read as 0 (MAPDL drops trailing
//                         zero coordinates). Ends at "N,R5.3,LOC,-1," or a negative number.
//                         -> points, in file order; angles are not kept.
//   EBLOCK,n,SOLID,max,count + (19i9)
//                         elements, "solid" layout: mat, type, real, secnum, esys, death,
//                         solid-model ref, shape, node count, (unused), element number, then the
//                         nodes, continued on the next line past the line's fields (> 8 nodes).
//   EBLOCK,n,,max,count + (15i9)
//                         the layout without SOLID (contact/target elements): element number,
//                         type, real, mat, secnum, then up to n nodes (continued past 10).
//                         Both end at a line whose first number is negative.
//                         -> cells by type (ansys_cdb_elements.hpp), one block per cell type in
//                         order of first appearance; cell data ansys:element/type/routine/mat/
//                         real/secnum. Missing mid-side nodes (0) become new points at their
//                         edge's midpoint, one per edge, after the file's nodes.
//   CMBLOCK,name,NODE|ELEM,count + (8i10)
//                         components: numbers, a negative one closing a range from the number
//                         before it. NODE -> Point region, ELEM -> Cell region (the elements that
//                         became cells); entries ascending. KP/LINE/AREA/VOLU components skipped.
// Everything else (/PREP7, MP/MPDATA, RLBLOCK, SECBLOCK, loads, parameters, E and N commands)
// is passed over. Commands ignore case. Several NBLOCKs / EBLOCKs add up.
// Speed: a large NBLOCK, and a large SOLID EBLOCK whose records each fit one line (linear
// cells, as MAPDL writes them), whose headers give their counts, are parsed on all cores
// (io::parse_lines_in_parallel) with non-throwing field readers; any record they do not
// take plainly sends the whole block back to the sequential loop, which words every error.
#include <algorithm>
#include <span>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/ansys_cdb/ansys_cdb.hpp"
#include "formats/ansys_cdb/ansys_cdb_elements.hpp"
#include "formats/ansys_cdb/ansys_cdb_internal.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/fortran_fields.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ansys_cdb {
namespace {

constexpr std::string_view kFormat = "ansys_cdb";
constexpr std::int64_t kMaxElementNodes = 64;

struct Line {
  std::string_view text;  // without the line break
  std::size_t offset = 0;
  std::uint64_t number = 0;  // 1-based
};

class Lines {
 public:
  Lines(std::string_view document, const std::string& path) : document_(document), path_(path) {}
  bool next(Line& line) {
    if (pos_ >= document_.size()) return false;
    const char* start = document_.data() + pos_;
    const void* newline = std::memchr(start, '\n', document_.size() - pos_);
    const std::size_t end = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - document_.data())
                                    : document_.size();
    std::size_t stop = end;
    if (stop > pos_ && document_[stop - 1] == '\r') --stop;
    line = {document_.substr(pos_, stop - pos_), pos_, ++number_};
    pos_ = newline ? end + 1 : document_.size();
    return true;
  }
  // Steps back to the start of `line` (a block ended at a command of its own).
  void unread(const Line& line) {
    pos_ = line.offset;
    number_ = line.number - 1;
  }
  std::size_t bytes_left() const noexcept { return document_.size() - pos_; }
  std::size_t position() const noexcept { return pos_; }
  std::uint64_t line_number() const noexcept { return number_; }  // of the line last taken
  std::string_view document() const noexcept { return document_; }
  // Moves to `position`, `lines` lines on (records read elsewhere).
  void skip_to(std::size_t position, std::uint64_t lines) noexcept {
    pos_ = position;
    number_ += lines;
  }
  [[noreturn]] void fail(const Line& line, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, line.offset, line.number);
  }
  const std::string& path() const noexcept { return path_; }

 private:
  std::string_view document_;
  const std::string& path_;
  std::size_t pos_ = 0;
  std::uint64_t number_ = 0;
};

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view first_word(std::string_view line) {
  std::size_t b = 0;
  while (b < line.size() && (line[b] == ' ' || line[b] == '\t')) ++b;
  std::size_t e = b;
  while (e < line.size() && line[e] != ',' && line[e] != ' ' && line[e] != '\t') ++e;
  return line.substr(b, e - b);
}

bool blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// A line that is a command rather than block data: it starts with a letter, '/' or '!'.
bool starts_command(std::string_view line) {
  for (char c : line) {
    if (c == ' ' || c == '\t') continue;
    return std::isalpha(static_cast<unsigned char>(c)) || c == '/' || c == '!' || c == '*';
  }
  return false;
}

struct Element {
  std::int64_t number = 0, type = 0, mat = 0, real = 0, secnum = 0;
  std::size_t nodes_begin = 0, nodes_end = 0;  // into Raw::element_nodes
  std::size_t offset = 0;
  std::uint64_t line = 0;
};

struct Component {
  std::string name;
  bool nodes = true;
  std::vector<std::int64_t> items;  // as written (negative: a range's end)
};

struct Raw {
  std::unordered_map<std::int64_t, std::int64_t> routines;  // type number -> routine
  std::unordered_map<std::int64_t, std::int64_t> keyopt1;   // type number -> KEYOPT(1)
  std::vector<std::int64_t> node_ids;
  std::vector<double> coordinates;  // xyz per node
  std::vector<std::size_t> node_offsets;
  std::vector<std::uint64_t> node_lines;
  std::vector<Element> elements;
  std::vector<std::int64_t> element_nodes;
  std::vector<Component> components;
};

// The format line that opens a block.
std::vector<detail::FortranField> format_line(Lines& lines, std::string_view block) {
  Line line;
  while (lines.next(line))
    if (!blank(line.text)) {
      std::string error;
      if (auto fields = detail::parse_fortran_format(line.text, error)) return std::move(*fields);
      lines.fail(line, std::string(block) + " format line: " + error);
    }
  lines.fail(line, "unexpected end of file: expected the " + std::string(block) + " format line");
}

std::int64_t integer_at(Lines& lines, const Line& line, std::string_view text, std::string_view what) {
  std::int64_t value = 0;
  if (!io::fortran_integer(text, value))
    lines.fail(line, "invalid integer '" + std::string(text.substr(0, 32)) + "' for " + std::string(what));
  return value;
}

// A node record laid out plainly (number, then the fields of `format`), read without
// throwing: false for anything else, which the sequential loop then reads (and words).
bool plain_node(std::string_view text, const std::vector<detail::FortranField>& format, std::int64_t& id, double* xyz) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  std::size_t column = 0;
  int reals = 0;
  xyz[0] = xyz[1] = xyz[2] = 0.0;
  for (std::size_t f = 0; f < format.size() && column < text.size(); ++f) {
    const auto width = static_cast<std::size_t>(format[f].width);
    if (f == 0) {
      if (!io::plain_fixed_integer(text.data(), text.data() + std::min(width, text.size()), id) || id <= 0) return false;
    } else if (!format[f].integer && reals < 3) {
      if (!io::fortran_real(io::fixed_field(text, column, width), xyz[reals++])) return false;
    }
    column += width;
  }
  return column > 0;
}

// The `claimed` records of a block that starts at `lines`' position, one a line, parsed on
// all cores into `records` rows appended by `grow` and filled by `fill(index, text, offset)`
// (which returns false for a record it leaves to the sequential loop). False, with `shrink`
// called to undo `grow`, when the block is small or not so laid out.
// A claim past what the bytes left could hold (`min_record_bytes` each) is not trusted:
// the arrays grown for it stay within a small multiple of the file.
template <class Grow, class Fill, class Shrink>
bool parse_block_in_parallel(Lines& lines, std::int64_t claimed, std::size_t min_record_bytes, const Grow& grow,
                             const Fill& fill, const Shrink& shrink) {
  const std::string_view document = lines.document();
  if (claimed < 2 || lines.bytes_left() < io::kParallelLinesMinBytes ||
      static_cast<std::uint64_t>(claimed) > lines.bytes_left() / std::max<std::size_t>(min_record_bytes, 2))
    return false;
  const auto records = static_cast<std::uint64_t>(claimed);
  grow(records);
  const std::optional<std::size_t> end = io::parse_lines_in_parallel(
      document, lines.position(), records, [&](std::uint64_t index, std::size_t from, std::size_t to) {
        return fill(index, document.substr(from, to - from), from);
      });
  if (!end) {
    shrink();
    return false;
  }
  lines.skip_to(*end, records);
  return true;
}

void read_nblock(Lines& lines, Raw& raw, std::int64_t claimed) {
  const std::vector<detail::FortranField> format = format_line(lines, "NBLOCK");
  if (!format.front().integer) throw ReadError(lines.path(), std::string(kFormat), "NBLOCK format starts with a real field");
  const std::size_t before = raw.node_ids.size();
  const std::uint64_t first_line = lines.line_number() + 1;
  parse_block_in_parallel(
      lines, claimed, static_cast<std::size_t>(format.front().width) + 1,
      [&](std::uint64_t records) {
        raw.node_ids.resize(before + records);
        raw.coordinates.resize(3 * (before + records));
        raw.node_offsets.resize(before + records);
        raw.node_lines.resize(before + records);
      },
      [&](std::uint64_t index, std::string_view text, std::size_t offset) {
        const std::size_t at = before + static_cast<std::size_t>(index);
        if (!plain_node(text, format, raw.node_ids[at], raw.coordinates.data() + 3 * at)) return false;
        raw.node_offsets[at] = offset;
        raw.node_lines[at] = first_line + index;
        return true;
      },
      [&] {
        raw.node_ids.resize(before);
        raw.coordinates.resize(3 * before);
        raw.node_offsets.resize(before);
        raw.node_lines.resize(before);
      });
  Line line;
  while (lines.next(line)) {
    if (blank(line.text)) continue;
    if (starts_command(line.text)) {
      const std::string word = upper(first_word(line.text));
      if (word != "N") lines.unread(line);  // N,R5.3,LOC,-1 closes the block
      return;
    }
    std::size_t column = 0;
    std::int64_t id = 0;
    double xyz[3] = {0, 0, 0};
    int reals = 0;
    for (std::size_t f = 0; f < format.size() && column < line.text.size(); ++f) {
      const std::string_view text = io::fixed_field(line.text, column, static_cast<std::size_t>(format[f].width));
      column += static_cast<std::size_t>(format[f].width);
      if (f == 0) {
        id = integer_at(lines, line, text, "a node number");
        if (id < 0) return;  // -1 closes the block
      } else if (!format[f].integer && reals < 3) {
        if (!io::fortran_real(text, xyz[reals]))
          lines.fail(line, "invalid coordinate '" + std::string(text.substr(0, 32)) + "' of node " + std::to_string(id));
        ++reals;
      }
    }
    if (id == 0) lines.fail(line, "node number 0 (node numbers start at 1)");
    raw.node_ids.push_back(id);
    raw.coordinates.insert(raw.coordinates.end(), xyz, xyz + 3);
    raw.node_offsets.push_back(line.offset);
    raw.node_lines.push_back(line.number);
  }
}

// Fixed-width integer fields of one EBLOCK record, continued over lines as the format repeats.
class RecordFields {
 public:
  RecordFields(Lines& lines, const std::vector<detail::FortranField>& format, const Line& first)
      : lines_(lines), format_(format), line_(first) {}
  // False at the end of the current line's fields.
  bool next_on_line(std::int64_t& value, std::string_view what) {
    if (field_ >= format_.size() || column_ >= line_.text.size()) return false;
    const std::size_t width = static_cast<std::size_t>(format_[field_].width);
    const char* const p = line_.text.data() + column_;
    if (!io::plain_fixed_integer(p, p + std::min(width, line_.text.size() - column_), value))
      value = integer_at(lines_, line_, io::fixed_field(line_.text, column_, width), what);
    column_ += width;
    ++field_;
    return true;
  }
  // The next field, on a continuation line when this one has no more.
  std::int64_t next(std::string_view what, const Line& record) {
    std::int64_t value = 0;
    while (!next_on_line(value, what)) {
      Line line;
      if (!lines_.next(line)) lines_.fail(record, "unexpected end of file inside the element record that starts here");
      if (starts_command(line.text)) lines_.fail(line, "element record cut short: expected more node numbers");
      line_ = line;
      column_ = 0;
      field_ = 0;
    }
    return value;
  }
  const Line& line() const noexcept { return line_; }

 private:
  Lines& lines_;
  const std::vector<detail::FortranField>& format_;
  Line line_;
  std::size_t column_ = 0;
  std::size_t field_ = 0;
};

// The fields of one line of a block as integers, plainly written (blank: 0): false for
// anything else (a sign inside, a real, a field past the line's end …).
// Fields [first, first + count) of `format`, the first at `column`; `column` moves past them.
bool plain_integers(std::string_view text, const std::vector<detail::FortranField>& format, std::size_t first,
                    std::size_t count, std::size_t& column, std::int64_t* out) {
  for (std::size_t f = 0; f < count; ++f) {
    const auto width = static_cast<std::size_t>(format[first + f].width);
    if (column + width > text.size()) return false;
    if (!io::plain_fixed_integer(text.data() + column, text.data() + column + width, out[f])) return false;
    column += width;
  }
  return true;
}

// An EBLOCK of one-line records (every element with no more nodes than its line holds —
// what MAPDL writes for linear cells), parsed on all cores when large; else nothing is read
// and the sequential loop reads it.
void read_one_line_elements_in_parallel(Lines& lines, Raw& raw, bool solid, std::int64_t claimed, const std::vector<detail::FortranField>& format) {
  // The layout without SOLID (contact and target elements, few) stays with the sequential loop.
  constexpr std::size_t head = 11;  // the fields before the nodes
  if (!solid || format.size() <= head) return;
  // Node slots of a line: 20 at most (MAPDL's SOLID lines hold 8), so that the flat array
  // stays within a few times the file.
  const std::size_t stride = std::min<std::size_t>(format.size() - head, 20);
  std::size_t head_bytes = 1;  // a record's line holds its head fields and a newline at least
  for (std::size_t f = 0; f < head; ++f) head_bytes += static_cast<std::size_t>(format[f].width);
  const std::size_t before = raw.elements.size(), nodes_before = raw.element_nodes.size();
  const std::uint64_t first_line = lines.line_number() + 1;
  parse_block_in_parallel(
      lines, claimed, head_bytes,
      [&](std::uint64_t records) {
        raw.elements.resize(before + records);
        raw.element_nodes.resize(nodes_before + records * stride);
      },
      [&](std::uint64_t index, std::string_view text, std::size_t offset) {
        std::int64_t fields[head];
        Element& element = raw.elements[before + index];
        std::int64_t* const nodes = raw.element_nodes.data() + nodes_before + index * stride;
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        std::size_t column = 0;
        if (!plain_integers(text, format, 0, head, column, fields)) return false;
        const std::int64_t count = fields[8];
        if (fields[0] < 0 || count < 0 || count > static_cast<std::int64_t>(stride)) return false;
        if (!plain_integers(text, format, head, static_cast<std::size_t>(count), column, nodes)) return false;
        element.mat = fields[0], element.type = fields[1], element.real = fields[2], element.secnum = fields[3];
        element.number = fields[10];
        element.nodes_begin = nodes_before + index * stride;
        element.nodes_end = element.nodes_begin + static_cast<std::size_t>(count);
        element.offset = offset;
        element.line = first_line + index;
        return true;
      },
      [&] {
        raw.elements.resize(before);
        raw.element_nodes.resize(nodes_before);
      });
}

void read_eblock(Lines& lines, Raw& raw, bool solid, std::int64_t max_nodes, std::int64_t claimed, const Line& header) {
  const std::vector<detail::FortranField> format = format_line(lines, "EBLOCK");
  // The count the header claims, as far as the bytes left could hold (a record is >= 2 fields).
  if (claimed > 0 && format.size() >= 2) {
    const std::uint64_t record_bytes = static_cast<std::uint64_t>(format[0].width) * 12;
    const std::uint64_t fits = lines.bytes_left() / std::max<std::uint64_t>(record_bytes, 1);
    const std::size_t expected = static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(claimed), fits));
    raw.elements.reserve(raw.elements.size() + expected);
    raw.element_nodes.reserve(raw.element_nodes.size() + expected * 8);
  }
  for (const detail::FortranField& field : format)
    if (!field.integer) lines.fail(header, "EBLOCK format holds a real field");
  read_one_line_elements_in_parallel(lines, raw, solid, claimed, format);
  Line line;
  while (lines.next(line)) {
    if (blank(line.text)) continue;
    if (starts_command(line.text)) {
      lines.unread(line);
      return;
    }
    RecordFields fields(lines, format, line);
    Element element;
    element.offset = line.offset;
    element.line = line.number;
    std::int64_t first = 0;
    if (!fields.next_on_line(first, "the first element field")) continue;
    if (first < 0) return;  // -1 closes the block
    std::int64_t count = 0;
    if (solid) {
      element.mat = first;
      element.type = fields.next("the element type", line);
      element.real = fields.next("the real constant", line);
      element.secnum = fields.next("the section", line);
      for (int k = 0; k < 4; ++k) fields.next("an element attribute", line);
      count = fields.next("the node count", line);
      fields.next("an element attribute", line);
      element.number = fields.next("the element number", line);
      if (count < 0 || count > kMaxElementNodes)
        lines.fail(line, "element " + std::to_string(element.number) + " has " + std::to_string(count) +
                             " nodes (0 to " + std::to_string(kMaxElementNodes) + " expected)");
      element.nodes_begin = raw.element_nodes.size();
      for (std::int64_t k = 0; k < count; ++k) raw.element_nodes.push_back(fields.next("a node number", line));
    } else {
      element.number = first;
      element.type = fields.next("the element type", line);
      element.real = fields.next("the real constant", line);
      element.mat = fields.next("the material", line);
      element.secnum = fields.next("the section", line);
      element.nodes_begin = raw.element_nodes.size();
      std::int64_t value = 0;
      while (count < max_nodes && fields.next_on_line(value, "a node number")) {
        raw.element_nodes.push_back(value);
        ++count;
      }
      // Past ten nodes the record goes on on the next line.
      if (count == 10 && max_nodes > 10) {
        Line more;
        if (lines.next(more)) {
          if (starts_command(more.text) || blank(more.text)) {
            lines.unread(more);
          } else {
            RecordFields rest(lines, format, more);
            while (count < max_nodes && rest.next_on_line(value, "a node number")) {
              raw.element_nodes.push_back(value);
              ++count;
            }
          }
        }
      }
      while (count > 0 && raw.element_nodes.back() == 0) {  // trailing blank fields are no nodes
        raw.element_nodes.pop_back();
        --count;
      }
    }
    element.nodes_end = raw.element_nodes.size();
    raw.elements.push_back(element);
  }
}

void read_cmblock(Lines& lines, Raw& raw, const std::vector<std::string_view>& header, const Line& header_line) {
  if (header.size() < 4) lines.fail(header_line, "CMBLOCK needs a name, an entity and a count");
  const std::string entity = upper(header[2]);
  const std::int64_t count = integer_at(lines, header_line, header[3], "the CMBLOCK count");
  if (count < 0) lines.fail(header_line, "negative CMBLOCK count");
  io::check_claim(lines.path(), kFormat, "CMBLOCK items", static_cast<std::uint64_t>(count), 2, lines.bytes_left(),
                  sizeof(std::int64_t), {header_line.offset, header_line.number});
  const std::vector<detail::FortranField> format = format_line(lines, "CMBLOCK");
  Component component;
  component.name = std::string(header[1]);
  component.nodes = entity == "NODE";
  const bool kept = entity == "NODE" || entity == "ELEM" || entity == "ELEMENT";
  component.items.reserve(static_cast<std::size_t>(count));
  Line line;
  while (static_cast<std::int64_t>(component.items.size()) < count) {
    if (!lines.next(line)) lines.fail(header_line, "unexpected end of file inside this CMBLOCK");
    if (blank(line.text)) continue;
    if (starts_command(line.text))
      lines.fail(line, "CMBLOCK " + component.name + " ends after " + std::to_string(component.items.size()) + " of " +
                           std::to_string(count) + " items");
    std::size_t column = 0;
    for (std::size_t f = 0; f < format.size() && column < line.text.size() &&
                            static_cast<std::int64_t>(component.items.size()) < count;
         ++f) {
      const std::string_view text = io::fixed_field(line.text, column, static_cast<std::size_t>(format[f].width));
      column += static_cast<std::size_t>(format[f].width);
      component.items.push_back(integer_at(lines, line, text, "a component item"));
    }
  }
  if (kept) raw.components.push_back(std::move(component));
}

Raw scan(std::string_view document, const std::string& path) {
  Raw raw;
  Lines lines(document, path);
  Line line;
  while (lines.next(line)) {
    const std::string word = upper(first_word(line.text));
    if (word.empty()) continue;
    if (word == "ET") {
      const std::vector<std::string_view> fields = detail::command_fields(line.text);
      if (fields.size() < 3) lines.fail(line, "ET needs a type number and an element name");
      const std::int64_t type = integer_at(lines, line, fields[1], "the ET type number");
      const std::int64_t routine = detail::routine_number(fields[2]);
      if (routine < 0) lines.fail(line, "ET element name '" + std::string(fields[2].substr(0, 32)) + "' has no routine number");
      raw.routines[type] = routine;
    } else if (word == "KEYOP" || word == "KEYOPT") {
      const std::vector<std::string_view> fields = detail::command_fields(line.text);
      if (fields.size() >= 4) {
        std::int64_t type = 0, knum = 0, value = 0;
        if (io::fortran_integer(fields[1], type) && io::fortran_integer(fields[2], knum) &&
            io::fortran_integer(fields[3], value) && knum == 1)
          raw.keyopt1[type] = value;
      }
    } else if (word == "NBLOCK") {
      const std::vector<std::string_view> fields = detail::command_fields(line.text);
      std::int64_t claimed = 0;
      if (fields.size() > 4) io::fortran_integer(fields[4], claimed);
      read_nblock(lines, raw, claimed);
    } else if (word == "EBLOCK") {
      const std::vector<std::string_view> fields = detail::command_fields(line.text);
      const bool solid = fields.size() > 2 && upper(fields[2]) == "SOLID";
      std::int64_t max_nodes = 0;
      if (fields.size() > 1 && !fields[1].empty()) max_nodes = integer_at(lines, line, fields[1], "the EBLOCK field count");
      if (!solid && (max_nodes <= 0 || max_nodes > kMaxElementNodes))
        lines.fail(line, "EBLOCK without SOLID needs a node count between 1 and " + std::to_string(kMaxElementNodes));
      std::int64_t claimed = 0;
      if (fields.size() > 4) io::fortran_integer(fields[4], claimed);
      read_eblock(lines, raw, solid, max_nodes, claimed, line);
    } else if (word == "CMBLOCK") {
      read_cmblock(lines, raw, detail::command_fields(line.text), line);
    }
  }
  return raw;
}

Mesh build(Raw& raw, const std::string& path) {
  const auto fail = [&](std::size_t offset, std::uint64_t line, const std::string& message) {
    throw ReadError(path, std::string(kFormat), message, offset, line);
  };
  io::IdMap nodes;
  if (const auto repeated = nodes.build(raw.node_ids))
    fail(raw.node_offsets[*repeated], raw.node_lines[*repeated],
         "node " + std::to_string(raw.node_ids[*repeated]) + " is defined twice");
  const std::int64_t file_points = static_cast<std::int64_t>(raw.node_ids.size());
  std::vector<double>& xyz = raw.coordinates;

  // Pass 1: each element's cell type (its block; -1: no cell) and each block's size.
  struct Kind {
    std::int64_t type = 0, routine = 0;
    detail::Family family = detail::Family::none;
  };
  std::unordered_map<std::int64_t, Kind> kinds;
  const Kind* last = nullptr;
  const auto kind_of = [&](const Element& element) -> const Kind& {
    if (last != nullptr && last->type == element.type) return *last;
    auto it = kinds.find(element.type);
    if (it == kinds.end()) {
      const auto routine_it = raw.routines.find(element.type);
      if (routine_it == raw.routines.end())
        fail(element.offset, element.line,
             "element " + std::to_string(element.number) + " has type " + std::to_string(element.type) +
                 ", which no ET command defines");
      Kind kind{element.type, routine_it->second, detail::routine_family(routine_it->second)};
      if (kind.routine == 200) {
        const auto keyopt = raw.keyopt1.find(element.type);
        kind.family = detail::mesh200_family(keyopt == raw.keyopt1.end() ? 0 : keyopt->second);
      }
      it = kinds.emplace(element.type, kind).first;
    }
    last = &it->second;
    return *last;
  };
  const auto nodes_of = [&](const Element& element) {
    return std::span<const std::int64_t>(raw.element_nodes.data() + element.nodes_begin,
                                         element.nodes_end - element.nodes_begin);
  };
  std::vector<std::string_view> block_types;  // the tables' own names: compared by address
  std::vector<std::int64_t> block_sizes;
  std::vector<std::int32_t> block_of(raw.elements.size(), -1);
  for (std::size_t e = 0; e < raw.elements.size(); ++e) {
    const Element& element = raw.elements[e];
    const Kind& kind = kind_of(element);
    const detail::Resolved cell = detail::resolve(kind.family, nodes_of(element));
    if (cell.type.empty()) {
      if (kind.family != detail::Family::none)
        fail(element.offset, element.line,
             "element " + std::to_string(element.number) + " of routine " + std::to_string(kind.routine) + " has " +
                 std::to_string(element.nodes_end - element.nodes_begin) + " nodes, too few for its shape");
      continue;
    }
    std::size_t b = 0;
    while (b < block_types.size() && block_types[b].data() != cell.type.data()) ++b;
    if (b == block_types.size()) {
      block_types.push_back(cell.type);
      block_sizes.push_back(0);
    }
    block_of[e] = static_cast<std::int32_t>(b);
    ++block_sizes[b];
  }

  // Pass 2: the blocks and their cell data, filled in place.
  Mesh mesh;
  constexpr std::size_t kColumns = 6;
  const char* const names[kColumns] = {"ansys:element", "ansys:type", "ansys:routine", "ansys:mat", "ansys:real", "ansys:secnum"};
  std::vector<std::vector<NDArray>> data(kColumns);
  std::vector<std::int64_t*> connectivity, columns[kColumns];
  std::vector<std::int64_t> filled(block_types.size(), 0), bases{0};
  for (std::size_t b = 0; b < block_types.size(); ++b) {
    const std::int64_t width = cell_type(block_types[b]).num_nodes;
    CellBlock cells;
    cells.type = std::string(block_types[b]);
    cells.connectivity = NDArray::allocate(DType::int64, {block_sizes[b], width});
    connectivity.push_back(cells.connectivity.data_as<std::int64_t>());
    mesh.cells.push_back(std::move(cells));
    for (std::size_t k = 0; k < kColumns; ++k) {
      data[k].push_back(NDArray::allocate(DType::int64, {block_sizes[b]}));
      columns[k].push_back(data[k].back().data_as<std::int64_t>());
    }
    bases.push_back(bases.back() + block_sizes[b]);
  }
  std::unordered_map<std::uint64_t, std::int64_t> midsides;  // edge (a * 2^32 + b) -> new point
  for (std::size_t e = 0; e < raw.elements.size(); ++e) {
    if (block_of[e] < 0) continue;
    const Element& element = raw.elements[e];
    const Kind& kind = kind_of(element);
    const std::span<const std::int64_t> file_nodes = nodes_of(element);
    const detail::Resolved cell = detail::resolve(kind.family, file_nodes);
    const std::size_t b = static_cast<std::size_t>(block_of[e]);
    const std::int64_t position = filled[b]++;
    std::int64_t* const ours = connectivity[b] + position * static_cast<std::int64_t>(cell.slots.size());
    bool missing = false;
    for (std::size_t k = 0; k < cell.slots.size(); ++k) {
      const std::size_t slot = static_cast<std::size_t>(cell.slots[k]);
      const std::int64_t id = slot < file_nodes.size() ? file_nodes[slot] : 0;
      if (id == 0 && static_cast<int>(k) >= cell.midside_from) {
        ours[k] = -1;  // a missing mid-side node, placed below
        missing = true;
        continue;
      }
      const std::int64_t index = nodes.find(id);
      if (index < 0)
        fail(element.offset, element.line,
             "element " + std::to_string(element.number) + " names node " + std::to_string(id) + ", which no NBLOCK defines");
      ours[k] = index;
    }
    for (std::size_t k = 0; missing && k < cell.slots.size(); ++k) {
      if (ours[k] >= 0) continue;
      const auto [a0, b0] = detail::midside_edge(cell.type, static_cast<int>(k));
      std::int64_t a = ours[static_cast<std::size_t>(a0)], c = ours[static_cast<std::size_t>(b0)];
      if (a > c) std::swap(a, c);
      const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) ^ static_cast<std::uint64_t>(c);
      auto [it, inserted] = midsides.try_emplace(key, file_points + static_cast<std::int64_t>(midsides.size()));
      if (inserted)
        for (int axis = 0; axis < 3; ++axis)
          xyz.push_back(0.5 * (xyz[static_cast<std::size_t>(a * 3 + axis)] + xyz[static_cast<std::size_t>(c * 3 + axis)]));
      ours[k] = it->second;
    }
    const std::int64_t values[kColumns] = {element.number, element.type, kind.routine, element.mat, element.real, element.secnum};
    for (std::size_t k = 0; k < kColumns; ++k) columns[k][b][position] = values[k];
  }
  if (!block_types.empty())
    for (std::size_t k = 0; k < kColumns; ++k) mesh.cell_data.append_new(names[k], std::move(data[k]));
  const std::int64_t num_points = static_cast<std::int64_t>(xyz.size() / 3);
  mesh.points = NDArray::allocate(DType::float64, {num_points, 3});
  std::copy(xyz.begin(), xyz.end(), mesh.points.data_as<double>());
  const auto column = [](const std::vector<std::int64_t>& values) {
    NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
    return array;
  };
  std::vector<std::pair<std::int32_t, std::int64_t>> placed(raw.elements.size(), {-1, 0});
  std::fill(filled.begin(), filled.end(), 0);
  for (std::size_t e = 0; e < raw.elements.size(); ++e)
    if (block_of[e] >= 0) placed[e] = {block_of[e], filled[static_cast<std::size_t>(block_of[e])]++};

  // Components: element numbers -> global cell indices.
  std::vector<std::int64_t> kept_numbers;
  std::vector<std::int64_t> kept_cells;
  for (std::size_t e = 0; e < raw.elements.size(); ++e)
    if (placed[e].first >= 0) {
      kept_numbers.push_back(raw.elements[e].number);
      kept_cells.push_back(bases[static_cast<std::size_t>(placed[e].first)] + placed[e].second);
    }
  io::IdMap elements;
  if (const auto repeated = elements.build(kept_numbers)) {
    std::size_t e = 0, seen = 0;
    for (; e < raw.elements.size(); ++e)
      if (placed[e].first >= 0 && seen++ == *repeated) break;
    fail(raw.elements[e].offset, raw.elements[e].line,
         "element number " + std::to_string(kept_numbers[*repeated]) + " is used twice");
  }
  for (const Component& component : raw.components) {
    const io::IdMap& ids = component.nodes ? nodes : elements;
    const std::vector<std::int64_t>& numbers = component.nodes ? raw.node_ids : kept_numbers;
    std::int64_t low = 0, high = -1;
    if (!numbers.empty()) {
      const auto [lo, hi] = std::minmax_element(numbers.begin(), numbers.end());
      low = *lo, high = *hi;
    }
    std::vector<std::int64_t> entries;
    const auto add = [&](std::int64_t id) {
      const std::int64_t index = ids.find(id);
      if (index >= 0) entries.push_back(component.nodes ? index : kept_cells[static_cast<std::size_t>(index)]);
    };
    std::int64_t previous = 0;
    for (const std::int64_t item : component.items) {
      if (item >= 0) {
        add(item);
        previous = item;
        continue;
      }
      // A range previous+1 .. -item, clipped to the numbers that exist (no unbounded loop).
      const std::int64_t last = std::min(item == INT64_MIN ? INT64_MAX : -item, high);
      for (std::int64_t id = std::max(previous + 1, low); id <= last; ++id) add(id);
      previous = -item;
    }
    std::sort(entries.begin(), entries.end());
    entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
    Region region;
    region.name = component.name;
    region.kind = component.nodes ? RegionKind::Point : RegionKind::Cell;
    region.entries = column(entries);
    mesh.regions.push_back(std::move(region));
  }
  return mesh;
}

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  Raw raw = scan(file.bytes(), path);
  if (raw.node_ids.empty() && raw.elements.empty())
    throw ReadError(path, std::string(kFormat), "no NBLOCK or EBLOCK in the file", 0, 1);
  return build(raw, path);
}

}  // namespace meshioplusplus::ansys_cdb
