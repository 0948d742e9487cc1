// Private to the VTK legacy reader (vtk_reader*.cpp): its state, class LegacyReader, and the
// types its files share. The reader is one class with its parts defined in one file each:
// vtk_reader.cpp (preamble, keyword dispatch, header-line values, array payloads),
// vtk_reader_geometry.cpp (POINTS, the cell sections, DIMENSIONS / ORIGIN / SPACING /
// *_COORDINATES, and the points and cells each dataset kind becomes) and
// vtk_reader_attributes.cpp (POINT_DATA / CELL_DATA attributes, FIELD arrays). What the reader
// shares with the writer stays in vtk_common.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/vtk/vtk_common.hpp"
#include "io/source/mapped_file.hpp"
#include "io/text/text_scanner.hpp"
#include "io/vtk/vtk_cells.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/read_selection.hpp"

namespace meshioplusplus::vtk::detail {

enum class Dataset { unstructured_grid, polydata, structured_points, structured_grid, rectilinear_grid };

// The keyword of a dataset kind, as DATASET names it (vtk_reader.cpp).
std::string_view dataset_name(Dataset dataset);

// Which part of the dataset the attribute arrays being read belong to.
enum class Attribute { none, point, cell };

// One keyword line: "POINTS 8 float", "SCALARS pressure double 1" …
struct HeaderLine {
  std::size_t offset = 0;
  std::vector<std::string_view> tokens;

  std::string_view keyword() const noexcept { return tokens.empty() ? std::string_view() : tokens[0]; }
  bool is(std::string_view name) const noexcept { return equals_ignoring_case(keyword(), name); }
};

// A cell list as stored in CELLS, VERTICES, LINES, POLYGONS or TRIANGLE_STRIPS.
struct CellArray {
  bool present = false;
  std::size_t offset = 0;                // of its keyword, for errors
  std::vector<std::int64_t> offsets{0};  // n+1 start offsets into connectivity
  NDArray connectivity;                  // int64 (total,), or the file's bytes (below)
  // A binary UNSTRUCTURED_GRID's CONNECTIVITY is a view of the file's big-endian values: the
  // cell converter swaps them as it gathers them into blocks, one pass instead of two.
  bool connectivity_byte_swapped = false;

  std::int64_t num_cells() const noexcept { return static_cast<std::int64_t>(offsets.size()) - 1; }
  std::int64_t size_of(std::int64_t cell) const noexcept { return offsets[cell + 1] - offsets[cell]; }
};

// A declared POINT_DATA / CELL_DATA count and where it was declared.
struct DeclaredCount {
  std::int64_t count = -1;
  std::size_t offset = 0;
};

// The source cells whose data a block carries: a contiguous range, or explicit rows when
// cells were split (polylines, strips).
struct BlockRows {
  std::int64_t first = 0;
  std::int64_t count = 0;
  std::vector<std::int64_t> rows;  // empty: [first, first + count)
};

class LegacyReader {
 public:
  // `file`, when given, holds `bytes`: a metadata read copies CELL_TYPES out of it by pread.
  LegacyReader(std::string_view bytes, const std::string& path, const io::MappedFile* file = nullptr)
      : document_(bytes), scan_(bytes, path, detail::kFormatName), file_(file) {}

  Mesh read();
  // Reading less (vtk_reader_metadata.cpp). read_selected: attribute arrays `request` does not
  // name are jumped over; points_only alone also jumps over the cell sections of an
  // unstructured grid or polydata. metadata: the summary from the headers of an unstructured
  // grid (POINTS and CELLS jumped over, CELL_TYPES read for the blocks, attribute values jumped
  // over); nullopt for the other datasets, whose blocks depend on more than the headers.
  Mesh read_selected(const ReadRequest& request);
  std::optional<MeshMetadata> metadata();

 private:
  // ---- preamble and keyword dispatch, header-line values, array payloads (vtk_reader.cpp)
  void read_preamble();
  void check_version(std::string_view text);
  static std::string_view trim(std::string_view text);
  HeaderLine next_header_line();
  void dispatch(const HeaderLine& header);
  bool dispatch_geometry(const HeaderLine& header);
  bool dispatch_attribute(const HeaderLine& header);
  void read_dataset_kind(const HeaderLine& header);
  void skip_metadata();
  [[noreturn]] void fail(const HeaderLine& header, const std::string& message) const;
  void require_tokens(const HeaderLine& header, std::size_t count, std::string_view usage) const;
  std::int64_t header_count(const HeaderLine& header, std::size_t index, std::string_view what) const;
  double header_real(const HeaderLine& header, std::size_t index) const;
  LegacyType header_type(const HeaderLine& header, std::size_t index) const;
  LegacyType header_index_type(const HeaderLine& header, std::size_t index) const;
  std::array<double, 3> read_triple(const HeaderLine& header) const;
  bool next_line_starts_with(std::string_view keyword);
  static std::uint64_t element_count(const Shape& shape);
  void require_available(std::uint64_t count, const LegacyType& type, std::string_view what) const;
  void decode_values(const LegacyType& type, DType target_dtype, void* target, std::size_t count);
  void decode_binary(const LegacyType& type, DType target_dtype, void* target, std::size_t count);
  NDArray read_array(const LegacyType& type, Shape shape, std::string_view what);
  NDArray read_array(const LegacyType& type, Shape shape, std::string_view what, DType memory_dtype);
  std::vector<std::int64_t> read_index_vector(const LegacyType& type, std::int64_t count, std::string_view what);
  void skip_values(const LegacyType& type, std::uint64_t count, std::string_view what);

  // ---- geometry sections, assembling the mesh (vtk_reader_geometry.cpp)
  // One POLYDATA section turned into a VTK cell stream of single cells, plus, when cells
  // were split, which source cell each output cell came from.
  struct PolydataCells {
    CellArray cells;
    std::vector<std::uint8_t> types;
    std::vector<std::int64_t> source_of_cell;
  };
  void read_points(const HeaderLine& header);
  CellArray& polydata_section(const HeaderLine& header);
  void read_cell_array(const HeaderLine& header, CellArray& cells);
  void read_offsets_and_connectivity(const HeaderLine& header, CellArray& cells, std::int64_t num_offsets,
                                     std::int64_t size);
  void read_counted_cells(const HeaderLine& header, CellArray& cells, std::int64_t num_cells, std::int64_t size);
  void read_cell_types(const HeaderLine& header);
  void decode_binary_cell_types(const unsigned char* bytes, std::int64_t count, std::int64_t first_cell,
                                std::uint8_t* ids);
  void read_cell_type_runs(std::int64_t count);
  void read_dimensions(const HeaderLine& header);
  void read_coordinates(const HeaderLine& header);
  Mesh finish();
  void require_points();
  void add_blocks(io::VtkCells cells, std::int64_t source_base, const std::vector<std::int64_t>& source_of_cell);
  io::VtkCells convert_cells(const CellArray& cells, std::span<const std::uint8_t> types);
  void finish_unstructured_grid();
  void require_min_size(const CellArray& section, std::int64_t minimum, std::string_view what);
  bool all_sizes_equal(const CellArray& section, std::int64_t size) const;
  PolydataCells vertex_cells(const CellArray& section);
  template <class Pieces, class Emit>
  PolydataCells split_cells(const CellArray& section, int vtk_id, std::int64_t nodes, Pieces pieces, Emit emit);
  PolydataCells line_cells(const CellArray& section);
  PolydataCells polygon_cells(const CellArray& section);
  PolydataCells strip_cells(const CellArray& section);
  void finish_polydata();
  std::array<std::int64_t, 3> require_dimensions();
  void add_structured_cells(const std::array<std::int64_t, 3>& dims);
  void finish_structured_points();
  template <class T, class Coordinate>
  void fill_grid_points(const std::array<std::int64_t, 3>& dims, Coordinate coordinate);
  void finish_structured_grid();
  void finish_rectilinear_grid();

  // ---- attribute sections (vtk_reader_attributes.cpp)
  void declare_attribute(const HeaderLine& header, Attribute attribute, DeclaredCount& declared);
  const DeclaredCount& attribute_count() const;
  void store_attribute(std::string_view encoded_name, NDArray array);
  void read_named_array(const HeaderLine& header, Shape shape);
  void read_scalars(const HeaderLine& header, std::int64_t rows);
  void read_color_scalars(const HeaderLine& header, std::int64_t rows);
  LegacyType color_type() const noexcept;
  void read_texture_coordinates(const HeaderLine& header, std::int64_t rows);
  void skip_lookup_table(const HeaderLine& header);
  void read_field(const HeaderLine& header);
  void read_field_array(const HeaderLine& header);
  void check_attribute_counts();

  // ---- reading less (vtk_reader_metadata.cpp)
  void read_attribute(std::string_view encoded_name, const LegacyType& type, Shape shape, std::string_view what);
  bool skips_array(const std::string& name) const;
  bool skips_cells() const;
  void skip_file_values(const LegacyType& type, std::uint64_t count, std::string_view what);
  void skip_cell_array(const HeaderLine& header, CellArray& cells);

  std::string_view document_;
  io::TextScanner scan_;
  bool binary_ = false;
  std::optional<Dataset> dataset_;
  Attribute attribute_ = Attribute::none;
  Mesh mesh_;

  std::size_t points_offset_ = 0;
  CellArray cells_, vertices_, lines_, polygons_, strips_;
  std::vector<std::uint8_t> cell_types_;
  struct TypeRun {
    std::uint8_t id = 0;
    std::int64_t cells = 0;
  };
  std::vector<TypeRun> cell_type_runs_;  // a metadata read of a mapped binary file: instead of cell_types_
  bool has_cell_types_ = false;
  std::size_t cell_types_offset_ = 0;

  std::optional<std::array<std::int64_t, 3>> dimensions_;
  std::size_t dimensions_offset_ = 0;
  std::optional<std::array<double, 3>> origin_, spacing_;
  std::array<NDArray, 3> coordinates_;
  std::array<std::size_t, 3> coordinates_offset_{};

  DeclaredCount point_data_count_, cell_data_count_;
  NamedList<NDArray> raw_cell_data_;  // one row per source cell, split into blocks at the end
  std::vector<BlockRows> block_rows_;
  std::int64_t num_source_cells_ = 0;

  // Reading less: the request (null: everything), whether only a summary is wanted, and
  // what it gathers instead of arrays (POINTS' count and dtype, the arrays' summaries).
  const ReadRequest* request_ = nullptr;
  bool metadata_only_ = false;
  const io::MappedFile* file_ = nullptr;
  std::int64_t declared_points_ = 0;
  NamedList<ArraySummary> point_summaries_, cell_summaries_, field_summaries_;
};

}  // namespace meshioplusplus::vtk::detail
