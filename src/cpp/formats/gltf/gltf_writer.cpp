// glTF 2.0 writer: .glb (one file, JSON and BIN chunks) or .gltf (JSON with a .bin file
// beside it, named after the .gltf, or with embed_buffers=true a base64 data URI), by the
// path's extension.
//
// What is written: one buffer laid out as POSITION, the point-data attributes, then each
// block's indices, every buffer view 4-byte aligned. Points are float32 VEC3 (2-D points get
// z = 0; float64 coordinates are rounded to float32, the only POSITION type glTF has) with the
// accessor min/max the spec requires. Blocks: "vertex" → POINTS, "line" → LINES, "triangle"
// → TRIANGLES; "quad" and "polygon" blocks are split into triangles (fans from the first
// corner), as renderers draw them; second-order surface cells (triangle6, quad8, quad9) into
// the sub-triangles through their mid-edge nodes and "line3" into two segments, so every node
// and its point data is used. Volume cells (and other higher-order cells) have no glTF form
// and are refused with a WriteError; extract a surface first. Indices are u16 when there are
// at most 65535 points (65535 itself is the primitive-restart value glTF forbids), else u32.
// By default one mesh with a primitive per block, placed by one node; mesh_per_block=true
// writes a mesh and a node per block instead. All primitives share the POSITION accessor. A
// mesh without cells is written as a point cloud: one POINTS primitive without indices.
// Point data: NORMAL (3), TANGENT (4), TEXCOORD_n (2), COLOR_n (3 or 4), WEIGHTS_n (4) as
// float32 and JOINTS_n (4) as u16 under their own names when their widths fit; any other
// array of 1..4 columns as an application attribute "_name" (float32), a name already
// starting with "_" kept. Wider arrays, cell data, field data and regions have no place and
// are not written.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "formats/gltf/gltf.hpp"
#include "io/codecs/base64.hpp"
#include "io/output/atomic_file.hpp"
#include "io/text/json.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::gltf {
namespace {

// Cells glTF holds as linear primitives over all their nodes (orientation kept): quads as two
// triangles; quadratic triangles and quadrilaterals as their sub-triangles through the mid-edge
// (and centre) nodes; quadratic lines as two segments.
struct LinearSplit {
  int mode;  // glTF primitive mode: 1 lines, 4 triangles
  std::span<const int> corners;
};
constexpr int kQuadSplit[] = {0, 1, 2, 0, 2, 3};
constexpr int kTriangle6Split[] = {0, 3, 5, 3, 1, 4, 5, 4, 2, 3, 4, 5};
constexpr int kQuad8Split[] = {0, 4, 7, 4, 1, 5, 5, 2, 6, 7, 6, 3, 4, 5, 6, 4, 6, 7};
constexpr int kQuad9Split[] = {0, 4, 8, 0, 8, 7, 4, 1, 5, 4, 5, 8, 8, 5, 2, 8, 2, 6, 7, 8, 6, 7, 6, 3};
constexpr int kLine3Split[] = {0, 2, 2, 1};

const LinearSplit* linear_split(std::string_view type) {
  static const LinearSplit quad{4, kQuadSplit}, triangle6{4, kTriangle6Split}, quad8{4, kQuad8Split},
      quad9{4, kQuad9Split}, line3{1, kLine3Split};
  if (type == "quad") return &quad;
  if (type == "triangle6") return &triangle6;
  if (type == "quad8") return &quad8;
  if (type == "quad9") return &quad9;
  if (type == "line3") return &line3;
  return nullptr;
}

constexpr std::string_view kFormat = "gltf";

using Emit = std::function<void(const std::function<void(const void*, std::size_t)>&)>;

struct View {
  std::uint64_t offset = 0, length = 0;
  int target = 34962;  // ARRAY_BUFFER; 34963 ELEMENT_ARRAY_BUFFER
  Emit emit;
};

struct Primitive {
  int mode = 4;
  std::int64_t indices_accessor = -1;
};

void append_number(std::string& out, double value) {
  char text[40];
  const auto result = std::to_chars(text, text + sizeof text, value);
  out.append(text, static_cast<std::size_t>(result.ptr - text));
}
void append_integer(std::string& out, std::int64_t value) {
  char text[24];
  const auto result = std::to_chars(text, text + sizeof text, value);
  out.append(text, static_cast<std::size_t>(result.ptr - text));
}

bool is_volume(std::string_view type) {
  static constexpr std::array kVolume{"tetra",   "hexahedron", "wedge",     "pyramid",    "polyhedron",
                                      "tetra10", "hexahedron20", "hexahedron27", "wedge15", "pyramid13",
                                      "wedge18", "pyramid14",   "tetra4",    "hexahedron8"};
  for (const char* name : kVolume)
    if (type == name) return true;
  return type.rfind("polyhedron", 0) == 0;
}

// Streams `count` values of `T` produced by value(i) in chunks through `put`.
template <class T, class Value>
void stream_values(const std::function<void(const void*, std::size_t)>& put, std::int64_t count, Value&& value) {
  constexpr std::int64_t kChunk = 8192;
  T chunk[kChunk];
  for (std::int64_t start = 0; start < count; start += kChunk) {
    const std::int64_t n = std::min(kChunk, count - start);
    for (std::int64_t i = 0; i < n; ++i) chunk[i] = value(start + i);
    put(chunk, static_cast<std::size_t>(n) * sizeof(T));
  }
}

// Reads element k of a numeric array as double.
double element_as_double(const NDArray& array, std::int64_t k) {
  return visit_dtype(array.dtype(), [&](auto zero) {
    using T = decltype(zero);
    return static_cast<double>(array.data_as<T>()[k]);
  });
}

class GltfWriter {
 public:
  GltfWriter(const std::string& path, const Mesh& mesh, const WriteOptions& options)
      : path_(path), mesh_(mesh) {
    std::string lower = std::filesystem::path(path).extension().string();
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    glb_ = lower == ".glb";
    embed_ = options.get_bool("embed_buffers", false);
    mesh_per_block_ = options.get_bool("mesh_per_block", false);
  }

  void write() {
    plan();
    std::string json = document_json();
    if (glb_) return write_glb(json);
    if (embed_) return write_json_file(json);
    // The .bin first: a failed .bin write leaves both files as they were.
    const std::filesystem::path bin = std::filesystem::path(path_).replace_extension(".bin");
    io::AtomicFile bin_file(bin.string(), kFormat);
    io::OutputBuffer out(bin_file);
    emit_buffer([&](const void* data, std::size_t size) { out.bytes(data, size); });
    out.flush();
    bin_file.commit();
    write_json_file(json);
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw WriteError(path_, std::string(kFormat), message); }

  std::int64_t add_view(std::uint64_t length, int target, Emit emit) {
    View view{buffer_length_, length, target, std::move(emit)};
    buffer_length_ += (length + 3) / 4 * 4;
    views_.push_back(std::move(view));
    return static_cast<std::int64_t>(views_.size() - 1);
  }

  std::int64_t add_accessor(std::int64_t view, int component_type, std::int64_t count, std::string_view type,
                            const std::string& extra = {}) {
    std::string& a = accessors_.emplace_back();
    a = "{\"bufferView\":";
    append_integer(a, view);
    a += ",\"componentType\":";
    append_integer(a, component_type);
    a += ",\"count\":";
    append_integer(a, count);
    a += ",\"type\":\"";
    a += type;
    a += "\"";
    a += extra;
    a += "}";
    return static_cast<std::int64_t>(accessors_.size() - 1);
  }

  void plan() {
    const std::int64_t n = mesh_.num_points();
    const std::int64_t dim = mesh_.points.ndim() == 2 ? mesh_.points.dim(1) : 0;
    if (dim < 1 || dim > 3) fail("points must have 1 to 3 coordinates, got " + std::to_string(dim));
    if (n > std::int64_t{UINT32_MAX} - 1) fail("more points than glTF's u32 indices can address");
    if (n == 0) fail("glTF accessors cannot be empty: the mesh has no points");
    index_u16_ = n <= 65535;

    // POSITION, with the min/max of the float32 values written.
    std::array<double, 3> low{}, high{};
    low.fill(std::numeric_limits<double>::infinity());
    high.fill(-std::numeric_limits<double>::infinity());
    const auto coordinate = [this, dim](std::int64_t k) {
      const std::int64_t i = k / 3, a = k % 3;
      return a < dim ? static_cast<float>(element_as_double(mesh_.points, i * dim + a)) : 0.0f;
    };
    visit_dtype(mesh_.points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* p = mesh_.points.data_as<T>();
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t a = 0; a < 3; ++a) {
          const double v = a < dim ? static_cast<double>(static_cast<float>(p[i * dim + a])) : 0.0;
          low[static_cast<std::size_t>(a)] = std::min(low[static_cast<std::size_t>(a)], v);
          high[static_cast<std::size_t>(a)] = std::max(high[static_cast<std::size_t>(a)], v);
        }
    });
    if (!(std::isfinite(low[0]) && std::isfinite(low[1]) && std::isfinite(low[2]) && std::isfinite(high[0]) &&
          std::isfinite(high[1]) && std::isfinite(high[2])))
      fail("points hold NaN or infinite coordinates (or overflow float32), which glTF's POSITION cannot hold");
    std::string bounds = ",\"min\":[";
    for (int a = 0; a < 3; ++a) append_number(bounds, low[static_cast<std::size_t>(a)]), bounds += a < 2 ? "," : "]";
    bounds += ",\"max\":[";
    for (int a = 0; a < 3; ++a) append_number(bounds, high[static_cast<std::size_t>(a)]), bounds += a < 2 ? "," : "]";
    const bool fast = mesh_.points.dtype() == DType::float32 && dim == 3;
    const std::int64_t position_view = add_view(static_cast<std::uint64_t>(n) * 12, 34962, [this, n, fast, coordinate](const auto& put) {
      if (fast) put(mesh_.points.data(), static_cast<std::size_t>(n) * 12);
      else stream_values<float>(put, 3 * n, coordinate);
    });
    attributes_ = "\"POSITION\":" + std::to_string(add_accessor(position_view, 5126, n, "VEC3", bounds));

    for (const auto& [name, array] : mesh_.point_data) add_attribute(name, array);

    for (const CellBlock& block : mesh_.cells) add_block(block);
    // A point cloud (no cells): one POINTS primitive over every point, without indices.
    if (primitives_.empty()) primitives_.push_back({0, -1});
  }

  void add_attribute(const std::string& name, const NDArray& array) {
    const std::int64_t n = mesh_.num_points();
    if (array.rows() != n || array.dtype() == DType::uint64 || array.ndim() > 2) return;
    const std::int64_t width = array.row_width();
    const auto starts = [&](std::string_view prefix) { return name.rfind(prefix, 0) == 0; };
    std::string semantic;
    bool joints = false;
    if ((name == "NORMAL" && width == 3) || (name == "TANGENT" && width == 4) || (starts("TEXCOORD_") && width == 2) ||
        (starts("COLOR_") && (width == 3 || width == 4)) || (starts("WEIGHTS_") && width == 4)) {
      semantic = name;
    } else if (starts("JOINTS_") && width == 4 && !dtype_is_float(array.dtype())) {
      semantic = name;
      joints = true;
      for (std::int64_t k = 0; k < n * 4; ++k) {
        const double v = element_as_double(array, k);
        if (v < 0 || v > 65535) joints = false;
      }
      if (!joints) semantic = "_" + name;
    } else if (width >= 1 && width <= 4) {
      semantic = name.rfind('_', 0) == 0 ? name : "_" + name;
    } else {
      return;  // no glTF type for it
    }
    static constexpr std::array<std::string_view, 5> kTypes{"", "SCALAR", "VEC2", "VEC3", "VEC4"};
    std::int64_t view;
    std::int64_t accessor;
    if (joints) {
      view = add_view(static_cast<std::uint64_t>(n * width) * 2, 34962, [&array, n, width](const auto& put) {
        stream_values<std::uint16_t>(put, n * width,
                                     [&](std::int64_t k) { return static_cast<std::uint16_t>(element_as_double(array, k)); });
      });
      accessor = add_accessor(view, 5123, n, kTypes[static_cast<std::size_t>(width)]);
    } else {
      view = add_view(static_cast<std::uint64_t>(n * width) * 4, 34962, [&array, n, width](const auto& put) {
        if (array.dtype() == DType::float32) put(array.data(), static_cast<std::size_t>(n * width) * 4);
        else stream_values<float>(put, n * width, [&](std::int64_t k) { return static_cast<float>(element_as_double(array, k)); });
      });
      accessor = add_accessor(view, 5126, n, kTypes[static_cast<std::size_t>(width)]);
    }
    attributes_ += ",";
    io::append_json_string(attributes_, semantic);
    attributes_ += ":" + std::to_string(accessor);
  }

  void add_block(const CellBlock& block) {
    const std::int64_t cells = block.num_cells();
    if (cells == 0) return;
    int mode = 4;
    std::int64_t corners = 0;  // index count
    const std::int64_t* connectivity = block.connectivity.data_as<std::int64_t>();
    std::function<std::int64_t(std::int64_t)> corner;
    if (block.type == "vertex" || block.type == "line" || block.type == "triangle") {
      mode = block.type == "vertex" ? 0 : block.type == "line" ? 1 : 4;
      corners = cells * block.connectivity.row_width();
      corner = [connectivity](std::int64_t k) { return connectivity[k]; };
    } else if (const LinearSplit* split = linear_split(block.type)) {
      // Quads and second-order cells as linear triangles / lines over all their nodes (a
      // quadratic triangle as its 4 sub-triangles, VTK's first level of nonlinear subdivision):
      // every node keeps its point data, and a quadratic surface from extract_surface renders.
      mode = split->mode;
      const std::int64_t width = block.connectivity.row_width(), each = static_cast<std::int64_t>(split->corners.size());
      corners = cells * each;
      corner = [connectivity, split, width, each](std::int64_t k) {
        return connectivity[(k / each) * width + split->corners[static_cast<std::size_t>(k % each)]];
      };
    } else if (block.type == "polygon") {
      const std::int64_t* offsets = block.offsets.data_as<std::int64_t>();
      auto fan = std::make_shared<std::vector<std::int64_t>>();
      for (std::int64_t c = 0; c < cells; ++c)
        for (std::int64_t k = offsets[c] + 1; k + 1 < offsets[c + 1]; ++k) {
          fan->push_back(connectivity[offsets[c]]);
          fan->push_back(connectivity[k]);
          fan->push_back(connectivity[k + 1]);
        }
      corners = static_cast<std::int64_t>(fan->size());
      corner = [fan](std::int64_t k) { return (*fan)[static_cast<std::size_t>(k)]; };
    } else if (is_volume(block.type)) {
      fail("glTF holds points, lines and triangles; cannot write a '" + block.type +
           "' block (a volume cell): write its surface instead (e.g. extract_surface)");
    } else {
      fail("glTF holds points, lines and triangles; cannot write a '" + block.type + "' block");
    }
    if (corners == 0) return;
    const bool u16 = index_u16_;
    const std::int64_t view = add_view(static_cast<std::uint64_t>(corners) * (u16 ? 2 : 4), 34963,
                                       [corners, u16, corner](const auto& put) {
                                         if (u16)
                                           stream_values<std::uint16_t>(put, corners, [&](std::int64_t k) {
                                             return static_cast<std::uint16_t>(corner(k));
                                           });
                                         else
                                           stream_values<std::uint32_t>(put, corners, [&](std::int64_t k) {
                                             return static_cast<std::uint32_t>(corner(k));
                                           });
                                       });
    primitives_.push_back({mode, add_accessor(view, u16 ? 5123 : 5125, corners, "SCALAR")});
  }

  std::string primitive_json(const Primitive& p) const {
    const std::string indices = p.indices_accessor >= 0 ? ",\"indices\":" + std::to_string(p.indices_accessor) : "";
    return "{\"attributes\":{" + attributes_ + "}" + indices + ",\"mode\":" + std::to_string(p.mode) + "}";
  }

  std::string document_json() const {
    std::string json = "{\"asset\":{\"version\":\"2.0\",\"generator\":\"meshio++\"},\"scene\":0,\"scenes\":[{\"nodes\":[";
    const std::size_t meshes = mesh_per_block_ ? primitives_.size() : 1;
    for (std::size_t m = 0; m < meshes; ++m) {
      json += m ? "," : "";
      json += std::to_string(m);
    }
    json += "]}],\"nodes\":[";
    for (std::size_t m = 0; m < meshes; ++m)
      json += std::string(m ? "," : "") + "{\"mesh\":" + std::to_string(m) + ",\"name\":\"node" + std::to_string(m) + "\"}";
    json += "],\"meshes\":[";
    for (std::size_t m = 0; m < meshes; ++m) {
      json += std::string(m ? "," : "") + "{\"name\":\"mesh" + std::to_string(m) + "\",\"primitives\":[";
      if (mesh_per_block_) {
        json += primitive_json(primitives_[m]);
      } else {
        for (std::size_t p = 0; p < primitives_.size(); ++p) {
          json += p ? "," : "";
          json += primitive_json(primitives_[p]);
        }
      }
      json += "]}";
    }
    json += "],\"accessors\":[";
    for (std::size_t a = 0; a < accessors_.size(); ++a) {
      json += a ? "," : "";
      json += accessors_[a];
    }
    json += "],\"bufferViews\":[";
    for (std::size_t v = 0; v < views_.size(); ++v) {
      json += std::string(v ? "," : "") + "{\"buffer\":0,\"byteOffset\":" + std::to_string(views_[v].offset) +
              ",\"byteLength\":" + std::to_string(views_[v].length) + ",\"target\":" + std::to_string(views_[v].target) + "}";
    }
    json += "],\"buffers\":[{\"byteLength\":" + std::to_string(buffer_length_);
    if (!glb_) {
      if (embed_) {
        json += ",\"uri\":\"data:application/octet-stream;base64,";
        std::string bytes;
        bytes.reserve(buffer_length_);
        emit_buffer([&](const void* data, std::size_t size) { bytes.append(static_cast<const char*>(data), size); });
        io::base64_encode_append(bytes.data(), bytes.size(), json);
        json += "\"";
      } else {
        json += ",\"uri\":";
        io::append_json_string(json, std::filesystem::path(path_).replace_extension(".bin").filename().string());
      }
    }
    json += "}]}";
    return json;
  }

  void emit_buffer(const std::function<void(const void*, std::size_t)>& put) const {
    static constexpr char kZeros[4] = {0, 0, 0, 0};
    for (const View& view : views_) {
      view.emit(put);
      if (view.length % 4) put(kZeros, 4 - view.length % 4);
    }
  }

  void write_json_file(const std::string& json) const {
    io::AtomicFile file(path_, kFormat);
    file.write(json);
    file.commit();
  }

  void write_glb(std::string json) const {
    while (json.size() % 4) json.push_back(' ');
    const std::uint64_t total = 12 + 8 + json.size() + 8 + buffer_length_;
    if (total > UINT32_MAX) fail("the GLB would exceed 4 GiB, its 32-bit length's limit; write .gltf instead");
    io::AtomicFile file(path_, kFormat);
    io::OutputBuffer out(file);
    const std::uint32_t header[5] = {0x46546C67, 2, static_cast<std::uint32_t>(total),
                                     static_cast<std::uint32_t>(json.size()), 0x4E4F534A};
    out.bytes(header, sizeof header);
    out.text(json);
    const std::uint32_t bin[2] = {static_cast<std::uint32_t>(buffer_length_), 0x004E4942};
    out.bytes(bin, sizeof bin);
    emit_buffer([&](const void* data, std::size_t size) { out.bytes(data, size); });
    out.flush();
    file.commit();
  }

  const std::string& path_;
  const Mesh& mesh_;
  bool glb_ = false, embed_ = false, mesh_per_block_ = false, index_u16_ = true;
  std::vector<View> views_;
  std::vector<std::string> accessors_;
  std::vector<Primitive> primitives_;
  std::string attributes_;
  std::uint64_t buffer_length_ = 0;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  GltfWriter(path, mesh, options).write();
}

}  // namespace meshioplusplus::gltf
