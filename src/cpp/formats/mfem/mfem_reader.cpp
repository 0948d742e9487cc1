// MFEM mesh reader: "MFEM mesh v1.0" … "v1.3" (https://mfem.org/mesh-format-v1.0/).
//
// The file: the version line, then keyword sections, '#' comment lines anywhere:
// "dimension" d; "elements" n, then per element "<attribute> <geometry> <vertices…>";
// "boundary" n, the same for the boundary elements; "vertices" n, then the space dimension
// and n coordinate rows — or, for a curved mesh, no coordinates and a "nodes" section (a
// FiniteElementSpace: "FiniteElementCollection: H1_2D_P2", "VDim", "Ordering", then the
// node values). v1.3 adds "attribute_sets" / "bdr_attribute_sets" (a count, then per set
// "<quoted name> <n> <attributes…>"); v1.1/v1.2 end with "mfem_mesh_end" (v1.2's parallel
// part after "mfem_serial_mesh_end" is not read).
//
// What becomes what: geometry 0 point → vertex, 1 segment → line, 2 triangle, 3 square →
// quad, 4 tetrahedron → tetra, 5 cube → hexahedron, 6 prism → wedge, 7 pyramid, each in the
// file's vertex order: MFEM's prism is meshio's wedge (the VTK file's wedge is the mirror,
// mfem/mesh/vtk.cpp's PrismMap {0, 2, 1, 3, 5, 4}, which meshio's and our VTK readers and
// writers apply at the VTK file; PyMFEM's PrintVTK read back gives our order). Elements, then boundary elements, become blocks, one per run of
// one geometry, in file order. Attributes → cell data "mfem:attribute" int32 (every block)
// and one Cell region per attribute: "mfem:attribute <a>" (elements, dim d) and
// "mfem:boundary <a>" (boundary elements, dim d - 1), tag a. Attribute sets → Cell regions
// named by the set (elements or boundary elements holding one of its attributes).
// Curved meshes: a 2-D H1_2D_P2 mesh of triangles and squares (boundary segments) becomes
// triangle6 / quad9 / line3 cells on all its nodes (make_quadratic: MFEM's dof numbering,
// checked against PyMFEM), and so does a 3-D H1_3D_P2 mesh of tetrahedra (boundary
// triangles) → tetra10 / triangle6. Any other curved mesh keeps its vertices — the first n
// nodes of its H1 space (MFEM numbers vertex dofs first) — and string field data
// "mfem:dropped" says how many higher-order node positions were dropped (hexahedra, prisms and
// orders above 2 would need MFEM's face numbering and orientations).
// Refused by name: "MFEM NC mesh" (non-conforming AMR), "MFEM NURBS mesh", "MFEM INLINE
// mesh", discontinuous (L2) nodes (periodic meshes), unknown versions.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/mfem/mfem.hpp"
#include "formats/mfem/mfem_geometries.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/parallel_records.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::mfem {
namespace {

constexpr std::string_view kFormat = "mfem";

using detail::Geometry;
using detail::kGeometries;

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path)
      : bytes_(bytes), path_(path), lines_(bytes, path, kFormat, '#', io::CommentAt::line_start) {}

  Mesh read() {
    read_version();
    while (const std::optional<io::LineSpan> line = lines_.next()) {
      const std::string_view keyword = lines_.text(*line);
      if (keyword == "dimension") dim_ = count("the dimension");
      else if (keyword == "elements") read_elements(elements_, *line);
      else if (keyword == "boundary") read_elements(boundary_, *line);
      else if (keyword == "vertices") read_vertices(*line);
      else if (keyword == "nodes") read_nodes(*line);
      else if (keyword == "attribute_sets") read_sets(element_sets_);
      else if (keyword == "bdr_attribute_sets") read_sets(boundary_sets_);
      else if (keyword == "mfem_mesh_end" || keyword == "mfem_serial_mesh_end") break;
      else lines_.fail_at(line->begin, "unknown section '" + std::string(keyword) + "'");
    }
    return assemble();
  }

 private:
  struct Element {
    std::int32_t attribute;
    std::uint8_t geometry;
    std::array<std::int64_t, 10> nodes;  // 8 vertices at most; 9/10 for quad9/tetra10 from P2 nodes
    std::size_t offset;  // of its line, for errors found once the vertex count is known
  };

  void read_version() {
    const io::LineSpan line = lines_.require("the version line (MFEM mesh v1.0)");
    const std::string_view text = lines_.text(line);
    if (text.starts_with("MFEM NC mesh"))
      lines_.fail_at(line.begin, "'" + std::string(text) +
                                     "' is a non-conforming (AMR) mesh, which meshio++ does not read; MFEM can save it "
                                     "conforming (Mesh::Print after EnsureNCMesh(false)/ a conforming refinement)");
    if (text.starts_with("MFEM NURBS"))
      lines_.fail_at(line.begin, "'" + std::string(text) + "' is a NURBS mesh, which meshio++ does not read");
    if (text.starts_with("MFEM INLINE"))
      lines_.fail_at(line.begin, "'" + std::string(text) +
                                     "' is an inline mesh (a generator's parameters, no elements), which meshio++ does "
                                     "not read");
    if (text != "MFEM mesh v1.0" && text != "MFEM mesh v1.1" && text != "MFEM mesh v1.2" && text != "MFEM mesh v1.3")
      lines_.fail_at(line.begin, "'" + std::string(text) + "' is not MFEM mesh v1.0, v1.1, v1.2 or v1.3");
  }

  std::int64_t count(const char* what) {
    const io::LineSpan line = lines_.require(what);
    io::TextScanner scanner = lines_.scanner(line);
    const auto value = scanner.next_number<std::int64_t>();
    if (value < 0) scanner.fail_at(line.begin, std::string("negative ") + what);
    scanner.skip_whitespace();
    if (!scanner.at_end()) scanner.fail(std::string("unexpected text after ") + what);
    return value;
  }

  // A corrupt count must not drive a huge allocation: a record takes at least `bytes` bytes.
  void check_room(std::int64_t records, std::size_t offset, const char* what, std::uint64_t bytes) const {
    if (static_cast<std::uint64_t>(records) > (lines_.bytes_left() + 1) / bytes)
      lines_.fail_at(offset, "the file announces " + std::to_string(records) + " " + what +
                                 ", more than the rest of the file can hold");
  }

  // One element per line, on all cores when they lie one per line (io/text/parallel_records.hpp).
  void read_elements(std::vector<Element>& out, const io::LineSpan& keyword) {
    const std::int64_t n = count("the element count");
    check_room(n, keyword.begin, "elements", 6);
    const std::size_t first = out.size();
    out.resize(first + static_cast<std::size_t>(n));
    const auto parse = [&](io::TextScanner& scanner, std::size_t line_begin, std::int64_t i) {
      Element& element = out[first + static_cast<std::size_t>(i)];
      element.offset = line_begin;
      element.attribute = scanner.next_number<std::int32_t>();
      scanner.skip_whitespace();
      const std::size_t at = scanner.position();
      const auto geometry = scanner.next_number<std::int64_t>();
      if (geometry < 0 || geometry >= static_cast<std::int64_t>(kGeometries.size()))
        scanner.fail_at(at, "unknown geometry type " + std::to_string(geometry) + " (0 point … 7 pyramid)");
      element.geometry = static_cast<std::uint8_t>(geometry);
      const Geometry& g = kGeometries[static_cast<std::size_t>(geometry)];
      for (int k = 0; k < g.nodes; ++k) {
        scanner.skip_whitespace();
        const std::size_t offset = scanner.position();
        element.nodes[k] = scanner.next_number<std::int64_t>();
        if (element.nodes[k] < 0) scanner.fail_at(offset, "negative vertex index " + std::to_string(element.nodes[k]));
      }
      scanner.skip_whitespace();
      if (!scanner.at_end()) scanner.fail("element " + std::to_string(i) + " has more vertices than a " + g.type);
    };
    const char* const file_end = bytes_.data() + bytes_.size();
    const auto fast = [&](std::int64_t i, const char* p, const char* end) {
      Element& element = out[first + static_cast<std::size_t>(i)];
      io::LineValues values(p, end, file_end);
      std::int64_t geometry = 0;
      if (!values.next(element.attribute) || !values.next(geometry) || geometry < 0 ||
          geometry >= static_cast<std::int64_t>(kGeometries.size()))
        return false;
      element.geometry = static_cast<std::uint8_t>(geometry);
      element.offset = static_cast<std::size_t>(p - bytes_.data());
      for (int k = 0; k < kGeometries[static_cast<std::size_t>(geometry)].nodes; ++k)
        if (!values.next(element.nodes[k]) || element.nodes[k] < 0) return false;
      return values.done();
    };
    if (io::parse_records_in_parallel(lines_, bytes_, n, fast, parse)) return;
    for (std::int64_t i = 0; i < n; ++i) {
      const io::LineSpan line = lines_.require("element", i);
      io::TextScanner scanner = lines_.scanner(line);
      parse(scanner, line.begin, i);
    }
  }

  void read_vertices(const io::LineSpan& keyword) {
    num_vertices_ = count("the vertex count");
    vertices_seen_ = true;
    const std::size_t before = lines_.position();
    const std::optional<io::LineSpan> next = lines_.next();
    if (!next) return;
    if (lines_.text(*next) == "nodes") {  // a curved mesh: the positions are the nodes'
      lines_.seek(before);
      return;
    }
    io::TextScanner scanner = lines_.scanner(*next);
    const auto sdim = scanner.next_number<std::int64_t>();
    if (sdim < 1 || sdim > 3) scanner.fail_at(next->begin, "the space dimension must be 1, 2 or 3");
    scanner.skip_whitespace();
    if (!scanner.at_end()) scanner.fail("unexpected text after the space dimension");
    check_room(num_vertices_, keyword.begin, "vertices", 2 * static_cast<std::uint64_t>(sdim));
    points_ = NDArray::allocate(DType::float64, {num_vertices_, sdim});
    double* p = points_.data_as<double>();
    const auto parse = [&](io::TextScanner& row, std::size_t, std::int64_t i) {
      row.next_numbers(p + i * sdim, static_cast<std::size_t>(sdim));
      row.skip_whitespace();
      if (!row.at_end()) row.fail("vertex " + std::to_string(i) + " has more than " + std::to_string(sdim) + " coordinates");
    };
    const auto fast = [&](std::int64_t i, const char* first, const char* end) {
      io::LineValues values(first, end);
      for (std::int64_t d = 0; d < sdim; ++d)
        if (!values.next(p[i * sdim + d])) return false;
      return values.done();
    };
    if (io::parse_records_in_parallel(lines_, bytes_, num_vertices_, fast, parse)) return;
    for (std::int64_t i = 0; i < num_vertices_; ++i) {
      const io::LineSpan line = lines_.require("vertex", i);
      io::TextScanner row = lines_.scanner(line);
      parse(row, line.begin, i);
    }
  }

  // "FiniteElementSpace" then "Key: value" lines, then the values.
  void read_nodes(const io::LineSpan& keyword) {
    std::string collection;
    std::int64_t vdim = 0, ordering = 0;
    while (true) {
      const std::size_t before = lines_.position();
      const std::optional<io::LineSpan> line = lines_.next();
      if (!line) lines_.fail("unexpected end of file in the nodes section");
      const std::string_view text = lines_.text(*line);
      const auto value_of = [&](std::string_view key) {
        std::string_view rest = text.substr(key.size());
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
        return rest;
      };
      if (text == "FiniteElementSpace") continue;
      if (text.starts_with("FiniteElementCollection:")) collection = value_of("FiniteElementCollection:");
      else if (text.starts_with("VDim:")) vdim = io::TextScanner(lines_.document(), line->begin + 5, line->end, path_, kFormat).next_number<std::int64_t>();
      else if (text.starts_with("Ordering:")) ordering = io::TextScanner(lines_.document(), line->begin + 9, line->end, path_, kFormat).next_number<std::int64_t>();
      else {
        lines_.seek(before);
        break;
      }
    }
    if (collection.empty()) lines_.fail_at(keyword.begin, "the nodes section names no FiniteElementCollection");
    if (vdim < 1 || vdim > 3) lines_.fail_at(keyword.begin, "the nodes' VDim must be 1, 2 or 3");
    const bool h1 = collection.starts_with("H1") || collection == "Linear" || collection == "Quadratic" ||
                    collection == "Cubic";
    if (!h1)
      lines_.fail_at(keyword.begin, "nodes of FiniteElementCollection " + collection +
                                        " (discontinuous, as periodic meshes have; or not H1) are not read: the "
                                        "vertex positions cannot be taken from them");
    // The values: numbers up to the next keyword line or the end.
    std::vector<double> values;
    while (true) {
      const std::size_t before = lines_.position();
      const std::optional<io::LineSpan> line = lines_.next();
      if (!line) break;
      const char first = bytes_[line->begin];
      if ((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z')) {
        lines_.seek(before);
        break;
      }
      io::TextScanner scanner = lines_.scanner(*line);
      while (true) {
        scanner.skip_whitespace();
        if (scanner.at_end()) break;
        values.push_back(scanner.next_number<double>());
      }
    }
    const std::int64_t total = static_cast<std::int64_t>(values.size());
    if (total % vdim != 0 || total / vdim < num_vertices_ || !vertices_seen_)
      lines_.fail_at(keyword.begin, "the nodes hold " + std::to_string(total) + " values, not a multiple of VDim " +
                                        std::to_string(vdim) + " covering the " + std::to_string(num_vertices_) +
                                        " vertices (the vertices section must come first)");
    const std::int64_t dofs = total / vdim;
    points_ = NDArray::allocate(DType::float64, {num_vertices_, vdim});
    double* p = points_.data_as<double>();
    for (std::int64_t i = 0; i < num_vertices_; ++i)
      for (std::int64_t d = 0; d < vdim; ++d)
        p[i * vdim + d] = ordering == 0 ? values[d * dofs + i] : values[i * vdim + d];
    nodes_values_ = std::move(values);
    nodes_vdim_ = vdim;
    nodes_ordering_ = ordering;
    nodes_dofs_ = dofs;
    collection_ = collection;
    if (dofs > num_vertices_)
      dropped_ = "nodes of " + collection + ": the " + std::to_string(dofs - num_vertices_) +
                 " node positions beyond the vertices are dropped (cells are linear)";
  }

  void read_sets(std::vector<std::pair<std::string, std::vector<std::int32_t>>>& out) {
    const std::int64_t n = count("the attribute set count");
    check_room(n, lines_.position(), "attribute sets", 6);
    for (std::int64_t i = 0; i < n; ++i) {
      const io::LineSpan line = lines_.require("attribute set", i);
      const std::string_view text = lines_.text(line);
      std::size_t close = std::string_view::npos;
      if (text.starts_with('"')) close = text.find('"', 1);
      if (close == std::string_view::npos) lines_.fail_at(line.begin, "an attribute set starts with its quoted name");
      io::TextScanner scanner(lines_.document(), line.begin + close + 1, line.end, path_, kFormat);
      const auto members = scanner.next_number<std::int64_t>();
      if (members < 0 || static_cast<std::size_t>(members) > text.size())
        scanner.fail_at(line.begin, "attribute set " + std::to_string(i) + " announces " + std::to_string(members) + " attributes");
      std::vector<std::int32_t> attributes(static_cast<std::size_t>(members));
      for (std::int32_t& a : attributes) a = scanner.next_number<std::int32_t>();
      scanner.skip_whitespace();
      if (!scanner.at_end()) scanner.fail("unexpected text after attribute set " + std::to_string(i));
      out.emplace_back(std::string(text.substr(1, close - 1)), std::move(attributes));
    }
  }

  // Blocks of one geometry run; attributes per block; regions.
  void add_blocks(const std::vector<Element>& elements, Mesh& mesh, std::vector<std::int32_t>& attributes_out) {
    std::size_t i = 0;
    while (i < elements.size()) {
      std::size_t j = i;
      while (j < elements.size() && elements[j].geometry == elements[i].geometry) ++j;
      Geometry g = kGeometries[elements[i].geometry];
      if (quadratic_) g = elements[i].geometry == 1   ? Geometry{"line3", 3, 1}
                          : elements[i].geometry == 2 ? Geometry{"triangle6", 6, 2}
                          : elements[i].geometry == 4 ? Geometry{"tetra10", 10, 3}
                                                      : Geometry{"quad9", 9, 2};
      NDArray connectivity = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(j - i), g.nodes});
      NDArray attribute = NDArray::allocate(DType::int32, {static_cast<std::int64_t>(j - i)});
      std::int64_t* c = connectivity.data_as<std::int64_t>();
      for (std::size_t e = i; e < j; ++e) {
        for (int k = 0; k < g.nodes; ++k) c[(e - i) * g.nodes + k] = elements[e].nodes[k];
        attribute.data_as<std::int32_t>()[e - i] = elements[e].attribute;
        attributes_out.push_back(elements[e].attribute);
      }
      mesh.cells.push_back(CellBlock{g.type, std::move(connectivity), {}, {}});
      block_attributes_.push_back(std::move(attribute));
      i = j;
    }
  }

  static void add_regions(Mesh& mesh, const std::vector<std::int32_t>& attributes, std::int64_t first_cell, int dim,
                          const std::string& prefix,
                          const std::vector<std::pair<std::string, std::vector<std::int32_t>>>& sets) {
    std::map<std::int32_t, std::vector<std::int64_t>> members;
    for (std::size_t i = 0; i < attributes.size(); ++i)
      members[attributes[i]].push_back(first_cell + static_cast<std::int64_t>(i));
    const auto region_of = [&](std::string name, std::int64_t tag, const std::vector<std::int64_t>& entries) {
      Region region;
      region.name = std::move(name);
      region.kind = RegionKind::Cell;
      region.dim = dim;
      region.tag = tag;
      region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size())});
      std::copy(entries.begin(), entries.end(), region.entries.data_as<std::int64_t>());
      mesh.regions.push_back(std::move(region));
    };
    for (const auto& [attribute, entries] : members) region_of(prefix + " " + std::to_string(attribute), attribute, entries);
    for (const auto& [name, set] : sets) {
      std::vector<std::int64_t> entries;
      for (std::size_t i = 0; i < attributes.size(); ++i)
        if (std::find(set.begin(), set.end(), attributes[i]) != set.end())
          entries.push_back(first_cell + static_cast<std::int64_t>(i));
      region_of(name, -1, entries);
    }
  }

  // A 2-D P2 mesh of triangles and quads (boundary: segments) → triangle6 / quad9 / line3 on
  // every node. The dofs of MFEM's H1 space: the vertices, then one per edge, numbered as
  // Mesh::GetVertexToVertexTable meets them (elements in order, each element's edges in
  // Geometry's order: triangle 01 12 20, square 01 12 23 30), then one per quad (its centre),
  // by element. Those are VTK's node orders too. Anything else keeps the vertices only.
  void make_quadratic() {
    if (dim_ != 2) return;
    for (const Element& e : elements_)
      if (e.geometry != 2 && e.geometry != 3) return;
    for (const Element& e : boundary_)
      if (e.geometry != 1) return;
    const auto key = [&](std::int64_t a, std::int64_t b) {
      return static_cast<std::uint64_t>(std::min(a, b)) * static_cast<std::uint64_t>(num_vertices_) +
             static_cast<std::uint64_t>(std::max(a, b));
    };
    std::unordered_map<std::uint64_t, std::int64_t> edges;
    edges.reserve(elements_.size() * 2);
    std::vector<std::array<std::int64_t, 4>> element_edges(elements_.size());
    std::int64_t quads = 0;
    for (std::size_t i = 0; i < elements_.size(); ++i) {
      const Element& e = elements_[i];
      const int corners = e.geometry == 2 ? 3 : 4;
      quads += e.geometry == 3;
      for (int k = 0; k < corners; ++k) {
        const auto [it, inserted] =
            edges.try_emplace(key(e.nodes[k], e.nodes[(k + 1) % corners]), static_cast<std::int64_t>(edges.size()));
        element_edges[i][k] = it->second;
      }
    }
    const std::int64_t num_edges = static_cast<std::int64_t>(edges.size());
    if (num_vertices_ + num_edges + quads != nodes_dofs_) return;
    std::vector<std::int64_t> boundary_edges(boundary_.size());
    for (std::size_t i = 0; i < boundary_.size(); ++i) {
      const auto it = edges.find(key(boundary_[i].nodes[0], boundary_[i].nodes[1]));
      if (it == edges.end()) return;
      boundary_edges[i] = it->second;
    }
    std::int64_t quad = 0;
    for (std::size_t i = 0; i < elements_.size(); ++i) {
      Element& e = elements_[i];
      const int corners = e.geometry == 2 ? 3 : 4;
      for (int k = 0; k < corners; ++k) e.nodes[corners + k] = num_vertices_ + element_edges[i][k];
      if (e.geometry == 3) e.nodes[8] = num_vertices_ + num_edges + quad++;
    }
    for (std::size_t i = 0; i < boundary_.size(); ++i) boundary_[i].nodes[2] = num_vertices_ + boundary_edges[i];
    take_all_nodes();
  }

  // A 3-D P2 mesh of tetrahedra (boundary: triangles) → tetra10 / triangle6: vertices, then
  // one node per edge (numbered as elements meet them, each tetrahedron's edges in MFEM's
  // order 01 02 03 12 13 23), written in VTK's order 01 12 02 03 13 23. No face or interior
  // nodes at P2.
  void make_quadratic_tetra() {
    if (dim_ != 3 || quadratic_) return;
    for (const Element& e : elements_)
      if (e.geometry != 4) return;
    for (const Element& e : boundary_)
      if (e.geometry != 2) return;
    const auto key = [&](std::int64_t a, std::int64_t b) {
      return static_cast<std::uint64_t>(std::min(a, b)) * static_cast<std::uint64_t>(num_vertices_) +
             static_cast<std::uint64_t>(std::max(a, b));
    };
    constexpr int kEdges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    constexpr int kMfemToVtk[6] = {0, 3, 1, 2, 4, 5};  // VTK slot 4 + k holds MFEM edge kMfemToVtk[k]
    std::unordered_map<std::uint64_t, std::int64_t> edges;
    edges.reserve(elements_.size() * 2);
    std::vector<std::array<std::int64_t, 6>> element_edges(elements_.size());
    for (std::size_t i = 0; i < elements_.size(); ++i)
      for (int k = 0; k < 6; ++k) {
        const auto [it, inserted] = edges.try_emplace(
            key(elements_[i].nodes[kEdges[k][0]], elements_[i].nodes[kEdges[k][1]]), static_cast<std::int64_t>(edges.size()));
        element_edges[i][k] = it->second;
      }
    if (num_vertices_ + static_cast<std::int64_t>(edges.size()) != nodes_dofs_) return;
    std::vector<std::array<std::int64_t, 3>> boundary_edges(boundary_.size());
    for (std::size_t i = 0; i < boundary_.size(); ++i)
      for (int k = 0; k < 3; ++k) {
        const auto it = edges.find(key(boundary_[i].nodes[k], boundary_[i].nodes[(k + 1) % 3]));
        if (it == edges.end()) return;
        boundary_edges[i][k] = it->second;
      }
    for (std::size_t i = 0; i < elements_.size(); ++i)
      for (int k = 0; k < 6; ++k) elements_[i].nodes[4 + k] = num_vertices_ + element_edges[i][kMfemToVtk[k]];
    for (std::size_t i = 0; i < boundary_.size(); ++i)
      for (int k = 0; k < 3; ++k) boundary_[i].nodes[3 + k] = num_vertices_ + boundary_edges[i][k];
    take_all_nodes();
  }

  void take_all_nodes() {
    const std::int64_t vdim = nodes_vdim_, dofs = nodes_dofs_;
    points_ = NDArray::allocate(DType::float64, {dofs, vdim});
    double* p = points_.data_as<double>();
    for (std::int64_t i = 0; i < dofs; ++i)
      for (std::int64_t d = 0; d < vdim; ++d)
        p[i * vdim + d] = nodes_ordering_ == 0 ? nodes_values_[d * dofs + i] : nodes_values_[i * vdim + d];
    quadratic_ = true;
    dropped_.clear();
  }

  Mesh assemble() {
    if (!vertices_seen_) lines_.fail("no vertices section");
    if (points_.ndim() != 2) lines_.fail("the vertices have no coordinates and there is no nodes section");
    for (const std::vector<Element>* list : {&elements_, &boundary_})
      for (const Element& e : *list)
        for (int k = 0; k < kGeometries[e.geometry].nodes; ++k)
          if (e.nodes[k] >= num_vertices_)
            lines_.fail_at(e.offset, "an element refers to vertex " + std::to_string(e.nodes[k]) + ", outside [0, " +
                                         std::to_string(num_vertices_) + ")");
    if (collection_ == "H1_2D_P2" || collection_ == "Quadratic") make_quadratic();
    if (collection_ == "H1_3D_P2" || collection_ == "Quadratic") make_quadratic_tetra();
    Mesh mesh;
    mesh.points = std::move(points_);
    std::vector<std::int32_t> element_attributes, boundary_attributes;
    add_blocks(elements_, mesh, element_attributes);
    add_blocks(boundary_, mesh, boundary_attributes);
    std::vector<NDArray> per_block = std::move(block_attributes_);
    if (!mesh.cells.empty()) mesh.cell_data.append_new("mfem:attribute", std::move(per_block));
    add_regions(mesh, element_attributes, 0, static_cast<int>(dim_), "mfem:attribute", element_sets_);
    add_regions(mesh, boundary_attributes, static_cast<std::int64_t>(elements_.size()), static_cast<int>(dim_) - 1,
                "mfem:boundary", boundary_sets_);
    if (!dropped_.empty()) mesh.string_field_data.append_new("mfem:dropped", {dropped_});
    return mesh;
  }

  std::string_view bytes_;
  const std::string& path_;
  io::SignificantLines lines_;
  std::int64_t dim_ = 0;
  std::int64_t num_vertices_ = 0;
  bool vertices_seen_ = false;
  NDArray points_;
  std::vector<Element> elements_, boundary_;
  std::vector<NDArray> block_attributes_;
  std::vector<std::pair<std::string, std::vector<std::int32_t>>> element_sets_, boundary_sets_;
  std::string dropped_;
  std::vector<double> nodes_values_;
  std::int64_t nodes_vdim_ = 0, nodes_ordering_ = 0, nodes_dofs_ = 0;
  std::string collection_;
  bool quadratic_ = false;
};

}  // namespace

bool looks_like(std::string_view head) noexcept {
  return io::skip_blanks_and_comment_lines(head, '#').starts_with("MFEM");
}

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::mfem
