// WKT writer: a TIN, as meshio writes it — "TIN (((x y z, x y z, x y z, x y z)), …)", every
// triangle as its closed ring of coordinates, without a Z tag so that meshio's reader takes
// it. Numbers are the shortest text that reads back to the same value (with an exponent
// where that is shorter, which meshio's reader cannot parse; its own writer does the same).
//
// Only triangle blocks can be written: other cell types are refused (std::invalid_argument;
// meshio skips them with a warning). A TIN stores positions, not indices, so points no
// triangle uses are not written and points at equal positions come back as one. Not written:
// point, cell and field data, regions.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "formats/wkt/wkt.hpp"
#include "io/output/atomic_file.hpp"

namespace meshioplusplus::wkt {
namespace {

constexpr std::string_view kFormat = "wkt";

void put_point(io::OutputBuffer& out, const NDArray& points, std::int64_t index) {
  visit_dtype(points.dtype(), [&](auto zero) {
    const std::int64_t width = points.row_width();
    const auto* values = static_cast<const decltype(zero)*>(points.data()) + index * width;
    for (std::int64_t i = 0; i < width; ++i) {
      if (i > 0) out.put(' ');
      out.number(values[i]);
    }
  });
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 2 || mesh.points.dim(1) > 4)
    throw std::invalid_argument("WKT points have 2 to 4 coordinates");
  for (const CellBlock& block : mesh.cells)
    if (block.type != "triangle")
      throw std::invalid_argument("a WKT TIN holds triangles only, not '" + block.type + "'");
  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.text("TIN (");
  bool first = true;
  for (const CellBlock& block : mesh.cells) {
    const std::int64_t* corners = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t cell = 0; cell < block.num_cells(); ++cell) {
      out.text(first ? "((" : ", ((");
      first = false;
      for (int k = 0; k < 4; ++k) {
        if (k > 0) out.text(", ");
        put_point(out, mesh.points, corners[cell * 3 + k % 3]);
      }
      out.text("))");
    }
  }
  out.text(")\n");
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::wkt
