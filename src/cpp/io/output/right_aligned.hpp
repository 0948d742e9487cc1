// Non-negative integers right-aligned in fixed-width fields (Fortran's Iw: I10 node and element
// numbers), the commonest field of the fixed-column decks (ANSYS .cdb EBLOCK rows, I-deas
// records, Patran cards). The field is blanked with one fixed-size store and the digits are
// written from its end backwards, two at a time: no length to find first, no scratch copy.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

namespace meshioplusplus::io {

// "00" … "99".
inline constexpr auto kDigitPairs = [] {
  std::array<char, 200> pairs{};
  for (int i = 0; i < 100; ++i) {
    pairs[2 * i] = static_cast<char>('0' + i / 10);
    pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

// The widest field put_right_aligned fills, and the bytes it may store at p.
inline constexpr int kRightAlignedMaxWidth = 16;

// When 0 <= value < 10^width (1 <= width <= 16), writes `value` right-aligned in `width` columns
// at p and returns true; else returns false, and the caller formats it its own way. Either way
// it may store kRightAlignedMaxWidth bytes at p: p needs that much room.
[[gnu::always_inline]] inline bool put_right_aligned(char* p, std::int64_t value, int width) noexcept {
  static constexpr std::int64_t kLimits[kRightAlignedMaxWidth + 1] = {
      0, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000, 1'000'000'000, 10'000'000'000,
      100'000'000'000, 1'000'000'000'000, 10'000'000'000'000, 100'000'000'000'000, 1'000'000'000'000'000,
      10'000'000'000'000'000};
  if (value < 0 || width < 1 || width > kRightAlignedMaxWidth || value >= kLimits[width]) [[unlikely]]
    return false;
  std::memset(p, ' ', kRightAlignedMaxWidth);
  char* digit = p + width;
  auto rest = static_cast<std::uint64_t>(value);
  while (rest >= 100) {
    digit -= 2;
    std::memcpy(digit, &kDigitPairs[2 * (rest % 100)], 2);
    rest /= 100;
  }
  if (rest >= 10) {
    digit -= 2;
    std::memcpy(digit, &kDigitPairs[2 * rest], 2);
  } else {
    *--digit = static_cast<char>('0' + rest);
  }
  return true;
}

}  // namespace meshioplusplus::io
