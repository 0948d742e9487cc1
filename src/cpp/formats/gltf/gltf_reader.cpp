// glTF 2.0 reader (.gltf, .glb).
//
// The format holds a scene graph: scenes list root nodes, nodes carry a transform (a column-
// major "matrix", or "translation"/"rotation"/"scale" composed T*R*S) and children, and may
// place a mesh; a mesh is a list of primitives, each a set of vertex attributes (accessors
// into binary buffers) with optional indices and a drawing mode. Buffers are the GLB's BIN
// chunk, files beside the .gltf, or base64 data URIs (gltf_document.cpp).
//
// What becomes what (expand_instances = true, the default):
//  - the scene: "scene" if given, else every scene's root nodes, else every node no other
//    node lists as a child. Each node placing a mesh is one instance, its world transform the
//    product of the transforms from the root down (io/geometry/node_transform.hpp), so a mesh
//    placed by three nodes appears three times, as trimesh's and VTK's scene dumps show it.
//  - points float64 (n, 3): every primitive's POSITION transformed to world coordinates and
//    appended; primitives naming the very same attribute accessors under the same world
//    transform share them (several primitives of one mesh, or meshes placed alike, as our
//    writer writes blocks), where trimesh and VTK copy them per primitive.
//  - cells, one block per type in order of first appearance: mode 0 POINTS → "vertex";
//    1 LINES, 2 LINE_LOOP (closing segment added), 3 LINE_STRIP → "line"; 4 TRIANGLES,
//    5 TRIANGLE_STRIP (triangle i = v_i, v_{i+1+i%2}, v_{i+2-i%2}, the spec's alternation),
//    6 TRIANGLE_FAN (v_{i+1}, v_{i+2}, v_0) → "triangle". Without "indices" the vertices are
//    taken in order. A transform with a negative determinant (a mirror) flips the triangles'
//    winding so they keep facing out.
//  - point data, named by the glTF attribute as VTK's vtkGLTFReader names its arrays:
//    NORMAL (transformed by the inverse transpose and renormalised), TANGENT (xyz by the
//    linear part, w kept), TEXCOORD_n, COLOR_n, WEIGHTS_n and application attributes ("_X")
//    as float32; normalised integers become floats by the spec's formulas (u8 c/255,
//    i8 max(c/127,-1), u16 c/65535, i16 max(c/32767,-1)); JOINTS_n and other non-normalised
//    integer attributes as int64. Where a primitive lacks an attribute its rows are 0 (COLOR
//    alpha 1); the width is the widest any primitive has.
//  - a Cell region per (instance, primitive) named "node name/mesh name" (with ":k" after it
//    for primitive k of a mesh with several; "node<i>"/"mesh<j>" where names are missing;
//    " (2)", " (3)" … for repeated names), dim 0, 1 or 2.
// expand_instances = false: each mesh once, in mesh order, untransformed, regions "mesh name".
//
// Ignored: materials, textures, images, cameras, lights, animations, morph targets (the base
// geometry is read) and skins (meshes are placed by their node, in bind pose). Required
// extensions that change the geometry and are not supported (KHR_draco_mesh_compression,
// EXT_meshopt_compression, KHR_meshopt_compression, EXT_mesh_gpu_instancing) → ReadError
// naming the extension; others (materials, textures, KHR_mesh_quantization) read as usual.
// Errors name the JSON path at fault; node cycles and scene graphs expanding to more points
// than the array limit allows are refused before allocating.
#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <string>
#include <vector>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_document.hpp"
#include "io/geometry/node_transform.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::gltf {
namespace {

using detail::Accessor;
using detail::Document;
using detail::kFormat;

struct Instance {
  std::int64_t node = -1;  // -1: an unexpanded mesh
  std::int64_t mesh = 0;
  io::Affine world;
};

struct PrimitivePlan {
  std::int64_t instance = 0;
  std::int64_t primitive = 0;
  int mode = 4;
  int block = 0;  // into the block types
  const Accessor* position = nullptr;
  const Accessor* indices = nullptr;
  std::vector<std::pair<std::string, const Accessor*>> attributes;  // POSITION excluded
  std::int64_t point_base = 0;
  bool owns_points = true;  // false: shares the points of an earlier primitive (same accessors and transform)
  std::int64_t cells = 0;
  std::int64_t cell_base = 0;  // within its block
};

struct AttributeColumn {
  std::string name;
  std::int64_t width = 0;
  bool integer = false;
};

std::string item(std::string_view array, std::int64_t index) {
  return std::string(array) + "[" + std::to_string(index) + "]";
}

io::Affine local_transform(const Document& doc, const io::JsonValue& node, const std::string& where) {
  const auto numbers = [&](const char* key, std::size_t count, double* out) {
    const io::JsonValue* value = node.find(key);
    if (!value) return false;
    if (!value->is_array() || value->items().size() != count)
      doc.fail(where + "." + key + " is not an array of " + std::to_string(count) + " numbers", value);
    for (std::size_t i = 0; i < count; ++i) {
      if (!value->items()[i].is_number()) doc.fail(where + "." + key + " holds a non-number", value);
      out[i] = value->items()[i].as_double();
    }
    return true;
  };
  io::Affine transform;
  if (numbers("matrix", 16, transform.m.data())) return transform;
  std::array<double, 3> t{0, 0, 0}, s{1, 1, 1};
  std::array<double, 4> r{0, 0, 0, 1};
  const bool any = numbers("translation", 3, t.data()) | numbers("rotation", 4, r.data()) | numbers("scale", 3, s.data());
  return any ? io::Affine::from_trs(t, r, s) : transform;
}

// Cells a primitive of `mode` with `n` vertices makes.
std::int64_t cells_of(int mode, std::int64_t n) {
  switch (mode) {
    case 0: return n;
    case 1: return n / 2;
    case 2: return n >= 2 ? n : 0;
    case 3: return n >= 2 ? n - 1 : 0;
    case 4: return n / 3;
    default: return n >= 3 ? n - 2 : 0;  // 5, 6
  }
}

const char* type_of_mode(int mode) { return mode == 0 ? "vertex" : mode <= 3 ? "line" : "triangle"; }

class SceneReader {
 public:
  SceneReader(const std::string& path, const ReadOptions& options) : doc_(path), options_(options) {}

  Mesh read() {
    check_required_extensions();
    collect_instances();
    plan_primitives();
    Mesh mesh;
    fill_points(mesh);
    fill_cells(mesh);
    return mesh;
  }

 private:
  void check_required_extensions() {
    const io::JsonValue* required = doc_.root().find("extensionsRequired");
    if (!required || !required->is_array()) return;
    for (const io::JsonValue& name : required->items()) {
      if (!name.is_string()) continue;
      const std::string& text = name.as_string();
      if (text == "KHR_draco_mesh_compression" || text == "EXT_meshopt_compression" ||
          text == "KHR_meshopt_compression" || text == "EXT_mesh_gpu_instancing")
        doc_.fail("the file requires the extension " + text + ", which meshio++ does not decode", &name);
    }
  }

  void collect_instances() {
    const io::JsonValue* meshes = doc_.root().find("meshes");
    const std::int64_t mesh_count = meshes && meshes->is_array() ? static_cast<std::int64_t>(meshes->items().size()) : 0;
    const io::JsonValue* nodes = doc_.root().find("nodes");
    const std::int64_t node_count = nodes && nodes->is_array() ? static_cast<std::int64_t>(nodes->items().size()) : 0;
    if (!options_.expand_instances || node_count == 0) {
      for (std::int64_t m = 0; m < mesh_count; ++m) instances_.push_back({-1, m, io::Affine{}});
      return;
    }
    // One group of roots per scene: a node may appear in several scenes, never twice in one.
    std::vector<std::vector<std::int64_t>> root_groups;
    const auto add_scene_roots = [&](std::int64_t scene) {
      std::vector<std::int64_t>& roots = root_groups.emplace_back();
      const io::JsonValue& object = doc_.array_item("scenes", scene);
      const io::JsonValue* list = object.find("nodes");
      if (!list) return;
      if (!list->is_array()) doc_.fail(item("scenes", scene) + ".nodes is not an array", list);
      for (const io::JsonValue& n : list->items()) {
        if (!n.is_integer()) doc_.fail(item("scenes", scene) + ".nodes holds a non-integer", &n);
        roots.push_back(n.as_int64());
      }
    };
    const io::JsonValue* scenes = doc_.root().find("scenes");
    if (const io::JsonValue* scene = doc_.root().find("scene")) {
      if (!scene->is_integer()) doc_.fail("\"scene\" is not an integer", scene);
      add_scene_roots(scene->as_int64());
    } else if (scenes && scenes->is_array() && !scenes->items().empty()) {
      for (std::size_t s = 0; s < scenes->items().size(); ++s) add_scene_roots(static_cast<std::int64_t>(s));
    } else {
      std::vector<std::int64_t>& roots = root_groups.emplace_back();
      std::vector<char> is_child(static_cast<std::size_t>(node_count), 0);
      for (std::int64_t n = 0; n < node_count; ++n)
        for (std::int64_t child : children(n))
          if (child >= 0 && child < node_count) is_child[static_cast<std::size_t>(child)] = 1;
      for (std::int64_t n = 0; n < node_count; ++n)
        if (!is_child[static_cast<std::size_t>(n)]) roots.push_back(n);
    }
    for (const std::vector<std::int64_t>& roots : root_groups) {
      std::vector<char> visited(static_cast<std::size_t>(node_count), 0);
      for (std::int64_t root : roots) visit(root, io::Affine{}, visited, 0);
    }
  }

  std::vector<std::int64_t> children(std::int64_t node) const {
    const io::JsonValue& object = doc_.array_item("nodes", node);
    std::vector<std::int64_t> out;
    const io::JsonValue* list = object.find("children");
    if (!list) return out;
    if (!list->is_array()) doc_.fail(item("nodes", node) + ".children is not an array", list);
    for (const io::JsonValue& c : list->items()) {
      if (!c.is_integer()) doc_.fail(item("nodes", node) + ".children holds a non-integer", &c);
      out.push_back(c.as_int64());
    }
    return out;
  }

  // The spec makes the hierarchy disjoint trees: a node reached twice in one scene has two
  // parents or is its own ancestor, either of which could make the expansion endless or
  // exponential, so it is refused.
  void visit(std::int64_t node, const io::Affine& parent, std::vector<char>& visited, int depth) {
    const io::JsonValue& object = doc_.array_item("nodes", node);
    const std::string where = item("nodes", node);
    if (visited[static_cast<std::size_t>(node)] || depth > 1000)
      doc_.fail(where + " is reached twice: the node hierarchy has a cycle or a node with two parents", &object);
    visited[static_cast<std::size_t>(node)] = 1;
    const io::Affine world = parent * local_transform(doc_, object, where);
    if (const io::JsonValue* mesh = object.find("mesh")) {
      if (!mesh->is_integer()) doc_.fail(where + ".mesh is not an integer", mesh);
      doc_.array_item("meshes", mesh->as_int64());
      instances_.push_back({node, mesh->as_int64(), world});
    }
    for (std::int64_t child : children(node)) visit(child, world, visited, depth + 1);
  }

  void plan_primitives() {
    std::map<std::string, int> block_of_type;
    // (world matrix bits — NaN-safe as a key, attribute accessors) → the plan whose points a
    // primitive shares.
    std::map<std::pair<std::array<std::uint64_t, 16>, std::vector<std::pair<std::string, std::int64_t>>>, std::int64_t> shared;
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      const Instance& instance = instances_[i];
      const std::string mesh_path = item("meshes", instance.mesh);
      const io::JsonValue& mesh = doc_.array_item("meshes", instance.mesh);
      const io::JsonValue* primitives = mesh.find("primitives");
      if (!primitives || !primitives->is_array()) doc_.fail(mesh_path + " has no \"primitives\" array", &mesh);
      for (std::size_t p = 0; p < primitives->items().size(); ++p) {
        const io::JsonValue& primitive = primitives->items()[p];
        const std::string where = mesh_path + ".primitives[" + std::to_string(p) + "]";
        if (!primitive.is_object()) doc_.fail(where + " is not an object", &primitive);
        const io::JsonValue* attributes = primitive.find("attributes");
        if (!attributes || !attributes->is_object()) doc_.fail(where + " has no \"attributes\" object", &primitive);
        PrimitivePlan plan;
        plan.instance = static_cast<std::int64_t>(i);
        plan.primitive = static_cast<std::int64_t>(p);
        plan.mode = static_cast<int>(doc_.integer(primitive, "mode", where, 4));
        if (plan.mode < 0 || plan.mode > 6) doc_.fail(where + ".mode " + std::to_string(plan.mode) + " is not 0..6", &primitive);
        std::vector<std::pair<std::string, std::int64_t>> key;
        for (const auto& [name, value] : attributes->members()) {
          if (!value.is_integer()) doc_.fail(where + ".attributes." + name + " is not an accessor index", &value);
          const Accessor& accessor = doc_.accessor(value.as_int64(), where + ".attributes." + name);
          key.emplace_back(name, value.as_int64());
          if (name == "POSITION") {
            if (accessor.components != 3 || accessor.matrix_rows)
              doc_.fail(where + ".attributes.POSITION is not a VEC3 accessor", &value);
            plan.position = &accessor;
          } else {
            plan.attributes.emplace_back(name, &accessor);
          }
        }
        if (!plan.position) continue;  // nothing to place
        for (const auto& [name, accessor] : plan.attributes)
          if (accessor->count != plan.position->count)
            doc_.fail(where + ".attributes." + name + " has " + std::to_string(accessor->count) +
                          " elements but POSITION has " + std::to_string(plan.position->count),
                      attributes);
        std::int64_t vertices = plan.position->count;
        if (const io::JsonValue* indices = primitive.find("indices")) {
          if (!indices->is_integer()) doc_.fail(where + ".indices is not an accessor index", indices);
          plan.indices = &doc_.accessor(indices->as_int64(), where + ".indices");
          const int type = plan.indices->component_type;
          if (plan.indices->components != 1 ||
              (type != detail::kUnsignedByte && type != detail::kUnsignedShort && type != detail::kUnsignedInt))
            doc_.fail(where + ".indices is not a SCALAR accessor of unsigned integers", indices);
          vertices = plan.indices->count;
        }
        plan.cells = cells_of(plan.mode, vertices);
        std::sort(key.begin(), key.end());
        auto shared_key = std::make_pair(std::bit_cast<std::array<std::uint64_t, 16>>(instance.world.m), std::move(key));
        if (const auto found = shared.find(shared_key); found != shared.end()) {
          plan.owns_points = false;
          plan.point_base = plans_[static_cast<std::size_t>(found->second)].point_base;
        } else {
          shared.emplace(std::move(shared_key), static_cast<std::int64_t>(plans_.size()));
          plan.point_base = total_points_;
          total_points_ += plan.position->count;
          io::check_claim_fits_limit(doc_.path(), kFormat, "points of the expanded scene",
                                     static_cast<std::uint64_t>(total_points_), 24);
          for (const auto& [name, accessor] : plan.attributes) add_column(name, *accessor);
        }
        const std::string type = type_of_mode(plan.mode);
        const auto [entry, added] = block_of_type.emplace(type, static_cast<int>(block_types_.size()));
        if (added) {
          block_types_.push_back(type);
          block_cells_.push_back(0);
        }
        plan.block = entry->second;
        plan.cell_base = block_cells_[static_cast<std::size_t>(plan.block)];
        block_cells_[static_cast<std::size_t>(plan.block)] += plan.cells;
        io::check_claim_fits_limit(doc_.path(), kFormat, "cells of the expanded scene",
                                   static_cast<std::uint64_t>(block_cells_[static_cast<std::size_t>(plan.block)]), 24);
        plans_.push_back(std::move(plan));
      }
    }
  }

  void add_column(const std::string& name, const Accessor& accessor) {
    const bool integer = name.rfind("JOINTS_", 0) == 0 ||
                         (accessor.component_type != detail::kFloat && !accessor.normalized &&
                          name.rfind("TEXCOORD_", 0) != 0 && name.rfind("COLOR_", 0) != 0 &&
                          name.rfind("WEIGHTS_", 0) != 0 && name != "NORMAL" && name != "TANGENT");
    for (AttributeColumn& column : columns_)
      if (column.name == name) {
        column.width = std::max<std::int64_t>(column.width, accessor.components);
        column.integer = column.integer && integer;
        return;
      }
    columns_.push_back({name, accessor.components, integer});
  }

  // A primitive's rows of every column: 0 (COLOR alpha 1) where it lacks the attribute or has
  // fewer components than the column.
  void fill_defaults(const PrimitivePlan& plan, std::vector<NDArray>& arrays) const {
    const std::int64_t rows = plan.position->count;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const AttributeColumn& column = columns_[c];
      std::int64_t present = 0;
      for (const auto& [name, accessor] : plan.attributes)
        if (name == column.name) present = accessor->components;
      if (present == column.width) continue;
      const bool alpha = column.name.rfind("COLOR_", 0) == 0 && column.width == 4 && !column.integer;
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t k = present; k < column.width; ++k) {
          if (column.integer) arrays[c].data_as<std::int64_t>()[(plan.point_base + i) * column.width + k] = 0;
          else arrays[c].data_as<float>()[(plan.point_base + i) * column.width + k] = alpha && k == 3 ? 1.0f : 0.0f;
        }
    }
  }

  void fill_points(Mesh& mesh) {
    mesh.points = NDArray::allocate(DType::float64, {total_points_, 3});
    double* points = mesh.points.data_as<double>();
    std::vector<NDArray> arrays;
    for (const AttributeColumn& column : columns_) {
      // SCALAR attributes come back one-dimensional, as numpy users (and meshio) hold them.
      const Shape shape = column.width == 1 ? Shape{total_points_} : Shape{total_points_, column.width};
      // Uninitialised: every row is written below, by its primitive or as a default.
      arrays.push_back(NDArray::allocate(column.integer ? DType::int64 : DType::float32, shape));
    }
    std::vector<double> scratch;
    for (const PrimitivePlan& plan : plans_) {
      if (!plan.owns_points) continue;
      const io::Affine& world = instances_[static_cast<std::size_t>(plan.instance)].world;
      double* out = points + plan.point_base * 3;
      doc_.read(*plan.position, out, 3);
      if (!world.is_identity()) {
        for (std::int64_t i = 0; i < plan.position->count; ++i) {
          const double in[3] = {out[i * 3], out[i * 3 + 1], out[i * 3 + 2]};
          world.apply_to_point(in, out + i * 3);
        }
      }
      fill_defaults(plan, arrays);
      for (const auto& [name, accessor] : plan.attributes) {
        std::size_t c = 0;
        while (columns_[c].name != name) ++c;
        NDArray& array = arrays[c];
        const std::int64_t width = columns_[c].width;
        if (columns_[c].integer) {
          doc_.read(*accessor, array.data_as<std::int64_t>() + plan.point_base * width, width);
          continue;
        }
        float* values = array.data_as<float>() + plan.point_base * width;
        const bool is_normal = name == "NORMAL" && accessor->components == 3;
        const bool is_tangent = name == "TANGENT" && accessor->components >= 3;
        if (world.is_identity() || (!is_normal && !is_tangent)) {
          doc_.read(*accessor, values, width);
          continue;
        }
        scratch.resize(static_cast<std::size_t>(accessor->count * width));
        doc_.read(*accessor, scratch.data(), width);
        const std::array<double, 9> normal_matrix = world.normal_matrix();
        for (std::int64_t i = 0; i < accessor->count; ++i) {
          double* row = scratch.data() + i * width;
          double moved[3];
          if (is_normal) {
            io::transform_normal(normal_matrix, row, moved);
          } else {
            world.apply_to_vector(row, moved);
            const double length = std::sqrt(moved[0] * moved[0] + moved[1] * moved[1] + moved[2] * moved[2]);
            if (length > 0)
              for (double& v : moved) v /= length;
          }
          for (int k = 0; k < 3; ++k) row[k] = moved[k];
        }
        for (std::int64_t i = 0; i < accessor->count; ++i)
          for (int k = 0; k < accessor->components; ++k)
            values[i * width + k] = static_cast<float>(scratch[static_cast<std::size_t>(i * width + k)]);
      }
    }
    for (std::size_t c = 0; c < columns_.size(); ++c) mesh.point_data.append_new(columns_[c].name, std::move(arrays[c]));
  }

  void fill_cells(Mesh& mesh) {
    for (std::size_t b = 0; b < block_types_.size(); ++b) {
      const std::int64_t width = block_types_[b] == "vertex" ? 1 : block_types_[b] == "line" ? 2 : 3;
      mesh.cells.push_back({block_types_[b], NDArray::allocate(DType::int64, {block_cells_[b], width}), {}, {}});
    }
    std::vector<std::int64_t> bases(block_types_.size() + 1, 0);
    for (std::size_t b = 0; b < block_types_.size(); ++b) bases[b + 1] = bases[b] + block_cells_[b];
    std::vector<std::int64_t> vertices;
    std::map<std::string, int> name_uses;
    for (const PrimitivePlan& plan : plans_) {
      const Instance& instance = instances_[static_cast<std::size_t>(plan.instance)];
      const std::int64_t n = plan.indices ? plan.indices->count : plan.position->count;
      const CellBlock& block = mesh.cells[static_cast<std::size_t>(plan.block)];
      std::int64_t* out = const_cast<std::int64_t*>(block.connectivity.data_as<std::int64_t>()) +
                          plan.cell_base * block.connectivity.row_width();
      const bool flip = instance.world.mirrors_orientation();
      const bool list_mode = plan.mode == 0 || plan.mode == 1 || plan.mode == 4;
      if (list_mode && plan.indices) {
        // Points, lines, triangles: the indices are the connectivity; read them in place (the
        // common case, and the one large files take).
        read_indices_into(plan, out, plan.cells * block.connectivity.row_width());
        if (flip && plan.mode == 4)
          for (std::int64_t c = 0; c < plan.cells; ++c) std::swap(out[3 * c + 1], out[3 * c + 2]);
        add_region(mesh, plan, bases, name_uses);
        continue;
      }
      vertices.resize(static_cast<std::size_t>(n));
      if (plan.indices) {
        doc_.read(*plan.indices, vertices.data(), 1);
        for (std::int64_t i = 0; i < n; ++i)
          if (static_cast<std::uint64_t>(vertices[static_cast<std::size_t>(i)]) >=
              static_cast<std::uint64_t>(plan.position->count))
            doc_.fail(item("meshes", instance.mesh) + ".primitives[" + std::to_string(plan.primitive) + "].indices: index " +
                      std::to_string(vertices[static_cast<std::size_t>(i)]) + " is past the vertex count " +
                      std::to_string(plan.position->count));
      } else {
        for (std::int64_t i = 0; i < n; ++i) vertices[static_cast<std::size_t>(i)] = i;
      }
      const std::int64_t base = plan.point_base;
      const auto v = [&](std::int64_t i) { return vertices[static_cast<std::size_t>(i)] + base; };
      for (std::int64_t c = 0; c < plan.cells; ++c) {
        switch (plan.mode) {
          case 0: out[c] = v(c); break;
          case 1: out[2 * c] = v(2 * c), out[2 * c + 1] = v(2 * c + 1); break;
          case 2: out[2 * c] = v(c), out[2 * c + 1] = v((c + 1) % n); break;
          case 3: out[2 * c] = v(c), out[2 * c + 1] = v(c + 1); break;
          case 4: out[3 * c] = v(3 * c), out[3 * c + 1] = v(3 * c + 1), out[3 * c + 2] = v(3 * c + 2); break;
          case 5: out[3 * c] = v(c), out[3 * c + 1] = v(c + 1 + c % 2), out[3 * c + 2] = v(c + 2 - c % 2); break;
          default: out[3 * c] = v(c + 1), out[3 * c + 1] = v(c + 2), out[3 * c + 2] = v(0); break;
        }
        if (flip && plan.mode >= 4) std::swap(out[3 * c + 1], out[3 * c + 2]);
      }
      add_region(mesh, plan, bases, name_uses);
    }
  }

  void add_region(Mesh& mesh, const PrimitivePlan& plan, const std::vector<std::int64_t>& bases,
                  std::map<std::string, int>& name_uses) const {
    if (plan.cells == 0) return;
    Region region;
    region.name = unique_name(region_name(plan), name_uses);
    region.kind = RegionKind::Cell;
    region.dim = plan.mode == 0 ? 0 : plan.mode <= 3 ? 1 : 2;
    region.entries = NDArray::allocate(DType::int64, {plan.cells});
    std::int64_t* entries = region.entries.data_as<std::int64_t>();
    for (std::int64_t c = 0; c < plan.cells; ++c) entries[c] = bases[static_cast<std::size_t>(plan.block)] + plan.cell_base + c;
    mesh.regions.push_back(std::move(region));
  }

  // The indices of a list-mode primitive, checked against its vertex count, shifted by its
  // point base, as int64 into `out` (count values).
  void read_indices_into(const PrimitivePlan& plan, std::int64_t* out, std::int64_t count) const {
    const Accessor& indices = *plan.indices;
    const std::uint64_t vertices = static_cast<std::uint64_t>(plan.position->count);
    std::uint64_t worst = 0;
    if (indices.base && indices.sparse_count == 0 &&
        indices.stride == detail::component_size(indices.component_type)) {
      detail::accessor_values::visit_component(indices.component_type, [&](auto zero) {
        using Index = decltype(zero);
        if constexpr (std::is_integral_v<Index>) {
          const std::uint8_t* bytes = indices.base;
          for (std::int64_t k = 0; k < count; ++k) {
            const auto value = static_cast<std::uint64_t>(detail::accessor_values::load<Index>(bytes + k * sizeof(Index)));
            worst = std::max(worst, value);
            out[k] = static_cast<std::int64_t>(value) + plan.point_base;
          }
        }
      });
    } else {
      // `count` is the whole cells' indices: an accessor whose count is no multiple of the
      // cell's width has a few more, read aside (a fuzz finding wrote them past `out`).
      std::vector<std::int64_t> all;
      std::int64_t* target = out;
      if (indices.count > count) {
        all.resize(static_cast<std::size_t>(indices.count));
        target = all.data();
      }
      doc_.read(indices, target, 1);
      if (target != out) std::copy_n(target, count, out);
      for (std::int64_t k = 0; k < count; ++k) {
        worst = std::max(worst, static_cast<std::uint64_t>(out[k]));
        out[k] += plan.point_base;
      }
    }
    if (count > 0 && worst >= vertices)
      doc_.fail(item("meshes", instances_[static_cast<std::size_t>(plan.instance)].mesh) + ".primitives[" +
                std::to_string(plan.primitive) + "].indices: index " + std::to_string(worst) +
                " is past the vertex count " + std::to_string(vertices));
  }

  std::string name_of(std::string_view array, std::int64_t index, const char* fallback) const {
    const io::JsonValue& object = doc_.array_item(array, index);
    if (const io::JsonValue* name = object.find("name"); name && name->is_string() && !name->as_string().empty())
      return name->as_string();
    return std::string(fallback).append(std::to_string(index));
  }

  std::string region_name(const PrimitivePlan& plan) const {
    const Instance& instance = instances_[static_cast<std::size_t>(plan.instance)];
    std::string name = name_of("meshes", instance.mesh, "mesh");
    if (instance.node >= 0) name.insert(0, name_of("nodes", instance.node, "node").append("/"));
    const io::JsonValue* primitives = doc_.array_item("meshes", instance.mesh).find("primitives");
    if (primitives->items().size() > 1) name.append(":").append(std::to_string(plan.primitive));
    return name;
  }

  static std::string unique_name(std::string name, std::map<std::string, int>& uses) {
    const int seen = uses[name]++;
    if (seen > 0) name.append(" (").append(std::to_string(seen + 1)).append(")");
    return name;
  }

  Document doc_;
  ReadOptions options_;
  std::vector<Instance> instances_;
  std::vector<PrimitivePlan> plans_;
  std::vector<std::string> block_types_;
  std::vector<std::int64_t> block_cells_;
  std::vector<AttributeColumn> columns_;
  std::int64_t total_points_ = 0;
};

}  // namespace

Mesh read(const std::string& path, const ReadOptions& options) { return SceneReader(path, options).read(); }
Mesh read(const std::string& path) { return read(path, ReadOptions{}); }

}  // namespace meshioplusplus::gltf
