// EnSight Gold (.case + geometry and variable files): read, write, and every time step as a
// time series (include/meshioplusplus/time_series.hpp). ensight_reader.cpp says what becomes
// what.
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::ensight {

// The case's first time step: its geometry with the variables of that step.
Mesh read(const std::string& path);

// read() narrowed (read_selection.hpp): variable files not asked for are not opened, and a
// points-only read passes over the element connectivity. read_metadata: the case and the
// geometry's counts, no coordinates, connectivity or variable values.
Mesh read_selected(const std::string& path, const ReadRequest& request);
MeshMetadata read_metadata(const std::string& path);

// One part per Cell region (or one part for the whole mesh without such regions), point and cell data as node
// and element variables, field data as constants; options `binary` ("true": C Binary).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

// Steps as they arrive: variables per step (time set 1), the geometry once, or once per mesh
// given when write_mesh() is called again (transient geometry); the case at close(). Options as
// write(). Times must increase.
std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options);

}  // namespace meshioplusplus::ensight
