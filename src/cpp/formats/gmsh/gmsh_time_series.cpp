// Gmsh MSH as a time series (include/meshioplusplus/time_series.hpp): the steps of the
// post-processing views ($NodeData, $ElementData, $ElementNodeData) with their times.
//
// In the file every data section carries its view name (first string tag), its time (first
// real tag) and its time-step index (first integer tag). gmsh::read names each step's array
// "view[step k]" (time k) or "view[step k, time t]", and a view with one section at step 0,
// time 0 plainly "view" (see gmsh.hpp); this reader undoes that naming:
//   steps       one per distinct time-step index k over all views, ascending; its time is the
//               time the first view holding step k gives it (a plain view: step 0, time 0).
//   read_mesh() points, cells, regions, field data and the "gmsh:*" arrays (dim_tags,
//               physical, geometrical) — no view data.
//   read_step(k) every view's array of step k under the view name; views without step k are
//               absent from it. Cell data is split over the blocks read_mesh() gives.
// MSH sections are not indexed: opening reads the whole file once (as gmsh::read), and steps
// are served from memory.
//
// The writer streams into a temporary file beside the target (MshStream, the pieces of
// gmsh_writer.cpp): write_mesh() the mesh sections as gmsh::write writes them, write_step()
// one data section per array — point data $NodeData, cell data $ElementData (equal widths) or
// $ElementNodeData ((n, nodes per cell, c)) — with the array's name as view name, the step's
// time as real tag and the step index (0, 1, …: the write_step() count) as first integer tag,
// then the component count, the record count and the partition 0. close() renames the file
// over the target. Step field_data has no place in MSH and is not written.
#include "formats/gmsh/gmsh_time_series.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "formats/gmsh/gmsh.hpp"
#include "io/output/series_writer_state.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::gmsh {
namespace {

struct StepName {
  std::string view;
  std::int64_t step = 0;
  double time = 0;
};

bool is_own_array(std::string_view name) { return name.substr(0, 5) == "gmsh:"; }

// "view[step k]" / "view[step k, time t]" as gmsh::read writes them.
std::optional<StepName> parse_step_name(std::string_view name) {
  if (name.empty() || name.back() != ']') return std::nullopt;
  const std::size_t open = name.rfind("[step ");
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  std::string_view inside = name.substr(open + 6, name.size() - open - 7);
  StepName result;
  result.view = std::string(name.substr(0, open));
  const std::size_t comma = inside.find(", time ");
  const std::string_view step_text = inside.substr(0, comma);
  const auto [step_end, step_error] = std::from_chars(step_text.data(), step_text.data() + step_text.size(), result.step);
  if (step_error != std::errc{} || step_end != step_text.data() + step_text.size()) return std::nullopt;
  result.time = static_cast<double>(result.step);
  if (comma != std::string_view::npos) {
    const std::string_view time_text = inside.substr(comma + 7);
    const auto [time_end, time_error] = std::from_chars(time_text.data(), time_text.data() + time_text.size(), result.time);
    if (time_error != std::errc{} || time_end != time_text.data() + time_text.size()) return std::nullopt;
  }
  return result;
}

class SeriesReader : public TimeSeriesReader {
 public:
  explicit SeriesReader(std::string path) : path_(std::move(path)), mesh_(read(path_)) {
    split(mesh_.point_data, point_steps_);
    split(mesh_.cell_data, cell_steps_);
    for (const auto& [step, time] : step_times_) steps_.emplace_back(step, time);
  }

  std::size_t num_steps() const override { return steps_.size(); }
  double time(std::size_t step) const override { return steps_.at(check(step)).second; }

  Mesh read_mesh() override { return mesh_; }

  TimeStep read_step(std::size_t step) override {
    check(step);
    const std::int64_t index = steps_[step].first;
    TimeStep result;
    result.time = steps_[step].second;
    for (const auto& [view, array] : point_steps_[index]) result.point_data.set(view, array);
    for (const auto& [view, arrays] : cell_steps_[index]) result.cell_data.set(view, arrays);
    return result;
  }

 private:
  std::size_t check(std::size_t step) const {
    if (step >= steps_.size())
      throw ReadError(path_, std::string(kFormatName),
                      "step " + std::to_string(step) + " out of range (" + std::to_string(steps_.size()) + " steps)");
    return step;
  }

  // Moves every view array of `data` to `steps` (by time-step index), leaving the mesh's own.
  template <class Value>
  void split(NamedList<Value>& data, std::map<std::int64_t, NamedList<Value>>& steps) {
    std::vector<std::string> stepped_views;
    for (const auto& [name, value] : data)
      if (const std::optional<StepName> parsed = parse_step_name(name)) stepped_views.push_back(parsed->view);
    NamedList<Value> kept;
    for (auto& [name, value] : data) {
      if (is_own_array(name)) {
        kept.set(name, std::move(value));
      } else if (const std::optional<StepName> parsed = parse_step_name(name)) {
        steps[parsed->step].set(parsed->view, std::move(value));
        step_times_.emplace(parsed->step, parsed->time);  // the first view's time for the step
      } else if (std::find(stepped_views.begin(), stepped_views.end(), name) == stepped_views.end()) {
        // A view with one section at step 0, time 0.
        steps[0].set(name, std::move(value));
        step_times_.emplace(0, 0.0);
      }  // else the alias of a stepped view's last step: that step has it already
    }
    data = std::move(kept);
  }

  std::string path_;
  Mesh mesh_;
  std::map<std::int64_t, NamedList<NDArray>> point_steps_;
  std::map<std::int64_t, NamedList<std::vector<NDArray>>> cell_steps_;
  std::map<std::int64_t, double> step_times_;
  std::vector<std::pair<std::int64_t, double>> steps_;
};

class SeriesWriter : public TimeSeriesWriter, private io::SeriesWriterState {
 public:
  // std::invalid_argument comes before any byte (a mesh Gmsh cannot hold): it does not break
  // the writer.
  SeriesWriter(std::string path, const WriteOptions& options)
      : SeriesWriterState(path, kFormatName, /*invalid_argument_writes_nothing=*/true), path_(std::move(path)) {
    try {
      stream_ = std::make_unique<MshStream>(path_, options);
    } catch (const std::invalid_argument& problem) {
      fail(problem.what());
    }
  }

  void write_mesh(const Mesh& mesh) override {
    usable("write_points_cells()");
    if (has_mesh_) fail("write_points_cells() called twice: an MSH file holds one mesh");
    try {
      validate(mesh);
      guarded([&] { stream_->write_mesh(mesh); });
    } catch (const std::invalid_argument& problem) {
      fail(problem.what());
    }
    block_sizes_ = stream_->block_sizes();
    has_mesh_ = true;
  }

  // Every array is checked before the step's first section is written.
  void write_step(const TimeStep& step) override {
    usable("write_data()");
    if (!has_mesh_) fail("write_data() before write_points_cells()");
    const std::string at = "step " + std::to_string(steps_) + ": ";
    for (const auto& [name, array] : step.point_data) {
      if (array.ndim() < 1 || array.rows() != stream_->num_points() || array.row_width() < 1)
        fail(at + "point data '" + name + "' has shape " + shape_text(array.shape()) + ", not one row per point (" +
             std::to_string(stream_->num_points()) + ")");
    }
    for (const auto& [name, arrays] : step.cell_data) {
      if (arrays.size() != block_sizes_.size())
        fail(at + "cell data '" + name + "' has " + std::to_string(arrays.size()) + " arrays for " +
             std::to_string(block_sizes_.size()) + " cell blocks");
      for (std::size_t b = 0; b < arrays.size(); ++b)
        if (arrays[b].ndim() < 1 || arrays[b].rows() != block_sizes_[b])
          fail(at + "cell data '" + name + "' block " + std::to_string(b) + " has shape " + shape_text(arrays[b].shape()) + " for " +
               std::to_string(block_sizes_[b]) + " cells");
      if (!stream_->fits_element_data(arrays))
        fail(at + "cell data '" + name + "' has neither equal widths in every block ($ElementData) nor (nodes per cell) × c values per cell ($ElementNodeData)");
    }
    const auto index = static_cast<std::int64_t>(steps_);
    guarded([&] {
      for (const auto& [name, array] : step.point_data) stream_->write_node_data(name, index, step.time, array);
      for (const auto& [name, arrays] : step.cell_data) stream_->write_element_data(name, index, step.time, arrays);
    });
    ++steps_;
  }

  void close() override {
    if (closed_) return;
    usable("close()");
    if (!has_mesh_) fail("close() before write_points_cells(): an MSH file needs its mesh");
    guarded([&] { stream_->commit(); });
    closed_ = true;
  }

 private:
  std::string path_;
  std::unique_ptr<MshStream> stream_;
  std::vector<std::int64_t> block_sizes_;
  std::size_t steps_ = 0;
  bool has_mesh_ = false;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) {
  return std::make_unique<SeriesReader>(path);
}

std::unique_ptr<TimeSeriesWriter> create_time_series(const std::string& path, const WriteOptions& options) {
  return std::make_unique<SeriesWriter>(path, options);
}

}  // namespace meshioplusplus::gmsh
