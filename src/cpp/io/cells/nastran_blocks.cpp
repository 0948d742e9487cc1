#include "io/cells/nastran_blocks.hpp"

#include <algorithm>
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

}  // namespace meshioplusplus::io
