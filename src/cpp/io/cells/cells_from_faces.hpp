// Floor 2: face-based volume meshes -> cell blocks.
//
// CFD formats (OpenFOAM polyMesh, Fluent .msh/.cas and CFF .cas.h5) do not list a cell's
// nodes: they list faces, each with the cell on either side. build_cells_from_faces() turns
// such a face list into our cells, as VTK's vtkOpenFOAMReader and vtkFLUENTReader do:
//   3-D: a cell of 4 triangles on 4 nodes is a tetra, 1 quad + 4 triangles on 5 nodes a
//        pyramid, 2 triangles + 3 quads on 6 nodes a wedge, 6 quads on 8 nodes a hexahedron
//        (node orders derived from the faces, in VTK/meshio order, positive volume for an
//        outward-oriented face set); every other cell, or one whose faces do not close into
//        that shape, is a polyhedron whose faces are kept, each oriented out of the cell.
//   2-D: the edges of a cell are chained into a loop: 3 edges a triangle, 4 a quad, more a
//        polygon (counter-clockwise for faces oriented as described below).
// Blocks: one per cell type, in the order each type first appears in cell order; within a
// block cells keep their relative order. The maps between the file's cell numbers and
// block-major numbers come back, so readers permute cell data and map zones to regions.
// The (block-major cell, local facet) pair of a face on either side is asked with
// FaceCells::side(): local facets follow core/side_regions' tables (Exodus numbering) for the
// standard shapes and are the face's position in the cell's face list for polyhedra and polygons,
// so boundary patches become Side regions directly. Only the cell -> faces lists are kept for
// that (each cell's faces in local facet order), not a pair per face: readers ask for the faces
// of their patches and zones, which are mostly far fewer than the faces.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "io/source/scratch_vector.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::io {

// A read-only list of labels held as int64 or as int32 (readers keep 32-bit labels when their
// values fit, which halves the builder's inputs on large meshes); read as int64 either way.
class Labels {
 public:
  Labels() = default;
  Labels(std::span<const std::int64_t> wide) noexcept : wide_(wide.data()), size_(wide.size()) {}
  Labels(std::span<const std::int32_t> narrow) noexcept : narrow_(narrow.data()), size_(narrow.size()) {}
  Labels(const std::vector<std::int64_t>& wide) noexcept : Labels(std::span<const std::int64_t>(wide)) {}
  Labels(const std::vector<std::int32_t>& narrow) noexcept : Labels(std::span<const std::int32_t>(narrow)) {}
  std::int64_t operator[](std::size_t i) const noexcept { return wide_ != nullptr ? wide_[i] : narrow_[i]; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

 private:
  const std::int64_t* wide_ = nullptr;
  const std::int32_t* narrow_ = nullptr;
  std::size_t size_ = 0;
};

struct FaceCellInput {
  // Face f's nodes are face_nodes[face_offsets[f] .. face_offsets[f + 1]), 0-based points; or,
  // with face_offsets empty and face_size > 0, face_nodes[face_size * f .. face_size * (f + 1))
  // (every face of face_size nodes: no offsets array to hold).
  Labels face_offsets;  // (num_faces + 1), or empty with face_size
  Labels face_nodes;
  int face_size = 0;
  // 3-D: the face's normal by the right-hand rule on its node order points OUT of `owner`
  // (OpenFOAM's rule) and into `neighbour`. 2-D: walking the edge from its first node to its
  // second keeps `owner` on the left. Cells are 0-based; -1 = no cell on that side.
  Labels owner;      // (num_faces)
  Labels neighbour;  // (num_faces) or shorter: faces past its end have none
  std::int64_t num_cells = 0;
  int dimension = 3;  // 3: faces are polygons; 2: faces are edges (2 nodes each)
  // When false every 3-D cell is a polyhedron and every 2-D cell a polygon (no recognition).
  bool recognise_shapes = true;
  // Called (when set) once the builder has read owner and neighbour for the last time, after it
  // has listed each cell's faces: a reader that holds them only for the builder frees them there.
  std::function<void()> cells_listed;

  std::int64_t face_begin(std::size_t f) const noexcept {
    return face_offsets.empty() ? static_cast<std::int64_t>(f) * face_size : face_offsets[f];
  }
};

struct FaceCells {
  std::vector<CellBlock> blocks;
  std::int64_t num_cells = 0;
  // Scratch arrays (NDArray::allocate_scratch): copy what a mesh keeps. Both are empty handles
  // when the cells make one block in file order (block-major index = file cell number): ask
  // block_major() / cell_of() / in_file_order() rather than reading them.
  NDArray block_major_of_cell;  // int64 (num_cells): file cell number -> block-major index
  NDArray cell_of_block_major;  // int64 (num_cells): the inverse
  bool in_file_order() const noexcept { return block_major_of_cell.empty_handle(); }
  std::int64_t block_major(std::int64_t cell) const noexcept {
    return in_file_order() ? cell : block_major_of_cell.data_as<std::int64_t>()[cell];
  }
  std::int64_t cell_of(std::int64_t block_major_index) const noexcept {
    return in_file_order() ? block_major_index : cell_of_block_major.data_as<std::int64_t>()[block_major_index];
  }
  // Cell c's faces are facet_entries[cell_first[c] .. cell_first[c + 1]), in local facet order:
  // 2 * face + (1 where c is the face's neighbour, 0 where it is its owner). 32 bits: the
  // builder takes fewer than 2^31 faces.
  ScratchVector<std::uint32_t> cell_first;
  ScratchVector<std::uint32_t> facet_entries;

  // (block-major cell, local facet) of `face` seen from `cell`, its owner (as_neighbour false)
  // or neighbour; (-1, -1) where cell < 0 or the cell has no such face.
  std::array<std::int64_t, 2> side(std::int64_t face, std::int64_t cell, bool as_neighbour) const noexcept;
  // Frees the cell -> faces lists once no more sides are asked for.
  void forget_sides() noexcept;
};

// Throws std::invalid_argument (readers turn it into a ReadError naming their file) when a
// face names a cell outside [0, num_cells), a cell has no faces, a 2-D face is not an edge or
// a 2-D cell's edges do not form one closed loop, a 3-D face has fewer than 3 nodes, or there
// are 2^31 faces or more.
// Runs on every core (io parallel_ranges); the result does not depend on the thread count.
FaceCells build_cells_from_faces(const FaceCellInput& input);

// `values` (num_cells rows, any dtype and row width) in block-major order: one array per block,
// as Mesh::cell_data holds them (`values` itself, shared, when its order is already that).
std::vector<NDArray> cell_values_by_block(const FaceCells& cells, const NDArray& values);

}  // namespace meshioplusplus::io
