// Wavefront OBJ writer: the inverse of the reader's mapping.
//
// "v x y z" per point (2-D points get z = 0), plus "r g b" where point data "obj:color" has
// no NaN, else "w" where point data "obj:w" is not 1. "vt" / "vn" lines come from point data
// "obj:vt" / "obj:vn" (corners then name their vertex's number, "v/v/v" — meshio writes bare
// "f v" and so loses the link) or from field data of those names, with per-corner cell data
// "obj:vt_index" / "obj:vn_index" (0-based, -1 = none) when present. Faces are written block
// after block; "g" lines carry the Cell regions holding them ("g a b" for a face in both;
// blanks in region names become '_', since OBJ names are single words). Numbers are the
// shortest text that reads back to the same value.
//
// Cells must be vertex, line, triangle, quad or polygon (written as "f" lines). Other point
// and cell data, and other field data, have no place in OBJ and are not written.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "formats/obj/obj.hpp"
#include "io/output/atomic_file.hpp"
#include "io/cells/face_blocks.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::obj {
namespace {

constexpr std::string_view kFormat = "obj";

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw WriteError(path, std::string(kFormat), message);
}

std::int64_t integer_at(const NDArray& array, std::int64_t index) {
  return visit_dtype(array.dtype(), [&](auto zero) {
    return static_cast<std::int64_t>(static_cast<const decltype(zero)*>(array.data())[index]);
  });
}

double number_at(const NDArray& array, std::int64_t index) {
  return visit_dtype(array.dtype(), [&](auto zero) {
    return static_cast<double>(static_cast<const decltype(zero)*>(array.data())[index]);
  });
}

// Where the vt (or vn) number of each corner comes from.
struct CornerAttribute {
  const NDArray* values = nullptr;                  // the vt / vn lines to write
  bool per_vertex = false;                          // corner k names its vertex's number
  const std::vector<NDArray>* per_corner = nullptr;  // else: (faces, width) per block

  std::int64_t index(std::size_t block, std::int64_t cell, std::size_t corner, std::int64_t vertex) const {
    if (per_vertex) return vertex;
    if (per_corner == nullptr) return -1;
    const NDArray& rows = (*per_corner)[block];
    const std::int64_t width = rows.row_width();
    return static_cast<std::int64_t>(corner) < width ? integer_at(rows, cell * width + static_cast<std::int64_t>(corner)) : -1;
  }
};

CornerAttribute corner_attribute(const Mesh& mesh, const std::string& name, const std::string& path) {
  CornerAttribute attribute;
  if (const NDArray* per_point = mesh.point_data.find(name); per_point != nullptr) {
    attribute.values = per_point;
    attribute.per_vertex = true;
    return attribute;
  }
  attribute.values = mesh.field_data.find(name);
  const std::vector<NDArray>* indices = mesh.cell_data.find(name + "_index");
  if (attribute.values == nullptr || indices == nullptr) return attribute;
  if (indices->size() != mesh.cells.size()) fail(path, "cell data '" + name + "_index' needs one array per block");
  for (std::size_t b = 0; b < indices->size(); ++b) {
    const NDArray& rows = (*indices)[b];
    if (dtype_is_float(rows.dtype()) || rows.rows() != mesh.cells[b].num_cells())
      fail(path, "cell data '" + name + "_index' must hold integer rows, one per cell");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::int64_t index = integer_at(rows, static_cast<std::int64_t>(i));
      if (index < -1 || index >= attribute.values->rows())
        fail(path, "cell data '" + name + "_index' holds " + std::to_string(index) + ", outside [-1, " +
                       std::to_string(attribute.values->rows()) + ")");
    }
  }
  attribute.per_corner = indices;
  return attribute;
}

// ---- groups --------------------------------------------------------------------------------

// Per cell, its "g" line: the names of the Cell regions holding it, in region order.
struct GroupLabels {
  std::vector<std::string> labels{""};
  std::vector<std::uint32_t> label_of_cell;
};

GroupLabels group_labels(const Mesh& mesh) {
  GroupLabels groups;
  groups.label_of_cell.assign(static_cast<std::size_t>(mesh.num_cells()), 0);
  std::vector<std::size_t> last_region_of_label{mesh.regions.size()};
  std::map<std::pair<std::uint32_t, std::size_t>, std::uint32_t> extended;  // (label, region) -> label
  for (std::size_t r = 0; r < mesh.regions.size(); ++r) {
    const Region& region = mesh.regions[r];
    if (region.kind != RegionKind::Cell) continue;
    std::string name = region.name.empty() ? "unnamed" : region.name;
    std::replace_if(name.begin(), name.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }, '_');
    for (std::int64_t cell : region.entries.values<std::int64_t>()) {
      std::uint32_t& label = groups.label_of_cell[static_cast<std::size_t>(cell)];
      if (last_region_of_label[label] == r) continue;  // listed twice in one region
      const auto [entry, added] = extended.try_emplace({label, r}, static_cast<std::uint32_t>(groups.labels.size()));
      if (added) {
        groups.labels.push_back(groups.labels[label].empty() ? name : groups.labels[label] + " " + name);
        last_region_of_label.push_back(r);
      }
      label = entry->second;
    }
  }
  return groups;
}

// ---- output --------------------------------------------------------------------------------

bool row_has_nan(const NDArray& array, std::int64_t row) {
  return visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const std::int64_t width = array.row_width();
    const T* values = static_cast<const T*>(array.data()) + row * width;
    if constexpr (std::is_floating_point_v<T>)
      return std::any_of(values, values + width, [](T value) { return std::isnan(value); });
    return false;
  });
}

void write_vertices(io::OutputBuffer& out, const Mesh& mesh) {
  const NDArray* colors = mesh.point_data.find("obj:color");
  if (colors != nullptr && colors->row_width() != 3) colors = nullptr;
  const NDArray* w = mesh.point_data.find("obj:w");
  if (w != nullptr && w->row_width() != 1) w = nullptr;
  for (std::int64_t i = 0; i < mesh.num_points(); ++i) {
    out.put('v');
    io::put_row(out, mesh.points, i);
    if (mesh.points.row_width() == 2) out.text(" 0");
    if (colors != nullptr && !row_has_nan(*colors, i)) io::put_row(out, *colors, i);
    else if (w != nullptr && number_at(*w, i) != 1.0) io::put_row(out, *w, i);
    out.put('\n');
  }
}

void write_lines(io::OutputBuffer& out, std::string_view keyword, const NDArray* values) {
  if (values == nullptr) return;
  for (std::int64_t i = 0; i < values->rows(); ++i) {
    out.text(keyword);
    io::put_row(out, *values, i);
    out.put('\n');
  }
}

void put_corner(io::OutputBuffer& out, std::int64_t vertex, std::int64_t texcoord, std::int64_t normal) {
  out.put(' ');
  out.number(vertex + 1);
  if (texcoord < 0 && normal < 0) return;
  out.put('/');
  if (texcoord >= 0) out.number(texcoord + 1);
  if (normal < 0) return;
  out.put('/');
  out.number(normal + 1);
}

void write_faces(io::OutputBuffer& out, const Mesh& mesh, const CornerAttribute& texcoords, const CornerAttribute& normals) {
  const GroupLabels groups = group_labels(mesh);
  std::uint32_t current_label = 0;
  std::int64_t cell_number = 0;
  for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
    const CellBlock& block = mesh.cells[b];
    for (std::int64_t cell = 0; cell < block.num_cells(); ++cell, ++cell_number) {
      const std::uint32_t label = groups.label_of_cell[static_cast<std::size_t>(cell_number)];
      if (label != current_label) {
        out.text(groups.labels[label].empty() ? "g\n" : "g " + groups.labels[label] + "\n");
        current_label = label;
      }
      out.put('f');
      const auto corners = io::cell_nodes(block, cell);
      for (std::size_t k = 0; k < corners.size(); ++k)
        put_corner(out, corners[k], texcoords.index(b, cell, k, corners[k]), normals.index(b, cell, k, corners[k]));
      out.put('\n');
    }
  }
}

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  if (mesh.points.ndim() != 2 || (mesh.points.dim(1) != 2 && mesh.points.dim(1) != 3))
    fail(path, "OBJ needs 2-D or 3-D points");
  for (const CellBlock& block : mesh.cells)
    if (!io::is_face_cell_type(block.type))
      fail(path, "OBJ holds vertex, line, triangle, quad and polygon cells, not '" + block.type + "'");
  const CornerAttribute texcoords = corner_attribute(mesh, "obj:vt", path);
  const CornerAttribute normals = corner_attribute(mesh, "obj:vn", path);

  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  out.text("# written by meshio++\n");
  write_vertices(out, mesh);
  write_lines(out, "vt", texcoords.values);
  write_lines(out, "vn", normals.values);
  write_faces(out, mesh, texcoords, normals);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::obj
