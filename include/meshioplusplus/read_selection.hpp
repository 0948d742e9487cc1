// Floor 1 interface: reading less than the whole file, and knowing a file without reading it.
//
// A ReadRequest narrows a read: only the points, only some data arrays, only some cell types,
// one time step. Every format honours every request: formats whose layout lets them skip bytes
// (FormatInfo::read_selected) never touch what was not asked for; the others read the file and
// drop the rest, so the answer is the same subset of the full read either way (docs/read-less.md).
//
// read_metadata() summarises a file: counts, cell blocks, arrays, regions, steps. Formats with
// a header that states these (FormatInfo::read_metadata) answer without reading the arrays
// (MeshMetadata::header_only); the others are read once and summarised.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus {

struct ReadRequest {
  // The points and nothing else of the mesh: no cells, no data (unless `arrays` names point
  // data), no cell or side regions. Point regions are kept.
  bool points_only = false;
  // The data arrays (point, cell and field data, by name) to keep; nullopt keeps all, an empty
  // list none. A name the file does not hold is std::invalid_argument naming it.
  std::optional<std::vector<std::string>> arrays;
  // The cell types (core names: "tetra", "triangle", "polygon" …) to keep; nullopt keeps all.
  // Points are kept whole (indices stay valid); cell data and Cell/Side regions follow the kept
  // blocks in block-major order. A type the file does not hold is std::invalid_argument.
  std::optional<std::vector<std::string>> cell_types;
  // The step of a file with steps (negative counts from the end). The mesh is the file's with
  // that step's data. A format without steps holds one: 0 and -1 read it, anything else is
  // std::invalid_argument.
  std::optional<std::int64_t> time_step;

  bool reads_everything() const noexcept {
    return !points_only && !arrays && !cell_types && !time_step;
  }
};

enum class DataAssociation : int { point = 0, cell = 1, field = 2 };

struct ArraySummary {
  std::string name;
  DataAssociation association = DataAssociation::point;
  DType dtype = DType::float64;
  // Rows (points, cells of all blocks, or field entries) then the components.
  std::vector<std::int64_t> shape;
};

struct CellBlockSummary {
  std::string type;
  std::int64_t count = 0;
};

struct RegionSummary {
  std::string name;
  RegionKind kind = RegionKind::Cell;
  int dim = -1;
  std::int64_t tag = -1;
  std::int64_t count = -1;  // -1: the header does not say
};

struct MeshMetadata {
  std::string format;
  std::string variant;  // "ascii", "binary", "appended raw", "4.1 binary" … where it matters
  std::int64_t num_points = 0;
  int point_dim = 3;
  std::vector<CellBlockSummary> cell_blocks;
  std::vector<ArraySummary> arrays;
  std::vector<RegionSummary> regions;
  std::vector<double> times;  // one per step; empty for a file without steps
  std::optional<std::array<double, 6>> bounds;  // xmin ymin zmin xmax ymax zmax, where stated
  bool header_only = false;  // false: the file was read in full to answer

  std::int64_t num_cells() const noexcept {
    std::int64_t total = 0;
    for (const CellBlockSummary& block : cell_blocks) total += block.count;
    return total;
  }
};

// read(path, format) narrowed by `request`. Unknown format → ReadError; bad request →
// std::invalid_argument naming what was asked and what the file has.
Mesh read(const std::string& path, std::string_view format, const ReadRequest& request);

MeshMetadata read_metadata(const std::string& path, std::string_view format = {});

// The generic halves, for readers and for meshes read elsewhere (Python readers):
// `mesh` narrowed as `request` asks (not time_step, which needs the file). `source` names the
// file in errors.
void apply_read_request(Mesh& mesh, const ReadRequest& request, std::string_view source);
// A summary of a mesh in memory (header_only false; bounds computed from the points).
MeshMetadata summarize(const Mesh& mesh, std::string_view format);
// Throws std::invalid_argument when `request.arrays` names an array not in `available`.
void check_requested_arrays(const ReadRequest& request, const std::vector<std::string>& available,
                            std::string_view source);

}  // namespace meshioplusplus
