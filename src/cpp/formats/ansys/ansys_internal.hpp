// What the Fluent reader's section parser (ansys_reader.cpp) hands to the volume-cell builder
// (ansys_volume.cpp): the faces of every face section with their cell columns, the cell and
// face zones, and the zone names. Private to formats/ansys.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/cells/cells_from_faces.hpp"
#include "io/source/scratch_vector.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::ansys::detail {

// The faces of the file's face sections that bound a cell, in file order, as
// io::build_cells_from_faces wants them (ansys_volume.cpp says how Fluent's c0 / c1 columns
// become owner and neighbour): nodes are 0-based point rows, in 3-D oriented out of the owner,
// in 2-D with the owner on the left; cells 0-based file cell numbers (Fluent id - 1), -1 = none.
// Made so while the sections are parsed: no second copy of the faces is built. Labels are int32
// when the points and cells allow (half the memory of a large mesh's largest lists), else int64
// (VolumeInput holds one list of each kind, one used); offsets are kept only once faces of two
// sizes are seen (a tetrahedral mesh's triangles need none).
template <class Label>
struct FaceListOf {
  io::ScratchVector<std::int64_t> offsets;  // (size + 1) once faces differ in size, else empty
  int face_size = 0;                        // while offsets is empty: every face's nodes (0: no face yet)
  io::ScratchVector<Label> nodes;
  io::ScratchVector<Label> owner;
  io::ScratchVector<Label> neighbour;
  std::int64_t size() const noexcept { return static_cast<std::int64_t>(owner.size()); }
  // Face `face` (the list's last, 0-based) ends where `nodes` now ends.
  void face_ends(std::size_t face, std::size_t end) {
    if (!offsets.empty()) {
      offsets.push_back(static_cast<std::int64_t>(end));
      return;
    }
    const std::size_t begin = face * static_cast<std::size_t>(face_size);
    if (face == 0) {
      face_size = static_cast<int>(end);
      return;
    }
    if (end - begin == static_cast<std::size_t>(face_size)) return;
    offsets.resize(face + 2);  // the first face of another size: offsets from here on
    for (std::size_t f = 0; f <= face; ++f) offsets[f] = static_cast<std::int64_t>(f * static_cast<std::size_t>(face_size));
    offsets[face + 1] = static_cast<std::int64_t>(end);
    face_size = 0;
  }
  io::Labels offset_labels() const noexcept { return offsets.empty() ? io::Labels() : io::Labels(std::span<const std::int64_t>(offsets)); }
};

struct FaceZone {
  std::int64_t zone = 0;
  std::int64_t begin = 0, end = 0;  // faces [begin, end) of the face list
};

struct CellZone {
  std::int64_t zone = 0;
  std::int64_t first = 1, last = 0;  // Fluent cell ids (1-based, inclusive)
  std::size_t offset = 0;            // of the section, for errors
};

struct VolumeInput {
  bool wide_labels = false;  // faces64 holds the faces, else faces32
  FaceListOf<std::int32_t> faces32;
  FaceListOf<std::int64_t> faces64;
  bool names_a_cell = false;  // some face of the file, kept or not, names a cell
  std::vector<FaceZone> face_zones;
  std::vector<CellZone> cell_zones;
  std::map<std::int64_t, std::string> zone_names;
  std::int64_t num_cells = 0;
  int dimension = 3;
};

// Rebuilds the volume cells from the faces into `mesh` (whose points are set): cell blocks,
// "ansys:zone" cell data, Cell regions of the named cell zones and Side regions of the named
// face zones. Throws ReadError(path, "ansys", …) when the faces do not close into cells.
// The faces' nodes are freed once the cells are built.
void add_volume_cells(Mesh& mesh, VolumeInput& input, const std::string& path);

// Writes `mesh` in Fluent's face-based layout (ansys_fluent_writer.cpp); false, writing
// nothing, when the mesh has no cells of its points' dimension (meshio's layout is used then).
bool write_fluent_layout(const std::string& path, const Mesh& mesh, bool binary);

// Fluent's element type of a cell type (1 triangle, 2 tetra, 3 quad, 4 hexahedron, 5 pyramid,
// 6 wedge); none for the others (a face-based writer gives polyhedra and polygons 7).
inline std::optional<int> fluent_element_type(std::string_view type) noexcept {
  if (type == "triangle") return 1;
  if (type == "tetra") return 2;
  if (type == "quad") return 3;
  if (type == "hexahedron") return 4;
  if (type == "pyramid") return 5;
  if (type == "wedge") return 6;
  return std::nullopt;
}

}  // namespace meshioplusplus::ansys::detail
