// Differential fuzzing of the structured VTK readers (.vts, .vtr, .vti). They have two paths:
// the explicit read (C++ users, the CLI, collections) builds points and cells during the read;
// the implicit read plus the functions that make the geometry later is what Python's
// meshioplusplus.read gives. On every input both must agree: both raise ReadError, or both
// read, with bit-equal points, cells, point, cell and field data. A disagreement aborts, which
// libFuzzer reports as a crash with this file's message.
#include "structured_both.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>

#include "formats/vtk_xml/vtk_xml.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::fuzzing {
namespace {

[[noreturn]] void disagree(std::string_view format, const char* what) {
  std::fprintf(stderr, "structured_both: %.*s explicit and implicit reads disagree: %s\n",
               static_cast<int>(format.size()), format.data(), what);
  std::abort();
}

bool same_bits(const NDArray& a, const NDArray& b) {
  if (a.empty_handle() || b.empty_handle()) return a.empty_handle() == b.empty_handle();
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.nbytes() == 0 || std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
}

template <std::size_t N, class T> std::array<T, N> field(const Mesh& mesh, std::string_view name, std::string_view format) {
  const NDArray* array = mesh.field_data.find(name);
  if (array == nullptr || array->size() != N || array->dtype() != dtype_of<T>()) disagree(format, "vtk:* field data");
  std::array<T, N> out{};
  std::copy_n(array->data_as<T>(), N, out.begin());
  return out;
}

Mesh read_explicit(const std::string& path, std::string_view format) {
  if (format == "vts") return vts::read(path);
  if (format == "vtr") return vtr::read(path);
  return vti::read(path);
}

}  // namespace

Mesh read_structured_both(const std::string& path, std::string_view format) {
  std::optional<Mesh> explicit_mesh;
  std::exception_ptr explicit_error;
  try {
    explicit_mesh = read_explicit(path, format);
  } catch (const ReadError&) {
    explicit_error = std::current_exception();
  }
  std::optional<StructuredImplicitRead> implicit;
  try {
    implicit = read_structured_implicit(path, format);
  } catch (const ReadError&) {
  }
  if (explicit_mesh.has_value() != implicit.has_value()) disagree(format, "one read fails, the other does not");
  if (!explicit_mesh) std::rethrow_exception(explicit_error);

  const Mesh& expected = *explicit_mesh;
  const Mesh& actual = implicit->mesh;
  if (!actual.cells.empty()) disagree(format, "the implicit read built cells");
  NDArray points = actual.points;
  if (format == "vtr") {
    points = rectilinear_grid_points(implicit->axes, implicit->points_dtype);
  } else if (format == "vti") {
    points = image_grid_points(field<6, std::int64_t>(actual, "vtk:WholeExtent", format),
                               field<3, double>(actual, "vtk:Origin", format), field<3, double>(actual, "vtk:Spacing", format),
                               field<9, double>(actual, "vtk:Direction", format));
  }
  if (!same_bits(expected.points, points)) disagree(format, "points");
  const std::optional<CellBlock> cells = io::structured_grid_cells(implicit->dims);
  if (cells.has_value() != !expected.cells.empty()) disagree(format, "whether there are cells");
  if (cells && (expected.cells.size() != 1 || expected.cells[0].type != cells->type ||
                !same_bits(expected.cells[0].connectivity, cells->connectivity)))
    disagree(format, "cells");
  if (expected.point_data.size() != actual.point_data.size() || expected.cell_data.size() != actual.cell_data.size() ||
      expected.field_data.size() != actual.field_data.size())
    disagree(format, "the data arrays read");
  for (const auto& [name, array] : expected.point_data) {
    const NDArray* other = actual.point_data.find(name);
    if (other == nullptr || !same_bits(array, *other)) disagree(format, "point data");
  }
  for (const auto& [name, arrays] : expected.cell_data) {
    const std::vector<NDArray>* other = actual.cell_data.find(name);
    if (other == nullptr || other->size() != arrays.size()) disagree(format, "cell data blocks");
    for (std::size_t b = 0; b < arrays.size(); ++b)
      if (!same_bits(arrays[b], (*other)[b])) disagree(format, "cell data");
  }
  for (const auto& [name, array] : expected.field_data) {
    const NDArray* other = actual.field_data.find(name);
    if (other == nullptr || !same_bits(array, *other)) disagree(format, "field data");
  }
  return std::move(*explicit_mesh);
}

}  // namespace meshioplusplus::fuzzing
