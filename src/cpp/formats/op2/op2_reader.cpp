// Nastran OP2 reader: op2.hpp says what becomes what; op2_records.cpp reads the record
// structure, op2_geometry.cpp the mesh, op2_results.cpp the steps.
//
// Opening a time series maps the file, walks its record markers (no payload is read but the
// table-3 headers), reads GEOM1/GEOM2 and LAMA; read_step(k) reads only step k's data records.
#include <memory>
#include <string>

#include "io/cells/nastran_blocks.hpp"
#include "formats/op2/op2.hpp"
#include "formats/op2/op2_internal.hpp"
#include "formats/op2/op2_results.hpp"

namespace meshioplusplus::op2 {
namespace {

using namespace detail;

class SeriesReader final : public TimeSeriesReader {
 public:
  explicit SeriesReader(const std::string& path)
      : file_(scan(path)), geometry_(read_geometry(file_)), steps_(find_steps(file_)), eigenvalues_(eigenvalues(file_)) {}

  std::size_t num_steps() const override { return steps_.size(); }
  double time(std::size_t step) const override { return checked(step).time; }

  Mesh read_mesh() override {
    Mesh mesh = deep_copy(geometry_.mesh);
    if (!eigenvalues_.empty()) {
      NDArray values = NDArray::allocate(DType::float64, {static_cast<std::int64_t>(eigenvalues_.size())});
      std::copy(eigenvalues_.begin(), eigenvalues_.end(), values.data_as<double>());
      mesh.field_data.append_new("nastran:eigenvalues", std::move(values));
    }
    return mesh;
  }

  TimeStep read_step(std::size_t step) override { return detail::read_step(file_, geometry_, checked(step)); }

 private:
  const Step& checked(std::size_t step) const {
    if (step >= steps_.size())
      throw ReadError(file_.path, std::string(kFormat), "time step " + std::to_string(step) + " out of range (the file has " +
                                                            std::to_string(steps_.size()) + ")");
    return steps_[step];
  }

  File file_;
  Geometry geometry_;
  std::vector<Step> steps_;
  std::vector<double> eigenvalues_;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<SeriesReader>(path); }

Mesh read(const std::string& path) {
  SeriesReader reader(path);
  return io::nastran_mesh_with_first_step(reader);
}

}  // namespace meshioplusplus::op2
