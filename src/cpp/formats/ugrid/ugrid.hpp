// UGRID (.ugrid): AFLR3's unstructured grid, ASCII or binary; the variant is named by the
// suffix before ".ugrid" (.b8, .lb8, .b8l, .lb8l, .b4, .lb4: C binary; .r8, .lr8, .r4, .lr4:
// Fortran unformatted; none of these: ASCII).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::ugrid {

Mesh read(const std::string& path);
// No options: the file name chooses the variant, as in meshio.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::ugrid
