// libMesh XdrIO meshes: .xda (ASCII) and .xdr (big-endian XDR binary), the mesh files libMesh
// and MOOSE write with MeshBase::write("name.xda"/"name.xdr").
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::libmesh {

// .xda or .xdr, told apart by content (an XDR file starts with a 4-byte string length).
Mesh read(const std::string& path);
// ".xdr" writes XDR binary, anything else ASCII; option `binary` ("auto", "true", "false")
// overrides the extension.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::libmesh
