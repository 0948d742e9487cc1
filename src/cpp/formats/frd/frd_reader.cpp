// CalculiX result file (.frd) reader.
//
// An .frd file is a sequence of fixed-column records (CalculiX GraphiX manual, "Result Format"),
// each line's first five columns a key and the sixth a code letter:
//   "    1C", "    1U…"   model and user headers: passed over.
//   "    2C" NUMNOD (columns 25-36), FORMAT (the rest: 0 short, 1 long, 2/3 binary: then
//                          NUMNOD records int32 node + 3 float32 (2) / float64 (3), no -3; the
//                          element and result blocks alike: int32 number, type, group,
//                          material + int32 nodes; int32 node + the stored components)
//                          then " -1" + node number (I5 short, I10 long) + X Y Z (E12.5 each),
//                          closed by " -3" -> points, in file order.
//   "    3C" NUMELEM, FORMAT
//                          then per element " -1" + number, type, group, material (I5 each
//                          after the number) and " -2" lines of node numbers (15 short / 10 long
//                          a line) -> cells by type (frd.hpp), frd:group / frd:material cell data.
//   "    1P…"              step parameters (PSTEP, PHID, PMODE …): passed over.
//   "  100C" SETNAME, VALUE (columns 13-24), NUMNOD, TEXT, ICTYPE, NUMSTP (59-63), ANALYS, FORMAT
//                          then " -4" NAME (columns 6-13), NCOMPS, IRTYPE; NCOMPS " -5" lines
//                          NAME, MENU, ICTYPE, ICIND1, ICIND2, IEXIST (IEXIST 1: computed by
//                          cgx, e.g. ALL, not in the data); then " -1" + node + up to 6 values
//                          (E12.5), " -2" lines with the next 6, closed by " -3".
//                          -> one point-data array of one step (frd.hpp: steps).
//   " 9999"                end of data.
// Reals are Fortran's E12.5, "1.23456+100" (no E) and NaN/Inf included. Only the first nodal and
// element blocks are read (ccx writes the mesh once); later ones are passed over. Opening a time
// series scans the whole file once (block positions, step table); each step's arrays are read
// when asked for.
// Speed: ASCII nodal, element and result blocks laid out as ccx writes them (one record a
// line; an element's nodes on one " -2" line, one type, numeric materials; result nodes in
// increasing order) are parsed on all cores (io::parse_lines_in_parallel); any other layout
// goes to the sequential loops, which word the errors. read() moves the mesh out of the
// series reader instead of copying it.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/frd/frd.hpp"
#include "io/cells/id_map.hpp"
#include "io/cells/node_orders.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/source/uninitialized.hpp"
#include "io/text/fortran_fields.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::frd {
namespace {

constexpr std::string_view kFormat = "frd";

struct ElementType {
  std::string_view cell;
  int nodes = 0;
};
// frd element type 1..12 (CalculiX GraphiX manual, element types).
constexpr ElementType kTypes[13] = {{"", 0},         {"hexahedron", 8}, {"wedge", 6},     {"tetra", 4},
                                    {"hexahedron20", 20}, {"wedge15", 15}, {"tetra10", 10}, {"triangle", 3},
                                    {"triangle6", 6}, {"quad", 4},       {"quad8", 8},     {"line", 2},
                                    {"line3", 3}};

struct Line {
  std::string_view text;
  std::size_t offset = 0;
};

struct Result {
  double value = 0;
  std::int64_t step = 0;
  std::string name;
  std::vector<std::string> components;  // the ones the data holds
  int id_width = 10;
  int real_bytes = 0;  // binary blocks: 4 (flag 2) or 8 (flag 3); 0: ASCII
  std::size_t data_begin = 0, data_end = 0;
};

struct Step {
  double time = 0;
  std::int64_t number = 0;
  std::vector<std::size_t> results;
};

// What opening reads: the mesh, the node numbering, the result blocks and their steps.
struct Structure {
  std::string path;
  std::unique_ptr<io::MappedFile> file;
  std::string_view text;
  Mesh mesh;
  io::IdMap nodes;
  std::int64_t num_points = 0;  // mesh.points' rows, kept when read() moves the mesh out
  std::vector<Result> results;
  std::vector<Step> steps;
  // Material numbers and names: "    1UMAT    1ALUM" header lines, and names written in an
  // element's material field (fluid elements: "WATER") numbered after them.
  std::vector<std::pair<std::int64_t, std::string>> materials;

  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    throw ReadError(path, std::string(kFormat), message, offset, io::line_of_offset(text, offset));
  }
};

class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool next(Line& line) {
    if (pos_ >= text_.size()) return false;
    const char* const newline = io::find_newline(text_.data() + pos_, text_.data() + text_.size());
    const std::size_t end = newline ? static_cast<std::size_t>(newline - text_.data()) : text_.size();
    std::size_t stop = end;
    if (stop > pos_ && text_[stop - 1] == '\r') --stop;
    line = {text_.substr(pos_, stop - pos_), pos_};
    pos_ = newline ? end + 1 : text_.size();
    return true;
  }
  std::size_t position() const noexcept { return pos_; }
  std::size_t bytes_left() const noexcept { return text_.size() - pos_; }
  void seek(std::size_t position) noexcept { pos_ = std::min(position, text_.size()); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

bool starts(std::string_view line, std::string_view key) { return line.substr(0, key.size()) == key; }

// " -1", " -2" …: the record key of a data line (0 when it has none).
int record_key(std::string_view line) {
  const std::string_view key = io::trim_blanks(line.substr(0, 3));
  if (key.size() == 2 && key[0] == '-' && key[1] >= '1' && key[1] <= '5') return key[1] - '0';
  return 0;
}

// The integer field [begin, begin + width) of `text` (blank: 0); false when it is none.
bool parse_integer_field(std::string_view text, std::size_t begin, std::size_t width, std::int64_t& value) noexcept {
  if (begin < text.size()) {
    const char* const p = text.data() + begin;
    if (io::plain_fixed_integer(p, p + std::min(width, text.size() - begin), value)) return true;
  }
  return io::fortran_integer(io::fixed_field(text, begin, width), value);
}

std::int64_t integer_field(const Structure& s, const Line& line, std::size_t begin, std::size_t width, std::string_view what) {
  std::int64_t value = 0;
  if (!parse_integer_field(line.text, begin, width, value))
    s.fail(line.offset + begin, "invalid " + std::string(what) + " '" + std::string(io::fixed_field(line.text, begin, width)) + "'");
  return value;
}

// Line [from, to) of the file without a '\r' before its break (as Lines::next gives it).
std::string_view line_at(std::string_view text, std::size_t from, std::size_t to) noexcept {
  if (to > from && text[to - 1] == '\r') --to;
  return text.substr(from, to - from);
}

// Whether the line starting at `offset` closes its block (" -3").
bool closes_block_at(std::string_view text, std::size_t offset) noexcept {
  if (offset >= text.size()) return false;
  const std::size_t newline = text.find('\n', offset);
  return record_key(line_at(text, offset, newline == std::string_view::npos ? text.size() : newline)) == 3;
}

double real_field(const Structure& s, const Line& line, std::size_t begin, std::string_view what) {
  double value = 0;
  const std::string_view text = io::fixed_field(line.text, begin, 12);
  if (!io::fortran_real(text, value)) s.fail(line.offset + begin, "invalid " + std::string(what) + " '" + std::string(text) + "'");
  return value;
}

// A block's FORMAT flag (the header's text from `column` on): 0 short ASCII (I5 ids), 1 long
// (I10), 2 binary with float32 reals, 3 binary with float64 (int32 ids and node numbers).
int format_flag(const Structure& s, const Line& line, std::size_t column, bool result_block) {
  const std::string_view flag = io::fixed_field(line.text, column, std::string_view::npos);
  if (flag.empty() && result_block) return 1;
  if (flag.size() == 1 && flag[0] >= '0' && flag[0] <= '3') return flag[0] - '0';
  s.fail(line.offset, "unknown format flag '" + std::string(flag) + "' (0 short, 1 long, 2/3 binary)");
}
int id_width(int flag) { return flag == 0 ? 5 : 10; }

// Little-endian int32 / float32 / float64 of a binary block (ccx writes its host's order: x86).
std::int64_t int32_at(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return static_cast<std::int32_t>(v);
}
double real_at(const char* p, int bytes) {
  if (bytes == 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    return std::bit_cast<double>(v);
  }
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return static_cast<double>(std::bit_cast<float>(v));
}

// `count` records of `each` bytes from the current position must be in the file.
void require_bytes(const Structure& s, const Lines& lines, const Line& header, std::uint64_t count, std::uint64_t each,
                   std::string_view what) {
  const std::optional<std::uint64_t> bytes = io::checked_product(count, each);
  if (!bytes || *bytes > lines.bytes_left())
    s.fail(header.offset, "binary " + std::string(what) + " of " + std::to_string(count) + " records runs past the end of the file");
}

void skip_block(Lines& lines) {
  Line line;
  while (lines.next(line))
    if (record_key(line.text) == 3) return;
}

// An ASCII nodal block of `claimed` one-line records closed by " -3" — what ccx writes — on
// all cores; false, with nothing read, for anything else (the sequential loop words errors).
bool read_nodes_in_parallel(const Structure& s, Lines& lines, std::int64_t claimed, std::size_t w, std::vector<std::int64_t>& ids,
                            std::vector<double>& xyz) {
  if (claimed < 2) return false;
  const auto count = static_cast<std::size_t>(claimed);
  ids.resize(count);
  xyz.resize(3 * count);
  const std::optional<std::size_t> end =
      io::parse_lines_in_parallel(s.text, lines.position(), count, [&](std::uint64_t i, std::size_t from, std::size_t to) {
        const std::string_view text = line_at(s.text, from, to);
        if (record_key(text) != 1 || !parse_integer_field(text, 3, w, ids[i])) return false;
        for (std::size_t axis = 0; axis < 3; ++axis)
          if (!io::fortran_real(io::fixed_field(text, 3 + w + 12 * axis, 12), xyz[3 * i + axis])) return false;
        return true;
      });
  if (!end || !closes_block_at(s.text, *end)) {
    ids.clear();
    xyz.clear();
    return false;
  }
  lines.seek(*end);
  Line closing;
  lines.next(closing);
  return true;
}

void read_nodes(Structure& s, Lines& lines, const Line& header, std::vector<std::int64_t>& ids, std::vector<double>& xyz) {
  const int flag = format_flag(s, header, 36, false);
  const int w = id_width(flag);
  const std::int64_t claimed = integer_field(s, header, 24, 12, "node count");
  if (flag >= 2) {  // int32 id + 3 reals per node, no line breaks, no closing -3
    const int real_bytes = flag == 3 ? 8 : 4;
    const std::uint64_t each = 4 + 3 * static_cast<std::uint64_t>(real_bytes);
    if (claimed < 0) s.fail(header.offset, "negative node count");
    require_bytes(s, lines, header, static_cast<std::uint64_t>(claimed), each, "nodal block");
    const char* p = s.text.data() + lines.position();
    ids.reserve(static_cast<std::size_t>(claimed));
    xyz.reserve(static_cast<std::size_t>(claimed) * 3);
    for (std::int64_t k = 0; k < claimed; ++k, p += each) {
      ids.push_back(int32_at(p));
      for (int axis = 0; axis < 3; ++axis) xyz.push_back(real_at(p + 4 + axis * real_bytes, real_bytes));
    }
    lines.seek(lines.position() + static_cast<std::size_t>(claimed) * each);
    return;
  }
  if (claimed > 0) {
    io::check_claim(s.path, kFormat, "nodes", static_cast<std::uint64_t>(claimed), 3 + static_cast<std::uint64_t>(w) + 36,
                    lines.bytes_left(), 32, {header.offset, io::line_of_offset(s.text, header.offset)});
    if (read_nodes_in_parallel(s, lines, claimed, static_cast<std::size_t>(w), ids, xyz)) return;
    ids.reserve(static_cast<std::size_t>(claimed));
    xyz.reserve(static_cast<std::size_t>(claimed) * 3);
  }
  Line line;
  while (lines.next(line)) {
    const int key = record_key(line.text);
    if (key == 3) return;
    if (key != 1) s.fail(line.offset, "expected a node record ' -1' or the block's end ' -3'");
    ids.push_back(integer_field(s, line, 3, static_cast<std::size_t>(w), "node number"));
    for (int axis = 0; axis < 3; ++axis)
      xyz.push_back(real_field(s, line, 3 + static_cast<std::size_t>(w) + 12 * static_cast<std::size_t>(axis), "coordinate"));
  }
  s.fail(header.offset, "unexpected end of file inside the nodal block that starts here");
}

// One element type's cells as read, node indices in meshio's order.
struct BuiltBlock {
  int type = 0;
  io::UninitializedVector<std::int64_t> connectivity, group, material;  // the parallel pass sizes, then fills them
};

// An ASCII element block of `claimed` elements of one type, each a " -1" line and one " -2"
// line holding all its nodes, with numeric materials, closed by " -3" — what ccx writes — on
// all cores into `blocks` (one block); false, with nothing read, for anything else: the
// sequential loop then reads the block and words any error.
bool read_elements_in_parallel(const Structure& s, Lines& lines, std::int64_t claimed, std::size_t w, std::vector<BuiltBlock>& blocks) {
  if (claimed < 2) return false;
  const std::size_t begin = lines.position();
  const std::size_t first_newline = s.text.find('\n', begin);
  if (first_newline == std::string_view::npos) return false;
  std::int64_t type = 0;
  if (!parse_integer_field(line_at(s.text, begin, first_newline), 3 + w, 5, type) || type < 1 || type > 12) return false;
  const ElementType& kind = kTypes[type];
  const auto nodes = static_cast<std::size_t>(kind.nodes);
  const std::span<const std::int8_t> order = io::vertical_edges_before_top_order(kind.cell);
  const auto count = static_cast<std::size_t>(claimed);
  BuiltBlock block{static_cast<int>(type), {}, {}, {}};
  block.connectivity.resize(count * nodes);
  block.group.resize(count);
  block.material.resize(count);
  const std::optional<std::size_t> end =
      io::parse_lines_in_parallel(s.text, begin, 2 * count, [&](std::uint64_t line, std::size_t from, std::size_t to) {
        const std::string_view text = line_at(s.text, from, to);
        const std::size_t e = line / 2;
        if (line % 2 == 0) {
          const std::size_t at = 3 + w;
          std::int64_t number = 0, this_type = 0;
          return record_key(text) == 1 && parse_integer_field(text, 3, w, number) && parse_integer_field(text, at, 5, this_type) &&
                 this_type == type && parse_integer_field(text, at + 5, 5, block.group[e]) &&
                 io::fortran_integer(io::fixed_field(text, at + 10, std::string_view::npos), block.material[e]);
        }
        if (record_key(text) != 2) return false;
        std::int64_t read[20];
        for (std::size_t k = 0; k < nodes; ++k) {
          const std::size_t column = 3 + k * w;
          std::int64_t id = 0;
          if (column >= text.size() || !parse_integer_field(text, column, w, id)) return false;
          read[k] = s.nodes.find(id);
          if (read[k] < 0) return false;
        }
        std::int64_t* const row = block.connectivity.data() + e * nodes;
        for (std::size_t k = 0; k < nodes; ++k) row[k] = read[order.empty() ? k : static_cast<std::size_t>(order[k])];
        return true;
      });
  if (!end || !closes_block_at(s.text, *end)) return false;
  blocks.push_back(std::move(block));
  lines.seek(*end);
  return true;
}

void read_elements(Structure& s, Lines& lines, const Line& header) {
  const int flag = format_flag(s, header, 36, false);
  const int w = id_width(flag);
  const std::int64_t claimed = integer_field(s, header, 24, 12, "element count");
  if (claimed > 0)
    io::check_claim(s.path, kFormat, "elements", static_cast<std::uint64_t>(claimed), 20, lines.bytes_left(), 176,
                    {header.offset, io::line_of_offset(s.text, header.offset)});
  using Built = BuiltBlock;
  std::vector<Built> blocks;
  if (flag < 2 && claimed > 0) read_elements_in_parallel(s, lines, claimed, static_cast<std::size_t>(w), blocks);
  std::int64_t nodes_read[20];
  // One element of `type` whose nodes are in nodes_read, into its block.
  const auto add = [&](std::int64_t type, std::int64_t group, std::int64_t material) {
    const ElementType& kind = kTypes[type];
    auto it = std::find_if(blocks.begin(), blocks.end(), [&](const Built& b) { return b.type == type; });
    if (it == blocks.end()) {
      blocks.push_back({static_cast<int>(type), {}, {}, {}});
      it = blocks.end() - 1;
      if (blocks.size() == 1 && claimed > 0) {  // most files hold one type: its arrays at once
        it->connectivity.reserve(static_cast<std::size_t>(claimed) * static_cast<std::size_t>(kind.nodes));
        it->group.reserve(static_cast<std::size_t>(claimed));
        it->material.reserve(static_cast<std::size_t>(claimed));
      }
    }
    const std::span<const std::int8_t> order = io::vertical_edges_before_top_order(kind.cell);
    for (int k = 0; k < kind.nodes; ++k) it->connectivity.push_back(nodes_read[order.empty() ? k : order[static_cast<std::size_t>(k)]]);
    it->group.push_back(group);
    it->material.push_back(material);
  };
  Line line;
  if (flag >= 2) {  // per element int32 number, type, group, material, then its int32 node numbers
    if (claimed < 0) s.fail(header.offset, "negative element count");
    for (std::int64_t e = 0; e < claimed; ++e) {
      require_bytes(s, lines, header, 1, 16, "element block");
      const char* p = s.text.data() + lines.position();
      const std::int64_t number = int32_at(p), type = int32_at(p + 4), group = int32_at(p + 8), material = int32_at(p + 12);
      if (type < 1 || type > 12)
        s.fail(lines.position(), "element " + std::to_string(number) + " has unknown type " + std::to_string(type));
      const int nodes = kTypes[type].nodes;
      lines.seek(lines.position() + 16);
      require_bytes(s, lines, header, static_cast<std::uint64_t>(nodes), 4, "element block");
      p = s.text.data() + lines.position();
      for (int k = 0; k < nodes; ++k) {
        const std::int64_t id = int32_at(p + 4 * k);
        const std::int64_t index = s.nodes.find(id);
        if (index < 0)
          s.fail(lines.position() + 4 * static_cast<std::size_t>(k), "element " + std::to_string(number) + " names node " +
                                                                         std::to_string(id) + ", which the nodal block does not define");
        nodes_read[k] = index;
      }
      lines.seek(lines.position() + 4 * static_cast<std::size_t>(nodes));
      add(type, group, material);
    }
  }
  while (flag < 2 && lines.next(line)) {
    const int key = record_key(line.text);
    if (key == 3) break;
    if (key != 1) s.fail(line.offset, "expected an element record ' -1' or the block's end ' -3'");
    const std::size_t at = 3 + static_cast<std::size_t>(w);
    const std::int64_t number = integer_field(s, line, 3, static_cast<std::size_t>(w), "element number");
    const std::int64_t type = integer_field(s, line, at, 5, "element type");
    const std::int64_t group = integer_field(s, line, at + 5, 5, "element group");
    std::int64_t material = 0;
    const std::string_view material_text = io::fixed_field(line.text, at + 10, std::string_view::npos);
    if (!io::fortran_integer(material_text, material)) {
      auto known = std::find_if(s.materials.begin(), s.materials.end(), [&](const auto& m) { return m.second == material_text; });
      if (known == s.materials.end()) {
        std::int64_t next = 1;
        for (const auto& m : s.materials) next = std::max(next, m.first + 1);
        s.materials.emplace_back(next, std::string(material_text));
        known = s.materials.end() - 1;
      }
      material = known->first;
    }
    if (type < 1 || type > 12) s.fail(line.offset, "element " + std::to_string(number) + " has unknown type " + std::to_string(type));
    const int needed = kTypes[type].nodes;
    int count = 0;
    const Line record = line;
    while (count < needed) {
      if (!lines.next(line)) s.fail(record.offset, "unexpected end of file inside the element that starts here");
      if (record_key(line.text) != 2)
        s.fail(line.offset, "element " + std::to_string(number) + " needs " + std::to_string(needed) +
                                " nodes; expected a ' -2' line of node numbers");
      for (std::size_t column = 3; column < line.text.size() && count < needed; column += static_cast<std::size_t>(w)) {
        const std::int64_t id = integer_field(s, line, column, static_cast<std::size_t>(w), "node number");
        const std::int64_t index = s.nodes.find(id);
        if (index < 0)
          s.fail(line.offset + column, "element " + std::to_string(number) + " names node " + std::to_string(id) +
                                           ", which the nodal block does not define");
        nodes_read[count++] = index;
      }
    }
    add(type, group, material);
  }
  const auto column = [](const io::UninitializedVector<std::int64_t>& values) {
    NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
    return array;
  };
  std::vector<NDArray> groups, materials;
  for (const Built& block : blocks) {
    const ElementType& kind = kTypes[block.type];
    CellBlock cells;
    cells.type = std::string(kind.cell);
    cells.connectivity = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(block.group.size()), kind.nodes});
    io::copy_in_parallel(cells.connectivity.data_as<std::int64_t>(), block.connectivity.data(), block.connectivity.size() * sizeof(std::int64_t));
    s.mesh.cells.push_back(std::move(cells));
    groups.push_back(column(block.group));
    materials.push_back(column(block.material));
  }
  if (!blocks.empty()) {
    s.mesh.cell_data.append_new("frd:group", std::move(groups));
    s.mesh.cell_data.append_new("frd:material", std::move(materials));
  }
}

void read_result_header(Structure& s, Lines& lines, const Line& header) {
  Result result;
  result.value = real_field(s, header, 12, "result value");
  result.step = integer_field(s, header, 58, 5, "step number");
  const int flag = format_flag(s, header, 73, true);
  result.id_width = id_width(flag);
  const std::int64_t entries = integer_field(s, header, 24, 12, "result node count");
  Line line;
  if (!lines.next(line) || record_key(line.text) != 4) s.fail(header.offset, "a result block needs its ' -4' line");
  result.name = std::string(io::fixed_field(line.text, 5, 8));
  if (result.name.empty()) s.fail(line.offset, "result block without a name");
  const std::int64_t ncomps = integer_field(s, line, 13, 5, "component count");
  if (ncomps < 1 || ncomps > 1000) s.fail(line.offset, "result " + result.name + " has " + std::to_string(ncomps) + " components");
  for (std::int64_t c = 0; c < ncomps; ++c) {
    if (!lines.next(line) || record_key(line.text) != 5)
      s.fail(line.offset, "result " + result.name + " needs " + std::to_string(ncomps) + " ' -5' component lines");
    // MENU ICTYPE ICIND1 ICIND2 IEXIST[ICNAME] by blanks, not columns: some ccx versions put a
    // tab in these fields. IEXIST 1: a component cgx computes itself (ALL), not in the data.
    std::vector<std::string_view> tokens;
    std::string_view rest = line.text.size() > 13 ? line.text.substr(13) : std::string_view();
    while (!rest.empty()) {
      const std::size_t begin = rest.find_first_not_of(" \t\r");
      if (begin == std::string_view::npos) break;
      const std::size_t end = rest.find_first_of(" \t\r", begin);
      tokens.push_back(rest.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    }
    const bool computed = tokens.size() >= 5 && tokens[4].front() == '1' &&
                          (tokens[4].size() == 1 || !std::isdigit(static_cast<unsigned char>(tokens[4][1])));
    if (!computed) result.components.emplace_back(io::fixed_field(line.text, 5, 8));
  }
  if (result.components.empty()) s.fail(line.offset, "result " + result.name + " holds no component");
  result.data_begin = lines.position();
  if (flag >= 2) {  // numnod records: int32 node number + the stored components' reals
    result.real_bytes = flag == 3 ? 8 : 4;
    const std::uint64_t each = 4 + result.components.size() * static_cast<std::uint64_t>(result.real_bytes);
    if (entries < 0) s.fail(header.offset, "negative result node count");
    require_bytes(s, lines, header, static_cast<std::uint64_t>(entries), each, "result block");
    result.data_end = result.data_begin + static_cast<std::size_t>(entries) * each;
    lines.seek(result.data_end);
    s.results.push_back(std::move(result));
    return;
  }
  while (lines.next(line))
    if (record_key(line.text) == 3) {
      result.data_end = line.offset;
      s.results.push_back(std::move(result));
      return;
    }
  s.fail(header.offset, "unexpected end of file inside the result block that starts here");
}

std::shared_ptr<Structure> open(const std::string& path) {
  auto s = std::make_shared<Structure>();
  s->path = path;
  s->file = std::make_unique<io::MappedFile>(path, kFormat);
  s->text = s->file->bytes();
  io::reject_empty_file(s->text, path, kFormat);
  Lines lines(s->text);
  Line line;
  bool have_nodes = false, have_elements = false;
  std::vector<std::int64_t> ids;
  std::vector<double> xyz;
  while (lines.next(line)) {
    if (starts(line.text, "    2C")) {
      if (have_nodes) {
        skip_block(lines);
        continue;
      }
      read_nodes(*s, lines, line, ids, xyz);
      if (const auto repeated = s->nodes.build(ids))
        s->fail(line.offset, "node " + std::to_string(ids[*repeated]) + " is defined twice in the nodal block that starts here");
      s->mesh.points = NDArray::allocate(DType::float64, {static_cast<std::int64_t>(ids.size()), 3});
      std::copy(xyz.begin(), xyz.end(), s->mesh.points.data_as<double>());
      s->num_points = static_cast<std::int64_t>(ids.size());
      have_nodes = true;
    } else if (starts(line.text, "    3C")) {
      if (!have_nodes) s->fail(line.offset, "an element block before the nodal block");
      if (have_elements) {
        skip_block(lines);
        continue;
      }
      read_elements(*s, lines, line);
      have_elements = true;
    } else if (starts(line.text, "  100C")) {
      if (!have_nodes) s->fail(line.offset, "a result block before the nodal block");
      read_result_header(*s, lines, line);
    } else if (starts(line.text, "    1UMAT")) {
      std::int64_t number = 0;
      if (io::fortran_integer(io::fixed_field(line.text, 9, 5), number))
        s->materials.emplace_back(number, std::string(io::fixed_field(line.text, 14, std::string_view::npos)));
    } else if (starts(line.text, " 9999")) {
      break;
    }
  }
  if (!have_nodes) s->fail(0, "no nodal block (2C): not a CalculiX .frd file");
  // Steps: runs of blocks with one step number and value (a name seen again starts a new one).
  for (std::size_t r = 0; r < s->results.size(); ++r) {
    const Result& result = s->results[r];
    bool same = !s->steps.empty() && s->steps.back().number == result.step && s->steps.back().time == result.value;
    if (same)
      for (std::size_t other : s->steps.back().results) same = same && s->results[other].name != result.name;
    if (!same) s->steps.push_back({result.value, result.step, {}});
    s->steps.back().results.push_back(r);
  }
  return s;
}

// An ASCII result block of one " -1" line per node holding all its values, nodes in
// increasing order (what ccx writes) on all cores into `out` (rows x c); false when the
// block is laid out otherwise (continuation lines, nodes passed over, blank lines, nodes out
// of order): the sequential loop then fills `out` again and words any error.
bool read_result_in_parallel(const Structure& s, const Result& result, std::int64_t c, double* out) {
  const std::size_t w = static_cast<std::size_t>(result.id_width);
  const auto values = static_cast<std::size_t>(c);
  if (values == 0 || values > 6) return false;
  const std::uint64_t records = io::count_newlines(s.text.data() + result.data_begin, s.text.data() + result.data_end);
  std::vector<std::int64_t> rows(records);
  const std::optional<std::size_t> end =
      io::parse_lines_in_parallel(s.text, result.data_begin, records, [&](std::uint64_t i, std::size_t from, std::size_t to) {
        const std::string_view text = line_at(s.text, from, to);
        std::int64_t id = 0;
        if (record_key(text) != 1 || !parse_integer_field(text, 3, w, id)) return false;
        const std::int64_t row = s.nodes.find(id);
        if (row < 0 || 3 + w + 12 * (values - 1) >= text.size()) return false;
        for (std::size_t k = 0; k < values; ++k)
          if (!io::fortran_real(io::fixed_field(text, 3 + w + 12 * k, 12), out[static_cast<std::size_t>(row) * values + k])) return false;
        rows[i] = row;
        return true;
      });
  // Increasing rows: no node written twice (where the sequential loop's last line would win).
  return end && *end == result.data_end && std::adjacent_find(rows.begin(), rows.end(), std::greater_equal<>()) == rows.end();
}

NDArray read_result(const Structure& s, const Result& result) {
  const std::int64_t n = s.num_points;
  const std::int64_t c = static_cast<std::int64_t>(result.components.size());
  NDArray values = c == 1 ? NDArray::allocate(DType::float64, {n}) : NDArray::allocate(DType::float64, {n, c});
  double* out = values.data_as<double>();
  std::fill_n(out, static_cast<std::size_t>(n * c), std::numeric_limits<double>::quiet_NaN());
  if (result.real_bytes != 0) {
    const std::size_t each = 4 + static_cast<std::size_t>(c) * static_cast<std::size_t>(result.real_bytes);
    for (std::size_t at = result.data_begin; at + each <= result.data_end; at += each) {
      const std::int64_t row = s.nodes.find(int32_at(s.text.data() + at));
      if (row < 0) continue;  // a node without coordinates: passed over, as in ASCII blocks
      for (std::int64_t k = 0; k < c; ++k)
        out[row * c + k] = real_at(s.text.data() + at + 4 + static_cast<std::size_t>(k) * static_cast<std::size_t>(result.real_bytes), result.real_bytes);
    }
    return values;
  }
  if (read_result_in_parallel(s, result, c, out)) return values;
  std::fill_n(out, static_cast<std::size_t>(n * c), std::numeric_limits<double>::quiet_NaN());  // what the parallel pass left
  const std::string_view rest = s.text.substr(result.data_begin, result.data_end - result.data_begin);
  Lines data(rest);
  Line line;
  const std::size_t w = static_cast<std::size_t>(result.id_width);
  std::int64_t row = -1;
  std::int64_t filled = 0;
  while (data.next(line)) {
    line.offset += result.data_begin;
    const int key = record_key(line.text);
    if (key == 1) {
      if (row >= 0 && filled < c) s.fail(line.offset, "result " + result.name + ": the node before has too few values");
      const std::int64_t id = integer_field(s, line, 3, w, "node number");
      row = s.nodes.find(id);
      filled = 0;
      if (row < 0) {  // a node without coordinates (ccx writes some of its internal ones): passed over
        filled = c;
        continue;
      }
    } else if (key == 2) {
      if (row < 0 && filled == c) continue;  // the continuation of a node passed over
      if (row < 0 || filled >= c) s.fail(line.offset, "result " + result.name + ": a continuation line ' -2' with no values left to hold");
    } else {
      if (io::trim_blanks(line.text).empty()) continue;
      s.fail(line.offset, "result " + result.name + ": expected a ' -1' or ' -2' line");
    }
    for (std::size_t column = 3 + w; column < line.text.size() && filled < c && column - 3 - w < 72; column += 12)
      out[row * c + filled++] = real_field(s, line, column, "value of " + result.name);
  }
  if (row >= 0 && filled < c) s.fail(result.data_end, "result " + result.name + ": the last node has too few values");
  return values;
}

class SeriesReader final : public TimeSeriesReader {
 public:
  explicit SeriesReader(std::shared_ptr<Structure> s) : s_(std::move(s)) {}
  std::size_t num_steps() const override { return s_->steps.size(); }
  double time(std::size_t step) const override {
    if (step >= s_->steps.size()) throw ReadError(s_->path, std::string(kFormat), "time step " + std::to_string(step) + " out of range");
    return s_->steps[step].time;
  }
  Mesh read_mesh() override { return mesh_of(false); }
  // The mesh itself, moved out, for a one-shot read (read()): no copy of its arrays.
  Mesh take_mesh() { return mesh_of(true); }
  Mesh mesh_of(bool take) {
    Mesh mesh;
    if (!s_->materials.empty()) {
      std::vector<std::string> names;
      std::vector<std::int64_t> numbers;
      for (const auto& [number, name] : s_->materials) {
        numbers.push_back(number);
        names.push_back(name);
      }
      NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(numbers.size())});
      std::copy(numbers.begin(), numbers.end(), array.data_as<std::int64_t>());
      mesh.field_data.append_new("frd:material_numbers", std::move(array));
      mesh.string_field_data.append_new("frd:material_names", std::move(names));
    }
    if (take) {
      mesh.points = std::move(s_->mesh.points);
      mesh.cells = std::move(s_->mesh.cells);
      mesh.cell_data = std::move(s_->mesh.cell_data);
      return mesh;
    }
    mesh.points = s_->mesh.points.copy();
    for (const CellBlock& block : s_->mesh.cells) mesh.cells.push_back({block.type, block.connectivity.copy(), {}, {}});
    for (const auto& [name, arrays] : s_->mesh.cell_data) {
      std::vector<NDArray> copies;
      for (const NDArray& array : arrays) copies.push_back(array.copy());
      mesh.cell_data.append_new(name, std::move(copies));
    }
    return mesh;
  }
  TimeStep read_step(std::size_t step) override {
    if (step >= s_->steps.size())
      throw ReadError(s_->path, std::string(kFormat), "time step " + std::to_string(step) + " out of range (the file has " +
                                                           std::to_string(s_->steps.size()) + ")");
    const Step& entry = s_->steps[step];
    TimeStep out;
    out.time = entry.time;
    for (std::size_t r : entry.results) out.point_data.append_new(s_->results[r].name, read_result(*s_, s_->results[r]));
    out.field_data.append_new("frd:step", NDArray::from_values<std::int64_t>({entry.number}));
    return out;
  }
  const Structure& structure() const noexcept { return *s_; }

 private:
  std::shared_ptr<Structure> s_;
};

}  // namespace

std::unique_ptr<TimeSeriesReader> open_time_series(const std::string& path) { return std::make_unique<SeriesReader>(open(path)); }

Mesh read(const std::string& path) {
  SeriesReader reader(open(path));
  Mesh mesh = reader.take_mesh();  // the steps below need only the node numbering and the text
  if (reader.num_steps() == 0) return mesh;
  const std::size_t last = reader.num_steps() - 1;
  TimeStep step = reader.read_step(last);
  mesh.point_data = std::move(step.point_data);
  mesh.field_data.append_new("frd:time", NDArray::from_values<double>({step.time}));
  mesh.field_data.append_new("frd:step", NDArray::from_values<std::int64_t>({reader.structure().steps[last].number}));
  for (std::size_t r : reader.structure().steps[last].results) {
    const Result& result = reader.structure().results[r];
    mesh.string_field_data.append_new("frd:components:" + result.name, result.components);
  }
  return mesh;
}

}  // namespace meshioplusplus::frd
