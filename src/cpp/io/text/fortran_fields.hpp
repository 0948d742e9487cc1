// Fixed-width fields as Fortran programs write them (ANSYS .cdb blocks, CalculiX .frd records;
// the real parser serves Nastran, LS-DYNA and I-deas .unv too):
// an integer or a real in a column range, blank meaning 0, and the real forms Fortran's E
// editing produces — "1.5E+000", "1.5D+00", and "1.5-100" (the E left out of a 3-digit
// exponent). Locale-independent (std::from_chars), no allocation.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace meshioplusplus::io {

inline std::string_view trim_blanks(std::string_view text) noexcept {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

// The text of the field [begin, begin + width) of `line`, blanks trimmed (empty when the line
// ends before it).
inline std::string_view fixed_field(std::string_view line, std::size_t begin, std::size_t width) noexcept {
  if (begin >= line.size()) return {};
  return trim_blanks(line.substr(begin, width));
}

// The plain form of an integer field ("   -123": blanks around an optional '-' and up to 18
// digits) read inline; false for anything else (then fortran_integer decides).
inline bool plain_fixed_integer(const char* p, const char* end, std::int64_t& value) noexcept {
  while (p < end && *p == ' ') ++p;
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  std::int64_t v = 0;
  const char* const first = p;
  while (p < end && static_cast<unsigned char>(*p - '0') < 10 && p - first < 18) v = v * 10 + (*p++ - '0');
  if (p == first && negative) return false;
  while (p < end && *p == ' ') ++p;
  if (p != end) return false;
  value = negative ? -v : v;
  return true;
}

// A trimmed integer field: empty -> 0; an optional sign and digits in range; else false.
inline bool fortran_integer(std::string_view text, std::int64_t& value) noexcept {
  if (text.empty()) {
    value = 0;
    return true;
  }
  if (text.front() == '+') text.remove_prefix(1);
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc{} && result.ptr == text.data() + text.size();
}

// A real as Fortran programs write it (the one parser of them: ANSYS .cdb, CalculiX .frd,
// Nastran, LS-DYNA, I-deas .unv): "1.5E+000", "1.5D+00", "1.5-100" / "1.-3" (the E left
// out before the exponent's sign), ".5", "+2.", "NaN"; the whole text or false. Empty: false.
inline bool parse_fortran_real(std::string_view text, double& value) noexcept {
  if (text.empty()) return false;
  const char* first = text.data();
  const char* last = first + text.size();
  if (*first == '+') ++first;
  if (first == last) return false;
  auto result = std::from_chars(first, last, value, std::chars_format::general);
  if (result.ec == std::errc{} && result.ptr == last) return true;  // the common form, unchanged
  const auto size = static_cast<std::size_t>(last - first);
  if (size > 62) return false;
  char buffer[128];
  std::size_t n = 0;
  bool exponent = false;
  auto is_letter = [](char c) { return c == 'd' || c == 'D' || c == 'e' || c == 'E'; };
  for (std::size_t i = 0; i < size; ++i) {
    const char c = first[i];
    if (is_letter(c)) {
      if (exponent) return false;
      buffer[n++] = 'e';
      exponent = true;
      continue;
    }
    if ((c == '-' || c == '+') && i > 0 && !exponent && !is_letter(first[i - 1])) {
      buffer[n++] = 'e';
      exponent = true;
    }
    buffer[n++] = c;
  }
  result = std::from_chars(buffer, buffer + n, value, std::chars_format::general);
  return result.ec == std::errc{} && result.ptr == buffer + n;
}

// A trimmed real field of a fixed-width record: empty (a blank field) -> 0, else as above.
inline bool fortran_real(std::string_view text, double& value) noexcept {
  if (text.empty()) {
    value = 0.0;
    return true;
  }
  return parse_fortran_real(text, value);
}

}  // namespace meshioplusplus::io
