// Private to the VTK legacy reader and writer: data type keywords and array-name encoding.
#pragma once

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::vtk::detail {

inline constexpr std::string_view kFormatName = "vtk";

// A legacy data type keyword resolved into how its values sit in the file and which dtype
// holds them in memory. The two differ for 'vtkIdType' (VTK writes ids as 32-bit ints but
// they are 64-bit ids) and 'bit' (packed 8 per byte in binary files, 0/1 bytes in memory).
struct LegacyType {
  DType file_dtype;
  DType memory_dtype;
  bool packed_bits = false;
};

inline bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// Every numeric type keyword VTK's legacy reader knows, plus the 'vtktypeint8' … family
// that meshio's 5.1 writer emits. 'long' is taken as 64-bit, as meshio does (VTK itself
// uses the platform's long, which is 64-bit on the systems that write these files).
inline std::optional<LegacyType> parse_legacy_type(std::string_view keyword) noexcept {
  struct Entry {
    std::string_view name;
    LegacyType type;
  };
  static constexpr Entry kTypes[] = {
      {"bit", {DType::uint8, DType::uint8, true}},
      {"unsigned_char", {DType::uint8, DType::uint8}},
      {"char", {DType::int8, DType::int8}},
      {"signed_char", {DType::int8, DType::int8}},
      {"short", {DType::int16, DType::int16}},
      {"unsigned_short", {DType::uint16, DType::uint16}},
      {"int", {DType::int32, DType::int32}},
      {"unsigned_int", {DType::uint32, DType::uint32}},
      {"long", {DType::int64, DType::int64}},
      {"unsigned_long", {DType::uint64, DType::uint64}},
      {"vtkidtype", {DType::int32, DType::int64}},
      {"vtktypeint8", {DType::int8, DType::int8}},
      {"vtktypeuint8", {DType::uint8, DType::uint8}},
      {"vtktypeint16", {DType::int16, DType::int16}},
      {"vtktypeuint16", {DType::uint16, DType::uint16}},
      {"vtktypeint32", {DType::int32, DType::int32}},
      {"vtktypeuint32", {DType::uint32, DType::uint32}},
      {"vtktypeint64", {DType::int64, DType::int64}},
      {"vtktypeuint64", {DType::uint64, DType::uint64}},
      {"float", {DType::float32, DType::float32}},
      {"double", {DType::float64, DType::float64}},
  };
  for (const Entry& entry : kTypes)
    if (equals_ignoring_case(keyword, entry.name)) return entry.type;
  return std::nullopt;
}

// The keyword a dtype is written with. 64-bit integers are 'long' in 4.2 files (what
// meshio's 4.2 reader understands) and 'vtktypeint64' in 5.1 files (what VTK 9 writes and
// meshio's 5.1 reader understands); VTK's own binary 'long' path is unreliable.
inline std::string_view legacy_type_name(DType dtype, bool version5) noexcept {
  switch (dtype) {
    case DType::int8: return "char";
    case DType::int16: return "short";
    case DType::int32: return "int";
    case DType::int64: return version5 ? "vtktypeint64" : "long";
    case DType::uint8: return "unsigned_char";
    case DType::uint16: return "unsigned_short";
    case DType::uint32: return "unsigned_int";
    case DType::uint64: return version5 ? "vtktypeuint64" : "unsigned_long";
    case DType::float32: return "float";
    case DType::float64: break;
  }
  return "double";
}

// Legacy names are single tokens; VTK escapes anything that would break one as %XX.
inline bool needs_escape(unsigned char c) noexcept { return c <= ' ' || c >= 0x7f || c == '%' || c == '"'; }

inline std::string encode_name(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(name.size());
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (needs_escape(byte)) {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

inline std::string decode_name(std::string_view token) {
  auto hex_value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(token.size());
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '%' && i + 2 < token.size() && hex_value(token[i + 1]) >= 0 &&
        hex_value(token[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(token[i + 1]) * 16 + hex_value(token[i + 2]));
      i += 2;
    } else {
      out += token[i];
    }
  }
  return out;
}

}  // namespace meshioplusplus::vtk::detail
