// VTK XML UnstructuredGrid (.vtu).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::vtu {

Mesh read(const std::string& path);
// Options: binary (true), compression ("zlib" | "lzma" | "lz4" | "none"), header_type ("UInt32" | "UInt64";
// "" = UInt32), appended (false: inline base64; true: appended raw).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// The same for a mesh the caller has validated, or cut from a validated one (the pieces of a
// .pvtu), so that its indices are not checked once more.
void write_validated(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::vtu
