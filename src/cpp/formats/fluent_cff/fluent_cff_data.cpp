// Fluent CFF data file (.dat.h5): the solution that goes with a case.
//
// Layout (as Fluent writes it and VTK's vtkFLUENTCFFReader reads it): /results/1/phase-<n>
// (n = 1, 2, … one group per phase of a multiphase model) holds cells/fields, one string of
// the cell fields' names joined by ';' (Fluent's names: SV_P pressure, SV_U/SV_V/SV_W velocity,
// SV_T temperature, SV_Y mass fractions …), and per field cells/<name>/<section>: the values of
// cells minId..maxId, (rows,) for a scalar, (rows, k) for k components.
// What becomes what: each cell field becomes cell data, named as VTK names it: <name> for
// phase 1, "phase_<n-1>-<name>" for phase n > 1; its dtype as stored (float64, float32 for a
// single-precision run; other types become float64), every component kept; cells no section
// covers (a field of some zones only) get NaN.
// Not read: face fields (phase-<n>/faces: boundary values, fluxes), residuals, settings.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "formats/fluent_cff/fluent_cff_internal.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::fluent_cff {

namespace {

using io::hdf5::File;

std::vector<std::string> field_names(const File& file, const std::string& fields_path) {
  std::vector<std::string> names;
  const std::vector<std::string> joined = file.read_strings(fields_path);
  for (const std::string& text : joined) {
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find(';', start);
      if (end == std::string::npos) end = text.size();
      if (end > start) names.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  }
  return names;
}

template <class T>
void place(const std::vector<Section>& parts, const std::vector<NDArray>& pieces, std::int64_t row_width, NDArray& values) {
  T* out = values.data_as<T>();
  std::fill(out, out + values.size(), std::numeric_limits<T>::quiet_NaN());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const std::span<const T> piece = pieces[p].values<T>();
    std::copy(piece.begin(), piece.end(), out + parts[p].first * row_width);
  }
}

// One field over all cells (file order): its sections read first (their sizes are checked
// against the file), then placed by id into an array NaN elsewhere.
NDArray read_field(const File& file, const std::string& field_path, std::int64_t num_cells) {
  const std::vector<Section> parts = sections_of(file, field_path, num_cells);
  check_coverage(file, field_path, parts, num_cells, /*tile=*/false);
  std::vector<NDArray> pieces;
  DType dtype = DType::float64;
  std::int64_t width = -1;  // -1: scalar (1-D)
  for (const Section& part : parts) {
    const io::hdf5::DatasetInfo info = file.dataset_info(part.path);
    if (info.compound || info.string || info.shape.empty() || info.shape.size() > 2 || info.shape[0] != part.count)
      file.fail(part.path, "expected " + std::to_string(part.count) + " rows of numbers");
    const std::int64_t part_width = info.shape.size() == 2 ? info.shape[1] : -1;
    if (pieces.empty()) {
      dtype = info.dtype == DType::float32 ? DType::float32 : DType::float64;
      width = part_width;
    } else if (part_width != width) {
      file.fail(part.path, "has a different number of components than the field's other sections");
    }
    pieces.push_back(file.read(part.path, dtype));
  }
  const std::int64_t row_width = width < 0 ? 1 : width;
  io::check_claim_fits_limit(file.path(), kFormat, field_path, static_cast<std::uint64_t>(num_cells),
                             static_cast<std::uint64_t>(row_width) * dtype_size(dtype));
  NDArray values = width < 0 ? NDArray::allocate(dtype, {num_cells}) : NDArray::allocate(dtype, {num_cells, width});
  if (dtype == DType::float32)
    place<float>(parts, pieces, row_width, values);
  else
    place<double>(parts, pieces, row_width, values);
  return values;
}

}  // namespace

void read_solution(const std::string& data_path, const io::FaceCells& cells, std::int64_t num_cells, Mesh& mesh) {
  const File file = File::open(data_path, kFormat);
  if (file.kind("/results/1") != io::hdf5::ObjectKind::group)
    file.fail("/results/1", "is missing: not a Fluent CFF data file");
  for (int phase = 1;; ++phase) {
    const std::string phase_path = "/results/1/phase-" + std::to_string(phase);
    if (!file.exists(phase_path)) break;
    const std::string cells_path = phase_path + "/cells";
    if (!file.exists(cells_path + "/fields")) continue;  // a phase with face values only
    const std::string prefix = phase == 1 ? std::string() : "phase_" + std::to_string(phase - 1) + "-";
    for (const std::string& name : field_names(file, cells_path + "/fields")) {
      NDArray values = read_field(file, cells_path + "/" + name, num_cells);
      mesh.cell_data.set(prefix + name, io::cell_values_by_block(cells, values));
    }
  }
}

}  // namespace meshioplusplus::fluent_cff
