// Z88 structure file writer (z88i1.txt), through io::AtomicFile.
//
// Element types: the reader's "z88:type" cell data where it names a type of the block's cell
// type; otherwise hexahedron 1, hexahedron20 10, tetra 17, tetra10 16, quad16 19, and by the
// model's dimension: line 9 (plane truss) or 4 (space truss), triangle6 14 (plane) or 24
// (shell), quad8 7 (plane) or 23 (shell), triangle 6 (torus; 2-D only: Z88 has no other
// 3-node triangle). Other cell types have no Z88 element and are refused by name.
// Dimension: 2 when the points have two coordinates, or every z is 0 and no element is one
// of 3-D models; else 3. Degrees of freedom: "z88:dof" point data when present, else the
// most any element of the node asks for (Z88's rule: 3 for solids, 6 for beams and shells…).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/z88/z88.hpp"
#include "formats/z88/z88_types.hpp"
#include "io/cells/integer_cell_data.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::z88 {
namespace {

constexpr std::string_view kFormat = "z88";

int default_type(std::string_view cell_type, bool plane) {
  if (cell_type == "hexahedron") return 1;
  if (cell_type == "hexahedron20") return 10;
  if (cell_type == "tetra") return 17;
  if (cell_type == "tetra10") return 16;
  if (cell_type == "quad16") return 19;
  if (cell_type == "line") return plane ? 9 : 4;
  if (cell_type == "triangle6") return plane ? 14 : 24;
  if (cell_type == "quad8") return plane ? 7 : 23;
  if (cell_type == "triangle" && plane) return 6;
  return 0;
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  const auto fail = [&](const std::string& message) { throw WriteError(path, std::string(kFormat), message); };
  const NDArray points = mesh.points.astype(DType::float64);
  const std::int64_t width = points.row_width();
  const double* xyz = points.data_as<double>();
  const std::vector<NDArray>* given = mesh.cell_data.find("z88:type");
  if (given != nullptr && !io::holds_one_integer_per_cell(mesh, *given)) given = nullptr;

  // The element type of every cell: given ones first, as they decide whether the model is 2-D.
  bool plane = true;
  for (std::int64_t i = 0; i < points.rows() && width >= 3 && plane; ++i) plane = xyz[i * width + 2] == 0.0;
  for (const CellBlock& block : mesh.cells)
    if (block.num_cells() > 0 && (block.type.starts_with("hexahedron") || block.type.starts_with("tetra"))) plane = false;
  std::vector<std::vector<int>> types(mesh.cells.size());
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    for (std::int64_t i = 0; i < mesh.cells[b].num_cells(); ++i) {
      const std::int64_t number = given ? io::integer_at((*given)[b], i) : 0;
      const detail::ElementType* type = detail::type_by_number(number);
      types[b].push_back(type != nullptr && type->cell_type == mesh.cells[b].type ? static_cast<int>(number) : 0);
      if (types[b].back() != 0 && !type->plane) plane = false;
    }
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    for (int& number : types[b]) {
      if (number == 0) number = default_type(mesh.cells[b].type, plane);
      if (number == 0)
        fail("cells of type '" + mesh.cells[b].type + "' have no Z88 element" +
             (mesh.cells[b].type == "triangle" ? " in a 3-D model" : ""));
    }
  const std::int64_t ndim = plane ? 2 : 3;

  std::vector<std::int64_t> dofs(static_cast<std::size_t>(points.rows()), 0);
  const NDArray* given_dofs = mesh.point_data.find("z88:dof");
  if (given_dofs != nullptr && given_dofs->rows() == points.rows() && given_dofs->row_width() == 1 &&
      !dtype_is_float(given_dofs->dtype())) {
    for (std::int64_t i = 0; i < points.rows(); ++i) dofs[i] = io::integer_at(*given_dofs, i);
  } else {
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      const NDArray& connectivity = mesh.cells[b].connectivity;
      const std::int64_t* nodes = connectivity.data_as<std::int64_t>();
      const std::int64_t nodes_per_cell = connectivity.row_width();
      for (std::int64_t i = 0; i < mesh.cells[b].num_cells(); ++i) {
        const std::int64_t cell_dofs = detail::type_by_number(types[b][i])->dofs_per_node;
        for (std::int64_t k = 0; k < nodes_per_cell; ++k)
          dofs[nodes[i * nodes_per_cell + k]] = std::max(dofs[nodes[i * nodes_per_cell + k]], cell_dofs);
      }
    }
    for (std::int64_t& value : dofs)
      if (value == 0) value = ndim;
  }
  std::int64_t total_dofs = 0;
  for (std::int64_t value : dofs) total_dofs += value;

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.number(ndim);
  out.put(' ');
  out.number(points.rows());
  out.put(' ');
  out.number(mesh.num_cells());
  out.put(' ');
  out.number(total_dofs);
  out.text(" 0\n");
  io::write_rows_in_parallel(out, file, points.rows(), 5 * (io::kMaxNumberChars + 1), [&](char* p, std::int64_t i) {
    p = io::put_number(p, i + 1);
    *p++ = ' ';
    p = io::put_number(p, dofs[static_cast<std::size_t>(i)]);
    for (std::int64_t k = 0; k < ndim; ++k) {
      *p++ = ' ';
      p = io::put_number(p, k < width ? xyz[i * width + k] : 0.0);
    }
    *p++ = '\n';
    return p;
  });
  std::int64_t id = 0;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const NDArray& connectivity = mesh.cells[b].connectivity;
    const std::int64_t* nodes = connectivity.data_as<std::int64_t>();
    const std::int64_t nodes_per_cell = connectivity.row_width();
    const std::int64_t first_id = id;
    const std::vector<int>& numbers = types[b];
    io::write_rows_in_parallel(out, file, mesh.cells[b].num_cells(), 23 * (io::kMaxNumberChars + 1), [&](char* p, std::int64_t i) {
      const detail::ElementType* type = detail::type_by_number(numbers[static_cast<std::size_t>(i)]);
      p = io::put_number(p, first_id + i + 1);
      *p++ = ' ';
      p = io::put_number(p, type->number);
      *p++ = '\n';
      std::int64_t z88_nodes[20];
      const std::int64_t* cell = nodes + i * nodes_per_cell;
      if (type->vtk_from_z88.empty()) std::copy(cell, cell + type->nodes, z88_nodes);
      else
        for (int k = 0; k < type->nodes; ++k) z88_nodes[type->vtk_from_z88[k]] = cell[k];
      for (int k = 0; k < type->nodes; ++k) {
        if (k > 0) *p++ = ' ';
        p = io::put_number(p, z88_nodes[k] + 1);
      }
      *p++ = '\n';
      return p;
    });
    id += mesh.cells[b].num_cells();
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::z88
