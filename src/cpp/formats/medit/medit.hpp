// Medit / Gamma Mesh Format: .mesh (ASCII) and .meshb (binary, libMeshb versions 1-4).
//
// What a read produces:
//   points      (n, dim) with dim 2 or 3 (or 1 in ASCII: meshio's "Dimension 1" for 1-D meshes,
//               which libMeshb refuses), float32 for version 1 files, float64 otherwise.
//   cells       one block per element section, in file order: Edges, Triangles,
//               Quadrilaterals, Tetrahedra, Prisms, Pyramids, Hexahedra (and Hexaedra), plus
//               the second-order EdgesP2, TrianglesP2, TetrahedraP2 (line3, triangle6, tetra10),
//               whose nodes are read in the order Gmsh gives them: vertices, then the edge
//               nodes in meshio's edge order. The other high-order sections are skipped:
//               libMeshb fixes no node order for them.
//   point_data  "medit:ref" — the vertex references.
//   cell_data   "medit:ref" — the element references, one array per block.
//               References are int32, int64 for version 4 files (64-bit integers).
//   regions     one Cell region per (dimension, reference) pair with a non-zero reference,
//               named "medit:ref <ref>" (", dim <d>" appended when the same reference is used
//               by cells of several dimensions), tag = the reference, entries ascending. Ref 0
//               means "no reference" in Medit and gets no region; vertex references get none
//               either (they usually repeat the boundary references: noise) — they stay in
//               point_data.
// ASCII: keywords are matched without regard to case; '#' starts a comment; sections the
// reader does not use are skipped (by their record widths when known, otherwise up to the
// next keyword); "End" is optional.
// Binary: the code word 1 fixes the byte order (either is read); unknown sections are
// skipped through their next-keyword positions.
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::medit {

Mesh read(const std::string& path);
// .mesh is MFEM's too: the .meshb code word 1, or a first keyword of Medit's
// (MeshVersionFormatted, Dimension, Vertices …, any case) after '#' comments.
bool looks_like(std::string_view head) noexcept;

// .meshb is binary, anything else ASCII. Options:
//   version     "" (default: chosen) or "1"-"4". Chosen: 1 for float32 points, 2 for float64,
//               3 when a binary file reaches 2 GiB (64-bit positions), 4 when an index or a
//               reference needs 64 bits. Version 1 stores float32 coordinates, 2-4 float64.
//   big_endian  "false" (default): .meshb byte order; ignored for ASCII.
// References: point_data/cell_data "medit:ref" when present, else the first integer array
// with one value per point/cell (meshio's choice), else 0. Points with 1 coordinate are
// written to ASCII only (as meshio does), 2 or 3 to either. Cell types Medit has no section
// for are refused (std::invalid_argument). Regions are not written: refs carry them.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::medit
