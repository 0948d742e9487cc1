// Private to the vtu reader and writer: what both sides must agree on. Everything about
// DataArrays (dtypes, encodings, compressors) lives in io/vtk/vtk_xml_data.hpp.
#pragma once

#include <string_view>

namespace meshioplusplus::vtu::detail {

inline constexpr std::string_view kFormatName = "vtu";

}  // namespace meshioplusplus::vtu::detail
