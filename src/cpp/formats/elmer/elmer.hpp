// Elmer mesh directories (ElmerGrid / ElmerSolver): mesh.header, mesh.nodes, mesh.elements,
// mesh.boundary and the optional mesh.names, read and written as one mesh.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::elmer {

// `path`: the mesh directory or any of its mesh.* files (elmer_reader.cpp says what becomes what).
Mesh read(const std::string& path);
// `path`: the mesh directory, created when missing; the four (five) files replace any there.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// Whether `path` is a directory holding mesh.header: the registry reads such a directory as elmer.
bool is_mesh_directory(const std::string& path) noexcept;

}  // namespace meshioplusplus::elmer
