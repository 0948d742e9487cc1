// Fluent volume cells from the face sections' cell columns (io::build_cells_from_faces).
//
// Fluent lists each face as "n0 n1 … c0 c1": c0 the right cell, c1 the left cell (0 = none).
// Which side is right, checked on real files (rotate_sphere.msh, hex.msh from Fluent Meshing,
// gascomb.msh, naca0012.cas) by the sign of every rebuilt cell's volume or area, as VTK's
// vtkFLUENTReader gives them:
//   3-D: the right-hand-rule normal of n0 n1 n2 … points INTO c0 (out of c1);
//   2-D: walking the edge n0 -> n1 keeps c0 on the LEFT (its right-hand normal points out of c0).
// The builder wants the normal out of the owner (3-D) and the owner on the left (2-D), so c0
// is passed as the owner with the face reversed in 3-D and as it is in 2-D; a face whose c0
// is 0 (some writers put a boundary face's cell in c1) goes the other way round. A face with
// no cell on either side, or with fewer nodes than a face has (Fluent writes faces of no nodes
// in some special zones), belongs to no cell and is left out. The reader's collect_faces()
// applies these rules while parsing (ansys_internal.hpp's FaceList); this file builds on them.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/ansys/ansys_internal.hpp"
#include "io/cells/cells_from_faces.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ansys::detail {
namespace {

NDArray int64_array(const std::vector<std::int64_t>& values) {
  NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
  std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
  return array;
}

}  // namespace

void add_volume_cells(Mesh& mesh, const VolumeInput& input, const std::string& path) {
  const FaceList& faces = input.faces;  // already oriented so by the reader (collect_faces)
  io::FaceCellInput cell_input;
  cell_input.face_offsets = faces.offsets;
  cell_input.face_nodes = faces.nodes;
  cell_input.owner = faces.owner;
  cell_input.neighbour = faces.neighbour;
  cell_input.num_cells = input.num_cells;
  cell_input.dimension = input.dimension;
  io::FaceCells cells;
  try {
    cells = io::build_cells_from_faces(cell_input);
  } catch (const std::invalid_argument& error) {
    throw ReadError(path, "ansys", std::string("the faces do not make volume cells: ") + error.what());
  }

  // Each cell's zone id; cells in no cell section keep zone 0.
  std::vector<std::int64_t> zone_of_cell(static_cast<std::size_t>(input.num_cells), 0);
  for (const CellZone& zone : input.cell_zones)
    for (std::int64_t id = zone.first; id <= zone.last; ++id) zone_of_cell[id - 1] = zone.zone;
  NDArray zone_values = int64_array(zone_of_cell);
  mesh.cell_data.set("ansys:zone", io::cell_values_by_block(cells, zone_values));
  mesh.cells = std::move(cells.blocks);  // after cell_values_by_block, which reads the blocks

  const std::int64_t* block_major = cells.block_major_of_cell.data_as<std::int64_t>();
  const int dim = input.dimension;
  for (const CellZone& zone : input.cell_zones) {
    const auto name = input.zone_names.find(zone.zone);
    if (name == input.zone_names.end()) continue;
    std::vector<std::int64_t> entries;
    entries.reserve(static_cast<std::size_t>(zone.last - zone.first + 1));
    for (std::int64_t id = zone.first; id <= zone.last; ++id) entries.push_back(block_major[id - 1]);
    std::sort(entries.begin(), entries.end());
    Region region;
    region.name = name->second;
    region.kind = RegionKind::Cell;
    region.dim = dim;
    region.tag = zone.zone;
    region.entries = int64_array(entries);
    mesh.regions.push_back(std::move(region));
  }

  for (const FaceZone& zone : input.face_zones) {
    const auto name = input.zone_names.find(zone.zone);
    if (name == input.zone_names.end()) continue;
    std::vector<std::int64_t> entries;
    entries.reserve(static_cast<std::size_t>(2 * (zone.end - zone.begin)));
    for (std::int64_t f = zone.begin; f < zone.end; ++f) {
      const std::array<std::int64_t, 2> side = cells.side(f, faces.owner[static_cast<std::size_t>(f)], false);
      entries.push_back(side[0]);
      entries.push_back(side[1]);
    }
    Region region;
    region.name = name->second;
    region.kind = RegionKind::Side;
    region.dim = dim - 1;
    region.tag = zone.zone;
    region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size() / 2), 2});
    std::copy(entries.begin(), entries.end(), region.entries.data_as<std::int64_t>());
    mesh.regions.push_back(std::move(region));
  }
}

}  // namespace meshioplusplus::ansys::detail
