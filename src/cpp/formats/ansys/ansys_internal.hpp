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

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::ansys::detail {

// The faces of the file's face sections that bound a cell, in file order, as
// io::build_cells_from_faces wants them (ansys_volume.cpp says how Fluent's c0 / c1 columns
// become owner and neighbour): nodes are 0-based point rows, in 3-D oriented out of the owner,
// in 2-D with the owner on the left; cells 0-based file cell numbers (Fluent id - 1), -1 = none.
// Made so while the sections are parsed: no second copy of the faces is built.
struct FaceList {
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int64_t> nodes;
  std::vector<std::int64_t> owner;
  std::vector<std::int64_t> neighbour;
  bool names_a_cell = false;  // some face of the file, kept or not, names a cell
  std::int64_t size() const noexcept { return static_cast<std::int64_t>(owner.size()); }
};

struct FaceZone {
  std::int64_t zone = 0;
  std::int64_t begin = 0, end = 0;  // faces [begin, end) of the FaceList
};

struct CellZone {
  std::int64_t zone = 0;
  std::int64_t first = 1, last = 0;  // Fluent cell ids (1-based, inclusive)
  std::size_t offset = 0;            // of the section, for errors
};

struct VolumeInput {
  FaceList faces;
  std::vector<FaceZone> face_zones;
  std::vector<CellZone> cell_zones;
  std::map<std::int64_t, std::string> zone_names;
  std::int64_t num_cells = 0;
  int dimension = 3;
};

// Rebuilds the volume cells from the faces into `mesh` (whose points are set): cell blocks,
// "ansys:zone" cell data, Cell regions of the named cell zones and Side regions of the named
// face zones. Throws ReadError(path, "ansys", …) when the faces do not close into cells.
void add_volume_cells(Mesh& mesh, const VolumeInput& input, const std::string& path);

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
