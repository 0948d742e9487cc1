// Z88 (Z88OS / Z88Aurora) structure files: z88i1.txt (z88structure.txt in Z88Aurora), the
// nodes and elements of a Z88 model.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::z88 {

Mesh read(const std::string& path);
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// Whether the file name (not the path's directories) is one Z88 gives its structure file:
// z88i1.txt or z88structure.txt, any case. The registry reads such a file as z88.
bool is_structure_file_name(std::string_view path) noexcept;

}  // namespace meshioplusplus::z88
