// Plain decimals — what writers print: "-12.375", "5e-3", "57.12345504760742" — read to the
// same bits as std::from_chars, several times faster, for the bulk of text point clouds.
//
// Clinger's fast path: a mantissa of at most 2^53 and a power of ten of at most 22 are both
// exact doubles, so one IEEE multiplication or division gives the correctly rounded double
// (longer mantissas: the same in x87 long double, see parse_long_mantissa).
// A float is that double rounded again, which is the correctly rounded float unless the
// double lies exactly halfway between two floats (then, as for subnormal, huge or long
// numbers, signs other than '-', "inf", "nan", "1.", ".5" and hex), the caller's
// std::from_chars decides. So the result is always what from_chars gives; only faster.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

namespace meshioplusplus::io {

namespace fast_decimal_detail {

inline constexpr double kExactPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// 17-19 digit mantissas (a double's shortest form often has 17) where x87's 64-bit long
// double is there: the mantissa and 10^e are exact in it, one operation rounds correctly to
// 64 bits, and rounding that to a double is correct unless it lies exactly halfway between
// two doubles (its 11 bits below a double's mantissa 100…0) — the same argument as for
// floats below. Elsewhere (long double = double, or IEEE quad in software) not taken.
inline bool parse_long_mantissa(std::uint64_t mantissa, int exponent, double& out) noexcept {
  if constexpr (std::numeric_limits<long double>::digits == 64 && std::numeric_limits<long double>::is_iec559) {
    long double value = static_cast<long double>(mantissa);  // exact: 64-bit significand
    const auto power = static_cast<long double>(kExactPowersOfTen[exponent < 0 ? -exponent : exponent]);  // exact
    value = exponent < 0 ? value / power : value * power;
    std::uint64_t significand;  // x87 layout: the 64-bit significand first, integer bit explicit
    std::memcpy(&significand, &value, sizeof significand);
    if ((significand & 0x7FF) == 0x400) return false;
    out = static_cast<double>(value);
    return true;
  } else {
    return false;
  }
}

// Eight ASCII digits at p, tested and summed with a few 64-bit operations (little-endian
// hosts; the loop below takes the rest one digit at a time).
inline bool eight_digits_at(const char* p, std::uint64_t& chunk) noexcept {
  std::memcpy(&chunk, p, 8);
  return (((chunk + 0x4646464646464646u) | (chunk - 0x3030303030303030u)) & 0x8080808080808080u) == 0;
}

inline std::uint64_t value_of_eight_digits(std::uint64_t chunk) noexcept {
  constexpr std::uint64_t kMask = 0x000000FF000000FFu;
  constexpr std::uint64_t kHundredAndMillion = 100 + (std::uint64_t{1000000} << 32);
  constexpr std::uint64_t kOneAndTenThousand = 1 + (std::uint64_t{10000} << 32);
  chunk -= 0x3030303030303030u;
  chunk = chunk * 10 + (chunk >> 8);
  return (((chunk & kMask) * kHundredAndMillion) + (((chunk >> 16) & kMask) * kOneAndTenThousand)) >> 32;
}

// The digits from p appended to `mantissa` (wrapping past 19: `count` tells), their end returned.
inline const char* read_digits(const char* p, const char* last, std::uint64_t& mantissa, int& count) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    std::uint64_t chunk;
    while (last - p >= 8 && eight_digits_at(p, chunk)) {
      mantissa = mantissa * 100000000u + value_of_eight_digits(chunk);
      p += 8;
      count += 8;
    }
  }
  for (; p < last && static_cast<unsigned char>(*p - '0') < 10; ++p) {
    mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    ++count;
  }
  return p;
}

// The number starting at `first` as a correctly rounded double when the fast path covers
// it: returns where it ends (at `last` or the first character that cannot continue it, which
// the caller checks is a separator), or nullptr for the caller's std::from_chars.
inline const char* scan_plain_double(const char* first, const char* last, double& out) noexcept {
  const char* p = first;
  const bool negative = p < last && *p == '-';
  if (negative) ++p;
  std::uint64_t mantissa = 0;
  int digits = 0;  // significant digits in the mantissa (leading zeros do not count)
  const char* const integer_begin = p;
  while (p < last && *p == '0') ++p;
  p = read_digits(p, last, mantissa, digits);
  if (p == integer_begin) return nullptr;  // ".5", "-", "inf", "nan": from_chars decides
  int exponent = 0;
  if (p < last && *p == '.') {
    ++p;
    const char* const fraction_begin = p;
    if (mantissa == 0)
      while (p < last && *p == '0') ++p;  // 0.000123: the zeros only scale
    p = read_digits(p, last, mantissa, digits);
    if (p == fraction_begin) return nullptr;  // "1."
    exponent = -static_cast<int>(p - fraction_begin);
  }
  if (digits > 19) return nullptr;  // the mantissa may have wrapped
  if (p < last && (*p == 'e' || *p == 'E')) {
    ++p;
    const bool negative_exponent = p < last && *p == '-';
    if (p < last && (*p == '-' || *p == '+')) ++p;
    const char* const exponent_begin = p;
    int value = 0;
    for (; p < last && static_cast<unsigned char>(*p - '0') < 10 && p - exponent_begin < 4; ++p) value = value * 10 + (*p - '0');
    if (p == exponent_begin) return nullptr;  // "1e": from_chars decides
    exponent += negative_exponent ? -value : value;
  }
  if (exponent < -22 || exponent > 22) return nullptr;
  double value;
  if (mantissa <= (std::uint64_t{1} << 53)) {
    value = static_cast<double>(mantissa);  // exact
    value = exponent < 0 ? value / kExactPowersOfTen[-exponent] : value * kExactPowersOfTen[exponent];
  } else if (!parse_long_mantissa(mantissa, exponent, value)) {
    return nullptr;
  }
  out = negative ? -value : value;
  return p;
}

// The float of a correctly rounded double, when that is the correctly rounded float.
inline bool narrow_exactly(double wide, float& out) noexcept {
  const double magnitude = wide < 0 ? -wide : wide;
  if (magnitude != 0 && (magnitude < static_cast<double>(std::numeric_limits<float>::min()) ||
                         magnitude > static_cast<double>(std::numeric_limits<float>::max())))
    return false;  // subnormal or out of range: from_chars' rounding and errors
  // A double halfway between two floats (its 29 bits below a float's mantissa 1000…0) may be
  // a decimal just above or below that point rounded onto it: only from_chars knows which.
  constexpr std::uint64_t kBelowFloat = (std::uint64_t{1} << 29) - 1;
  if ((std::bit_cast<std::uint64_t>(wide) & kBelowFloat) == (std::uint64_t{1} << 28)) return false;
  out = static_cast<float>(wide);
  return true;
}

}  // namespace fast_decimal_detail

// The number at `first` (a '-', digits, '.' digits, e/E exponent) read fast: where it ends,
// with `out` set, or nullptr (out untouched) when the caller must ask std::from_chars. What
// follows the number is the caller's to check: "1.5x" ends at 'x'.
inline const char* scan_plain_decimal(const char* first, const char* last, double& out) noexcept {
  return fast_decimal_detail::scan_plain_double(first, last, out);
}

inline const char* scan_plain_decimal(const char* first, const char* last, float& out) noexcept {
  double wide = 0;
  const char* const end = fast_decimal_detail::scan_plain_double(first, last, wide);
  if (end == nullptr || !fast_decimal_detail::narrow_exactly(wide, out)) return nullptr;
  return end;
}

// True with `out` set when all of [first, last) is a plain decimal the fast path reads;
// false (out untouched) when the caller must ask std::from_chars.
template <class T> bool parse_plain_decimal(const char* first, const char* last, T& out) noexcept {
  T value{};
  if (scan_plain_decimal(first, last, value) != last) return false;
  out = value;
  return true;
}

}  // namespace meshioplusplus::io
