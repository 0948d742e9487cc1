// Which formats can be read and written as time series (include/meshioplusplus/time_series.hpp).
// One row per format that implements the interface; XDMF is the first.
#include "meshioplusplus/time_series.hpp"

#include <algorithm>

#include "formats/exodus/exodus.hpp"
#include "formats/gmsh/gmsh_time_series.hpp"
#include "formats/med/med_time_series.hpp"
#include "formats/vtk_xml/pvd_time_series.hpp"
#include "formats/vtkhdf/vtkhdf.hpp"
#include "formats/xdmf/xdmf.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus {

namespace {

std::string time_series_format(const std::string& path, std::string_view format) {
  if (!format.empty()) return std::string(format);
  const FormatInfo* info = format_for_path(path);
  return info ? std::string(info->name) : std::string();
}

// For writers whose options are exactly those of a format's write() (the registry's row of
// `options_of`: the format's own, or for PVD the .vtu files it writes).
void check_write_options(const std::string& path, const std::string& name, const WriteOptions& options,
                         const std::string& options_of) {
  const FormatInfo& format = format_by_name(options_of);
  for (const auto& option : options.items()) {
    const std::string& option_name = option.first;
    const bool known = std::any_of(format.write_options.begin(), format.write_options.end(),
                                   [&](const WriteOptionSpec& spec) { return spec.name == option_name; });
    if (!known) throw WriteError(path, name, "unknown write option '" + option_name + "'");
  }
}

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path, std::string_view format) {
  const std::string name = time_series_format(path, format);
  if (name == "xdmf") return xdmf::open_time_series(path);
  if (name == "pvd") return pvd::open_time_series(path);
  if (name == "exodus") return exodus::open_time_series(path);
  if (name == "gmsh") return gmsh::open_time_series(path);
  if (name == "med") return med::open_time_series(path);
  if (name == "vtkhdf") return vtkhdf::open_time_series(path);
  throw ReadError(path, name, name.empty() ? "cannot tell the format from the file name"
                                           : "format '" + name + "' has no time-series reader (xdmf has)");
}

std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, std::string_view format,
                                                     const WriteOptions& options) {
  const std::string name = time_series_format(path, format);
  if (name == "xdmf") return xdmf::create_time_series(path, options);
  if (name == "pvd") {
    check_write_options(path, name, options, "vtu");
    return pvd::create_time_series(path, options);
  }
  if (name == "vtkhdf") return vtkhdf::create_time_series(path, options);
  if (name == "gmsh" || name == "med" || name == "exodus") check_write_options(path, name, options, name);
  if (name == "gmsh") return gmsh::create_time_series(path, options);
  if (name == "med") return med::create_time_series(path, options);
  if (name == "exodus") return exodus::create_time_series(path, options);
  throw WriteError(path, name, name.empty() ? "cannot tell the format from the file name"
                                            : "format '" + name + "' has no time-series writer (xdmf has)");
}

}  // namespace meshioplusplus
