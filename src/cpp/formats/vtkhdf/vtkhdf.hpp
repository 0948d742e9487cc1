// VTKHDF (.vtkhdf, .hdf): VTK's HDF5 file format (spec 1.x/2.x), read and written through the
// shared HDF5 floor: UnstructuredGrid and PolyData, partitions, temporal files (Steps).
// See docs/vtk-xml.md#vtkhdf for what becomes what, docs/time-series.md and docs/parallel.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::vtkhdf {

// Which part of a file to read: one time step, and a contiguous range of that step's
// partitions (num_parts < 0: from first_part to the last). Only the rows of the chosen
// partitions are read (hyperslabs), never the other partitions' bytes.
struct Selection {
  std::int64_t step = 0;
  std::int64_t first_part = 0;
  std::int64_t num_parts = -1;
};

// The first step, every partition merged (what mio.read gives).
Mesh read(const std::string& path);
// One step and a partition range, with that step's point/cell data.
Mesh read(const std::string& path, const Selection& selection);
// read() narrowed on disk (read_selection.hpp): data arrays not asked for are not read; with
// points_only no topology dataset (Types, Offsets, Connectivity) either.
Mesh read_selected(const std::string& path, const ReadRequest& request);
// Counts, blocks, arrays and times of the first step from the counts, the dataset shapes and
// the cell types (Types; Offsets for PolyData and Lagrange cells); no points, connectivity or data.
MeshMetadata read_metadata(const std::string& path);
// How many steps the file has (1 for a file without Steps) and how many partitions step `step` has.
std::int64_t num_steps(const std::string& path);
std::int64_t num_partitions(const std::string& path, std::int64_t step = 0);

// Options: compression (gzip or none; default none), compression_opts (gzip level, default 4).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

// The main file of a partitioned VTKHDF written as one file per partition (VTK's
// vtkHDFWriter UseExternalPartitions layout): every dataset of `path` is an HDF5 virtual
// dataset over the same dataset of the partition files, in order, named relative to the
// folder of `path`. The partition files must exist and agree in array names and dtypes.
void write_partitioned_main(const std::string& path, const std::vector<std::string>& partition_files);

// The time-series interface (include/meshioplusplus/time_series.hpp). A file without Steps is
// one step at time 0. The reader reads only step k's rows in read_step(k); where the mesh
// changes between steps, read_step(k) splits cell data over step k's blocks and read_mesh()
// afterwards returns step k's mesh (before any read_step: step 0's). `parts` picks a partition
// range of every step (Selection::step is ignored); with `share_of` = {rank, size} the range is
// that rank's contiguous share (as _parallel.rank_share), and read_mesh() adds global_ids point
// and cell data (unless the file has them) plus the reader's accounting: field data
// "vtkhdf:bytes_read" (int64) and string field data "vtkhdf:files_read".
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path, const Selection& parts = {});
std::unique_ptr<TimeSeriesReader> open_share(const std::string& path, std::int64_t rank, std::int64_t size);
// Writes one partition; steps become Steps (static mesh: one geometry, per-step data; calling
// write_mesh() again between steps starts a new geometry for the following steps). Buffered:
// the file is written by close(). Options as for write(), plus partition_files (a ';'-separated
// list): then close() writes the partitioned main file (write_partitioned_main) instead.
std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options);
// Continues an existing series (or starts one): its geometries and steps are read and the file is
// written again by close() with the new steps after them (include/meshioplusplus/time_series.hpp).
std::unique_ptr<TimeSeriesWriter> append_time_series(const std::string& path, const WriteOptions& options);

}  // namespace meshioplusplus::vtkhdf
