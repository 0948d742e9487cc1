// VTK XML structured grids: StructuredGrid (.vts), RectilinearGrid (.vtr), ImageData (.vti),
// read and write.
//
// What the formats hold: a WholeExtent x0 x1 y0 y1 z0 z1 of point indices, pieces each
// covering a sub-extent, point and cell data in VTK's order (x fastest). StructuredGrid pieces
// carry explicit Points; RectilinearGrid pieces three Coordinates arrays (x, y, z);
// ImageData only Origin, Spacing and an optional 3×3 Direction on the dataset element.
//
// What becomes what on read: points in VTK's order (x fastest; ImageData points are
// origin + direction · (index × spacing), float64) and one block of line (1-D), quad (2-D)
// or hexahedron cells over the axes longer than one point — VTK's pixel/voxel cells in quad
// and hexahedron node order — numbered as VTK numbers its cells, so cell data lines up.
// The structure is kept in field_data so that writing back reproduces the file:
//   "vtk:WholeExtent" int64 (6,)  all three kinds
//   "vtk:Origin", "vtk:Spacing" float64 (3,), "vtk:Direction" float64 (9,)  ImageData
// (RectilinearGrid coordinates are the points' own). read_structured_implicit reads the same
// but leaves out the cells and, for RectilinearGrid and ImageData, the points — Python makes
// them on first use (VTK's readers never build them). Several pieces are placed into the whole
// extent by their Extent; an Extent outside WholeExtent, or arrays whose length disagrees
// with it, are ReadErrors naming the file and the piece.
//
// Writing needs "vtk:WholeExtent" (a mesh read from any of the three has it) with as many
// points as it spans; cells are implied by the extent and not written (cell data is, when the
// mesh has exactly the extent's cell count). The "vtk:*" entries become attributes, not
// FieldData. RectilinearGrid takes its coordinates from the points (they must form a
// rectilinear product); ImageData takes Origin/Spacing/Direction from field_data, or derives
// an axis-aligned origin and spacing from the points when they are absent.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "formats/vtk_xml/vtk_xml.hpp"
#include "formats/vtk_xml/vtk_xml_common.hpp"
#include "core/parallel_ranges.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus {
namespace {

using namespace vtk_xml_detail;
using io::vtk_xml::DocumentPlan;
using io::vtk_xml::PiecePlan;
using io::vtk_xml::SectionPlan;

enum class Kind { structured, rectilinear, image };

struct KindInfo {
  Kind kind;
  std::string_view format;
  std::string_view type;
};
constexpr KindInfo kStructured{Kind::structured, "vts", "StructuredGrid"};
constexpr KindInfo kRectilinear{Kind::rectilinear, "vtr", "RectilinearGrid"};
constexpr KindInfo kImage{Kind::image, "vti", "ImageData"};

constexpr std::string_view kWholeExtent = "vtk:WholeExtent";
constexpr std::string_view kOrigin = "vtk:Origin";
constexpr std::string_view kSpacing = "vtk:Spacing";
constexpr std::string_view kDirection = "vtk:Direction";

using Extent = std::array<std::int64_t, 6>;
using Dims = std::array<std::int64_t, 3>;

Dims dims_of(const Extent& extent) {
  return {extent[1] - extent[0] + 1, extent[3] - extent[2] + 1, extent[5] - extent[4] + 1};
}

std::int64_t point_count(const Dims& dims) { return dims[0] * dims[1] * dims[2]; }

std::int64_t cell_count(const Dims& dims) {
  std::int64_t count = 1;
  bool any = false;
  for (std::int64_t d : dims)
    if (d > 1) {
      count *= d - 1;
      any = true;
    }
  return any ? count : 0;
}

std::string extent_text(const Extent& extent) {
  std::string text;
  for (std::int64_t value : extent) text += (text.empty() ? "" : " ") + std::to_string(value);
  return text;
}

std::string number_text(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

template <std::size_t N> std::string numbers_text(const std::array<double, N>& values) {
  std::string text;
  for (double value : values) text += (text.empty() ? "" : " ") + number_text(value);
  return text;
}

class StructuredReader {
 public:
  StructuredReader(const KindInfo& kind, const io::MappedFile& file) : kind_(kind), reader_(file, kind.format) {}

  Mesh read() { return read_into(nullptr); }

  StructuredImplicitRead read_implicit() {
    StructuredImplicitRead result;
    result.mesh = read_into(&result);
    return result;
  }

 private:
  // implicit: leave out what the file only implies (cells; ImageData's and RectilinearGrid's
  // points, whose coordinates go to implicit->axes for the latter).
  Mesh read_into(StructuredImplicitRead* implicit) {
    const std::array<std::string_view, 1> types{kind_.type};
    const auto& layout = reader_.scan(types);
    const Extent whole = extent_of(layout.dataset, "WholeExtent", layout.dataset_offset, "");
    const Dims dims = dims_of(whole);
    check_addressable(dims, layout.dataset_offset);
    Mesh mesh;
    const std::int64_t num_cells = cell_count(dims);
    if (layout.pieces.empty()) reader_.fail(layout.dataset_offset, "no <Piece>");
    std::vector<Extent> extents;
    for (std::size_t p = 0; p < layout.pieces.size(); ++p) {
      const Piece& piece = layout.pieces[p];
      const Extent extent = extent_of(piece.attributes, "Extent", piece.tag_offset, piece_name(p));
      for (std::size_t axis = 0; axis < 3; ++axis)
        if (extent[2 * axis] < whole[2 * axis] || extent[2 * axis + 1] > whole[2 * axis + 1])
          reader_.fail(piece.tag_offset, piece_name(p) + ": Extent " + extent_text(extent) + " lies outside WholeExtent " +
                                             extent_text(whole));
      extents.push_back(extent);
    }
    const bool single = extents.size() == 1 && extents[0] == whole;

    switch (kind_.kind) {
      case Kind::structured: mesh.points = read_points(whole, extents, single); break;
      case Kind::rectilinear: {
        bool all_float32 = true;
        std::array<NDArray, 3> axes = rectilinear_axes(whole, extents, all_float32);
        const DType dtype = all_float32 ? DType::float32 : DType::float64;
        if (implicit != nullptr) {
          implicit->axes = std::move(axes);
          implicit->points_dtype = dtype;
        } else {
          mesh.points = rectilinear_grid_points(axes, dtype);
        }
        break;
      }
      case Kind::image: {
        const ImageGeometry geometry = image_geometry(mesh);
        if (implicit == nullptr) mesh.points = image_grid_points(whole, geometry.origin, geometry.spacing, geometry.direction);
        break;
      }
    }
    read_data("PointData", whole, extents, single, false, mesh);
    if (implicit != nullptr) implicit->dims = dims;
    else if (std::optional<CellBlock> cells = io::structured_grid_cells(dims)) mesh.cells.push_back(std::move(*cells));
    if (num_cells > 0) read_data("CellData", whole, extents, single, true, mesh);
    reader_.read_field_data(mesh);
    NDArray extent_array = NDArray::allocate(DType::int64, {6});
    std::copy(whole.begin(), whole.end(), extent_array.data_as<std::int64_t>());
    mesh.field_data.set(std::string(kWholeExtent), std::move(extent_array));
    return mesh;
  }

  std::string piece_name(std::size_t p) const { return "piece " + std::to_string(p); }

  Extent extent_of(const io::vtk_xml::Attributes& attributes, std::string_view name, std::size_t offset,
                   const std::string& where) const {
    const auto values = reader_.integer_list_attribute(attributes, name, 6, offset);
    if (!values) reader_.fail(offset, (where.empty() ? "" : where + ": ") + "no " + std::string(name) + " attribute");
    Extent extent{};
    std::copy(values->begin(), values->end(), extent.begin());
    for (std::size_t axis = 0; axis < 3; ++axis)
      if (extent[2 * axis + 1] < extent[2 * axis])
        reader_.fail(offset, (where.empty() ? "" : where + ": ") + std::string(name) + " " + extent_text(extent) +
                                 " ends before it starts");
    return extent;
  }

  void check_addressable(const Dims& dims, std::size_t offset) const {
    std::uint64_t total = 1;
    for (std::int64_t d : dims) {
      if (static_cast<std::uint64_t>(d) > (std::uint64_t{1} << 62) / total)
        reader_.fail(offset, "WholeExtent spans more points than can be addressed");
      total *= static_cast<std::uint64_t>(d);
    }
    // The generated cells (8 int64 each) and points must fit the read limit.
    if (total > max_array_bytes() / 64)
      reader_.fail(offset, "WholeExtent spans " + std::to_string(total) +
                               " points, more than the read limit allows (max_array_bytes)");
  }

  // The array of one section per piece, checked to hold the piece's rows.
  const ArrayInfo& piece_array(std::size_t p, std::string_view section_name, const ArrayInfo* wanted,
                               std::int64_t rows, std::int64_t components) const {
    const Piece& piece = reader_.layout().pieces[p];
    const Section* section = piece.section(section_name);
    const ArrayInfo* info = nullptr;
    if (section != nullptr) info = wanted == nullptr ? (section->arrays.empty() ? nullptr : &section->arrays.front())
                                                     : section->find(wanted->name);
    if (info == nullptr)
      reader_.fail(piece.tag_offset, piece_name(p) + " has no " + std::string(section_name) +
                                         (wanted ? " array '" + wanted->name + "'" : std::string()));
    if (components > 0 && info->components != components)
      reader_.fail(info->tag_offset, piece_name(p) + ": " + DataArrayReader::label(*info) + " has " +
                                         std::to_string(info->components) + " components, expected " +
                                         std::to_string(components));
    if (info->encoding != io::vtk_xml::Encoding::ascii) {
      const std::uint64_t stored = reader_.stored_count(*info);
      const auto expected = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(info->components);
      if (stored != expected)
        reader_.fail(info->tag_offset, piece_name(p) + ": " + DataArrayReader::label(*info) + " holds " +
                                           std::to_string(stored) + " values but the piece's Extent needs " +
                                           std::to_string(expected));
    }
    return *info;
  }

  // Rows of a piece array placed at their indices in the whole extent (points or cells).
  // A piece flat along an axis where the whole is not (one layer of boundary points) holds no
  // cell of the whole: VTK counts lines or quads of its own there, which are left out.
  void place(const NDArray& part, const Extent& extent, const Extent& whole, bool cells, NDArray& out) const {
    Dims part_dims = dims_of(extent), whole_dims = dims_of(whole);
    if (cells) {
      for (std::size_t axis = 0; axis < 3; ++axis) {
        if (whole_dims[axis] == 1) continue;
        if (part_dims[axis] == 1) return;
        part_dims[axis] -= 1;
        whole_dims[axis] -= 1;
      }
    }
    if (part.shape().empty() || part.shape()[0] < point_count(part_dims))
      reader_.fail(reader_.layout().dataset_offset, "a piece's array is shorter than its Extent");
    const std::size_t row_bytes = static_cast<std::size_t>(part.row_width()) * dtype_size(part.dtype());
    const auto* source = static_cast<const std::uint8_t*>(part.data());
    auto* target = static_cast<std::uint8_t*>(out.data());
    const std::int64_t i0 = extent[0] - whole[0], j0 = extent[2] - whole[2], k0 = extent[4] - whole[4];
    for (std::int64_t k = 0; k < part_dims[2]; ++k)
      for (std::int64_t j = 0; j < part_dims[1]; ++j) {
        const std::int64_t from = (k * part_dims[1] + j) * part_dims[0];
        const std::int64_t to = ((k + k0) * whole_dims[1] + (j + j0)) * whole_dims[0] + i0;
        std::memcpy(target + static_cast<std::size_t>(to) * row_bytes, source + static_cast<std::size_t>(from) * row_bytes,
                    static_cast<std::size_t>(part_dims[0]) * row_bytes);
      }
  }

  NDArray read_points(const Extent& whole, const std::vector<Extent>& extents, bool single) const {
    const std::string_view section = "Points";
    const std::int64_t rows = point_count(dims_of(whole));
    if (single) {
      const ArrayInfo& info = piece_array(0, section, nullptr, rows, 3);
      const DType dtype = *info.dtype == DType::float32 ? DType::float32 : DType::float64;
      return reader_.read_array_as(info, {rows, 3}, dtype, Lifetime::result);
    }
    NDArray out;
    for (std::size_t p = 0; p < extents.size(); ++p) {
      const std::int64_t piece_rows = point_count(dims_of(extents[p]));
      const ArrayInfo& info = piece_array(p, section, nullptr, piece_rows, 3);
      const DType dtype = p == 0 && *info.dtype == DType::float32 ? DType::float32 : out.empty_handle() ? DType::float64 : out.dtype();
      if (out.empty_handle()) out = NDArray::zeros(dtype, {rows, 3});
      const NDArray part = reader_.read_array_as(info, {piece_rows, 3}, out.dtype(), Lifetime::scratch);
      place(part, extents[p], whole, false, out);
    }
    return out;
  }

  void read_data(std::string_view section, const Extent& whole, const std::vector<Extent>& extents, bool single,
                 bool cells, Mesh& mesh) const {
    const Section* reference = reader_.layout().pieces.front().section(section);
    if (reference == nullptr) return;
    const auto rows_of = [&](const Extent& extent) {
      return cells ? cell_count(dims_of(extent)) : point_count(dims_of(extent));
    };
    for (const ArrayInfo& wanted : reference->arrays) {
      NDArray whole_array;
      if (single) {
        const ArrayInfo& info = piece_array(0, section, &wanted, rows_of(whole), 0);
        whole_array = reader_.read_array(info, DataArrayReader::array_shape(info, rows_of(whole)), Lifetime::result);
      } else {
        whole_array = NDArray::zeros(*wanted.dtype, DataArrayReader::array_shape(wanted, rows_of(whole)));
        for (std::size_t p = 0; p < extents.size(); ++p) {
          const std::int64_t rows = rows_of(extents[p]);
          const ArrayInfo& info = piece_array(p, section, &wanted, rows, wanted.components);
          const NDArray part = reader_.read_array_as(info, DataArrayReader::array_shape(info, rows), *wanted.dtype,
                                                     Lifetime::scratch);
          place(part, extents[p], whole, cells, whole_array);
        }
      }
      if (cells) mesh.cell_data.set(wanted.name, {std::move(whole_array)});
      else mesh.point_data.set(wanted.name, std::move(whole_array));
    }
  }

  // Coordinates of the whole extent (float64, one array per axis), assembled from the pieces'
  // own ranges; all_float32 tells whether every stored coordinate array was float32.
  std::array<NDArray, 3> rectilinear_axes(const Extent& whole, const std::vector<Extent>& extents,
                                          bool& all_float32) const {
    const Dims dims = dims_of(whole);
    std::array<NDArray, 3> axes;
    std::array<std::vector<bool>, 3> seen;
    all_float32 = true;
    for (std::size_t axis = 0; axis < 3; ++axis) {
      axes[axis] = NDArray::zeros(DType::float64, {dims[axis]});
      seen[axis].assign(static_cast<std::size_t>(dims[axis]), false);
    }
    for (std::size_t p = 0; p < extents.size(); ++p) {
      const Piece& piece = reader_.layout().pieces[p];
      const Section* coordinates = piece.section("Coordinates");
      if (coordinates == nullptr || coordinates->arrays.size() != 3)
        reader_.fail(piece.tag_offset, piece_name(p) + " needs <Coordinates> with three arrays (x, y, z)");
      const Dims piece_dims = dims_of(extents[p]);
      for (std::size_t axis = 0; axis < 3; ++axis) {
        const ArrayInfo& info = coordinates->arrays[axis];
        if (info.is_string() || info.components != 1)
          reader_.fail(info.tag_offset, piece_name(p) + ": coordinate arrays have one numeric component");
        if (info.encoding != io::vtk_xml::Encoding::ascii && reader_.stored_count(info) != static_cast<std::uint64_t>(piece_dims[axis]))
          reader_.fail(info.tag_offset, piece_name(p) + ": " + DataArrayReader::label(info) + " holds " +
                                            std::to_string(reader_.stored_count(info)) + " values but the Extent needs " +
                                            std::to_string(piece_dims[axis]));
        all_float32 = all_float32 && *info.dtype == DType::float32;
        const NDArray values = reader_.read_array_as(info, {piece_dims[axis]}, DType::float64, Lifetime::scratch);
        const double* v = values.data_as<double>();
        const std::int64_t first = extents[p][2 * axis] - whole[2 * axis];
        double* whole_axis = axes[axis].data_as<double>();
        for (std::int64_t i = 0; i < piece_dims[axis]; ++i) {
          whole_axis[first + i] = v[i];
          seen[axis][static_cast<std::size_t>(first + i)] = true;
        }
      }
    }
    for (std::size_t axis = 0; axis < 3; ++axis)
      for (bool covered : seen[axis])
        if (!covered) reader_.fail(reader_.layout().dataset_offset, "the pieces' Extents do not cover WholeExtent");
    return axes;
  }

  struct ImageGeometry {
    std::array<double, 3> origin, spacing;
    std::array<double, 9> direction;
  };

  // ImageData's Origin, Spacing and Direction (VTK's defaults where absent), also kept in
  // field_data.
  ImageGeometry image_geometry(Mesh& mesh) const {
    const auto& layout = reader_.layout();
    ImageGeometry geometry{triple(layout.dataset, "Origin", {0, 0, 0}), triple(layout.dataset, "Spacing", {1, 1, 1}),
                           {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    if (const auto values = reader_.float_list_attribute(layout.dataset, "Direction", 9, layout.dataset_offset))
      std::copy(values->begin(), values->end(), geometry.direction.begin());
    const auto keep = [&](std::string_view name, const double* values, std::int64_t count) {
      NDArray array = NDArray::allocate(DType::float64, {count});
      std::copy(values, values + count, array.data_as<double>());
      mesh.field_data.set(std::string(name), std::move(array));
    };
    keep(kOrigin, geometry.origin.data(), 3);
    keep(kSpacing, geometry.spacing.data(), 3);
    keep(kDirection, geometry.direction.data(), 9);
    return geometry;
  }

  std::array<double, 3> triple(const io::vtk_xml::Attributes& attributes, std::string_view name,
                               std::array<double, 3> fallback) const {
    const auto values = reader_.float_list_attribute(attributes, name, 3, reader_.layout().dataset_offset);
    if (!values) return fallback;
    return {(*values)[0], (*values)[1], (*values)[2]};
  }

  const KindInfo& kind_;
  DataArrayReader reader_;
};

Mesh read_structured(const KindInfo& kind, const std::string& path) {
  const io::MappedFile file(path, kind.format);
  io::reject_empty_file(file.bytes(), path, kind.format);
  return StructuredReader(kind, file).read();
}

// Point layers (k, j) on all cores; coordinate(axis, index) gives one coordinate.
template <class T, class Coordinate> NDArray grid_points(const Dims& dims, DType dtype, Coordinate&& coordinate) {
  NDArray points = NDArray::allocate(dtype, {point_count(dims), 3});
  T* const out = points.data_as<T>();
  parallel_ranges(static_cast<std::size_t>(dims[1] * dims[2]), std::size_t{16}, [&](std::size_t first, std::size_t last) {
    for (std::size_t layer = first; layer < last; ++layer) {
      const auto j = static_cast<std::int64_t>(layer) % dims[1], k = static_cast<std::int64_t>(layer) / dims[1];
      T* row = out + static_cast<std::int64_t>(layer) * dims[0] * 3;
      for (std::int64_t i = 0; i < dims[0]; ++i) {
        const std::array<double, 3> point = coordinate(i, j, k);
        *row++ = static_cast<T>(point[0]);
        *row++ = static_cast<T>(point[1]);
        *row++ = static_cast<T>(point[2]);
      }
    }
  });
  return points;
}

// ------------------------------------------------------------------ writing

const NDArray& field(const Mesh& mesh, std::string_view name, std::int64_t size, std::string_view kind) {
  const NDArray* array = mesh.field_data.find(name);
  if (array == nullptr)
    throw std::invalid_argument(std::string(kind) + " needs field_data['" + std::string(name) +
                                "'] (a mesh read from a structured VTK file has it)");
  if (static_cast<std::int64_t>(array->size()) != size)
    throw std::invalid_argument("field_data['" + std::string(name) + "'] must hold " + std::to_string(size) + " values");
  return *array;
}

template <std::size_t N> std::array<double, N> doubles_of(const NDArray& array) {
  const NDArray values = array.dtype() == DType::float64 ? array : array.astype(DType::float64);
  std::array<double, N> out{};
  std::copy_n(values.data_as<double>(), N, out.begin());
  return out;
}

double coordinate(const NDArray& points, std::int64_t row, std::int64_t axis) {
  if (axis >= points.dim(1)) return 0.0;
  double value = 0;
  visit_dtype(points.dtype(), [&](auto tag) {
    using T = decltype(tag);
    value = static_cast<double>(points.data_as<T>()[row * points.dim(1) + axis]);
  });
  return value;
}

void write_structured(const KindInfo& kind, const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const io::vtk_xml::WriteSettings settings = io::vtk_xml::parse_write_settings(options);
  // The cells are implied by the extent and not written: their node indices are not read.
  validate(mesh, CellCheck::shapes_only);
  const NDArray extent_array = field(mesh, kWholeExtent, 6, kind.type).astype(DType::int64);
  Extent whole{};
  std::copy_n(extent_array.data_as<std::int64_t>(), 6, whole.begin());
  for (std::size_t axis = 0; axis < 3; ++axis)
    if (whole[2 * axis + 1] < whole[2 * axis]) throw std::invalid_argument("vtk:WholeExtent ends before it starts");
  const Dims dims = dims_of(whole);
  if (point_count(dims) != mesh.num_points())
    throw std::invalid_argument("vtk:WholeExtent " + extent_text(whole) + " spans " + std::to_string(point_count(dims)) +
                                " points but the mesh has " + std::to_string(mesh.num_points()));
  const bool with_cell_data = mesh.num_cells() == cell_count(dims);
  if (!mesh.cell_data.empty() && !with_cell_data)
    throw std::invalid_argument("the mesh has " + std::to_string(mesh.num_cells()) + " cells but vtk:WholeExtent " +
                                extent_text(whole) + " spans " + std::to_string(cell_count(dims)) + "; its cell data cannot be written");

  DocumentPlan plan;
  plan.type = std::string(kind.type);
  plan.dataset_attributes = "WholeExtent=\"" + extent_text(whole) + "\"";
  Mesh fields;  // field data without the entries that become attributes
  for (const auto& [name, array] : mesh.field_data)
    if (!name.starts_with("vtk:")) fields.field_data.set(name, array);
  fields.string_field_data = mesh.string_field_data;
  io::vtk_xml::plan_field_data(fields, plan, plan.field_data);

  PiecePlan& piece = plan.pieces.emplace_back();
  piece.attributes = "Extent=\"" + extent_text(whole) + "\"";
  SectionPlan point_data{"PointData", {}, false}, cell_data{"CellData", {}, false};
  io::vtk_xml::plan_point_data(mesh, point_data.arrays);
  if (with_cell_data) {
    std::vector<io::vtk_xml::BlockRows> order;
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) order.push_back({b, 0, mesh.cells[b].num_cells()});
    io::vtk_xml::plan_cell_data(mesh, order, plan, cell_data.arrays);
  }
  piece.sections.push_back(std::move(point_data));
  piece.sections.push_back(std::move(cell_data));

  if (kind.kind == Kind::structured) {
    SectionPlan points{"Points", {}, false};
    points.arrays.push_back(io::vtk_xml::plan_points(mesh.points, plan));
    piece.sections.push_back(std::move(points));
  } else if (kind.kind == Kind::rectilinear) {
    // x from the first row of points, y from the first column, z from the first pillar.
    const std::array<std::int64_t, 3> strides{1, dims[0], dims[0] * dims[1]};
    SectionPlan coordinates{"Coordinates", {}, false};
    std::array<const double*, 3> axis_values{};
    for (std::int64_t axis = 0; axis < 3; ++axis) {
      NDArray& values = plan.converted.emplace_back(NDArray::allocate(DType::float64, {dims[axis]}));
      double* v = values.data_as<double>();
      for (std::int64_t i = 0; i < dims[axis]; ++i) v[i] = coordinate(mesh.points, i * strides[axis], axis);
      axis_values[axis] = v;
      static constexpr std::string_view kNames[] = {"x_coordinates", "y_coordinates", "z_coordinates"};
      coordinates.arrays.push_back(io::vtk_xml::numeric_plan(std::string(kNames[axis]), DType::float64, 1,
                                                             {io::vtk_xml::bytes_of(values)}));
    }
    // The points must be the product of those coordinates: one typed pass, layers on all cores.
    const std::int64_t width = mesh.points.dim(1);
    visit_dtype(mesh.points.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        const T* p = mesh.points.data_as<T>();
        const auto off_grid = [&](std::int64_t row, std::int64_t i, std::int64_t j, std::int64_t k) {
          const T* point = p + row * width;
          return static_cast<double>(point[0]) != axis_values[0][i] ||
                 (width > 1 ? static_cast<double>(point[1]) : 0.0) != axis_values[1][j] ||
                 (width > 2 ? static_cast<double>(point[2]) : 0.0) != axis_values[2][k];
        };
        const auto layer_row = [&](std::int64_t layer) { return layer * dims[0]; };
        const bool any_off = io::any_in_parallel(static_cast<std::size_t>(dims[1] * dims[2]), [&](std::size_t layer) {
          const auto j = static_cast<std::int64_t>(layer) % dims[1], k = static_cast<std::int64_t>(layer) / dims[1];
          bool off = false;
          for (std::int64_t i = 0; i < dims[0]; ++i) off |= off_grid(layer_row(static_cast<std::int64_t>(layer)) + i, i, j, k);
          return off;
        });
        if (!any_off) return;
        for (std::int64_t row = 0; row < mesh.num_points(); ++row)
          if (off_grid(row, row % dims[0], (row / dims[0]) % dims[1], row / (dims[0] * dims[1])))
            throw std::invalid_argument("the points are not a rectilinear grid (point " + std::to_string(row) +
                                        " is off the x/y/z coordinate lines); write .vts instead");
      }
    });
    piece.sections.push_back(std::move(coordinates));
  } else {
    std::array<double, 3> origin{}, spacing{1, 1, 1};
    std::array<double, 9> direction{1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (mesh.field_data.contains(kOrigin) && mesh.field_data.contains(kSpacing)) {
      origin = doubles_of<3>(field(mesh, kOrigin, 3, kind.type));
      spacing = doubles_of<3>(field(mesh, kSpacing, 3, kind.type));
      if (mesh.field_data.contains(kDirection)) direction = doubles_of<9>(field(mesh, kDirection, 9, kind.type));
    } else {
      // Axis-aligned: the spacing is the step to the next point along each axis.
      const std::array<std::int64_t, 3> strides{1, dims[0], dims[0] * dims[1]};
      for (std::int64_t axis = 0; axis < 3; ++axis) {
        if (dims[axis] > 1)
          spacing[axis] = coordinate(mesh.points, strides[axis], axis) - coordinate(mesh.points, 0, axis);
        origin[axis] = coordinate(mesh.points, 0, axis) - static_cast<double>(whole[2 * axis]) * spacing[axis];
      }
    }
    plan.dataset_attributes += " Origin=\"" + numbers_text(origin) + "\" Spacing=\"" + numbers_text(spacing) +
                               "\" Direction=\"" + numbers_text(direction) + "\"";
  }
  io::vtk_xml::write_document(path, kind.format, plan, settings);
}

}  // namespace

namespace vts {
Mesh read(const std::string& path) { return read_structured(kStructured, path); }
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  write_structured(kStructured, path, mesh, options);
}
}  // namespace vts

namespace vtr {
Mesh read(const std::string& path) { return read_structured(kRectilinear, path); }
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  write_structured(kRectilinear, path, mesh, options);
}
}  // namespace vtr

StructuredImplicitRead read_structured_implicit(const std::string& path, std::string_view format) {
  const KindInfo* kind = format == kStructured.format    ? &kStructured
                         : format == kRectilinear.format ? &kRectilinear
                         : format == kImage.format       ? &kImage
                                                         : nullptr;
  if (kind == nullptr) throw std::invalid_argument("read_structured_implicit: not a structured VTK format: " + std::string(format));
  const io::MappedFile file(path, kind->format);
  io::reject_empty_file(file.bytes(), path, kind->format);
  return StructuredReader(*kind, file).read_implicit();
}

NDArray image_grid_points(const std::array<std::int64_t, 6>& whole_extent, const std::array<double, 3>& origin,
                          const std::array<double, 3>& spacing, const std::array<double, 9>& direction) {
  const Dims dims = dims_of(whole_extent);
  const bool axis_aligned = direction == std::array<double, 9>{1, 0, 0, 0, 1, 0, 0, 0, 1};
  return grid_points<double>(dims, DType::float64, [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    const double index[3] = {static_cast<double>(i + whole_extent[0]) * spacing[0],
                             static_cast<double>(j + whole_extent[2]) * spacing[1],
                             static_cast<double>(k + whole_extent[4]) * spacing[2]};
    std::array<double, 3> point{};
    for (std::size_t row = 0; row < 3; ++row)
      point[row] = axis_aligned ? origin[row] + index[row]
                                : origin[row] + direction[3 * row] * index[0] + direction[3 * row + 1] * index[1] +
                                      direction[3 * row + 2] * index[2];
    return point;
  });
}

NDArray rectilinear_grid_points(const std::array<NDArray, 3>& axes, DType dtype) {
  std::array<NDArray, 3> values;
  Dims dims{};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    values[axis] = axes[axis].dtype() == DType::float64 ? axes[axis] : axes[axis].astype(DType::float64);
    dims[axis] = static_cast<std::int64_t>(values[axis].size());
  }
  const double* x = values[0].data_as<double>();
  const double* y = values[1].data_as<double>();
  const double* z = values[2].data_as<double>();
  const auto coordinate = [&](std::int64_t i, std::int64_t j, std::int64_t k) { return std::array<double, 3>{x[i], y[j], z[k]}; };
  if (dtype == DType::float32) return grid_points<float>(dims, dtype, coordinate);
  return grid_points<double>(dims, DType::float64, coordinate);
}

namespace vti {
Mesh read(const std::string& path) { return read_structured(kImage, path); }
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  write_structured(kImage, path, mesh, options);
}
}  // namespace vti

}  // namespace meshioplusplus
