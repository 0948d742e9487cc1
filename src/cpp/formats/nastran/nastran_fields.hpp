// Nastran field values: integers, Fortran-style reals, and reals written to fit a field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "io/text/text_scanner.hpp"

namespace meshioplusplus::nastran::detail {

// A whole (trimmed) field as an integer; nullopt when it is not one. Bytes up to
// `readable_end` (the document's end, when the field lies in it) may be loaded, never read
// as part of the number: short ids then take the 8-byte step. Always inline: returned from a call,
// the optional went through the stack (a byte store read back as 8 bytes stalls), which made
// half of this function's time in the reader.
[[gnu::always_inline]] inline std::optional<std::int64_t> parse_integer(std::string_view field,
                                                                       const char* readable_end = nullptr) noexcept {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (!field.empty()) {
    const char* const last = field.data() + field.size();
    const bool negative = field.front() == '-';
    std::uint64_t magnitude = 0;
    // At most 18 digits: always in range.
    if (io::plain_digits(field.data() + (negative ? 1 : 0), last, magnitude, readable_end) == last)
      return negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
  }
  std::int64_t value = 0;
  const auto [end, error] = io::parse_int64(field.data(), field.data() + field.size(), value);
  if (field.empty() || error != std::errc{} || end != field.data() + field.size()) return std::nullopt;
  return value;
}

// A whole (trimmed) field as a real: plain ("1.5e-3", "7.", ".5") or Fortran style, with the
// exponent letter left out or written D ("1.5-3", "-.5+2", "1.D0"). nullopt when it is
// neither.
std::optional<double> parse_real(std::string_view field) noexcept;

// `value` with a decimal point (Nastran's mark of a real) in at most `width` characters: the
// shortest text that reads back to the same double when it fits (always for width 0), else
// the most significant digits that do, the exponent letter dropped if that buys a digit.
// Throws std::invalid_argument for infinities and NaNs, which a field cannot hold.
std::string format_real(double value, std::size_t width);

}  // namespace meshioplusplus::nastran::detail
