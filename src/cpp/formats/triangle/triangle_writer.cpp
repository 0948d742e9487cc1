// Triangle writer: X.node + X.ele (+ X.edge when the mesh has line blocks), X.node + X.edge,
// or one X.poly; every file through its own temporary, all written before any replaces its
// target, so a failure leaves the old files.
//
// Points must be 2-D (or 3-D with every z 0, which is dropped), numbered from 0 (Triangle's
// -z numbering; its reader takes the base from the first point). Point data: the boundary
// marker "triangle:ref" when it is an integer array of one value per point; every other
// numeric point data of one row per point is an attribute (an (n, k) array gives k
// columns), in the mesh's order — what the reader gives back. .ele: every triangle block, or
// every triangle6 block (written in Triangle's -o2 node order), not both; regional
// attributes: "triangle:ref" first, then every other numeric cell data, from the triangle
// blocks. .edge / .poly segments: every line block; marker "triangle:ref" when it is
// integer cell data. .poly: field data "triangle:holes" (h, 2) and "triangle:regions"
// (r, 3 or 4) become its hole and region lists (0 holes otherwise). Other cell types (and
// vertex blocks) have no place in Triangle's files: a WriteError names them. The attribute
// names are listed in a comment, as the TetGen writer does.
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/triangle/triangle.hpp"
#include "io/output/atomic_file.hpp"

namespace meshioplusplus::triangle {
namespace {

constexpr std::string_view kFormat = "triangle";

bool is_integer(DType dtype) {
  return dtype == DType::int8 || dtype == DType::int16 || dtype == DType::int32 || dtype == DType::int64 ||
         dtype == DType::uint8 || dtype == DType::uint16 || dtype == DType::uint32 || dtype == DType::uint64;
}
bool is_numeric(DType dtype) { return is_integer(dtype) || dtype == DType::float32 || dtype == DType::float64; }

struct PointColumns {
  std::vector<std::pair<std::string, const NDArray*>> attrs;
  const NDArray* marker = nullptr;
};

PointColumns point_columns(const Mesh& mesh) {
  PointColumns columns;
  const auto fits = [&](const NDArray& array) {
    return array.ndim() >= 1 && array.rows() == mesh.num_points() && is_numeric(array.dtype());
  };
  const NDArray* marker = mesh.point_data.find("triangle:ref");
  if (marker != nullptr && fits(*marker) && marker->row_width() == 1 && is_integer(marker->dtype()))
    columns.marker = marker;
  for (const auto& [name, array] : mesh.point_data)
    if (&array != columns.marker && fits(array)) columns.attrs.push_back({name, &array});
  return columns;
}

void header_comment(io::OutputBuffer& out, const std::vector<std::string>& names, const char* what) {
  out.text("# written by meshio++\n");
  if (names.empty()) return;
  out.text("# ");
  out.text(what);
  out.text(":");
  for (const std::string& name : names) {
    out.put(' ');
    out.text(name);
  }
  out.put('\n');
}

void write_point_section(io::OutputBuffer& out, const Mesh& mesh, const NDArray& points64, bool comment) {
  const PointColumns columns = point_columns(mesh);
  std::int64_t num_attrs = 0;
  std::vector<std::string> names;
  for (const auto& [name, array] : columns.attrs) {
    num_attrs += array->row_width();
    names.push_back(name);
  }
  if (columns.marker) names.push_back("triangle:ref (marker)");
  if (comment) header_comment(out, names, "point attributes");
  out.number(mesh.num_points());
  out.text(" 2 ");
  out.number(num_attrs);
  out.text(columns.marker ? " 1\n" : " 0\n");
  const std::int64_t width = points64.dim(1);
  const double* points = points64.data_as<double>();
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
    out.number(i);
    out.put(' ');
    out.number(points[i * width]);
    out.put(' ');
    out.number(points[i * width + 1]);
    for (const auto& [name, array] : columns.attrs) io::put_row(out, *array, i);
    if (columns.marker) io::put_row(out, *columns.marker, i);
    out.put('\n');
  }
}

// The cell data that fits every block of `kind` as one column set (name, arrays).
std::vector<std::pair<std::string, const std::vector<NDArray>*>> cell_columns(const Mesh& mesh,
                                                                              const std::vector<std::size_t>& blocks,
                                                                              bool integer_ref_only) {
  std::vector<std::pair<std::string, const std::vector<NDArray>*>> columns;
  const auto fits = [&](const std::vector<NDArray>& arrays, bool want_integer) {
    if (arrays.size() != mesh.cells.size()) return false;
    for (const std::size_t b : blocks) {
      const NDArray& array = arrays[b];
      if (array.ndim() < 1 || array.rows() != mesh.cells[b].num_cells() || !is_numeric(array.dtype())) return false;
      if (want_integer && (!is_integer(array.dtype()) || array.row_width() != 1)) return false;
      if (array.row_width() != arrays[blocks.front()].row_width()) return false;
    }
    return true;
  };
  const std::vector<NDArray>* ref = mesh.cell_data.find("triangle:ref");
  if (ref != nullptr && fits(*ref, integer_ref_only)) columns.push_back({"triangle:ref", ref});
  if (integer_ref_only) return columns;
  for (const auto& [name, arrays] : mesh.cell_data)
    if (&arrays != ref && fits(arrays, false)) columns.push_back({name, &arrays});
  return columns;
}

void write_elements(io::OutputBuffer& out, const Mesh& mesh, const std::vector<std::size_t>& blocks, int corners) {
  const auto columns = cell_columns(mesh, blocks, false);
  std::int64_t num_attrs = 0, count = 0;
  std::vector<std::string> names;
  for (const auto& [name, arrays] : columns) {
    num_attrs += (*arrays)[blocks.front()].row_width();
    names.push_back(name);
  }
  for (const std::size_t b : blocks) count += mesh.cells[b].num_cells();
  header_comment(out, names, "regional attributes");
  out.number(count);
  out.text(corners == 6 ? " 6 " : " 3 ");
  out.number(num_attrs);
  out.put('\n');
  // VTK's triangle6 order → Triangle's -o2 (corners, then midpoints of edges 2-3, 3-1, 1-2).
  constexpr std::array<int, 6> kVtkToTriangle6{0, 1, 2, 4, 5, 3};
  std::int64_t index = 0;
  for (const std::size_t b : blocks) {
    const std::int64_t* nodes = mesh.cells[b].connectivity.data_as<std::int64_t>();
    for (std::int64_t row = 0; row < mesh.cells[b].num_cells(); ++row, ++index) {
      out.number(index);
      for (int k = 0; k < corners; ++k) {
        out.put(' ');
        out.number(nodes[row * corners + (corners == 6 ? kVtkToTriangle6[k] : k)]);
      }
      for (const auto& [name, arrays] : columns) io::put_row(out, (*arrays)[b], row);
      out.put('\n');
    }
  }
}

void write_segments(io::OutputBuffer& out, const Mesh& mesh, const std::vector<std::size_t>& blocks) {
  const auto columns = cell_columns(mesh, blocks, true);
  std::int64_t count = 0;
  for (const std::size_t b : blocks) count += mesh.cells[b].num_cells();
  out.number(count);
  out.text(columns.empty() ? " 0\n" : " 1\n");
  std::int64_t index = 0;
  for (const std::size_t b : blocks) {
    const std::int64_t* nodes = mesh.cells[b].connectivity.data_as<std::int64_t>();
    for (std::int64_t row = 0; row < mesh.cells[b].num_cells(); ++row, ++index) {
      out.number(index);
      out.put(' ');
      out.number(nodes[row * 2]);
      out.put(' ');
      out.number(nodes[row * 2 + 1]);
      if (!columns.empty()) io::put_row(out, (*columns.front().second)[b], row);
      out.put('\n');
    }
  }
}

// A field data list of `columns` reals per row (holes: 2; regions: 3 or 4) as a .poly section.
void write_points_list(io::OutputBuffer& out, const Mesh& mesh, const char* name, std::int64_t min_columns,
                       std::int64_t max_columns) {
  const NDArray* array = mesh.field_data.find(name);
  if (array == nullptr) {
    out.text("0\n");
    return;
  }
  if (array->ndim() != 2 || array->dim(1) < min_columns || array->dim(1) > max_columns || !is_numeric(array->dtype()))
    throw std::invalid_argument(std::string("field data '") + name + "' must be (n, " + std::to_string(min_columns) +
                                (min_columns == max_columns ? "" : " or " + std::to_string(max_columns)) + ") numbers");
  out.number(array->rows());
  out.put('\n');
  for (std::int64_t i = 0; i < array->rows(); ++i) {
    out.number(i);
    io::put_row(out, *array, i);
    out.put('\n');
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  std::string stem, ext;
  for (const std::string_view candidate : {".node", ".ele", ".edge", ".poly"}) {
    if (path.size() < candidate.size()) continue;
    std::string tail = path.substr(path.size() - candidate.size());
    for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (tail == candidate) {
      stem = path.substr(0, path.size() - candidate.size());
      ext = candidate;
    }
  }
  if (ext.empty()) throw std::invalid_argument("a Triangle file name ends in .node, .ele, .edge or .poly");
  if (mesh.points.ndim() != 2 || (mesh.points.dim(1) != 2 && mesh.points.dim(1) != 3))
    throw std::invalid_argument("Triangle needs 2-D points");
  const NDArray points64 = mesh.points.astype(DType::float64);
  if (mesh.points.dim(1) == 3) {
    const double* points = points64.data_as<double>();
    for (std::int64_t i = 0; i < mesh.num_points(); ++i)
      if (points[i * 3 + 2] != 0.0)
        throw std::invalid_argument("Triangle needs 2-D points (point " + std::to_string(i) + " has z = " +
                                    std::to_string(points[i * 3 + 2]) + ")");
  }
  std::vector<std::size_t> triangles, triangle6, lines;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const std::string& type = mesh.cells[b].type;
    if (type == "triangle") triangles.push_back(b);
    else if (type == "triangle6") triangle6.push_back(b);
    else if (type == "line") lines.push_back(b);
    else throw std::invalid_argument("Triangle holds triangle, triangle6 and line cells, not '" + type + "'");
  }
  if (!triangles.empty() && !triangle6.empty())
    throw std::invalid_argument("Triangle's .ele holds 3-node or 6-node triangles, not both");
  const bool six = !triangle6.empty();
  const std::vector<std::size_t>& elements = six ? triangle6 : triangles;
  if ((ext == ".poly" || ext == ".edge") && !elements.empty())
    throw std::invalid_argument("a Triangle " + ext + " holds segments (line cells) only; write triangles to .node/.ele");
  const io::FloatFormat float_format = io::parse_float_format(options.get("float_fmt", ""));

  if (ext == ".poly") {
    io::AtomicFile poly(path, kFormat);
    io::OutputBuffer out(poly);
    out.set_float_format(float_format);
    write_point_section(out, mesh, points64, true);
    write_segments(out, mesh, lines);
    write_points_list(out, mesh, "triangle:holes", 2, 2);
    if (mesh.field_data.find("triangle:regions")) write_points_list(out, mesh, "triangle:regions", 3, 4);
    out.flush();
    poly.commit();
    return;
  }
  io::AtomicFile node_file(stem + ".node", kFormat);
  {
    io::OutputBuffer out(node_file);
    out.set_float_format(float_format);
    write_point_section(out, mesh, points64, true);
    out.flush();
  }
  std::optional<io::AtomicFile> ele_file, edge_file;
  if (ext != ".edge") {
    ele_file.emplace(stem + ".ele", kFormat);
    io::OutputBuffer out(*ele_file);
    out.set_float_format(float_format);
    write_elements(out, mesh, elements, six ? 6 : 3);
    out.flush();
  }
  if (ext == ".edge" || !lines.empty()) {
    edge_file.emplace(stem + ".edge", kFormat);
    io::OutputBuffer out(*edge_file);
    out.text("# written by meshio++\n");
    write_segments(out, mesh, lines);
    out.flush();
  }
  node_file.commit();
  if (ele_file) ele_file->commit();
  if (edge_file) edge_file->commit();
}

}  // namespace meshioplusplus::triangle
