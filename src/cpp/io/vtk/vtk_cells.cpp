#include "io/vtk/vtk_cells.hpp"

#include <algorithm>
#include <cstring>

#include "io/source/byte_order.hpp"
#include "io/source/parallel.hpp"
#include "io/vtk/vtk_face_stream.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::io {
namespace {

// VTK pixel/voxel number their corners lexicographically; quad/hexahedron go around.
constexpr int kPixelToQuad[4] = {0, 1, 3, 2};
constexpr int kVoxelToHexahedron[8] = {0, 1, 3, 2, 4, 5, 7, 6};
// meshio (and Gmsh) list a wedge's bottom triangle the other way round from VTK.
constexpr int kWedgeOrder[6] = {0, 2, 1, 3, 5, 4};
constexpr int kVtkWedge = 13;

template <class Index>
std::int64_t checked_index(Index value, std::int64_t num_points) {
  const auto index = static_cast<std::int64_t>(value);
  if constexpr (std::is_unsigned_v<Index>) {
    if (static_cast<std::uint64_t>(value) > static_cast<std::uint64_t>(INT64_MAX))
      throw CellStreamError("connectivity index out of range");
  }
  if (index < 0 || index >= num_points)
    throw CellStreamError("connectivity index " + std::to_string(index) + " outside [0, " +
                          std::to_string(num_points) + ")");
  return index;
}

// Connectivity values where they are stored, read through memcpy: a view of a mapped file
// may sit at any alignment, and may need its bytes swapped (VtkCellStream). For an aligned
// native array each read compiles to the plain load that indexing would be.
template <class Index, bool kSwapped>
struct StoredIndices {
  const unsigned char* bytes;
  Index operator[](std::int64_t i) const noexcept {
    return load_integer<Index, kSwapped>(bytes + static_cast<std::size_t>(i) * sizeof(Index));
  }
};

template <class Visit>
void visit_connectivity(const NDArray& array, bool swapped, Visit&& visit) {
  visit_dtype(array.dtype(), [&](auto tag) {
    using Index = decltype(tag);
    if constexpr (std::is_integral_v<Index>) {
      const auto* bytes = static_cast<const unsigned char*>(array.data());
      if (swapped && sizeof(Index) > 1) visit(StoredIndices<Index, true>{bytes});
      else visit(StoredIndices<Index, false>{bytes});
    }
  });
}

template <class Indices>
void gather_rectangular(Indices connectivity, std::span<const std::int64_t> offsets,
                        std::int64_t first, std::int64_t count, int nodes, const int* permutation,
                        std::int64_t num_points, std::int64_t* out) {
  // Pieces of cells on all cores; a bad index is reported as a sequential gather would (the
  // earliest piece's first).
  parallel_ranges(static_cast<std::size_t>(count), std::size_t{1} << 18, [&](std::size_t begin, std::size_t end) {
    for (auto c = static_cast<std::int64_t>(begin); c < static_cast<std::int64_t>(end); ++c) {
      const std::int64_t cell = offsets[first + c];
      std::int64_t* target = out + c * nodes;
      if (permutation) {
        for (int k = 0; k < nodes; ++k) target[k] = checked_index(connectivity[cell + permutation[k]], num_points);
      } else {
        for (int k = 0; k < nodes; ++k) target[k] = checked_index(connectivity[cell + k], num_points);
      }
    }
  });
}

bool can_share_connectivity(const VtkCellStream& stream, std::int64_t nodes) {
  // One run spanning everything, already int64, densely packed: the array itself is the block.
  const std::int64_t n = static_cast<std::int64_t>(stream.types.size());
  return stream.connectivity_is_shareable && !stream.connectivity_byte_swapped && stream.connectivity.dtype() == DType::int64 &&
         static_cast<std::int64_t>(stream.connectivity.size()) == n * nodes &&
         stream.offsets[n] == n * nodes && stream.connectivity.owns_data();
}

CellBlock make_polygon_block(const VtkCellStream& stream, std::int64_t first, std::int64_t count) {
  CellBlock block;
  block.type = "polygon";
  const std::int64_t begin = stream.offsets[first], end = stream.offsets[first + count];
  block.offsets = NDArray::allocate(DType::int64, {count + 1});
  std::int64_t* offsets = block.offsets.data_as<std::int64_t>();
  for (std::int64_t c = 0; c <= count; ++c) offsets[c] = stream.offsets[first + c] - begin;
  block.connectivity = NDArray::allocate(DType::int64, {end - begin});
  std::int64_t* out = block.connectivity.data_as<std::int64_t>();
  visit_connectivity(stream.connectivity, stream.connectivity_byte_swapped, [&](auto source) {
    for (std::int64_t i = begin; i < end; ++i) out[i - begin] = checked_index(source[i], stream.num_points);
  });
  return block;
}

CellBlock make_polyhedron_block(const VtkCellStream& stream, std::int64_t first, std::int64_t count) {
  if (stream.faces.empty_handle() || stream.face_offsets.empty())
    throw CellStreamError("polyhedron cells without faces/faceoffsets arrays");
  if (!dtype_is_signed_int(stream.faces.dtype()) && !dtype_is_unsigned_int(stream.faces.dtype()))
    throw CellStreamError("polyhedron faces must be an integer array");
  // Only this run's window of the face stream: copying all of it for every run would be
  // quadratic when polyhedra alternate with other cells.
  const std::int64_t window_begin = stream.face_offsets[first], window_end = stream.face_offsets[first + count];
  if (window_begin < 0 || window_end < window_begin || window_end > static_cast<std::int64_t>(stream.faces.size()))
    throw CellStreamError("polyhedron face offsets out of range");
  std::vector<std::int64_t> faces(static_cast<std::size_t>(window_end - window_begin));
  visit_connectivity(stream.faces, stream.faces_byte_swapped, [&](auto source) {
    for (std::int64_t i = window_begin; i < window_end; ++i) {
      const auto value = source[i];
      if constexpr (std::is_unsigned_v<decltype(value)>)
        if (static_cast<std::uint64_t>(value) > static_cast<std::uint64_t>(INT64_MAX))
          throw CellStreamError("polyhedron face stream value out of range");
      faces[static_cast<std::size_t>(i - window_begin)] = static_cast<std::int64_t>(value);
    }
  });
  PolyhedronBlockBuilder builder(stream.num_points);
  for (std::int64_t c = first; c < first + count; ++c) {
    const std::int64_t at = stream.face_offsets[c] - window_begin, stop = stream.face_offsets[c + 1] - window_begin;
    if (at < 0 || stop > static_cast<std::int64_t>(faces.size()) || at > stop)
      throw CellStreamError("polyhedron face offsets out of range");
    builder.add_cell(std::span<const std::int64_t>(faces).subspan(static_cast<std::size_t>(at), static_cast<std::size_t>(stop - at)), c);
  }
  return builder.finish();
}

}  // namespace

VtkCells cells_from_vtk(const VtkCellStream& stream) {
  const std::int64_t n = static_cast<std::int64_t>(stream.types.size());
  if (static_cast<std::int64_t>(stream.offsets.size()) != n + 1)
    throw CellStreamError("offsets and types disagree on the number of cells");
  const std::int64_t total = static_cast<std::int64_t>(stream.connectivity.size());
  if (n > 0 && (stream.offsets[0] != 0 || stream.offsets[n] > total))
    throw CellStreamError("cell offsets exceed the connectivity array");
  if (!dtype_is_signed_int(stream.connectivity.dtype()) && !dtype_is_unsigned_int(stream.connectivity.dtype()))
    throw CellStreamError("connectivity must be an integer array");
  // Offsets that never decrease are what both readers check as they convert them (naming
  // the entry). Here only polygon and polyhedron runs need the check: a fixed-size cell
  // steps by its type's positive node count, so with offsets[0] == 0 and offsets[n] <= total
  // every cell stays inside the connectivity array.
  const std::int64_t* offsets = stream.offsets.data();

  VtkCells result;
  std::int64_t first = 0;
  while (first < n) {
    const std::int64_t vtk_id = stream.types[first];
    std::int64_t stop = first + 1;
    const std::int64_t nodes = stream.offsets[first + 1] - stream.offsets[first];
    const bool ragged = vtk_id == kVtkPolygon || vtk_id == kVtkPolyhedron;
    // A run continues while the type (and, for fixed types, the node count) stays the same.
    const std::uint8_t* types = stream.types.data();
    stop = static_cast<std::int64_t>(find_first_in_parallel(
        static_cast<std::size_t>(stop), static_cast<std::size_t>(n), [types, offsets, vtk_id, ragged, nodes](std::size_t c) {
          return types[c] != vtk_id || (!ragged && offsets[c + 1] - offsets[c] != nodes);
        }));
    const std::int64_t count = stop - first;
    if (ragged && any_in_parallel(static_cast<std::size_t>(count), [at = offsets + first](std::size_t c) {
          return at[c + 1] < at[c];
        }))
      throw CellStreamError("cell offsets decrease");
    if (vtk_id == kVtkPolygon) {
      result.blocks.push_back(make_polygon_block(stream, first, count));
    } else if (vtk_id == kVtkPolyhedron) {
      result.blocks.push_back(make_polyhedron_block(stream, first, count));
    } else {
      const CellTypeInfo* info = cell_type_from_vtk(static_cast<int>(vtk_id), nodes);
      if (info == nullptr)
        throw CellStreamError("unknown VTK cell type " + std::to_string(vtk_id) + " with " +
                              std::to_string(nodes) + " nodes");
      if (info->num_nodes != kAnyNodeCount && info->num_nodes != nodes)
        throw CellStreamError("VTK cell type " + std::to_string(vtk_id) + " (" + std::string(info->name) +
                              ") needs " + std::to_string(info->num_nodes) + " nodes, got " +
                              std::to_string(nodes));
      const int* permutation = vtk_id == kVtkPixel   ? kPixelToQuad
                               : vtk_id == kVtkVoxel ? kVoxelToHexahedron
                                                     : vtk_node_permutation(static_cast<int>(vtk_id));
      CellBlock block;
      block.type = std::string(info->name);
      if (count == n && permutation == nullptr && can_share_connectivity(stream, nodes)) {
        // One vectorised pass over every index; the offending one is reported only if any.
        const auto* ids = stream.connectivity.data_as<std::int64_t>();
        const auto total = static_cast<std::size_t>(n * nodes);
        if (!stream.indices_checked)
          if (const std::size_t bad = first_index_outside({ids, total}, stream.num_points); bad != total)
            checked_index(ids[bad], stream.num_points);
        block.connectivity = stream.connectivity.reshaped({n, nodes});
      } else {
        block.connectivity = NDArray::allocate(DType::int64, {count, nodes});
        std::int64_t* out = block.connectivity.data_as<std::int64_t>();
        visit_connectivity(stream.connectivity, stream.connectivity_byte_swapped, [&](auto source) {
          gather_rectangular(source, stream.offsets, first, count, static_cast<int>(nodes), permutation,
                             stream.num_points, out);
        });
      }
      result.blocks.push_back(std::move(block));
    }
    result.runs.push_back({first, count});
    first = stop;
  }
  return result;
}

std::vector<NDArray> split_cell_data(const NDArray& data, const std::vector<CellRun>& runs) {
  std::vector<NDArray> parts;
  parts.reserve(runs.size());
  if (runs.size() == 1 && runs[0].first_cell == 0 && runs[0].cell_count == data.rows()) {
    parts.push_back(data);
    return parts;
  }
  const std::size_t row_bytes = static_cast<std::size_t>(data.row_width()) * dtype_size(data.dtype());
  for (const CellRun& run : runs) {
    Shape shape = data.shape();
    shape[0] = run.cell_count;
    NDArray part = NDArray::allocate(data.dtype(), shape);
    if (run.cell_count > 0)
      std::memcpy(part.data(), static_cast<const char*>(data.data()) + run.first_cell * row_bytes,
                  static_cast<std::size_t>(run.cell_count) * row_bytes);
    parts.push_back(std::move(part));
  }
  return parts;
}

std::optional<CellBlock> structured_grid_cells(const std::array<std::int64_t, 3>& dims) {
  std::int64_t strides[3]{}, extents[3]{};
  int spanned = 0;
  std::int64_t stride = 1;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (dims[axis] > 1) {
      strides[spanned] = stride;
      extents[spanned] = dims[axis] - 1;
      ++spanned;
    }
    stride *= dims[axis];
  }
  if (spanned == 0) return std::nullopt;
  static constexpr std::string_view kTypes[] = {"line", "quad", "hexahedron"};
  const std::int64_t nodes = std::int64_t{1} << spanned;
  const std::int64_t ea = extents[0], eb = spanned > 1 ? extents[1] : 1, ec = spanned > 2 ? extents[2] : 1;
  CellBlock block;
  block.type = std::string(kTypes[spanned - 1]);
  block.connectivity = NDArray::allocate(DType::int64, {ea * eb * ec, nodes});
  std::int64_t* const out = block.connectivity.data_as<std::int64_t>();
  const std::int64_t sa = strides[0], sb = strides[1], sc = strides[2];
  // Layers of cells on all cores; each writes its own rows.
  parallel_ranges(static_cast<std::size_t>(eb * ec), std::size_t{64}, [&](std::size_t first, std::size_t last) {
    for (std::size_t layer = first; layer < last; ++layer) {
      const auto j = static_cast<std::int64_t>(layer) % eb, k = static_cast<std::int64_t>(layer) / eb;
      std::int64_t* row = out + static_cast<std::int64_t>(layer) * ea * nodes;
      for (std::int64_t i = 0; i < ea; ++i) {
        const std::int64_t base = i * sa + j * sb + k * sc;
        // line: a, a+1; quad: counter-clockwise; hexahedron: bottom quad then top quad.
        const std::int64_t corners[8] = {base,      base + sa,      base + sa + sb,      base + sb,
                                         base + sc, base + sa + sc, base + sa + sb + sc, base + sb + sc};
        for (std::int64_t n = 0; n < nodes; ++n) *row++ = corners[n];
      }
    }
  });
  return block;
}

const int* vtk_node_permutation(int vtk_id) noexcept { return vtk_id == kVtkWedge ? kWedgeOrder : nullptr; }

int vtk_id_for(const CellBlock& block) {
  const CellTypeInfo* info = find_cell_type(block.type);
  if (info == nullptr || info->vtk_id < 0)
    throw std::invalid_argument("VTK has no cell type for '" + block.type + "'");
  return info->vtk_id;
}

std::optional<std::vector<NDArray>> vtk_connectivity_segments(const std::vector<CellBlock>& blocks) {
  std::vector<NDArray> pieces;
  for (const CellBlock& block : blocks) {
    if (block.type == "polyhedron") return std::nullopt;
    const int* permutation = block.is_ragged() ? nullptr : vtk_node_permutation(vtk_id_for(block));
    if (permutation == nullptr) {
      pieces.push_back(block.connectivity);
      continue;
    }
    const std::int64_t count = block.num_cells(), nodes = block.connectivity.row_width();
    NDArray permuted = NDArray::allocate_scratch(DType::int64, {count * nodes});
    auto* target = permuted.data_as<std::int64_t>();
    const auto* ids = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t i = 0; i < count * nodes; ++i) target[i] = ids[i - i % nodes + permutation[i % nodes]];
    pieces.push_back(std::move(permuted));
  }
  return pieces;
}

namespace {

// Calls visit(block, first_in_block, count_in_block, ids_before_block, out_position) for each
// block's share of the cell rows [first, first + count).
template <class Visit>
void for_cell_rows(const std::vector<CellBlock>& blocks, std::int64_t first, std::int64_t count, Visit&& visit) {
  std::int64_t cell = 0, ids_before = 0;
  const std::int64_t last = first + count;
  for (const CellBlock& block : blocks) {
    if (cell >= last) break;
    const std::int64_t cells = block.num_cells();
    const std::int64_t from = std::max(first, cell), to = std::min(last, cell + cells);
    if (from < to) visit(block, from - cell, to - from, ids_before, from - first);
    cell += cells;
    ids_before += static_cast<std::int64_t>(block.connectivity.size());
  }
}

}  // namespace

void fill_vtk_types(const std::vector<CellBlock>& blocks, std::int64_t first, std::int64_t count,
                    std::uint8_t* out) {
  for_cell_rows(blocks, first, count,
                [out](const CellBlock& block, std::int64_t, std::int64_t n, std::int64_t, std::int64_t at) {
                  std::fill_n(out + at, n, static_cast<std::uint8_t>(vtk_id_for(block)));
                });
}

void fill_vtk_end_offsets(const std::vector<CellBlock>& blocks, std::int64_t first, std::int64_t count,
                          std::int64_t* out) {
  for_cell_rows(blocks, first, count,
                [out](const CellBlock& block, std::int64_t from, std::int64_t n, std::int64_t ids_before,
                      std::int64_t at) {
                  std::int64_t* target = out + at;
                  if (block.is_ragged()) {
                    const auto* cell_offsets = block.offsets.data_as<std::int64_t>() + from;
                    for (std::int64_t c = 0; c < n; ++c) target[c] = ids_before + cell_offsets[c + 1];
                  } else {
                    const std::int64_t nodes = block.connectivity.row_width();
                    const std::int64_t base = ids_before + from * nodes;
                    for (std::int64_t c = 0; c < n; ++c) target[c] = base + (c + 1) * nodes;
                  }
                });
}

VtkTypesAndOffsets vtk_types_and_offsets(const std::vector<CellBlock>& blocks) {
  std::int64_t num_cells = 0;
  for (const CellBlock& block : blocks) num_cells += block.num_cells();
  VtkTypesAndOffsets out{NDArray::allocate_scratch(DType::uint8, {num_cells}),
                         NDArray::allocate_scratch(DType::int64, {num_cells})};
  fill_vtk_types(blocks, 0, num_cells, out.types.data_as<std::uint8_t>());
  fill_vtk_end_offsets(blocks, 0, num_cells, out.offsets.data_as<std::int64_t>());
  return out;
}

std::optional<VtkCellSegments> cells_to_vtk_segments(const std::vector<CellBlock>& blocks) {
  std::optional<std::vector<NDArray>> connectivity = vtk_connectivity_segments(blocks);
  if (!connectivity) return std::nullopt;
  VtkTypesAndOffsets types_and_offsets = vtk_types_and_offsets(blocks);
  return VtkCellSegments{std::move(types_and_offsets.types), std::move(types_and_offsets.offsets),
                         std::move(*connectivity)};
}

VtkCellArrays cells_to_vtk(const std::vector<CellBlock>& blocks) {
  std::int64_t num_cells = 0, total = 0, total_faces = 0;
  bool any_polyhedron = false;
  for (const CellBlock& block : blocks) {
    num_cells += block.num_cells();
    total += static_cast<std::int64_t>(block.connectivity.size());
    if (block.type == "polyhedron") {
      any_polyhedron = true;
      total_faces += PolyhedronFaceStreams(block).total_size();
    }
  }
  VtkCellArrays out;
  out.types = NDArray::allocate(DType::uint8, {num_cells});
  out.offsets = NDArray::allocate(DType::int64, {num_cells});
  out.connectivity = NDArray::allocate(DType::int64, {total});
  if (any_polyhedron) {
    out.faces = NDArray::allocate(DType::int64, {total_faces});
    out.face_offsets = NDArray::allocate(DType::int64, {num_cells});
  }
  auto* types = out.types.data_as<std::uint8_t>();
  auto* offsets = out.offsets.data_as<std::int64_t>();
  auto* connectivity = out.connectivity.data_as<std::int64_t>();
  std::int64_t* faces = any_polyhedron ? out.faces.data_as<std::int64_t>() : nullptr;
  std::int64_t* face_offsets = any_polyhedron ? out.face_offsets.data_as<std::int64_t>() : nullptr;
  std::int64_t cell = 0, written = 0, faces_written = 0;
  for (const CellBlock& block : blocks) {
    const auto vtk_id = static_cast<std::uint8_t>(vtk_id_for(block));
    const std::int64_t count = block.num_cells();
    const auto* ids = block.connectivity.data_as<std::int64_t>();
    if (block.type == "polyhedron") {
      const PolyhedronFaceStreams streams(block);
      for (std::int64_t c = 0; c < count; ++c) {
        // Connectivity lists each distinct point of the polyhedron once, in first-seen order.
        for (const std::int64_t point : streams.points(c)) connectivity[written++] = point;
        streams.emit(c, [&](std::int64_t value) { faces[faces_written++] = value; });
        face_offsets[cell] = faces_written;
        types[cell] = vtk_id;
        offsets[cell++] = written;
      }
    } else if (block.is_ragged()) {
      const auto* cell_offsets = block.offsets.data_as<std::int64_t>();
      std::memcpy(connectivity + written, ids, block.connectivity.size() * sizeof(std::int64_t));
      for (std::int64_t c = 0; c < count; ++c) {
        if (any_polyhedron) face_offsets[cell] = -1;
        types[cell] = vtk_id;
        offsets[cell++] = written + cell_offsets[c + 1];
      }
      written += static_cast<std::int64_t>(block.connectivity.size());
    } else {
      const std::int64_t nodes = block.connectivity.row_width();
      if (const int* permutation = vtk_node_permutation(vtk_id)) {
        for (std::int64_t i = 0; i < count * nodes; ++i)
          connectivity[written + i] = ids[i - i % nodes + permutation[i % nodes]];
      } else {
        std::memcpy(connectivity + written, ids, block.connectivity.size() * sizeof(std::int64_t));
      }
      for (std::int64_t c = 0; c < count; ++c) {
        if (any_polyhedron) face_offsets[cell] = -1;
        types[cell] = vtk_id;
        offsets[cell++] = written + (c + 1) * nodes;
      }
      written += count * nodes;
    }
  }
  // Polyhedron connectivity holds unique points only, so it can be shorter than reserved.
  if (written != total) {
    NDArray trimmed = NDArray::allocate(DType::int64, {written});
    std::memcpy(trimmed.data(), connectivity, static_cast<std::size_t>(written) * sizeof(std::int64_t));
    out.connectivity = std::move(trimmed);
  }
  return out;
}

}  // namespace meshioplusplus::io
