// IGES (Initial Graphics Exchange Specification 5.x; .iges/.igs): CAD surfaces and solids,
// read as a triangulated surface through io/occt (OpenCASCADE). Read-only.
#pragma once

#include <string>

#include "io/occt/cad_tessellation.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::iges {

// The registry's read: io::occt::TessellationOptions' defaults.
Mesh read(const std::string& path);
// meshioplusplus.iges.read(path, linear_deflection=, angular_deflection=, relative=).
Mesh read(const std::string& path, const io::occt::TessellationOptions& options);

}  // namespace meshioplusplus::iges
