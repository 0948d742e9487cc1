// Floor 4: the thin nanobind layer. It moves meshes between C++ and Python without copying
// array contents: C++ buffers become numpy arrays through an owner capsule, and contiguous
// numpy arrays become NDArray views for the duration of a write.
//
// The Python side speaks plain containers (see meshioplusplus/_core_bridge.py):
//   {"points": ndarray, "cells": [(type, connectivity, offsets|None, face_offsets|None)],
//    "point_data": {name: ndarray}, "cell_data": {name: [ndarray per block]},
//    "field_data": {name: ndarray}, "string_field_data": {name: [str]},
//    "regions": [(name, kind, dim, tag, entries)]}
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "allocator_shim.hpp"
#include "formats/abaqus/abaqus_element_types.hpp"
#include "formats/gmsh/gmsh.hpp"
#include "formats/gmsh/gmsh_element_types.hpp"
#include "formats/iges/iges.hpp"
#include "formats/med/med.hpp"
#include "formats/gltf/gltf.hpp"
#include "formats/med/med_time_series.hpp"
#include "formats/xyz/xyz.hpp"
#include "formats/step/step.hpp"
#include "formats/vtk_xml/vtk_xml.hpp"
#include "formats/vtkhdf/vtkhdf.hpp"
#include "io/cells/xdmf_cell_types.hpp"
#include "io/codecs/block_codec.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "io/cgns/cgns_file.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "io/netcdf/netcdf_file.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "mesh_dict.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/mesh_ops.hpp"
#include "meshioplusplus/ndarray.hpp"
#include "meshioplusplus/registry.hpp"
#include "meshioplusplus/side_regions.hpp"
#include "meshioplusplus/limits.hpp"
#include "meshioplusplus/threads.hpp"
#include "meshioplusplus/file_sequence.hpp"
#include "meshioplusplus/time_series.hpp"

namespace nb = nanobind;
namespace mpp = meshioplusplus;

namespace {

using AnyHostArray = nb::ndarray<nb::ro, nb::device::cpu>;

// ---- C++ → Python ---------------------------------------------------------------------

nb::dlpack::dtype to_dlpack_dtype(mpp::DType dtype) {
  return mpp::visit_dtype(dtype, [](auto tag) { return nb::dtype<decltype(tag)>(); });
}

// Hands the buffer to numpy: the capsule owns one reference to the Buffer, so the buffer's
// own allocator frees it when numpy drops the last reference.
nb::object to_numpy(const mpp::NDArray& array) {
  std::shared_ptr<mpp::Buffer> buffer = array.buffer();
  if (!buffer) {  // views never leave C++ as results; copy defensively if one does
    buffer = array.copy().buffer();
  }
  auto* owner = new std::shared_ptr<mpp::Buffer>(buffer);
  nb::capsule capsule(owner, [](void* pointer) noexcept {
    delete static_cast<std::shared_ptr<mpp::Buffer>*>(pointer);
  });
  std::vector<size_t> shape(array.shape().begin(), array.shape().end());
  void* data = array.owns_data() ? const_cast<void*>(array.data()) : buffer->data();
  nb::ndarray<nb::numpy> result(data, shape.size(), shape.data(), capsule, nullptr,
                                to_dlpack_dtype(array.dtype()));
  return result.cast();
}

// Names and strings read from files (regions, data arrays, fields) are bytes; most files
// write UTF-8, older tools Latin-1. Valid UTF-8 decodes as such, anything else as Latin-1
// (one code point per byte: never an error, and name.encode("latin-1") gives the bytes
// back). The rule is documented in docs/errors.md, "Text and names".
nb::str file_text(const std::string& bytes) {
  PyObject* text = PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "strict");
  if (text == nullptr) {
    PyErr_Clear();
    text = PyUnicode_DecodeLatin1(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "strict");
    if (text == nullptr) throw nb::python_error();
  }
  return nb::steal<nb::str>(text);
}

nb::object optional_numpy(const mpp::NDArray& array) {
  return array.empty_handle() ? nb::none() : to_numpy(array);
}

// The caller's numpy arrays by data address (mesh_from_python's views point into them).
using CallerArrays = std::unordered_map<const void*, nb::handle>;

// A result array: one an operation left alone is still a view of the caller's array and goes
// back as that same object (no copy: a clean-up that moves only the points keeps the cells);
// any other view is copied by to_numpy.
nb::object result_numpy(const mpp::NDArray& array, const CallerArrays* caller) {
  if (caller != nullptr && !array.owns_data()) {
    if (const auto found = caller->find(array.data()); found != caller->end()) {
      AnyHostArray original;
      if (nb::try_cast(found->second, original, false) && original.ndim() == array.ndim() &&
          original.dtype() == to_dlpack_dtype(array.dtype())) {
        bool same_shape = true;
        for (size_t axis = 0; axis < original.ndim(); ++axis)
          same_shape = same_shape && static_cast<std::int64_t>(original.shape(axis)) == array.dim(axis);
        if (same_shape) return nb::borrow(found->second);
      }
    }
  }
  return to_numpy(array);
}

nb::dict mesh_to_python(const mpp::Mesh& mesh, const CallerArrays* caller = nullptr) {
  nb::dict result;
  const auto out = [caller](const mpp::NDArray& array) { return result_numpy(array, caller); };
  const auto optional_out = [&](const mpp::NDArray& array) { return array.empty_handle() ? nb::none() : out(array); };
  result["points"] = out(mesh.points);
  nb::list cells;
  for (const mpp::CellBlock& block : mesh.cells)
    cells.append(nb::make_tuple(block.type, out(block.connectivity), optional_out(block.offsets),
                                optional_out(block.face_offsets)));
  result["cells"] = cells;
  nb::dict point_data, cell_data, field_data, string_field_data;
  for (const auto& [name, array] : mesh.point_data) point_data[file_text(name)] = out(array);
  for (const auto& [name, arrays] : mesh.cell_data) {
    nb::list per_block;
    for (const mpp::NDArray& array : arrays) per_block.append(out(array));
    cell_data[file_text(name)] = per_block;
  }
  for (const auto& [name, array] : mesh.field_data) field_data[file_text(name)] = to_numpy(array);
  for (const auto& [name, strings] : mesh.string_field_data) {
    nb::list values;
    for (const std::string& text : strings) values.append(file_text(text));
    string_field_data[file_text(name)] = values;
  }
  result["point_data"] = point_data;
  result["cell_data"] = cell_data;
  result["field_data"] = field_data;
  result["string_field_data"] = string_field_data;
  nb::list regions;
  for (const mpp::Region& region : mesh.regions)
    regions.append(nb::make_tuple(file_text(region.name), static_cast<int>(region.kind), region.dim, region.tag,
                                  to_numpy(region.entries)));
  result["regions"] = regions;
  return result;
}

// ---- Python → C++ ---------------------------------------------------------------------

mpp::DType from_dlpack_dtype(nb::dlpack::dtype dtype, const std::string& what) {
  using Code = nb::dlpack::dtype_code;
  const auto code = static_cast<Code>(dtype.code);
  if (dtype.lanes == 1) {
    if (code == Code::Float && dtype.bits == 32) return mpp::DType::float32;
    if (code == Code::Float && dtype.bits == 64) return mpp::DType::float64;
    if (code == Code::Int || code == Code::UInt) {
      const bool is_signed = code == Code::Int;
      switch (dtype.bits) {
        case 8: return is_signed ? mpp::DType::int8 : mpp::DType::uint8;
        case 16: return is_signed ? mpp::DType::int16 : mpp::DType::uint16;
        case 32: return is_signed ? mpp::DType::int32 : mpp::DType::uint32;
        case 64: return is_signed ? mpp::DType::int64 : mpp::DType::uint64;
        default: break;
      }
    }
  }
  throw nb::type_error((what + ": unsupported dtype").c_str());
}

// A non-owning view of a C-contiguous numpy array; the Python caller keeps it alive.
mpp::NDArray view_of(nb::handle object, const std::string& what) {
  AnyHostArray array;
  if (!nb::try_cast(object, array, false))
    throw nb::type_error((what + ": expected a numpy array on the host").c_str());
  mpp::Shape shape(array.ndim());
  std::int64_t expected_stride = 1;
  // An empty array has no layout to check (numpy 2 gives np.empty((0, 3)) strides (0, 0)).
  const bool empty = array.size() == 0;
  for (size_t axis = array.ndim(); axis-- > 0;) {
    shape[axis] = static_cast<std::int64_t>(array.shape(axis));
    if (!empty && array.shape(axis) > 1 && array.stride(axis) != expected_stride)
      throw nb::type_error((what + ": array must be C-contiguous").c_str());
    expected_stride *= static_cast<std::int64_t>(array.shape(axis));
  }
  return mpp::NDArray::view(const_cast<void*>(array.data()), from_dlpack_dtype(array.dtype(), what), shape);
}

mpp::NDArray optional_view(nb::handle object, const std::string& what) {
  return object.is_none() ? mpp::NDArray() : view_of(object, what);
}

mpp::Mesh mesh_from_python(const nb::dict& source) {
  mpp::Mesh mesh;
  mesh.points = view_of(source["points"], "points");
  size_t index = 0;
  for (nb::handle item : nb::iter(source["cells"])) {
    nb::tuple entry = nb::cast<nb::tuple>(item);
    const std::string what = "cells[" + std::to_string(index++) + "]";
    mpp::CellBlock block;
    block.type = nb::cast<std::string>(entry[0]);
    block.connectivity = view_of(entry[1], what);
    block.offsets = optional_view(entry[2], what + " offsets");
    block.face_offsets = optional_view(entry[3], what + " face offsets");
    mesh.cells.push_back(std::move(block));
  }
  for (auto [name, array] : nb::cast<nb::dict>(source["point_data"])) {
    const std::string key = nb::cast<std::string>(name);
    mesh.point_data.set(key, view_of(array, "point_data['" + key + "']"));
  }
  for (auto [name, arrays] : nb::cast<nb::dict>(source["cell_data"])) {
    const std::string key = nb::cast<std::string>(name);
    std::vector<mpp::NDArray> per_block;
    for (nb::handle array : nb::iter(arrays)) per_block.push_back(view_of(array, "cell_data['" + key + "']"));
    mesh.cell_data.set(key, std::move(per_block));
  }
  for (auto [name, array] : nb::cast<nb::dict>(source["field_data"])) {
    const std::string key = nb::cast<std::string>(name);
    mesh.field_data.set(key, view_of(array, "field_data['" + key + "']"));
  }
  for (auto [name, strings] : nb::cast<nb::dict>(source["string_field_data"]))
    mesh.string_field_data.set(nb::cast<std::string>(name), nb::cast<std::vector<std::string>>(strings));
  for (nb::handle item : nb::iter(source["regions"])) {
    nb::tuple entry = nb::cast<nb::tuple>(item);
    mpp::Region region;
    region.name = nb::cast<std::string>(entry[0]);
    region.kind = static_cast<mpp::RegionKind>(nb::cast<int>(entry[1]));
    region.dim = nb::cast<int>(entry[2]);
    region.tag = nb::cast<std::int64_t>(entry[3]);
    region.entries = view_of(entry[4], "region '" + region.name + "'");
    mesh.regions.push_back(std::move(region));
  }
  return mesh;
}

// ---- errors ---------------------------------------------------------------------------

nb::object python_exception_type(const char* name) {
  return nb::module_::import_("meshioplusplus._exceptions").attr(name);
}

void raise_python(const char* type_name, const std::string& message, nb::dict attributes) {
  nb::object type = python_exception_type(type_name);
  nb::object instance = type(message);
  for (auto [key, value] : attributes) nb::setattr(instance, key, value);
  PyErr_SetObject(type.ptr(), instance.ptr());
}

void translate_exceptions(const std::exception_ptr& pointer, void*) {
  try {
    std::rethrow_exception(pointer);
  } catch (const mpp::ReadError& error) {
    nb::dict attributes;
    // A path can come from the file itself (an Abaqus *INCLUDE): decoded by the name rule.
    attributes["path"] = file_text(error.path());
    attributes["format"] = error.format();
    attributes["reason"] = error.reason();
    attributes["byte_offset"] = error.byte_offset() ? nb::cast(*error.byte_offset()) : nb::none();
    attributes["line"] = error.line() ? nb::cast(*error.line()) : nb::none();
    raise_python("ReadError", error.what(), attributes);
  } catch (const mpp::WriteError& error) {
    nb::dict attributes;
    attributes["path"] = file_text(error.path());
    attributes["format"] = error.format();
    raise_python("WriteError", error.what(), attributes);
  }
}

// ---- module ---------------------------------------------------------------------------

nb::dict read_mesh(const std::string& path, const std::string& format) {
  mpp::Mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = mpp::read(path, format);
  }
  return mesh_to_python(mesh);
}

// Structured VTK files with the geometry they only imply left for later
// (formats/vtk_xml/vtk_xml.hpp); meshioplusplus._conversion makes the points and cells on
// first use with the three functions after this one.
nb::dict read_structured_implicit(const std::string& path, const std::string& format) {
  mpp::StructuredImplicitRead read;
  {
    nb::gil_scoped_release released;
    read = mpp::read_structured_implicit(path, format);
  }
  const bool has_points = !read.mesh.points.empty_handle();
  if (!has_points) read.mesh.points = mpp::NDArray::allocate(mpp::DType::float64, {0, 3});
  nb::dict result = mesh_to_python(read.mesh);
  if (!has_points) result["points"] = nb::none();
  result["dims"] = nb::make_tuple(read.dims[0], read.dims[1], read.dims[2]);
  nb::list axes;
  for (const mpp::NDArray& axis : read.axes)
    if (!axis.empty_handle()) axes.append(to_numpy(axis));
  result["axes"] = axes;
  result["points_float32"] = read.points_dtype == mpp::DType::float32;
  return result;
}

template <std::size_t N, class T> std::array<T, N> fixed_array(const std::vector<T>& values, const char* name) {
  if (values.size() != N) throw std::invalid_argument(std::string(name) + " must hold " + std::to_string(N) + " values");
  std::array<T, N> out{};
  std::copy(values.begin(), values.end(), out.begin());
  return out;
}

nb::object image_grid_points_of(const std::vector<std::int64_t>& extent, const std::vector<double>& origin,
                                const std::vector<double>& spacing, const std::vector<double>& direction) {
  const auto whole = fixed_array<6>(extent, "extent");
  const auto o = fixed_array<3>(origin, "origin");
  const auto h = fixed_array<3>(spacing, "spacing");
  const auto d = fixed_array<9>(direction, "direction");
  mpp::NDArray points;
  {
    nb::gil_scoped_release released;
    points = mpp::image_grid_points(whole, o, h, d);
  }
  return to_numpy(points);
}

nb::object rectilinear_grid_points_of(const std::vector<double>& x, const std::vector<double>& y,
                                      const std::vector<double>& z, bool float32) {
  std::array<mpp::NDArray, 3> axes;
  const std::vector<double>* values[3] = {&x, &y, &z};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    axes[axis] = mpp::NDArray::allocate(mpp::DType::float64, {static_cast<std::int64_t>(values[axis]->size())});
    std::copy(values[axis]->begin(), values[axis]->end(), axes[axis].data_as<double>());
  }
  mpp::NDArray points;
  {
    nb::gil_scoped_release released;
    points = mpp::rectilinear_grid_points(axes, float32 ? mpp::DType::float32 : mpp::DType::float64);
  }
  return to_numpy(points);
}

// (cell type, connectivity) of a structured grid of dims points, or None without cells.
nb::object structured_grid_cells_of(const std::vector<std::int64_t>& dims) {
  const auto counts = fixed_array<3>(dims, "dims");
  std::optional<mpp::CellBlock> block;
  {
    nb::gil_scoped_release released;
    block = mpp::io::structured_grid_cells(counts);
  }
  if (!block) return nb::none();
  return nb::make_tuple(block->type, to_numpy(block->connectivity));
}

void write_mesh(const std::string& path, const nb::dict& source, const std::string& format,
                const nb::dict& options) {
  const mpp::Mesh mesh = mesh_from_python(source);
  mpp::WriteOptions write_options;
  for (auto [name, value] : options)
    write_options.set(nb::cast<std::string>(name), nb::cast<std::string>(value));
  nb::gil_scoped_release released;
  mpp::write(path, mesh, format, write_options);
}

// Applies the clean-up operations (mesh_ops.hpp) in order: `operations` lists (name, numbers)
// — prune_z_0 [tolerance], remove_orphaned_nodes, remove_lower_dimensional_cells,
// merge_points [tolerance], transform [rows, columns, matrix…]. Returns (the mesh, what each
// did: points or cells removed, 1/0 for prune_z_0, 0 for transform).
nb::tuple clean_mesh(const nb::dict& source, const std::vector<std::pair<std::string, std::vector<double>>>& operations) {
  mpp::Mesh mesh = mesh_from_python(source);
  std::vector<std::int64_t> counts;
  {
    nb::gil_scoped_release released;
    for (const auto& [name, numbers] : operations) {
      const auto number = [&, &numbers = numbers, &name = name](std::size_t k, double fallback) {
        if (k < numbers.size()) return numbers[k];
        if (std::isnan(fallback)) throw std::invalid_argument(name + ": missing argument");
        return fallback;
      };
      if (name == "prune_z_0") counts.push_back(mpp::prune_z_0(mesh, number(0, 1.0e-13)) ? 1 : 0);
      else if (name == "remove_orphaned_nodes") counts.push_back(mpp::remove_orphaned_nodes(mesh));
      else if (name == "remove_lower_dimensional_cells") counts.push_back(mpp::remove_lower_dimensional_cells(mesh));
      else if (name == "merge_points") counts.push_back(mpp::merge_points(mesh, number(0, 0.0)));
      else if (name == "transform") {
        const auto rows = static_cast<std::int64_t>(number(0, NAN)), columns = static_cast<std::int64_t>(number(1, NAN));
        mpp::transform(mesh, std::span<const double>(numbers).subspan(std::min<std::size_t>(2, numbers.size())), rows, columns);
        counts.push_back(0);
      } else {
        throw std::invalid_argument("unknown clean-up operation '" + name + "'");
      }
    }
  }
  // The arrays the operations left alone go back as the caller's own (in place, as meshio 4).
  CallerArrays caller;
  const auto remember = [&](nb::handle object) {
    AnyHostArray array;
    if (!object.is_none() && nb::try_cast(object, array, false)) caller.emplace(array.data(), object);
  };
  remember(source["points"]);
  for (nb::handle item : nb::iter(source["cells"])) {
    nb::tuple entry = nb::cast<nb::tuple>(item);
    for (size_t k = 1; k < 4; ++k) remember(entry[k]);
  }
  for (auto [name, array] : nb::cast<nb::dict>(source["point_data"])) remember(array);
  for (auto [name, arrays] : nb::cast<nb::dict>(source["cell_data"]))
    for (nb::handle array : nb::iter(arrays)) remember(array);
  return nb::make_tuple(mesh_to_python(mesh, &caller), nb::cast(counts));
}

nb::dict extract_surface_of(const nb::dict& source) {
  const mpp::Mesh mesh = mesh_from_python(source);
  mpp::Mesh surface;
  {
    nb::gil_scoped_release released;
    surface = mpp::extract_surface(mesh);
  }
  return mesh_to_python(surface);
}

nb::dict check_mesh(const nb::dict& source) {
  const mpp::Mesh mesh = mesh_from_python(source);
  mpp::MeshCheck report;
  {
    nb::gil_scoped_release released;
    report = mpp::check(mesh);
  }
  const auto indices = [](const std::vector<std::int64_t>& values) {
    mpp::NDArray array = mpp::NDArray::allocate(mpp::DType::int64, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
    return to_numpy(array);
  };
  nb::dict out;
  out["inverted"] = indices(report.inverted);
  out["degenerate"] = indices(report.degenerate);
  out["duplicate"] = indices(report.duplicate);
  out["unused_points"] = indices(report.unused_points);
  out["non_manifold_facets"] = report.non_manifold_facets;
  out["non_manifold_cells"] = indices(report.non_manifold_cells);
  return out;
}

nb::dict merge_meshes(const nb::list& sources) {
  std::vector<mpp::Mesh> meshes;
  for (nb::handle source : sources) meshes.push_back(mesh_from_python(nb::cast<nb::dict>(source)));
  mpp::Mesh merged;
  {
    nb::gil_scoped_release released;
    merged = mpp::merge(meshes);
  }
  return mesh_to_python(merged);
}

// crop(mesh, low, high, any_corner); with a region name extract_region, with a cell type
// extract_cell_type.
nb::dict subset_mesh(const nb::dict& source, const std::vector<double>& low, const std::vector<double>& high,
                     bool any_corner, const std::string& region, const std::string& cell_type) {
  const mpp::Mesh mesh = mesh_from_python(source);
  mpp::Mesh part;
  {
    nb::gil_scoped_release released;
    part = !region.empty()      ? mpp::extract_region(mesh, region)
           : !cell_type.empty() ? mpp::extract_cell_type(mesh, cell_type)
                                : mpp::crop(mesh, low, high, any_corner);
  }
  return mesh_to_python(part);
}

// select_cells(mesh, keep): `keep` a uint8 array, one flag per block-major cell.
nb::dict select_cells_of(const nb::dict& source, nb::handle keep) {
  const mpp::Mesh mesh = mesh_from_python(source);
  const mpp::NDArray flags = view_of(keep, "keep");
  if (flags.dtype() != mpp::DType::uint8) throw std::invalid_argument("select_cells: keep must be uint8 flags");
  const std::span<const std::uint8_t> values = flags.values<std::uint8_t>();
  const std::vector<bool> kept(values.begin(), values.end());
  mpp::Mesh part;
  {
    nb::gil_scoped_release released;
    part = mpp::select_cells(mesh, kept);
  }
  return mesh_to_python(part);
}

// Returns (the Side regions added, as region tuples; the report as a dict).
nb::tuple derive_side_regions_of(const nb::dict& source) {
  mpp::Mesh mesh = mesh_from_python(source);
  const std::size_t existing = mesh.regions.size();
  mpp::SideRegionReport report;
  {
    nb::gil_scoped_release released;
    report = mpp::derive_side_regions(mesh);
  }
  nb::list added;
  for (std::size_t i = existing; i < mesh.regions.size(); ++i) {
    const mpp::Region& region = mesh.regions[i];
    added.append(nb::make_tuple(file_text(region.name), static_cast<int>(region.kind), region.dim, region.tag,
                                to_numpy(region.entries)));
  }
  nb::dict summary;
  const auto names_list = [](const std::vector<std::string>& names) {
    nb::list list;
    for (const std::string& name : names) list.append(file_text(name));
    return list;
  };
  summary["region_names"] = names_list(report.region_names);
  summary["unmatched_counts"] = nb::cast(report.unmatched_counts);
  summary["already_present"] = names_list(report.already_present);
  return nb::make_tuple(added, summary);
}

nb::list format_table() {
  nb::list table;
  for (const mpp::FormatInfo& format : mpp::registered_formats()) {
    nb::dict row;
    row["name"] = std::string(format.name);
    nb::list extensions;
    for (std::string_view extension : format.extensions) extensions.append(std::string(extension));
    row["extensions"] = extensions;
    row["description"] = std::string(format.description);
    row["can_read"] = format.read != nullptr;
    row["can_write"] = format.write != nullptr;
    nb::list options;
    for (const mpp::WriteOptionSpec& option : format.write_options)
      options.append(nb::make_tuple(std::string(option.name), std::string(option.default_value),
                                    std::string(option.help)));
    row["write_options"] = options;
    table.append(row);
  }
  return table;
}

nb::list cell_type_table() {
  nb::list table;
  for (const mpp::CellTypeInfo& info : mpp::cell_types())
    table.append(nb::make_tuple(std::string(info.name), info.num_nodes, info.dimension, info.vtk_id));
  return table;
}

// Distinct nodes per cell of a polyhedron block given as its three arrays (views).
nb::object polyhedron_node_counts_of(nb::handle connectivity, nb::handle offsets, nb::handle face_offsets) {
  mpp::CellBlock block;
  block.type = "polyhedron";
  block.connectivity = view_of(connectivity, "connectivity");
  block.offsets = view_of(offsets, "offsets");
  block.face_offsets = view_of(face_offsets, "face_offsets");
  for (const mpp::NDArray* array : {&block.connectivity, &block.offsets, &block.face_offsets})
    if (array->dtype() != mpp::DType::int64 || array->ndim() != 1) throw nb::type_error("polyhedron_node_counts: int64 vectors");
  mpp::NDArray counts;
  try {
    nb::gil_scoped_release released;
    counts = mpp::polyhedron_node_counts(block);
  } catch (const std::invalid_argument& error) {
    throw nb::value_error(error.what());
  }
  return to_numpy(counts);
}

nb::object block_bases_of(const std::vector<std::int64_t>& cell_counts) {
  return to_numpy(mpp::block_bases(cell_counts));
}

// ---- format tables meshio's private names are made of (meshioplusplus/_meshio_names) -----

template <typename Indices>
nb::tuple index_tuple(const Indices& indices) {
  nb::list values;
  for (const auto index : indices) values.append(static_cast<int>(index));
  return nb::tuple(values);
}

// (gmsh id, cell type, meshio_from_gmsh): meshio node i is Gmsh node order[i]; () where they agree.
nb::list gmsh_element_type_table() {
  nb::list table;
  for (const mpp::gmsh::GmshElementType& type : mpp::gmsh::element_types())
    table.append(nb::make_tuple(type.gmsh_id, std::string(type.name), index_tuple(type.meshio_from_gmsh)));
  return table;
}

// (XDMF topology name, cell type) in table order: a type's first spelling is the one written.
nb::list xdmf_topology_name_table() {
  nb::list table;
  for (const mpp::io::TopologyName& entry : mpp::io::kTopologyNames)
    table.append(nb::make_tuple(std::string(entry.xdmf), std::string(entry.ours)));
  return table;
}

// (Mixed id, cell type, nodes); nodes 0 where a node count follows the id.
nb::list xdmf_mixed_id_table() {
  nb::list table;
  for (const mpp::io::MixedId& entry : mpp::io::kMixedIds)
    table.append(nb::make_tuple(entry.id, std::string(entry.ours), entry.nodes));
  return table;
}

// vtk[k] = ours[p[k]] (its own inverse) for the VTK id whose node order differs; None otherwise.
nb::object vtk_node_permutation_of(int vtk_id) {
  const int* permutation = mpp::io::vtk_node_permutation(vtk_id);
  const mpp::CellTypeInfo* info = mpp::cell_type_from_vtk(vtk_id, 0);
  if (permutation == nullptr || info == nullptr || info->num_nodes <= 0) return nb::none();
  return index_tuple(std::span<const int>(permutation, static_cast<std::size_t>(info->num_nodes)));
}

// (Abaqus name, cell type): every Abaqus element name the reader knows.
nb::list abaqus_element_type_table() {
  nb::list table;
  for (const mpp::abaqus::detail::NameRow& row : mpp::abaqus::detail::element_names())
    table.append(nb::make_tuple(std::string(row.abaqus), std::string(row.cell)));
  return table;
}

// (cell type, name written for 2-D points, name written for 3-D points).
nb::list abaqus_written_name_table() {
  nb::list table;
  for (const mpp::abaqus::detail::WrittenName& row : mpp::abaqus::detail::written_names())
    table.append(nb::make_tuple(std::string(row.cell), std::string(row.planar), std::string(row.spatial)));
  return table;
}

// ---- time series (include/meshioplusplus/time_series.hpp) --------------------------------
// meshioplusplus.xdmf.TimeSeriesReader/Writer (src/python/meshioplusplus/xdmf.py) sit on these.

nb::dict named_arrays_to_python(const mpp::NamedList<mpp::NDArray>& arrays) {
  nb::dict result;
  for (const auto& [name, array] : arrays) result[file_text(name)] = to_numpy(array);
  return result;
}

nb::dict block_arrays_to_python(const mpp::NamedList<std::vector<mpp::NDArray>>& arrays) {
  nb::dict result;
  for (const auto& [name, per_block] : arrays) {
    nb::list values;
    for (const mpp::NDArray& array : per_block) values.append(to_numpy(array));
    result[file_text(name)] = values;
  }
  return result;
}

std::unique_ptr<mpp::TimeSeriesReader> open_time_series_of(const std::string& path, const std::string& format) {
  nb::gil_scoped_release released;
  return mpp::open_time_series(path, format);
}

std::unique_ptr<mpp::TimeSeriesWriter> create_time_series_of(const std::string& path, const std::string& format,
                                                             const nb::dict& options, bool append) {
  mpp::WriteOptions write_options;
  for (auto [name, value] : options) write_options.set(nb::cast<std::string>(name), nb::cast<std::string>(value));
  nb::gil_scoped_release released;
  return append ? mpp::append_time_series(path, format, write_options)
                : mpp::create_time_series(path, format, write_options);
}

void bind_time_series(nb::module_& m) {
  nb::class_<mpp::TimeSeriesReader>(m, "TimeSeriesReader")
      .def_prop_ro("num_steps", &mpp::TimeSeriesReader::num_steps)
      .def("time", &mpp::TimeSeriesReader::time, nb::arg("step"))
      .def("read_mesh", [](mpp::TimeSeriesReader& reader) {
        mpp::Mesh mesh;
        {
          nb::gil_scoped_release released;
          mesh = reader.read_mesh();
        }
        return mesh_to_python(mesh);
      })
      .def("read_step", [](mpp::TimeSeriesReader& reader, std::size_t step) {
        mpp::TimeStep data;
        {
          nb::gil_scoped_release released;
          data = reader.read_step(step);
        }
        return nb::make_tuple(data.time, named_arrays_to_python(data.point_data), block_arrays_to_python(data.cell_data),
                              named_arrays_to_python(data.field_data));
      }, nb::arg("step"));
  // Steps arrive as {"point_data": {...}, "cell_data": {name: [per block]}} of contiguous arrays.
  nb::class_<mpp::TimeSeriesWriter>(m, "TimeSeriesWriter")
      .def("write_mesh", [](mpp::TimeSeriesWriter& writer, const nb::dict& source) {
        const mpp::Mesh mesh = mesh_from_python(source);
        nb::gil_scoped_release released;
        writer.write_mesh(mesh);
      }, nb::arg("mesh"))
      .def("write_step", [](mpp::TimeSeriesWriter& writer, double time, const nb::dict& point_data,
                            const nb::dict& cell_data, const nb::dict& field_data) {
        mpp::TimeStep step;
        step.time = time;
        for (auto [name, array] : point_data) {
          const std::string key = nb::cast<std::string>(name);
          step.point_data.set(key, view_of(array, "point_data['" + key + "']"));
        }
        for (auto [name, arrays] : cell_data) {
          const std::string key = nb::cast<std::string>(name);
          std::vector<mpp::NDArray> per_block;
          for (nb::handle array : nb::iter(arrays)) per_block.push_back(view_of(array, "cell_data['" + key + "']"));
          step.cell_data.set(key, std::move(per_block));
        }
        // A step's own field data (Exodus global variables); formats without a place for it
        // leave it out, as their docs say.
        for (auto [name, array] : field_data) {
          const std::string key = nb::cast<std::string>(name);
          step.field_data.set(key, view_of(array, "field_data['" + key + "']"));
        }
        nb::gil_scoped_release released;
        writer.write_step(step);
      }, nb::arg("time"), nb::arg("point_data"), nb::arg("cell_data"), nb::arg("field_data") = nb::dict())
      .def("close", [](mpp::TimeSeriesWriter& writer) {
        nb::gil_scoped_release released;
        writer.close();
      });
  m.def("open_time_series", &open_time_series_of, nb::arg("path"), nb::arg("format") = "");
  m.def("create_time_series", &create_time_series_of, nb::arg("path"), nb::arg("format") = "",
        nb::arg("options") = nb::dict(), nb::arg("append") = false);
  // File sequences (include/meshioplusplus/file_sequence.hpp): (files, times) found, then opened.
  m.def("find_file_sequence", [](const std::string& source) {
    mpp::FileSequence sequence;
    {
      nb::gil_scoped_release released;
      sequence = mpp::find_file_sequence(source);
    }
    return nb::make_tuple(sequence.files, sequence.times);
  }, nb::arg("source"));
  m.def("open_file_sequence", [](std::vector<std::string> files, std::vector<double> times, const std::string& format) {
    return mpp::open_file_sequence({std::move(files), std::move(times)}, format);
  }, nb::arg("files"), nb::arg("times"), nb::arg("format") = "");
  m.def("create_file_sequence", [](const std::string& pattern, const std::string& format, const nb::dict& options,
                                   const std::string& index, long long first_number) {
    mpp::WriteOptions write_options;
    for (auto [name, value] : options) write_options.set(nb::cast<std::string>(name), nb::cast<std::string>(value));
    return mpp::create_file_sequence(pattern, format, write_options, index, first_number);
  }, nb::arg("pattern"), nb::arg("format") = "", nb::arg("options") = nb::dict(), nb::arg("index") = "",
        nb::arg("first_number") = 0);
  m.def("hdf5_available", &mpp::io::hdf5::available);
}

// ---- VTK XML file family: partitioned pieces, multiblock lists (docs/vtk-xml.md) ---------
// meshioplusplus.pvtu/pvtp.read(piece=, merge_points=) and vtm.write_blocks/read_blocks
// (src/python/meshioplusplus/_format_extras/) sit on these.

nb::dict read_partitioned(const std::string& path, const std::string& format, std::int64_t piece, bool merge_points) {
  if (format != "pvtu" && format != "pvtp") throw std::invalid_argument("read_partitioned: format must be pvtu or pvtp");
  mpp::PartitionedReadOptions options;
  if (piece >= 0) options.piece = static_cast<std::size_t>(piece);
  options.merge_points = merge_points;
  mpp::Mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = format == "pvtu" ? mpp::pvtu::read(path, options) : mpp::pvtp::read(path, options);
  }
  return mesh_to_python(mesh);
}

std::size_t num_pieces_of(const std::string& path, const std::string& format) {
  if (format != "pvtu" && format != "pvtp") throw std::invalid_argument("num_pieces: format must be pvtu or pvtp");
  nb::gil_scoped_release released;
  return format == "pvtu" ? mpp::pvtu::num_pieces(path) : mpp::pvtp::num_pieces(path);
}

void write_vtm_blocks(const std::string& path, const nb::list& blocks, const nb::dict& options) {
  std::vector<std::pair<std::string, mpp::Mesh>> meshes;
  for (nb::handle entry : blocks) {
    const nb::tuple pair = nb::cast<nb::tuple>(entry);
    meshes.emplace_back(nb::cast<std::string>(pair[0]), mesh_from_python(nb::cast<nb::dict>(pair[1])));
  }
  mpp::WriteOptions write_options;
  for (auto [name, value] : options) write_options.set(nb::cast<std::string>(name), nb::cast<std::string>(value));
  nb::gil_scoped_release released;
  mpp::vtm::write_blocks(path, meshes, write_options);
}

nb::list read_vtm_blocks(const std::string& path) {
  std::vector<std::pair<std::string, mpp::Mesh>> meshes;
  {
    nb::gil_scoped_release released;
    meshes = mpp::vtm::read_blocks(path);
  }
  nb::list result;
  for (const auto& [name, mesh] : meshes) result.append(nb::make_tuple(file_text(name), mesh_to_python(mesh)));
  return result;
}

// ---- VTKHDF partitions (docs/parallel.md): a partition range or a rank's share as a time
// series (meshioplusplus.vtkhdf.read_partitions, mio.read(path, comm=)), and the main file of a
// partitioned write (virtual datasets over the per-rank files).

// ---- Gmsh partitions (docs/parallel.md): the given Gmsh partition numbers (from 1) of one MSH
// file, or with ranks > 0 rank `rank`'s share of all of them.
nb::dict read_gmsh_partitions(const std::string& path, const std::vector<int>& partitions, int rank, int ranks,
                              bool ghost_cells) {
  mpp::gmsh::ReadOptions options;
  options.partitions = partitions;
  options.rank = rank;
  options.ranks = ranks;
  options.ghost_cells = ghost_cells;
  mpp::Mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = mpp::gmsh::read(path, options);
  }
  return mesh_to_python(mesh);
}

// ---- STEP / IGES with tessellation options (meshioplusplus.step.read / iges.read keywords).
nb::dict read_cad(const std::string& path, const std::string& format, double linear_deflection,
                  double angular_deflection, bool relative) {
  const mpp::io::occt::TessellationOptions options{linear_deflection, angular_deflection, relative};
  mpp::Mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = format == "iges" ? mpp::iges::read(path, options) : mpp::step::read(path, options);
  }
  return mesh_to_python(mesh);
}

// ---- MED meshes by name (meshioplusplus.med.read(mesh_name=), mesh_names, TimeSeriesReader).
// Names come to Python as file_text decodes them; a name given back is the file's spelling that
// decodes to it (a Latin-1 name too), else its UTF-8 text (which the read refuses, listing the meshes).
mpp::med::ReadOptions med_mesh(const std::string& path, const nb::str& mesh_name) {
  if (nb::len(mesh_name) == 0) return {};
  for (const std::string& spelling : mpp::med::mesh_names(path))
    if (file_text(spelling).equal(mesh_name)) return {spelling};
  return {nb::cast<std::string>(mesh_name)};
}

nb::dict read_med(const std::string& path, const nb::str& mesh_name) {
  const mpp::med::ReadOptions options = med_mesh(path, mesh_name);
  mpp::Mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = mpp::med::read(path, options);
  }
  return mesh_to_python(mesh);
}

// Format read options the registry's read() has no place for (glTF's instancing, XYZ columns).
nb::dict read_gltf(const std::string& path, bool expand_instances) {
  mpp::Mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = mpp::gltf::read(path, {expand_instances});
  }
  return mesh_to_python(mesh);
}

nb::dict read_xyz(const std::string& path, const std::string& columns) {
  mpp::Mesh mesh;
  {
    nb::gil_scoped_release released;
    mesh = mpp::xyz::read(path, {columns});
  }
  return mesh_to_python(mesh);
}

nb::list med_mesh_names(const std::string& path) {
  nb::list names;
  for (const std::string& name : mpp::med::mesh_names(path)) names.append(file_text(name));
  return names;
}

std::unique_ptr<mpp::TimeSeriesReader> open_med_time_series(const std::string& path, const nb::str& mesh_name) {
  const mpp::med::ReadOptions options = med_mesh(path, mesh_name);
  nb::gil_scoped_release released;
  return mpp::med::open_time_series(path, options);
}

std::unique_ptr<mpp::TimeSeriesReader> open_vtkhdf_partitions(const std::string& path, std::int64_t first,
                                                              std::int64_t count) {
  nb::gil_scoped_release released;
  return mpp::vtkhdf::open_time_series(path, {0, first, count});
}

std::unique_ptr<mpp::TimeSeriesReader> open_vtkhdf_share(const std::string& path, std::int64_t rank, std::int64_t size) {
  nb::gil_scoped_release released;
  return mpp::vtkhdf::open_share(path, rank, size);
}

void write_vtkhdf_partitioned_main(const std::string& path, const std::vector<std::string>& partition_files) {
  nb::gil_scoped_release released;
  mpp::vtkhdf::write_partitioned_main(path, partition_files);
}

}  // namespace

namespace meshioplusplus::bindings {
nb::dict mesh_dict(const Mesh& mesh) { return mesh_to_python(mesh); }
Mesh mesh_from_dict(const nb::dict& source) { return mesh_from_python(source); }
nb::str text_from_file(const std::string& bytes) { return file_text(bytes); }
}  // namespace meshioplusplus::bindings

NB_MODULE(_core, m) {
  m.doc() = "meshio++ C++ core (internal; use the meshioplusplus package)";
  nb::register_exception_translator(translate_exceptions);
  m.def("read", &read_mesh, nb::arg("path"), nb::arg("format") = "");
  mpp::bindings::bind_read_selection(m);
  m.def("read_structured_implicit", &read_structured_implicit, nb::arg("path"), nb::arg("format"));
  m.def("image_grid_points", &image_grid_points_of, nb::arg("extent"), nb::arg("origin"), nb::arg("spacing"),
        nb::arg("direction"));
  m.def("rectilinear_grid_points", &rectilinear_grid_points_of, nb::arg("x"), nb::arg("y"), nb::arg("z"),
        nb::arg("float32"));
  m.def("structured_grid_cells", &structured_grid_cells_of, nb::arg("dims"));
  m.def("write", &write_mesh, nb::arg("path"), nb::arg("mesh"), nb::arg("format") = "",
        nb::arg("options") = nb::dict());
  m.def("formats", &format_table);
  // The format the core reads `path` as without a name: by extension, or a directory's (an
  // OpenFOAM case); "" when it cannot tell. Python's dispatch asks it for directories.
  m.def("format_for_path", [](const std::string& path) {
    const mpp::FormatInfo* format = mpp::format_for_path(path);
    return format == nullptr ? std::string() : std::string(format->name);
  }, nb::arg("path"));
  m.def("cell_types", &cell_type_table);
  m.def("gmsh_element_types", &gmsh_element_type_table);
  m.def("xdmf_topology_names", &xdmf_topology_name_table);
  m.def("xdmf_mixed_ids", &xdmf_mixed_id_table);
  m.def("vtk_node_permutation", &vtk_node_permutation_of, nb::arg("vtk_id"));
  m.def("abaqus_element_types", &abaqus_element_type_table);
  m.def("abaqus_written_names", &abaqus_written_name_table);
  m.def("block_bases", &block_bases_of, nb::arg("cell_counts"));
  m.def("polyhedron_node_counts", &polyhedron_node_counts_of, nb::arg("connectivity"), nb::arg("offsets"),
        nb::arg("face_offsets"));
  m.def("derive_side_regions", &derive_side_regions_of, nb::arg("mesh"));
  m.def("clean", &clean_mesh, nb::arg("mesh"), nb::arg("operations"));
  m.def("extract_surface", &extract_surface_of, nb::arg("mesh"));
  m.def("check", &check_mesh, nb::arg("mesh"));
  m.def("merge", &merge_meshes, nb::arg("meshes"));
  m.def("subset", &subset_mesh, nb::arg("mesh"), nb::arg("low"), nb::arg("high"), nb::arg("any_corner") = false,
        nb::arg("region") = "", nb::arg("cell_type") = "");
  m.def("select_cells", &select_cells_of, nb::arg("mesh"), nb::arg("keep"));
  m.def("zlib_available", &meshioplusplus::io::zlib_available);
  // The optional libraries this build links: {"zlib": True, "hdf5": False, ...}.
  m.def("features", []() {
    nb::dict features;
    for (const mpp::io::BlockCodec& codec : mpp::io::block_codecs()) features[nb::str(codec.name.data(), codec.name.size())] = codec.available;
    features["libdeflate"] = mpp::io::zlib_fast_library() == "libdeflate";
    features["isa-l"] = mpp::io::zlib_inflate_library() == "isa-l";
    features["hdf5"] = mpp::io::hdf5::available();
    features["netcdf"] = mpp::io::netcdf_available();
    features["cgns"] = mpp::io::cgns_available();
    features["occt"] = mpp::io::occt::available();
    return features;
  });
  m.def("thread_count", &mpp::thread_count);
  m.def("set_thread_count", &mpp::set_thread_count, nb::arg("count"));
  m.def("max_array_bytes", &mpp::max_array_bytes);
  m.def("set_max_array_bytes", &mpp::set_max_array_bytes, nb::arg("bytes"));
  bind_time_series(m);
  m.def("read_partitioned", &read_partitioned, nb::arg("path"), nb::arg("format"), nb::arg("piece") = -1,
        nb::arg("merge_points") = false);
  m.def("num_pieces", &num_pieces_of, nb::arg("path"), nb::arg("format"));
  m.def("write_vtm_blocks", &write_vtm_blocks, nb::arg("path"), nb::arg("blocks"), nb::arg("options") = nb::dict());
  m.def("read_vtm_blocks", &read_vtm_blocks, nb::arg("path"));
  m.def("open_vtkhdf_partitions", &open_vtkhdf_partitions, nb::arg("path"), nb::arg("first"), nb::arg("count"));
  m.def("open_vtkhdf_share", &open_vtkhdf_share, nb::arg("path"), nb::arg("rank"), nb::arg("size"));
  m.def("read_gmsh_partitions", &read_gmsh_partitions, nb::arg("path"), nb::arg("partitions") = std::vector<int>{},
        nb::arg("rank") = 0, nb::arg("ranks") = 0, nb::arg("ghost_cells") = false);
  m.def("write_vtkhdf_partitioned_main", &write_vtkhdf_partitioned_main, nb::arg("path"), nb::arg("partition_files"));
  m.def("read_cad", &read_cad, nb::arg("path"), nb::arg("format"), nb::arg("linear_deflection") = 0.0,
        nb::arg("angular_deflection") = 0.5, nb::arg("relative") = false);
  m.def("read_med", &read_med, nb::arg("path"), nb::arg("mesh_name") = "");
  m.def("read_gltf", &read_gltf, nb::arg("path"), nb::arg("expand_instances") = true);
  m.def("read_xyz", &read_xyz, nb::arg("path"), nb::arg("columns") = "");
  m.def("med_mesh_names", &med_mesh_names, nb::arg("path"));
  m.def("open_med_time_series", &open_med_time_series, nb::arg("path"), nb::arg("mesh_name") = "");
  meshioplusplus::bindings::bind_allocator_shim(m);
}
