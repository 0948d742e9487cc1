// XDMF's polyhedra, private to the XDMF folder. XDMF 3 stores a polyhedron as VTK's face
// stream [nfaces, n0, ids…, n1, ids…] (io/vtk/vtk_face_stream.hpp): in a Mixed topology after
// the id 16 (0x10), in a TopologyType="Polyhedron" topology the cells' streams back to back.
// VTK's XDMF reader (vtkXdmfReader, XDMF 2 library) reads Mixed id 16 but refuses
// TopologyType="Polyhedron", so the writer always puts polyhedra into a Mixed topology; the
// reader takes both.
#pragma once

#include <cstdint>
#include <span>

#include "io/cells/xdmf_cell_types.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::xdmf {

// Not in io::kMixedIds: a face count, not a node count, follows the id.
inline constexpr io::MixedId kMixedPolyhedron{0x10, "polyhedron", 0};

// The polyhedra of a TopologyType="Polyhedron" DataItem; io::CellStreamError, naming the cell,
// for a stream that runs past the data.
CellBlock polyhedra_from_streams(std::span<const std::int64_t> values);

// The Mixed entries of a polyhedron block: its length, and each cell's id 16 + stream into `out`.
std::int64_t mixed_polyhedra_size(const CellBlock& block);
std::int64_t* write_mixed_polyhedra(const CellBlock& block, std::int64_t* out);

}  // namespace meshioplusplus::xdmf
