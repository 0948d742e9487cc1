// meshio's float_fmt (io/output/float_format.hpp).
#include "io/output/float_format.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace meshioplusplus::io {

FloatFormat parse_float_format(std::string_view spec) {
  FloatFormat result;
  if (spec.empty()) return result;
  const std::string quoted = "float_fmt '" + std::string(spec) + "'";
  std::string_view rest = spec;
  int precision = 6;  // Python's default for e, f and g
  if (rest.front() == '.') {
    rest.remove_prefix(1);
    const auto parsed = std::from_chars(rest.data(), rest.data() + rest.size(), precision);
    if (parsed.ec != std::errc() || parsed.ptr == rest.data() || precision > 340)
      throw std::invalid_argument(quoted + ": expected '.<precision><type>' such as '.16e' (precision 0-340)");
    rest.remove_prefix(static_cast<std::size_t>(parsed.ptr - rest.data()));
  }
  if (rest.size() != 1)
    throw std::invalid_argument(quoted + ": only '.<precision>' and one of e, E, f, F, g, G are supported");
  const char type = rest.front();
  switch (std::tolower(static_cast<unsigned char>(type))) {
    case 'e': result.format = std::chars_format::scientific; break;
    case 'f': result.format = std::chars_format::fixed; break;
    case 'g': result.format = std::chars_format::general; break;
    default: throw std::invalid_argument(quoted + ": the type must be one of e, E, f, F, g, G");
  }
  // Python's 'g' with precision 0 means 1, as printf's does.
  result.precision = (result.format == std::chars_format::general && precision == 0) ? 1 : precision;
  result.upper_case = std::isupper(static_cast<unsigned char>(type)) != 0;
  result.shortest = false;
  return result;
}

char* put_float(char* p, double value, const FloatFormat& format) noexcept {
  const std::size_t room = max_float_chars(format);
  char* end = format.shortest ? std::to_chars(p, p + room, value).ptr
                              : std::to_chars(p, p + room, value, format.format, format.precision).ptr;
  if (format.upper_case)
    for (char* c = p; c != end; ++c) *c = static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
  return end;
}

void append_float(std::string& out, double value, const FloatFormat& format) {
  std::array<char, kMaxFormattedFloatChars> scratch;
  out.append(scratch.data(), static_cast<std::size_t>(put_float(scratch.data(), value, format) - scratch.data()));
}

}  // namespace meshioplusplus::io
