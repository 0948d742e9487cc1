// Floor 2: VTK's cell stream (types + offsets + connectivity [+ polyhedron faces]) to and
// from meshio++ cell blocks. Shared by the XML (.vtu) and legacy (.vtk) formats.
//
// Reading groups consecutive cells of one type into a block (as meshio does), so cell
// order — and with it cell data — is preserved without permutation.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io {

// Raised for an inconsistent stream; the format turns it into a ReadError with a location.
class CellStreamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct VtkCellStream {
  std::span<const std::uint8_t> types;    // n VTK cell ids (every VTK id is below 256)
  std::span<const std::int64_t> offsets;  // n+1 start offsets into connectivity, offsets[0] == 0
  NDArray connectivity;                   // any integer dtype, 1-D
  // False when `connectivity` is parsing scratch that must not become a returned block.
  bool connectivity_is_shareable = true;
  // True when `connectivity` is a view of a file's bytes in the other byte order (legacy
  // binary VTK is big-endian), possibly unaligned: values are swapped as they are gathered,
  // so the file's array is read once instead of being copied and swapped first.
  bool connectivity_byte_swapped = false;
  // Polyhedra (VTK 42): per polyhedron its face stream [nfaces, n0, ids…, n1, ids…]
  // (io/vtk/vtk_face_stream.hpp); face_offsets are n+1 start offsets into `faces` (only
  // polyhedron cells are read). VTU keeps the streams in their own array; legacy files keep
  // each in the cell's own list, so there `faces` is `connectivity` and `face_offsets` the
  // cell offsets. `faces_byte_swapped` as connectivity_byte_swapped, for `faces`.
  NDArray faces;
  std::span<const std::int64_t> face_offsets;
  bool faces_byte_swapped = false;
  std::int64_t num_points = 0;  // for the index range check
  // True when the caller has checked every connectivity index against num_points (VTKHDF
  // checks each partition's against that partition's points): a connectivity shared as one
  // block is then not checked a second time.
  bool indices_checked = false;
};

struct CellRun {
  std::int64_t first_cell;
  std::int64_t cell_count;
};

struct VtkCells {
  std::vector<CellBlock> blocks;
  std::vector<CellRun> runs;  // runs[i] = the source cells of blocks[i]
};

VtkCells cells_from_vtk(const VtkCellStream& stream);

// Slices per-cell data (rows = cells) into the blocks' runs. A single run covering the
// whole array shares it without copying.
std::vector<NDArray> split_cell_data(const NDArray& data, const std::vector<CellRun>& runs);

// The inverse, for writers: the VTK stream of `blocks` in block order.
struct VtkCellArrays {
  NDArray types;         // uint8 (n,)
  NDArray offsets;       // int64 (n,) end offsets into connectivity (VTU convention)
  NDArray connectivity;  // int64 (total,)
  NDArray faces;         // int64, empty handle when there are no polyhedra
  NDArray face_offsets;  // int64 (n,) end offsets into faces, -1 for non-polyhedra
};
VtkCellArrays cells_to_vtk(const std::vector<CellBlock>& blocks);

// The same stream for writers that can send the connectivity as several pieces: types and
// offsets are built, but each block's connectivity stays the block's own array (a permuted
// copy only for types whose node order differs from VTK's), so a large mesh's connectivity is
// never copied before it is written. Meshes with polyhedra: nullopt (use cells_to_vtk).
struct VtkCellSegments {
  NDArray types;                      // uint8 (n,)
  NDArray offsets;                    // int64 (n,) end offsets (VTU convention)
  std::vector<NDArray> connectivity;  // int64, one per block, in block order
};
std::optional<VtkCellSegments> cells_to_vtk_segments(const std::vector<CellBlock>& blocks);

// Its two halves, for writers that take them apart (VTKHDF writes the pieces and derives the
// types and offsets block by block, below): the connectivity pieces (nullopt with
// polyhedra), and the types and end offsets (scratch arrays, never through the allocator
// hook, so any thread may make them).
std::optional<std::vector<NDArray>> vtk_connectivity_segments(const std::vector<CellBlock>& blocks);
struct VtkTypesAndOffsets {
  NDArray types;    // uint8 (n,)
  NDArray offsets;  // int64 (n,) end offsets
};
VtkTypesAndOffsets vtk_types_and_offsets(const std::vector<CellBlock>& blocks);
// Rows [first, first + count) of those two arrays, into `out` (count values): for writers that
// make them a cache-sized block at a time, right before the block is written, instead of
// holding 9 MB per million cells (fresh pages to fault in, then read back from memory).
void fill_vtk_types(const std::vector<CellBlock>& blocks, std::int64_t first, std::int64_t count,
                    std::uint8_t* out);
void fill_vtk_end_offsets(const std::vector<CellBlock>& blocks, std::int64_t first, std::int64_t count,
                          std::int64_t* out);

// The VTK id a block is written with; throws std::invalid_argument for types VTK lacks.
int vtk_id_for(const CellBlock& block);

// The cells of a structured grid of dims[0] × dims[1] × dims[2] points (x fastest, as VTK
// and meshio number them): the axes longer than one point span lines, quads or hexahedra, in
// VTK's cell numbering (x fastest). No block when no axis is longer than one point.
std::optional<CellBlock> structured_grid_cells(const std::array<std::int64_t, 3>& dims);

// For the one type whose node order differs between meshio and VTK — the linear wedge
// (VTK 13), whose bottom triangle runs the other way — the permutation between the two
// orders (its own inverse: vtk[k] = ours[p[k]] and ours[k] = vtk[p[k]]); nullptr otherwise.
// cells_from_vtk and cells_to_vtk apply it; writers that stream cells themselves must too.
const int* vtk_node_permutation(int vtk_id) noexcept;

}  // namespace meshioplusplus::io
