#include "io/vtk/vtk_face_stream.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace meshioplusplus::io {

std::int64_t polyhedron_face_stream_length(std::span<const std::int64_t> values) {
  const auto available = static_cast<std::int64_t>(values.size());
  if (available < 1) throw CellStreamError("polyhedron face stream ends before its face count");
  const std::int64_t num_faces = values[0];
  if (num_faces < 0) throw CellStreamError("polyhedron with a negative face count " + std::to_string(num_faces));
  std::int64_t at = 1;
  // Every face takes at least one value, so the loop ends within `available` steps whatever
  // the count claims.
  for (std::int64_t f = 0; f < num_faces; ++f) {
    if (at >= available)
      throw CellStreamError("polyhedron face stream ends inside face " + std::to_string(f) + " of " +
                            std::to_string(num_faces));
    const std::int64_t num_nodes = values[static_cast<std::size_t>(at)];
    if (num_nodes < 0 || num_nodes > available - at - 1)
      throw CellStreamError("polyhedron face " + std::to_string(f) + " claims " + std::to_string(num_nodes) +
                            " points, more than the stream holds");
    at += 1 + num_nodes;
  }
  return at;
}

void PolyhedronBlockBuilder::add_cell(std::span<const std::int64_t> stream, std::int64_t cell) {
  std::int64_t length = 0;
  try {
    length = polyhedron_face_stream_length(stream);
  } catch (const CellStreamError& error) {
    throw CellStreamError("cell " + std::to_string(cell) + ": " + error.what() + " (its list holds " +
                          std::to_string(stream.size()) + " values)");
  }
  if (length != static_cast<std::int64_t>(stream.size()))
    throw CellStreamError("cell " + std::to_string(cell) + ": polyhedron list holds " + std::to_string(stream.size()) +
                          " values but its faces take " + std::to_string(length));
  std::int64_t at = 1;
  for (std::int64_t f = 0; f < stream[0]; ++f) {
    const std::int64_t num_nodes = stream[static_cast<std::size_t>(at++)];
    for (std::int64_t k = 0; k < num_nodes; ++k, ++at) {
      const std::int64_t point = stream[static_cast<std::size_t>(at)];
      if (point < 0 || point >= num_points_)
        throw CellStreamError("cell " + std::to_string(cell) + ": polyhedron face " + std::to_string(f) +
                              " names point " + std::to_string(point) + " outside [0, " + std::to_string(num_points_) +
                              ")");
      nodes_.push_back(point);
    }
    face_offsets_.push_back(static_cast<std::int64_t>(nodes_.size()));
  }
  cell_offsets_.push_back(static_cast<std::int64_t>(face_offsets_.size()) - 1);
}

CellBlock PolyhedronBlockBuilder::finish() const {
  auto to_array = [](const std::vector<std::int64_t>& values) {
    NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
    if (!values.empty()) std::memcpy(array.data(), values.data(), values.size() * sizeof(std::int64_t));
    return array;
  };
  CellBlock block;
  block.type = "polyhedron";
  block.connectivity = to_array(nodes_);
  block.offsets = to_array(cell_offsets_);
  block.face_offsets = to_array(face_offsets_);
  return block;
}

std::vector<std::int64_t> PolyhedronFaceStreams::points(std::int64_t cell) const {
  std::vector<std::int64_t> unique;
  for (std::int64_t i = face_nodes_[cell_faces_[cell]]; i < face_nodes_[cell_faces_[cell + 1]]; ++i)
    if (std::find(unique.begin(), unique.end(), nodes_[i]) == unique.end()) unique.push_back(nodes_[i]);
  return unique;
}

}  // namespace meshioplusplus::io
