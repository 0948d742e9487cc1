#include "formats/nastran/nastran_cards.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace meshioplusplus::nastran::detail {
namespace {

// Data fields per line: 8 in the small formats, 4 in the large ones.
constexpr std::size_t kSmallFieldsPerLine = 8;
constexpr std::size_t kLargeFieldsPerLine = 4;

std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

char upper_ascii(char c) noexcept { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = upper_ascii(c);
  return out;
}

// Case-insensitive "starts with `word`" (word upper case), without building a string.
bool starts_with_upper(std::string_view text, std::string_view word) noexcept {
  if (text.size() < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (upper_ascii(text[i]) != word[i]) return false;
  return true;
}

// One line's walk: where it stops ('\n', '$' or `end`), its first ',' before that (or
// null) and whether a tab comes before that — one pass over the bytes.
struct LineScan {
  const char* stop;
  const char* comma;
  bool tab;
};

LineScan scan_line(const char* p, const char* end) noexcept {
  LineScan scan{end, nullptr, false};
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n'), dollar = _mm_set1_epi8('$'), comma = _mm_set1_epi8(','),
                tab = _mm_set1_epi8('\t');
  for (; end - p >= 16; p += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const unsigned stops = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(chunk, newline), _mm_cmpeq_epi8(chunk, dollar))));
    const unsigned commas = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, comma)));
    const unsigned tabs = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, tab)));
    const unsigned before = stops == 0 ? 0xFFFFu : (1u << __builtin_ctz(stops)) - 1u;
    if (scan.comma == nullptr && (commas & before) != 0) scan.comma = p + __builtin_ctz(commas & before);
    scan.tab = scan.tab || (tabs & before) != 0;
    if (stops != 0) {
      scan.stop = p + __builtin_ctz(stops);
      return scan;
    }
  }
#endif
  for (; p < end; ++p) {
    const char c = *p;
    if (c == '\n' || c == '$') {
      scan.stop = p;
      return scan;
    }
    if (c == ',' && scan.comma == nullptr) scan.comma = p;
    if (c == '\t') scan.tab = true;
  }
  return scan;
}

bool starts_with_word(std::string_view line, std::string_view word) { return starts_with_upper(line, word); }

// "BEGIN BULK", with any blanks between the words.
bool is_begin_bulk(std::string_view line) {
  line = trim(line);
  if (!starts_with_word(line, "BEGIN")) return false;
  return starts_with_word(trim(line.substr(5)), "BULK");
}

// Columns [begin, begin + width) of a fixed-format line; empty past its end.
std::string_view column(std::string_view line, std::size_t begin, std::size_t width) {
  if (begin >= line.size()) return line.substr(line.size());
  return trim(line.substr(begin, width));
}

// The first field of a line: up to the first comma in free format, else columns 1-8.
std::string_view first_field(std::string_view line, std::size_t comma) {
  return comma != std::string_view::npos ? trim(line.substr(0, comma)) : column(line, 0, 8);
}
std::string_view first_field(std::string_view line) { return first_field(line, line.find(',')); }

// A continuation line starts with '+' or '*', or leaves its first field blank.
bool is_continuation(std::string_view head) { return head.empty() || head.front() == '+' || head.front() == '*'; }

// Where the bulk data starts: after "BEGIN BULK", else at the top. Executive and case
// control never hold a GRID or element card, so the search stops at the first one.
std::size_t bulk_start(std::string_view document) {
  std::size_t pos = 0;
  while (pos < document.size()) {
    const std::size_t end = std::min(document.find('\n', pos), document.size());
    const std::string_view line = document.substr(pos, end - pos);
    if (is_begin_bulk(line)) return end + (end < document.size() ? 1 : 0);
    std::string name = upper(first_field(line));
    if (!name.empty() && name.back() == '*') name.pop_back();
    if (name == "GRID" || element_card(name) != nullptr) return 0;
    pos = end + 1;
  }
  return 0;
}

constexpr std::array<int, 6> kTriax6Order{0, 2, 4, 1, 3, 5};
// Nastran numbers the vertical edges' midside nodes before the top face's; meshio after.
constexpr std::array<int, 20> kHexa20Order{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15};
constexpr std::array<int, 15> kPenta15Order{0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 9, 10, 11};

constexpr std::array kTriangle{ElementVariant{3, "triangle", {}}};
constexpr std::array kTriangle6{ElementVariant{6, "triangle6", {}}, ElementVariant{3, "triangle", {}}};
constexpr std::array kTriax6{ElementVariant{6, "triangle6", kTriax6Order}};
constexpr std::array kQuad{ElementVariant{4, "quad", {}}};
constexpr std::array kQuad8{ElementVariant{8, "quad8", {}}, ElementVariant{4, "quad", {}}};
constexpr std::array kQuad9{ElementVariant{9, "quad9", {}}, ElementVariant{8, "quad8", {}},
                            ElementVariant{4, "quad", {}}};
constexpr std::array kTetra{ElementVariant{4, "tetra", {}}, ElementVariant{10, "tetra10", {}}};
constexpr std::array kPyramid{ElementVariant{5, "pyramid", {}}, ElementVariant{13, "pyramid13", {}}};
constexpr std::array kWedge{ElementVariant{6, "wedge", {}}, ElementVariant{15, "wedge15", kPenta15Order}};
constexpr std::array kHexahedron{ElementVariant{8, "hexahedron", {}}, ElementVariant{20, "hexahedron20", kHexa20Order}};
constexpr std::array kLine{ElementVariant{2, "line", {}}};
// Grounded elements (second node blank) are points.
constexpr std::array kLineOrVertex{ElementVariant{2, "line", {}}, ElementVariant{1, "vertex", {}}};

constexpr std::array kElementCards{
    ElementCard{"CTRIA3", 2, 1, 3, 1, kTriangle},      ElementCard{"CTRIAR", 2, 1, 3, 1, kTriangle},
    ElementCard{"CTRIA6", 2, 1, 6, 1, kTriangle6},     ElementCard{"CTRIAX6", 2, 1, 6, 1, kTriax6},
    ElementCard{"CQUAD4", 2, 1, 4, 1, kQuad},          ElementCard{"CQUADR", 2, 1, 4, 1, kQuad},
    ElementCard{"CSHEAR", 2, 1, 4, 1, kQuad},          ElementCard{"CQUAD8", 2, 1, 8, 1, kQuad8},
    ElementCard{"CQUAD", 2, 1, 9, 1, kQuad9},          ElementCard{"CQUAD9", 2, 1, 9, 1, kQuad9},
    ElementCard{"CTETRA", 2, 1, 10, 1, kTetra},        ElementCard{"CPYRAM", 2, 1, 13, 1, kPyramid},
    ElementCard{"CPYRA", 2, 1, 13, 1, kPyramid},       ElementCard{"CPENTA", 2, 1, 15, 1, kWedge},
    ElementCard{"CHEXA", 2, 1, 20, 1, kHexahedron},    ElementCard{"CBAR", 2, 1, 2, 1, kLine},
    ElementCard{"CBEAM", 2, 1, 2, 1, kLine},           ElementCard{"CBUSH", 2, 1, 2, 1, kLineOrVertex},
    ElementCard{"CBUSH1D", 2, 1, 2, 1, kLineOrVertex}, ElementCard{"CGAP", 2, 1, 2, 1, kLine},
    ElementCard{"CROD", 2, 1, 2, 1, kLine},            ElementCard{"CTUBE", 2, 1, 2, 1, kLine},
    ElementCard{"CVISC", 2, 1, 2, 1, kLine},           ElementCard{"CONROD", 1, 1, 2, -1, kLine},
    ElementCard{"CELAS1", 2, 2, 2, 1, kLineOrVertex},  ElementCard{"CELAS2", 2, 2, 2, -1, kLineOrVertex},
};

struct WrittenRow {
  std::string_view cell_type;
  WrittenElement element;
};

constexpr std::array kWritten{
    WrittenRow{"vertex", {"CELAS1", {}}},      WrittenRow{"line", {"CROD", {}}},
    WrittenRow{"triangle", {"CTRIA3", {}}},    WrittenRow{"triangle6", {"CTRIA6", {}}},
    WrittenRow{"quad", {"CQUAD4", {}}},        WrittenRow{"quad8", {"CQUAD8", {}}},
    WrittenRow{"quad9", {"CQUAD", {}}},        WrittenRow{"tetra", {"CTETRA", {}}},
    WrittenRow{"tetra10", {"CTETRA", {}}},     WrittenRow{"pyramid", {"CPYRAM", {}}},
    WrittenRow{"pyramid13", {"CPYRAM", {}}},   WrittenRow{"wedge", {"CPENTA", {}}},
    // Both permutations swap two groups of midside nodes, so each is its own inverse.
    WrittenRow{"wedge15", {"CPENTA", kPenta15Order}},
    WrittenRow{"hexahedron", {"CHEXA", {}}},   WrittenRow{"hexahedron20", {"CHEXA", kHexa20Order}},
};

bool is_large_field(std::string_view head) noexcept { return !head.empty() && (head.back() == '*' || head.front() == '*'); }

// The card's name: its first field, upper case, without the large-field '*'.
void assign_name(std::string& name, std::string_view head, bool large) {
  const std::string_view bare = large ? head.substr(0, head.size() - 1) : head;
  // Cards come in runs of one name: most cards keep the name the one before them had.
  if (name.size() == bare.size() && starts_with_upper(bare, name)) return;
  name.assign(bare);
  for (char& c : name) c = upper_ascii(c);
}

bool is_blank_byte(char c) noexcept { return c == ' ' || c == '\t' || c == '\r'; }

// Whether trim() leaves anything of [first, last).
bool has_text(const char* first, const char* last) noexcept {
  for (; first < last; ++first)
    if (!is_blank_byte(*first)) return true;
  return false;
}

// Bit k: byte 8 + k of a fixed-format line (k < 64, the 8 or 4 data fields) is not blank.
std::uint64_t nonblank_data_bytes(std::string_view text) noexcept {
  char bytes[64];
  std::memset(bytes, ' ', sizeof bytes);
  if (text.size() > 8) std::memcpy(bytes, text.data() + 8, std::min<std::size_t>(64, text.size() - 8));
  std::uint64_t mask = 0;
#if defined(__SSE2__)
  const __m128i blank = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r');
  for (int part = 0; part < 4; ++part) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + 16 * part));
    const __m128i blanks = _mm_or_si128(_mm_cmpeq_epi8(chunk, blank), _mm_or_si128(_mm_cmpeq_epi8(chunk, tab), _mm_cmpeq_epi8(chunk, cr)));
    mask |= static_cast<std::uint64_t>(static_cast<unsigned>(~_mm_movemask_epi8(blanks)) & 0xFFFFu) << (16 * part);
  }
#else
  for (int k = 0; k < 64; ++k) mask |= static_cast<std::uint64_t>(!is_blank_byte(bytes[k])) << k;
#endif
  return mask;
}

}  // namespace

const ElementCard* element_card(std::string_view name) noexcept {
  // meshio writes second-order solids as CTETRA_, CHEXA_ …: the base cards.
  if (name.ends_with('_')) name.remove_suffix(1);
  for (const ElementCard& card : kElementCards)
    if (card.name == name) return &card;
  return nullptr;
}

WrittenElement written_element(std::string_view cell_type) noexcept {
  for (const WrittenRow& row : kWritten)
    if (row.cell_type == cell_type) return row.element;
  return {};
}

CardReader::CardReader(std::string_view document, const std::string& path)
    : path_(path), scanner_(document, bulk_start(document), document.size(), path_, "nastran") {}

CardReader::CardReader(std::string_view document, const std::string& path, std::size_t begin, std::size_t end)
    : path_(path), scanner_(document, begin, end, path_, "nastran") {}

std::size_t CardReader::bulk_begin(std::string_view document) { return bulk_start(document); }

std::optional<std::size_t> CardReader::next_card_start() {
  PhysicalLine line;
  while (next_line(line)) {
    if (is_continuation(line.head)) continue;
    pending_ = line;
    return line.offset;
  }
  return std::nullopt;
}

bool CardReader::next_line(PhysicalLine& line) {
  if (pending_) {
    line = *pending_;
    pending_.reset();
    return true;
  }
  const std::string_view document = scanner_.document();
  const char* const base = document.data();
  const char* const end = base + scanner_.end();
  while (!ended_ && !scanner_.at_end()) {
    const std::size_t offset = scanner_.position();
    const char* const start = base + offset;
    const LineScan scan = scan_line(start, end);
    // Past the line: its '\n' (after a '$' comment, the next one).
    const char* newline = scan.stop;
    if (newline < end && *newline == '$') {
      newline = static_cast<const char*>(std::memchr(newline, '\n', static_cast<std::size_t>(end - newline)));
      if (newline == nullptr) newline = end;
    }
    scanner_.seek(static_cast<std::size_t>(newline - base) + (newline < end ? 1 : 0));
    // The text before a '$' ('$' starts a comment, also after data); a '\r' before the
    // line break is not part of it.
    const char* stop = scan.stop;
    if ((stop == end || *stop == '\n') && stop > start && stop[-1] == '\r') --stop;
    std::string_view text(start, static_cast<std::size_t>(stop - start));
    const char* first = start;
    while (first < stop && (*first == ' ' || *first == '\t' || *first == '\r')) ++first;
    if (first == stop) continue;  // blank
    if ((*first == 'E' || *first == 'e') && starts_with_word(std::string_view(first, stop - first), "ENDDATA")) {
      ended_ = true;
      return false;
    }
    const bool free = scan.comma != nullptr && scan.comma < stop;
    if (scan.tab && !free) text = expand_tabs(text);
    line.text = text;
    line.offset = offset;
    line.comma = free ? static_cast<std::size_t>(scan.comma - start) : std::string_view::npos;
    line.head = first_field(text, line.comma);
    return true;
  }
  return false;
}

template <class Sink> bool CardReader::next_card(Sink& card) {
  PhysicalLine line;
  while (next_line(line)) {
    if (is_continuation(line.head)) continue;  // orphaned: its card was not a card
    card.offset = line.offset;
    append_fields(line, true, card);
    while (next_line(line)) {
      if (!is_continuation(line.head)) {
        pending_ = line;
        break;
      }
      append_fields(line, false, card);
    }
    return true;
  }
  return false;
}

bool CardReader::next(Card& card) { return next_card(card); }
bool CardReader::next(CardShape& shape) { return next_card(shape); }

// Each line holds 8 data fields (4 in large format) plus a continuation mark in field 10;
// short lines are padded with blank fields, so positions carry over continuations. A free
// line with more fields than that is taken as one long line without a mark.
void CardReader::append_fields(const PhysicalLine& physical, bool first, Card& card) {
  const std::string_view text = physical.text;
  const std::string_view head = physical.head;
  const bool large = is_large_field(head);
  if (first) {
    assign_name(card.name, head, large);
    card.fields.clear();
  }
  const std::size_t per_line = large ? kLargeFieldsPerLine : kSmallFieldsPerLine;
  const std::size_t begin = card.fields.size();
  const std::string_view blank = text.substr(text.size());
  if (physical.comma == std::string_view::npos) {
    const std::size_t width = large ? 16 : 8;
    card.fields.resize(begin + per_line);
    std::string_view* out = card.fields.data() + begin;
    for (std::size_t i = 0; i < per_line; ++i) out[i] = column(text, 8 + i * width, width);
    return;
  }
  const char* const base = text.data();
  const char* const end = base + text.size();
  const char* start = base + physical.comma + 1;
  while (true) {
    const char* comma = static_cast<const char*>(std::memchr(start, ',', static_cast<std::size_t>(end - start)));
    const char* stop = comma == nullptr ? end : comma;
    card.fields.push_back(trim(std::string_view(start, static_cast<std::size_t>(stop - start))));
    if (comma == nullptr) break;
    start = comma + 1;
  }
  if (card.fields.size() - begin == per_line + 1) card.fields.pop_back();  // the continuation mark
  while (card.fields.size() - begin < per_line) card.fields.push_back(blank);
}

// append_fields(Card&)'s walk, keeping only which fields are filled.
void CardReader::append_fields(const PhysicalLine& physical, bool first, CardShape& shape) {
  const std::string_view text = physical.text;
  const std::string_view head = physical.head;
  const bool large = is_large_field(head);
  if (first) {
    assign_name(shape.name, head, large);
    shape.filled = 0;
    shape.num_fields = 0;
  }
  const std::size_t per_line = large ? kLargeFieldsPerLine : kSmallFieldsPerLine;
  const std::size_t begin = shape.num_fields;
  const auto mark = [&](std::size_t index) {
    if (index < 64) shape.filled |= std::uint64_t{1} << index;
  };
  if (physical.comma == std::string_view::npos) {
    const std::uint64_t bytes = nonblank_data_bytes(text);
    const std::size_t width = large ? 16 : 8;
    const std::uint64_t field_bits = (std::uint64_t{1} << width) - 1;
    for (std::size_t i = 0; i < per_line; ++i)
      if (((bytes >> (i * width)) & field_bits) != 0) mark(begin + i);
    shape.num_fields = begin + per_line;
    return;
  }
  const char* const end = text.data() + text.size();
  const char* start = text.data() + physical.comma + 1;
  std::size_t count = 0;
  while (true) {
    const char* comma = static_cast<const char*>(std::memchr(start, ',', static_cast<std::size_t>(end - start)));
    const char* stop = comma == nullptr ? end : comma;
    // The continuation mark (a field past the line's data fields) is not a field.
    if (count < per_line && has_text(start, stop)) mark(begin + count);
    ++count;
    if (comma == nullptr) break;
    start = comma + 1;
  }
  if (count > per_line + 1) {  // one long line without a mark: every field counts
    start = text.data() + physical.comma + 1;
    for (std::size_t i = 0; i < count; ++i) {
      const char* comma = static_cast<const char*>(std::memchr(start, ',', static_cast<std::size_t>(end - start)));
      const char* stop = comma == nullptr ? end : comma;
      if (i >= per_line && has_text(start, stop)) mark(begin + i);
      start = comma == nullptr ? end : comma + 1;
    }
  }
  shape.num_fields = begin + (count == per_line + 1 ? per_line : std::max(count, per_line));
}

// Fixed-format lines may use tabs to reach the next field: expanded to the next multiple of
// 8 columns, as Nastran reads them, in a copy (errors on such lines point at the line).
std::string_view CardReader::expand_tabs(std::string_view text) {
  if (text.find('\t') == std::string_view::npos || text.find(',') != std::string_view::npos) return text;
  std::string& expanded = expanded_lines_.emplace_back();
  for (const char c : text) {
    if (c != '\t') {
      expanded += c;
      continue;
    }
    expanded.append(8 - expanded.size() % 8, ' ');
  }
  return expanded;
}

void CardReader::fail_on(const Card& card, std::string_view field, const std::string& message) const {
  const std::string_view document = scanner_.document();
  const bool inside = field.data() >= document.data() && field.data() <= document.data() + document.size();
  scanner_.fail_at(inside ? static_cast<std::size_t>(field.data() - document.data()) : card.offset, message);
}

}  // namespace meshioplusplus::nastran::detail
