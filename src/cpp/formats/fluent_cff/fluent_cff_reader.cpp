// Fluent CFF reader: the mesh of a .cas.h5 / .msh.h5 (and the .dat.h5 beside a case).
//
// The file is HDF5 (read through io/hdf5), laid out as Fluent and Fluent Meshing write it (the
// test files: Fluent 20.2 and 21.2, Fluent Meshing 2022 R1) and VTK's vtkFLUENTCFFReader reads
// it. The mesh sits under /meshes/1, whose attributes give `dimension` (2 or 3), nodeCount,
// cellCount and faceCount. Ids are 1-based.
// Everything comes in "sections": datasets (or groups) whose attributes minId..maxId name the
// ids they hold; a part may be split over several (Fluent Meshing writes one per face zone).
//   nodes/coords/<section>                 (n, dimension) float64 coordinates
//   cells/zoneTopology                     cell zones: id, minId, maxId, name (one ';'-joined string)
//   faces/nodes/<section>/{nnodes,nodes}   per face its node count; the faces' nodes, flat
//   faces/c0/<section>, faces/c1/<section> the cells on either side of each face; c1 is 0 or
//                                          absent for a boundary face
//   faces/zoneTopology                     face zones: id, minId, maxId, zoneType, name
// Orientation: the right-hand normal of a 3-D face points into c0; walking a 2-D face (an
// edge) from its first node to its second keeps c0 on the left (VTK's reader relies on the
// same; every cell of the files in tests/data/fluent_cff comes out with positive volume).
//
// What becomes what:
//   points: (nodeCount, dimension) float64; node id i is row i - 1.
//   cells: Fluent lists no cell's nodes. io::build_cells_from_faces() derives them from the faces
//     and c0/c1: tetra, pyramid, wedge and hexahedron in VTK node order, any other 3-D cell a
//     polyhedron with outward faces; 2-D cells triangle, quad or polygon, counter-clockwise. One
//     block per type in order of first appearance; cells keep their file order within a block.
//     (Fluent's own cell types, cells/ctype, are not needed for this and not read; a cell Fluent
//     calls polyhedral whose faces close into a hexahedron becomes a hexahedron.)
//   cell data "ansys:zone" (int64): each cell's zone id, the name the ansys (.msh) reader uses.
//   Cell regions: one per cell zone (its name, dim = dimension, tag = zone id).
//   Side regions: one per face zone (its name, dim = dimension - 1, tag = zone id): per face the
//     (block-major cell, local facet) pair of its c0 cell (interior zones too), as the ansys
//     reader makes them; local facets as include/meshioplusplus/side_regions.hpp numbers them.
//   cell data from the data file: see fluent_cff_data.cpp.
// Not read: node zones, settings, face data of the data file. Adapted meshes (cells/tree,
// faces/tree: parents with their kids) and non-conformal interfaces (faces/interface) are
// refused with a ReadError rather than read as overlapping cells.
#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/fluent_cff/fluent_cff.hpp"
#include "formats/fluent_cff/fluent_cff_internal.hpp"
#include "io/cells/cells_from_faces.hpp"
#include "io/hdf5/hdf5_file.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::fluent_cff {

namespace {

using io::hdf5::File;

constexpr std::string_view kMesh = "/meshes/1";

struct Zone {
  std::int64_t id = 0;
  std::int64_t first = 0;  // 0-based
  std::int64_t count = 0;
  std::string name;
};

bool ends_with_ci(std::string_view text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    const auto a = static_cast<unsigned char>(text[text.size() - suffix.size() + i]);
    if (std::tolower(a) != static_cast<unsigned char>(suffix[i])) return false;
  }
  return true;
}

std::string with_suffix(const std::string& path, std::string_view suffix) {
  return path.substr(0, path.size() - suffix.size());
}

std::vector<std::string> split_names(const std::string& joined) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start < joined.size()) {
    std::size_t end = joined.find(';', start);
    if (end == std::string::npos) end = joined.size();
    names.push_back(joined.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

class CaseReader {
 public:
  explicit CaseReader(const std::string& path) : file_(File::open(path, kFormat)) {}

  Mesh read(const std::string& data_path) {
    if (file_.kind(kMesh) != io::hdf5::ObjectKind::group)
      file_.fail(kMesh, "is missing: not a Fluent CFF case or mesh file");
    for (std::string_view part : {"/cells/tree", "/faces/tree", "/faces/interface"}) {
      const std::string object = std::string(kMesh) + std::string(part);
      if (file_.exists(object))
        file_.fail(object, "adapted (hanging-node) meshes and non-conformal interfaces are not supported");
    }
    dimension_ = attribute(kMesh, "dimension");
    if (dimension_ != 2 && dimension_ != 3) file_.fail(kMesh, "attribute dimension must be 2 or 3");
    num_nodes_ = count_attribute("nodeCount");
    num_cells_ = count_attribute("cellCount");
    num_faces_ = count_attribute("faceCount");

    Mesh mesh;
    read_points(mesh);
    read_faces();
    build_cells(mesh);
    add_cell_zones(mesh);
    add_face_zones(mesh);
    if (!data_path.empty()) read_solution(data_path, cells_, num_cells_, mesh);
    return mesh;
  }

 private:
  std::int64_t attribute(std::string_view object, std::string_view name) const {
    const auto value = file_.integer_attribute(object, name);
    if (!value) file_.fail(object, "has no attribute " + std::string(name));
    return *value;
  }

  // A count of the mesh group; every array it sizes is read (and so bounded by the file)
  // before anything of that size is allocated.
  std::int64_t count_attribute(std::string_view name) const {
    const std::int64_t count = attribute(kMesh, name);
    if (count < 0) file_.fail(kMesh, "attribute " + std::string(name) + " is negative");
    return count;
  }

  std::string mesh_path(std::string_view part) const { return std::string(kMesh) + "/" + std::string(part); }

  void read_points(Mesh& mesh) {
    const std::string group = mesh_path("nodes/coords");
    const std::vector<Section> parts = sections_of(file_, group, num_nodes_);
    check_coverage(file_, group, parts, num_nodes_, /*tile=*/true);
    std::vector<NDArray> pieces;
    for (const Section& part : parts) {
      NDArray coords = file_.read(part.path, DType::float64);
      if (coords.ndim() != 2 || coords.dim(0) != part.count || coords.dim(1) != dimension_)
        file_.fail(part.path, "expected (" + std::to_string(part.count) + ", " + std::to_string(dimension_) +
                                  ") coordinates");
      pieces.push_back(std::move(coords));
    }
    mesh.points = NDArray::allocate(DType::float64, {num_nodes_, dimension_});
    double* out = mesh.points.data_as<double>();
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::span<const double> values = pieces[i].values<double>();
      std::copy(values.begin(), values.end(), out + parts[i].first * dimension_);
    }
  }

  void read_faces() {
    const std::string group = mesh_path("faces/nodes");
    const std::vector<Section> parts = sections_of(file_, group, num_faces_);
    check_coverage(file_, group, parts, num_faces_, /*tile=*/true);
    // Read before allocating anything faceCount long: the datasets' sizes are checked against
    // the file by the HDF5 layer, the attributes that claim the count are not.
    std::vector<NDArray> counts_of_part, nodes_of_part;
    for (const Section& part : parts) {
      NDArray counts = file_.read(part.path + "/nnodes", DType::int64);
      if (counts.size() != static_cast<std::size_t>(part.count))
        file_.fail(part.path + "/nnodes", "expected " + std::to_string(part.count) + " node counts");
      counts_of_part.push_back(std::move(counts));
      nodes_of_part.push_back(file_.read(part.path + "/nodes", DType::int64));
    }
    // Every cell has a face and every face at most two cells.
    if (num_cells_ > 2 * num_faces_) file_.fail(kMesh, "cellCount is more than the faces can close");
    face_offsets_.assign(static_cast<std::size_t>(num_faces_) + 1, 0);
    std::int64_t total = 0;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const Section& part = parts[p];
      const NDArray& nodes = nodes_of_part[p];
      const std::span<const std::int64_t> per_face = counts_of_part[p].values<std::int64_t>();
      std::int64_t section_total = 0;
      for (std::int64_t i = 0; i < part.count; ++i) {
        const std::int64_t n = per_face[static_cast<std::size_t>(i)];
        if (n < 2 || n > static_cast<std::int64_t>(nodes.size()))
          file_.fail(part.path + "/nnodes", "face " + std::to_string(part.first + i + 1) + " has " +
                                                std::to_string(n) + " nodes");
        section_total += n;
        face_offsets_[static_cast<std::size_t>(part.first + i) + 1] = n;
      }
      if (section_total != static_cast<std::int64_t>(nodes.size()))
        file_.fail(part.path + "/nodes", "holds " + std::to_string(nodes.size()) +
                                             " node ids, the counts in nnodes add up to " + std::to_string(section_total));
      for (const std::int64_t id : nodes.values<std::int64_t>())
        if (!io::id_within(io::zero_based(id), num_nodes_))
          file_.fail(part.path + "/nodes", "names node " + std::to_string(id) + ", past the " +
                                               std::to_string(num_nodes_) + " nodes");
      total += section_total;
    }
    for (std::size_t f = 0; f < static_cast<std::size_t>(num_faces_); ++f) face_offsets_[f + 1] += face_offsets_[f];
    face_nodes_.resize(static_cast<std::size_t>(total));
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const std::span<const std::int64_t> ids = nodes_of_part[p].values<std::int64_t>();
      std::int64_t* out = face_nodes_.data() + face_offsets_[static_cast<std::size_t>(parts[p].first)];
      for (std::size_t k = 0; k < ids.size(); ++k) out[k] = ids[k] - 1;
    }
    c0_ = adjacent_cells("faces/c0", /*tile=*/true);
    c1_ = adjacent_cells("faces/c1", /*tile=*/false);
  }

  // 0-based cells beside each face (-1: none) from the sections of `part`.
  std::vector<std::int64_t> adjacent_cells(std::string_view part, bool tile) {
    const std::string group = mesh_path(part);
    std::vector<std::int64_t> cells(static_cast<std::size_t>(num_faces_), -1);
    if (!tile && !file_.exists(group)) return cells;  // no interior face at all
    const std::vector<Section> parts = sections_of(file_, group, num_faces_);
    check_coverage(file_, group, parts, num_faces_, tile);
    for (const Section& section : parts) {
      const NDArray values = file_.read(section.path, DType::int64);
      if (values.size() != static_cast<std::size_t>(section.count))
        file_.fail(section.path, "expected " + std::to_string(section.count) + " cell ids");
      const std::span<const std::int64_t> ids = values.values<std::int64_t>();
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] > num_cells_)
          file_.fail(section.path, "face " + std::to_string(section.first + static_cast<std::int64_t>(i) + 1) +
                                       " names cell " + std::to_string(ids[i]) + ", past the " +
                                       std::to_string(num_cells_) + " cells");
        cells[static_cast<std::size_t>(section.first) + i] = ids[i] - 1;
      }
    }
    return cells;
  }

  void build_cells(Mesh& mesh) {
    io::FaceCellInput input;
    input.face_offsets = face_offsets_;
    input.face_nodes = face_nodes_;
    // build_cells_from_faces wants 3-D normals out of the owner and 2-D owners on the left:
    // c1 owns a 3-D face (its normal points into c0), c0 a 2-D one.
    input.owner = dimension_ == 3 ? c1_ : c0_;
    input.neighbour = dimension_ == 3 ? c0_ : c1_;
    input.num_cells = num_cells_;
    input.dimension = static_cast<int>(dimension_);
    try {
      cells_ = io::build_cells_from_faces(input);
    } catch (const std::invalid_argument& error) {
      file_.fail(mesh_path("faces"), error.what());
    }
    mesh.cells = cells_.blocks;
  }

  std::vector<Zone> zones(std::string_view part, std::int64_t limit) const {
    const std::string group = mesh_path(part);
    std::vector<Zone> zones;
    if (!file_.exists(group)) return zones;
    const NDArray ids = file_.read(group + "/id", DType::int64);
    const NDArray first = file_.read(group + "/minId", DType::int64);
    const NDArray last = file_.read(group + "/maxId", DType::int64);
    if (first.size() != ids.size() || last.size() != ids.size())
      file_.fail(group, "id, minId and maxId differ in length");
    std::vector<std::string> names;
    if (file_.exists(group + "/name")) {
      const std::vector<std::string> joined = file_.read_strings(group + "/name");
      names = split_names(joined.empty() ? std::string() : joined.front());
    }
    std::int64_t spanned = 0;
    for (std::size_t z = 0; z < ids.size(); ++z) {
      Zone zone;
      zone.id = ids.values<std::int64_t>()[z];
      const std::int64_t min_id = first.values<std::int64_t>()[z];
      const std::int64_t max_id = last.values<std::int64_t>()[z];
      if (min_id < 1 || max_id < min_id - 1 || max_id > limit)
        file_.fail(group + "/maxId", "zone " + std::to_string(zone.id) + " spans ids " + std::to_string(min_id) +
                                         ".." + std::to_string(max_id) + ", outside 1.." + std::to_string(limit));
      zone.first = min_id - 1;
      zone.count = max_id - min_id + 1;
      spanned += zone.count;  // zones do not overlap: this bounds what their regions allocate
      if (spanned > limit) file_.fail(group, "zones overlap: together they span more than " + std::to_string(limit) + " ids");
      // Fluent joins the names of all zones into one string; fall back to a made-up name
      // where the list does not match the zones (a name with ';' in it).
      zone.name = names.size() == ids.size() && !names[z].empty() ? names[z] : "zone-" + std::to_string(zone.id);
      zones.push_back(std::move(zone));
    }
    return zones;
  }

  void add_cell_zones(Mesh& mesh) {
    const std::vector<Zone> cell_zones = zones("cells/zoneTopology", num_cells_);
    NDArray zone_of_cell = NDArray::allocate(DType::int64, {num_cells_});
    std::span<std::int64_t> zone_ids = zone_of_cell.values<std::int64_t>();
    std::fill(zone_ids.begin(), zone_ids.end(), -1);  // a cell in no zone (not written by Fluent)
    for (const Zone& zone : cell_zones) {
      NDArray entries = NDArray::allocate(DType::int64, {zone.count});
      std::span<std::int64_t> out = entries.values<std::int64_t>();
      for (std::int64_t i = 0; i < zone.count; ++i) {
        zone_ids[static_cast<std::size_t>(zone.first + i)] = zone.id;
        out[static_cast<std::size_t>(i)] = cells_.block_major(zone.first + i);
      }
      std::sort(out.begin(), out.end());
      mesh.regions.push_back(Region{zone.name, RegionKind::Cell, static_cast<int>(dimension_), zone.id, std::move(entries)});
    }
    mesh.cell_data.set("ansys:zone", io::cell_values_by_block(cells_, zone_of_cell));
  }

  // As the ansys (.msh/.cas) reader does: each face on its c0 side (the other side only where
  // a face has no c0), so an interior zone lists each face once.
  void add_face_zones(Mesh& mesh) {
    const std::vector<Zone> face_zones = zones("faces/zoneTopology", num_faces_);
    // c0 is the builder's neighbour in 3-D and its owner in 2-D (build_cells says why).
    const bool c0_is_neighbour = dimension_ == 3;
    for (const Zone& zone : face_zones) {
      std::vector<std::int64_t> pairs;
      pairs.reserve(static_cast<std::size_t>(2 * zone.count));
      for (std::int64_t f = zone.first; f < zone.first + zone.count; ++f) {
        const auto face = static_cast<std::size_t>(f);
        std::array<std::int64_t, 2> side = cells_.side(f, c0_[face], c0_is_neighbour);
        if (side[0] < 0) side = cells_.side(f, c1_[face], !c0_is_neighbour);
        if (side[0] >= 0) pairs.insert(pairs.end(), {side[0], side[1]});
      }
      NDArray entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(pairs.size() / 2), 2});
      std::copy(pairs.begin(), pairs.end(), entries.data_as<std::int64_t>());
      mesh.regions.push_back(
          Region{zone.name, RegionKind::Side, static_cast<int>(dimension_ - 1), zone.id, std::move(entries)});
    }
  }

  File file_;
  std::int64_t dimension_ = 3;
  std::int64_t num_nodes_ = 0;
  std::int64_t num_cells_ = 0;
  std::int64_t num_faces_ = 0;
  std::vector<std::int64_t> face_offsets_;
  std::vector<std::int64_t> face_nodes_;
  std::vector<std::int64_t> c0_;
  std::vector<std::int64_t> c1_;
  io::FaceCells cells_;
};

// The case a data file belongs to: the same stem (x.dat.h5 -> x.cas.h5), else the file its
// /settings/"Case File" names, in the same folder.
std::string case_of_data_file(const std::string& data_path) {
  const std::string same_stem = with_suffix(data_path, ".dat.h5") + ".cas.h5";
  std::error_code error;
  if (std::filesystem::exists(same_stem, error)) return same_stem;
  const File data = File::open(data_path, kFormat);
  const std::string setting = "/settings/Case File";
  if (data.kind(setting) == io::hdf5::ObjectKind::dataset) {
    const std::vector<std::string> names = data.read_strings(setting);
    if (!names.empty() && !names.front().empty()) {
      const std::filesystem::path named =
          std::filesystem::path(data_path).parent_path() / std::filesystem::path(names.front()).filename();
      if (std::filesystem::exists(named, error)) return named.string();
    }
  }
  throw ReadError(data_path, std::string(kFormat),
                  "a data file is read with its case; found neither " + same_stem + " nor the case /settings/Case File names");
}

}  // namespace

std::vector<Section> sections_of(const File& file, const std::string& group, std::int64_t limit) {
  if (file.kind(group) != io::hdf5::ObjectKind::group) file.fail(group, "is missing or not a group");
  std::vector<Section> sections;
  for (const std::string& child : file.children(group)) {
    Section section;
    section.path = group + "/" + child;
    const auto min_id = file.integer_attribute(section.path, "minId");
    const auto max_id = file.integer_attribute(section.path, "maxId");
    if (!min_id || !max_id) file.fail(section.path, "has no minId/maxId attributes");
    if (*min_id < 1 || *max_id < *min_id - 1 || *max_id > limit)
      file.fail(section.path, "spans ids " + std::to_string(*min_id) + ".." + std::to_string(*max_id) +
                                  ", outside 1.." + std::to_string(limit));
    section.first = *min_id - 1;
    section.count = *max_id - *min_id + 1;
    sections.push_back(std::move(section));
  }
  std::sort(sections.begin(), sections.end(), [](const Section& a, const Section& b) { return a.first < b.first; });
  return sections;
}

void check_coverage(const File& file, const std::string& group, const std::vector<Section>& sections,
                    std::int64_t total, bool tile) {
  std::int64_t next = 0;
  for (const Section& section : sections) {
    if (section.count == 0) continue;
    if (section.first < next) file.fail(section.path, "overlaps the ids of another section");
    if (tile && section.first > next)
      file.fail(group, "ids " + std::to_string(next + 1) + ".." + std::to_string(section.first) + " are in no section");
    next = section.first + section.count;
  }
  if (tile && next != total)
    file.fail(group, "ids " + std::to_string(next + 1) + ".." + std::to_string(total) + " are in no section");
}

void expect_rows(const File& file, const std::string& dataset, std::int64_t count) {
  const io::hdf5::DatasetInfo info = file.dataset_info(dataset);
  if (info.compound || info.string || info.shape.empty() || info.shape.front() != count)
    file.fail(dataset, "expected " + std::to_string(count) + " rows of numbers");
}

Mesh read(const std::string& path) {
  if (ends_with_ci(path, ".dat.h5")) return CaseReader(case_of_data_file(path)).read(path);
  std::string data_path;
  if (ends_with_ci(path, ".cas.h5")) {
    const std::string beside = with_suffix(path, ".cas.h5") + ".dat.h5";
    std::error_code error;
    if (std::filesystem::exists(beside, error)) data_path = beside;
  }
  return CaseReader(path).read(data_path);
}

}  // namespace meshioplusplus::fluent_cff
