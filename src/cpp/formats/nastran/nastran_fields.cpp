#include "formats/nastran/nastran_fields.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

#include "io/text/fortran_fields.hpp"
#include "io/text/text_scanner.hpp"

namespace meshioplusplus::nastran::detail {
namespace {

// Longer fields are not numbers Nastran writes; they are refused rather than truncated.
constexpr std::size_t kMaxRealText = 48;

// Adds the decimal point Nastran requires of a real: "1" → "1.", "1e+20" → "1.e+20".
std::string with_decimal_point(std::string text) {
  if (text.find('.') != std::string::npos) return text;
  const std::size_t exponent = text.find_first_of("eE");
  text.insert(text.begin() + static_cast<std::ptrdiff_t>(exponent == std::string::npos ? text.size() : exponent), '.');
  return text;
}

// "1.5e-05" → "1.5E-5": upper-case letter, no leading exponent zeros (and no '+' sign or
// letter at all when `drop_letter`: "1.5-5", Nastran's compact form).
std::string tidy_exponent(std::string text, bool drop_letter) {
  const std::size_t e = text.find_first_of("eE");
  if (e == std::string::npos) return text;
  std::string digits = text.substr(e + 1);
  const char sign = digits.empty() || (digits[0] != '-' && digits[0] != '+') ? '+' : digits[0];
  if (digits[0] == '-' || digits[0] == '+') digits.erase(0, 1);
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
  text.erase(e);
  if (drop_letter) return text + sign + digits;
  return text + 'E' + (sign == '-' ? "-" : "+") + digits;
}

std::string shortest(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string with_precision(double value, std::chars_format format, int precision) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, format, precision);
  return std::string(buffer, result.ptr);
}

}  // namespace

std::optional<double> parse_real(std::string_view field) noexcept {
  if (field.size() > kMaxRealText) return std::nullopt;
  double value = 0;
  if (!io::parse_fortran_real(field, value)) return std::nullopt;
  return value;
}

std::string format_real(double value, std::size_t width) {
  if (!std::isfinite(value)) throw std::invalid_argument("Nastran fields cannot hold " + shortest(value));
  const std::string exact = tidy_exponent(with_decimal_point(shortest(value)), false);
  if (width == 0 || exact.size() <= width) return exact;
  const std::string compact = tidy_exponent(with_decimal_point(shortest(value)), true);
  if (compact.size() <= width) return compact;
  // Fewer significant digits until the value fits, in plain or in exponent form.
  for (int digits = 16; digits >= 1; --digits) {
    const std::string plain = with_decimal_point(with_precision(value, std::chars_format::general, digits));
    if (plain.find_first_of("eE") == std::string::npos && plain.size() <= width) return plain;
    const std::string scientific =
        tidy_exponent(with_decimal_point(with_precision(value, std::chars_format::scientific, digits - 1)), true);
    if (scientific.size() <= width) return scientific;
  }
  throw std::invalid_argument("cannot write " + exact + " in " + std::to_string(width) + " columns");
}

}  // namespace meshioplusplus::nastran::detail
