// The XYZ family (.xyz, .xyzn, .xyzrgb, .pts, .asc): ASCII point clouds of one point a line,
// as CloudCompare, Agisoft Metashape, Open3D and Leica/Faro scanners write them.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::xyz {

struct ReadOptions {
  // The columns' names, comma separated ("x,y,z,nx,ny,nz,r,g,b,intensity", "_" skips one);
  // empty: from a header line naming them, else from the extension's layout.
  std::string columns;
};

Mesh read(const std::string& path);
Mesh read(const std::string& path, const ReadOptions& options);
// Options: float_fmt. The columns follow the extension (xyz_writer.cpp).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::xyz
