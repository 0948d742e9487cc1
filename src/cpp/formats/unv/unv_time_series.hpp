// Universal-file results (datasets 2414 and 55) behind the time-series interface
// (include/meshioplusplus/time_series.hpp); registered in src/cpp/formats/time_series.cpp.
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::unv {

// The mesh as unv::read gives it; one step per (analysis type, step number, value) of the
// 2414 and 55 datasets (unv_time_series.cpp). No writer: the universal-file writer writes meshes only.
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

}  // namespace meshioplusplus::unv
