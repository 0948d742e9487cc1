// VTK XML partitioned files: PUnstructuredGrid (.pvtu) and PPolyData (.pvtp), read and write.
//
// What the format holds: a small index — the arrays' names, types and component counts
// (PPointData, PCellData, PPoints) and one <Piece Source="file"/> per partition — beside the
// piece files, each a complete .vtu/.vtp.
//
// What becomes what on read: every piece is read with the .vtu/.vtp reader and appended to
// one mesh: points concatenated (points shared by two pieces stay apart, as in the files),
// cells of each piece as their own blocks, point/cell data concatenated (every piece must
// have every array), field data from the first piece. A missing piece file, or one lacking an
// array the first has, is a ReadError naming the index file and the piece.
// PartitionedReadOptions: `piece` reads that one piece only (an index past the last is a
// ReadError naming the file, the index and the count); `merge_points` makes points at the same
// position one point (exact equality per coordinate, -0 == 0, as STL corners are welded),
// numbered in order of first appearance; point data and Point regions follow the first.
//
// Writing splits the cells into `pieces` (option, default 1) contiguous ranges of the
// block-major cell numbering; each piece holds its cells and the points they use, renumbered
// in order, and is written as <stem>_<n>.vtu/.vtp beside the index (same options as .vtu).
#include <charconv>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <system_error>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/vtk_xml/vtk_xml.hpp"
#include "formats/vtk_xml/vtk_xml_common.hpp"
#include "io/source/parallel.hpp"
#include "formats/vtu/vtu.hpp"
#include "io/output/atomic_file.hpp"
#include "io/cells/coordinate_welder.hpp"
#include "io/source/mapped_file.hpp"
#include "io/source/read_limits.hpp"
#include "io/text/xml_scanner.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus {
namespace {

using namespace vtk_xml_detail;

struct ParallelKind {
  std::string_view format;       // "pvtu"
  std::string_view type;         // "PUnstructuredGrid"
  std::string_view piece_extension;  // ".vtu"
  Mesh (*read_piece)(const std::string&);
  void (*write_piece)(const std::string&, const Mesh&, const WriteOptions&);
};

// Pieces are written by the *_validated writers: the mesh is validated once, before the cut.
const ParallelKind kPvtu{"pvtu", "PUnstructuredGrid", ".vtu", vtu::read, vtu::write_validated};
const ParallelKind kPvtp{"pvtp", "PPolyData", ".vtp", vtp::read, vtp::write_validated};

// The Source of every <Piece> of the index, in order.
std::vector<std::string> read_sources(const ParallelKind& kind, const std::string& path) {
  const io::MappedFile file(path, kind.format);
  io::reject_empty_file(file.bytes(), path, kind.format);
  const std::string_view document = file.bytes();
  io::XmlScanner xml(document, 0, path, kind.format);
  std::vector<std::string> sources;
  bool seen_root = false;
  while (std::optional<io::XmlTag> tag = xml.next_tag()) {
    if (tag->closing) continue;
    if (tag->name == "VTKFile") {
      const std::string_view* type = tag->attribute("type");
      if (type == nullptr || *type != kind.type)
        xml.fail_at(tag->begin, "VTKFile type is '" + std::string(type ? *type : "") + "'; ." + std::string(kind.format) +
                                    " files hold " + std::string(kind.type));
      seen_root = true;
    } else if (tag->name == "Piece") {
      const std::string_view* source = tag->attribute("Source");
      if (source == nullptr || source->empty())
        xml.fail_at(tag->begin, "piece " + std::to_string(sources.size()) + " has no Source attribute");
      sources.push_back(io::decode_xml_entities(*source));
    }
  }
  if (!seen_root) throw ReadError(path, std::string(kind.format), "not a VTK XML file: no <VTKFile> element", 0);
  return sources;
}

template <class T>
void weld_rows(const T* xyz, std::int64_t count, std::size_t width, std::vector<std::int64_t>& new_index,
               std::vector<std::int64_t>& kept) {
  io::CoordinateWelder<T> welder(width, static_cast<std::size_t>(count));
  const auto coordinates_of = [xyz, width](std::int64_t id) { return xyz + static_cast<std::size_t>(id) * width; };
  for (std::int64_t p = 0; p < count; ++p) {
    const std::int64_t first = welder.find_or_add(coordinates_of(p), p, coordinates_of);
    if (first == p) {
      new_index[static_cast<std::size_t>(p)] = static_cast<std::int64_t>(kept.size());
      kept.push_back(p);
    } else {
      new_index[static_cast<std::size_t>(p)] = new_index[static_cast<std::size_t>(first)];
    }
  }
}

// Points at the same position become one (the first); cells, point data and Point regions follow.
void merge_duplicate_points(Mesh& mesh) {
  const std::int64_t count = mesh.num_points();
  if (count == 0) return;
  const std::size_t width = static_cast<std::size_t>(mesh.points.row_width());
  std::vector<std::int64_t> new_index(static_cast<std::size_t>(count)), kept;
  if (mesh.points.dtype() == DType::float32) {
    weld_rows(mesh.points.data_as<float>(), count, width, new_index, kept);
  } else {
    const NDArray wide = mesh.points.dtype() == DType::float64 ? mesh.points : mesh.points.astype(DType::float64);
    weld_rows(wide.data_as<double>(), count, width, new_index, kept);
  }
  if (static_cast<std::int64_t>(kept.size()) == count) return;
  RowSelection kept_rows;
  kept_rows.rows = kept;
  mesh.points = take_rows(mesh.points, kept_rows, false);
  NamedList<NDArray> point_data;
  for (const auto& [name, array] : mesh.point_data) point_data.set(name, take_rows(array, kept_rows, false));
  mesh.point_data = std::move(point_data);
  for (CellBlock& block : mesh.cells)
    for (std::int64_t& id : block.connectivity.values<std::int64_t>()) id = new_index[static_cast<std::size_t>(id)];
  for (Region& region : mesh.regions) {
    if (region.kind != RegionKind::Point) continue;
    std::vector<std::int64_t> entries;
    for (const std::int64_t id : region.entries.values<std::int64_t>()) entries.push_back(new_index[static_cast<std::size_t>(id)]);
    std::sort(entries.begin(), entries.end());
    entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
    region.entries = NDArray::allocate(DType::int64, {static_cast<std::int64_t>(entries.size())});
    std::copy(entries.begin(), entries.end(), region.entries.data_as<std::int64_t>());
  }
}

Mesh read_parallel(const ParallelKind& kind, const std::string& path, const PartitionedReadOptions& options = {}) {
  const std::vector<std::string> sources = read_sources(kind, path);
  std::size_t first = 0, last = sources.size();
  if (options.piece) {
    if (*options.piece >= sources.size())
      throw ReadError(path, std::string(kind.format),
                      "piece " + std::to_string(*options.piece) + " out of range: the index lists " +
                          std::to_string(sources.size()) + " piece" + (sources.size() == 1 ? "" : "s"));
    first = *options.piece;
    last = first + 1;
  }
  Mesh mesh;
  for (std::size_t p = first; p < last; ++p) {
    const std::string piece_path = resolve_beside(path, sources[p]);
    check_listed_file(path, kind.format, "piece " + std::to_string(p), sources[p], piece_path);
    // Bad bytes in a piece: the piece reader's ReadError names the piece file.
    merge_piece(mesh, kind.read_piece(piece_path), path, "piece " + std::to_string(p) + " (" + sources[p] + ")", kind.format,
                p == first, true);
  }
  if (first == last) mesh.points = NDArray::allocate(DType::float64, {0, 3});
  if (options.merge_points) merge_duplicate_points(mesh);
  return mesh;
}

std::string pdata_arrays(const std::string& element, const std::vector<std::pair<std::string, const NDArray*>>& arrays,
                         const std::vector<DType>& dtypes) {
  std::string text = "    <" + element + ">\n";
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    const NDArray& array = *arrays[a].second;
    text += "      <PDataArray type=\"" + std::string(io::vtk_xml::vtk_name_of(dtypes[a])) + "\"";
    if (!arrays[a].first.empty()) text += " Name=\"" + io::escape_xml_attribute(arrays[a].first) + "\"";
    if (array.ndim() > 1 && array.row_width() > 1) text += " NumberOfComponents=\"" + std::to_string(array.row_width()) + "\"";
    text += "/>\n";
  }
  return text + "    </" + element + ">\n";
}

// `mesh` has been validated by the caller.
void write_parallel(const ParallelKind& kind, const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const std::string_view pieces_text = options.get("pieces", "1");
  int pieces = 0;
  const auto [end, error] = std::from_chars(pieces_text.data(), pieces_text.data() + pieces_text.size(), pieces);
  if (error != std::errc{} || end != pieces_text.data() + pieces_text.size() || pieces < 1)
    throw std::invalid_argument("pieces must be a positive integer, got '" + std::string(pieces_text) + "'");
  WriteOptions piece_options;
  for (const auto& [name, value] : options.items())
    if (name != "pieces") piece_options.set(name, value);
  io::vtk_xml::parse_write_settings(piece_options);  // bad options fail before any file is written

  const std::string stem = stem_path(path);
  const std::int64_t total = mesh.num_cells();
  std::vector<std::string> sources(static_cast<std::size_t>(pieces));
  // Pieces are independent files: they are cut and written side by side on all cores (each
  // piece's own copies then stay on its thread). Errors come out as from a sequential loop.
  parallel_ranges(static_cast<std::size_t>(pieces), 1, [&](std::size_t first_piece, std::size_t last_piece) {
    for (std::size_t p = first_piece; p < last_piece; ++p) {
      const std::int64_t first = total * static_cast<std::int64_t>(p) / pieces;
      const std::int64_t last = total * static_cast<std::int64_t>(p + 1) / pieces;
      // One piece of the whole mesh keeps every point (also those no cell uses). A piece
      // views the rows of `mesh` it takes whole: `mesh` outlives the piece's write.
      const Mesh piece = pieces == 1 ? Mesh{} : extract_cell_range(mesh, first, last);
      const std::string piece_path = stem + "_" + std::to_string(p) + std::string(kind.piece_extension);
      kind.write_piece(piece_path, pieces == 1 ? mesh : piece, piece_options);
      sources[p] = file_name(piece_path);
    }
  });

  // The index names every array as the pieces hold it (cell data widened as the writer does).
  std::vector<std::pair<std::string, const NDArray*>> point_arrays, cell_arrays;
  std::vector<DType> point_dtypes, cell_dtypes;
  for (const auto& [name, array] : mesh.point_data) {
    point_arrays.emplace_back(name, &array);
    point_dtypes.push_back(array.dtype());
  }
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (arrays.empty()) continue;
    DType dtype = arrays.front().dtype();
    for (const NDArray& array : arrays)
      if (array.dtype() != dtype) dtype = dtype_is_float(dtype) || dtype_is_float(array.dtype()) ? DType::float64 : DType::int64;
    cell_arrays.emplace_back(name, &arrays.front());
    cell_dtypes.push_back(dtype);
  }
  std::string text = index_prologue(kind.type) + "  <" + std::string(kind.type) + " GhostLevel=\"0\">\n";
  text += pdata_arrays("PPointData", point_arrays, point_dtypes);
  text += pdata_arrays("PCellData", cell_arrays, cell_dtypes);
  // Points always have three components in the pieces.
  text += "    <PPoints>\n      <PDataArray type=\"" + std::string(io::vtk_xml::vtk_name_of(mesh.points.dtype())) +
          "\" NumberOfComponents=\"3\"/>\n    </PPoints>\n";
  for (const std::string& source : sources) text += "    <Piece Source=\"" + io::escape_xml_attribute(source) + "\"/>\n";
  text += "  </" + std::string(kind.type) + ">\n</VTKFile>\n";
  io::AtomicFile file(path, kind.format);
  file.write(text);
  file.commit();
}

}  // namespace

namespace pvtu {
Mesh read(const std::string& path) { return read_parallel(kPvtu, path); }
Mesh read(const std::string& path, const PartitionedReadOptions& options) { return read_parallel(kPvtu, path, options); }
std::size_t num_pieces(const std::string& path) { return read_sources(kPvtu, path).size(); }
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  validate(mesh);
  write_parallel(kPvtu, path, mesh, options);
}
void write_validated(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  write_parallel(kPvtu, path, mesh, options);
}
}  // namespace pvtu

namespace pvtp {
Mesh read(const std::string& path) { return read_parallel(kPvtp, path); }
Mesh read(const std::string& path, const PartitionedReadOptions& options) { return read_parallel(kPvtp, path, options); }
std::size_t num_pieces(const std::string& path) { return read_sources(kPvtp, path).size(); }
void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  validate(mesh);
  write_parallel(kPvtp, path, mesh, options);
}
void write_validated(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  write_parallel(kPvtp, path, mesh, options);
}
}  // namespace pvtp

}  // namespace meshioplusplus
