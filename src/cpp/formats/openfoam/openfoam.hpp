// OpenFOAM polyMesh cases: a case directory (or its `*.foam` marker file, or its
// constant/polyMesh directory) holding points, faces, owner, neighbour and boundary, with
// optional cell/face/point zones, time directories of fields and processor* decompositions.
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::openfoam {

// The mesh with the fields of the latest time directory (openfoam_reader.cpp says what becomes
// what); every time directory as a step through open_time_series.
Mesh read(const std::string& path);
// read() narrowed (read_selection.hpp): field files not named are not opened; points_only on a
// single case reads the points file (the newest moved one) and pointZones, nothing else.
Mesh read_selected(const std::string& path, const ReadRequest& request);
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);
// Whether `path` is a directory holding an OpenFOAM case (constant/polyMesh or processor0's),
// or is a polyMesh directory: the registry reads such a directory as openfoam.
bool is_case_directory(const std::string& path) noexcept;
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

}  // namespace meshioplusplus::openfoam
