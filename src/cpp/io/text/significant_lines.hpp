// Line-oriented text formats (OFF, SU2, TetGen, …) share one shape: a comment character cuts
// a line, and lines left blank do not count. This walker yields the remaining lines as
// trimmed byte spans of the mapped document, so errors can still name file offsets.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "io/text/text_scanner.hpp"

namespace meshioplusplus::io {

// [begin, end) of one significant line: comment cut off, blanks trimmed.
struct LineSpan {
  std::size_t begin;
  std::size_t end;
};

// Where the comment character starts a comment: anywhere on a line (OFF, SU2, TetGen) or
// only as a line's first non-blank character (Netgen, whose names may hold it).
enum class CommentAt { anywhere, line_start };

class SignificantLines {
 public:
  SignificantLines(std::string_view document, const std::string& path, std::string_view format, char comment,
                   CommentAt where = CommentAt::anywhere)
      : document_(document), path_(path), format_(format), comment_(comment), where_(where),
        lines_(document, path, format) {}

  std::optional<LineSpan> next() {
    while (!lines_.at_end()) {
      const std::string_view line = lines_.next_line();
      const std::size_t begin = static_cast<std::size_t>(line.data() - document_.data());
      std::size_t end = begin + line.size();
      if (where_ == CommentAt::anywhere) {
        // The next comment character is searched for again only once a line passes it: most
        // files hold comments in a header only, so most lines need no search of their own.
        if (next_comment_ == kNotSearched || next_comment_ < begin) {
          const void* comment = std::memchr(document_.data() + begin, comment_, document_.size() - begin);
          next_comment_ = comment ? static_cast<std::size_t>(static_cast<const char*>(comment) - document_.data())
                                  : document_.size();
        }
        end = std::min(end, next_comment_);
      }
      if (const std::optional<LineSpan> part = trimmed(begin, end)) return part;
    }
    return std::nullopt;
  }

  // What next() keeps of the raw line [begin, end) (no '\n'): the comment cut, blanks
  // trimmed; nullopt when nothing is left. Parsers that walk lines themselves (on several
  // cores) use it to see a line exactly as next() would; it keeps no state, so any thread may.
  std::optional<LineSpan> significant_part(std::size_t begin, std::size_t end) const noexcept {
    if (where_ == CommentAt::anywhere)
      if (const void* comment = std::memchr(document_.data() + begin, comment_, end - begin))
        end = static_cast<std::size_t>(static_cast<const char*>(comment) - document_.data());
    return trimmed(begin, end);
  }

  // The next significant line, which must exist: `what` [`number`] names it in the error.
  LineSpan require(std::string_view what, std::int64_t number = -1) {
    if (std::optional<LineSpan> line = next()) return *line;
    std::string message = "unexpected end of file: expected ";
    message.append(what);
    if (number >= 0) message.append(" ").append(std::to_string(number));
    lines_.fail(message);
  }

  // The same, with the name built only when the line is missing, so hot loops allocate nothing.
  template <class Describe>
    requires std::is_invocable_v<Describe>
  LineSpan require(Describe&& describe) {
    if (std::optional<LineSpan> line = next()) return *line;
    lines_.fail("unexpected end of file: expected " + std::string(describe()));
  }

  TextScanner scanner(const LineSpan& line) const { return {document_, line.begin, line.end, path_, format_}; }
  std::string_view text(const LineSpan& line) const { return document_.substr(line.begin, line.end - line.begin); }
  std::string_view document() const noexcept { return document_; }
  std::size_t position() const noexcept { return lines_.position(); }
  void seek(std::size_t position) noexcept {
    lines_.seek(position);
    next_comment_ = kNotSearched;  // a comment may lie between here and the one found later
  }
  std::size_t bytes_left() const noexcept { return document_.size() - lines_.position(); }
  [[noreturn]] void fail(const std::string& message) const { lines_.fail(message); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const { lines_.fail_at(offset, message); }

 private:
  // [begin, end) without its blanks; nullopt when nothing is left or a line-start comment.
  std::optional<LineSpan> trimmed(std::size_t begin, std::size_t end) const noexcept {
    while (begin < end && is_space(document_[begin])) ++begin;
    while (end > begin && is_space(document_[end - 1])) --end;
    if (end == begin || (where_ == CommentAt::line_start && document_[begin] == comment_)) return std::nullopt;
    return LineSpan{begin, end};
  }

  std::string_view document_;
  const std::string& path_;
  std::string_view format_;
  char comment_;
  CommentAt where_;
  TextScanner lines_;
  static constexpr std::size_t kNotSearched = static_cast<std::size_t>(-1);
  std::size_t next_comment_ = kNotSearched;  // offset of the next comment character seen by next()
};

// A header line of non-negative counts (TetGen's and Triangle's "<count> <dim> <attributes>
// <markers>"): `required` values, then up to defaults.size() more, those missing taking their
// default. The next significant line of `lines`; a negative, extra or missing value is a
// ReadError at its offset. `line_begin`, when given, receives the line's offset.
inline std::vector<std::int64_t> read_count_header(SignificantLines& lines, std::size_t required,
                                                   const std::vector<std::int64_t>& defaults, const char* what,
                                                   std::size_t* line_begin = nullptr) {
  const LineSpan line = lines.require(std::string("the ") + what + " header");
  if (line_begin != nullptr) *line_begin = line.begin;
  TextScanner scanner = lines.scanner(line);
  std::vector<std::int64_t> values;
  while (values.size() < required + defaults.size()) {
    scanner.skip_whitespace();
    if (scanner.at_end()) break;
    const std::size_t offset = scanner.position();
    values.push_back(scanner.next_number<std::int64_t>());
    if (values.back() < 0) scanner.fail_at(offset, std::string("negative value in the ") + what + " header");
  }
  scanner.skip_whitespace();
  if (!scanner.at_end()) scanner.fail(std::string("unexpected value in the ") + what + " header");
  if (values.size() < required)
    lines.fail_at(line.begin, std::string("the ") + what + " header needs at least " + std::to_string(required) + " values");
  for (std::size_t k = values.size(); k < required + defaults.size(); ++k) values.push_back(defaults[k - required]);
  return values;
}

// `head` from its first significant byte: blanks and whole lines starting with `comment` skipped
// (the format sniffs of files that may open with comments: Medit, MFEM).
inline std::string_view skip_blanks_and_comment_lines(std::string_view head, char comment) noexcept {
  std::size_t pos = 0;
  while (pos < head.size()) {
    while (pos < head.size() && (head[pos] == ' ' || head[pos] == '\t' || head[pos] == '\r' || head[pos] == '\n')) ++pos;
    if (pos < head.size() && head[pos] == comment) {
      while (pos < head.size() && head[pos] != '\n') ++pos;
      continue;
    }
    break;
  }
  return head.substr(pos);
}

}  // namespace meshioplusplus::io
