// Gmsh MSH behind the time-series interface (include/meshioplusplus/time_series.hpp);
// registered in src/cpp/formats/time_series.cpp.
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::gmsh {

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

}  // namespace meshioplusplus::gmsh
