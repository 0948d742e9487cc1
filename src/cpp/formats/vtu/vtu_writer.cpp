// VTK XML UnstructuredGrid writer.
//
// The mesh is first turned into a plan: every array to write, as byte segments that
// point into the mesh's own buffers (cell data of several blocks is several segments, so
// nothing is concatenated up front). The plan is then streamed into an AtomicFile, so a
// failure at any point leaves an existing file untouched.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/vtu/vtu.hpp"
#include "formats/vtu/vtu_common.hpp"
#include "io/atomic_file.hpp"
#include "io/base64.hpp"
#include "io/byte_order.hpp"
#include "io/vtk_cells.hpp"
#include "io/xml_scanner.hpp"
#include "io/zlib_codec.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::vtu {
namespace {

using detail::kFormatName;
using ByteSpan = std::span<const std::uint8_t>;

// zlib's fastest level: about three times faster than VTK's default (6) for output some
// 4% larger on typical mesh data; any level reads back the same.
constexpr int kZlibLevel = 1;
constexpr std::size_t kZlibBlocksPerThread = 16;
// A multiple of 3 bytes, so consecutive base64 pieces form one unpadded stream.
constexpr std::size_t kBase64Chunk = 3 * 16384;
constexpr std::size_t kAsciiValuesPerLine = 6;

enum class DataMode { ascii, inline_base64, appended_raw };

struct Settings {
  DataMode mode = DataMode::inline_base64;
  bool zlib = false;
  std::size_t header_bytes = 4;
};

// The size header and, when compressing, the zlib blocks of one binary array.
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

struct DocumentPlan {
  std::int64_t num_points = 0, num_cells = 0;
  std::vector<ArrayPlan> field_data, point_data, cell_data, points, cells;
  // Storage that segments point into, besides the mesh itself.
  io::VtkCellArrays cell_arrays;
  std::deque<NDArray> converted;                  // padded points, promoted cell data
  std::deque<std::vector<std::uint8_t>> strings;  // NUL-terminated string arrays

  // Document order: the order of the XML elements and of the appended blocks.
  template <class Plan, class Visit> static void for_each_array(Plan& plan, Visit&& visit) {
    for (auto* list : {&plan.field_data, &plan.point_data, &plan.cell_data, &plan.points, &plan.cells})
      for (auto& array : *list) visit(array);
  }
};

// ------------------------------------------------------------------ options

Settings parse_settings(const WriteOptions& options) {
  Settings settings;
  const bool binary = options.get_bool("binary", true);
  const bool appended = options.get_bool("appended", false);
  if (appended && !binary) throw std::invalid_argument("appended=true needs binary=true");
  settings.mode = !binary ? DataMode::ascii : appended ? DataMode::appended_raw : DataMode::inline_base64;

  // An empty value is meshio's compression=None.
  const std::string_view compression = options.get("compression", io::zlib_available() ? "zlib" : "none");
  if (compression == "zlib") {
    if (!io::zlib_available()) throw std::invalid_argument("compression=zlib, but this meshio++ build has no zlib");
    settings.zlib = binary;
  } else if (compression != "none" && !compression.empty()) {
    throw std::invalid_argument("unknown compression '" + std::string(compression) + "' (expected zlib or none)");
  }

  const std::string_view header_type = options.get("header_type", "");
  if (header_type == "UInt64") settings.header_bytes = 8;
  else if (header_type != "UInt32" && !header_type.empty())
    throw std::invalid_argument("unknown header_type '" + std::string(header_type) + "' (expected UInt32 or UInt64)");
  return settings;
}

// ------------------------------------------------------------------ planning

ByteSpan bytes_of(const NDArray& array) {
  return {static_cast<const std::uint8_t*>(array.data()), array.nbytes()};
}

std::int64_t components_of(const NDArray& array) { return array.ndim() > 1 ? array.row_width() : 1; }

ArrayPlan numeric_plan(std::string name, DType dtype, std::int64_t components, std::vector<ByteSpan> segments) {
  if (components < 1) throw std::invalid_argument("array '" + name + "' has no components");
  ArrayPlan plan;
  plan.vtk_type = detail::vtk_name_of(dtype);
  plan.name = std::move(name);
  plan.dtype = dtype;
  plan.components = components;
  for (ByteSpan segment : segments) plan.nbytes += segment.size();
  plan.segments = std::move(segments);
  return plan;
}

// VTU points always have three coordinates; meshio meshes may have fewer.
NDArray padded_to_3d(const NDArray& points) {
  const std::int64_t dim = points.dim(1);
  if (dim > 3) throw std::invalid_argument("VTU points have at most 3 coordinates, got " + std::to_string(dim));
  NDArray padded = NDArray::zeros(points.dtype(), {points.rows(), 3});
  const std::size_t item = dtype_size(points.dtype());
  const auto* source = static_cast<const std::uint8_t*>(points.data());
  auto* target = static_cast<std::uint8_t*>(padded.data());
  for (std::int64_t row = 0; row < points.rows(); ++row)
    std::memcpy(target + row * 3 * item, source + row * dim * item, static_cast<std::size_t>(dim) * item);
  return padded;
}

void plan_points(const Mesh& mesh, DocumentPlan& plan) {
  const NDArray* points = &mesh.points;
  if (points->dim(1) != 3) points = &plan.converted.emplace_back(padded_to_3d(*points));
  plan.points.push_back(numeric_plan("Points", points->dtype(), 3, {bytes_of(*points)}));
}

void plan_cells(const Mesh& mesh, DocumentPlan& plan) {
  plan.cell_arrays = io::cells_to_vtk(mesh.cells);
  const io::VtkCellArrays& arrays = plan.cell_arrays;
  plan.cells.push_back(numeric_plan("connectivity", DType::int64, 1, {bytes_of(arrays.connectivity)}));
  plan.cells.push_back(numeric_plan("offsets", DType::int64, 1, {bytes_of(arrays.offsets)}));
  plan.cells.push_back(numeric_plan("types", DType::uint8, 1, {bytes_of(arrays.types)}));
  if (!arrays.faces.empty_handle()) {
    plan.cells.push_back(numeric_plan("faces", DType::int64, 1, {bytes_of(arrays.faces)}));
    plan.cells.push_back(numeric_plan("faceoffsets", DType::int64, 1, {bytes_of(arrays.face_offsets)}));
  }
}

void plan_point_data(const Mesh& mesh, DocumentPlan& plan) {
  for (const auto& [name, array] : mesh.point_data)
    plan.point_data.push_back(numeric_plan(name, array.dtype(), components_of(array), {bytes_of(array)}));
}

// One VTK array per name: the blocks' arrays back to back, in one dtype.
void plan_cell_data(const Mesh& mesh, DocumentPlan& plan) {
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (arrays.empty()) continue;
    DType dtype = arrays.front().dtype();
    const std::int64_t components = components_of(arrays.front());
    for (const NDArray& array : arrays) {
      if (components_of(array) != components)
        throw std::invalid_argument("cell_data['" + name + "'] has blocks with different numbers of components");
      if (array.dtype() != dtype)
        dtype = dtype_is_float(dtype) || dtype_is_float(array.dtype()) ? DType::float64 : DType::int64;
    }
    std::vector<ByteSpan> segments;
    for (const NDArray& array : arrays)
      segments.push_back(bytes_of(array.dtype() == dtype ? array : plan.converted.emplace_back(array.astype(dtype))));
    plan.cell_data.push_back(numeric_plan(name, dtype, components, std::move(segments)));
  }
}

void plan_field_data(const Mesh& mesh, DocumentPlan& plan) {
  for (const auto& [name, array] : mesh.field_data) {
    ArrayPlan field = numeric_plan(name, array.dtype(), components_of(array), {bytes_of(array)});
    field.tuples = array.ndim() == 0 ? 1 : array.rows();
    plan.field_data.push_back(std::move(field));
  }
  for (const auto& [name, strings] : mesh.string_field_data) {
    // VTK stores a string array as the strings' bytes, each followed by a NUL.
    std::vector<std::uint8_t>& bytes = plan.strings.emplace_back();
    for (const std::string& text : strings) {
      if (text.find('\0') != std::string::npos)
        throw std::invalid_argument("string_field_data['" + name + "'] holds a NUL character, which VTK cannot store");
      bytes.insert(bytes.end(), text.begin(), text.end());
      bytes.push_back(0);
    }
    ArrayPlan field = numeric_plan(name, DType::uint8, 1, {ByteSpan(bytes)});
    field.element = "Array";
    field.vtk_type = "String";
    field.tuples = static_cast<std::int64_t>(strings.size());
    plan.field_data.push_back(std::move(field));
  }
}

// ------------------------------------------------------------------ binary encoding

// Calls `consume(data, size, transient)` on consecutive `chunk_size`-byte pieces (the last
// may be shorter) of the concatenated segments. Only pieces that straddle two segments are
// copied, into a buffer that is reused: those are the `transient` ones.
template <class Consume>
void for_each_chunk(std::span<const ByteSpan> segments, std::size_t chunk_size, Consume&& consume) {
  std::vector<std::uint8_t> pending;
  for (ByteSpan segment : segments) {
    while (!segment.empty()) {
      if (pending.empty() && segment.size() >= chunk_size) {
        consume(segment.data(), chunk_size, false);
        segment = segment.subspan(chunk_size);
        continue;
      }
      const std::size_t take = std::min(chunk_size - pending.size(), segment.size());
      pending.insert(pending.end(), segment.begin(), segment.begin() + static_cast<std::ptrdiff_t>(take));
      segment = segment.subspan(take);
      if (pending.size() == chunk_size) {
        consume(pending.data(), pending.size(), true);
        pending.clear();
      }
    }
  }
  if (!pending.empty()) consume(pending.data(), pending.size(), true);
}

// The compression blocks of an array, copying only those that straddle segments.
std::vector<ByteSpan> compression_blocks(const ArrayPlan& array, std::deque<std::vector<std::uint8_t>>& copies) {
  std::vector<ByteSpan> blocks;
  for_each_chunk(array.segments, detail::kCompressionBlockSize,
                 [&](const std::uint8_t* data, std::size_t size, bool transient) {
                   if (transient) data = copies.emplace_back(data, data + size).data();
                   blocks.emplace_back(data, size);
                 });
  return blocks;
}

void append_header_word(std::vector<std::uint8_t>& header, std::uint64_t value, const Settings& settings,
                        const ArrayPlan& array) {
  if (settings.header_bytes == 4) {
    if (value > std::numeric_limits<std::uint32_t>::max())
      throw std::invalid_argument("array '" + array.name + "' needs a size of " + std::to_string(value) +
                                  " in its header, more than header_type UInt32 holds; write with header_type=UInt64");
    const auto word = static_cast<std::uint32_t>(value);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&word);
    header.insert(header.end(), bytes, bytes + 4);
  } else {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&value);
    header.insert(header.end(), bytes, bytes + 8);
  }
}

BinaryBlob encode_blob(const ArrayPlan& array, const Settings& settings) {
  BinaryBlob blob;
  if (!settings.zlib) {
    append_header_word(blob.header, array.nbytes, settings, array);
    return blob;
  }
  blob.is_compressed = true;
  std::deque<std::vector<std::uint8_t>> copies;
  const std::vector<ByteSpan> blocks = compression_blocks(array, copies);
  // Blocks compress independently, so large arrays use every core.
  std::vector<std::vector<std::uint8_t>> compressed(blocks.size());
  detail::parallel_ranges(blocks.size(), kZlibBlocksPerThread, [&](std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b)
      io::zlib_compress_append(blocks[b].data(), blocks[b].size(), kZlibLevel, compressed[b]);
  });
  // VTK's convention: the last block's size, or 0 when it is a full block.
  append_header_word(blob.header, blocks.size(), settings, array);
  append_header_word(blob.header, detail::kCompressionBlockSize, settings, array);
  append_header_word(blob.header, array.nbytes % detail::kCompressionBlockSize, settings, array);
  for (const std::vector<std::uint8_t>& block : compressed) {
    append_header_word(blob.header, block.size(), settings, array);
    blob.compressed.insert(blob.compressed.end(), block.begin(), block.end());
  }
  return blob;
}

std::uint64_t appended_size(const ArrayPlan& array) {
  const BinaryBlob& blob = *array.blob;
  return blob.header.size() + (blob.is_compressed ? blob.compressed.size() : array.nbytes);
}

DocumentPlan plan_document(const Mesh& mesh, const Settings& settings) {
  DocumentPlan plan;
  plan.num_points = mesh.num_points();
  plan.num_cells = mesh.num_cells();
  plan_field_data(mesh, plan);
  plan_point_data(mesh, plan);
  plan_cell_data(mesh, plan);
  plan_points(mesh, plan);
  plan_cells(mesh, plan);
  if (settings.mode == DataMode::ascii) return plan;
  // Uncompressed headers are cheap and catch UInt32 overflow before the file is touched;
  // appended offsets need every compressed size up front.
  std::uint64_t offset = 0;
  DocumentPlan::for_each_array(plan, [&](ArrayPlan& array) {
    if (!settings.zlib || settings.mode == DataMode::appended_raw) array.blob = encode_blob(array, settings);
    if (settings.mode == DataMode::appended_raw) {
      array.appended_offset = offset;
      offset += appended_size(array);
    }
  });
  return plan;
}

// ------------------------------------------------------------------ output

class DocumentWriter {
 public:
  DocumentWriter(io::OutputBuffer& out, const Settings& settings) : out_(out), settings_(settings) {}

  void write(const DocumentPlan& plan) {
    write_prologue();
    out_.text("  <UnstructuredGrid>\n");
    write_section("    ", "FieldData", plan.field_data, true);
    out_.text("    <Piece NumberOfPoints=\"");
    out_.number(plan.num_points);
    out_.text("\" NumberOfCells=\"");
    out_.number(plan.num_cells);
    out_.text("\">\n");
    write_section("      ", "PointData", plan.point_data, false);
    write_section("      ", "CellData", plan.cell_data, false);
    write_section("      ", "Points", plan.points, false);
    write_section("      ", "Cells", plan.cells, false);
    out_.text("    </Piece>\n  </UnstructuredGrid>\n");
    if (settings_.mode == DataMode::appended_raw) write_appended_data(plan);
    out_.text("</VTKFile>\n");
  }

 private:
  void write_prologue() {
    out_.text("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\"");
    // VTK marks files with 64-bit headers as version 1.0; 0.1 readers assume 32-bit ones.
    out_.text(settings_.header_bytes == 8 ? " version=\"1.0\"" : " version=\"0.1\"");
    out_.text(io::kHostIsLittleEndian ? " byte_order=\"LittleEndian\"" : " byte_order=\"BigEndian\"");
    out_.text(settings_.header_bytes == 8 ? " header_type=\"UInt64\"" : " header_type=\"UInt32\"");
    if (settings_.zlib) {
      out_.text(" compressor=\"");
      out_.text(detail::kZlibCompressor);
      out_.put('"');
    }
    out_.text(">\n");
  }

  void write_section(std::string_view indent, std::string_view element, const std::vector<ArrayPlan>& arrays,
                     bool omit_when_empty) {
    if (arrays.empty() && omit_when_empty) return;
    out_.text(indent);
    out_.put('<');
    out_.text(element);
    out_.text(">\n");
    const std::string inner = std::string(indent) + "  ";
    for (const ArrayPlan& array : arrays) write_array(inner, array);
    out_.text(indent);
    out_.text("</");
    out_.text(element);
    out_.text(">\n");
  }

  void write_array(std::string_view indent, const ArrayPlan& array) {
    out_.text(indent);
    out_.put('<');
    out_.text(array.element);
    out_.text(" type=\"");
    out_.text(array.vtk_type);
    out_.text("\" Name=\"");
    out_.text(io::escape_xml_attribute(array.name));
    out_.put('"');
    if (array.components > 1) {
      out_.text(" NumberOfComponents=\"");
      out_.number(array.components);
      out_.put('"');
    }
    if (array.tuples) {
      out_.text(" NumberOfTuples=\"");
      out_.number(*array.tuples);
      out_.put('"');
    }
    switch (settings_.mode) {
      case DataMode::appended_raw:
        out_.text(" format=\"appended\" offset=\"");
        out_.number(array.appended_offset);
        out_.text("\"/>\n");
        return;
      case DataMode::ascii:
        out_.text(" format=\"ascii\">\n");
        write_ascii_values(indent, array);
        break;
      case DataMode::inline_base64:
        out_.text(" format=\"binary\">\n");
        out_.text(indent);
        out_.text("  ");
        write_inline_binary(array);
        out_.put('\n');
        break;
    }
    out_.text(indent);
    out_.text("</");
    out_.text(array.element);
    out_.text(">\n");
  }

  void write_ascii_values(std::string_view indent, const ArrayPlan& array) {
    const auto per_line = static_cast<std::size_t>(array.components > 1 ? array.components : kAsciiValuesPerLine);
    std::size_t column = 0;
    visit_dtype(array.dtype, [&](auto tag) {
      using Value = decltype(tag);
      for (ByteSpan segment : array.segments) {
        for (std::size_t at = 0; at + sizeof(Value) <= segment.size(); at += sizeof(Value)) {
          Value value;
          std::memcpy(&value, segment.data() + at, sizeof(Value));  // segments need not be aligned
          if (column == 0) {
            out_.text(indent);
            out_.text("  ");
          } else {
            out_.put(' ');
          }
          out_.number(value);
          if (++column == per_line) {
            out_.put('\n');
            column = 0;
          }
        }
      }
    });
    if (column != 0) out_.put('\n');
  }

  void write_base64(std::span<const ByteSpan> segments) {
    for_each_chunk(segments, kBase64Chunk, [&](const std::uint8_t* data, std::size_t size, bool) {
      io::base64_encode_append(data, size, out_.raw());
      out_.maybe_flush();
    });
  }

  // As VTK does: an uncompressed array is one base64 stream of header and data; a
  // compressed one is its header and its blocks encoded as two separate streams.
  void write_inline_binary(const ArrayPlan& array) {
    if (!settings_.zlib) {
      std::vector<ByteSpan> stream{ByteSpan(array.blob->header)};
      stream.insert(stream.end(), array.segments.begin(), array.segments.end());
      write_base64(stream);
      return;
    }
    const BinaryBlob blob = encode_blob(array, settings_);
    const ByteSpan header(blob.header), compressed(blob.compressed);
    write_base64({&header, 1});
    write_base64({&compressed, 1});
  }

  void write_appended_data(const DocumentPlan& plan) {
    out_.text("  <AppendedData encoding=\"raw\">\n   _");
    DocumentPlan::for_each_array(plan, [&](const ArrayPlan& array) {
      const BinaryBlob& blob = *array.blob;
      out_.bytes(blob.header.data(), blob.header.size());
      if (blob.is_compressed) {
        out_.bytes(blob.compressed.data(), blob.compressed.size());
        return;
      }
      for (ByteSpan segment : array.segments) out_.bytes(segment.data(), segment.size());
    });
    out_.text("\n  </AppendedData>\n");
  }

  io::OutputBuffer& out_;
  const Settings& settings_;
};

}  // namespace

void write(const std::string& path, const Mesh& mesh, const WriteOptions& options) {
  const Settings settings = parse_settings(options);
  // The registry validates too, but this entry point is public and must not trust its input.
  validate(mesh);
  try {
    const DocumentPlan plan = plan_document(mesh, settings);
    io::AtomicFile file(path, kFormatName);
    io::OutputBuffer out(file);
    DocumentWriter(out, settings).write(plan);
    out.flush();
    file.commit();
  } catch (const MeshIOError&) {
    throw;
  } catch (const std::runtime_error& error) {  // zlib failures
    throw WriteError(path, std::string(kFormatName), error.what());
  }
}

}  // namespace meshioplusplus::vtu
