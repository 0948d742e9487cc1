// Floor 2: surface faces of any corner count <-> cell blocks.
//
// The surface formats (PLY, OFF, OBJ, WKT, ANSYS faces) list faces of mixed corner counts in one
// stream. Readers cut it into one block per run of consecutive faces of one type — vertex
// (1 corner), line (2), triangle (3), quad (4), polygon (5 or more, ragged) — as meshio does: the
// cells keep the file's order, so cell i of the mesh is face i of the file (face data, groups and
// every region refer to the same numbers as the file). A file of one face type is one block.
//
// Use: a first pass collects every face's corner count, FaceBlockLayout plans the blocks,
// allocate_blocks() allocates each connectivity once in its final shape, and a second pass
// hands each face, in file order, to FaceBlockFiller::place() to learn where it goes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io {

// The cell type of a face with `corner_count` (>= 1) corners.
std::string_view face_cell_type(std::int64_t corner_count) noexcept;
// Whether blocks of `type` are faces a surface format writes as corner lists.
bool is_face_cell_type(std::string_view type) noexcept;

// The nodes of cell `cell` of `block` (rectangular or polygon; not polyhedron).
std::span<const std::int64_t> cell_nodes(const CellBlock& block, std::int64_t cell);

class FaceBlockLayout {
 public:
  // `corner_counts`: each face's corner count in file order; every count must be >= 1.
  explicit FaceBlockLayout(std::span<const std::int64_t> corner_counts);

  std::size_t num_blocks() const noexcept { return blocks_.size(); }
  std::int64_t num_faces(std::size_t block) const { return blocks_.at(block).faces; }
  // The largest corner count in `block` (the row width for fixed-size types).
  std::int64_t max_corners(std::size_t block) const { return blocks_.at(block).max_corners; }
  // Block-major number of the first face of `block` (block_bases of the planned blocks).
  std::int64_t first_cell(std::size_t block) const { return bases_.at(block); }
  // The type slot (type_slot()) of the faces of `block`.
  std::size_t slot(std::size_t block) const { return blocks_.at(block).slot; }

  // The planned blocks with connectivity (and polygon offsets) allocated, not yet filled.
  std::vector<CellBlock> allocate_blocks() const;
  // One uninitialised array per block, shape (faces,) — per-face scalars such as colours.
  std::vector<NDArray> allocate_per_face(DType dtype) const;
  // Shape (faces, widths[block]) — per-face tuples whose width may differ between blocks.
  std::vector<NDArray> allocate_per_face(DType dtype, std::span<const std::int64_t> widths) const;

  // The position of a face's type in vertex, line, triangle, quad, polygon.
  static std::size_t type_slot(std::int64_t corner_count) noexcept;

 private:
  static constexpr std::size_t kNumTypes = 5;
  friend class FaceBlockFiller;

  struct PlannedBlock {
    std::size_t slot = 0;
    std::int64_t faces = 0;
    std::int64_t corners = 0;  // total, for the flat polygon connectivity
    std::int64_t max_corners = 0;
  };
  std::vector<PlannedBlock> blocks_;
  std::vector<std::int64_t> bases_;
};

// Where a face goes: its block, its row there, and room for its corners.
struct FaceSlot {
  std::size_t block;
  std::int64_t row;
  std::int64_t* corners;
};

class FaceBlockFiller {
 public:
  // `blocks` must come from layout.allocate_blocks(); both must outlive the filler.
  FaceBlockFiller(const FaceBlockLayout& layout, std::vector<CellBlock>& blocks);
  // The next face in file order, with `corner_count` corners. Throws std::logic_error when the
  // faces differ from the ones the layout was planned with.
  FaceSlot place(std::int64_t corner_count);

 private:
  const FaceBlockLayout& layout_;
  std::vector<CellBlock>& blocks_;
  std::size_t block_ = 0;                 // the block the next face goes to
  std::int64_t rows_filled_ = 0;          // faces placed in block_ so far
  std::int64_t polygon_corners_filled_ = 0;  // corners placed in block_ (polygon blocks)
};

}  // namespace meshioplusplus::io
