// CGNS writer: see cgns.hpp. One base, one unstructured zone; elements of the mesh's highest
// dimension are numbered first (so CellCenter solutions cover exactly them, as SIDS asks) while
// sections keep the block order. Among them the standard cells come before the polyhedra
// (VTK's reader puts the element sections' cells before the NFACE_n cells, whatever their
// numbers, and reads CellCenter values in its own cell order). The polyhedra's faces are one
// NGON_n section numbered after every other element (cgns_poly_faces.hpp).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "formats/cgns/cgns.hpp"
#include "io/cgns/cgns_file.hpp"
#include "meshioplusplus/errors.hpp"

#ifdef MESHIOPLUSPLUS_HAVE_CGNS
#include <cgnslib.h>

#include "formats/cgns/cgns_poly_faces.hpp"
#include "formats/cgns/cgns_types.hpp"
#include "io/cells/node_orders.hpp"
#include "meshioplusplus/cell_types.hpp"
#endif

namespace meshioplusplus::cgns {

#ifdef MESHIOPLUSPLUS_HAVE_CGNS

namespace {

constexpr std::string_view kFormat = "cgns";
using io::CgnsFile;

std::string cgns_name(std::string_view name) { return std::string(name.substr(0, kCgnsNameLength)); }

// The section holding the polyhedra's faces (written after the blocks' sections).
constexpr const char* kPolyhedronFacesSection = "PolyhedronFaces";

// int64 values as CGNS sizes, plus `shift` (write() has checked that the values fit).
std::vector<cgsize_t> as_cgsize(std::span<const std::int64_t> values, std::int64_t shift) {
  std::vector<cgsize_t> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<cgsize_t>(values[i] + shift);
  return out;
}

// One column of a (rows, width) array, as float64.
std::vector<double> column_of(const NDArray& array, std::int64_t column) {
  const NDArray values = array.dtype() == DType::float64 ? array : array.astype(DType::float64);
  const std::int64_t width = values.row_width();
  std::vector<double> out(static_cast<std::size_t>(values.rows()));
  const double* in = values.data_as<double>();
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = in[static_cast<std::int64_t>(i) * width + column];
  return out;
}

class Writer {
 public:
  Writer(const std::string& path, const Mesh& mesh, CgnsFile::Backend backend)
      : path_(path), mesh_(mesh), file_(CgnsFile::create(path, kFormat, backend)) {}

  void write() {
    const int fn = file_.id();
    const int physical = static_cast<int>(mesh_.points.ndim() == 2 ? mesh_.points.dim(1) : 3);
    if (physical < 1 || physical > 3) fail("points must have 1-3 coordinates");
    int cell_dim = 1;
    bool has_polygons = false, has_polyhedra = false;
    for (const CellBlock& cells : mesh_.cells) {
      const bool poly = cells.type == "polygon" || cells.type == "polyhedron";
      if (!poly && cgns_type_for(cells.type) == nullptr)
        fail("cell type '" + cells.type + "' has no CGNS element type meshio++ writes");
      has_polygons = has_polygons || (cells.type == "polygon" && cells.num_cells() > 0);
      has_polyhedra = has_polyhedra || (cells.type == "polyhedron" && cells.num_cells() > 0);
      cell_dim = std::max(cell_dim, cell_type(cells.type).dimension);
    }
    // In a zone with NFACE_n sections every NGON_n section is read as the polyhedra's faces
    // (SIDS, VTK, our reader), so polygon cells there would come back as nothing.
    if (has_polygons && has_polyhedra)
      fail("polygon cells beside polyhedra: CGNS readers take every NGON_n section of a zone with NFACE_n "
           "cells as the polyhedra's faces (write the polygons to another file)");
    if (has_polyhedra && physical < 3) fail("polyhedra need points with 3 coordinates");
    cell_dim = std::min(cell_dim, physical);
    file_.check(cg_base_write(fn, "Base", cell_dim, physical, &base_), "/Base");
    // Element numbers: standard cells of the highest dimension, then polyhedra, then the
    // lower-dimensional cells, then the polyhedra's faces.
    const NDArray bases = block_bases(mesh_.cells);
    const std::int64_t* base = bases.data_as<std::int64_t>();
    std::vector<std::int64_t> first_number(mesh_.cells.size());
    std::int64_t next = 1;
    for (int pass = 0; pass < 3; ++pass)
      for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
        const bool top = cell_type(mesh_.cells[b].type).dimension == cell_dim;
        const int block_pass = !top ? 2 : mesh_.cells[b].type == "polyhedron" ? 1 : 0;
        if (block_pass != pass) continue;
        first_number[b] = next, next += mesh_.cells[b].num_cells();
        if (top) top_cells_ += mesh_.cells[b].num_cells(), top_blocks_.push_back(b);
      }
    std::vector<const CellBlock*> polyhedra;
    poly_block_.assign(mesh_.cells.size(), -1);
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b)
      if (mesh_.cells[b].type == "polyhedron" && mesh_.cells[b].num_cells() > 0)
        poly_block_[b] = static_cast<int>(polyhedra.size()), polyhedra.push_back(&mesh_.cells[b]);
    if (!polyhedra.empty()) {
      poly_faces_ = polyhedron_faces(polyhedra);
      first_face_number_ = next;
      next += poly_faces_.num_faces();
    }
    constexpr std::int64_t kLargest = std::numeric_limits<cgsize_t>::max();
    std::int64_t largest_list = static_cast<std::int64_t>(poly_faces_.nodes.size());
    for (const PolyFaces::BlockFaces& cells : poly_faces_.blocks)
      largest_list = std::max(largest_list, static_cast<std::int64_t>(cells.faces.size()));
    for (const CellBlock& cells : mesh_.cells) largest_list = std::max<std::int64_t>(largest_list, cells.connectivity.size());
    if (next - 1 > kLargest || mesh_.num_points() > kLargest || largest_list > kLargest)
      fail("more elements, vertices or connectivity entries than this CGNS library's 32-bit sizes hold");
    cgsize_t size[3] = {static_cast<cgsize_t>(mesh_.num_points()), static_cast<cgsize_t>(top_cells_), 0};
    file_.check(cg_zone_write(fn, base_, "Zone1", size, Unstructured, &zone_), "/Base/Zone1");
    write_coordinates(physical);
    write_sections(first_number);
    write_regions(first_number, base);
    write_point_data();
    write_cell_data();
    file_.commit();
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw WriteError(path_, std::string(kFormat), message); }

  void write_coordinates(int physical) {
    static constexpr const char* kNames[3] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
    if (mesh_.num_points() == 0) return;
    for (int axis = 0; axis < physical; ++axis) {
      const std::vector<double> column = column_of(mesh_.points, axis);
      int index = 0;
      file_.check(cg_coord_write(file_.id(), base_, zone_, RealDouble, kNames[axis], column.data(), &index),
                  std::string("/Base/Zone1/GridCoordinates/") + kNames[axis]);
    }
  }

  void write_sections(const std::vector<std::int64_t>& first_number) {
    std::size_t written = 0;
    for (std::size_t b = 0; b < mesh_.cells.size(); ++b) {
      const CellBlock& cells = mesh_.cells[b];
      if (cells.num_cells() == 0) continue;  // CGNS has no empty element range
      const std::string name = written == 0 ? "GridElements" : "GridElements_" + std::to_string(written + 1);
      ++written;
      const auto start = static_cast<cgsize_t>(first_number[b]);
      const auto end = static_cast<cgsize_t>(first_number[b] + cells.num_cells() - 1);
      if (cells.type == "polygon" || cells.type == "polyhedron") {
        write_poly_section(b, name, start, end);
        continue;
      }
      const CgnsType* type = cgns_type_for(cells.type);
      const std::span<const std::int8_t> order = io::vertical_edges_before_top_order(cells.type);
      const auto nodes = cells.connectivity.values<std::int64_t>();
      const std::size_t width = static_cast<std::size_t>(type->nodes);
      std::vector<cgsize_t> data(nodes.size());
      for (std::size_t cell = 0; cell < nodes.size() / width; ++cell)
        for (std::size_t i = 0; i < width; ++i)
          data[cell * width + i] = static_cast<cgsize_t>(nodes[cell * width + (order.empty() ? i : order[i])] + 1);
      int section = 0;
      file_.check(cg_section_write(file_.id(), base_, zone_, name.c_str(), type->type, start, end, 0, data.data(), &section),
                  "/Base/Zone1/" + name);
    }
    if (poly_faces_.num_faces() == 0) return;
    const auto start = static_cast<cgsize_t>(first_face_number_);
    const auto end = static_cast<cgsize_t>(first_face_number_ + poly_faces_.num_faces() - 1);
    const std::vector<cgsize_t> nodes = as_cgsize(poly_faces_.nodes, 1), offsets = as_cgsize(poly_faces_.offsets, 0);
    int section = 0;
    file_.check(cg_poly_section_write(file_.id(), base_, zone_, kPolyhedronFacesSection, NGON_n, start, end, 0, nodes.data(),
                                      offsets.data(), &section),
                std::string("/Base/Zone1/") + kPolyhedronFacesSection);
  }

  // A polygon block as NGON_n cells, a polyhedron block as NFACE_n cells over the faces'
  // element numbers (negative: the face reversed in this cell).
  void write_poly_section(std::size_t b, const std::string& name, cgsize_t start, cgsize_t end) {
    const CellBlock& cells = mesh_.cells[b];
    std::vector<cgsize_t> data, offsets;
    ElementType_t type = NGON_n;
    if (cells.type == "polygon") {
      data = as_cgsize(cells.connectivity.values<std::int64_t>(), 1);
      offsets = as_cgsize(cells.offsets.values<std::int64_t>(), 0);
    } else {
      type = NFACE_n;
      const PolyFaces::BlockFaces& faces = poly_faces_.blocks.at(static_cast<std::size_t>(poly_block_[b]));
      data.resize(faces.faces.size());
      for (std::size_t i = 0; i < data.size(); ++i) {
        const std::int64_t face = faces.faces[i];
        const std::int64_t number = first_face_number_ - 1 + (face < 0 ? -face : face);
        data[i] = static_cast<cgsize_t>(face < 0 ? -number : number);
      }
      offsets = as_cgsize(faces.cell_offsets, 0);
    }
    int section = 0;
    file_.check(cg_poly_section_write(file_.id(), base_, zone_, name.c_str(), type, start, end, 0, data.data(), offsets.data(),
                                      &section),
                "/Base/Zone1/" + name);
  }

  // Every region but sides, empty ones and the zone's own (every cell: the zone itself) is a
  // BC_t child of ZoneBC, and those children need distinct names of at most 32 characters.
  // Cell regions claim their names first, point regions after: when a point set and a cell set
  // share a name (a Gmsh physical group, meshio's point_sets next to its cell_sets) the cell set,
  // usually the boundary condition proper, keeps it, and the point set's BC is
  // "<name>_points" ("_points_2"…); a cell set whose name is taken, or cut to the same 32
  // characters as another's, gets "_2", "_3"…. Both stay BCs under ZoneBC, where CGNS readers
  // look for them. A BC whose name is not the region's carries the region's name in a
  // Descriptor_t "RegionName", which our reader gives back as the region name.
  void write_regions(const std::vector<std::int64_t>& first_number, const std::int64_t* base) {
    std::vector<const Region*> written;
    for (const Region& region : mesh_.regions) {
      if (region.kind == RegionKind::Side || region.entries.size() == 0) continue;
      if (region.kind == RegionKind::Cell && region.entries.size() == static_cast<std::size_t>(mesh_.num_cells())) continue;
      written.push_back(&region);
    }
    std::vector<std::string> bc_names(written.size());
    std::set<std::string> taken;
    for (const RegionKind kind : {RegionKind::Cell, RegionKind::Point})
      for (std::size_t r = 0; r < written.size(); ++r)
        if (written[r]->kind == kind) bc_names[r] = unique_bc_name(written[r]->name, kind == RegionKind::Point, taken);
    for (std::size_t r = 0; r < written.size(); ++r) write_region(*written[r], bc_names[r], first_number, base);
  }

  static std::string unique_bc_name(const std::string& name, bool point_set, std::set<std::string>& taken) {
    for (int n = 0;; ++n) {
      std::string tail;
      if (n > 0) tail = point_set ? "_points" + (n > 1 ? "_" + std::to_string(n) : std::string()) : "_" + std::to_string(n + 1);
      std::string candidate = cgns_name(name.substr(0, kCgnsNameLength - tail.size())) + tail;
      if (taken.insert(candidate).second) return candidate;
    }
  }

  void write_region(const Region& region, const std::string& name, const std::vector<std::int64_t>& first_number,
                    const std::int64_t* base) {
    const auto entries = region.entries.values<std::int64_t>();
    std::vector<cgsize_t> list(entries.size());
    GridLocation_t location = Vertex;
    if (region.kind == RegionKind::Point) {
      for (std::size_t i = 0; i < entries.size(); ++i) list[i] = static_cast<cgsize_t>(entries[i] + 1);
    } else {
      int dimension = -1;
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::size_t b = static_cast<std::size_t>(std::upper_bound(base, base + mesh_.cells.size() + 1, entries[i]) - base - 1);
        list[i] = static_cast<cgsize_t>(first_number[b] + entries[i] - base[b]);
        const int d = cell_type(mesh_.cells[b].type).dimension;
        dimension = dimension == -1 || dimension == d ? d : -2;
      }
      const int top = static_cast<int>(mesh_.points.dim(1));
      location = dimension == 1 && top > 1 ? EdgeCenter : dimension == top - 1 ? FaceCenter : CellCenter;
    }
    int bc = 0;
    const std::string where = "/Base/Zone1/ZoneBC/" + name;
    file_.check(cg_boco_write(file_.id(), base_, zone_, name.c_str(), BCTypeUserDefined, PointList,
                              static_cast<cgsize_t>(list.size()), list.data(), &bc),
                where);
    file_.check(cg_boco_gridlocation_write(file_.id(), base_, zone_, bc, location), where);
    if (name == region.name) return;
    file_.check(cg_goto(file_.id(), base_, "Zone_t", zone_, "ZoneBC_t", 1, "BC_t", bc, "end"), where);
    file_.check(cg_descriptor_write(kRegionNameDescriptor, region.name.c_str()), where + "/" + kRegionNameDescriptor);
  }

  // (n,) → one field; (n, 3) → <name>X/Y/Z (SIDS's vector naming); (n, k) → <name>_0 … <name>_{k-1}.
  void write_fields(int solution, const std::string& where, const std::string& name, const NDArray& array) {
    const std::int64_t width = array.row_width();
    for (std::int64_t c = 0; c < width; ++c) {
      std::string field = name;
      if (width == 3) field += "XYZ"[c];
      else if (width > 1) field += "_" + std::to_string(c);
      field = cgns_name(field);
      const std::vector<double> values = column_of(array, c);
      int index = 0;
      file_.check(cg_field_write(file_.id(), base_, zone_, solution, RealDouble, field.c_str(), values.data(), &index),
                  where + "/" + field);
    }
  }

  void write_point_data() {
    if (mesh_.point_data.empty() || mesh_.num_points() == 0) return;
    int solution = 0;
    file_.check(cg_sol_write(file_.id(), base_, zone_, "FlowSolution", Vertex, &solution), "/Base/Zone1/FlowSolution");
    for (const auto& [name, array] : mesh_.point_data) write_fields(solution, "/Base/Zone1/FlowSolution", name, array);
  }

  void write_cell_data() {
    if (mesh_.cell_data.empty() || top_cells_ == 0) return;
    int solution = 0;
    const std::string where = "/Base/Zone1/CellData";
    file_.check(cg_sol_write(file_.id(), base_, zone_, "CellData", CellCenter, &solution), where);
    for (const auto& [name, per_block] : mesh_.cell_data) {
      // The values of the highest-dimension cells, in element-number order.
      std::int64_t width = -1;
      for (const std::size_t b : top_blocks_)
        if (mesh_.cells[b].num_cells() > 0) width = per_block.at(b).row_width();
      if (width < 0) continue;
      NDArray joined = NDArray::allocate_scratch(DType::float64, {top_cells_, width});
      double* out = joined.data_as<double>();
      for (const std::size_t b : top_blocks_) {
        const NDArray values = per_block.at(b).astype(DType::float64);
        if (values.row_width() != width) fail("cell_data '" + name + "' has different widths in different blocks");
        out = std::copy(values.data_as<double>(), values.data_as<double>() + values.size(), out);
      }
      write_fields(solution, where, name, joined);
    }
  }

  const std::string& path_;
  const Mesh& mesh_;
  CgnsFile file_;
  int base_ = 0, zone_ = 0;
  std::int64_t top_cells_ = 0;
  std::vector<std::size_t> top_blocks_;  // the highest-dimension blocks in element-number order
  PolyFaces poly_faces_;
  std::vector<int> poly_block_;  // block → its entry in poly_faces_.blocks (-1: not a polyhedron block)
  std::int64_t first_face_number_ = 0;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const std::string_view backend = options.get("backend", "hdf5");
  if (backend != "hdf5" && backend != "adf")
    throw WriteError(path, std::string(kFormat), "backend must be hdf5 or adf, not '" + std::string(backend) + "'");
  Writer(path, mesh, backend == "adf" ? CgnsFile::Backend::adf : CgnsFile::Backend::hdf5).write();
}

#else

void write(const std::string& path, const Mesh&, const WriteOptions&) {
  io::CgnsFile::create(path, "cgns", io::CgnsFile::Backend::hdf5);  // throws: the build has no CGNS library
}

#endif

}  // namespace meshioplusplus::cgns
