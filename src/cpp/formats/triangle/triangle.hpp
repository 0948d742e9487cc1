// Triangle (Jonathan Shewchuk's 2-D mesh generator): .node, .ele, .poly and .edge files.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::triangle {

// X.node (+ X.ele when it exists), X.ele (+ X.node), X.edge (+ X.node) or X.poly (+ X.node when
// the .poly lists no points).
Mesh read(const std::string& path);
// Option float_fmt. X.node/X.ele: X.node, X.ele (triangle or triangle6 blocks) and, when the
// mesh has line blocks, X.edge; X.edge: X.node and X.edge; X.poly: one .poly (points, line
// blocks as segments, holes and regional attributes from field data).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// .node/.ele are TetGen's too: a .node of dimension 2 or an .ele of 3/6-node triangles
// (io/text/shewchuk_sniff.hpp).
bool looks_like(std::string_view head) noexcept;

}  // namespace meshioplusplus::triangle
