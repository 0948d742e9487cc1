// PLY writer: binary_little_endian (default, as meshio; little-endian whatever the host) or
// ascii.
//
// element vertex: x, y[, z] in the points' dtype (float or double), then every point data
// array — 1-D ones as scalar properties, wider ones as a list of fixed length (flattened
// per row), which the reader returns as (n, length) again. element face (when the mesh has
// cells): "vertex_indices" with the narrowest count type that fits (uchar for up to 255
// corners) and int indices (uint / int64 only beyond their range), then every cell data
// array the same way as point data (a block's rows give its list length, so blocks may
// differ). Faces are written block after block.
//
// Cells must be vertex, line, triangle, quad or polygon: PLY lists faces, and guessing a
// surface for other types would silently change the mesh (the STL writer does extract
// boundaries). Field data and regions have no place in PLY and are not written.
//
// int64/uint64 data is written with meshio's names "int64"/"uint64", which the PLY
// specification lacks; other readers may refuse such files.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "formats/ply/ply.hpp"
#include "formats/ply/ply_types.hpp"
#include "io/output/atomic_file.hpp"
#include "io/source/byte_order.hpp"
#include "io/cells/face_blocks.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ply {
namespace {

constexpr std::string_view kFormat = "ply";

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw WriteError(path, std::string(kFormat), message);
}

// The narrowest unsigned PLY type that holds `value`.
DType count_type_for(std::int64_t value) {
  if (value <= std::numeric_limits<std::uint8_t>::max()) return DType::uint8;
  if (value <= std::numeric_limits<std::uint16_t>::max()) return DType::uint16;
  return DType::uint32;
}

// One property column of an element: a per-row array written as a scalar or a list.
struct Column {
  std::string name;
  DType type;
  bool is_list;
  DType count_type = DType::uint8;
  const std::vector<NDArray>* per_block = nullptr;  // cell data
  const NDArray* array = nullptr;                   // point data
};

void check_name(const std::string& path, const std::string& name, std::string_view reserved1, std::string_view reserved2,
                std::string_view reserved3) {
  if (name.empty() || std::any_of(name.begin(), name.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }))
    fail(path, "data name '" + name + "' cannot be a PLY property name (empty or holds whitespace)");
  if (name == reserved1 || name == reserved2 || name == reserved3)
    fail(path, "data name '" + name + "' clashes with a property PLY itself uses");
}

std::vector<Column> point_columns(const Mesh& mesh, const std::string& path) {
  std::vector<Column> columns;
  for (const auto& [name, array] : mesh.point_data) {
    check_name(path, name, "x", "y", "z");
    const bool is_list = array.ndim() > 1;
    columns.push_back(Column{name, array.dtype(), is_list, count_type_for(array.row_width()), nullptr, &array});
  }
  return columns;
}

std::vector<Column> face_columns(const Mesh& mesh, const std::string& path) {
  std::vector<Column> columns;
  for (const auto& [name, arrays] : mesh.cell_data) {
    check_name(path, name, "vertex_indices", "vertex_index", "");
    if (arrays.empty()) continue;
    bool is_list = false;
    std::int64_t widest = 0;
    for (const NDArray& array : arrays) {
      if (array.dtype() != arrays.front().dtype())
        fail(path, "cell data '" + name + "' has different dtypes in different blocks; PLY needs one");
      is_list |= array.ndim() > 1;
      widest = std::max(widest, array.row_width());
    }
    columns.push_back(Column{name, arrays.front().dtype(), is_list, count_type_for(widest), &arrays, nullptr});
  }
  return columns;
}

void put_property(io::OutputBuffer& out, const Column& column) {
  out.text("property ");
  if (column.is_list) {
    out.text("list ");
    out.text(detail::type_name_of(column.count_type));
    out.put(' ');
  }
  out.text(detail::type_name_of(column.type));
  out.put(' ');
  out.text(column.name);
  out.put('\n');
}

// Values of one record, ascii (space separated, one record per line) or little-endian binary.
class RecordWriter {
 public:
  RecordWriter(io::OutputBuffer& out, bool binary) : out_(out), binary_(binary) {}

  // The binary case stays small enough to inline into the per-value loops.
  template <class T> void value(T v) {
    if (!binary_) return ascii(v);
    if (!io::kHostIsLittleEndian) io::swap_bytes_in_place(&v, sizeof v, 1);
    out_.bytes(&v, sizeof v);
  }
  // `v` written as type `type`.
  void value_as(DType type, std::int64_t v) {
    visit_dtype(type, [&](auto zero) { value(static_cast<decltype(zero)>(v)); });
  }
  // Elements [first, first + count) of `array`, in its own dtype.
  void values_of(const NDArray& array, std::int64_t first, std::int64_t count) {
    visit_dtype(array.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* data = static_cast<const T*>(array.data()) + first;
      for (std::int64_t i = 0; i < count; ++i) value(data[i]);
    });
  }
  // One row of a column: a scalar, or a list with its length first.
  void row_of(const Column& column, const NDArray& array, std::int64_t row) {
    const std::int64_t width = array.row_width();
    if (column.is_list) value_as(column.count_type, width);
    values_of(array, row * width, width);
  }
  void end_record() {
    if (!binary_) out_.put('\n');
    first_ = true;
  }

 private:
  template <class T> [[gnu::noinline]] void ascii(T v) {
    if (!first_) out_.put(' ');
    first_ = false;
    out_.number(v);
  }

  io::OutputBuffer& out_;
  bool binary_;
  bool first_ = true;
};

struct FaceIndexTypes {
  DType count;
  DType index;
};

FaceIndexTypes face_index_types(const Mesh& mesh, const std::string& path) {
  std::int64_t widest = 0;
  for (const CellBlock& block : mesh.cells) {
    if (!io::is_face_cell_type(block.type))
      fail(path, "PLY holds vertex, line, triangle, quad and polygon cells, not '" + block.type + "'");
    if (!block.is_ragged()) {
      widest = std::max(widest, block.connectivity.row_width());
      continue;
    }
    for (std::int64_t cell = 0; cell < block.num_cells(); ++cell)
      widest = std::max<std::int64_t>(widest, static_cast<std::int64_t>(io::cell_nodes(block, cell).size()));
  }
  const std::int64_t num_points = mesh.num_points();
  const DType index = num_points <= std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1 ? DType::int32
                      : num_points <= std::int64_t{std::numeric_limits<std::uint32_t>::max()} + 1 ? DType::uint32
                                                                                                  : DType::int64;
  return {count_type_for(widest), index};
}

void write_header(io::OutputBuffer& out, const Mesh& mesh, bool binary, const std::vector<Column>& point_cols,
                  const std::vector<Column>& face_cols, const FaceIndexTypes& face_types) {
  out.text("ply\n");
  out.text(binary ? "format binary_little_endian 1.0\n" : "format ascii 1.0\n");
  out.text("comment written by meshio++\n");
  out.text("element vertex ");
  out.number(mesh.num_points());
  out.put('\n');
  const std::string_view coordinate_type = detail::type_name_of(mesh.points.dtype());
  const char* axes[] = {"x", "y", "z"};
  for (std::int64_t a = 0; a < mesh.points.row_width(); ++a) {
    out.text("property ");
    out.text(coordinate_type);
    out.put(' ');
    out.text(axes[a]);
    out.put('\n');
  }
  for (const Column& column : point_cols) put_property(out, column);
  if (!mesh.cells.empty()) {
    out.text("element face ");
    out.number(mesh.num_cells());
    out.put('\n');
    put_property(out, Column{"vertex_indices", face_types.index, true, face_types.count});
    for (const Column& column : face_cols) put_property(out, column);
  }
  out.text("end_header\n");
}

void write_vertices(RecordWriter& records, const Mesh& mesh, const std::vector<Column>& columns) {
  const std::int64_t dim = mesh.points.row_width();
  visit_dtype(mesh.points.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* points = mesh.points.data_as<T>();
    for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
      for (std::int64_t a = 0; a < dim; ++a) records.value(points[i * dim + a]);
      for (const Column& column : columns) records.row_of(column, *column.array, i);
      records.end_record();
    }
  });
}

// fn(Count{}, Index{}) with the C++ types of the face list's count and index properties
// (face_index_types picks uint8/16/32 and int32/uint32/int64), so loops dispatch once.
template <class Fn> void with_face_types(const FaceIndexTypes& types, Fn&& fn) {
  const auto with_index = [&](auto count) {
    switch (types.index) {
      case DType::int32: return fn(count, std::int32_t{});
      case DType::uint32: return fn(count, std::uint32_t{});
      default: return fn(count, std::int64_t{});
    }
  };
  switch (types.count) {
    case DType::uint8: return with_index(std::uint8_t{});
    case DType::uint16: return with_index(std::uint16_t{});
    default: return with_index(std::uint32_t{});
  }
}

void write_faces(RecordWriter& records, const Mesh& mesh, const std::vector<Column>& columns,
                 const FaceIndexTypes& types) {
  with_face_types(types, [&](auto count_zero, auto index_zero) {
    using Count = decltype(count_zero);
    using Index = decltype(index_zero);
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      const CellBlock& block = mesh.cells[b];
      const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
      const std::int64_t width = block.is_ragged() ? 0 : block.connectivity.row_width();
      for (std::int64_t cell = 0; cell < block.num_cells(); ++cell) {
        const std::span<const std::int64_t> corners =
            block.is_ragged() ? io::cell_nodes(block, cell)
                              : std::span<const std::int64_t>(nodes + cell * width, static_cast<std::size_t>(width));
        records.value(static_cast<Count>(corners.size()));
        for (std::int64_t corner : corners) records.value(static_cast<Index>(corner));
        for (const Column& column : columns) records.row_of(column, (*column.per_block)[b], cell);
        records.end_record();
      }
    }
  });
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const bool binary = options.get_bool("binary", true);
  if (mesh.points.ndim() != 2 || (mesh.points.dim(1) != 2 && mesh.points.dim(1) != 3))
    fail(path, "PLY needs 2-D or 3-D points (x, y[, z])");
  const std::vector<Column> point_cols = point_columns(mesh, path);
  const std::vector<Column> face_cols = face_columns(mesh, path);
  const FaceIndexTypes face_types = face_index_types(mesh, path);

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  write_header(out, mesh, binary, point_cols, face_cols, face_types);
  RecordWriter records(out, binary);
  write_vertices(records, mesh, point_cols);
  write_faces(records, mesh, face_cols, face_types);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::ply
