// Floor 2: turning the faces of polyhedra out of their cells.
//
// Our polyhedra (mesh.hpp) follow VTK's rule: every face's normal by the right-hand rule on its
// node order points out of the cell. Formats whose faces carry no sign — Exodus II NFACED blocks
// list a face once for the two cells that share it, MED files are written both ways (Salome's
// SMESH outward, older MEDMEM files inward) — are read into that rule here:
//   - per cell, the faces are oriented consistently through their shared edges (each edge walked
//     once in each direction, as on any closed oriented surface), then all of them turned when
//     the cell's signed volume is negative: right for non-convex cells too;
//   - faces whose edges do not close into such a surface (an edge used by one face or by more
//     than two) are oriented one by one: outward when the normal points away from the cell's
//     centroid (the rule for the convex cells such files hold).
// A face is turned by reversing its nodes after the first (the first node stays first).
#pragma once

#include <cstdint>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io {

// Orients every face of the "polyhedron" block `cells` (offsets, face_offsets, connectivity as
// mesh.hpp describes them, indices already checked against `points`) out of its cell, in place;
// returns the number of faces turned. Points of 1 or 2 coordinates count as z = 0. Runs on every
// core; the result does not depend on the thread count.
std::int64_t orient_polyhedron_faces_outward(const NDArray& points, CellBlock& cells);

}  // namespace meshioplusplus::io
