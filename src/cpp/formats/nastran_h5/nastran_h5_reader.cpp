// MSC Nastran HDF5 reader: nastran_h5.hpp says what becomes what; nastran_h5_model.cpp reads
// the model, nastran_h5_results.cpp the steps.
//
// Opening a time series opens the file through io/hdf5, reads the model, the result tables'
// indexes and DOMAINS; read_step(k) reads only step k's rows of each table.
#include <memory>
#include <string>

#include "io/cells/nastran_blocks.hpp"
#include "formats/nastran_h5/nastran_h5.hpp"
#include "formats/nastran_h5/nastran_h5_internal.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::nastran_h5 {
namespace {

using namespace detail;

class SeriesReader final : public TimeSeriesReader {
 public:
  explicit SeriesReader(const std::string& path)
      : file_(io::hdf5::File::open(path, kFormat)), model_(read_model(file_)), results_(find_results(file_)) {}

  std::size_t num_steps() const override { return results_.steps.size(); }
  double time(std::size_t step) const override { return checked(step).time; }

  Mesh read_mesh() override {
    Mesh mesh = deep_copy(model_.mesh);
    const std::vector<double>& eigenvalues = results_.eigenvalues;
    if (!eigenvalues.empty()) {
      NDArray values = NDArray::allocate(DType::float64, {static_cast<std::int64_t>(eigenvalues.size())});
      std::copy(eigenvalues.begin(), eigenvalues.end(), values.data_as<double>());
      mesh.field_data.append_new("nastran:eigenvalues", std::move(values));
    }
    return mesh;
  }

  TimeStep read_step(std::size_t step) override { return detail::read_step(file_, model_, results_, checked(step)); }

 private:
  const Step& checked(std::size_t step) const {
    if (step >= results_.steps.size())
      throw ReadError(file_.path(), std::string(kFormat),
                      "time step " + std::to_string(step) + " out of range (the file has " +
                          std::to_string(results_.steps.size()) + ")");
    return results_.steps[step];
  }

  io::hdf5::File file_;
  Model model_;
  Results results_;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<SeriesReader>(path); }

Mesh read(const std::string& path) {
  SeriesReader reader(path);
  return io::nastran_mesh_with_first_step(reader);
}

}  // namespace meshioplusplus::nastran_h5
