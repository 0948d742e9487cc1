// LS-DYNA cards: the lines of one deck file (keyword, comment, data), the field layouts of
// the standard, I10, long and free formats, and the numbers in fields.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "io/source/parallel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace meshioplusplus::lsdyna::detail {

// How a card's fields are laid out.
enum class FieldMode { standard, i10, long_format };

// One field of a fixed layout: an integer or a real, with its standard width.
struct FieldSpec {
  char kind;  // 'i' or 'r'
  std::uint8_t width;
};

// The width of a field under `mode`: long makes every field 20 columns (wider ones, such as
// titles, keep theirs), I10 widens the 8-column integer fields to 10.
constexpr std::size_t field_width(FieldSpec field, FieldMode mode) noexcept {
  if (mode == FieldMode::long_format) return field.width < 20 ? 20 : field.width;
  if (mode == FieldMode::i10 && field.kind == 'i' && field.width == 8) return 10;
  return field.width;
}

// A keyword line "*NAME[+|-|%] [rest]": the upper-case name without its format mark, the
// mark's mode (if any) and the rest of the line, trimmed.
struct Keyword {
  std::string name;
  std::optional<FieldMode> mode;
  std::string_view rest;
};
Keyword parse_keyword(std::string_view line);

// The deck-wide mode a *KEYWORD line's rest sets ("LONG=Y", "I10=Y"), else `current`.
FieldMode keyword_mode(std::string_view rest, FieldMode current);

// One line of a file, without its line end.
struct Line {
  std::string_view text;
  std::size_t offset = 0;      // byte offset of its start
  std::uint64_t number = 0;    // 1-based
};

// Walks a file's lines. Keyword lines start with '*', comment lines with '$'.
class Lines {
 public:
  explicit Lines(std::string_view document) noexcept : document_(document) {}
  // The next line, comments included; false at the end.
  bool next(Line& line) noexcept {
    if (!peek(line)) return false;
    position_ = pending_next_;
    pending_valid_ = false;
    ++number_;
    return true;
  }
  // The next data line of the current keyword (comments skipped): false, without taking it,
  // at the next keyword line or the end.
  bool next_data(Line& line) noexcept {
    while (peek(line)) {
      if (!line.text.empty() && line.text.front() == '*') return false;
      next(line);
      if (!line.text.empty() && line.text.front() == '$') continue;
      return true;
    }
    return false;
  }
  bool at_end() const noexcept { return position_ >= document_.size(); }
  std::size_t position() const noexcept { return position_; }
  std::string_view document() const noexcept { return document_; }
  // The line at the position, not taken.
  bool peek_line(Line& line) noexcept { return peek(line); }
  // Takes the comment lines at the position.
  void skip_comments() noexcept {
    Line line;
    while (peek(line) && !line.text.empty() && line.text.front() == '$') next(line);
  }
  // Moves to `position`, `lines` lines on (records read elsewhere).
  void skip_to(std::size_t position, std::uint64_t lines) noexcept {
    position_ = position;
    number_ += lines;
    pending_valid_ = false;
  }
  // How many records may follow before the next keyword line (or the end): its lines less
  // its comment lines, exact for a section of one-line records. To size arrays before they
  // are read. One pass over the bytes: each '\n' ends a line, the byte after it starts one.
  std::uint64_t lines_to_next_keyword() const noexcept {
    const char* const text = document_.data();
    const std::size_t size = document_.size();
    std::size_t i = position_;
    if (i >= size || text[i] == '*') return 0;
    std::uint64_t newlines = 0, comments = text[i] == '$';
    std::size_t stop = size;
#if defined(__SSE2__)
    const __m128i newline = _mm_set1_epi8('\n'), star = _mm_set1_epi8('*'), dollar = _mm_set1_epi8('$');
    for (; i + 17 <= size; i += 16) {
      const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + i));
      const auto ends = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(here, newline)));
      if (ends == 0) continue;
      const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + i + 1));
      const auto keywords = ends & static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(next, star)));
      const auto dollars = ends & static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(next, dollar)));
      if (keywords != 0) {  // the line after the first of these newlines is the next keyword's
        const unsigned upto = keywords & (~keywords + 1);  // lowest bit
        const unsigned before = ends & (upto | (upto - 1));
        newlines += static_cast<std::uint64_t>(__builtin_popcount(before));
        comments += static_cast<std::uint64_t>(__builtin_popcount(dollars & before));
        stop = i + static_cast<std::size_t>(__builtin_ctz(upto)) + 1;
        return newlines > comments ? newlines - comments : 0;
      }
      newlines += static_cast<std::uint64_t>(__builtin_popcount(ends));
      comments += static_cast<std::uint64_t>(__builtin_popcount(dollars));
    }
#endif
    for (; i < size; ++i) {
      if (text[i] != '\n') continue;
      ++newlines;
      if (i + 1 < size && text[i + 1] == '*') {
        stop = i + 1;
        break;
      }
      comments += i + 1 < size && text[i + 1] == '$';
    }
    // Every line before `stop` ends with '\n' but the file's last one may not.
    const std::uint64_t lines = newlines + (stop == size && text[size - 1] != '\n');
    return lines > comments ? lines - comments : 0;
  }

 private:
  // The line at the position, found once however often it is looked at.
  bool peek(Line& line) noexcept {
    if (!pending_valid_) {
      if (position_ >= document_.size()) return false;
      const char* begin = document_.data() + position_;
      const std::size_t left = document_.size() - position_;
      const void* newline = std::memchr(begin, '\n', left);
      std::size_t length = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - begin) : left;
      pending_next_ = position_ + length + (newline ? 1 : 0);
      if (length > 0 && begin[length - 1] == '\r') --length;
      pending_ = Line{std::string_view(begin, length), position_, number_ + 1};
      pending_valid_ = true;
    }
    line = pending_;
    return true;
  }
  std::string_view document_;
  std::size_t position_ = 0;
  std::uint64_t number_ = 0;
  Line pending_;
  std::size_t pending_next_ = 0;
  bool pending_valid_ = false;
};

// The fields of one data line: fixed columns by `layout`, or split at commas when the line
// holds one (free format; then every comma-separated field, up to `capacity`). Each field is
// trimmed; fields past the line's end are empty. Returns how many were filled.
std::size_t split_fields(std::string_view line, const FieldSpec* layout, std::size_t layout_size, FieldMode mode,
                         std::string_view* out, std::size_t capacity) noexcept;

// A trimmed field as an integer (blank: 0) or a real (blank: 0.0; Fortran forms "1.5-3",
// "1.D0" too); nullopt when it is neither.
std::optional<std::int64_t> parse_integer(std::string_view field) noexcept;

// The fast path of fixed-column integer cards: `count` fields of `width` columns of a line
// without commas, each blanks around an optional sign and at most 18 digits (blank: 0).
// False, with nothing promised about `out`, when a field holds anything else: the caller
// then parses the line field by field (and reports what is wrong).
inline bool fixed_integers(std::string_view line, std::size_t width, int count, std::int64_t* out) noexcept {
  const char* p = line.data();
  const char* const end = p + line.size();
  for (int i = 0; i < count; ++i) {
    if (p >= end) {
      out[i] = 0;
      continue;
    }
    const char* const field_end = static_cast<std::size_t>(end - p) > width ? p + width : end;
    while (p < field_end && *p == ' ') ++p;
    const bool signed_field = p < field_end && (*p == '-' || *p == '+');
    const bool negative = signed_field && *p == '-';
    if (signed_field) ++p;
    const char* const digits = p;
    std::uint64_t value = 0;
    while (p < field_end && static_cast<unsigned char>(*p - '0') < 10) value = value * 10 + static_cast<unsigned>(*p++ - '0');
    const std::ptrdiff_t length = p - digits;
    while (p < field_end && *p == ' ') ++p;
    if (p != field_end || length > 18 || (length == 0 && signed_field)) return false;
    out[i] = negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
  }
  return true;
}
std::optional<double> parse_real(std::string_view field) noexcept;

std::string_view trim(std::string_view text) noexcept;

}  // namespace meshioplusplus::lsdyna::detail
