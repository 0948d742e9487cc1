// Abaqus .inp reader (see abaqus.hpp for what it keeps). The format announces no counts, so
// a first, counting pass walks the same keyword structure (includes, parts, instances,
// INPUT= files) and only counts: node lines, the highest coordinate count, and each element
// section's records (field starts / nodes per record). The points and each block's
// connectivity are then allocated once, in their final shape, and the second pass parses
// straight into them. Set members still gather in scratch vectors (sorted and merged at
// the end).
//
// Large *NODE and *ELEMENT sections of one record per line (what writers produce) are parsed
// on all cores (io::parse_section_lines_in_parallel), rows in place; the labels are then indexed in
// file order on one thread, so a label given twice is reported where the sequential walk
// reports it. A section with any other line (a record over two lines, an unknown node, a
// comment) is left to the sequential walk, which words every error as before.
#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "formats/abaqus/abaqus.hpp"
#include "formats/abaqus/abaqus_element_types.hpp"
#include "formats/abaqus/abaqus_input.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/uninitialized.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/byte_masks.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::abaqus {
namespace {

using detail::ElementType;
using detail::InputLines;
using detail::KeywordLine;
using detail::Line;
using detail::PlainSection;
using detail::plain_line_offset;
using detail::plain_section;
using detail::filled_lines;
using detail::sum_over_lines;
using detail::upper;

// Includes nested deeper than this are taken for a loop.
constexpr int kMaxNestingDepth = 32;

using Vector3 = std::array<double, 3>;

// Where an instance puts its part: translation first, then rotation about the axis through
// `axis_point` along the unit vector `axis`.
struct Placement {
  Vector3 translation{};
  bool rotates = false;
  Vector3 axis_point{};
  Vector3 axis{};
  double angle = 0;  // radians

  Vector3 apply(Vector3 x) const {
    // Untouched unless asked: even adding 0 would turn -0.0 into 0.0.
    if (translation != Vector3{} || rotates)
      for (int i = 0; i < 3; ++i) x[i] += translation[i];
    if (!rotates) return x;
    Vector3 v{x[0] - axis_point[0], x[1] - axis_point[1], x[2] - axis_point[2]};
    const Vector3 cross{axis[1] * v[2] - axis[2] * v[1], axis[2] * v[0] - axis[0] * v[2],
                        axis[0] * v[1] - axis[1] * v[0]};
    const double along = axis[0] * v[0] + axis[1] * v[1] + axis[2] * v[2];
    const double c = std::cos(angle), s = std::sin(angle);
    for (int i = 0; i < 3; ++i) x[i] = axis_point[i] + v[i] * c + cross[i] * s + axis[i] * along * (1 - c);
    return x;
  }
};

using Members = std::vector<std::int64_t>;  // point or cell indices; (cell, face) pairs for sides
using SetTable = std::map<std::string, Members>;  // upper-case set name → members

// One label space: the model (or assembly) level, or one instance.
struct Scope {
  std::string name;  // as written, for messages
  io::LabelIndex nodes;     // label → point index
  io::LabelIndex elements;  // label → block-major cell index
  std::unordered_set<std::int64_t> skipped_elements;         // labels of element types not read
  SetTable node_sets, element_sets, surfaces;
  Placement placement;

  SetTable& sets(RegionKind kind) {
    return kind == RegionKind::Point ? node_sets : kind == RegionKind::Cell ? element_sets : surfaces;
  }
};

struct RegionName {
  RegionKind kind;
  std::string key;  // upper case
  std::string name;  // as first written
};

struct BlockBuild {
  const CellTypeInfo* type;
  std::int64_t first_cell;  // block-major index of its first cell
  NDArray connectivity;     // allocated in its final shape; rows [0, filled) read so far
  std::int64_t filled = 0;
};

// A *PART body, read again for each instance of it.
struct PartBody {
  std::string_view document;
  std::string path;
  std::size_t begin = 0, end = 0;
  bool instanced = false;
};

// What the counting pass found, in the order the reading pass meets it.
struct Plan {
  std::int64_t num_nodes = 0;
  int dimension = 0;                       // the most coordinates a node line gives (≤ 3)
  std::vector<std::int64_t> element_rows;  // per *ELEMENT section of a known type
  // plain_section's answers by (first line, end of the lines searched): the reading pass
  // reuses the counting pass's instead of searching the same section again (the files stay
  // mapped, so the addresses hold).
  std::map<std::pair<const char*, const char*>, std::optional<PlainSection>> sections;
};

// Files stay mapped for both passes (part bodies are read again from them).
using FileCache = std::map<std::string, std::unique_ptr<io::MappedFile>>;

bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r'; }

using io::parse_int64;

// Fast path of a data line: `text` (trimmed) as at most `max` comma-separated integers, each
// as InputLines::integer reads it. The count, or -1 when the line holds anything else (empty
// fields, quotes, names, more than `max` values): the caller then takes the general path,
// which also words the errors.
int simple_integers(std::string_view text, std::int64_t* out, int max) noexcept {
  const char* p = text.data();
  const char* const end = p + text.size();
  int count = 0;
  while (true) {
    while (p < end && is_blank(*p)) ++p;
    if (p < end && *p == '+') ++p;
    if (count == max) return -1;
    const auto [next, error] = parse_int64(p, end, out[count]);
    if (error != std::errc{}) return -1;
    ++count;
    p = next;
    while (p < end && is_blank(*p)) ++p;
    if (p == end) return count;
    if (*p != ',') return -1;
    ++p;
  }
}

// Fast path of a node line: label and 1-3 coordinates, nothing empty or odd among them
// (fields after the third coordinate are ignored, as the general path ignores them).
bool simple_node(std::string_view text, std::int64_t& label, std::array<double, 3>& x, std::size_t& given) noexcept {
  const char* p = text.data();
  const char* const end = p + text.size();
  if (p < end && *p == '+') ++p;
  auto [next, error] = parse_int64(p, end, label);
  if (error != std::errc{}) return false;
  p = next;
  while (p < end && is_blank(*p)) ++p;
  if (p == end || *p != ',') return false;
  ++p;
  for (std::size_t i = 0; i < 3; ++i) {
    while (p < end && is_blank(*p)) ++p;
    if (p < end && *p == '+') ++p;
    const auto [after, failed] = std::from_chars(p, end, x[i], std::chars_format::general);
    if (failed != std::errc{}) return false;
    p = after;
    while (p < end && is_blank(*p)) ++p;
    given = i + 1;
    if (p == end) return true;
    if (*p != ',') return false;
    ++p;
  }
  // A fourth field: ignored when something follows; a trailing comma alone is left to the
  // general path.
  while (p < end && is_blank(*p)) ++p;
  return p < end;
}

// Field starts in a data line: a character other than a comma or blank that follows one
// (or starts the line). In a well-formed element line each field is one start.
std::int64_t field_starts(std::string_view text) noexcept {
  std::int64_t starts = 0;
  bool separated = true;
  const char* p = text.data();
  const char* const end = p + text.size();
  // 64 bytes per step (the counting pass reads every element section whole): a field
  // starts at each non-separator byte after a separator (or the start).
  for (; end - p >= 64; p += 64) {
    const std::uint64_t separator = io::byte_mask64<',', ' ', '\n', '\t', '\r'>(p);
    const std::uint64_t after_separator = separator << 1 | static_cast<std::uint64_t>(separated);
    starts += std::popcount(~separator & after_separator);
    separated = (separator >> 63) != 0;
  }
  for (; p < end; ++p) {
    const char c = *p;
    const bool separator = c == ',' || c == '\n' || is_blank(c);  // '\n': several lines at once
    starts += static_cast<std::int64_t>(separated && !separator);
    separated = separator;
  }
  return starts;
}

bool is_label(std::string_view field) noexcept {
  return !field.empty() && (std::isdigit(static_cast<unsigned char>(field.front())) || field.front() == '-' ||
                            field.front() == '+');
}

const char* kind_word(RegionKind kind) {
  return kind == RegionKind::Point ? "node" : kind == RegionKind::Cell ? "element" : "surface";
}

class Reader {
 public:
  // `plan` null: the counting pass, which fills `counted`.
  Reader(FileCache& files, const Plan* plan, Plan* counted = nullptr)
      : files_(files), plan_(plan), counted_(counted), counting_(plan == nullptr) {}

  // The counting pass: stops quietly at the first error it meets (the reading pass, which
  // checks everything the counting pass does and more, reports it or an earlier one).
  void count(const std::string& path) {
    try {
      run(path);
    } catch (const ReadError&) {
    }
  }

  Mesh read(const std::string& path) {
    const std::int64_t dimension = plan_->dimension == 0 ? 3 : plan_->dimension;
    points_ = NDArray::allocate(DType::float64, {plan_->num_nodes, dimension});
    run(path);
    if (num_points_ != plan_->num_nodes || next_section_ != plan_->element_rows.size())
      throw ReadError(path, "abaqus", "internal error: the counting pass disagrees with the reading pass");
    return build();
  }

 private:
  void run(const std::string& path) {
    const std::string_view document = open(path);
    io::reject_empty_file(document, path, "abaqus");  // an included file may be empty, the named one not
    InputLines lines(document, 0, document.size(), path);
    file_chain_.assign(1, same_file_key(path));
    parse(lines);
    if (!has_assembly_) read_parts_never_instanced();
  }

  // ---- input -------------------------------------------------------------------------

  // The files stay mapped to the end: part bodies are read again from them.
  std::string_view open(const std::string& path) {
    std::unique_ptr<io::MappedFile>& file = files_[path];
    if (file == nullptr) file = std::make_unique<io::MappedFile>(path, "abaqus");
    return file->bytes();
  }

  // A file named by INPUT=; failing to open it is reported at the keyword that names it.
  std::string_view open_input(const std::string& path, const KeywordLine& keyword, InputLines& in) {
    try {
      return open(path);
    } catch (const ReadError& error) {
      in.fail_at(keyword.offset, "*" + keyword.name + ": " + path + ": " + error.reason());
    }
  }

  // A relative INPUT= path is looked up beside the including file first, then as given.
  static std::string resolve(const std::string& name, const std::string& including) {
    const std::filesystem::path given(name);
    if (given.is_absolute()) return name;
    const std::filesystem::path beside = std::filesystem::path(including).parent_path() / given;
    std::error_code ignored;
    return std::filesystem::exists(beside, ignored) ? beside.string() : name;
  }

  const std::string& required(const KeywordLine& keyword, std::string_view parameter, InputLines& in) {
    const std::string* value = keyword.find(parameter);
    if (value == nullptr || value->empty())
      in.fail_at(keyword.offset, "*" + keyword.name + " needs " + std::string(parameter) + "=");
    return *value;
  }

  // Calls fn(lines, line) for each data line of `keyword` — its own, or those of the file
  // named by INPUT= — then at_end(lines) while those lines can still report errors.
  template <class Fn, class AtEnd>
  void for_each_data_line(const KeywordLine& keyword, InputLines& in, Fn&& fn, AtEnd&& at_end) {
    Line line;
    if (const std::string* input = keyword.find("INPUT"); input != nullptr && !input->empty()) {
      in.skip_data();
      const std::string path = resolve(*input, in.path());
      const std::string_view document = open_input(path, keyword, in);
      InputLines data(document, 0, document.size(), path);
      while (data.next_data(line)) fn(data, line);
      return at_end(data);
    }
    while (in.next_data(line)) fn(in, line);
    at_end(in);
  }
  template <class Fn> void for_each_data_line(const KeywordLine& keyword, InputLines& in, Fn&& fn) {
    for_each_data_line(keyword, in, std::forward<Fn>(fn), [](InputLines&) {});
  }

  // ---- keywords ------------------------------------------------------------------------

  void parse(InputLines& in) {
    Line line;
    while (in.next(line)) {
      if (line.text.front() != '*')
        in.fail_at(line.offset, "a data line outside of any keyword: '" + std::string(line.text.substr(0, 40)) + "'");
      dispatch(in.keyword(line), in);
    }
  }

  void dispatch(const KeywordLine& keyword, InputLines& in) {
    const std::string& name = keyword.name;
    if (name == "NODE") return read_nodes(keyword, in);
    if (name == "ELEMENT") return read_elements(keyword, in);
    if (counting_ && (name == "NSET" || name == "ELSET" || name == "SURFACE")) return in.skip_data();
    if (name == "NSET") return read_set(keyword, in, RegionKind::Point);
    if (name == "ELSET") return read_set(keyword, in, RegionKind::Cell);
    if (name == "SURFACE") return read_surface(keyword, in);
    if (name == "INCLUDE") return include(keyword, in);
    if (name == "PART") return capture_part(keyword, in);
    if (name == "INSTANCE") return begin_instance(keyword, in);
    if (name == "ASSEMBLY") has_assembly_ = true;
    if (name == "END INSTANCE" || name == "END ASSEMBLY") current_ = "";
    in.skip_data();
  }

  void include(const KeywordLine& keyword, InputLines& in) {
    const std::string path = resolve(required(keyword, "INPUT", in), in.path());
    in.skip_data();
    const std::string key = same_file_key(path);
    if (std::find(file_chain_.begin(), file_chain_.end(), key) != file_chain_.end())
      in.fail_at(keyword.offset, "*INCLUDE of '" + path + "' makes a loop: the file is already being read (" +
                                     chain_text(file_chain_, key) + ")");
    enter_nesting(keyword, in);
    const std::string_view document = open_input(path, keyword, in);
    InputLines lines(document, 0, document.size(), path);
    file_chain_.push_back(key);
    parse(lines);
    file_chain_.pop_back();
    --nesting_depth_;
  }

  // Includes and instanced part bodies nest; a loop among them would recurse forever, so
  // both are caught as loops (with the chain named) and any nesting is bounded.
  void enter_nesting(const KeywordLine& keyword, InputLines& in) {
    if (nesting_depth_ >= kMaxNestingDepth)
      in.fail_at(keyword.offset, "includes and part instances nest deeper than " + std::to_string(kMaxNestingDepth));
    ++nesting_depth_;
  }

  // One key per file however it is named (relative, through links): what include loops compare.
  static std::string same_file_key(const std::string& path) {
    std::error_code ignored;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ignored);
    return canonical.empty() ? path : canonical.string();
  }

  static std::string chain_text(const std::vector<std::string>& chain, const std::string& again) {
    std::string text;
    for (const std::string& link : chain) text += link + " -> ";
    return text + again;
  }

  // A part body is not read where it stands but for each *INSTANCE of it.
  void capture_part(const KeywordLine& keyword, InputLines& in) {
    PartBody body{in.document(), in.path()};
    bool first = true;
    Line line;
    while (in.next(line)) {
      if (first) body.begin = line.offset;
      first = false;
      if (line.text.front() == '*' && detail::keyword_name(line.text) == "END PART") {
        body.end = line.offset;
        parts_[upper(required(keyword, "NAME", in))] = body;
        part_order_.push_back(upper(*keyword.find("NAME")));
        return;
      }
    }
    in.fail_at(keyword.offset, "*PART without *END PART");
  }

  void begin_instance(const KeywordLine& keyword, InputLines& in) {
    const std::string& name = required(keyword, "NAME", in);
    current_ = upper(name);
    Scope& instance = scope(current_, name);
    if (counting_)
      in.skip_data();
    else
      instance.placement = read_placement(in);
    const std::string* part = keyword.find("PART");
    if (part == nullptr) return;  // imported from an earlier analysis: nothing to read here
    const auto found = parts_.find(upper(*part));
    if (found == parts_.end()) in.fail_at(keyword.offset, "instance '" + name + "' of unknown part '" + *part + "'");
    found->second.instanced = true;
    const std::string part_key = found->first;
    if (std::find(part_chain_.begin(), part_chain_.end(), part_key) != part_chain_.end())
      in.fail_at(keyword.offset, "instance '" + name + "' makes a loop: part '" + *part +
                                     "' is instanced inside itself (" + chain_text(part_chain_, part_key) + ")");
    enter_nesting(keyword, in);
    read_part_body(found->second, part_key);
    --nesting_depth_;
  }

  void read_part_body(const PartBody& body, const std::string& part_key) {
    InputLines lines(body.document, body.begin, body.end, body.path);
    part_chain_.push_back(part_key);
    parse(lines);
    part_chain_.pop_back();
  }

  // Without an assembly, each part stands for itself, once.
  void read_parts_never_instanced() {
    for (const std::string& key : part_order_) {
      const PartBody& body = parts_.at(key);
      if (body.instanced || body.begin >= body.end) continue;
      current_ = key;
      scope(key, key);
      read_part_body(body, key);
    }
  }

  // Data lines of *INSTANCE: a translation, then a rotation (point a, point b, angle in degrees).
  Placement read_placement(InputLines& in) {
    Placement placement;
    Line line;
    std::vector<std::string_view> fields;
    for (int row = 0; row < 2 && in.next_data(line); ++row) {
      InputLines::fields(line.text, fields);
      const std::size_t wanted = row == 0 ? 3 : 7;
      if (row == 1 && fields.size() < wanted)
        in.fail_at(line.offset, "an instance rotation needs 7 values: point a, point b, angle");
      std::array<double, 7> values{};
      for (std::size_t i = 0; i < std::min(wanted, fields.size()); ++i)
        values[i] = fields[i].empty() ? 0.0 : in.real(fields[i]);
      if (row == 0) {
        placement.translation = {values[0], values[1], values[2]};
        continue;
      }
      const Vector3 axis{values[3] - values[0], values[4] - values[1], values[5] - values[2]};
      const double length = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
      if (length == 0) in.fail_at(line.offset, "the rotation axis of an instance needs two distinct points");
      placement.rotates = true;
      placement.axis_point = {values[0], values[1], values[2]};
      placement.axis = {axis[0] / length, axis[1] / length, axis[2] / length};
      placement.angle = values[6] * std::numbers::pi / 180.0;
    }
    in.skip_data();
    return placement;
  }

  // plain_section(in), found once for both passes.
  std::optional<PlainSection> section_from(const InputLines& in) {
    const std::optional<std::size_t> begin = in.position();
    if (!begin) return std::nullopt;
    const std::pair<const char*, const char*> key{in.document().data() + *begin, in.document().data() + in.end()};
    if (!counting_)
      if (const auto found = plan_->sections.find(key); found != plan_->sections.end()) return found->second;
    const std::optional<PlainSection> section = plain_section(in);
    if (counting_) counted_->sections.emplace(key, section);
    return section;
  }

  static bool reads_input_file(const KeywordLine& keyword) {
    const std::string* input = keyword.find("INPUT");
    return input != nullptr && !input->empty();
  }

  // A large node section of plain "label, x[, y[, z]]" lines on all cores, up to the next
  // line holding a '*'; false (nothing indexed, `in` where it was) when the sequential
  // walk must read it.
  bool read_nodes_in_parallel(InputLines& in, Scope& here, Members* set) {
    const std::optional<PlainSection> section = section_from(in);
    if (!section || num_points_ + static_cast<std::int64_t>(section->lines) > plan_->num_nodes) return false;
    const std::int64_t dimension = points_.dim(1);
    double* const points = points_.data_as<double>() + num_points_ * dimension;
    io::UninitializedVector<std::int64_t> labels;
    labels.resize(section->lines);
    const char* const text = in.document().data();
    const std::optional<std::size_t> end = io::parse_section_lines_in_parallel(
        in.document(), section->begin, section->end, section->lines, [&](std::uint64_t i, std::size_t first, std::size_t last) {
          const std::string_view line = detail::trim(std::string_view(text + first, last - first));
          Vector3 x{};
          std::size_t given = 0;
          if (line.empty() || line.front() == '*' || !simple_node(line, labels[i], x, given) ||
              static_cast<std::int64_t>(given) > dimension)
            return false;
          x = here.placement.apply(x);
          double* out = points + static_cast<std::int64_t>(i) * dimension;
          for (std::int64_t axis = 0; axis < dimension; ++axis) out[axis] = x[axis];
          return true;
        });
    if (!end) return false;
    for (std::uint64_t i = 0; i < section->lines; ++i) {
      if (!here.nodes.insert(labels[i], num_points_))
        in.fail_at(plain_line_offset(in, *section, i), "node " + std::to_string(labels[i]) + " is defined twice" + where(here));
      if (set != nullptr) set->push_back(num_points_);
      ++num_points_;
    }
    in.seek(*end);
    return true;
  }

  void read_nodes(const KeywordLine& keyword, InputLines& in) {
    if (counting_) return count_nodes(keyword, in);
    Scope& here = scope(current_);
    Members* set = keyword.has("NSET") ? &define_set(here, RegionKind::Point, *keyword.find("NSET")) : nullptr;
    // The lines after a comment that ends the parallel part are read below, as always.
    if (!reads_input_file(keyword)) read_nodes_in_parallel(in, here, set);
    const std::int64_t dimension = points_.dim(1);
    double* const points = points_.data_as<double>();
    std::vector<std::string_view> fields;
    for_each_data_line(keyword, in, [&](InputLines& data, const Line& line) {
      std::int64_t label = 0;
      Vector3 x{};
      std::size_t given = 0;
      if (!simple_node(line.text, label, x, given)) {
        x = Vector3{};
        InputLines::fields(line.text, fields);
        while (fields.size() > 1 && fields.back().empty()) fields.pop_back();  // a trailing comma
        if (fields.size() < 2) data.fail_at(line.offset, "a node line needs a label and coordinates");
        label = data.integer(fields[0]);
        given = std::min<std::size_t>(fields.size() - 1, 3);
        for (std::size_t i = 0; i < given; ++i) x[i] = fields[i + 1].empty() ? 0.0 : data.real(fields[i + 1]);
      }
      if (num_points_ >= plan_->num_nodes || static_cast<std::int64_t>(given) > dimension)
        data.fail_at(line.offset, "internal error: the counting pass missed this node line");
      x = here.placement.apply(x);
      const std::int64_t index = num_points_;
      if (!here.nodes.insert(label, index))
        data.fail_on(line.text, "node " + std::to_string(label) + " is defined twice" + where(here));
      double* out = points + index * dimension;
      for (std::int64_t axis = 0; axis < dimension; ++axis) out[axis] = x[axis];
      ++num_points_;
      if (set != nullptr) set->push_back(index);
    });
  }

  // Counting: one node per data line; the coordinate count only until it reaches 3.
  // Once the coordinate count is 3, a large section only needs its lines counted (on all cores).
  void count_nodes(const KeywordLine& keyword, InputLines& in) {
    std::vector<std::string_view> fields;
    const auto count_line = [&](InputLines&, const Line& line) {
      ++counted_->num_nodes;
      if (counted_->dimension >= 3) return;
      InputLines::fields(line.text, fields);
      while (fields.size() > 1 && fields.back().empty()) fields.pop_back();
      if (fields.size() >= 2)
        counted_->dimension = std::max(counted_->dimension, static_cast<int>(std::min<std::size_t>(fields.size() - 1, 3)));
    };
    if (reads_input_file(keyword)) return for_each_data_line(keyword, in, count_line);
    Line line;
    while (counted_->dimension < 3 && in.next_data(line)) count_line(in, line);
    if (const std::optional<PlainSection> section = section_from(in)) {
      counted_->num_nodes += sum_over_lines(in.document(), *section, filled_lines);
      in.seek(section->end);
    }
    while (in.next_data(line)) count_line(in, line);
  }

  void read_elements(const KeywordLine& keyword, InputLines& in) {
    const std::string type_name = upper(required(keyword, "TYPE", in));
    const ElementType type = detail::element_type(type_name);
    if (counting_) return type.cell == nullptr ? in.skip_data() : count_elements(keyword, in, type.cell->num_nodes);
    Scope& here = scope(current_);
    Members* set = keyword.has("ELSET") ? &define_set(here, RegionKind::Cell, *keyword.find("ELSET")) : nullptr;
    if (type.cell == nullptr) return skip_elements(keyword, in, here);

    const int nodes_per_cell = type.cell->num_nodes;
    if (next_section_ >= plan_->element_rows.size())
      in.fail_at(keyword.offset, "internal error: the counting pass missed this element section");
    const std::int64_t rows = plan_->element_rows[next_section_++];
    BlockBuild* block = nullptr;
    if (rows > 0) {
      blocks_.push_back({type.cell, num_cells_, NDArray::allocate(DType::int64, {rows, nodes_per_cell}), 0});
      block = &blocks_.back();
    }
    if (!reads_input_file(keyword) && read_elements_in_parallel(in, here, type, block, rows, set)) return;
    std::vector<std::int64_t> record;  // label, then point indices in file order
    record.reserve(static_cast<std::size_t>(nodes_per_cell) + 1);
    std::vector<std::int64_t> values(static_cast<std::size_t>(nodes_per_cell) + 1);
    std::size_t record_offset = 0;
    std::vector<std::string_view> fields;
    const auto read_line = [&](InputLines& data, const Line& line) {
      if (record.empty()) record_offset = line.offset;
      // Fast path: plain integers that fit the record and name known nodes.
      const std::size_t first = record.size();
      const int count = simple_integers(line.text, values.data(), nodes_per_cell + 1 - static_cast<int>(first));
      bool simple = count > 0;
      for (int k = 0; simple && k < count; ++k) {
        if (first + k == 0) {
          record.push_back(values[k]);
          continue;
        }
        const std::int64_t found = here.nodes.find(values[k]);
        if (found < 0) simple = false;
        record.push_back(found);
      }
      if (!simple) {  // the general path, from the record as the line found it
        record.resize(first);
        InputLines::fields(line.text, fields);
        for (const std::string_view field : fields) {
          if (field.empty()) continue;
          if (record.size() == static_cast<std::size_t>(nodes_per_cell) + 1)
            data.fail_on(field, "element " + std::to_string(record[0]) + " has more than the " +
                                    std::to_string(nodes_per_cell) + " nodes of TYPE=" + type_name);
          record.push_back(record.empty() ? data.integer(field) : node_index(here, field, data, record[0]));
        }
      }
      if (record.size() < static_cast<std::size_t>(nodes_per_cell) + 1) return;  // continues on the next line
      add_element(here, record, type, block, data, record_offset);
      if (set != nullptr) set->push_back(num_cells_ - 1);
      record.clear();
    };
    const auto check_complete = [&](InputLines& data) {
      if (!record.empty())
        data.fail_at(record_offset, "element " + std::to_string(record[0]) + " lists " +
                                        std::to_string(record.size() - 1) + " nodes; TYPE=" + type_name + " has " +
                                        std::to_string(nodes_per_cell));
      if (block != nullptr && block->filled != rows)
        data.fail_at(keyword.offset, "internal error: the counting pass disagrees on this element section");
    };
    for_each_data_line(keyword, in, read_line, check_complete);
  }

  // A large element section of one record per line, every node known, on all cores: rows in
  // place, labels indexed afterwards in file order. False (nothing indexed, `in` where it
  // was) when the sequential walk must read it and word its errors.
  bool read_elements_in_parallel(InputLines& in, Scope& here, const ElementType& type, BlockBuild* block,
                                 std::int64_t rows, Members* set) {
    constexpr int kMostValues = 64;
    const int width = type.cell->num_nodes;
    if (block == nullptr || width + 1 > kMostValues) return false;
    const std::optional<PlainSection> section = section_from(in);
    if (!section || static_cast<std::int64_t>(section->lines) != rows) return false;
    io::UninitializedVector<std::int64_t> labels;
    labels.resize(section->lines);
    std::int64_t* const connectivity = block->connectivity.data_as<std::int64_t>();
    const char* const text = in.document().data();
    const std::optional<std::size_t> end = io::parse_section_lines_in_parallel(
        in.document(), section->begin, section->end, section->lines, [&](std::uint64_t i, std::size_t first, std::size_t last) {
          const std::string_view line = detail::trim(std::string_view(text + first, last - first));
          std::int64_t values[kMostValues];
          if (line.empty() || line.front() == '*' || simple_integers(line, values, width + 1) != width + 1) return false;
          labels[i] = values[0];
          std::int64_t* row = connectivity + static_cast<std::int64_t>(i) * width;
          for (int k = 0; k < width; ++k) {
            const std::int64_t found = here.nodes.find(values[k + 1]);
            if (found < 0) return false;
            row[type.file_to_meshio.empty() ? k : type.file_to_meshio[static_cast<std::size_t>(k)]] = found;
          }
          return true;
        });
    if (!end) return false;
    for (std::uint64_t i = 0; i < section->lines; ++i) {
      if (!here.elements.insert(labels[i], num_cells_))
        in.fail_at(plain_line_offset(in, *section, i),
                   "element " + std::to_string(labels[i]) + " is defined twice" + where(here));
      if (set != nullptr) set->push_back(num_cells_);
      ++num_cells_;
    }
    block->filled = rows;
    in.seek(*end);
    return true;
  }

  // Counting: records are the section's field starts over the fields per record.
  void count_elements(const KeywordLine& keyword, InputLines& in, int nodes_per_cell) {
    std::int64_t starts = 0;
    if (!reads_input_file(keyword))
      if (const std::optional<PlainSection> section = section_from(in)) {  // no comment among its lines
        starts = sum_over_lines(in.document(), *section, field_starts);
        in.seek(section->end);
      }
    for_each_data_line(keyword, in, [&](InputLines&, const Line& line) { starts += field_starts(line.text); });
    counted_->element_rows.push_back(starts / (nodes_per_cell + 1));
  }

  // Element types without a meshio counterpart: only their labels are kept, so that sets
  // naming them are not taken for broken. (A record running over several lines lends the
  // continuation lines' first node label too, which is harmless.)
  void skip_elements(const KeywordLine& keyword, InputLines& in, Scope& here) {
    std::vector<std::string_view> fields;
    for_each_data_line(keyword, in, [&](InputLines&, const Line& line) {
      InputLines::fields(line.text, fields);
      std::int64_t label = 0;
      const std::string_view first = fields.front();
      if (std::from_chars(first.data(), first.data() + first.size(), label).ec == std::errc{})
        here.skipped_elements.insert(label);
    });
  }

  void add_element(Scope& here, const std::vector<std::int64_t>& record, const ElementType& type, BlockBuild* block,
                   InputLines& data, std::size_t offset) {
    if (!here.elements.insert(record[0], num_cells_))
      data.fail_at(offset, "element " + std::to_string(record[0]) + " is defined twice" + where(here));
    if (block == nullptr || block->filled >= block->connectivity.rows())
      data.fail_at(offset, "internal error: the counting pass missed element " + std::to_string(record[0]));
    ++num_cells_;
    const std::size_t width = record.size() - 1;
    std::int64_t* row = block->connectivity.data_as<std::int64_t>() + block->filled * static_cast<std::int64_t>(width);
    ++block->filled;
    if (type.file_to_meshio.empty()) {
      for (std::size_t k = 0; k < width; ++k) row[k] = record[k + 1];
      return;
    }
    for (std::size_t k = 0; k < width; ++k) row[type.file_to_meshio[k]] = record[k + 1];
  }

  void read_set(const KeywordLine& keyword, InputLines& in, RegionKind kind) {
    const std::string& name = required(keyword, kind == RegionKind::Point ? "NSET" : "ELSET", in);
    Scope& defining = scope(current_);
    Scope& resolving = keyword.has("INSTANCE") ? instance_scope(*keyword.find("INSTANCE"), keyword, in) : defining;
    Members& members = define_set(defining, kind, name);
    const bool generate = keyword.has("GENERATE");
    std::vector<std::string_view> fields;
    for_each_data_line(keyword, in, [&](InputLines& data, const Line& line) {
      InputLines::fields(line.text, fields);
      while (!fields.empty() && fields.back().empty()) fields.pop_back();
      if (generate) return generate_members(resolving, kind, fields, line, data, members);
      for (const std::string_view field : fields)
        if (!field.empty()) add_members(resolving, kind, field, data, members);
    });
  }

  void generate_members(Scope& resolving, RegionKind kind, const std::vector<std::string_view>& fields,
                        const Line& line, InputLines& data, Members& members) {
    if (fields.size() < 2 || fields.size() > 3)
      data.fail_at(line.offset, "GENERATE needs first, last[, increment]");
    const std::int64_t first = data.integer(fields[0]);
    const std::int64_t last = data.integer(fields[1]);
    const std::int64_t step = fields.size() == 3 ? data.integer(fields[2]) : 1;
    if (step <= 0 || last < first) data.fail_at(line.offset, "GENERATE needs first <= last and an increment > 0");
    // Every label must exist, so a huge range fails at its first hole instead of running on.
    for (std::int64_t label = first; label <= last; label += step) {
      add_label(resolving, kind, label, data, fields[0], members);
      if (last - label < step) break;
    }
  }

  // One data field of a set: a label, "instance.label", a set name or "instance.set".
  void add_members(Scope& resolving, RegionKind kind, std::string_view field, InputLines& data, Members& members) {
    field = detail::unquote(field);
    if (is_label(field)) return add_label(resolving, kind, data.integer(field), data, field, members);
    if (const Members* named = find_set(resolving, kind, field)) return append(members, *named);
    const std::size_t dot = field.rfind('.');
    if (dot != std::string_view::npos) {
      if (Scope* instance = find_scope(field.substr(0, dot))) {
        const std::string_view rest = field.substr(dot + 1);
        if (is_label(rest)) return add_label(*instance, kind, data.integer(rest), data, field, members);
        if (const Members* named = find_set(*instance, kind, rest)) return append(members, *named);
      }
    }
    data.fail_on(field, std::string("unknown ") + kind_word(kind) + " set '" + std::string(field) + "'" +
                            where(resolving));
  }

  void add_label(Scope& resolving, RegionKind kind, std::int64_t label, InputLines& data, std::string_view field,
                 Members& members) {
    const auto& labels = kind == RegionKind::Point ? resolving.nodes : resolving.elements;
    if (const std::int64_t found = labels.find(label); found >= 0) {
      members.push_back(found);
      return;
    }
    if (kind == RegionKind::Cell && resolving.skipped_elements.contains(label)) return;
    data.fail_on(field, std::string("set member: ") + kind_word(kind) + " " + std::to_string(label) +
                            " is not defined" + where(resolving));
  }

  std::int64_t node_index(Scope& here, std::string_view field, InputLines& data, std::int64_t element) {
    Scope* owner = &here;
    std::string_view label_text = field;
    if (!is_label(field)) {  // "instance.label", as assembly-level elements may write
      const std::size_t dot = field.rfind('.');
      owner = dot == std::string_view::npos ? nullptr : find_scope(field.substr(0, dot));
      label_text = dot == std::string_view::npos ? field : field.substr(dot + 1);
      if (owner == nullptr) data.fail_on(field, "expected a node label, found '" + std::string(field) + "'");
    }
    const std::int64_t label = data.integer(label_text);
    const std::int64_t found = owner->nodes.find(label);
    if (found < 0)
      data.fail_on(field, "element " + std::to_string(element) + " refers to node " + std::to_string(label) +
                              ", which is not defined" + where(*owner));
    return found;
  }

  // *SURFACE, TYPE=ELEMENT data lines: "element set or label, Sn". Face labels become the
  // project's local facet numbers; labels other than Sn (SPOS, E1 …) and cells without a
  // face table (lines) are skipped.
  void read_surface(const KeywordLine& keyword, InputLines& in) {
    const std::string* type = keyword.find("TYPE");
    if ((type != nullptr && upper(*type) != "ELEMENT") || !keyword.has("NAME")) return in.skip_data();
    Scope& here = scope(current_);
    Members& pairs = define_set(here, RegionKind::Side, *keyword.find("NAME"));
    std::vector<std::string_view> fields;
    Members cells;
    for_each_data_line(keyword, in, [&](InputLines& data, const Line& line) {
      InputLines::fields(line.text, fields);
      if (fields.size() < 2 || fields[1].size() < 2 || (fields[1][0] != 'S' && fields[1][0] != 's') ||
          !is_label(fields[1].substr(1)))
        return;
      const auto label = data.integer(fields[1].substr(1));
      cells.clear();
      add_members(here, RegionKind::Cell, fields[0], data, cells);
      for (const std::int64_t cell : cells) {
        const std::string_view cell_type = cell_type_of(cell);
        const int facet = detail::facet_of_face(cell_type, static_cast<int>(std::clamp<std::int64_t>(label, 0, 99)));
        if (facet == -1)
          data.fail_on(fields[1], "a " + std::string(cell_type) + " cell has no face " + std::string(fields[1]));
        if (facet >= 0) pairs.insert(pairs.end(), {cell, facet});
      }
    });
  }

  std::string_view cell_type_of(std::int64_t cell) const {
    const auto after = std::upper_bound(blocks_.begin(), blocks_.end(), cell,
                                        [](std::int64_t c, const BlockBuild& block) { return c < block.first_cell; });
    return std::prev(after)->type->name;
  }

  // ---- scopes and sets -----------------------------------------------------------------

  Scope& scope(const std::string& key, std::string_view name = {}) {
    auto [found, inserted] = scopes_.try_emplace(key);
    if (inserted) {
      found->second.name = name.empty() ? key : std::string(name);
      scope_order_.push_back(&found->second);
    }
    return found->second;
  }

  Scope* find_scope(std::string_view name) {
    const auto found = scopes_.find(upper(name));
    return found == scopes_.end() ? nullptr : &found->second;
  }

  Scope& instance_scope(const std::string& name, const KeywordLine& keyword, InputLines& in) {
    Scope* found = find_scope(name);
    if (found == nullptr) in.fail_at(keyword.offset, "unknown instance '" + name + "'");
    return *found;
  }

  static const Members* find_set(Scope& scope, RegionKind kind, std::string_view name) {
    const SetTable& table = scope.sets(kind);
    const auto found = table.find(upper(name));
    return found == table.end() ? nullptr : &found->second;
  }

  // The members of set `name` in `owner`, created empty (and given a region) on first use.
  Members& define_set(Scope& owner, RegionKind kind, const std::string& name) {
    const std::string key = upper(name);
    const bool known = std::any_of(region_names_.begin(), region_names_.end(),
                                   [&](const RegionName& r) { return r.kind == kind && r.key == key; });
    if (!known) region_names_.push_back({kind, key, name});
    return owner.sets(kind)[key];
  }

  // Through a copy: a set may name itself.
  static void append(Members& members, const Members& named) {
    const Members copy = named;
    members.insert(members.end(), copy.begin(), copy.end());
  }

  static std::string where(const Scope& scope) {
    return scope.name.empty() ? std::string() : " in '" + scope.name + "'";
  }

  // ---- the mesh ------------------------------------------------------------------------

  Mesh build() {
    Mesh mesh;
    mesh.points = std::move(points_);
    for (BlockBuild& block : blocks_)
      mesh.cells.push_back(CellBlock{std::string(block.type->name), std::move(block.connectivity), {}, {}});
    for (const RegionName& name : region_names_) mesh.regions.push_back(build_region(name));
    return mesh;
  }

  // Members of every scope's set of this name, sorted and unique.
  Region build_region(const RegionName& name) {
    const bool sides = name.kind == RegionKind::Side;
    std::vector<std::array<std::int64_t, 2>> entries;  // (member, face); face 0 unless sides
    for (Scope* scope : scope_order_) {
      const SetTable& table = scope->sets(name.kind);
      const auto found = table.find(name.key);
      if (found == table.end()) continue;
      const Members& members = found->second;
      for (std::size_t i = 0; i < members.size(); i += sides ? 2 : 1)
        entries.push_back({members[i], sides ? members[i + 1] : 0});
    }
    std::sort(entries.begin(), entries.end());
    entries.erase(std::unique(entries.begin(), entries.end()), entries.end());

    Region region;
    region.name = name.name;
    region.kind = name.kind;
    const auto count = static_cast<std::int64_t>(entries.size());
    region.entries = sides ? NDArray::allocate(DType::int64, {count, 2}) : NDArray::allocate(DType::int64, {count});
    std::int64_t* out = region.entries.data_as<std::int64_t>();
    for (const auto& [member, face] : entries) {
      *out++ = member;
      if (sides) *out++ = face;
    }
    return region;
  }

  FileCache& files_;
  const Plan* plan_;   // the reading pass: what the counting pass found
  Plan* counted_;      // the counting pass: what it finds
  bool counting_;
  std::map<std::string, PartBody> parts_;
  std::vector<std::string> part_order_;
  std::map<std::string, Scope> scopes_;
  std::vector<Scope*> scope_order_;  // creation order: region members merge in it
  std::string current_;              // key of the scope definitions go to; "" = model level
  bool has_assembly_ = false;
  int nesting_depth_ = 0;                // includes and instanced part bodies being read
  std::vector<std::string> file_chain_;  // files being read, outermost first (same_file_key)
  std::vector<std::string> part_chain_;  // parts whose bodies are being read, outermost first

  NDArray points_;  // (nodes, dimension), allocated once
  std::int64_t num_points_ = 0;
  std::size_t next_section_ = 0;  // index into plan_->element_rows
  std::deque<BlockBuild> blocks_;  // a deque: a section keeps a pointer to its block
  std::int64_t num_cells_ = 0;
  std::vector<RegionName> region_names_;
};

}  // namespace

Mesh read(const std::string& path) {
  FileCache files;
  Plan plan;
  Reader(files, nullptr, &plan).count(path);
  return Reader(files, &plan).read(path);
}

}  // namespace meshioplusplus::abaqus
