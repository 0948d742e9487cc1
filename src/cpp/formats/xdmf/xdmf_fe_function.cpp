// DOLFIN's checkpoint functions (what becomes what: xdmf_dolfin.hpp). Legacy DOLFIN's
// XDMFFile::write_checkpoint (dolfin/io/XDMFFile.cpp; xdmf_write.cpp add_function, also in
// early DOLFINx) writes each step as a Uniform grid with its own mesh, a <Time> and, per
// function, <Attribute ItemType="FiniteElementFunction" ElementFamily="CG" ElementDegree="1"
// ElementCell="triangle" Name="u" Center="Other" AttributeType="Scalar"> holding four DataItems,
// in this order (HDF5 datasets named so):
//   cell_dofs    UInt   the global dof numbers of each cell, cell after cell; within a cell
//                       component-major (the scalar element's dofs for component 0, then 1 …)
//   vector       Float  the dof values
//   x_cell_dofs  UInt   cells + 1 offsets of each cell's dofs into cell_dofs
//   cells        UInt   the cells' global numbers when written (row i of x_cell_dofs is row i
//                       of the grid's Topology, so they are not needed to map the dofs)
// A degree-1 Lagrange element's dofs are the cell's vertices in DOLFIN's reference order; the
// Topology lists them in VTK's order, which differs for quadrilaterals and hexahedra. VTK's
// XDMF 3 reader takes the first DataItem as the dof map and the second as the values, and
// pads vectors to 3 and 2-D tensors to 3x3 components; so do we.
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

#include "formats/xdmf/xdmf_dolfin.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::xdmf {
namespace {

struct Items {
  Node cell_dofs, vector, x_cell_dofs, cells;
};

// The HDF5 dataset's last path component ("file.h5:/u/u_0/cell_dofs" → "cell_dofs"), or "".
std::string_view dataset_name(const Node& item) {
  const std::string* format = item.attribute("Format");
  if (format == nullptr || *format != "HDF") return {};
  std::string_view text = item.text();
  const std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) return {};
  text = text.substr(0, end + 1);
  const std::size_t slash = text.find_last_of("/:");
  return slash == std::string_view::npos ? text : text.substr(slash + 1);
}

bool is_float_item(const Node& item) {
  const std::string* type = item.attribute("NumberType");
  if (type == nullptr) type = item.attribute("DataType");
  return type == nullptr || *type == "Float";  // XDMF's default NumberType is Float
}

// By the dataset names when all four are there; else the one Float DataItem is the vector and
// the integer ones come as cell_dofs, x_cell_dofs, cells (DOLFIN's order); else by position.
Items identify(Context& context, const Node& attribute, const std::string& name) {
  const std::vector<Node> items = context.children_named(attribute, "DataItem");
  if (items.size() != 4)
    context.fail(attribute, "FiniteElementFunction '" + name + "' has " + std::to_string(items.size()) +
                                " <DataItem>s (cell_dofs, vector, x_cell_dofs, cells expected)");
  static constexpr std::array<std::string_view, 4> kNames{"cell_dofs", "vector", "x_cell_dofs", "cells"};
  std::array<std::optional<Node>, 4> found;
  for (const Node& item : items)
    for (std::size_t k = 0; k < kNames.size(); ++k)
      if (dataset_name(item) == kNames[k] && !found[k]) found[k] = item;
  if (std::all_of(found.begin(), found.end(), [](const auto& item) { return item.has_value(); }))
    return {*found[0], *found[1], *found[2], *found[3]};
  std::vector<Node> floats, integers;
  for (const Node& item : items) (is_float_item(item) ? floats : integers).push_back(item);
  if (floats.size() == 1) return {integers[0], floats[0], integers[1], integers[2]};
  return {items[0], items[1], items[2], items[3]};
}

enum class Space { lagrange1, dg0, other };

Space space_of(const std::string& family, const std::string& degree) {
  if (degree == "1" && (family == "CG" || family == "Q" || family == "P" || family == "Lagrange")) return Space::lagrange1;
  if (degree == "0" && (family == "DG" || family == "DQ" || family == "DP" || family == "Discontinuous Lagrange"))
    return Space::dg0;
  return Space::other;
}

struct Shape1 {
  std::string_view element_cell, ours;
  std::array<int, 8> dof_of_column;  // topology column k (VTK order) holds vertex dof_of_column[k]
};

constexpr std::array kCells{
    Shape1{"interval", "line", {0, 1}},
    Shape1{"triangle", "triangle", {0, 1, 2}},
    Shape1{"tetrahedron", "tetra", {0, 1, 2, 3}},
    Shape1{"quadrilateral", "quad", {0, 1, 3, 2}},
    Shape1{"hexahedron", "hexahedron", {0, 1, 3, 2, 4, 5, 7, 6}},
};

// The output column of component c (VTK: vectors padded to 3, 2-D tensors placed in 3x3).
std::int64_t padded_width(const std::string& attribute_type, std::int64_t components) {
  if (attribute_type == "Vector" && components <= 3) return 3;
  if (attribute_type == "Tensor" && (components == 4 || components == 9)) return 9;
  return components;
}

std::int64_t column_of(std::int64_t component, std::int64_t components, std::int64_t width) {
  return width == 9 && components == 4 ? component + component / 2 : component;
}

std::string text_attribute(const Node& node, std::string_view key) {
  const std::string* value = node.attribute(key);
  return value != nullptr ? *value : std::string();
}

// The values on the grid's nodes (Lagrange 1) or cells (DG 0), or an empty handle when the
// function's layout does not fit the grid (kept as field data then).
NDArray map_dofs(Space space, const std::string& element_cell, const std::string& attribute_type,
                 const std::vector<CellBlock>& cells, std::int64_t num_points, const NDArray& cell_dofs,
                 const NDArray& x_cell_dofs, const NDArray& vector) {
  if (space == Space::other || cells.size() != 1 || cells[0].is_ragged()) return {};
  const auto shape = std::find_if(kCells.begin(), kCells.end(), [&](const Shape1& s) { return s.element_cell == element_cell; });
  if (shape == kCells.end() || cells[0].type != shape->ours) return {};
  const CellBlock& block = cells[0];
  const std::int64_t count = block.num_cells();
  const std::int64_t corners = space == Space::lagrange1 ? block.connectivity.row_width() : 1;
  const std::int64_t* offsets = x_cell_dofs.data_as<std::int64_t>();
  if (static_cast<std::int64_t>(x_cell_dofs.size()) != count + 1 || count == 0) return {};
  const std::int64_t per_cell = offsets[1] - offsets[0];
  const std::int64_t components = per_cell / corners;
  if (components < 1 || per_cell % corners != 0) return {};
  for (std::int64_t cell = 0; cell < count; ++cell)
    if (offsets[cell + 1] - offsets[cell] != per_cell) return {};
  const std::int64_t width = padded_width(attribute_type, components);
  const std::int64_t rows = space == Space::lagrange1 ? num_points : count;
  NDArray out = NDArray::zeros(DType::float64, {rows, width});
  double* values = out.data_as<double>();
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(rows), 0);
  const std::int64_t* dofs = cell_dofs.data_as<std::int64_t>();
  const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
  const double* dof_values = vector.data_as<double>();
  for (std::int64_t cell = 0; cell < count; ++cell)
    for (std::int64_t k = 0; k < corners; ++k) {
      const std::int64_t row = space == Space::lagrange1 ? nodes[cell * corners + k] : cell;
      seen[static_cast<std::size_t>(row)] = 1;
      for (std::int64_t c = 0; c < components; ++c) {
        const std::int64_t dof = dofs[offsets[cell] + shape->dof_of_column[static_cast<std::size_t>(k)] + c * corners];
        values[row * width + column_of(c, components, width)] = dof_values[dof];
      }
    }
  // Nodes no cell uses have no value.
  for (std::int64_t row = 0; row < rows; ++row)
    if (!seen[static_cast<std::size_t>(row)])
      for (std::int64_t c = 0; c < components; ++c)
        values[row * width + column_of(c, components, width)] = std::numeric_limits<double>::quiet_NaN();
  return out;
}

}  // namespace

bool is_finite_element_function(const Node& attribute) {
  const std::string* type = attribute.attribute("ItemType");
  return type != nullptr && *type == "FiniteElementFunction";
}

void read_finite_element_function(Context& context, const Node& attribute, const std::vector<CellBlock>& cells,
                                  std::int64_t num_points, AttributeSink sink) {
  const std::string* name_text = attribute.attribute("Name");
  if (name_text == nullptr) context.fail(attribute, "Attribute without Name");
  const std::string name = *name_text;
  const Items items = identify(context, attribute, name);
  auto flat = [&](const Node& item, DType dtype) {
    const NDArray array = context.read_data_item(item, dtype);
    return array.reshaped({static_cast<std::int64_t>(array.size())});
  };
  const NDArray cell_dofs = flat(items.cell_dofs, DType::int64);
  const NDArray vector = flat(items.vector, DType::float64);
  const NDArray x_cell_dofs = flat(items.x_cell_dofs, DType::int64);
  const NDArray cell_numbers = flat(items.cells, DType::int64);
  // The dof map must stay inside its arrays whatever the space.
  const std::span<const std::int64_t> offsets = x_cell_dofs.values<std::int64_t>();
  if (offsets.empty() || offsets.front() != 0 || !std::is_sorted(offsets.begin(), offsets.end()) ||
      offsets.back() != static_cast<std::int64_t>(cell_dofs.size()))
    context.fail(items.x_cell_dofs, "x_cell_dofs of '" + name + "' are not offsets 0 … " + std::to_string(cell_dofs.size()) +
                                        " into its " + std::to_string(cell_dofs.size()) + " cell_dofs");
  for (const std::int64_t dof : cell_dofs.values<std::int64_t>())
    if (dof < 0 || dof >= static_cast<std::int64_t>(vector.size()))
      context.fail(items.cell_dofs, "dof " + std::to_string(dof) + " of '" + name + "' outside its " +
                                        std::to_string(vector.size()) + " values");
  const std::string family = text_attribute(attribute, "ElementFamily"), degree = text_attribute(attribute, "ElementDegree");
  const std::string element_cell = text_attribute(attribute, "ElementCell");
  std::string attribute_type = text_attribute(attribute, "AttributeType");
  if (attribute_type.empty()) attribute_type = "Scalar";
  const Space space = space_of(family, degree);
  NDArray mapped = map_dofs(space, element_cell, attribute_type, cells, num_points, cell_dofs, x_cell_dofs, vector);
  if (!mapped.empty_handle()) {
    if (space == Space::lagrange1) sink.point_data.set(name, std::move(mapped));
    else sink.raw_cell_data.emplace_back(name, std::move(mapped));
    return;
  }
  sink.field_data.set(name + ":vector", vector);
  sink.field_data.set(name + ":cell_dofs", cell_dofs);
  sink.field_data.set(name + ":x_cell_dofs", x_cell_dofs);
  sink.field_data.set(name + ":cells", cell_numbers);
  if (sink.string_field_data != nullptr)
    sink.string_field_data->set(name + ":element", {family, degree, element_cell, attribute_type});
}

}  // namespace meshioplusplus::xdmf
