// ANSYS MAPDL results files (.rst structural, .rth thermal, .rmg magnetic). Read only.
// What becomes what: formats/ansys_rst/ansys_rst_reader.cpp.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::ansys_rst {

// The mesh with the first result set's arrays (every set through open_time_series).
Mesh read(const std::string& path);
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);
// The standard header's first record: 100 words, integer flag, file number 12.
bool looks_like(std::string_view head) noexcept;

}  // namespace meshioplusplus::ansys_rst
