// Exodus II (.e, .exo, .ex2): Sandia's finite-element model and results format on netCDF
// (SEACAS, Cubit, MOOSE, ParaView). Read and written through the netCDF C library, so every
// netCDF kind works: classic, 64-bit offset, CDF5 and netCDF-4; int32 and int64 files.
//
// What becomes what (reading):
//   coordx/coordy/coordz or coord        → points (n, num_dim), float32 or float64 as stored
//   element block k (connect<k>)         → one cell block; the elem_type attribute (any case,
//                                          node count suffix optional) and the node count pick
//                                          our type: SPHERE/CIRCLE → vertex; BAR/BEAM/TRUSS/EDGE/
//                                          SPRING(2|3), SHELL2, STRAIGHT → line/line3; TRI/TRIANGLE/
//                                          TRISHELL(3|6|7) → triangle*; QUAD(4|5|8|9), SHELL(4|8|9)
//                                          → quad*; TETRA/TET(4|8|10|14), PYRAMID(5|13|14),
//                                          WEDGE(6|15|18), HEX(8|9|20|27) → ours ("TETRA" with 10
//                                          nodes is a tetra10). HEX20 and WEDGE15 nodes are
//                                          permuted from Exodus to our order. Any other type or
//                                          node count (TRI4, TETRA15, SUPER…) is a ReadError naming
//                                          the type and the block
//   NSIDED block (connect<k>, ebepecnt<k>) → polygons, ebepecnt giving each one's node count
//   NFACED block (facconn<k>, ebepecnt<k>) → polyhedra: facconn lists each one's faces
//                                          (ebepecnt of them), numbered 1.. over all face blocks;
//                                          face block j is fbconn<j> with fbepecnt<j> (NSIDED) or
//                                          rows of a fixed node count. Exodus faces carry no
//                                          sign (a face two polyhedra share is stored once), so
//                                          every face is turned out of its polyhedron
//                                          (io/cells/polyhedron_orientation.hpp). Written back as
//                                          one NSIDED face block per polyhedron block, each
//                                          polyhedron with its own faces, oriented outward.
//   element block names (eb_names)       → Cell regions (tag = block id, eb_prop1), one per block;
//                                          an unnamed block is called "block_<id>"
//   node sets (node_ns<k>, ns_names)     → Point regions (tag = set id)
//   side sets (elem_ss<k>, side_ss<k>)   → Side regions of (cell, local facet) pairs: Exodus side
//                                          s of a volume cell (or a 2-D cell of a 2-D mesh) is
//                                          our facet s-1; of a shell (tri/quad in 3-D) an edge
//                                          side s >= 3 is our edge s-3. Shell face sides (1, 2)
//                                          and sides of bars have no facet of ours and are left out.
//   element sets (elem_els<k>)           → Cell regions
//   nodal variables at a time step       → point_data; names ending X/Y/Z (and _R/_Z) are
//                                          joined into (n, 3) / (n, 2) arrays as meshio does
//   element variables at a time step     → cell_data (NaN where the truth table leaves a block out)
//   global variables at a time step      → field_data, one (1,) array each
//   QA and info records                  → string_field_data "exodus:qa_records" (four strings
//                                          per record) and "exodus:info_records"
// read() gives time step 0 (meshio's choice); time_values() and read_step() reach every step.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::exodus {

Mesh read(const std::string& path);
// The time of every step (time_whole); empty when the file has no steps.
std::vector<double> time_values(const std::string& path);
// The mesh with the variables of step `step` (0-based); ReadError when out of range.
Mesh read_step(const std::string& path, std::size_t step);

// read() narrowed on disk (read_selection.hpp): variables not asked for are not read; with
// points_only neither the connectivity nor the side and element sets.
Mesh read_selected(const std::string& path, const ReadRequest& request);
// Counts, blocks, sets, variables and times from the netCDF header (dimensions, variable
// shapes, names); side sets are read (small) for their counts. No coordinates, connectivity or
// variable values.
MeshMetadata read_metadata(const std::string& path);

// Points, cells, regions and records without any variable.
Mesh read_structure(const std::string& path);
// The time-series interface (time_series.hpp): read_mesh() is read_structure(), read_step(k)
// the nodal, element and global variables of step k only (no coordinates or connectivity read).
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

// Options: netcdf_format — NETCDF4 (default, as meshio through netCDF4-python),
// NETCDF3_64BIT_OFFSET, NETCDF3_64BIT_DATA or NETCDF3_CLASSIC.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

// The time-series writer (time_series.hpp), options as write(): the mesh once, then one
// record per step along the unlimited time_step dimension — time_whole, the nodal
// (vals_nod_var<i>), element (vals_elem_var<i>eb<j>) and global (vals_glo_var, from a step's
// scalar field_data) variables in write()'s layout. The first step declares the variables;
// every later step must have the same names, dtypes and trailing shapes. The file is written
// beside the target and replaces it on close(). See docs/time-series.md.
std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options);

}  // namespace meshioplusplus::exodus
