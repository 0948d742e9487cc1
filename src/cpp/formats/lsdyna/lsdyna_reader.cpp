// LS-DYNA keyword deck reader (see lsdyna.hpp for what becomes what). One pass over the
// deck and its includes gathers nodes, elements (file node ids), parts and sets; ids are
// resolved only at the end, because an element may come before its nodes and a set before
// its elements (in another include, even). Each element section is first measured (its
// lines less its comments: one SIMD pass) so that a block's connectivity is allocated once,
// in its final shape when the section is of one type; a large section of one-line
// fixed-column cards of one cell type is parsed on all cores (io::parse_lines_in_parallel),
// anything else by the sequential loop, which also words every error.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/lsdyna/lsdyna.hpp"
#include "formats/lsdyna/lsdyna_cards.hpp"
#include "formats/lsdyna/lsdyna_internal.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::lsdyna {
namespace {

using namespace detail;

constexpr const char* kFormat = "lsdyna";
constexpr int kMaxNesting = 32;

constexpr FieldSpec kNodeLayout[] = {{'i', 8}, {'r', 16}, {'r', 16}, {'r', 16}};
constexpr FieldSpec I8{'i', 8};
constexpr FieldSpec kElementLayout[] = {I8, I8, I8, I8, I8, I8, I8, I8, I8, I8};
constexpr FieldSpec kMassLayout[] = {I8, I8, {'r', 16}, I8};
constexpr FieldSpec I10{'i', 10};
constexpr FieldSpec kIdLayout[] = {I10, I10, I10, I10, I10, I10, I10, I10};

constexpr std::size_t kMaxFields = 64;  // free-format fields read from one line

// Where something was read: file index and line.
struct Where {
  std::size_t file = 0;
  std::size_t offset = 0;
  std::uint64_t line = 0;
};

// Consecutive elements of one cell type and family: one block.
struct Run {
  const char* type;
  int family;
  int width;
  std::size_t file;
  NDArray connectivity;  // (capacity, width): file node ids in meshio order until build()
  std::int64_t rows = 0;  // rows filled
  std::vector<std::int64_t> eids, pids;
  std::vector<std::size_t> offsets;  // of each element's card, for errors
};

struct PartCard {
  std::int64_t pid;
  std::string title;
  Where where;
};

// A set as read: family -1 = nodes, -2 = parts, else an element family.
struct SetCard {
  int family;
  std::int64_t sid;
  std::string title;
  int step = 1;  // 1: a list; 2: GENERATE ranges; 3: GENERATE_INCREMENT triples
  std::vector<std::int64_t> values;
  Where where;
};

// A *SET_SEGMENT as read: node ids, resolved in build().
struct SegmentCards {
  std::int64_t sid = 0;
  std::string title;
  std::vector<Segment> segments;
  std::vector<std::size_t> offsets;  // of each segment's card
  std::size_t file = 0;
};

std::vector<std::string_view> tokens_of(std::string_view name) {
  std::vector<std::string_view> tokens;
  std::size_t at = 0;
  while (at <= name.size()) {
    const std::size_t end = std::min(name.find('_', at), name.size());
    tokens.push_back(name.substr(at, end - at));
    at = end + 1;
  }
  return tokens;
}

bool all_in(const std::vector<std::string_view>& tokens, std::size_t from, std::initializer_list<std::string_view> allowed) {
  for (std::size_t i = from; i < tokens.size(); ++i)
    if (std::find(allowed.begin(), allowed.end(), tokens[i]) == allowed.end()) return false;
  return true;
}

bool has(const std::vector<std::string_view>& tokens, std::string_view token) {
  return std::find(tokens.begin() + 1, tokens.end(), token) != tokens.end();
}

std::string same_file_key(const std::string& path) {
  std::error_code ignored;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ignored);
  return canonical.empty() ? path : canonical.string();
}

class Reader {
 public:
  Mesh read(const std::string& path) {
    main_directory_ = std::filesystem::path(path).parent_path();
    read_file(path, FieldMode::standard, nullptr, {});
    return build();
  }

 private:
  // ---- files -----------------------------------------------------------------------------

  void read_file(const std::string& path, FieldMode mode, const Where* included_at, const Line& include_line) {
    const std::string key = same_file_key(path);
    if (std::find(chain_.begin(), chain_.end(), key) != chain_.end())
      fail(*included_at, include_line, "*INCLUDE of '" + path + "' makes a loop: that file is already being read");
    if (chain_.size() >= static_cast<std::size_t>(kMaxNesting))
      fail(*included_at, include_line, "*INCLUDE nested deeper than " + std::to_string(kMaxNesting));
    // Files stay mapped to the end: errors found then count the lines up to their offset.
    files_.push_back(std::make_unique<io::MappedFile>(path, kFormat));
    const std::string_view bytes = files_.back()->bytes();
    if (included_at == nullptr) io::reject_empty_file(bytes, path, kFormat);
    const std::size_t index = paths_.size();
    paths_.push_back(path);
    chain_.push_back(key);
    parse(bytes, index, mode);
    chain_.pop_back();
  }

  void parse(std::string_view document, std::size_t file, FieldMode deck_mode) {
    Lines lines(document);
    Line line;
    while (lines.next(line)) {
      if (line.text.empty() || line.text.front() != '*') continue;  // comments, stray data
      const Keyword keyword = parse_keyword(line.text);
      const FieldMode mode = keyword.mode.value_or(deck_mode);
      const Where where{file, line.offset, line.number};
      const std::string& name = keyword.name;
      if (name == "KEYWORD") {
        deck_mode = keyword_mode(keyword.rest, deck_mode);
      } else if (name == "END") {
        return;
      } else if (name == "NODE") {
        read_nodes(lines, file, mode);
      } else if (name.starts_with("ELEMENT_")) {
        read_elements(lines, name, file, mode);
      } else if (name == "PART" || name.starts_with("PART_")) {
        read_parts(lines, name, file, mode);
      } else if (name.starts_with("SET_")) {
        read_set(lines, name, where, mode);
      } else if (name == "INCLUDE") {
        read_includes(lines, where, deck_mode);
      } else if (name == "INCLUDE_PATH" || name == "INCLUDE_PATH_RELATIVE") {
        Line data;
        while (lines.next_data(data))
          if (const std::string_view folder = trim(data.text); !folder.empty())
            include_paths_.emplace_back(std::filesystem::path(std::string(folder)), std::filesystem::path(paths_[file]).parent_path());
      }
    }
  }

  void read_includes(Lines& lines, const Where& where, FieldMode mode) {
    std::vector<std::pair<std::string, Line>> names;
    std::string name;
    Line data;
    while (lines.next_data(data)) {
      std::string_view text = trim(data.text);
      if (text.empty()) continue;
      // A name longer than a line goes on with " +" at the line's end.
      const bool continued = text.size() >= 2 && text.back() == '+' && text[text.size() - 2] == ' ';
      if (continued) text = trim(text.substr(0, text.size() - 1));
      name += text;
      if (continued) continue;
      names.emplace_back(std::move(name), data);
      name.clear();
    }
    if (!name.empty()) names.emplace_back(std::move(name), data);
    for (auto& [written, at] : names) {
      std::replace(written.begin(), written.end(), '\\', '/');
      const std::string found = find_include(written, where.file);
      const Where here{where.file, at.offset, at.number};
      if (found.empty()) fail(here, at, "*INCLUDE file '" + written + "' not found");
      read_file(found, mode, &here, at);
    }
  }

  std::string find_include(const std::string& name, std::size_t including_file) const {
    const std::filesystem::path written(name);
    std::vector<std::filesystem::path> candidates;
    if (written.is_absolute()) {
      candidates.push_back(written);
    } else {
      candidates.push_back(std::filesystem::path(paths_[including_file]).parent_path() / written);
      for (const auto& [folder, base] : include_paths_) {
        if (folder.is_absolute()) {
          candidates.push_back(folder / written);
        } else {
          candidates.push_back(base / folder / written);
          candidates.push_back(main_directory_ / folder / written);
        }
      }
      candidates.push_back(written);
    }
    for (const auto& candidate : candidates) {
      std::error_code error;
      if (std::filesystem::is_regular_file(candidate, error)) return candidate.string();
    }
    return {};
  }

  // ---- cards -----------------------------------------------------------------------------

  [[noreturn]] void fail(const Where& where, const Line& line, const std::string& message) const {
    throw ReadError(paths_[where.file], kFormat, message, line.offset, line.number);
  }
  [[noreturn]] void fail(std::size_t file, const Line& line, const std::string& message) const {
    throw ReadError(paths_[file], kFormat, message, line.offset, line.number);
  }

  std::int64_t integer(std::size_t file, const Line& line, std::string_view field, const char* what) const {
    const auto value = parse_integer(field);
    if (!value) fail(file, line, std::string("expected an integer ") + what + ", found '" + std::string(field) + "'");
    return *value;
  }

  double real(std::size_t file, const Line& line, std::string_view field) const {
    const auto value = parse_real(field);
    if (!value) fail(file, line, "expected a real coordinate, found '" + std::string(field) + "'");
    return *value;
  }

  void read_nodes(Lines& lines, std::size_t file, FieldMode mode) {
    const std::size_t wanted = node_ids_.size() + lines.lines_to_next_keyword();
    if (node_ids_.capacity() < wanted) {  // room for the section (at least doubling: many sections stay linear)
      node_ids_.reserve(std::max(wanted, 2 * node_ids_.capacity()));
      coordinates_.reserve(3 * node_ids_.capacity());
    }
    Line line;
    std::string_view f[kMaxFields];
    while (lines.next_data(line)) {
      if (trim(line.text).empty()) continue;
      split_fields(line.text, kNodeLayout, 4, mode, f, kMaxFields);
      const std::int64_t id = integer(file, line, f[0], "node id");
      if (!node_index_.insert(id, static_cast<std::int64_t>(node_ids_.size())))
        fail(file, line, "node " + std::to_string(id) + " is defined twice");
      node_ids_.push_back(id);
      for (int axis = 0; axis < 3; ++axis) coordinates_.push_back(real(file, line, f[1 + axis]));
    }
  }

  // Skips the rest of a section (one the reader does not take, or the cards it does not need).
  void skip_section(Lines& lines) {
    Line line;
    while (lines.next_data(line)) {
    }
  }

  void read_elements(Lines& lines, const std::string& name, std::size_t file, FieldMode mode) {
    const std::vector<std::string_view> tokens = tokens_of(std::string_view(name).substr(8));
    const std::string_view kind = tokens[0];
    int family = -1;
    int extras = 0;         // cards after each element's first
    bool thickness_card = false;  // SHELL: 8-node shells have one more
    if (kind == "SOLID") {
      family = kSolid;
      if (tokens.size() == 2 && tokens[1] == "H20") return read_twenty_node_solids(lines, file, mode);
      if (tokens.size() == 1 || all_in(tokens, 1, {"TET4TOTET10", "H8TOH20"})) extras = 0;
      else if (all_in(tokens, 1, {"ORTHO"})) extras = 2;
      else if (all_in(tokens, 1, {"DOF"})) extras = 1;
      else return skip_section(lines);
    } else if (kind == "TSHELL") {
      family = kTshell;
      if (!all_in(tokens, 1, {"BETA"})) return skip_section(lines);
      extras = has(tokens, "BETA") ? 1 : 0;
    } else if (kind == "SHELL") {
      family = kShell;
      if (!all_in(tokens, 1, {"THICKNESS", "BETA", "MCID", "OFFSET", "DOF"})) return skip_section(lines);
      thickness_card = has(tokens, "THICKNESS") || has(tokens, "BETA") || has(tokens, "MCID");
      extras = (thickness_card ? 1 : 0) + (has(tokens, "OFFSET") ? 1 : 0) + (has(tokens, "DOF") ? 1 : 0);
    } else if (kind == "BEAM") {
      family = kBeam;
      if (!all_in(tokens, 1, {"THICKNESS", "SCALAR", "SCALR", "SECTION", "PID", "OFFSET", "ORIENTATION", "WARPAGE", "ELBOW"}))
        return skip_section(lines);
      extras = static_cast<int>(tokens.size()) - 1;
    } else if (kind == "DISCRETE") {
      if (tokens.size() >= 2 && tokens[1] == "SPHERE") {
        family = kSph;
        if (!all_in(tokens, 2, {"VOLUME"})) return skip_section(lines);
      } else {
        family = kDiscrete;
        if (!all_in(tokens, 1, {"LCO"})) return skip_section(lines);
        extras = has(tokens, "LCO") ? 1 : 0;
      }
    } else if (kind == "SPH") {
      family = kSph;
      if (tokens.size() != 1) return skip_section(lines);
    } else if (kind == "MASS") {
      family = kMass;
      if (tokens.size() != 1) return skip_section(lines);
    } else {
      return skip_section(lines);
    }

    section_runs_.clear();
    reserve_section(lines);
    const int used = family == kMass ? 4 : family == kSph ? 2 : family == kDiscrete || family == kBeam ? 4 : 10;
    if (extras == 0 && read_section_in_parallel(lines, family, used, file, mode)) return;
    Line line, more;
    std::int64_t v[10], n[10], cell[10];
    while (lines.next_data(line)) {
      if (trim(line.text).empty()) continue;
      card_integers(file, line, mode, family == kMass, v, used);
      const std::int64_t eid = v[0];
      const std::int64_t pid = v[family == kMass ? 3 : 1];
      int width = 0;
      const char* type = one_line_cell(family, v, cell, width);
      if (type != nullptr && *type == '\0')
        fail(file, line, "solid element " + std::to_string(eid) + " gives " + std::to_string(width) + " nodes; it needs 4 or 8");
      if (type == nullptr) {  // the two-line form: EID PID, then N1…N10
        if (!lines.next_data(more) || trim(more.text).empty())
          fail(file, line, "solid element " + std::to_string(eid) + ": the node card of the two-line form is missing");
        card_integers(file, more, mode, false, n);
        int filled = 10;
        while (filled > 0 && n[filled - 1] == 0) --filled;
        if (filled == 10) {
          std::copy(n, n + 10, cell);
          type = "tetra10";
          width = 10;
        } else if (filled == 8) {
          type = collapse_solid(n, cell, width);
        } else if (filled == 4) {
          std::copy(n, n + 4, cell);
          type = "tetra";
          width = 4;
        } else {
          fail(file, more, "solid element " + std::to_string(eid) + " gives " + std::to_string(filled) + " nodes; it needs 4, 8 or 10");
        }
      }
      add_element(type, family, width, file, line, eid, pid, cell);
      const bool midside_card = family == kShell && thickness_card && width >= 6;  // THIC5…THIC8
      skip_cards(lines, file, line, extras + (midside_card ? 1 : 0));
    }
  }

  // *ELEMENT_SOLID_H20: EID PID, then N1…N10 and N11…N20 (LS-DYNA's node order is VTK's:
  // corners, bottom edges, top edges, vertical edges).
  void read_twenty_node_solids(Lines& lines, std::size_t file, FieldMode mode) {
    section_runs_.clear();
    section_lines_ = lines.lines_to_next_keyword() / 3 + 1;  // three cards an element
    Line line, card;
    std::int64_t v[10], cell[20];
    while (lines.next_data(line)) {
      if (trim(line.text).empty()) continue;
      card_integers(file, line, mode, false, v, 2);
      for (int c = 0; c < 2; ++c) {
        if (!lines.next_data(card) || trim(card.text).empty())
          fail(file, line, "20-node solid element " + std::to_string(v[0]) + ": node card " + std::to_string(c + 1) + " of 2 is missing");
        card_integers(file, card, mode, false, cell + 10 * c);
      }
      for (int k = 0; k < 20; ++k)
        if (cell[k] == 0)
          fail(file, line, "20-node solid element " + std::to_string(v[0]) + ": node N" + std::to_string(k + 1) + " is blank");
      add_element("hexahedron20", kSolid, 20, file, line, v[0], v[1], cell);
    }
  }

  // The cell of a one-line element card v = EID PID N1…N8 (*ELEMENT_MASS: EID NID MASS PID)
  // in meshio's order, its width in `width`: nullptr for the first card of a two-line solid,
  // "" for a solid of neither 4 nor 8 nodes (width: how many it gives).
  static const char* one_line_cell(int family, const std::int64_t* v, std::int64_t* cell, int& width) noexcept {
    const std::int64_t* n = v + 2;
    switch (family) {
      case kSolid:
      case kTshell: {
        int filled = 8;
        while (filled > 0 && n[filled - 1] == 0) --filled;
        if (filled == 0 && family == kSolid) return nullptr;
        if (filled == 4) {
          std::copy(n, n + 4, cell);
          width = 4;
          return "tetra";
        }
        if (filled != 8) {
          width = filled;
          return "";
        }
        return collapse_solid(n, cell, width);
      }
      case kShell: {
        const bool midside = n[4] != 0 || n[5] != 0 || n[6] != 0 || n[7] != 0;
        if (midside && n[3] == n[2] && n[7] == n[6]) {
          const std::int64_t order[] = {n[0], n[1], n[2], n[4], n[5], n[6]};
          std::copy(order, order + 6, cell);
          width = 6;
          return "triangle6";
        }
        width = midside ? 8 : n[3] == 0 || n[3] == n[2] ? 3 : 4;
        std::copy(n, n + width, cell);
        return midside ? "quad8" : width == 3 ? "triangle" : "quad";
      }
      case kBeam:
      case kDiscrete:
        std::copy(n, n + 2, cell);
        width = 2;
        return "line";
      case kSph:  // NID PID MASS …: the node is the element
        cell[0] = v[0];
        width = 1;
        return "vertex";
      default:  // kMass: EID NID MASS PID
        cell[0] = v[1];
        width = 1;
        return "vertex";
    }
  }

  // A section of one-line cards, all of one cell type, in fixed columns, read on all cores
  // (io::parse_lines_in_parallel) into the run its first card opens. False, with nothing
  // read, for anything else (comment or blank lines inside, free format, a second type …):
  // the sequential loop reads it then, and words any error.
  bool read_section_in_parallel(Lines& lines, int family, int used, std::size_t file, FieldMode mode) {
    if (family == kMass) return false;
    lines.skip_comments();
    const std::uint64_t records = section_lines_;  // its lines less its comment lines: exact when it is all cards
    const std::string_view document = lines.document();
    const std::size_t begin = lines.position();
    if (records < 2 || document.size() - begin < io::kParallelLinesMinBytes) return false;
    Line first;
    if (!lines.peek_line(first)) return false;
    const std::size_t width8 = field_width(I8, mode);
    std::int64_t v[10] = {}, cell[10];
    if (!fixed_integers(first.text, width8, used, v)) return false;
    int width = 0;
    const char* type = one_line_cell(family, v, cell, width);
    if (type == nullptr || *type == '\0') return false;
    add_element(type, family, width, file, first, v[0], v[1], cell);  // opens (or extends) the run, sized
    Run& run = *current_run_;
    const std::int64_t base = run.rows - 1;  // the first card's row: parsed again below, the same
    if (run.connectivity.rows() < base + static_cast<std::int64_t>(records)) {
      NDArray larger = NDArray::allocate(DType::int64, {base + static_cast<std::int64_t>(records), width});
      std::memcpy(larger.data(), run.connectivity.data(), static_cast<std::size_t>(run.rows * width) * sizeof(std::int64_t));
      run.connectivity = std::move(larger);
    }
    const auto size_before = static_cast<std::size_t>(base);
    run.eids.resize(size_before + records);
    run.pids.resize(size_before + records);
    run.offsets.resize(size_before + records);
    std::int64_t* const rows = run.connectivity.data_as<std::int64_t>() + base * width;
    const std::size_t read_width = static_cast<std::size_t>(used) * width8;
    const std::optional<std::size_t> end =
        io::parse_lines_in_parallel(document, begin, records, [&](std::uint64_t index, std::size_t from, std::size_t to) {
          std::string_view text = document.substr(from, to - from);
          if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
          if (trim(text).empty()) return false;  // a blank line: skipped by the sequential loop
          std::int64_t fields[10] = {}, nodes[10];
          if (!fixed_integers(text, width8, used, fields)) return false;
          if (text.size() > read_width && std::memchr(text.data() + read_width, ',', text.size() - read_width) != nullptr)
            return false;
          int cell_width = 0;
          const char* cell_type = one_line_cell(family, fields, nodes, cell_width);
          if (cell_type == nullptr || (cell_type != type && std::strcmp(cell_type, type) != 0)) return false;
          std::copy(nodes, nodes + width, rows + index * static_cast<std::uint64_t>(width));
          run.eids[size_before + index] = fields[0];
          run.pids[size_before + index] = fields[1];
          run.offsets[size_before + index] = from;
          return true;
        });
    if (!end) {  // undo: the sequential loop reads the section from its first card
      run.rows = base;
      run.eids.resize(size_before);
      run.pids.resize(size_before);
      run.offsets.resize(size_before);
      if (run.rows == 0) {
        runs_.pop_back();
        section_runs_.clear();
      }
      return false;
    }
    run.rows = base + static_cast<std::int64_t>(records);
    lines.skip_to(*end, records);
    return true;
  }

  // The integer fields of an element card: EID PID N1…N8 (I8 each), or *ELEMENT_MASS's EID
  // NID MASS PID (v[0], v[1], v[3]); fixed columns through the fast path when it can.
  // Only the first `used` fields are read (the rest of v is 0): reals follow the ids of
  // *ELEMENT_SPH (MASS) and *ELEMENT_DISCRETE (S, OFFSET).
  void card_integers(std::size_t file, const Line& line, FieldMode mode, bool mass, std::int64_t* v, int used = 10) const {
    std::fill(v, v + 10, 0);
    // The fast path fails on a comma in the fields it reads; one past them makes the line free format too.
    const std::size_t read_width = static_cast<std::size_t>(used) * field_width(I8, mode);
    if (!mass && fixed_integers(line.text, field_width(I8, mode), used, v) &&
        (line.text.size() <= read_width ||
         std::memchr(line.text.data() + read_width, ',', line.text.size() - read_width) == nullptr))
      return;
    std::string_view f[kMaxFields];
    const std::size_t count = split_fields(line.text, mass ? kMassLayout : kElementLayout, mass ? 4 : 10, mode, f, kMaxFields);
    for (std::size_t k = 0; k < static_cast<std::size_t>(used) && k < count; ++k) {
      if (mass && k == 2) continue;  // MASS
      const char* what = k == 0 ? "element id" : (k == 1) != mass ? "part id" : "node id";
      v[k] = integer(file, line, f[k], what);
    }
  }

  // Room for the elements of the section that starts here: its lines bound their number.
  void reserve_section(const Lines& lines) { section_lines_ = lines.lines_to_next_keyword(); }

  void skip_cards(Lines& lines, std::size_t file, const Line& element, int cards) {
    Line line;
    for (int k = 0; k < cards; ++k)
      if (!lines.next_data(line)) fail(file, element, "element card is missing the option cards its keyword announces");
  }

  void add_element(const char* type, int family, int width, std::size_t file, const Line& line, std::int64_t eid,
                   std::int64_t pid, const std::int64_t* cell) {
    // One block per cell type in a section (a section of quads and triangles gives two);
    // a section whose first type is the last block's extends it.
    Run* found = nullptr;
    for (const std::size_t index : section_runs_)
      if (runs_[index].type == type || std::strcmp(runs_[index].type, type) == 0) found = &runs_[index];
    if (found == nullptr) {
      if (runs_.empty() || std::strcmp(runs_.back().type, type) != 0 || runs_.back().family != family || runs_.back().file != file)
      {
        // Sized for the whole section: a section of one type fills it exactly (no copy).
        const auto capacity = static_cast<std::int64_t>(std::max<std::uint64_t>(section_lines_, 1));
        runs_.push_back(Run{type, family, width, file, NDArray::allocate(DType::int64, {capacity, width}), 0, {}, {}, {}});
        Run& fresh = runs_.back();
        fresh.eids.reserve(static_cast<std::size_t>(capacity));
        fresh.pids.reserve(static_cast<std::size_t>(capacity));
        fresh.offsets.reserve(static_cast<std::size_t>(capacity));
      }
      section_runs_.push_back(runs_.size() - 1);
      found = &runs_.back();
    }
    Run& run = *found;
    current_run_ = &run;
    if (run.rows == run.connectivity.rows()) {  // a later section extends the run: double it
      NDArray larger = NDArray::allocate(DType::int64, {2 * run.rows, width});
      std::memcpy(larger.data(), run.connectivity.data(), run.connectivity.nbytes());
      run.connectivity = std::move(larger);
    }
    std::copy(cell, cell + width, run.connectivity.data_as<std::int64_t>() + run.rows * width);
    ++run.rows;
    run.eids.push_back(eid);
    run.pids.push_back(pid);
    run.offsets.push_back(line.offset);
  }

  void read_parts(Lines& lines, const std::string& name, std::size_t file, FieldMode mode) {
    const std::vector<std::string_view> tokens = tokens_of(name);
    // Part definitions only (*PART_MOVE, *PART_SENSOR … are other keywords).
    if (!all_in(tokens, 1, {"INERTIA", "REPOSITION", "CONTACT", "PRINT", "ATTACHMENT", "NODES", "AVERAGED", "COMPOSITE",
                            "TSHELL", "LONG", "ANISOTROPIC", "IRCS"}))
      return skip_section(lines);
    const bool repeats = tokens.size() == 1;  // plain *PART: title/card pairs, any number
    Line title, card;
    std::string_view f[kMaxFields];
    while (lines.next_data(title)) {
      if (!lines.next_data(card) || trim(card.text).empty()) break;
      split_fields(card.text, kIdLayout, 8, mode, f, kMaxFields);
      const std::int64_t pid = integer(file, card, f[0], "part id");
      for (const PartCard& part : parts_)
        if (part.pid == pid) fail(file, card, "part " + std::to_string(pid) + " is defined twice");
      parts_.push_back(PartCard{pid, std::string(trim(title.text)), Where{file, card.offset, card.number}});
      if (!repeats) break;
    }
    skip_section(lines);
  }

  void read_set(Lines& lines, const std::string& name, const Where& where, FieldMode mode) {
    const std::vector<std::string_view> tokens = tokens_of(std::string_view(name).substr(4));
    const std::string_view kind = tokens[0];
    int family;
    if (kind == "NODE") family = -1;
    else if (kind == "PART") family = -2;
    else if (kind == "SOLID") family = kSolid;
    else if (kind == "SHELL") family = kShell;
    else if (kind == "BEAM") family = kBeam;
    else if (kind == "TSHELL") family = kTshell;
    else if (kind == "DISCRETE") family = kDiscrete;
    else if (kind == "SEGMENT") return read_segment_set(lines, tokens, where, mode);
    else return skip_section(lines);
    if (!all_in(tokens, 1, {"LIST", "GENERATE", "INCREMENT", "TITLE"}) || (has(tokens, "INCREMENT") && !has(tokens, "GENERATE")))
      return skip_section(lines);
    SetCard set{family, 0, {}, has(tokens, "INCREMENT") ? 3 : has(tokens, "GENERATE") ? 2 : 1, {}, where};
    Line line;
    if (has(tokens, "TITLE")) {
      if (!lines.next_data(line)) return;
      set.title = std::string(trim(line.text));
    }
    std::string_view f[kMaxFields];
    do {
      if (!lines.next_data(line)) return;
    } while (trim(line.text).empty());
    split_fields(line.text, kIdLayout, 8, mode, f, kMaxFields);
    set.sid = integer(where.file, line, f[0], "set id");
    set.where = Where{where.file, line.offset, line.number};
    while (lines.next_data(line)) {
      if (trim(line.text).empty()) continue;
      const std::size_t count = split_fields(line.text, kIdLayout, 8, mode, f, kMaxFields);
      std::size_t filled = count;
      while (filled > 0 && f[filled - 1].empty()) --filled;
      for (std::size_t k = 0; k < filled; ++k) {
        const std::int64_t value = integer(where.file, line, f[k], "id");
        if (set.step == 1 && value == 0) continue;
        set.values.push_back(value);
      }
      if (set.step > 1) set.values.resize(set.values.size() / set.step * set.step);  // an incomplete range is blank
    }
    sets_.push_back(std::move(set));
  }

  // *SET_SEGMENT[_TITLE]: SID (DA1…DA4, SOLVER), then N1 N2 N3 N4 (A1…A4) a card, 10
  // columns each; a triangle repeats N3. The other forms (_GENERAL, _ADD, _INTERSECT …) are
  // skipped and named in "lsdyna:skipped".
  void read_segment_set(Lines& lines, const std::vector<std::string_view>& tokens, const Where& where, FieldMode mode) {
    Line line;
    if (!all_in(tokens, 1, {"TITLE"})) {
      skipped_.push_back("*SET_" + std::string(tokens[0]) + (tokens.size() > 1 ? "_" : "") + join_tokens(tokens, 1) +
                         " at line " + std::to_string(where.line) + " of " + paths_[where.file] + ": not read");
      return skip_section(lines);
    }
    SegmentCards set;
    if (has(tokens, "TITLE")) {
      if (!lines.next_data(line)) return;
      set.title = std::string(trim(line.text));
    }
    std::string_view f[kMaxFields];
    do {
      if (!lines.next_data(line)) return;
    } while (trim(line.text).empty());
    split_fields(line.text, kIdLayout, 8, mode, f, kMaxFields);
    set.sid = integer(where.file, line, f[0], "set id");
    while (lines.next_data(line)) {
      if (trim(line.text).empty()) continue;
      split_fields(line.text, kIdLayout, 8, mode, f, kMaxFields);
      Segment nodes;
      for (std::size_t k = 0; k < 4; ++k) nodes[k] = integer(where.file, line, f[k], "node id");
      if (nodes[3] == 0) nodes[3] = nodes[2];  // a triangle may leave N4 blank
      if (nodes[0] == 0 || nodes[1] == 0 || nodes[2] == 0) fail(where.file, line, "segment needs at least three nodes");
      set.segments.push_back(nodes);
      set.offsets.push_back(line.offset);
    }
    set.file = where.file;
    segment_sets_.push_back(std::move(set));
  }

  static std::string join_tokens(const std::vector<std::string_view>& tokens, std::size_t from) {
    std::string joined;
    for (std::size_t k = from; k < tokens.size(); ++k) joined += std::string(k > from ? "_" : "") + std::string(tokens[k]);
    return joined;
  }

  // ---- the mesh --------------------------------------------------------------------------

  [[noreturn]] void fail_at(std::size_t file, std::size_t offset, const std::string& message) const {
    const std::string_view bytes = files_[file]->bytes();
    const std::uint64_t line = 1 + io::count_newlines(bytes.data(), bytes.data() + std::min(offset, bytes.size()));
    throw ReadError(paths_[file], kFormat, message, offset, line);
  }

  Mesh build() {
    Mesh mesh;
    const auto num_points = static_cast<std::int64_t>(node_ids_.size());
    mesh.points = NDArray::allocate(DType::float64, {num_points, 3});
    std::copy(coordinates_.begin(), coordinates_.end(), mesh.points.data_as<double>());
    coordinates_ = {};

    std::int64_t cell = 0;
    std::size_t num_cells = 0;
    for (const Run& run : runs_) num_cells += static_cast<std::size_t>(run.rows);
    cell_pids_.reserve(num_cells);
    cell_families_.reserve(num_cells);
    for (Run& run : runs_) {
      const std::int64_t rows = run.rows;
      NDArray connectivity = std::move(run.connectivity);
      if (connectivity.rows() != rows) {  // sized for more: the rows filled, copied once
        NDArray exact = NDArray::allocate(DType::int64, {rows, run.width});
        std::memcpy(exact.data(), connectivity.data(), exact.nbytes());
        connectivity = std::move(exact);
      }
      std::int64_t* out = connectivity.data_as<std::int64_t>();  // file ids → point indices, in place
      for (std::int64_t r = 0; r < rows; ++r, ++cell) {
        for (int k = 0; k < run.width; ++k) {
          const std::int64_t id = out[r * run.width + k];
          const std::int64_t index = node_index_.find(id);
          if (index < 0)
            fail_at(run.file, run.offsets[r],
                    std::string(kFamilyName[run.family]) + " element " + std::to_string(run.eids[r]) + " refers to node " +
                        std::to_string(id) + ", which is not defined");
          out[r * run.width + k] = index;
        }
        if (!element_index_[run.family].insert(run.eids[r], cell))
          fail_at(run.file, run.offsets[r],
                  std::string(kFamilyName[run.family]) + " element " + std::to_string(run.eids[r]) + " is defined twice");
        cell_pids_.push_back(run.pids[r]);
        cell_families_.push_back(static_cast<std::int8_t>(run.family));
      }
      mesh.cells.push_back(CellBlock{run.type, std::move(connectivity), {}, {}});
    }

    // Parts: the cells of each pid, in block-major order.
    std::unordered_map<std::int64_t, std::size_t> part_of_pid;
    for (std::size_t p = 0; p < parts_.size(); ++p) part_of_pid.emplace(parts_[p].pid, p);
    part_cells_.assign(parts_.size(), {});
    std::vector<int> part_dim(parts_.size(), -1);
    std::int64_t last_pid = 0;
    std::size_t last_part = parts_.size();  // the part of last_pid (parts_.size(): none); cells come in runs of a pid
    for (std::size_t c = 0; c < cell_pids_.size(); ++c) {
      if (c == 0 || cell_pids_[c] != last_pid) {
        last_pid = cell_pids_[c];
        const auto found = part_of_pid.find(last_pid);
        last_part = found == part_of_pid.end() ? parts_.size() : found->second;
      }
      if (last_part == parts_.size()) continue;
      part_cells_[last_part].push_back(static_cast<std::int64_t>(c));
      part_dim[last_part] = std::max(part_dim[last_part], kFamilyDim[cell_families_[c]]);
    }
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      Region region;
      region.name = parts_[p].title.empty() ? "Part " + std::to_string(parts_[p].pid) : parts_[p].title;
      region.kind = RegionKind::Cell;
      region.dim = part_dim[p];
      region.tag = parts_[p].pid;
      region.entries = array_of(part_cells_[p]);
      mesh.regions.push_back(std::move(region));
    }
    seen_.assign(std::max<std::size_t>(node_ids_.size(), cell_pids_.size()), 0);
    for (const SetCard& set : sets_) mesh.regions.push_back(build_set(set, part_of_pid));
    std::vector<SegmentSet> segment_sets;
    for (const SegmentCards& cards : segment_sets_) {
      SegmentSet& set = segment_sets.emplace_back(SegmentSet{cards.sid, cards.title, cards.segments});
      for (std::size_t s = 0; s < set.segments.size(); ++s)
        for (std::int64_t& id : set.segments[s]) {
          const std::int64_t index = node_index_.find(id);
          if (index < 0)
            fail_at(cards.file, cards.offsets[s],
                    "segment of set " + std::to_string(cards.sid) + " refers to node " + std::to_string(id) + ", which is not defined");
          id = index;
        }
    }
    add_segment_regions(mesh, segment_sets);
    if (!skipped_.empty()) mesh.string_field_data.append_new("lsdyna:skipped", skipped_);
    return mesh;
  }

  static NDArray array_of(const std::vector<std::int64_t>& values) {
    NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
    return array;
  }

  Region build_set(const SetCard& set, const std::unordered_map<std::int64_t, std::size_t>& part_of_pid) {
    std::vector<std::int64_t> entries;
    auto add = [&](std::int64_t index) {
      if (seen_[static_cast<std::size_t>(index)]) return;
      seen_[static_cast<std::size_t>(index)] = 1;
      entries.push_back(index);
    };
    const char* family_name = set.family == -1 ? "NODE" : set.family == -2 ? "PART" : kFamilyName[set.family];
    // Ids that name nothing this reader reads (parts of *ICFD_PART or *PART_COMPOSITE…,
    // nodes of *NODE_SCALAR, elements of skipped sections) are left out.
    auto add_id = [&](std::int64_t id, bool) {
      if (set.family == -2) {
        const auto found = part_of_pid.find(id);
        if (found != part_of_pid.end())
          for (const std::int64_t c : part_cells_[found->second]) add(c);
        return;
      }
      const std::int64_t index = set.family == -1 ? node_index_.find(id) : element_index_[set.family].find(id);
      if (index >= 0) add(index);
    };
    if (set.step == 1) {
      for (const std::int64_t id : set.values) add_id(id, true);
    } else {
      for (std::size_t k = 0; k + set.step <= set.values.size(); k += set.step) {
        const std::int64_t first = set.values[k], last = set.values[k + 1];
        const std::int64_t increment = set.step == 3 ? set.values[k + 2] : 1;
        if (first > last || increment <= 0) continue;
        // Ranges wider than the ids there are walk the ids instead (no unbounded loop).
        const std::uint64_t span = static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(first);
        if (span / static_cast<std::uint64_t>(increment) <= 4 * seen_.size() + 1024) {
          for (std::int64_t id = first;; id += increment) {
            add_id(id, false);
            if (last - id < increment) break;
          }
        } else {
          walk_ids_in_range(set, first, last, increment, add_id);
        }
      }
    }
    for (const std::int64_t index : entries) seen_[static_cast<std::size_t>(index)] = 0;
    Region region;
    region.name = set.title.empty() ? std::string(family_name) + " set " + std::to_string(set.sid) : set.title;
    region.kind = set.family == -1 ? RegionKind::Point : RegionKind::Cell;
    region.tag = set.sid;
    region.entries = array_of(entries);
    return region;
  }

  template <class Add>
  void walk_ids_in_range(const SetCard& set, std::int64_t first, std::int64_t last, std::int64_t increment, Add& add_id) {
    auto in_range = [&](std::int64_t id) {
      return id >= first && id <= last &&
             (static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(first)) % static_cast<std::uint64_t>(increment) == 0;
    };
    if (set.family == -1) {
      for (const std::int64_t id : node_ids_)
        if (in_range(id)) add_id(id, false);
    } else if (set.family == -2) {
      for (const PartCard& part : parts_)
        if (in_range(part.pid)) add_id(part.pid, false);
    } else {
      for (const Run& run : runs_)
        if (run.family == set.family)
          for (const std::int64_t id : run.eids)
            if (in_range(id)) add_id(id, false);
    }
  }

  std::vector<std::string> paths_;  // every file read, by index
  std::vector<std::unique_ptr<io::MappedFile>> files_;  // the same, mapped
  std::vector<std::string> chain_;  // files being read, outermost first (same_file_key)
  std::filesystem::path main_directory_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> include_paths_;  // folder, base
  std::vector<std::int64_t> node_ids_;
  std::vector<double> coordinates_;
  io::LabelIndex node_index_;
  std::vector<Run> runs_;
  std::vector<std::size_t> section_runs_;  // the runs the current element section fills
  Run* current_run_ = nullptr;               // the run add_element last added to
  std::uint64_t section_lines_ = 0;         // lines of the current element section (reserve_section)
  std::array<io::LabelIndex, kFamilies> element_index_;
  std::vector<PartCard> parts_;
  std::vector<SetCard> sets_;
  std::vector<SegmentCards> segment_sets_;
  std::vector<std::string> skipped_;  // keywords recognised but not read, for "lsdyna:skipped"
  std::vector<std::int64_t> cell_pids_;
  std::vector<std::int8_t> cell_families_;
  std::vector<std::vector<std::int64_t>> part_cells_;
  std::vector<char> seen_;
};

}  // namespace

Mesh read(const std::string& path) { return Reader().read(path); }

}  // namespace meshioplusplus::lsdyna
