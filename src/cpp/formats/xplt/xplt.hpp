// FEBio plot file (.xplt, FEBio 3 and 4): read, and every state as a time series.
// xplt_reader.cpp says what becomes what.
#pragma once

#include <memory>
#include <string>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::xplt {

// The mesh with the first state's results (as FEBio Studio opens a plot file).
Mesh read(const std::string& path);

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

}  // namespace meshioplusplus::xplt
