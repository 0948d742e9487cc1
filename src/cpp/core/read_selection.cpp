// The generic halves of include/meshioplusplus/read_selection.hpp: a mesh narrowed as a
// ReadRequest asks (what a format without a selective reader does after its full read), and a
// mesh summarised as read_metadata reports it.
#include "meshioplusplus/read_selection.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/mesh_ops_internal.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus {
namespace {

// Names quoted from a file may be Latin-1: messages stay valid UTF-8 (errors.hpp).
[[noreturn]] void refuse(const std::string& message) { throw std::invalid_argument(escape_invalid_utf8(message)); }

bool listed(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
  return text.empty() ? "none" : text;
}

template <class Value> void keep_named(NamedList<Value>& list, const std::vector<std::string>& names) {
  NamedList<Value> kept;
  for (auto& [name, value] : list)
    if (listed(names, name)) kept.append_new(name, std::move(value));
  list = std::move(kept);
}

std::vector<std::string> array_names(const Mesh& mesh) {
  std::vector<std::string> names;
  for (const auto& entry : mesh.point_data) names.push_back(entry.first);
  for (const auto& entry : mesh.cell_data) names.push_back(entry.first);
  for (const auto& entry : mesh.field_data) names.push_back(entry.first);
  for (const auto& entry : mesh.string_field_data) names.push_back(entry.first);
  return names;
}

void keep_cell_types(Mesh& mesh, const std::vector<std::string>& types, std::string_view source) {
  for (const std::string& type : types)
    if (find_cell_type(type) == nullptr) refuse("cell_types: unknown cell type '" + type + "'");
  std::vector<std::string> held;
  for (const CellBlock& block : mesh.cells)
    if (!listed(held, block.type)) held.push_back(block.type);
  for (const std::string& type : types)
    if (!listed(held, type))
      refuse(std::string(source) + ": cell_types: no '" + type + "' cells in the file (it has " + joined(held) + ")");
  std::vector<bool> keep;
  keep.reserve(static_cast<std::size_t>(mesh.num_cells()));
  for (const CellBlock& block : mesh.cells)
    keep.insert(keep.end(), static_cast<std::size_t>(block.num_cells()), listed(types, block.type));
  const std::vector<bool> had_entries = detail::regions_with_entries(mesh);
  detail::keep_cells(mesh, keep);
  // Blocks of a kept type that happen to be empty stay (the file has them); a region the
  // selection emptied goes, as after any cell removal.
  detail::drop_emptied_regions(mesh, had_entries);
}

}  // namespace

void check_requested_arrays(const ReadRequest& request, const std::vector<std::string>& available,
                            std::string_view source) {
  if (!request.arrays) return;
  for (const std::string& name : *request.arrays)
    if (!listed(available, name))
      refuse(std::string(source) + ": arrays: no array '" + name + "' in the file (it has " + joined(available) + ")");
}

void apply_read_request(Mesh& mesh, const ReadRequest& request, std::string_view source) {
  if (request.arrays) {
    check_requested_arrays(request, array_names(mesh), source);
    keep_named(mesh.point_data, *request.arrays);
    keep_named(mesh.cell_data, *request.arrays);
    keep_named(mesh.field_data, *request.arrays);
    keep_named(mesh.string_field_data, *request.arrays);
  }
  if (request.points_only) {
    mesh.cells.clear();
    mesh.cell_data = {};
    if (!request.arrays) {
      mesh.point_data = {};
      mesh.field_data = {};
      mesh.string_field_data = {};
    }
    std::erase_if(mesh.regions, [](const Region& region) { return region.kind != RegionKind::Point; });
    return;
  }
  if (request.cell_types) keep_cell_types(mesh, *request.cell_types, source);
}

MeshMetadata summarize(const Mesh& mesh, std::string_view format) {
  MeshMetadata summary;
  summary.format = std::string(format);
  summary.num_points = mesh.num_points();
  summary.point_dim = mesh.points.ndim() == 2 ? static_cast<int>(mesh.points.dim(1)) : 0;
  for (const CellBlock& block : mesh.cells) summary.cell_blocks.push_back({block.type, block.num_cells()});
  const auto shape_of = [](const NDArray& array, std::int64_t rows) {
    std::vector<std::int64_t> shape(array.shape().begin(), array.shape().end());
    if (shape.empty()) shape.push_back(1);
    shape[0] = rows;
    return shape;
  };
  for (const auto& [name, array] : mesh.point_data)
    summary.arrays.push_back({name, DataAssociation::point, array.dtype(), shape_of(array, array.rows())});
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (arrays.empty()) continue;
    std::int64_t rows = 0;
    for (const NDArray& part : arrays) rows += part.rows();
    summary.arrays.push_back({name, DataAssociation::cell, arrays.front().dtype(), shape_of(arrays.front(), rows)});
  }
  for (const auto& [name, array] : mesh.field_data)
    summary.arrays.push_back({name, DataAssociation::field, array.dtype(), shape_of(array, array.rows())});
  for (const Region& region : mesh.regions)
    summary.regions.push_back({region.name, region.kind, region.dim, region.tag, region.entries.rows()});
  const std::int64_t rows = mesh.num_points(), width = summary.point_dim;
  if (rows > 0 && width > 0 && dtype_is_float(mesh.points.dtype())) {
    std::array<double, 6> bounds{};
    for (int axis = 0; axis < 3; ++axis) {
      bounds[axis] = axis < width ? std::numeric_limits<double>::infinity() : 0.0;
      bounds[axis + 3] = axis < width ? -std::numeric_limits<double>::infinity() : 0.0;
    }
    visit_dtype(mesh.points.dtype(), [&](auto tag) {
      using Value = decltype(tag);
      if constexpr (std::is_floating_point_v<Value>) {
        const Value* values = mesh.points.data_as<Value>();
        for (std::int64_t row = 0; row < rows; ++row)
          for (std::int64_t axis = 0; axis < std::min<std::int64_t>(width, 3); ++axis) {
            const double value = static_cast<double>(values[row * width + axis]);
            bounds[axis] = std::min(bounds[axis], value);
            bounds[axis + 3] = std::max(bounds[axis + 3], value);
          }
      }
    });
    summary.bounds = bounds;
  }
  return summary;
}

}  // namespace meshioplusplus
