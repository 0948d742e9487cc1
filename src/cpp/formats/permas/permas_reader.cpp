// PERMAS reader.
//
// Two passes. The first walks the lines once to find the $ keyword records and count the
// data records under each (a record is a line plus the '&' lines that continue it), so every
// array is allocated once in its final shape. The second parses the sections the mesh needs:
// all node sections first (elements may name any node), then the element sections, then the
// sets in file order (a set may name an earlier set). Large node and element sections of one
// plain record per line (what writers produce) are parsed on all cores; any other layout
// (a '&' continuation, a comment, a token the plain readers do not take) leaves the section
// to the sequential walk, which words every error as before.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "formats/permas/permas.hpp"
#include "formats/permas/permas_types.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/text_scanner.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::permas {
namespace {

constexpr std::string_view kFormat = "permas";

bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// One $ keyword record and the data lines under it.
struct Section {
  std::string name;  // upper case: COOR, ELEMENT, NSET, END …
  std::vector<std::pair<std::string, std::string>> params;  // KEY (upper) -> value ("" for a flag)
  std::size_t keyword_offset = 0;
  std::size_t data_begin = 0;
  std::size_t data_end = 0;
  std::int64_t records = 0;

  const std::string* param(std::string_view key) const noexcept {
    for (const auto& [k, v] : params)
      if (k == key && !v.empty()) return &v;
    return nullptr;
  }
  bool flag(std::string_view key) const noexcept {
    for (const auto& entry : params)
      if (entry.first == key) return true;
    return false;
  }
};

// "ELEMENT TYPE = TET4, ESET=solid DESCRIPTION = 'a b'" -> name ELEMENT and its parameters.
void parse_keyword(std::string_view text, Section& section) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (is_blank(c) || c == ',' || c == '\n') {
      ++i;
    } else if (c == '=') {
      words.push_back(text.substr(i++, 1));
    } else if (c == '\'' || c == '"') {
      const std::size_t close = text.find(c, i + 1);
      const std::size_t stop = close == std::string_view::npos ? text.size() : close;
      words.push_back(text.substr(i + 1, stop - i - 1));
      i = stop + 1;
    } else {
      const std::size_t start = i;
      while (i < text.size() && !is_blank(text[i]) && text[i] != ',' && text[i] != '=' && text[i] != '\n') ++i;
      words.push_back(text.substr(start, i - start));
    }
  }
  if (!words.empty()) section.name = upper(words[0]);
  for (std::size_t w = 1; w < words.size();) {
    if (w + 1 < words.size() && words[w + 1] == "=") {
      section.params.emplace_back(upper(words[w]), w + 2 < words.size() ? std::string(words[w + 2]) : std::string());
      w += 3;
    } else {
      section.params.emplace_back(upper(words[w]), std::string());
      ++w;
    }
  }
}

// The text of [begin, end) up to a '!' comment.
std::string_view uncommented(std::string_view document, std::size_t begin, std::size_t end) {
  const std::string_view line = document.substr(begin, end - begin);
  return line.substr(0, line.find('!'));
}

// First pass: keyword records, with the data records under each counted.
std::vector<Section> scan_sections(std::string_view document) {
  std::vector<Section> sections;
  std::string keyword;  // text of the current keyword record, continuations appended
  bool keyword_open = false;
  const auto close_keyword = [&] {
    if (keyword_open) parse_keyword(keyword, sections.back());
    keyword_open = false;
  };
  std::size_t pos = 0;
  while (pos < document.size()) {
    const std::size_t line_begin = pos;
    const void* newline = std::memchr(document.data() + pos, '\n', document.size() - pos);
    const std::size_t line_end = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - document.data())
                                         : document.size();
    pos = newline ? line_end + 1 : document.size();
    std::size_t first = line_begin;
    while (first < line_end && is_blank(document[first])) ++first;
    if (first == line_end || document[first] == '!') continue;
    if (document[first] == '$') {
      close_keyword();
      if (!sections.empty()) sections.back().data_end = line_begin;
      Section& section = sections.emplace_back();
      section.keyword_offset = first;
      section.data_begin = pos;
      keyword.assign(uncommented(document, first + 1, line_end));
      keyword_open = true;
    } else if (document[first] == '&') {
      if (keyword_open) {
        keyword.push_back(' ');
        keyword.append(uncommented(document, first + 1, line_end));
        sections.back().data_begin = pos;
      }
    } else {
      close_keyword();
      if (!sections.empty()) ++sections.back().records;
    }
  }
  close_keyword();
  if (!sections.empty()) sections.back().data_end = document.size();
  return sections;
}

struct Token {
  std::string_view text;
  std::size_t offset = 0;
  bool starts_record = false;
};

// The data tokens of one section: '!' comments skipped, a leading '&' continues a record.
class Tokens {
 public:
  Tokens(std::string_view document, std::size_t begin, std::size_t end) : document_(document), pos_(begin), end_(end) {}

  std::optional<Token> next() {
    if (!skip_to_token()) return std::nullopt;
    const std::size_t start = pos_;
    pos_ = token_end(start);
    Token token{document_.substr(start, pos_ - start), start, fresh_line_};
    fresh_line_ = false;
    return token;
  }
  // The next token when it continues the current record (one that starts a record is left
  // for next()).
  std::optional<Token> next_in_record() {
    if (!skip_to_token() || fresh_line_) return std::nullopt;
    return next();
  }

  // next() / next_in_record() with the token read as a number of type T in the same scan;
  // a token that is not a plain number goes to `parse` (which throws or handles it).
  template <class T, class Parse> std::optional<Token> next_number(T& value, Parse&& parse) {
    if (!skip_to_token()) return std::nullopt;
    return take_number(value, parse);
  }
  template <class T, class Parse> std::optional<Token> next_number_in_record(T& value, Parse&& parse) {
    if (!skip_to_token() || fresh_line_) return std::nullopt;
    return take_number(value, parse);
  }

 private:
  static bool ends_token(char c) noexcept { return io::is_space(c) || c == '!'; }

  std::size_t token_end(std::size_t pos) const noexcept {
    while (pos < end_ && !ends_token(document_[pos])) ++pos;
    return pos;
  }

  // Moves to the first byte of the next token, past blanks, line breaks, comments and a
  // line's leading '&'; false at the end. Calling it again at a token changes nothing.
  bool skip_to_token() noexcept {
    const char* data = document_.data();
    while (pos_ < end_) {
      const char c = data[pos_];
      if (c == ' ') {
        ++pos_;
      } else if (c == '\n') {
        fresh_line_ = true;
        ++pos_;
      } else if (is_blank(c)) {
        ++pos_;
      } else if (c == '!') {
        const void* newline = std::memchr(data + pos_, '\n', end_ - pos_);
        pos_ = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - data) : end_;
      } else if (c == '&' && fresh_line_) {
        fresh_line_ = false;
        ++pos_;
      } else {
        return true;
      }
    }
    return false;
  }

  template <class T, class Parse> Token take_number(T& value, Parse& parse) {
    const std::size_t start = pos_;
    const char* first = document_.data() + start;
    const char* last = document_.data() + end_;
    std::from_chars_result result;
    if constexpr (std::is_floating_point_v<T>)
      result = std::from_chars(first, last, value, std::chars_format::general);
    else
      result = std::from_chars(first, last, value);
    if (result.ec == std::errc{} && (result.ptr == last || ends_token(*result.ptr))) {
      pos_ = static_cast<std::size_t>(result.ptr - document_.data());
    } else {
      pos_ = token_end(start);
    }
    Token token{document_.substr(start, pos_ - start), start, fresh_line_};
    fresh_line_ = false;
    if (result.ec != std::errc{} || result.ptr != document_.data() + pos_) value = parse(token);
    return token;
  }

  std::string_view document_;
  std::size_t pos_;
  std::size_t end_;
  bool fresh_line_ = true;
};

using io::IdMap;

struct SetBuild {
  std::string name;
  std::vector<std::int64_t> members;
};

class Reader {
 public:
  Reader(std::string_view document, const std::string& path) : document_(document), path_(path) {}

  Mesh read() {
    sections_ = scan_sections(document_);
    if (sections_.empty()) fail_at(0, "not a PERMAS file: no $ keyword record");
    select_sections();
    read_nodes();
    read_elements();
    read_sets();
    return std::move(mesh_);
  }

 private:
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(document_, offset));
  }

  template <class T> T number(const Token& token) const {
    io::TextScanner scanner(document_, token.offset, token.offset + token.text.size(), path_, kFormat);
    return scanner.next_number<T>();
  }

  // The mesh records of the first structure; a .post file repeats the structure later.
  void select_sections() {
    bool seen_mesh = false;
    for (const Section& section : sections_) {
      const std::string& name = section.name;
      if (name == "END" && section.flag("STRUCTURE") && seen_mesh) break;
      if (name == "COOR" || name == "NODE") {
        if (section.flag("CYL") || section.flag("SPH") || section.flag("CYLINDRICAL") || section.flag("SPHERICAL"))
          fail_at(section.keyword_offset, "cylindrical or spherical $COOR coordinates are not supported");
        nodes_.push_back(&section);
        seen_mesh = true;
      } else if (name == "ELEMENT") {
        elements_.push_back(&section);
        seen_mesh = true;
      }
      if (name == "COOR" || name == "NODE" || name == "ELEMENT" || name == "NSET" || name == "ESET")
        mesh_sections_.push_back(&section);
    }
  }

  // ---- nodes ----

  // `section`'s records, one per line with nothing else among them, read on all cores by
  // `record(i, first, last)` from record i's raw line (false: not plainly written). False
  // when the sequential walk must read the section instead.
  template <class Record> bool parse_section_in_parallel(const Section& section, Record&& record) const {
    const char* const text = document_.data();
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        document_, section.data_begin, static_cast<std::uint64_t>(section.records),
        [&](std::uint64_t i, std::size_t first, std::size_t last) {
          return record(static_cast<std::int64_t>(i), text + first, text + last);
        });
    if (!end) return false;
    // Up to the next keyword only blank and comment lines may follow ('&' would continue the
    // last record).
    for (std::size_t pos = *end; pos < section.data_end;) {
      while (pos < section.data_end && io::is_space(document_[pos])) ++pos;
      if (pos == section.data_end) break;
      if (document_[pos] != '!') return false;
      const void* newline = std::memchr(text + pos, '\n', section.data_end - pos);
      pos = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - text) + 1 : section.data_end;
    }
    return true;
  }

  void read_nodes() {
    std::int64_t total = 0;
    for (const Section* section : nodes_) total += section->records;
    mesh_.points = NDArray::allocate(DType::float64, {total, 3});
    double* const points = mesh_.points.data_as<double>();
    std::vector<std::int64_t> ids(static_cast<std::size_t>(total));
    std::int64_t filled = 0;
    const char* const readable_end = document_.data() + document_.size();
    for (const Section* section : nodes_) {
      const auto plain_node = [&](std::int64_t i, const char* first, const char* last) {
        io::LineValues values(first, last, readable_end);
        double* out = points + 3 * (filled + i);
        return values.next(ids[static_cast<std::size_t>(filled + i)]) && values.next(out[0]) && values.next(out[1]) &&
               values.next(out[2]) && values.done();
      };
      if (parse_section_in_parallel(*section, plain_node)) {
        filled += section->records;
        continue;
      }
      double* xyz = points + 3 * filled;
      Tokens tokens(document_, section->data_begin, section->data_end);
      const auto as_int = [this](const Token& token) { return number<std::int64_t>(token); };
      const auto as_double = [this](const Token& token) { return number<double>(token); };
      std::int64_t id = 0;
      while (std::optional<Token> first = next_record(tokens, id, as_int)) {
        check_record_start(*first, filled, total);
        ids[static_cast<std::size_t>(filled++)] = id;
        for (int k = 0; k < 3; ++k) {
          if (!tokens.next_number_in_record(*xyz, as_double))
            fail_at(first->offset, "node " + std::string(first->text) + " needs an id and 3 coordinates");
          ++xyz;
        }
        if (const std::optional<Token> extra = tokens.next_in_record())
          fail_at(extra->offset, "node " + std::string(first->text) + " has more than 3 coordinates");
      }
    }
    if (const std::optional<std::size_t> repeat = node_map_.build(ids))
      fail_at(record_offset(nodes_, static_cast<std::int64_t>(*repeat)),
              "node id " + std::to_string(ids[*repeat]) + " is defined twice");
  }

  // The next record's first token read as an id. A token that continues a record here is
  // not read as a number: check_record_start rejects it with its own message.
  template <class Parse> static std::optional<Token> next_record(Tokens& tokens, std::int64_t& id, Parse&& parse) {
    return tokens.next_number(id, [&](const Token& token) { return token.starts_record ? parse(token) : 0; });
  }

  // The first pass counted the records the arrays were sized for; the second must agree.
  void check_record_start(const Token& token, std::int64_t ordinal, std::int64_t records) const {
    if (!token.starts_record || ordinal >= records) fail_at(token.offset, "unexpected data: not the start of a record");
  }

  // Offset of the `ordinal`-th record across `sections` (error paths only).
  std::size_t record_offset(const std::vector<const Section*>& sections, std::int64_t ordinal) const {
    for (const Section* section : sections) {
      if (ordinal >= section->records) {
        ordinal -= section->records;
        continue;
      }
      Tokens tokens(document_, section->data_begin, section->data_end);
      while (std::optional<Token> token = tokens.next())
        if (token->starts_record && ordinal-- == 0) return token->offset;
    }
    return 0;
  }

  // ---- elements ----

  static const detail::ElementClass* find_class(std::string_view name) noexcept {
    for (const detail::ElementClass& entry : detail::kClasses)
      if (entry.permas == name) return &entry;
    return nullptr;
  }

  void read_elements() {
    std::int64_t total = 0;
    for (const Section* section : elements_) total += section->records;
    std::vector<std::int64_t> ids(static_cast<std::size_t>(total));
    std::int64_t filled = 0;  // ids of the element sections kept so far
    const char* const readable_end = document_.data() + document_.size();
    std::vector<const Section*> kept;
    for (const Section* section : elements_) {
      const std::string* type_name = section->param("TYPE");
      if (type_name == nullptr) fail_at(section->keyword_offset, "$ELEMENT without TYPE =");
      const detail::ElementClass* element_class = find_class(upper(*type_name));
      Tokens tokens(document_, section->data_begin, section->data_end);
      if (element_class == nullptr) {
        // A class without a mesh geometry (spring, mass, contact …): its ids only matter to sets.
        while (std::optional<Token> token = tokens.next())
          if (token->starts_record) skipped_elements_.insert(number<std::int64_t>(*token));
        block_of_section_.push_back(-1);
        continue;
      }
      const CellTypeInfo& info = cell_type(element_class->type);
      const std::int64_t n = info.num_nodes;
      const std::span<const int> order = detail::permas_order(info.name);
      CellBlock block{std::string(info.name), NDArray::allocate(DType::int64, {section->records, n}), {}, {}};
      std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
      const std::int64_t first_id = filled;
      const auto plain_element = [&](std::int64_t i, const char* first, const char* last) {
        io::LineValues values(first, last, readable_end);
        if (!values.next(ids[static_cast<std::size_t>(first_id + i)])) return false;
        std::int64_t* row = nodes + i * n;
        for (std::int64_t k = 0; k < n; ++k) {
          std::int64_t id = 0;
          if (!values.next(id)) return false;
          const std::int64_t index = node_map_.find(id);
          if (index < 0) return false;
          row[order.empty() ? k : order[static_cast<std::size_t>(k)]] = index;
        }
        return values.done();
      };
      if (parse_section_in_parallel(*section, plain_element)) {
        filled += section->records;
        block_of_section_.push_back(static_cast<std::int64_t>(mesh_.cells.size()));
        mesh_.cells.push_back(std::move(block));
        kept.push_back(section);
        continue;
      }
      const auto as_int = [this](const Token& token) { return number<std::int64_t>(token); };
      std::int64_t element_id = 0;
      while (std::optional<Token> first = next_record(tokens, element_id, as_int)) {
        check_record_start(*first, filled - first_id, section->records);
        ids[static_cast<std::size_t>(filled++)] = element_id;
        for (std::int64_t k = 0; k < n; ++k) {
          std::int64_t id = 0;
          const std::optional<Token> node = tokens.next_number_in_record(id, as_int);
          if (!node)
            fail_at(first->offset, "element " + std::string(first->text) + " of type " + *type_name + " needs " +
                                       std::to_string(n) + " nodes");
          const std::int64_t index = node_map_.find(id);
          if (index < 0)
            fail_at(node->offset, "element " + std::string(first->text) + " refers to node " + std::to_string(id) +
                                      ", which no $COOR record defines");
          nodes[order.empty() ? k : order[static_cast<std::size_t>(k)]] = index;
        }
        if (const std::optional<Token> extra = tokens.next_in_record())
          fail_at(extra->offset, "element " + std::string(first->text) + " of type " + *type_name + " has more than " +
                                     std::to_string(n) + " nodes");
        nodes += n;
      }
      block_of_section_.push_back(static_cast<std::int64_t>(mesh_.cells.size()));
      mesh_.cells.push_back(std::move(block));
      kept.push_back(section);
    }
    ids.resize(static_cast<std::size_t>(filled));  // sections of classes not read hold none
    if (const std::optional<std::size_t> repeat = element_map_.build(ids))
      fail_at(record_offset(kept, static_cast<std::int64_t>(*repeat)),
              "element id " + std::to_string(ids[*repeat]) + " is defined twice");
  }

  // ---- sets ----

  SetBuild& set_named(RegionKind kind, const std::string& name) {
    auto& index = kind == RegionKind::Point ? node_set_index_ : element_set_index_;
    auto& sets = kind == RegionKind::Point ? node_sets_ : element_sets_;
    const auto [it, inserted] = index.try_emplace(upper(name), sets.size());
    if (inserted) sets.push_back({name, {}});
    return sets[it->second];
  }

  const SetBuild* find_set(RegionKind kind, std::string_view name) const {
    const auto& index = kind == RegionKind::Point ? node_set_index_ : element_set_index_;
    const auto& sets = kind == RegionKind::Point ? node_sets_ : element_sets_;
    const auto it = index.find(upper(name));
    return it == index.end() ? nullptr : &sets[it->second];
  }

  void read_sets() {
    std::int64_t first_point = 0;
    std::int64_t first_cell = 0;
    std::size_t element_section = 0;
    for (const Section* section : mesh_sections_) {
      const std::string& name = section->name;
      if (name == "COOR" || name == "NODE") {
        if (const std::string* set = section->param("NSET")) add_range(set_named(RegionKind::Point, *set), first_point, section->records);
        first_point += section->records;
      } else if (name == "ELEMENT") {
        const std::int64_t block = block_of_section_[element_section++];
        if (block < 0) continue;
        const std::int64_t count = mesh_.cells[static_cast<std::size_t>(block)].num_cells();
        if (const std::string* set = section->param("ESET")) add_range(set_named(RegionKind::Cell, *set), first_cell, count);
        first_cell += count;
      } else {
        read_set(*section, name == "NSET" ? RegionKind::Point : RegionKind::Cell);
      }
    }
    for (RegionKind kind : {RegionKind::Point, RegionKind::Cell})
      for (SetBuild& set : kind == RegionKind::Point ? node_sets_ : element_sets_) {
        std::sort(set.members.begin(), set.members.end());
        set.members.erase(std::unique(set.members.begin(), set.members.end()), set.members.end());
        Region region;
        region.name = set.name;
        region.kind = kind;
        region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(set.members.size())});
        std::copy(set.members.begin(), set.members.end(), region.entries.data_as<std::int64_t>());
        mesh_.regions.push_back(std::move(region));
      }
  }

  static void add_range(SetBuild& set, std::int64_t first, std::int64_t count) {
    for (std::int64_t i = 0; i < count; ++i) set.members.push_back(first + i);
  }

  void read_set(const Section& section, RegionKind kind) {
    const std::string_view word = kind == RegionKind::Point ? "NSET" : "ESET";
    const std::string* name = section.param("NAME");
    if (name == nullptr) name = section.param(word);  // meshio's "$NSET, NSET=name" spelling
    if (name == nullptr) fail_at(section.keyword_offset, "$" + std::string(word) + " without NAME =");
    SetBuild& set = set_named(kind, *name);
    const IdMap& ids = kind == RegionKind::Point ? node_map_ : element_map_;
    Tokens tokens(document_, section.data_begin, section.data_end);
    while (std::optional<Token> token = tokens.next()) {
      const char c = token->text.front();
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+') {
        const auto id = number<std::int64_t>(*token);
        const std::int64_t index = ids.find(id);
        if (index >= 0) {
          set.members.push_back(index);
        } else if (kind == RegionKind::Point || !skipped_elements_.contains(id)) {
          fail_at(token->offset, "set " + *name + " names " + (kind == RegionKind::Point ? "node " : "element ") +
                                     std::to_string(id) + ", which is not defined");
        }
      } else {
        const SetBuild* other = find_set(kind, token->text);
        if (other == nullptr)
          fail_at(token->offset, "set " + *name + " names '" + std::string(token->text) + "', which is neither an id nor an earlier " +
                                     std::string(word));
        if (other != &set) set.members.insert(set.members.end(), other->members.begin(), other->members.end());
      }
    }
  }

  std::string_view document_;
  const std::string& path_;
  std::vector<Section> sections_;
  std::vector<const Section*> nodes_, elements_, mesh_sections_;
  std::vector<std::int64_t> block_of_section_;  // per element section: its block, -1 when skipped
  IdMap node_map_, element_map_;
  std::unordered_set<std::int64_t> skipped_elements_;
  std::vector<SetBuild> node_sets_, element_sets_;
  std::map<std::string, std::size_t> node_set_index_, element_set_index_;
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

}  // namespace meshioplusplus::permas
