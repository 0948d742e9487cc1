// VTK's XML file family beyond .vtu, on the shared DataArray layer (io/vtk/vtk_xml_data.hpp):
// every encoding, compressor, header type and byte order the VTU reader handles, here too.
// docs/vtk-xml.md describes what becomes what; each reader's header comment says it again.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus {

// PolyData (.vtp). Options as .vtu.
namespace vtp {
Mesh read(const std::string& path);
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// For a mesh already validated (the pieces of a .pvtp): its indices are not checked again.
void write_validated(const std::string& path, const Mesh& mesh, const WriteOptions& options);
}  // namespace vtp

// Structured grids: points + line/quad/hexahedron cells in VTK's point order; the extent
// (and for image data origin/spacing/direction) in field_data under "vtk:*" names.
namespace vts {
Mesh read(const std::string& path);
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
}  // namespace vts
namespace vtr {
Mesh read(const std::string& path);
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
}  // namespace vtr
namespace vti {
Mesh read(const std::string& path);
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
}  // namespace vti

// A structured read that leaves for later the geometry the file only implies, as VTK's own
// readers do: `mesh` holds the point, cell and field data (the extent, origin, spacing and
// direction under "vtk:*") and — .vts only — the points; never cells. `dims` counts points per
// axis (io::structured_grid_cells(dims) makes the cells); for .vtr, `axes` holds the x, y, z
// coordinates (float64) and `points_dtype` the dtype the points take (float32 when every
// stored coordinate array was). ImageData's points come from image_grid_points.
struct StructuredImplicitRead {
  Mesh mesh;
  std::array<std::int64_t, 3> dims{};
  std::array<NDArray, 3> axes;
  DType points_dtype = DType::float64;
};
// format: "vts", "vtr" or "vti".
StructuredImplicitRead read_structured_implicit(const std::string& path, std::string_view format);
// The points of ImageData over whole_extent: origin + direction · (index × spacing), float64,
// in VTK's order (x fastest).
NDArray image_grid_points(const std::array<std::int64_t, 6>& whole_extent, const std::array<double, 3>& origin,
                          const std::array<double, 3>& spacing, const std::array<double, 9>& direction);
// The points of a RectilinearGrid: every (x[i], y[j], z[k]), x fastest, as dtype (float32/64).
NDArray rectilinear_grid_points(const std::array<NDArray, 3>& axes, DType dtype);

// Partitioned files: the index (.pvtu/.pvtp) plus one file per piece. Reading merges every
// piece into one mesh (points of different pieces stay apart); writing splits the cells into
// `pieces` (option, default 1) contiguous ranges.
struct PartitionedReadOptions {
  // Read only this piece (0-based, in index order); none: every piece, appended.
  std::optional<std::size_t> piece;
  // Points at the same position (exact equality per coordinate, -0 == 0) become one, numbered
  // in order of first appearance; point data and Point regions keep the first's values.
  bool merge_points = false;
};
namespace pvtu {
Mesh read(const std::string& path);
// A piece index past the last is a ReadError naming the file, the index and the count.
Mesh read(const std::string& path, const PartitionedReadOptions& options);
// How many <Piece> entries the index lists (the piece files are not opened).
std::size_t num_pieces(const std::string& path);
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// For callers that have validated `mesh` (the registry).
void write_validated(const std::string& path, const Mesh& mesh, const WriteOptions& options);
}  // namespace pvtu
namespace pvtp {
Mesh read(const std::string& path);
Mesh read(const std::string& path, const PartitionedReadOptions& options);
std::size_t num_pieces(const std::string& path);
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// For callers that have validated `mesh` (the registry).
void write_validated(const std::string& path, const Mesh& mesh, const WriteOptions& options);
}  // namespace pvtp

// Multiblock (.vtm): every leaf dataset becomes part of one mesh, with a Cell region per
// dataset named by its block path. Writing makes one dataset per Cell region (or one for the
// whole mesh when it has none).
namespace vtm {
Mesh read(const std::string& path);
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
// A list of meshes, one dataset each, named by its block name (empty: "block<n>"): each is
// written whole (points, cells, point/cell/field data) to <stem>/<stem>_<n>.vtu. Options as
// .vtu. Block names must be distinct (a WriteError otherwise).
void write_blocks(const std::string& path, const std::vector<std::pair<std::string, Mesh>>& blocks,
                  const WriteOptions& options);
// Every leaf dataset as its own mesh, with its block path as name (the inverse of write_blocks).
std::vector<std::pair<std::string, Mesh>> read_blocks(const std::string& path);
}  // namespace vtm

// Time series (.pvd): a Collection of DataSet entries (timestep, group, part, file).
namespace pvd {
struct Step {
  double time = 0;
  std::string file;  // as resolved against the .pvd's folder
  std::string group;
  int part = 0;
};
// Every DataSet entry in file order.
std::vector<Step> read_entries(const std::string& path);
// (time, file) per distinct time step, ascending; the file of part 0 (the first listed) of
// each step.
std::vector<std::pair<double, std::string>> read_steps(const std::string& path);
// Every part listed at `time`, appended into one mesh, with field_data "pvd:time" (1,).
Mesh read_at_time(const std::string& path, double time);
// The first step's mesh (read_at_time of the smallest time).
Mesh read(const std::string& path);
// One step: the mesh written beside the .pvd (folder <stem>/, file <stem>_0.vtu) and a
// collection naming it at time 0 (option `time`).
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options);
}  // namespace pvd

}  // namespace meshioplusplus
