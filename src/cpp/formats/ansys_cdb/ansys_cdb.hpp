// ANSYS MAPDL archive / coded database files (.cdb), as CDWRITE, Workbench and HyperMesh
// write them. Read and write.
//
// What a read produces (formats/ansys_cdb/ansys_cdb_reader.cpp says how):
//   points      float64 (n, 3) from the NBLOCK: node numbers are free and renumbered 0..n-1 in
//               file order; NBLOCK's rotation angles are not kept.
//   cells       one block per cell type, in order of first appearance, the elements in file
//               order. An element's type number (EBLOCK field 2) names an ET command's
//               element routine (186 or SOLID186), whose family and the element's repeated
//               nodes give the cell type (degenerate bricks as wedges, pyramids, tetrahedra;
//               shells with K = L as triangles), ANSYS's node order mapped to VTK's
//               (formats/ansys_cdb/ansys_cdb_elements.hpp). Elements of routines without a
//               cell (PRETS179 pretension, MPC184, SURF159, TARGE169 …) are left out.
//   cell data   ansys:element (element number), ansys:type (type number), ansys:routine
//               (ET routine, 186), ansys:mat, ansys:real, ansys:secnum: int64 per cell.
//   regions     CMBLOCK NODE components -> Point regions, ELEM components -> Cell regions
//               (block-major indices of the elements read; elements left out drop out).
#pragma once

#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::ansys_cdb {

Mesh read(const std::string& path);

// No options. Writes /PREP7, one ET command per type number, the NBLOCK ((3i10,6e25.16e3):
// 17 significant digits, so points read back bit for bit; 2-D points get z = 0), one solid
// EBLOCK ((19i10)) and a CMBLOCK per Point and Cell region ((8i10), runs of numbers as
// ranges). Nodes are numbered 1..n; elements by ansys:element when it holds positive, distinct
// numbers, else 1..N. ansys:type / ansys:routine / ansys:mat / ansys:real / ansys:secnum are
// written where present and fitting, else a routine per cell type (SOLID185 for linear solids,
// SOLID186 quadratic bricks, wedges and pyramids, SOLID187 tetra10, SHELL181/281 shells,
// LINK180, BEAM189, MASS21) and 1. Wedges, pyramids and tetrahedra under a brick routine and
// triangles under a shell routine are written as degenerate bricks / quads. Cell types with no
// ANSYS element are refused (std::invalid_argument); point/field data and Side regions are not
// written.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::ansys_cdb
