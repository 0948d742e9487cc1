// Tecplot ASCII reader: finite-element zones.
//
// Records: TITLE = "…", FILETYPE = …, VARIABLES = names (quoted or not, separated by commas
// or blanks; quoted names may continue on the following lines), then ZONE records. A zone
// header is KEY = VALUE pairs over one or more lines (values quoted, parenthesised or plain),
// ending where the first number starts. Keys understood: N/NODES, E/ELEMENTS,
// ZONETYPE=FE{LINESEG,TRIANGLE,QUADRILATERAL,TETRAHEDRON,BRICK} with DATAPACKING=POINT|BLOCK
// (BLOCK when absent, as Tecplot), the old F=FEPOINT|FEBLOCK with ET=…, VARLOCATION=([i,j-k]=
// CELLCENTERED, …) and the old NV=k (variables after the k-th are cell-centred). T, DT,
// STRANDID, SOLUTIONTIME, C, I/J/K and AUXDATA are accepted and ignored; sharing
// (VARSHARELIST, CONNECTIVITYSHAREZONE), passive variables, face neighbours, ordered and
// polygonal zones are refused with a ReadError. DATASETAUXDATA/VARAUXDATA lines are skipped.
// Lines starting with '#' are comments. Values are separated by blanks or commas.
//
// What becomes what, as meshio: variables X, Y and optionally Z (or x, y, z) become the
// points float64 (n, 2|3); other nodal variables point data and cell-centred variables cell
// data, float64 (n,), named as written with blanks turned into '_' (meshio's reading of a
// two-word name). Each zone is one cell block, in its zone's type; node indices are 1-based in
// the file. meshio reads the first zone only; here every zone is read, their nodes
// concatenated, and — when there are several — each zone also becomes a Cell region named by
// its title (T) or "zone <k>". Zones must agree on which variables are cell-centred.
//
// Arrays: each zone's header gives its counts, so its arrays are allocated once in final
// shape; several zones are concatenated at the end (one copy of the point arrays). A large
// connectivity of one element per line of plain node numbers (what writers print) is read on
// all cores; any other layout (commas, comments, elements over several lines) and any number
// out of range leave it to the value walk, which words the errors as before.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/tecplot/tecplot.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::tecplot {
namespace {

constexpr std::string_view kFormat = "tecplot";

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool starts_number(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '+' || c == '.'; }

struct ZoneType {
  std::string_view name;  // without the FE prefix
  std::string_view cell_type;
  int num_nodes;
};
constexpr ZoneType kZoneTypes[] = {
    {"LINESEG", "line", 2},     {"TRIANGLE", "triangle", 3}, {"QUADRILATERAL", "quad", 4},
    {"TETRAHEDRON", "tetra", 4}, {"BRICK", "hexahedron", 8},
};

struct Value {
  std::string_view text;  // without quotes
  std::size_t offset;
};

struct Zone {
  std::string title;
  const ZoneType* type = nullptr;
  bool block = true;
  std::int64_t nodes = 0, cells = 0;
  std::vector<char> cell_centered;  // per variable
  std::size_t offset = 0;           // of the ZONE keyword
};

struct ZoneArrays {
  NDArray points;
  std::vector<NDArray> variables;  // per variable; empty handle for the coordinates
  CellBlock block;
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : doc_(bytes), path_(path) {}

  Mesh read() {
    std::vector<Zone> zones;
    std::vector<ZoneArrays> arrays;
    std::int64_t node_base = 0;
    while (true) {
      skip_separators();
      if (pos_ >= doc_.size()) break;
      const std::size_t start = pos_;
      const std::string keyword = upper(word());
      if (keyword.empty()) fail_at(start, "expected a record (TITLE, VARIABLES, ZONE), found '" + snippet(start) + "'");
      if (keyword == "TITLE" || keyword == "FILETYPE") {
        expect_equals();
        value();
      } else if (keyword == "VARIABLES") {
        // The zones read so far hold one array per variable of the list they were read with.
        if (!zones.empty()) fail_at(start, "VARIABLES after a ZONE (the variable list must come before the zones)");
        read_variables();
      } else if (keyword == "DATASETAUXDATA" || keyword == "VARAUXDATA") {
        skip_line();
      } else if (keyword == "ZONE") {
        if (variables_.empty()) fail_at(start, "ZONE before VARIABLES");
        Zone zone = read_zone_header(start);
        if (!zones.empty() && zone.cell_centered != zones.front().cell_centered)
          fail_at(start, "this zone places variables differently (nodal/cell-centred) from the first zone");
        arrays.push_back(read_zone_data(zone, node_base));
        node_base += zone.nodes;
        zones.push_back(std::move(zone));
      } else {
        fail_at(start, "unsupported Tecplot record '" + keyword.substr(0, 32) + "'");
      }
    }
    if (zones.empty()) fail_at(doc_.size(), "no ZONE in the file");
    return assemble(zones, arrays, node_base);
  }

 private:
  // ---- tokens ----

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(doc_, offset));
  }
  std::string snippet(std::size_t offset) const {
    std::size_t end = offset;
    while (end < doc_.size() && !io::is_space(doc_[end]) && end - offset < 32) ++end;
    return std::string(doc_.substr(offset, end - offset));
  }
  bool at_line_start(std::size_t offset) const {
    while (offset > 0 && (doc_[offset - 1] == ' ' || doc_[offset - 1] == '\t')) --offset;
    return offset == 0 || doc_[offset - 1] == '\n' || doc_[offset - 1] == '\r';
  }
  // Blanks, line breaks, commas and '#' comment lines.
  void skip_separators() {
    while (pos_ < doc_.size()) {
      const char c = doc_[pos_];
      if (io::is_space(c) || c == ',') {
        ++pos_;
      } else if (c == '#' && at_line_start(pos_)) {
        skip_line();
      } else {
        break;
      }
    }
  }
  void skip_blanks() {
    while (pos_ < doc_.size() && (doc_[pos_] == ' ' || doc_[pos_] == '\t' || doc_[pos_] == '\r')) ++pos_;
  }
  void skip_line() {
    while (pos_ < doc_.size() && doc_[pos_] != '\n') ++pos_;
  }
  std::string_view word() {
    const std::size_t start = pos_;
    while (pos_ < doc_.size() && is_word_char(doc_[pos_])) ++pos_;
    return doc_.substr(start, pos_ - start);
  }
  void expect_equals() {
    skip_blanks_and_breaks();
    if (pos_ >= doc_.size() || doc_[pos_] != '=') fail_at(pos_, "expected '=', found '" + snippet(pos_) + "'");
    ++pos_;
    skip_blanks_and_breaks();
  }
  void skip_blanks_and_breaks() {
    while (pos_ < doc_.size() && io::is_space(doc_[pos_])) ++pos_;
  }
  // A quoted string, a parenthesised list or a plain token (ends at a blank or comma).
  Value value() {
    const std::size_t start = pos_;
    if (pos_ < doc_.size() && doc_[pos_] == '"') {
      const std::size_t close = doc_.find('"', pos_ + 1);
      if (close == std::string_view::npos) fail_at(start, "unterminated quoted string");
      pos_ = close + 1;
      return {doc_.substr(start + 1, close - start - 1), start + 1};
    }
    if (pos_ < doc_.size() && doc_[pos_] == '(') {
      const std::size_t close = doc_.find(')', pos_);
      if (close == std::string_view::npos) fail_at(start, "unterminated '(' list");
      pos_ = close + 1;
      return {doc_.substr(start + 1, close - start - 1), start + 1};
    }
    while (pos_ < doc_.size() && !io::is_space(doc_[pos_]) && doc_[pos_] != ',') ++pos_;
    if (pos_ == start) fail_at(start, "expected a value");
    return {doc_.substr(start, pos_ - start), start};
  }

  template <class T> T number() {
    skip_separators();
    std::size_t end = pos_;
    while (end < doc_.size() && !io::is_space(doc_[end]) && doc_[end] != ',') ++end;
    io::TextScanner scanner(doc_, pos_, end, path_, kFormat);
    if (pos_ >= doc_.size()) scanner.fail("unexpected end of file while reading zone data");
    const T value = scanner.next_number<T>();
    pos_ = end;
    return value;
  }

  // ---- records ----

  void read_variables() {
    expect_equals();
    variables_.clear();
    std::size_t line_end = doc_.find('\n', pos_);
    while (true) {
      while (pos_ < doc_.size() && (io::is_space(doc_[pos_]) || doc_[pos_] == ',')) {
        if (doc_[pos_] == '\n') break;
        ++pos_;
      }
      // Past the line of the previous name only a quoted name continues the list.
      std::size_t probe = pos_;
      while (probe < doc_.size() && (io::is_space(doc_[probe]) || doc_[probe] == ',')) ++probe;
      if (probe >= doc_.size()) break;
      const bool same_line = line_end == std::string_view::npos || probe < line_end;
      if (!same_line && doc_[probe] != '"') break;
      pos_ = probe;
      std::string name(value().text);
      std::replace(name.begin(), name.end(), ' ', '_');
      variables_.push_back(std::move(name));
      line_end = doc_.find('\n', pos_);
    }
    if (variables_.empty()) fail_at(pos_, "VARIABLES lists no variable");
  }

  Zone read_zone_header(std::size_t zone_offset) {
    Zone zone;
    zone.offset = zone_offset;
    zone.cell_centered.assign(variables_.size(), 0);
    std::optional<Value> nodes, cells, zonetype, packing, f, et, varlocation, nv;
    while (true) {
      skip_separators();
      if (pos_ >= doc_.size() || starts_number(doc_[pos_])) break;
      const std::size_t key_offset = pos_;
      const std::string key = upper(word());
      if (key.empty()) fail_at(key_offset, "unexpected '" + snippet(key_offset) + "' in a zone header");
      if (key == "AUXDATA") {
        skip_blanks();
        word();
      }
      expect_equals();
      const Value v = value();
      if (key == "T") zone.title = std::string(v.text);
      else if (key == "N" || key == "NODES") nodes = v;
      else if (key == "E" || key == "ELEMENTS") cells = v;
      else if (key == "ZONETYPE") zonetype = v;
      else if (key == "DATAPACKING") packing = v;
      else if (key == "F") f = v;
      else if (key == "ET") et = v;
      else if (key == "VARLOCATION") varlocation = v;
      else if (key == "NV") nv = v;
      else if (key == "VARSHARELIST" || key == "CONNECTIVITYSHAREZONE" || key == "PASSIVEVARLIST" ||
               key == "FACENEIGHBORCONNECTIONS" || key == "FACENEIGHBORMODE")
        fail_at(key_offset, "zone option " + key + " is not supported");
      // T, DT, STRANDID, SOLUTIONTIME, PARENTZONE, C, I/J/K, AUXDATA: nothing to keep.
    }

    std::string type_name;
    std::size_t type_offset = zone_offset;
    if (f) {
      const std::string format = upper(f->text);
      if (format != "FEPOINT" && format != "FEBLOCK")
        fail_at(f->offset, "only finite-element zones are supported (F=FEPOINT or FEBLOCK), not F=" + format);
      zone.block = format == "FEBLOCK";
      if (!et) fail_at(zone_offset, "the zone has F= but no element type ET=");
      type_name = upper(et->text);
      type_offset = et->offset;
    } else {
      if (packing) {
        const std::string p = upper(packing->text);
        if (p != "POINT" && p != "BLOCK") fail_at(packing->offset, "DATAPACKING must be POINT or BLOCK");
        zone.block = p == "BLOCK";
      }
      if (!zonetype) fail_at(zone_offset, "ordered zones are not supported: the zone has no ZONETYPE=FE…");
      type_name = upper(zonetype->text);
      type_offset = zonetype->offset;
    }
    if (type_name.starts_with("FE")) type_name.erase(0, 2);
    for (const ZoneType& t : kZoneTypes)
      if (t.name == type_name) zone.type = &t;
    if (zone.type == nullptr)
      fail_at(type_offset, "unsupported zone type '" + type_name +
                               "' (supported: FELINESEG, FETRIANGLE, FEQUADRILATERAL, FETETRAHEDRON, FEBRICK)");

    zone.nodes = count_value(nodes, "node count (N= or NODES=)", zone_offset);
    zone.cells = count_value(cells, "element count (E= or ELEMENTS=)", zone_offset);
    // Every value takes at least two bytes: a corrupt count must not drive a huge allocation.
    const std::uint64_t room = (doc_.size() - pos_) / 2 + 1;
    if (static_cast<std::uint64_t>(zone.nodes) > room || static_cast<std::uint64_t>(zone.cells) > room)
      fail_at(zone_offset, "the zone announces more nodes or elements than the rest of the file can hold");

    if (nv) {
      const std::int64_t count = count_value(nv, "NV", zone_offset);
      for (std::size_t v = static_cast<std::size_t>(std::min<std::int64_t>(count, static_cast<std::int64_t>(variables_.size())));
           v < variables_.size(); ++v)
        zone.cell_centered[v] = 1;
    }
    if (varlocation) parse_varlocation(*varlocation, zone.cell_centered);
    if (!zone.block && std::find(zone.cell_centered.begin(), zone.cell_centered.end(), 1) != zone.cell_centered.end())
      fail_at(zone_offset, "cell-centred variables need BLOCK data packing");
    return zone;
  }

  std::int64_t count_value(const std::optional<Value>& v, const std::string& what, std::size_t zone_offset) const {
    if (!v) fail_at(zone_offset, "the zone has no " + what);
    io::TextScanner scanner(doc_, v->offset, v->offset + v->text.size(), path_, kFormat);
    const auto count = scanner.next_number<std::int64_t>();
    if (count < 0) fail_at(v->offset, "negative " + what);
    return count;
  }

  // "[1-2,5]=CELLCENTERED, [3]=NODAL" (1-based variable numbers).
  void parse_varlocation(const Value& v, std::vector<char>& cell_centered) const {
    std::size_t i = 0;
    const std::string_view text = v.text;
    const auto fail = [&](const std::string& message) { fail_at(v.offset + std::min(i, text.size()), message); };
    while (true) {
      while (i < text.size() && (io::is_space(text[i]) || text[i] == ',')) ++i;
      if (i >= text.size()) break;
      if (text[i] != '[') fail("expected '[' in VARLOCATION");
      const std::size_t close = text.find(']', i);
      if (close == std::string_view::npos) fail("unterminated '[' in VARLOCATION");
      std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
      std::size_t j = i + 1;
      while (j < close) {
        while (j < close && (io::is_space(text[j]) || text[j] == ',')) ++j;
        if (j >= close) break;
        std::size_t stop = j;
        while (stop < close && std::isdigit(static_cast<unsigned char>(text[stop]))) ++stop;
        io::TextScanner first(doc_, v.offset + j, v.offset + stop, path_, kFormat);
        const auto lo = first.next_number<std::int64_t>();
        std::int64_t hi = lo;
        j = stop;
        while (j < close && io::is_space(text[j])) ++j;
        if (j < close && text[j] == '-') {
          ++j;
          while (j < close && io::is_space(text[j])) ++j;
          stop = j;
          while (stop < close && std::isdigit(static_cast<unsigned char>(text[stop]))) ++stop;
          io::TextScanner second(doc_, v.offset + j, v.offset + stop, path_, kFormat);
          hi = second.next_number<std::int64_t>();
          j = stop;
        }
        if (lo < 1 || hi < lo || hi > static_cast<std::int64_t>(cell_centered.size())) {
          i = j;
          fail("VARLOCATION names variables " + std::to_string(lo) + "-" + std::to_string(hi) + ", outside 1-" +
               std::to_string(cell_centered.size()));
        }
        ranges.emplace_back(lo, hi);
      }
      i = close + 1;
      while (i < text.size() && io::is_space(text[i])) ++i;
      if (i >= text.size() || text[i] != '=') fail("expected '=' after ']' in VARLOCATION");
      ++i;
      while (i < text.size() && io::is_space(text[i])) ++i;
      std::size_t stop = i;
      while (stop < text.size() && is_word_char(text[stop])) ++stop;
      const std::string location = upper(text.substr(i, stop - i));
      if (location != "CELLCENTERED" && location != "NODAL") fail("VARLOCATION must be NODAL or CELLCENTERED");
      for (const auto& [lo, hi] : ranges)
        for (std::int64_t k = lo; k <= hi; ++k) cell_centered[static_cast<std::size_t>(k - 1)] = location == "CELLCENTERED";
      i = stop;
    }
  }

  // ---- zone data ----

  // Where each variable's values go: a column of the points or its own array.
  struct Destination {
    double* base;
    std::int64_t stride;
  };

  void find_coordinates() {
    if (!coordinates_.empty()) return;
    const auto find = [&](std::string_view upper_name, std::string_view lower_name) -> int {
      for (std::string_view name : {upper_name, lower_name})
        for (std::size_t v = 0; v < variables_.size(); ++v)
          if (variables_[v] == name) return static_cast<int>(v);
      return -1;
    };
    const int x = find("X", "x"), y = find("Y", "y"), z = find("Z", "z");
    if (x < 0 || y < 0) fail_at(0, "the VARIABLES need X and Y");
    coordinates_ = {x, y};
    if (z >= 0) coordinates_.push_back(z);
  }

  ZoneArrays read_zone_data(const Zone& zone, std::int64_t node_base) {
    find_coordinates();
    // All values of the zone (every variable at its nodes or cells, then the connectivity)
    // take at least two bytes each: checked together before any array is allocated, since
    // each count alone fitting does not make their sum fit.
    std::uint64_t values = 0;
    bool overflow = false;
    const auto add = [&](std::uint64_t count, std::uint64_t each) {
      const std::optional<std::uint64_t> product = io::checked_product(count, each);
      overflow |= !product || __builtin_add_overflow(values, *product, &values);
    };
    for (std::size_t v = 0; v < variables_.size(); ++v)
      add(static_cast<std::uint64_t>(zone.cell_centered[v] ? zone.cells : zone.nodes), 1);
    add(static_cast<std::uint64_t>(zone.cells), static_cast<std::uint64_t>(zone.type->num_nodes));
    if (overflow || values > (doc_.size() - pos_) / 2 + 1)
      fail_at(zone.offset, "the zone's node and element counts need more values than the rest of the file can hold");
    ZoneArrays out;
    const auto dim = static_cast<std::int64_t>(coordinates_.size());
    out.points = NDArray::allocate(DType::float64, {zone.nodes, dim});
    std::vector<Destination> destinations(variables_.size());
    out.variables.resize(variables_.size());
    for (std::size_t v = 0; v < variables_.size(); ++v) {
      const auto axis = std::find(coordinates_.begin(), coordinates_.end(), static_cast<int>(v));
      if (axis != coordinates_.end()) {
        if (zone.cell_centered[v]) fail_at(zone.offset, "coordinate variable '" + variables_[v] + "' is cell-centred");
        destinations[v] = {out.points.data_as<double>() + (axis - coordinates_.begin()), dim};
      } else {
        out.variables[v] = NDArray::allocate(DType::float64, {zone.cell_centered[v] ? zone.cells : zone.nodes});
        destinations[v] = {out.variables[v].data_as<double>(), 1};
      }
    }
    if (zone.block) {
      for (std::size_t v = 0; v < variables_.size(); ++v) {
        const std::int64_t count = zone.cell_centered[v] ? zone.cells : zone.nodes;
        for (std::int64_t i = 0; i < count; ++i) destinations[v].base[i * destinations[v].stride] = number<double>();
      }
    } else {
      for (std::int64_t i = 0; i < zone.nodes; ++i)
        for (const Destination& d : destinations) d.base[i * d.stride] = number<double>();
    }

    const int k = zone.type->num_nodes;
    out.block = {std::string(zone.type->cell_type), NDArray::allocate(DType::int64, {zone.cells, k}), {}, {}};
    std::int64_t* corners = out.block.connectivity.data_as<std::int64_t>();
    if (read_connectivity_in_parallel(zone, k, node_base, corners)) return out;
    for (std::int64_t i = 0; i < zone.cells * k; ++i) {
      skip_separators();
      const std::size_t offset = pos_;
      const auto node = number<std::int64_t>();
      if (node < 1 || node > zone.nodes)
        fail_at(offset, "element " + std::to_string(i / k + 1) + " refers to node " + std::to_string(node) +
                            ", outside 1-" + std::to_string(zone.nodes));
      corners[i] = node - 1 + node_base;
    }
    return out;
  }

  // The zone's elements, one per line of `k` node numbers in range, on all cores; false
  // (nothing moved) when the value walk must read them.
  bool read_connectivity_in_parallel(const Zone& zone, int k, std::int64_t node_base, std::int64_t* corners) {
    const std::optional<std::size_t> begin = io::records_begin(doc_, pos_);
    if (!begin || zone.cells < 2) return false;
    const char* const text = doc_.data();
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(
        doc_, *begin, static_cast<std::uint64_t>(zone.cells), [&](std::uint64_t i, std::size_t first, std::size_t last) {
          io::LineValues values(text + first, text + last, text + doc_.size());
          std::int64_t* const out = corners + static_cast<std::int64_t>(i) * k;
          for (int j = 0; j < k; ++j) {
            std::int64_t node = 0;
            if (!values.next(node) || node < 1 || node > zone.nodes) return false;
            out[j] = node - 1 + node_base;
          }
          return values.done();
        });
    if (!end) return false;
    pos_ = *end;
    return true;
  }

  Mesh assemble(const std::vector<Zone>& zones, std::vector<ZoneArrays>& arrays, std::int64_t total_nodes) {
    Mesh mesh;
    const std::size_t nvars = variables_.size();
    if (zones.size() == 1) {
      mesh.points = std::move(arrays[0].points);
      for (std::size_t v = 0; v < nvars; ++v) {
        if (arrays[0].variables[v].empty_handle()) continue;
        if (zones[0].cell_centered[v]) mesh.cell_data.set(variables_[v], {std::move(arrays[0].variables[v])});
        else mesh.point_data.set(variables_[v], std::move(arrays[0].variables[v]));
      }
      mesh.cells.push_back(std::move(arrays[0].block));
      return mesh;
    }
    const auto concatenate = [&](auto get, std::int64_t rows, std::int64_t width) {
      NDArray out = NDArray::allocate(DType::float64, width == 0 ? Shape{rows} : Shape{rows, width});
      double* dst = out.data_as<double>();
      for (ZoneArrays& zone : arrays) {
        const NDArray& part = get(zone);
        dst = std::copy_n(part.data_as<double>(), part.size(), dst);
      }
      return out;
    };
    mesh.points = concatenate([](ZoneArrays& z) -> const NDArray& { return z.points; }, total_nodes,
                              static_cast<std::int64_t>(coordinates_.size()));
    for (std::size_t v = 0; v < nvars; ++v) {
      if (arrays[0].variables[v].empty_handle()) continue;
      if (zones[0].cell_centered[v]) {
        std::vector<NDArray> per_block;
        for (ZoneArrays& zone : arrays) per_block.push_back(std::move(zone.variables[v]));
        mesh.cell_data.set(variables_[v], std::move(per_block));
      } else {
        mesh.point_data.set(variables_[v],
                            concatenate([v](ZoneArrays& z) -> const NDArray& { return z.variables[v]; }, total_nodes, 0));
      }
    }
    std::int64_t first_cell = 0;
    for (std::size_t z = 0; z < zones.size(); ++z) {
      const std::int64_t count = arrays[z].block.num_cells();
      Region region;
      region.name = zones[z].title.empty() ? "zone " + std::to_string(z + 1) : zones[z].title;
      region.kind = RegionKind::Cell;
      region.dim = cell_type(arrays[z].block.type).dimension;
      region.entries = NDArray::allocate(DType::int64, {count});
      std::int64_t* entries = region.entries.data_as<std::int64_t>();
      for (std::int64_t i = 0; i < count; ++i) entries[i] = first_cell + i;
      first_cell += count;
      mesh.regions.push_back(std::move(region));
      mesh.cells.push_back(std::move(arrays[z].block));
    }
    return mesh;
  }

  std::string_view doc_;
  const std::string& path_;
  std::size_t pos_ = 0;
  std::vector<std::string> variables_;
  std::vector<int> coordinates_;  // variable index of x, y[, z]
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::tecplot
