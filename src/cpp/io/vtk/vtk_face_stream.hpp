// Floor 2: the polyhedron face stream — per cell [nfaces, n0, ids…, n1, ids…] — to and from
// our polyhedron blocks (include/meshioplusplus/mesh.hpp: `offsets` into the faces,
// `face_offsets` into `connectivity`). VTK invented the layout and uses it everywhere a
// polyhedron is stored as one list: the legacy .vtk CELLS section (4.2 and 5.1), the VTU
// `faces` array; XDMF copied it for its Polyhedron topology and Mixed id 16. One parser and
// one emitter here, so every format checks a stream the same way.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io {

// How many values the polyhedron stream at the front of `values` takes (1 + per face 1 + its
// node count). CellStreamError when it runs past the end of `values` or a count is negative.
std::int64_t polyhedron_face_stream_length(std::span<const std::int64_t> values);

// Collects polyhedra from their face streams into one "polyhedron" block.
class PolyhedronBlockBuilder {
 public:
  explicit PolyhedronBlockBuilder(std::int64_t num_points) : num_points_(num_points) {}

  // Appends the polyhedron whose whole stream is `stream`: CellStreamError, naming `cell`
  // (the caller's numbering), when the faces run past it, leave values over, or name a point
  // outside [0, num_points).
  void add_cell(std::span<const std::int64_t> stream, std::int64_t cell);

  std::int64_t num_cells() const noexcept { return static_cast<std::int64_t>(cell_offsets_.size()) - 1; }
  CellBlock finish() const;

 private:
  std::int64_t num_points_;
  std::vector<std::int64_t> cell_offsets_{0}, face_offsets_{0}, nodes_;
};

// A polyhedron block read back as face streams, for writers.
class PolyhedronFaceStreams {
 public:
  explicit PolyhedronFaceStreams(const CellBlock& block)
      : cell_faces_(block.offsets.data_as<std::int64_t>()),
        face_nodes_(block.face_offsets.data_as<std::int64_t>()),
        nodes_(block.connectivity.data_as<std::int64_t>()),
        count_(block.num_cells()) {}

  std::int64_t num_cells() const noexcept { return count_; }
  std::int64_t num_faces(std::int64_t cell) const noexcept { return cell_faces_[cell + 1] - cell_faces_[cell]; }
  // The length of cell `cell`'s stream, and of all of them together.
  std::int64_t size(std::int64_t cell) const noexcept {
    return 1 + num_faces(cell) + face_nodes_[cell_faces_[cell + 1]] - face_nodes_[cell_faces_[cell]];
  }
  std::int64_t total_size() const noexcept {
    return count_ + cell_faces_[count_] - cell_faces_[0] + face_nodes_[cell_faces_[count_]] - face_nodes_[cell_faces_[0]];
  }
  // emit(value) for each value of cell `cell`'s stream, in order.
  template <class Emit>
  void emit(std::int64_t cell, Emit&& emit) const {
    emit(num_faces(cell));
    for (std::int64_t f = cell_faces_[cell]; f < cell_faces_[cell + 1]; ++f) {
      emit(face_nodes_[f + 1] - face_nodes_[f]);
      for (std::int64_t i = face_nodes_[f]; i < face_nodes_[f + 1]; ++i) emit(nodes_[i]);
    }
  }
  // The distinct points of cell `cell` in first-seen order (VTK's cell point list).
  std::vector<std::int64_t> points(std::int64_t cell) const;

 private:
  const std::int64_t* cell_faces_;
  const std::int64_t* face_nodes_;
  const std::int64_t* nodes_;
  std::int64_t count_;
};

}  // namespace meshioplusplus::io
