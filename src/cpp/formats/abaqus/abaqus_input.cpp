#include "formats/abaqus/abaqus_input.hpp"

#include "io/text/line_values.hpp"

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
  const std::string_view document = in.document();
  const char* const text = document.data();
  const std::size_t limit = in.end();
  // Node and element data hold no '*': the section ends at the line of the first one (a
  // keyword, or a comment, indented or not).
  std::size_t stop = limit;
  if (const void* star = std::memchr(text + *begin, '*', limit - *begin)) {
    stop = static_cast<std::size_t>(static_cast<const char*>(star) - text);
    while (stop > *begin && text[stop - 1] != '\n') --stop;
  }
  if (stop - *begin < io::kParallelLinesMinBytes) return std::nullopt;
  std::uint64_t lines = io::count_newlines_in_parallel(text + *begin, text + stop);
  if (text[stop - 1] != '\n') ++lines;  // the last line of the file, without a line break
  return PlainSection{*begin, stop, lines};
}

std::int64_t filled_lines(std::string_view text) noexcept {
  std::int64_t lines = 0;
  bool filled = false;
  for (const char c : text) {
    if (c == '\n') {
      lines += filled;
      filled = false;
    } else if (!is_blank(c)) {
      filled = true;
    }
  }
  return lines + filled;
}

std::size_t plain_line_offset(const InputLines& in, const PlainSection& section, std::uint64_t index) {
  const std::string_view document = in.document();
  std::size_t at = *io::skip_lines(document, section.begin, index);
  while (at < document.size() && is_blank(document[at])) ++at;
  return at;
}

}  // namespace meshioplusplus::abaqus::detail
