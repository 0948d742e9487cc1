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

// Runs `work(begin, end)` over contiguous ranges covering [0, count): one range per
// hardware thread when each gets at least `grain` items, a single call otherwise. After
// every range has finished, the exception of the earliest failing range is rethrown, so
// errors come out exactly as a sequential run would report them.
template <class Work> void parallel_ranges(std::size_t count, std::size_t grain, Work&& work) {
  const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t ranges = std::min(hardware, count / std::max<std::size_t>(grain, 1));
  if (ranges <= 1) {
    work(std::size_t{0}, count);
    return;
  }
  std::vector<std::exception_ptr> errors(ranges);
  auto run = [&](std::size_t range) {
    try {
      work(count * range / ranges, count * (range + 1) / ranges);
    } catch (...) {
      errors[range] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(ranges - 1);
  for (std::size_t range = 1; range < ranges; ++range) {
    try {
      threads.emplace_back(run, range);
    } catch (const std::system_error&) {
      run(range);  // no thread to be had: do that share here
    }
  }
  run(0);
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace meshioplusplus::vtu::detail
