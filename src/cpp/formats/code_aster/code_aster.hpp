// code_aster's native mesh format (.mail, LIRE_MAILLAGE FORMAT='ASTER'): named nodes and
// elements in blocks closed by FINSF, node and element groups, '%' comments.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::code_aster {

Mesh read(const std::string& path);
// No options.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::code_aster
