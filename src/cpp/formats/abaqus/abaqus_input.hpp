// Abaqus input at the level of lines: keyword lines with their parameters, data lines
// split into comma-separated fields, numbers parsed with std::from_chars. Every error is a
// ReadError naming the file, byte offset and line.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/source/parallel.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::abaqus::detail {

// Upper-cases ASCII letters (keywords, parameter names and labels are case-insensitive).
std::string upper(std::string_view text);
std::string_view trim(std::string_view text) noexcept;
// Without surrounding double quotes (names with blanks or commas are quoted).
std::string_view unquote(std::string_view text) noexcept;

// The keyword of a line starting with '*', upper case ("*End  Part, x" → "END PART").
std::string keyword_name(std::string_view line);

struct Line {
  std::string_view text;  // without the line break, leading blanks trimmed
  std::size_t offset = 0;
};

// "*Element, type=C3D8R, elset=Body" → name "ELEMENT", parameters {TYPE: C3D8R, ELSET: Body}.
struct KeywordLine {
  std::string name;  // upper case, inner blanks collapsed: "END PART"
  std::vector<std::pair<std::string, std::string>> parameters;  // KEY, value as written (unquoted)
  std::size_t offset = 0;

  const std::string* find(std::string_view key) const noexcept;
  bool has(std::string_view key) const noexcept { return find(key) != nullptr; }
};

class InputLines {
 public:
  // Lines of `document` (the whole file, so errors carry file-absolute lines) in [begin, end).
  InputLines(std::string_view document, std::size_t begin, std::size_t end, const std::string& path);
  InputLines(const InputLines&) = delete;  // the scanner refers to path_
  InputLines& operator=(const InputLines&) = delete;

  // The next line that is neither blank nor a "**" comment; false at the end.
  bool next(Line& line);
  // The next data line; false, consuming nothing, when a keyword line or the end comes first.
  bool next_data(Line& line);
  // Consumes the data lines up to the next keyword line.
  void skip_data();
  // The keyword line `line` (starting with '*'), joined with its continuation lines.
  KeywordLine keyword(const Line& line);

  // Comma-separated fields of `text` into `out`, blanks trimmed (empty fields kept: their
  // position matters). `out` is reused so that long data sections allocate once.
  static void fields(std::string_view text, std::vector<std::string_view>& out);

  std::int64_t integer(std::string_view field) const;
  double real(std::string_view field) const;

  // Errors at `where`, a view into the document (a field or line).
  [[noreturn]] void fail_on(std::string_view where, const std::string& message) const;
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    scanner_.fail_at(offset, message);
  }

  // Where the next line starts (nullopt while a line read ahead is pending) and where these
  // lines end: for readers that take a whole data section at once, then seek past it.
  std::optional<std::size_t> position() const noexcept {
    return pending_ ? std::nullopt : std::optional<std::size_t>(scanner_.position());
  }
  std::size_t end() const noexcept { return scanner_.end(); }
  void seek(std::size_t position) noexcept {
    pending_.reset();
    scanner_.seek(position);
  }

  const std::string& path() const noexcept { return path_; }
  std::string_view document() const noexcept { return scanner_.document(); }

 private:
  std::size_t offset_of(std::string_view part) const noexcept {
    return static_cast<std::size_t>(part.data() - scanner_.document().data());
  }

  std::string path_;
  io::TextScanner scanner_;
  std::optional<Line> pending_;
};

// A data section read at once (on all cores): the lines from an InputLines' position up to
// the first line holding a '*' (a keyword or a comment), when they are enough to be worth
// splitting; nullopt otherwise (or while a line is pending).
struct PlainSection {
  std::size_t begin, end;
  std::uint64_t lines;
};
std::optional<PlainSection> plain_section(const InputLines& in);

// The offset of line `index` of `section`, leading blanks skipped (where errors point).
std::size_t plain_line_offset(const InputLines& in, const PlainSection& section, std::uint64_t index);

// Lines holding something other than blanks.
std::int64_t filled_lines(std::string_view text) noexcept;

// count(part) summed over `section` cut into one part of whole lines per thread.
template <class Count> std::int64_t sum_over_lines(std::string_view document, const PlainSection& section, Count&& count) {
  const std::size_t parts = thread_count();
  std::vector<std::size_t> cuts{section.begin};
  for (std::size_t p = 1; p < parts; ++p) {
    const std::size_t at = std::max(cuts.back(), section.begin + (section.end - section.begin) / parts * p);
    const void* newline = std::memchr(document.data() + at, '\n', section.end - at);
    cuts.push_back(newline != nullptr ? static_cast<std::size_t>(static_cast<const char*>(newline) - document.data()) + 1
                                      : section.end);
  }
  cuts.push_back(section.end);
  std::vector<std::int64_t> sums(parts, 0);
  io::parallel_ranges(parts, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p) sums[p] = count(document.substr(cuts[p], cuts[p + 1] - cuts[p]));
  });
  std::int64_t total = 0;
  for (const std::int64_t sum : sums) total += sum;
  return total;
}

}  // namespace meshioplusplus::abaqus::detail
