// Nastran field values: integers, Fortran-style reals, and reals written to fit a field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meshioplusplus::nastran::detail {

// A whole (trimmed) field as an integer; nullopt when it is not one. Bytes up to
// `readable_end` (the document's end, when the field lies in it) may be loaded, never read
// as part of the number: short ids then take the 8-byte step.
std::optional<std::int64_t> parse_integer(std::string_view field, const char* readable_end = nullptr) noexcept;

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
