// An EnSight Gold variable file (per node or per element; scalar, vector, symmetric or
// asymmetric tensor) over a geometry's parts (ensight_internal.hpp: read_variable).
#include <cmath>
#include <limits>

#include "formats/ensight/ensight_internal.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ensight {
namespace {

// A part's values as the file stores them (component-major, optionally `undef` or `partial`)
// into `out` (rows, components), NaN where undefined. `rows` values per component unless
// partial; `kept` (optional) picks the rows kept of a structured block's cells.
template <class T>
void read_values(Stream& stream, const std::string& keyword, int components, std::int64_t rows, T* out,
                 const std::vector<std::int64_t>* kept, std::int64_t file_rows) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const bool undef = keyword.find("undef") != std::string::npos;
  const bool partial = keyword.find("partial") != std::string::npos;
  double undefined = 0;
  if (undef) stream.read_doubles(&undefined, 1);
  std::vector<std::int64_t> listed;
  std::int64_t stored_rows = rows;
  if (kept) stored_rows = file_rows;
  if (partial) {
    const std::int64_t count = stream.read_int();
    if (count < 0 || count > stored_rows) stream.fail("a partial count outside the part's size");
    std::vector<std::int32_t> one_based(static_cast<std::size_t>(count));
    stream.read_ints(one_based.data(), one_based.size());
    for (std::int32_t index : one_based) {
      if (index < 1 || index > stored_rows) stream.fail("a partial index outside the part's size");
      listed.push_back(index - 1);
    }
  }
  const std::int64_t values_per_component = partial ? static_cast<std::int64_t>(listed.size()) : stored_rows;
  io::check_claim_fits_file(stream.path(), kFormat, "values", static_cast<std::uint64_t>(values_per_component) * components,
                            1, stream.values_left(4) + 1, {stream.offset(), std::nullopt});
  std::fill(out, out + rows * components, nan);
  // The file's row r (all of a block's cells, blanked ones too) lands at row `target[r]` of
  // `out`, or nowhere (-1).
  std::vector<std::int64_t> target;
  if (kept) {
    target.assign(static_cast<std::size_t>(stored_rows), -1);
    for (std::size_t row = 0; row < static_cast<std::size_t>(rows); ++row) target[static_cast<std::size_t>((*kept)[row])] = static_cast<std::int64_t>(row);
  }
  std::vector<double> column(static_cast<std::size_t>(values_per_component));
  for (int component = 0; component < components; ++component) {
    stream.read_doubles(column.data(), column.size());
    for (std::int64_t k = 0; k < values_per_component; ++k) {
      std::int64_t row = partial ? listed[static_cast<std::size_t>(k)] : k;
      if (kept) row = target[static_cast<std::size_t>(row)];
      if (row < 0) continue;
      const double value = column[static_cast<std::size_t>(k)];
      out[row * components + component] = undef && value == undefined ? nan : static_cast<T>(value);
    }
  }
}

NDArray values_array(DType dtype, std::int64_t rows, int components) {
  return NDArray::allocate(dtype, components == 1 ? Shape{rows} : Shape{rows, components});
}

template <class T>
std::vector<PartValues> read_all(Stream& stream, const Geometry& geometry, const CaseVariable& variable, DType dtype) {
  const int components = variable.components();
  std::vector<PartValues> result(geometry.parts.size());
  std::string keyword = stream.at_end() ? std::string() : stream.read_keyword();
  while (!keyword.empty() && !keyword.starts_with("END TIME STEP")) {
    if (!keyword.starts_with("part")) stream.fail("'part' expected, found '" + keyword + "'");
    const std::int64_t number = stream.read_int();
    std::size_t index = 0;
    while (index < geometry.parts.size() && geometry.parts[index].number != number) ++index;
    if (index == geometry.parts.size()) stream.fail("part " + std::to_string(number) + " is not in the geometry");
    const Part& part = geometry.parts[index];
    PartValues& values = result[index];
    keyword = stream.read_keyword();
    if (variable.site == VariableSite::node) {
      if (!keyword.starts_with("coordinates") && !keyword.starts_with("block"))
        stream.fail("'coordinates' or 'block' expected in part " + std::to_string(number));
      values.node_values = values_array(dtype, part.num_points(), components);
      read_values(stream, keyword, components, part.num_points(), values.node_values.template data_as<T>(), nullptr,
                  0);
      keyword = stream.at_end() ? std::string() : stream.read_keyword();
      continue;
    }
    values.section_values.resize(part.sections.size());
    std::vector<bool> used(part.sections.size(), false);
    while (!keyword.empty() && !keyword.starts_with("part") && !keyword.starts_with("END TIME STEP")) {
      const std::string type = keyword.substr(0, keyword.find(' '));
      std::size_t section = 0;
      while (section < part.sections.size() && (used[section] || part.sections[section].type != type)) ++section;
      if (section == part.sections.size())
        stream.fail("element type '" + type + "' is not in part " + std::to_string(number) + " of the geometry");
      used[section] = true;
      const Section& cells = part.sections[section];
      values.section_values[section] = values_array(dtype, cells.block.num_cells(), components);
      read_values(stream, keyword, components, cells.block.num_cells(),
                  values.section_values[section].template data_as<T>(),
                  cells.file_cells != cells.block.num_cells() ? &cells.kept_cells : nullptr, cells.file_cells);
      keyword = stream.at_end() ? std::string() : stream.read_keyword();
    }
  }
  return result;
}

}  // namespace

std::vector<PartValues> read_variable(const std::string& path, std::optional<std::int64_t> step_in_file,
                                      const Geometry& geometry, const CaseVariable& variable) {
  const io::MappedFile file(path, kFormat);
  Stream stream(file.bytes(), path, geometry.encoding);
  if (step_in_file) stream.seek_step(*step_in_file);
  stream.read_line();  // the description
  // Binary files hold float32 (kept as they are); ASCII values are parsed into float64.
  if (stream.encoding() == Encoding::ascii) return read_all<double>(stream, geometry, variable, DType::float64);
  return read_all<float>(stream, geometry, variable, DType::float32);
}

}  // namespace meshioplusplus::ensight
