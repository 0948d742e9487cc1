#include "formats/lsdyna/lsdyna_cards.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <system_error>

#include "io/text/fortran_fields.hpp"

namespace meshioplusplus::lsdyna::detail {
namespace {

bool blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r'; }

// Longer real fields are not numbers LS-DYNA writes; they are refused rather than cut.
constexpr std::size_t kMaxRealText = 64;


}  // namespace

std::string_view trim(std::string_view text) noexcept {
  std::size_t begin = 0, end = text.size();
  while (begin < end && blank(text[begin])) ++begin;
  while (end > begin && blank(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

Keyword parse_keyword(std::string_view line) {
  Keyword keyword;
  std::string_view body = line.substr(1);
  std::size_t end = 0;
  while (end < body.size() && !blank(body[end]) && body[end] != ',') ++end;
  keyword.name.reserve(end);
  for (std::size_t i = 0; i < end; ++i)
    keyword.name.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(body[i]))));
  std::string_view rest = body.substr(end);
  while (!rest.empty() && (blank(rest.front()) || rest.front() == ',')) rest.remove_prefix(1);
  rest = trim(rest);
  auto mark = [](char c) -> std::optional<FieldMode> {
    if (c == '+') return FieldMode::long_format;
    if (c == '-') return FieldMode::standard;
    if (c == '%') return FieldMode::i10;
    return std::nullopt;
  };
  if (keyword.name.size() > 1) {
    if (const auto mode = mark(keyword.name.back())) {
      keyword.mode = mode;
      keyword.name.pop_back();
    }
  }
  if (!keyword.mode && rest.size() == 1) {
    if (const auto mode = mark(rest.front())) {
      keyword.mode = mode;
      rest = {};
    }
  }
  keyword.rest = rest;
  return keyword;
}

FieldMode keyword_mode(std::string_view rest, FieldMode current) {
  std::string text;
  for (const char c : rest) text.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  for (char& c : text)
    if (c == ',' || c == '\t') c = ' ';
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && text[at] == ' ') ++at;
    std::size_t end = at;
    while (end < text.size() && text[end] != ' ') ++end;
    const std::string_view token = std::string_view(text).substr(at, end - at);
    if (token == "LONG=Y" || token == "LONG=S" || token == "LONG=K") current = FieldMode::long_format;
    else if (token == "I10=Y" && current != FieldMode::long_format) current = FieldMode::i10;
    at = end;
  }
  return current;
}

std::size_t split_fields(std::string_view line, const FieldSpec* layout, std::size_t layout_size, FieldMode mode,
                         std::string_view* out, std::size_t capacity) noexcept {
  if (std::memchr(line.data(), ',', line.size()) != nullptr) {
    std::size_t count = 0, at = 0;
    while (count < capacity) {
      const std::size_t comma = line.find(',', at);
      const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
      out[count++] = trim(line.substr(at, end - at));
      if (comma == std::string_view::npos) break;
      at = comma + 1;
    }
    for (std::size_t i = count; i < std::min(layout_size, capacity); ++i) out[i] = {};
    return std::max(count, std::min(layout_size, capacity));
  }
  std::size_t column = 0;
  const std::size_t count = std::min(layout_size, capacity);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t width = field_width(layout[i], mode);
    out[i] = column < line.size() ? trim(line.substr(column, width)) : std::string_view();
    column += width;
  }
  return count;
}

std::optional<std::int64_t> parse_integer(std::string_view field) noexcept {
  if (field.empty()) return 0;
  if (field.front() == '+') field.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || error != std::errc{} || end != field.data() + field.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_real(std::string_view field) noexcept {
  if (field.empty()) return 0.0;  // a blank field of a card
  if (field.size() > kMaxRealText) return std::nullopt;
  double value = 0;
  if (!io::parse_fortran_real(field, value)) return std::nullopt;
  return value;
}

}  // namespace meshioplusplus::lsdyna::detail
