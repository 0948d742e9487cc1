// CGNS (.cgns): the CFD General Notation System, read and written through the CGNS library
// (both back ends, ADF and HDF5).
//
// What becomes what (reading; every base and every zone):
//   zone coordinates (CoordinateX/Y/Z)   → points, zone after zone (zones are not merged)
//   unstructured element sections        → cell blocks in section order; a MIXED section becomes
//                                          one block per run of equal element types (element
//                                          order kept); HEXA_20/PENTA_15 nodes are permuted to ours
//   structured zones                     → one block of hexahedra (3-D), quads (2-D) or lines (1-D)
//                                          over the i-fastest vertex grid
//   each zone                            → a Cell region (tag = zone number over all bases)
//   BCs (ZoneBC): point sets at vertices → Point regions; element/face/cell point sets → Cell
//                                          regions; named "<zone>/<bc>" when there are several
//                                          zones (and "<base>/<zone>/<bc>" with several bases),
//                                          <bc> being the text of the BC's "RegionName"
//                                          Descriptor_t when it has one (see write())
//   FlowSolution fields at Vertex        → point_data (float64; NaN in zones without the field)
//   FlowSolution fields at CellCenter    → cell_data for the zone's cells of its cell dimension
//                                          (NaN elsewhere)
// A later solution with a field name already used is named "<solution>/<field>".
//   NGON_n sections                      → polygon blocks, unless the zone has NFACE_n sections:
//                                          then they are only the polyhedra's faces
//   NFACE_n sections                     → polyhedron blocks (faces from the NGON_n sections, a
//                                          negative face number reversed); cell-centred values
//                                          then go to the non-face elements in element order
// Not read: HEXA_27/PENTA_18/PYRA_14 (node orders not converted),
// zone connectivity (zones stay separate), structured BCs as cells. Rind planes (ghost layers)
// of solutions are skipped: only the core values are read.
#pragma once

#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::cgns {

Mesh read(const std::string& path);
// Writes one base "Base" and one unstructured zone "Zone1" whose first section is named
// "GridElements" (the layout meshio's reader looks for), HDF5 back end by default; point
// regions as Vertex BCs, cell regions as element BCs, point/cell data as FlowSolutions.
// BC names are unique and at most 32 characters: a cell region keeps its name, a point region
// named like a cell region is "<name>_points", a name still taken gets "_2", "_3"…; such a
// BC (and one whose name was cut to 32) keeps the region's name in a "RegionName" descriptor.
// Polyhedron blocks → NFACE_n sections over one NGON_n section "PolyhedronFaces" numbered after
// every other element (shared faces once, negative in the cell they point into; see
// cgns_poly_faces.hpp); polygon blocks → NGON_n cell sections (refused beside polyhedra, where
// every NGON_n section is read as faces).
// Options: backend — hdf5 (default) or adf.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::cgns
