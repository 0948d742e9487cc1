// Floor 2: meshio's `float_fmt` write option — a Python format spec for floats (".16e", ".6g",
// ".3f") — as std::to_chars arguments. The text writers meshio gives that keyword (Abaqus,
// FLAC3D, Gmsh, Kratos MDPA, Medit, Netgen, TetGen, SVG) print floats through it when a caller
// passes one; without it every writer prints the shortest form that round-trips.
//
// The spec is the subset meshio's writers are used with: an optional ".precision" and one of
// the presentation types e, E, f, F, g, G (Python's default precision 6 when none is given).
// std::to_chars prints these exactly as Python's format() does, exponent digits included,
// and independently of the locale. Anything else (widths, signs, '%') is refused by name.
#pragma once

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>

namespace meshioplusplus::io {

struct FloatFormat {
  bool shortest = true;  // the default: shortest round-trip form, no precision
  std::chars_format format = std::chars_format::general;
  int precision = 0;
  bool upper_case = false;  // E, F, G: "1E+00", "INF", "NAN"
};

// "" (or an option that was not given) → shortest. Throws std::invalid_argument naming the spec.
FloatFormat parse_float_format(std::string_view spec);

// Fixed notation of 1e308 with 340 decimals needs 650 characters: room for any value in any format.
inline constexpr std::size_t kMaxFormattedFloatChars = 720;

// At most this many characters for one value printed as `format` (the shortest form: 32).
constexpr std::size_t max_float_chars(const FloatFormat& format) noexcept {
  return format.shortest ? 32 : kMaxFormattedFloatChars;
}

// `value` printed as `format` at p (room for max_float_chars(format)); returns the end. For the
// rows io::write_rows_in_parallel formats.
char* put_float(char* p, double value, const FloatFormat& format) noexcept;

// Appends `value` printed as `format` to `out`.
void append_float(std::string& out, double value, const FloatFormat& format);

}  // namespace meshioplusplus::io
