// Nastran bulk data (.bdf, .nas, .fem): GRID points and element connectivity.
//
// What a read produces:
//   points      (n, 3) float64 from the GRID cards, in file order (GRID ids become dense
//               0-based indices). Coordinates are taken as written: CP and CD coordinate
//               systems are not applied.
//   point_data  "nastran:ref" (int64) — the CP field, as meshio keeps it — only when some GRID
//               gives a non-zero CP (blank counts as 0).
//   cells       CTRIA3/CTRIAR, CTRIA6, CTRIAX6, CQUAD4/CQUADR/CSHEAR, CQUAD8, CQUAD (CQUAD9),
//               CTETRA (4/10), CPYRAM/CPYRA (5/13), CPENTA (6/15), CHEXA (8/20), the line
//               elements CBAR, CBEAM, CBUSH, CBUSH1D, CGAP, CROD, CTUBE, CVISC, CONROD, and
//               CELAS1/CELAS2 (a vertex when grounded, else a line); meshio's CTETRA_, CHEXA_ …
//               (its names for second-order solids) are read as the base cards. Optional midside nodes
//               must be all given or all blank. Consecutive elements of the same type share a
//               block (file order is kept, as meshio keeps it); node orders are converted to
//               meshio's. Element ids are not kept; the writer numbers 1…n.
//   cell_data   "nastran:ref" (int64) — the property id (MID for CTRIAX6, 0 for CONROD and
//               CELAS2, which have none; a blank PID is the element id, Nastran's default) —
//               when some element gives one.
// Input: small fixed (8-column), large fixed (16-column, "*" names and continuations) and free
// (comma) fields, mixed freely; continuation lines start with '+' or '*', or with a blank
// first field; '$' starts a comment (a whole line, or the rest of one); tabs in fixed-format
// lines advance to the next 8-column field. Reals may be Fortran style ("1.0-3", "1.D0",
// ".5+2"). Cards before "BEGIN BULK" (when present) and after ENDDATA, and cards other than
// the above, are skipped. INCLUDE is not followed.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::nastran {

Mesh read(const std::string& path);

// Options (meshio's names and defaults):
//   point_format  "fixed-large" (default) | "fixed-small" | "free": GRID cards.
//   cell_format   "fixed-small" (default) | "fixed-large" | "free": element cards.
// Free-field reals are the shortest text that reads back to the same double; fixed fields
// hold the most digits that fit in 16 (large) or 8 (small) columns — a rounding.
// 2-D points get z = 0. CP comes from point_data "nastran:ref" and PID from cell_data
// "nastran:ref" when present (else blank). Lines are written as CROD, vertices as CELAS1;
// cell types without a card (line3, polygon …) are refused (std::invalid_argument).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::nastran
