// FLAC3D writer, ASCII (default) or binary (`binary`), in meshio's layout so either tool
// reads the other's files.
//
// Zones are the tetra, pyramid, wedge and hexahedron blocks, faces the triangle and quad
// blocks; higher-order members of those families are written by their corners (FLAC3D has
// no midside nodes — meshio does the same). Other cell types cannot be written
// (std::invalid_argument, a WriteError for the caller). Zones are numbered 1.. over the
// zone blocks, faces 1.. over the face blocks. Each zone's corners are ordered so that its
// first four form a right-handed frame, as FLAC3D requires (meshio's rule: the mirrored
// numbering when the triple product is not positive).
//
// Cell regions become ZGROUP (their zone members) and FGROUP (their face members). A region
// named "zone:<name>:<slot>" / "face:<name>:<slot>" — how the reader names groups — is
// written back as group <name> in slot <slot>; any other name becomes a group in slot "1"
// (ASCII) or "Default" (binary), the slots meshio writes. Point and Side regions, point
// and cell data (including "cell_ids": ids are renumbered) and field data have no place in
// a grid file and are not written.
// ASCII gridpoint, zone and face lines are formatted on all cores (io/output/parallel_rows.hpp),
// in file order at any thread count.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/flac3d/flac3d.hpp"
#include "formats/flac3d/flac3d_cells.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/float_format.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/source/byte_order.hpp"
#include "meshioplusplus/cell_types.hpp"

namespace meshioplusplus::flac3d {
namespace {

using detail::kKinds;
using detail::kNoKind;

constexpr std::string_view kFormat = "flac3d";

// The FLAC3D kind of a block type: its family's linear member, or kNoKind.
std::size_t kind_of_type(std::string_view type) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kFamilies{{
      {"triangle6", "triangle"}, {"triangle7", "triangle"}, {"quad8", "quad"}, {"quad9", "quad"},
      {"tetra10", "tetra"}, {"pyramid13", "pyramid"}, {"wedge12", "wedge"}, {"wedge15", "wedge"},
      {"wedge18", "wedge"}, {"hexahedron20", "hexahedron"}, {"hexahedron24", "hexahedron"},
      {"hexahedron27", "hexahedron"},
  }};
  for (const auto& [member, linear] : kFamilies)
    if (type == member) type = linear;
  for (std::size_t k = 0; k < kKinds.size(); ++k)
    if (kKinds[k].type == type) return k;
  return kNoKind;
}

struct Group {
  std::string name;
  std::string slot;
  std::vector<std::int64_t> members;  // 1-based zone or face numbers
};

class Writer {
 public:
  Writer(const Mesh& mesh, bool binary) : mesh_(mesh), binary_(binary) {
    if (mesh.points.ndim() != 2 || mesh.points.dim(1) < 2 || mesh.points.dim(1) > 3)
      throw std::invalid_argument("FLAC3D needs 2-D or 3-D points");
    kinds_.reserve(mesh.cells.size());
    for (const CellBlock& block : mesh.cells) {
      const std::size_t kind = kind_of_type(block.type);
      if (kind == kNoKind)
        throw std::invalid_argument("FLAC3D holds tetra, pyramid, wedge, hexahedron, triangle and quad cells, not '" +
                                    block.type + "'");
      kinds_.push_back(kind);
    }
    if (binary && mesh.num_points() > std::numeric_limits<std::uint32_t>::max())
      throw std::invalid_argument("binary FLAC3D holds at most 2^32-1 grid points");
    number_cells();
    collect_groups();
  }

  // `file` is `out`'s file; `float_format` the one `out` prints floats with.
  void write(io::OutputBuffer& out, io::AtomicFile& file, const io::FloatFormat& float_format) {
    file_ = &file;
    float_format_ = float_format;
    if (binary_) {
      put_u32(out, detail::kBinaryMagic);
      put_u32(out, detail::kBinaryVersion);
    } else {
      out.text("* FLAC3D grid produced by meshio++\n");
    }
    write_points(out);
    write_cells(out, true);
    write_groups(out, true);
    write_cells(out, false);
    write_groups(out, false);
  }

 private:
  double coordinate(std::int64_t point, int axis) const {
    if (axis >= mesh_.points.dim(1)) return 0.0;
    return visit_dtype(mesh_.points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      return static_cast<double>(mesh_.points.data_as<T>()[point * mesh_.points.dim(1) + axis]);
    });
  }

  // Zone or face number (1-based) of every cell, block-major; 0 for none.
  void number_cells() {
    std::int64_t zones = 0, faces = 0;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const bool zone = kKinds[kinds_[b]].zone;
      std::int64_t& counter = zone ? zones : faces;
      first_number_.push_back(counter + 1);
      counter += mesh_.cells[b].num_cells();
    }
    num_zones_ = zones;
    num_faces_ = faces;
    if (binary_ && (zones > std::numeric_limits<std::uint32_t>::max() || faces > std::numeric_limits<std::uint32_t>::max()))
      throw std::invalid_argument("binary FLAC3D holds at most 2^32-1 zones and faces");
  }

  void collect_groups() {
    const NDArray bases = block_bases(mesh_.cells);
    const std::int64_t* base = bases.data_as<std::int64_t>();
    for (const Region& region : mesh_.regions) {
      if (region.kind != RegionKind::Cell) continue;
      Group zone{}, face{};
      split_name(region.name, "zone:", zone);
      split_name(region.name, "face:", face);
      for (std::int64_t cell : region.entries.values<std::int64_t>()) {
        const std::size_t b = static_cast<std::size_t>(std::upper_bound(base, base + mesh_.cells.size() + 1, cell) - base - 1);
        const std::int64_t number = first_number_[b] + (cell - base[b]);
        (kKinds[kinds_[b]].zone ? zone : face).members.push_back(number);
      }
      if (!zone.members.empty()) zone_groups_.push_back(std::move(zone));
      if (!face.members.empty()) face_groups_.push_back(std::move(face));
    }
  }

  // "<prefix><name>:<slot>" back to name and slot; other names keep meshio's default slot.
  void split_name(const std::string& region, std::string_view prefix, Group& group) const {
    const std::size_t colon = region.rfind(':');
    if (region.starts_with(prefix) && colon != std::string::npos && colon >= prefix.size()) {
      group.name = region.substr(prefix.size(), colon - prefix.size());
      group.slot = region.substr(colon + 1);
    } else {
      group.name = region;
      group.slot = binary_ ? "Default" : "1";
    }
  }

  static void put_u32(io::OutputBuffer& out, std::uint64_t value) {
    std::uint32_t word = static_cast<std::uint32_t>(value);
    if (!io::kHostIsLittleEndian) io::swap_bytes_in_place(&word, 4, 1);
    out.bytes(&word, 4);
  }
  static void put_u16(io::OutputBuffer& out, std::uint16_t value) {
    if (!io::kHostIsLittleEndian) io::swap_bytes_in_place(&value, 2, 1);
    out.bytes(&value, 2);
  }

  void write_points(io::OutputBuffer& out) const {
    const std::int64_t n = mesh_.num_points();
    if (binary_) {
      put_u32(out, static_cast<std::uint64_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        put_u32(out, static_cast<std::uint64_t>(i + 1));
        double xyz[3] = {coordinate(i, 0), coordinate(i, 1), coordinate(i, 2)};
        if (!io::kHostIsLittleEndian) io::swap_bytes_in_place(xyz, 8, 3);
        out.bytes(xyz, sizeof xyz);
      }
      return;
    }
    out.text("* GRIDPOINTS\n");
    const std::size_t longest = io::kMaxNumberChars + 3 * (io::max_float_chars(float_format_) + 1) + 3;
    io::write_rows_in_parallel(out, *file_, n, longest, [&](char* p, std::int64_t i) {
      p = io::put_text(p, "G ");
      p = io::put_number(p, i + 1);
      for (int axis = 0; axis < 3; ++axis) {
        *p++ = ' ';
        p = io::put_float(p, coordinate(i, axis), float_format_);
      }
      *p++ = '\n';
      return p;
    });
  }

  // Corner order for one cell: FLAC3D wants the first four corners right-handed.
  const std::array<int, 8>& zone_order(const detail::Kind& kind, const std::int64_t* nodes) const {
    if (!kind.zone) return kind.to_flac;
    double p[4][3];
    for (int c = 0; c < 4; ++c)
      for (int axis = 0; axis < 3; ++axis) p[c][axis] = coordinate(nodes[kind.to_flac[static_cast<std::size_t>(c)]], axis);
    double a[3], b[3], c[3];
    for (int axis = 0; axis < 3; ++axis) {
      a[axis] = p[1][axis] - p[0][axis];
      b[axis] = p[2][axis] - p[0][axis];
      c[axis] = p[3][axis] - p[0][axis];
    }
    const double det = a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
                       a[2] * (b[0] * c[1] - b[1] * c[0]);
    return det > 0 ? kind.to_flac : kind.alt_to_flac;
  }

  void write_cells(io::OutputBuffer& out, bool zones) const {
    if (binary_) {
      put_u32(out, static_cast<std::uint64_t>(zones ? num_zones_ : num_faces_));
    } else {
      out.text(zones ? "* ZONES\n" : "* FACES\n");
    }
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const detail::Kind& kind = kKinds[kinds_[b]];
      if (kind.zone != zones) continue;
      const CellBlock& block = mesh_.cells[b];
      const std::int64_t width = block.connectivity.row_width();
      const std::int64_t* connectivity = block.connectivity.data_as<std::int64_t>();
      if (!binary_) {
        const std::size_t longest = 3 + std::string_view(kind.keyword).size() + static_cast<std::size_t>(1 + kind.nodes) * (io::kMaxNumberChars + 1);
        io::write_rows_in_parallel(out, *file_, block.num_cells(), longest, [&](char* p, std::int64_t cell) {
          const std::int64_t* nodes = connectivity + cell * width;
          const std::array<int, 8>& order = zone_order(kind, nodes);
          p = io::put_text(p, zones ? "Z " : "F ");
          p = io::put_text(p, kind.keyword);
          *p++ = ' ';
          p = io::put_number(p, first_number_[b] + cell);
          for (int k = 0; k < kind.nodes; ++k) {
            *p++ = ' ';
            p = io::put_number(p, nodes[order[static_cast<std::size_t>(k)]] + 1);
          }
          *p++ = '\n';
          return p;
        });
        continue;
      }
      for (std::int64_t cell = 0; cell < block.num_cells(); ++cell) {
        const std::int64_t* nodes = connectivity + cell * width;
        const std::array<int, 8>& order = zone_order(kind, nodes);
        const std::int64_t number = first_number_[b] + cell;
        put_u32(out, static_cast<std::uint64_t>(number));
        put_u32(out, static_cast<std::uint64_t>(kind.nodes));
        for (int k = 0; k < kind.nodes; ++k) put_u32(out, static_cast<std::uint64_t>(nodes[order[static_cast<std::size_t>(k)]] + 1));
      }
    }
  }

  void write_groups(io::OutputBuffer& out, bool zones) const {
    const std::vector<Group>& groups = zones ? zone_groups_ : face_groups_;
    if (binary_) {
      put_u32(out, groups.size());
      for (const Group& group : groups) {
        for (const std::string* text : {&group.name, &group.slot}) {
          if (text->size() > std::numeric_limits<std::uint16_t>::max())
            throw std::invalid_argument("FLAC3D group names and slots are at most 65535 bytes");
          put_u16(out, static_cast<std::uint16_t>(text->size()));
          out.bytes(text->data(), text->size());
        }
        put_u32(out, group.members.size());
        for (std::int64_t member : group.members) put_u32(out, static_cast<std::uint64_t>(member));
      }
      return;
    }
    if (groups.empty()) return;
    out.text(zones ? "* ZONE GROUPS\n" : "* FACE GROUPS\n");
    for (const Group& group : groups) {
      out.text(zones ? "ZGROUP " : "FGROUP ");
      put_quoted(out, group.name);
      out.text(" SLOT ");
      // A bare slot: meshio keeps quotes around a slot as part of its name.
      if (!group.slot.empty() && group.slot.find_first_of(" \t\r\n\"'") == std::string::npos)
        out.text(group.slot);
      else
        put_quoted(out, group.slot);
      // Ids twenty to a line, as meshio and FLAC3D write them.
      for (std::size_t i = 0; i < group.members.size(); ++i) {
        out.put(i % 20 == 0 ? '\n' : ' ');
        out.number(group.members[i]);
      }
      out.put('\n');
    }
  }

  static void put_quoted(io::OutputBuffer& out, const std::string& text) {
    char quote = '"';
    if (text.find('"') != std::string::npos) quote = '\'';
    if (text.find(quote) != std::string::npos || text.find_first_of("\r\n") != std::string::npos)
      throw std::invalid_argument("FLAC3D cannot write the group name or slot '" + text + "' in ASCII");
    out.put(quote);
    out.text(text);
    out.put(quote);
  }

  const Mesh& mesh_;
  bool binary_;
  std::vector<std::size_t> kinds_;
  io::AtomicFile* file_ = nullptr;  // write()'s file, for the text sections formatted on all cores
  io::FloatFormat float_format_;
  std::vector<std::int64_t> first_number_;
  std::int64_t num_zones_ = 0, num_faces_ = 0;
  std::vector<Group> zone_groups_, face_groups_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const bool binary = options.get_bool("binary", false);
  Writer writer(mesh, binary);
  io::AtomicFile file(path, kFormat);
  io::OutputBuffer out(file);
  const io::FloatFormat float_format = io::parse_float_format(options.get("float_fmt", ""));  // meshio's float_fmt (text), when given
  out.set_float_format(float_format);
  writer.write(out, file, float_format);
  out.flush();
  file.commit();
}

}  // namespace meshioplusplus::flac3d
