// Z88 structure file reader (z88i1.txt of Z88OS V14/V15; Z88Aurora's z88structure.txt).
//
// Layout, as Z88's own reader (ri188r.c) takes it, one record per line:
// - "<ndim> <nodes> <elements> <dofs> <kflag> [anything]": dimension 2 or 3, counts, and
//   kflag 1 when the coordinates are polar (radius, angle in degrees);
// - per node "<id> <dofs> <x> <y> [<z>]": ndim coordinates are read, anything after them
//   is ignored (the examples carry "Knoten #1" comments, and 2-D files a third coordinate);
//   nodes are numbered by their position, as Z88 does (the id is not used);
// - per element two lines: "<id> <type>", then the type's node numbers (1-based positions).
// Whatever follows the last element (older versions put material lines there) is ignored.
//
// What becomes what: points float64 (n, ndim), polar ones turned Cartesian as Z88 does
// (with π, where Z88 multiplies by 3.141593/180); one cell block per Z88 element type in
// order of first appearance, of the meshio type and node order z88_types.hpp gives (types
// without one are refused by name); cell data "z88:type" int64 (the Z88 element type, so a
// truss and a beam, both lines, keep their meaning through a round trip); point data
// "z88:dof" int64 (each node's degrees of freedom). Material, element parameters and
// boundary conditions live in other files (z88mat.txt, z88elp.txt, z88i2.txt) and are not read.
// Speed: the nodes, and the elements when all are of the first one's type, are parsed on all
// cores (io::parse_lines_in_parallel); anything else goes to the sequential loops, which word
// the errors.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/z88/z88.hpp"
#include "formats/z88/z88_types.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/uninitialized.hpp"
#include "io/text/line_values.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::z88 {
namespace {

constexpr std::string_view kFormat = "z88";

struct BlockRecords {
  const detail::ElementType* type;
  io::UninitializedVector<std::int64_t> connectivity;  // the parallel pass sizes it, then fills it
};

// The elements of a large file on all cores when every element is of the first one's type
// and its two lines are plainly written: returns element_count with the one block filled,
// else 0 with nothing read and `lines` untouched (the sequential loop words any error).
std::int64_t read_elements_in_parallel(io::SignificantLines& lines, std::string_view document, std::int64_t element_count,
                                       std::int64_t node_count, std::vector<BlockRecords>& blocks,
                                       std::vector<std::size_t>& block_of_type) {
  const char* const text = document.data();
  const std::size_t begin = lines.position();
  if (element_count < 2 || begin >= document.size()) return 0;
  const void* newline = std::memchr(text + begin, '\n', document.size() - begin);
  io::LineValues first(text + begin, newline ? static_cast<const char*>(newline) : text + document.size());
  std::int64_t id = 0, number = 0;
  if (!first.next(id) || !first.next(number)) return 0;
  const detail::ElementType* type = detail::type_by_number(number);
  if (type == nullptr || type->cell_type.empty()) return 0;
  const auto width = static_cast<std::size_t>(type->nodes);
  // A type line takes 4 bytes, a node line 2 a node: no more elements than the file holds.
  if (static_cast<std::uint64_t>(element_count) * (4 + 2 * width) > document.size() - begin) return 0;
  io::UninitializedVector<std::int64_t> connectivity(static_cast<std::size_t>(element_count) * width);
  const std::optional<std::size_t> end = io::parse_lines_in_parallel(
      document, begin, 2 * static_cast<std::uint64_t>(element_count), [&](std::uint64_t line, std::size_t from, std::size_t to) {
        io::LineValues values(text + from, text + to, text + document.size());
        if (line % 2 == 0) {  // "<id> <type>": the rest of the line is ignored, as Z88 does
          std::int64_t element_id, element_type;
          return values.next(element_id) && values.next(element_type) && element_type == number;
        }
        std::int64_t z88_nodes[20];
        for (std::size_t k = 0; k < width; ++k)
          if (!values.next(z88_nodes[k]) || z88_nodes[k] < 1 || z88_nodes[k] > node_count) return false;
        std::int64_t* row = connectivity.data() + line / 2 * width;
        for (std::size_t k = 0; k < width; ++k)
          row[k] = z88_nodes[type->vtk_from_z88.empty() ? k : static_cast<std::size_t>(type->vtk_from_z88[k])] - 1;
        return true;
      });
  if (!end) return 0;
  lines.seek(*end);
  block_of_type[static_cast<std::size_t>(number)] = blocks.size();
  blocks.push_back(BlockRecords{type, std::move(connectivity)});
  return element_count;
}

}  // namespace

bool is_structure_file_name(std::string_view path) noexcept {
  const std::size_t slash = path.find_last_of("/\\");
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto equals = [&](std::string_view wanted) {
    if (name.size() != wanted.size()) return false;
    for (std::size_t i = 0; i < name.size(); ++i)
      if ((name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]) != wanted[i]) return false;
    return true;
  };
  return equals("z88i1.txt") || equals("z88structure.txt");
}

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  // Z88 has no comment syntax: every non-blank line is a record.
  io::SignificantLines lines(file.bytes(), path, kFormat, '\0', io::CommentAt::line_start);

  io::LineSpan span = lines.require("the header line");
  io::TextScanner header = lines.scanner(span);
  const auto ndim = header.next_number<std::int64_t>();
  const auto node_count = header.next_number<std::int64_t>();
  const auto element_count = header.next_number<std::int64_t>();
  header.next_number<std::int64_t>();  // the model's degrees of freedom: the nodes' sum
  std::int64_t kflag = 0;
  header.skip_whitespace();
  if (!header.at_end()) {
    const std::size_t offset = header.position();
    kflag = header.next_number<std::int64_t>();
    if (kflag != 0 && kflag != 1) header.fail_at(offset, "the coordinate flag (KFLAG) must be 0 or 1");
  }
  if (ndim != 2 && ndim != 3) header.fail_at(span.begin, "the dimension must be 2 or 3, not " + std::to_string(ndim));
  if (node_count < 0 || element_count < 0) header.fail_at(span.begin, "negative counts in the header");
  const std::uint64_t bytes_left = lines.bytes_left();
  // A node line takes at least 2 bytes per value; an element two lines of at least 4 bytes.
  io::check_claim(path, kFormat, "nodes", static_cast<std::uint64_t>(node_count), 2 * (2 + ndim), bytes_left,
                  static_cast<std::uint64_t>(ndim) * 8 + 8, io::ClaimSite{span.begin, 1});
  io::check_claim(path, kFormat, "elements", static_cast<std::uint64_t>(element_count), 8, bytes_left, 8,
                  io::ClaimSite{span.begin, 1});

  Mesh mesh;
  mesh.points = NDArray::allocate(DType::float64, {node_count, ndim});
  NDArray dofs = NDArray::allocate(DType::int64, {node_count});
  double* points = mesh.points.data_as<double>();
  const std::string_view document = file.bytes();
  const char* const text = document.data();
  const auto to_cartesian = [&](double* point) {
    const double radius = point[0], angle = point[1] * std::numbers::pi / 180.0;
    point[0] = radius * std::cos(angle);
    point[1] = radius * std::sin(angle);
  };
  // Nodes and elements written one record per line — what Z88 and every writer produce — are
  // read on all cores; anything else (blank lines inside, a second element type) falls back
  // to the sequential loops, which word every error.
  std::int64_t nodes_done = 0;
  if (const std::optional<std::size_t> end = io::parse_lines_in_parallel(
          document, lines.position(), static_cast<std::uint64_t>(node_count),
          [&](std::uint64_t i, std::size_t from, std::size_t to) {
            io::LineValues values(text + from, text + to, text + document.size());
            std::int64_t id;
            double* point = points + static_cast<std::int64_t>(i) * ndim;
            if (!values.next(id) || !values.next(dofs.data_as<std::int64_t>()[i])) return false;
            for (std::int64_t k = 0; k < ndim; ++k)
              if (!values.next(point[k])) return false;
            if (kflag == 1) to_cartesian(point);
            return true;  // Z88 ignores what follows the coordinates
          })) {
    lines.seek(*end);
    nodes_done = node_count;
  }
  for (std::int64_t i = nodes_done; i < node_count; ++i) {
    io::TextScanner line = lines.scanner(lines.require([&] { return "node " + std::to_string(i + 1); }));
    line.next_number<std::int64_t>();  // the node's id: Z88 numbers nodes by position
    dofs.data_as<std::int64_t>()[i] = line.next_number<std::int64_t>();
    // Only the coordinates are read: Z88 ignores what follows them on the line.
    for (std::int64_t k = 0; k < ndim; ++k) points[i * ndim + k] = line.next_number<double>();
    if (kflag == 1) to_cartesian(points + i * ndim);
  }

  std::vector<BlockRecords> blocks;
  std::vector<std::size_t> block_of_type(detail::kElementTypes.size() + 1, static_cast<std::size_t>(-1));
  const std::int64_t elements_done = read_elements_in_parallel(lines, document, element_count, node_count, blocks, block_of_type);
  for (std::int64_t e = elements_done; e < element_count; ++e) {
    const io::LineSpan type_span = lines.require([&] { return "the type line of element " + std::to_string(e + 1); });
    io::TextScanner type_line = lines.scanner(type_span);
    type_line.next_number<std::int64_t>();  // the element's id: elements are numbered by position
    type_line.skip_whitespace();
    const std::size_t type_offset = type_line.position();
    const auto number = type_line.next_number<std::int64_t>();
    const detail::ElementType* type = detail::type_by_number(number);
    if (type == nullptr) type_line.fail_at(type_offset, "unknown Z88 element type " + std::to_string(number) + " (1 to 25)");
    if (type->cell_type.empty())
      type_line.fail_at(type_offset, "Z88 element type " + std::to_string(number) + " (" + std::string(type->description) +
                                         ") has no meshio cell type");
    std::size_t& block = block_of_type[static_cast<std::size_t>(number)];
    if (block == static_cast<std::size_t>(-1)) {
      block = blocks.size();
      blocks.push_back(BlockRecords{type, {}});
    }
    io::TextScanner node_line =
        lines.scanner(lines.require([&] { return "the node line of element " + std::to_string(e + 1); }));
    std::int64_t z88_nodes[20];
    for (int k = 0; k < type->nodes; ++k) {
      node_line.skip_whitespace();
      const std::size_t offset = node_line.position();
      const auto node = node_line.next_number<std::int64_t>();
      if (node < 1 || node > node_count)
        node_line.fail_at(offset, "element " + std::to_string(e + 1) + " refers to node " + std::to_string(node) +
                                      ", outside 1.." + std::to_string(node_count));
      z88_nodes[k] = node - 1;
    }
    io::UninitializedVector<std::int64_t>& connectivity = blocks[block].connectivity;
    if (type->vtk_from_z88.empty()) connectivity.insert(connectivity.end(), z88_nodes, z88_nodes + type->nodes);
    else
      for (int k = 0; k < type->nodes; ++k) connectivity.push_back(z88_nodes[type->vtk_from_z88[k]]);
  }

  std::vector<NDArray> type_data;
  for (BlockRecords& block : blocks) {
    const std::int64_t count = static_cast<std::int64_t>(block.connectivity.size()) / block.type->nodes;
    NDArray connectivity = NDArray::allocate(DType::int64, {count, block.type->nodes});
    io::copy_in_parallel(connectivity.data_as<std::int64_t>(), block.connectivity.data(), block.connectivity.size() * sizeof(std::int64_t));
    mesh.cells.push_back(CellBlock{std::string(block.type->cell_type), std::move(connectivity), {}, {}});
    NDArray numbers = NDArray::allocate(DType::int64, {count});
    std::fill_n(numbers.data_as<std::int64_t>(), count, block.type->number);
    type_data.push_back(std::move(numbers));
  }
  mesh.point_data.append_new("z88:dof", std::move(dofs));
  if (!mesh.cells.empty()) mesh.cell_data.append_new("z88:type", std::move(type_data));
  return mesh;
}

}  // namespace meshioplusplus::z88
