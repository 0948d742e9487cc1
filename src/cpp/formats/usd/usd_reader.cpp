// USD text layers (.usda): the geometry of one layer, as Usd's default stage traversal sees it.
//
// A layer holds a tree of prims ("def Xform", "def Mesh" …) with typed attributes
// (usd_parser.cpp parses it). Prims defined with "def" and active are read; "over" and "class"
// prims and everything below them are not geometry of this layer (Usd does not traverse them).
// Composition arcs (references, payloads, sublayers, variant sets) are not followed: the layer
// is read as written.
//
// What becomes what:
//  - points: every Mesh, Points and BasisCurves prim's "points" (the default value, else the
//    first time sample), placed by the prim's world transform — its xformOps composed with its
//    ancestors' (usd_transform.hpp) — float64 (n, 3), prims one after the other.
//  - Mesh: faceVertexCounts / faceVertexIndices become one block per run of consecutive faces of
//    one size (triangle, quad, polygon; vertex/line for 1/2 corners), faces in file order.
//    holeIndices faces are left out; orientation = "leftHanded" reverses each face's corners
//    (the first stays first) so every face is right-handed as meshio expects.
//    Points prims: one vertex cell per point. BasisCurves: each curve of k points becomes k - 1
//    line cells through its points (cubic curves too: their control polygon).
//  - regions: each such prim a Cell region named by its prim path ("/World/mesh"), dim 2 / 0 / 1;
//    each GeomSubset child of a Mesh with elementType "face" a Cell region of those faces named
//    by the subset's path (or by its "meshioplusplus:region" string, which our writer adds), and
//    with elementType "point" a Point region.
//  - primvars ("primvars:<name>", indexed ones expanded through "primvars:<name>:indices") and
//    the Mesh "normals" attribute, by interpolation: vertex / varying → point data "<name>";
//    uniform → cell data "<name>"; faceVarying → cell data "<name>" with each face's corners
//    side by side (faces, corners * width), polygon rows padded with NaN; constant → field
//    data "<prim path>:<name>". Float types read as float32 (double ones as float64), integer
//    ones as int32 / int64 / uint8 (bool, uchar); Mesh normals always as float32 (the schema's
//    normal3f[], which usd-core reads whatever type a file authored). Points or cells of a prim without the array
//    hold NaN (0 for integers). A primvar whose length does not match its interpolation is
//    left out, as Hydra leaves it unrendered. elementSize > 1 widens each element. Normals and
//    primvars are not transformed.
//  - field data "metersPerUnit" (1,) float64 and string field data "upAxis" from the layer's
//    metadata, when authored.
// Not read: other prim types (Sphere, Cube …: implicit surfaces with no points), materials,
// skinning, later time samples. Binary layers (.usdc) and packages (.usdz) are read by the
// Python package through usd-core; here they raise a ReadError saying so.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "formats/usd/usd.hpp"
#include "formats/usd/usd_internal.hpp"
#include "formats/usd/usd_transform.hpp"
#include "io/cells/face_blocks.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::usd {
namespace {

// The dtype a primvar of `type` reads as.
DType dtype_of_type(const Attribute& attribute) {
  const std::string& t = attribute.type;
  if (attribute.kind == ValueKind::real)
    return (t.starts_with("double") || t.ends_with("d") || t == "timecode") ? DType::float64 : DType::float32;
  if (t.starts_with("int64")) return DType::int64;
  if (t.starts_with("uint64")) return DType::uint64;
  if (t.starts_with("uint")) return DType::uint32;
  if (t.starts_with("uchar") || t.starts_with("bool")) return DType::uint8;
  return DType::int32;
}

// A primvar as elements of `width` numbers, doubles (exact for every type USD stores in text
// up to 2^53).
struct Values {
  std::vector<double> numbers;
  std::int64_t width = 1;
  DType dtype = DType::float64;
  std::int64_t elements() const noexcept { return width > 0 ? static_cast<std::int64_t>(numbers.size()) / width : 0; }
};

// One column being gathered over all points or all cells: NaN (or 0) where a prim lacks it.
struct Column {
  DType dtype = DType::float64;
  std::int64_t width = 1;
  std::vector<double> values;
};

class Builder {
 public:
  Builder(const Layer& layer, std::string_view bytes, const std::string& path) : layer_(layer), bytes_(bytes), path_(path) {}

  Mesh build() {
    const std::size_t count = layer_.prims.size();
    std::vector<io::Affine> world(count);
    std::vector<char> traversed(count, 0);
    for (std::size_t i = 0; i < count; ++i) {
      const Prim& prim = layer_.prims[i];
      const bool parent_traversed = prim.parent < 0 || traversed[static_cast<std::size_t>(prim.parent)];
      traversed[i] = parent_traversed && prim.specifier == "def" && prim.active;
      if (!traversed[i]) continue;
      const LocalTransform local = local_transform(prim);
      world[i] = (prim.parent < 0 || local.resets_parent) ? local.matrix : world[static_cast<std::size_t>(prim.parent)] * local.matrix;
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (!traversed[i]) continue;
      const Prim& prim = layer_.prims[i];
      if (prim.type_name == "Mesh") add_mesh(i, world[i]);
      else if (prim.type_name == "Points") add_points(prim, world[i]);
      else if (prim.type_name == "BasisCurves") add_curves(prim, world[i]);
    }
    return finish();
  }

 private:
  [[noreturn]] void fail(const Attribute& attribute, const std::string& message) const {
    fail_at(bytes_, path_, attribute.offset, message);
  }

  const Attribute* numbers(const Prim& prim, std::string_view name, ValueKind kind) const {
    const Attribute* attribute = prim.find(name);
    if (attribute == nullptr || !attribute->has_value) return nullptr;
    if (attribute->kind != kind) fail(*attribute, prim.path + "." + std::string(name) + " has the wrong type '" + attribute->type + "'");
    return attribute;
  }

  // The prim's points, placed in the world; returns the index of its first point.
  std::int64_t append_points(const Prim& prim, const io::Affine& world, std::int64_t& count) {
    const Attribute* points = numbers(prim, "points", ValueKind::real);
    count = 0;
    const std::int64_t first = static_cast<std::int64_t>(points_.size() / 3);
    if (points == nullptr) return first;
    if (points->width != 3 || points->reals.size() % 3 != 0) fail(*points, prim.path + ".points must hold 3-D points");
    count = static_cast<std::int64_t>(points->reals.size() / 3);
    const bool identity = world.is_identity();
    for (std::int64_t p = 0; p < count; ++p) {
      const double* in = points->reals.data() + 3 * p;
      double out[3] = {in[0], in[1], in[2]};
      if (!identity) world.apply_to_point(in, out);
      points_.insert(points_.end(), out, out + 3);
    }
    return first;
  }

  std::optional<Values> primvar_values(const Prim& prim, const std::string& name, const Attribute& attribute) const {
    if (!attribute.has_value || (attribute.kind != ValueKind::real && attribute.kind != ValueKind::integer)) return std::nullopt;
    Values values;
    // The schema's normals are normal3f[]: usd-core reads any other authored type as that.
    values.dtype = name == "normals" ? DType::float32 : dtype_of_type(attribute);
    values.width = attribute.width * attribute.element_size;
    std::vector<double> raw;
    if (attribute.kind == ValueKind::real) raw = attribute.reals;
    else raw.assign(attribute.integers.begin(), attribute.integers.end());
    if (raw.size() % static_cast<std::size_t>(values.width) != 0) return std::nullopt;
    const Attribute* indices = name == "normals" ? nullptr : prim.find("primvars:" + name + ":indices");
    if (indices != nullptr && indices->has_value && indices->kind == ValueKind::integer) {
      const std::int64_t available = static_cast<std::int64_t>(raw.size()) / values.width;
      values.numbers.reserve(indices->integers.size() * static_cast<std::size_t>(values.width));
      for (const std::int64_t index : indices->integers) {
        if (index < 0 || index >= available)
          fail(*indices, prim.path + ".primvars:" + name + ":indices holds " + std::to_string(index) + ", outside [0, " +
                             std::to_string(available) + ")");
        const double* row = raw.data() + index * values.width;
        values.numbers.insert(values.numbers.end(), row, row + values.width);
      }
    } else {
      values.numbers = std::move(raw);
    }
    return values;
  }

  // Point data / field data of a prim whose points start at `first`; `cells` rows per face
  // (cell data / corner data) for meshes.
  struct FaceContext {
    std::int64_t faces = 0;                   // faces in the file, holes included
    std::vector<std::int64_t> kept;           // kept faces in file order
    std::vector<std::int64_t> corner_start;   // each file face's first corner
    std::vector<std::int64_t> counts;         // each file face's corner count
    bool left_handed = false;
    std::int64_t first_cell = 0;              // global number of the first kept face
    std::vector<std::int64_t> block_of_kept;  // block (global) of each kept face
    std::vector<std::int64_t> row_of_kept;    // row in that block
  };

  void add_primvars(const Prim& prim, std::int64_t first_point, std::int64_t point_count, const FaceContext* faces) {
    for (const auto& [key, attribute] : prim.attributes) {
      std::string name;
      std::string interpolation = attribute.interpolation;
      if (key == "normals" && faces != nullptr) {
        name = "normals";
        if (interpolation.empty()) interpolation = "vertex";
      } else if (key.starts_with("primvars:") && !key.ends_with(":indices")) {
        name = key.substr(9);
        if (interpolation.empty()) interpolation = "constant";
      } else {
        continue;
      }
      const std::optional<Values> values = primvar_values(prim, name, attribute);
      if (!values) continue;
      if (interpolation == "vertex" || interpolation == "varying") {
        if (values->elements() != point_count) continue;
        Column& column = point_column(name, *values);
        if (column.width != values->width) continue;
        std::copy(values->numbers.begin(), values->numbers.end(), column.values.begin() + first_point * column.width);
      } else if (interpolation == "constant") {
        NDArray array = NDArray::allocate(values->dtype, {values->elements(), values->width});
        visit_dtype(values->dtype, [&](auto zero) {
          using T = decltype(zero);
          T* out = array.data_as<T>();
          for (std::size_t i = 0; i < values->numbers.size(); ++i) out[i] = static_cast<T>(values->numbers[i]);
        });
        field_data_.emplace_back(prim.path + ":" + name, std::move(array));
      } else if (faces != nullptr && interpolation == "uniform") {
        if (values->elements() != faces->faces) continue;
        for (std::size_t k = 0; k < faces->kept.size(); ++k) {
          Column& column = cell_column(name, static_cast<std::size_t>(faces->block_of_kept[k]), values->dtype, values->width);
          if (column.width != values->width) break;
          const double* row = values->numbers.data() + faces->kept[k] * values->width;
          std::copy(row, row + values->width, column.values.begin() + faces->row_of_kept[k] * column.width);
        }
      } else if (faces != nullptr && interpolation == "faceVarying") {
        const std::int64_t corners = faces->corner_start.empty() ? 0 : faces->corner_start.back() + faces->counts.back();
        if (values->elements() != corners) continue;
        for (std::size_t k = 0; k < faces->kept.size(); ++k) {
          const std::size_t block = static_cast<std::size_t>(faces->block_of_kept[k]);
          const std::int64_t face = faces->kept[k];
          const std::int64_t n = faces->counts[static_cast<std::size_t>(face)];
          Column& column = cell_column(name, block, values->dtype, block_corner_width_[block] * values->width);
          if (column.width != block_corner_width_[block] * values->width) break;
          for (std::int64_t c = 0; c < n; ++c) {
            const std::int64_t source = faces->left_handed ? (n - c) % n : c;
            const double* row = values->numbers.data() + (faces->corner_start[static_cast<std::size_t>(face)] + source) * values->width;
            std::copy(row, row + values->width, column.values.begin() + faces->row_of_kept[k] * column.width + c * values->width);
          }
        }
      }
    }
  }

  Column& point_column(const std::string& name, const Values& values) {
    for (auto& [key, column] : point_data_)
      if (key == name) {
        column.values.resize(points_.size() / 3 * static_cast<std::size_t>(column.width), missing(column.dtype));
        return column;
      }
    Column column;
    column.dtype = values.dtype;
    column.width = values.width;
    column.values.assign(points_.size() / 3 * static_cast<std::size_t>(values.width), missing(values.dtype));
    return point_data_.emplace_back(name, std::move(column)).second;
  }

  Column& cell_column(const std::string& name, std::size_t block, DType dtype, std::int64_t width) {
    auto& columns = cell_data_[name];
    if (columns.size() <= block) columns.resize(block + 1);
    Column& column = columns[block];
    if (column.values.empty()) {
      column.dtype = dtype;
      column.width = width;
      column.values.assign(static_cast<std::size_t>(blocks_[block].num_cells() * width), missing(dtype));
    }
    return column;
  }

  static double missing(DType dtype) noexcept {
    return dtype_is_float(dtype) ? std::numeric_limits<double>::quiet_NaN() : 0.0;
  }

  void add_mesh(std::size_t index, const io::Affine& world) {
    const Prim& prim = layer_.prims[index];
    std::int64_t point_count = 0;
    const std::int64_t first_point = append_points(prim, world, point_count);
    const Attribute* counts = numbers(prim, "faceVertexCounts", ValueKind::integer);
    const Attribute* indices = numbers(prim, "faceVertexIndices", ValueKind::integer);
    FaceContext faces;
    faces.first_cell = cell_count_;
    if (counts != nullptr) {
      faces.faces = static_cast<std::int64_t>(counts->integers.size());
      faces.counts = counts->integers;
      std::int64_t corners = 0;
      for (const std::int64_t n : counts->integers) {
        if (n < 1 || n > 1'000'000) fail(*counts, prim.path + ".faceVertexCounts holds " + std::to_string(n));
        faces.corner_start.push_back(corners);
        corners += n;
      }
      const std::int64_t index_count = indices == nullptr ? 0 : static_cast<std::int64_t>(indices->integers.size());
      if (corners != index_count)
        fail(indices != nullptr ? *indices : *counts, prim.path + ": faceVertexCounts add up to " + std::to_string(corners) +
                                                          " corners but faceVertexIndices holds " + std::to_string(index_count));
      if (indices != nullptr)
        for (const std::int64_t i : indices->integers)
          if (i < 0 || i >= point_count)
            fail(*indices, prim.path + ".faceVertexIndices holds " + std::to_string(i) + ", outside [0, " + std::to_string(point_count) + ")");
    }
    std::vector<char> hole(static_cast<std::size_t>(faces.faces), 0);
    if (const Attribute* holes = numbers(prim, "holeIndices", ValueKind::integer); holes != nullptr)
      for (const std::int64_t f : holes->integers)
        if (f >= 0 && f < faces.faces) hole[static_cast<std::size_t>(f)] = 1;
    if (const Attribute* orientation = prim.find("orientation"); orientation != nullptr && !orientation->strings.empty())
      faces.left_handed = orientation->strings.front() == "leftHanded";
    std::vector<std::int64_t> kept_counts;
    for (std::int64_t f = 0; f < faces.faces; ++f)
      if (!hole[static_cast<std::size_t>(f)]) {
        faces.kept.push_back(f);
        kept_counts.push_back(faces.counts[static_cast<std::size_t>(f)]);
      }
    const io::FaceBlockLayout layout(kept_counts);
    std::vector<CellBlock> blocks = layout.allocate_blocks();
    const std::size_t block_base = blocks_.size();
    {
      io::FaceBlockFiller filler(layout, blocks);
      for (const std::int64_t f : faces.kept) {
        const std::int64_t n = faces.counts[static_cast<std::size_t>(f)];
        const io::FaceSlot slot = filler.place(n);
        const std::int64_t* source = indices->integers.data() + faces.corner_start[static_cast<std::size_t>(f)];
        for (std::int64_t c = 0; c < n; ++c) slot.corners[c] = first_point + source[faces.left_handed ? (n - c) % n : c];
        faces.block_of_kept.push_back(static_cast<std::int64_t>(block_base + slot.block));
        faces.row_of_kept.push_back(slot.row);
      }
    }
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      block_corner_width_.push_back(layout.max_corners(b));
      blocks_.push_back(std::move(blocks[b]));
    }
    const std::int64_t kept = static_cast<std::int64_t>(faces.kept.size());
    add_region(prim.path, RegionKind::Cell, 2, cell_count_, kept);
    cell_count_ += kept;
    add_primvars(prim, first_point, point_count, &faces);
    add_subsets(index, faces, first_point, point_count);
  }

  void add_subsets(std::size_t mesh_index, const FaceContext& faces, std::int64_t first_point, std::int64_t point_count) {
    std::vector<std::int64_t> cell_of_face(static_cast<std::size_t>(faces.faces), -1);
    for (std::size_t k = 0; k < faces.kept.size(); ++k) cell_of_face[static_cast<std::size_t>(faces.kept[k])] = faces.first_cell + static_cast<std::int64_t>(k);
    for (std::size_t i = mesh_index + 1; i < layer_.prims.size(); ++i) {
      const Prim& subset = layer_.prims[i];
      if (subset.parent != static_cast<std::int64_t>(mesh_index) || subset.type_name != "GeomSubset" ||
          subset.specifier != "def" || !subset.active)
        continue;
      const Attribute* element_type = subset.find("elementType");
      const std::string type = element_type != nullptr && !element_type->strings.empty() ? element_type->strings.front() : "face";
      const Attribute* members = numbers(subset, "indices", ValueKind::integer);
      std::string name = subset.path;
      if (const Attribute* label = subset.find("meshioplusplus:region"); label != nullptr && !label->strings.empty())
        name = label->strings.front();
      std::vector<std::int64_t> entries;
      static const std::vector<std::int64_t> kNone;
      for (const std::int64_t member : members != nullptr ? members->integers : kNone) {
        if (type == "face") {
          if (member < 0 || member >= faces.faces)
            fail(*members, subset.path + ".indices holds face " + std::to_string(member) + ", outside [0, " + std::to_string(faces.faces) + ")");
          if (cell_of_face[static_cast<std::size_t>(member)] >= 0) entries.push_back(cell_of_face[static_cast<std::size_t>(member)]);
        } else if (type == "point") {
          if (member < 0 || member >= point_count)
            fail(*members, subset.path + ".indices holds point " + std::to_string(member) + ", outside [0, " + std::to_string(point_count) + ")");
          entries.push_back(first_point + member);
        }
      }
      if (type != "face" && type != "point") continue;  // edges: no region kind holds them
      Region region;
      region.name = name;
      region.kind = type == "face" ? RegionKind::Cell : RegionKind::Point;
      region.dim = type == "face" ? 2 : 0;
      region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size())});
      std::copy(entries.begin(), entries.end(), region.entries.data_as<std::int64_t>());
      regions_.push_back(std::move(region));
    }
  }

  void add_points(const Prim& prim, const io::Affine& world) {
    std::int64_t count = 0;
    const std::int64_t first = append_points(prim, world, count);
    CellBlock block;
    block.type = "vertex";
    block.connectivity = NDArray::allocate(DType::int64, {count, 1});
    for (std::int64_t p = 0; p < count; ++p) block.connectivity.data_as<std::int64_t>()[p] = first + p;
    blocks_.push_back(std::move(block));
    block_corner_width_.push_back(1);
    add_region(prim.path, RegionKind::Cell, 0, cell_count_, count);
    cell_count_ += count;
    add_primvars(prim, first, count, nullptr);
  }

  void add_curves(const Prim& prim, const io::Affine& world) {
    std::int64_t count = 0;
    const std::int64_t first = append_points(prim, world, count);
    const Attribute* curve_counts = numbers(prim, "curveVertexCounts", ValueKind::integer);
    std::vector<std::int64_t> segments;
    std::int64_t start = 0;
    static const std::vector<std::int64_t> kNoCurves;
    for (const std::int64_t n : curve_counts != nullptr ? curve_counts->integers : kNoCurves) {
      if (n < 1 || start + n > count)
        fail(*curve_counts, prim.path + ".curveVertexCounts does not fit the " + std::to_string(count) + " points");
      for (std::int64_t k = 0; k + 1 < n; ++k) segments.insert(segments.end(), {first + start + k, first + start + k + 1});
      start += n;
    }
    CellBlock block;
    block.type = "line";
    const std::int64_t lines = static_cast<std::int64_t>(segments.size() / 2);
    block.connectivity = NDArray::allocate(DType::int64, {lines, 2});
    std::copy(segments.begin(), segments.end(), block.connectivity.data_as<std::int64_t>());
    blocks_.push_back(std::move(block));
    block_corner_width_.push_back(2);
    add_region(prim.path, RegionKind::Cell, 1, cell_count_, lines);
    cell_count_ += lines;
    add_primvars(prim, first, count, nullptr);
  }

  void add_region(const std::string& name, RegionKind kind, int dim, std::int64_t first, std::int64_t count) {
    Region region;
    region.name = name;
    region.kind = kind;
    region.dim = dim;
    region.entries = NDArray::allocate(DType::int64, {count});
    for (std::int64_t i = 0; i < count; ++i) region.entries.data_as<std::int64_t>()[i] = first + i;
    regions_.push_back(std::move(region));
  }

  static NDArray to_array(const Column& column, std::int64_t rows) {
    const Shape shape = column.width == 1 ? Shape{rows} : Shape{rows, column.width};
    NDArray array = NDArray::allocate(column.dtype, shape);
    visit_dtype(column.dtype, [&](auto zero) {
      using T = decltype(zero);
      T* out = array.data_as<T>();
      for (std::size_t i = 0; i < column.values.size(); ++i) out[i] = static_cast<T>(column.values[i]);
    });
    return array;
  }

  Mesh finish() {
    Mesh mesh;
    const std::int64_t point_count = static_cast<std::int64_t>(points_.size() / 3);
    mesh.points = NDArray::allocate(DType::float64, {point_count, 3});
    std::copy(points_.begin(), points_.end(), mesh.points.data_as<double>());
    for (auto& [name, column] : point_data_) {
      column.values.resize(static_cast<std::size_t>(point_count * column.width), missing(column.dtype));
      mesh.point_data.set(name, to_array(column, point_count));
    }
    for (auto& [name, columns] : cell_data_) {
      columns.resize(blocks_.size());
      const Column* model = nullptr;
      for (const Column& column : columns)
        if (!column.values.empty() && model == nullptr) model = &column;
      std::vector<NDArray> arrays;
      for (std::size_t b = 0; b < blocks_.size(); ++b) {
        Column column = columns[b];
        if (column.values.empty()) {
          column.dtype = model->dtype;
          column.width = model->width;
          column.values.assign(static_cast<std::size_t>(blocks_[b].num_cells() * column.width), missing(column.dtype));
        }
        arrays.push_back(to_array(column, blocks_[b].num_cells()));
      }
      mesh.cell_data.set(name, std::move(arrays));
    }
    mesh.cells = std::move(blocks_);
    if (layer_.meters_per_unit) mesh.field_data.set("metersPerUnit", NDArray::from_values<double>({*layer_.meters_per_unit}));
    for (auto& [name, array] : field_data_) mesh.field_data.set(name, std::move(array));
    if (!layer_.up_axis.empty()) mesh.string_field_data.set("upAxis", {layer_.up_axis});
    mesh.regions = std::move(regions_);
    return mesh;
  }

  const Layer& layer_;
  std::string_view bytes_;
  const std::string& path_;
  std::vector<double> points_;
  std::vector<CellBlock> blocks_;
  std::vector<std::int64_t> block_corner_width_;  // widest face of each block
  std::int64_t cell_count_ = 0;
  std::vector<std::pair<std::string, Column>> point_data_;
  std::map<std::string, std::vector<Column>> cell_data_;
  std::vector<std::pair<std::string, NDArray>> field_data_;
  std::vector<Region> regions_;
};

}  // namespace

Mesh read(const std::string& path) {
  return io::guarded_read([&] {
    const io::MappedFile file(path, kFormat);
    io::reject_empty_file(file.bytes(), path, kFormat);
    const Layer layer = parse_usda(file.bytes(), path);
    return Builder(layer, file.bytes(), path).build();
  });
}

}  // namespace meshioplusplus::usd
