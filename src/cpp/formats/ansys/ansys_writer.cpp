// ANSYS Fluent mesh writer. layout="fluent": Fluent's face-based layout
// (ansys_fluent_writer.cpp), which Fluent and VTK read. layout="meshio" (the default), and any
// mesh without cells of its points' dimension (surfaces, which a Fluent volume mesh cannot
// hold): the layout meshio writes and reads. It stays the default because meshio's API (and its
// own test suite, which we run) promises read(write(mesh)) node for node; cells rebuilt from
// faces are the same cells with other node orders (tetra, hexahedron, 2-D triangles), and
// meshio reads a face-based file as faces only:
//
//   (1 "meshio++")  (2 ND)  (10 (0 1 n 0 ND))  (12 (0 1 cells 0))  (13 (0 1 faces 0))
//   (10 (1 1 n 1 ND)( coordinates ))                       or 3010 / 2010 binary
//   (12 (zone first last 1 element)( nodes of each cell )) or 3012 binary, one per block
//   (13 (zone first last 0 face)( nodes 0 0 per face ))   or 3013 binary, line / polygon
//
// Indices are hexadecimal and 1-based. Cell blocks of the types Fluent numbers (triangle 1,
// tetra 2, quad 3, hexahedron 4, pyramid 5, wedge 6) go into cell sections that list their
// nodes — meshio's extension of the format; Fluent itself defines volume cells through faces
// only. Line and polygon blocks, which have no cell type, become face sections (face types 2
// and 5) with no adjacent cells (0 0); meshio reads the line sections but not polygonal ones.
// Binary sections follow meshio: "(\n", little-endian data, "\n)End of Binary Section id)";
// points float64 (3010) or float32 (2010) as they are, indices int64. Other cell types are a
// WriteError; point, cell and field data have no slot in a mesh file and are not written.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "formats/ansys/ansys.hpp"
#include "formats/ansys/ansys_internal.hpp"
#include "io/output/atomic_file.hpp"
#include "io/source/byte_order.hpp"
#include "io/cells/face_blocks.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ansys {
namespace {

constexpr std::string_view kFormat = "ansys";
using detail::fluent_element_type;


// Fluent face types of the blocks written as face sections.
std::optional<int> fluent_face_type(std::string_view type) noexcept {
  if (type == "line") return 2;
  if (type == "polygon") return 5;
  return std::nullopt;
}

class Writer {
 public:
  Writer(const std::string& path, const Mesh& mesh, bool binary)
      : path_(path), mesh_(mesh), binary_(binary), file_(path, kFormat), out_(file_) {}

  void write() {
    const std::int64_t num_points = mesh_.num_points();
    const std::int64_t dim = mesh_.points.ndim() == 2 ? mesh_.points.dim(1) : 0;
    if (dim != 2 && dim != 3) fail("ANSYS meshes hold 2-D or 3-D points, got " + std::to_string(dim) + " coordinates");
    std::int64_t num_cells = 0, num_faces = 0;
    for (const CellBlock& block : mesh_.cells) {
      if (fluent_element_type(block.type)) num_cells += block.num_cells();
      else if (fluent_face_type(block.type)) num_faces += block.num_cells();
      else fail("ANSYS meshes have no cell type for '" + block.type + "' (legal: triangle, tetra, quad, hexahedron, "
                "pyramid, wedge; line and polygon as faces)");
    }

    out_.text("(1 \"meshio++\")\n(2 ");
    out_.number(dim);
    out_.text(")\n");
    declaration(10, num_points, dim);
    declaration(12, num_cells, -1);
    if (num_faces > 0) declaration(13, num_faces, -1);

    write_points(num_points, dim);
    std::int64_t zone = 2, next_cell = 1, next_face = 1;
    for (const CellBlock& block : mesh_.cells) {
      if (const std::optional<int> element = fluent_element_type(block.type)) {
        write_cells(block, zone++, next_cell, *element);
        next_cell += block.num_cells();
      } else {
        write_faces(block, zone++, next_face, *fluent_face_type(block.type));
        next_face += block.num_cells();
      }
    }
    out_.flush();
    file_.commit();
  }

 private:
  // "(id (0 1 count 0[ dim]))": the totals, as Fluent writes before the data.
  void declaration(int id, std::int64_t count, std::int64_t dim) {
    out_.put('(');
    out_.number(id);
    out_.text(" (0 1 ");
    hex(count);
    out_.text(" 0");
    if (dim > 0) {
      out_.put(' ');
      out_.number(dim);
    }
    out_.text("))\n");
  }

  void section_header(int id, std::int64_t zone, std::int64_t first, std::int64_t count, int type, int subtype) {
    out_.put('(');
    out_.number(id);
    out_.text(" (");
    hex(zone);
    out_.put(' ');
    hex(first);
    out_.put(' ');
    hex(first + count - 1);
    out_.put(' ');
    hex(type);
    out_.put(' ');
    hex(subtype);
    out_.text(")(\n");
  }

  void section_end(int id) {
    if (binary_) {
      out_.text("\n)End of Binary Section ");
      out_.number(id);
      out_.text(")\n");
    } else {
      out_.text("))\n");
    }
  }

  void write_points(std::int64_t num_points, std::int64_t dim) {
    const bool single = mesh_.points.dtype() == DType::float32;
    const int id = binary_ ? (single ? 2010 : 3010) : 10;
    section_header(id, 1, 1, num_points, 1, static_cast<int>(dim));
    visit_dtype(mesh_.points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = mesh_.points.data_as<T>();
      if (binary_) {
        for (std::int64_t i = 0; i < num_points * dim; ++i) {
          if constexpr (std::is_same_v<T, float>) binary_value(values[i]);
          else binary_value(static_cast<double>(values[i]));
        }
        return;
      }
      for (std::int64_t i = 0; i < num_points; ++i) {
        for (std::int64_t a = 0; a < dim; ++a) {
          if (a > 0) out_.put(' ');
          out_.number(values[i * dim + a]);
        }
        out_.put('\n');
      }
    });
    section_end(id);
  }

  void write_cells(const CellBlock& block, std::int64_t zone, std::int64_t first, int element) {
    const int id = binary_ ? 3012 : 12;
    section_header(id, zone, first, block.num_cells(), 1, element);
    const std::int64_t width = block.connectivity.row_width();
    const std::int64_t* nodes = block.connectivity.data_as<std::int64_t>();
    for (std::int64_t i = 0; i < block.num_cells(); ++i) {
      for (std::int64_t k = 0; k < width; ++k) index(nodes[i * width + k] + 1, k == 0);
      if (!binary_) out_.put('\n');
    }
    section_end(id);
  }

  void write_faces(const CellBlock& block, std::int64_t zone, std::int64_t first, int face_type) {
    const int id = binary_ ? 3013 : 13;
    section_header(id, zone, first, block.num_cells(), 0, face_type);
    for (std::int64_t i = 0; i < block.num_cells(); ++i) {
      const auto nodes = io::cell_nodes(block, i);
      if (face_type == 5) index(static_cast<std::int64_t>(nodes.size()), true);
      for (std::size_t k = 0; k < nodes.size(); ++k) index(nodes[k] + 1, face_type != 5 && k == 0);
      index(0, false);  // no adjacent cells
      index(0, false);
      if (!binary_) out_.put('\n');
    }
    section_end(id);
  }

  void index(std::int64_t value, bool first_on_line) {
    if (binary_) {
      binary_value(value);
      return;
    }
    if (!first_on_line) out_.put(' ');
    hex(value);
  }

  template <class T> void binary_value(T value) {
    if constexpr (!io::kHostIsLittleEndian) io::swap_bytes_in_place(&value, sizeof value, 1);
    out_.bytes(&value, sizeof value);
  }

  void hex(std::int64_t value) {
    char text[24];
    const auto result = std::to_chars(text, text + sizeof text, value, 16);
    out_.text(std::string_view(text, static_cast<std::size_t>(result.ptr - text)));
  }

  [[noreturn]] void fail(const std::string& message) const { throw WriteError(path_, std::string(kFormat), message); }

  const std::string& path_;
  const Mesh& mesh_;
  bool binary_;
  io::AtomicFile file_;
  io::OutputBuffer out_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const bool binary = options.get_bool("binary", true);
  const std::string_view layout = options.get("layout", "meshio");
  if (layout != "fluent" && layout != "meshio")
    throw WriteError(path, std::string(kFormat), "layout must be fluent or meshio, got '" + std::string(layout) + "'");
  if (layout == "fluent" && detail::write_fluent_layout(path, mesh, binary)) return;
  Writer(path, mesh, binary).write();
}

}  // namespace meshioplusplus::ansys
