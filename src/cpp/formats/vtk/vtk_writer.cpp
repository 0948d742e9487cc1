// VTK legacy (.vtk) writer: an UNSTRUCTURED_GRID in file version 4.2 or 5.1, ASCII or
// binary (big-endian).
//
// What goes where, and why:
//  - POINTS keep their dtype (float / double) and are padded with zeros to the three
//    components VTK requires, as meshio does.
//  - 4.2 stores "CELLS n size" with a point count before each cell (32-bit in binary, so
//    4.2 refuses meshes with more than 2^31-1 points); 5.1 stores "CELLS n+1 m" followed by
//    OFFSETS and CONNECTIVITY arrays of vtktypeint64. CELL_TYPES are ints in both.
//  - Point and cell data are written so that the reader gives back the same shape:
//    (n, 1) as SCALARS with LOOKUP_TABLE default, (n, 3, 3) as TENSORS, and every other
//    shape as a FIELD array — (n,) with one component, (n, k) with k; arrays of higher rank
//    are flattened to (n, product of the trailing dimensions), the one shape that is lost.
//    Consecutive FIELD arrays share one FIELD block, so the order of the arrays survives.
//  - field_data is a FIELD FieldData block at dataset level: (a,) is a tuples of one
//    component, (a, b, …) a tuples of b·… components, a 0-d array one tuple. It follows
//    CELL_TYPES rather than the DATASET line: VTK reads it anywhere before POINT_DATA, and
//    meshio keeps it only there (a FIELD right after DATASET is lost in meshio).
//  - Integer dtypes use VTK's classic names (char, short, int …), which VTK reads;
//    meshio's 5.1 reader takes binary 'int' for 8 bytes, a meshio bug this does not chase.
//  - Wedges are written in VTK's node order (io::vtk_node_permutation), as meshio does.
//  - Names are %XX-escaped where they hold blanks or other bytes a token cannot.
//  - Polyhedra (type 42) are written as VTK 9's writer writes them, in both versions: the
//    cell's list is its face stream [nfaces, n0, ids…, n1, ids…] (io::PolyhedronFaceStreams),
//    faces as the block holds them (outward, VTK's rule). VTK's reader gives the same faces
//    back (GetFaceStream); meshio cannot read polyhedra from legacy files.
//    string_field_data and regions have no place in a legacy file and are not written.
//
// Binary values are converted to big-endian chunk by chunk while they stream out, so no
// array is copied whole; ASCII lines are formatted on all cores (io/output/parallel_rows.hpp),
// in file order, so the file is the same at any thread count; everything goes through a temporary file renamed over the target
// on success (io::AtomicFile), so a failed write leaves an existing file untouched.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "formats/vtk/vtk.hpp"
#include "formats/vtk/vtk_common.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/source/byte_order.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "io/vtk/vtk_face_stream.hpp"

namespace meshioplusplus::vtk {
namespace {

using detail::encode_name;
using detail::legacy_type_name;

constexpr std::size_t kChunkValues = 4096;
constexpr std::int64_t kValuesPerAsciiLine = 9;

// The body of one array: ASCII numbers separated by blanks with explicit line breaks, or
// big-endian binary converted a chunk at a time.
template <class FileT>
class ValueSink {
 public:
  ValueSink(io::OutputBuffer& out, bool binary) : out_(out), binary_(binary) {}
  ValueSink(const ValueSink&) = delete;
  ValueSink& operator=(const ValueSink&) = delete;

  void push(FileT value) {
    if (binary_) {
      chunk_[used_++] = value;
      if (used_ == chunk_.size()) flush_chunk();
      return;
    }
    if (line_open_) out_.put(' ');
    out_.number(value);
    line_open_ = true;
  }

  void end_line() {
    if (!binary_ && line_open_) out_.put('\n');
    line_open_ = false;
  }

  // Binary data are followed by a line break, which readers expect before the next keyword.
  void finish() {
    if (binary_) {
      flush_chunk();
      out_.put('\n');
    } else {
      end_line();
    }
  }

 private:
  void flush_chunk() {
    if (used_ == 0) return;
    if (io::kHostIsLittleEndian) io::swap_bytes_in_place(chunk_.data(), sizeof(FileT), used_);
    out_.bytes(chunk_.data(), used_ * sizeof(FileT));
    used_ = 0;
  }

  io::OutputBuffer& out_;
  bool binary_;
  bool line_open_ = false;
  std::array<FileT, kChunkValues> chunk_;
  std::size_t used_ = 0;
};

template <class T>
void push_values(ValueSink<T>& sink, const NDArray& array, std::int64_t per_line) {
  const T* values = array.data_as<T>();
  const std::size_t count = array.size();
  for (std::size_t i = 0; i < count; ++i) {
    sink.push(values[i]);
    if ((static_cast<std::int64_t>(i) + 1) % per_line == 0) sink.end_line();
  }
}

// Room for one ASCII value and the blank before it.
constexpr std::size_t kValueRoom = io::kMaxNumberChars + 1;

// `count` values as ValueSink writes them with end_line() after every `per_line`-th: the lines
// formatted on all cores. `line_open` says whether the line before them is still open (its
// first value then follows a blank) and, on return, whether the last line is.
template <class T>
void write_ascii_run(io::OutputBuffer& out, io::AtomicFile& file, const T* values, std::int64_t count,
                     std::int64_t per_line, bool& line_open) {
  if (count <= 0) return;
  const bool joins = line_open;
  const std::int64_t lines = (count + per_line - 1) / per_line;
  io::write_rows_in_parallel(out, file, lines, static_cast<std::size_t>(per_line) * kValueRoom + 1,
                             [&](char* p, std::int64_t line) {
                               const std::int64_t first = line * per_line, end = std::min(count, first + per_line);
                               for (std::int64_t i = first; i < end; ++i) {
                                 if (i != first || (line == 0 && joins)) *p++ = ' ';
                                 p = io::put_number(p, values[i]);
                               }
                               if (end % per_line == 0) *p++ = '\n';
                               return p;
                             });
  line_open = count % per_line != 0;
}

// All `parts` (same dtype) as one array body, `per_line` values to an ASCII line (the count
// starting again with each part, as a part's values follow an open line of the one before).
void write_values(io::OutputBuffer& out, io::AtomicFile& file, bool binary, std::span<const NDArray> parts,
                  std::int64_t per_line) {
  if (parts.empty()) return;
  visit_dtype(parts.front().dtype(), [&](auto tag) {
    using T = decltype(tag);
    // A line longer than a chunk (tuples of thousands of components) would need a buffer of
    // its own per thread: such arrays stream out value by value, as binary ones do.
    if (!binary && static_cast<std::size_t>(per_line) * kValueRoom <= io::kChunkBytes) {
      bool line_open = false;
      for (const NDArray& part : parts)
        write_ascii_run(out, file, part.data_as<T>(), static_cast<std::int64_t>(part.size()), per_line, line_open);
      if (line_open) out.put('\n');
      return;
    }
    ValueSink<T> sink(out, binary);
    for (const NDArray& part : parts) push_values(sink, part, per_line);
    sink.finish();
  });
}

// Components per row as a FIELD array or SCALARS sees them.
std::int64_t components_of(const NDArray& array) { return array.ndim() <= 1 ? 1 : array.row_width(); }
std::int64_t tuples_of(const NDArray& array) { return array.ndim() == 0 ? 1 : array.rows(); }
std::int64_t ascii_line_width(const NDArray& array) {
  return array.ndim() <= 1 ? kValuesPerAsciiLine : array.row_width() > 0 ? array.row_width() : 1;
}

enum class Layout { scalars, tensors, field };

Layout layout_of(const NDArray& array) {
  if (array.ndim() == 2 && array.dim(1) == 1) return Layout::scalars;
  if (array.ndim() == 3 && array.dim(1) == 3 && array.dim(2) == 3) return Layout::tensors;
  return Layout::field;
}

// One named point- or cell-data array: one part for point data, one per block for cell data.
struct NamedArray {
  std::string_view name;
  std::span<const NDArray> parts;
  std::int64_t tuples = 0;
};

// The list of each cell of one block as a legacy file holds it: its point ids in VTK's node
// order (rectangular or ragged blocks), or its face stream (polyhedra).
struct BlockCells {
  const std::int64_t* ids = nullptr;
  const std::int64_t* offsets = nullptr;  // null for rectangular blocks
  const int* permutation = nullptr;       // our node order → VTK's, where they differ
  std::optional<io::PolyhedronFaceStreams> polyhedra;
  std::int64_t nodes = 0;
  std::int64_t count = 0;
  int vtk_id = 0;

  explicit BlockCells(const CellBlock& block)
      : ids(block.connectivity.data_as<std::int64_t>()), count(block.num_cells()), vtk_id(io::vtk_id_for(block)) {
    if (block.type == "polyhedron") {
      polyhedra.emplace(block);
    } else if (block.is_ragged()) {
      offsets = block.offsets.data_as<std::int64_t>();
    } else {
      nodes = block.connectivity.row_width();
      permutation = io::vtk_node_permutation(vtk_id);
    }
  }
  std::int64_t begin(std::int64_t cell) const noexcept { return offsets ? offsets[cell] : cell * nodes; }
  std::int64_t size(std::int64_t cell) const noexcept {
    return polyhedra ? polyhedra->size(cell) : offsets ? offsets[cell + 1] - offsets[cell] : nodes;
  }
  // emit(value) for each value of the cell's list.
  template <class Emit>
  void emit(std::int64_t cell, Emit&& emit) const {
    if (polyhedra) return polyhedra->emit(cell, emit);
    const std::int64_t first = begin(cell), length = size(cell);
    for (std::int64_t k = 0; k < length; ++k) emit(ids[first + (permutation ? permutation[k] : k)]);
  }
  std::int64_t total_ids() const noexcept {
    return polyhedra ? polyhedra->total_size() : offsets ? offsets[count] - offsets[0] : count * nodes;
  }
  std::int64_t longest() const noexcept {
    if (!polyhedra && !offsets) return nodes;
    std::int64_t most = 0;
    for (std::int64_t cell = 0; cell < count; ++cell) most = std::max(most, size(cell));
    return most;
  }
};

class LegacyWriter {
 public:
  LegacyWriter(io::OutputBuffer& out, io::AtomicFile& file, bool binary, bool version5)
      : out_(out), file_(file), binary_(binary), version5_(version5) {}

  void write(const Mesh& mesh) {
    out_.text(version5_ ? "# vtk DataFile Version 5.1\n" : "# vtk DataFile Version 4.2\n");
    out_.text("written by meshio++\n");
    out_.text(binary_ ? "BINARY\n" : "ASCII\n");
    out_.text("DATASET UNSTRUCTURED_GRID\n");
    write_points(mesh.points);
    std::vector<BlockCells> blocks;
    blocks.reserve(mesh.cells.size());
    for (const CellBlock& block : mesh.cells) blocks.emplace_back(block);
    if (version5_) {
      write_offsets_and_connectivity(blocks);
    } else {
      write_counted_cells(blocks);
    }
    write_cell_types(blocks);
    write_field_data(mesh);
    write_point_data(mesh);
    write_cell_data(mesh);
  }

 private:
  void line(std::initializer_list<std::string_view> words) {
    bool first = true;
    for (std::string_view word : words) {
      if (!first) out_.put(' ');
      out_.text(word);
      first = false;
    }
    out_.put('\n');
  }
  static std::string count_text(std::int64_t value) { return std::to_string(value); }

  void write_field_data(const Mesh& mesh) {
    if (mesh.field_data.empty()) return;
    line({"FIELD", "FieldData", count_text(static_cast<std::int64_t>(mesh.field_data.size()))});
    for (const auto& [name, array] : mesh.field_data) write_field_array(name, std::span<const NDArray>(&array, 1), tuples_of(array));
  }

  void write_field_array(std::string_view name, std::span<const NDArray> parts, std::int64_t tuples) {
    const NDArray& first = parts.front();
    line({encode_name(name), count_text(components_of(first)), count_text(tuples),
          legacy_type_name(first.dtype(), version5_)});
    write_values(out_, file_, binary_, parts, ascii_line_width(first));
  }

  void write_points(const NDArray& points) {
    const std::int64_t count = points.rows();
    const std::int64_t dim = points.ndim() == 2 ? points.dim(1) : 1;
    line({"POINTS", count_text(count), legacy_type_name(points.dtype(), version5_)});
    visit_dtype(points.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        const T* values = points.data_as<T>();
        if (!binary_) {
          io::write_rows_in_parallel(out_, file_, count, 3 * kValueRoom + 1, [&](char* p, std::int64_t row) {
            for (std::int64_t axis = 0; axis < 3; ++axis) {
              if (axis != 0) *p++ = ' ';
              p = io::put_number(p, axis < dim ? values[row * dim + axis] : T{0});
            }
            *p++ = '\n';
            return p;
          });
          return;
        }
        ValueSink<T> sink(out_, binary_);
        for (std::int64_t p = 0; p < count; ++p) {
          for (std::int64_t axis = 0; axis < 3; ++axis) sink.push(axis < dim ? values[p * dim + axis] : T{0});
          sink.end_line();
        }
        sink.finish();
      }
    });
  }

  static std::int64_t total_cells(const std::vector<BlockCells>& blocks) {
    std::int64_t total = 0;
    for (const BlockCells& block : blocks) total += block.count;
    return total;
  }

  static std::int64_t total_ids(const std::vector<BlockCells>& blocks) {
    std::int64_t total = 0;
    for (const BlockCells& block : blocks) total += block.total_ids();
    return total;
  }

  void write_counted_cells(const std::vector<BlockCells>& blocks) {
    const std::int64_t cells = total_cells(blocks);
    line({"CELLS", count_text(cells), count_text(cells + total_ids(blocks))});
    if (!binary_) {
      for (const BlockCells& block : blocks)
        io::write_rows_in_parallel(out_, file_, block.count, static_cast<std::size_t>(1 + block.longest()) * kValueRoom + 1,
                                   [&block](char* p, std::int64_t c) {
                                     p = io::put_number(p, static_cast<std::int32_t>(block.size(c)));
                                     block.emit(c, [&p](std::int64_t value) {
                                       *p++ = ' ';
                                       p = io::put_number(p, static_cast<std::int32_t>(value));
                                     });
                                     *p++ = '\n';
                                     return p;
                                   });
      return;
    }
    ValueSink<std::int32_t> sink(out_, binary_);
    for (const BlockCells& block : blocks)
      for (std::int64_t c = 0; c < block.count; ++c) {
        sink.push(static_cast<std::int32_t>(block.size(c)));
        block.emit(c, [&sink](std::int64_t value) { sink.push(static_cast<std::int32_t>(value)); });
        sink.end_line();
      }
    sink.finish();
  }

  void write_offsets_and_connectivity(const std::vector<BlockCells>& blocks) {
    const std::int64_t cells = total_cells(blocks);
    line({"CELLS", count_text(cells + 1), count_text(total_ids(blocks))});
    line({"OFFSETS", "vtktypeint64"});
    if (!binary_) {
      write_ascii_offsets_and_connectivity(blocks, cells);
      return;
    }
    {
      ValueSink<std::int64_t> sink(out_, binary_);
      std::int64_t written = 0, offset = 0;
      auto push_offset = [&](std::int64_t value) {
        sink.push(value);
        if (++written % kValuesPerAsciiLine == 0) sink.end_line();
      };
      push_offset(0);
      for (const BlockCells& block : blocks)
        for (std::int64_t c = 0; c < block.count; ++c) {
          offset += block.size(c);
          push_offset(offset);
        }
      sink.finish();
    }
    line({"CONNECTIVITY", "vtktypeint64"});
    ValueSink<std::int64_t> sink(out_, binary_);
    for (const BlockCells& block : blocks)
      for (std::int64_t c = 0; c < block.count; ++c) {
        block.emit(c, [&sink](std::int64_t value) { sink.push(value); });
        sink.end_line();
      }
    sink.finish();
  }

  // The ASCII OFFSETS (kValuesPerAsciiLine to a line; the running sum of the cell sizes) and
  // CONNECTIVITY (a line per cell, none for a cell without values) after the OFFSETS line.
  void write_ascii_offsets_and_connectivity(const std::vector<BlockCells>& blocks, std::int64_t cells) {
    std::vector<std::int64_t> offsets;
    offsets.reserve(static_cast<std::size_t>(cells) + 1);
    offsets.push_back(0);
    for (const BlockCells& block : blocks)
      for (std::int64_t c = 0; c < block.count; ++c) offsets.push_back(offsets.back() + block.size(c));
    bool line_open = false;
    write_ascii_run(out_, file_, offsets.data(), static_cast<std::int64_t>(offsets.size()), kValuesPerAsciiLine, line_open);
    if (line_open) out_.put('\n');
    line({"CONNECTIVITY", "vtktypeint64"});
    for (const BlockCells& block : blocks)
      io::write_rows_in_parallel(out_, file_, block.count, static_cast<std::size_t>(block.longest()) * kValueRoom + 1,
                                 [&block](char* p, std::int64_t c) {
                                   char* const start = p;
                                   block.emit(c, [&](std::int64_t value) {
                                     if (p != start) *p++ = ' ';
                                     p = io::put_number(p, value);
                                   });
                                   if (p != start) *p++ = '\n';
                                   return p;
                                 });
  }

  void write_cell_types(const std::vector<BlockCells>& blocks) {
    line({"CELL_TYPES", count_text(total_cells(blocks))});
    if (!binary_) {
      for (const BlockCells& block : blocks) {
        char line_text[io::kMaxNumberChars + 1];
        char* end = io::put_number(line_text, block.vtk_id);
        *end++ = '\n';
        const std::string_view text(line_text, static_cast<std::size_t>(end - line_text));
        io::write_rows_in_parallel(out_, file_, block.count, text.size(),
                                   [&text](char* p, std::int64_t) { return io::put_text(p, text); });
      }
      return;
    }
    ValueSink<std::int32_t> sink(out_, binary_);
    for (const BlockCells& block : blocks)
      for (std::int64_t c = 0; c < block.count; ++c) {
        sink.push(block.vtk_id);
        sink.end_line();
      }
    sink.finish();
  }

  void write_point_data(const Mesh& mesh) {
    std::vector<NamedArray> arrays;
    for (const auto& [name, array] : mesh.point_data)
      arrays.push_back({name, std::span<const NDArray>(&array, 1), mesh.num_points()});
    write_attribute_section("POINT_DATA", mesh.num_points(), arrays);
  }

  void write_cell_data(const Mesh& mesh) {
    // Without blocks there is no array to take a dtype from, and no cell to carry data.
    if (mesh.cells.empty()) return;
    std::vector<NamedArray> arrays;
    for (const auto& [name, parts] : mesh.cell_data) arrays.push_back({name, parts, mesh.num_cells()});
    write_attribute_section("CELL_DATA", mesh.num_cells(), arrays);
  }

  void write_attribute_section(std::string_view keyword, std::int64_t count, const std::vector<NamedArray>& arrays) {
    if (arrays.empty()) return;
    line({keyword, count_text(count)});
    for (std::size_t i = 0; i < arrays.size();) {
      const NamedArray& array = arrays[i];
      const NDArray& first = array.parts.front();
      const std::string_view type = legacy_type_name(first.dtype(), version5_);
      switch (layout_of(first)) {
        case Layout::scalars:
          line({"SCALARS", encode_name(array.name), type, "1"});
          line({"LOOKUP_TABLE", "default"});
          write_values(out_, file_, binary_, array.parts, 1);
          ++i;
          break;
        case Layout::tensors:
          line({"TENSORS", encode_name(array.name), type});
          write_values(out_, file_, binary_, array.parts, 3);
          ++i;
          break;
        case Layout::field: {
          std::size_t end = i;
          while (end < arrays.size() && layout_of(arrays[end].parts.front()) == Layout::field) ++end;
          line({"FIELD", "FieldData", count_text(static_cast<std::int64_t>(end - i))});
          for (; i < end; ++i) write_field_array(arrays[i].name, arrays[i].parts, arrays[i].tuples);
          break;
        }
      }
    }
  }

  io::OutputBuffer& out_;
  io::AtomicFile& file_;  // what out_ writes to: ASCII lines formatted on all cores go straight there
  bool binary_;
  bool version5_;
};

// ---- what the legacy format can hold, checked before a byte is written ----

[[noreturn]] void refuse(const std::string& message) { throw std::invalid_argument(message); }

void check_name(std::string_view name, std::string_view what) {
  if (name.empty()) refuse(std::string(what) + " has an empty name, which a VTK legacy file cannot hold");
}

Shape trailing_shape(const NDArray& array) {
  return array.ndim() == 0 ? Shape{} : Shape(array.shape().begin() + 1, array.shape().end());
}

void check_cell_data(const Mesh& mesh) {
  for (const auto& [name, parts] : mesh.cell_data) {
    check_name(name, "cell data");
    if (parts.size() != mesh.cells.size())
      refuse("cell_data['" + name + "'] needs one array per cell block");
    for (std::size_t b = 1; b < parts.size(); ++b)
      if (parts[b].dtype() != parts[0].dtype() || trailing_shape(parts[b]) != trailing_shape(parts[0]))
        refuse("cell_data['" + name + "'] must have the same dtype and row shape in every block to be written as "
               "one VTK array");
    for (std::size_t b = 0; b < parts.size(); ++b)
      if (parts[b].ndim() == 0) refuse("cell_data['" + name + "'] must have one row per cell");
  }
}

void check_writable(const Mesh& mesh, bool version5) {
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 1 || mesh.points.dim(1) > 3)
    refuse("VTK legacy points must be (n, 1..3)");
  if (!dtype_is_float(mesh.points.dtype())) refuse("points must be float32 or float64");
  for (const CellBlock& block : mesh.cells) {
    io::vtk_id_for(block);  // throws for types VTK has no id for
  }
  if (!version5 && mesh.num_points() > std::numeric_limits<std::int32_t>::max())
    refuse("fmt_version 4.2 stores point ids as 32-bit ints; use 5.1 for more than 2^31-1 points");
  for (const auto& [name, array] : mesh.point_data) {
    check_name(name, "point data");
    if (array.ndim() == 0) refuse("point_data['" + name + "'] must have one row per point");
  }
  check_cell_data(mesh);
  for (const auto& [name, array] : mesh.field_data) check_name(name, "field data");
}

bool is_version5(std::string_view version) {
  if (version == "5.1" || version.empty()) return true;
  if (version == "4.2") return false;
  refuse("fmt_version must be 4.2 or 5.1, got '" + std::string(version) + "'");
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const bool binary = options.get_bool("binary", true);
  const bool version5 = is_version5(options.get("fmt_version", "5.1"));
  check_writable(mesh, version5);
  io::AtomicFile file(path, detail::kFormatName);
  io::OutputBuffer out(file);
  LegacyWriter(out, file, binary, version5).write(mesh);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::vtk
