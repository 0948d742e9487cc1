// Non-throwing reads of the plain numbers writers print, for parsers that read a section's
// one-record lines on several cores (io::parse_lines_in_parallel) and leave every other
// layout to TextScanner. Each function reads exactly what TextScanner::next_number reads
// from the same characters, or returns nullptr where TextScanner would do anything else (a
// token it fails on, a number it needs from_chars' general path for), so a record read
// completely here is the record the sequential parse reads, and errors stay its job.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "io/source/parallel.hpp"
#include "io/text/text_scanner.hpp"

namespace meshioplusplus::io {

[[gnu::always_inline]] inline const char* skip_line_blanks(const char* p, const char* end) noexcept {
  while (p < end && is_space(*p)) ++p;
  return p;
}

// "[-]digits" (at most 18) ended by a blank or the line's end, in range for Integer. Bytes
// up to `readable_end` may be loaded, never read as part of the number (see plain_digits).
template <class Integer>
[[gnu::always_inline]] inline const char* plain_integer(const char* p, const char* end, Integer& value, const char* readable_end = nullptr) noexcept {
  p = skip_line_blanks(p, end);
  const bool negative = p < end && *p == '-';
  std::uint64_t magnitude = 0;
  const char* const stop = plain_digits(p + (negative ? 1 : 0), end, magnitude, readable_end);
  if (stop == nullptr || (stop < end && !is_space(*stop))) return nullptr;
  const std::int64_t signed_value = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
  if (negative ? !std::in_range<Integer>(signed_value) : !std::in_range<Integer>(magnitude)) return nullptr;
  value = static_cast<Integer>(signed_value);
  return stop;
}

// An optional '+', then what from_chars reads, ended by a blank or the line's end.
template <class Real> [[gnu::always_inline]] inline const char* plain_real(const char* p, const char* end, Real& value) noexcept {
  p = skip_line_blanks(p, end);
  if (p < end && *p == '+') ++p;
  const std::from_chars_result result = std::from_chars(p, end, value, std::chars_format::general);
  if (result.ec != std::errc{} || (result.ptr < end && !is_space(*result.ptr))) return nullptr;
  return result.ptr;
}

// Nothing but blanks left: the line held exactly one record.
inline bool only_blanks(const char* p, const char* end) noexcept { return skip_line_blanks(p, end) == end; }

// One line [p, end) read value by value with the functions above; every call is false where
// the sequential parse would do anything but read the same value.
class LineValues {
 public:
  // `readable_end`: the document's end, so numbers near the line's end load 8 bytes at once.
  LineValues(const char* p, const char* end, const char* readable_end = nullptr) noexcept
      : p_(p), end_(end), readable_end_(readable_end) {}

  template <class T> [[gnu::always_inline]] bool next(T& value) noexcept {
    const char* stop;
    if constexpr (std::is_floating_point_v<T>) stop = plain_real(p_, end_, value);
    else stop = plain_integer(p_, end_, value, readable_end_);
    if (stop == nullptr) return false;
    p_ = stop;
    return true;
  }
  // Skips `count` tokens of bytes above ' ' (a control byte: false), as Cursor::skip_values.
  bool skip_tokens(int count) noexcept {
    for (int i = 0; i < count; ++i) {
      p_ = skip_line_blanks(p_, end_);
      if (p_ == end_ || static_cast<unsigned char>(*p_) <= ' ') return false;
      while (p_ < end_ && static_cast<unsigned char>(*p_) > ' ') ++p_;
    }
    return true;
  }
  bool done() const noexcept { return only_blanks(p_, end_); }

 private:
  const char* p_;
  const char* end_;
  const char* readable_end_;
};

// Calls parse(index, line_begin, line_end) for `records` lines from `begin` (a line start):
// on all cores when the section is big enough (io::parse_lines_in_parallel), else here, so
// one fast line reader serves every thread count. The offset after the last line, or nullopt
// when a line is not one record (or holds a value parse refuses): the caller's sequential
// parse then reads the section and words the errors.
template <class Parse>
std::optional<std::size_t> parse_record_lines(std::string_view document, std::size_t begin, std::uint64_t records,
                                              Parse&& parse) {
  if (records == 0) return begin;
  if (const std::optional<std::size_t> end = parse_lines_in_parallel(document, begin, records, parse)) return end;
  const char* const text = document.data();
  std::size_t line = begin;
  for (std::uint64_t index = 0; index < records; ++index) {
    const char* const newline = find_newline(text + line, text + document.size());
    if (newline == nullptr) return std::nullopt;
    const auto stop = static_cast<std::size_t>(newline - text);
    if (!parse(index, line, stop)) return std::nullopt;
    line = stop + 1;
  }
  return line;
}

// Where records that follow offset `at` start when they start on a line of their own: `at`
// itself at a line start, else past blanks and one '\n'; nullopt when text follows on the line.
inline std::optional<std::size_t> records_begin(std::string_view document, std::size_t at) {
  if (at == 0 || document[at - 1] == '\n') return at;
  while (at < document.size() && (document[at] == ' ' || document[at] == '\t' || document[at] == '\r')) ++at;
  if (at >= document.size() || document[at] != '\n') return std::nullopt;
  return at + 1;
}

// The offset after `lines` more lines from `at`, or nullopt when the document ends first.
inline std::optional<std::size_t> skip_lines(std::string_view document, std::size_t at, std::uint64_t lines) {
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  const char* const text = document.data();
  while (lines > 0) {
    const std::size_t chunk = std::min(kChunk, document.size() - at);
    if (chunk == 0) return std::nullopt;
    const std::uint64_t in_chunk = count_newlines(text + at, text + at + chunk);
    if (in_chunk < lines) {
      lines -= in_chunk;
      at += chunk;
      continue;
    }
    const std::size_t limit = at + chunk;  // holds the remaining line ends
    for (; lines > 0; --lines)
      at = static_cast<std::size_t>(static_cast<const char*>(std::memchr(text + at, '\n', limit - at)) - text) + 1;
  }
  return at;
}

}  // namespace meshioplusplus::io
