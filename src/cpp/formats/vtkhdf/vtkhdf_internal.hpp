// Private to the VTKHDF reader (vtkhdf.cpp) and writer (vtkhdf_writer.cpp): what both know of
// the file's layout — the format's name in errors, the /VTKHDF root and its dataset paths, the
// integer count datasets (NumberOfPoints …) and the folder partition files are named from.
// Reader and writer are separate files; this is the little they share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/hdf5/hdf5_file.hpp"

namespace meshioplusplus::vtkhdf::detail {

inline constexpr std::string_view kFormat = "vtkhdf";
inline constexpr std::string_view kRoot = "/VTKHDF";

// "/VTKHDF/<name>".
std::string at(std::string_view name);

// An integer dataset (a count per partition, per step …) as int64 values.
std::vector<std::int64_t> int_values(const io::hdf5::File& file, const std::string& dataset);

// The folder of `path` ("." for a bare file name): partition files are named relative to it.
std::string folder_of(const std::string& path);

}  // namespace meshioplusplus::vtkhdf::detail

// Only the format's own files include this header: they name these without detail::.
namespace meshioplusplus::vtkhdf {

using detail::at;
using detail::folder_of;
using detail::int_values;
using detail::kFormat;
using detail::kRoot;

}  // namespace meshioplusplus::vtkhdf
