// MFEM mesh writer: "MFEM mesh v1.0", through a temporary file.
//
// dimension: the highest cell dimension; elements: every block of that dimension; boundary:
// every block one dimension lower, in the mesh's node order (MFEM's prism is meshio's wedge);
// vertices: the points (1, 2 or 3 coordinates). Attributes: cell data "mfem:attribute" when
// it is integer data of one value per cell in every block, else 1 (MFEM needs positive
// attributes). Other cell types (quadratic cells, polygons …) and blocks of any other
// dimension are refused with a WriteError naming them. Regions and other data have no place
// in the format.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/mfem/mfem.hpp"
#include "formats/mfem/mfem_geometries.hpp"
#include "io/output/atomic_file.hpp"

namespace meshioplusplus::mfem {
namespace {

constexpr std::string_view kFormat = "mfem";

struct Kind {
  int geometry;
  int nodes;
  int dim;
};

Kind kind_of(const std::string& type) {
  const int geometry = detail::geometry_of(type);
  if (geometry < 0) throw std::invalid_argument("MFEM has no geometry for '" + type + "' cells");
  const detail::Geometry& g = detail::kGeometries[static_cast<std::size_t>(geometry)];
  return {geometry, g.nodes, g.dim};
}

bool is_integer(DType d) {
  return d == DType::int8 || d == DType::int16 || d == DType::int32 || d == DType::int64 || d == DType::uint8 ||
         d == DType::uint16 || d == DType::uint32 || d == DType::uint64;
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 1 || mesh.points.dim(1) > 3)
    throw std::invalid_argument("MFEM needs points of 1, 2 or 3 coordinates");
  int dim = -1;
  for (const CellBlock& block : mesh.cells) dim = std::max(dim, kind_of(block.type).dim);
  if (dim < 0) dim = static_cast<int>(mesh.points.dim(1));
  for (const CellBlock& block : mesh.cells)
    if (kind_of(block.type).dim < dim - 1)
      throw std::invalid_argument("MFEM holds elements (dimension " + std::to_string(dim) + ") and boundary elements (" +
                                  std::to_string(dim - 1) + "), not '" + block.type + "' cells");
  const std::vector<NDArray>* attributes = mesh.cell_data.find("mfem:attribute");
  if (attributes != nullptr) {
    bool fits = attributes->size() == mesh.cells.size();
    for (std::size_t b = 0; fits && b < mesh.cells.size(); ++b)
      fits = (*attributes)[b].rows() == mesh.cells[b].num_cells() && (*attributes)[b].row_width() == 1 &&
             is_integer((*attributes)[b].dtype());
    if (!fits) attributes = nullptr;
  }
  const NDArray attribute64 = NDArray::allocate(DType::int64, {0});
  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.set_float_format(io::parse_float_format(options.get("float_fmt", "")));
  out.text("MFEM mesh v1.0\n\n# written by meshio++\n\ndimension\n");
  out.number(dim);
  const auto section = [&](const char* name, int section_dim) {
    std::int64_t count = 0;
    for (const CellBlock& block : mesh.cells)
      if (kind_of(block.type).dim == section_dim) count += block.num_cells();
    out.text("\n\n");
    out.text(name);
    out.put('\n');
    out.number(count);
    out.put('\n');
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      const CellBlock& block = mesh.cells[b];
      const Kind kind = kind_of(block.type);
      if (kind.dim != section_dim) continue;
      const NDArray values = attributes ? (*attributes)[b].astype(DType::int64) : attribute64;
      const std::int64_t* a = values.data_as<std::int64_t>();
      const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
      for (std::int64_t i = 0; i < block.num_cells(); ++i) {
        out.number(attributes ? a[i] : std::int64_t{1});
        out.put(' ');
        out.number(kind.geometry);
        for (int k = 0; k < kind.nodes; ++k) {
          out.put(' ');
          out.number(nodes[i * kind.nodes + k]);
        }
        out.put('\n');
      }
    }
  };
  section("elements", dim);
  section("boundary", dim - 1);
  out.text("\nvertices\n");
  out.number(mesh.num_points());
  out.put('\n');
  out.number(mesh.points.dim(1));
  out.put('\n');
  const NDArray points = mesh.points.astype(DType::float64);
  const double* p = points.data_as<double>();
  const std::int64_t width = points.dim(1);
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
    for (std::int64_t d = 0; d < width; ++d) {
      if (d) out.put(' ');
      out.number(p[i * width + d]);
    }
    out.put('\n');
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::mfem
