// See cgns_poly_faces.hpp.
#include "formats/cgns/cgns_poly_faces.hpp"

#include <optional>
#include <stdexcept>

#include "io/cells/faces_from_cells.hpp"

namespace meshioplusplus::cgns {

namespace {

// Every cell keeps its own faces, each positive (oriented out of its cell already).
PolyFaces own_faces(std::span<const CellBlock* const> blocks) {
  PolyFaces out;
  std::size_t total_faces = 0, total_nodes = 0;
  for (const CellBlock* block : blocks) {
    total_faces += static_cast<std::size_t>(block->face_offsets.rows() - 1);
    total_nodes += static_cast<std::size_t>(block->connectivity.rows());
  }
  out.offsets.reserve(total_faces + 1);
  out.nodes.reserve(total_nodes);
  for (const CellBlock* block : blocks) {
    const auto cell_offsets = block->offsets.values<std::int64_t>();
    const auto face_offsets = block->face_offsets.values<std::int64_t>();
    const auto nodes = block->connectivity.values<std::int64_t>();
    PolyFaces::BlockFaces& cells = out.blocks.emplace_back();
    cells.cell_offsets.reserve(cell_offsets.size());
    cells.cell_offsets.push_back(0);
    for (std::size_t c = 0; c + 1 < cell_offsets.size(); ++c) {
      for (std::int64_t f = cell_offsets[c]; f < cell_offsets[c + 1]; ++f) {
        out.nodes.insert(out.nodes.end(), nodes.begin() + face_offsets[f], nodes.begin() + face_offsets[f + 1]);
        out.offsets.push_back(static_cast<std::int64_t>(out.nodes.size()));
        cells.faces.push_back(out.num_faces());  // face number f + 1 of the section: positive
      }
      cells.cell_offsets.push_back(static_cast<std::int64_t>(cells.faces.size()));
    }
  }
  return out;
}

// Faces of two polyhedra written once: positive in the owner (the face as it lists it), negative
// in the neighbour. nullopt when the blocks are no face topology faces_from_cells() accepts.
std::optional<PolyFaces> shared_faces(std::span<const CellBlock* const> blocks) {
  std::vector<CellBlock> views;  // NDArray handles: the arrays are shared, not copied
  for (const CellBlock* block : blocks) views.push_back(*block);
  io::FaceTopology topology;
  try {
    topology = io::faces_from_cells({views, {}});
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  PolyFaces out;
  out.shared = true;
  // Slot of (volume cell, local facet) in the concatenated per-block face lists; volume cells
  // are the blocks' cells in block-major order (every block is a volume block).
  std::vector<std::int64_t> first_slot;
  std::int64_t slots = 0;
  for (const CellBlock& view : views) {
    const auto offsets = view.offsets.values<std::int64_t>();
    PolyFaces::BlockFaces& cells = out.blocks.emplace_back();
    cells.cell_offsets.assign(offsets.begin(), offsets.end());
    cells.faces.assign(static_cast<std::size_t>(offsets.back()), 0);
    for (std::size_t c = 0; c + 1 < offsets.size(); ++c) first_slot.push_back(slots + offsets[c]);
    slots += offsets.back();
  }
  if (topology.num_cells() != static_cast<std::int64_t>(first_slot.size())) return std::nullopt;
  std::vector<std::int64_t> flat(static_cast<std::size_t>(slots), 0);
  const auto place = [&](std::int64_t cell, std::int64_t facet, std::int64_t value) {
    const std::size_t c = static_cast<std::size_t>(cell);
    const std::int64_t count = c + 1 < first_slot.size() ? first_slot[c + 1] - first_slot[c] : slots - first_slot[c];
    if (facet < 0 || facet >= count) return false;
    flat[static_cast<std::size_t>(first_slot[c] + facet)] = value;
    return true;
  };
  for (std::int64_t f = 0; f < topology.num_faces(); ++f) {
    const std::size_t i = static_cast<std::size_t>(f);
    if (!place(topology.owner[i], topology.owner_facet[i], f + 1)) return std::nullopt;
    if (topology.neighbour[i] >= 0 && !place(topology.neighbour[i], topology.neighbour_facet[i], -(f + 1))) return std::nullopt;
  }
  std::size_t at = 0;
  for (PolyFaces::BlockFaces& cells : out.blocks)
    for (std::int64_t& face : cells.faces) face = flat[at++];
  for (const std::int64_t face : flat)
    if (face == 0) return std::nullopt;  // a facet no face came back for: keep every cell's own faces
  out.offsets = std::move(topology.face_offsets);
  out.nodes = std::move(topology.face_nodes);
  return out;
}

}  // namespace

PolyFaces polyhedron_faces(std::span<const CellBlock* const> blocks) {
  if (std::optional<PolyFaces> shared = shared_faces(blocks)) return std::move(*shared);
  return own_faces(blocks);
}

}  // namespace meshioplusplus::cgns
