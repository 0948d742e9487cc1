// Floor 1 interface: a numbered sequence of mesh files (out_0000.vtu, out_0001.vtu, …), one
// file per time step, as one time series (include/meshioplusplus/time_series.hpp).
//
// Solvers that write one complete file per step (FEniCS' File, SU2, deal.II, many in-house
// codes) leave such sequences; ParaView opens them as a group, or through a `.series` index
// (JSON: {"file-series-version": "1.0", "files": [{"name", "time"}]}) or a PVD. Reading is lazy:
// finding the sequence lists the files and their times, read_step(k) reads file k only.
// Each file is complete, so the mesh may change from step to step (adaptive runs):
// read_mesh() gives the mesh of the step read last (before any read_step, step 0's).
// See docs/time-series.md, "File sequences".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus {

struct FileSequence {
  std::vector<std::string> files;  // one per step, in step order
  std::vector<double> times;       // time of each file
};

// The files a source names, sorted by their number, with their times:
// - a glob: `*` and `?` in the file-name part (`results/out_*.vtu`); the files are ordered by the
//   number the wildcards matched (natural order), and that number is the time when it parses
//   as one (`out_0.25.vtu` → 0.25), else the step index;
// - a printf or Python field for the step number (`step_%04d.vtk`, `step_{:04d}.vtk`, `{}`):
//   every existing file it matches, the number being the time;
// - a `.series` index (ParaView's JSON) or a `.pvd` collection (one DataSet per time): the
//   files and times it lists, resolved against its folder.
// Throws ReadError naming the source when it matches no file or an index is malformed.
FileSequence find_file_sequence(const std::string& source);

// `sequence.times` empty: 0, 1, 2, … . `format` empty: each file's from its extension.
std::unique_ptr<TimeSeriesReader> open_file_sequence(FileSequence sequence, std::string_view format = {});

// Writes step k to `pattern` with its number field filled in (`out_%04d.vtu`,
// `out_{:04d}.vtu`, `{}`), one complete file per write_step() through the format's writer
// (`options` as its write()), numbered from `first_number`. write_mesh() may be called again
// between steps: the steps after it use the new mesh. close() writes `index` when it is not
// empty — a `.series` (JSON, any format ParaView reads) or a `.pvd` (VTK XML files only) — with
// names relative to the index's folder. Each step file is written atomically as it arrives and
// kept even if the writer is dropped before close() (a run that stops still leaves its steps).
std::unique_ptr<TimeSeriesWriter> create_file_sequence(const std::string& pattern, std::string_view format = {},
                                                       const WriteOptions& options = {}, const std::string& index = {},
                                                       long long first_number = 0);

}  // namespace meshioplusplus
