// HMF (.hmf): meshio's own experimental HDF5 mesh layout. Root attributes type="hmf",
// version="0.1-alpha"; /domain/grid holds Geometry (attribute GeometryType), Topology<k> (one
// per cell block, attribute TopologyType with the XDMF name), NodeAttributes/<name> and
// CellAttributes/<name> (cell data concatenated over the blocks).
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::hmf {

Mesh read(const std::string& path);
// Options: compression (gzip or none; default gzip), compression_opts (level, default 4).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::hmf
