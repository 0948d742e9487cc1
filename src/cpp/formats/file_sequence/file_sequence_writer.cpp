// Writing a file sequence (include/meshioplusplus/file_sequence.hpp): one complete file per
// step through the registry's writer of the format, the step number filled into the pattern,
// and an index (.series or .pvd) at close(). Step files are kept when the writer is dropped
// before close(): a run that stops half-way still leaves the steps it wrote, each whole
// (AtomicFile in every writer).
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "formats/file_sequence/file_sequence_internal.hpp"
#include "formats/time_series_options.hpp"
#include "io/output/kept_geometry.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/file_sequence.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus {
namespace {

constexpr const char* kName = "file sequence";

class SequenceWriter final : public TimeSeriesWriter {
 public:
  SequenceWriter(std::string pattern, std::string_view format, const WriteOptions& options, std::string index,
                 long long first_number)
      : pattern_(std::move(pattern)), options_(options), index_(std::move(index)), next_number_(first_number) {
    const std::filesystem::path path(pattern_);
    std::string problem;
    const auto field = file_sequence::parse_number_field(path.filename().string(), &problem);
    if (!field)
      throw WriteError(pattern_, kName,
                       problem.empty() ? "the pattern needs a step-number field: out_{:04d}.vtu, out_%04d.vtu or out_{}.vtu"
                                       : problem);
    field_ = *field;
    folder_ = path.parent_path();
    const std::string first_file = file_name(first_number);
    if (format.empty()) {
      const FormatInfo* info = format_for_path(first_file);
      if (info == nullptr) throw WriteError(pattern_, kName, "cannot tell the format from '" + first_file + "'");
      format_ = std::string(info->name);
    } else {
      format_ = std::string(format);
    }
    try {
      if (format_by_name(format_).write == nullptr) throw WriteError(pattern_, format_, "the format is read-only");
    } catch (const std::invalid_argument& problem_text) {
      throw WriteError(pattern_, kName, problem_text.what());
    }
    check_write_options(pattern_, format_, options_, format_);
    if (!index_.empty()) {
      const std::string extension = std::filesystem::path(index_).extension().string();
      if (extension != ".series" && extension != ".pvd")
        throw WriteError(index_, kName, "the index is a .series (any format) or a .pvd (VTK XML files)");
    }
  }

  void write_mesh(const Mesh& mesh) override {
    mesh_ = io::kept_geometry(mesh);
    has_mesh_ = true;
  }

  void write_step(const TimeStep& step) override {
    if (!has_mesh_) throw WriteError(pattern_, kName, "write_step() before write_mesh()");
    if (closed_) throw WriteError(pattern_, kName, "write_step() after close()");
    if (!std::isfinite(step.time))
      throw WriteError(pattern_, kName, "step " + std::to_string(written_.size()) + ": the time is not finite");
    Mesh mesh = mesh_;
    mesh.point_data = step.point_data;
    mesh.cell_data = step.cell_data;
    mesh.field_data = step.field_data;
    const std::string file = file_name(next_number_);
    if (!folder_.empty()) {
      std::error_code error;
      std::filesystem::create_directories(folder_, error);
      if (error) throw WriteError(pattern_, kName, "cannot create the folder '" + folder_.string() + "': " + error.message());
    }
    write(file, mesh, format_, options_);
    ++next_number_;
    written_.push_back(file);
    times_.push_back(step.time);
  }

  void close() override {
    if (closed_) return;
    if (!index_.empty()) file_sequence::write_sequence_index(index_, written_, times_);
    closed_ = true;
  }

 private:
  std::string file_name(long long number) const {
    return (folder_ / file_sequence::format_number(field_, number)).string();
  }

  std::string pattern_;
  WriteOptions options_;
  std::string index_;
  long long next_number_;
  file_sequence::NumberField field_;
  std::filesystem::path folder_;
  std::string format_;
  Mesh mesh_;
  bool has_mesh_ = false, closed_ = false;
  std::vector<std::string> written_;
  std::vector<double> times_;
};

}  // namespace

std::unique_ptr<TimeSeriesWriter> create_file_sequence(const std::string& pattern, std::string_view format,
                                                       const WriteOptions& options, const std::string& index,
                                                       long long first_number) {
  return std::make_unique<SequenceWriter>(pattern, format, options, index, first_number);
}

}  // namespace meshioplusplus
