// Sections of one record per significant line (TetGen's and Triangle's .node/.ele, …) read on
// all cores: the walker's position is the section's first record; each record is tried on
// its raw line with a non-throwing fast reader and otherwise parsed from its significant
// line exactly as the sequential loop does. Shared by the readers that walk
// SignificantLines; the line splitting itself is io::parse_lines_in_parallel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "io/source/parallel.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io {

// Records one per line with nothing between them — what every writer produces — parse on
// all cores from `lines`' position: `fast(i, first, last)` may read record i from its raw
// line [first, last) when it is plainly laid out; otherwise `parse(scanner, line_begin, i)`
// reads it from its significant line exactly as the sequential loop does (same code, same
// errors). False when the sequential loop must run instead (small section; blank,
// comment-only or missing lines, which only it words errors for); `lines` is then untouched.
template <class Fast, class Parse>
bool parse_records_in_parallel(SignificantLines& lines, std::string_view document, std::int64_t count,
                               const Fast& fast, const Parse& parse) {
  const auto parse_record = [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
    if (fast(static_cast<std::int64_t>(i), document.data() + begin, document.data() + stop)) return true;
    const std::optional<LineSpan> line = lines.significant_part(begin, stop);
    if (!line) return false;
    TextScanner scanner = lines.scanner(*line);
    parse(scanner, line->begin, static_cast<std::int64_t>(i));
    return true;
  };
  const std::optional<std::size_t> end =
      parse_lines_in_parallel(document, lines.position(), static_cast<std::uint64_t>(count), parse_record);
  if (!end) return false;
  lines.seek(*end);
  return true;
}

// The integer starting the line at `lines`' position when that line is significant (the
// first record's number, which sets the index base), without moving `lines`. nullopt when it
// is not there or does not parse: the sequential loop then says why.
inline std::optional<std::int64_t> peek_first_integer(const SignificantLines& lines, std::string_view document) {
  const std::size_t begin = lines.position();
  const void* newline = std::memchr(document.data() + begin, '\n', document.size() - begin);
  const std::size_t end =
      newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - document.data()) : document.size();
  const std::optional<LineSpan> line = lines.significant_part(begin, end);
  if (!line) return std::nullopt;
  try {
    TextScanner scanner = lines.scanner(*line);
    return scanner.next_number<std::int64_t>();
  } catch (const ReadError&) {
    return std::nullopt;
  }
}

}  // namespace meshioplusplus::io
