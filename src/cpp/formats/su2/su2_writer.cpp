// SU2 writer (ASCII, one zone).
//
// NDIME is the points' width (2 or 3). Cells of dimension NDIME are written under NELEM,
// cells of dimension NDIME - 1 (lines in 2-D, triangles and quads in 3-D) as markers; any
// other cell — vertices, lines of a 3-D mesh, higher-order types — has no place in SU2 and
// is a WriteError (meshio drops them with a warning). Wedges go back to VTK's node order.
//
// Markers, first rule that gives any:
//   1. Cell regions: each region's boundary cells form a marker named by the region
//      (whitespace in the name becomes '_', as SU2 reads a tag up to the line end and config
//      files list tags separated by blanks); boundary cells in no region form "unmarked".
//   2. "su2:tag", else the first integer cell data (meshio's pick): one marker per distinct
//      value of the boundary cells, in ascending order, named by the value.
//   3. One marker "1" with every boundary cell (as meshio).
// Point data, other cell data, field data and Point/Side regions have no place in SU2.
// Element, point and marker lines are formatted on all cores (io/output/parallel_rows.hpp), in
// file order at any thread count.
#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "formats/su2/su2.hpp"
#include "formats/su2/su2_types.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/cells/integer_cell_data.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::su2 {
namespace {

using detail::ElementType;
using detail::kElementTypes;
constexpr std::string_view kFormat = "su2";

struct CellRef {
  std::size_t block;
  std::int64_t row;
};

struct MarkerToWrite {
  std::string name;
  std::vector<CellRef> cells;
};

std::string marker_name(std::string name) {
  for (char& c : name)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '%' || c == '=') c = '_';
  return name.empty() ? std::string("_") : name;
}

std::vector<MarkerToWrite> markers_from_regions(const Mesh& mesh, const std::vector<bool>& is_boundary) {
  const NDArray bases = block_bases(mesh.cells);
  const std::int64_t* base = bases.data_as<std::int64_t>();
  const std::int64_t total = base[mesh.cells.size()];
  std::vector<bool> covered(static_cast<std::size_t>(total), false);
  std::vector<MarkerToWrite> markers;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Cell) continue;
    MarkerToWrite marker{marker_name(region.name), {}};
    for (std::int64_t cell : region.entries.values<std::int64_t>()) {
      if (cell < 0 || cell >= total) continue;
      const auto block = static_cast<std::size_t>(std::upper_bound(base, base + mesh.cells.size() + 1, cell) - base - 1);
      if (!is_boundary[block]) continue;
      marker.cells.push_back({block, cell - base[block]});
      covered[static_cast<std::size_t>(cell)] = true;
    }
    if (!marker.cells.empty()) markers.push_back(std::move(marker));
  }
  if (markers.empty()) return markers;
  MarkerToWrite unmarked{"unmarked", {}};
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    if (is_boundary[b])
      for (std::int64_t row = 0; row < mesh.cells[b].num_cells(); ++row)
        if (!covered[static_cast<std::size_t>(base[b] + row)]) unmarked.cells.push_back({b, row});
  if (!unmarked.cells.empty()) markers.push_back(std::move(unmarked));
  return markers;
}

std::vector<MarkerToWrite> markers_to_write(const Mesh& mesh, const std::vector<bool>& is_boundary) {
  std::vector<MarkerToWrite> markers = markers_from_regions(mesh, is_boundary);
  if (!markers.empty()) return markers;
  const std::vector<NDArray>* tags = io::per_cell_integers(mesh, "su2:tag");
  std::map<std::int64_t, std::vector<CellRef>> by_tag;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    if (!is_boundary[b]) continue;
    for (std::int64_t row = 0; row < mesh.cells[b].num_cells(); ++row)
      by_tag[tags != nullptr ? io::integer_at((*tags)[b], row) : 1].push_back({b, row});
  }
  for (auto& [tag, cells] : by_tag) markers.push_back({std::to_string(tag), std::move(cells)});
  return markers;
}

// The element line of `row` (VTK id, then its nodes) at p; returns the end.
char* put_element(char* p, const CellBlock& block, int type, std::int64_t row) {
  const ElementType& element = kElementTypes[static_cast<std::size_t>(type)];
  const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>() + row * element.nodes;
  const int* order = element.vtk_id == 13 ? io::vtk_node_permutation(13) : nullptr;
  p = io::put_number(p, element.vtk_id);
  for (int k = 0; k < element.nodes; ++k) {
    *p++ = ' ';
    p = io::put_number(p, nodes[order != nullptr ? order[k] : k]);
  }
  *p++ = '\n';
  return p;
}

// Room for any element line: the VTK id and up to 8 nodes (hexahedra), each with a blank.
constexpr std::size_t kLongestElement = 9 * (io::kMaxNumberChars + 1) + 1;

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || (mesh.points.dim(1) != 2 && mesh.points.dim(1) != 3))
    throw std::invalid_argument("SU2 needs 2-D or 3-D points");
  const int dim = static_cast<int>(mesh.points.dim(1));
  std::vector<int> types;
  std::vector<bool> is_boundary;
  std::int64_t volume_cells = 0;
  for (const CellBlock& block : mesh.cells) {
    const int type = detail::type_index_of_name(block.type);
    const int cell_dim = type < 0 ? -1 : cell_type(block.type).dimension;
    if (type < 0 || (cell_dim != dim && cell_dim != dim - 1))
      throw std::invalid_argument("a " + std::to_string(dim) + "-D SU2 mesh holds " +
                                  (dim == 2 ? "triangle and quad cells with line markers"
                                            : "tetra, hexahedron, wedge and pyramid cells with triangle and quad markers") +
                                  ", not '" + block.type + "'");
    types.push_back(type);
    is_boundary.push_back(cell_dim == dim - 1);
    if (cell_dim == dim) volume_cells += block.num_cells();
  }
  const std::vector<MarkerToWrite> markers = markers_to_write(mesh, is_boundary);

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.text("% written by meshio++\nNDIME= ");
  out.number(dim);
  out.text("\nNELEM= ");
  out.number(volume_cells);
  out.put('\n');
  for (std::size_t b = 0; b < mesh.cells.size(); ++b)
    if (!is_boundary[b])
      io::write_rows_in_parallel(out, file, mesh.cells[b].num_cells(), kLongestElement, [&](char* p, std::int64_t row) {
        return put_element(p, mesh.cells[b], types[b], row);
      });
  out.text("NPOIN= ");
  out.number(mesh.num_points());
  out.put('\n');
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    const auto* xyz = static_cast<const decltype(zero)*>(mesh.points.data());
    io::write_rows_in_parallel(out, file, mesh.num_points(), 3 * (io::kMaxNumberChars + 1) + 1, [&](char* p, std::int64_t i) {
      p = io::put_values(p, xyz + i * dim, dim);
      *p++ = '\n';
      return p;
    });
  });
  out.text("NMARK= ");
  out.number(static_cast<std::int64_t>(markers.size()));
  out.put('\n');
  for (const MarkerToWrite& marker : markers) {
    out.text("MARKER_TAG= ");
    out.text(marker.name);
    out.text("\nMARKER_ELEMS= ");
    out.number(static_cast<std::int64_t>(marker.cells.size()));
    out.put('\n');
    io::write_rows_in_parallel(out, file, static_cast<std::int64_t>(marker.cells.size()), kLongestElement,
                               [&](char* p, std::int64_t i) {
                                 const CellRef& cell = marker.cells[static_cast<std::size_t>(i)];
                                 return put_element(p, mesh.cells[cell.block], types[cell.block], cell.row);
                               });
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::su2
