// Floor 2: endianness helpers for binary sections.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace meshioplusplus::io {

inline constexpr bool kHostIsLittleEndian = std::endian::native == std::endian::little;

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
// byte order to the host's.
inline void copy_from_file_order(void* target, const void* source, std::size_t element_size,
                                 std::size_t count, bool file_is_little_endian) noexcept {
  std::memcpy(target, source, element_size * count);
  if (file_is_little_endian != kHostIsLittleEndian) swap_bytes_in_place(target, element_size, count);
}

}  // namespace meshioplusplus::io
