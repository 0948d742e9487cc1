// Floor 2: the part every VTK XML file kind shares — the <DataArray> layer. What an array's
// bytes are (ascii, inline base64, appended raw/base64), their size headers (UInt32/UInt64),
// block compression (zlib, LZMA, LZ4 through io::BlockCodec) and byte order; plus the generic
// document skeleton (<VTKFile>, the dataset element, FieldData, Pieces and their sections)
// that UnstructuredGrid, PolyData, StructuredGrid, RectilinearGrid and ImageData all use.
//
// A file kind (src/cpp/formats/vtk_xml/, src/cpp/formats/vtu/) reads a DocumentLayout with
// scan_document() and decodes the arrays it needs through DataArrayReader; to write, it
// fills a DocumentPlan (its pieces, sections and arrays as byte segments into the mesh) and
// hands it to write_document(). Nothing here knows about cells.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/codecs/block_codec.hpp"
#include "io/source/mapped_file.hpp"
#include "io/text/xml_scanner.hpp"
#include "io/vtk/vtk_type_runs.hpp"
#include "meshioplusplus/mesh.hpp"
#include "meshioplusplus/ndarray.hpp"
#include "meshioplusplus/registry.hpp"

namespace meshioplusplus::io::vtk_xml {

// ------------------------------------------------------------------ names

std::optional<DType> dtype_from_vtk_name(std::string_view vtk_name) noexcept;
std::string_view vtk_name_of(DType dtype) noexcept;

// The compressor attribute of <VTKFile> names a VTK class; io::find_block_codec takes ours.
struct VtkCompressorName {
  std::string_view vtk_class;
  std::string_view codec;
};
inline constexpr std::array<VtkCompressorName, 3> kVtkCompressors{{
    {"vtkZLibDataCompressor", "zlib"},
    {"vtkLZMADataCompressor", "lzma"},
    {"vtkLZ4DataCompressor", "lz4"},
}};
std::string_view codec_of_vtk_compressor(std::string_view vtk_class) noexcept;
std::string_view vtk_compressor_of_codec(std::string_view codec) noexcept;

// VTK's own default; readers accept any block size the header announces.
inline constexpr std::size_t kCompressionBlockSize = 32768;

// ------------------------------------------------------------------ reading

enum class Encoding { ascii, inline_base64, appended };

// Arrays the mesh keeps go through the allocator hook; parsing temporaries must not.
enum class Lifetime { result, scratch };

// One <DataArray> (or <Array>) element as its tag announces it; nothing decoded yet.
struct ArrayInfo {
  std::string name;
  std::optional<DType> dtype;  // empty for type="String"
  std::int64_t components = 1;
  std::optional<std::int64_t> tuples;  // NumberOfTuples, when present
  Encoding encoding = Encoding::ascii;
  std::uint64_t appended_offset = 0;
  std::size_t tag_offset = 0;
  // Inline text: from the end of the opening tag to the next '<'.
  std::size_t content_begin = 0, content_end = 0;

  bool is_string() const noexcept { return !dtype.has_value(); }
};

// A child of <Piece> that holds arrays: PointData, CellData, Points, Cells, Verts, Lines,
// Strips, Polys, Coordinates.
struct Section {
  std::string name;
  std::size_t tag_offset = 0;
  std::vector<ArrayInfo> arrays;

  const ArrayInfo* find(std::string_view array_name) const noexcept;
};

// An element's attributes, entity-decoded.
struct Attributes {
  std::vector<std::pair<std::string, std::string>> values;
  const std::string* find(std::string_view name) const noexcept;
};

struct Piece {
  std::size_t tag_offset = 0;
  Attributes attributes;
  std::vector<Section> sections;

  const Section* section(std::string_view name) const noexcept;
};

// What the XML part of a file announces.
struct DocumentLayout {
  std::string type;           // <VTKFile type="...">
  std::size_t dataset_offset = 0;
  Attributes dataset;         // the attributes of <UnstructuredGrid>, <ImageData>, …
  std::vector<ArrayInfo> field_data;
  std::vector<Piece> pieces;
  // File-level encoding.
  bool little_endian = true;
  std::size_t header_bytes = 4;  // width of the size words: UInt32 or UInt64
  std::string compressor;        // the VTK class name, as the file has it
  const BlockCodec* codec = nullptr;  // ours for it; nullptr when unknown
  bool has_appended = false, appended_base64 = false;
  std::size_t appended_begin = 0, appended_end = 0;  // just past '_' .. the closing tag
};

// Decodes the arrays of one mapped document. Every error is a ReadError naming the file,
// the byte offset and (outside raw appended bytes) the line.
class DataArrayReader {
 public:
  DataArrayReader(const std::string& path, std::string_view format, std::string_view document);
  // The document is `file`'s bytes (file outlives the reader): large raw appended arrays are
  // then copied out of the file with pread instead of through its mapping (MappedFile::copy_out).
  DataArrayReader(const MappedFile& file, std::string_view format);
  ~DataArrayReader();
  DataArrayReader(const DataArrayReader&) = delete;
  DataArrayReader& operator=(const DataArrayReader&) = delete;

  // Scans the XML part: <VTKFile type="`expected_type`"> (any of the given types), the
  // dataset element of that name, FieldData, Pieces and their sections, AppendedData.
  const DocumentLayout& scan(std::span<const std::string_view> expected_types);
  const DocumentLayout& layout() const noexcept;
  // The names of the data arrays (PointData and CellData of every piece, FieldData), each once.
  std::vector<std::string> data_array_names() const;
  // Forgets the data arrays not in `names`: a read then never touches their bytes.
  void keep_data_arrays(std::span<const std::string> names);

  [[noreturn]] void fail(std::size_t offset, const std::string& message) const;
  const std::string& path() const noexcept;
  std::string_view document() const noexcept;

  // A non-negative integer attribute; nullopt when absent, ReadError when malformed.
  std::optional<std::int64_t> count_attribute(const Attributes& attributes, std::string_view name,
                                              std::size_t tag_offset, std::string_view element) const;
  // Whitespace-separated numbers of an attribute (Extent, Origin, …): exactly `count`;
  // nullopt when absent.
  std::optional<std::vector<std::int64_t>> integer_list_attribute(const Attributes& attributes, std::string_view name,
                                                                  std::size_t count, std::size_t tag_offset) const;
  std::optional<std::vector<double>> float_list_attribute(const Attributes& attributes, std::string_view name,
                                                          std::size_t count, std::size_t tag_offset) const;

  // Exactly `shape`'s product of values, in the array's own dtype.
  NDArray read_array(const ArrayInfo& info, Shape shape, Lifetime lifetime) const;
  // As read_array, converted to `dtype` when the file's differs.
  NDArray read_array_as(const ArrayInfo& info, Shape shape, DType dtype, Lifetime lifetime) const;
  NDArray read_integer_array(const ArrayInfo& info, std::int64_t count, Lifetime lifetime) const;
  // The `count` values of `info` where they lie in the file, when nothing needs decoding (raw
  // appended, host byte order): a view at any alignment, so only for code that reads values
  // through io::load_integer (the cell converter); nullopt when the values must be decoded.
  std::optional<NDArray> mapped_values(const ArrayInfo& info, std::int64_t count) const;
  // The same for an array of any numeric dtype and shape, for code that only copies its bytes
  // (memcpy of rows): at any alignment; nullopt when the values must be decoded.
  std::optional<NDArray> mapped_array(const ArrayInfo& info, const Shape& shape) const;
  // Integer arrays as int64 (types, offsets, face tables).
  std::vector<std::int64_t> read_index_vector(const ArrayInfo& info, std::int64_t count) const;
  // VTK cell ids, one byte each (all VTK ids fit), scratch.
  NDArray read_cell_types(const ArrayInfo& info, std::int64_t count) const;
  // The cells per VTK id of a types array, added to `counts` (a metadata read): raw appended
  // bytes of a mapped file are copied out by pread a chunk at a time, never mapped in.
  void count_cell_types(const ArrayInfo& info, std::int64_t count, VtkTypeCounts& counts) const;
  // VTK end offsets (n) → the n+1 start offsets io::cells_from_vtk takes (int64, scratch),
  // checked never to decrease.
  NDArray read_starts(const ArrayInfo& info, std::int64_t count) const;
  // How many values an array holds when no attribute says so.
  std::uint64_t stored_count(const ArrayInfo& info) const;
  std::vector<std::string> read_strings(const ArrayInfo& info) const;

  // One logical array that several pieces hold rows of, read into one allocation.
  struct Slice {
    const ArrayInfo* info;
    std::int64_t rows;
  };
  NDArray gather(const std::vector<Slice>& slices, DType dtype, std::int64_t components,
                 bool keep_component_axis) const;

  // FieldData into mesh.field_data / mesh.string_field_data.
  void read_field_data(Mesh& mesh) const;

  static Shape array_shape(const ArrayInfo& info, std::int64_t rows) {
    if (info.components > 1) return {rows, info.components};
    return {rows};
  }
  static std::string label(const ArrayInfo& info);

 private:
  // The decoding machinery (payload headers, base64, block decompression, threaded ASCII
  // parsing) lives in the implementation file.
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// ------------------------------------------------------------------ writing

enum class DataMode { ascii, inline_base64, appended_raw };

struct WriteSettings {
  DataMode mode = DataMode::inline_base64;
  const BlockCodec* codec = nullptr;  // nullptr: uncompressed
  std::size_t header_bytes = 4;
};

// The options every VTK XML writer takes: binary (true), compression (zlib when built with
// it | lzma | lz4 | none), header_type (UInt32 | UInt64), appended (false). Throws
// std::invalid_argument naming a bad value or a compressor this build lacks.
WriteSettings parse_write_settings(const WriteOptions& options);

using ByteSpan = std::span<const std::uint8_t>;

// The size header and, when compressing, the compressed blocks of one binary array.
struct BinaryBlob {
  std::vector<std::uint8_t> header;
  std::vector<std::uint8_t> compressed;
  bool is_compressed = false;
};

struct ArrayPlan {
  std::string_view element = "DataArray";
  std::string_view vtk_type;
  std::string name;
  DType dtype = DType::uint8;  // element type of the bytes; uint8 for strings
  std::int64_t components = 1;
  std::optional<std::int64_t> tuples;  // written as NumberOfTuples (field data)
  std::vector<ByteSpan> segments;      // the values, in order
  std::uint64_t nbytes = 0;
  std::optional<BinaryBlob> blob;      // built up front where its size must be known early
  std::uint64_t appended_offset = 0;
};

ArrayPlan numeric_plan(std::string name, DType dtype, std::int64_t components, std::vector<ByteSpan> segments);
inline ByteSpan bytes_of(const NDArray& array) {
  return {static_cast<const std::uint8_t*>(array.data()), array.nbytes()};
}

struct SectionPlan {
  std::string element;  // PointData, CellData, Points, Cells, Verts, …
  std::vector<ArrayPlan> arrays;
  bool omit_when_empty = false;
};

struct PiecePlan {
  std::string attributes;  // written verbatim inside <Piece ...>, e.g. NumberOfPoints="3"
  std::vector<SectionPlan> sections;
};

struct DocumentPlan {
  std::string type;                // VTKFile type and dataset element name
  std::string dataset_attributes;  // verbatim inside the dataset element's tag
  std::vector<ArrayPlan> field_data;
  std::vector<PiecePlan> pieces;
  // Storage that segments point into, besides the mesh itself.
  std::deque<NDArray> converted;
  std::deque<std::vector<std::uint8_t>> strings;

  template <class Visit> void for_each_array(Visit&& visit) {
    for (ArrayPlan& array : field_data) visit(array);
    for (PiecePlan& piece : pieces)
      for (SectionPlan& section : piece.sections)
        for (ArrayPlan& array : section.arrays) visit(array);
  }
  template <class Visit> void for_each_array(Visit&& visit) const {
    for (const ArrayPlan& array : field_data) visit(array);
    for (const PiecePlan& piece : pieces)
      for (const SectionPlan& section : piece.sections)
        for (const ArrayPlan& array : section.arrays) visit(array);
  }
};

// Plans shared by every kind.
void plan_field_data(const Mesh& mesh, DocumentPlan& plan, std::vector<ArrayPlan>& out);
// Points as a (n, 3) array (meshio meshes may have fewer coordinates: zero-padded).
ArrayPlan plan_points(const NDArray& points, DocumentPlan& plan);
// One array per point_data entry (each a whole array, or rows [first, first + count)).
void plan_point_data(const Mesh& mesh, std::vector<ArrayPlan>& out);
// One VTK array per cell_data name: the chosen blocks' arrays (rows) back to back, in one
// dtype. `pieces` lists (block, first row, row count) in file order.
struct BlockRows {
  std::size_t block;
  std::int64_t first;
  std::int64_t count;
};
void plan_cell_data(const Mesh& mesh, const std::vector<BlockRows>& pieces, DocumentPlan& plan,
                    std::vector<ArrayPlan>& out);

// Encodes (and compresses) every array and streams the document into `path` atomically.
void write_document(const std::string& path, std::string_view format, DocumentPlan& plan,
                    const WriteSettings& settings);

}  // namespace meshioplusplus::io::vtk_xml
