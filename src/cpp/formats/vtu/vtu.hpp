// VTK XML UnstructuredGrid (.vtu).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::vtu {

Mesh read(const std::string& path);
// Skips on disk what `request` leaves out: data arrays not asked for, and with points_only
// the cells (read_selection.hpp).
Mesh read_selected(const std::string& path, const ReadRequest& request);
// Counts and arrays from the XML header, cell types from the types arrays (one byte a cell);
// no points, connectivity or data read.
MeshMetadata read_metadata(const std::string& path);
// Options: binary (true), compression ("zlib" | "lzma" | "lz4" | "none"), header_type ("UInt32" | "UInt64";
// "" = UInt32), appended (false: inline base64; true: appended raw).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// The same for a mesh the caller has validated, or cut from a validated one (the pieces of a
// .pvtu), so that its indices are not checked once more.
void write_validated(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::vtu
