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
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/off/off.hpp"
#include "io/output/atomic_file.hpp"
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

void write_vertices(io::OutputBuffer& out, const Mesh& mesh, const VertexColumns& columns) {
  const bool pad_z = mesh.points.row_width() == 2;
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
    io::put_row(out, mesh.points, i);
    if (pad_z) out.text(" 0");
    for (const NDArray* column : {columns.normals, columns.colors, columns.texcoords})
      if (column != nullptr) io::put_row(out, *column, i, io::NanValues::skip);
    out.put('\n');
  }
}

void write_faces(io::OutputBuffer& out, const Mesh& mesh) {
  const std::vector<NDArray>* colors = face_colors(mesh);
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    for (std::int64_t cell = 0; cell < block.num_cells(); ++cell) {
      const auto corners = io::cell_nodes(block, cell);
      out.number(static_cast<std::int64_t>(corners.size()));
      for (std::int64_t corner : corners) {
        out.put(' ');
        out.number(corner);
      }
      if (colors != nullptr) io::put_row(out, (*colors)[b], cell, io::NanValues::skip);
      out.put('\n');
    }
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
  write_vertices(out, mesh, columns);
  write_faces(out, mesh);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::off
