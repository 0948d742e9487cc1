// Polyhedron blocks → the face list of one NGON_n section and the signed face lists of the
// NFACE_n sections (one per block), for the CGNS writer.
//
// SIDS: an NFACE_n element lists face element numbers, positive where the face's normal (its
// node order by the right-hand rule) points out of the cell, negative where it points in. Our
// polyhedron faces are oriented out of their cell (VTK's rule), so a face a cell holds alone
// is positive. Faces two polyhedra share (the same node set) are written once, through
// io::faces_from_cells(): in the order its owner lists them (positive there), negative in the
// neighbour; when the blocks do not form such a face topology (a node set on three cells…)
// every cell keeps its own faces, which is valid CGNS too. Either way each cell lists its faces
// in its own order, so a read back gives every face back, up to a rotation of its nodes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::cgns {

struct PolyFaces {
  // Face f (0-based) is nodes[offsets[f] .. offsets[f + 1]): 0-based points.
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int64_t> nodes;
  // Per block: cell c lists faces[cell_offsets[c] .. cell_offsets[c + 1]), each ±(f + 1).
  struct BlockFaces {
    std::vector<std::int64_t> cell_offsets, faces;
  };
  std::vector<BlockFaces> blocks;
  bool shared = false;  // faces of two cells written once

  std::int64_t num_faces() const noexcept { return static_cast<std::int64_t>(offsets.size()) - 1; }
};

// `blocks`: polyhedron blocks (validate()d: offsets and face_offsets consistent).
PolyFaces polyhedron_faces(std::span<const CellBlock* const> blocks);

}  // namespace meshioplusplus::cgns
