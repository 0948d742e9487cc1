// Pixar's Universal Scene Description, text layers (.usda): Mesh, Points and BasisCurves prims
// with their transforms, primvars and GeomSubsets (formats/usd/usd_reader.cpp says what becomes
// what). Binary crate layers (.usdc) and packages (.usdz) are read on the Python side through
// Pixar's usd-core (meshioplusplus/_format_extras/usd.py); here they raise a ReadError saying so.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::usd {

Mesh read(const std::string& path);
// No options: one Mesh prim "/mesh" holding every face block (formats/usd/usd_writer.cpp).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::usd
