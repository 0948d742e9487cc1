// OpenFOAM polyMesh writer: a case directory at `path` (or, for a path ending in ".foam", the
// directory holding it, with that empty marker file written too, as ParaView opens cases) with
//
//   constant/polyMesh/points     vectorField    the points (3-D only; float32 written as double)
//   constant/polyMesh/faces      faceList       (binary: faceCompactList, offsets then nodes)
//   constant/polyMesh/owner      labelList      note "nPoints:.. nCells:.. nFaces:.. nInternalFaces:.."
//   constant/polyMesh/neighbour  labelList      internal faces only
//   constant/polyMesh/boundary   polyBoundaryMesh  one patch per boundary face group
//   constant/polyMesh/cellZones, pointZones     Cell and Point regions, when there are any
//   0/<name>                     cell data as vol*Field, point data as point*Field (writer_fields)
//
// Faces come from io::faces_from_cells (unique faces, owner < neighbour, upper-triangular
// order, each oriented out of its owner, boundary faces grouped by patch): what OpenFOAM's
// checkMesh asks of a mesh. Volume cells are the top-dimensional blocks (tetra, pyramid,
// wedge, hexahedron, polyhedron); lower-dimensional blocks (Gmsh's boundary triangles) are no
// cells of the case, but their Cell regions of dimension D-1 become Side regions
// (derive_side_regions) and so patches. Higher-order cells are refused (OpenFOAM is linear;
// dropping mid-nodes would silently change the geometry); so are 2-D meshes (OpenFOAM needs
// one layer of 3-D cells: extrude first).
//
// Patches: every Side region, in region order (its entries' faces; a face named by two
// regions goes to the first), typed from string_field_data "openfoam:patch_names" /
// "openfoam:patch_types" (what the reader records), else "patch"; boundary faces on no Side
// region go to a last patch "defaultFaces" of type "patch" (OpenFOAM's own default for it,
// "empty", is only valid for 2-D cases and would make a 3-D case fail). Names are OpenFOAM
// words: characters OpenFOAM does not allow in a word become '_'.
//
// Options: binary (default false): binary lists with the header's arch "LSB;label=32;scalar=64"
// (label=64 when a count passes 2^31 - 1), the dictionaries (boundary) in text as OpenFOAM does.
//
// Crash safety: the polyMesh directory is written complete into a temporary sibling
// (constant/.polyMesh.tmp-XXXXXX, each file through AtomicFile) and then put in place in one
// step (Linux renameat2 RENAME_EXCHANGE with an existing polyMesh, whose old copy is then
// removed; a rename where there is none), so a failed write leaves an existing mesh whole.
// The fields in 0/ are written after that, each file atomically, so other files of a time
// directory (a case's own boundary conditions) stay.
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>

#include "formats/openfoam/openfoam.hpp"
#include "formats/openfoam/openfoam_writer_internal.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/side_regions.hpp"

namespace meshioplusplus::openfoam {
namespace writing {

FoamFile::FoamFile(const std::string& path, const Encoding& encoding, std::string_view class_name,
                   std::string_view location, std::string_view object, std::string_view note)
    : file_(path, kFormat), out_(file_), encoding_(encoding) {
  out_.text("/*--------------------------------*- C++ -*----------------------------------*\\\n"
            "  Written by meshio++ (OpenFOAM polyMesh format)\n"
            "\\*---------------------------------------------------------------------------*/\n"
            "FoamFile\n{\n    version     2.0;\n    format      ");
  out_.text(encoding.binary ? "binary" : "ascii");
  out_.text(";\n    arch        \"");
  out_.text(std::endian::native == std::endian::little ? "LSB" : "MSB");
  out_.text(encoding.label_bytes == 8 ? ";label=64;scalar=64\";\n" : ";label=32;scalar=64\";\n");
  out_.text("    class       ");
  out_.text(class_name);
  out_.text(";\n");
  if (!note.empty()) {
    out_.text("    note        \"");
    out_.text(note);
    out_.text("\";\n");
  }
  out_.text("    location    \"");
  out_.text(location);
  out_.text("\";\n    object      ");
  out_.text(object);
  out_.text(";\n}\n// * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * //\n\n");
}

void FoamFile::labels(std::span<const std::int64_t> values) {
  out_.number(static_cast<std::int64_t>(values.size()));
  if (values.empty()) {
    out_.text("()\n");
    return;
  }
  if (!encoding_.binary) {
    out_.text("\n(\n");
    for (const std::int64_t value : values) {
      out_.number(value);
      out_.put('\n');
    }
    out_.text(")\n");
    return;
  }
  out_.put('\n');
  out_.put('(');
  if (encoding_.label_bytes == 8) {
    out_.bytes(values.data(), values.size_bytes());
  } else {
    std::int32_t chunk[4096];
    for (std::size_t done = 0; done < values.size();) {
      const std::size_t count = std::min<std::size_t>(values.size() - done, 4096);
      for (std::size_t i = 0; i < count; ++i) chunk[i] = static_cast<std::int32_t>(values[done + i]);
      out_.bytes(chunk, count * sizeof(std::int32_t));
      done += count;
    }
  }
  out_.text(")\n");
}

void FoamFile::bools(std::span<const std::int64_t> values) {
  out_.number(static_cast<std::int64_t>(values.size()));
  if (values.empty()) {
    out_.text("()\n");
    return;
  }
  out_.text("\n(");
  for (const std::int64_t value : values) {
    if (encoding_.binary) {  // one byte each, as OpenFOAM's binary List<bool>
      const char byte = value != 0 ? 1 : 0;
      out_.bytes(&byte, 1);
    } else {
      out_.put('\n');
      out_.put(value != 0 ? '1' : '0');
    }
  }
  out_.text(encoding_.binary ? ")\n" : "\n)\n");
}

void FoamFile::scalars(std::int64_t count, int width, const double* values) {
  out_.number(count);
  if (count == 0) {
    out_.text("()\n");
    return;
  }
  if (encoding_.binary) {
    out_.text("\n(");
    out_.bytes(values, static_cast<std::size_t>(count) * static_cast<std::size_t>(width) * sizeof(double));
    out_.text(")\n");
    return;
  }
  out_.text("\n(\n");
  for (std::int64_t i = 0; i < count; ++i) {
    const double* row = values + i * width;
    if (width > 1) out_.put('(');
    for (int k = 0; k < width; ++k) {
      if (k > 0) out_.put(' ');
      out_.number(row[k]);
    }
    out_.text(width > 1 ? ")\n" : "\n");
  }
  out_.text(")\n");
}

void FoamFile::commit() {
  out_.flush();
  file_.commit();
}

std::string foam_word(std::string_view name, std::string_view fallback) {
  std::string word(name.empty() ? fallback : name);
  for (char& c : word) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= ' ' || byte >= 0x7f || std::strchr("\"'(){};/\\$#", c) != nullptr) c = '_';
  }
  return word;
}

}  // namespace writing

namespace {

using writing::Encoding;
using writing::foam_word;
using writing::FoamFile;
using writing::kFormat;
using writing::Patch;

std::string random_suffix() {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::mt19937_64 generator{std::random_device{}()};
  std::string letters(6, 'x');
  for (char& c : letters) c = kLetters[generator() % (sizeof kLetters - 1)];
  return letters;
}

// The mesh's Side regions, then those derive_side_regions makes of boundary Cell regions (Gmsh
// physical surfaces beside tetrahedra); `derived` counts the latter, at the end.
std::vector<Region> side_regions_of(const Mesh& mesh, std::size_t& derived) {
  Mesh view;  // NDArrays share their buffers: nothing is copied
  view.points = mesh.points;
  view.cells = mesh.cells;
  view.regions = mesh.regions;
  const std::size_t before = view.regions.size();
  derive_side_regions(view);
  derived = view.regions.size() - before;
  std::vector<Region> sides;
  for (Region& region : view.regions)
    if (region.kind == RegionKind::Side) sides.push_back(std::move(region));
  return sides;
}

const std::vector<std::string>* string_list(const Mesh& mesh, std::string_view name) {
  return mesh.string_field_data.find(name);
}

// The entry of `key` ("openfoam:patch_types" …) for the patch `name`, as the reader records them.
std::string patch_entry(const Mesh& mesh, std::string_view key, const std::string& name) {
  const auto* names = string_list(mesh, "openfoam:patch_names");
  const auto* values = string_list(mesh, key);
  if (names != nullptr && values != nullptr)
    for (std::size_t i = 0; i < names->size() && i < values->size(); ++i)
      if ((*names)[i] == name) return (*values)[i];
  return {};
}

class CaseWriter {
 public:
  CaseWriter(const std::string& path, const Mesh& mesh, bool binary) : path_(path), mesh_(mesh) {
    encoding_.binary = binary;
  }

  void write() {
    namespace fs = std::filesystem;
    if (mesh_.points.ndim() != 2 || mesh_.points.dim(1) != 3)
      fail("OpenFOAM points are 3-D; the mesh's have " +
           std::to_string(mesh_.points.ndim() == 2 ? mesh_.points.dim(1) : 0) + " coordinates");
    build_topology();
    build_patches();

    std::string case_directory = path_, marker;
    if (path_.size() > 5 && path_.compare(path_.size() - 5, 5, ".foam") == 0) {
      marker = path_;
      const fs::path parent = fs::path(path_).parent_path();
      case_directory = parent.empty() ? "." : parent.string();
    }
    const fs::path constant = fs::path(case_directory) / "constant";
    std::error_code error;
    fs::create_directories(constant, error);
    if (error) fail("cannot create " + constant.string() + ": " + error.message());

    const fs::path temporary = constant / (".polyMesh.tmp-" + random_suffix());
    if (!fs::create_directory(temporary, error) || error)
      fail("cannot create " + temporary.string() + ": " + (error ? error.message() : "it exists"));
    try {
      write_mesh_files(temporary.string() + "/");
    } catch (...) {
      fs::remove_all(temporary, error);
      throw;
    }
    put_in_place(temporary, constant / "polyMesh");

    if (!mesh_.point_data.empty() || !mesh_.cell_data.empty()) {
      const fs::path zero = fs::path(case_directory) / "0";
      fs::create_directories(zero, error);
      if (error) fail("cannot create " + zero.string() + ": " + error.message());
      writing::write_fields(zero.string() + "/", mesh_, topology_, patches_, encoding_);
    }
    if (!marker.empty()) {
      io::AtomicFile file(marker, kFormat);
      file.commit();
    }
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw WriteError(path_, std::string(kFormat), message); }

  void build_topology() {
    // Every Side region is a patch, except where the mesh lists its patches
    // ("openfoam:patch_names", as the reader records them): the mesh's Side regions not listed
    // there are face zones. Those derived from boundary Cell regions are patches.
    std::size_t derived = 0;
    std::vector<Region> sides = side_regions_of(mesh_, derived);
    const auto* listed = string_list(mesh_, "openfoam:patch_names");
    for (std::size_t r = 0; r < sides.size(); ++r) {
      const bool is_patch = listed == nullptr || r + derived >= sides.size() ||
                            std::find(listed->begin(), listed->end(), sides[r].name) != listed->end();
      (is_patch ? sides_ : face_zones_).push_back(std::move(sides[r]));
    }
    io::FacesFromCellsInput input;
    input.blocks = mesh_.cells;
    for (const Region& side : sides_) input.boundary_groups.push_back(side.entries.values<std::int64_t>());
    try {
      topology_ = io::faces_from_cells(input);
    } catch (const std::invalid_argument& error) {
      fail(error.what());
    }
    if (topology_.dimension != 3)
      fail("OpenFOAM meshes are 3-D (a 2-D case is one layer of 3-D cells with 'empty' front and back patches); "
           "this mesh's cells are 2-D: extrude it first");
    constexpr auto kLabelMax = std::int64_t{std::numeric_limits<std::int32_t>::max()};
    if (mesh_.num_points() > kLabelMax || topology_.num_faces() >= kLabelMax ||
        static_cast<std::int64_t>(topology_.face_nodes.size()) >= kLabelMax)
      encoding_.label_bytes = 8;
  }

  void build_patches() {
    std::vector<std::string> taken;
    const auto unique = [&](std::string name) {
      const std::string base = name;
      for (int n = 1; std::find(taken.begin(), taken.end(), name) != taken.end(); ++n) name = base + "_" + std::to_string(n);
      taken.push_back(name);
      return name;
    };
    for (std::size_t g = 0; g < sides_.size(); ++g) {
      Patch patch;
      patch.name = unique(foam_word(sides_[g].name, "patch" + std::to_string(g)));
      patch.type = foam_word(patch_entry(mesh_, "openfoam:patch_types", sides_[g].name), "patch");
      patch.groups = patch_entry(mesh_, "openfoam:patch_groups", sides_[g].name);
      patch.start = topology_.group_starts[g];
      patch.size = topology_.group_starts[g + 1] - patch.start;
      patches_.push_back(std::move(patch));
    }
    const std::int64_t rest_start = topology_.group_starts[sides_.size()];
    const std::int64_t rest = topology_.group_starts[sides_.size() + 1] - rest_start;
    if (rest > 0) patches_.push_back({unique("defaultFaces"), "patch", rest_start, rest});
  }

  void write_mesh_files(const std::string& directory) {
    constexpr std::string_view kLocation = "constant/polyMesh";
    {
      FoamFile file(directory + "points", encoding_, "vectorField", kLocation, "points");
      const std::int64_t count = mesh_.num_points();
      std::vector<double> values(static_cast<std::size_t>(count) * 3);
      visit_dtype(mesh_.points.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const T* source = mesh_.points.data_as<T>();
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(source[i]);
      });
      file.scalars(count, 3, values.data());
      file.commit();
    }
    write_faces(directory);
    const std::string note = "nPoints:" + std::to_string(mesh_.num_points()) + "  nCells:" +
                             std::to_string(topology_.num_cells()) + "  nFaces:" + std::to_string(topology_.num_faces()) +
                             "  nInternalFaces:" + std::to_string(topology_.num_internal_faces);
    {
      FoamFile file(directory + "owner", encoding_, "labelList", kLocation, "owner", note);
      file.labels(topology_.owner);
      file.commit();
    }
    {
      FoamFile file(directory + "neighbour", encoding_, "labelList", kLocation, "neighbour", note);
      file.labels(std::span(topology_.neighbour).first(static_cast<std::size_t>(topology_.num_internal_faces)));
      file.commit();
    }
    write_boundary(directory);
    write_zones(directory);
  }

  void write_faces(const std::string& directory) {
    if (encoding_.binary) {  // OpenFOAM's binary faces: a faceCompactList, offsets then nodes
      FoamFile file(directory + "faces", encoding_, "faceCompactList", "constant/polyMesh", "faces");
      file.labels(topology_.face_offsets);
      file.out().put('\n');
      file.labels(topology_.face_nodes);
      file.commit();
      return;
    }
    FoamFile file(directory + "faces", encoding_, "faceList", "constant/polyMesh", "faces");
    io::OutputBuffer& out = file.out();
    const std::int64_t count = topology_.num_faces();
    out.number(count);
    out.text("\n(\n");
    for (std::int64_t f = 0; f < count; ++f) {
      const std::int64_t begin = topology_.face_offsets[static_cast<std::size_t>(f)];
      const std::int64_t end = topology_.face_offsets[static_cast<std::size_t>(f) + 1];
      out.number(end - begin);
      out.put('(');
      for (std::int64_t i = begin; i < end; ++i) {
        if (i > begin) out.put(' ');
        out.number(topology_.face_nodes[static_cast<std::size_t>(i)]);
      }
      out.text(")\n");
    }
    out.text(")\n");
    file.commit();
  }

  void write_boundary(const std::string& directory) {
    // A dictionary: text in both formats, as OpenFOAM writes it.
    FoamFile file(directory + "boundary", encoding_, "polyBoundaryMesh", "constant/polyMesh", "boundary");
    io::OutputBuffer& out = file.out();
    out.number(static_cast<std::int64_t>(patches_.size()));
    out.text("\n(\n");
    for (const Patch& patch : patches_) {
      out.text("    ");
      out.text(patch.name);
      out.text("\n    {\n        type            ");
      out.text(patch.type);
      out.text(";\n");
      // inGroups: as the mesh records them, else the group OpenFOAM gives the constraint types.
      std::vector<std::string> groups;
      for (std::size_t at = 0; at < patch.groups.size();) {
        const std::size_t end = std::min(patch.groups.find(' ', at), patch.groups.size());
        if (end > at) groups.push_back(foam_word(patch.groups.substr(at, end - at), "group"));
        at = end + 1;
      }
      if (groups.empty() && (patch.type == "wall" || patch.type == "empty" || patch.type == "symmetry" ||
                             patch.type == "symmetryPlane" || patch.type == "wedge"))
        groups.push_back(patch.type);
      if (!groups.empty()) {
        out.text("        inGroups        List<word> ");
        out.number(static_cast<std::int64_t>(groups.size()));
        out.put('(');
        for (std::size_t i = 0; i < groups.size(); ++i) {
          if (i > 0) out.put(' ');
          out.text(groups[i]);
        }
        out.text(");\n");
      }
      out.text("        nFaces          ");
      out.number(patch.size);
      out.text(";\n        startFace       ");
      out.number(patch.start);
      out.text(";\n    }\n");
    }
    out.text(")\n");
    file.commit();
  }

  // cellZones from Cell regions (their volume cells; regions with none are left out) and
  // pointZones from Point regions.
  void write_zones(const std::string& directory) {
    std::vector<std::int64_t> volume_of_block_major(static_cast<std::size_t>(mesh_.num_cells()), -1);
    for (std::size_t v = 0; v < topology_.volume_cells.size(); ++v)
      volume_of_block_major[static_cast<std::size_t>(topology_.volume_cells[v])] = static_cast<std::int64_t>(v);
    write_face_zones(directory, volume_of_block_major);
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> cell_zones, point_zones;
    for (const Region& region : mesh_.regions) {
      if (region.kind == RegionKind::Cell) {
        std::vector<std::int64_t> cells;
        for (const std::int64_t cell : region.entries.values<std::int64_t>())
          if (cell >= 0 && cell < mesh_.num_cells() && volume_of_block_major[static_cast<std::size_t>(cell)] >= 0)
            cells.push_back(volume_of_block_major[static_cast<std::size_t>(cell)]);
        if (!cells.empty()) cell_zones.emplace_back(foam_word(region.name, "cellZone"), std::move(cells));
      } else if (region.kind == RegionKind::Point) {
        const auto points = region.entries.values<std::int64_t>();
        point_zones.emplace_back(foam_word(region.name, "pointZone"), std::vector<std::int64_t>(points.begin(), points.end()));
      }
    }
    write_zone_file(directory, "cellZones", "cellZone", "cellLabels", cell_zones);
    write_zone_file(directory, "pointZones", "pointZone", "pointLabels", point_zones);
  }

  void write_zone_file(const std::string& directory, std::string_view object, std::string_view type,
                       std::string_view key, const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& zones) {
    if (zones.empty()) return;
    FoamFile file(directory + std::string(object), encoding_, "regIOobject", "constant/polyMesh", object);
    io::OutputBuffer& out = file.out();
    out.number(static_cast<std::int64_t>(zones.size()));
    out.text("\n(\n");
    for (const auto& [name, labels] : zones) {
      out.text(name);
      out.text("\n{\n    type ");
      out.text(type);
      out.text(";\n");
      out.text(key);
      out.text(" List<label> ");
      file.labels(labels);
      out.text(";\n}\n");
    }
    out.text(")\n");
    file.commit();
  }

  // faceZones from the Side regions that are no patches: a pair on a face's owner side is the
  // face, one on its neighbour side the face flipped (flipMap 1), as OpenFOAM orients zones.
  void write_face_zones(const std::string& directory, const std::vector<std::int64_t>& volume_of_block_major) {
    if (face_zones_.empty()) return;
    // Each volume cell's facets, numbered as faces_from_cells numbered them: (cell, facet) -> face.
    std::vector<std::int64_t> first(static_cast<std::size_t>(topology_.num_cells()) + 1, 0);
    for (std::int64_t f = 0; f < topology_.num_faces(); ++f) {
      ++first[static_cast<std::size_t>(topology_.owner[f]) + 1];
      if (topology_.neighbour[f] >= 0) ++first[static_cast<std::size_t>(topology_.neighbour[f]) + 1];
    }
    for (std::size_t c = 1; c < first.size(); ++c) first[c] += first[c - 1];
    std::vector<std::int64_t> face_of_side(static_cast<std::size_t>(first.back()), -1);  // -2 - f: flipped
    for (std::int64_t f = 0; f < topology_.num_faces(); ++f) {
      face_of_side[static_cast<std::size_t>(first[topology_.owner[f]] + topology_.owner_facet[f])] = f;
      if (topology_.neighbour[f] >= 0)
        face_of_side[static_cast<std::size_t>(first[topology_.neighbour[f]] + topology_.neighbour_facet[f])] = -2 - f;
    }
    FoamFile file(directory + "faceZones", encoding_, "regIOobject", "constant/polyMesh", "faceZones");
    io::OutputBuffer& out = file.out();
    out.number(static_cast<std::int64_t>(face_zones_.size()));
    out.text("\n(\n");
    for (std::size_t z = 0; z < face_zones_.size(); ++z) {
      std::vector<std::int64_t> faces, flips;
      const auto pairs = face_zones_[z].entries.values<std::int64_t>();
      for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
        if (pairs[i] < 0 || pairs[i] >= mesh_.num_cells()) continue;
        const std::int64_t cell = volume_of_block_major[static_cast<std::size_t>(pairs[i])];
        if (cell < 0 || pairs[i + 1] < 0 || pairs[i + 1] >= first[cell + 1] - first[cell]) continue;
        const std::int64_t face = face_of_side[static_cast<std::size_t>(first[cell] + pairs[i + 1])];
        faces.push_back(face >= 0 ? face : -2 - face);
        flips.push_back(face >= 0 ? 0 : 1);
      }
      out.text(foam_word(face_zones_[z].name, "faceZone" + std::to_string(z)));
      out.text("\n{\n    type faceZone;\nfaceLabels List<label> ");
      file.labels(faces);
      out.text(";\nflipMap List<bool> ");
      file.bools(flips);
      out.text(";\n}\n");
    }
    out.text(")\n");
    file.commit();
  }

  // Replaces `target` (a directory, maybe absent) with the finished `temporary` in one step.
  void put_in_place(const std::filesystem::path& temporary, const std::filesystem::path& target) {
    namespace fs = std::filesystem;
    std::error_code error;
    struct stat existing {};
    const bool exists = ::lstat(target.c_str(), &existing) == 0;
    if (exists && !S_ISDIR(existing.st_mode)) {
      fs::remove_all(temporary, error);
      fail(target.string() + " exists and is not a directory");
    }
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    if (exists && ::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(temporary, error);  // the previous mesh; failing to remove it loses nothing
      return;
    }
#endif
    if (exists) {  // no exchange: move the old one aside, then the new one in
      const fs::path old = target.parent_path() / (".polyMesh.old-" + random_suffix());
      fs::rename(target, old, error);
      if (error) {
        fs::remove_all(temporary, error);
        fail("cannot move the existing " + target.string() + " aside");
      }
      fs::rename(temporary, target, error);
      if (error) {
        fs::rename(old, target, error);
        fs::remove_all(temporary, error);
        fail("cannot move the new polyMesh into " + target.string());
      }
      fs::remove_all(old, error);
      return;
    }
    fs::rename(temporary, target, error);
    if (error) {
      const std::string message = error.message();
      fs::remove_all(temporary, error);
      fail("cannot move the new polyMesh into " + target.string() + ": " + message);
    }
  }

  const std::string& path_;
  const Mesh& mesh_;
  Encoding encoding_;
  std::vector<Region> sides_;       // patches, in order
  std::vector<Region> face_zones_;  // the mesh's Side regions that are not patches
  io::FaceTopology topology_;
  std::vector<Patch> patches_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  bool binary = false;
  try {
    binary = options.get_bool("binary", false);
  } catch (const std::invalid_argument& error) {
    throw WriteError(path, std::string(kFormat), error.what());
  }
  CaseWriter(path, mesh, binary).write();
}

}  // namespace meshioplusplus::openfoam
