// AVS-UCD writer (ASCII), laid out as meshio and LaGriT write it: ids 1..n, "label, real".
//
// Material: cell data "avsucd:material" when it is an integer array; otherwise, as meshio, the
// first integer cell data array (read back under the name "avsucd:material"); otherwise 0.
// Every point data array becomes a node field and every other cell data array a cell field,
// with as many components as the array has values per row; numbers are written in their
// shortest round-trip form (meshio writes 15 significant digits), so float64 data comes back
// bit-exact — as float64, whatever dtype it had. 2-D points get z = 0.
//
// Refused (std::invalid_argument): cell types AVS-UCD has no name for (polygon, quadratic …),
// points that are not 2-D or 3-D, data names holding ',' or a line break (they end a label).
// Not written: field data and regions (AVS-UCD has no slot for them).
// Node, cell and data lines are formatted on all cores (io/output/parallel_rows.hpp), in file
// order at any thread count.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/avsucd/avsucd.hpp"
#include "formats/avsucd/avsucd_cells.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/cells/integer_cell_data.hpp"

namespace meshioplusplus::avsucd {
namespace {

constexpr std::string_view kFormat = "avsucd";

using detail::kCellTypes;

void check_label(std::string_view name) {
  if (name.empty() || name.find_first_of(",\n\r") != std::string_view::npos)
    throw std::invalid_argument("AVS-UCD data labels cannot be empty or hold ',' or a line break: '" + std::string(name) + "'");
}

// Row `row` of `array` at p as io::put_row writes it (each value after a blank); returns the end.
char* put_array_row(char* p, const NDArray& array, std::int64_t row) {
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const std::int64_t width = array.row_width();
    p = io::put_values(p, static_cast<const T*>(array.data()) + row * width, width);
  });
  return p;
}

// "nfields c1 … cn", the labels, then one row per entity: its id and every field's values.
// `locate(f, i)` yields the array holding entity i's values of field f and its row there; it
// runs on several threads at once.
template <class RowLocator>
void write_data_block(io::OutputBuffer& out, io::AtomicFile& file, const std::vector<std::string_view>& labels,
                      const std::vector<std::int64_t>& widths, std::int64_t entities, const RowLocator& locate) {
  out.number(static_cast<std::int64_t>(labels.size()));
  for (std::int64_t width : widths) {
    out.put(' ');
    out.number(width);
  }
  out.put('\n');
  for (std::string_view label : labels) {
    out.text(label);
    out.text(", real\n");
  }
  std::int64_t values = 0;
  for (std::int64_t width : widths) values += width;
  const auto longest = static_cast<std::size_t>(1 + values) * (io::kMaxNumberChars + 1) + 1;
  io::write_rows_in_parallel(out, file, entities, longest, [&](char* p, std::int64_t i) {
    p = io::put_number(p, i + 1);
    for (std::size_t f = 0; f < labels.size(); ++f) {
      const auto [array, row] = locate(f, i);
      p = put_array_row(p, *array, row);
    }
    *p++ = '\n';
    return p;
  });
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || (mesh.points.dim(1) != 2 && mesh.points.dim(1) != 3))
    throw std::invalid_argument("AVS-UCD needs 2-D or 3-D points");
  std::vector<int> types;
  for (const CellBlock& block : mesh.cells) {
    const int type = detail::find_by_name(block.type);
    if (type < 0)
      throw std::invalid_argument("AVS-UCD holds vertex, line, triangle, quad, tetra, pyramid, wedge and hexahedron cells, not '" +
                                  block.type + "'");
    types.push_back(type);
  }
  std::string_view material_name;
  const std::vector<NDArray>* material = io::per_cell_integers(mesh, detail::kMaterial, &material_name);

  std::vector<std::string_view> point_labels, cell_labels;
  std::vector<std::int64_t> point_widths, cell_widths;
  std::vector<const NDArray*> point_arrays;
  std::vector<const std::vector<NDArray>*> cell_arrays;
  for (const auto& [name, array] : mesh.point_data) {
    check_label(name);
    point_labels.push_back(name);
    point_widths.push_back(array.row_width());
    point_arrays.push_back(&array);
  }
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (material != nullptr && name == material_name) continue;
    check_label(name);
    const std::int64_t width = arrays.empty() ? 1 : arrays.front().row_width();
    for (const NDArray& array : arrays)
      if (array.row_width() != width)
        throw std::invalid_argument("cell data '" + name + "' has a different number of components per block");
    cell_labels.push_back(name);
    cell_widths.push_back(width);
    cell_arrays.push_back(&arrays);
  }
  const auto sum = [](const std::vector<std::int64_t>& v) {
    std::int64_t total = 0;
    for (std::int64_t x : v) total += x;
    return total;
  };

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.text("# written by meshio++\n");
  const std::int64_t num_points = mesh.num_points();
  const std::int64_t num_cells = mesh.num_cells();
  for (std::int64_t count : {num_points, num_cells, sum(point_widths), sum(cell_widths)}) {
    out.number(count);
    out.put(' ');
  }
  out.text("0\n");

  const bool pad_z = mesh.points.dim(1) == 2;
  io::write_rows_in_parallel(out, file, num_points, 5 * (io::kMaxNumberChars + 1), [&](char* p, std::int64_t i) {
    p = io::put_number(p, i + 1);
    p = put_array_row(p, mesh.points, i);
    if (pad_z) p = io::put_text(p, " 0");
    *p++ = '\n';
    return p;
  });

  std::int64_t id = 0;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const auto& info = kCellTypes[static_cast<std::size_t>(types[b])];
    const CellBlock& block = mesh.cells[b];
    const std::int64_t* corners = block.connectivity.data_as<std::int64_t>();
    const std::size_t longest = (3 + static_cast<std::size_t>(info.num_nodes)) * (io::kMaxNumberChars + 1) + std::string_view(info.ucd_name).size();
    io::write_rows_in_parallel(out, file, block.num_cells(), longest, [&](char* p, std::int64_t cell) {
      p = io::put_number(p, id + cell + 1);
      *p++ = ' ';
      p = io::put_number(p, material != nullptr ? io::integer_at((*material)[b], cell) : std::int64_t{0});
      *p++ = ' ';
      p = io::put_text(p, info.ucd_name);
      for (int k = 0; k < info.num_nodes; ++k) {
        *p++ = ' ';
        p = io::put_number(p, corners[cell * info.num_nodes + info.to_ucd[k]] + 1);
      }
      *p++ = '\n';
      return p;
    });
    id += block.num_cells();
  }

  if (!point_labels.empty())
    write_data_block(out, file, point_labels, point_widths, num_points,
                     [&](std::size_t f, std::int64_t i) { return std::pair{point_arrays[f], i}; });
  if (!cell_labels.empty()) {
    // Global cell number -> (block, row): the last block starting at or before it (empty blocks
    // share their start with the next one, upper_bound steps past them).
    std::vector<std::int64_t> starts;
    std::int64_t start = 0;
    for (const CellBlock& block : mesh.cells) {
      starts.push_back(start);
      start += block.num_cells();
    }
    write_data_block(out, file, cell_labels, cell_widths, num_cells, [&](std::size_t f, std::int64_t i) {
      const auto block = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), i) - starts.begin()) - 1;
      return std::pair{&(*cell_arrays[f])[block], i - starts[block]};
    });
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::avsucd
