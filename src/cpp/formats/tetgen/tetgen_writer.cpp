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
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/tetgen/tetgen.hpp"
#include "formats/tetgen/tetgen_paths.hpp"
#include "io/output/atomic_file.hpp"

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

void write_nodes(io::OutputBuffer& out, const Mesh& mesh) {
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
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
    out.number(i);
    io::put_row(out, mesh.points, i);
    for (const Column& column : attrs) io::put_row(out, *column.array, i);
    for (const Column& column : markers) io::put_row(out, *column.array, i);
    out.put('\n');
  }
}

void write_elements(io::OutputBuffer& out, const Mesh& mesh) {
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
  std::int64_t index = 0;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const std::int64_t* nodes = mesh.cells[b].connectivity.data_as<std::int64_t>();
    for (std::int64_t row = 0; row < mesh.cells[b].num_cells(); ++row, ++index) {
      out.number(index);
      for (int k = 0; k < 4; ++k) {
        out.put(' ');
        out.number(nodes[row * 4 + k]);
      }
      for (const CellColumn& column : columns) io::put_row(out, (*column.arrays)[b], row);
      out.put('\n');
    }
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
    out.set_float_format(io::parse_float_format(options.get("float_fmt", "")));  // meshio's float_fmt, when given
    write_nodes(out, mesh);
    out.flush();
  }
  {
    io::OutputBuffer out(ele_file);
    write_elements(out, mesh);
    out.flush();
  }
  node_file.commit();
  ele_file.commit();
}

}  // namespace meshioplusplus::tetgen
