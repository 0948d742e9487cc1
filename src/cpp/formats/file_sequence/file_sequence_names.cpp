// Names of a file sequence: number fields, glob matching, natural order
// (file_sequence_internal.hpp).
#include <charconv>
#include <cstring>
#include <vector>

#include "formats/file_sequence/file_sequence_internal.hpp"

namespace meshioplusplus::file_sequence {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// At `at`: `%d`, `%0Nd`, `%Nd`, `{}`, `{:d}`, `{:0Nd}`, `{:Nd}`; returns its length and width.
std::optional<std::pair<std::size_t, int>> field_at(std::string_view name, std::size_t at) {
  const char open = name[at];
  if (open != '%' && open != '{') return std::nullopt;
  std::size_t k = at + 1;
  if (open == '{') {
    if (k < name.size() && name[k] == '}') return std::pair<std::size_t, int>{2, 0};
    if (k >= name.size() || name[k] != ':') return std::nullopt;
    ++k;
  }
  int width = 0;
  const char* first = name.data() + k;
  while (k < name.size() && is_digit(name[k])) ++k;
  if (name.data() + k != first) std::from_chars(first, name.data() + k, width);
  if (width > 32) return std::nullopt;
  if (k < name.size() && name[k] == 'd') ++k;
  else if (open == '%') return std::nullopt;
  if (open == '{') {
    if (k >= name.size() || name[k] != '}') return std::nullopt;
    ++k;
  }
  return std::pair<std::size_t, int>{k - at, width};
}

}  // namespace

std::optional<NumberField> parse_number_field(std::string_view name, std::string* problem) {
  std::optional<NumberField> found;
  for (std::size_t at = 0; at < name.size(); ++at) {
    const auto field = field_at(name, at);
    if (!field) continue;
    if (found) {
      *problem = "the name has two step-number fields";
      return std::nullopt;
    }
    found = NumberField{std::string(name.substr(0, at)), std::string(name.substr(at + field->first)), field->second};
    at += field->first - 1;
  }
  return found;
}

std::string format_number(const NumberField& field, long long number) {
  char digits[32];
  const auto end = std::to_chars(digits, digits + sizeof digits, number < 0 ? -number : number).ptr;
  const std::size_t length = static_cast<std::size_t>(end - digits);
  std::string text = number < 0 ? "-" : "";
  if (field.width > 0 && length < static_cast<std::size_t>(field.width)) text.append(field.width - length, '0');
  text.append(digits, length);
  return field.prefix + text + field.suffix;
}

std::optional<std::string> match_glob(std::string_view pattern, std::string_view name) {
  // Backtracking over the last `*` (linear in practice; names are short).
  std::size_t p = 0, n = 0, star = std::string_view::npos, star_n = 0;
  std::vector<std::pair<std::size_t, std::size_t>> captures;  // (start, length) per wildcard
  std::size_t captures_at_star = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '?') {
      captures.emplace_back(n, 1);
      ++p, ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_n = n;
      captures_at_star = captures.size();
      captures.emplace_back(n, 0);
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p, ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++star_n;
      captures.resize(captures_at_star + 1);
      captures.back().second = star_n - captures.back().first;
    } else {
      return std::nullopt;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') {
    captures.emplace_back(n, 0);
    ++p;
  }
  if (p != pattern.size()) return std::nullopt;
  std::string text;
  for (const auto& [start, length] : captures) text.append(name.substr(start, length));
  return text;
}

std::optional<double> parse_number(std::string_view text) {
  double value = 0;
  if (text.empty()) return std::nullopt;
  const char* first = text.data() + (text.front() == '+' ? 1 : 0);
  const auto result = std::from_chars(first, text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && is_digit(a[i_end])) ++i_end;
      while (j_end < b.size() && is_digit(b[j_end])) ++j_end;
      // Compare by value: strip leading zeros, then by length, then digit by digit.
      std::size_t i_first = i, j_first = j;
      while (i_first + 1 < i_end && a[i_first] == '0') ++i_first;
      while (j_first + 1 < j_end && b[j_first] == '0') ++j_first;
      const std::size_t i_length = i_end - i_first, j_length = j_end - j_first;
      if (i_length != j_length) return i_length < j_length;
      const int order = a.substr(i_first, i_length).compare(b.substr(j_first, j_length));
      if (order != 0) return order < 0;
      i = i_end, j = j_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace meshioplusplus::file_sequence
