// ANSYS Fluent mesh and case reader (.msh, .cas and their .gz, as written by Fluent, Fluent
// Meshing, TGrid, GAMBIT, ICEM, foamMeshToFluent — and meshio's own writer). `.cas.h5` (CFF,
// HDF5) is another format.
//
// Layout: a sequence of sections "(id ...)". Section ids are decimal; every number inside an
// index section is hexadecimal. An id 20xx / 30xx is the binary form of section xx: nodes
// float32 / float64; indices int32 in both (Fluent; VTK reads them so) or int64 in 30xx
// (meshio's writer) — the width whose data ends where the body closes wins. A binary body is
// followed by "End of Binary Section id". The sections read:
//   (0 "comment"), (1 "header")        skipped (a comment may hold parentheses of its own)
//   (2 ND)                              the dimension, used when node zones do not give it
//   (10 (zone first last type [ND]))    declaration of the node count (zone 0): no body
//   (10 (zone first last type ND)(x y [z] ...))   node coordinates of ids first..last
//   (12 (zone first last type elem))    cell zone (zone 0: the total); a body lists element
//                                       types when elem = 0; a binary zone of one element type
//                                       may close with the trailer alone
//   (13 (zone first last bc face)(...)) faces: per face its nodes, then the right cell c0 and
//                                       the left cell c1 (0 = none); in mixed (face = 0) and
//                                       polygonal (5) zones each face starts with its node count
//   (39 / 45 (zone-id type name ...)(...))   zone names (the zone id here is decimal)
//   anything else — a case file's settings (37, 38, 40, 64 …, nested lists, strings with
//   escapes, Scheme #\ characters), 18 periodic pairs, 58/59 trees — is skipped, binary
//   bodies included.
//
// What becomes what (default, as VTK's vtkFLUENTReader): the volume cells, rebuilt from the
// faces' cell columns by io::build_cells_from_faces (formats/ansys/ansys_volume.cpp says which
// side c0 is): tetra, pyramid, wedge, hexahedron where the faces close into that shape,
// polyhedron otherwise; in 2-D triangle, quad or polygon. The faces decide, not the zone's
// element type (VTK keeps a declared polyhedron, type 7, as one even when it is a hexahedron).
// Cell data "ansys:zone" (int64) is each cell's cell-zone id. A named cell zone becomes a Cell
// region (tag = zone id, dim = ND); a named face zone (boundaries and the interior faces alike) a
// Side region of (cell, local facet) pairs on its faces' c0 side (dim = ND - 1). The face blocks
// meshio returns are not made: the boundary faces are the Side regions
// (meshioplusplus.extract_surface gives the boundary as faces); no tool we know needs meshio's
// face blocks, so there is no option. Points (n, ND), float32 when every node zone is 2010,
// float64 otherwise, placed by node id (zones may come in any order; together they must cover
// first..last without gaps/overlaps). 
// Files without volume cells read as before, as meshio reads them: when a cell section lists
// nodes (meshio's writer: a block of triangle, tetra, quad, hexahedron, pyramid or wedge), or
// when there is no cell zone or no face names a cell, each face section becomes one block per
// run of faces of one type — line, triangle, quad, polygon — in file order
// (io/cells/face_blocks.hpp), every block gets "ansys:zone", and a named zone with blocks
// becomes a Cell region (dim ND for cell zones, ND - 1 for face zones).
//
// Errors: every count is checked against the bytes left before anything is allocated; a node
// id outside the nodes, a cell id outside the cells, an unknown element or face type, a body
// with too few or too many values, faces that do not close into cells, or an unclosed
// section raises ReadError with the byte offset and line.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/ansys/ansys.hpp"
#include "formats/ansys/ansys_internal.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "io/source/byte_order.hpp"
#include "io/cells/face_blocks.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/parallel.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::ansys {
namespace {

constexpr std::string_view kFormat = "ansys";
constexpr std::string_view kBinaryEnd = "End of Binary Section";
constexpr std::int64_t kMaxFaceNodes = 1 << 20;

enum class Encoding { ascii, binary32, binary64 };

bool is_delimiter(char c) noexcept { return io::is_space(c) || c == '(' || c == ')'; }

// Corner count of a Fluent face type (2 line, 3 triangle, 4 quad); 0 for mixed/polygonal.
int face_corners(std::int64_t face_type) noexcept { return face_type >= 2 && face_type <= 4 ? static_cast<int>(face_type) : 0; }

struct CellKind {
  std::string_view type;
  int corners;
};
// Fluent element types 1-6 (0 mixed and 7 polyhedral carry no nodes in a cell section).
std::optional<CellKind> cell_kind(std::int64_t element_type) noexcept {
  switch (element_type) {
    case 1: return CellKind{"triangle", 3};
    case 2: return CellKind{"tetra", 4};
    case 3: return CellKind{"quad", 4};
    case 4: return CellKind{"hexahedron", 8};
    case 5: return CellKind{"pyramid", 5};
    case 6: return CellKind{"wedge", 6};
    default: return std::nullopt;
  }
}

// One node, cell or face section with a body, located in pass 1 and decoded in pass 2.
struct Section {
  int kind = 0;  // 10, 12 or 13
  Encoding encoding = Encoding::ascii;
  // Bytes per binary value: 4 or 8 for nodes (20xx / 30xx); 4 for indices in Fluent's files,
  // 8 in 30xx index sections as meshio writes them (told apart by where the body ends).
  std::size_t width = 8;
  std::size_t offset = 0;  // of its '('
  std::vector<std::int64_t> header;
  std::size_t body_begin = 0, body_end = 0;  // the data between the body's parentheses

  std::int64_t zone() const { return header[0]; }
  std::int64_t first() const { return header[1]; }
  std::int64_t last() const { return header[2]; }
  std::int64_t count() const { return header[2] - header[1] + 1; }
};

class Reader {
 public:
  // `release_pages` (may be empty): lets the file's resident pages go (read again if touched).
  Reader(std::string_view bytes, const std::string& path, std::function<void()> release_pages = {})
      : doc_(bytes), path_(path), release_pages_(std::move(release_pages)) {}

  Mesh read() {
    // Each pass over the file leaves the pages it read resident (a text file's index pass reads
    // all of it): they are let go after each, so that at most one section's pages are held
    // beside what was parsed from them.
    index_sections();
    release_file_pages();
    read_points();
    release_file_pages();
    // Fluent's cells are defined by their faces; only meshio's writer lists a cell's nodes.
    const bool cells_list_nodes = std::any_of(sections_.begin(), sections_.end(), [](const Section& s) { return s.kind == 12; });
    if (!cells_list_nodes && !volume_.cell_zones.empty()) {
      if (std::optional<Mesh> volume = read_volume()) return std::move(*volume);
    }
    for (const Section& section : sections_)
      if (section.kind == 12) read_cell_section(section);
      else if (section.kind == 13) read_face_section(section);
    name_zones();
    return std::move(mesh_);
  }

  // nullopt when no face names a cell (a surface mesh with an empty cell zone): read as faces.
  std::optional<Mesh> read_volume() {
    for (const detail::CellZone& zone : volume_.cell_zones) {
      // Cells are addressed by id - 1 (meshio's node-listed zones start at 0; they never get
      // here), bounded by the bytes of the file (each cell has faces).
      if (zone.first < 1 || static_cast<std::uint64_t>(zone.last) > doc_.size())
        fail_at(zone.offset, "cell zone " + hex(zone.zone) + " names cell ids " + hex(zone.first) + ".." + hex(zone.last) +
                                 ", more cells than the file can define");
      volume_.num_cells = std::max(volume_.num_cells, zone.last);
    }
    volume_.num_cells = std::max(volume_.num_cells, declared_cells_);
    volume_.dimension = static_cast<int>(mesh_.points.ndim() == 2 ? mesh_.points.dim(1) : 3);
    constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
    volume_.wide_labels = mesh_.points.rows() > kInt32Max || volume_.num_cells > kInt32Max;
    if (volume_.wide_labels) reserve_faces(volume_.faces64);
    else reserve_faces(volume_.faces32);
    for (const Section& section : sections_)
      if (section.kind == 13) {
        if (volume_.wide_labels) collect_faces(section, volume_.faces64);
        else collect_faces(section, volume_.faces32);
      }
    if (!volume_.names_a_cell) return std::nullopt;
    volume_.zone_names = zone_names_;
    release_file_pages();  // every byte needed is parsed
    detail::add_volume_cells(mesh_, volume_, path_);
    return std::move(mesh_);
  }

 private:
  void release_file_pages() const {
    if (release_pages_) release_pages_();
  }

  // ---- pass 1: find the sections -----------------------------------------------------------

  void index_sections() {
    while (true) {
      skip_whitespace();
      if (pos_ >= doc_.size()) break;
      const std::size_t open = pos_;
      if (doc_[pos_] != '(') fail_at(pos_, std::string("expected '(' opening a section, found '") + doc_[pos_] + "'");
      ++pos_;
      skip_whitespace();
      const std::int64_t id = number(10, "a section id");
      const std::int64_t prefix = id / 1000, base = id % 1000;
      const bool data_section = (base == 10 || base == 12 || base == 13) && (prefix == 0 || prefix == 2 || prefix == 3);
      if (data_section) {
        index_data_section(static_cast<int>(base), prefix, open);
      } else if (id == 2) {
        const std::size_t offset = (skip_whitespace(), pos_);
        const std::int64_t nd = number(10, "the dimension");
        if (nd != 2 && nd != 3) fail_at(offset, "dimension must be 2 or 3, got " + std::to_string(nd));
        dimension_ = nd;
        skip_balanced(1, open);
      } else if (id == 39 || id == 45) {
        index_zone_name(open);
      } else if (prefix == 2 || prefix == 3) {
        skip_binary_section(id, open);
      } else {
        skip_balanced(1, open);
      }
    }
  }

  void index_data_section(int kind, std::int64_t prefix, std::size_t open) {
    Section section;
    section.kind = kind;
    section.offset = open;
    section.encoding = prefix == 0 ? Encoding::ascii : prefix == 2 ? Encoding::binary32 : Encoding::binary64;
    skip_whitespace();
    expect('(', "the section header");
    while (true) {
      skip_whitespace();
      if (pos_ < doc_.size() && doc_[pos_] == ')') break;
      if (section.header.size() == 8) fail_at(pos_, "too many values in the section header");
      section.header.push_back(number(16, "a header value"));
    }
    ++pos_;
    if (section.header.size() < 4) fail_at(open, "a section header needs at least zone, first, last and type");
    // Checked before count() is used: last - first + 1 must not overflow (ids are any int64 in the file).
    if (section.first() < 0 || section.last() < section.first() - 1 ||
        section.last() == std::numeric_limits<std::int64_t>::max())
      fail_at(open, "invalid index range " + hex(section.first()) + ".." + hex(section.last()));
    skip_whitespace();
    if (pos_ >= doc_.size()) fail_at(open, "unclosed section");
    if (kind == 12) note_cell_zone(section);
    // A declaration has no body; Fluent's binary cell zones of one element type close with the
    // trailer alone: "(3012 (9 1 d8 1 4)\nEnd of Binary Section 3012)".
    if (doc_[pos_] == ')' || doc_.substr(pos_).starts_with(kBinaryEnd)) {
      if (doc_[pos_] != ')') {
        const void* close = std::memchr(doc_.data() + pos_, ')', doc_.size() - pos_);
        if (close == nullptr) fail_at(pos_, "unclosed 'End of Binary Section' trailer");
        pos_ = static_cast<std::size_t>(static_cast<const char*>(close) - doc_.data());
      }
      ++pos_;
      return;
    }
    if (doc_[pos_] != '(') fail_at(pos_, "expected the body's '(' or the section's ')'");
    if (kind == 13 && section.header.size() < 5) fail_at(open, "a face section header needs a face type");
    const std::size_t body_open = pos_++;
    if (section.encoding == Encoding::ascii) {
      const void* close = std::memchr(doc_.data() + pos_, ')', doc_.size() - pos_);
      if (close == nullptr) fail_at(body_open, "unclosed section body");
      section.body_begin = pos_;
      section.body_end = static_cast<std::size_t>(static_cast<const char*>(close) - doc_.data());
      pos_ = section.body_end + 1;
    } else {
      locate_binary_body(section, body_open);
    }
    skip_whitespace();
    if (doc_.substr(pos_).starts_with(kBinaryEnd)) {
      const void* close = std::memchr(doc_.data() + pos_, ')', doc_.size() - pos_);
      if (close == nullptr) fail_at(pos_, "unclosed 'End of Binary Section' trailer");
      pos_ = static_cast<std::size_t>(static_cast<const char*>(close) - doc_.data());
    }
    // Some writers (foamMeshToFluent) add an empty "()" after the body: skip to the section's ')'.
    skip_whitespace();
    if (pos_ < doc_.size() && doc_[pos_] == '(') skip_balanced(1, open);
    else expect(')', "the end of the section");
    if (kind == 10 || kind == 13 || cell_kind(section.header.size() > 4 ? section.header[4] : -1))
      sections_.push_back(std::move(section));
  }

  // A cell zone (zone 0 declares the total); its body, if any, lists element types (mixed
  // zones) or, from meshio's writer, nodes.
  void note_cell_zone(const Section& section) {
    if (section.zone() == 0) {
      if (static_cast<std::uint64_t>(section.last()) <= doc_.size()) declared_cells_ = std::max(declared_cells_, section.last());
      return;
    }
    if (section.count() == 0) return;
    volume_.cell_zones.push_back({section.zone(), section.first(), section.last(), section.offset});
  }

  // A binary body starts right after its '(' (Fluent) or after one more newline (meshio
  // writes "(\n" and reads from the next line). The candidate whose data ends at a ')' wins.
  // Index values are int32 in Fluent's 20xx and 30xx sections (VTK reads them so) and int64 in
  // meshio's 30xx: the width whose data ends at a ')' wins, Fluent's first.
  void locate_binary_body(Section& section, std::size_t body_open) {
    const std::size_t right_after = body_open + 1;
    std::vector<std::size_t> candidates;
    if (right_after < doc_.size() && doc_[right_after] == '\n') candidates.push_back(right_after + 1);
    candidates.push_back(right_after);
    std::vector<std::size_t> widths;
    if (section.kind == 10) widths.push_back(section.encoding == Encoding::binary32 ? 4 : 8);
    else if (section.encoding == Encoding::binary32) widths.push_back(4);
    else widths = {4, 8};
    for (std::size_t width : widths) {
      section.width = width;
      for (std::size_t begin : candidates) {
        const std::optional<std::size_t> end = binary_body_end(section, begin);
        if (!end) continue;
        std::size_t after = *end;
        while (after < doc_.size() && io::is_space(doc_[after])) ++after;
        if (after < doc_.size() && doc_[after] == ')') {
          section.body_begin = begin;
          section.body_end = *end;
          pos_ = after + 1;
          return;
        }
      }
    }
    fail_at(body_open, "binary section " + std::to_string(section.kind) + " does not end with ')' where its " +
                           std::to_string(section.count()) + " records end");
  }

  // Where the data of a binary body starting at `begin` ends, nullopt if it runs past the file.
  std::optional<std::size_t> binary_body_end(const Section& section, std::size_t begin) const {
    const std::uint64_t left = doc_.size() - std::min(begin, doc_.size());
    const auto count = static_cast<std::uint64_t>(section.count());
    std::uint64_t values = 0;
    const std::uint64_t value_bytes = section.width;
    if (section.kind == 10) {
      values = count * static_cast<std::uint64_t>(node_dimension(section));
    } else if (section.kind == 12) {
      const std::int64_t element = section.header.size() > 4 ? section.header[4] : 0;
      const std::optional<CellKind> kind = cell_kind(element);
      values = count * static_cast<std::uint64_t>(kind ? kind->corners : 1);
    } else {
      const int corners = face_corners(section.header.size() > 4 ? section.header[4] : 0);
      if (corners == 0) return variable_faces_end(section, begin);
      values = count * static_cast<std::uint64_t>(corners + 2);
    }
    if (count > left || values > left / value_bytes) return std::nullopt;
    return begin + static_cast<std::size_t>(values * value_bytes);
  }

  // Mixed and polygonal binary faces have no fixed size: walk them.
  std::optional<std::size_t> variable_faces_end(const Section& section, std::size_t begin) const {
    const std::size_t width = section.width;
    std::size_t at = begin;
    const auto next = [&](std::int64_t& value) {
      if (doc_.size() - std::min(at, doc_.size()) < width) return false;
      value = binary_value(width, at);
      at += width;
      return true;
    };
    for (std::int64_t face = 0; face < section.count(); ++face) {
      std::int64_t corners = 0;
      if (!next(corners) || corners < 0 || corners > kMaxFaceNodes) return std::nullopt;
      const std::uint64_t skip = (static_cast<std::uint64_t>(corners) + 2) * width;
      if (skip > doc_.size() - std::min(at, doc_.size())) return std::nullopt;
      at += static_cast<std::size_t>(skip);
    }
    return at;
  }

  void index_zone_name(std::size_t open) {
    skip_whitespace();
    expect('(', "the zone header");
    skip_whitespace();
    const std::int64_t zone = number(10, "a zone id");
    const std::string_view type = word();
    const std::string_view name = word();
    if (type.empty() || name.empty()) fail_at(open, "a zone section needs a zone id, a type and a name");
    zone_names_[zone] = std::string(name);
    skip_balanced(2, open);
  }

  // Skips a binary section of unknown layout: a text header, then either the section's ')'
  // or a binary body whose trailer "End of Binary Section id)" is the one reliable landmark.
  void skip_binary_section(std::int64_t id, std::size_t open) {
    skip_whitespace();
    if (pos_ < doc_.size() && doc_[pos_] == '(') {
      const std::size_t header = pos_++;
      skip_balanced(1, header);
      skip_whitespace();
    }
    if (pos_ < doc_.size() && doc_[pos_] == ')') {
      ++pos_;
      return;
    }
    const std::size_t trailer = doc_.find(kBinaryEnd, pos_);
    if (trailer == std::string_view::npos) fail_at(open, "binary section " + std::to_string(id) + " has no 'End of Binary Section' trailer");
    pos_ = trailer + kBinaryEnd.size();
    skip_whitespace();
    const std::size_t id_offset = pos_;
    if (number(10, "the section id of the binary trailer") != id)
      fail_at(id_offset, "the 'End of Binary Section' trailer names another section than " + std::to_string(id));
    expect(')', "the end of the binary section");
  }

  // Skips to the ')' that closes `depth` open parentheses; text in double quotes is opaque.
  void skip_balanced(int depth, std::size_t open) {
    while (depth > 0) {
      if (pos_ >= doc_.size()) fail_at(open, "unclosed section");
      const char c = doc_[pos_++];
      if (c == '(') {
        ++depth;
      } else if (c == ')') {
        --depth;
      } else if (c == '"') {  // a string; \" and \\ inside it are escapes (case-file settings)
        const std::size_t open_quote = pos_ - 1;
        while (pos_ < doc_.size() && doc_[pos_] != '"') pos_ += doc_[pos_] == '\\' ? 2 : 1;
        if (pos_ >= doc_.size()) fail_at(open_quote, "unclosed string");
        ++pos_;
      } else if (c == '#' && pos_ < doc_.size() && doc_[pos_] == '\\') {
        pos_ += 2;  // a Scheme character literal such as #\( in a case file's settings
      }
    }
  }

  // ---- pass 2: decode ----------------------------------------------------------------------

  std::int64_t node_dimension(const Section& section) const {
    return section.header.size() > 4 ? section.header[4] : dimension_.value_or(3);
  }

  void read_points() {
    std::vector<const Section*> zones;
    for (const Section& section : sections_)
      if (section.kind == 10) zones.push_back(&section);
    std::sort(zones.begin(), zones.end(), [](const Section* a, const Section* b) { return a->first() < b->first(); });
    std::int64_t dim = dimension_.value_or(zones.empty() ? 3 : node_dimension(*zones.front()));
    bool all_float32 = !zones.empty();
    std::int64_t total = 0;
    for (const Section* zone : zones) {
      const std::int64_t zone_dim = node_dimension(*zone);
      if (zone_dim != 2 && zone_dim != 3) fail_at(zone->offset, "node dimension must be 2 or 3, got " + std::to_string(zone_dim));
      if (zone == zones.front()) dim = zone_dim;
      if (zone_dim != dim) fail_at(zone->offset, "node zones disagree on the dimension");
      if (zone != zones.front() && zone->first() != zones.front()->first() + total)
        fail_at(zone->offset, "node zone " + hex(zone->zone()) + " starts at id " + hex(zone->first()) + ", expected " +
                                  hex(zones.front()->first() + total) + " (node zones must cover the ids without gaps or overlaps)");
      // Binary bodies were measured against the file in pass 1; a text body needs two bytes
      // (a digit and a blank) per coordinate.
      if (zone->encoding == Encoding::ascii &&
          static_cast<std::uint64_t>(zone->count()) > (zone->body_end - zone->body_begin + 1) / (2 * static_cast<std::uint64_t>(zone_dim)))
        fail_at(zone->offset, "node zone " + hex(zone->zone()) + " announces " + std::to_string(zone->count()) +
                                  " nodes, more than its body can hold");
      total += zone->count();
      all_float32 &= zone->encoding == Encoding::binary32;
    }
    first_node_ = zones.empty() ? 1 : zones.front()->first();
    mesh_.points = NDArray::allocate(all_float32 ? DType::float32 : DType::float64, {total, dim});
    visit_dtype(mesh_.points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      for (const Section* zone : zones) {
        T* out = mesh_.points.data_as<T>() + (zone->first() - first_node_) * dim;
        const std::uint64_t values = static_cast<std::uint64_t>(zone->count()) * static_cast<std::uint64_t>(dim);
        if (zone->encoding == Encoding::ascii) {
          read_ascii_reals(*zone, out, values);
        } else if (zone->encoding == Encoding::binary32) {
          copy_binary<float>(zone->body_begin, out, values);
        } else {
          copy_binary<double>(zone->body_begin, out, values);
        }
      }
    });
  }

  template <class Stored, class T> void copy_binary(std::size_t begin, T* out, std::uint64_t count) {
    if constexpr (std::is_same_v<Stored, T>) {
      io::copy_from_file_order(out, doc_.data() + begin, sizeof(T), static_cast<std::size_t>(count), true);
    } else {
      for (std::uint64_t i = 0; i < count; ++i) {
        Stored value;
        std::memcpy(&value, doc_.data() + begin + i * sizeof(Stored), sizeof(Stored));
        if constexpr (!io::kHostIsLittleEndian) io::swap_bytes_in_place(&value, sizeof value, 1);
        out[i] = static_cast<T>(value);
      }
    }
  }

  template <class T> void read_ascii_reals(const Section& zone, T* out, std::uint64_t count) {
    std::size_t at = zone.body_begin;
    for (std::uint64_t i = 0; i < count; ++i) {
      while (at < zone.body_end && io::is_space(doc_[at])) ++at;
      if (at >= zone.body_end)
        fail_at(at, "node zone " + hex(zone.zone()) + " ends after " + std::to_string(i) + " of " + std::to_string(count) +
                        " coordinates");
      double value = 0;
      const char* first = doc_.data() + at;
      const char* last = doc_.data() + zone.body_end;
      if (*first == '+') ++first;
      const auto result = std::from_chars(first, last, value);
      if (result.ec != std::errc{} || (result.ptr < last && !io::is_space(*result.ptr)))
        fail_at(at, "invalid coordinate '" + std::string(token_at(at)) + "'");
      out[i] = static_cast<T>(value);
      at = static_cast<std::size_t>(result.ptr - doc_.data());
    }
    expect_only_whitespace(at, zone.body_end, zone);
  }

  // Values of an index body: hexadecimal text, or binary int32/int64.
  class Values {
   public:
    Values(const Reader& reader, const Section& section)
        : reader_(reader), section_(section), at_(section.body_begin) {}
    // Where the next value starts (past blanks, so errors name its line).
    std::size_t position() noexcept {
      if (section_.encoding == Encoding::ascii)
        while (at_ < section_.body_end && io::is_space(reader_.doc_[at_])) ++at_;
      return at_;
    }
    std::int64_t next(const char* what) {
      if (section_.encoding != Encoding::ascii) {
        const std::size_t width = section_.width;
        if (section_.body_end - at_ < width) reader_.fail_at(at_, std::string("section body ends before ") + what);
        const std::int64_t value = reader_.binary_value(width, at_);
        at_ += width;
        return value;
      }
      while (at_ < section_.body_end && io::is_space(reader_.doc_[at_])) ++at_;
      if (at_ >= section_.body_end) reader_.fail_at(at_, std::string("section body ends before ") + what);
      std::int64_t value = 0;
      const char* first = reader_.doc_.data() + at_;
      const char* last = reader_.doc_.data() + section_.body_end;
      const auto result = std::from_chars(first, last, value, 16);
      if (result.ec != std::errc{} || (result.ptr < last && !io::is_space(*result.ptr)))
        reader_.fail_at(at_, std::string("invalid hexadecimal ") + what + " '" + std::string(reader_.token_at(at_)) + "'");
      at_ = static_cast<std::size_t>(result.ptr - reader_.doc_.data());
      return value;
    }
    void finish() { reader_.expect_only_whitespace(at_, section_.body_end, section_); }

   private:
    const Reader& reader_;
    const Section& section_;
    std::size_t at_;
  };

  std::int64_t node_row(std::int64_t id, std::size_t offset) const {
    // Compared before subtracting: a cell may name any int64 (INT64_MIN - first would overflow).
    if (id < first_node_ || id - first_node_ >= mesh_.points.rows())
      fail_at(offset, "node id " + hex(id) + " is not among the nodes " + hex(first_node_) + ".." +
                          hex(first_node_ + mesh_.points.rows() - 1));
    return id - first_node_;
  }

  // The least bytes one record of `values` values takes: a digit and a blank each in text.
  void check_room(const Section& section, std::uint64_t values_per_record) const {
    const std::uint64_t value_bytes = section.encoding == Encoding::ascii ? 2 : section.width;
    const std::uint64_t room = (section.body_end - section.body_begin + 1) / (value_bytes * values_per_record);
    if (static_cast<std::uint64_t>(section.count()) > room)
      fail_at(section.offset, "section announces " + std::to_string(section.count()) +
                                  " records, more than its body can hold");
  }

  // meshio's cell sections: the nodes of every cell.
  void read_cell_section(const Section& section) {
    const CellKind kind = *cell_kind(section.header[4]);
    check_room(section, static_cast<std::uint64_t>(kind.corners));
    CellBlock block;
    block.type = std::string(kind.type);
    block.connectivity = NDArray::allocate(DType::int64, {section.count(), kind.corners});
    std::int64_t* out = block.connectivity.data_as<std::int64_t>();
    Values values(*this, section);
    for (std::int64_t i = 0; i < section.count() * kind.corners; ++i) {
      const std::size_t offset = values.position();
      out[i] = node_row(values.next("a cell node"), offset);
    }
    values.finish();
    add_blocks(section, {std::move(block)});
  }

  // Volume mode: every face with its nodes and both cell columns (checked against the cells),
  // kept as the cell builder wants it (ansys_volume.cpp says which side owns it and why). A face
  // with no cell on either side, or with fewer nodes than a face has (Fluent writes faces of no
  // nodes in some special zones), bounds no cell and is left out.
  // Room for the faces of every face section at once (growing the lists zone by zone held the
  // old and the new copy together); sections whose body cannot hold their count fail here.
  template <class Label> void reserve_faces(detail::FaceListOf<Label>& faces) {
    std::size_t total_faces = 0, total_nodes = 0;
    for (const Section& section : sections_) {
      if (section.kind != 13) continue;
      check_room(section, 3);
      const auto count = static_cast<std::size_t>(section.count());
      const int corners = face_corners(section.header[4]);
      total_faces += count;
      total_nodes += count * static_cast<std::size_t>(corners > 0 ? corners : 4);
    }
    faces.owner.reserve(total_faces);
    faces.neighbour.reserve(total_faces);
    faces.nodes.reserve(total_nodes);
  }

  template <class Label> void collect_faces(const Section& section, detail::FaceListOf<Label>& faces) {
    const std::int64_t zone_type = section.header[4];
    if (zone_type != 0 && zone_type != 5 && face_corners(zone_type) == 0)
      fail_at(section.offset, "unknown face type " + hex(zone_type));
    check_room(section, 3);
    const std::int64_t begin = faces.size();
    const auto count = static_cast<std::size_t>(section.count());  // bounded by the body (check_room)
    faces.owner.reserve(faces.owner.size() + count);
    faces.neighbour.reserve(faces.neighbour.size() + count);
    const int fixed_corners = face_corners(zone_type);
    faces.nodes.reserve(faces.nodes.size() + count * static_cast<std::size_t>(fixed_corners > 0 ? fixed_corners : 2));
    const int dimension = volume_.dimension;
    if (fixed_corners > 0 && collect_faces_in_parallel(section, fixed_corners, faces)) {
      volume_.face_zones.push_back({section.zone(), begin, faces.size()});
      return;
    }
    Values values(*this, section);
    for (std::int64_t face = 0; face < section.count(); ++face) {
      const std::int64_t corners = face_header(values, zone_type);
      const std::size_t start = faces.nodes.size();
      for (std::int64_t k = 0; k < corners; ++k) {
        const std::size_t offset = values.position();
        faces.nodes.push_back(static_cast<Label>(node_row(values.next("a face node"), offset)));
      }
      const std::int64_t right = cell_index(values, "the face's right cell (c0)");
      const std::int64_t left = cell_index(values, "the face's left cell (c1)");
      volume_.names_a_cell |= right >= 0 || left >= 0;
      if ((right < 0 && left < 0) || corners < dimension) {
        faces.nodes.resize(start);
        continue;
      }
      const bool owner_is_right = right >= 0;
      if (owner_is_right == (dimension == 3)) std::reverse(faces.nodes.begin() + static_cast<std::ptrdiff_t>(start), faces.nodes.end());
      faces.face_ends(faces.owner.size(), faces.nodes.size());
      faces.owner.push_back(static_cast<Label>(owner_is_right ? right : left));
      faces.neighbour.push_back(static_cast<Label>(owner_is_right ? left : -1));
    }
    values.finish();
    volume_.face_zones.push_back({section.zone(), begin, faces.size()});
  }

  // Zones of one face type have fixed records: one face per line in text ("n0 n1 n2 c0 c1",
  // as Fluent and our writer write them), corners + 2 integers in binary. Large ones are read
  // on every core into the face list's tail — text lines by io::parse_lines_in_parallel with
  // the parser Values::next uses (std::from_chars, base 16), binary records as Values::next
  // reads them — then kept, turned and packed in place, in file order, by collect_faces'
  // rules. Any other layout, or a value the sequential loop would reject, sends the whole zone
  // the sequential way, which words the error. False: nothing was added.
  template <class Label> bool collect_faces_in_parallel(const Section& section, int corners, detail::FaceListOf<Label>& faces) {
    if (thread_count() < 2 || section.body_end - section.body_begin < io::kParallelLinesMinBytes) return false;
    const auto count = static_cast<std::size_t>(section.count());
    const std::size_t node_base = faces.nodes.size(), face_base = faces.owner.size();
    const auto width = static_cast<std::size_t>(corners);
    faces.nodes.resize(node_base + count * width);
    faces.owner.resize(face_base + count);      // c0, then the owner once packed
    faces.neighbour.resize(face_base + count);  // c1, then the neighbour
    const std::int64_t num_points = mesh_.points.rows(), num_cells = volume_.num_cells;
    // Face i's values in file order; false where the sequential loop would fail.
    const auto place = [&](std::size_t i, const std::int64_t* values) {
      Label* nodes = faces.nodes.data() + node_base + i * width;
      for (std::size_t k = 0; k < width; ++k) {
        if (values[k] < first_node_ || values[k] - first_node_ >= num_points) return false;
        nodes[k] = static_cast<Label>(values[k] - first_node_);
      }
      const std::int64_t right = values[width], left = values[width + 1];
      if (right < 0 || right > num_cells || left < 0 || left > num_cells) return false;
      faces.owner[face_base + i] = static_cast<Label>(right - 1);
      faces.neighbour[face_base + i] = static_cast<Label>(left - 1);
      return true;
    };
    const bool filled = section.encoding == Encoding::ascii ? fill_text_faces(section, width, place)
                                                            : fill_binary_faces(section, width, place);
    if (!filled) {
      faces.nodes.resize(node_base);
      faces.owner.resize(face_base);
      faces.neighbour.resize(face_base);
      return false;
    }
    const int dimension = volume_.dimension;
    std::size_t kept = face_base, kept_nodes = node_base;
    for (std::size_t i = 0; i < count; ++i) {
      const std::int64_t right = faces.owner[face_base + i], left = faces.neighbour[face_base + i];
      volume_.names_a_cell |= right >= 0 || left >= 0;
      if ((right < 0 && left < 0) || corners < dimension) continue;
      const bool owner_is_right = right >= 0;
      Label corner_nodes[4];  // read before writing: the packed face may overlap its source
      std::copy_n(faces.nodes.data() + node_base + i * width, width, corner_nodes);
      if (owner_is_right == (dimension == 3)) std::reverse(corner_nodes, corner_nodes + width);
      std::copy_n(corner_nodes, width, faces.nodes.data() + kept_nodes);
      kept_nodes += width;
      faces.face_ends(kept, kept_nodes);
      faces.owner[kept] = static_cast<Label>(owner_is_right ? right : left);
      faces.neighbour[kept] = static_cast<Label>(owner_is_right ? left : -1);
      ++kept;
    }
    faces.nodes.resize(kept_nodes);
    faces.owner.resize(kept);
    faces.neighbour.resize(kept);
    return true;
  }

  template <class Place> bool fill_text_faces(const Section& section, std::size_t width, const Place& place) {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    std::size_t begin = section.body_begin;
    while (begin < section.body_end && blank(doc_[begin])) ++begin;
    if (begin >= section.body_end || doc_[begin] != '\n') return false;
    ++begin;
    const auto parse = [&](std::uint64_t i, std::size_t first, std::size_t last) {
      const char* p = doc_.data() + first;
      const char* const end = doc_.data() + last;
      std::int64_t values[6];
      for (std::size_t k = 0; k < width + 2; ++k) {
        while (p < end && blank(*p)) ++p;
        const auto [stop, error] = std::from_chars(p, end, values[k], 16);
        if (error != std::errc{} || stop == p || (stop < end && !blank(*stop))) return false;
        p = stop;
      }
      while (p < end && blank(*p)) ++p;
      return p == end && place(static_cast<std::size_t>(i), values);
    };
    const std::optional<std::size_t> end = io::parse_lines_in_parallel(doc_, begin, static_cast<std::uint64_t>(section.count()), parse);
    if (!end || *end > section.body_end) return false;
    expect_only_whitespace(*end, section.body_end, section);
    return true;
  }

  // locate_binary_body() measured the body: count records of width + 2 values end at body_end.
  template <class Place> bool fill_binary_faces(const Section& section, std::size_t width, const Place& place) {
    const std::size_t record = (width + 2) * section.width;
    std::atomic<bool> sound{true};
    parallel_ranges(static_cast<std::size_t>(section.count()), std::size_t{1} << 16, [&](std::size_t first, std::size_t last) {
      std::int64_t values[6];
      for (std::size_t i = first; i < last && sound.load(std::memory_order_relaxed); ++i) {
        const std::size_t at = section.body_begin + i * record;
        for (std::size_t k = 0; k < width + 2; ++k) values[k] = binary_value(section.width, at + k * section.width);
        if (!place(i, values)) sound.store(false, std::memory_order_relaxed);
      }
    });
    return sound.load();
  }

  // A face's cell column: 0 = no cell, else a Fluent cell id in 1..num_cells -> id - 1.
  std::int64_t cell_index(Values& values, const char* what) const {
    const std::size_t offset = values.position();
    const std::int64_t id = values.next(what);
    if (id == 0) return -1;
    if (id < 0 || id > volume_.num_cells)
      fail_at(offset, std::string(what) + " " + hex(id) + " is not among the cells 1.." + hex(volume_.num_cells));
    return id - 1;
  }

  void read_face_section(const Section& section) {
    if (section.header.size() < 5) fail_at(section.offset, "a face section header needs a face type");
    const std::int64_t zone_type = section.header[4];
    if (zone_type != 0 && zone_type != 5 && face_corners(zone_type) == 0)
      fail_at(section.offset, "unknown face type " + hex(zone_type));
    check_room(section, 3);
    // First walk: each face's corner count.
    std::vector<std::int64_t> corner_counts;
    corner_counts.reserve(static_cast<std::size_t>(section.count()));
    {
      Values values(*this, section);
      for (std::int64_t face = 0; face < section.count(); ++face) {
        const std::int64_t corners = face_header(values, zone_type);
        if (corners > 0) corner_counts.push_back(corners);
        for (std::int64_t k = 0; k < corners + 2; ++k) values.next("a face node or cell");
      }
      values.finish();
    }
    const io::FaceBlockLayout layout(corner_counts);
    std::vector<CellBlock> blocks = layout.allocate_blocks();
    io::FaceBlockFiller filler(layout, blocks);
    Values values(*this, section);
    for (std::int64_t face = 0; face < section.count(); ++face) {
      const std::int64_t corners = face_header(values, zone_type);
      if (corners > 0) {
        const io::FaceSlot slot = filler.place(corners);
        for (std::int64_t k = 0; k < corners; ++k) {
          const std::size_t offset = values.position();
          slot.corners[k] = node_row(values.next("a face node"), offset);
        }
      }
      values.next("the first adjacent cell");
      values.next("the second adjacent cell");
    }
    add_blocks(section, std::move(blocks));
  }

  // A face's node count: the zone's face type, or in mixed (0) and polygonal (5) zones the
  // first value of each face. Fluent's manual calls that value the face type in mixed zones,
  // which equals the node count for lines, triangles and quads; Fluent writes the node count
  // for larger polygons there too (6 for a hexagon in mixer-ran_2019r3.cas), as VTK reads it.
  std::int64_t face_header(Values& values, std::int64_t zone_type) const {
    if (zone_type != 0 && zone_type != 5) return face_corners(zone_type);
    const std::size_t offset = values.position();
    const std::int64_t corners = values.next("a face's node count");
    // 0: a face without nodes, which Fluent writes in some special zones (vki_turbine.cas: bc
    // type 3f4 lists "0 c0 0"); such a face bounds nothing and is left out.
    if (corners < 0 || corners == 1 || corners > kMaxFaceNodes) fail_at(offset, "invalid face node count " + hex(corners));
    return corners;
  }

  void add_blocks(const Section& section, std::vector<CellBlock> blocks) {
    const std::int64_t zone = section.zone();
    for (CellBlock& block : blocks) {
      NDArray zone_ids = NDArray::allocate(DType::int64, {block.num_cells()});
      std::fill_n(zone_ids.data_as<std::int64_t>(), block.num_cells(), zone);
      zone_data_.push_back(std::move(zone_ids));
      block_zone_.push_back({zone, section.kind == 12});
      mesh_.cells.push_back(std::move(block));
    }
  }

  void name_zones() {
    if (mesh_.cells.empty()) return;
    mesh_.cell_data.set("ansys:zone", std::move(zone_data_));
    const NDArray bases = block_bases(mesh_.cells);
    const std::int64_t* base = bases.data_as<std::int64_t>();
    const std::int64_t dim = mesh_.points.ndim() == 2 ? mesh_.points.dim(1) : 3;
    for (const auto& [zone, name] : zone_names_) {
      std::int64_t count = 0;
      bool volume = false;
      for (std::size_t b = 0; b < mesh_.cells.size(); ++b)
        if (block_zone_[b].first == zone) {
          count += mesh_.cells[b].num_cells();
          volume = block_zone_[b].second;
        }
      if (count == 0) continue;
      Region region;
      region.name = name;
      region.kind = RegionKind::Cell;
      region.tag = zone;
      region.dim = static_cast<int>(volume ? dim : dim - 1);
      region.entries = NDArray::allocate(DType::int64, {count});
      std::int64_t* out = region.entries.data_as<std::int64_t>();
      for (std::size_t b = 0; b < mesh_.cells.size(); ++b)
        if (block_zone_[b].first == zone)
          for (std::int64_t i = base[b]; i < base[b + 1]; ++i) *out++ = i;
      mesh_.regions.push_back(std::move(region));
    }
  }

  // ---- lexing helpers ----------------------------------------------------------------------

  std::int64_t binary_value(std::size_t width, std::size_t at) const {
    if (width == 4) {
      std::int32_t value;
      io::copy_from_file_order(&value, doc_.data() + at, 4, 1, true);
      return value;
    }
    std::int64_t value;
    io::copy_from_file_order(&value, doc_.data() + at, 8, 1, true);
    return value;
  }

  void skip_whitespace() noexcept {
    while (pos_ < doc_.size() && io::is_space(doc_[pos_])) ++pos_;
  }

  void expect(char c, std::string_view what) {
    skip_whitespace();
    if (pos_ >= doc_.size()) fail_at(pos_, "unexpected end of file: expected '" + std::string(1, c) + "' of " + std::string(what));
    if (doc_[pos_] != c)
      fail_at(pos_, "expected '" + std::string(1, c) + "' of " + std::string(what) + ", found '" + std::string(token_at(pos_)) + "'");
    ++pos_;
  }

  // A number in `base` at pos_, ended by a blank or a parenthesis.
  std::int64_t number(int base, std::string_view what) {
    skip_whitespace();
    std::int64_t value = 0;
    const char* first = doc_.data() + pos_;
    const char* last = doc_.data() + doc_.size();
    const auto result = std::from_chars(first, last, value, base);
    if (result.ec != std::errc{} || (result.ptr < last && !is_delimiter(*result.ptr)))
      fail_at(pos_, "expected " + std::string(what) + ", found '" + std::string(token_at(pos_)) + "'");
    pos_ = static_cast<std::size_t>(result.ptr - doc_.data());
    return value;
  }

  std::string_view word() {
    skip_whitespace();
    const std::size_t begin = pos_;
    while (pos_ < doc_.size() && !is_delimiter(doc_[pos_])) ++pos_;
    return doc_.substr(begin, pos_ - begin);
  }

  std::string_view token_at(std::size_t at) const {
    std::size_t end = at;
    while (end < doc_.size() && end - at < 32 && !is_delimiter(doc_[end])) ++end;
    if (end == at && at < doc_.size()) ++end;
    return doc_.substr(at, end - at);
  }

  void expect_only_whitespace(std::size_t at, std::size_t end, const Section& section) const {
    while (at < end && io::is_space(doc_[at])) ++at;
    if (at < end)
      fail_at(at, "section " + std::to_string(section.kind) + " (zone " + hex(section.zone()) + ") holds more values than its " +
                      std::to_string(section.count()) + " records");
  }

  static std::string hex(std::int64_t value) {
    char text[24];
    const auto result = std::to_chars(text, text + sizeof text, value, 16);
    return std::string(text, result.ptr);
  }

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(doc_, offset));
  }

  std::string_view doc_;
  const std::string& path_;
  std::size_t pos_ = 0;
  std::optional<std::int64_t> dimension_;
  std::vector<Section> sections_;
  std::map<std::int64_t, std::string> zone_names_;
  std::int64_t first_node_ = 1;
  std::vector<NDArray> zone_data_;
  std::vector<std::pair<std::int64_t, bool>> block_zone_;  // per block: zone id, from a cell section
  std::int64_t declared_cells_ = 0;  // "(12 (0 1 last 0))"
  detail::VolumeInput volume_;
  Mesh mesh_;
  std::function<void()> release_pages_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  std::string inflated;  // .msh.gz / .cas.gz: decided by content, as io/codecs does for every reader
  return Reader(io::maybe_gunzip(file.bytes(), inflated, path, kFormat), path, [&file] { file.release_pages(); }).read();
}

bool looks_like(std::string_view head) noexcept {
  std::size_t at = 0;
  while (at < head.size() && io::is_space(head[at])) ++at;
  if (at >= head.size() || head[at] != '(') return false;
  ++at;
  while (at < head.size() && (head[at] == ' ' || head[at] == '\t')) ++at;
  const std::size_t digits = at;
  while (at < head.size() && head[at] >= '0' && head[at] <= '9') ++at;
  return at > digits && at - digits <= 4 && at < head.size() && is_delimiter(head[at]);
}

}  // namespace meshioplusplus::ansys
