// code_aster .mail reader (LIRE_MAILLAGE FORMAT='ASTER').
//
// (code_aster's documentation U3.01.00, and its own test meshes, astest/*.mail.)
// Layout: blocks ("sous-fichiers"), each a keyword line — the keyword, then optional
// KEY=VALUE items (NOM=, NBOBJ=, …) that may go on over lines of their own (AUTEUR=, DATE=,
// NUMIN= …: any line holding '=' before the first data line) — then data up to a line
// starting with FINSF; FIN ends the file (anything after it is ignored, as code_aster does),
// also in place of a block's FINSF. Keywords are read in any case ("group_ma", "finsf").
// '%' starts a comment anywhere on a line; code_aster reads the first 80 columns of a line
// only, and so does this reader (the rest is ignored). Data are blank-separated names and numbers that
// may be spread over lines at will (an element's nodes often continue on the next line):
//   TITRE                      free text, skipped;
//   COOR_1D / COOR_2D / COOR_3D  "node-name x [y [z]]" records;
//   POI1 SEG2 SEG3 SEG4 TRIA3 TRIA6 TRIA7 QUAD4 QUAD8 QUAD9 TETRA4 TETRA10 PENTA6 PENTA15
//   PENTA18 HEXA8 HEXA20 HEXA27 PYRAM5 PYRAM13   "element-name node-name …" records;
//   GROUP_NO / GROUP_MA         a group of node / element names, its name given by NOM=
//                               or, in the older forms, by the token after the keyword or
//                               the block's first data token.
// Nodes and elements are known by name only (N1, M12, NB001001 …): io::NameIndex maps them,
// by number when the names share a prefix; a node may be named before its COOR block.
//
// What becomes what (as meshio++ 17.21 reads them): points float64 (n, 1/2/3) in COOR order
// (every COOR block must have the same dimension); one cell block per (non-empty) element block in file
// order, nodes in our order (code_aster's HEXA20/27 and PENTA15/18 number their mid-edge
// nodes vertical edges before top edges, and HEXA27 its face centres differently:
// code_aster_types.hpp); GROUP_NO → Point regions, GROUP_MA → Cell regions (dim: the largest of their
// cells'; members in file order; a group given twice gathers both), named by the group. The
// names of nodes and elements, TITRE and the header items are not kept; other blocks (ANCIEN
// …) are skipped to their FINSF and a FINSF outside a block is passed over, as code_aster does.
// Errors (a block without FINSF, or left open before the next keyword, a name defined twice or
// never, an element short of nodes, a bad number, no COOR block) are ReadErrors with the line
// and byte offset.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/code_aster/code_aster.hpp"
#include "formats/code_aster/code_aster_types.hpp"
#include "io/cells/name_index.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::code_aster {
namespace {

constexpr std::string_view kFormat = "code_aster";
using detail::ElementType;
using io::LineSpan;

struct Token {
  std::string_view text;
  std::size_t offset;
};

struct Pending {  // a node named before its COOR block
  std::size_t block;
  std::int64_t slot;
  Token name;
};

struct Group {
  RegionKind kind;
  std::string name;
  std::vector<Token> members;
};

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// `token` in upper case when it is short enough to be a keyword (into `buffer`), else empty:
// data lines are checked for keywords without allocating.
std::string_view keyword_of(std::string_view token, char (&buffer)[16]) noexcept {
  if (token.size() >= sizeof buffer) return {};
  for (std::size_t i = 0; i < token.size(); ++i)
    buffer[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(token[i])));
  return {buffer, token.size()};
}

// code_aster reads 80 columns of each line (Fortran CHARACTER*80); the rest is ignored.
constexpr std::size_t kColumns = 80;

// The significant lines, cut at column 80 as code_aster cuts them.
class Lines : public io::SignificantLines {
 public:
  Lines(std::string_view document, const std::string& path) : SignificantLines(document, path, kFormat, '%') {}
  std::optional<LineSpan> next() {
    while (std::optional<LineSpan> line = SignificantLines::next()) {
      const std::string_view text = document();
      std::size_t start = line->begin;  // the line's first column
      while (start > 0 && text[start - 1] != '\n') --start;
      if (line->end - start <= kColumns) return line;
      if (line->begin - start >= kColumns) continue;
      line->end = start + kColumns;
      while (line->end > line->begin && io::is_space(text[line->end - 1])) --line->end;
      return line;
    }
    return std::nullopt;
  }
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path), lines_(bytes, path) {}

  Mesh read() {
    while (const std::optional<LineSpan> line = lines_.next()) {
      io::TextScanner scanner = lines_.scanner(*line);
      const std::string_view first = scanner.next_token();
      const std::string keyword = upper(first);
      if (keyword == "FIN") break;
      const LineSpan rest{scanner.position(), line->end};
      if (keyword == "TITRE") {
        skip_block(keyword, *line);
      } else if (keyword == "COOR_1D" || keyword == "COOR_2D" || keyword == "COOR_3D") {
        read_coordinates(keyword[5] - '0', *line, rest);
      } else if (keyword == "GROUP_NO" || keyword == "GROUP_MA") {
        read_group(keyword == "GROUP_NO" ? RegionKind::Point : RegionKind::Cell, keyword, *line, rest);
      } else if (const ElementType* type = detail::type_of_keyword(keyword)) {
        read_elements(*type, *line, rest);
      } else if (keyword != "FINSF") {  // a FINSF outside a block is passed over, as code_aster does
        skip_block(keyword, *line);  // blocks code_aster has and meshes do not need (ANCIEN …)
      }
      if (finished_) break;
    }
    if (dim_ == 0) lines_.fail_at(lines_.position(), "no COOR_1D, COOR_2D or COOR_3D block: the mesh has no nodes");
    return finish();
  }

 private:
  // ---- blocks ----

  // The NOM= item of a header, if any ("NOM=X", "NOM= X", "NOM =X", "NOM = X").
  static std::string_view header_name(std::string_view header) {
    for (std::size_t at = header.find("NOM"); at != std::string_view::npos; at = header.find("NOM", at + 3)) {
      if (at > 0 && !io::is_space(header[at - 1])) continue;
      std::size_t p = at + 3;
      while (p < header.size() && io::is_space(header[p])) ++p;
      if (p >= header.size() || header[p] != '=') continue;
      ++p;
      while (p < header.size() && io::is_space(header[p])) ++p;
      std::size_t end = p;
      while (end < header.size() && !io::is_space(header[end])) ++end;
      return header.substr(p, end - p);
    }
    return {};
  }

  static bool is_block_keyword(std::string_view keyword) {
    // Every keyword has a letter second (POI1, SEG2 …), most data tokens a digit (N12, M7):
    // those are told apart here, without comparing them with each keyword (a data line each).
    if (keyword.size() < 2 || (keyword[1] >= '0' && keyword[1] <= '9')) return false;
    return keyword == "TITRE" || keyword.starts_with("COOR_") || keyword == "GROUP_NO" ||
           keyword == "GROUP_MA" || detail::type_of_keyword(keyword) != nullptr;
  }

  // Walks the block opened at `opening`: its header lines (those holding '=' before the
  // first data line; `name` receives their NOM=), then `data(token)` for each data token up
  // to the FINSF line.
  template <class Data>
  void walk_block(std::string_view keyword, const LineSpan& opening, const LineSpan& rest, std::string_view* name,
                  Data&& data) {
    if (name != nullptr && name->empty()) *name = header_name(lines_.text(rest));
    bool in_header = true;
    while (const std::optional<LineSpan> line = lines_.next()) {
      const std::string_view text = lines_.text(*line);
      io::TextScanner scanner = lines_.scanner(*line);
      const std::size_t first_offset = (scanner.skip_whitespace(), scanner.position());
      const std::string_view first = scanner.next_token();
      char buffer[16];
      const std::string_view closing = keyword_of(first, buffer);
      if (closing == "FINSF") return;
      if (closing == "FIN") {  // closes the block and the file (code_aster's own tests do it)
        finished_ = true;
        return;
      }
      if (in_header && text.find('=') != std::string_view::npos) {
        if (name != nullptr && name->empty()) *name = header_name(text);
        continue;
      }
      in_header = false;
      if (is_block_keyword(first))  // as written, upper case: a group may be named "Hexa27"
        lines_.fail_at(first_offset, "the " + std::string(keyword) + " block of line " +
                                         std::to_string(io::line_of_offset(bytes_, opening.begin)) +
                                         " has no FINSF before '" + std::string(first) + "'");
      data(Token{first, first_offset});
      for (;;) {
        scanner.skip_whitespace();
        const std::size_t offset = scanner.position();
        const std::string_view token = scanner.next_token();
        if (token.empty()) break;
        data(Token{token, offset});
      }
    }
    lines_.fail_at(opening.begin, "the " + std::string(keyword) + " block has no FINSF");
  }

  void skip_block(std::string_view keyword, const LineSpan& opening) {
    while (const std::optional<LineSpan> line = lines_.next()) {
      io::TextScanner scanner = lines_.scanner(*line);
      char buffer[16];
      const std::string_view closing = keyword_of(scanner.next_token(), buffer);
      if (closing == "FINSF") return;
      if (closing == "FIN") {
        finished_ = true;
        return;
      }
    }
    lines_.fail_at(opening.begin, "the " + std::string(keyword) + " block has no FINSF");
  }

  double real(const Token& token) const {
    double value = 0;
    std::string_view text = token.text;
    if (text.starts_with('+')) text.remove_prefix(1);
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
    if (error == std::errc{} && end == text.data() + text.size()) return value;
    // Fortran writes 1.0D+00.
    std::string fortran(text);
    std::replace_if(fortran.begin(), fortran.end(), [](char c) { return c == 'D' || c == 'd'; }, 'E');
    const auto parsed = std::from_chars(fortran.data(), fortran.data() + fortran.size(), value, std::chars_format::general);
    if (parsed.ec == std::errc{} && parsed.ptr == fortran.data() + fortran.size()) return value;
    lines_.fail_at(token.offset, "invalid coordinate '" + std::string(token.text.substr(0, 32)) + "'");
  }

  void read_coordinates(int dim, const LineSpan& opening, const LineSpan& rest) {
    if (dim_ != 0 && dim != dim_)
      lines_.fail_at(opening.begin, "a COOR_" + std::to_string(dim) + "D block after COOR_" + std::to_string(dim_) +
                                        "D: every node needs the same number of coordinates");
    dim_ = dim;
    int k = -1;  // -1: the next token is a name
    Token last{};
    walk_block("COOR", opening, rest, nullptr, [&](const Token& token) {
      if (k < 0) {
        const std::int64_t position = static_cast<std::int64_t>(node_count_);
        if (!nodes_.insert(token.text, position))
          lines_.fail_at(token.offset, "node " + std::string(token.text) + " is defined twice");
        ++node_count_;
        last = token;
        k = 0;
        return;
      }
      coordinates_.push_back(real(token));
      if (++k == dim) k = -1;
    });
    if (k >= 0)
      lines_.fail_at(last.offset, "node " + std::string(last.text) + " has " + std::to_string(k) + " of " +
                                      std::to_string(dim) + " coordinates before FINSF");
  }

  void read_elements(const ElementType& type, const LineSpan& opening, const LineSpan& rest) {
    const std::size_t block = blocks_.size();
    blocks_.push_back({&type, {}});
    std::vector<std::int64_t>& nodes = blocks_.back().second;
    int k = -1;
    Token last{};
    const auto dimension = static_cast<std::int8_t>(cell_type(type.cell_type).dimension);
    walk_block(type.keyword, opening, rest, nullptr, [&](const Token& token) {
      if (k < 0) {
        if (!elements_.insert(token.text, cell_count_))
          lines_.fail_at(token.offset, "element " + std::string(token.text) + " is defined twice");
        ++cell_count_;
        cell_dims_.push_back(dimension);
        last = token;
        k = 0;
        return;
      }
      const std::int64_t node = nodes_.find(token.text);
      if (node < 0) pending_.push_back({block, static_cast<std::int64_t>(nodes.size()), token});
      nodes.push_back(node);
      if (++k == type.nodes) k = -1;
    });
    if (k >= 0)
      lines_.fail_at(last.offset, "element " + std::string(last.text) + " (" + std::string(type.keyword) + ") has " +
                                      std::to_string(k) + " of its " + std::to_string(type.nodes) + " nodes before FINSF");
  }

  void read_group(RegionKind kind, std::string_view keyword, const LineSpan& opening, const LineSpan& rest) {
    std::string_view name;
    std::vector<Token> members;
    // The older forms name the group after the keyword ("GROUP_NO ENCAS") or on the first data line.
    if (lines_.text(rest).find('=') == std::string_view::npos) name = lines_.scanner(rest).next_token();
    bool named = !name.empty();
    walk_block(keyword, opening, rest, &name, [&](const Token& token) {
      if (!named && name.empty()) {
        name = token.text;  // the older form: the group's name leads the data
        named = true;
        return;
      }
      members.push_back(token);
    });
    if (name.empty()) lines_.fail_at(opening.begin, "the " + std::string(keyword) + " block names no group");
    for (Group& group : groups_)
      if (group.kind == kind && group.name == name) {
        group.members.insert(group.members.end(), members.begin(), members.end());
        return;
      }
    groups_.push_back({kind, std::string(name), std::move(members)});
  }

  // ---- the mesh ----

  Mesh finish() {
    Mesh mesh;
    const auto num_points = static_cast<std::int64_t>(node_count_);
    mesh.points = NDArray::allocate(DType::float64, {num_points, dim_});
    std::copy(coordinates_.begin(), coordinates_.end(), mesh.points.data_as<double>());
    for (const Pending& pending : pending_) {
      const std::int64_t node = nodes_.find(pending.name.text);
      if (node < 0)
        lines_.fail_at(pending.name.offset, "node " + std::string(pending.name.text) + " is not defined in any COOR block");
      blocks_[pending.block].second[static_cast<std::size_t>(pending.slot)] = node;
    }
    for (auto& [type, nodes] : blocks_) {
      if (nodes.empty()) continue;  // an element block without elements adds no block (as 17.21)
      const auto rows = static_cast<std::int64_t>(nodes.size()) / type->nodes;
      NDArray connectivity = NDArray::allocate(DType::int64, {rows, type->nodes});
      std::int64_t* out = connectivity.data_as<std::int64_t>();
      const std::span<const std::int8_t> order = detail::node_order(type->cell_type);
      if (order.empty()) {
        std::copy(nodes.begin(), nodes.end(), out);
      } else {
        for (std::int64_t row = 0; row < rows; ++row)
          for (int k = 0; k < type->nodes; ++k) out[row * type->nodes + k] = nodes[static_cast<std::size_t>(row * type->nodes + order[k])];
      }
      std::vector<std::int64_t>().swap(nodes);
      mesh.cells.push_back(CellBlock{std::string(type->cell_type), std::move(connectivity), {}, {}});
    }
    for (const Group& group : groups_) {
      Region region;
      region.name = group.name;
      region.kind = group.kind;
      region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(group.members.size())});
      std::int64_t* entries = region.entries.data_as<std::int64_t>();
      const io::NameIndex& index = group.kind == RegionKind::Point ? nodes_ : elements_;
      for (std::size_t i = 0; i < group.members.size(); ++i) {
        const Token& member = group.members[i];
        const std::int64_t position = index.find(member.text);
        if (position < 0)
          lines_.fail_at(member.offset, "group " + group.name + " names " +
                                            (group.kind == RegionKind::Point ? "node " : "element ") +
                                            std::string(member.text) + ", which the file does not define");
        entries[i] = position;
        if (group.kind == RegionKind::Cell) region.dim = std::max<int>(region.dim, cell_dims_[static_cast<std::size_t>(position)]);
      }
      mesh.regions.push_back(std::move(region));
    }
    return mesh;
  }

  std::string_view bytes_;
  const std::string& path_;
  Lines lines_;
  int dim_ = 0;
  bool finished_ = false;  // FIN seen
  std::size_t node_count_ = 0;
  std::int64_t cell_count_ = 0;
  std::vector<double> coordinates_;
  io::NameIndex nodes_;
  io::NameIndex elements_;
  std::vector<std::int8_t> cell_dims_;
  std::vector<std::pair<const ElementType*, std::vector<std::int64_t>>> blocks_;
  std::vector<Pending> pending_;
  std::vector<Group> groups_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::code_aster
