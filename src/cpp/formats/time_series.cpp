// Which formats can be read and written as time series (include/meshioplusplus/time_series.hpp).
// One row per format that implements the interface; append_time_series for the four that continue a series.
#include "meshioplusplus/time_series.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include "formats/abaqus_fil/abaqus_fil.hpp"
#include "formats/ansys_rst/ansys_rst.hpp"
#include "formats/binout/binout.hpp"
#include "formats/d3plot/d3plot.hpp"
#include "formats/ensight/ensight.hpp"
#include "formats/exodus/exodus.hpp"
#include "formats/frd/frd.hpp"
#include "formats/tecplot/tecplot_binary.hpp"
#include "formats/xplt/xplt.hpp"
#include "formats/gmsh/gmsh_time_series.hpp"
#include "formats/med/med_time_series.hpp"
#include "formats/nastran_h5/nastran_h5.hpp"
#include "formats/op2/op2.hpp"
#include "formats/openfoam/openfoam.hpp"
#include "formats/unv/unv_time_series.hpp"
#include "formats/vtk_xml/pvd_time_series.hpp"
#include "formats/vtkhdf/vtkhdf.hpp"
#include "formats/xdmf/xdmf.hpp"
#include "formats/time_series_options.hpp"
#include "io/output/series_append.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/file_sequence.hpp"

namespace meshioplusplus {

namespace {

std::string time_series_format(const std::string& path, std::string_view format) {
  if (!format.empty()) return std::string(format);
  const FormatInfo* info = format_for_path(path);
  return info ? std::string(info->name) : std::string();
}

// Append by replay, for formats whose writer streams each step into a new file (Exodus: the
// variables are declared once, in the header, so a step cannot be added to the file in place
// without redefining it): the writer's temporary receives the file's mesh and every step read
// back, then the caller's steps; close() puts it in place of the file. Memory holds one step.
class ReplayingAppender final : public TimeSeriesWriter {
 public:
  ReplayingAppender(const std::string& path, const std::string& format, std::unique_ptr<TimeSeriesReader> existing,
                    std::unique_ptr<TimeSeriesWriter> writer)
      : path_(path), format_(format), writer_(std::move(writer)) {
    stored_ = existing->read_mesh();
    stored_.point_data = {};
    stored_.cell_data = {};
    writer_->write_mesh(stored_);
    for (std::size_t k = 0; k < existing->num_steps(); ++k) writer_->write_step(existing->read_step(k));
  }

  void write_mesh(const Mesh& mesh) override { io::check_appended_mesh(path_, format_, stored_, mesh); }
  void write_step(const TimeStep& step) override { writer_->write_step(step); }
  void close() override { writer_->close(); }

 private:
  std::string path_, format_;
  std::unique_ptr<TimeSeriesWriter> writer_;
  Mesh stored_;
};

}  // namespace

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

namespace {

struct SeriesReaderRow {
  std::string_view format;
  std::unique_ptr<TimeSeriesReader> (*open)(const std::string& path);
};

// The formats with a time-series reader, one row each.
const std::array kSeriesReaders{
    SeriesReaderRow{"xdmf", xdmf::open_time_series},
    SeriesReaderRow{"pvd", pvd::open_time_series},
    SeriesReaderRow{"exodus", exodus::open_time_series},
    SeriesReaderRow{"gmsh", gmsh::open_time_series},
    SeriesReaderRow{"med", med::open_time_series},
    SeriesReaderRow{"vtkhdf", [](const std::string& path) { return vtkhdf::open_time_series(path); }},
    SeriesReaderRow{"frd", frd::open_time_series},
    SeriesReaderRow{"unv", unv::open_time_series},
    SeriesReaderRow{"openfoam", openfoam::open_time_series},
    SeriesReaderRow{"ensight", ensight::open_time_series},
    SeriesReaderRow{"tecplot_binary", tecplot_binary::open_time_series},
    SeriesReaderRow{"xplt", xplt::open_time_series},
    SeriesReaderRow{"op2", op2::open_time_series},
    SeriesReaderRow{"nastran_h5", nastran_h5::open_time_series},
    SeriesReaderRow{"d3plot", d3plot::open_time_series},
    SeriesReaderRow{"ansys_rst", ansys_rst::open_time_series},
    SeriesReaderRow{"abaqus_fil", abaqus_fil::open_time_series},
    SeriesReaderRow{"binout", binout::open_time_series},
};

const SeriesReaderRow* series_reader_row(std::string_view format) {
  for (const SeriesReaderRow& row : kSeriesReaders)
    if (row.format == format) return &row;
  return nullptr;
}

}  // namespace

bool has_time_series_reader(std::string_view format) noexcept { return series_reader_row(format) != nullptr; }

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path, std::string_view format) {
  // ParaView's index of a file sequence (file_sequence.hpp): its files are of any format.
  if (format.empty() && path.ends_with(".series")) return open_file_sequence(find_file_sequence(path));
  const std::string name = time_series_format(path, format);
  if (const SeriesReaderRow* row = series_reader_row(name)) return row->open(path);
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
  if (name == "gmsh" || name == "med" || name == "exodus" || name == "ensight") check_write_options(path, name, options, name);
  if (name == "ensight") return ensight::create_time_series(path, options);
  if (name == "gmsh") return gmsh::create_time_series(path, options);
  if (name == "med") return med::create_time_series(path, options);
  if (name == "exodus") return exodus::create_time_series(path, options);
  throw WriteError(path, name, name.empty() ? "cannot tell the format from the file name"
                                            : "format '" + name + "' has no time-series writer (xdmf has)");
}

std::unique_ptr<TimeSeriesWriter> append_time_series(const std::string& path, std::string_view format,
                                                     const WriteOptions& options) {
  const std::string name = time_series_format(path, format);
  std::error_code error;
  const bool exists = std::filesystem::exists(path, error);
  if (name == "xdmf") return xdmf::append_time_series(path, options);
  if (name == "pvd") {
    check_write_options(path, name, options, "vtu");
    return pvd::append_time_series(path, options);
  }
  if (name == "vtkhdf") return vtkhdf::append_time_series(path, options);
  if (name == "exodus") {
    if (!exists) return create_time_series(path, name, options);
    check_write_options(path, name, options, name);
    // The reader is opened before the writer's temporary exists; both end before close() returns.
    std::unique_ptr<TimeSeriesReader> existing = exodus::open_time_series(path);
    return std::make_unique<ReplayingAppender>(path, name, std::move(existing), exodus::create_time_series(path, options));
  }
  throw WriteError(path, name, name.empty() ? "cannot tell the format from the file name"
                                            : "format '" + name + "' has no appending time-series writer "
                                                                  "(xdmf, pvd, vtkhdf and exodus have)");
}

}  // namespace meshioplusplus
