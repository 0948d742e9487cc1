// MED as a time series (include/meshioplusplus/time_series.hpp): the time steps of the CHA
// fields with their times.
//
// In the file each field /CHA/<name> holds one group per computation step, with attributes
// NDT (time-step number), NOR (iteration number) and PDT (time). A series is that of one mesh
// (the first, or the one named: ReadOptions) and of the fields defined on it (med_meshes.hpp).
// Opening reads only these attributes:
//   steps        one per distinct (NDT, NOR) over all fields, ascending; time = PDT of the
//                first field holding it (exact, not the 6 digits med::read puts in names).
//   read_mesh()  points, cells, families ("point_tags"/"cell_tags"), groups — no field.
//   read_step(k) every field that has step k, under the field's name: point data (NOE) or
//                cell data split over the blocks (NaN where the field does not cover a block).
// The arrays come from med::read (one pass over the file, made on the first read_mesh() or
// read_step() and kept), which names them "<name>[<i>] - <time>" when a field has several steps.
//
// The writer (MedStream, the pieces of med_writer.cpp) writes the mesh as med::write does on
// write_mesh(), then per write_step() one computation step in each field the step has:
// /CHA/<name>/<NDT as %020d><NOR as %020d> with NDT = the step index (0, 1, …), NOR = -1 (no
// iteration, MED_NO_IT), PDT = the time, RDT/ROR = -1 (the mesh's own step) — the group names
// the MED library gives, sorted by NDT as meshio and this reader sort them. The HDF5 file
// grows step by step beside the target and replaces it on close(). Step field_data has no
// place in MED and is not written.
#include "formats/med/med_time_series.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "formats/med/med.hpp"
#include "formats/med/med_meshes.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "io/output/series_writer_state.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::med {
namespace {

constexpr std::string_view kFormat = "med";

using StepKey = std::pair<std::int64_t, std::int64_t>;  // (NDT, NOR)

struct FieldStep {
  std::string field;
  std::string array_name;  // as med::read names the step's array
};

class SeriesReader : public TimeSeriesReader {
 public:
  SeriesReader(std::string path, const ReadOptions& options) : path_(std::move(path)) {
    const io::hdf5::File file = io::hdf5::File::open(path_, kFormat);
    options_.mesh_name = chosen_mesh(file, options.mesh_name);  // a ReadError listing the meshes
    std::map<StepKey, double> times;
    for (const std::string& field : fields_on(file, options_.mesh_name)) {
      const std::string field_path = "/CHA/" + field;
      const std::vector<std::string> steps = file.children(field_path);
      for (std::size_t s = 0; s < steps.size(); ++s) {
        const std::string step_path = field_path + "/" + steps[s];
        const StepKey key{file.integer_attribute(step_path, "NDT").value_or(static_cast<std::int64_t>(s)),
                          file.integer_attribute(step_path, "NOR").value_or(file.integer_attribute(step_path, "NUO").value_or(0))};
        const double time = file.float_attribute(step_path, "PDT").value_or(0.0);
        times.emplace(key, time);  // the first field's time for the step
        std::string name = field;
        if (steps.size() > 1) {  // as med::read names it (meshio's "{t:g}")
          char text[64];
          const auto printed = std::to_chars(text, text + sizeof text, time, std::chars_format::general, 6);
          name += "[" + std::to_string(s) + "] - " + std::string(text, printed.ptr);
        }
        fields_[key].push_back({field, std::move(name)});
        field_names_.push_back(fields_[key].back().array_name);
      }
    }
    for (const auto& [key, time] : times) steps_.emplace_back(key, time);
  }

  std::size_t num_steps() const override { return steps_.size(); }
  double time(std::size_t step) const override { return steps_.at(check(step)).second; }

  Mesh read_mesh() override {
    Mesh mesh = whole();
    NamedList<NDArray> point_data;
    for (const auto& [name, array] : mesh.point_data)
      if (!is_field(name)) point_data.set(name, array);
    NamedList<std::vector<NDArray>> cell_data;
    for (const auto& [name, arrays] : mesh.cell_data)
      if (!is_field(name)) cell_data.set(name, arrays);
    mesh.point_data = std::move(point_data);
    mesh.cell_data = std::move(cell_data);
    return mesh;
  }

  TimeStep read_step(std::size_t step) override {
    check(step);
    const Mesh& mesh = whole();
    TimeStep result;
    result.time = steps_[step].second;
    for (const FieldStep& entry : fields_.at(steps_[step].first)) {
      if (const NDArray* array = mesh.point_data.find(entry.array_name)) result.point_data.set(entry.field, *array);
      if (const std::vector<NDArray>* arrays = mesh.cell_data.find(entry.array_name))
        result.cell_data.set(entry.field, *arrays);
    }
    return result;
  }

 private:
  std::size_t check(std::size_t step) const {
    if (step >= steps_.size())
      throw ReadError(path_, std::string(kFormat),
                      "step " + std::to_string(step) + " out of range (" + std::to_string(steps_.size()) + " steps)");
    return step;
  }

  bool is_field(const std::string& name) const {
    return std::find(field_names_.begin(), field_names_.end(), name) != field_names_.end();
  }

  const Mesh& whole() {
    if (!mesh_) mesh_ = read(path_, options_);
    return *mesh_;
  }

  std::string path_;
  ReadOptions options_;  // the mesh, by name
  std::map<StepKey, std::vector<FieldStep>> fields_;
  std::vector<std::string> field_names_;
  std::vector<std::pair<StepKey, double>> steps_;
  std::optional<Mesh> mesh_;
};

class SeriesWriter : public TimeSeriesWriter, private io::SeriesWriterState {
 public:
  explicit SeriesWriter(std::string path)
      : SeriesWriterState(path, kFormat), path_(std::move(path)), stream_(std::make_unique<MedStream>(path_)) {}

  void write_mesh(const Mesh& mesh) override {
    usable("write_points_cells()");
    if (has_mesh_) fail("write_points_cells() called twice: this writer's MED file holds one mesh");
    try {
      validate(mesh);
    } catch (const std::invalid_argument& problem) {
      fail(problem.what());
    }
    stream_->check_mesh(mesh);
    guarded([&] { stream_->write_mesh(mesh); });
    has_mesh_ = true;
  }

  void write_step(const TimeStep& step) override {
    usable("write_data()");
    if (!has_mesh_) fail("write_data() before write_points_cells()");
    stream_->check_fields(step.point_data, step.cell_data, "step " + std::to_string(steps_) + ": ");
    const ComputationStep at{static_cast<std::int64_t>(steps_), -1, step.time};
    guarded([&] { stream_->write_fields(step.point_data, step.cell_data, at); });
    ++steps_;
  }

  void close() override {
    if (closed_) return;
    usable("close()");
    if (!has_mesh_) fail("close() before write_points_cells(): a MED file needs its mesh");
    guarded([&] { stream_->commit(); });
    closed_ = true;
  }

 private:
  std::string path_;
  std::unique_ptr<MedStream> stream_;
  std::size_t steps_ = 0;
  bool has_mesh_ = false;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return open_time_series(path, {}); }

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path, const ReadOptions& options) {
  return std::make_unique<SeriesReader>(path, options);
}

std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions&) {
  return std::make_unique<SeriesWriter>(path);
}

}  // namespace meshioplusplus::med
