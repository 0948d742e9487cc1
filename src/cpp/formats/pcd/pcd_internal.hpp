// What the PCD reader and writer share: the header's TYPE letter and SIZE <-> dtype, and the
// copy of one field of a binary record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::pcd::detail {

inline constexpr std::string_view kFormat = "pcd";

// TYPE I/U/F with SIZE 1/2/4/8 (F only 4 and 8: PCL has no half floats).
inline std::optional<DType> dtype_of_field(char type, int size) noexcept {
  switch (type) {
    case 'I':
      return size == 1 ? std::optional{DType::int8}
             : size == 2 ? std::optional{DType::int16}
             : size == 4 ? std::optional{DType::int32}
             : size == 8 ? std::optional{DType::int64}
                         : std::nullopt;
    case 'U':
      return size == 1 ? std::optional{DType::uint8}
             : size == 2 ? std::optional{DType::uint16}
             : size == 4 ? std::optional{DType::uint32}
             : size == 8 ? std::optional{DType::uint64}
                         : std::nullopt;
    case 'F':
      return size == 4 ? std::optional{DType::float32} : size == 8 ? std::optional{DType::float64} : std::nullopt;
    default:
      return std::nullopt;
  }
}

inline char type_letter_of(DType dtype) noexcept {
  if (dtype_is_float(dtype)) return 'F';
  return dtype_is_signed_int(dtype) ? 'I' : 'U';
}

// PCL stores the packed colour "rgb" as a float whose bits are 0x00RRGGBB (several opaque
// colours are NaN as floats), and its ascii writer prints those bits as an unsigned integer.
inline bool is_packed_colour(std::string_view name, DType dtype) noexcept {
  return dtype == DType::float32 && (name == "rgb" || name == "rgba");
}

// One field of a record copied: the sizes fields come in (a value, an xyz, a normal …) as one
// fixed-size load and store each, where a call of memcpy a field would cost more than the copy.
inline void copy_field(std::uint8_t* to, const std::uint8_t* from, std::size_t size) noexcept {
  switch (size) {
    case 1: *to = *from; break;
    case 2: std::memcpy(to, from, 2); break;
    case 4: std::memcpy(to, from, 4); break;
    case 8: std::memcpy(to, from, 8); break;
    case 12: std::memcpy(to, from, 12); break;
    case 16: std::memcpy(to, from, 16); break;
    case 24: std::memcpy(to, from, 24); break;
    default: std::memcpy(to, from, size);
  }
}

}  // namespace meshioplusplus::pcd::detail
