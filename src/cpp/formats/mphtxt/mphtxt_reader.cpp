// COMSOL .mphtxt reader.
//
// Layout: a stream of count-prefixed records, '#' starting a comment (COMSOL labels each
// number with one: "9 # number of mesh points"). The header: the version "0 1", the tags
// (one per object; strings are written "length text": "5 mesh1") and the types ("3 obj"); then
// per object the serialization triple "0 0 1" and its class. A Mesh object (class version 1
// or 2, COMSOL 3.5 and 4, or 4, COMSOL 5 and later) holds: the space dimension, the point count and the
// lowest point index, the coordinates, the number of element types and per type: its name
// (vtx, edg, edg2, tri, tri2, quad, quad2, tet, tet2, pyr, prism, hex, hex2), nodes per
// element, the element count and the elements (point indices from the lowest index), before
// version 4 the parameter values (a line per element, skipped), the geometric entity
// index of each element ("domains" in version 1), and before version 4 the up/down pairs
// (skipped). Reading stops at the first object that is not a
// Mesh (geometry: Geom2, BezierCurve …), as meshio++ 17.21 does; a file without a Mesh object
// is a ReadError.
//
// What becomes what: points float64 (n, sdim), the objects' points one after the other; one
// cell block per element type and object, in file order, COMSOL's lexicographic node order
// turned into ours (mphtxt_types.hpp); the geometric entity indices become cell data
// "mphtxt:geometric_entity" int64 (meshio++ 17.21 calls it "mphtxt:geom") and Cell regions,
// one per dimension and entity, named "dim D entity N" (prefixed by the object's tag and ": "
// when the file has several objects, each of which is then also a Cell region of its own,
// named by its tag, as in 17.21). Prisms come in our (meshio's) wedge order. Every count is checked against the file's length before it
// is allocated, every index against the object's points.
// Speed: coordinates, elements and entity indices written one record a line (COMSOL's layout
// and ours) are read line by line without the token loop, on all cores where the section is
// large (io::parse_lines_in_parallel); any other layout goes to the token loop, which words
// the errors.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/mphtxt/mphtxt.hpp"
#include "formats/mphtxt/mphtxt_types.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/line_values.hpp"
#include "io/text/significant_lines.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::mphtxt {
namespace {

constexpr std::string_view kFormat = "mphtxt";
using detail::ElementType;

// The numbers and words of the significant lines ('#' comments cut), one after the other.
class Tokens {
 public:
  Tokens(std::string_view bytes, const std::string& path) : lines_(bytes, path, kFormat, '#'), bytes_(bytes), size_(bytes.size()) {}

  bool at_end() { return !fill(); }
  std::size_t position() { return fill() ? scanner_->position() : size_; }
  // Bytes after what has been read (the next line is not looked at: skip_lines relies on it).
  std::size_t bytes_left() const { return size_ - (scanner_ ? scanner_->position() : lines_.position()); }

  // `what` names the value in errors only: a view, so hot loops build no string.
  template <class T> T number(std::string_view what) {
    if (!scanner_ || (scanner_->skip_whitespace(), scanner_->at_end())) [[unlikely]]
      if (!fill()) lines_.fail("unexpected end of file: expected " + std::string(what));
    return scanner_->next_number<T>();
  }
  std::int64_t count(std::string_view what) {
    const std::size_t at = position();
    const auto value = number<std::int64_t>(what);
    if (value < 0) fail_at(at, "negative " + std::string(what));
    return value;
  }
  // COMSOL's "length text" strings.
  std::string_view text(const std::string& what) {
    const std::size_t at = position();
    const std::int64_t length = count("the length of " + what);
    if (!fill()) lines_.fail("unexpected end of file: expected " + what);
    const std::string_view word = scanner_->next_token();
    if (static_cast<std::int64_t>(word.size()) != length)
      fail_at(at, what + " '" + std::string(word.substr(0, 40)) + "' is announced with " + std::to_string(length) +
                      " characters");
    return word;
  }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const { lines_.fail_at(offset, message); }

  // Skips the rest of the current line and `count` more significant lines.
  void skip_lines(std::int64_t count, const std::string& what) {
    scanner_.reset();
    for (std::int64_t i = 0; i < count; ++i)
      if (!lines_.next()) lines_.fail("unexpected end of file: expected " + what);
  }

 private:
  bool fill() {
    while (!scanner_ || (scanner_->skip_whitespace(), scanner_->at_end())) {
      const std::optional<io::LineSpan> line = lines_.next();
      if (!line) return false;
      scanner_.emplace(lines_.scanner(*line));
    }
    return true;
  }

  io::SignificantLines lines_;
  std::string_view bytes_;
  std::size_t size_;
  std::optional<io::TextScanner> scanner_;

 public:
  // `rows` records of `width` values of type T, each a significant line of its own — what
  // COMSOL and our writer produce — read on all cores from the next line on: `store(row,
  // values)` keeps a row (it may refuse it: false). Each line is read as the token loop sees
  // it (comment cut). False, with reading where it was, when the current line still holds
  // values or any line is laid out otherwise (several records a line, a record over two
  // lines, a blank line, a value that is none …): the token loop then reads the records and
  // words any error.
  template <class T, class Store> bool rows_in_parallel(std::int64_t rows, int width, const Store& store) {
    if (rows < 2 || width < 1 || width > 27) return false;
    if (scanner_ && (scanner_->skip_whitespace(), !scanner_->at_end())) return false;
    const std::size_t before = lines_.position();
    const std::optional<io::LineSpan> first = lines_.next();
    lines_.seek(before);
    if (!first) return false;
    std::size_t start = first->begin;  // the raw line's start: the parallel pass cuts lines there
    while (start > before && bytes_[start - 1] != '\n') --start;
    const char* const text = bytes_.data();
    const auto read_row = [&](std::uint64_t row, std::size_t from, std::size_t to) {
      const std::optional<io::LineSpan> line = lines_.significant_part(from, to);
      if (!line) return false;  // blank or comment only: the token loop passes over it
      io::LineValues values(text + line->begin, text + line->end, text + bytes_.size());
      T row_values[27];
      for (int k = 0; k < width; ++k)
        if (!values.next(row_values[k])) return false;
      return values.done() && store(static_cast<std::int64_t>(row), row_values);
    };
    std::optional<std::size_t> end = io::parse_lines_in_parallel(bytes_, start, static_cast<std::uint64_t>(rows), read_row);
    if (!end) end = rows_one_by_one(start, rows, read_row);  // a small section, or one thread
    if (!end) return false;
    scanner_.reset();
    lines_.seek(*end);
    return true;
  }

 private:
  // rows_in_parallel's lines on this thread, without the token loop's per-value cost (the
  // geometric entity indices: a million two-byte lines). The offset past the last row's
  // line, or nullopt where a line is not one plain record.
  template <class ReadRow> std::optional<std::size_t> rows_one_by_one(std::size_t at, std::int64_t rows, const ReadRow& read_row) const {
    for (std::int64_t row = 0; row < rows; ++row) {
      if (at >= bytes_.size()) return std::nullopt;
      const char* const newline = io::find_newline(bytes_.data() + at, bytes_.data() + bytes_.size());
      const std::size_t stop = newline ? static_cast<std::size_t>(newline - bytes_.data()) : bytes_.size();
      if (!read_row(static_cast<std::uint64_t>(row), at, stop)) return std::nullopt;
      at = newline ? stop + 1 : stop;
    }
    return at;
  }
};

struct RegionKey {
  int object;
  int dim;
  std::int64_t entity;
  bool operator<(const RegionKey& other) const {
    return std::tie(object, dim, entity) < std::tie(other.object, other.dim, other.entity);
  }
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : tokens_(bytes, path), path_(path), size_(bytes.size()) {}

  Mesh read() {
    tokens_.number<std::int64_t>("the major version");
    tokens_.number<std::int64_t>("the minor version");
    const std::int64_t num_tags = tokens_.count("the number of tags");
    check(num_tags, 4, "tags");
    for (std::int64_t i = 0; i < num_tags; ++i) tags_.emplace_back(tokens_.text("a tag"));
    const std::int64_t num_types = tokens_.count("the number of types");
    check(num_types, 4, "types");
    for (std::int64_t i = 0; i < num_types; ++i) tokens_.text("a type");
    for (std::int64_t object = 0; object < num_tags && !tokens_.at_end(); ++object) {
      for (int k = 0; k < 3; ++k) tokens_.number<std::int64_t>("the object's serialization header");
      const std::size_t at = tokens_.position();
      const std::string_view object_class = tokens_.text("the object's class");
      if (object_class != "Mesh") {
        if (object == 0) tokens_.fail_at(at, "object 0 is a '" + std::string(object_class) + "', not a Mesh: the file holds no mesh");
        break;  // geometry after the meshes: not read
      }
      read_mesh(static_cast<int>(object));
    }
    if (objects_read_ == 0) tokens_.fail_at(tokens_.position(), "the file holds no Mesh object");
    return finish();
  }

 private:
  void check(std::int64_t count, std::uint64_t min_bytes, const char* what) {
    const std::size_t left = tokens_.bytes_left();
    io::check_claim_fits_file(path_, kFormat, what, static_cast<std::uint64_t>(count), min_bytes, left + 1,
                              io::ClaimSite{size_ - left, std::nullopt});
  }

  void read_mesh(int object) {
    const std::size_t version_at = tokens_.position();
    const std::int64_t version = tokens_.number<std::int64_t>("the Mesh version");
    if (version != 1 && version != 2 && version != 4)
      tokens_.fail_at(version_at, "Mesh version " + std::to_string(version) + " (versions 1, 2 and 4 are read)");
    const std::size_t sdim_at = tokens_.position();
    const std::int64_t sdim = tokens_.count("the space dimension");
    if (sdim < 1 || sdim > 3) tokens_.fail_at(sdim_at, "space dimension " + std::to_string(sdim));
    if (sdim_ != 0 && sdim != sdim_) tokens_.fail_at(sdim_at, "objects of different space dimensions");
    sdim_ = static_cast<int>(sdim);
    const std::int64_t num_points = tokens_.count("the number of mesh points");
    const std::int64_t lowest = tokens_.number<std::int64_t>("the lowest mesh point index");
    check(num_points, 2 * static_cast<std::uint64_t>(sdim), "mesh points");
    const std::int64_t first_point = static_cast<std::int64_t>(coordinates_.size()) / sdim_;
    const std::size_t coordinates_before = coordinates_.size();
    coordinates_.resize(coordinates_before + static_cast<std::size_t>(num_points * sdim));
    double* const xyz = coordinates_.data() + coordinates_before;
    if (!tokens_.rows_in_parallel<double>(num_points, static_cast<int>(sdim), [&](std::int64_t row, const double* values) {
          std::copy(values, values + sdim, xyz + row * sdim);
          return true;
        }))
      for (std::int64_t i = 0; i < num_points * sdim; ++i) xyz[i] = tokens_.number<double>("a coordinate");

    const std::int64_t num_types = tokens_.count("the number of element types");
    check(num_types, 8, "element types");
    for (std::int64_t t = 0; t < num_types; ++t) {
      const std::size_t name_at = tokens_.position();
      const std::string_view name = tokens_.text("an element type name");
      const ElementType* type = detail::type_of_name(name);
      if (type == nullptr)
        tokens_.fail_at(name_at, "element type '" + std::string(name) + "' is not read (vtx, edg, edg2, tri, tri2, quad, "
                                                                      "quad2, tet, tet2, pyr, prism, hex, hex2 are)");
      const std::size_t nodes_at = tokens_.position();
      if (tokens_.count("the number of nodes per element") != type->nodes)
        tokens_.fail_at(nodes_at, std::string(name) + " elements have " + std::to_string(type->nodes) + " nodes");
      const std::int64_t count = tokens_.count("the number of elements");
      check(count, 2 * static_cast<std::uint64_t>(type->nodes), "elements");
      NDArray connectivity = NDArray::allocate(DType::int64, {count, type->nodes});
      std::int64_t* out = connectivity.data_as<std::int64_t>();
      const bool in_parallel = tokens_.rows_in_parallel<std::int64_t>(count, type->nodes, [&](std::int64_t e, const std::int64_t* nodes) {
        std::int64_t file_nodes[27];
        for (int k = 0; k < type->nodes; ++k) {
          const std::int64_t index = io::id_offset(nodes[k], lowest);
          if (!io::id_within(index, num_points)) return false;  // the token loop words it
          file_nodes[k] = index + first_point;
        }
        for (int k = 0; k < type->nodes; ++k) out[e * type->nodes + k] = file_nodes[type->order.empty() ? k : type->order[k]];
        return true;
      });
      std::int64_t file_nodes[27];
      for (std::int64_t e = 0; e < count && !in_parallel; ++e) {
        for (int k = 0; k < type->nodes; ++k) {
          const std::size_t at = tokens_.position();
          const std::int64_t index = io::id_offset(tokens_.number<std::int64_t>("an element's node"), lowest);
          if (!io::id_within(index, num_points))
            tokens_.fail_at(at, std::string(name) + " element " + std::to_string(e) + " refers to point " +
                                    std::to_string(index + lowest) + ", outside the object's " +
                                    std::to_string(num_points) + " points from " + std::to_string(lowest));
          file_nodes[k] = index + first_point;
        }
        for (int k = 0; k < type->nodes; ++k) out[e * type->nodes + k] = file_nodes[type->order.empty() ? k : type->order[k]];
      }
      if (version < 4) {
        // One line of parameter values per element (their number per line depends on the
        // element and the geometry, not on the count before them): skipped by lines.
        tokens_.count("the number of parameter values per element");
        const std::int64_t rows = tokens_.count("the number of parameters");
        check(rows, 2, "parameter rows");
        tokens_.skip_lines(rows, "a line of parameter values");
      }
      const std::size_t entities_at = tokens_.position();
      const std::int64_t num_entities = tokens_.count("the number of geometric entity indices");
      if (num_entities != count && num_entities != 0)
        tokens_.fail_at(entities_at, std::to_string(num_entities) + " geometric entity indices for " +
                                         std::to_string(count) + " " + std::string(name) + " elements");
      NDArray entities = NDArray::allocate(DType::int64, {count});
      std::int64_t* entity = entities.data_as<std::int64_t>();
      std::fill(entity + num_entities, entity + count, 0);
      if (!tokens_.rows_in_parallel<std::int64_t>(num_entities, 1, [&](std::int64_t e, const std::int64_t* value) {
            entity[e] = *value;
            return true;
          }))
        for (std::int64_t e = 0; e < num_entities; ++e) entity[e] = tokens_.number<std::int64_t>("a geometric entity index");
      if (version < 4) {
        const std::int64_t pairs = tokens_.count("the number of up/down pairs");
        check(pairs, 4, "up/down pairs");
        for (std::int64_t i = 0; i < 2 * pairs; ++i) tokens_.number<std::int64_t>("an up/down index");
      }
      blocks_.push_back({object, type, std::move(connectivity), std::move(entities)});
    }
    ++objects_read_;
  }

  Mesh finish() {
    Mesh mesh;
    const std::int64_t num_points = static_cast<std::int64_t>(coordinates_.size()) / sdim_;
    mesh.points = NDArray::allocate(DType::float64, {num_points, sdim_});
    std::copy(coordinates_.begin(), coordinates_.end(), mesh.points.data_as<double>());
    std::vector<NDArray> entities;
    // Each region's members counted first, then written straight into its entries (one
    // allocation each, no per-cell map look-up: a run of cells of one entity looks it up once).
    std::map<RegionKey, std::pair<std::int64_t, std::int64_t*>> regions;  // key -> (count, cursor)
    const auto for_each_run = [&](const auto& visit) {
      std::int64_t first_cell = 0;
      for (const Block& block : blocks_) {
        const std::int64_t count = block.connectivity.dim(0);
        const std::int64_t* entity = block.entities.data_as<std::int64_t>();
        for (std::int64_t e = 0; e < count;) {
          std::int64_t run_end = e + 1;
          while (run_end < count && entity[run_end] == entity[e]) ++run_end;
          visit(RegionKey{block.object, block.type->dim, entity[e]}, first_cell + e, first_cell + run_end);
          e = run_end;
        }
        first_cell += count;
      }
    };
    for_each_run([&](const RegionKey& key, std::int64_t first, std::int64_t last) { regions[key].first += last - first; });
    std::vector<Region> entity_regions;
    for (auto& [key, slot] : regions) {
      Region region;
      region.name = "dim " + std::to_string(key.dim) + " entity " + std::to_string(key.entity);
      if (objects_read_ > 1) region.name = tags_[static_cast<std::size_t>(key.object)] + ": " + region.name;
      region.kind = RegionKind::Cell;
      region.dim = key.dim;
      region.tag = key.entity;
      region.entries = NDArray::allocate(DType::int64, {slot.first});
      slot.second = region.entries.data_as<std::int64_t>();
      entity_regions.push_back(std::move(region));
    }
    RegionKey last_key{-1, -1, 0};
    std::int64_t** cursor = nullptr;
    for_each_run([&](const RegionKey& key, std::int64_t first, std::int64_t last) {
      if (cursor == nullptr || key < last_key || last_key < key) {
        cursor = &regions.find(key)->second.second;
        last_key = key;
      }
      for (std::int64_t cell = first; cell < last; ++cell) *(*cursor)++ = cell;
    });
    std::vector<std::int64_t> object_first(static_cast<std::size_t>(objects_read_), -1), object_last(object_first.size(), -1);
    std::int64_t first_cell = 0;
    for (Block& block : blocks_) {
      const std::int64_t count = block.connectivity.dim(0);
      // An object's blocks follow one another: its cells are one range.
      auto& first = object_first[static_cast<std::size_t>(block.object)];
      if (first < 0) first = first_cell;
      first_cell += count;
      object_last[static_cast<std::size_t>(block.object)] = first_cell;
      mesh.cells.push_back(CellBlock{std::string(block.type->cell_type), std::move(block.connectivity), {}, {}});
      entities.push_back(std::move(block.entities));
    }
    if (!mesh.cells.empty()) mesh.cell_data.set("mphtxt:geometric_entity", std::move(entities));
    if (objects_read_ > 1)
      for (int object = 0; object < objects_read_; ++object) {
        int dim = -1;
        for (const Block& block : blocks_)
          if (block.object == object) dim = std::max(dim, block.type->dim);
        const auto o = static_cast<std::size_t>(object);
        const std::int64_t first = std::max<std::int64_t>(object_first[o], 0), last = std::max<std::int64_t>(object_last[o], 0);
        Region region;
        region.name = tags_[o];
        region.kind = RegionKind::Cell;
        region.dim = dim;
        region.tag = -1;
        region.entries = NDArray::allocate(DType::int64, {last - first});
        std::int64_t* entries = region.entries.data_as<std::int64_t>();
        for (std::int64_t cell = first; cell < last; ++cell) entries[cell - first] = cell;
        mesh.regions.push_back(std::move(region));
      }
    for (Region& region : entity_regions) mesh.regions.push_back(std::move(region));
    return mesh;
  }

  struct Block {
    int object;
    const ElementType* type;
    NDArray connectivity;
    NDArray entities;
  };

  Tokens tokens_;
  const std::string& path_;
  std::size_t size_;
  std::vector<std::string> tags_;
  int sdim_ = 0;
  int objects_read_ = 0;
  std::vector<double> coordinates_;
  std::vector<Block> blocks_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  return Reader(file.bytes(), path).read();
}

}  // namespace meshioplusplus::mphtxt
