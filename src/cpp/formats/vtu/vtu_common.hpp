// Private to the vtu reader and writer: what both sides must agree on.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <exception>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "io/parallel.hpp"
#include "meshioplusplus/ndarray.hpp"

namespace meshioplusplus::vtu::detail {

inline constexpr std::string_view kFormatName = "vtu";
inline constexpr std::string_view kZlibCompressor = "vtkZLibDataCompressor";

// VTK's own default; readers accept any block size the header announces.
inline constexpr std::size_t kCompressionBlockSize = 32768;

struct VtkTypeName {
  std::string_view vtk_name;
  DType dtype;
};

inline constexpr std::array<VtkTypeName, 10> kVtkTypeNames{{
    {"Int8", DType::int8},
    {"Int16", DType::int16},
    {"Int32", DType::int32},
    {"Int64", DType::int64},
    {"UInt8", DType::uint8},
    {"UInt16", DType::uint16},
    {"UInt32", DType::uint32},
    {"UInt64", DType::uint64},
    {"Float32", DType::float32},
    {"Float64", DType::float64},
}};

inline std::optional<DType> dtype_from_vtk_name(std::string_view vtk_name) noexcept {
  for (const VtkTypeName& entry : kVtkTypeNames)
    if (entry.vtk_name == vtk_name) return entry.dtype;
  return std::nullopt;
}

inline std::string_view vtk_name_of(DType dtype) noexcept {
  for (const VtkTypeName& entry : kVtkTypeNames)
    if (entry.dtype == dtype) return entry.vtk_name;
  return "Float64";
}

using io::parallel_ranges;

}  // namespace meshioplusplus::vtu::detail
