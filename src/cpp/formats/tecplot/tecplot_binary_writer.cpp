// Tecplot binary writer (.plt, #!TDV112): one FE zone per cell block, block packed.
//
// Variables: X, Y[, Z], then every point data array (one variable per component: "name" for
// one, "name_0", "name_1" … for several, as our ASCII writer), then every cell data array the
// same way, cell-centred. The first zone owns the nodal variables (all points); every other
// zone shares them with it (the file's variable sharing), so the points are written once and
// read back once. Values float64 (bit-exact back), or float32 with option float32=true.
// Zone types: line FELINESEG, triangle FETRIANGLE, quad FEQUADRILATERAL, tetra FETETRAHEDRON,
// hexahedron FEBRICK; pyramids and wedges as FEBRICK with repeated nodes (as Tecplot and
// meshio), read back as hexahedra. Zone names: a Cell region's name when the block is exactly
// one region's cells, else "<type> <k>". Refused (std::invalid_argument): other cell types,
// points that are not 2-D or 3-D, no cells. Not written: field data, other regions, data
// named X/Y/Z (they would clash with the coordinates).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/tecplot/tecplot_binary.hpp"
#include "formats/tecplot/tecplot_binary_internal.hpp"
#include "io/output/atomic_file.hpp"
#include "io/source/byte_order.hpp"

namespace meshioplusplus::tecplot_binary {
namespace {

using detail::kFormat;

struct CellMapping {
  std::string_view type;
  std::int32_t zone_type;
  int written;                 // nodes written per element
  std::array<int, 8> order;    // file node k = our node order[k]
};

constexpr std::array<CellMapping, 7> kCells{{
    {"line", detail::kLineSeg, 2, {0, 1}},
    {"triangle", detail::kTriangle, 3, {0, 1, 2}},
    {"quad", detail::kQuadrilateral, 4, {0, 1, 2, 3}},
    {"tetra", detail::kTetrahedron, 4, {0, 1, 2, 3}},
    {"pyramid", detail::kBrick, 8, {0, 1, 2, 3, 4, 4, 4, 4}},
    {"wedge", detail::kBrick, 8, {0, 1, 4, 3, 2, 2, 5, 5}},
    {"hexahedron", detail::kBrick, 8, {0, 1, 2, 3, 4, 5, 6, 7}},
}};

bool is_coordinate_name(std::string_view name) {
  return name == "X" || name == "Y" || name == "Z" || name == "x" || name == "y" || name == "z";
}

struct Variable {
  std::string name;
  std::vector<const NDArray*> arrays;  // one (point data) or one per block (cell data)
  std::int64_t component;
  bool cell_centered;
};

template <class Data> void add_variables(std::vector<Variable>& out, const std::string& name, const Data& arrays,
                                         std::int64_t width, bool cell_centered) {
  for (std::int64_t c = 0; c < width; ++c)
    out.push_back({width == 1 ? name : name + "_" + std::to_string(c), arrays, c, cell_centered});
}

class Writer {
 public:
  Writer(io::OutputBuffer& out, bool single) : out_(out), single_(single) {}
  void i32(std::int32_t value) { out_.bytes(&value, 4); }
  void f32(float value) { out_.bytes(&value, 4); }
  void f64(double value) { out_.bytes(&value, 8); }
  void text(std::string_view text) {
    for (unsigned char c : text) i32(c);
    i32(0);
  }
  // Component `component` of `array` rows [first, first + count) as the file's values.
  template <class Fn> void each_value(const NDArray& array, std::int64_t component, Fn&& fn) const {
    visit_dtype(array.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = static_cast<const T*>(array.data());
      const std::int64_t width = array.row_width();
      for (std::int64_t row = 0; row < array.rows(); ++row) fn(static_cast<double>(values[row * width + component]));
    });
  }
  void values(const NDArray& array, std::int64_t component) {
    if (single_) {
      each_value(array, component, [&](double v) { f32(static_cast<float>(v)); });
    } else {
      each_value(array, component, [&](double v) { f64(v); });
    }
  }
  void min_max(const NDArray& array, std::int64_t component) {
    double low = std::numeric_limits<double>::infinity(), high = -low;
    each_value(array, component, [&](double v) {
      if (v < low) low = v;
      if (v > high) high = v;
    });
    if (low > high) low = high = 0.0;  // no values, or only NaN
    f64(low);
    f64(high);
  }

 private:
  io::OutputBuffer& out_;
  bool single_;
};

std::string zone_name(const Mesh& mesh, std::size_t block, const NDArray& bases) {
  const std::int64_t first = bases.data_as<std::int64_t>()[block];
  const std::int64_t count = mesh.cells[block].num_cells();
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Cell || region.entries.size() != static_cast<std::size_t>(count) || count == 0) continue;
    const std::int64_t* entries = region.entries.data_as<std::int64_t>();
    bool same = true;
    for (std::int64_t k = 0; k < count && same; ++k) same = entries[k] == first + k;
    if (same && region.name.find('\0') == std::string::npos) return region.name;
  }
  return mesh.cells[block].type + " " + std::to_string(block + 1);
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const bool single = options.get_bool("float32", false);
  const std::int64_t dim = mesh.points.ndim() == 2 ? mesh.points.dim(1) : 0;
  if (dim != 2 && dim != 3) throw std::invalid_argument("Tecplot needs 2-D or 3-D points");
  if (mesh.cells.empty()) throw std::invalid_argument("Tecplot needs at least one cell block");
  std::vector<const CellMapping*> mappings;
  for (const CellBlock& block : mesh.cells) {
    const CellMapping* mapping = nullptr;
    for (const CellMapping& m : kCells)
      if (m.type == block.type) mapping = &m;
    if (mapping == nullptr)
      throw std::invalid_argument("Tecplot FE zones hold line, triangle, quad, tetra, pyramid, wedge and hexahedron cells, not '" +
                                  block.type + "'");
    mappings.push_back(mapping);
  }
  if (mesh.num_points() > std::numeric_limits<std::int32_t>::max() || mesh.num_cells() > std::numeric_limits<std::int32_t>::max())
    throw std::invalid_argument("Tecplot binary counts are 32-bit: too many points or cells");

  std::vector<Variable> variables;
  for (std::int64_t axis = 0; axis < dim; ++axis)
    variables.push_back({std::string(1, "XYZ"[axis]), {&mesh.points}, axis, false});
  for (const auto& [name, array] : mesh.point_data)
    if (!is_coordinate_name(name)) add_variables(variables, name, std::vector<const NDArray*>{&array}, array.row_width(), false);
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (is_coordinate_name(name) || arrays.size() != mesh.cells.size()) continue;
    std::vector<const NDArray*> blocks;
    for (const NDArray& array : arrays) {
      if (array.row_width() != arrays.front().row_width())
        throw std::invalid_argument("cell data '" + name + "' has a different number of components per block");
      blocks.push_back(&array);
    }
    add_variables(variables, name, blocks, arrays.empty() ? 1 : arrays.front().row_width(), true);
  }
  bool any_cell_centered = false;
  for (const Variable& variable : variables) any_cell_centered = any_cell_centered || variable.cell_centered;
  const NDArray bases = block_bases(mesh.cells);

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  Writer w(out, single);
  if (!io::kHostIsLittleEndian) throw std::invalid_argument("the Tecplot binary writer runs on little-endian hosts");
  out.text("#!TDV112");
  w.i32(1);  // byte order
  w.i32(0);  // FULL file
  w.text("written by meshio++");
  w.i32(static_cast<std::int32_t>(variables.size()));
  for (const Variable& variable : variables) w.text(variable.name);
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    w.f32(detail::kZoneMarker);
    w.text(zone_name(mesh, b, bases));
    w.i32(-1);       // parent zone
    w.i32(-1);       // strand: static
    w.f64(0.0);      // solution time
    w.i32(-1);       // colour
    w.i32(mappings[b]->zone_type);
    w.i32(any_cell_centered ? 1 : 0);
    if (any_cell_centered)
      for (const Variable& variable : variables) w.i32(variable.cell_centered ? 1 : 0);
    w.i32(0);  // no raw face neighbours
    w.i32(0);  // no user face-neighbour connections
    w.i32(static_cast<std::int32_t>(mesh.num_points()));
    w.i32(static_cast<std::int32_t>(mesh.cells[b].num_cells()));
    w.i32(0), w.i32(0), w.i32(0);  // cell dimensions (unused)
    w.i32(0);                      // no auxiliary data
  }
  w.f32(detail::kEndOfHeaderMarker);

  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    w.f32(detail::kZoneMarker);
    for (std::size_t v = 0; v < variables.size(); ++v) w.i32(single ? detail::kFloat : detail::kDouble);
    w.i32(0);  // no passive variables
    const bool shares = b > 0;
    w.i32(shares ? 1 : 0);
    if (shares)
      for (const Variable& variable : variables) w.i32(variable.cell_centered ? -1 : 0);
    w.i32(-1);  // own connectivity
    auto array_of = [&](const Variable& variable) -> const NDArray& {
      return *variable.arrays[variable.cell_centered ? b : 0];
    };
    for (const Variable& variable : variables)
      if (!shares || variable.cell_centered) w.min_max(array_of(variable), variable.component);
    for (const Variable& variable : variables)
      if (!shares || variable.cell_centered) w.values(array_of(variable), variable.component);
    const CellBlock& block = mesh.cells[b];
    const CellMapping& m = *mappings[b];
    const std::int64_t width = block.connectivity.row_width();
    const std::int64_t* corners = block.connectivity.data_as<std::int64_t>();
    // A piece at a time through one buffer: one write per piece, not per node.
    constexpr std::int64_t kPieceCells = 1 << 14;
    std::vector<std::int32_t> piece;
    for (std::int64_t first = 0; first < block.num_cells(); first += kPieceCells) {
      const std::int64_t last = std::min(block.num_cells(), first + kPieceCells);
      piece.clear();
      for (std::int64_t cell = first; cell < last; ++cell)
        for (int k = 0; k < m.written; ++k)
          piece.push_back(static_cast<std::int32_t>(corners[cell * width + m.order[static_cast<std::size_t>(k)]]));
      out.bytes(piece.data(), piece.size() * sizeof(std::int32_t));
    }
  }
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::tecplot_binary
