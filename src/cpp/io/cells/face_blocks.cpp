#include "io/cells/face_blocks.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace meshioplusplus::io {
namespace {

constexpr std::array<std::string_view, 5> kFaceTypes{"vertex", "line", "triangle", "quad", "polygon"};

}  // namespace

std::string_view face_cell_type(std::int64_t corner_count) noexcept {
  return kFaceTypes[FaceBlockLayout::type_slot(corner_count)];
}

bool is_face_cell_type(std::string_view type) noexcept {
  for (std::string_view face_type : kFaceTypes)
    if (type == face_type) return true;
  return false;
}

std::span<const std::int64_t> cell_nodes(const CellBlock& block, std::int64_t cell) {
  const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
  if (block.is_ragged()) {
    const std::int64_t* offsets = block.offsets.data_as<std::int64_t>();
    return {nodes + offsets[cell], static_cast<std::size_t>(offsets[cell + 1] - offsets[cell])};
  }
  const std::int64_t width = block.connectivity.row_width();
  return {nodes + cell * width, static_cast<std::size_t>(width)};
}

std::size_t FaceBlockLayout::type_slot(std::int64_t corner_count) noexcept {
  return corner_count >= 5 ? 4 : static_cast<std::size_t>(corner_count - 1);
}

FaceBlockLayout::FaceBlockLayout(std::span<const std::int64_t> corner_counts) {
  for (const std::int64_t count : corner_counts) {
    if (count < 1) throw std::logic_error("FaceBlockLayout: a face needs at least one corner");
    const std::size_t slot = type_slot(count);
    if (blocks_.empty() || blocks_.back().slot != slot) blocks_.push_back(PlannedBlock{slot});
    PlannedBlock& block = blocks_.back();
    ++block.faces;
    block.corners += count;
    block.max_corners = std::max(block.max_corners, count);
  }
  std::vector<std::int64_t> counts;
  counts.reserve(blocks_.size());
  for (const PlannedBlock& block : blocks_) counts.push_back(block.faces);
  const NDArray bases = block_bases(counts);
  bases_.assign(bases.values<std::int64_t>().begin(), bases.values<std::int64_t>().end());
}

std::vector<CellBlock> FaceBlockLayout::allocate_blocks() const {
  std::vector<CellBlock> cells;
  cells.reserve(blocks_.size());
  for (const PlannedBlock& planned : blocks_) {
    CellBlock block;
    block.type = std::string(kFaceTypes[planned.slot]);
    if (block.type == "polygon") {
      block.connectivity = NDArray::allocate(DType::int64, {planned.corners});
      block.offsets = NDArray::allocate(DType::int64, {planned.faces + 1});
      block.offsets.data_as<std::int64_t>()[0] = 0;
    } else {
      block.connectivity = NDArray::allocate(DType::int64, {planned.faces, planned.max_corners});
    }
    cells.push_back(std::move(block));
  }
  return cells;
}

std::vector<NDArray> FaceBlockLayout::allocate_per_face(DType dtype) const {
  std::vector<NDArray> arrays;
  arrays.reserve(blocks_.size());
  for (const PlannedBlock& planned : blocks_) arrays.push_back(NDArray::allocate(dtype, {planned.faces}));
  return arrays;
}

std::vector<NDArray> FaceBlockLayout::allocate_per_face(DType dtype,
                                                         std::span<const std::int64_t> widths) const {
  if (widths.size() != blocks_.size()) throw std::logic_error("FaceBlockLayout: one width per block");
  std::vector<NDArray> arrays;
  arrays.reserve(blocks_.size());
  for (std::size_t b = 0; b < blocks_.size(); ++b)
    arrays.push_back(NDArray::allocate(dtype, {blocks_[b].faces, widths[b]}));
  return arrays;
}

FaceBlockFiller::FaceBlockFiller(const FaceBlockLayout& layout, std::vector<CellBlock>& blocks)
    : layout_(layout), blocks_(blocks) {}

FaceSlot FaceBlockFiller::place(std::int64_t corner_count) {
  if (corner_count < 1) throw std::logic_error("FaceBlockFiller: a face needs at least one corner");
  // Blocks are runs in file order: when the current one is full, the face opens the next.
  while (block_ < layout_.num_blocks() && rows_filled_ == layout_.num_faces(block_)) {
    ++block_;
    rows_filled_ = 0;
    polygon_corners_filled_ = 0;
  }
  if (block_ >= layout_.num_blocks()) throw std::logic_error("FaceBlockFiller: more faces than planned");
  if (layout_.slot(block_) != FaceBlockLayout::type_slot(corner_count))
    throw std::logic_error("FaceBlockFiller: a face of " + std::to_string(corner_count) +
                           " corners where the plan has another type");
  const std::size_t block = block_;
  const std::int64_t row = rows_filled_++;
  CellBlock& cells = blocks_[block];
  std::int64_t* connectivity = cells.connectivity.data_as<std::int64_t>();
  if (!cells.is_ragged()) {
    if (corner_count != cells.connectivity.dim(1))
      throw std::logic_error("FaceBlockFiller: corner count differs from the plan");
    return {block, row, connectivity + row * corner_count};
  }
  const std::int64_t start = polygon_corners_filled_;
  polygon_corners_filled_ += corner_count;
  if (polygon_corners_filled_ > cells.connectivity.rows())
    throw std::logic_error("FaceBlockFiller: more polygon corners than planned");
  cells.offsets.data_as<std::int64_t>()[row + 1] = polygon_corners_filled_;
  return {block, row, connectivity + start};
}

}  // namespace meshioplusplus::io
