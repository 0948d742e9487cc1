// Tecplot ASCII writer: one finite-element zone, BLOCK packing, laid out as meshio writes it.
//
// Variables: X, Y[, Z], then every point data array (one variable per component: "name" for
// one, "name_0", "name_1" … for several), then every cell data array the same way, declared
// CELLCENTERED through VARLOCATION. Values are written 20 per line in their shortest
// round-trip form, so float64 comes back bit-exact (as float64, whatever the dtype was).
//
// Zone type: one cell type → its own (FELINESEG, FETRIANGLE, FEQUADRILATERAL, FETETRAHEDRON,
// FEBRICK; pyramids and wedges as bricks with repeated nodes, as meshio). Several types of one
// dimension → FEQUADRILATERAL (triangles repeat their last node) or FEBRICK (tetrahedra,
// pyramids and wedges repeat nodes); reading such a file back gives quads or hexahedra, as in
// meshio. Refused (std::invalid_argument): other cell types, lines mixed with other cells,
// 2-D cells mixed with 3-D cells (meshio silently drops the 2-D cells), no cells at all,
// points that are not 2-D or 3-D, names holding '"' or a line break. Not written: point or cell
// data named X, Y, Z, x, y or z (they would clash with the coordinates, skipped as in meshio),
// field data, regions.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/tecplot/tecplot.hpp"
#include "io/output/atomic_file.hpp"

namespace meshioplusplus::tecplot {
namespace {

constexpr std::string_view kFormat = "tecplot";

struct CellMapping {
  std::string_view type;
  std::string_view zone_type;
  int dim;
  std::array<int, 8> alone;  // node order when the type is alone in its zone (first `alone_nodes`)
  int alone_nodes;
  std::array<int, 8> mixed;  // node order in a mixed FEQUADRILATERAL/FEBRICK zone
};

constexpr std::array<CellMapping, 7> kCells{{
    {"line", "FELINESEG", 1, {0, 1}, 2, {0, 1}},
    {"triangle", "FETRIANGLE", 2, {0, 1, 2}, 3, {0, 1, 2, 2}},
    {"quad", "FEQUADRILATERAL", 2, {0, 1, 2, 3}, 4, {0, 1, 2, 3}},
    {"tetra", "FETETRAHEDRON", 3, {0, 1, 2, 3}, 4, {0, 1, 2, 2, 3, 3, 3, 3}},
    {"pyramid", "FEBRICK", 3, {0, 1, 2, 3, 4, 4, 4, 4}, 8, {0, 1, 2, 3, 4, 4, 4, 4}},
    {"wedge", "FEBRICK", 3, {0, 1, 4, 3, 2, 2, 5, 5}, 8, {0, 1, 4, 3, 2, 2, 5, 5}},
    {"hexahedron", "FEBRICK", 3, {0, 1, 2, 3, 4, 5, 6, 7}, 8, {0, 1, 2, 3, 4, 5, 6, 7}},
}};

const CellMapping* find_mapping(std::string_view type) {
  for (const CellMapping& m : kCells)
    if (m.type == type) return &m;
  return nullptr;
}

bool is_coordinate_name(std::string_view name) {
  return name == "X" || name == "Y" || name == "Z" || name == "x" || name == "y" || name == "z";
}

void check_name(std::string_view name) {
  if (name.find_first_of("\"\n\r") != std::string_view::npos)
    throw std::invalid_argument("Tecplot variable names cannot hold '\"' or a line break: '" + std::string(name) + "'");
}

// One written variable: component `component` of `arrays` (one array for point data, one per
// block for cell data).
struct Variable {
  std::string name;
  std::vector<const NDArray*> arrays;
  std::int64_t component;
};

template <class Data> void add_variables(std::vector<Variable>& out, const std::string& name, const Data& arrays,
                                         std::int64_t width) {
  check_name(name);
  for (std::int64_t c = 0; c < width; ++c)
    out.push_back({width == 1 ? name : name + "_" + std::to_string(c), arrays, c});
}

// Values `per_line` to a line, as meshio.
class Table {
 public:
  explicit Table(io::OutputBuffer& out) : out_(out) {}
  template <class T> void value(T v) {
    if (column_ > 0) out_.put(' ');
    out_.number(v);
    if (++column_ == kPerLine) end_line();
  }
  void end_line() {
    if (column_ > 0) out_.put('\n');
    column_ = 0;
  }

 private:
  static constexpr int kPerLine = 20;
  io::OutputBuffer& out_;
  int column_ = 0;
};

void write_variable(Table& table, const Variable& variable) {
  for (const NDArray* array : variable.arrays) {
    visit_dtype(array->dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = static_cast<const T*>(array->data());
      const std::int64_t width = array->row_width();
      for (std::int64_t row = 0; row < array->rows(); ++row) table.value(values[row * width + variable.component]);
    });
  }
  table.end_line();
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  const std::int64_t dim = mesh.points.ndim() == 2 ? mesh.points.dim(1) : 0;
  if (dim != 2 && dim != 3) throw std::invalid_argument("Tecplot needs 2-D or 3-D points");
  std::vector<const CellMapping*> mappings;
  bool several_types = false;
  for (const CellBlock& block : mesh.cells) {
    const CellMapping* mapping = find_mapping(block.type);
    if (mapping == nullptr)
      throw std::invalid_argument("Tecplot FE zones hold line, triangle, quad, tetra, pyramid, wedge and hexahedron cells, not '" +
                                  block.type + "'");
    if (!mappings.empty() && mapping->dim != mappings.front()->dim)
      throw std::invalid_argument("a Tecplot zone holds cells of one dimension; this mesh mixes '" +
                                  std::string(mappings.front()->type) + "' and '" + block.type + "'");
    several_types = several_types || (!mappings.empty() && mapping != mappings.front());
    mappings.push_back(mapping);
  }
  if (mappings.empty()) throw std::invalid_argument("Tecplot needs at least one cell block");
  if (several_types && mappings.front()->dim == 1)
    throw std::invalid_argument("a Tecplot line zone holds lines only");
  const std::string_view zone_type =
      !several_types ? mappings.front()->zone_type : (mappings.front()->dim == 2 ? "FEQUADRILATERAL" : "FEBRICK");

  std::vector<Variable> variables;
  for (std::int64_t axis = 0; axis < dim; ++axis)
    variables.push_back({std::string(1, "XYZ"[axis]), {&mesh.points}, axis});
  for (const auto& [name, array] : mesh.point_data)
    if (!is_coordinate_name(name)) add_variables(variables, name, std::vector<const NDArray*>{&array}, array.row_width());
  const std::size_t first_cell_variable = variables.size();
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (is_coordinate_name(name)) continue;
    std::vector<const NDArray*> blocks;
    for (const NDArray& array : arrays) {
      if (array.row_width() != arrays.front().row_width())
        throw std::invalid_argument("cell data '" + name + "' has a different number of components per block");
      blocks.push_back(&array);
    }
    add_variables(variables, name, blocks, arrays.empty() ? 1 : arrays.front().row_width());
  }

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.text("TITLE = \"written by meshio++\"\nVARIABLES = ");
  for (std::size_t v = 0; v < variables.size(); ++v) {
    if (v > 0) out.text(", ");
    out.put('"');
    out.text(variables[v].name);
    out.put('"');
  }
  out.text("\nZONE NODES = ");
  out.number(mesh.num_points());
  out.text(", ELEMENTS = ");
  out.number(mesh.num_cells());
  out.text(",\nDATAPACKING = BLOCK, ZONETYPE = ");
  out.text(zone_type);
  if (first_cell_variable < variables.size()) {
    out.text(",\nVARLOCATION = ([");
    out.number(static_cast<std::int64_t>(first_cell_variable + 1));
    if (variables.size() > first_cell_variable + 1) {
      out.put('-');
      out.number(static_cast<std::int64_t>(variables.size()));
    }
    out.text("] = CELLCENTERED)");
  }
  out.put('\n');

  Table table(out);
  for (const Variable& variable : variables) write_variable(table, variable);
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellMapping& m = *mappings[b];
    const std::array<int, 8>& order = several_types ? m.mixed : m.alone;
    const int written = several_types ? (m.dim == 2 ? 4 : 8) : m.alone_nodes;
    const std::int64_t width = mesh.cells[b].connectivity.row_width();
    const std::int64_t* corners = mesh.cells[b].connectivity.data_as<std::int64_t>();
    for (std::int64_t cell = 0; cell < mesh.cells[b].num_cells(); ++cell) {
      for (int k = 0; k < written; ++k) {
        if (k > 0) out.put(' ');
        out.number(corners[cell * width + order[static_cast<std::size_t>(k)]] + 1);
      }
      out.put('\n');
    }
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::tecplot
