// TetGen writer: X.node and X.ele, each through its own temporary file; both are written
// completely before either replaces its target, so a failure leaves both old files.
//
// .node: points (must be 3-D) numbered from 0 (as meshio), then the attributes, then one
// boundary marker column: "tetgen:ref" (else the first point data whose name contains
// ":ref", meshio's pick) when it has one value per point. Every other numeric point data
// with one row per point is an attribute; an (n, k) array gives k attribute columns. The
// names are listed in a comment, as meshio does.
// .ele: every block must be tetra (meshio skips other blocks with a warning; here they are a
// WriteError). All tetra blocks go into one element list (meshio writes a header per block,
// which TetGen cannot read). Region attributes: "tetgen:ref" (else the first ":ref" cell
// data) first, then every other numeric cell data with one row per cell, column by column.
// Field data and regions have no place in TetGen (regions are only reflected through
// "tetgen:ref").
// Node and element lines are formatted on all cores (io/output/parallel_rows.hpp), in file order
// at any thread count.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "formats/tetgen/tetgen.hpp"
#include "formats/tetgen/tetgen_paths.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/float_format.hpp"
#include "io/output/parallel_rows.hpp"

namespace meshioplusplus::tetgen {
namespace {

constexpr std::string_view kFormat = "tetgen";

struct Column {
  std::string name;
  const NDArray* array;
};

bool is_ref_name(std::string_view name) { return name.find(":ref") != std::string_view::npos; }

// Marker first (at most one), then attributes — the point data the .node can carry.
void point_columns(const Mesh& mesh, std::vector<Column>& attrs, std::vector<Column>& markers) {
  const auto fits = [&](const NDArray& array) { return array.ndim() >= 1 && array.rows() == mesh.num_points(); };
  const NDArray* marker = mesh.point_data.find("tetgen:ref");
  std::string marker_name = "tetgen:ref";
  if (marker == nullptr || !fits(*marker) || marker->row_width() != 1) {
    marker = nullptr;
    for (const auto& [name, array] : mesh.point_data)
      if (is_ref_name(name) && fits(array) && array.row_width() == 1) {
        marker = &array;
        marker_name = name;
        break;
      }
  }
  if (marker != nullptr) markers.push_back({marker_name, marker});
  for (const auto& [name, array] : mesh.point_data)
    if (&array != marker && fits(array)) attrs.push_back({name, &array});
}

struct CellColumn {
  std::string name;
  const std::vector<NDArray>* arrays;
};

std::vector<CellColumn> cell_columns(const Mesh& mesh) {
  const auto fits = [&](const std::vector<NDArray>& arrays) {
    if (arrays.size() != mesh.cells.size()) return false;
    for (std::size_t b = 0; b < arrays.size(); ++b)
      if (arrays[b].ndim() < 1 || arrays[b].rows() != mesh.cells[b].num_cells()) return false;
    return true;
  };
  std::vector<CellColumn> columns;
  const std::vector<NDArray>* ref = mesh.cell_data.find("tetgen:ref");
  if (ref != nullptr && fits(*ref)) {
    columns.push_back({"tetgen:ref", ref});
  } else {
    ref = nullptr;
    for (const auto& [name, arrays] : mesh.cell_data)
      if (is_ref_name(name) && fits(arrays)) {
        ref = &arrays;
        columns.push_back({name, ref});
        break;
      }
  }
  for (const auto& [name, arrays] : mesh.cell_data)
    if (&arrays != ref && fits(arrays)) columns.push_back({name, &arrays});
  return columns;
}

std::string name_list(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// Row `row` of `array` at p as io::put_row writes it through an OutputBuffer printing floats as
// `format` (each value after a blank); returns the end.
char* put_array_row(char* p, const NDArray& array, std::int64_t row, const io::FloatFormat& format) {
  visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const std::int64_t width = array.row_width();
    const T* values = static_cast<const T*>(array.data()) + row * width;
    if constexpr (std::is_floating_point_v<T>)
      if (!format.shortest) {
        for (std::int64_t i = 0; i < width; ++i) {
          *p++ = ' ';
          p = io::put_float(p, static_cast<double>(values[i]), format);
        }
        return;
      }
    p = io::put_values(p, values, width);
  });
  return p;
}

// Room for one row of `array` as put_array_row writes it.
std::size_t longest_row(const NDArray& array, const io::FloatFormat& format) {
  return static_cast<std::size_t>(array.row_width()) * (io::max_float_chars(format) + 1);
}

void write_nodes(io::OutputBuffer& out, io::AtomicFile& file, const Mesh& mesh, const io::FloatFormat& format) {
  std::vector<Column> attrs, markers;
  point_columns(mesh, attrs, markers);
  std::int64_t num_attrs = 0;
  std::vector<std::string> names;
  for (const Column& column : attrs) {
    num_attrs += column.array->row_width();
    names.push_back(column.name);
  }
  for (const Column& column : markers) names.push_back(column.name);
  out.text("# written by meshio++\n");
  if (!names.empty()) out.text("# attribute and marker names: " + name_list(names) + "\n");
  out.number(mesh.num_points());
  out.text(" 3 ");
  out.number(num_attrs);
  out.put(' ');
  out.number(static_cast<std::int64_t>(markers.size()));
  out.put('\n');
  std::size_t longest = io::kMaxNumberChars + longest_row(mesh.points, format) + 1;
  for (const Column& column : attrs) longest += longest_row(*column.array, format);
  for (const Column& column : markers) longest += longest_row(*column.array, format);
  io::write_rows_in_parallel(out, file, mesh.num_points(), longest, [&](char* p, std::int64_t i) {
    p = io::put_number(p, i);
    p = put_array_row(p, mesh.points, i, format);
    for (const Column& column : attrs) p = put_array_row(p, *column.array, i, format);
    for (const Column& column : markers) p = put_array_row(p, *column.array, i, format);
    *p++ = '\n';
    return p;
  });
}

void write_elements(io::OutputBuffer& out, io::AtomicFile& file, const Mesh& mesh) {
  const std::vector<CellColumn> columns = cell_columns(mesh);
  std::vector<std::string> names;
  // Widths must agree between blocks for the column count to be one number.
  std::int64_t num_attrs = 0;
  for (const CellColumn& column : columns) {
    names.push_back(column.name);
    const std::int64_t width = column.arrays->empty() ? 1 : column.arrays->front().row_width();
    for (const NDArray& array : *column.arrays)
      if (array.row_width() != width)
        throw std::invalid_argument("cell data '" + column.name + "' has a different width per block");
    num_attrs += width;
  }
  out.text("# written by meshio++\n");
  if (!names.empty()) out.text("# attribute names: " + name_list(names) + "\n");
  out.number(mesh.num_cells());
  out.text(" 4 ");
  out.number(num_attrs);
  out.put('\n');
  const io::FloatFormat shortest;  // the .ele file's numbers: float_fmt is for the .node file
  std::int64_t index = 0;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const std::int64_t* nodes = mesh.cells[b].connectivity.data_as<std::int64_t>();
    std::size_t longest = 5 * (io::kMaxNumberChars + 1) + 1;
    for (const CellColumn& column : columns) longest += longest_row((*column.arrays)[b], shortest);
    io::write_rows_in_parallel(out, file, mesh.cells[b].num_cells(), longest, [&](char* p, std::int64_t row) {
      p = io::put_number(p, index + row);
      for (int k = 0; k < 4; ++k) {
        *p++ = ' ';
        p = io::put_number(p, nodes[row * 4 + k]);
      }
      for (const CellColumn& column : columns) p = put_array_row(p, (*column.arrays)[b], row, shortest);
      *p++ = '\n';
      return p;
    });
    index += mesh.cells[b].num_cells();
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const std::optional<std::string> stem = detail::pair_stem(path);
  if (!stem) throw std::invalid_argument("a TetGen file name ends in .node or .ele");
  if (mesh.points.ndim() != 2 || mesh.points.dim(1) != 3) throw std::invalid_argument("TetGen needs 3-D points");
  for (const CellBlock& block : mesh.cells)
    if (block.type != "tetra") throw std::invalid_argument("TetGen holds tetra cells only, not '" + block.type + "'");

  io::AtomicFile node_file(*stem + ".node", kFormat);
  io::AtomicFile ele_file(*stem + ".ele", kFormat);
  {
    io::OutputBuffer out(node_file);
    const io::FloatFormat float_format = io::parse_float_format(options.get("float_fmt", ""));  // meshio's float_fmt, when given
    out.set_float_format(float_format);
    write_nodes(out, node_file, mesh, float_format);
    out.flush();
  }
  {
    io::OutputBuffer out(ele_file);
    write_elements(out, ele_file, mesh);
    out.flush();
  }
  node_file.commit();
  ele_file.commit();
}

}  // namespace meshioplusplus::tetgen
