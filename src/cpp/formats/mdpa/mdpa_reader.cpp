// MDPA reader.
//
// Layout: "Begin <Block> [args]" … "End <Block>" blocks; "//" starts a comment anywhere.
//   Nodes                       id x y z
//   Elements <Name>             id property n1 … nk       (Conditions <Name>: the same)
//   NodalData <VARIABLE>        id fixed value | id fixed [k](v1, …, vk)
//   ElementalData <VARIABLE>    id value | id [k](v1, …, vk)   (ConditionalData: the same)
//   SubModelPart <name>         SubModelPartNodes / SubModelPartElements /
//                               SubModelPartConditions id lists, nested SubModelParts
// Every other block (ModelPartData, Properties, Table, Geometries, SubModelPartData …) is
// skipped, nested blocks included. Ids need not be consecutive.
//
// What becomes what: points float64 (n, 3); one block per Elements/Conditions section,
// consecutive sections of the same type merged (as meshio). The type comes from the Kratos
// geometry name inside the entity name (Triangle2D3, Hexahedra3D20 …, meshio's table), else
// from its "<d>D<k>N" suffix (Element3D4N → tetra, SurfaceCondition3D4N and ShellThick
// Element3D4N → quad, LineCondition2D3N → line3, Element3D15N → wedge15 …), else from the
// node count of the first entry. hexahedron20/27 and wedge15 are reordered from Kratos to
// meshio order. Property ids become cell_data "mdpa:property" (int64). Nodal data become
// point_data, elemental and conditional data cell_data, float64 (n,) or (n, k), NaN where an
// entity has no value; the nodal "fixed" flag is not kept. Each SubModelPart becomes a Point
// region (its nodes) and a Cell region (its elements and conditions) named by its path,
// "Parent.Child" (cells in block-major order). meshio 5.3.5 reads only points and cells.
//
// A large file is read on all cores: the first pass finds its Begin/End lines and counts the
// lines between them in line-aligned parts, and the Nodes and Elements/Conditions blocks of one
// plainly written entry per line (what Kratos and meshio write) are parsed in parts through
// io::parse_lines_in_parallel. Any other layout, and any error, takes the sequential loops,
// which word every error as before; the result is the same bits at any thread count.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <type_traits>
#include <system_error>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/mdpa/mdpa.hpp"
#include "formats/mdpa/mdpa_types.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/parallel.hpp"
#include "io/text/line_values.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::mdpa {
namespace {

constexpr std::string_view kFormat = "mdpa";

using io::IdMap;

bool is_delimiter(char c) noexcept { return io::is_space(c) || c == ',' || c == '(' || c == ')' || c == '[' || c == ']'; }

// Tokens of a block body, "//" comments skipped; numbers end at blanks or , ( ) [ ].
class Cursor {
 public:
  Cursor(std::string_view doc, std::size_t begin, std::size_t end, const std::string& path)
      : doc_(doc), pos_(begin), end_(end), path_(path) {}

  void skip() noexcept {
    while (pos_ < end_) {
      if (io::is_space(doc_[pos_])) {
        ++pos_;
      } else if (comment_at(pos_)) {
        while (pos_ < end_ && doc_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  bool at_end() noexcept {
    skip();
    return pos_ >= end_;
  }
  std::size_t position() noexcept {
    skip();
    return pos_;
  }
  bool peek(char c) noexcept {
    skip();
    return pos_ < end_ && doc_[pos_] == c;
  }
  void expect(char c, std::string_view what) {
    if (!peek(c)) fail("expected '" + std::string(1, c) + "' " + std::string(what));
    ++pos_;
  }
  template <class T> T number(std::string_view what) {
    skip();
    if (pos_ >= end_) fail("unexpected end of block: expected " + std::string(what));
    // Fast path: a number that ends at a delimiter, a comment or the end — what the scanner
    // below accepts, without first finding the token's end. Anything else (a sign, a bad
    // character) takes that path, which parses or reports it as before.
    {
      const char* first = doc_.data() + pos_;
      const char* last = doc_.data() + end_;
      const char* stop = nullptr;
      T value{};
      if constexpr (std::is_floating_point_v<T>) {
        const auto result = std::from_chars(first, last, value, std::chars_format::general);
        if (result.ec == std::errc{}) stop = result.ptr;
      } else {
        std::uint64_t digits = 0;
        stop = io::plain_digits(first, last, digits, doc_.data() + doc_.size());
        value = static_cast<T>(digits);
      }
      if (stop != nullptr) {
        const std::size_t at = static_cast<std::size_t>(stop - doc_.data());
        if (at >= end_ || is_delimiter(*stop) || comment_at(at)) {
          pos_ = at;
          return value;
        }
      }
    }
    std::size_t stop = pos_;
    while (stop < end_ && !is_delimiter(doc_[stop]) && !comment_at(stop)) ++stop;
    if (stop == pos_) fail("expected " + std::string(what));
    io::TextScanner scanner(doc_, pos_, stop, path_, kFormat);
    const T value = scanner.next_number<T>();
    pos_ = stop;
    return value;
  }
  // Whitespace-separated tokens up to the end (or, with `line_only`, the end of this line).
  std::size_t count_tokens(bool line_only = false) noexcept {
    std::size_t tokens = 0;
    skip();
    const std::size_t line_end = line_only ? std::min(end_, doc_.find('\n', pos_)) : end_;
    while (pos_ < line_end) {
      if (io::is_space(doc_[pos_])) {
        ++pos_;
        continue;
      }
      if (comment_at(pos_)) break;
      ++tokens;
      while (pos_ < line_end && !io::is_space(doc_[pos_]) && !comment_at(pos_)) ++pos_;
      if (!line_only) skip();
    }
    return tokens;
  }
  [[noreturn]] void fail(const std::string& message) const { fail_at(pos_, message); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(doc_, offset));
  }

 private:
  bool comment_at(std::size_t at) const noexcept { return doc_[at] == '/' && at + 1 < end_ && doc_[at + 1] == '/'; }

  std::string_view doc_;
  std::size_t pos_;
  std::size_t end_;
  const std::string& path_;
};

enum class Kind { nodes, elements, conditions, nodal_data, elemental_data, conditional_data, smp_nodes, smp_elements, smp_conditions };

// One block body to parse in the second pass.
struct Section {
  Kind kind;
  std::string name;   // entity name, variable, or SubModelPart path
  std::size_t begin;  // body
  std::size_t end;
  std::size_t header;  // offset of its "Begin" line
  std::string type;    // elements/conditions: resolved cell type
  std::int64_t count = 0;  // nodes/elements/conditions: entries
  int nodes = 0;           // elements/conditions: per entry
};

// ---- entity names → cell types ----

bool contains_word(std::string_view name, std::string_view word) { return name.find(word) != std::string_view::npos; }

// A geometry name inside `name`, not followed by another digit (Line2D2 is not Line2D20).
std::string_view geometry_type(std::string_view name) {
  for (const auto& geometry : detail::kGeometries) {
    for (std::size_t at = name.find(geometry.name); at != std::string_view::npos; at = name.find(geometry.name, at + 1)) {
      const std::size_t after = at + geometry.name.size();
      if (after >= name.size() || !std::isdigit(static_cast<unsigned char>(name[after]))) return geometry.type;
    }
  }
  return {};
}

// The last "<d>D<k>N" in `name`: dimension and node count.
std::optional<std::pair<int, int>> dimension_suffix(std::string_view name) {
  for (std::size_t at = name.size(); at-- > 1;) {
    if (name[at] != 'D' || (name[at - 1] != '2' && name[at - 1] != '3')) continue;
    std::size_t k = at + 1;
    int nodes = 0;
    while (k < name.size() && std::isdigit(static_cast<unsigned char>(name[k])) && nodes < 1000) nodes = nodes * 10 + (name[k++] - '0');
    if (k > at + 1 && k < name.size() && name[k] == 'N') return std::pair{name[at - 1] - '0', nodes};
  }
  return std::nullopt;
}

// The cell type for `nodes` nodes of an entity of dimension `dim` (0 unknown).
std::string_view type_by_nodes(int nodes, int dim, bool condition, std::string_view name) {
  const bool line = contains_word(name, "Line") || contains_word(name, "Truss") || contains_word(name, "Beam") ||
                    contains_word(name, "Cable");
  const bool surface = dim == 2 || (condition && dim == 3) || contains_word(name, "Surface") ||
                       contains_word(name, "Shell") || contains_word(name, "Membrane") || contains_word(name, "Face") ||
                       contains_word(name, "Plate");
  switch (nodes) {
    case 1: return "vertex";
    case 2: return "line";
    case 3: return line || (condition && dim == 2) ? "line3" : "triangle";
    case 4: return surface ? "quad" : "tetra";
    case 5: return "pyramid";
    case 6: return surface ? "triangle6" : "wedge";
    case 8: return surface ? "quad8" : "hexahedron";
    case 9: return "quad9";
    case 10: return "tetra10";
    case 15: return "wedge15";
    case 20: return "hexahedron20";
    case 27: return "hexahedron27";
    default: return {};
  }
}

class Reader {
 public:
  Reader(std::string_view doc, const std::string& path) : doc_(doc), path_(path) {}

  Mesh read() {
    try {
      scan();
    } catch (const ReadError&) {
      // A wrong count in a block closed before the error is what gets reported.
      for (Section& section : sections_) count_exactly(section);
      throw;
    }
    for (const Section& section : sections_)
      need_cells_ |= section.kind == Kind::elemental_data || section.kind == Kind::conditional_data ||
                     section.kind == Kind::smp_elements || section.kind == Kind::smp_conditions;
    // Entry counts are first taken as one per line; a block laid out otherwise (or any
    // error) replays with counts from the tokens, as strict as before, so errors stay the same.
    try {
      read_nodes();
      read_cells();
    } catch (const ReadError&) {
      replay();
    } catch (const Mismatch&) {
      replay();
    }
    for (const Section& section : sections_) {
      if (section.kind == Kind::nodal_data) read_nodal_data(section);
      if (section.kind == Kind::elemental_data || section.kind == Kind::conditional_data) read_cell_data(section);
    }
    read_sub_model_parts();
    return std::move(mesh_);
  }

 private:
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(doc_, offset));
  }

  // The one-entry-per-line guess did not hold.
  struct Mismatch {};

  void replay() {
    exact_ = true;
    for (Section& section : sections_) count_exactly(section);
    mesh_ = Mesh();
    node_ids_ = IdMap();
    element_ids_ = IdMap();
    condition_ids_ = IdMap();
    element_cells_.clear();
    condition_cells_.clear();
    read_nodes();
    read_cells();
  }

  // ---- first pass: the block structure ----

  struct Open {
    std::string word;
    std::size_t header;
    std::size_t body;
    bool skipped;
    std::string smp_path;  // for SubModelPart
    std::optional<Section> section;
    std::int64_t lines = 0;  // lines of its body holding more than a comment
  };

  // Lines whose first non-blank byte is 'B' or 'E' (Begin and End lines, and body lines that
  // start so), and the other lines holding more than a comment counted between them: found on
  // all cores for a large file, so that scan() looks at few lines itself.
  struct LineMarks {
    std::vector<std::size_t> starts;         // of the marked lines
    std::vector<std::int64_t> lines_before;  // [k]: other significant lines before mark k (last: after all)
    std::vector<std::size_t> first_before;   // [k]: where the first of them starts (npos: none)

    void add_gap() {
      lines_before.push_back(0);
      first_before.push_back(std::string_view::npos);
    }
    // `next`'s marks after these; the gap that ends one part and the one that starts the next
    // are one gap.
    void append(const LineMarks& next) {
      lines_before.back() += next.lines_before.front();
      if (first_before.back() == std::string_view::npos) first_before.back() = next.first_before.front();
      starts.insert(starts.end(), next.starts.begin(), next.starts.end());
      lines_before.insert(lines_before.end(), next.lines_before.begin() + 1, next.lines_before.end());
      first_before.insert(first_before.end(), next.first_before.begin() + 1, next.first_before.end());
    }
  };

  // The marks of the lines starting in [begin, end) (`end` a line start or the document's end).
  LineMarks mark_lines(std::size_t begin, std::size_t end) const {
    LineMarks marks;
    marks.add_gap();
    const char* const text = doc_.data();
    for (std::size_t pos = begin; pos < end;) {
      const void* newline = std::memchr(text + pos, '\n', end - pos);
      const std::size_t stop = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - text) : end;
      std::size_t lead = pos;
      while (lead < stop && io::is_space(text[lead])) ++lead;
      const char c = lead < stop ? text[lead] : '\0';
      if (c == 'B' || c == 'E') {
        marks.starts.push_back(pos);
        marks.add_gap();
      } else if (c != '\0' && !(c == '/' && lead + 1 < stop && text[lead + 1] == '/')) {
        if (marks.lines_before.back()++ == 0) marks.first_before.back() = pos;
      }
      pos = stop + 1;
    }
    return marks;
  }

  LineMarks mark_lines() const {
    const std::size_t parts = std::max<std::size_t>(1, std::min<std::size_t>(thread_count(), doc_.size() / io::kParallelLinesMinBytes));
    std::vector<std::size_t> bounds{0};
    for (std::size_t p = 1; p < parts; ++p) {
      std::size_t at = std::max(bounds.back(), doc_.size() / parts * p);
      const void* newline = std::memchr(doc_.data() + at, '\n', doc_.size() - at);
      bounds.push_back(newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - doc_.data()) + 1 : doc_.size());
    }
    bounds.push_back(doc_.size());
    std::vector<LineMarks> marks(parts);
    io::parallel_ranges(parts, 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p) marks[p] = mark_lines(bounds[p], bounds[p + 1]);
    });
    for (std::size_t p = 1; p < parts; ++p) marks[0].append(marks[p]);
    return std::move(marks[0]);
  }

  void scan() {
    const LineMarks marks = mark_lines();
    std::vector<Open> stack;
    for (std::size_t k = 0;; ++k) {
      // Body lines (neither Begin nor End) are only counted; outside a block they are an error.
      if (marks.lines_before[k] > 0) {
        if (stack.empty()) {
          const std::size_t at = marks.first_before[k];
          io::TextScanner s(doc_, at, std::min(doc_.find('\n', at), doc_.size()), path_, kFormat);
          const std::string_view first = s.next_token();
          fail_at(s.position() - first.size(), "unexpected text outside a Begin … End block: '" +
                                                   std::string(first.substr(0, 32)) + "'");
        }
        stack.back().lines += marks.lines_before[k];
      }
      if (k == marks.starts.size()) break;
      const std::size_t line_begin = marks.starts[k];
      std::size_t stop = doc_.find('\n', line_begin);
      if (stop == std::string_view::npos) stop = doc_.size();
      const std::size_t pos = stop + 1;
      io::TextScanner s(doc_, line_begin, stop, path_, kFormat);
      const std::string_view first = s.next_token();
      if (first != "Begin" && first != "End") {
        if (!stack.empty() && !first.empty() && !first.starts_with("//")) ++stack.back().lines;
        if (stack.empty() && !first.empty() && !first.starts_with("//"))
          fail_at(s.position() - first.size(), "unexpected text outside a Begin … End block: '" +
                                                   std::string(first.substr(0, 32)) + "'");
        continue;
      }
      std::string_view word = s.next_token();
      if (word.starts_with("//")) word = {};
      const std::size_t word_offset = s.position() - word.size();
      if (word.empty()) fail_at(line_begin, std::string(first) + " without a block name");
      if (first == "End") {
        if (stack.empty() || stack.back().word != word)
          fail_at(word_offset, "'End " + std::string(word) + "' does not close " +
                                   (stack.empty() ? std::string("any block") : "'Begin " + stack.back().word + "'"));
        Open open = std::move(stack.back());
        stack.pop_back();
        if (open.section) {
          open.section->end = line_begin;
          open.section->count = open.lines;
          close_section(*open.section);
        }
        continue;
      }
      // The rest of the line, comment cut, is the block's argument.
      s.skip_blanks();
      std::size_t arg_end = stop;
      if (const std::size_t comment = doc_.substr(0, stop).find("//", s.position()); comment != std::string_view::npos)
        arg_end = comment;
      io::TextScanner args(doc_, s.position(), arg_end, path_, kFormat);
      const std::string_view argument = args.next_token();
      Open open{std::string(word), line_begin, pos, false, {}, std::nullopt};
      const bool skipped = !stack.empty() && stack.back().skipped;
      const std::string* smp = nullptr;
      for (auto it = stack.rbegin(); it != stack.rend(); ++it)
        if (it->word == "SubModelPart") {
          smp = &it->smp_path;
          break;
        }
      const bool in_smp = !stack.empty() && stack.back().word == "SubModelPart";
      const auto section = [&](Kind kind, std::string name) {
        open.section = Section{kind, std::move(name), pos, pos, line_begin, {}, 0, 0};
      };
      if (skipped || (!stack.empty() && !in_smp)) {
        open.skipped = true;
      } else if (stack.empty() && word == "Nodes") {
        section(Kind::nodes, {});
      } else if (stack.empty() && (word == "Elements" || word == "Conditions")) {
        if (argument.empty()) fail_at(word_offset, "Begin " + std::string(word) + " needs an entity name");
        section(word == "Elements" ? Kind::elements : Kind::conditions, std::string(argument));
      } else if (stack.empty() && (word == "NodalData" || word == "ElementalData" || word == "ConditionalData")) {
        if (argument.empty()) fail_at(word_offset, "Begin " + std::string(word) + " needs a variable name");
        section(word == "NodalData" ? Kind::nodal_data : word == "ElementalData" ? Kind::elemental_data : Kind::conditional_data,
                std::string(argument));
      } else if (word == "SubModelPart" && (stack.empty() || in_smp)) {
        if (argument.empty()) fail_at(word_offset, "Begin SubModelPart needs a name");
        open.smp_path = smp ? *smp + "." + std::string(argument) : std::string(argument);
      } else if (in_smp && word == "SubModelPartNodes") {
        section(Kind::smp_nodes, *smp);
      } else if (in_smp && word == "SubModelPartElements") {
        section(Kind::smp_elements, *smp);
      } else if (in_smp && word == "SubModelPartConditions") {
        section(Kind::smp_conditions, *smp);
      } else {
        open.skipped = true;
      }
      stack.push_back(std::move(open));
    }
    if (!stack.empty()) fail_at(stack.back().header, "'Begin " + stack.back().word + "' is never closed (missing 'End " + stack.back().word + "')");
  }

  // Resolves an entity block's type; `count` stays the guess of one entry per line.
  void close_section(Section& section) {
    Cursor cursor(doc_, section.begin, section.end, path_);
    if (section.kind == Kind::elements || section.kind == Kind::conditions) {
      const bool condition = section.kind == Kind::conditions;
      std::string_view type = geometry_type(section.name);
      if (type.empty())
        if (const auto suffix = dimension_suffix(section.name)) type = type_by_nodes(suffix->second, suffix->first, condition, section.name);
      if (type.empty() && !cursor.at_end()) {
        // No name to go by: the first entry's node count (id and property come first).
        Cursor line(doc_, cursor.position(), section.end, path_);
        const std::size_t tokens = line.count_tokens(true);
        if (tokens > 2) type = type_by_nodes(static_cast<int>(tokens - 2), 0, condition, section.name);
      }
      if (type.empty()) fail_at(section.header, "cannot tell the cell type of '" + section.name + "'");
      section.type = std::string(type);
      section.nodes = cell_type(type).num_nodes;
    }
    sections_.push_back(std::move(section));
  }

  // The entry count from the tokens, with the errors a wrong count gets.
  void count_exactly(Section& section) {
    if (section.kind == Kind::nodes) {
      Cursor cursor(doc_, section.begin, section.end, path_);
      const std::size_t tokens = cursor.count_tokens();
      if (tokens % 4 != 0) fail_at(section.header, "a Nodes block needs 4 values per node (id x y z); it holds " + std::to_string(tokens));
      section.count = static_cast<std::int64_t>(tokens / 4);
    } else if (section.kind == Kind::elements || section.kind == Kind::conditions) {
      const std::size_t per_entry = static_cast<std::size_t>(section.nodes) + 2;
      Cursor all(doc_, section.begin, section.end, path_);
      const std::size_t tokens = all.count_tokens();
      if (tokens % per_entry != 0)
        fail_at(section.header, "a block of " + section.name + " (" + section.type + ") needs " + std::to_string(per_entry) +
                                    " values per entry (id, property, " + std::to_string(section.nodes) +
                                    " nodes); it holds " + std::to_string(tokens));
      section.count = static_cast<std::int64_t>(tokens / per_entry);
    }
  }

  // ---- nodes ----

  void read_nodes() {
    std::int64_t total = 0;
    for (const Section& section : sections_)
      if (section.kind == Kind::nodes) total += section.count;
    mesh_.points = NDArray::allocate(DType::float64, {total, 3});
    double* const xyz = mesh_.points.data_as<double>();
    std::vector<std::int64_t> ids(static_cast<std::size_t>(total));
    std::int64_t first = 0;  // the section's first node
    for (const Section& section : sections_) {
      if (section.kind != Kind::nodes) continue;
      if (!exact_ && read_nodes_in_parallel(section, ids.data() + first, xyz + 3 * first)) {
        first += section.count;
        continue;
      }
      Cursor cursor(doc_, section.begin, section.end, path_);
      for (std::int64_t i = first; i < first + section.count; ++i) {
        ids[static_cast<std::size_t>(i)] = cursor.number<std::int64_t>("a node id");
        for (int c = 0; c < 3; ++c) xyz[3 * i + c] = cursor.number<double>("a node coordinate");
      }
      first += section.count;
      if (!exact_ && !cursor.at_end()) throw Mismatch{};
    }
    if (const auto repeated = node_ids_.build(ids))
      fail_at(entry_offset(Kind::nodes, Kind::nodes, *repeated), "node id " + std::to_string(ids[*repeated]) + " appears twice");
  }

  // A large block of one plainly written "id x y z" per line, read on all cores; false when
  // the sequential loop must read it (any other layout, a comment, a blank line), which then
  // overwrites whatever was filled and words any error.
  bool read_nodes_in_parallel(const Section& section, std::int64_t* ids, double* xyz) const {
    const char* const text = doc_.data();
    const auto end = io::parse_lines_in_parallel(
        doc_, section.begin, static_cast<std::uint64_t>(section.count), [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
          io::LineValues values(text + begin, text + stop, text + doc_.size());
          double* const out = xyz + 3 * i;
          return values.next(ids[i]) && values.next(out[0]) && values.next(out[1]) && values.next(out[2]) && values.done();
        });
    return end && *end == section.end;
  }

  // Where entry `index` of the `a`/`b` blocks starts, counted over those blocks in file
  // order (error paths only: the blocks have been parsed already).
  std::size_t entry_offset(Kind a, Kind b, std::size_t index) {
    for (const Section& section : sections_) {
      if (section.kind != a && section.kind != b) continue;
      const int per_entry = section.kind == Kind::nodes ? 4 : section.nodes + 2;
      Cursor cursor(doc_, section.begin, section.end, path_);
      for (std::int64_t i = 0; i < section.count; ++i, --index) {
        if (index == 0) return cursor.position();
        for (int k = 0; k < per_entry; ++k) cursor.number<double>("a value");
      }
    }
    return 0;
  }

  std::int64_t node_index(Cursor& cursor) {
    const std::size_t offset = cursor.position();
    const std::int64_t id = cursor.number<std::int64_t>("a node id");
    const std::int64_t index = node_ids_.find(id);
    if (index < 0) [[unlikely]] fail_at(offset, "node " + std::to_string(id) + " is not defined in a Nodes block");
    return index;
  }

  // ---- elements and conditions ----

  void read_cells() {
    // Blocks: one per section, consecutive sections of one type merged.
    std::vector<std::size_t> block_of;
    std::vector<std::int64_t> sizes;
    for (const Section& section : sections_) {
      if (section.kind != Kind::elements && section.kind != Kind::conditions) continue;
      if (mesh_.cells.empty() || mesh_.cells.back().type != section.type) {
        mesh_.cells.push_back({section.type, {}, {}, {}});
        sizes.push_back(0);
      }
      sizes.back() += section.count;
    }
    std::vector<NDArray> properties;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      mesh_.cells[b].connectivity = NDArray::allocate(DType::int64, {sizes[b], cell_type(mesh_.cells[b].type).num_nodes});
      properties.push_back(NDArray::allocate(DType::int64, {sizes[b]}));
    }
    const NDArray bases = block_bases(sizes);
    std::vector<std::int64_t> element_ids, condition_ids;
    std::size_t b = 0;
    std::int64_t row = 0;
    bool first = true;
    std::vector<std::int64_t> listed;
    for (const Section& section : sections_) {
      if (section.kind != Kind::elements && section.kind != Kind::conditions) continue;
      if (first) {
        first = false;
      } else if (mesh_.cells[b].type != section.type) {
        ++b;
        row = 0;
      }
      const bool condition = section.kind == Kind::conditions;
      const std::span<const int> order = detail::kratos_order(section.type);
      std::int64_t* connectivity = mesh_.cells[b].connectivity.data_as<std::int64_t>();
      Cursor cursor(doc_, section.begin, section.end, path_);
      listed.resize(static_cast<std::size_t>(section.nodes));
      auto& ids = condition ? condition_ids : element_ids;
      auto& cells = condition ? condition_cells_ : element_cells_;
      std::int64_t* property = properties[b].data_as<std::int64_t>();
      const std::int64_t base = bases.data_as<std::int64_t>()[b];
      const std::size_t first_id = ids.size();
      ids.resize(first_id + static_cast<std::size_t>(section.count));
      if (need_cells_) {
        const std::size_t first_cell = cells.size();
        cells.resize(first_cell + static_cast<std::size_t>(section.count));
        for (std::int64_t i = 0; i < section.count; ++i) cells[first_cell + static_cast<std::size_t>(i)] = base + row + i;
      }
      if (!exact_ && read_cells_in_parallel(section, order, ids.data() + first_id, property + row, connectivity + row * section.nodes)) {
        row += section.count;
        continue;
      }
      for (std::int64_t i = 0; i < section.count; ++i, ++row) {
        ids[first_id + static_cast<std::size_t>(i)] = cursor.number<std::int64_t>("an entity id");
        property[row] = cursor.number<std::int64_t>("a property id");
        std::int64_t* out = connectivity + row * section.nodes;
        if (order.empty()) {
          for (int k = 0; k < section.nodes; ++k) out[k] = node_index(cursor);
        } else {
          for (auto& node : listed) node = node_index(cursor);
          for (int k = 0; k < section.nodes; ++k) out[k] = listed[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])];
        }
      }
      if (!exact_ && !cursor.at_end()) throw Mismatch{};
    }
    if (const auto repeated = element_ids_.build(element_ids))
      fail_at(entry_offset(Kind::elements, Kind::elements, *repeated),
              "element id " + std::to_string(element_ids[*repeated]) + " appears twice");
    if (const auto repeated = condition_ids_.build(condition_ids))
      fail_at(entry_offset(Kind::conditions, Kind::conditions, *repeated),
              "condition id " + std::to_string(condition_ids[*repeated]) + " appears twice");
    if (!mesh_.cells.empty()) mesh_.cell_data.set("mdpa:property", std::move(properties));
  }

  // A large block of one plainly written "id property n1 … nk" per line, every node defined,
  // read on all cores; false sends it to the sequential loop (as read_nodes_in_parallel).
  bool read_cells_in_parallel(const Section& section, std::span<const int> order, std::int64_t* ids,
                              std::int64_t* property, std::int64_t* connectivity) const {
    const char* const text = doc_.data();
    const auto nodes = static_cast<std::size_t>(section.nodes);
    if (nodes > 32) return false;
    const auto end = io::parse_lines_in_parallel(
        doc_, section.begin, static_cast<std::uint64_t>(section.count), [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
          io::LineValues values(text + begin, text + stop, text + doc_.size());
          if (!values.next(ids[i]) || !values.next(property[i])) return false;
          std::int64_t listed[32];
          for (std::size_t k = 0; k < nodes; ++k) {
            std::int64_t id = 0;
            if (!values.next(id)) return false;
            listed[k] = node_ids_.find(id);
            if (listed[k] < 0) return false;
          }
          std::int64_t* const out = connectivity + i * nodes;
          for (std::size_t k = 0; k < nodes; ++k) out[k] = listed[order.empty() ? k : static_cast<std::size_t>(order[k])];
          return values.done();
        });
    return end && *end == section.end;
  }

  // ---- data ----

  // A scalar, "[k](v1, …, vk)" or "[r,c]((…),(…))": its values into `out`, returns the count.
  std::size_t read_value(Cursor& cursor, std::vector<double>& out) {
    out.clear();
    if (!cursor.peek('[')) {
      out.push_back(cursor.number<double>("a value"));
      return 1;
    }
    cursor.expect('[', "");
    std::int64_t count = 1;
    do {
      const std::size_t offset = cursor.position();
      const auto extent = cursor.number<std::int64_t>("a size");
      if (extent < 1 || extent > 1'000'000) fail_at(offset, "invalid value size " + std::to_string(extent));
      count *= extent;
      if (count > 1'000'000) fail_at(offset, "value too large");
    } while (cursor.peek(',') && (cursor.expect(',', ""), true));
    cursor.expect(']', "after the value size");
    int depth = 0;
    while (cursor.peek('(')) {
      cursor.expect('(', "");
      ++depth;
    }
    if (depth == 0) cursor.fail("expected '(' to open the values");
    for (std::int64_t k = 0; k < count; ++k) {
      while (cursor.peek(',') || cursor.peek('(') || cursor.peek(')')) {
        if (cursor.peek('(')) ++depth;
        if (cursor.peek(')')) --depth;
        cursor.expect(cursor.peek(',') ? ',' : cursor.peek('(') ? '(' : ')', "");
        if (depth <= 0) cursor.fail("too few values inside the parentheses");
      }
      out.push_back(cursor.number<double>("a value"));
    }
    while (depth > 0) {
      cursor.expect(')', "to close the values");
      --depth;
    }
    return out.size();
  }

  // Width decided by the first entry; later entries must agree.
  static void check_width(Cursor& cursor, std::size_t offset, std::int64_t& width, std::size_t got, const std::string& name) {
    if (width < 0) width = static_cast<std::int64_t>(got);
    if (static_cast<std::int64_t>(got) != width)
      cursor.fail_at(offset, "'" + name + "' has " + std::to_string(got) + " values here but " + std::to_string(width) +
                                 " in its first entry");
  }

  NDArray nan_array(std::int64_t rows, std::int64_t width) {
    NDArray array = width == 1 ? NDArray::allocate(DType::float64, {rows}) : NDArray::allocate(DType::float64, {rows, width});
    std::fill_n(array.data_as<double>(), array.size(), std::numeric_limits<double>::quiet_NaN());
    return array;
  }

  void read_nodal_data(const Section& section) {
    Cursor cursor(doc_, section.begin, section.end, path_);
    NDArray* target = mesh_.point_data.find(section.name);
    std::int64_t width = target ? target->row_width() : -1;
    std::vector<double> values;
    while (!cursor.at_end()) {
      const std::int64_t node = node_index(cursor);
      cursor.number<std::int64_t>("the fixed flag");
      const std::size_t offset = cursor.position();
      check_width(cursor, offset, width, read_value(cursor, values), section.name);
      if (target == nullptr) target = &mesh_.point_data.set(section.name, nan_array(mesh_.num_points(), width));
      std::copy(values.begin(), values.end(), target->data_as<double>() + node * width);
    }
  }

  void read_cell_data(const Section& section) {
    const bool condition = section.kind == Kind::conditional_data;
    const IdMap& ids = condition ? condition_ids_ : element_ids_;
    const std::vector<std::int64_t>& cells = condition ? condition_cells_ : element_cells_;
    const NDArray bases = block_bases(mesh_.cells);
    const std::int64_t* base = bases.data_as<std::int64_t>();
    std::vector<NDArray>* target = mesh_.cell_data.find(section.name);
    std::int64_t width = target ? (*target)[0].row_width() : -1;
    Cursor cursor(doc_, section.begin, section.end, path_);
    std::vector<double> values;
    while (!cursor.at_end()) {
      const std::size_t id_offset = cursor.position();
      const std::int64_t id = cursor.number<std::int64_t>(condition ? "a condition id" : "an element id");
      const std::int64_t position = ids.find(id);
      if (position < 0) fail_at(id_offset, std::string(condition ? "condition " : "element ") + std::to_string(id) + " is not defined");
      const std::size_t offset = cursor.position();
      check_width(cursor, offset, width, read_value(cursor, values), section.name);
      if (target == nullptr) {
        std::vector<NDArray> arrays;
        for (const CellBlock& block : mesh_.cells) arrays.push_back(nan_array(block.num_cells(), width));
        target = &mesh_.cell_data.set(section.name, std::move(arrays));
      }
      const std::int64_t cell = cells[static_cast<std::size_t>(position)];
      const std::size_t b = static_cast<std::size_t>(std::upper_bound(base, base + mesh_.cells.size() + 1, cell) - base - 1);
      std::copy(values.begin(), values.end(), (*target)[b].data_as<double>() + (cell - base[b]) * width);
    }
  }

  // ---- sub model parts ----

  void read_sub_model_parts() {
    // Point and Cell region per path, in order of first mention.
    std::vector<std::string> names;
    std::unordered_map<std::string, std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> members;
    std::unordered_map<std::string, std::pair<bool, bool>> present;
    for (const Section& section : sections_) {
      if (section.kind != Kind::smp_nodes && section.kind != Kind::smp_elements && section.kind != Kind::smp_conditions) continue;
      if (!present.contains(section.name)) names.push_back(section.name);
      auto& [nodes, cells] = members[section.name];
      auto& [has_nodes, has_cells] = present[section.name];
      Cursor cursor(doc_, section.begin, section.end, path_);
      if (section.kind == Kind::smp_nodes) {
        has_nodes = true;
        while (!cursor.at_end()) nodes.push_back(node_index(cursor));
        continue;
      }
      has_cells = true;
      const bool condition = section.kind == Kind::smp_conditions;
      const IdMap& ids = condition ? condition_ids_ : element_ids_;
      const std::vector<std::int64_t>& global = condition ? condition_cells_ : element_cells_;
      while (!cursor.at_end()) {
        const std::size_t offset = cursor.position();
        const std::int64_t id = cursor.number<std::int64_t>("an id");
        const std::int64_t position = ids.find(id);
        if (position < 0)
          fail_at(offset, "SubModelPart " + section.name + " lists " + (condition ? "condition " : "element ") +
                              std::to_string(id) + ", which is not defined");
        cells.push_back(global[static_cast<std::size_t>(position)]);
      }
    }
    const auto array_of = [](const std::vector<std::int64_t>& values) {
      NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
      std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
      return array;
    };
    const NDArray bases = block_bases(mesh_.cells);
    const std::int64_t* base = bases.data_as<std::int64_t>();
    for (const std::string& name : names) {
      const auto& [has_nodes, has_cells] = present[name];
      const auto& nodes = members[name].first;
      const auto& cells = members[name].second;
      if (has_nodes) mesh_.regions.push_back({name, RegionKind::Point, -1, -1, array_of(nodes)});
      if (has_cells) {
        // Elements and conditions are listed apart; block-major order merges them.
        auto& sorted = members[name].second;
        std::sort(sorted.begin(), sorted.end());
        int dim = -1;
        for (std::int64_t cell : cells) {
          const std::size_t b = static_cast<std::size_t>(std::upper_bound(base, base + mesh_.cells.size() + 1, cell) - base - 1);
          dim = std::max(dim, cell_type(mesh_.cells[b].type).dimension);
        }
        mesh_.regions.push_back({name, RegionKind::Cell, dim, -1, array_of(cells)});
      }
    }
  }

  std::string_view doc_;
  const std::string& path_;
  std::vector<Section> sections_;
  IdMap node_ids_, element_ids_, condition_ids_;
  std::vector<std::int64_t> element_cells_, condition_cells_;  // by id position: block-major cell; only if need_cells_
  bool need_cells_ = false;  // element data or SubModelParts look cells up by id
  bool exact_ = false;       // entry counts come from the tokens (see replay)
  Mesh mesh_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::mdpa
