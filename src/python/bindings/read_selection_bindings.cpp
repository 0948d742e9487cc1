// Bindings of include/meshioplusplus/read_selection.hpp: a read narrowed by a ReadRequest, a
// file's metadata as a dict, and the generic narrowing for meshes read in Python. Thin: the
// meaning lives in the core; meshioplusplus._read_less shapes the results for users.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mesh_dict.hpp"
#include "meshioplusplus/read_selection.hpp"
#include "meshioplusplus/registry.hpp"

namespace nb = nanobind;

namespace meshioplusplus::bindings {
namespace {

ReadRequest request_of(bool points_only, std::optional<std::vector<std::string>> arrays,
                       std::optional<std::vector<std::string>> cell_types, std::optional<std::int64_t> time_step) {
  ReadRequest request;
  request.points_only = points_only;
  request.arrays = std::move(arrays);
  request.cell_types = std::move(cell_types);
  request.time_step = time_step;
  return request;
}

nb::dict read_selected(const std::string& path, const std::string& format, bool points_only,
                       std::optional<std::vector<std::string>> arrays, std::optional<std::vector<std::string>> cell_types,
                       std::optional<std::int64_t> time_step) {
  const ReadRequest request = request_of(points_only, std::move(arrays), std::move(cell_types), time_step);
  Mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = read(path, format, request);
  }
  return mesh_dict(mesh);
}

nb::dict apply_request(const nb::dict& source, bool points_only, std::optional<std::vector<std::string>> arrays,
                       std::optional<std::vector<std::string>> cell_types, const std::string& name) {
  Mesh mesh = mesh_from_dict(source);
  apply_read_request(mesh, request_of(points_only, std::move(arrays), std::move(cell_types), std::nullopt), name);
  return mesh_dict(mesh);
}

const char* association_name(DataAssociation association) {
  switch (association) {
    case DataAssociation::point: return "point";
    case DataAssociation::cell: return "cell";
    case DataAssociation::field: return "field";
  }
  return "field";
}

const char* region_kind_name(RegionKind kind) {
  switch (kind) {
    case RegionKind::Point: return "point";
    case RegionKind::Cell: return "cell";
    case RegionKind::Side: return "side";
  }
  return "cell";
}

nb::dict metadata_dict(const MeshMetadata& metadata) {
  nb::dict result;
  result["format"] = metadata.format;
  result["variant"] = text_from_file(metadata.variant);
  result["num_points"] = metadata.num_points;
  result["point_dim"] = metadata.point_dim;
  nb::list blocks;
  for (const CellBlockSummary& block : metadata.cell_blocks) blocks.append(nb::make_tuple(text_from_file(block.type), block.count));
  result["cell_blocks"] = blocks;
  nb::list arrays;
  for (const ArraySummary& array : metadata.arrays) {
    nb::dict entry;
    entry["name"] = text_from_file(array.name);
    entry["association"] = association_name(array.association);
    entry["dtype"] = std::string(dtype_name(array.dtype));
    nb::list shape;
    for (std::int64_t extent : array.shape) shape.append(extent);
    entry["shape"] = nb::tuple(shape);
    arrays.append(entry);
  }
  result["arrays"] = arrays;
  nb::list regions;
  for (const RegionSummary& region : metadata.regions) {
    nb::dict entry;
    entry["name"] = text_from_file(region.name);
    entry["kind"] = region_kind_name(region.kind);
    entry["dim"] = region.dim;
    entry["tag"] = region.tag;
    entry["count"] = region.count < 0 ? nb::object(nb::none()) : nb::object(nb::int_(region.count));
    regions.append(entry);
  }
  result["regions"] = regions;
  nb::list times;
  for (double time : metadata.times) times.append(time);
  result["times"] = times;
  if (metadata.bounds) {
    const auto& b = *metadata.bounds;
    result["bounds"] = nb::make_tuple(b[0], b[1], b[2], b[3], b[4], b[5]);
  } else {
    result["bounds"] = nb::none();
  }
  result["header_only"] = metadata.header_only;
  return result;
}

nb::dict summary_of(const nb::dict& source, const std::string& format) {
  return metadata_dict(summarize(mesh_from_dict(source), format));
}

nb::dict metadata_of(const std::string& path, const std::string& format) {
  MeshMetadata metadata;
  {
    nb::gil_scoped_release released;
    metadata = read_metadata(path, format);
  }
  return metadata_dict(metadata);
}

}  // namespace

void bind_read_selection(nb::module_& module) {
  module.def("read_selected", &read_selected, nb::arg("path"), nb::arg("format") = "", nb::arg("points_only") = false,
             nb::arg("arrays") = nb::none(), nb::arg("cell_types") = nb::none(), nb::arg("time_step") = nb::none());
  module.def("read_metadata", &metadata_of, nb::arg("path"), nb::arg("format") = "");
  module.def("summarize", &summary_of, nb::arg("mesh"), nb::arg("format") = "");
  module.def("apply_read_request", &apply_request, nb::arg("mesh"), nb::arg("points_only") = false,
             nb::arg("arrays") = nb::none(), nb::arg("cell_types") = nb::none(), nb::arg("source") = "");
}

}  // namespace meshioplusplus::bindings
