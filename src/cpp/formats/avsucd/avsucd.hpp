// AVS-UCD (.avs): the ASCII Unstructured Cell Data format of AVS/Express and LaGriT.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::avsucd {

Mesh read(const std::string& path);
// No options.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::avsucd
