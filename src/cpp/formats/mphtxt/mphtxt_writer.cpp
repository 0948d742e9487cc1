// COMSOL .mphtxt writer: one Mesh object (class version 4, what COMSOL 5 and later write and
// meshio++ 17.21 writes), tag "mesh1", the layout mphtxt_reader.cpp reads.
//
// The points (sdim = their width, 1 to 3), then one element type per cell block in block order
// (COMSOL's names and its lexicographic node order: mphtxt_types.hpp). Geometric entity
// indices from cell data "mphtxt:geometric_entity" (else "mphtxt:geom", 17.21's name, else the
// first integer cell data with one value per cell, meshio's rule), 0 otherwise. Cell types
// COMSOL has no name for here (polygons, wedge15, pyramid13 …) are a WriteError; point and
// field data and regions have no place in the file. Reals in the shortest exact form. The
// coordinates, elements and entity indices are formatted on all cores
// (io::write_rows_in_parallel: the same bytes at any thread count).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/mphtxt/mphtxt.hpp"
#include "formats/mphtxt/mphtxt_types.hpp"
#include "io/cells/integer_cell_data.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"

namespace meshioplusplus::mphtxt {
namespace {

constexpr std::string_view kFormat = "mphtxt";

void counted(io::OutputBuffer& out, std::int64_t value, std::string_view comment) {
  out.number(value);
  out.text(" # ");
  out.text(comment);
  out.put('\n');
}

void text(io::OutputBuffer& out, std::string_view value) {
  out.number(static_cast<std::int64_t>(value.size()));
  out.put(' ');
  out.text(value);
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 1 || mesh.points.dim(1) > 3)
    throw std::invalid_argument("COMSOL meshes need points with 1, 2 or 3 coordinates");
  std::vector<const detail::ElementType*> types;
  for (const CellBlock& block : mesh.cells) {
    const detail::ElementType* type = detail::type_of_cell(block.type);
    if (type == nullptr) throw std::invalid_argument("no COMSOL element type is written for '" + block.type + "'");
    types.push_back(type);
  }
  const std::vector<NDArray>* entities = io::per_cell_integers(mesh, "mphtxt:geometric_entity");
  if (const auto* geom = mesh.cell_data.find("mphtxt:geom");
      mesh.cell_data.find("mphtxt:geometric_entity") == nullptr && geom && io::holds_one_integer_per_cell(mesh, *geom))
    entities = geom;
  const NDArray points = mesh.points.dtype() == DType::float64 ? mesh.points : mesh.points.astype(DType::float64);
  const double* xyz = points.data_as<double>();
  const std::int64_t sdim = mesh.points.dim(1);

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.text("# Created by meshio++\n\n# Major & minor version\n0 1\n");
  counted(out, 1, "number of tags");
  out.text("# Tags\n");
  text(out, "mesh1");
  out.put('\n');
  counted(out, 1, "number of types");
  out.text("# Types\n");
  text(out, "obj");
  out.text("\n\n# --------- Object 0 ----------\n\n0 0 1\n");
  text(out, "Mesh");
  out.text(" # class\n");
  counted(out, 4, "version");
  counted(out, sdim, "sdim");
  counted(out, mesh.num_points(), "number of mesh vertices");
  counted(out, 0, "lowest mesh vertex index");
  out.text("\n# Mesh vertex coordinates\n");
  // The bulk sections on all cores (io::write_rows_in_parallel: the same bytes at any thread count).
  io::write_rows_in_parallel(out, file, mesh.num_points(), 3 * (io::kMaxNumberChars + 1) + 8, [&](char* p, std::int64_t i) {
    for (std::int64_t k = 0; k < sdim; ++k) {
      if (k > 0) *p++ = ' ';
      p = io::put_number(p, xyz[i * sdim + k]);
    }
    *p++ = '\n';
    return p;
  });
  out.put('\n');
  counted(out, static_cast<std::int64_t>(mesh.cells.size()), "number of element types");
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const detail::ElementType& type = *types[b];
    const CellBlock& block = mesh.cells[b];
    out.text("\n# Type #");
    out.number(static_cast<std::int64_t>(b));
    out.text("\n\n");
    text(out, type.name);
    out.text(" # type name\n\n\n");
    counted(out, type.nodes, "number of vertices per element");
    counted(out, block.num_cells(), "number of elements");
    out.text("# Elements\n");
    const std::int64_t* connectivity = block.connectivity.data_as<std::int64_t>();
    io::write_rows_in_parallel(out, file, block.num_cells(), static_cast<std::size_t>(type.nodes) * (io::kMaxNumberChars + 1) + 8,
                               [&](char* p, std::int64_t row) {
                                 std::int64_t file_nodes[27];
                                 for (int k = 0; k < type.nodes; ++k)
                                   file_nodes[type.order.empty() ? k : type.order[k]] = connectivity[row * type.nodes + k];
                                 for (int k = 0; k < type.nodes; ++k) {
                                   p = io::put_number(p, file_nodes[k]);
                                   *p++ = k + 1 < type.nodes ? ' ' : '\n';
                                 }
                                 return p;
                               });
    out.put('\n');
    counted(out, block.num_cells(), "number of geometric entity indices");
    out.text("# Geometric entity indices\n");
    io::write_rows_in_parallel(out, file, block.num_cells(), io::kMaxNumberChars + 1, [&](char* p, std::int64_t row) {
      p = io::put_number(p, entities != nullptr ? io::integer_at((*entities)[b], row) : std::int64_t{0});
      *p++ = '\n';
      return p;
    });
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::mphtxt
