// The writing side of the VTK XML <DataArray> layer: the write options, the plans shared by
// every file kind (points, point/cell/field data), the size headers and compressed blocks of
// binary arrays (compressed on every core), and the document streamed out atomically as ascii
// (its lines formatted on every core), inline base64 or appended raw data. Split from the
// reader (vtk_xml_data.cpp and the files it names) so that no file passes the project's
// 1,000-line limit.
#include "io/vtk/vtk_xml_data.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel_ranges.hpp"
#include "io/codecs/base64.hpp"
#include "io/output/atomic_file.hpp"
#include "io/output/parallel_rows.hpp"
#include "io/source/byte_order.hpp"
#include "meshioplusplus/errors.hpp"

namespace meshioplusplus::io::vtk_xml {

// ------------------------------------------------------------------ writing

namespace {

// Each codec at its fast end (zlib level 1: about three times faster than VTK's default 6
// for output some 4% larger on typical mesh data); any level reads back the same.
constexpr std::size_t kEncodeBlocksPerThread = 16;
// A multiple of 3 bytes, so consecutive base64 pieces form one unpadded stream.
constexpr std::size_t kBase64Chunk = 3 * 16384;
constexpr std::size_t kAsciiValuesPerLine = 6;

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
  for_each_chunk(array.segments, kCompressionBlockSize,
                 [&](const std::uint8_t* data, std::size_t size, bool transient) {
                   if (transient) data = copies.emplace_back(data, data + size).data();
                   blocks.emplace_back(data, size);
                 });
  return blocks;
}

void append_header_word(std::vector<std::uint8_t>& header, std::uint64_t value, const WriteSettings& settings,
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

BinaryBlob encode_blob(const ArrayPlan& array, const WriteSettings& settings) {
  BinaryBlob blob;
  if (settings.codec == nullptr) {
    append_header_word(blob.header, array.nbytes, settings, array);
    return blob;
  }
  blob.is_compressed = true;
  std::deque<std::vector<std::uint8_t>> copies;
  const std::vector<ByteSpan> blocks = compression_blocks(array, copies);
  // Blocks compress independently, so large arrays use every core.
  std::vector<std::vector<std::uint8_t>> compressed(blocks.size());
  const io::BlockCodec& codec = *settings.codec;
  parallel_ranges(blocks.size(), kEncodeBlocksPerThread, [&](std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b)
      codec.compress_append(blocks[b].data(), blocks[b].size(), codec.default_level, compressed[b]);
  });
  // VTK's convention: the last block's size, or 0 when it is a full block.
  append_header_word(blob.header, blocks.size(), settings, array);
  append_header_word(blob.header, kCompressionBlockSize, settings, array);
  append_header_word(blob.header, array.nbytes % kCompressionBlockSize, settings, array);
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

std::int64_t components_of(const NDArray& array) { return array.ndim() > 1 ? array.row_width() : 1; }

// VTK points always have three coordinates; meshio meshes may have fewer.
NDArray padded_to_3d(const NDArray& points) {
  const std::int64_t dim = points.dim(1);
  if (dim > 3) throw std::invalid_argument("VTK points have at most 3 coordinates, got " + std::to_string(dim));
  NDArray padded = NDArray::zeros(points.dtype(), {points.rows(), 3});
  const std::size_t item = dtype_size(points.dtype());
  const auto* source = static_cast<const std::uint8_t*>(points.data());
  auto* target = static_cast<std::uint8_t*>(padded.data());
  for (std::int64_t row = 0; row < points.rows(); ++row)
    std::memcpy(target + row * 3 * item, source + row * dim * item, static_cast<std::size_t>(dim) * item);
  return padded;
}

class DocumentWriter {
 public:
  DocumentWriter(OutputBuffer& out, AtomicFile& file, const WriteSettings& settings)
      : out_(out), file_(file), settings_(settings) {}

  void write(const DocumentPlan& plan) {
    write_prologue(plan.type);
    out_.text("  <");
    out_.text(plan.type);
    if (!plan.dataset_attributes.empty()) {
      out_.put(' ');
      out_.text(plan.dataset_attributes);
    }
    out_.text(">\n");
    write_section("    ", "FieldData", plan.field_data, true);
    for (const PiecePlan& piece : plan.pieces) {
      out_.text("    <Piece");
      if (!piece.attributes.empty()) {
        out_.put(' ');
        out_.text(piece.attributes);
      }
      out_.text(">\n");
      for (const SectionPlan& section : piece.sections)
        write_section("      ", section.element, section.arrays, section.omit_when_empty);
      out_.text("    </Piece>\n");
    }
    out_.text("  </");
    out_.text(plan.type);
    out_.text(">\n");
    if (settings_.mode == DataMode::appended_raw) write_appended_data(plan);
    out_.text("</VTKFile>\n");
  }

 private:
  void write_prologue(std::string_view type) {
    out_.text("<?xml version=\"1.0\"?>\n<VTKFile type=\"");
    out_.text(type);
    out_.put('"');
    // VTK marks files with 64-bit headers as version 1.0; 0.1 readers assume 32-bit ones.
    out_.text(settings_.header_bytes == 8 ? " version=\"1.0\"" : " version=\"0.1\"");
    out_.text(kHostIsLittleEndian ? " byte_order=\"LittleEndian\"" : " byte_order=\"BigEndian\"");
    out_.text(settings_.header_bytes == 8 ? " header_type=\"UInt64\"" : " header_type=\"UInt32\"");
    if (settings_.codec != nullptr) {
      out_.text(" compressor=\"");
      out_.text(vtk_compressor_of_codec(settings_.codec->name));
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
    out_.text(escape_xml_attribute(array.name));
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

  // `per_line` values to a line, each line indented, the values running on across segments
  // (the blocks' parts of one array); the lines are formatted on all cores
  // (io/output/parallel_rows.hpp), in file order at any thread count.
  void write_ascii_values(std::string_view indent, const ArrayPlan& array) {
    const auto per_line = static_cast<std::int64_t>(array.components > 1 ? array.components : kAsciiValuesPerLine);
    // A line longer than a chunk (tuples of thousands of components) would need a buffer of
    // its own per thread: such arrays stream out value by value.
    if (static_cast<std::size_t>(per_line) * (kMaxNumberChars + 1) > kChunkBytes)
      return write_ascii_values_sequentially(indent, array, static_cast<std::size_t>(per_line));
    visit_dtype(array.dtype, [&](auto tag) {
      using Value = decltype(tag);
      // Values before each segment, and in all of them (the last entry).
      std::vector<std::int64_t> starts{0};
      starts.reserve(array.segments.size() + 1);
      for (ByteSpan segment : array.segments)
        starts.push_back(starts.back() + static_cast<std::int64_t>(segment.size() / sizeof(Value)));
      const std::int64_t total = starts.back();
      const std::int64_t lines = (total + per_line - 1) / per_line;
      const std::size_t longest = indent.size() + 2 + static_cast<std::size_t>(per_line) * (kMaxNumberChars + 1) + 1;
      write_rows_in_parallel(out_, file_, lines, longest, [&](char* p, std::int64_t line) {
        const std::int64_t first = line * per_line, end = std::min(total, first + per_line);
        auto segment = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), first) - starts.begin() - 1);
        p = put_text(p, indent);
        p = put_text(p, "  ");
        for (std::int64_t at = first; at < end; ++at) {
          while (at >= starts[segment + 1]) ++segment;  // past the end of this one (or an empty one)
          Value value;
          std::memcpy(&value, array.segments[segment].data() + static_cast<std::size_t>(at - starts[segment]) * sizeof(Value),
                      sizeof(Value));  // segments need not be aligned
          if (at != first) *p++ = ' ';
          p = put_number(p, value);
        }
        *p++ = '\n';
        return p;
      });
    });
  }

  void write_ascii_values_sequentially(std::string_view indent, const ArrayPlan& array, std::size_t per_line) {
    std::size_t column = 0;
    visit_dtype(array.dtype, [&](auto tag) {
      using Value = decltype(tag);
      for (ByteSpan segment : array.segments) {
        for (std::size_t at = 0; at + sizeof(Value) <= segment.size(); at += sizeof(Value)) {
          Value value;
          std::memcpy(&value, segment.data() + at, sizeof(Value));
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
      base64_encode_append(data, size, out_.raw());
      out_.maybe_flush();
    });
  }

  // As VTK does: an uncompressed array is one base64 stream of header and data; a
  // compressed one is its header and its blocks encoded as two separate streams.
  void write_inline_binary(const ArrayPlan& array) {
    if (settings_.codec == nullptr) {
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
    plan.for_each_array([&](const ArrayPlan& array) {
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

  OutputBuffer& out_;
  AtomicFile& file_;  // what out_ writes to: ascii lines formatted on all cores go straight there
  const WriteSettings& settings_;
};

}  // namespace

WriteSettings parse_write_settings(const WriteOptions& options) {
  WriteSettings settings;
  const bool binary = options.get_bool("binary", true);
  const bool appended = options.get_bool("appended", false);
  if (appended && !binary) throw std::invalid_argument("appended=true needs binary=true");
  settings.mode = !binary ? DataMode::ascii : appended ? DataMode::appended_raw : DataMode::inline_base64;

  // An empty value is meshio's compression=None. The default is zlib when the build has it.
  const BlockCodec* zlib = find_block_codec("zlib");
  const std::string_view compression = options.get("compression", zlib->available ? "zlib" : "none");
  if (compression != "none" && !compression.empty()) {
    const BlockCodec* codec = find_block_codec(compression);
    if (codec == nullptr)
      throw std::invalid_argument("unknown compression '" + std::string(compression) +
                                  "' (expected zlib, lzma, lz4 or none)");
    if (!codec->available)
      throw std::invalid_argument("compression=" + std::string(compression) + ", but this meshio++ build has no " +
                                  std::string(codec->library));
    // ascii files are never compressed (VTK and meshio alike).
    if (binary) settings.codec = codec;
  }

  const std::string_view header_type = options.get("header_type", "");
  if (header_type == "UInt64") settings.header_bytes = 8;
  else if (header_type != "UInt32" && !header_type.empty())
    throw std::invalid_argument("unknown header_type '" + std::string(header_type) + "' (expected UInt32 or UInt64)");
  return settings;
}

ArrayPlan numeric_plan(std::string name, DType dtype, std::int64_t components, std::vector<ByteSpan> segments) {
  if (components < 1) throw std::invalid_argument("array '" + name + "' has no components");
  ArrayPlan plan;
  plan.vtk_type = vtk_name_of(dtype);
  plan.name = std::move(name);
  plan.dtype = dtype;
  plan.components = components;
  for (ByteSpan segment : segments) plan.nbytes += segment.size();
  plan.segments = std::move(segments);
  return plan;
}

ArrayPlan plan_points(const NDArray& points, DocumentPlan& plan) {
  const NDArray* padded = &points;
  if (points.dim(1) != 3) padded = &plan.converted.emplace_back(padded_to_3d(points));
  return numeric_plan("Points", padded->dtype(), 3, {bytes_of(*padded)});
}

void plan_point_data(const Mesh& mesh, std::vector<ArrayPlan>& out) {
  for (const auto& [name, array] : mesh.point_data)
    out.push_back(numeric_plan(name, array.dtype(), components_of(array), {bytes_of(array)}));
}

void plan_cell_data(const Mesh& mesh, const std::vector<BlockRows>& pieces, DocumentPlan& plan,
                    std::vector<ArrayPlan>& out) {
  for (const auto& [name, arrays] : mesh.cell_data) {
    if (arrays.empty() || pieces.empty()) continue;
    DType dtype = arrays[pieces.front().block].dtype();
    const std::int64_t components = components_of(arrays[pieces.front().block]);
    for (const BlockRows& rows : pieces) {
      const NDArray& array = arrays[rows.block];
      if (components_of(array) != components)
        throw std::invalid_argument("cell_data['" + name + "'] has blocks with different numbers of components");
      if (array.dtype() != dtype)
        dtype = dtype_is_float(dtype) || dtype_is_float(array.dtype()) ? DType::float64 : DType::int64;
    }
    std::vector<ByteSpan> segments;
    for (const BlockRows& rows : pieces) {
      const NDArray& array = arrays[rows.block];
      const NDArray& typed = array.dtype() == dtype ? array : plan.converted.emplace_back(array.astype(dtype));
      const std::size_t row_bytes = static_cast<std::size_t>(components) * dtype_size(dtype);
      const ByteSpan all = bytes_of(typed);
      segments.push_back(all.subspan(static_cast<std::size_t>(rows.first) * row_bytes,
                                     static_cast<std::size_t>(rows.count) * row_bytes));
    }
    out.push_back(numeric_plan(name, dtype, components, std::move(segments)));
  }
}

void plan_field_data(const Mesh& mesh, DocumentPlan& plan, std::vector<ArrayPlan>& out) {
  for (const auto& [name, array] : mesh.field_data) {
    ArrayPlan field = numeric_plan(name, array.dtype(), components_of(array), {bytes_of(array)});
    field.tuples = array.ndim() == 0 ? 1 : array.rows();
    out.push_back(std::move(field));
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
    out.push_back(std::move(field));
  }
}

void write_document(const std::string& path, std::string_view format, DocumentPlan& plan,
                    const WriteSettings& settings) {
  try {
    if (settings.mode != DataMode::ascii) {
      // Uncompressed headers are cheap and catch UInt32 overflow before the file is touched;
      // appended offsets need every compressed size up front.
      std::uint64_t offset = 0;
      plan.for_each_array([&](ArrayPlan& array) {
        if (settings.codec == nullptr || settings.mode == DataMode::appended_raw) array.blob = encode_blob(array, settings);
        if (settings.mode == DataMode::appended_raw) {
          array.appended_offset = offset;
          offset += appended_size(array);
        }
      });
    }
    AtomicFile file(path, format);
    OutputBuffer out(file);
    DocumentWriter(out, file, settings).write(plan);
    out.flush();
    file.commit();
  } catch (const MeshIOError&) {
    throw;
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::runtime_error& error) {  // compressor failures
    throw WriteError(path, std::string(format), error.what());
  }
}

}  // namespace meshioplusplus::io::vtk_xml
