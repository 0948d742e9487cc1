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
// applies these rules while parsing (ansys_internal.hpp's FaceListOf); this file builds on them.
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

template <class Label> io::Labels labels(const io::ScratchVector<Label>& values) {
  return io::Labels(std::span<const Label>(values.data(), values.size()));
}

template <class Label>
io::FaceCells build_cells(const FaceListOf<Label>& faces, const VolumeInput& input, const std::string& path) {
  io::FaceCellInput cell_input;
  cell_input.face_offsets = faces.offset_labels();
  cell_input.face_size = faces.face_size;
  cell_input.face_nodes = labels(faces.nodes);
  cell_input.owner = labels(faces.owner);
  cell_input.neighbour = labels(faces.neighbour);
  cell_input.num_cells = input.num_cells;
  cell_input.dimension = input.dimension;
  try {
    return io::build_cells_from_faces(cell_input);
  } catch (const std::invalid_argument& error) {
    throw ReadError(path, "ansys", std::string("the faces do not make volume cells: ") + error.what());
  }
}

}  // namespace

void add_volume_cells(Mesh& mesh, VolumeInput& input, const std::string& path) {
  // The faces are already oriented so by the reader (collect_faces).
  io::FaceCells cells = input.wide_labels ? build_cells(input.faces64, input, path) : build_cells(input.faces32, input, path);
  // Sides need only each face's owner from here on.
  io::free_now(input.faces32.nodes);
  io::free_now(input.faces64.nodes);
  io::free_now(input.faces32.offsets);
  io::free_now(input.faces64.offsets);
  const io::Labels owner = input.wide_labels ? labels(input.faces64.owner) : labels(input.faces32.owner);

  // Each cell's zone id; cells in no cell section keep zone 0.
  NDArray zone_values = NDArray::zeros(DType::int64, {input.num_cells});
  std::int64_t* zone_of_cell = zone_values.data_as<std::int64_t>();
  for (const CellZone& zone : input.cell_zones)
    for (std::int64_t id = zone.first; id <= zone.last; ++id) zone_of_cell[id - 1] = zone.zone;
  mesh.cell_data.set("ansys:zone", io::cell_values_by_block(cells, zone_values));
  zone_values = NDArray();
  mesh.cells = std::move(cells.blocks);  // after cell_values_by_block, which reads the blocks

  const int dim = input.dimension;
  for (const CellZone& zone : input.cell_zones) {
    const auto name = input.zone_names.find(zone.zone);
    if (name == input.zone_names.end()) continue;
    NDArray entries = NDArray::allocate(DType::int64, {std::max<std::int64_t>(zone.last - zone.first + 1, 0)});
    std::int64_t* out = entries.data_as<std::int64_t>();
    for (std::int64_t id = zone.first; id <= zone.last; ++id) out[id - zone.first] = cells.block_major(id - 1);
    std::sort(out, out + entries.rows());
    Region region;
    region.name = name->second;
    region.kind = RegionKind::Cell;
    region.dim = dim;
    region.tag = zone.zone;
    region.entries = std::move(entries);
    mesh.regions.push_back(std::move(region));
  }

  for (const FaceZone& zone : input.face_zones) {
    const auto name = input.zone_names.find(zone.zone);
    if (name == input.zone_names.end()) continue;
    Region region;
    region.name = name->second;
    region.kind = RegionKind::Side;
    region.dim = dim - 1;
    region.tag = zone.zone;
    region.entries = NDArray::allocate(DType::int64, {zone.end - zone.begin, 2});
    std::int64_t* out = region.entries.data_as<std::int64_t>();
    for (std::int64_t f = zone.begin; f < zone.end; ++f) {
      const std::array<std::int64_t, 2> side = cells.side(f, owner[static_cast<std::size_t>(f)], false);
      out[2 * (f - zone.begin)] = side[0];
      out[2 * (f - zone.begin) + 1] = side[1];
    }
    mesh.regions.push_back(std::move(region));
  }
}

}  // namespace meshioplusplus::ansys::detail
