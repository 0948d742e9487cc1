// LS-DYNA binout files (the "LSDA" binary time-history database: glstat, matsum, nodout,
// rcforc, elout, … written by *DATABASE_BINARY_OPTION). Read only.
//
// A binout holds no mesh: what a read produces (formats/binout/binout_reader.cpp says how):
//   mesh        no points, no cells. Each database's metadata directory (ids, legend, title,
//               date, revision …) → field data "<database>/metadata/<name>" (numbers, the file's
//               dtype) or string field data (the 1-byte character variables).
//   time steps  a database is a directory whose sub-directories d000001, d000002, … are its
//               states (nested ones too: "rwforc/forces"); each state's "time" variable places
//               it on the time axis. The steps are the distinct state times of all databases,
//               increasing; step k's field data holds every variable of every state at that
//               time as "<database>/<variable>" (e.g. glstat/kinetic_energy, matsum/
//               internal_energy (n_parts,)), in the file's dtype. A state without a time
//               variable is left out.
// read() gives the mesh with the FIRST step's field data (and field data time); every step
// through the time-series reader; meshioplusplus.binout.read_databases(path) in Python gives
// lasso-python's view, {database: {variable: array (n_states, …)}}. Continuation files
// (binout%001 …, written when a binout reaches its size limit) are joined to the file named,
// as LSTC's lsda library joins them. Separate files of an MPP family (binout0000, binout0001)
// are separate databases and are read one at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/time_series.hpp"

namespace meshioplusplus::binout {

Mesh read(const std::string& path);
std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path);
// The LSDA header: length 8 or more, then the sizes of lengths, offsets, commands and types.
bool looks_like(std::string_view head) noexcept;
// LS-DYNA's names: binout, binout0000, binout0001 …, and their continuations binout%001 …
// (the file name, any directory).
bool is_file_name(std::string_view path) noexcept;

}  // namespace meshioplusplus::binout
