// Datasets and record fields of a universal file (unv_records.hpp).
#include "formats/unv/unv_records.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <system_error>

#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/fortran_fields.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::unv::detail {
namespace {

bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// A dataset body's lines as scan_datasets sorts them: blank, the closing "-1", or a record.
enum class LineKind { blank, delimiter, record };

// The kind of the line starting at `p` (is_blank_line, is_delimiter and the record count of the
// line walk, without cutting the line out first: the body scan visits every line of the file);
// returns where the next line starts, or `end`.
[[gnu::always_inline]] inline const char* classify_line(const char* p, const char* end, LineKind& kind) noexcept {
  while (p < end && is_blank(*p)) ++p;
  if (p == end || *p == '\n') {
    kind = LineKind::blank;
  } else if (*p == '-' && end - p >= 2 && p[1] == '1') {
    p += 2;
    while (p < end && is_blank(*p)) ++p;
    kind = p == end || *p == '\n' ? LineKind::delimiter : LineKind::record;
  } else {
    kind = LineKind::record;
  }
  const char* const newline = io::find_newline(p, end);
  return newline ? newline + 1 : end;
}

// Where a body's closing "-1" line starts (npos: none) and its record lines before it.
struct BodyScan {
  std::size_t delimiter = std::string_view::npos;
  std::int64_t records = 0;
};

// The lines starting in [first, last) of `text` (the last may run on past `last`), up to the
// first "-1" line.
BodyScan scan_body_lines(std::string_view text, std::size_t first, std::size_t last) noexcept {
  BodyScan scan;
  const char* const data = text.data();
  const char* const end = data + text.size();
  const char* line = data + first;
  while (line < data + last) {
    LineKind kind;
    const char* const next = classify_line(line, end, kind);
    if (kind == LineKind::delimiter) {
      scan.delimiter = static_cast<std::size_t>(line - data);
      return scan;
    }
    scan.records += kind == LineKind::record ? 1 : 0;
    line = next;
  }
  return scan;
}

// The first line start at or after `at` (a line start itself when the byte before it is a newline).
std::size_t line_start_from(std::string_view text, std::size_t at) noexcept {
  if (at == 0 || at >= text.size() || text[at - 1] == '\n') return std::min(at, text.size());
  const char* const newline = io::find_newline(text.data() + at, text.data() + text.size());
  return newline ? static_cast<std::size_t>(newline - text.data()) + 1 : text.size();
}

// The body starting at `begin` (a line start): its closing "-1" and its record lines. The
// first MiB is walked on one thread (most datasets end there); past it, windows doubling up
// to 64 MiB are split at line starts over the cores, each part walking its lines up to its
// first "-1", and the parts are joined in order: the first part that met a "-1" ends the body,
// and the records are those of the parts before it plus its own, as one walk counts them.
// A window may look at lines past the body's end; that costs time, never the result.
BodyScan scan_body(std::string_view text, std::size_t begin) {
  constexpr std::size_t kSequentialBytes = std::size_t{1} << 20;
  constexpr std::size_t kLargestWindow = std::size_t{64} << 20;
  std::size_t stop = line_start_from(text, std::min(text.size(), begin + kSequentialBytes));
  BodyScan total = scan_body_lines(text, begin, stop);
  const auto parts = static_cast<std::size_t>(std::max(1u, thread_count()));
  for (std::size_t window = 4 * kSequentialBytes; total.delimiter == std::string_view::npos && stop < text.size();
       window = std::min(2 * window, kLargestWindow)) {
    const std::size_t start = stop;
    stop = line_start_from(text, std::min(text.size(), start + window));
    std::vector<std::size_t> bounds(parts + 1, stop);
    bounds[0] = start;
    for (std::size_t part = 1; part < parts; ++part)
      bounds[part] = std::max(bounds[part - 1], line_start_from(text, start + (stop - start) * part / parts));
    std::vector<BodyScan> scans(parts);
    parallel_ranges(parts, 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t part = first; part < last; ++part) scans[part] = scan_body_lines(text, bounds[part], bounds[part + 1]);
    });
    for (const BodyScan& scan : scans) {
      total.records += scan.records;
      if (scan.delimiter != std::string_view::npos) {
        total.delimiter = scan.delimiter;
        break;
      }
    }
  }
  return total;
}

std::string_view trimmed(std::string_view text) noexcept {
  std::size_t first = 0;
  std::size_t last = text.size();
  while (first < last && is_blank(text[first])) ++first;
  while (last > first && is_blank(text[last - 1])) --last;
  return text.substr(first, last - first);
}

bool is_delimiter(std::string_view text) noexcept { return trimmed(text) == "-1"; }

// The text of a record before a '%' comment.
std::string_view record_body(std::string_view text) noexcept {
  const std::size_t percent = text.find('%');
  return percent == std::string_view::npos ? text : text.substr(0, percent);
}

// Calls `take(token, offset_in_text)` for each field of `body`: whitespace-separated, or cut
// in `width` columns when a token is wider than a field (values that touch).
template <class Take> void for_each_field(std::string_view body, std::size_t width, Take&& take) {
  bool wide = false;
  for (std::size_t i = 0; i < body.size();) {
    while (i < body.size() && io::is_space(body[i])) ++i;
    const std::size_t start = i;
    while (i < body.size() && !io::is_space(body[i])) ++i;
    if (i - start > width) wide = true;
  }
  if (!wide) {
    for (std::size_t i = 0; i < body.size();) {
      while (i < body.size() && io::is_space(body[i])) ++i;
      const std::size_t start = i;
      while (i < body.size() && !io::is_space(body[i])) ++i;
      if (i > start) take(body.substr(start, i - start), start);
    }
    return;
  }
  for (std::size_t column = 0; column < body.size(); column += width) {
    const std::string_view field = body.substr(column, width);
    std::size_t first = 0;
    while (first < field.size() && io::is_space(field[first])) ++first;
    std::size_t last = field.size();
    while (last > first && io::is_space(field[last - 1])) --last;
    if (last > first) take(field.substr(first, last - first), column + first);
  }
}

bool parse_real(std::string_view token, double& value) noexcept {
  return io::parse_fortran_real(token, value);  // 1P3D25.16: Fortran's D exponent among them
}

}  // namespace

void fail_at(std::string_view document, const std::string& path, std::size_t offset, const std::string& message) {
  throw ReadError(path, std::string(kFormat), message, offset, io::line_of_offset(document, offset));
}

bool is_blank_line(std::string_view text) noexcept {
  for (const char c : text)
    if (!io::is_space(c)) return false;
  return true;
}

bool Lines::next(Line& line) noexcept {
  if (pos_ >= end_) return false;
  const char* const data = document_.data();
  const char* const newline = io::find_newline(data + pos_, data + end_);
  const std::size_t stop = newline ? static_cast<std::size_t>(newline - data) : end_;
  std::size_t text_end = stop;
  if (text_end > pos_ && data[text_end - 1] == '\r') --text_end;
  line.begin = pos_;
  line.text = document_.substr(pos_, text_end - pos_);
  pos_ = newline ? stop + 1 : end_;
  return true;
}

bool Lines::next_significant(Line& line) noexcept {
  while (next(line))
    if (!is_blank_line(line.text)) return true;
  return false;
}

std::size_t count_fields(std::string_view text, std::size_t width) {
  // One pass: the tokens and the widest of them; the column cut only for a line that needs it.
  std::size_t count = 0;
  std::size_t widest = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (true) {
    while (p < end && io::is_space(*p)) ++p;
    if (p == end || *p == '%') break;
    const char* const start = p;
    while (p < end && !io::is_space(*p)) ++p;
    widest = std::max(widest, static_cast<std::size_t>(p - start));
    ++count;
  }
  if (widest <= width) return count;
  count = 0;
  for_each_field(record_body(text), width, [&](std::string_view, std::size_t) { ++count; });
  return count;
}

namespace {

// The fields of a record into `out` (up to `capacity`; returns how many the record has). The
// usual record first: blank-separated values no wider than their field, read by `fast`
// (from_chars-like); anything else (touching fields, a '+' sign, a D exponent, an invalid
// token) field by field through `exact`, which says whether a token is a value.
template <class T, class Fast, class Exact>
std::size_t read_fields(std::string_view document, const Line& line, T* out, std::size_t capacity, const std::string& path,
                        std::size_t width, const char* what, Fast&& fast, Exact&& exact) {
  std::size_t count = 0;
  const char* p = line.text.data();
  const char* const end = p + line.text.size();
  while (true) {
    while (p < end && io::is_space(*p)) ++p;
    if (p == end || *p == '%') return count;
    T value{};
    const auto result = fast(p, end, value);
    if (result.ec != std::errc{} || (result.ptr < end && !io::is_space(*result.ptr)) ||
        static_cast<std::size_t>(result.ptr - p) > width)
      break;
    if (count < capacity) out[count] = value;
    ++count;
    p = result.ptr;
  }
  count = 0;
  for_each_field(record_body(line.text), width, [&](std::string_view token, std::size_t at) {
    if (count < capacity && !exact(token, out[count]))
      fail_at(document, path, line.begin + at, std::string("invalid ") + what + " '" + std::string(token.substr(0, 32)) + "'");
    ++count;
  });
  return count;
}

bool parse_integer(std::string_view token, std::int64_t& value) noexcept {
  const char* first = token.data();
  const char* const last = first + token.size();
  if (first < last && *first == '+') ++first;
  const auto result = io::parse_int64(first, last, value);
  return result.ec == std::errc{} && result.ptr == last;
}

}  // namespace

std::size_t read_ints(std::string_view document, const Line& line, std::int64_t* out, std::size_t capacity,
                      const std::string& path, std::size_t width) {
  const auto fast = [](const char* first, const char* last, std::int64_t& value) { return io::parse_int64(first, last, value); };
  return read_fields(document, line, out, capacity, path, width, "integer", fast, parse_integer);
}

std::size_t read_reals(std::string_view document, const Line& line, double* out, std::size_t capacity,
                       const std::string& path, std::size_t width) {
  const auto fast = [](const char* first, const char* last, double& value) {
    return std::from_chars(first, last, value, std::chars_format::general);
  };
  return read_fields(document, line, out, capacity, path, width, "real number", fast, parse_real);
}

std::vector<Dataset> scan_datasets(std::string_view text, const std::string& path) {
  std::vector<Dataset> datasets;
  Lines lines(text, 0, text.size());
  Line line;
  while (lines.next(line)) {
    if (is_blank_line(line.text)) continue;
    if (!is_delimiter(line.text))
      fail_at(text, path, line.begin,
              datasets.empty() ? "not a universal file: it does not start with a '-1' line"
                               : "text outside a dataset (a dataset ends with a '-1' line, the next starts with one)");
    // The number line: the first after the opening -1 (blank lines and repeated -1 allowed).
    Line header;
    bool found = false;
    while (lines.next(header)) {
      if (is_blank_line(header.text) || is_delimiter(header.text)) continue;
      found = true;
      break;
    }
    if (!found) break;  // a file may end with an opening -1 and nothing after it
    std::int64_t fields[5] = {};
    const std::string_view words = trimmed(header.text);
    std::string_view number_text = words.substr(0, std::min(words.find_first_of(" \t"), words.size()));
    const bool binary = !number_text.empty() && (number_text.back() == 'b' || number_text.back() == 'B');
    if (binary) number_text.remove_suffix(1);
    Dataset dataset;
    dataset.header_offset = header.begin;
    {
      const auto result = std::from_chars(number_text.data(), number_text.data() + number_text.size(), dataset.number);
      if (result.ec != std::errc{} || result.ptr != number_text.data() + number_text.size() || dataset.number < 0)
        fail_at(text, path, header.begin, "invalid dataset number '" + std::string(words.substr(0, 32)) + "'");
    }
    if (binary) {
      // "58b  byte-order  fp-format  ascii-lines  bytes  …": the ASCII records, then the bytes.
      Line rest{header.begin + static_cast<std::size_t>(words.data() - header.text.data()) + number_text.size() + 1,
                words.substr(std::min(words.size(), number_text.size() + 1))};
      if (read_ints(text, rest, fields, 5, path) < 4)
        fail_at(text, path, header.begin, "binary dataset " + std::to_string(dataset.number) +
                                              ": the number line needs byte order, format, line and byte counts");
      const std::int64_t ascii_lines = fields[2];
      const std::int64_t bytes = fields[3];
      if (ascii_lines < 0 || bytes < 0)
        fail_at(text, path, header.begin, "binary dataset " + std::to_string(dataset.number) + ": negative counts");
      Line skipped;
      for (std::int64_t i = 0; i < ascii_lines; ++i)
        if (!lines.next(skipped))
          fail_at(text, path, header.begin, "binary dataset " + std::to_string(dataset.number) + " ends inside its ASCII records");
      const std::size_t at = lines.position();
      if (static_cast<std::uint64_t>(bytes) > text.size() - at)
        fail_at(text, path, header.begin, "binary dataset " + std::to_string(dataset.number) + " declares " +
                                              std::to_string(bytes) + " bytes, past the end of the file");
      // Writers disagree on the size of complex data; the closing -1 ends the dataset.
      lines = Lines(text, at + static_cast<std::size_t>(bytes), text.size());
      bool closed = false;
      while (lines.next(skipped))
        if (is_delimiter(skipped.text) || trimmed(skipped.text).ends_with(" -1")) {
          closed = true;
          break;
        }
      if (!closed)
        fail_at(text, path, header.begin, "binary dataset " + std::to_string(dataset.number) + " is not closed by a '-1' line");
      continue;
    }
    dataset.begin = lines.position();
    const BodyScan body = scan_body(text, dataset.begin);
    if (body.delimiter == std::string_view::npos)
      fail_at(text, path, header.begin, "dataset " + std::to_string(dataset.number) + " is not closed by a '-1' line");
    dataset.end = body.delimiter;
    dataset.lines = body.records;
    lines = Lines(text, body.delimiter, text.size());
    Line closing;
    lines.next(closing);  // past the "-1" line
    datasets.push_back(dataset);
  }
  if (datasets.empty()) fail_at(text, path, 0, "not a universal file: no dataset");
  return datasets;
}

}  // namespace meshioplusplus::unv::detail
