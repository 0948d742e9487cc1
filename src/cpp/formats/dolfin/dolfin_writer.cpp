// DOLFIN XML writer: the mesh file plus one mesh-function file per data array.
//
// The mesh must have one cell type (interval/line, triangle, quadrilateral/quad, tetrahedron,
// hexahedron; several blocks of it are written as one): DOLFIN meshes hold one. meshio keeps
// the tetrahedra (else the triangles) and silently drops every other block; here a mesh of
// several types is refused (std::invalid_argument), as are other types and points that are
// not 1-, 2- or 3-D.
//
// Data: each cell data array becomes "<stem>_<name>.xml", a <mesh_function> of the cells'
// topological dimension (meshio writes the points' dimension there, which is wrong for a
// surface in 3-D, and overwrites the file once per block); each point data array becomes one of
// dimension 0 (meshio drops point data; meshio reads such a file as cell data). Types: signed
// integers → "int", unsigned → "uint", floats → "float"; values in their shortest round-trip
// form. Arrays with more than one value per entity, names that are empty or hold '.', '/' or
// '\\' (the reader takes the name from the file name) and a name used for both point and cell
// data are refused. Not written: field data, regions. Vertex, cell and entity lines are
// formatted on all cores (io/output/parallel_rows.hpp), in file order at any thread count.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/dolfin/dolfin.hpp"
#include "formats/dolfin/dolfin_cells.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"

namespace meshioplusplus::dolfin {
namespace {

constexpr std::string_view kFormat = "dolfin";

std::string_view dolfin_value_type(DType dtype) {
  if (dtype_is_float(dtype)) return "float";
  if (dtype_is_unsigned_int(dtype)) return "uint";
  return "int";
}

void check_data(const std::string& name, const NDArray& array) {
  if (name.empty() || name.find_first_of("./\\") != std::string::npos)
    throw std::invalid_argument("DOLFIN XML data names become file names and cannot be empty or hold '.', '/' or '\\': '" +
                                name + "'");
  if (array.row_width() != 1)
    throw std::invalid_argument("DOLFIN mesh functions hold one value per entity; data '" + name + "' has " +
                                std::to_string(array.row_width()));
}

std::string sibling_path(const std::string& path, const std::string& name) {
  std::filesystem::path p(path);
  p.replace_extension();
  return p.string() + "_" + name + ".xml";
}

void write_mesh_function(const std::string& path, std::int64_t dim, const std::vector<const NDArray*>& parts) {
  std::int64_t size = 0;
  for (const NDArray* part : parts) size += part->rows();
  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<dolfin xmlns:dolfin=\"https://fenicsproject.org/\">\n");
  out.text("  <mesh_function type=\"");
  out.text(dolfin_value_type(parts.front()->dtype()));
  out.text("\" dim=\"");
  out.number(dim);
  out.text("\" size=\"");
  out.number(size);
  out.text("\">\n");
  std::int64_t first_index = 0;
  for (const NDArray* part : parts) {
    visit_dtype(part->dtype(), [&](auto zero) {
      const auto* values = static_cast<const decltype(zero)*>(part->data());
      io::write_rows_in_parallel(out, file, part->rows(), 64 + 2 * io::kMaxNumberChars, [&](char* p, std::int64_t i) {
        p = io::put_number(io::put_text(p, "    <entity index=\""), first_index + i);
        p = io::put_number(io::put_text(p, "\" value=\""), values[i]);
        return io::put_text(p, "\" />\n");
      });
    });
    first_index += part->rows();
  }
  out.text("  </mesh_function>\n</dolfin>\n");
  out.flush();
  file.commit();
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  const std::int64_t gdim = mesh.points.ndim() == 2 ? mesh.points.dim(1) : 0;
  if (gdim < 1 || gdim > 3) throw std::invalid_argument("DOLFIN XML needs 1-, 2- or 3-D points");
  if (mesh.cells.empty()) throw std::invalid_argument("DOLFIN XML needs a cell block (its mesh has a celltype)");
  const detail::DolfinCellType* type = detail::find_by_name(mesh.cells.front().type);
  for (const CellBlock& block : mesh.cells) {
    if (detail::find_by_name(block.type) == nullptr)
      throw std::invalid_argument("DOLFIN XML holds line, triangle, quad, tetra and hexahedron cells, not '" + block.type + "'");
    if (block.type != type->name)
      throw std::invalid_argument("a DOLFIN mesh holds one cell type; this mesh has '" + std::string(type->name) + "' and '" +
                                  block.type + "'");
  }
  for (const auto& [name, array] : mesh.point_data) {
    check_data(name, array);
    if (mesh.cell_data.contains(name))
      throw std::invalid_argument("'" + name + "' is both point and cell data; DOLFIN XML stores both in '" +
                                  sibling_path(path, name) + "'");
  }
  for (const auto& [name, arrays] : mesh.cell_data)
    for (const NDArray& array : arrays) check_data(name, array);

  {
    io::AtomicFile file(path, kFormat);
    io::OutputBuffer out(file);
    out.text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<dolfin xmlns:dolfin=\"https://fenicsproject.org/\">\n");
    out.text("  <mesh celltype=\"");
    out.text(type->dolfin_name);
    out.text("\" dim=\"");
    out.number(gdim);
    out.text("\">\n    <vertices size=\"");
    out.number(mesh.num_points());
    out.text("\">\n");
    static constexpr std::string_view kAxes[] = {"\" x=\"", "\" y=\"", "\" z=\""};
    visit_dtype(mesh.points.dtype(), [&](auto zero) {
      const auto* xyz = static_cast<const decltype(zero)*>(mesh.points.data());
      const std::size_t longest = 64 + static_cast<std::size_t>(gdim) * (io::kMaxNumberChars + 8);
      io::write_rows_in_parallel(out, file, mesh.num_points(), longest, [&](char* p, std::int64_t i) {
        p = io::put_number(io::put_text(p, "      <vertex index=\""), i);
        for (std::int64_t axis = 0; axis < gdim; ++axis)
          p = io::put_number(io::put_text(p, kAxes[axis]), xyz[i * gdim + axis]);
        return io::put_text(p, "\" />\n");
      });
    });
    out.text("    </vertices>\n    <cells size=\"");
    out.number(mesh.num_cells());
    out.text("\">\n");
    std::int64_t first_index = 0;
    const std::size_t longest = 64 + static_cast<std::size_t>(type->num_nodes) * (io::kMaxNumberChars + 8);
    for (const CellBlock& block : mesh.cells) {
      const std::int64_t* corners = block.connectivity.data_as<std::int64_t>();
      io::write_rows_in_parallel(out, file, block.num_cells(), longest, [&](char* p, std::int64_t cell) {
        p = io::put_text(io::put_text(p, "      <"), type->dolfin_name);
        p = io::put_number(io::put_text(p, " index=\""), first_index + cell);
        for (int k = 0; k < type->num_nodes; ++k) {
          p = io::put_text(io::put_text(p, "\" "), detail::kVertexAttributes[static_cast<std::size_t>(k)]);
          p = io::put_number(io::put_text(p, "=\""), corners[cell * type->num_nodes + k]);
        }
        return io::put_text(p, "\" />\n");
      });
      first_index += block.num_cells();
    }
    out.text("    </cells>\n  </mesh>\n</dolfin>\n");
    out.flush();
    file.commit();
  }

  for (const auto& [name, array] : mesh.point_data) write_mesh_function(sibling_path(path, name), 0, {&array});
  for (const auto& [name, arrays] : mesh.cell_data) {
    std::vector<const NDArray*> parts;
    for (const NDArray& array : arrays) parts.push_back(&array);
    if (parts.empty()) continue;
    write_mesh_function(sibling_path(path, name), type->dim, parts);
  }
}

}  // namespace meshioplusplus::dolfin
