#include "formats/vtk_xml/vtk_xml_common.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <system_error>
#include <type_traits>

#include "io/source/byte_order.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtk_xml_detail {
namespace {

DType promote(DType a, DType b) noexcept {
  if (a == b) return a;
  if (dtype_is_float(a) || dtype_is_float(b)) return DType::float64;
  return DType::int64;
}

const ArrayInfo* find_in(const Piece& piece, std::string_view section, std::string_view name) {
  const Section* found = piece.section(section);
  return found ? found->find(name) : nullptr;
}

NDArray as_dtype(const NDArray& array, DType dtype) { return array.dtype() == dtype ? array : array.astype(dtype); }

NDArray concatenate_rows(const NDArray& a, const NDArray& b, DType dtype) {
  Shape shape = a.shape();
  shape[0] = a.rows() + b.rows();
  NDArray joined = NDArray::allocate(dtype, shape);
  const NDArray first = as_dtype(a, dtype), second = as_dtype(b, dtype);
  if (first.nbytes() > 0) std::memcpy(joined.data(), first.data(), first.nbytes());
  if (second.nbytes() > 0)
    std::memcpy(static_cast<std::uint8_t*>(joined.data()) + first.nbytes(), second.data(), second.nbytes());
  return joined;
}

}  // namespace

NDArray take_rows(const NDArray& data, const RowSelection& selection, bool whole_is_shareable) {
  if (whole_is_shareable && selection.rows.empty() && selection.first == 0 && selection.count == data.rows())
    return data;
  Shape shape = data.shape();
  shape[0] = selection.size();
  NDArray part = NDArray::allocate(data.dtype(), shape);
  const std::size_t row_bytes = static_cast<std::size_t>(data.row_width()) * dtype_size(data.dtype());
  const auto* source = static_cast<const std::uint8_t*>(data.data());
  auto* target = static_cast<std::uint8_t*>(part.data());
  if (selection.rows.empty()) {
    if (selection.count > 0)
      std::memcpy(target, source + static_cast<std::size_t>(selection.first) * row_bytes,
                  static_cast<std::size_t>(selection.count) * row_bytes);
  } else {
    for (std::size_t r = 0; r < selection.rows.size(); ++r)
      std::memcpy(target + r * row_bytes, source + static_cast<std::size_t>(selection.rows[r]) * row_bytes, row_bytes);
  }
  return part;
}

NDArray read_points(const DataArrayReader& reader, const std::vector<std::int64_t>& points_per_piece) {
  const auto& pieces = reader.layout().pieces;
  std::int64_t total = 0;
  for (std::size_t p = 0; p < pieces.size(); ++p) {
    if (points_per_piece[p] > std::numeric_limits<std::int64_t>::max() - total)
      reader.fail(pieces[p].tag_offset, "NumberOfPoints overflows");
    total += points_per_piece[p];
  }
  std::vector<DataArrayReader::Slice> slices;
  bool all_float32 = true;
  for (std::size_t p = 0; p < pieces.size(); ++p) {
    const Section* points = pieces[p].section("Points");
    if (points == nullptr || points->arrays.empty()) {
      if (points_per_piece[p] > 0)
        reader.fail(pieces[p].tag_offset,
                    "piece has NumberOfPoints=" + std::to_string(points_per_piece[p]) + " but no <Points>");
      continue;
    }
    const ArrayInfo& info = points->arrays.front();
    if (info.is_string()) reader.fail(info.tag_offset, "Points must be numeric");
    if (info.components != 3)
      reader.fail(info.tag_offset, "Points must have 3 components, found " + std::to_string(info.components));
    all_float32 = all_float32 && *info.dtype == DType::float32;
    slices.push_back({&info, points_per_piece[p]});
  }
  // Points stay in their file dtype; integer coordinates (legal in VTK) become float64.
  const DType dtype = !slices.empty() && all_float32 ? DType::float32 : DType::float64;
  return reader.gather(slices, dtype, 3, true);
}

void read_point_data(const DataArrayReader& reader, const std::vector<std::int64_t>& points_per_piece, Mesh& mesh) {
  const auto& pieces = reader.layout().pieces;
  if (pieces.empty()) return;
  const Section* reference = pieces.front().section("PointData");
  if (reference == nullptr) return;
  for (const ArrayInfo& wanted : reference->arrays) {
    std::vector<DataArrayReader::Slice> slices;
    DType dtype = *wanted.dtype;
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      const ArrayInfo* info = find_in(pieces[p], "PointData", wanted.name);
      if (info == nullptr) {
        if (points_per_piece[p] == 0) continue;
        reader.fail(pieces[p].tag_offset, "piece lacks PointData array '" + wanted.name + "' that the first piece has");
      }
      if (info->components != wanted.components)
        reader.fail(info->tag_offset, DataArrayReader::label(*info) + " has " + std::to_string(info->components) +
                                          " components in this piece, " + std::to_string(wanted.components) +
                                          " in the first");
      dtype = promote(dtype, *info->dtype);
      slices.push_back({info, points_per_piece[p]});
    }
    mesh.point_data.set(wanted.name, reader.gather(slices, dtype, wanted.components, false));
  }
}

void append_cell_data(const DataArrayReader& reader, const Piece& piece, std::int64_t num_cells,
                      const std::vector<RowSelection>& selections, const Piece& reference, Mesh& mesh) {
  const Section* wanted_section = reference.section("CellData");
  if (wanted_section == nullptr) return;
  for (const ArrayInfo& wanted : wanted_section->arrays) {
    const ArrayInfo* info = find_in(piece, "CellData", wanted.name);
    if (info == nullptr)
      reader.fail(piece.tag_offset, "piece lacks CellData array '" + wanted.name + "' that other pieces have");
    if (info->components != wanted.components)
      reader.fail(info->tag_offset, DataArrayReader::label(*info) + " has " + std::to_string(info->components) +
                                        " components in this piece, " + std::to_string(wanted.components) +
                                        " in another");
    // One selection of every row shares the array; others get copies of their rows.
    const bool whole = selections.size() == 1 && selections[0].rows.empty() && selections[0].count == num_cells;
    // Rows copied out per block (take_rows is memcpy) can come straight from the mapped file.
    const Shape shape = DataArrayReader::array_shape(*info, num_cells);
    std::optional<NDArray> in_file = whole ? std::nullopt : reader.mapped_array(*info, shape);
    const NDArray values = in_file ? std::move(*in_file)
                                   : reader.read_array(*info, shape, whole ? Lifetime::result : Lifetime::scratch);
    std::vector<NDArray>* arrays = mesh.cell_data.find(wanted.name);
    if (arrays == nullptr) arrays = &mesh.cell_data.set(wanted.name, {});
    for (const RowSelection& selection : selections) arrays->push_back(take_rows(values, selection, whole));
  }
}

void shift_point_indices(std::vector<CellBlock>& blocks, std::int64_t shift) {
  if (shift == 0) return;
  for (CellBlock& block : blocks)
    for (std::int64_t& index : block.connectivity.values<std::int64_t>()) index += shift;
}

std::int64_t piece_count(const DataArrayReader& reader, const Piece& piece, std::string_view name) {
  return reader.count_attribute(piece.attributes, name, piece.tag_offset, "Piece").value_or(0);
}

std::string resolve_beside(const std::string& index_path, std::string_view file) {
  const std::filesystem::path relative{std::string(file)};
  if (relative.is_absolute()) return relative.string();
  return (std::filesystem::path(index_path).parent_path() / relative).string();
}

void check_listed_file(const std::string& index_path, std::string_view format, const std::string& entry,
                       const std::string& listed, const std::string& resolved) {
  const auto fail = [&](const std::string& what) {
    throw ReadError(index_path, std::string(format), entry + ": file '" + listed + "' " + what);
  };
  // The error_code overload: the throwing one raises filesystem_error for a name too long, a
  // link loop or a folder it may not search.
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(resolved, error);
  if (status.type() == std::filesystem::file_type::not_found) fail("not found (looked at " + resolved + ")");
  if (error) fail("cannot be looked up (" + resolved + "): " + error.message());
  if (status.type() == std::filesystem::file_type::directory) fail("is a directory (" + resolved + ")");
  if (status.type() != std::filesystem::file_type::regular) fail("is not a regular file (" + resolved + ")");
}

std::string stem_path(const std::string& path) {
  const std::filesystem::path full(path);
  return (full.parent_path() / full.stem()).string();
}

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

void merge_piece(Mesh& into, Mesh piece, const std::string& index_path, const std::string& piece_file,
                 std::string_view format, bool first, bool strict) {
  if (first) {
    into = std::move(piece);
    return;
  }
  const auto fail = [&](const std::string& message) {
    throw ReadError(index_path, std::string(format), "piece '" + piece_file + "': " + message);
  };
  const std::int64_t shift = into.num_points();
  const DType point_dtype = into.points.dtype() == piece.points.dtype() ? into.points.dtype() : DType::float64;
  into.points = concatenate_rows(into.points, piece.points, point_dtype);
  NamedList<NDArray> point_data;
  for (auto& [name, array] : into.point_data) {
    const NDArray* other = piece.point_data.find(name);
    const bool matches = other != nullptr && other->row_width() == array.row_width();
    if (!matches) {
      if (!strict) continue;
      fail(other == nullptr ? "lacks point data '" + name + "' that the first piece has"
                            : "point data '" + name + "' has another number of components");
    }
    point_data.set(name, concatenate_rows(array, *other, promote(array.dtype(), other->dtype())));
  }
  into.point_data = std::move(point_data);
  const std::size_t blocks_before = into.cells.size();
  shift_point_indices(piece.cells, shift);
  for (CellBlock& block : piece.cells) into.cells.push_back(std::move(block));
  NamedList<std::vector<NDArray>> cell_data;
  for (auto& [name, arrays] : into.cell_data) {
    std::vector<NDArray>* other = piece.cell_data.find(name);
    if (other == nullptr && into.cells.size() != blocks_before) {
      if (!strict) continue;
      fail("lacks cell data '" + name + "' that the first piece has");
    }
    std::vector<NDArray> joined = std::move(arrays);
    if (other != nullptr)
      for (NDArray& array : *other) joined.push_back(std::move(array));
    cell_data.set(name, std::move(joined));
  }
  into.cell_data = std::move(cell_data);
  // Cell data the first piece lacked but this one has cannot line up with the blocks before.
  for (const auto& [name, arrays] : piece.cell_data)
    if (!into.cell_data.contains(name) && !arrays.empty() && strict)
      fail("has cell data '" + name + "' the first piece lacks");
}

namespace {

// The rows `picked` (ascending) of `data`, copied into scratch memory.
NDArray take_rows(const NDArray& data, const std::vector<std::int64_t>& picked) {
  Shape shape = data.shape();
  shape[0] = static_cast<std::int64_t>(picked.size());
  NDArray out = NDArray::allocate_scratch(data.dtype(), shape);
  const std::size_t row_bytes = static_cast<std::size_t>(data.row_width()) * dtype_size(data.dtype());
  auto* to = static_cast<std::uint8_t*>(out.data());
  const auto* from = static_cast<const std::uint8_t*>(data.data());
  if (picked.empty()) return out;
  // A run of consecutive rows (a piece of a contiguous cell range) is one copy.
  if (static_cast<std::size_t>(picked.back() - picked.front()) + 1 == picked.size()) {
    std::memcpy(to, from + static_cast<std::size_t>(picked.front()) * row_bytes, picked.size() * row_bytes);
    return out;
  }
  // Otherwise row by row, with the common row sizes known to the compiler (inlined copies).
  const auto copy_rows = [&](auto bytes) {
    for (std::size_t r = 0; r < picked.size(); ++r)
      std::memcpy(to + r * bytes, from + static_cast<std::size_t>(picked[r]) * bytes, bytes);
  };
  switch (row_bytes) {
    case 4: copy_rows(std::integral_constant<std::size_t, 4>{}); break;
    case 8: copy_rows(std::integral_constant<std::size_t, 8>{}); break;
    case 12: copy_rows(std::integral_constant<std::size_t, 12>{}); break;
    case 16: copy_rows(std::integral_constant<std::size_t, 16>{}); break;
    case 24: copy_rows(std::integral_constant<std::size_t, 24>{}); break;
    default: copy_rows(row_bytes); break;
  }
  return out;
}

// Rows [first, first + count) of `data` without a copy; `data` must outlive the view.
NDArray row_view(const NDArray& data, std::int64_t first, std::int64_t count) {
  Shape shape = data.shape();
  shape[0] = count;
  if (count == 0) return NDArray::allocate_scratch(data.dtype(), shape);
  const std::size_t row_bytes = static_cast<std::size_t>(data.row_width()) * dtype_size(data.dtype());
  auto* bytes = static_cast<char*>(const_cast<void*>(data.data()));
  return NDArray::view(bytes + static_cast<std::size_t>(first) * row_bytes, data.dtype(), shape);
}

}  // namespace

Mesh extract_cells(const Mesh& mesh, std::span<const std::int64_t> cells) {
  Mesh part;
  part.field_data = mesh.field_data;
  part.string_field_data = mesh.string_field_data;
  std::vector<std::int64_t> new_index(static_cast<std::size_t>(mesh.num_points()), -1);
  // Per block: the selected local rows.
  std::vector<std::vector<std::int64_t>> rows(mesh.cells.size());
  std::size_t at = 0;
  std::int64_t base = 0;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const std::int64_t count = mesh.cells[b].num_cells();
    while (at < cells.size() && cells[at] < base + count) rows[b].push_back(cells[at++] - base);
    base += count;
  }
  const auto nodes_of = [&](const CellBlock& block, std::int64_t row) -> std::pair<std::int64_t, std::int64_t> {
    if (!block.is_ragged()) {
      const std::int64_t width = block.connectivity.row_width();
      return {row * width, (row + 1) * width};
    }
    const auto* offsets = block.offsets.data_as<std::int64_t>();
    if (block.face_offsets.empty_handle()) return {offsets[row], offsets[row + 1]};
    const auto* face_offsets = block.face_offsets.data_as<std::int64_t>();
    return {face_offsets[offsets[row]], face_offsets[offsets[row + 1]]};
  };
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const auto* ids = mesh.cells[b].connectivity.data_as<std::int64_t>();
    for (std::int64_t row : rows[b]) {
      const auto [first, last] = nodes_of(mesh.cells[b], row);
      for (std::int64_t i = first; i < last; ++i) new_index[static_cast<std::size_t>(ids[i])] = 0;
    }
  }
  std::vector<std::int64_t> used;
  for (std::size_t p = 0; p < new_index.size(); ++p)
    if (new_index[p] == 0) {
      new_index[p] = static_cast<std::int64_t>(used.size());
      used.push_back(static_cast<std::int64_t>(p));
    }
  part.points = take_rows(mesh.points, used);
  for (const auto& [name, array] : mesh.point_data) part.point_data.set(name, take_rows(array, used));
  std::vector<std::size_t> kept_blocks;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    if (rows[b].empty()) continue;
    kept_blocks.push_back(b);
    const CellBlock& block = mesh.cells[b];
    const auto* ids = block.connectivity.data_as<std::int64_t>();
    CellBlock out;
    out.type = block.type;
    if (!block.is_ragged()) {
      const std::int64_t width = block.connectivity.row_width();
      out.connectivity = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(rows[b].size()), width});
      std::int64_t* target = out.connectivity.data_as<std::int64_t>();
      for (std::int64_t row : rows[b])
        for (std::int64_t k = 0; k < width; ++k) *target++ = new_index[static_cast<std::size_t>(ids[row * width + k])];
    } else {
      const auto* offsets = block.offsets.data_as<std::int64_t>();
      const bool polyhedron = !block.face_offsets.empty_handle();
      std::vector<std::int64_t> nodes, cell_offsets{0}, face_offsets{0};
      for (std::int64_t row : rows[b]) {
        if (polyhedron) {
          const auto* faces = block.face_offsets.data_as<std::int64_t>();
          for (std::int64_t f = offsets[row]; f < offsets[row + 1]; ++f) {
            for (std::int64_t i = faces[f]; i < faces[f + 1]; ++i) nodes.push_back(new_index[static_cast<std::size_t>(ids[i])]);
            face_offsets.push_back(static_cast<std::int64_t>(nodes.size()));
          }
          cell_offsets.push_back(static_cast<std::int64_t>(face_offsets.size()) - 1);
        } else {
          for (std::int64_t i = offsets[row]; i < offsets[row + 1]; ++i) nodes.push_back(new_index[static_cast<std::size_t>(ids[i])]);
          cell_offsets.push_back(static_cast<std::int64_t>(nodes.size()));
        }
      }
      const auto to_array = [](const std::vector<std::int64_t>& values) {
        NDArray array = NDArray::allocate_scratch(DType::int64, {static_cast<std::int64_t>(values.size())});
        if (!values.empty()) std::memcpy(array.data(), values.data(), values.size() * sizeof(std::int64_t));
        return array;
      };
      out.connectivity = to_array(nodes);
      out.offsets = to_array(cell_offsets);
      if (polyhedron) out.face_offsets = to_array(face_offsets);
    }
    part.cells.push_back(std::move(out));
  }
  for (const auto& [name, arrays] : mesh.cell_data) {
    std::vector<NDArray> parts;
    for (std::size_t b : kept_blocks) parts.push_back(take_rows(arrays[b], rows[b]));
    part.cell_data.set(name, std::move(parts));
  }
  return part;
}

Mesh extract_cell_range(const Mesh& mesh, std::int64_t first, std::int64_t last) {
  // The rows [low, high) each block contributes.
  struct BlockRange {
    std::size_t block;
    std::int64_t low, high;
  };
  std::vector<BlockRange> ranges;
  std::int64_t base = 0;
  bool ragged = false;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const std::int64_t count = mesh.cells[b].num_cells();
    const std::int64_t low = std::max(first, base) - base, high = std::min(last, base + count) - base;
    if (low < high) {
      ranges.push_back({b, low, high});
      ragged |= mesh.cells[b].is_ragged();
    }
    base += count;
  }
  // The node span [lowest, highest] the range uses.
  std::int64_t lowest = std::numeric_limits<std::int64_t>::max(), highest = -1;
  for (const BlockRange& range : ranges) {
    const CellBlock& block = mesh.cells[range.block];
    if (block.is_ragged()) continue;
    const std::int64_t width = block.connectivity.row_width();
    const auto* ids = block.connectivity.data_as<std::int64_t>();
    std::int64_t low = lowest, high = highest;
    for (std::int64_t i = range.low * width; i < range.high * width; ++i) {
      low = std::min(low, ids[i]);
      high = std::max(high, ids[i]);
    }
    lowest = low;
    highest = high;
  }
  if (ragged || highest < lowest) {  // polygons/polyhedra, or no node at all: the general cut
    std::vector<std::int64_t> cells(static_cast<std::size_t>(std::max<std::int64_t>(last - first, 0)));
    for (std::size_t c = 0; c < cells.size(); ++c) cells[c] = first + static_cast<std::int64_t>(c);
    return extract_cells(mesh, cells);
  }
  const auto span = static_cast<std::size_t>(highest - lowest + 1);
  std::vector<std::uint8_t> used(span, 0);
  for (const BlockRange& range : ranges) {
    const CellBlock& block = mesh.cells[range.block];
    const std::int64_t width = block.connectivity.row_width();
    const auto* ids = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t i = range.low * width; i < range.high * width; ++i) used[static_cast<std::size_t>(ids[i] - lowest)] = 1;
  }
  std::size_t used_count = 0;
  for (std::uint8_t flag : used) used_count += flag;
  // Every point of the span is used: the points are a run of rows, and node numbers shift.
  const bool consecutive = used_count == span;
  Mesh part;
  part.field_data = mesh.field_data;
  part.string_field_data = mesh.string_field_data;
  std::vector<std::int64_t> new_index, picked;
  if (consecutive) {
    part.points = row_view(mesh.points, lowest, static_cast<std::int64_t>(span));
    for (const auto& [name, array] : mesh.point_data)
      part.point_data.set(name, row_view(array, lowest, static_cast<std::int64_t>(span)));
  } else {
    new_index.assign(span, -1);
    picked.reserve(used_count);
    for (std::size_t p = 0; p < span; ++p)
      if (used[p]) {
        new_index[p] = static_cast<std::int64_t>(picked.size());
        picked.push_back(lowest + static_cast<std::int64_t>(p));
      }
    part.points = take_rows(mesh.points, picked);
    for (const auto& [name, array] : mesh.point_data) part.point_data.set(name, take_rows(array, picked));
  }
  for (const BlockRange& range : ranges) {
    const CellBlock& block = mesh.cells[range.block];
    CellBlock out;
    out.type = block.type;
    const std::int64_t rows = range.high - range.low;
    if (consecutive && lowest == 0) {
      out.connectivity = row_view(block.connectivity, range.low, rows);
    } else {
      const std::int64_t width = block.connectivity.row_width();
      out.connectivity = NDArray::allocate_scratch(DType::int64, {rows, width});
      std::int64_t* target = out.connectivity.data_as<std::int64_t>();
      const std::int64_t* ids = block.connectivity.data_as<std::int64_t>() + range.low * width;
      const std::int64_t count = rows * width;
      if (consecutive)
        for (std::int64_t i = 0; i < count; ++i) target[i] = ids[i] - lowest;
      else
        for (std::int64_t i = 0; i < count; ++i) target[i] = new_index[static_cast<std::size_t>(ids[i] - lowest)];
    }
    part.cells.push_back(std::move(out));
  }
  for (const auto& [name, arrays] : mesh.cell_data) {
    std::vector<NDArray> parts;
    for (const BlockRange& range : ranges) parts.push_back(row_view(arrays[range.block], range.low, range.high - range.low));
    part.cell_data.set(name, std::move(parts));
  }
  return part;
}

std::string index_prologue(std::string_view type, std::string_view version) {
  return "<?xml version=\"1.0\"?>\n<VTKFile type=\"" + std::string(type) + "\" version=\"" + std::string(version) +
         "\" byte_order=\"" +
         (io::kHostIsLittleEndian ? "LittleEndian" : "BigEndian") + "\" header_type=\"UInt32\">\n";
}

}  // namespace meshioplusplus::vtk_xml_detail
