// Elmer mesh directory reader (ElmerGrid's output, ElmerSolver's input).
//
// A mesh is a directory of text files:
// - mesh.header: "<nodes> <elements> <boundary elements>", then the number of element types
//   and one "<type> <count>" line each. Only the first line is read, and only to size the
//   arrays: ElmerSolver reads the other files to their end, and real meshes carry headers
//   whose type lines disagree with their files (elmerfem's L2ndDerivatives test mesh), so
//   the files, not the header, decide what the mesh holds.
// - mesh.nodes: "<id> <partition> <x> <y> <z>" per node → points float64 (n, 3), in file
//   order; ids may have gaps (elements refer to nodes by id).
// - mesh.elements: "<id> <body> <type> <nodes…>" per bulk element; mesh.boundary:
//   "<id> <boundary> <parent 1> <parent 2> <type> <nodes…>" per boundary element. Types are
//   Elmer's TNN codes (elmer_types.hpp: the meshio cell type of each and the node orders that
//   differ from VTK's). Bulk elements become one block per type in order of first
//   appearance, then boundary elements one block per type after them (a bulk and a boundary
//   block may share a type: the bulk/boundary split is kept, so a mesh written back puts
//   every element in the file it came from).
// - mesh.names (optional): "! ----- names for bodies -----" / "! ----- names for
//   boundaries -----" sections of "$ <name> = <tag>" lines.
//
// What becomes what: cell data "elmer:body" (the body of each bulk element, 0 on boundary
// elements) and "elmer:boundary" (the boundary tag of each boundary element, 0 on bulk
// elements), int64, on every block — the integer-per-cell arrays meshio users know from
// "gmsh:physical". Regions: one Cell region per body (tag = body, named from mesh.names,
// else "body <n>") and one per boundary tag ("boundary <n>" unless named), dim = the highest
// dimension of its cells. The parents of boundary elements are not kept: they are implied
// by the cells (Mesh's derive_side_regions turns the boundary regions into Side regions; the
// writer finds the parents again). Element ids are not kept; node partitions (-1 in a serial
// mesh) neither.
//
// Partitioned meshes (partitioning.N/part.K.*) are refused by name: read the serial mesh
// ElmerGrid partitioned.
// Speed: mesh.nodes and a large elements file whose records are all of the first one's type
// are parsed on all cores (io::parse_lines_in_parallel); anything else goes to the sequential
// loops, which word the errors.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "formats/elmer/elmer.hpp"
#include "formats/elmer/elmer_types.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::elmer {
namespace {

namespace fs = std::filesystem;
using detail::ElementType;

constexpr std::string_view kFormat = "elmer";

// The mesh directory `path` names: itself, or the directory of a mesh.* file in it.
std::string mesh_directory(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) {
    if (!fs::exists(fs::path(path) / detail::kHeader, error)) {
      if (fs::exists(fs::path(path) / "part.1.header", error))
        throw ReadError(path, std::string(kFormat),
                        "partitioned Elmer meshes (partitioning.N/part.K.*) are not read; read the serial mesh "
                        "directory they were made from");
      throw ReadError(path, std::string(kFormat), "the directory holds no mesh.header (not an Elmer mesh directory)");
    }
    return path;
  }
  const fs::path file(path);
  if (file.filename().string().starts_with("part.") && file.parent_path().filename().string().starts_with("partitioning."))
    throw ReadError(path, std::string(kFormat),
                    "partitioned Elmer meshes (partitioning.N/part.K.*) are not read; read the serial mesh directory "
                    "they were made from");
  if (!file.filename().string().starts_with("mesh."))
    throw ReadError(path, std::string(kFormat), "an Elmer mesh is read from its directory or one of its mesh.* files");
  return file.parent_path().empty() ? std::string(".") : file.parent_path().string();
}

std::string file_in(const std::string& directory, std::string_view name) {
  return (fs::path(directory) / std::string(name)).string();
}

// Elmer's files have no comments; blank lines are skipped (ElmerSolver reads records, not lines).
io::SignificantLines lines_of(std::string_view bytes, const std::string& path) {
  return io::SignificantLines(bytes, path, kFormat, '#', io::CommentAt::line_start);
}

void expect_line_end(io::TextScanner& scanner, std::string_view what) {
  scanner.skip_whitespace();
  if (!scanner.at_end()) scanner.fail("more values than " + std::string(what) + " holds");
}

struct Header {
  std::int64_t nodes = 0, elements = 0, boundary = 0;
};

Header read_header(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  io::SignificantLines lines = lines_of(file.bytes(), path);
  const io::LineSpan span = lines.require("the counts line");
  io::TextScanner line = lines.scanner(span);
  Header header;
  header.nodes = line.next_number<std::int64_t>();
  header.elements = line.next_number<std::int64_t>();
  header.boundary = line.next_number<std::int64_t>();
  if (header.nodes < 0 || header.elements < 0 || header.boundary < 0)
    line.fail_at(span.begin, "negative counts in the header");
  return header;
}

// Reserves room for `claimed` records of the file when the file can hold them (a record
// takes at least `min_bytes`); a header claiming more is only a hint, so less is reserved.
template <class Vector> void reserve_for(Vector& values, std::int64_t claimed, std::size_t width, std::size_t file_size,
                                         std::size_t min_bytes) {
  const std::uint64_t room = file_size / min_bytes;
  values.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(claimed), room)) * width);
}

struct Nodes {
  io::IdMap ids;
  NDArray points;
};

// The first `claimed` lines of a large file, when each is one plainly written record — what
// ElmerGrid and our writer produce —, on all cores into `ids`/`coordinates` (sized here).
// False, with both left empty and `lines` untouched, for anything else: the sequential loop
// reads the file then and words any error.
bool read_nodes_in_parallel(io::SignificantLines& lines, std::string_view document, std::int64_t claimed,
                            std::vector<std::int64_t>& ids, std::vector<double>& coordinates) {
  if (claimed < 2 || static_cast<std::uint64_t>(claimed) > document.size() / 10) return false;
  ids.resize(static_cast<std::size_t>(claimed));
  coordinates.resize(static_cast<std::size_t>(claimed) * 3);
  const std::optional<std::size_t> end = io::parse_lines_in_parallel(
      document, lines.position(), static_cast<std::uint64_t>(claimed), [&](std::uint64_t i, std::size_t from, std::size_t to) {
        io::LineValues values(document.data() + from, document.data() + to, document.data() + document.size());
        std::int64_t partition;
        double* xyz = coordinates.data() + 3 * i;
        return values.next(ids[i]) && values.next(partition) && values.next(xyz[0]) && values.next(xyz[1]) &&
               values.next(xyz[2]) && values.done();
      });
  if (!end) {
    ids.clear();
    coordinates.clear();
    return false;
  }
  lines.seek(*end);
  return true;
}

Nodes read_nodes(const std::string& path, std::int64_t claimed) {
  const io::MappedFile file(path, kFormat);
  std::vector<std::int64_t> ids;
  std::vector<double> coordinates;
  io::SignificantLines lines = lines_of(file.bytes(), path);
  if (!read_nodes_in_parallel(lines, file.bytes(), claimed, ids, coordinates)) {
    reserve_for(ids, claimed, 1, file.bytes().size(), 10);
    reserve_for(coordinates, claimed, 3, file.bytes().size(), 10);
  }
  while (const std::optional<io::LineSpan> span = lines.next()) {
    std::optional<io::TextScanner> line = lines.scanner(*span);
    ids.push_back(line->next_number<std::int64_t>());
    line->next_number<std::int64_t>();  // the partition owning the node (-1: serial)
    double xyz[3];
    line->next_numbers(xyz, 3);
    expect_line_end(*line, "a node (id, partition, x, y, z)");
    coordinates.insert(coordinates.end(), xyz, xyz + 3);
  }
  Nodes nodes;
  if (const std::optional<std::size_t> repeated = nodes.ids.build(ids))
    throw ReadError(path, std::string(kFormat), "node id " + std::to_string(ids[*repeated]) + " appears twice");
  const std::int64_t count = static_cast<std::int64_t>(ids.size());
  nodes.points = NDArray::allocate(DType::float64, {count, 3});
  io::copy_in_parallel(nodes.points.data(), coordinates.data(), coordinates.size() * sizeof(double));
  return nodes;
}

// The cells of one block while the files are read.
struct BlockRecords {
  const ElementType* type;
  bool boundary;
  std::vector<std::int64_t> connectivity;
  std::vector<std::int64_t> tags;
};

class Blocks {
 public:
  BlockRecords& block_for(const ElementType* type, bool boundary) {
    for (BlockRecords& block : blocks_)
      if (block.type == type && block.boundary == boundary) return block;
    return blocks_.emplace_back(BlockRecords{type, boundary, {}, {}});
  }
  std::vector<BlockRecords>& all() noexcept { return blocks_; }

 private:
  std::vector<BlockRecords> blocks_;
};

// The first `claimed` lines of a large elements file on all cores when each is one plainly
// written record and all are of the first one's type (what a mesh of one cell type gives).
// False, with nothing read and `lines` untouched, for anything else: the sequential loop
// reads the file then and words any error.
bool read_elements_in_parallel(io::SignificantLines& lines, std::string_view document, bool boundary,
                               const Nodes& nodes, std::int64_t claimed, Blocks& blocks) {
  if (claimed < 2 || static_cast<std::uint64_t>(claimed) > document.size() / 8) return false;
  const int leading = boundary ? 4 : 2;  // id, body | id, boundary, parent 1, parent 2
  // The first record's type, read as the parallel pass reads it.
  const std::size_t begin = lines.position();
  const void* newline = std::memchr(document.data() + begin, '\n', document.size() - begin);
  const char* first_end = newline ? static_cast<const char*>(newline) : document.data() + document.size();
  io::LineValues first(document.data() + begin, first_end);
  std::int64_t code = 0;
  if (!first.skip_tokens(leading) || !first.next(code)) return false;
  const ElementType* type = detail::type_by_code(code);
  // Every value of a record takes a digit and a separator: no more records than the file holds.
  if (type == nullptr || static_cast<std::uint64_t>(claimed) * 2 * static_cast<std::uint64_t>(leading + 1 + type->nodes) >
                             document.size() - begin)
    return false;
  BlockRecords& block = blocks.block_for(type, boundary);
  const std::size_t tags_before = block.tags.size();
  const auto width = static_cast<std::size_t>(type->nodes);
  block.connectivity.resize((tags_before + static_cast<std::size_t>(claimed)) * width);
  block.tags.resize(tags_before + static_cast<std::size_t>(claimed));
  std::int64_t* const rows = block.connectivity.data() + tags_before * width;
  std::int64_t* const tags = block.tags.data() + tags_before;
  const std::optional<std::size_t> end = io::parse_lines_in_parallel(
      document, begin, static_cast<std::uint64_t>(claimed), [&](std::uint64_t i, std::size_t from, std::size_t to) {
        io::LineValues values(document.data() + from, document.data() + to, document.data() + document.size());
        std::int64_t id, tag, parent, record_code;
        if (!values.next(id) || !values.next(tag)) return false;
        if (boundary && (!values.next(parent) || !values.next(parent))) return false;
        if (!values.next(record_code) || record_code != code) return false;
        std::int64_t elmer_nodes[27];
        for (std::size_t k = 0; k < width; ++k) {
          std::int64_t node;
          if (!values.next(node)) return false;
          elmer_nodes[k] = nodes.ids.find(node);
          if (elmer_nodes[k] < 0) return false;
        }
        if (!values.done()) return false;
        std::int64_t* row = rows + i * width;
        if (type->vtk_from_elmer.empty()) std::copy(elmer_nodes, elmer_nodes + width, row);
        else
          for (std::size_t k = 0; k < width; ++k) row[k] = elmer_nodes[type->vtk_from_elmer[k]];
        tags[i] = tag;
        return true;
      });
  if (!end) {
    block.connectivity.resize(tags_before * width);
    block.tags.resize(tags_before);
    if (tags_before == 0) blocks.all().pop_back();  // block_for appended it: the sequential loop opens it again
    return false;
  }
  lines.seek(*end);
  return true;
}

// mesh.elements (`boundary` false) or mesh.boundary: each record's cells into `blocks`.
void read_elements(const std::string& path, bool boundary, const Nodes& nodes, std::int64_t claimed, Blocks& blocks) {
  std::error_code error;
  if (boundary && !fs::exists(path, error)) return;  // a mesh without boundary elements
  const io::MappedFile file(path, kFormat);
  io::SignificantLines lines = lines_of(file.bytes(), path);
  const std::size_t file_size = file.bytes().size();
  const ElementType* last_type = nullptr;
  BlockRecords* block = nullptr;
  read_elements_in_parallel(lines, file.bytes(), boundary, nodes, claimed, blocks);
  while (const std::optional<io::LineSpan> span = lines.next()) {
    std::optional<io::TextScanner> line = lines.scanner(*span);
    line->next_number<std::int64_t>();  // the element's id: nothing refers to it once parents are dropped
    const auto tag = line->next_number<std::int64_t>();
    if (boundary) {
      line->next_number<std::int64_t>();  // parents: implied by the cells (see above)
      line->next_number<std::int64_t>();
    }
    line->skip_whitespace();
    const std::size_t type_offset = line->position();
    const auto code = line->next_number<std::int64_t>();
    const ElementType* type = code == (last_type ? last_type->code : -1) ? last_type : detail::type_by_code(code);
    if (type == nullptr)
      line->fail_at(type_offset, "element type " + std::to_string(code) +
                                     " has no meshio cell type (read: 101, 202-204, 303, 306, 310, 404, 408, 409, "
                                     "416, 504, 510, 605, 613, 706, 715, 808, 820, 827)");
    if (type != last_type || block == nullptr) {
      block = &blocks.block_for(type, boundary);
      if (block->tags.empty()) {
        reserve_for(block->connectivity, claimed, static_cast<std::size_t>(type->nodes), file_size, 4 + 2 * type->nodes);
        reserve_for(block->tags, claimed, 1, file_size, 4 + 2 * type->nodes);
      }
      last_type = type;
    }
    std::int64_t elmer_nodes[27];
    for (int k = 0; k < type->nodes; ++k) {
      line->skip_whitespace();
      const std::size_t offset = line->position();
      const auto id = line->next_number<std::int64_t>();
      const std::int64_t position = nodes.ids.find(id);
      if (position < 0) line->fail_at(offset, "node " + std::to_string(id) + " is not in mesh.nodes");
      elmer_nodes[k] = position;
    }
    expect_line_end(*line, "an element of type " + std::to_string(code));
    if (type->vtk_from_elmer.empty()) {
      block->connectivity.insert(block->connectivity.end(), elmer_nodes, elmer_nodes + type->nodes);
    } else {
      for (int k = 0; k < type->nodes; ++k) block->connectivity.push_back(elmer_nodes[type->vtk_from_elmer[k]]);
    }
    block->tags.push_back(tag);
  }
}

struct Names {
  std::map<std::int64_t, std::string> bodies, boundaries;
};

// mesh.names: "$ name = tag" lines under "! ----- names for bodies/boundaries -----".
Names read_names(const std::string& path) {
  Names names;
  std::error_code error;
  if (!fs::exists(path, error)) return names;
  const io::MappedFile file(path, kFormat);
  io::SignificantLines lines = lines_of(file.bytes(), path);
  std::map<std::int64_t, std::string>* section = nullptr;
  while (const std::optional<io::LineSpan> span = lines.next()) {
    std::optional<io::TextScanner> line = lines.scanner(*span);
    const std::string_view text = lines.text(*span);
    if (text.front() == '!') {
      if (text.find("bodies") != std::string_view::npos) section = &names.bodies;
      else if (text.find("boundaries") != std::string_view::npos) section = &names.boundaries;
      else section = nullptr;
      continue;
    }
    const std::size_t equals = text.rfind('=');
    if (text.front() != '$' || equals == std::string_view::npos)
      line->fail("a name line reads \"$ <name> = <tag>\"");
    std::string_view name = text.substr(1, equals - 1);
    while (!name.empty() && io::is_space(name.front())) name.remove_prefix(1);
    while (!name.empty() && io::is_space(name.back())) name.remove_suffix(1);
    line->seek(line->position() + equals + 1);
    const auto tag = line->next_number<std::int64_t>();
    expect_line_end(*line, "a name line");
    if (section == nullptr) line->fail("a name before any \"! ----- names for bodies/boundaries -----\" line");
    (*section)[tag] = std::string(name);
  }
  return names;
}

int cell_dimension(std::string_view cell_type) {
  if (cell_type == "vertex") return 0;
  if (cell_type.starts_with("line")) return 1;
  if (cell_type.starts_with("triangle") || cell_type.starts_with("quad")) return 2;
  return 3;
}

// One Cell region per tag of `kind` blocks, in tag order.
void add_regions(Mesh& mesh, const std::vector<BlockRecords>& blocks, bool boundary,
                 const std::map<std::int64_t, std::string>& names) {
  std::map<std::int64_t, std::pair<int, std::vector<std::int64_t>>> members;
  std::int64_t base = 0;
  for (const BlockRecords& block : blocks) {
    if (block.boundary == boundary) {
      const int dim = cell_dimension(block.type->cell_type);
      for (std::size_t i = 0; i < block.tags.size(); ++i) {
        auto& [region_dim, entries] = members.try_emplace(block.tags[i], -1, std::vector<std::int64_t>{}).first->second;
        region_dim = std::max(region_dim, dim);
        entries.push_back(base + static_cast<std::int64_t>(i));
      }
    }
    base += static_cast<std::int64_t>(block.tags.size());
  }
  for (auto& [tag, member] : members) {
    Region region;
    const auto named = names.find(tag);
    region.name = named != names.end() ? named->second : (boundary ? "boundary " : "body ") + std::to_string(tag);
    region.kind = RegionKind::Cell;
    region.dim = member.first;
    region.tag = tag;
    region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(member.second.size())});
    std::copy(member.second.begin(), member.second.end(), region.entries.data_as<std::int64_t>());
    mesh.regions.push_back(std::move(region));
  }
}

}  // namespace

bool is_mesh_directory(const std::string& path) noexcept {
  std::error_code error;
  return fs::is_directory(path, error) && fs::is_regular_file(fs::path(path) / detail::kHeader, error);
}

Mesh read(const std::string& path) {
  const std::string directory = mesh_directory(path);
  const Header header = read_header(file_in(directory, detail::kHeader));
  const Nodes nodes = read_nodes(file_in(directory, detail::kNodes), header.nodes);
  Blocks blocks;
  read_elements(file_in(directory, detail::kElements), false, nodes, header.elements, blocks);
  read_elements(file_in(directory, detail::kBoundary), true, nodes, header.boundary, blocks);
  const Names names = read_names(file_in(directory, detail::kNames));

  // Bulk blocks first, then boundary blocks, each in order of first appearance.
  std::vector<BlockRecords>& records = blocks.all();
  std::stable_partition(records.begin(), records.end(), [](const BlockRecords& block) { return !block.boundary; });
  Mesh mesh;
  mesh.points = nodes.points;
  std::vector<NDArray> bodies, boundaries;
  for (BlockRecords& block : records) {
    const std::int64_t count = static_cast<std::int64_t>(block.tags.size());
    NDArray connectivity = NDArray::allocate(DType::int64, {count, block.type->nodes});
    std::copy(block.connectivity.begin(), block.connectivity.end(), connectivity.data_as<std::int64_t>());
    mesh.cells.push_back(CellBlock{std::string(block.type->cell_type), std::move(connectivity), {}, {}});
    NDArray tags = NDArray::allocate(DType::int64, {count});
    std::copy(block.tags.begin(), block.tags.end(), tags.data_as<std::int64_t>());
    NDArray zeros = NDArray::allocate(DType::int64, {count});
    std::fill_n(zeros.data_as<std::int64_t>(), count, 0);
    bodies.push_back(block.boundary ? std::move(zeros) : std::move(tags));
    boundaries.push_back(block.boundary ? std::move(tags) : std::move(zeros));
    std::vector<std::int64_t>().swap(block.connectivity);
  }
  if (!mesh.cells.empty()) {
    mesh.cell_data.append_new("elmer:body", std::move(bodies));
    mesh.cell_data.append_new("elmer:boundary", std::move(boundaries));
  }
  add_regions(mesh, records, false, names.bodies);
  add_regions(mesh, records, true, names.boundaries);
  return mesh;
}

}  // namespace meshioplusplus::elmer
