// STEP (ISO 10303-21: AP203, AP214, AP242; .step/.stp): boundary-representation CAD, read as a
// triangulated surface through io/occt (OpenCASCADE). Read-only.
#pragma once

#include <string>

#include "io/occt/cad_tessellation.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::step {

// The registry's read: io::occt::TessellationOptions' defaults.
Mesh read(const std::string& path);
// meshioplusplus.step.read(path, linear_deflection=, angular_deflection=, relative=).
Mesh read(const std::string& path, const io::occt::TessellationOptions& options);

}  // namespace meshioplusplus::step
