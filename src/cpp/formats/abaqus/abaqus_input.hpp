// Abaqus input at the level of lines: keyword lines with their parameters, data lines
// split into comma-separated fields, numbers parsed with std::from_chars. Every error is a
// ReadError naming the file, byte offset and line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/text/text_scanner.hpp"

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

}  // namespace meshioplusplus::abaqus::detail
