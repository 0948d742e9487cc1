// ANSYS Fluent mesh writer, Fluent's own layout (layout="fluent"; ansys_writer.cpp says why it
// is not the default): volume cells defined by their faces, as Fluent, TGrid and VTK's
// vtkFLUENTReader read them.
//
//   (0 "meshio++ Fluent mesh")  (4 (60 …))  (2 ND)  (10 (0 1 n 0 ND))  (12 (0 1 cells 0))  (13 …)
//   (10 (1 1 n 1 ND)( coordinates ))                          or 3010 / 2010 binary
//   (12 (zone first last 1 elem))  per cell zone; elem 0 (mixed) with a body of element types
//   (13 (zone first last bc face)( n0 n1 … c0 c1 per face )) interior zone (bc 2), then one
//                                  wall zone (bc 3) per boundary Side region, then the rest
//   (45 (zone type name)())       zone names
//
// Faces come from io::faces_from_cells (unique faces, internal first). Fluent's side rule
// (ansys_volume.cpp): in 3-D the right-hand normal points into c0, so each face, oriented out
// of its owner there, is written reversed with c0 = owner, c1 = neighbour (0 on a boundary);
// in 2-D c0 is on the left of n0 -> n1, the builder's owner side, so edges go as they are.
// Boundary zones: the Side regions of dimension ND - 1, and Cell regions of boundary cells
// (Gmsh's physical surfaces) turned into Side regions by derive_side_regions.
// Cell zones: the "ansys:zone" cell data when the volume cells carry it (a Fluent file read
// back keeps its zones), one zone "fluid" otherwise; cells are numbered zone by zone (Fluent
// ids are contiguous per zone). Zone ids: the mesh's own (ansys:zone, Side region tags) where
// free, else the smallest free ones. Zone names: the Cell region whose tag is the zone id, the Side
// region of each boundary zone. Element types: triangle 1, tetra 2, quad 3, hexahedron 4,
// pyramid 5, wedge 6, polyhedron/polygon 7. Face zones of one node count 2/3/4 get that face
// type, others 0 (mixed: each face starts with its node count). Binary sections follow
// Fluent: "(3013 (header)\n(" then the data, ")\nEnd of Binary Section 3013)", indices int32
// (files past 2^31 ids are a WriteError), the machine configuration (4 …) saying little-endian.
// Point, cell and field data are not written (a mesh file).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "formats/ansys/ansys_internal.hpp"
#include "io/cells/faces_from_cells.hpp"
#include "io/cells/integer_cell_data.hpp"
#include "io/codecs/zlib_codec.hpp"
#include "io/source/byte_order.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::ansys::detail {
namespace {


struct Zone {
  std::int64_t id = 0;
  std::string type;  // fluid, interior, wall
  std::string name;
  std::int64_t first = 0, last = 0;  // 1-based ids
  std::int64_t key = 0;              // a cell zone's ansys:zone value (0: none)
};

// Zone names are Scheme symbols in the file: no blanks, parentheses or quotes.
std::string scheme_symbol(std::string name) {
  for (char& c : name)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == ')' || c == '"') c = '_';
  if (name.empty()) name = "zone";
  return name;
}

// A boundary face group: a Side region of dimension ND - 1.
struct Group {
  std::string name;
  std::int64_t size = 0;  // its entries
  std::int64_t tag = 0;
};

class FluentWriter {
 public:
  FluentWriter(const std::string& path, const Mesh& mesh, bool binary)
      : path_(path), mesh_(mesh), binary_(binary), output_(path, "ansys") {}

  void write(const io::FaceTopology& topology, const std::vector<Group>& groups) {
    const std::int64_t dim = mesh_.points.dim(1);
    number_cells(topology);
    // Zone ids: the file's own where the mesh carries them (ansys:zone, the Side regions' tags)
    // and they are free, else the smallest free id; the node zone takes one last.
    std::set<std::int64_t> used;
    const auto claim = [&used](std::int64_t wanted) {
      if (wanted <= 0 || !used.insert(wanted).second) {
        wanted = 1;
        while (used.count(wanted) != 0) ++wanted;
        used.insert(wanted);
      }
      return wanted;
    };
    for (Zone& zone : cell_zones_) zone.id = claim(zone.key);
    std::vector<Zone> face_zones;
    const auto add_face_zone = [&](std::int64_t begin, std::int64_t end, std::string type, const Group& group) {
      if (end > begin) face_zones.push_back({claim(group.tag), std::move(type), group.name, begin + 1, end, 0});
    };
    // The interior zone keeps the name and tag of a Side region that named only internal faces
    // (the interior zone of a Fluent file read back).
    Group interior{"interior", 0, 0};
    for (std::size_t g = 0; g + 1 < topology.group_starts.size() && g < groups.size(); ++g)
      if (topology.group_starts[g + 1] == topology.group_starts[g] && groups[g].size > 0) {
        interior = groups[g];
        break;
      }
    add_face_zone(0, topology.num_internal_faces, "interior", interior);
    for (std::size_t g = 0; g + 1 < topology.group_starts.size(); ++g)
      add_face_zone(topology.group_starts[g], topology.group_starts[g + 1], "wall", g < groups.size() ? groups[g] : Group{"wall", 0, 0});
    node_zone_ = claim(0);

    const std::int64_t num_points = mesh_.num_points(), num_faces = topology.num_faces();
    if (binary_ && std::max({num_points, num_faces, topology.num_cells()}) > std::numeric_limits<std::int32_t>::max())
      fail("binary Fluent sections hold 32-bit indices; write binary=false for meshes past 2^31 ids");

    // The machine configuration: 60 = little-endian binary data (VTK reads the byte order here).
    out().text("(0 \"meshio++ Fluent mesh\")\n(4 (60 0 0 1 2 4 4 4 8 4 8))\n(2 ");
    out().number(dim);
    out().text(")\n");
    declaration(10, num_points, dim);
    declaration(12, topology.num_cells(), -1);
    declaration(13, num_faces, -1);
    write_points(dim);
    for (const Zone& zone : cell_zones_) write_cell_zone(zone);
    for (const Zone& zone : face_zones) write_face_zone(zone, topology, dim);
    for (const Zone* zone : all_zones(face_zones)) {
      out().text("(45 (");
      out().number(zone->id);
      out().put(' ');
      out().text(zone->type);
      out().put(' ');
      out().text(zone->name);
      out().text(")())");
      output_.end_record();
    }
    output_.commit();
  }

 private:
  io::OutputBuffer& out() noexcept { return output_.out(); }

  std::vector<const Zone*> all_zones(const std::vector<Zone>& face_zones) const {
    std::vector<const Zone*> zones;
    for (const Zone& zone : cell_zones_) zones.push_back(&zone);
    for (const Zone& zone : face_zones) zones.push_back(&zone);
    return zones;
  }

  // Fluent ids: volume cells zone by zone, each zone's cells in volume-cell order.
  void number_cells(const io::FaceTopology& topology) {
    const std::int64_t n = topology.num_cells();
    std::vector<std::int64_t> key(static_cast<std::size_t>(n), 0);
    element_.assign(static_cast<std::size_t>(n), 0);
    const auto* zone_data = mesh_.cell_data.find("ansys:zone");
    std::vector<std::int64_t> block_of(static_cast<std::size_t>(n)), row_of(static_cast<std::size_t>(n));
    {
      std::int64_t base = 0, block = 0, v = 0;
      for (const CellBlock& cells : mesh_.cells) {
        const std::int64_t count = cells.num_cells();
        while (v < n && topology.volume_cells[v] < base + count) {
          block_of[v] = block;
          row_of[v] = topology.volume_cells[v] - base;
          element_[v] = fluent_element_type(cells.type).value_or(7);  // 7: polyhedron, polygon
          ++v;
        }
        base += count;
        ++block;
      }
    }
    if (zone_data != nullptr && io::holds_one_integer_per_cell(mesh_, *zone_data)) {
      for (std::int64_t v = 0; v < n; ++v)
        key[v] = io::integer_at((*zone_data)[static_cast<std::size_t>(block_of[v])], row_of[v]);
    }
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return key[a] < key[b]; });
    fluent_id_.assign(static_cast<std::size_t>(n), 0);
    for (std::int64_t i = 0; i < n; ++i) {
      fluent_id_[order[i]] = i + 1;
      if (i == 0 || key[order[i]] != key[order[i - 1]])
        cell_zones_.push_back({0, "fluid", zone_name(key[order[i]]), i + 1, i + 1, key[order[i]]});
      cell_zones_.back().last = i + 1;
    }
    ordered_cells_ = std::move(order);
    if (cell_zones_.size() > 1)
      for (Zone& zone : cell_zones_)
        if (zone.name == "fluid") zone.name = "fluid-" + std::to_string(&zone - cell_zones_.data() + 1);
  }

  std::string zone_name(std::int64_t key) const {
    for (const Region& region : mesh_.regions)
      if (region.kind == RegionKind::Cell && region.tag == key && !region.name.empty()) return scheme_symbol(region.name);
    return "fluid";
  }

  void declaration(int id, std::int64_t count, std::int64_t dim) {
    out().put('(');
    out().number(id);
    out().text(" (0 1 ");
    hex(count);
    out().text(" 0");
    if (dim > 0) {
      out().put(' ');
      out().number(dim);
    }
    out().text("))");
    output_.end_record();
  }

  void section_header(int id, std::int64_t zone, std::int64_t first, std::int64_t last, std::int64_t type, std::int64_t subtype) {
    out().put('(');
    out().number(binary_ ? id + (id == 10 && mesh_.points.dtype() == DType::float32 ? 2000 : 3000) : id);
    out().text(" (");
    for (std::int64_t value : {zone, first, last, type}) {
      hex(value);
      out().put(' ');
    }
    hex(subtype);
    out().text(")\n(");  // binary data right after the '(', as Fluent writes it
    if (!binary_) out().put('\n');
  }

  void section_end(int id) {
    if (binary_) {
      out().text(")\nEnd of Binary Section ");
      out().number(id + (id == 10 && mesh_.points.dtype() == DType::float32 ? 2000 : 3000));
      out().put(')');
    } else {
      out().text("))");
    }
    output_.end_record();
  }

  void write_points(std::int64_t dim) {
    section_header(10, node_zone_, 1, mesh_.num_points(), 1, dim);
    visit_dtype(mesh_.points.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* values = mesh_.points.data_as<T>();
      for (std::int64_t i = 0; i < mesh_.num_points(); ++i) {
        for (std::int64_t a = 0; a < dim; ++a) {
          if (binary_) {
            if constexpr (std::is_same_v<T, float>) binary_value(values[i * dim + a]);
            else binary_value(static_cast<double>(values[i * dim + a]));
          } else {
            if (a > 0) out().put(' ');
            out().number(values[i * dim + a]);
          }
        }
        line_end();
      }
    });
    section_end(10);
  }

  void write_cell_zone(const Zone& zone) {
    const int first_element = element_[ordered_cells_[zone.first - 1]];
    bool mixed = false;
    for (std::int64_t i = zone.first; i <= zone.last; ++i) mixed |= element_[ordered_cells_[i - 1]] != first_element;
    if (!mixed) {  // a declaration: no body
      out().text("(12 (");
      for (std::int64_t value : {zone.id, zone.first, zone.last, std::int64_t{1}}) {
        hex(value);
        out().put(' ');
      }
      hex(first_element);
      out().text("))");
      output_.end_record();
      return;
    }
    section_header(12, zone.id, zone.first, zone.last, 1, 0);
    for (std::int64_t i = zone.first; i <= zone.last; ++i) {
      index(element_[ordered_cells_[i - 1]], true);
      line_end();
    }
    section_end(12);
  }

  void write_face_zone(const Zone& zone, const io::FaceTopology& topology, std::int64_t dim) {
    const std::int64_t* offsets = topology.face_offsets.data();
    const std::int64_t begin = zone.first - 1, end = zone.last;
    const std::int64_t corners = offsets[begin + 1] - offsets[begin];
    bool uniform = corners >= 2 && corners <= 4;
    for (std::int64_t f = begin; f < end && uniform; ++f) uniform = offsets[f + 1] - offsets[f] == corners;
    section_header(13, zone.id, zone.first, zone.last, zone.type == "interior" ? 2 : 3, uniform ? corners : 0);
    for (std::int64_t f = begin; f < end; ++f) {
      const std::int64_t count = offsets[f + 1] - offsets[f];
      if (!uniform) index(count, true);
      for (std::int64_t k = 0; k < count; ++k) {
        const std::int64_t at = dim == 3 ? offsets[f + 1] - 1 - k : offsets[f] + k;  // 3-D: reversed
        index(topology.face_nodes[at] + 1, uniform && k == 0);
      }
      index(fluent_id_[topology.owner[f]], false);
      index(topology.neighbour[f] >= 0 ? fluent_id_[topology.neighbour[f]] : 0, false);
      line_end();
    }
    section_end(13);
  }

  void line_end() {
    if (!binary_) output_.end_record();
  }

  void index(std::int64_t value, bool first_on_line) {
    if (binary_) {
      binary_value(static_cast<std::int32_t>(value));
      return;
    }
    if (!first_on_line) out().put(' ');
    hex(value);
  }

  template <class T> void binary_value(T value) {
    if constexpr (!io::kHostIsLittleEndian) io::swap_bytes_in_place(&value, sizeof value, 1);
    out().bytes(&value, sizeof value);
  }

  void hex(std::int64_t value) {
    char text[24];
    const auto result = std::to_chars(text, text + sizeof text, value, 16);
    out().text(std::string_view(text, static_cast<std::size_t>(result.ptr - text)));
  }

  [[noreturn]] void fail(const std::string& message) const { throw WriteError(path_, "ansys", message); }

  const std::string& path_;
  const Mesh& mesh_;
  bool binary_;
  io::TextOutput output_;
  std::vector<int> element_;                // per volume cell
  std::vector<std::int64_t> fluent_id_;     // per volume cell
  std::vector<std::int64_t> ordered_cells_;  // Fluent id - 1 -> volume cell
  std::vector<Zone> cell_zones_;
  std::int64_t node_zone_ = 1;
};

bool write_fluent_sides(const std::string& path, const Mesh& mesh, bool binary, std::int64_t dim);

}  // namespace

bool write_fluent_layout(const std::string& path, const Mesh& mesh, bool binary) {
  const std::int64_t dim = mesh.points.ndim() == 2 ? mesh.points.dim(1) : 0;
  // Only cells of the points' dimension make a Fluent volume mesh; anything else (a surface
  // of triangles in 3-D, lines) is written in meshio's layout by the caller.
  const auto volume_type = [dim](std::string_view type) {
    return dim == 3 ? type == "tetra" || type == "pyramid" || type == "wedge" || type == "hexahedron" || type == "polyhedron"
                    : dim == 2 && (type == "triangle" || type == "quad" || type == "polygon");
  };
  if (std::none_of(mesh.cells.begin(), mesh.cells.end(), [&](const CellBlock& block) { return volume_type(block.type); }))
    return false;
  // Boundary groups given as Cell regions of boundary cells (Gmsh's physical surfaces, a face
  // block per patch) become Side regions first, so they become face zones too.
  const bool cell_regions_of_faces = std::any_of(mesh.regions.begin(), mesh.regions.end(), [&](const Region& region) {
    return region.kind == RegionKind::Cell && region.dim == dim - 1;
  });
  if (cell_regions_of_faces) {
    Mesh with_sides = mesh;
    derive_side_regions(with_sides);
    return write_fluent_sides(path, with_sides, binary, dim);
  }
  return write_fluent_sides(path, mesh, binary, dim);
}

namespace {

bool write_fluent_sides(const std::string& path, const Mesh& mesh, bool binary, std::int64_t dim) {
  std::vector<std::span<const std::int64_t>> groups;
  std::vector<Group> named;
  for (const Region& region : mesh.regions) {
    if (region.kind != RegionKind::Side || region.dim != dim - 1 || region.entries.ndim() != 2) continue;
    groups.emplace_back(region.entries.data_as<std::int64_t>(), static_cast<std::size_t>(region.entries.size()));
    named.push_back({scheme_symbol(region.name), region.entries.rows(), region.tag});
  }
  io::FaceTopology topology;
  try {
    topology = io::faces_from_cells({mesh.cells, groups});
  } catch (const std::invalid_argument& error) {
    throw WriteError(path, "ansys", error.what());
  }
  if (topology.dimension != dim)
    throw WriteError(path, "ansys", "the mesh's volume cells are " + std::to_string(topology.dimension) + "-D but its points " +
                                        std::to_string(dim) + "-D");
  FluentWriter(path, mesh, binary).write(topology, named);
  return true;
}

}  // namespace

}  // namespace meshioplusplus::ansys::detail
