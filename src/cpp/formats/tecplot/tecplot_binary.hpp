// Tecplot binary data (.plt, #!TDV112): read, write, and zones grouped by solution time as a
// time series. tecplot_binary_reader.cpp says what becomes what. SZL files (.szplt) are refused
// by name: their layout is not public.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::tecplot_binary {

// The zones of the first solution time (every zone when the file has one time).
Mesh read(const std::string& path);
// One FE zone per cell block (nodal variables shared with the first zone); option `float32`.
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// "#!TDV" (binary .plt) or "#!SZ" (SZL, refused when read).
bool looks_like(std::string_view head) noexcept;

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);

}  // namespace meshioplusplus::tecplot_binary
