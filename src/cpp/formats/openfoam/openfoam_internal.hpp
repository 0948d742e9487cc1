// What the OpenFOAM reader's files share (openfoam_reader.cpp: the case and its mesh;
// openfoam_reader_fields.cpp: time directories; openfoam_reader_series.cpp: the time series).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/openfoam/openfoam_parse.hpp"
#include "io/cells/cells_from_faces.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::openfoam::detail {

struct Patch {
  std::string name;
  std::string type;
  std::int64_t start = 0;
  std::int64_t size = 0;
  std::vector<std::string> groups;  // inGroups
  bool processor = false;           // type processor / processorCyclic: faces shared with another processor
};

struct Zone {
  std::string name;
  NDArray labels;  // int64: cells, faces or points of the zone
  NDArray flips;   // uint8 per face (faceZones with a flipMap), else an empty handle
};

// One polyMesh directory as its files hold it.
struct PolyMesh {
  std::string dir;
  NDArray points;  // float64 (n, 3)
  Faces faces;
  NDArray owner;      // int64 (faces)
  NDArray neighbour;  // int64 (internal faces)
  std::int64_t num_cells = 0;
  std::vector<Patch> patches;
  std::vector<Zone> cell_zones, face_zones, point_zones;
  // decomposePar's maps of a processor's mesh (empty handles when the files are absent):
  // global point / cell of each local one, and ±(global face + 1) of each local face.
  NDArray point_addressing, cell_addressing, face_addressing;
};

// Reads `dir` (points, faces, owner, neighbour, boundary; zones and *ProcAddressing when
// present) and checks that the files agree (sizes, labels in range). `note` ends messages.
// `cell_zones` false: cellZones is left for the caller (read_cell_zones), to be read once the
// cells are built (a zone of every cell is as large as the cell list; not held while building).
PolyMesh read_poly_mesh(const std::string& dir, const std::string& note, bool cell_zones = true);
std::vector<Zone> read_cell_zones(const std::string& dir, std::int64_t num_cells, const std::string& note);
// Only the points file of a polyMesh directory (a moving mesh's per-time points).
NDArray read_points(const std::string& dir, const std::string& note);

// Where a case is, from the path a user gives (case directory, *.foam file in it, or a
// polyMesh directory; see openfoam.hpp).
struct CaseLayout {
  std::string entry;     // the path as given
  std::string root;      // the case directory ("" when a bare polyMesh directory was given)
  std::string mesh_dir;  // the polyMesh directory read (empty: a decomposed case without one)
  std::string region;    // a region of a multi-region case ("" for the single region)
  std::vector<std::string> processors;  // processorN directories by N (decomposed case only)
  std::string note;      // " (case …)", ending every error message
};
CaseLayout locate_case(const std::string& path);

struct TimeDir {
  std::string name;
  double value = 0;
};
// The subdirectories of `dir` named by a number ("0", "0.05", "1e-05"), by ascending value.
std::vector<TimeDir> time_directories(const std::string& dir);

// The mesh of a case, assembled from its polyMesh (or its processors' polyMesh directories),
// with what fields need to land on it.
struct CaseMesh {
  Mesh mesh;  // points, cells, regions, string field data: no point or cell data
  io::FaceCells cells;
  // The directories whose time directories hold the fields: the case (or the polyMesh's case)
  // once, or every processor. Per part, the whole mesh's cell / point of each of its own
  // (empty handles: the part is the whole mesh, identity).
  struct Part {
    std::string dir;
    std::int64_t num_cells = 0;
    std::int64_t num_points = 0;
    NDArray cell_map;
    NDArray point_map;
  };
  std::vector<Part> parts;
  std::string region;
  std::string note;
};
CaseMesh assemble_case(const CaseLayout& layout);

// The fields (vol*Field → cell data split over the blocks, point*Field → point data) of time
// directory `time` in every part.
struct TimeFields {
  NamedList<NDArray> point_data;
  NamedList<std::vector<NDArray>> cell_data;
};
// `only`: the field names to read (the other files are not opened); null reads every field.
TimeFields read_time(const CaseMesh& mesh, const std::string& time, const std::vector<std::string>* only = nullptr);
// A moving mesh's points at `time` (its <time>/polyMesh/points), nullopt where it has none.
std::optional<NDArray> moved_points(const CaseMesh& mesh, const std::string& time);
// The points at step `step` of `times`: those of the newest time up to it that moved them (as
// OpenFOAM finds a mesh's instance), nullopt when none did (constant/polyMesh's).
std::optional<NDArray> points_at(const CaseMesh& mesh, const std::vector<TimeDir>& times, std::size_t step);

// The time directories of a case: of its root, or of its first processor (decomposed).
std::vector<TimeDir> case_times(const CaseMesh& mesh);

}  // namespace meshioplusplus::openfoam::detail
