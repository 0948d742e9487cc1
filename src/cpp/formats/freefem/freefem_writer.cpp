// FreeFEM 2-D mesh writer (.msh): the layout FreeFEM's savemesh writes (freefem_reader.cpp).
//
// Points (n, 2), or (n, 3) with every z equal to 0 (z is dropped); "triangle" blocks become
// the triangles, "line" blocks the boundary edges, each in block order; any other cell type,
// or a z other than 0, is a WriteError (FreeFEM's 2-D mesh holds nothing else). Labels:
// vertices from point data "freefem:ref" (else "medit:ref") when it is one integer per point,
// cells from cell data "freefem:ref" (else the first integer cell data with one value per
// cell, meshio's rule for such slots), 0 otherwise. Numbers in the shortest form that reads
// back to the same bits.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/freefem/freefem.hpp"
#include "io/cells/integer_cell_data.hpp"
#include "io/output/atomic_file.hpp"

namespace meshioplusplus::freefem {
namespace {

constexpr std::string_view kFormat = "freefem";

const NDArray* vertex_labels(const Mesh& mesh) {
  for (const char* name : {"freefem:ref", "medit:ref"}) {
    const NDArray* labels = mesh.point_data.find(name);
    if (labels != nullptr && !dtype_is_float(labels->dtype()) && labels->rows() == mesh.num_points() &&
        labels->row_width() == 1)
      return labels;
  }
  return nullptr;
}

void write_cells(io::OutputBuffer& out, const Mesh& mesh, std::string_view type, int nodes,
                 const std::vector<NDArray>* labels) {
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    if (block.type != type) continue;
    const std::int64_t* connectivity = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t row = 0; row < block.num_cells(); ++row) {
      for (int k = 0; k < nodes; ++k) {
        out.number(connectivity[row * nodes + k] + 1);
        out.put(' ');
      }
      out.number(labels != nullptr ? io::integer_at((*labels)[b], row) : std::int64_t{0});
      out.put('\n');
    }
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || (mesh.points.dim(1) != 2 && mesh.points.dim(1) != 3))
    throw std::invalid_argument("a FreeFEM .msh holds 2-D points");
  const std::int64_t width = mesh.points.dim(1);
  const NDArray points = mesh.points.dtype() == DType::float64 ? mesh.points : mesh.points.astype(DType::float64);
  const double* xyz = points.data_as<double>();
  if (width == 3)
    for (std::int64_t i = 0; i < mesh.num_points(); ++i)
      if (xyz[3 * i + 2] != 0)
        throw std::invalid_argument("a FreeFEM .msh is 2-D: point " + std::to_string(i) + " has z = " +
                                    std::to_string(xyz[3 * i + 2]) + " (FreeFEM's 3-D meshes are Medit .mesh files)");
  std::int64_t triangles = 0, edges = 0;
  for (const CellBlock& block : mesh.cells) {
    if (block.type == "triangle") triangles += block.num_cells();
    else if (block.type == "line") edges += block.num_cells();
    else throw std::invalid_argument("a FreeFEM .msh holds triangles and boundary lines, not '" + block.type + "'");
  }
  const NDArray* point_labels = vertex_labels(mesh);
  const std::vector<NDArray>* cell_labels = io::per_cell_integers(mesh, "freefem:ref");

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.number(mesh.num_points());
  out.put(' ');
  out.number(triangles);
  out.put(' ');
  out.number(edges);
  out.put('\n');
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
    out.number(xyz[width * i]);
    out.put(' ');
    out.number(xyz[width * i + 1]);
    out.put(' ');
    out.number(point_labels != nullptr ? io::integer_at(*point_labels, i) : std::int64_t{0});
    out.put('\n');
  }
  write_cells(out, mesh, "triangle", 3, cell_labels);
  write_cells(out, mesh, "line", 2, cell_labels);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::freefem
