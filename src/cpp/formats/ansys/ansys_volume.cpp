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
// in some special zones), belongs to no cell and is left out.
#include <algorithm>
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
  const FaceList& faces = input.faces;
  // The builder's faces: oriented out of their owner, c0 the owner wherever it is given.
  std::vector<std::int64_t> offsets{0}, nodes, owner, neighbour;
  std::vector<std::int64_t> builder_face(static_cast<std::size_t>(faces.size()), -1);
  nodes.reserve(faces.nodes.size());
  owner.reserve(faces.right.size());
  neighbour.reserve(faces.right.size());
  for (std::int64_t f = 0; f < faces.size(); ++f) {
    const std::int64_t right = faces.right[f], left = faces.left[f];
    const std::int64_t corners = faces.offsets[f + 1] - faces.offsets[f];
    if ((right < 0 && left < 0) || corners < input.dimension) continue;  // bounds no cell (see reader)
    const bool owner_is_right = right >= 0;
    const bool reverse = owner_is_right == (input.dimension == 3);
    const auto begin = faces.nodes.begin() + faces.offsets[f], end = faces.nodes.begin() + faces.offsets[f + 1];
    if (reverse) nodes.insert(nodes.end(), std::make_reverse_iterator(end), std::make_reverse_iterator(begin));
    else nodes.insert(nodes.end(), begin, end);
    offsets.push_back(static_cast<std::int64_t>(nodes.size()));
    builder_face[f] = static_cast<std::int64_t>(owner.size());
    owner.push_back(owner_is_right ? right : left);
    neighbour.push_back(owner_is_right ? left : -1);
  }

  io::FaceCellInput cell_input;
  cell_input.face_offsets = offsets;
  cell_input.face_nodes = nodes;
  cell_input.owner = owner;
  cell_input.neighbour = neighbour;
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

  const std::int64_t* owner_sides = cells.owner_sides.data_as<std::int64_t>();
  for (const FaceZone& zone : input.face_zones) {
    const auto name = input.zone_names.find(zone.zone);
    if (name == input.zone_names.end()) continue;
    std::vector<std::int64_t> entries;
    entries.reserve(static_cast<std::size_t>(2 * (zone.end - zone.begin)));
    for (std::int64_t f = zone.begin; f < zone.end; ++f) {
      const std::int64_t b = builder_face[f];
      if (b < 0) continue;
      entries.push_back(owner_sides[2 * b]);
      entries.push_back(owner_sides[2 * b + 1]);
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
