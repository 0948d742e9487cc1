// TetGen (.node + .ele): a tetrahedral mesh as a pair of ASCII files with the same stem.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::tetgen {

// `path` names either file of the pair; both are read.
Mesh read(const std::string& path);
// .node/.ele are Triangle's too: a .node of dimension 3 or an .ele of 4/10-node elements
// (io/text/shewchuk_sniff.hpp).
bool looks_like(std::string_view head) noexcept;
// No options. Writes both files of the pair, each through its own temporary file.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::tetgen
