// USD text layer writer (.usda): the inverse of the reader's mapping for surface meshes.
//
// One Mesh prim "/mesh" holds every block's faces in block order (USD meshes mix face sizes,
// so one prim keeps the point numbering: read back, the points and cells are the ones written,
// blocks of one type that were consecutive coming back as one). points as point3f[] (float32:
// the schema's type; 2-D points get z = 0), faceVertexCounts / faceVertexIndices as int[].
// Point data become vertex primvars, cell data uniform primvars ("primvars:<name>", names
// reduced to letters, digits, '_' and ':'): float32 as float/float2..4, float64 as
// double/double2..4, int64 and unsigned 32/64-bit as int64, other integers as int/int2..4;
// wider rows as the scalar type with elementSize. Cell regions become GeomSubsets of faces and
// Point regions GeomSubsets of points (familyName "meshioplusplus"), named after the region
// and carrying its exact name in "meshioplusplus:region". Layer metadata: upAxis (string field
// data "upAxis" when it says Y, else Z) and metersPerUnit (field data of that name).
//
// Cells other than triangle, quad and polygon (lines, vertices, volume cells) have no place in
// a USD Mesh: the write is refused with a WriteError naming the type. Side regions, other field
// data and string field data are not written.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "formats/usd/usd.hpp"
#include "formats/usd/usd_internal.hpp"
#include "io/cells/face_blocks.hpp"
#include "io/output/atomic_file.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::usd {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw WriteError(path, std::string(kFormat), message);
}

// An identifier USD accepts for a property or prim name.
std::string identifier(std::string_view name, bool namespaced) {
  std::string out;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || (namespaced && c == ':');
    out.push_back(ok ? c : '_');
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9') || out[0] == ':') out.insert(out.begin(), '_');
  return out;
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out + "\"";
}

// The USD type a data array is written as, and its elementSize (1 when the type holds the row).
struct Typing {
  std::string type;
  std::int64_t element_size = 1;
  enum class Cast { f32, f64, i32, i64 } cast = Cast::f64;
};

Typing typing_of(DType dtype, std::int64_t width) {
  Typing typing;
  std::string scalar;
  bool has_vectors = true;
  if (dtype == DType::float32) scalar = "float", typing.cast = Typing::Cast::f32;
  else if (dtype_is_float(dtype)) scalar = "double", typing.cast = Typing::Cast::f64;
  else if (dtype == DType::int64 || dtype == DType::uint64 || dtype == DType::uint32) scalar = "int64", typing.cast = Typing::Cast::i64, has_vectors = false;
  else scalar = "int", typing.cast = Typing::Cast::i32;
  if (width >= 2 && width <= 4 && has_vectors) {
    typing.type = scalar + std::to_string(width);
  } else {
    typing.type = scalar;
    typing.element_size = width;
  }
  return typing;
}

class Writer {
 public:
  Writer(const std::string& path, const Mesh& mesh, io::OutputBuffer& out) : path_(path), mesh_(mesh), out_(out) {}

  void write() {
    if (mesh_.points.ndim() != 2 || (mesh_.points.dim(1) != 2 && mesh_.points.dim(1) != 3))
      fail(path_, "USD needs 2-D or 3-D points");
    for (const CellBlock& block : mesh_.cells)
      if (block.type != "triangle" && block.type != "quad" && block.type != "polygon")
        fail(path_, "a USD Mesh holds triangle, quad and polygon faces, not '" + block.type + "' cells");
    header();
    out_.text("def Mesh \"mesh\"\n{\n");
    faces();
    points();
    for (const auto& [name, array] : mesh_.point_data) primvar(name, {&array}, "vertex");
    for (const auto& [name, arrays] : mesh_.cell_data) {
      std::vector<const NDArray*> parts;
      for (const NDArray& array : arrays) parts.push_back(&array);
      primvar(name, parts, "uniform");
    }
    out_.text("    uniform token subdivisionScheme = \"none\"\n");
    subsets();
    out_.text("}\n");
  }

 private:
  void header() {
    out_.text("#usda 1.0\n(\n    defaultPrim = \"mesh\"\n");
    if (const NDArray* meters = mesh_.field_data.find("metersPerUnit"); meters != nullptr && meters->size() == 1) {
      out_.text("    metersPerUnit = ");
      visit_dtype(meters->dtype(), [&](auto zero) { out_.number(static_cast<double>(static_cast<const decltype(zero)*>(meters->data())[0])); });
      out_.put('\n');
    }
    const auto* axis = mesh_.string_field_data.find("upAxis");
    out_.text(axis != nullptr && axis->size() == 1 && (*axis)[0] == "Y" ? "    upAxis = \"Y\"\n" : "    upAxis = \"Z\"\n");
    out_.text(")\n\n");
  }

  void faces() {
    out_.text("    int[] faceVertexCounts = [");
    bool first = true;
    for (const CellBlock& block : mesh_.cells)
      for (std::int64_t c = 0; c < block.num_cells(); ++c) {
        if (!first) out_.text(", ");
        first = false;
        out_.number(static_cast<std::int64_t>(io::cell_nodes(block, c).size()));
      }
    out_.text("]\n    int[] faceVertexIndices = [");
    first = true;
    for (const CellBlock& block : mesh_.cells)
      for (std::int64_t c = 0; c < block.num_cells(); ++c)
        for (const std::int64_t node : io::cell_nodes(block, c)) {
          if (node > INT32_MAX) fail(path_, "point index " + std::to_string(node) + " does not fit USD's int");
          if (!first) out_.text(", ");
          first = false;
          out_.number(node);
        }
    out_.text("]\n");
  }

  void points() {
    out_.text("    point3f[] points = [");
    const std::int64_t width = mesh_.points.dim(1);
    visit_dtype(mesh_.points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* p = static_cast<const T*>(mesh_.points.data());
      for (std::int64_t i = 0; i < mesh_.num_points(); ++i) {
        out_.text(i == 0 ? "(" : ", (");
        for (std::int64_t k = 0; k < 3; ++k) {
          if (k > 0) out_.text(", ");
          out_.number(k < width ? static_cast<float>(p[i * width + k]) : 0.0f);
        }
        out_.put(')');
      }
    });
    out_.text("]\n");
  }

  void primvar(const std::string& name, const std::vector<const NDArray*>& parts, std::string_view interpolation) {
    if (parts.empty()) return;
    const NDArray& model = *parts.front();
    const std::int64_t width = model.row_width();
    DType dtype = model.dtype();
    for (const NDArray* part : parts) {
      if (part->row_width() != width) fail(path_, "cell data '" + name + "' has rows of different widths in different blocks");
      if (part->dtype() != dtype) dtype = DType::float64;
    }
    const Typing typing = typing_of(dtype, width);
    out_.text("    " + typing.type + "[] primvars:" + identifier(name, true) + " = [");
    bool first = true;
    const bool tuples = typing.element_size == 1 && width > 1;
    for (const NDArray* part : parts)
      visit_dtype(part->dtype(), [&](auto zero) {
        using T = decltype(zero);
        const T* values = static_cast<const T*>(part->data());
        for (std::int64_t row = 0; row < part->rows(); ++row) {
          if (!first) out_.text(", ");
          first = false;
          if (tuples) out_.put('(');
          for (std::int64_t k = 0; k < width; ++k) {
            if (k > 0) out_.text(", ");
            const T value = values[row * width + k];
            switch (typing.cast) {
              case Typing::Cast::f32: out_.number(static_cast<float>(value)); break;
              case Typing::Cast::f64: out_.number(static_cast<double>(value)); break;
              case Typing::Cast::i32: out_.number(static_cast<std::int32_t>(value)); break;
              case Typing::Cast::i64: out_.number(static_cast<std::int64_t>(value)); break;
            }
          }
          if (tuples) out_.put(')');
        }
      });
    out_.text("] (\n        interpolation = \"");
    out_.text(interpolation);
    out_.text("\"\n");
    if (typing.element_size != 1) {
      out_.text("        elementSize = ");
      out_.number(typing.element_size);
      out_.put('\n');
    }
    out_.text("    )\n");
  }

  void subsets() {
    std::set<std::string> used;
    for (const Region& region : mesh_.regions) {
      if (region.kind == RegionKind::Side) continue;
      std::string name = identifier(region.name, false);
      for (int k = 2; !used.insert(name).second; ++k) name = identifier(region.name, false) + "_" + std::to_string(k);
      out_.text("\n    def GeomSubset " + quoted(name) + "\n    {\n");
      out_.text(region.kind == RegionKind::Cell ? "        uniform token elementType = \"face\"\n"
                                                : "        uniform token elementType = \"point\"\n");
      out_.text("        uniform token familyName = \"meshioplusplus\"\n        int[] indices = [");
      const auto entries = region.entries.values<std::int64_t>();
      for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) out_.text(", ");
        out_.number(entries[i]);
      }
      out_.text("]\n        custom string meshioplusplus:region = " + quoted(region.name) + "\n    }\n");
    }
  }

  const std::string& path_;
  const Mesh& mesh_;
  io::OutputBuffer& out_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions&) {
  std::string lower = path.substr(path.size() >= 5 ? path.size() - 5 : 0);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == ".usdc" || lower == ".usdz")
    fail(path, "meshio++ writes USD text layers (.usda, .usd); binary crate and package files need usd-core");
  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  Writer(path, mesh, out).write();
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::usd
