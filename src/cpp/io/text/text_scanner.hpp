// Floor 2: a forward scanner over text with locale-independent number parsing
// (std::from_chars) and errors that name the file, byte offset and line.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "meshioplusplus/errors.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace meshioplusplus::io {

inline bool is_space(char c) noexcept {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// 1-based line number of `offset` in `text` (computed only on error paths).
inline std::uint64_t line_of_offset(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// A plain run of up to 18 decimal digits in [p, last) (so it cannot overflow): ids and
// indices as writers print them, read without from_chars. Returns the first character after
// the run, or nullptr when there is no digit; the caller decides whether what follows ends a
// number (a 19th digit does not, which sends longer numbers to from_chars). Bytes up to
// `readable_end` (>= last) may be loaded but are never part of the run: line parsers pass
// the document's end, so the last number of a line still takes the 8-byte step.
[[gnu::always_inline]] inline const char* plain_digits(const char* p, const char* last, std::uint64_t& value,
                                const char* readable_end = nullptr) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    // Runs shorter than 8 digits (most ids and indices) in one step: find the first
    // non-digit byte of the next 8, then combine the digits before it pairwise. A byte of
    // 0xFA or more carries into the next one, but it ends the run itself, and only the
    // bytes before the first non-digit are used.
    if ((readable_end != nullptr && readable_end > last ? readable_end : last) - p >= 8) {
      std::uint64_t chunk;
      std::memcpy(&chunk, p, 8);
      const std::uint64_t not_digit = ((chunk & 0xF0F0F0F0F0F0F0F0u) ^ 0x3030303030303030u) |
                                      (((chunk + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) ^ 0x3030303030303030u);
      if (not_digit != 0) {
        const int digits = static_cast<int>(std::min<std::ptrdiff_t>(std::countr_zero(not_digit) / 8, last - p));
        if (digits <= 0) return nullptr;
        std::uint64_t v = (chunk << (64 - 8 * digits)) & 0x0F0F0F0F0F0F0F0Fu;  // leading zeros, then the digits
        v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFu;
        v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFu;
        value = (v * 10000 + (v >> 32)) & 0x00000000FFFFFFFFu;
        return p + digits;
      }
    }
  }
  const char* q = p;
  std::uint64_t v = 0;
  while (q < last && q - p < 18 && static_cast<unsigned char>(*q - '0') < 10) v = v * 10 + static_cast<unsigned>(*q++ - '0');
  if (q == p) return nullptr;
  value = v;
  return q;
}

// std::from_chars for int64 (optional '-', digits, range checked, same end pointer) with the
// short labels most files hold read by plain_digits; longer runs go to the library.
inline std::from_chars_result parse_int64(const char* first, const char* last, std::int64_t& out) noexcept {
  const bool negative = first < last && *first == '-';
  std::uint64_t magnitude = 0;
  const char* const end = plain_digits(first + (negative ? 1 : 0), last, magnitude);
  if (end == nullptr || (end < last && static_cast<unsigned char>(*end - '0') < 10)) return std::from_chars(first, last, out);
  out = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
  return {end, std::errc{}};
}

// The first '\n' in [first, last), or nullptr. Lines are the unit of most text formats and
// most are short: 16 bytes are compared inline per step (SSE2), where a memchr call per line
// cost more than the search itself; long stretches go to memchr.
[[gnu::always_inline]] inline const char* find_newline(const char* first, const char* last) noexcept {
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  for (int step = 0; step < 4 && last - first >= 16; ++step, first += 16) {
    const int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(first)), newline));
    if (mask != 0) return first + std::countr_zero(static_cast<unsigned>(mask));
  }
#endif
  return first < last ? static_cast<const char*>(std::memchr(first, '\n', static_cast<std::size_t>(last - first))) : nullptr;
}

class TextScanner {
 public:
  // `document` is the whole file, so offsets and lines are file-absolute; scanning covers
  // [begin, end) of it.
  TextScanner(std::string_view document, std::size_t begin, std::size_t end,
              const std::string& path, std::string_view format)
      : document_(document), pos_(begin), end_(end), path_(path), format_(format) {}
  TextScanner(std::string_view document, const std::string& path, std::string_view format)
      : TextScanner(document, 0, document.size(), path, format) {}

  std::size_t position() const noexcept { return pos_; }
  void seek(std::size_t position) noexcept { pos_ = std::min(position, end_); }
  std::size_t end() const noexcept { return end_; }
  bool at_end() const noexcept { return pos_ >= end_; }
  std::string_view document() const noexcept { return document_; }

  void skip_whitespace() noexcept {
    while (pos_ < end_ && is_space(document_[pos_])) ++pos_;
  }
  // Skips spaces and tabs but stops at a line break.
  void skip_blanks() noexcept {
    while (pos_ < end_ && (document_[pos_] == ' ' || document_[pos_] == '\t' || document_[pos_] == '\r'))
      ++pos_;
  }

  // Next whitespace-delimited token; empty at the end.
  std::string_view next_token() noexcept {
    skip_whitespace();
    const std::size_t start = pos_;
    while (pos_ < end_ && !is_space(document_[pos_])) ++pos_;
    return document_.substr(start, pos_ - start);
  }

  // The rest of the current line without its terminator; moves past the line break.
  std::string_view next_line() noexcept {
    const std::size_t start = pos_;
    const char* const newline = find_newline(document_.data() + pos_, document_.data() + end_);
    pos_ = newline ? static_cast<std::size_t>(newline - document_.data()) : end_;
    std::size_t stop = pos_;
    if (pos_ < end_) ++pos_;
    if (stop > start && document_[stop - 1] == '\r') --stop;
    return document_.substr(start, stop - start);
  }

  template <class T> T next_number() {
    skip_whitespace();
    if constexpr (std::is_integral_v<T>) {
      // Indices dominate mesh files: plain "[-]digits" (at most 18, so no overflow) ended by
      // a blank is read here; everything else (signs, long or odd text) takes from_chars below.
      const char* p = document_.data() + pos_;
      const char* const last = document_.data() + end_;
      const bool negative = p < last && *p == '-';
      if (negative) ++p;
      std::uint64_t magnitude = 0;
      p = plain_digits(p, last, magnitude, document_.data() + document_.size());
      if (p != nullptr && (p == last || is_space(*p))) {
        const std::int64_t signed_value = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
        const bool fits = std::is_signed_v<T> ? std::in_range<T>(signed_value) : !negative && std::in_range<T>(magnitude);
        if (fits) {
          pos_ = static_cast<std::size_t>(p - document_.data());
          return static_cast<T>(signed_value);
        }
      }
    }
    T value{};
    const char* first = document_.data() + pos_;
    const char* last = document_.data() + end_;
    if (first < last && *first == '+') ++first;  // from_chars rejects an explicit '+'
    std::from_chars_result result;
    if constexpr (std::is_floating_point_v<T>) {
      result = std::from_chars(first, last, value, std::chars_format::general);
    } else {
      result = std::from_chars(first, last, value);
    }
    if (result.ec != std::errc{} || (result.ptr < last && !is_space(*result.ptr))) {
      if (first >= last) fail("unexpected end of data while reading a number");
      const char* stop = first;
      while (stop < last && !is_space(*stop) && stop - first < 32) ++stop;
      fail("invalid number '" + std::string(first, stop) + "'");
    }
    pos_ = static_cast<std::size_t>(result.ptr - document_.data());
    return value;
  }

  template <class T> void next_numbers(T* out, std::size_t count) {
    std::size_t i = 0;
    if constexpr (std::is_integral_v<T>) {
      // Long runs of plain integers (connectivity, offsets) in one tight loop over a local
      // pointer; the first value it does not read plainly, and every one after it, takes
      // next_number, which reads the rest or reports the error.
      const char* p = document_.data() + pos_;
      const char* const last = document_.data() + end_;
      const char* const readable_end = document_.data() + document_.size();
      for (; i < count; ++i) {
        while (p < last && is_space(*p)) ++p;
        const bool negative = p < last && *p == '-';
        std::uint64_t magnitude = 0;
        const char* const stop = plain_digits(p + (negative ? 1 : 0), last, magnitude, readable_end);
        if (stop == nullptr || (stop < last && !is_space(*stop))) break;
        const std::int64_t value = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
        if (std::is_signed_v<T> ? !std::in_range<T>(value) : negative || !std::in_range<T>(magnitude)) break;
        out[i] = static_cast<T>(value);
        p = stop;
      }
      pos_ = static_cast<std::size_t>(p - document_.data());
    }
    for (; i < count; ++i) out[i] = next_number<T>();
  }

  // Throws ReadError at the current position.
  [[noreturn]] void fail(const std::string& message) const { fail_at(pos_, message); }
  const std::string& path() const noexcept { return path_; }
  std::string_view format() const noexcept { return format_; }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(format_), message, offset, line_of_offset(document_, offset));
  }

 private:
  std::string_view document_;
  std::size_t pos_;
  std::size_t end_;
  const std::string& path_;
  std::string_view format_;
};

}  // namespace meshioplusplus::io
