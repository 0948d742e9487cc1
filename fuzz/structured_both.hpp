// Differential read of the structured VTK formats for their fuzz targets (structured_both.cpp).
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::fuzzing {
// The explicit read's mesh, after checking that the implicit read plus the made geometry gives
// the same arrays bit for bit (or the same ReadError); aborts on any disagreement.
// format: "vts", "vtr" or "vti".
Mesh read_structured_both(const std::string& path, std::string_view format);
}  // namespace meshioplusplus::fuzzing
