// Floor 2: endianness helpers for binary sections.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "io/source/parallel.hpp"

namespace meshioplusplus::io {

inline constexpr bool kHostIsLittleEndian = std::endian::native == std::endian::little;

// One integer of `bytes` (any alignment), in the host's order, or with its bytes reversed.
template <class T, bool kReversed>
inline T load_integer(const unsigned char* bytes) noexcept {
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  if constexpr (kReversed && sizeof(T) == 2) value = static_cast<T>(__builtin_bswap16(static_cast<std::uint16_t>(value)));
  if constexpr (kReversed && sizeof(T) == 4) value = static_cast<T>(__builtin_bswap32(static_cast<std::uint32_t>(value)));
  if constexpr (kReversed && sizeof(T) == 8) value = static_cast<T>(__builtin_bswap64(static_cast<std::uint64_t>(value)));
  return value;
}

// Reverses the byte order of `count` elements of `element_size` bytes, in place.
inline void swap_bytes_in_place(void* data, std::size_t element_size, std::size_t count) noexcept {
  auto* bytes = static_cast<unsigned char*>(data);
  switch (element_size) {
    case 1: return;
    case 2:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t v;
        std::memcpy(&v, bytes + 2 * i, 2);
        v = static_cast<std::uint16_t>((v >> 8) | (v << 8));
        std::memcpy(bytes + 2 * i, &v, 2);
      }
      return;
    case 4:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t v;
        std::memcpy(&v, bytes + 4 * i, 4);
        v = __builtin_bswap32(v);
        std::memcpy(bytes + 4 * i, &v, 4);
      }
      return;
    case 8:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t v;
        std::memcpy(&v, bytes + 8 * i, 8);
        v = __builtin_bswap64(v);
        std::memcpy(bytes + 8 * i, &v, 8);
      }
      return;
    default:
      for (std::size_t i = 0; i < count; ++i) {
        unsigned char* element = bytes + element_size * i;
        for (std::size_t a = 0, b = element_size - 1; a < b; ++a, --b) {
          const unsigned char t = element[a];
          element[a] = element[b];
          element[b] = t;
        }
      }
  }
}

// Copies `count` elements from possibly unaligned `source`, converting from the file's
// byte order to the host's. Large arrays go on all cores (copy_in_parallel), swapped a
// cache-sized piece at a time right behind the copy; single values stay a plain memcpy.
inline void copy_from_file_order(void* target, const void* source, std::size_t element_size,
                                 std::size_t count, bool file_is_little_endian) {
  const bool swapped = file_is_little_endian != kHostIsLittleEndian && element_size > 1;
  const std::size_t bytes = element_size * count;
  if (bytes == 0) return;  // empty arrays may have null pointers, which memcpy must never see
  if (bytes < kParallelBytesMin) {
    std::memcpy(target, source, bytes);
    if (swapped) swap_bytes_in_place(target, element_size, count);
    return;
  }
  if (!swapped) {
    copy_in_parallel(target, source, bytes);
    return;
  }
  auto* to = static_cast<unsigned char*>(target);
  const auto* from = static_cast<const unsigned char*>(source);
  constexpr std::size_t kPieceElements = 8192;
  parallel_ranges((count + kPieceElements - 1) / kPieceElements, 64, [&](std::size_t first_piece, std::size_t last_piece) {
    for (std::size_t piece = first_piece; piece < last_piece; ++piece) {
      const std::size_t first = piece * kPieceElements, n = std::min(kPieceElements, count - first);
      std::memcpy(to + first * element_size, from + first * element_size, n * element_size);
      swap_bytes_in_place(to + first * element_size, element_size, n);
    }
  });
}

}  // namespace meshioplusplus::io
