// MDPA writer.
//
// Points are padded to 3-D as Kratos (and meshio) need. The mesh dimension D is 3 when any
// block is a volume, else 2 (meshio's rule). Blocks of the highest cell dimension are
// written as Elements "Element<D>D<k>N", lower-dimensional blocks as Conditions
// ("PointCondition<D>D1N", "LineCondition<D>D<k>N", "SurfaceCondition3D<k>N") — the
// generic entities Kratos registers. Each Begin line carries the Kratos geometry name as a
// comment ("// Tetrahedra3D4"): Kratos ignores it, meshio 5.3.5 (which matches geometry
// names anywhere on that line) needs it to tell the type. Elements and conditions are
// numbered 1.. each; hexahedron20/27 and wedge15 are reordered to Kratos order.
//
// cell_data "mdpa:property" gives the property ids (else 0); an empty Properties block is
// written for each id used. Point data become NodalData (fixed flag 0), other cell data
// ElementalData for element blocks and ConditionalData for condition blocks: one value per
// entity, "[k](…)" for rows of k > 1 values; NaN rows (an entity without a value) are left
// out. Point and Cell regions of one name become one SubModelPart (a name "A.B" nests B in
// A). Side regions, field data and string field data have no place in MDPA and are not
// written. Cell types other than vertex, line, line3, triangle, triangle6, quad, quad8,
// quad9, tetra, tetra10, pyramid, wedge, wedge15, hexahedron, hexahedron20, hexahedron27,
// and names with blanks, are refused (std::invalid_argument).
// Node, element/condition and data lines are formatted on all cores
// (io/output/parallel_rows.hpp), in file order at any thread count.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "formats/mdpa/mdpa.hpp"
#include "formats/mdpa/mdpa_types.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/float_format.hpp"
#include "io/output/parallel_rows.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::mdpa {
namespace {

constexpr std::string_view kFormat = "mdpa";

// The Kratos geometry name of `type` in dimension `dim`, e.g. Triangle3D3.
std::string geometry_name(std::string_view type, int dim) {
  for (const auto& geometry : detail::kGeometries) {
    if (geometry.type != type) continue;
    const std::string_view name = geometry.name;
    const std::size_t d = name.find('D');
    // Volumes exist in 3-D only; the others come in both spellings.
    if (name[d - 1] - '0' == dim || (name[d - 1] == '3' && cell_type(type).dimension == 3)) return std::string(name);
  }
  return {};
}

void check_word(const std::string& name, std::string_view what) {
  if (name.empty() || name.find_first_of(" \t\r\n") != std::string::npos || name.find("//") != std::string::npos)
    throw std::invalid_argument("MDPA " + std::string(what) + " names must be single words: '" + name + "'");
}

const NDArray* property_array(const Mesh& mesh, std::size_t block) {
  const std::vector<NDArray>* arrays = mesh.cell_data.find("mdpa:property");
  if (arrays == nullptr || arrays->size() != mesh.cells.size()) return nullptr;
  const NDArray& array = (*arrays)[block];
  if (dtype_is_float(array.dtype()) || array.rows() != mesh.cells[block].num_cells() || array.row_width() != 1) return nullptr;
  return &array;
}

std::int64_t integer_at(const NDArray& array, std::int64_t row) {
  return visit_dtype(array.dtype(), [&](auto zero) { return static_cast<std::int64_t>(array.data_as<decltype(zero)>()[row]); });
}

struct Part {
  std::string name;
  const Region* nodes = nullptr;
  const Region* cells = nullptr;
  std::vector<std::unique_ptr<Part>> children;

  Part& child(const std::string& child_name) {
    for (auto& c : children)
      if (c->name == child_name) return *c;
    children.push_back(std::make_unique<Part>());
    children.back()->name = child_name;
    return *children.back();
  }
};

class Writer {
 public:
  explicit Writer(const Mesh& mesh) : mesh_(mesh) {
    if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 2 || mesh.points.dim(1) > 3)
      throw std::invalid_argument("MDPA needs 2-D or 3-D points");
    int max_dim = -1;
    for (const CellBlock& block : mesh.cells) {
      if (geometry_name(block.type, 3).empty())
        throw std::invalid_argument("MDPA cannot write '" + block.type + "' cells");
      max_dim = std::max(max_dim, cell_type(block.type).dimension);
    }
    dim_ = max_dim == 3 ? 3 : 2;
    const NDArray bases = block_bases(mesh.cells);
    std::int64_t elements = 0, conditions = 0;
    for (std::size_t b = 0; b < mesh.cells.size(); ++b) {
      const bool condition = cell_type(mesh.cells[b].type).dimension < max_dim;
      is_condition_.push_back(condition);
      first_id_.push_back((condition ? conditions : elements) + 1);
      (condition ? conditions : elements) += mesh.cells[b].num_cells();
      base_.push_back(bases.data_as<std::int64_t>()[b]);
    }
    base_.push_back(bases.data_as<std::int64_t>()[mesh.cells.size()]);
    for (const auto& [name, array] : mesh.point_data) check_word(name, "data");
    for (const auto& [name, arrays] : mesh.cell_data) check_word(name, "data");
    for (const Region& region : mesh.regions) {
      if (region.kind == RegionKind::Side) continue;
      check_word(region.name, "SubModelPart");
      Part* part = &root_;
      std::size_t start = 0;
      while (true) {
        const std::size_t dot = region.name.find('.', start);
        part = &part->child(region.name.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      (region.kind == RegionKind::Point ? part->nodes : part->cells) = &region;
    }
  }

  // `file` is `out`'s file; `float_format` the one `out` prints floats with.
  void write(io::OutputBuffer& out, io::AtomicFile& file, const io::FloatFormat& float_format) {
    file_ = &file;
    float_format_ = float_format;
    out.text("Begin ModelPartData\n//  VARIABLE_NAME value\nEnd ModelPartData\n\n");
    write_properties(out);
    write_nodes(out);
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) write_block(out, b);
    for (const auto& [name, array] : mesh_.point_data) write_nodal_data(out, name, array);
    for (const auto& [name, arrays] : mesh_.cell_data) {
      if (name == "mdpa:property") continue;
      write_cell_data(out, name, arrays, false);
      write_cell_data(out, name, arrays, true);
    }
    for (const auto& part : root_.children) write_part(out, *part, "");
  }

 private:
  void write_properties(io::OutputBuffer& out) const {
    std::set<std::int64_t> ids;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const NDArray* properties = property_array(mesh_, b);
      for (std::int64_t row = 0; row < mesh_.cells[b].num_cells(); ++row) ids.insert(properties ? integer_at(*properties, row) : 0);
    }
    if (ids.empty()) ids.insert(0);
    for (std::int64_t id : ids) {
      out.text("Begin Properties ");
      out.number(id);
      out.text("\nEnd Properties\n\n");
    }
  }

  void write_nodes(io::OutputBuffer& out) const {
    out.text("Begin Nodes\n");
    const std::int64_t width = mesh_.points.dim(1);
    visit_dtype(mesh_.points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* xyz = mesh_.points.data_as<T>();
      const std::size_t longest = io::kMaxNumberChars + 3 * (io::max_float_chars(float_format_) + 1) + 2;
      io::write_rows_in_parallel(out, *file_, mesh_.num_points(), longest, [&](char* p, std::int64_t i) {
        *p++ = ' ';
        p = io::put_number(p, i + 1);
        for (std::int64_t axis = 0; axis < 3; ++axis) {
          *p++ = ' ';
          // Through double: a float32 written in its own shortest form reads back as another double.
          p = io::put_float(p, axis < width ? static_cast<double>(xyz[i * width + axis]) : 0.0, float_format_);
        }
        *p++ = '\n';
        return p;
      });
    });
    out.text("End Nodes\n\n");
  }

  std::string entity_name(std::size_t b) const {
    const CellBlock& block = mesh_.cells[b];
    const CellTypeInfo& info = cell_type(block.type);
    const std::string d = std::to_string(dim_) + "D" + std::to_string(info.num_nodes) + "N";
    if (!is_condition_[b]) return "Element" + d;
    if (info.dimension == 0) return "PointCondition" + d;
    if (info.dimension == 1) return "LineCondition" + d;
    return "SurfaceCondition" + d;
  }

  void write_block(io::OutputBuffer& out, std::size_t b) const {
    const CellBlock& block = mesh_.cells[b];
    const char* entity = is_condition_[b] ? "Conditions" : "Elements";
    out.text("Begin ");
    out.text(entity);
    out.put(' ');
    out.text(entity_name(b));
    out.text(" // ");
    out.text(geometry_name(block.type, dim_));
    out.put('\n');
    const std::span<const int> order = detail::kratos_order(block.type);
    const std::int64_t width = block.connectivity.row_width();
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    const NDArray* properties = property_array(mesh_, b);
    // kratos_order(type)[k]: the Kratos position of meshio node k; its inverse picks the nodes in Kratos order.
    std::vector<std::int64_t> meshio_of(static_cast<std::size_t>(width));
    for (std::int64_t k = 0; k < width; ++k) meshio_of[static_cast<std::size_t>(order.empty() ? k : order[static_cast<std::size_t>(k)])] = k;
    const auto longest = static_cast<std::size_t>(2 + width) * (io::kMaxNumberChars + 1) + 1;
    io::write_rows_in_parallel(out, *file_, block.num_cells(), longest, [&](char* p, std::int64_t cell) {
      const std::int64_t* row = nodes + cell * width;
      *p++ = ' ';
      p = io::put_number(p, first_id_[b] + cell);
      *p++ = ' ';
      p = io::put_number(p, properties ? integer_at(*properties, cell) : std::int64_t{0});
      for (const std::int64_t k : meshio_of) {
        *p++ = ' ';
        p = io::put_number(p, row[k] + 1);
      }
      *p++ = '\n';
      return p;
    });
    out.text("End ");
    out.text(entity);
    out.text("\n\n");
  }

  // An entity without a value (NaN padding as the reader produces it) is left out.
  static bool has_value(const NDArray& array, std::int64_t row) {
    const std::int64_t width = array.row_width();
    return visit_dtype(array.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = array.data_as<T>() + row * width;
      if constexpr (std::is_floating_point_v<T>)
        return !std::all_of(values, values + width, [](T v) { return std::isnan(v); });
      return true;
    });
  }

  // Room for put_value's text of one row of `array`.
  std::size_t longest_value(const NDArray& array) const {
    return static_cast<std::size_t>(array.row_width() + 1) * (io::max_float_chars(float_format_) + 2) + 8;
  }

  // One entity's value at p: scalar or "[k](v1, …, vk)"; returns the end.
  char* put_value(char* p, const NDArray& array, std::int64_t row) const {
    const std::int64_t width = array.row_width();
    visit_dtype(array.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = array.data_as<T>() + row * width;
      // Floats through double (float32 too, so the text reads back to the same value as float64).
      const auto emit = [&](T v) {
        if constexpr (std::is_floating_point_v<T>) p = io::put_float(p, static_cast<double>(v), float_format_);
        else p = io::put_number(p, v);
      };
      *p++ = ' ';
      if (width == 1) {
        emit(values[0]);
        return;
      }
      *p++ = '[';
      p = io::put_number(p, width);
      p = io::put_text(p, "] (");
      for (std::int64_t k = 0; k < width; ++k) {
        if (k > 0) p = io::put_text(p, ", ");
        emit(values[k]);
      }
      *p++ = ')';
    });
    return p;
  }

  void write_nodal_data(io::OutputBuffer& out, const std::string& name, const NDArray& array) const {
    out.text("Begin NodalData ");
    out.text(name);
    out.put('\n');
    io::write_rows_in_parallel(out, *file_, mesh_.num_points(), longest_value(array) + io::kMaxNumberChars + 4, [&](char* p, std::int64_t i) {
      if (!has_value(array, i)) return p;
      *p++ = ' ';
      p = io::put_number(p, i + 1);
      p = io::put_text(p, " 0");
      p = put_value(p, array, i);
      *p++ = '\n';
      return p;
    });
    out.text("End NodalData\n\n");
  }

  void write_cell_data(io::OutputBuffer& out, const std::string& name, const std::vector<NDArray>& arrays, bool conditions) const {
    bool any = false;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) any = any || is_condition_[b] == conditions;
    if (!any) return;
    const char* tag = conditions ? "ConditionalData" : "ElementalData";
    out.text("Begin ");
    out.text(tag);
    out.put(' ');
    out.text(name);
    out.put('\n');
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      if (is_condition_[b] != conditions) continue;
      const NDArray& array = arrays[b];
      io::write_rows_in_parallel(out, *file_, mesh_.cells[b].num_cells(), longest_value(array) + io::kMaxNumberChars + 2,
                                 [&](char* p, std::int64_t cell) {
                                   if (!has_value(array, cell)) return p;
                                   *p++ = ' ';
                                   p = io::put_number(p, first_id_[b] + cell);
                                   p = put_value(p, array, cell);
                                   *p++ = '\n';
                                   return p;
                                 });
    }
    out.text("End ");
    out.text(tag);
    out.text("\n\n");
  }

  void write_ids(io::OutputBuffer& out, std::string_view indent, std::string_view tag, const std::vector<std::int64_t>& ids) const {
    out.text(indent);
    out.text("  Begin ");
    out.text(tag);
    out.put('\n');
    for (std::int64_t id : ids) {
      out.text(indent);
      out.text("    ");
      out.number(id);
      out.put('\n');
    }
    out.text(indent);
    out.text("  End ");
    out.text(tag);
    out.put('\n');
  }

  void write_part(io::OutputBuffer& out, const Part& part, const std::string& indent) const {
    out.text(indent);
    out.text("Begin SubModelPart ");
    out.text(part.name);
    out.put('\n');
    std::vector<std::int64_t> nodes, elements, conditions;
    if (part.nodes != nullptr)
      for (std::int64_t node : part.nodes->entries.values<std::int64_t>()) nodes.push_back(node + 1);
    if (part.cells != nullptr) {
      for (std::int64_t cell : part.cells->entries.values<std::int64_t>()) {
        const std::size_t b = static_cast<std::size_t>(std::upper_bound(base_.begin(), base_.end(), cell) - base_.begin() - 1);
        (is_condition_[b] ? conditions : elements).push_back(first_id_[b] + (cell - base_[b]));
      }
    }
    write_ids(out, indent, "SubModelPartNodes", nodes);
    write_ids(out, indent, "SubModelPartElements", elements);
    write_ids(out, indent, "SubModelPartConditions", conditions);
    for (const auto& child : part.children) write_part(out, *child, indent + "  ");
    out.text(indent);
    out.text("End SubModelPart\n");
    if (indent.empty()) out.put('\n');
  }

  const Mesh& mesh_;
  io::AtomicFile* file_ = nullptr;  // write()'s file, for the sections formatted on all cores
  io::FloatFormat float_format_;
  int dim_ = 2;
  std::vector<bool> is_condition_;
  std::vector<std::int64_t> first_id_;
  std::vector<std::int64_t> base_;
  Part root_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  Writer writer(mesh);
  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  const io::FloatFormat float_format = io::parse_float_format(options.get("float_fmt", ""));  // meshio's float_fmt, when given
  out.set_float_format(float_format);
  writer.write(out, file, float_format);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::mdpa
