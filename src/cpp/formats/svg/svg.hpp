// SVG (.svg), write only: a flat mesh drawn as one <path> per cell, in meshio's layout.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::svg {

// Options (meshio's names; numbers in shortest round-trip form unless float_fmt is given):
//   float_fmt     "" — a Python format spec for the coordinates ('.3f', meshio's default there).
//   stroke_width  "" (default: the drawing's width / 100) — CSS stroke-width.
//   image_width   "100" (default) — the drawing is scaled to this width; "none" keeps the
//                 mesh's own coordinates.
//   fill          "#c8c5bd", stroke "#000080" — CSS colours (ParaView's defaults).
// Points must be 2-D, or 3-D with every z within 1e-14 of 0 (std::invalid_argument otherwise,
// as meshio). y is flipped (SVG's y axis points down) and viewBox is "min_x min_y width
// height" of the flipped, scaled drawing. Lines, triangles, quads and polygons become paths
// "M x y L x y … [Z]"; vertex blocks have nothing to draw and are skipped; other cell types
// are refused (meshio skips all but line, triangle and quad). Data and regions are not written.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::svg
