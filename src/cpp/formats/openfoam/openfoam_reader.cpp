// OpenFOAM polyMesh cases (read). A case is a directory; a read takes the case directory, a
// `*.foam` marker file in it (ParaView's convention), or a polyMesh directory itself.
//
// What becomes what:
//   points      constant/polyMesh/points, float64 (n, 3) (32-bit scalars widened).
//   cells       faces + owner + neighbour through io::build_cells_from_faces (OpenFOAM's rule is
//               the builder's: a face's normal points out of its owner): tetra, pyramid, wedge and
//               hexahedron where the faces close into those shapes, polyhedron otherwise, one block
//               per type in order of first appearance. 2-D cases are 3-D meshes one cell thick
//               (their front and back are `empty` patches) and read as such.
//   patches     the boundary file → one Side region per patch, in file order: name = patch name,
//               tag = patch index, dim 2, entries = the (block-major cell, local facet) pairs of
//               its faces' owners (empty patches of 2-D cases included). The patch list itself is
//               string field data, parallel lists in file order:
//                 "openfoam:patch_names"   the names
//                 "openfoam:patch_types"   each patch's `type` (patch, wall, empty, symmetryPlane,
//                                          cyclic, processor …)
//                 "openfoam:patch_groups"  each patch's inGroups, space-separated ("" for none)
//               so a writer can give every patch back its type (a Side region not named there is a
//               face zone).
//   zones       cellZones → Cell regions (tag = zone index); faceZones → Side regions (tag = number
//               of patches + zone index; a face's owner side, its neighbour side where the flipMap
//               flips it and it has one); pointZones → Point regions (tag = zone index).
//   fields      the time directory of the latest time: vol{Scalar,Vector,SymmTensor,Tensor,
//               SphericalTensor}Field internalField → cell data ((n,), (n, 3), (n, 6), (n, 9); the
//               file's cell order permuted to block-major), point{…}Field → point data; uniform and
//               nonuniform, ASCII and binary. Boundary values, surface fields, uniform/ and files
//               whose internalField is a $macro are not read. field_data "openfoam:time" holds that
//               time (absent for a case without time directories). A moving mesh's
//               <time>/polyMesh/points replaces the points. Every time: openfoam::open_time_series.
//   files       any file may be gzip-compressed (points.gz, U.gz …: read by content, the plain name
//               first); ASCII or binary (arch "LSB;label=32|64;scalar=32|64") — openfoam_parse.hpp.
//   decomposed  a case with processorN/ directories and constant/polyMesh is read as the
//               reconstructed case (its own polyMesh and time directories). Without constant/polyMesh
//               the processors' meshes are joined: with decomposePar's pointProcAddressing and
//               cellProcAddressing every point and cell gets its number in the undecomposed mesh
//               (shared points once, cells in the original order, patches by boundaryProcAddressing
//               or name, their faces in faceProcAddressing's order), and processor patches (shared
//               faces) vanish; without them the processors' cells follow one another and their
//               points are not merged. Fields come from each processor's time directories.
//               A processor directory read on its own is a case whose point and cell data
//               "global_ids" (int64) are its addressing (the partitioned read of mio.read(case,
//               comm=comm) welds the ranks' pieces by them).
//   regions     constant/<region>/polyMesh of a multi-region case is read when given as the path
//               (fields from <time>/<region>/).
// Not read: sets (polyMesh/sets), cellLevel/pointLevel, lagrangian clouds, the collated format
// (processors/ with decomposedBlockData files: a ReadError saying so).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <tuple>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "formats/openfoam/openfoam.hpp"
#include "formats/openfoam/openfoam_internal.hpp"
#include "io/source/read_limits.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/read_selection.hpp"

namespace meshioplusplus::openfoam {
namespace fs = std::filesystem;
using detail::CaseLayout;
using detail::CaseMesh;
using detail::PolyMesh;

namespace {

bool is_dir(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

bool has_file(const fs::path& dir, const std::string& name) {
  return FoamFile::locate((dir / name).string()).has_value();
}

bool is_poly_mesh_dir(const fs::path& dir) { return is_dir(dir) && has_file(dir, "faces") && has_file(dir, "owner"); }

// processorN directories of `root`, by N.
std::vector<std::string> processor_dirs(const fs::path& root) {
  std::vector<std::pair<long, std::string>> found;
  std::error_code error;
  for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("processor", 0) != 0 || name.size() == 9) continue;
    const std::string digits = name.substr(9);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || digits.size() > 9) continue;
    if (is_dir(it->path())) found.emplace_back(std::stol(digits), it->path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> dirs;
  for (auto& entry : found) dirs.push_back(std::move(entry.second));
  return dirs;
}

[[noreturn]] void fail(const std::string& path, const std::string& message) { throw ReadError(path, std::string(kFormat), message); }

NDArray read_label_file(const std::string& path, const std::string& note, std::string_view what) {
  FoamFile file(path, note);
  return read_list_file(file, ElementKind::label, 1, what);
}

std::optional<NDArray> read_optional_labels(const fs::path& dir, const std::string& name, const std::string& note) {
  const auto found = FoamFile::locate((dir / name).string());
  if (!found) return std::nullopt;
  return read_label_file((dir / name).string(), note, name);
}

std::vector<detail::Zone> read_zones(const fs::path& dir, const std::string& name, std::string_view labels_key,
                                     std::int64_t bound, std::string_view bound_what, const std::string& note) {
  std::vector<detail::Zone> zones;
  if (!has_file(dir, name)) return zones;
  FoamFile file((dir / name).string(), note);
  for (const NamedDict& dict : read_named_dicts(file, name)) {
    detail::Zone zone;
    zone.name = dict.name;
    const DictEntry* labels = find_entry(dict.entries, labels_key);
    if (labels == nullptr) file.fail(dict.at, name + " '" + dict.name + "' has no " + std::string(labels_key));
    Cursor cursor(file, labels->value);
    if (cursor.peek() != '(' && !cursor.at_number()) {
      const std::string_view prefix = cursor.word(labels_key);  // List<label>
      if (prefix != "List<label>") file.fail(labels->value, std::string(labels_key) + ": expected List<label>, found '" + std::string(prefix) + "'");
    }
    zone.labels = read_list(cursor, ElementKind::label, 1, std::string(labels_key) + " of " + dict.name);
    for (std::int64_t label : zone.labels.values<std::int64_t>())
      if (label < 0 || label >= bound)
        file.fail(labels->value, name + " '" + dict.name + "' names " + std::string(bound_what) + " " + std::to_string(label) +
                                     ", but the mesh has " + std::to_string(bound));
    if (const DictEntry* flip = find_entry(dict.entries, "flipMap")) {
      Cursor flips(file, flip->value);
      if (flips.peek() != '(' && !flips.at_number()) flips.word("flipMap");  // List<bool>
      zone.flips = read_list(flips, ElementKind::boolean, 1, "flipMap of " + dict.name);
      if (zone.flips.rows() != zone.labels.rows()) {
        if (zone.flips.rows() != 0)
          file.fail(flip->value, "faceZone '" + dict.name + "': flipMap has " + std::to_string(zone.flips.rows()) + " entries for " +
                                     std::to_string(zone.labels.rows()) + " faces");
        zone.flips = NDArray();
      }
    }
    zones.push_back(std::move(zone));
  }
  return zones;
}

std::string case_note_of(const std::string& entry) { return " (case " + entry + ")"; }

// Labels as int32 where every one fits (half the memory of a large mesh's faces, owner and
// neighbour lists, which the cell builder reads either way), else as they are.
NDArray narrowed(NDArray labels) {
  if (labels.dtype() != DType::int64) return labels;
  const auto values = labels.values<std::int64_t>();
  const auto fits = [](std::int64_t v) {
    return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
  };
  if (!std::all_of(values.begin(), values.end(), fits)) return labels;
  NDArray out = NDArray::allocate_scratch(DType::int32, labels.shape());
  std::copy(values.begin(), values.end(), out.data_as<std::int32_t>());
  return out;
}

io::Labels labels_of(const NDArray& labels) {
  if (labels.dtype() == DType::int32) return io::Labels(labels.values<std::int32_t>());
  return io::Labels(labels.values<std::int64_t>());
}

io::Labels labels_of_or_empty(const NDArray& labels) { return labels.empty_handle() ? io::Labels() : labels_of(labels); }

}  // namespace

namespace detail {

NDArray read_points(const std::string& dir, const std::string& note) {
  FoamFile file((fs::path(dir) / "points").string(), note);
  return read_list_file(file, ElementKind::scalar, 3, "points");
}

std::vector<Zone> read_cell_zones(const std::string& dir, std::int64_t num_cells, const std::string& note) {
  return read_zones(dir, "cellZones", "cellLabels", num_cells, "cell", note);
}

PolyMesh read_poly_mesh(const std::string& dir_text, const std::string& note, bool cell_zones) {
  const fs::path dir(dir_text);
  PolyMesh mesh;
  mesh.dir = dir_text;
  mesh.points = read_points(dir_text, note);
  const std::int64_t num_points = mesh.points.rows();

  // Each file is closed (its mapping, resident once parsed, let go) as soon as it is parsed,
  // and its labels narrowed to int32 where they fit, so that the largest of them is not held
  // twice; a failed check opens the file again for its message.
  const auto file_of = [&](const char* name) { return FoamFile((dir / name).string(), note); };
  mesh.faces = read_faces_file(file_of("faces"));
  if (mesh.faces.offsets.dtype() == DType::int32) {  // widened now that the file is closed
    NDArray wide = NDArray::allocate_scratch(DType::int64, mesh.faces.offsets.shape());
    const auto narrow = mesh.faces.offsets.values<std::int32_t>();
    std::copy(narrow.begin(), narrow.end(), wide.data_as<std::int64_t>());
    mesh.faces.offsets = std::move(wide);
  }
  mesh.faces.nodes = narrowed(std::move(mesh.faces.nodes));
  const std::int64_t num_faces = mesh.faces.offsets.rows() - 1;
  {
    // Faces all of one size (a tetrahedral mesh's triangles) need no offsets.
    const auto offsets = mesh.faces.offsets.values<std::int64_t>();
    int face_size = offsets.size() > 1 ? static_cast<int>(std::min<std::int64_t>(offsets[1], 1 << 20)) : 0;
    for (std::size_t f = 0; f + 1 < offsets.size() && face_size > 0; ++f)
      if (offsets[f + 1] - offsets[f] != face_size) face_size = 0;
    if (face_size > 0) {
      mesh.faces.offsets = NDArray();
      mesh.faces.face_size = face_size;
    }
  }
  {
    const io::Labels nodes = labels_of(mesh.faces.nodes);
    const std::int64_t total = mesh.faces.nodes.rows();
    for (std::int64_t i = 0; i < total; ++i)
      if (!io::id_within(nodes[static_cast<std::size_t>(i)], num_points)) {
        std::int64_t face = i / std::max(mesh.faces.face_size, 1);
        if (mesh.faces.face_size == 0) {
          const std::int64_t* offsets = mesh.faces.offsets.data_as<std::int64_t>();
          face = std::upper_bound(offsets, offsets + num_faces + 1, i) - offsets - 1;
        }
        const FoamFile faces_file = file_of("faces");
        faces_file.fail(faces_file.body(), "face " + std::to_string(face) + " names point " +
                                               std::to_string(nodes[static_cast<std::size_t>(i)]) +
                                               ", but the points file has " + std::to_string(num_points) + " points");
      }
  }

  mesh.owner = read_list_file(file_of("owner"), ElementKind::label, 1, "owner", true, true);
  const auto owner_fail = [&](const std::string& message) {
    const FoamFile owner_file = file_of("owner");
    owner_file.fail(owner_file.body(), message);
  };
  if (mesh.owner.rows() != num_faces)
    owner_fail("owner has " + std::to_string(mesh.owner.rows()) + " labels, but faces lists " + std::to_string(num_faces) +
               " faces (one owner per face)");
  const auto neighbour_path = FoamFile::locate((dir / "neighbour").string());
  if (neighbour_path) {
    mesh.neighbour = read_list_file(file_of("neighbour"), ElementKind::label, 1, "neighbour", true, true);
    const auto neighbour_fail = [&](const std::string& message) {
      const FoamFile neighbour_file = file_of("neighbour");
      neighbour_file.fail(neighbour_file.body(), message);
    };
    if (mesh.neighbour.rows() > num_faces)
      neighbour_fail("neighbour has " + std::to_string(mesh.neighbour.rows()) + " labels, more than the " +
                     std::to_string(num_faces) + " faces (and owner labels) of the mesh");
    const io::Labels neighbour = labels_of(mesh.neighbour);
    for (std::size_t f = 0; f < neighbour.size(); ++f)
      if (const std::int64_t cell = neighbour[f]; cell < 0) neighbour_fail("neighbour holds a negative cell " + std::to_string(cell));
  } else {
    mesh.neighbour = NDArray::allocate(DType::int64, {0});
  }
  std::int64_t max_cell = -1;
  const io::Labels owner = labels_of(mesh.owner), neighbour = labels_of(mesh.neighbour);
  for (std::size_t f = 0; f < owner.size(); ++f) {
    const std::int64_t cell = owner[f];
    if (cell < 0) owner_fail("owner holds a negative cell " + std::to_string(cell));
    max_cell = std::max(max_cell, cell);
  }
  for (std::size_t f = 0; f < neighbour.size(); ++f) max_cell = std::max(max_cell, neighbour[f]);
  mesh.num_cells = max_cell + 1;
  mesh.owner = narrowed(std::move(mesh.owner));
  mesh.neighbour = narrowed(std::move(mesh.neighbour));

  if (has_file(dir, "boundary")) {
    FoamFile boundary((dir / "boundary").string(), note);
    for (const NamedDict& dict : read_named_dicts(boundary, "boundary")) {
      Patch patch;
      patch.name = dict.name;
      const DictEntry* type = find_entry(dict.entries, "type");
      const DictEntry* size = find_entry(dict.entries, "nFaces");
      const DictEntry* start = find_entry(dict.entries, "startFace");
      if (size == nullptr || start == nullptr) boundary.fail(dict.at, "patch '" + dict.name + "' has no nFaces or startFace");
      patch.type = type ? entry_word(boundary, *type) : "patch";
      patch.size = entry_label(boundary, *size);
      patch.start = entry_label(boundary, *start);
      if (patch.size < 0 || patch.start < 0 || patch.start > num_faces || patch.size > num_faces - patch.start)
        boundary.fail(dict.at, "patch '" + dict.name + "': faces " + std::to_string(patch.start) + " … " +
                                   std::to_string(patch.start + patch.size - 1) + " are not faces of the mesh (it has " +
                                   std::to_string(num_faces) + ")");
      if (const DictEntry* groups = find_entry(dict.entries, "inGroups")) {
        Cursor cursor(boundary, groups->value);
        if (cursor.peek() != '(' && !cursor.at_number()) cursor.word("inGroups");  // List<word>
        patch.groups = read_word_list(cursor, "inGroups");
      }
      patch.processor = patch.type == "processor" || patch.type == "processorCyclic";
      mesh.patches.push_back(std::move(patch));
    }
  }
  if (cell_zones) mesh.cell_zones = read_cell_zones(dir_text, mesh.num_cells, note);
  mesh.face_zones = read_zones(dir, "faceZones", "faceLabels", num_faces, "face", note);
  mesh.point_zones = read_zones(dir, "pointZones", "pointLabels", num_points, "point", note);
  const auto check_map = [&](std::optional<NDArray> map, const std::string& name, std::int64_t rows) -> NDArray {
    if (!map) return NDArray();
    if (map->rows() != rows)
      fail((dir / name).string(), name + " has " + std::to_string(map->rows()) + " labels for " + std::to_string(rows) +
                                      " entries of the mesh" + note);
    return *map;
  };
  mesh.point_addressing = check_map(read_optional_labels(dir, "pointProcAddressing", note), "pointProcAddressing", num_points);
  mesh.cell_addressing = check_map(read_optional_labels(dir, "cellProcAddressing", note), "cellProcAddressing", mesh.num_cells);
  mesh.face_addressing = check_map(read_optional_labels(dir, "faceProcAddressing", note), "faceProcAddressing", num_faces);
  return mesh;
}

CaseLayout locate_case(const std::string& path) {
  CaseLayout layout;
  layout.entry = path;
  layout.note = case_note_of(path);
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || !fs::exists(status)) fail(path, "no such file or directory");
  fs::path given(path);
  fs::path root;
  if (fs::is_directory(status)) {
    if (is_poly_mesh_dir(given) && !is_dir(given / "constant")) {
      // A polyMesh directory: its case is two levels up when it sits in constant/ (or
      // constant/<region>/), and it has none otherwise.
      layout.mesh_dir = given.string();
      const fs::path absolute = fs::absolute(given, error).lexically_normal();
      fs::path parent = (absolute.filename().empty() ? absolute.parent_path() : absolute).parent_path();
      if (parent.filename() == "constant") {
        layout.root = parent.parent_path().string();
      } else if (parent.parent_path().filename() == "constant") {
        layout.region = parent.filename().string();
        layout.root = parent.parent_path().parent_path().string();
      }
      return layout;
    }
    root = given;
  } else {
    root = given.parent_path();  // a marker file (case.foam, controlDict …): its directory
    if (root.empty()) root = ".";
  }
  layout.root = root.string();
  if (is_poly_mesh_dir(root / "constant" / "polyMesh")) {
    layout.mesh_dir = (root / "constant" / "polyMesh").string();
    return layout;
  }
  layout.processors = processor_dirs(root);
  if (!layout.processors.empty()) return layout;
  if (is_dir(root / "processors") || !processor_dirs(root / "processors").empty())
    fail(path, "a decomposed case in the collated format (processors/, decomposedBlockData) is not read; "
               "reconstruct it (reconstructPar) or decompose it uncollated (decomposePar -fileHandler uncollated)");
  std::vector<std::string> regions;
  for (fs::directory_iterator it(root / "constant", error), end; !error && it != end; it.increment(error))
    if (is_poly_mesh_dir(it->path() / "polyMesh")) regions.push_back(it->path().filename().string());
  if (!regions.empty()) {
    std::sort(regions.begin(), regions.end());
    std::string names;
    for (const std::string& region : regions) names += (names.empty() ? "" : ", ") + region;
    fail(path, "a multi-region case (regions " + names + "): read one region by its polyMesh directory, e.g. " +
                   (root / "constant" / regions.front() / "polyMesh").string());
  }
  fail(path, "not an OpenFOAM case: no constant/polyMesh (points, faces, owner) and no processor* directories in " +
                 root.string());
}

std::vector<TimeDir> time_directories(const std::string& dir) {
  std::vector<TimeDir> times;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.empty()) continue;
    double value = 0;
    const auto [stop, parse_error] = std::from_chars(name.data(), name.data() + name.size(), value);
    if (parse_error != std::errc{} || stop != name.data() + name.size() || !std::isfinite(value)) continue;
    if (is_dir(it->path())) times.push_back({name, value});
  }
  std::sort(times.begin(), times.end(), [](const TimeDir& a, const TimeDir& b) {
    return a.value != b.value ? a.value < b.value : a.name < b.name;
  });
  return times;
}

std::vector<TimeDir> case_times(const CaseMesh& mesh) {
  if (mesh.parts.empty() || mesh.parts.front().dir.empty()) return {};
  return time_directories(mesh.parts.front().dir);
}

namespace {

// `offsets` empty: every face has `face_size` nodes. `cells_listed` (may be empty) runs once
// the builder no longer reads owner and neighbour.
io::FaceCells build(const PolyMesh& poly, io::Labels owner, io::Labels neighbour, io::Labels offsets, io::Labels nodes,
                    int face_size, std::int64_t num_cells, const std::string& note,
                    std::function<void()> cells_listed = {}) {
  io::FaceCellInput input;
  input.cells_listed = std::move(cells_listed);
  input.face_offsets = offsets;
  input.face_nodes = nodes;
  input.face_size = face_size;
  input.owner = owner;
  input.neighbour = neighbour;
  input.num_cells = num_cells;
  input.dimension = 3;
  try {
    return io::build_cells_from_faces(input);
  } catch (const std::invalid_argument& error) {
    fail((fs::path(poly.dir) / "owner").string(), std::string("the faces do not make cells: ") + error.what() + note);
  }
}

// The cells on both sides of faces first, first + 1, … (every face, as the builder was given
// them, or the tail of the list that patches and zones name).
struct FaceSides {
  io::Labels owner;
  io::Labels neighbour;  // shorter than owner: the faces past its end have none
  std::size_t first = 0;
};

// Side entries (owner side; the neighbour side where `flips` says so and there is one) of faces.
NDArray side_entries(const io::FaceCells& cells, const FaceSides& sides, std::span<const std::int64_t> faces,
                     const NDArray& flips) {
  NDArray entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(faces.size()), 2});
  std::int64_t* out = entries.data_as<std::int64_t>();
  const std::uint8_t* flip = flips.empty_handle() ? nullptr : flips.data_as<std::uint8_t>();
  for (std::size_t i = 0; i < faces.size(); ++i) {
    const std::int64_t f = faces[i];
    const auto face = static_cast<std::size_t>(f) - sides.first;
    const std::int64_t neighbour = face < sides.neighbour.size() ? sides.neighbour[face] : -1;
    const bool flipped = flip != nullptr && flip[i] != 0 && neighbour >= 0;
    const std::array<std::int64_t, 2> side = flipped ? cells.side(f, neighbour, true) : cells.side(f, sides.owner[face], false);
    out[2 * i] = side[0];
    out[2 * i + 1] = side[1];
  }
  return entries;
}

NDArray cell_entries(const io::FaceCells& cells, std::span<const std::int64_t> file_cells) {
  NDArray entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(file_cells.size())});
  std::int64_t* out = entries.data_as<std::int64_t>();
  for (std::size_t i = 0; i < file_cells.size(); ++i) out[i] = cells.block_major(file_cells[i]);
  return entries;
}

// A cell zone's labels as block-major cells: the labels themselves (shared) when the cells are in
// file order.
NDArray zone_cell_entries(const io::FaceCells& cells, const NDArray& labels) {
  return cells.in_file_order() ? labels : cell_entries(cells, labels.values<std::int64_t>());
}

NDArray int64_array(const std::vector<std::int64_t>& values) {
  NDArray array = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(values.size())});
  std::copy(values.begin(), values.end(), array.data_as<std::int64_t>());
  return array;
}

void add_patch_lists(Mesh& mesh, const std::vector<const detail::Patch*>& patches) {
  std::vector<std::string> names, types, groups;
  for (const detail::Patch* patch : patches) {
    names.push_back(patch->name);
    types.push_back(patch->type);
    std::string joined;
    for (const std::string& group : patch->groups) joined += (joined.empty() ? "" : " ") + group;
    groups.push_back(std::move(joined));
  }
  mesh.string_field_data.set("openfoam:patch_names", std::move(names));
  mesh.string_field_data.set("openfoam:patch_types", std::move(types));
  mesh.string_field_data.set("openfoam:patch_groups", std::move(groups));
}

Region make_region(std::string name, RegionKind kind, int dim, std::int64_t tag, NDArray entries) {
  Region region;
  region.name = std::move(name);
  region.kind = kind;
  region.dim = dim;
  region.tag = tag;
  region.entries = std::move(entries);
  return region;
}

std::span<const std::int64_t> span_of(const NDArray& array) { return array.values<std::int64_t>(); }

// One polyMesh is the whole mesh.
CaseMesh assemble_single(const CaseLayout& layout) {
  PolyMesh poly = read_poly_mesh(layout.mesh_dir, layout.note, false);
  CaseMesh result;
  result.note = layout.note;
  result.region = layout.region;
  // Patches and face zones need the cells of their faces, which lie at the end of the list (a
  // patch's faces are boundary faces, after the internal ones): from the first face any of them
  // names on, the owner and neighbour are kept; the whole lists go as soon as the builder has
  // listed each cell's faces (half its peak input on a large mesh).
  const auto num_faces = static_cast<std::size_t>(poly.owner.rows());
  std::size_t first_named = num_faces;
  for (const detail::Patch& patch : poly.patches)
    if (patch.size > 0) first_named = std::min(first_named, static_cast<std::size_t>(patch.start));
  for (const detail::Zone& zone : poly.face_zones)
    for (const std::int64_t f : zone.labels.values<std::int64_t>()) first_named = std::min(first_named, static_cast<std::size_t>(f));
  io::ScratchVector<std::int64_t> tail_owner(num_faces - first_named), tail_neighbour;
  {
    const io::Labels owner = labels_of(poly.owner), neighbour = labels_of(poly.neighbour);
    for (std::size_t f = first_named; f < num_faces; ++f) tail_owner[f - first_named] = owner[f];
    for (std::size_t f = first_named; f < neighbour.size(); ++f) tail_neighbour.push_back(neighbour[f]);
  }
  result.cells = build(poly, labels_of(poly.owner), labels_of(poly.neighbour), labels_of_or_empty(poly.faces.offsets),
                       labels_of(poly.faces.nodes), poly.faces.face_size, poly.num_cells, layout.note, [&poly] {
                         poly.owner = NDArray();
                         poly.neighbour = NDArray();
                       });
  poly.faces = {};  // sides need only the kept owners and neighbours; fields, nothing of the faces
  poly.cell_zones = read_cell_zones(poly.dir, poly.num_cells, layout.note);
  const FaceSides poly_sides{std::span<const std::int64_t>(tail_owner.data(), tail_owner.size()),
                             std::span<const std::int64_t>(tail_neighbour.data(), tail_neighbour.size()), first_named};
  Mesh& mesh = result.mesh;
  mesh.points = poly.points;
  mesh.cells = result.cells.blocks;
  std::vector<const detail::Patch*> patches;
  for (std::size_t p = 0; p < poly.patches.size(); ++p) {
    const detail::Patch& patch = poly.patches[p];
    patches.push_back(&patch);
    std::vector<std::int64_t> faces(static_cast<std::size_t>(patch.size));
    std::iota(faces.begin(), faces.end(), patch.start);
    mesh.regions.push_back(make_region(patch.name, RegionKind::Side, 2, static_cast<std::int64_t>(p),
                                       side_entries(result.cells, poly_sides, faces, NDArray())));
  }
  add_patch_lists(mesh, patches);
  for (std::size_t z = 0; z < poly.cell_zones.size(); ++z)
    mesh.regions.push_back(make_region(poly.cell_zones[z].name, RegionKind::Cell, 3, static_cast<std::int64_t>(z),
                                       zone_cell_entries(result.cells, poly.cell_zones[z].labels)));
  for (std::size_t z = 0; z < poly.face_zones.size(); ++z)
    mesh.regions.push_back(make_region(poly.face_zones[z].name, RegionKind::Side, 2,
                                       static_cast<std::int64_t>(poly.patches.size() + z),
                                       side_entries(result.cells, poly_sides, span_of(poly.face_zones[z].labels),
                                                    poly.face_zones[z].flips)));
  for (std::size_t z = 0; z < poly.point_zones.size(); ++z)
    mesh.regions.push_back(make_region(poly.point_zones[z].name, RegionKind::Point, 0, static_cast<std::int64_t>(z),
                                       poly.point_zones[z].labels.copy()));
  // A processor directory read as a case: its addressing is the pieces' global numbering.
  if (!poly.point_addressing.empty_handle()) mesh.point_data.set("global_ids", poly.point_addressing);
  if (!poly.cell_addressing.empty_handle())
    mesh.cell_data.set("global_ids", io::cell_values_by_block(result.cells, poly.cell_addressing));
  CaseMesh::Part part;
  part.dir = layout.root;  // its time directories (a region's fields are in <time>/<region>/)
  part.num_cells = poly.num_cells;
  part.num_points = poly.points.rows();
  result.parts.push_back(std::move(part));
  result.cells.forget_sides();  // the regions are made; fields need only the cell maps
  return result;
}

// The processors of a decomposed case joined into one mesh (the header comment says how).
CaseMesh assemble_decomposed(const CaseLayout& layout) {
  std::vector<PolyMesh> procs;
  for (const std::string& dir : layout.processors) {
    const fs::path mesh_dir = fs::path(dir) / "constant" / "polyMesh";
    if (!is_poly_mesh_dir(mesh_dir)) fail(dir, "a processor directory without constant/polyMesh (points, faces, owner)" + layout.note);
    procs.push_back(read_poly_mesh(mesh_dir.string(), layout.note));
  }
  const bool addressed = std::all_of(procs.begin(), procs.end(), [](const PolyMesh& p) {
    return !p.point_addressing.empty_handle() && !p.cell_addressing.empty_handle();
  });
  CaseMesh result;
  result.note = layout.note;
  std::int64_t num_points = 0, num_cells = 0, num_faces = 0, num_nodes = 0;
  std::vector<std::int64_t> point_base, cell_base, face_base;
  for (const PolyMesh& p : procs) {
    point_base.push_back(num_points);
    cell_base.push_back(num_cells);
    face_base.push_back(num_faces);
    if (addressed) {
      for (std::int64_t g : p.point_addressing.values<std::int64_t>()) {
        if (g < 0) fail(p.dir + "/pointProcAddressing", "a negative point " + std::to_string(g) + layout.note);
        num_points = std::max(num_points, g + 1);
      }
      for (std::int64_t g : p.cell_addressing.values<std::int64_t>()) {
        if (g < 0) fail(p.dir + "/cellProcAddressing", "a negative cell " + std::to_string(g) + layout.note);
        num_cells = std::max(num_cells, g + 1);
      }
    } else {
      num_points += p.points.rows();
      num_cells += p.num_cells;
    }
    num_faces += p.owner.rows();
    num_nodes += p.faces.nodes.rows();
  }
  io::check_claim_fits_limit(layout.entry, kFormat, "points (pointProcAddressing)", static_cast<std::uint64_t>(num_points), 24);
  io::check_claim_fits_limit(layout.entry, kFormat, "cells (cellProcAddressing)", static_cast<std::uint64_t>(num_cells), 64);
  // Points: each global point from the processor that has it (all copies are the same point).
  NDArray points = NDArray::allocate(DType::float64, {num_points, 3});
  double* xyz = points.data_as<double>();
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(num_points), 0);
  std::vector<NDArray> point_maps, cell_maps;
  for (std::size_t k = 0; k < procs.size(); ++k) {
    const PolyMesh& p = procs[k];
    NDArray point_map = addressed ? p.point_addressing : NDArray::allocate(DType::int64, {p.points.rows()});
    NDArray cell_map = addressed ? p.cell_addressing : NDArray::allocate(DType::int64, {p.num_cells});
    if (!addressed) {
      std::iota(point_map.data_as<std::int64_t>(), point_map.data_as<std::int64_t>() + p.points.rows(), point_base[k]);
      std::iota(cell_map.data_as<std::int64_t>(), cell_map.data_as<std::int64_t>() + p.num_cells, cell_base[k]);
    }
    const double* local = p.points.data_as<double>();
    const std::int64_t* map = point_map.data_as<std::int64_t>();
    for (std::int64_t i = 0; i < p.points.rows(); ++i) {
      std::copy(local + 3 * i, local + 3 * i + 3, xyz + 3 * map[i]);
      seen[static_cast<std::size_t>(map[i])] = 1;
    }
    point_maps.push_back(std::move(point_map));
    cell_maps.push_back(std::move(cell_map));
  }
  if (std::find(seen.begin(), seen.end(), 0) != seen.end())
    fail(layout.entry, "pointProcAddressing leaves points of the undecomposed mesh unnumbered" + layout.note);
  // Faces of every processor in turn, in global point and cell numbers; a face on a processor
  // patch is one cell's face on each side and comes once from each.
  NDArray offsets = NDArray::allocate(DType::int64, {num_faces + 1});
  NDArray nodes = NDArray::allocate(DType::int64, {num_nodes});
  NDArray owner = NDArray::allocate(DType::int64, {num_faces});
  NDArray neighbour = NDArray::allocate(DType::int64, {num_faces});
  std::int64_t* offset_out = offsets.data_as<std::int64_t>();
  std::int64_t* node_out = nodes.data_as<std::int64_t>();
  std::int64_t* owner_out = owner.data_as<std::int64_t>();
  std::int64_t* neighbour_out = neighbour.data_as<std::int64_t>();
  offset_out[0] = 0;
  std::int64_t node_at = 0;
  std::vector<std::uint8_t> cell_seen(static_cast<std::size_t>(num_cells), 0);
  for (std::size_t k = 0; k < procs.size(); ++k) {
    const PolyMesh& p = procs[k];
    const std::int64_t* pmap = point_maps[k].data_as<std::int64_t>();
    const std::int64_t* cmap = cell_maps[k].data_as<std::int64_t>();
    for (std::int64_t c = 0; c < p.num_cells; ++c) cell_seen[static_cast<std::size_t>(cmap[c])] = 1;
    const io::Labels local_nodes = labels_of(p.faces.nodes);
    const io::Labels local_owner = labels_of(p.owner);
    const io::Labels local_neighbour = labels_of(p.neighbour);
    const std::int64_t faces_here = p.owner.rows();
    for (std::int64_t f = 0; f < faces_here; ++f) {
      for (std::int64_t i = p.faces.face_begin(f); i < p.faces.face_begin(f + 1); ++i)
        node_out[node_at++] = pmap[local_nodes[static_cast<std::size_t>(i)]];
      const std::int64_t global = face_base[k] + f;
      offset_out[global + 1] = node_at;
      owner_out[global] = cmap[local_owner[static_cast<std::size_t>(f)]];
      neighbour_out[global] = f < p.neighbour.rows() ? cmap[local_neighbour[static_cast<std::size_t>(f)]] : -1;
    }
  }
  if (std::find(cell_seen.begin(), cell_seen.end(), 0) != cell_seen.end())
    fail(layout.entry, "cellProcAddressing leaves cells of the undecomposed mesh unnumbered" + layout.note);
  result.cells = build(procs.front(), span_of(owner), span_of(neighbour), span_of(offsets), span_of(nodes), 0, num_cells,
                       layout.note);
  const FaceSides joined_sides{span_of(owner), span_of(neighbour)};
  Mesh& mesh = result.mesh;
  mesh.points = std::move(points);
  mesh.cells = result.cells.blocks;

  // Patches: processor 0's list without its processor patches; each processor's faces of a
  // patch join it (by boundaryProcAddressing's global patch index where present, else by name).
  std::vector<const detail::Patch*> patches;
  for (const detail::Patch& patch : procs.front().patches)
    if (!patch.processor) patches.push_back(&patch);
  const auto global_face = [&](std::size_t k, std::int64_t f) -> std::int64_t {
    const NDArray& map = procs[k].face_addressing;
    if (map.empty_handle()) return face_base[k] + f;
    const std::int64_t g = map.data_as<std::int64_t>()[f];
    return (g < 0 ? -g : g) - 1;
  };
  for (std::size_t p = 0; p < patches.size(); ++p) {
    std::vector<std::pair<std::int64_t, std::int64_t>> faces;  // (order key, face in the joined list)
    for (std::size_t k = 0; k < procs.size(); ++k)
      for (const detail::Patch& patch : procs[k].patches)
        if (patch.name == patches[p]->name && !patch.processor)
          for (std::int64_t f = patch.start; f < patch.start + patch.size; ++f) faces.emplace_back(global_face(k, f), face_base[k] + f);
    std::stable_sort(faces.begin(), faces.end());
    std::vector<std::int64_t> joined;
    for (const auto& entry : faces) joined.push_back(entry.second);
    mesh.regions.push_back(make_region(patches[p]->name, RegionKind::Side, 2, static_cast<std::int64_t>(p),
                                       side_entries(result.cells, joined_sides, joined, NDArray())));
  }
  add_patch_lists(mesh, patches);
  // Zones of the same name joined over the processors (processor 0 gives their order).
  const auto zone_names = [&](auto member) {
    std::vector<std::string> names;
    for (const PolyMesh& p : procs)
      for (const detail::Zone& zone : p.*member)
        if (std::find(names.begin(), names.end(), zone.name) == names.end()) names.push_back(zone.name);
    return names;
  };
  const std::vector<std::string> cell_zone_names = zone_names(&PolyMesh::cell_zones);
  for (std::size_t z = 0; z < cell_zone_names.size(); ++z) {
    std::vector<std::int64_t> cells;
    for (std::size_t k = 0; k < procs.size(); ++k)
      for (const detail::Zone& zone : procs[k].cell_zones)
        if (zone.name == cell_zone_names[z])
          for (std::int64_t c : zone.labels.values<std::int64_t>()) cells.push_back(cell_maps[k].data_as<std::int64_t>()[c]);
    std::sort(cells.begin(), cells.end());
    mesh.regions.push_back(make_region(cell_zone_names[z], RegionKind::Cell, 3, static_cast<std::int64_t>(z),
                                       cell_entries(result.cells, cells)));
  }
  const std::vector<std::string> face_zone_names = zone_names(&PolyMesh::face_zones);
  for (std::size_t z = 0; z < face_zone_names.size(); ++z) {
    std::vector<std::pair<std::int64_t, std::int64_t>> faces;
    std::vector<std::uint8_t> flip_by_face;
    std::vector<std::tuple<std::int64_t, std::int64_t, std::uint8_t>> entries;  // (order key, joined face, flip)
    for (std::size_t k = 0; k < procs.size(); ++k)
      for (const detail::Zone& zone : procs[k].face_zones) {
        if (zone.name != face_zone_names[z]) continue;
        const auto labels = zone.labels.values<std::int64_t>();
        for (std::size_t i = 0; i < labels.size(); ++i) {
          const std::uint8_t flip = zone.flips.empty_handle() ? 0 : zone.flips.data_as<std::uint8_t>()[i];
          entries.emplace_back(global_face(k, labels[i]), face_base[k] + labels[i], flip);
        }
      }
    std::stable_sort(entries.begin(), entries.end());
    // A face on a processor boundary is in the zone on both sides: keep its first copy.
    std::vector<std::int64_t> joined;
    NDArray flips = NDArray::allocate(DType::uint8, {static_cast<std::int64_t>(entries.size())});
    std::int64_t kept = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i > 0 && std::get<0>(entries[i]) == std::get<0>(entries[i - 1]) && !procs.front().face_addressing.empty_handle()) continue;
      joined.push_back(std::get<1>(entries[i]));
      flips.data_as<std::uint8_t>()[kept++] = std::get<2>(entries[i]);
    }
    mesh.regions.push_back(make_region(face_zone_names[z], RegionKind::Side, 2, static_cast<std::int64_t>(patches.size() + z),
                                       side_entries(result.cells, joined_sides, joined, flips)));
  }
  const std::vector<std::string> point_zone_names = zone_names(&PolyMesh::point_zones);
  for (std::size_t z = 0; z < point_zone_names.size(); ++z) {
    std::vector<std::int64_t> points_in;
    for (std::size_t k = 0; k < procs.size(); ++k)
      for (const detail::Zone& zone : procs[k].point_zones)
        if (zone.name == point_zone_names[z])
          for (std::int64_t v : zone.labels.values<std::int64_t>()) points_in.push_back(point_maps[k].data_as<std::int64_t>()[v]);
    std::sort(points_in.begin(), points_in.end());
    points_in.erase(std::unique(points_in.begin(), points_in.end()), points_in.end());
    mesh.regions.push_back(make_region(point_zone_names[z], RegionKind::Point, 0, static_cast<std::int64_t>(z), int64_array(points_in)));
  }
  for (std::size_t k = 0; k < procs.size(); ++k) {
    CaseMesh::Part part;
    part.dir = layout.processors[k];
    part.num_cells = procs[k].num_cells;
    part.num_points = procs[k].points.rows();
    part.cell_map = cell_maps[k];
    part.point_map = point_maps[k];
    result.parts.push_back(std::move(part));
  }
  result.cells.forget_sides();  // the regions are made; fields need only the cell maps
  return result;
}

}  // namespace

CaseMesh assemble_case(const CaseLayout& layout) {
  return layout.mesh_dir.empty() ? assemble_decomposed(layout) : assemble_single(layout);
}

}  // namespace detail

bool is_case_directory(const std::string& path) noexcept {
  try {
    const fs::path dir(path);
    if (!is_dir(dir)) return false;
    if (is_poly_mesh_dir(dir) || is_poly_mesh_dir(dir / "constant" / "polyMesh")) return true;
    return is_poly_mesh_dir(dir / "processor0" / "constant" / "polyMesh");
  } catch (...) {
    return false;
  }
}

namespace {

// The latest time's fields (only those named, when `only` is given) on the assembled mesh.
Mesh read_case(const CaseLayout& layout, const std::vector<std::string>* only) {
  CaseMesh assembled = detail::assemble_case(layout);
  Mesh mesh = std::move(assembled.mesh);
  const std::vector<detail::TimeDir> times = detail::case_times(assembled);
  if (!times.empty()) {
    const detail::TimeDir& latest = times.back();
    detail::TimeFields fields = detail::read_time(assembled, latest.name, only);
    if (std::optional<NDArray> points = detail::points_at(assembled, times, times.size() - 1)) mesh.points = std::move(*points);
    for (auto& [name, values] : fields.point_data) mesh.point_data.set(name, std::move(values));
    for (auto& [name, values] : fields.cell_data) mesh.cell_data.set(name, std::move(values));
    mesh.field_data.set("openfoam:time", NDArray::from_values<double>({latest.value}));
  }
  return mesh;
}

// A points-only read of a single (not decomposed) case: the points of the newest time that
// moved them, else constant/polyMesh's, and the point zones; faces, owner, neighbour and the
// fields are never opened.
Mesh read_points_only(const CaseLayout& layout) {
  Mesh mesh;
  std::string points_dir = layout.mesh_dir;
  if (!layout.root.empty()) {
    const std::vector<detail::TimeDir> times = detail::time_directories(layout.root);
    for (auto time = times.rbegin(); time != times.rend(); ++time) {
      fs::path moved = fs::path(layout.root) / time->name;
      if (!layout.region.empty()) moved /= layout.region;
      moved /= "polyMesh";
      if (FoamFile::locate((moved / "points").string())) {
        points_dir = moved.string();
        break;
      }
    }
  }
  mesh.points = detail::read_points(points_dir, layout.note);
  const std::vector<detail::Zone> zones =
      read_zones(layout.mesh_dir, "pointZones", "pointLabels", mesh.points.rows(), "point", layout.note);
  for (std::size_t z = 0; z < zones.size(); ++z)
    mesh.regions.push_back(detail::make_region(zones[z].name, RegionKind::Point, 0, static_cast<std::int64_t>(z), zones[z].labels.copy()));
  return mesh;
}

}  // namespace

Mesh read(const std::string& path) { return read_case(detail::locate_case(path), nullptr); }

Mesh read_selected(const std::string& path, const ReadRequest& request) {
  const CaseLayout layout = detail::locate_case(path);
  const bool no_arrays = !request.arrays || request.arrays->empty();
  if (request.points_only && no_arrays && !layout.mesh_dir.empty()) return read_points_only(layout);
  // The field files not named are not opened; everything else of the mesh is read (the
  // registry narrows it as the request asks).
  return read_case(layout, request.arrays ? &*request.arrays : nullptr);
}

}  // namespace meshioplusplus::openfoam
