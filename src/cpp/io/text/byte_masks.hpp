// Which of 64 bytes are one of a few characters, as a bit mask (bit i: at[i]): the bulk scans
// of text readers (field starts, blank lines) look at 64 bytes per step with it instead of one
// at a time. SSE2 where the target has it (every x86-64), a plain loop elsewhere; both give the
// same mask.
#pragma once

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace meshioplusplus::io {

// Bit i set when at[i] is one of `Chars`, for i in 0..63; `at` must have 64 readable bytes.
template <char... Chars>
[[gnu::always_inline]] inline std::uint64_t byte_mask64(const char* at) noexcept {
  static_assert(sizeof...(Chars) > 0);
#if defined(__SSE2__)
  const auto mask16 = [](const char* p) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i any = (_mm_cmpeq_epi8(bytes, _mm_set1_epi8(Chars)) | ...);
    return static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(any)));
  };
  return mask16(at) | mask16(at + 16) << 16 | mask16(at + 32) << 32 | mask16(at + 48) << 48;
#else
  std::uint64_t mask = 0;
  for (int i = 0; i < 64; ++i) mask |= static_cast<std::uint64_t>(((at[i] == Chars) || ...)) << i;
  return mask;
#endif
}

}  // namespace meshioplusplus::io
