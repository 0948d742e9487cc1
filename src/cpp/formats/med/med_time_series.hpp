// MED behind the time-series interface (include/meshioplusplus/time_series.hpp); registered
// in src/cpp/formats/time_series.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/med/med.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::med {

// The series of the first mesh and its fields (the time-series registry's), or of the mesh
// `options.mesh_name` (a name the file lacks is a ReadError listing the file's meshes).
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path, const ReadOptions& options);
// The mesh once (as med::write), then per step one computation step (NDT = step index,
// NOR = -1, PDT = time) in each field /CHA/<name> the step has. No options.
std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options);

// One computation step of the fields: NDT (time step), NOR (iteration) and PDT (time).
struct ComputationStep {
  std::int64_t ndt = -1;
  std::int64_t nor = -1;
  double time = 0;
};

class Writer;  // med_writer.cpp

// The MED writer's pieces (med_writer.cpp) as the time-series writer uses them: the mesh and
// its families once, then the fields one computation step at a time, into an HDF5 file written
// beside `path` that replaces it on commit() (dropped without commit(): no file). Every
// failure is a WriteError naming the file; the check_* calls write nothing.
class MedStream {
 public:
  explicit MedStream(const std::string& path);
  ~MedStream();
  MedStream(const MedStream&) = delete;
  MedStream& operator=(const MedStream&) = delete;

  void check_mesh(const Mesh& mesh) const;  // cell types MED has, one block per type
  void write_mesh(const Mesh& mesh);        // point/cell data other than the family numbers ignored
  // Point data (n,) / (n, c); cell data one array per block, (cells,) / (cells, c) or
  // (cells, nodes per cell, c); a field keeps its component count over steps and supports.
  // `context` starts each message (e.g. "step 3: ").
  void check_fields(const NamedList<NDArray>& point_data, const NamedList<std::vector<NDArray>>& cell_data,
                    const std::string& context = {}) const;
  void write_fields(const NamedList<NDArray>& point_data, const NamedList<std::vector<NDArray>>& cell_data,
                    const ComputationStep& step);
  void commit();

 private:
  std::unique_ptr<Writer> writer_;
};

}  // namespace meshioplusplus::med
