#include "formats/abaqus/abaqus_input.hpp"

#include "io/text/byte_masks.hpp"
#include "io/text/line_values.hpp"

#include <bit>
#include <cctype>
#include <charconv>
#include <system_error>

namespace meshioplusplus::abaqus::detail {
namespace {

bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r'; }

// Splits at commas outside double quotes (names may be quoted and hold commas).
void split_fields(std::string_view text, std::vector<std::string_view>& fields) {
  fields.clear();
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '"') quoted = !quoted;
    if (i == text.size() || (text[i] == ',' && !quoted)) {
      fields.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
}

std::string collapse_blanks(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (is_blank(c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::string_view unquote(std::string_view text) noexcept {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') return text.substr(1, text.size() - 2);
  return text;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

std::string keyword_name(std::string_view line) {
  line.remove_prefix(1);
  return collapse_blanks(line.substr(0, line.find(',')));
}

const std::string* KeywordLine::find(std::string_view key) const noexcept {
  for (const auto& [name, value] : parameters)
    if (name == key) return &value;
  return nullptr;
}

InputLines::InputLines(std::string_view document, std::size_t begin, std::size_t end, const std::string& path)
    : path_(path), scanner_(document, begin, end, path_, "abaqus") {}

bool InputLines::next(Line& line) {
  if (pending_) {
    line = *pending_;
    pending_.reset();
    return true;
  }
  while (!scanner_.at_end()) {
    const std::string_view text = trim(scanner_.next_line());
    if (text.empty() || text.starts_with("**")) continue;
    line = Line{text, offset_of(text)};
    return true;
  }
  return false;
}

bool InputLines::next_data(Line& line) {
  if (!next(line)) return false;
  if (line.text.front() != '*') return true;
  pending_ = line;
  return false;
}

void InputLines::skip_data() {
  Line line;
  while (next_data(line)) {
  }
}

KeywordLine InputLines::keyword(const Line& line) {
  // A keyword line ending in a comma goes on over the next line(s).
  std::string text(line.text.substr(1));
  Line more;
  while (!trim(text).empty() && trim(text).back() == ',' && next_data(more)) text += more.text;

  KeywordLine keyword;
  keyword.offset = line.offset;
  std::vector<std::string_view> parts;
  split_fields(text, parts);
  keyword.name = collapse_blanks(parts.front());
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].empty()) continue;
    const std::size_t equals = parts[i].find('=');
    if (equals == std::string_view::npos) {
      keyword.parameters.emplace_back(collapse_blanks(parts[i]), std::string());
    } else {
      keyword.parameters.emplace_back(collapse_blanks(parts[i].substr(0, equals)),
                                      std::string(unquote(trim(parts[i].substr(equals + 1)))));
    }
  }
  return keyword;
}

void InputLines::fields(std::string_view text, std::vector<std::string_view>& out) { split_fields(text, out); }

std::int64_t InputLines::integer(std::string_view field) const {
  std::string_view digits = field;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc{} || end != digits.data() + digits.size() || digits.empty())
    fail_on(field, "expected an integer, found '" + std::string(field.substr(0, 32)) + "'");
  return value;
}

double InputLines::real(std::string_view field) const {
  std::string_view digits = field;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value, std::chars_format::general);
  if (error != std::errc{} || end != digits.data() + digits.size() || digits.empty())
    fail_on(field, "expected a number, found '" + std::string(field.substr(0, 32)) + "'");
  return value;
}

void InputLines::fail_on(std::string_view where, const std::string& message) const {
  scanner_.fail_at(offset_of(where), message);
}

std::optional<PlainSection> plain_section(const InputLines& in) {
  const std::optional<std::size_t> begin = in.position();
  if (!begin || thread_count() < 2) return std::nullopt;
  const char* const text = in.document().data();
  const std::size_t limit = in.end();
  // Node and element data hold no '*': the section ends at the line of the first one (a
  // keyword, or a comment, indented or not). A '*' within the first kParallelLinesMinBytes
  // ends a section too small to split; otherwise the search runs again from the start,
  // window by window on all cores (on one it cost as much as the parse), each piece counting
  // its line breaks up to its own first '*', so the line count comes with it. A window goes
  // at most one window past the section's end.
  if (std::memchr(text + *begin, '*', std::min(limit - *begin, io::kParallelLinesMinBytes)) != nullptr) return std::nullopt;
  std::uint64_t lines = 0;
  std::size_t at = *begin;
  std::size_t stop = limit;
  struct Piece {
    const char* star;
    std::uint64_t newlines;
  };
  std::vector<Piece> pieces(thread_count());
  for (std::size_t window = thread_count() * (io::kParallelLinesMinBytes * 3); at < limit && stop == limit; window *= 2) {
    const std::size_t window_end = at + std::min(window, limit - at);
    io::parallel_ranges(pieces.size(), 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p) {
        const char* const piece_begin = text + at + (window_end - at) * p / pieces.size();
        const char* const piece_end = text + at + (window_end - at) * (p + 1) / pieces.size();
        const void* const star = std::memchr(piece_begin, '*', static_cast<std::size_t>(piece_end - piece_begin));
        pieces[p].star = static_cast<const char*>(star);
        pieces[p].newlines = io::count_newlines(piece_begin, star != nullptr ? pieces[p].star : piece_end);
      }
    });
    for (const Piece& piece : pieces) {
      lines += piece.newlines;
      if (piece.star != nullptr) {
        stop = static_cast<std::size_t>(piece.star - text);
        break;
      }
    }
    at = window_end;
  }
  // Back to the start of the '*' line: no line break lies between it and the '*'.
  if (stop < limit)
    while (stop > *begin && text[stop - 1] != '\n') --stop;
  if (stop - *begin < io::kParallelLinesMinBytes) return std::nullopt;
  if (text[stop - 1] != '\n') ++lines;  // the last line of the file, without a line break
  return PlainSection{*begin, stop, lines};
}

std::int64_t filled_lines(std::string_view text) noexcept {
  if (text.empty()) return 0;
  const char* const first = text.data();
  const char* const end = first + text.size();
  // All lines but the blank ones (nothing but blanks): the line breaks are counted at memory
  // speed, and only a line that starts with a blank or a line break can be blank, which
  // writers rarely print, so those alone are looked at byte by byte.
  const auto blank_line = [end](const char* p) {
    while (p < end && is_blank(*p)) ++p;
    return p == end || *p == '\n';
  };
  std::int64_t blank = blank_line(first) ? 1 : 0;
  const char* p = first;
  bool after_newline = false;
  for (; end - p >= 64; p += 64) {
    const std::uint64_t newline = io::byte_mask64<'\n'>(p);
    const std::uint64_t blank_or_newline = io::byte_mask64<'\n', ' ', '\t', '\r'>(p);
    for (std::uint64_t starts = (newline << 1 | static_cast<std::uint64_t>(after_newline)) & blank_or_newline; starts != 0;
         starts &= starts - 1)
      blank += blank_line(p + std::countr_zero(starts)) ? 1 : 0;
    after_newline = (newline >> 63) != 0;
  }
  for (; p < end; ++p) {
    if (after_newline && (*p == '\n' || is_blank(*p)) && blank_line(p)) ++blank;
    after_newline = *p == '\n';
  }
  const auto lines = static_cast<std::int64_t>(io::count_newlines(first, end)) + (end[-1] != '\n' ? 1 : 0);
  return lines - blank;
}

std::size_t plain_line_offset(const InputLines& in, const PlainSection& section, std::uint64_t index) {
  const std::string_view document = in.document();
  std::size_t at = *io::skip_lines(document, section.begin, index);
  while (at < document.size() && is_blank(document[at])) ++at;
  return at;
}

}  // namespace meshioplusplus::abaqus::detail
