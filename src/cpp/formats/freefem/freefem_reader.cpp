// FreeFEM 2-D mesh reader (.msh).
//
// Layout (FreeFEM's Mesh::Save and readmesh, src/femlib/Mesh2dn.cpp): the counts "nv nt nbe"
// on the first line, then nv vertices "x y label", nt triangles "i j k region" and nbe
// boundary edges "i j label", node numbers 1-based. FreeFEM reads the numbers as a stream of
// tokens; its writer puts one record per line, which this reader parses on all cores, and any
// other layout (records wrapped or run together) is read token by token the same way.
//
// What becomes what (the names meshio++ 17.21 uses, so files compare equal): points float64
// (nv, 2); a "triangle" block, then a "line" block for the boundary edges (a block is left out
// when its count is 0); point data "freefem:ref" int64 (the vertex labels) and cell data
// "freefem:ref" int64 (triangle region numbers, edge labels). FreeFEM names no groups, so
// there are no regions. A file whose vertex lines hold four values (x y z label) is FreeFEM's
// 3-D .msh layout (tetrahedra and boundary triangles): refused with a message saying so, as is
// any text after the last boundary edge. Counts are checked against the file's length before
// anything is allocated, node numbers against nv.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "formats/freefem/freefem.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::freefem {
namespace {

constexpr std::string_view kFormat = "freefem";

struct CellSection {
  const char* type;       // our cell type
  const char* what;       // the record's name in messages
  std::int64_t nodes;
};
constexpr CellSection kTriangles{"triangle", "triangle", 3};
constexpr CellSection kEdges{"line", "boundary edge", 2};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path), scanner_(bytes, path, kFormat) {}

  Mesh read() {
    const std::int64_t num_vertices = count("vertex");
    const std::int64_t num_triangles = count("triangle");
    const std::int64_t num_edges = count("boundary edge");
    scanner_.skip_blanks();
    if (!scanner_.at_end() && bytes_[scanner_.position()] != '\n')
      scanner_.fail("the first line must hold exactly three counts (vertices, triangles, boundary edges)");
    // Each record takes at least one digit and a separator per number.
    const std::uint64_t left = bytes_.size() - scanner_.position();
    const io::ClaimSite site{0, 1};
    io::check_claim(path_, kFormat, "vertices", static_cast<std::uint64_t>(num_vertices), 6, left, 2 * 8 + 8, site);
    io::check_claim(path_, kFormat, "triangles", static_cast<std::uint64_t>(num_triangles), 8, left, 3 * 8 + 8, site);
    io::check_claim(path_, kFormat, "boundary edges", static_cast<std::uint64_t>(num_edges), 6, left, 2 * 8 + 8, site);
    num_vertices_ = num_vertices;

    read_vertices();
    std::vector<NDArray> labels;
    for (const auto& [section, rows] : {std::pair{kTriangles, num_triangles}, std::pair{kEdges, num_edges}}) {
      if (rows == 0) continue;
      NDArray block_labels = NDArray::allocate(DType::int64, {rows});
      NDArray connectivity = read_cells(section, rows, block_labels.data_as<std::int64_t>());
      mesh_.cells.push_back(CellBlock{section.type, std::move(connectivity), {}, {}});
      labels.push_back(std::move(block_labels));
    }
    scanner_.skip_whitespace();
    if (!scanner_.at_end())
      scanner_.fail("text after the last boundary edge (line 1 announces " + std::to_string(num_vertices) +
                    " vertices, " + std::to_string(num_triangles) + " triangles and " + std::to_string(num_edges) +
                    " boundary edges)");
    if (!labels.empty()) mesh_.cell_data.set("freefem:ref", std::move(labels));
    return std::move(mesh_);
  }

 private:
  std::int64_t count(const char* what) {
    scanner_.skip_whitespace();
    const std::size_t offset = scanner_.position();
    if (scanner_.at_end()) scanner_.fail(std::string("unexpected end of file: expected the ") + what + " count");
    const auto value = scanner_.next_number<std::int64_t>();
    if (value < 0) scanner_.fail_at(offset, std::string("negative ") + what + " count");
    return value;
  }

  // The next token must exist: names record `index` of `count` in the error.
  void expect(const char* what, std::int64_t index, std::int64_t count) {
    scanner_.skip_whitespace();
    if (scanner_.at_end())
      scanner_.fail("unexpected end of file in " + std::string(what) + " " + std::to_string(index + 1) + " of " +
                    std::to_string(count));
  }

  // Where one-record-per-line records begin (the line after the current position), if they do.
  std::optional<std::size_t> records_begin() const { return io::records_begin(bytes_, scanner_.position()); }

  void read_vertices() {
    const std::int64_t count = num_vertices_;
    mesh_.points = NDArray::allocate(DType::float64, {count, 2});
    NDArray labels = NDArray::allocate(DType::int64, {count});
    double* xy = mesh_.points.data_as<double>();
    std::int64_t* label = labels.data_as<std::int64_t>();
    std::int64_t row = 0;
    if (const std::optional<std::size_t> begin = records_begin(); begin && count > 0) {
      refuse_three_dimensional(*begin);
      const char* const text = bytes_.data();
      const auto vertex_line = [&](std::uint64_t i, std::size_t first, std::size_t last) {
        io::LineValues line(text + first, text + last, text + bytes_.size());
        return line.next(xy[2 * i]) && line.next(xy[2 * i + 1]) && line.next(label[i]) && line.done();
      };
      if (const auto end = io::parse_lines_in_parallel(bytes_, *begin, static_cast<std::uint64_t>(count), vertex_line)) {
        scanner_.seek(*end);
        row = count;
      }
    }
    for (; row < count; ++row) {
      expect("vertex", row, count);
      xy[2 * row] = scanner_.next_number<double>();
      expect("vertex", row, count);
      xy[2 * row + 1] = scanner_.next_number<double>();
      expect("vertex", row, count);
      label[row] = scanner_.next_number<std::int64_t>();
    }
    mesh_.point_data.set("freefem:ref", std::move(labels));
  }

  // FreeFEM's 3-D .msh has the same count line and "x y z label" vertices.
  void refuse_three_dimensional(std::size_t line_begin) const {
    const char* const text = bytes_.data();
    const char* const newline = io::find_newline(text + line_begin, text + bytes_.size());
    const char* const line_end = newline != nullptr ? newline : text + bytes_.size();
    if (io::count_tokens(text + line_begin, line_end) == 4)
      scanner_.fail_at(line_begin, "the vertex lines hold four values (x y z label): FreeFEM's 3-D .msh layout, "
                                   "which is not read (FreeFEM writes 3-D meshes as Medit .mesh files too)");
  }

  NDArray read_cells(const CellSection& section, std::int64_t count, std::int64_t* labels) {
    const std::int64_t nodes = section.nodes;
    const std::int64_t num_vertices = num_vertices_;
    NDArray connectivity = NDArray::allocate(DType::int64, {count, nodes});
    std::int64_t* out = connectivity.data_as<std::int64_t>();
    std::int64_t row = 0;
    if (const std::optional<std::size_t> begin = records_begin()) {
      const char* const text = bytes_.data();
      const auto cell_line = [&](std::uint64_t i, std::size_t first, std::size_t last) {
        io::LineValues line(text + first, text + last, text + bytes_.size());
        std::int64_t* target = out + static_cast<std::int64_t>(i) * nodes;
        for (std::int64_t k = 0; k < nodes; ++k) {
          std::int64_t id = 0;
          if (!line.next(id)) return false;
          const std::int64_t index = io::zero_based(id);
          if (!io::id_within(index, num_vertices)) return false;  // the sequential parse words it
          target[k] = index;
        }
        return line.next(labels[i]) && line.done();
      };
      if (const auto end = io::parse_lines_in_parallel(bytes_, *begin, static_cast<std::uint64_t>(count), cell_line)) {
        scanner_.seek(*end);
        row = count;
      }
    }
    for (; row < count; ++row) {
      std::int64_t* target = out + row * nodes;
      for (std::int64_t k = 0; k < nodes; ++k) {
        expect(section.what, row, count);
        const std::size_t offset = scanner_.position();
        const auto id = scanner_.next_number<std::int64_t>();
        const std::int64_t index = io::zero_based(id);
        if (!io::id_within(index, num_vertices))
          scanner_.fail_at(offset, std::string(section.what) + " " + std::to_string(row + 1) + " of " +
                                       std::to_string(count) + " refers to vertex " + std::to_string(id) +
                                       ", outside 1.." + std::to_string(num_vertices));
        target[k] = index;
      }
      expect(section.what, row, count);
      labels[row] = scanner_.next_number<std::int64_t>();
    }
    return connectivity;
  }

  std::string_view bytes_;
  const std::string& path_;
  io::TextScanner scanner_;
  std::int64_t num_vertices_ = 0;
  Mesh mesh_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

bool looks_like(std::string_view head) noexcept {
  std::size_t at = 0;
  while (at < head.size() && io::is_space(head[at])) ++at;
  int numbers = 0;
  while (at < head.size() && head[at] != '\n') {
    if (head[at] == ' ' || head[at] == '\t' || head[at] == '\r') {
      ++at;
      continue;
    }
    if (head[at] < '0' || head[at] > '9') return false;
    while (at < head.size() && head[at] >= '0' && head[at] <= '9') ++at;
    ++numbers;
  }
  return numbers == 3;
}

}  // namespace meshioplusplus::freefem
