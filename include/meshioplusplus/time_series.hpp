// Floor 1 interface: one shape for every format that stores a mesh once and data per time
// step (XDMF today; PVD, VTKHDF, Exodus, MED and Gmsh are meant to implement the same).
//
// Reading is lazy: opening reads the structure (how many steps, their times), read_mesh()
// the points and cells, read_step(k) only the arrays of step k. Writing is streaming:
// write_mesh() once, then write_step() per step, then close() makes the file complete.
// See docs/time-series.md.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus {

struct TimeStep {
  double time = 0.0;
  NamedList<NDArray> point_data;
  NamedList<std::vector<NDArray>> cell_data;  // one array per cell block of the mesh
  NamedList<NDArray> field_data;
};

class TimeSeriesReader {
 public:
  virtual ~TimeSeriesReader() = default;
  virtual std::size_t num_steps() const = 0;
  // The time value of step k, without reading its arrays.
  virtual double time(std::size_t step) const = 0;
  // Points and cells (and any data stored with the mesh itself).
  virtual Mesh read_mesh() = 0;
  // The arrays of step k; cell data is split over the blocks read_mesh() returns.
  // Throws ReadError naming the file and the step when k is out of range or the data is bad.
  virtual TimeStep read_step(std::size_t step) = 0;
};

class TimeSeriesWriter {
 public:
  virtual ~TimeSeriesWriter() = default;
  // Exactly once, before any step. Point/cell data of `mesh` are ignored.
  virtual void write_mesh(const Mesh& mesh) = 0;
  virtual void write_step(const TimeStep& step) = 0;
  // Makes the file complete on disk. A writer destroyed without close() leaves no target file.
  virtual void close() = 0;
};

// Opens `path` as a time series of `format` (empty: from the extension). Throws ReadError
// when the format has no time-series reader.
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path, std::string_view format = {});
// Whether `format` (a registry name) has a time-series reader.
bool has_time_series_reader(std::string_view format) noexcept;
// Options as for write(); each format documents its own.
std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, std::string_view format = {},
                                                     const WriteOptions& options = {});
// Continues the series at `path` (XDMF, PVD, VTKHDF, Exodus): new steps go after the ones the
// file has; a missing file is created, as create_time_series does (open(..., "a")). The mesh
// is the file's: write_mesh() may be skipped, and if called must give the same number of points
// and the same cell blocks (else WriteError; the points are not written again). The file on disk
// changes only at close(): a writer dropped before leaves it as it was (HDF5 and netCDF files
// are copied to a temporary beside them, which replaces them at close()). Steps must carry the
// arrays the file's steps have (Exodus: its variables; docs/time-series.md).
std::unique_ptr<TimeSeriesWriter> append_time_series(const std::string& path, std::string_view format = {},
                                                     const WriteOptions& options = {});

}  // namespace meshioplusplus
