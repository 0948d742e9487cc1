// Netgen mesh files: .vol and gzip-compressed .vol.gz (Netgen's own Mesh::Save layout).
//
// What a read produces (meshio's conventions):
//   points      float64 (n, dimension): the "points" section holds x y z; a 1-D or 2-D mesh
//               ("dimension" 1 or 2) keeps the first 1 or 2 columns.
//   cells       pointelements -> vertex, edgesegments / edgesegmentsgi / edgesegmentsgi2 ->
//               line, surfaceelements / surfaceelementsgi / surfaceelementsuv -> triangle,
//               quad, triangle6, quad8, volumeelements -> tetra, pyramid, wedge, hexahedron
//               and their second-order kinds. A new block starts whenever the type changes
//               (as meshio); nodes are permuted to meshio's order.
//   cell_data   "netgen:index" int64: the point element index, the edge segment's surface id,
//               the surface element's boundary number (bcnr), the volume element's material.
//   field_data  name -> int64 [index, dim] from materials / bcnames / cd2names / cd3names
//               (dim = dimension - codimension), as meshio; "netgen:identifications" (n, 3)
//               and "netgen:identificationtypes" (1, m) (meshio keeps these in mesh.info).
//   regions     one Cell region per name and dimension: the cells of that dimension whose
//               netgen:index has that name, tag = the index (-1 when one name covers several).
// Blank lines and lines starting with '#' are skipped; face_colours and singular_* sections
// are passed over; reading stops at "endmesh". gzip input is recognised by its magic bytes.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::netgen {

Mesh read(const std::string& path);

// Options: float_fmt (meshio's; default: floats in shortest round-trip form);
// gzip-compressed when the name ends in ".gz". Writes dimension = the point width (1-3, points
// padded to x y z), surfaceelements, volumeelements, edgesegmentsgi2, points, pointelements,
// identifications, then the names. The cell index is cell_data "netgen:index", else the first
// integer cell data, else 1. Names come from field_data [index, dim] (as meshio), else from
// Cell regions with a tag >= 1 and a dim, else "cd<codim>_<index>" for the indices in use;
// blanks in names become '_'. Cell types Netgen has no element for (polygon, line3 …) are
// refused (std::invalid_argument); other data and Point/Side regions are not written.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::netgen
