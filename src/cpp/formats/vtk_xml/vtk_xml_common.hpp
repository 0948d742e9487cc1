// Private to src/cpp/formats/vtk_xml: what the file kinds share above the DataArray layer —
// points and point data gathered over pieces, cell data sliced into blocks, piece files
// beside an index file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/vtk/vtk_xml_data.hpp"
#include "meshioplusplus/mesh.hpp"

namespace meshioplusplus::vtk_xml_detail {

using io::vtk_xml::ArrayInfo;
using io::vtk_xml::DataArrayReader;
using io::vtk_xml::Lifetime;
using io::vtk_xml::Piece;
using io::vtk_xml::Section;

// The source rows of one output block: a range, or (cells split into pieces) explicit rows.
struct RowSelection {
  std::int64_t first = 0;
  std::int64_t count = 0;
  std::vector<std::int64_t> rows;  // when not empty: these rows, in order
  std::int64_t size() const noexcept { return rows.empty() ? count : static_cast<std::int64_t>(rows.size()); }
};

// Rows of `data` picked by `selection`, as a new array (or `data` itself when it is all rows
// and `whole_is_shareable`). Copies bytes only (memcpy), so `data` may be an unaligned view.
NDArray take_rows(const NDArray& data, const RowSelection& selection, bool whole_is_shareable);

// The Points of every piece as one (n, 3) array: float32 when every piece is, else float64.
NDArray read_points(const DataArrayReader& reader, const std::vector<std::int64_t>& points_per_piece);
// Every PointData array of the first piece, gathered over the pieces (dtype widened when
// pieces disagree). Pieces without points may lack them.
void read_point_data(const DataArrayReader& reader, const std::vector<std::int64_t>& points_per_piece, Mesh& mesh);
// The CellData arrays of `piece` (`num_cells` rows) split into the blocks' selections and
// appended to mesh.cell_data; `reference` fixes the names all pieces must have.
void append_cell_data(const DataArrayReader& reader, const Piece& piece, std::int64_t num_cells,
                      const std::vector<RowSelection>& selections, const Piece& reference, Mesh& mesh);
// Adds `shift` to every index of the blocks (pieces number their points from 0).
void shift_point_indices(std::vector<CellBlock>& blocks, std::int64_t shift);

// A piece count attribute of <Piece> (NumberOfPoints, …); 0 when absent.
std::int64_t piece_count(const DataArrayReader& reader, const Piece& piece, std::string_view name);

// `file` (as an index file names it) against the folder of `index_path`.
std::string resolve_beside(const std::string& index_path, std::string_view file);
// Checks a file an index lists (`listed` as written, `resolved` as resolve_beside made it)
// before any reader opens it: one that is missing, cannot be looked up (a name too long, a
// symbolic link loop, no permission) or is not a regular file (a directory; a FIFO, whose open
// would wait for a writer; a device) is a ReadError naming `index_path` and `entry`
// ("<entry>: file '<listed>' not found (looked at <resolved>)" …).
void check_listed_file(const std::string& index_path, std::string_view format, const std::string& entry,
                       const std::string& listed, const std::string& resolved);
// "<folder of path>/<stem>" for piece files written beside an index; the stem is the file
// name without its last extension.
std::string stem_path(const std::string& path);
std::string file_name(const std::string& path);

// Concatenates meshes read from piece files into `into` (points, blocks, point/cell data).
// strict: point/cell data missing in some piece is a ReadError naming `index_path` and the
// piece (partitioned files); otherwise only the arrays every piece has are kept (multiblock).
void merge_piece(Mesh& into, Mesh piece, const std::string& index_path, const std::string& piece_file,
                 std::string_view format, bool first, bool strict);

// The cells `cells` (ascending block-major indices) with the points they use, renumbered in
// their original order; point and cell data sliced to match, field data kept.
// For writers (pieces, blocks): the arrays are scratch, not from the allocator hook, so pieces
// may be cut on several threads.
Mesh extract_cells(const Mesh& mesh, std::span<const std::int64_t> cells);

// The cells [first, last) of the block-major numbering, as extract_cells(mesh, {first, ...,
// last - 1}) gives them, for cutting a mesh into pieces. Rows that are taken whole — points,
// point data and cell data of a consecutive range, connectivity that needs no renumbering —
// are views into `mesh`, which must outlive the piece; only renumbered connectivity is new.
// A piece of a mesh whose pieces were appended (points numbered piece by piece) uses one
// consecutive run of points, so cutting it again copies nothing but shifted node numbers.
Mesh extract_cell_range(const Mesh& mesh, std::int64_t first, std::int64_t last);

// XML text for an index file: "<?xml ...?>\n<VTKFile type=... version=... byte_order=...>".
// VTK's multiblock reader takes version 1.0 as its current layout (0.x is the old group/
// dataset one); the other index files are 0.1.
std::string index_prologue(std::string_view type, std::string_view version = "0.1");

}  // namespace meshioplusplus::vtk_xml_detail
