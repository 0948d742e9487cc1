// CGNS reader: see cgns.hpp for what becomes what.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "formats/cgns/cgns.hpp"
#include "io/cgns/cgns_file.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "meshioplusplus/errors.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_CGNS
#include <cgnslib.h>

#include "formats/cgns/cgns_types.hpp"
#include "io/cells/node_orders.hpp"
#include "meshioplusplus/cell_types.hpp"
#endif

namespace meshioplusplus::cgns {

#ifdef MESHIOPLUSPLUS_HAVE_CGNS

namespace {

constexpr std::string_view kFormat = "cgns";
using io::CgnsFile;

// Where a zone's elements went: element numbers [start, end] of a section are the block-major
// cells first_cell … first_cell + (end - start).
struct SectionCells {
  cgsize_t start, end;
  std::int64_t first_cell;
  int dimension;  // of its cells (-1 when mixed)
};

struct Zone {
  std::string name, qualified;  // qualified: for region names
  int base = 0, index = 0;
  bool structured = false;
  int cell_dimension = 3;
  std::int64_t first_point = 0, num_points = 0;
  std::int64_t first_block = 0, num_blocks = 0;
  std::vector<cgsize_t> vertex_size;  // structured: vertices per index direction
  cgsize_t num_cells = 0;             // zone size[1]: cells of the zone's cell dimension
  std::vector<SectionCells> sections;
  bool has_face_sections = false;  // NGON_n sections that are only NFACE_n faces
};

// Sizes the file declares are checked against its length before anything is allocated; a
// compressed HDF5 back end may legitimately hold more than its size, deflate rarely beats 1:1000.
std::uint64_t allocation_bound(const std::string& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  return error ? std::numeric_limits<std::uint64_t>::max() : 1024 * static_cast<std::uint64_t>(size) + (1u << 20);
}

class Reader {
 public:
  explicit Reader(const std::string& path) : file_(CgnsFile::open(path, kFormat)), bound_(allocation_bound(path)) {}

  Mesh read() {
    Mesh mesh;
    collect_zones();
    std::int64_t total_points = 0;
    for (Zone& zone : zones_) zone.first_point = total_points, total_points += zone.num_points;
    check_bound(static_cast<std::uint64_t>(total_points) * 8, "/");  // coordinates are stored, not computed
    mesh.points = NDArray::allocate(DType::float64, {total_points, physical_dimension_});
    for (Zone& zone : zones_) {
      read_coordinates(zone, mesh);
      zone.first_block = static_cast<std::int64_t>(mesh.cells.size());
      if (zone.structured) structured_cells(zone, mesh);
      else read_sections(zone, mesh);
      zone.num_blocks = static_cast<std::int64_t>(mesh.cells.size()) - zone.first_block;
    }
    const NDArray bases = block_bases(mesh.cells);
    for (Zone& zone : zones_) {
      const std::int64_t first = bases.data_as<std::int64_t>()[zone.first_block];
      const std::int64_t last = bases.data_as<std::int64_t>()[zone.first_block + zone.num_blocks];
      Region region;
      region.name = zone.qualified;
      region.kind = RegionKind::Cell;
      region.tag = zone.index;
      region.dim = zone.cell_dimension;
      region.entries = NDArray::allocate(DType::int64, {last - first});
      for (std::int64_t i = 0; i < last - first; ++i) region.entries.data_as<std::int64_t>()[i] = first + i;
      mesh.regions.push_back(std::move(region));
    }
    for (Zone& zone : zones_) read_bcs(zone, mesh);
    for (Zone& zone : zones_) read_solutions(zone, mesh, bases);
    return mesh;
  }

 private:
  std::string node(const Zone& zone, std::string_view child = {}) const {
    std::string path = "/" + base_names_[zone.base - 1] + "/" + zone.name;
    if (!child.empty()) path += "/" + std::string(child);
    return path;
  }

  void collect_zones() {
    const int fn = file_.id();
    int num_bases = 0;
    file_.check(cg_nbases(fn, &num_bases), "/");
    for (int b = 1; b <= num_bases; ++b) {
      char name[33] = {};
      int cell_dim = 0, phys_dim = 0;
      file_.check(cg_base_read(fn, b, name, &cell_dim, &phys_dim), "base " + std::to_string(b));
      base_names_.emplace_back(name);
      if (phys_dim < 1 || phys_dim > 3 || cell_dim < 1 || cell_dim > phys_dim)
        file_.fail("/" + std::string(name), "cell dimension " + std::to_string(cell_dim) + ", physical dimension " +
                                                 std::to_string(phys_dim));
      physical_dimension_ = std::max<std::int64_t>(physical_dimension_, phys_dim);
      int num_zones = 0;
      file_.check(cg_nzones(fn, b, &num_zones), "/" + std::string(name));
      for (int z = 1; z <= num_zones; ++z) {
        Zone zone;
        zone.base = b;
        zone.index = static_cast<int>(zones_.size()) + 1;
        zone.cell_dimension = cell_dim;
        cgsize_t size[9] = {};
        char zone_name[33] = {};
        ZoneType_t type = ZoneTypeNull;
        file_.check(cg_zone_type(fn, b, z, &type), "/" + std::string(name) + "/zone " + std::to_string(z));
        file_.check(cg_zone_read(fn, b, z, zone_name, size), "/" + std::string(name) + "/zone " + std::to_string(z));
        zone.name = zone_name;
        zone.structured = type == Structured;
        if (zone.structured) {
          zone.num_points = 1;
          for (int axis = 0; axis < cell_dim; ++axis) {
            if (size[axis] < 1) file_.fail(node(zone), "a structured zone with a vertex count below 1");
            zone.vertex_size.push_back(size[axis]);
            zone.num_points *= size[axis];
          }
        } else {
          zone.num_points = size[0];
          zone.num_cells = size[1];
          if (zone.num_points < 0) file_.fail(node(zone), "negative vertex count");
        }
        zones_.push_back(std::move(zone));
      }
    }
    const bool several_bases = num_bases > 1, several_zones = zones_.size() > 1;
    for (Zone& zone : zones_)
      zone.qualified = several_bases ? base_names_[zone.base - 1] + "/" + zone.name : zone.name;
    qualify_bcs_ = several_zones;
    physical_dimension_ = std::max<std::int64_t>(physical_dimension_, 1);
  }

  void check_bound(std::uint64_t bytes, const std::string& where) const {
    if (bytes > bound_) file_.fail(where, "declares " + std::to_string(bytes) + " bytes, more than the file can hold");
  }

  void read_coordinates(const Zone& zone, Mesh& mesh) {
    if (zone.num_points == 0) return;
    const int fn = file_.id();
    static constexpr const char* kNames[3] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
    cgsize_t range_min[3] = {1, 1, 1}, range_max[3] = {1, 1, 1};
    if (zone.structured) {
      for (std::size_t axis = 0; axis < zone.vertex_size.size(); ++axis) range_max[axis] = zone.vertex_size[axis];
    } else {
      range_max[0] = static_cast<cgsize_t>(zone.num_points);
    }
    NDArray column = NDArray::allocate_scratch(DType::float64, {zone.num_points});
    const std::int64_t width = physical_dimension_;
    double* points = mesh.points.data_as<double>() + zone.first_point * width;
    int num_coordinates = 0;
    file_.check(cg_ncoords(fn, zone.base, file_zone_index(zone), &num_coordinates), node(zone, "GridCoordinates"));
    for (std::int64_t axis = 0; axis < width; ++axis) {
      const std::string where = node(zone, "GridCoordinates/" + std::string(kNames[axis]));
      bool present = false;
      for (int c = 1; c <= num_coordinates && !present; ++c) {
        DataType_t type;
        char name[33] = {};
        file_.check(cg_coord_info(fn, zone.base, file_zone_index(zone), c, &type, name), where);
        present = std::string_view(name) == kNames[axis];
      }
      if (!present) {  // a 2-D base in a file whose other bases are 3-D: z is 0
        for (std::int64_t i = 0; i < zone.num_points; ++i) points[i * width + axis] = 0.0;
        continue;
      }
      file_.check(cg_coord_read(fn, zone.base, file_zone_index(zone), kNames[axis], RealDouble, range_min, range_max,
                                column.data()),
                  where);
      const double* in = column.data_as<double>();
      for (std::int64_t i = 0; i < zone.num_points; ++i) points[i * width + axis] = in[i];
    }
  }

  // The zone's number inside its base (what the library calls Z).
  int file_zone_index(const Zone& zone) const {
    int first_of_base = 1;
    for (const Zone& other : zones_) {
      if (&other == &zone) break;
      first_of_base = other.base == zone.base ? first_of_base + 1 : 1;
    }
    return first_of_base;
  }

  void structured_cells(Zone& zone, Mesh& mesh) {
    const auto& n = zone.vertex_size;
    CellBlock cells;
    std::int64_t count = 1;
    for (cgsize_t extent : n) count *= std::max<cgsize_t>(extent - 1, 0);
    const std::int64_t first = zone.first_point;
    if (n.size() == 3) {
      cells.type = "hexahedron";
      cells.connectivity = NDArray::allocate(DType::int64, {count, 8});
      std::int64_t* out = cells.connectivity.data_as<std::int64_t>();
      const std::int64_t ni = n[0], nj = n[1];
      auto at = [&](std::int64_t i, std::int64_t j, std::int64_t k) { return first + i + ni * (j + nj * k); };
      for (std::int64_t k = 0; k + 1 < n[2]; ++k)
        for (std::int64_t j = 0; j + 1 < nj; ++j)
          for (std::int64_t i = 0; i + 1 < ni; ++i) {
            const std::int64_t nodes[8] = {at(i, j, k),         at(i + 1, j, k),         at(i + 1, j + 1, k),
                                           at(i, j + 1, k),     at(i, j, k + 1),         at(i + 1, j, k + 1),
                                           at(i + 1, j + 1, k + 1), at(i, j + 1, k + 1)};
            out = std::copy(nodes, nodes + 8, out);
          }
    } else if (n.size() == 2) {
      cells.type = "quad";
      cells.connectivity = NDArray::allocate(DType::int64, {count, 4});
      std::int64_t* out = cells.connectivity.data_as<std::int64_t>();
      const std::int64_t ni = n[0];
      for (std::int64_t j = 0; j + 1 < n[1]; ++j)
        for (std::int64_t i = 0; i + 1 < ni; ++i) {
          const std::int64_t nodes[4] = {first + i + ni * j, first + i + 1 + ni * j, first + i + 1 + ni * (j + 1),
                                         first + i + ni * (j + 1)};
          out = std::copy(nodes, nodes + 4, out);
        }
    } else {
      cells.type = "line";
      cells.connectivity = NDArray::allocate(DType::int64, {count, 2});
      std::int64_t* out = cells.connectivity.data_as<std::int64_t>();
      for (std::int64_t i = 0; i + 1 < n[0]; ++i) *out++ = first + i, *out++ = first + i + 1;
    }
    zone.num_cells = static_cast<cgsize_t>(count);
    mesh.cells.push_back(std::move(cells));
  }

  std::int64_t cells_so_far(const Mesh& mesh) const {
    std::int64_t total = 0;
    for (const CellBlock& cells : mesh.cells) total += cells.num_cells();
    return total;
  }

  // An NGON_n section's faces: node numbers (1-based, zone-local) of face `start + i` are
  // nodes[offsets[i] … offsets[i + 1]).
  struct FaceSection {
    cgsize_t start = 0, end = 0;
    std::vector<cgsize_t> nodes, offsets;
  };

  void read_poly(int s, const Zone& zone, const std::string& where, std::int64_t count, cgsize_t data_size,
                 std::vector<cgsize_t>& data, std::vector<cgsize_t>& offsets) {
    const int fn = file_.id(), z = file_zone_index(zone);
    data.assign(static_cast<std::size_t>(data_size), 0);
    offsets.assign(static_cast<std::size_t>(count) + 1, 0);
    file_.check(cg_poly_elements_read(fn, zone.base, z, s, data.data(), offsets.data(), nullptr), where);
    if (offsets.front() != 0 || offsets.back() != data_size)
      file_.fail(where + "/ElementStartOffset", "does not run from 0 to the ElementConnectivity size " + std::to_string(data_size));
    for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
      if (offsets[i + 1] < offsets[i]) file_.fail(where + "/ElementStartOffset", "decreases at entry " + std::to_string(i + 1));
  }

  // NGON_n → a polygon block (zone-local node numbers converted to mesh points).
  CellBlock polygon_block(const Zone& zone, const std::string& where, const std::vector<cgsize_t>& data,
                          const std::vector<cgsize_t>& offsets) {
    CellBlock cells;
    cells.type = "polygon";
    const std::int64_t count = static_cast<std::int64_t>(offsets.size()) - 1;
    cells.connectivity = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(data.size())});
    cells.offsets = NDArray::allocate(DType::int64, {count + 1});
    convert_nodes(zone, where, data.data(), 1, static_cast<int>(data.size()), "polygon", cells.connectivity.data_as<std::int64_t>());
    std::copy(offsets.begin(), offsets.end(), cells.offsets.data_as<std::int64_t>());
    return cells;
  }

  // NFACE_n → a polyhedron block: each face number (negative: the face's normal points into
  // the cell, SIDS) looked up in the zone's NGON_n sections (`faces`, sorted by start) and
  // reversed where negative, so that every face is oriented out of its cell (VTK's rule).
  CellBlock polyhedron_block(const Zone& zone, const std::string& where, const std::vector<cgsize_t>& data,
                             const std::vector<cgsize_t>& offsets, const std::vector<FaceSection>& faces) {
    CellBlock cells;
    cells.type = "polyhedron";
    const std::int64_t count = static_cast<std::int64_t>(offsets.size()) - 1;
    const auto section_of = [&](cgsize_t entry) {
      const std::int64_t number = entry < 0 ? -static_cast<std::int64_t>(entry) : entry;
      const auto after = std::upper_bound(faces.begin(), faces.end(), number,
                                          [](std::int64_t n, const FaceSection& section) { return n < section.start; });
      if (after == faces.begin() || number > std::prev(after)->end)
        file_.fail(where, "face " + std::to_string(number) + " is in no NGON_n section of the zone");
      return std::pair{&*std::prev(after), static_cast<std::size_t>(number - std::prev(after)->start)};
    };
    // Every face is copied once per cell that lists it: the total is checked before it is stored.
    std::uint64_t total_nodes = 0;
    for (cgsize_t entry : data) {
      const auto [section, i] = section_of(entry);
      total_nodes += static_cast<std::uint64_t>(section->offsets[i + 1] - section->offsets[i]);
    }
    check_bound(total_nodes * sizeof(std::int64_t), where);
    std::vector<std::int64_t> nodes, face_offsets{0};
    nodes.reserve(static_cast<std::size_t>(total_nodes));
    face_offsets.reserve(data.size() + 1);
    for (cgsize_t entry : data) {
      const auto [section, i] = section_of(entry);
      const std::int64_t number = entry < 0 ? -static_cast<std::int64_t>(entry) : entry;
      const cgsize_t begin = section->offsets[i], end = section->offsets[i + 1];
      const std::size_t first = nodes.size();
      for (cgsize_t at = begin; at < end; ++at) {
        const cgsize_t vertex = section->nodes[static_cast<std::size_t>(at)];
        if (vertex < 1 || vertex > zone.num_points)
          file_.fail(where, "face " + std::to_string(number) + " refers to vertex " + std::to_string(vertex) + ", outside 1.." +
                                std::to_string(zone.num_points));
        nodes.push_back(zone.first_point + vertex - 1);
      }
      if (entry < 0) std::reverse(nodes.begin() + static_cast<std::ptrdiff_t>(first), nodes.end());
      face_offsets.push_back(static_cast<std::int64_t>(nodes.size()));
    }
    cells.connectivity = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(nodes.size())});
    std::copy(nodes.begin(), nodes.end(), cells.connectivity.data_as<std::int64_t>());
    cells.face_offsets = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(face_offsets.size())});
    std::copy(face_offsets.begin(), face_offsets.end(), cells.face_offsets.data_as<std::int64_t>());
    cells.offsets = NDArray::allocate(DType::int64, {count + 1});
    std::copy(offsets.begin(), offsets.end(), cells.offsets.data_as<std::int64_t>());
    return cells;
  }

  void read_sections(Zone& zone, Mesh& mesh) {
    const int fn = file_.id(), z = file_zone_index(zone);
    int num_sections = 0;
    file_.check(cg_nsections(fn, zone.base, z, &num_sections), node(zone));
    // With an NFACE_n section the NGON_n sections are its faces (read first, not cells);
    // without one they are polygon cells.
    std::vector<FaceSection> faces;
    bool has_nface = false;
    for (int s = 1; s <= num_sections; ++s) {
      char name[33] = {};
      ElementType_t type = ElementTypeNull;
      cgsize_t start = 0, end = 0;
      int boundary = 0, parent_flag = 0;
      file_.check(cg_section_read(fn, zone.base, z, s, name, &type, &start, &end, &boundary, &parent_flag),
                  node(zone, "section " + std::to_string(s)));
      has_nface = has_nface || type == NFACE_n;
    }
    if (has_nface) {
      for (int s = 1; s <= num_sections; ++s) {
        char name[33] = {};
        ElementType_t type = ElementTypeNull;
        cgsize_t start = 0, end = 0, data_size = 0;
        int boundary = 0, parent_flag = 0;
        file_.check(cg_section_read(fn, zone.base, z, s, name, &type, &start, &end, &boundary, &parent_flag),
                    node(zone, "section " + std::to_string(s)));
        if (type != NGON_n) continue;
        const std::string where = node(zone, name);
        if (end < start) file_.fail(where, "ElementRange ends before it starts");
        file_.check(cg_ElementDataSize(fn, zone.base, z, s, &data_size), where);
        if (data_size < 0) file_.fail(where, "negative ElementConnectivity size");
        check_bound(static_cast<std::uint64_t>(data_size) * sizeof(cgsize_t), where);
        FaceSection section;
        section.start = start;
        section.end = end;
        read_poly(s, zone, where, static_cast<std::int64_t>(end) - start + 1, data_size, section.nodes, section.offsets);
        faces.push_back(std::move(section));
      }
      std::sort(faces.begin(), faces.end(), [](const FaceSection& a, const FaceSection& b) { return a.start < b.start; });
      for (std::size_t i = 1; i < faces.size(); ++i)
        if (faces[i].start <= faces[i - 1].end)
          file_.fail(node(zone), "NGON_n sections overlap at element " + std::to_string(faces[i].start));
    }
    for (int s = 1; s <= num_sections; ++s) {
      char name[33] = {};
      ElementType_t type = ElementTypeNull;
      cgsize_t start = 0, end = 0;
      int boundary = 0, parent_flag = 0;
      file_.check(cg_section_read(fn, zone.base, z, s, name, &type, &start, &end, &boundary, &parent_flag),
                  node(zone, "section " + std::to_string(s)));
      const std::string where = node(zone, name);
      if (end < start) file_.fail(where, "ElementRange ends before it starts");
      const std::int64_t count = static_cast<std::int64_t>(end) - start + 1;
      cgsize_t data_size = 0;
      file_.check(cg_ElementDataSize(fn, zone.base, z, s, &data_size), where);
      if (data_size < 0) file_.fail(where, "negative ElementConnectivity size");
      check_bound(static_cast<std::uint64_t>(data_size) * sizeof(cgsize_t), where);
      std::vector<cgsize_t> data(static_cast<std::size_t>(data_size));
      const std::int64_t first_cell = cells_so_far(mesh);
      if (type == NGON_n && has_nface) {
        zone.sections.push_back({start, end, -1, 2});  // faces of the polyhedra, not cells
        zone.has_face_sections = true;
        continue;
      }
      if (type == NGON_n || type == NFACE_n) {
        std::vector<cgsize_t> offsets;
        read_poly(s, zone, where, count, data_size, data, offsets);
        mesh.cells.push_back(type == NGON_n ? polygon_block(zone, where, data, offsets)
                                            : polyhedron_block(zone, where, data, offsets, faces));
        zone.sections.push_back({start, end, first_cell, type == NGON_n ? 2 : 3});
        continue;
      }
      if (type == MIXED) {
        std::vector<cgsize_t> offsets(static_cast<std::size_t>(count) + 1);
        file_.check(cg_poly_elements_read(fn, zone.base, z, s, data.data(), offsets.data(), nullptr), where);
        split_mixed(zone, where, data, offsets, count, mesh);
        zone.sections.push_back({start, end, first_cell, -1});
        continue;
      }
      const CgnsType* info = cgns_type(type);
      if (info == nullptr)
        file_.fail(where, std::string("element type ") + cg_ElementTypeName(type) + " is not read by meshio++");
      if (data_size != count * info->nodes)
        file_.fail(where, "ElementConnectivity holds " + std::to_string(data_size) + " entries, not " +
                              std::to_string(count) + " × " + std::to_string(info->nodes));
      file_.check(cg_elements_read(fn, zone.base, z, s, data.data(), nullptr), where);
      CellBlock cells;
      cells.type = std::string(info->cell_type);
      cells.connectivity = NDArray::allocate(DType::int64, {count, info->nodes});
      convert_nodes(zone, where, data.data(), count, info->nodes, cells.type, cells.connectivity.data_as<std::int64_t>());
      const CellTypeInfo* cell_info = find_cell_type(cells.type);
      zone.sections.push_back({start, end, first_cell, cell_info ? cell_info->dimension : -1});
      mesh.cells.push_back(std::move(cells));
    }
  }

  // 1-based zone node numbers → 0-based mesh point indices, checked, in our node order.
  void convert_nodes(const Zone& zone, const std::string& where, const cgsize_t* in, std::int64_t count, int width,
                     std::string_view cell_type, std::int64_t* out) const {
    const std::span<const std::int8_t> order = io::vertical_edges_before_top_order(cell_type);
    for (std::int64_t cell = 0; cell < count; ++cell) {
      const cgsize_t* row = in + cell * width;
      for (int i = 0; i < width; ++i) {
        const cgsize_t number = row[order.empty() ? i : order[i]];
        if (number < 1 || number > zone.num_points)
          file_.fail(where, "element " + std::to_string(cell) + " refers to vertex " + std::to_string(number) +
                                ", outside 1.." + std::to_string(zone.num_points));
        out[cell * width + i] = zone.first_point + number - 1;
      }
    }
  }

  void split_mixed(const Zone& zone, const std::string& where, const std::vector<cgsize_t>& data,
                   const std::vector<cgsize_t>& offsets, std::int64_t count, Mesh& mesh) {
    std::int64_t element = 0;
    while (element < count) {
      const cgsize_t offset = offsets[static_cast<std::size_t>(element)];
      if (offset < 0 || static_cast<std::size_t>(offset) >= data.size()) file_.fail(where, "bad ElementStartOffset");
      const auto type = static_cast<ElementType_t>(data[static_cast<std::size_t>(offset)]);
      const CgnsType* info = cgns_type(type);
      if (info == nullptr) file_.fail(where, "element " + std::to_string(element) + " has an unsupported type");
      std::int64_t run_end = element;
      while (run_end < count && offsets[static_cast<std::size_t>(run_end + 1)] - offsets[static_cast<std::size_t>(run_end)] ==
                                    info->nodes + 1 &&
             data[static_cast<std::size_t>(offsets[static_cast<std::size_t>(run_end)])] == type)
        ++run_end;
      if (run_end == element) file_.fail(where, "element " + std::to_string(element) + " has the wrong node count");
      const std::int64_t run = run_end - element;
      CellBlock cells;
      cells.type = std::string(info->cell_type);
      cells.connectivity = NDArray::allocate(DType::int64, {run, info->nodes});
      // Entries of the run: [type, nodes…] per element; gather the nodes.
      std::vector<cgsize_t> nodes(static_cast<std::size_t>(run * info->nodes));
      for (std::int64_t e = 0; e < run; ++e) {
        const cgsize_t* row = data.data() + offsets[static_cast<std::size_t>(element + e)] + 1;
        std::copy(row, row + info->nodes, nodes.begin() + e * info->nodes);
      }
      convert_nodes(zone, where, nodes.data(), run, info->nodes, cells.type, cells.connectivity.data_as<std::int64_t>());
      mesh.cells.push_back(std::move(cells));
      element = run_end;
    }
  }

  // Block-major cell index of element `number` of the zone; nullopt when no section holds it.
  std::optional<std::int64_t> cell_of_element(const Zone& zone, cgsize_t number) const {
    for (const SectionCells& section : zone.sections)
      if (number >= section.start && number <= section.end && section.first_cell >= 0)
        return section.first_cell + (number - section.start);
    return std::nullopt;
  }

  static std::vector<SectionCells> cell_sections_in_element_order(const Zone& zone) {
    std::vector<SectionCells> cells;
    for (const SectionCells& section : zone.sections)
      if (section.first_cell >= 0) cells.push_back(section);
    std::sort(cells.begin(), cells.end(), [](const SectionCells& a, const SectionCells& b) { return a.start < b.start; });
    return cells;
  }

  bool is_face_element(const Zone& zone, cgsize_t number) const {
    for (const SectionCells& section : zone.sections)
      if (number >= section.start && number <= section.end && section.first_cell < 0) return true;
    return false;
  }

  // The cell of cell-centred value `i`: element i + 1, except in zones whose NGON_n sections
  // are only the faces of NFACE_n polyhedra, where it is the i-th element of the other sections
  // in element-number order (faces numbered before the cells, as Fluent and STAR-CCM+ write
  // them, or after, as meshio++ does).
  // `cell_sections`: cell_sections_in_element_order(zone).
  std::optional<std::int64_t> cell_of_value(const Zone& zone, const std::vector<SectionCells>& cell_sections,
                                            std::int64_t i) const {
    if (!zone.has_face_sections) return cell_of_element(zone, static_cast<cgsize_t>(i + 1));
    for (const SectionCells& section : cell_sections) {
      const std::int64_t size = static_cast<std::int64_t>(section.end - section.start) + 1;
      if (i < size) return section.first_cell + i;
      i -= size;
    }
    return std::nullopt;
  }

  void read_bcs(const Zone& zone, Mesh& mesh) {
    const int fn = file_.id(), z = file_zone_index(zone);
    int num_bcs = 0;
    if (cg_nbocos(fn, zone.base, z, &num_bcs) != CG_OK) return;  // no ZoneBC
    for (int bc = 1; bc <= num_bcs; ++bc) {
      char name[33] = {};
      BCType_t bc_type;
      PointSetType_t set_type;
      cgsize_t num_entries = 0, normal_list_size = 0;
      int normal_index[3] = {};
      DataType_t normal_type;
      int num_datasets = 0;
      const std::string where = node(zone, "ZoneBC/bc " + std::to_string(bc));
      file_.check(cg_boco_info(fn, zone.base, z, bc, name, &bc_type, &set_type, &num_entries, normal_index,
                               &normal_list_size, &normal_type, &num_datasets),
                  where);
      const std::string bc_node = node(zone, "ZoneBC/" + std::string(name));
      GridLocation_t location = Vertex;
      file_.check(cg_boco_gridlocation_read(fn, zone.base, z, bc, &location), bc_node);
      const int index_dim = zone.structured ? static_cast<int>(zone.vertex_size.size()) : 1;
      if (num_entries < 0) file_.fail(bc_node, "negative point count");
      check_bound(static_cast<std::uint64_t>(num_entries) * index_dim * sizeof(cgsize_t), bc_node);
      std::vector<cgsize_t> entries(static_cast<std::size_t>(num_entries) * index_dim);
      std::vector<double> normals(static_cast<std::size_t>(std::max<cgsize_t>(normal_list_size, 0)) * 3 + 3);
      file_.check(cg_boco_read(fn, zone.base, z, bc, entries.data(), normal_list_size > 0 ? normals.data() : nullptr),
                  bc_node);
      const bool is_range = set_type == PointRange || set_type == ElementRange;
      const bool on_cells = set_type == ElementRange || set_type == ElementList || (location != Vertex && !zone.structured);
      Region region;
      const std::string region_name = bc_region_name(zone, bc, name, bc_node);
      region.name = qualify_bcs_ ? zone.qualified + "/" + region_name : region_name;
      region.tag = static_cast<std::int64_t>(bc_type);
      std::vector<std::int64_t> indices;
      if (zone.structured) {
        region.kind = RegionKind::Point;
        region.dim = 0;
        structured_points(zone, bc_node, entries, is_range, index_dim, indices);
      } else if (on_cells) {
        region.kind = RegionKind::Cell;
        auto add = [&](cgsize_t number) {
          const auto cell = cell_of_element(zone, number);
          if (!cell) {
            if (is_face_element(zone, number)) return;  // a face of NFACE_n polyhedra: no cell of ours
            file_.fail(bc_node, "element " + std::to_string(number) + " is in no section");
          }
          indices.push_back(*cell);
        };
        if (is_range && entries.size() == 2) {
          for (cgsize_t number = entries[0]; number <= entries[1]; ++number) add(number);
        } else {
          for (cgsize_t number : entries) add(number);
        }
      } else {
        region.kind = RegionKind::Point;
        region.dim = 0;
        auto add = [&](cgsize_t number) {
          if (number < 1 || number > zone.num_points)
            file_.fail(bc_node, "vertex " + std::to_string(number) + " outside 1.." + std::to_string(zone.num_points));
          indices.push_back(zone.first_point + number - 1);
        };
        if (is_range && entries.size() == 2) {
          for (cgsize_t number = entries[0]; number <= entries[1]; ++number) add(number);
        } else {
          for (cgsize_t number : entries) add(number);
        }
      }
      region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(indices.size())});
      std::copy(indices.begin(), indices.end(), region.entries.data_as<std::int64_t>());
      mesh.regions.push_back(std::move(region));
    }
  }

  // The region name of BC `bc`: the text of its "RegionName" descriptor, which our writer
  // adds when the BC name had to differ from the region's (a point set and a cell set of the
  // same name, a name past 32 characters), else the BC name.
  std::string bc_region_name(const Zone& zone, int bc, const char* bc_name, const std::string& bc_node) const {
    const int fn = file_.id();
    file_.check(cg_goto(fn, zone.base, "Zone_t", file_zone_index(zone), "ZoneBC_t", 1, "BC_t", bc, "end"), bc_node);
    int count = 0;
    file_.check(cg_ndescriptors(&count), bc_node);
    for (int d = 1; d <= count; ++d) {
      char descriptor[33] = {};
      char* text = nullptr;
      file_.check(cg_descriptor_read(d, descriptor, &text), bc_node + "/Descriptor " + std::to_string(d));
      const std::string value = text != nullptr ? text : "";
      cg_free(text);
      if (std::string_view(descriptor) == kRegionNameDescriptor && !value.empty()) return value;
    }
    return bc_name;
  }

  // Vertex (i, j, k) entries of a structured zone → point indices; a range is a box.
  void structured_points(const Zone& zone, const std::string& where, const std::vector<cgsize_t>& entries,
                         bool is_range, int index_dim, std::vector<std::int64_t>& out) const {
    const auto& n = zone.vertex_size;
    auto linear = [&](const cgsize_t* ijk) {
      std::int64_t index = 0, stride = 1;
      for (int axis = 0; axis < index_dim; ++axis) {
        // Face- and cell-centred ranges stop one short of the vertex count; clamp instead of failing.
        const cgsize_t value = std::clamp<cgsize_t>(ijk[axis], 1, n[axis]);
        if (ijk[axis] < 1 || ijk[axis] > n[axis] + 1)
          file_.fail(where, "index " + std::to_string(ijk[axis]) + " outside 1.." + std::to_string(n[axis]));
        index += (value - 1) * stride;
        stride *= n[axis];
      }
      return zone.first_point + index;
    };
    if (!is_range) {
      for (std::size_t e = 0; e + index_dim <= entries.size(); e += index_dim) out.push_back(linear(&entries[e]));
      return;
    }
    if (entries.size() != static_cast<std::size_t>(2 * index_dim)) file_.fail(where, "a point range needs two corners");
    cgsize_t low[3] = {1, 1, 1}, high[3] = {1, 1, 1};
    for (int axis = 0; axis < index_dim; ++axis) {
      low[axis] = std::min(entries[axis], entries[index_dim + axis]);
      high[axis] = std::min<cgsize_t>(std::max(entries[axis], entries[index_dim + axis]), n[axis]);
    }
    cgsize_t ijk[3];
    for (ijk[2] = low[2]; ijk[2] <= high[2]; ++ijk[2])
      for (ijk[1] = low[1]; ijk[1] <= high[1]; ++ijk[1])
        for (ijk[0] = low[0]; ijk[0] <= high[0]; ++ijk[0]) out.push_back(linear(ijk));
  }

  void read_solutions(const Zone& zone, Mesh& mesh, const NDArray& bases) {
    const int fn = file_.id(), z = file_zone_index(zone);
    int num_solutions = 0;
    if (cg_nsols(fn, zone.base, z, &num_solutions) != CG_OK) return;
    for (int s = 1; s <= num_solutions; ++s) {
      char solution[33] = {};
      GridLocation_t location;
      file_.check(cg_sol_info(fn, zone.base, z, s, solution, &location), node(zone, "solution " + std::to_string(s)));
      const std::string where = node(zone, solution);
      if (location != Vertex && location != CellCenter) continue;  // face data has no place in our model
      // The range is in core coordinates: rind planes (ghost layers) lie outside 1…n and are
      // left out by the library.
      cgsize_t range_min[3] = {1, 1, 1}, range_max[3] = {1, 1, 1};
      std::int64_t stored = 1;
      if (zone.structured) {
        for (std::size_t axis = 0; axis < zone.vertex_size.size(); ++axis) {
          range_max[axis] = zone.vertex_size[axis] - (location == Vertex ? 0 : 1);
          stored *= range_max[axis];
        }
      } else {
        range_max[0] = static_cast<cgsize_t>(location == Vertex ? zone.num_points : zone.num_cells);
        stored = range_max[0];
      }
      int num_fields = 0;
      file_.check(cg_nfields(fn, zone.base, z, s, &num_fields), where);
      std::vector<double> values(static_cast<std::size_t>(stored));
      for (int f = 1; f <= num_fields; ++f) {
        DataType_t type;
        char field[33] = {};
        file_.check(cg_field_info(fn, zone.base, z, s, f, &type, field), where);
        if (stored > 0)
          file_.check(cg_field_read(fn, zone.base, z, s, field, RealDouble, range_min, range_max, values.data()),
                      where + "/" + field);
        const std::string name = field_name(solution, field, location == Vertex);
        if (location == Vertex) store_point_field(zone, mesh, name, values);
        else store_cell_field(zone, mesh, bases, name, values);
      }
    }
  }

  std::string field_name(const std::string& solution, const std::string& field, bool vertex) {
    auto& owners = vertex ? point_field_solution_ : cell_field_solution_;
    for (const auto& [name, owner] : owners)
      if (name == field) return owner == solution ? field : solution + "/" + field;
    owners.emplace_back(field, solution);
    return field;
  }

  void store_point_field(const Zone& zone, Mesh& mesh, const std::string& name, const std::vector<double>& values) {
    NDArray* array = mesh.point_data.find(name);
    if (array == nullptr) {
      NDArray fresh = NDArray::allocate(DType::float64, {mesh.num_points()});
      std::fill_n(fresh.data_as<double>(), mesh.num_points(), std::numeric_limits<double>::quiet_NaN());
      array = &mesh.point_data.set(name, std::move(fresh));
    }
    std::copy(values.begin(), values.end(), array->data_as<double>() + zone.first_point);
  }

  void store_cell_field(const Zone& zone, Mesh& mesh, const NDArray& bases, const std::string& name,
                        const std::vector<double>& values) {
    std::vector<NDArray>* arrays = mesh.cell_data.find(name);
    if (arrays == nullptr) {
      std::vector<NDArray> fresh;
      for (const CellBlock& cells : mesh.cells) {
        NDArray array = NDArray::allocate(DType::float64, {cells.num_cells()});
        std::fill_n(array.data_as<double>(), cells.num_cells(), std::numeric_limits<double>::quiet_NaN());
        fresh.push_back(std::move(array));
      }
      arrays = &mesh.cell_data.set(name, std::move(fresh));
    }
    const std::int64_t* base = bases.data_as<std::int64_t>();
    const auto block_of = [&](std::int64_t cell) {
      return static_cast<std::size_t>(std::upper_bound(base, base + mesh.cells.size() + 1, cell) - base - 1);
    };
    if (zone.structured) {
      std::copy(values.begin(), values.end(), (*arrays)[static_cast<std::size_t>(zone.first_block)].data_as<double>());
      return;
    }
    // Cell-centred values belong to elements 1 … ncells (the zone's cells of its dimension).
    const std::vector<SectionCells> cell_sections = cell_sections_in_element_order(zone);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto cell = cell_of_value(zone, cell_sections, static_cast<std::int64_t>(i));
      if (!cell) continue;
      const std::size_t block = block_of(*cell);
      (*arrays)[block].data_as<double>()[*cell - base[block]] = values[i];
    }
  }

  CgnsFile file_;
  std::uint64_t bound_;
  std::vector<std::string> base_names_;
  std::vector<Zone> zones_;
  std::int64_t physical_dimension_ = 0;
  bool qualify_bcs_ = false;
  std::vector<std::pair<std::string, std::string>> point_field_solution_, cell_field_solution_;
};

// meshio's writer makes HDF5 files with CGNS's node names but without the attributes that
// make them CGNS (the library refuses them): /Base/Zone1/GridCoordinates/Coordinate{X,Y,Z}/" data",
// GridElements/ElementRange and ElementConnectivity, tetrahedra only. Read through the HDF5 floor.
Mesh read_meshio_layout(const std::string& path) {
  io::hdf5::File file = io::hdf5::File::open(path, kFormat);
  const std::string zone = "/Base/Zone1";
  Mesh mesh;
  const NDArray x = file.read(zone + "/GridCoordinates/CoordinateX/ data", DType::float64);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  mesh.points = NDArray::allocate(DType::float64, {n, 3});
  static constexpr const char* kAxes[3] = {"X", "Y", "Z"};
  for (int axis = 0; axis < 3; ++axis) {
    const std::string name = zone + "/GridCoordinates/Coordinate" + kAxes[axis] + "/ data";
    const NDArray column = axis == 0 ? x : file.read(name, DType::float64);
    if (static_cast<std::int64_t>(column.size()) != n) file.fail(name, "is not as long as CoordinateX");
    for (std::int64_t i = 0; i < n; ++i) mesh.points.data_as<double>()[i * 3 + axis] = column.data_as<double>()[i];
  }
  const std::string range_path = zone + "/GridElements/ElementRange/ data";
  const std::string connectivity_path = zone + "/GridElements/ElementConnectivity/ data";
  if (!file.exists(range_path)) return mesh;
  const NDArray range = file.read(range_path, DType::int64);
  const NDArray nodes = file.read(connectivity_path, DType::int64);
  if (range.size() != 2) file.fail(range_path, "expected two numbers");
  const std::int64_t count = range.data_as<std::int64_t>()[1] - range.data_as<std::int64_t>()[0] + 1;
  if (count < 0 || static_cast<std::int64_t>(nodes.size()) != 4 * count)
    file.fail(connectivity_path, "does not hold four nodes for each of the " + std::to_string(count) +
                                     " elements of ElementRange (meshio writes tetrahedra only)");
  CellBlock cells;
  cells.type = "tetra";
  cells.connectivity = NDArray::allocate(DType::int64, {count, 4});
  std::int64_t* out = cells.connectivity.data_as<std::int64_t>();
  const std::int64_t* in = nodes.data_as<std::int64_t>();
  for (std::int64_t i = 0; i < 4 * count; ++i) {
    if (in[i] < 1 || in[i] > n) file.fail(connectivity_path, "entry " + std::to_string(i) + " is vertex " +
                                                                 std::to_string(in[i]) + ", outside 1.." + std::to_string(n));
    out[i] = in[i] - 1;
  }
  mesh.cells.push_back(std::move(cells));
  return mesh;
}

bool is_meshio_layout(const std::string& path) {
  if (!io::hdf5::available()) return false;
  try {
    const io::hdf5::File file = io::hdf5::File::open(path, kFormat);
    return !file.has_attribute("/", "label") && file.exists("/Base/Zone1/GridCoordinates/CoordinateX/ data");
  } catch (const ReadError&) {
    return false;
  }
}

// The CGNS library (3.4) trusts an HDF5 file's node attributes: a name/label/type string
// without its terminating NUL, or a " data" array whose element size is not the one its type
// names, makes it read past its buffers (a crash inside cg_open). Checked here first, through
// the HDF5 floor; ADF files are not HDF5 and are left to the library.
void check_hdf5_nodes(const io::hdf5::File& file, const std::string& group, int depth) {
  if (depth > 64) file.fail(group, "CGNS nodes nested more than 64 deep");
  for (const std::string& child : file.children(group)) {
    const std::string path = group == "/" ? "/" + child : group + "/" + child;
    if (file.kind(path) != io::hdf5::ObjectKind::group) continue;
    for (const char* key : {"name", "label", "type"}) {
      const std::size_t width = file.string_attribute_width(path, key);
      const std::optional<std::string> value = file.string_attribute(path, key);
      if (width == 0 || !value) file.fail(path, std::string("CGNS node without a fixed-length string attribute '") + key + "'");
      if (value->size() >= width) file.fail(path, std::string("CGNS node attribute '") + key + "' is not NUL-terminated");
    }
    const std::string type = *file.string_attribute(path, "type");
    static constexpr std::pair<std::string_view, std::size_t> kTypes[] = {
        {"MT", 0}, {"LK", 0}, {"C1", 1}, {"B1", 1}, {"I4", 4}, {"U4", 4}, {"R4", 4}, {"I8", 8}, {"U8", 8}, {"R8", 8}, {"X4", 8}, {"X8", 16}};
    const auto known = std::find_if(std::begin(kTypes), std::end(kTypes), [&](const auto& entry) { return entry.first == type; });
    if (known == std::end(kTypes)) file.fail(path, "CGNS node of unknown data type '" + type + "'");
    if (type == "LK") continue;  // a link: its target is the library's business
    const std::string data = path + "/ data";
    if (known->second > 0 && file.kind(data) == io::hdf5::ObjectKind::dataset) {
      const io::hdf5::DatasetInfo info = file.dataset_info(data);
      if (info.compound || info.string || dtype_size(info.dtype) != known->second)
        file.fail(data, "holds " + std::string(info.compound ? "records" : info.string ? "strings" : dtype_name(info.dtype)) +
                            ", not the " + type + " its node's type names");
    }
    check_hdf5_nodes(file, path, depth + 1);
  }
}

void check_hdf5_back_end(const std::string& path) {
  if (!io::hdf5::available()) return;
  std::optional<io::hdf5::File> file;
  try {
    file.emplace(io::hdf5::File::open(path, kFormat));
  } catch (const ReadError&) {
    return;  // not HDF5: ADF (or not CGNS at all, which the library reports)
  }
  check_hdf5_nodes(*file, "/", 0);
}

}  // namespace

Mesh read(const std::string& path) {
  if (is_meshio_layout(path)) return read_meshio_layout(path);
  check_hdf5_back_end(path);
  return Reader(path).read();
}

#else

Mesh read(const std::string& path) {
  io::CgnsFile::open(path, "cgns");  // throws: the build has no CGNS library
  return {};
}

#endif

}  // namespace meshioplusplus::cgns
