// PCD (.pcd): the Point Cloud Library's point cloud file, versions .5, .6 and 0.7, with
// ascii, binary and binary_compressed (LZF) data.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::pcd {

Mesh read(const std::string& path);
// Options: "data" = ascii | binary | binary_compressed (empty: "binary" decides), "binary"
// = true | false (default true).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::pcd
