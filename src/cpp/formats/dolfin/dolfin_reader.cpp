// DOLFIN XML reader.
//
// The mesh file: <dolfin><mesh celltype="triangle" dim="2"><vertices size="n"><vertex
// index="i" x=".." y=".." [z=".."]/>…</vertices><cells size="m"><triangle index="j" v0=".."
// v1=".." v2=".."/>…</cells></mesh></dolfin>. Cell types interval, triangle, quadrilateral,
// tetrahedron and hexahedron (meshio reads triangle and tetrahedron only). Other elements
// (<domains>, <data>, …) are skipped, as meshio does.
//
// Mesh functions: as meshio, every file in the same directory named "<stem>_<name>.xml" (stem
// = the mesh file's name without ".xml") holding <dolfin><mesh_function type=".." dim=".."
// size=".."><entity index=".." value=".."/>… is read as data named <name>, in name order:
// type int → int64, uint/size_t → uint64, float/double → float64. Where it goes (meshio makes
// every one cell data, whatever its size): dim 0 with one value per point → point data; one
// value per cell → cell data; any other size (facet or edge functions) → field data, so it is
// kept rather than attached to the wrong entities. Entities a function does not list are 0.
// Values written by meshio under numpy 2 ("np.int64(3)") are accepted.
//
// Arrays: the size attributes give every count, so each array is allocated once in final
// shape; vertices and cells may come in any index order, each index exactly once, and the
// count of each is checked against its size, so no entry is returned unfilled. A file holds
// one <mesh> with one <vertices> and at most one <cells>.
//
// Speed: <vertices> and <cells> as every writer prints them — one tag per line, in index
// order, attributes in the writer's order — are read line by line on all cores (TagLine);
// any other layout, and every error, is left to the XML scan, which reads the section again.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "formats/dolfin/dolfin.hpp"
#include "formats/dolfin/dolfin_cells.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/fast_decimal.hpp"
#include "io/text/line_values.hpp"
#include "io/text/text_scanner.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::dolfin {
namespace {

constexpr std::string_view kFormat = "dolfin";

// Numbers inside one XML document, with errors naming its file, offset and line.
class Document {
 public:
  Document(const io::MappedFile& file) : doc_(file.bytes()), path_(file.path()), xml_(doc_, 0, path_, kFormat) {}

  io::XmlScanner& xml() { return xml_; }
  std::string_view bytes() const { return doc_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const { xml_.fail_at(offset, message); }

  std::size_t offset_of(std::string_view text) const { return static_cast<std::size_t>(text.data() - doc_.data()); }

  const std::string_view& attribute(const io::XmlTag& tag, std::string_view name) const {
    const std::string_view* value = tag.attribute(name);
    if (value == nullptr) fail_at(tag.begin, "<" + std::string(tag.name) + "> has no attribute '" + std::string(name) + "'");
    return *value;
  }
  // The attribute as a number; numpy 2's repr "np.float64(0.5)" is unwrapped.
  template <class T> T number(const io::XmlTag& tag, std::string_view name) const {
    std::string_view text = attribute(tag, name);
    std::size_t begin = offset_of(text);
    std::size_t end = begin + text.size();
    if (text.starts_with("np.") && text.ends_with(")") && text.find('(') != std::string_view::npos) {
      begin += text.find('(') + 1;
      end -= 1;
    }
    io::TextScanner scanner(doc_, begin, end, path_, kFormat);
    const T value = scanner.next_number<T>();
    scanner.skip_whitespace();
    if (!scanner.at_end()) scanner.fail("unexpected text after the number in attribute '" + std::string(name) + "'");
    return value;
  }
  std::int64_t index(const io::XmlTag& tag, std::string_view name, std::int64_t size) const {
    const auto value = number<std::int64_t>(tag, name);
    if (value < 0 || value >= size)
      fail_at(offset_of(attribute(tag, name)), "<" + std::string(tag.name) + "> " + std::string(name) + " " +
                                                   std::to_string(value) + " is outside [0, " + std::to_string(size) + ")");
    return value;
  }
  std::int64_t size(const io::XmlTag& tag) const {
    const auto value = number<std::int64_t>(tag, "size");
    // Every entry is a tag of at least 16 bytes: a corrupt size must not drive a huge allocation.
    if (value < 0 || static_cast<std::uint64_t>(value) > doc_.size() / 16 + 1)
      fail_at(offset_of(attribute(tag, "size")), "size " + std::to_string(value) + " does not fit the file");
    return value;
  }

 private:
  std::string_view doc_;
  const std::string& path_;
  io::XmlScanner xml_;
};

// One element per line as writers print it: `<name a="…" b="…" … />` between blanks, the
// attributes double-quoted and in the order asked. Every read is false where the XML scan
// might read anything else (other spacing or quotes, entities, "np.float64(…)", a '+'),
// and each value is what Document::number reads from the same characters.
class TagLine {
 public:
  TagLine(const char* p, const char* end, const char* readable_end) noexcept : p_(p), end_(end), readable_end_(readable_end) {}

  bool open(std::string_view name) noexcept {
    p_ = io::skip_line_blanks(p_, end_);
    if (static_cast<std::size_t>(end_ - p_) < name.size() + 2 || *p_ != '<' || std::memcmp(p_ + 1, name.data(), name.size()) != 0)
      return false;
    p_ += 1 + name.size();
    return io::is_space(*p_);
  }
  bool real(std::string_view name, double& out) noexcept {
    const char *first, *last;
    if (!value(name, first, last)) return false;
    if (io::parse_plain_decimal(first, last, out)) return true;
    const std::from_chars_result result = std::from_chars(first, last, out, std::chars_format::general);
    return result.ec == std::errc{} && result.ptr == last;
  }
  // An integer in [0, limit).
  bool index(std::string_view name, std::int64_t limit, std::int64_t& out) noexcept {
    const char *first, *last;
    if (!value(name, first, last) || first == last || *first == '-') return false;
    std::int64_t read = 0;
    if (io::plain_integer(first, last, read, readable_end_) != last || read < 0 || read >= limit) return false;
    out = read;
    return true;
  }
  bool close() noexcept {
    p_ = io::skip_line_blanks(p_, end_);
    return end_ - p_ >= 2 && p_[0] == '/' && p_[1] == '>' && io::only_blanks(p_ + 2, end_);
  }

 private:
  bool value(std::string_view name, const char*& first, const char*& last) noexcept {
    p_ = io::skip_line_blanks(p_, end_);
    if (static_cast<std::size_t>(end_ - p_) < name.size() + 3 || std::memcmp(p_, name.data(), name.size()) != 0 ||
        p_[name.size()] != '=' || p_[name.size() + 1] != '"')
      return false;
    first = p_ + name.size() + 2;
    last = static_cast<const char*>(std::memchr(first, '"', static_cast<std::size_t>(end_ - first)));
    if (last == nullptr || std::memchr(first, '&', static_cast<std::size_t>(last - first)) != nullptr) return false;
    p_ = last + 1;
    return true;
  }

  const char* p_;
  const char* end_;
  const char* readable_end_;
};

// The `count` elements from the line after `section` (its <vertices> or <cells> tag), record
// i being element index i: `read(i, line)` fills it. True with the XML scan moved past them;
// false (nothing to undo: the XML scan rewrites every entry) for any other layout.
template <class ReadLine> bool read_lines(Document& doc, const io::XmlTag& section, std::int64_t count, const ReadLine& read) {
  const std::optional<std::size_t> begin = io::records_begin(doc.bytes(), section.end);
  if (!begin) return false;
  const char* const text = doc.bytes().data();
  const char* const readable_end = text + doc.bytes().size();
  const std::optional<std::size_t> end = io::parse_record_lines(
      doc.bytes(), *begin, static_cast<std::uint64_t>(count), [&](std::uint64_t i, std::size_t line, std::size_t stop) {
        TagLine tag(text + line, text + stop, readable_end);
        return read(static_cast<std::int64_t>(i), tag);
      });
  if (!end) return false;
  doc.xml().seek(*end);
  return true;
}

bool read_vertex_lines(Document& doc, const io::XmlTag& section, NDArray& points, std::int64_t dim) {
  static constexpr std::string_view kAxes[] = {"x", "y", "z"};
  double* const xyz = points.data_as<double>();
  return read_lines(doc, section, points.rows(), [&](std::int64_t i, TagLine& tag) {
    std::int64_t index = -1;
    if (!tag.open("vertex") || !tag.index("index", points.rows(), index) || index != i) return false;
    for (std::int64_t axis = 0; axis < dim; ++axis)
      if (!tag.real(kAxes[axis], xyz[i * dim + axis])) return false;
    return tag.close();
  });
}

bool read_cell_lines(Document& doc, const io::XmlTag& section, const detail::DolfinCellType& type, CellBlock& block,
                     std::int64_t num_points) {
  std::int64_t* const corners = block.connectivity.data_as<std::int64_t>();
  const int k = type.num_nodes;
  return read_lines(doc, section, block.num_cells(), [&](std::int64_t i, TagLine& tag) {
    std::int64_t index = -1;
    if (!tag.open(type.dolfin_name) || !tag.index("index", block.num_cells(), index) || index != i) return false;
    for (int c = 0; c < k; ++c)
      if (!tag.index(detail::kVertexAttributes[static_cast<std::size_t>(c)], num_points, corners[i * k + c])) return false;
    return tag.close();
  });
}

// Each index once: `seen` marks them, the count is checked at the closing tag.
void mark(const Document& doc, std::vector<char>& seen, std::int64_t index, const io::XmlTag& tag) {
  if (seen[static_cast<std::size_t>(index)]) doc.fail_at(tag.begin, "index " + std::to_string(index) + " appears twice");
  seen[static_cast<std::size_t>(index)] = 1;
}

void read_mesh(Document& doc, Mesh& mesh) {
  const detail::DolfinCellType* type = nullptr;
  std::int64_t dim = 0;
  std::vector<char> vertex_seen, cell_seen;
  std::int64_t vertices_read = 0, cells_read = 0;
  std::size_t vertices_offset = 0, cells_offset = 0;
  bool in_vertices = false, in_cells = false, saw_mesh = false;
  static constexpr std::string_view kAxes[] = {"x", "y", "z"};
  while (std::optional<io::XmlTag> tag = doc.xml().next_tag()) {
    const std::string_view name = tag->name;
    if (tag->closing) {
      if (name == "vertices") in_vertices = false;
      if (name == "cells") in_cells = false;
      continue;
    }
    if (name == "mesh") {
      // One of each: a second <mesh>, <vertices> or <cells> would change the shape of arrays
      // already being filled, or leave an earlier block partly unfilled.
      if (saw_mesh) doc.fail_at(tag->begin, "a second <mesh> element (a DOLFIN file holds one mesh)");
      const std::string_view& celltype = doc.attribute(*tag, "celltype");
      type = detail::find_by_dolfin_name(celltype);
      if (type == nullptr)
        doc.fail_at(doc.offset_of(celltype), "unsupported celltype '" + std::string(celltype) +
                                                 "' (supported: interval, triangle, quadrilateral, tetrahedron, hexahedron)");
      dim = doc.number<std::int64_t>(*tag, "dim");
      if (dim < 1 || dim > 3) doc.fail_at(doc.offset_of(doc.attribute(*tag, "dim")), "dim must be 1, 2 or 3");
      saw_mesh = true;
    } else if (name == "vertices") {
      if (!saw_mesh) doc.fail_at(tag->begin, "<vertices> before <mesh>");
      if (!mesh.points.empty_handle()) doc.fail_at(tag->begin, "a second <vertices> element (a mesh has one)");
      const std::int64_t size = doc.size(*tag);
      mesh.points = NDArray::allocate(DType::float64, {size, dim});
      vertex_seen.assign(static_cast<std::size_t>(size), 0);
      vertices_offset = tag->begin;
      in_vertices = !tag->self_closing;
      if (in_vertices && read_vertex_lines(doc, *tag, mesh.points, dim)) {
        std::fill(vertex_seen.begin(), vertex_seen.end(), 1);
        vertices_read = size;
      }
    } else if (name == "vertex") {
      if (!in_vertices) doc.fail_at(tag->begin, "<vertex> outside <vertices>");
      const std::int64_t index = doc.index(*tag, "index", mesh.num_points());
      mark(doc, vertex_seen, index, *tag);
      double* xyz = mesh.points.data_as<double>() + index * dim;
      for (std::int64_t axis = 0; axis < dim; ++axis) xyz[axis] = doc.number<double>(*tag, kAxes[axis]);
      ++vertices_read;
    } else if (name == "cells") {
      if (mesh.points.empty_handle()) doc.fail_at(tag->begin, "<cells> before <vertices>");
      if (!mesh.cells.empty()) doc.fail_at(tag->begin, "a second <cells> element (a mesh has one)");
      const std::int64_t size = doc.size(*tag);
      mesh.cells.push_back({std::string(type->name), NDArray::allocate(DType::int64, {size, type->num_nodes}), {}, {}});
      cell_seen.assign(static_cast<std::size_t>(size), 0);
      cells_offset = tag->begin;
      in_cells = !tag->self_closing;
      if (in_cells && read_cell_lines(doc, *tag, *type, mesh.cells.back(), mesh.num_points())) {
        std::fill(cell_seen.begin(), cell_seen.end(), 1);
        cells_read = size;
      }
    } else if (in_cells) {
      if (name != type->dolfin_name)
        doc.fail_at(tag->begin, "<" + std::string(name) + "> in a mesh of celltype '" + std::string(type->dolfin_name) + "'");
      CellBlock& block = mesh.cells.back();
      const std::int64_t index = doc.index(*tag, "index", block.num_cells());
      mark(doc, cell_seen, index, *tag);
      std::int64_t* corners = block.connectivity.data_as<std::int64_t>() + index * type->num_nodes;
      for (int k = 0; k < type->num_nodes; ++k)
        corners[k] = doc.index(*tag, detail::kVertexAttributes[static_cast<std::size_t>(k)], mesh.num_points());
      ++cells_read;
    }
    // <dolfin>, <domains>, <data> and what they hold: not part of the mesh proper.
  }
  if (!saw_mesh) doc.fail_at(0, "no <mesh> element");
  if (mesh.points.empty_handle()) doc.fail_at(doc.bytes().size(), "no <vertices> element");
  if (vertices_read != mesh.num_points())
    doc.fail_at(vertices_offset, "<vertices> announces " + std::to_string(mesh.num_points()) + " vertices, the file has " +
                                     std::to_string(vertices_read));
  if (mesh.cells.empty()) mesh.cells.push_back({std::string(type->name), NDArray::allocate(DType::int64, {0, type->num_nodes}), {}, {}});
  if (cells_read != mesh.cells.back().num_cells())
    doc.fail_at(cells_offset, "<cells> announces " + std::to_string(mesh.cells.back().num_cells()) + " cells, the file has " +
                                  std::to_string(cells_read));
}

template <class T> void fill_entities(Document& doc, NDArray& array) {
  T* values = array.data_as<T>();
  while (std::optional<io::XmlTag> tag = doc.xml().next_tag()) {
    if (tag->closing) {
      if (tag->name == "mesh_function") return;
      continue;
    }
    if (tag->name != "entity") doc.fail_at(tag->begin, "expected <entity> in <mesh_function>, found <" + std::string(tag->name) + ">");
    values[doc.index(*tag, "index", array.rows())] = doc.number<T>(*tag, "value");
  }
}

// One "<stem>_<name>.xml" mesh function into point, cell or field data.
void read_mesh_function(const std::string& path, const std::string& name, Mesh& mesh) {
  const io::MappedFile file(path, kFormat);
  Document doc(file);
  std::optional<io::XmlTag> tag = doc.xml().next_tag();
  if (tag && tag->name == "dolfin") tag = doc.xml().next_tag();
  if (!tag || tag->name != "mesh_function")
    doc.fail_at(tag ? tag->begin : 0, "expected a <mesh_function> (this file is read as data '" + name + "' of the mesh)");
  const std::string_view& type = doc.attribute(*tag, "type");
  const auto dim = doc.number<std::int64_t>(*tag, "dim");
  const std::int64_t size = doc.size(*tag);
  NDArray array;
  if (type == "int") {
    array = NDArray::zeros(DType::int64, {size});
    fill_entities<std::int64_t>(doc, array);
  } else if (type == "uint" || type == "size_t") {
    array = NDArray::zeros(DType::uint64, {size});
    fill_entities<std::uint64_t>(doc, array);
  } else if (type == "float" || type == "double") {
    array = NDArray::zeros(DType::float64, {size});
    fill_entities<double>(doc, array);
  } else {
    doc.fail_at(doc.offset_of(type), "unsupported mesh_function type '" + std::string(type) + "' (int, uint, size_t, float, double)");
  }
  if (dim == 0 && size == mesh.num_points()) mesh.point_data.set(name, std::move(array));
  else if (size == mesh.num_cells()) mesh.cell_data.set(name, {std::move(array)});
  else mesh.field_data.set(name, std::move(array));
}

void read_sibling_functions(const std::string& path, Mesh& mesh) {
  namespace fs = std::filesystem;
  const fs::path mesh_path(path);
  const std::string prefix = mesh_path.stem().string() + "_";
  fs::path dir = mesh_path.parent_path();
  if (dir.empty()) dir = ".";
  std::vector<std::pair<std::string, std::string>> found;  // name, path
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string file = entry.path().filename().string();
    if (file.size() <= prefix.size() + 4 || !file.starts_with(prefix) || !file.ends_with(".xml")) continue;
    const std::string name = file.substr(prefix.size(), file.size() - prefix.size() - 4);
    if (name.find('.') != std::string::npos) continue;
    found.emplace_back(name, entry.path().string());
  }
  std::sort(found.begin(), found.end());
  for (const auto& [name, file] : found) read_mesh_function(file, name, mesh);
}

}  // namespace

Mesh read(const std::string& path) {
  Mesh mesh;
  {
    const io::MappedFile file(path, kFormat);
    io::reject_empty_file(file.bytes(), path, kFormat);
    Document doc(file);
    read_mesh(doc, mesh);
  }
  read_sibling_functions(path, mesh);
  return mesh;
}

}  // namespace meshioplusplus::dolfin
