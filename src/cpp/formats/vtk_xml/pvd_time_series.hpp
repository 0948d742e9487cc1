// PVD behind the time-series interface (include/meshioplusplus/time_series.hpp); registered
// in src/cpp/formats/time_series.cpp.
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::pvd {

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);
// Options as pvd::write (the .vtu options); `time` does not apply.
std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options);
// Continues an existing series (or starts one): include/meshioplusplus/time_series.hpp.
std::unique_ptr<TimeSeriesWriter> append_time_series(const std::string& path, const WriteOptions& options);

}  // namespace meshioplusplus::pvd
