#include "io/cells/nastran_blocks.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace meshioplusplus::io {
namespace {

NDArray int64_array(const std::vector<std::int64_t>& values, Shape shape) {
  NDArray array = NDArray::allocate(DType::int64, std::move(shape));
  std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
  return array;
}

}  // namespace

NastranElements add_nastran_blocks(const std::vector<NastranBlock>& blocks, Mesh& mesh) {
  NastranElements elements;
  std::vector<NDArray> element_ids, properties;
  std::map<std::int64_t, std::vector<std::int64_t>> cells_of_property;  // ordered: regions by pid
  std::int64_t base = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const NastranBlock& block = blocks[b];
    const auto rows = static_cast<std::int64_t>(block.element_ids.size());
    mesh.cells.push_back({block.type, int64_array(block.connectivity, {rows, block.nodes}), {}, {}});
    element_ids.push_back(int64_array(block.element_ids, {rows}));
    properties.push_back(int64_array(block.properties, {rows}));
    for (std::int64_t i = 0; i < rows; ++i) {
      elements.ids.push_back(block.element_ids[static_cast<std::size_t>(i)]);
      elements.block.push_back(static_cast<std::int32_t>(b));
      elements.row.push_back(i);
      cells_of_property[block.properties[static_cast<std::size_t>(i)]].push_back(base + i);
    }
    base += rows;
  }
  if (!blocks.empty()) {
    mesh.cell_data.append_new("nastran:element_id", std::move(element_ids));
    mesh.cell_data.append_new("nastran:ref", std::move(properties));
  }
  for (const auto& [property, cells] : cells_of_property) {
    Region region;
    region.name = "property_" + std::to_string(property);
    region.kind = RegionKind::Cell;
    region.tag = property;
    region.entries = int64_array(cells, {static_cast<std::int64_t>(cells.size())});
    mesh.regions.push_back(std::move(region));
  }
  return elements;
}

std::vector<NDArray>& nastran_cell_results(NamedList<std::vector<NDArray>>& data, const std::string& name,
                                           const Mesh& mesh, std::int64_t width) {
  if (std::vector<NDArray>* found = data.find(name)) return *found;
  std::vector<NDArray> arrays;
  for (const CellBlock& block : mesh.cells) {
    Shape shape{block.num_cells()};
    if (width > 1) shape.push_back(width);
    NDArray array = NDArray::allocate(DType::float64, shape);
    std::fill_n(array.data_as<double>(), array.size(), std::numeric_limits<double>::quiet_NaN());
    arrays.push_back(std::move(array));
  }
  return data.append_new(name, std::move(arrays));
}

Mesh nastran_mesh_with_first_step(TimeSeriesReader& series) {
  Mesh mesh = series.read_mesh();
  if (series.num_steps() == 0) return mesh;
  TimeStep step = series.read_step(0);
  for (auto& [name, array] : step.point_data) mesh.point_data.append_new(name, std::move(array));
  for (auto& [name, arrays] : step.cell_data) mesh.cell_data.append_new(name, std::move(arrays));
  for (auto& [name, array] : step.field_data) mesh.field_data.append_new(name, std::move(array));
  mesh.field_data.append_new("nastran:time", NDArray::from_values<double>({step.time}));
  return mesh;
}

}  // namespace meshioplusplus::io
