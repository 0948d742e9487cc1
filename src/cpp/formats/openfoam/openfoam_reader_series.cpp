// An OpenFOAM case as a time series: one step per time directory (by ascending time, "0"
// included), read lazily. Opening reads the mesh (constant/polyMesh, or the processors'); a step
// reads only its time directory's fields (and a moving mesh's points). read_mesh() gives the mesh
// with the points of the step read last (before any, step 0's): a moving mesh's points follow
// the steps as in VTK's reader.
#include <memory>

#include "formats/openfoam/openfoam.hpp"
#include "formats/openfoam/openfoam_internal.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::openfoam {
namespace {

class SeriesReader final : public TimeSeriesReader {
 public:
  explicit SeriesReader(const std::string& path)
      : layout_(detail::locate_case(path)), mesh_(detail::assemble_case(layout_)), times_(detail::case_times(mesh_)) {}

  std::size_t num_steps() const override { return times_.size(); }
  double time(std::size_t step) const override {
    check(step);
    return times_[step].value;
  }
  Mesh read_mesh() override {
    if (!points_known_) {
      if (!times_.empty()) current_points_ = detail::points_at(mesh_, times_, 0);
      points_known_ = true;
    }
    Mesh mesh = deep_copy(mesh_.mesh);
    if (current_points_) mesh.points = current_points_->copy();
    return mesh;
  }
  TimeStep read_step(std::size_t step) override {
    check(step);
    detail::TimeFields fields = detail::read_time(mesh_, times_[step].name);
    current_points_ = detail::points_at(mesh_, times_, step);
    points_known_ = true;
    TimeStep out;
    out.time = times_[step].value;
    out.point_data = std::move(fields.point_data);
    out.cell_data = std::move(fields.cell_data);
    return out;
  }

 private:
  void check(std::size_t step) const {
    if (step >= times_.size())
      throw ReadError(layout_.entry, std::string(kFormat),
                      "time step " + std::to_string(step) + " out of range (the case has " + std::to_string(times_.size()) +
                          " time directories)");
  }

  detail::CaseLayout layout_;
  detail::CaseMesh mesh_;
  std::vector<detail::TimeDir> times_;
  std::optional<NDArray> current_points_;
  bool points_known_ = false;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<SeriesReader>(path); }

}  // namespace meshioplusplus::openfoam
