// WKT (.wkt): OGC Well-Known Text surfaces — TIN, POLYHEDRALSURFACE, MULTIPOLYGON, POLYGON.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::wkt {

Mesh read(const std::string& path);
// No options.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::wkt
