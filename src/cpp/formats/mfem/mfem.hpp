// MFEM's own mesh format (https://mfem.org/mesh-format-v1.0/): "MFEM mesh v1.0" … "v1.3".
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::mfem {

Mesh read(const std::string& path);
// Option float_fmt. Writes "MFEM mesh v1.0" with linear cells: elements = the blocks of the
// highest dimension, boundary = the blocks one dimension lower; attributes from
// "mfem:attribute" (regions and attribute sets are not written).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// .mesh is Medit's too: the first significant line starts with "MFEM".
bool looks_like(std::string_view head) noexcept;

}  // namespace meshioplusplus::mfem
