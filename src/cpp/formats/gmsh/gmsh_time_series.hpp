// Gmsh MSH behind the time-series interface (include/meshioplusplus/time_series.hpp);
// registered in src/cpp/formats/time_series.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::gmsh {

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);
// The mesh once, then per step one $NodeData / $ElementData / $ElementNodeData section per
// array (view name, time, step index). Options as gmsh::write: fmt_version, binary.
std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options);

// The MSH writer's pieces (gmsh_writer.cpp) as the time-series writer streams them: the mesh
// sections once, then data sections one at a time, into a temporary file beside `path` that
// replaces it on commit() (dropped without commit(): no file). Bad options or a mesh Gmsh
// cannot hold throw std::invalid_argument, I/O failures WriteError.
class MshStream {
 public:
  MshStream(const std::string& path, const WriteOptions& options);
  ~MshStream();
  MshStream(const MshStream&) = delete;
  MshStream& operator=(const MshStream&) = delete;

  // Everything write() writes but the data sections; the mesh's own arrays ("gmsh:*",
  // regions) shape its entities and physical groups as in write().
  void write_mesh(const Mesh& mesh);
  std::int64_t num_points() const;
  std::vector<std::int64_t> block_sizes() const;
  // One section of view `view` at time-step index `step`. Rows must match the points / blocks.
  void write_node_data(std::string_view view, std::int64_t step, double time, const NDArray& values);
  // Whether write_element_data can write these arrays: equal widths in every block, or
  // (nodes of each block's type) × c values per cell for one c ($ElementNodeData).
  bool fits_element_data(const std::vector<NDArray>& per_block) const;
  bool write_element_data(std::string_view view, std::int64_t step, double time, const std::vector<NDArray>& per_block);
  void commit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace meshioplusplus::gmsh
