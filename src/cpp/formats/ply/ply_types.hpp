// PLY scalar type names <-> dtypes, shared by the PLY reader and writer.
#pragma once

#include <optional>
#include <string_view>

#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::ply::detail {

struct TypeName {
  std::string_view name;
  DType dtype;
};

// The original names first, so that writing picks them; then the sized aliases; then the
// 64-bit names meshio reads and writes (not in the PLY specification).
inline constexpr TypeName kTypeNames[] = {
    {"char", DType::int8},       {"uchar", DType::uint8},     {"short", DType::int16},
    {"ushort", DType::uint16},   {"int", DType::int32},       {"uint", DType::uint32},
    {"float", DType::float32},   {"double", DType::float64},  {"int8", DType::int8},
    {"uint8", DType::uint8},     {"int16", DType::int16},     {"uint16", DType::uint16},
    {"int32", DType::int32},     {"uint32", DType::uint32},   {"float32", DType::float32},
    {"float64", DType::float64}, {"int64", DType::int64},     {"uint64", DType::uint64},
};

inline std::optional<DType> dtype_of_type_name(std::string_view name) noexcept {
  for (const TypeName& entry : kTypeNames)
    if (entry.name == name) return entry.dtype;
  return std::nullopt;
}

inline std::string_view type_name_of(DType dtype) noexcept {
  for (const TypeName& entry : kTypeNames)
    if (entry.dtype == dtype) return entry.name;
  return "double";
}

}  // namespace meshioplusplus::ply::detail
