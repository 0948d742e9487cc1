// OFF writer.
//
// The keyword follows the point data the reader produces: "off:texcoord" (n, 2) adds ST,
// "off:color" (n, 1|3|4) adds C, "off:normal" (n, 3) adds N — so read(write(m)) keeps them.
// 3-D points are written as they are; 2-D points get z = 0 (as meshio, since plain OFF is
// what other tools read). Faces are written block after block, each followed by its cell
// data "off:color" row when present (NaN padding left out). Numbers are the shortest text
// that reads back to the same value, so points round-trip bit-exactly.
//
// Cells must be vertex, line, triangle, quad or polygon (meshio writes triangles only and
// drops the rest; a silent drop would lose data, so other types are a WriteError). Other
// data, field data and regions have no place in OFF and are not written.
// Vertex and face lines are formatted on all cores (io/output/parallel_rows.hpp), in file
// order at any thread count.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/off/off.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/cells/face_blocks.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::off {
namespace {

constexpr std::string_view kFormat = "off";

// Point data `name` when it has `rows` rows and one of the allowed widths; nullptr otherwise.
const NDArray* vertex_column(const Mesh& mesh, std::string_view name, std::initializer_list<std::int64_t> widths) {
  const NDArray* array = mesh.point_data.find(name);
  if (array == nullptr || array->rows() != mesh.num_points()) return nullptr;
  for (std::int64_t width : widths)
    if (array->row_width() == width) return array;
  return nullptr;
}

// Cell data "off:color" when every block has it.
const std::vector<NDArray>* face_colors(const Mesh& mesh) {
  const std::vector<NDArray>* arrays = mesh.cell_data.find("off:color");
  if (arrays == nullptr || arrays->size() != mesh.cells.size()) return nullptr;
  for (std::size_t b = 0; b < arrays->size(); ++b)
    if ((*arrays)[b].rows() != mesh.cells[b].num_cells()) return nullptr;
  return arrays;
}

struct VertexColumns {
  const NDArray* normals;
  const NDArray* colors;
  const NDArray* texcoords;
};

void write_header(io::OutputBuffer& out, const Mesh& mesh, const VertexColumns& columns) {
  if (columns.texcoords != nullptr) out.text("ST");
  if (columns.colors != nullptr) out.put('C');
  if (columns.normals != nullptr) out.put('N');
  out.text("OFF\n# written by meshio++\n");
  out.number(mesh.num_points());
  out.put(' ');
  out.number(mesh.num_cells());
  out.text(" 0\n");
}

// Row `row` of `array` at p as io::put_row writes it (each value after a blank); returns the end.
char* put_array_row(char* p, const NDArray& array, std::int64_t row, io::NanValues nan_values) {
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const std::int64_t width = array.row_width();
    p = io::put_values(p, static_cast<const T*>(array.data()) + row * width, width, nan_values);
  });
  return p;
}

// Room for put_array_row's text of one row of `array`.
std::size_t longest_row(const NDArray& array) { return static_cast<std::size_t>(array.row_width()) * (io::kMaxNumberChars + 1); }

void write_vertices(io::OutputBuffer& out, io::AtomicFile& file, const Mesh& mesh, const VertexColumns& columns) {
  const bool pad_z = mesh.points.row_width() == 2;
  std::size_t longest = longest_row(mesh.points) + 3;
  for (const NDArray* column : {columns.normals, columns.colors, columns.texcoords})
    if (column != nullptr) longest += longest_row(*column);
  io::write_rows_in_parallel(out, file, mesh.num_points(), longest, [&](char* p, std::int64_t i) {
    p = put_array_row(p, mesh.points, i, io::NanValues::write);
    if (pad_z) p = io::put_text(p, " 0");
    for (const NDArray* column : {columns.normals, columns.colors, columns.texcoords})
      if (column != nullptr) p = put_array_row(p, *column, i, io::NanValues::skip);
    *p++ = '\n';
    return p;
  });
}

// The most corners a cell of `block` has.
std::int64_t max_corners(const CellBlock& block) {
  if (!block.is_ragged()) return block.connectivity.row_width();
  const std::int64_t* offsets = block.offsets.data_as<std::int64_t>();
  std::int64_t most = 0;
  for (std::int64_t cell = 0; cell < block.num_cells(); ++cell) most = std::max(most, offsets[cell + 1] - offsets[cell]);
  return most;
}

void write_faces(io::OutputBuffer& out, io::AtomicFile& file, const Mesh& mesh) {
  const std::vector<NDArray>* colors = face_colors(mesh);
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    const NDArray* color = colors != nullptr ? &(*colors)[b] : nullptr;
    const std::size_t longest = static_cast<std::size_t>(1 + max_corners(block)) * (io::kMaxNumberChars + 1) +
                                (color != nullptr ? longest_row(*color) : 0) + 1;
    io::write_rows_in_parallel(out, file, block.num_cells(), longest, [&](char* p, std::int64_t cell) {
      const auto corners = io::cell_nodes(block, cell);
      p = io::put_number(p, static_cast<std::int64_t>(corners.size()));
      for (std::int64_t corner : corners) {
        *p++ = ' ';
        p = io::put_number(p, corner);
      }
      if (color != nullptr) p = put_array_row(p, *color, cell, io::NanValues::skip);
      *p++ = '\n';
      return p;
    });
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || (mesh.points.dim(1) != 2 && mesh.points.dim(1) != 3))
    throw WriteError(path, std::string(kFormat), "OFF needs 2-D or 3-D points");
  for (const CellBlock& block : mesh.cells)
    if (!io::is_face_cell_type(block.type))
      throw WriteError(path, std::string(kFormat),
                       "OFF holds vertex, line, triangle, quad and polygon cells, not '" + block.type + "'");
  const VertexColumns columns{vertex_column(mesh, "off:normal", {3}), vertex_column(mesh, "off:color", {1, 3, 4}),
                              vertex_column(mesh, "off:texcoord", {2})};
  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  write_header(out, mesh, columns);
  write_vertices(out, file, mesh, columns);
  write_faces(out, file, mesh);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::off
