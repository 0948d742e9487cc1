// FLAC3D reader, ASCII and binary (told apart as meshio does: a NUL byte among the first
// eight bytes means binary).
//
// ASCII: one record per line, '*' starts a comment line.
//   G id x y z                    grid point
//   Z <type> id n1 … nk           zone: B8 brick, B7 degenerate brick, W6 wedge, P5 pyramid, T4 tet
//   F <type> id n1 … nk           face: T3 triangle, Q4 quad
//   ZGROUP "name" [SLOT slot]     then lines of zone ids (FGROUP: face ids)
// Binary (little endian, meshio's layout): two uint32 words, then uint32 count and per grid
// point {uint32 id, 3 float64}; then zones — uint32 count, per zone {uint32 id, uint32 k,
// k uint32 point ids}, uint32 group count, per group {uint16 length, name, uint16 length,
// slot, uint32 count, count uint32 zone ids}; then faces in the same layout.
//
// What becomes what (meshio 5.3.5's conventions): points float64 (n, 3); one block per cell
// type, face blocks first, then zone blocks, each in order of first appearance (meshio
// starts a new block whenever the type changes; grouping keeps the block list short, and
// "cell_ids" keeps the file order recoverable). Corners are permuted from FLAC3D's order to
// meshio's; a B7 brick repeats its last corner. cell_data "cell_ids" holds each record's id
// (zone ids shifted by the number of faces, exactly as meshio stores them). Each group
// becomes a Cell region named "zone:<name>:<slot>" / "face:<name>:<slot>" — meshio's
// cell_sets keys — with dim 3 / 2; a slot missing in the file reads as "Default", quotes
// around the slot are dropped (meshio keeps them), a group listed twice is merged (meshio
// keeps the last list).
//
// Arrays: a first pass classifies every record, so points and each block are allocated
// once in final shape; the second pass fills them.
#include <algorithm>
#include <cctype>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/flac3d/flac3d.hpp"
#include "formats/flac3d/flac3d_cells.hpp"
#include "io/source/byte_order.hpp"
#include "io/cells/id_map.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/text_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::flac3d {
namespace {

using detail::kKinds;
using detail::kNoKind;

constexpr std::string_view kFormat = "flac3d";

using io::IdMap;

// One Z/F record: where its corner list starts (and, for ASCII, where its line ends).
struct Record {
  std::uint8_t kind;
  std::uint8_t corners;  // as listed (7 for a B7)
  std::int64_t id;
  std::size_t begin;
  std::size_t end;
};

struct Member {
  std::int64_t id;
  std::size_t offset;
};

struct Group {
  bool zone;
  std::string name;  // region name: "zone:<name>:<slot>"
  std::vector<Member> members;
};


// The kinds present (count > 0) in block order: faces before zones, each by first appearance.
std::vector<std::size_t> block_order(const std::array<std::int64_t, kKinds.size()>& counts,
                                     const std::array<std::size_t, kKinds.size()>& first_seen) {
  std::vector<std::size_t> kinds;
  for (std::size_t k = 0; k < kKinds.size(); ++k)
    if (counts[k] > 0) kinds.push_back(k);
  std::stable_sort(kinds.begin(), kinds.end(), [&](std::size_t a, std::size_t b) {
    if (kKinds[a].zone != kKinds[b].zone) return !kKinds[a].zone;
    return first_seen[a] < first_seen[b];
  });
  return kinds;
}

std::string group_region_name(bool zone, std::string_view name, std::string_view slot) {
  std::string region(zone ? "zone:" : "face:");
  region.append(name).append(":").append(slot);
  return region;
}

// Groups with the same name merge into one region; `cells` map a zone (face) id's position
// in file order to its block-major cell index.
template <class Fail>
void add_group_regions(Mesh& mesh, std::vector<Group>& groups, const IdMap& zone_map, const IdMap& face_map,
                       const std::vector<std::int64_t>& zone_cells, const std::vector<std::int64_t>& face_cells,
                       Fail&& fail_at) {
  std::unordered_map<std::string, std::size_t> region_of;
  std::vector<std::vector<std::int64_t>> entries;
  for (Group& group : groups) {
    const IdMap& map = group.zone ? zone_map : face_map;
    const auto& cells = group.zone ? zone_cells : face_cells;
    auto [it, added] = region_of.emplace(group.name, mesh.regions.size());
    if (added) {
      Region region;
      region.name = group.name;
      region.kind = RegionKind::Cell;
      region.dim = group.zone ? 3 : 2;
      mesh.regions.push_back(std::move(region));
      entries.emplace_back();
    }
    auto& list = entries[it->second];
    for (const Member& member : group.members) {
      const std::int64_t position = map.find(member.id);
      if (position < 0)
        fail_at(member.offset, std::string(group.zone ? "zone" : "face") + " group refers to " +
                                   (group.zone ? "zone " : "face ") + std::to_string(member.id) +
                                   ", which is not defined");
      list.push_back(cells[static_cast<std::size_t>(position)]);
    }
  }
  for (std::size_t r = 0; r < mesh.regions.size(); ++r) {
    NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries[r].size())});
    std::copy(entries[r].begin(), entries[r].end(), array.data_as<std::int64_t>());
    mesh.regions[r].entries = std::move(array);
  }
}

// Turns classified records into blocks, "cell_ids" and regions. Shared by both front ends;
// `corner_ids(record, ids, offsets)` yields a record's listed point ids and their offsets.
class Builder {
 public:
  Builder(std::string_view doc, const std::string& path, bool text) : doc_(doc), path_(path), text_(text) {}

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    if (text_) throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(doc_, offset));
    throw ReadError(path_, std::string(kFormat), message, offset);
  }

  void set_point_ids(const std::vector<std::int64_t>& ids, const std::vector<std::size_t>& offsets) {
    if (const auto repeated = point_ids_.build(ids))
      fail_at(offsets[*repeated], "grid point id " + std::to_string(ids[*repeated]) + " appears twice");
  }

  template <class CornerIds>
  Mesh finish(NDArray points, const std::vector<Record>& records, std::vector<Group>& groups, CornerIds&& corner_ids) {
    Mesh mesh;
    mesh.points = std::move(points);

    std::array<std::int64_t, kKinds.size()> counts{};
    std::array<std::size_t, kKinds.size()> first_seen{};
    std::int64_t num_faces = 0;
    for (std::size_t r = 0; r < records.size(); ++r) {
      if (counts[records[r].kind]++ == 0) first_seen[records[r].kind] = r;
      if (!kKinds[records[r].kind].zone) ++num_faces;
    }
    const std::vector<std::size_t> kinds = block_order(counts, first_seen);
    std::array<std::size_t, kKinds.size()> block_of{};
    std::vector<NDArray> cell_ids;
    std::vector<std::int64_t> sizes;
    for (std::size_t b = 0; b < kinds.size(); ++b) {
      const auto& kind = kKinds[kinds[b]];
      block_of[kinds[b]] = b;
      mesh.cells.push_back({std::string(kind.type), NDArray::allocate(DType::int64, {counts[kinds[b]], kind.nodes}), {}, {}});
      cell_ids.push_back(NDArray::allocate(DType::int64, {counts[kinds[b]]}));
      sizes.push_back(counts[kinds[b]]);
    }
    const NDArray bases = block_bases(sizes);
    const std::int64_t* base = bases.data_as<std::int64_t>();

    // Zone and face ids are separate name spaces; each maps to a block-major cell index.
    std::vector<std::int64_t> zone_ids, face_ids, zone_cells, face_cells;
    std::vector<std::size_t> zone_offsets, face_offsets;
    std::array<std::int64_t, kKinds.size()> rows{};
    for (const Record& record : records) {
      const auto& kind = kKinds[record.kind];
      const std::size_t b = block_of[record.kind];
      const std::int64_t row = rows[record.kind]++;
      std::array<std::int64_t, 8> listed{};
      std::array<std::size_t, 8> offsets{};
      corner_ids(record, listed.data(), offsets.data());
      for (int k = 0; k < record.corners; ++k) {
        const std::int64_t id = listed[static_cast<std::size_t>(k)];
        const std::int64_t index = point_ids_.find(id);
        if (index < 0)
          fail_at(offsets[static_cast<std::size_t>(k)], std::string(kind.zone ? "zone " : "face ") + std::to_string(record.id) +
                              " refers to grid point " + std::to_string(id) + ", which is not defined");
        listed[static_cast<std::size_t>(k)] = index;
      }
      if (record.corners == 7) listed[7] = listed[6];
      std::int64_t* out = mesh.cells[b].connectivity.data_as<std::int64_t>() + row * kind.nodes;
      for (int k = 0; k < kind.nodes; ++k) out[k] = listed[static_cast<std::size_t>(kind.to_ours[static_cast<std::size_t>(k)])];
      cell_ids[b].data_as<std::int64_t>()[row] = kind.zone ? record.id + num_faces : record.id;
      auto& ids = kind.zone ? zone_ids : face_ids;
      (kind.zone ? zone_cells : face_cells).push_back(base[b] + row);
      (kind.zone ? zone_offsets : face_offsets).push_back(record.begin);
      ids.push_back(record.id);
    }
    IdMap zone_map, face_map;
    if (const auto repeated = zone_map.build(zone_ids))
      fail_at(zone_offsets[*repeated], "zone id " + std::to_string(zone_ids[*repeated]) + " appears twice");
    if (const auto repeated = face_map.build(face_ids))
      fail_at(face_offsets[*repeated], "face id " + std::to_string(face_ids[*repeated]) + " appears twice");
    if (!mesh.cells.empty()) mesh.cell_data.set("cell_ids", std::move(cell_ids));

    add_group_regions(mesh, groups, zone_map, face_map, zone_cells, face_cells,
                      [&](std::size_t offset, const std::string& message) { fail_at(offset, message); });
    return mesh;
  }

 private:
  std::string_view doc_;
  const std::string& path_;
  bool text_;
  IdMap point_ids_;
};

// ---- ASCII ----

// Corner counts FLAC3D's record types must have.
// (Two characters compared directly: this runs once per record, twice per file.)
int keyword_corners(bool zone, std::string_view keyword) {
  if (keyword.size() != 2) return -1;
  const char a = keyword[0], b = keyword[1];
  if (zone) {
    if (a == 'B' && b == '8') return 8;
    if (a == 'B' && b == '7') return 7;
    if (a == 'W' && b == '6') return 6;
    if (a == 'P' && b == '5') return 5;
    if (a == 'T' && b == '4') return 4;
  } else {
    if (a == 'T' && b == '3') return 3;
    if (a == 'Q' && b == '4') return 4;
  }
  return -1;
}

// A plain id ended by whitespace or `last` (see io::plain_digits); nullptr for anything else,
// which the caller hands to TextScanner to parse or report as before.
inline const char* plain_id(const char* p, const char* last, std::int64_t& value) noexcept {
  std::uint64_t digits = 0;
  const char* q = io::plain_digits(p, last, digits);
  if (q == nullptr || (q < last && !io::is_space(*q))) return nullptr;
  value = static_cast<std::int64_t>(digits);
  return q;
}

// Two passes over the lines: the first counts grid points and records of each kind (so
// every returned array is allocated once, in final shape), the second parses each line
// straight into those arrays. Point ids are resolved as records are read when all grid
// points come first (as writers put them), else afterwards. Error offsets that the fast
// path does not keep (repeated ids, unknown grid points) are found again by a slow walk
// over the file, only when the error is raised.
class AsciiReader {
 public:
  AsciiReader(std::string_view doc, const std::string& path) : doc_(doc), path_(path) {}

  Mesh read() {
    count();
    allocate();
    try {
      parse();
    } catch (const ReadError&) {
      diagnose();
    }
    return finish();
  }

 private:
  enum class Line { point, zone, face, zgroup, fgroup, other };

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw ReadError(path_, std::string(kFormat), message, offset, io::line_of_offset(doc_, offset));
  }

  // Calls fn(begin, end) for each line that is neither blank nor a '*' comment, trimmed.
  template <class Fn> void for_each_line(Fn&& fn) const {
    const char* data = doc_.data();
    const std::size_t size = doc_.size();
    std::size_t pos = 0;
    while (pos < size) {
      const void* newline = std::memchr(data + pos, '\n', size - pos);
      const std::size_t stop = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - data) : size;
      std::size_t begin = pos, end = stop;
      pos = stop + 1;
      while (begin < end && io::is_space(data[begin])) ++begin;
      while (end > begin && io::is_space(data[end - 1])) --end;
      if (begin == end || data[begin] == '*') continue;
      fn(begin, end);
    }
  }

  // What the line's first token makes it.
  Line line_kind(std::size_t begin, std::size_t end) const {
    const char* data = doc_.data();
    if (begin + 1 == end || io::is_space(data[begin + 1])) {
      if (data[begin] == 'G') return Line::point;
      if (data[begin] == 'Z') return Line::zone;
      if (data[begin] == 'F') return Line::face;
      return Line::other;
    }
    if (end - begin >= 6 && (begin + 6 == end || io::is_space(data[begin + 6]))) {
      const std::string_view keyword = doc_.substr(begin, 6);
      if (keyword == "ZGROUP") return Line::zgroup;
      if (keyword == "FGROUP") return Line::fgroup;
    }
    return Line::other;
  }

  io::TextScanner scanner(std::size_t begin, std::size_t end) const { return io::TextScanner(doc_, begin, end, path_, kFormat); }

  // First pass: counts only; malformed lines are left for the second pass to report.
  void count() {
    std::size_t order = 0;
    for_each_line([&](std::size_t begin, std::size_t end) {
      const Line line = line_kind(begin, end);
      if (line == Line::point) {
        ++num_points_;
      } else if (line == Line::zone || line == Line::face) {
        const bool zone = line == Line::zone;
        io::TextScanner s = scanner(begin + 1, end);
        const int corners = keyword_corners(zone, s.next_token());
        if (corners < 0) return;
        const std::size_t kind = detail::kind_of(zone, corners);
        if (counts_[kind]++ == 0) first_seen_[kind] = order++;
        if (!zone) ++num_faces_;
      } else if (line == Line::zgroup || line == Line::fgroup) {
        has_groups_ = true;
      }
    });
  }

  // Points, and per kind a connectivity block and its "cell_ids": faces before zones, each
  // by first appearance.
  void allocate() {
    points_ = NDArray::allocate(DType::float64, {num_points_, 3});
    const std::vector<std::size_t> kinds = block_order(counts_, first_seen_);
    std::vector<std::int64_t> sizes;
    std::int64_t base = 0;
    for (std::size_t b = 0; b < kinds.size(); ++b) {
      const std::size_t k = kinds[b];
      mesh_.cells.push_back({std::string(kKinds[k].type), NDArray::allocate(DType::int64, {counts_[k], kKinds[k].nodes}), {}, {}});
      cell_ids_.push_back(NDArray::allocate(DType::int64, {counts_[k]}));
      connectivity_[k] = mesh_.cells.back().connectivity.data_as<std::int64_t>();
      ids_of_[k] = cell_ids_.back().data_as<std::int64_t>();
      base_[k] = base;
      base += counts_[k];
    }
    const std::int64_t num_zones = base - num_faces_;
    point_ids_.reserve(static_cast<std::size_t>(num_points_));
    zone_ids_.reserve(static_cast<std::size_t>(num_zones));
    face_ids_.reserve(static_cast<std::size_t>(num_faces_));
    if (has_groups_) {
      zone_cells_.reserve(static_cast<std::size_t>(num_zones));
      face_cells_.reserve(static_cast<std::size_t>(num_faces_));
    }
  }

  void parse() {
    xyz_ = points_.data_as<double>();
    for_each_line([&](std::size_t begin, std::size_t end) {
      switch (line_kind(begin, end)) {
        case Line::point:
          group_ = nullptr;
          read_point(begin, end);
          return;
        case Line::zone:
        case Line::face:
          group_ = nullptr;
          read_record(line_kind(begin, end) == Line::zone, begin, end);
          return;
        case Line::zgroup:
        case Line::fgroup: {
          io::TextScanner s = scanner(begin + 6, end);
          read_group_header(s, doc_[begin] == 'Z');
          return;
        }
        case Line::other:
          break;
      }
      read_other(begin, end);
    });
  }

  // Group member ids, or an error.
  void read_other(std::size_t begin, std::size_t end) {
    io::TextScanner s = scanner(begin, end);
    if (group_ != nullptr && (std::isdigit(static_cast<unsigned char>(doc_[begin])) || doc_[begin] == '+')) {
      while (true) {
        s.skip_whitespace();
        if (s.at_end()) break;
        const std::size_t offset = s.position();
        group_->members.push_back({s.next_number<std::int64_t>(), offset});
      }
      return;
    }
    const std::string_view keyword = s.next_token();
    s.fail_at(begin, "unknown record '" + std::string(keyword.substr(0, 32)) +
                         "' (expected G, Z, F, ZGROUP, FGROUP or a '*' comment)");
  }

  // After an error in the single pass: throws the error met first when reading in the
  // reader's documented order (record and group lines, then grid points, then corners),
  // so a file with several faults reports the same one as ever.
  [[noreturn]] void diagnose() {
    groups_.clear();
    group_ = nullptr;
    for_each_line([&](std::size_t begin, std::size_t end) {
      const Line line = line_kind(begin, end);
      if (line == Line::point) {
        group_ = nullptr;
      } else if (line == Line::zone || line == Line::face) {
        group_ = nullptr;
        const bool zone = line == Line::zone;
        io::TextScanner s = scanner(begin + 1, end);
        const std::string_view type = s.next_token();
        if (type.empty()) s.fail_at(begin, std::string(zone ? "zone" : "face") + " record without a type");
        s.skip_whitespace();
        const std::int64_t id = s.next_number<std::int64_t>();
        int corners = 0;
        while (!s.next_token().empty()) ++corners;
        const int expected = keyword_corners(zone, type);
        if (expected < 0)
          s.fail_at(begin, "unknown " + std::string(zone ? "zone" : "face") + " type '" + std::string(type.substr(0, 16)) +
                               (zone ? "' (expected B8, B7, W6, P5 or T4)" : "' (expected T3 or Q4)"));
        if (corners != expected)
          s.fail_at(begin, std::string(zone ? "zone " : "face ") + std::to_string(id) + " of type " + std::string(type) +
                               " lists " + std::to_string(corners) + " grid points, expected " + std::to_string(expected));
      } else if (line == Line::zgroup || line == Line::fgroup) {
        io::TextScanner s = scanner(begin + 6, end);
        read_group_header(s, doc_[begin] == 'Z');
      } else {
        read_other(begin, end);
      }
    });
    point_ids_.clear();
    xyz_ = points_.data_as<double>();
    for_each_line([&](std::size_t begin, std::size_t end) {
      if (line_kind(begin, end) == Line::point) read_point(begin, end);
    });
    if (const auto repeated = point_map_.build(point_ids_)) repeated_point(*repeated);
    find_unknown_point();
    throw;
  }

  void read_point(std::size_t begin, std::size_t end) {
    io::TextScanner s = scanner(begin + 1, end);
    point_ids_.push_back(s.next_number<std::int64_t>());
    for (int c = 0; c < 3; ++c) {
      s.skip_whitespace();
      if (s.at_end()) s.fail("grid point " + std::to_string(point_ids_.back()) + " needs three coordinates");
      *xyz_++ = s.next_number<double>();
    }
    s.skip_whitespace();
    if (!s.at_end()) s.fail("unexpected value after grid point " + std::to_string(point_ids_.back()) + "'s coordinates");
  }

  void read_record(bool zone, std::size_t begin, std::size_t end) {
    io::TextScanner s = scanner(begin + 1, end);
    const std::string_view type = s.next_token();
    if (type.empty()) s.fail_at(begin, std::string(zone ? "zone" : "face") + " record without a type");
    const std::int64_t id = s.next_number<std::int64_t>();
    const std::size_t corners_begin = s.position();
    const int expected = keyword_corners(zone, type);
    std::array<std::int64_t, 8> listed{};
    // Fast path: exactly `expected` plain ids.
    const char* data = doc_.data();
    const char* p = data + corners_begin;
    const char* last = data + end;
    int corners = 0;
    bool plain = expected > 0;
    while (plain) {
      while (p < last && io::is_space(*p)) ++p;
      if (p == last) break;
      if (corners == expected || (p = plain_id(p, last, listed[static_cast<std::size_t>(corners)])) == nullptr) {
        plain = false;
        break;
      }
      ++corners;
    }
    if (!plain || corners != expected) {
      // Count, check, then parse, reporting exactly what the first failure is.
      s.seek(corners_begin);
      corners = 0;
      while (!s.next_token().empty()) ++corners;
      if (expected < 0)
        s.fail_at(begin, "unknown " + std::string(zone ? "zone" : "face") + " type '" + std::string(type.substr(0, 16)) +
                             (zone ? "' (expected B8, B7, W6, P5 or T4)" : "' (expected T3 or Q4)"));
      if (corners != expected)
        s.fail_at(begin, std::string(zone ? "zone " : "face ") + std::to_string(id) + " of type " + std::string(type) +
                             " lists " + std::to_string(corners) + " grid points, expected " + std::to_string(expected));
      s.seek(corners_begin);
      for (int k = 0; k < corners; ++k) listed[static_cast<std::size_t>(k)] = s.next_number<std::int64_t>();
    }
    if (!decided_) {
      // The first record: grid points resolve now when all of them have been read.
      decided_ = true;
      resolve_now_ = static_cast<std::int64_t>(point_ids_.size()) == num_points_ && !point_map_.build(point_ids_);
    }
    if (resolve_now_) {
      for (int k = 0; k < corners; ++k) {
        std::int64_t& corner = listed[static_cast<std::size_t>(k)];
        corner = point_map_.find(corner);
        unresolved_ |= corner < 0;
      }
    }
    const std::size_t kind = detail::kind_of(zone, expected);
    const auto& info = kKinds[kind];
    if (corners == 7) listed[7] = listed[6];
    const std::int64_t row = rows_[kind]++;
    std::int64_t* out = connectivity_[kind] + row * info.nodes;
    for (int k = 0; k < info.nodes; ++k) out[k] = listed[static_cast<std::size_t>(info.to_ours[static_cast<std::size_t>(k)])];
    // Zones are numbered after the faces in "cell_ids": an id that would overflow is refused.
    const std::optional<std::int64_t> cell_id = zone ? io::checked_sum(id, num_faces_) : std::optional<std::int64_t>(id);
    if (!cell_id) fail_at(begin, "zone id " + std::to_string(id) + " is too large to number after the faces");
    ids_of_[kind][row] = *cell_id;
    (zone ? zone_ids_ : face_ids_).push_back(id);
    if (has_groups_) (zone ? zone_cells_ : face_cells_).push_back(base_[kind] + row);
  }

  // ZGROUP "name" [SLOT slot] — names and slots quoted with " or ', or bare words.
  void read_group_header(io::TextScanner& s, bool zone) {
    const auto word = [&](std::string_view what) -> std::string {
      s.skip_whitespace();
      if (s.at_end()) s.fail("group header without a " + std::string(what));
      const char quote = doc_[s.position()];
      if (quote == '"' || quote == '\'') {
        const std::size_t start = s.position() + 1;
        const std::size_t close = doc_.substr(0, s.end()).find(quote, start);
        if (close == std::string_view::npos) s.fail("unterminated quoted " + std::string(what));
        s.seek(close + 1);
        return std::string(doc_.substr(start, close - start));
      }
      return std::string(s.next_token());
    };
    const std::string name = word("name");
    std::string slot = "Default";
    s.skip_whitespace();
    if (!s.at_end()) {
      const std::size_t offset = s.position();
      if (s.next_token() != "SLOT") s.fail_at(offset, "expected SLOT after the group name");
      slot = word("slot");
      s.skip_whitespace();
      if (!s.at_end()) s.fail("unexpected text after the group slot");
    }
    groups_.push_back({zone, group_region_name(zone, name, slot), {}});
    group_ = &groups_.back();
  }

  Mesh finish() {
    if (!resolve_now_) {
      if (const auto repeated = point_map_.build(point_ids_)) repeated_point(*repeated);
      for (std::size_t k = 0; k < kKinds.size(); ++k) {
        std::int64_t* cell = connectivity_[k];
        for (std::int64_t i = 0; i < counts_[k] * kKinds[k].nodes; ++i) {
          cell[i] = point_map_.find(cell[i]);
          unresolved_ |= cell[i] < 0;
        }
      }
    }
    if (unresolved_) unknown_point();
    IdMap zone_map, face_map;
    if (const auto repeated = zone_map.build(zone_ids_)) repeated_record(true, *repeated);
    if (const auto repeated = face_map.build(face_ids_)) repeated_record(false, *repeated);
    mesh_.points = std::move(points_);
    if (!mesh_.cells.empty()) mesh_.cell_data.set("cell_ids", std::move(cell_ids_));
    add_group_regions(mesh_, groups_, zone_map, face_map, zone_cells_, face_cells_,
                      [&](std::size_t offset, const std::string& message) { fail_at(offset, message); });
    return std::move(mesh_);
  }

  // ---- error paths: find again what the fast path did not keep ----

  [[noreturn]] void repeated_point(std::size_t index) const {
    std::size_t seen = 0;
    for_each_line([&](std::size_t begin, std::size_t end) {
      if (line_kind(begin, end) == Line::point && seen++ == index)
        fail_at(begin, "grid point id " + std::to_string(point_ids_[index]) + " appears twice");
    });
    fail_at(0, "grid point id " + std::to_string(point_ids_[index]) + " appears twice");
  }

  [[noreturn]] void repeated_record(bool zone, std::size_t index) const {
    const std::int64_t id = (zone ? zone_ids_ : face_ids_)[index];
    const std::string message = std::string(zone ? "zone id " : "face id ") + std::to_string(id) + " appears twice";
    std::size_t seen = 0;
    for_each_line([&](std::size_t begin, std::size_t end) {
      if (line_kind(begin, end) != (zone ? Line::zone : Line::face) || seen++ != index) return;
      io::TextScanner s = scanner(begin + 1, end);
      s.next_token();
      s.next_number<std::int64_t>();
      fail_at(s.position(), message);
    });
    fail_at(0, message);
  }

  [[noreturn]] void unknown_point() const {
    find_unknown_point();
    fail_at(0, "a zone or face refers to a grid point that is not defined");
  }

  // Throws at the first corner, in file order, that is no number or names a grid point
  // that does not exist.
  void find_unknown_point() const {
    for_each_line([&](std::size_t begin, std::size_t end) {
      const Line line = line_kind(begin, end);
      if (line != Line::zone && line != Line::face) return;
      io::TextScanner s = scanner(begin + 1, end);
      s.next_token();
      const std::int64_t id = s.next_number<std::int64_t>();
      // A record's corners are all parsed before any is looked up.
      std::array<std::int64_t, 8> points{};
      std::array<std::size_t, 8> offsets{};
      std::size_t corners = 0;
      for (; corners < points.size(); ++corners) {
        s.skip_whitespace();
        if (s.at_end()) break;
        offsets[corners] = s.position();
        points[corners] = s.next_number<std::int64_t>();
      }
      for (std::size_t k = 0; k < corners; ++k)
        if (point_map_.find(points[k]) < 0)
          fail_at(offsets[k], std::string(line == Line::zone ? "zone " : "face ") + std::to_string(id) +
                                  " refers to grid point " + std::to_string(points[k]) + ", which is not defined");
    });
  }

  std::string_view doc_;
  const std::string& path_;
  Mesh mesh_;
  NDArray points_;
  double* xyz_ = nullptr;
  std::int64_t num_points_ = 0;
  std::int64_t num_faces_ = 0;
  bool has_groups_ = false;
  std::array<std::int64_t, kKinds.size()> counts_{};
  std::array<std::size_t, kKinds.size()> first_seen_{};
  std::array<std::int64_t, kKinds.size()> rows_{};
  std::array<std::int64_t, kKinds.size()> base_{};
  std::array<std::int64_t*, kKinds.size()> connectivity_{};
  std::array<std::int64_t*, kKinds.size()> ids_of_{};
  std::vector<NDArray> cell_ids_;
  std::vector<std::int64_t> point_ids_, zone_ids_, face_ids_, zone_cells_, face_cells_;
  IdMap point_map_;
  bool decided_ = false;
  bool resolve_now_ = false;
  bool unresolved_ = false;
  std::vector<Group> groups_;
  Group* group_ = nullptr;  // the group whose id lines follow; re-taken after each push_back
};

// ---- binary ----

class BinaryReader {
 public:
  BinaryReader(std::string_view doc, const std::string& path) : doc_(doc), builder_(doc, path, false) {}

  Mesh read() {
    need(8, "the file header");
    pos_ += 8;  // two words meshio writes and never reads
    const std::uint32_t num_points = u32("the grid point count");
    check_room(num_points, 28, "grid points");
    NDArray points = NDArray::allocate(DType::float64, {static_cast<std::int64_t>(num_points), 3});
    std::vector<std::int64_t> ids(num_points);
    std::vector<std::size_t> offsets(num_points);
    double* xyz = points.data_as<double>();
    for (std::uint32_t i = 0; i < num_points; ++i) {
      offsets[i] = pos_;
      ids[i] = u32("a grid point id");
      need(24, "grid point coordinates");
      io::copy_from_file_order(xyz + 3 * std::size_t{i}, doc_.data() + pos_, 8, 3, true);
      pos_ += 24;
    }
    builder_.set_point_ids(ids, offsets);
    read_section(true);
    read_section(false);
    if (pos_ != doc_.size()) builder_.fail_at(pos_, "unexpected data after the face groups");
    return builder_.finish(std::move(points), records_, groups_,
                           [&](const Record& record, std::int64_t* ids, std::size_t* offsets) {
                             for (int k = 0; k < record.corners; ++k) {
                               offsets[k] = record.begin + 4 * static_cast<std::size_t>(k);
                               std::uint32_t id;
                               io::copy_from_file_order(&id, doc_.data() + offsets[k], 4, 1, true);
                               ids[k] = id;
                             }
                           });
  }

 private:
  void need(std::size_t bytes, std::string_view what) const {
    if (doc_.size() - pos_ < bytes) builder_.fail_at(pos_, "unexpected end of file: expected " + std::string(what));
  }
  // The next little-endian T.
  template <class T> T value(std::string_view what) {
    need(sizeof(T), what);
    T result;
    io::copy_from_file_order(&result, doc_.data() + pos_, sizeof(T), 1, true);
    pos_ += sizeof(T);
    return result;
  }
  std::uint32_t u32(std::string_view what) { return value<std::uint32_t>(what); }
  std::uint16_t u16(std::string_view what) { return value<std::uint16_t>(what); }
  std::string text(std::string_view what) {
    const std::uint16_t length = u16(what);
    need(length, what);
    std::string value(doc_.substr(pos_, length));
    pos_ += length;
    return value;
  }
  // A corrupt count must not drive a huge allocation.
  void check_room(std::uint64_t records, std::uint64_t bytes_each, std::string_view what) const {
    if (records > (doc_.size() - pos_) / bytes_each)
      builder_.fail_at(pos_ - 4, "the file announces " + std::to_string(records) + " " + std::string(what) +
                                     ", more than the rest of the file can hold");
  }

  void read_section(bool zone) {
    const std::string_view what = zone ? "zone" : "face";
    const std::uint32_t count = u32(zone ? "the zone count" : "the face count");
    check_room(count, 8, zone ? "zones" : "faces");
    records_.reserve(records_.size() + count);
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::size_t start = pos_;
      const std::uint32_t id = u32(what);
      const std::uint32_t corners = u32(what);
      const std::size_t kind = detail::kind_of(zone, corners);
      if (kind == kNoKind)
        builder_.fail_at(start, std::string(what) + " " + std::to_string(id) + " has " + std::to_string(corners) +
                                    (zone ? " grid points (expected 4, 5, 6, 7 or 8)" : " grid points (expected 3 or 4)"));
      need(4 * std::size_t{corners}, "the grid point ids of a " + std::string(what));
      records_.push_back({static_cast<std::uint8_t>(kind), static_cast<std::uint8_t>(corners), id, pos_, 0});
      pos_ += 4 * std::size_t{corners};
    }
    const std::uint32_t num_groups = u32(zone ? "the zone group count" : "the face group count");
    check_room(num_groups, 8, "groups");
    for (std::uint32_t g = 0; g < num_groups; ++g) {
      const std::string name = text("a group name");
      const std::string slot = text("a group slot");
      const std::uint32_t members = u32("a group size");
      check_room(members, 4, "group members");
      Group group{zone, group_region_name(zone, name, slot), {}};
      group.members.reserve(members);
      for (std::uint32_t m = 0; m < members; ++m) {
        const std::size_t offset = pos_;
        group.members.push_back({u32("a group member"), offset});
      }
      groups_.push_back(std::move(group));
    }
  }

  std::string_view doc_;
  std::size_t pos_ = 0;
  Builder builder_;
  std::vector<Record> records_;
  std::vector<Group> groups_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormat);
  io::reject_empty_file(file.bytes(), path, kFormat);
  const std::string_view bytes = file.bytes();
  // meshio's test (a NUL among the first eight bytes), or its magic word, so that a
  // truncated binary file is reported as such rather than as bad text.
  std::uint32_t magic = 0;
  if (bytes.size() >= 4) io::copy_from_file_order(&magic, bytes.data(), 4, 1, true);
  if (bytes.substr(0, 8).find('\0') != std::string_view::npos || magic == detail::kBinaryMagic)
    return BinaryReader(bytes, path).read();
  return AsciiReader(bytes, path).read();
}

}  // namespace meshioplusplus::flac3d
