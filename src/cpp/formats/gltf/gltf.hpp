// glTF 2.0 (.gltf JSON with external .bin or data-URI buffers, .glb binary container).
// What becomes what: gltf_reader.cpp; what is written: gltf_writer.cpp.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::gltf {

struct ReadOptions {
  // true: every mesh placed by every node of the scene, transformed to world coordinates (as
  // trimesh's and VTK's scene dumps show them). false: each mesh once, in mesh order, in its
  // own (untransformed) coordinates.
  bool expand_instances = true;
};

Mesh read(const std::string& path);
Mesh read(const std::string& path, const ReadOptions& options);

// Options: embed_buffers (.gltf: the buffer as a base64 data URI instead of a .bin beside it),
// mesh_per_block (one glTF mesh and node per cell block instead of one mesh with a primitive
// per block). .glb or .gltf by the path's extension.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::gltf
