// AVS-UCD reader (ASCII).
//
// Layout: '#' comment lines, then "nnodes ncells n_node_comp n_cell_comp n_model_comp"; nnodes
// lines "id x y z"; ncells lines "id material type n1 n2 …"; then, when n_node_comp > 0, a
// node data block: "nfields c1 … cn" (components per field, summing to n_node_comp), n lines
// "label, unit", and nnodes lines "id v1 … v(n_node_comp)"; the same for cells. Node and cell
// ids are arbitrary integers (LaGriT writes 1..n, other tools do not): data rows and cell
// corners refer to them and are mapped to 0-based positions.
//
// What becomes what, as meshio: points float64 (n, 3); consecutive cells of one type form a
// block (a new block starts whenever the type changes); the material number becomes cell
// data "avsucd:material" (int64); node/cell fields become point/cell data float64, (n,) for
// one component and (n, k) otherwise, named by their label with blanks turned into '_'.
// Corners are permuted from AVS's node order to meshio's (avsucd_cells.hpp).
//
// Arrays: the header gives every count, so points and data are allocated once in final shape.
// Cells take two passes: the first finds the type runs and where each cell's line starts, the
// second fills the blocks on all cores (each cell's line is known, and ranges of cells report
// the earliest error, as one walk would). When the first pass runs on all cores it also reads
// each cell of the first cell's type whole, into a block of every cell: a section of one type
// plainly written (what meshio and LaGriT write) then needs no second pass. Large node sections of one node per line are read
// on all cores (io::parse_lines_in_parallel); any other layout, and any node line the plain
// reader does not take, sends the section to the sequential walk, which words the errors.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/avsucd/avsucd.hpp"
#include "formats/avsucd/avsucd_cells.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::avsucd {
namespace {

constexpr std::string_view kFormat = "avsucd";

using detail::kCellTypes;

using io::IdMap;
using io::LineSpan;

struct Header {
  std::int64_t nodes = 0, cells = 0, node_components = 0, cell_components = 0;
};

struct Run {
  int type;  // index into kCellTypes
  std::int64_t cells;
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path)
      : doc_(bytes), path_(path), lines_(bytes, path, kFormat) {}

  Mesh read() {
    const Header header = read_header();
    std::vector<std::int64_t> ids;
    read_nodes(header.nodes, ids);
    if (const auto repeated = node_ids_.build(ids))
      fail_at(node_starts_[*repeated], "node id " + std::to_string(ids[*repeated]) + " appears twice");
    node_starts_ = {};
    read_cells(header.cells, ids);
    if (const auto repeated = cell_ids_.build(ids))
      fail_at(cell_starts_[*repeated], "cell id " + std::to_string(ids[*repeated]) + " appears twice");
    if (header.node_components > 0)
      for (auto& [name, array] : read_data(header.nodes, header.node_components, node_ids_, "node"))
        mesh_.point_data.set(std::move(name), std::move(array));
    if (header.cell_components > 0)
      for (auto& [name, array] : read_data(header.cells, header.cell_components, cell_ids_, "cell"))
        mesh_.cell_data.set(std::move(name), split_by_block(array));
    return std::move(mesh_);
  }

 private:
  // ---- lines ----

  // The next line that is neither blank nor a '#' comment.
  std::optional<LineSpan> next_line() {
    while (!lines_.at_end()) {
      const std::string_view line = lines_.next_line();
      std::size_t begin = static_cast<std::size_t>(line.data() - doc_.data());
      std::size_t end = begin + line.size();
      while (begin < end && io::is_space(doc_[begin])) ++begin;
      while (end > begin && io::is_space(doc_[end - 1])) --end;
      if (begin < end && doc_[begin] != '#') return LineSpan{begin, end};
    }
    return std::nullopt;
  }
  LineSpan require_line(const std::string& what) {
    if (std::optional<LineSpan> line = next_line()) return *line;
    lines_.fail("unexpected end of file: expected " + what);
  }
  // The same, with the name built only when the line is missing, so hot loops allocate nothing.
  template <class Describe>
    requires std::is_invocable_v<Describe>
  LineSpan require_line(Describe&& describe) {
    if (std::optional<LineSpan> line = next_line()) return *line;
    lines_.fail("unexpected end of file: expected " + std::string(describe()));
  }
  io::TextScanner scanner(const LineSpan& line) const { return io::TextScanner(doc_, line.begin, line.end, path_, kFormat); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const { lines_.fail_at(offset, message); }

  static void expect_line_end(io::TextScanner& scanner, std::string_view what) {
    scanner.skip_whitespace();
    if (!scanner.at_end()) scanner.fail("unexpected value after " + std::string(what));
  }
  // The same, with the description built only on failure.
  template <class Describe>
    requires std::is_invocable_v<Describe>
  static void expect_line_end(io::TextScanner& scanner, Describe&& describe) {
    scanner.skip_whitespace();
    if (!scanner.at_end()) scanner.fail("unexpected value after " + std::string(describe()));
  }

  // A corrupt count must not drive a huge allocation: every record takes at least
  // `min_bytes` bytes of the rest of the file.
  void check_room(std::int64_t records, std::int64_t min_bytes, const std::string& what, std::size_t offset) const {
    const std::uint64_t room = (doc_.size() - lines_.position() + 1) / static_cast<std::uint64_t>(min_bytes);
    if (static_cast<std::uint64_t>(records) > room)
      fail_at(offset, "the header announces " + std::to_string(records) + " " + what +
                          ", more than the rest of the file can hold");
  }

  // ---- header, nodes, cells ----

  Header read_header() {
    const LineSpan line = require_line("the header line (nnodes ncells nnode_data ncell_data nmodel_data)");
    io::TextScanner s = scanner(line);
    Header header;
    std::int64_t* fields[] = {&header.nodes, &header.cells, &header.node_components, &header.cell_components};
    for (std::int64_t* field : fields) {
      s.skip_whitespace();
      const std::size_t offset = s.position();
      *field = s.next_number<std::int64_t>();
      if (*field < 0) fail_at(offset, "negative count in the header");
    }
    s.next_number<std::int64_t>();  // model data: never written by anyone, ignored
    expect_line_end(s, "the five header counts");
    check_room(header.nodes, 8, "nodes", line.begin);   // "i x y z\n"
    check_room(header.cells, 10, "cells", line.begin);  // "i m pt n\n"
    return header;
  }

  // Node i from its raw line [first, last) when it is plainly "id x y z"; false otherwise.
  bool read_plain_node(std::int64_t i, const char* first, const char* last, std::int64_t* ids, double* xyz) {
    first = io::skip_line_blanks(first, last);
    io::LineValues values(first, last, doc_.data() + doc_.size());
    std::int64_t id = 0;
    double x[3];
    if (first == last || *first == '#' || !values.next(id) || !values.next(x[0]) || !values.next(x[1]) ||
        !values.next(x[2]) || !values.done())
      return false;
    ids[i] = id;
    node_starts_[static_cast<std::size_t>(i)] = static_cast<std::size_t>(first - doc_.data());
    std::copy_n(x, 3, xyz + 3 * i);
    return true;
  }

  void read_nodes(std::int64_t count, std::vector<std::int64_t>& ids) {
    mesh_.points = NDArray::allocate(DType::float64, {count, 3});
    double* xyz = mesh_.points.data_as<double>();
    ids.resize(static_cast<std::size_t>(count));
    node_starts_.resize(static_cast<std::size_t>(count));
    const std::optional<std::size_t> records = io::records_begin(doc_, lines_.position());
    if (records) {
      const std::optional<std::size_t> end = io::parse_lines_in_parallel(
          doc_, *records, static_cast<std::uint64_t>(count), [&](std::uint64_t i, std::size_t first, std::size_t last) {
            return read_plain_node(static_cast<std::int64_t>(i), doc_.data() + first, doc_.data() + last, ids.data(), xyz);
          });
      if (end) {
        lines_.seek(*end);
        return;
      }
    }
    for (std::int64_t i = 0; i < count; ++i) {
      const LineSpan line = require_line([&] { return "node " + std::to_string(i + 1) + " of " + std::to_string(count); });
      io::TextScanner s = scanner(line);
      ids[static_cast<std::size_t>(i)] = s.next_number<std::int64_t>();
      node_starts_[static_cast<std::size_t>(i)] = line.begin;
      s.next_numbers(xyz + 3 * i, 3);
      expect_line_end(s, "a node's id and three coordinates");
    }
  }

  int cell_type_at(io::TextScanner& s) const {
    const std::string_view name = s.next_token();
    const int type = detail::find_by_ucd_name(name);
    if (type < 0)
      s.fail_at(s.position() - name.size(), "unknown cell type '" + std::string(name.substr(0, 32)) +
                                                "' (known: pt, line, tri, quad, tet, pyr, prism, hex)");
    return type;
  }

  // The type of the cell on `line` ("id material type …"). The third word is found without
  // parsing the first two (the second pass reads them); a line that does not fit that shape
  // is read word by word, so its first problem is reported as always.
  int cell_type_of(const LineSpan& line) const {
    const int type = third_word_type(line.begin, line.end);
    if (type >= 0) return type;
    io::TextScanner s = scanner(line);
    s.next_number<std::int64_t>();
    s.next_number<std::int64_t>();
    return cell_type_at(s);
  }

  // The first cells' block when pass 1 read every cell whole (cells of one type, plainly
  // written); empty otherwise.
  struct WholeBlock {
    NDArray connectivity, materials;
  };

  // The type of the cell on the line starting at `begin` by its third word; -1 when unknown.
  int third_word_type(std::size_t begin, std::size_t stop) const {
    const char* const data = doc_.data();
    std::size_t pos = begin;
    while (pos < stop && io::is_space(data[pos])) ++pos;
    for (int word = 0; word < 2; ++word) {
      while (pos < stop && !io::is_space(data[pos])) ++pos;
      while (pos < stop && io::is_space(data[pos])) ++pos;
    }
    std::size_t word_end = pos;
    while (word_end < stop && !io::is_space(data[word_end])) ++word_end;
    return detail::find_by_ucd_name(doc_.substr(pos, word_end - pos));
  }

  // Pass 1 on all cores for a section of one cell per line whose third words are known type
  // names: each line's start and type, and each cell of the first cell's type read whole into
  // `whole` (with its id) until one is not plainly written or of another type. False (lines_
  // untouched) when the walk must do it.
  bool find_cell_lines_in_parallel(std::int64_t count, std::vector<std::int8_t>& types, std::vector<std::int64_t>& ids,
                                   WholeBlock& whole) {
    const std::optional<std::size_t> records = io::records_begin(doc_, lines_.position());
    if (!records || count < 2) return false;
    const char* const data = doc_.data();
    const char* const newline = io::find_newline(data + *records, data + doc_.size());
    const int guess = third_word_type(*records, newline != nullptr ? static_cast<std::size_t>(newline - data) : doc_.size());
    std::atomic<bool> all_read{guess >= 0};
    NDArray connectivity, materials;
    if (guess >= 0) {
      connectivity = NDArray::allocate(DType::int64, {count, kCellTypes[static_cast<std::size_t>(guess)].num_nodes});
      materials = NDArray::allocate(DType::int64, {count});
    }
    types.resize(static_cast<std::size_t>(count));
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        doc_, *records, static_cast<std::uint64_t>(count), [&](std::uint64_t i, std::size_t begin, std::size_t stop) {
          std::size_t pos = begin;
          while (pos < stop && io::is_space(data[pos])) ++pos;
          if (pos == stop || data[pos] == '#') return false;
          cell_starts_[i] = pos;
          const int type = third_word_type(pos, stop);
          types[i] = static_cast<std::int8_t>(type);
          if (type < 0) return false;
          if (!all_read.load(std::memory_order_relaxed)) return true;
          const auto& info = kCellTypes[static_cast<std::size_t>(type)];
          std::int64_t id = 0;
          if (type != guess || !read_plain_cell(data + pos, data + stop, info, id, materials.data_as<std::int64_t>()[i],
                                                connectivity.data_as<std::int64_t>() + i * info.num_nodes)) {
            all_read.store(false, std::memory_order_relaxed);
            return true;
          }
          ids[i] = id;
          return true;
        });
    if (!end) return false;
    lines_.seek(*end);
    if (all_read.load()) whole = {std::move(connectivity), std::move(materials)};
    return true;
  }

  void read_cells(std::int64_t count, std::vector<std::int64_t>& ids) {
    // Pass 1: types and where each line starts.
    ids.resize(static_cast<std::size_t>(count));
    cell_starts_.resize(static_cast<std::size_t>(count));
    std::vector<Run> runs;
    const auto add_to_runs = [&](int type) {
      if (runs.empty() || runs.back().type != type) runs.push_back({type, 0});
      ++runs.back().cells;
    };
    std::vector<std::int8_t> types;
    WholeBlock whole;
    if (find_cell_lines_in_parallel(count, types, ids, whole)) {
      if (!whole.connectivity.empty_handle()) {  // every cell read: one block
        mesh_.cells.push_back({std::string(kCellTypes[static_cast<std::size_t>(types[0])].name),
                               std::move(whole.connectivity), {}, {}});
        mesh_.cell_data.set(std::string(detail::kMaterial), {std::move(whole.materials)});
        return;
      }
      for (const std::int8_t type : types) add_to_runs(type);
    } else {
      for (std::int64_t i = 0; i < count; ++i) {
        const LineSpan line = require_line([&] { return "cell " + std::to_string(i + 1) + " of " + std::to_string(count); });
        cell_starts_[static_cast<std::size_t>(i)] = line.begin;
        add_to_runs(cell_type_of(line));
      }
    }
    std::vector<NDArray> materials;
    for (const Run& run : runs) {
      const auto& info = kCellTypes[static_cast<std::size_t>(run.type)];
      mesh_.cells.push_back({std::string(info.name), NDArray::allocate(DType::int64, {run.cells, info.num_nodes}), {}, {}});
      materials.push_back(NDArray::allocate(DType::int64, {run.cells}));
    }
    // Pass 2: ids, materials and corners, mapped from node ids and permuted to meshio's order,
    // on all cores: each cell's line is known from pass 1 (lines_ stays after the section).
    std::vector<std::int64_t> run_first{0};  // cell index of each run's first cell, then count
    for (const Run& run : runs) run_first.push_back(run_first.back() + run.cells);
    io::parallel_ranges(static_cast<std::size_t>(count), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      std::size_t b = static_cast<std::size_t>(
          std::upper_bound(run_first.begin(), run_first.end(), static_cast<std::int64_t>(first)) - run_first.begin() - 1);
      for (std::size_t cell = first; cell < last; ++cell) {
        while (static_cast<std::int64_t>(cell) >= run_first[b + 1]) ++b;
        read_cell(cell, runs[b].type, cell - static_cast<std::size_t>(run_first[b]), ids, mesh_.cells[b], materials[b]);
      }
    });
    mesh_.cell_data.set(std::string(detail::kMaterial), std::move(materials));
  }

  // The significant part of the line starting at `begin` (a cell line pass 1 found).
  LineSpan line_from(std::size_t begin) const {
    const char* const end = doc_.data() + doc_.size();
    const char* newline = io::find_newline(doc_.data() + begin, end);
    std::size_t stop = newline != nullptr ? static_cast<std::size_t>(newline - doc_.data()) : doc_.size();
    while (stop > begin && io::is_space(doc_[stop - 1])) --stop;
    return {begin, stop};
  }

  // The cell on [first, last) when it is plainly written ("id material type n1 …", every node
  // defined, nothing after): its id, material and corners (meshio's order); false for anything
  // else, which the scanner path then reads and words the error for.
  bool read_plain_cell(const char* first, const char* last, const detail::UcdCellType& info, std::int64_t& id,
                       std::int64_t& material, std::int64_t* corners) const {
    io::LineValues values(first, last, doc_.data() + doc_.size());
    std::int64_t file_order[8];
    std::int64_t file_id = 0, file_material = 0;
    if (!values.next(file_id) || !values.next(file_material) || !values.skip_tokens(1)) return false;
    for (int k = 0; k < info.num_nodes; ++k) {
      std::int64_t node = 0;
      if (!values.next(node) || (file_order[k] = node_ids_.find(node)) < 0) return false;
    }
    if (!values.done()) return false;
    id = file_id;
    material = file_material;
    for (int k = 0; k < info.num_nodes; ++k) corners[k] = file_order[info.from_ucd[k]];
    return true;
  }

  void read_cell(std::size_t cell, int type, std::size_t row, std::vector<std::int64_t>& ids, CellBlock& block,
                 NDArray& materials) const {
    const auto& info = kCellTypes[static_cast<std::size_t>(type)];
    std::int64_t file_order[8];
    const LineSpan line = line_from(cell_starts_[cell]);
    // Plainly written cells (every node defined) without the scanner; the rest through it.
    if (read_plain_cell(doc_.data() + line.begin, doc_.data() + line.end, info, ids[cell],
                        materials.data_as<std::int64_t>()[row], block.connectivity.data_as<std::int64_t>() + row * info.num_nodes))
      return;
    io::TextScanner s = scanner(line);
    ids[cell] = s.next_number<std::int64_t>();
    materials.data_as<std::int64_t>()[row] = s.next_number<std::int64_t>();
    s.next_token();
    for (int k = 0; k < info.num_nodes; ++k) {
      s.skip_whitespace();
      const std::size_t offset = s.position();
      if (s.at_end())
        s.fail("cell id " + std::to_string(ids[cell]) + " (" + std::string(info.ucd_name) + ") needs " +
               std::to_string(info.num_nodes) + " nodes, found " + std::to_string(k));
      const std::int64_t id = s.next_number<std::int64_t>();
      file_order[k] = node_ids_.find(id);
      if (file_order[k] < 0) s.fail_at(offset, "cell refers to node id " + std::to_string(id) + ", which is not defined");
    }
    expect_line_end(s, [&] {
      return "the " + std::to_string(info.num_nodes) + " nodes of a '" + std::string(info.ucd_name) + "' cell";
    });
    std::int64_t* corners = block.connectivity.data_as<std::int64_t>() + row * info.num_nodes;
    for (int k = 0; k < info.num_nodes; ++k) corners[k] = file_order[info.from_ucd[k]];
  }

  // ---- data blocks ----

  // One node or cell data block: its fields as (entities,) or (entities, k) float64 arrays.
  std::vector<std::pair<std::string, NDArray>> read_data(std::int64_t entities, std::int64_t components,
                                                          const IdMap& ids, const std::string& what) {
    const LineSpan sizes_line = require_line("the " + what + " data field count");
    io::TextScanner s = scanner(sizes_line);
    const std::int64_t fields = s.next_number<std::int64_t>();
    // Each field's width takes at least two bytes of this line: a larger count is corrupt
    // (checked before the widths are allocated).
    const auto line_room = static_cast<std::int64_t>((sizes_line.end - sizes_line.begin) / 2);
    if (fields < 1 || fields > components || fields > line_room)
      fail_at(sizes_line.begin, "the " + what + " data block announces " + std::to_string(fields) + " fields for " +
                                    std::to_string(components) + " components");
    std::vector<std::int64_t> widths(static_cast<std::size_t>(fields));
    std::int64_t total = 0;
    for (std::int64_t& width : widths) {
      s.skip_whitespace();
      const std::size_t offset = s.position();
      width = s.next_number<std::int64_t>();
      // width <= components - total keeps the sum from overflowing (and from passing components).
      if (width < 1 || width > components - total) fail_at(offset, "invalid component count " + std::to_string(width));
      total += width;
    }
    expect_line_end(s, "the component counts");
    if (total != components)
      fail_at(sizes_line.begin, "the " + what + " data fields have " + std::to_string(total) +
                                    " components in all, the header says " + std::to_string(components));

    // Every row is an id and `components` values of at least two bytes each: a claim the rest
    // of the file cannot hold is refused before the arrays are allocated.
    const std::uint64_t bytes_left = doc_.size() - lines_.position() + 1;
    if (entities > 0 && static_cast<std::uint64_t>(components) > bytes_left / 2)
      fail_at(sizes_line.begin, "the header announces " + std::to_string(components) + " " + what +
                                    " data components per row, more than the rest of the file can hold");
    check_room(entities, 2 * (components + 1), what + " data rows", sizes_line.begin);
    std::vector<std::pair<std::string, NDArray>> out;
    std::vector<double*> columns;
    for (std::int64_t f = 0; f < fields; ++f) {
      const LineSpan label_line = require_line("the label of " + what + " data field " + std::to_string(f + 1));
      std::string_view label = doc_.substr(label_line.begin, label_line.end - label_line.begin);
      label = label.substr(0, label.find(','));
      while (!label.empty() && io::is_space(label.back())) label.remove_suffix(1);
      std::string name(label);
      std::replace(name.begin(), name.end(), ' ', '_');
      const std::int64_t width = widths[static_cast<std::size_t>(f)];
      NDArray array = width == 1 ? NDArray::allocate(DType::float64, {entities})
                                 : NDArray::allocate(DType::float64, {entities, width});
      // A row listed twice leaves another unset: NaN rather than uninitialised memory.
      std::fill_n(array.data_as<double>(), array.size(), std::numeric_limits<double>::quiet_NaN());
      columns.push_back(array.data_as<double>());
      out.emplace_back(std::move(name), std::move(array));
    }
    for (std::int64_t row = 0; row < entities; ++row) {
      const LineSpan line = require_line([&] { return what + " data row " + std::to_string(row + 1) + " of " + std::to_string(entities); });
      io::TextScanner r = scanner(line);
      const std::int64_t id = r.next_number<std::int64_t>();
      const std::int64_t position = ids.find(id);
      if (position < 0) fail_at(line.begin, what + " data row for " + what + " id " + std::to_string(id) + ", which is not defined");
      for (std::size_t f = 0; f < columns.size(); ++f) {
        const std::int64_t width = widths[f];
        r.next_numbers(columns[f] + position * width, static_cast<std::size_t>(width));
      }
      expect_line_end(r, [&] { return "the " + std::to_string(components) + " values of a " + what + " data row"; });
    }
    return out;
  }

  std::vector<NDArray> split_by_block(const NDArray& array) const {
    if (mesh_.cells.size() == 1) return {array};
    std::vector<NDArray> parts;
    const std::int64_t width = array.row_width();
    const double* values = array.data_as<double>();
    for (const CellBlock& block : mesh_.cells) {
      Shape shape = array.shape();
      shape[0] = block.num_cells();
      NDArray part = NDArray::allocate(DType::float64, shape);
      std::copy_n(values, part.size(), part.data_as<double>());
      values += block.num_cells() * width;
      parts.push_back(std::move(part));
    }
    return parts;
  }

  std::string_view doc_;
  const std::string& path_;
  io::TextScanner lines_;
  IdMap node_ids_, cell_ids_;
  std::vector<std::size_t> node_starts_, cell_starts_;
  Mesh mesh_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::avsucd
