// VTK XML UnstructuredGrid reader.
//
// Two passes over the mapped file: the XML part is scanned once into a layout (which
// arrays exist, where their bytes are), then every array is decoded straight into an
// NDArray allocated once in its final dtype and shape. Nothing is trusted before it is
// checked against the file: sizes against the bytes present, counts against
// NumberOfPoints/NumberOfCells, indices by the VTK cell-stream converter.
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "formats/vtu/vtu.hpp"
#include "formats/vtu/vtu_common.hpp"
#include "io/base64.hpp"
#include "io/byte_order.hpp"
#include "io/mapped_file.hpp"
#include "io/parallel.hpp"
#include "io/text_scanner.hpp"
#include "io/vtk_cells.hpp"
#include "io/xml_scanner.hpp"
#include "io/zlib_codec.hpp"
#include "meshioplusplus/cell_types.hpp"
#include "meshioplusplus/errors.hpp"
#include "meshioplusplus/threads.hpp"

namespace meshioplusplus::vtu {
namespace {

using detail::kFormatName;

// zlib's deflate cannot shrink data by more than about 1032:1; a header claiming more is
// lying, and believing it would let a tiny file request a huge allocation.
constexpr std::uint64_t kMaxZlibRatio = 1032;

// Work sizes below which a thread costs more than it saves.
// (A thread starts in tens of microseconds and parses 1 MiB of numbers in about one millisecond.)
constexpr std::size_t kParallelTextBytes = std::size_t{1} << 20;  // an ASCII section worth splitting
constexpr std::size_t kTextPieceBytes = std::size_t{512} << 10;   // the least text per thread
constexpr std::size_t kBase64QuantaPerThread = std::size_t{1} << 20;
constexpr std::size_t kZlibBlocksPerThread = 16;

enum class Encoding { ascii, inline_base64, appended };

// Arrays the mesh keeps go through the allocator hook; parsing temporaries must not.
enum class Lifetime { result, scratch };

NDArray allocate(Lifetime lifetime, DType dtype, Shape shape) {
  return lifetime == Lifetime::result ? NDArray::allocate(dtype, std::move(shape))
                                      : NDArray::allocate_scratch(dtype, std::move(shape));
}

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

struct PieceInfo {
  std::int64_t num_points = 0, num_cells = 0;
  std::size_t tag_offset = 0, cells_offset = 0;
  std::optional<ArrayInfo> points;
  std::vector<ArrayInfo> point_data, cell_data, cell_arrays;

  const ArrayInfo* cell_array(std::string_view name) const noexcept {
    for (const ArrayInfo& info : cell_arrays)
      if (info.name == name) return &info;
    return nullptr;
  }
};

// What the XML part of the file announces.
struct FileLayout {
  bool seen_root = false, seen_grid = false;
  bool little_endian = true;
  std::size_t header_bytes = 4;  // width of the size words: UInt32 or UInt64
  std::string compressor;
  std::vector<ArrayInfo> field_data;
  std::vector<PieceInfo> pieces;
  bool has_appended = false, appended_base64 = false;
  std::size_t appended_begin = 0, appended_end = 0;  // just past '_' .. the closing tag
};

// A binary array whose size header has been read and whose data has been located.
struct Payload {
  std::size_t header_offset = 0;  // file offset of the header, for messages
  std::uint64_t size = 0;         // decoded bytes
  bool base64 = false;
  bool compressed = false;
  std::uint64_t block_size = 0, last_block_size = 0, compressed_total = 0;
  std::vector<std::uint64_t> compressed_sizes;
  std::string_view data;  // raw: the bytes after the header; base64: the text after it
  // base64 whose header and data share one stream: data bytes decoded with the header.
  std::array<std::uint8_t, 3> lead{};
  std::size_t lead_size = 0;
};

struct PreparedArray {
  const ArrayInfo* info = nullptr;
  std::uint64_t count = 0;         // values: tuples × components
  std::optional<Payload> payload;  // binary encodings only
};

// The decoded base64 quanta that cover a size header.
struct HeaderChunk {
  std::vector<std::uint8_t> header;
  std::array<std::uint8_t, 3> lead{};
  std::size_t lead_size = 0;
  std::size_t consumed = 0;  // characters of the text used, whitespace included
};

// Points or point data: each piece holds a run of rows of one logical array.
struct PieceSlice {
  const ArrayInfo* info;
  std::int64_t rows;
};

// A polyhedron face stream in the legacy VTU layout, as io::cells_from_vtk expects it.
struct FaceStream {
  NDArray faces;
  std::vector<std::int64_t> starts;
};

std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && io::is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && io::is_space(text.back())) text.remove_suffix(1);
  return text;
}

enum Base64Class : std::uint8_t { kInvalid, kSymbol, kPadding, kSpace };

constexpr std::array<std::uint8_t, 256> kBase64Classes = [] {
  std::array<std::uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    const bool symbol = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    classes[static_cast<std::size_t>(c)] = symbol ? kSymbol : c == '=' ? kPadding : kInvalid;
  }
  for (unsigned char c : {' ', '\n', '\t', '\r', '\f', '\v'}) classes[c] = kSpace;
  return classes;
}();

std::uint64_t count_tokens(std::string_view text) noexcept {
  return io::count_tokens(text.data(), text.data() + text.size());
}

std::string label(const ArrayInfo& info) {
  return info.name.empty() ? std::string("unnamed DataArray") : "DataArray '" + info.name + "'";
}

DType promote(DType a, DType b) noexcept {
  if (a == b) return a;
  if (dtype_is_float(a) || dtype_is_float(b)) return DType::float64;
  return DType::int64;
}

const ArrayInfo* find_array(const std::vector<ArrayInfo>& arrays, std::string_view name) noexcept {
  for (const ArrayInfo& info : arrays)
    if (info.name == name) return &info;
  return nullptr;
}

// Element-wise static_cast from a decoded array into `out` of another dtype.
void convert_values(const NDArray& source, DType target, void* out) {
  visit_dtype(source.dtype(), [&](auto source_tag) {
    using Source = decltype(source_tag);
    const Source* values = static_cast<const Source*>(source.data());
    visit_dtype(target, [&](auto target_tag) {
      using Target = decltype(target_tag);
      Target* result = static_cast<Target*>(out);
      for (std::size_t i = 0; i < source.size(); ++i) result[i] = static_cast<Target>(values[i]);
    });
  });
}

class Reader {
 public:
  Reader(const std::string& path, std::string_view document) : path_(path), doc_(document) {}

  Mesh read() {
    scan_structure();
    Mesh mesh;
    read_points(mesh);
    read_point_data(mesh);
    read_cells(mesh);
    read_field_data(mesh);
    return mesh;
  }

 private:
  // ---------------------------------------------------------------- errors

  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    std::optional<std::uint64_t> line;
    // Line numbers mean nothing inside raw binary data.
    const bool in_raw_bytes = layout_.has_appended && !layout_.appended_base64 && offset >= layout_.appended_begin;
    if (!in_raw_bytes) line = io::line_of_offset(doc_, offset);
    throw ReadError(path_, std::string(kFormatName), message, offset, line);
  }

  std::size_t offset_of(std::string_view part) const noexcept {
    return static_cast<std::size_t>(part.data() - doc_.data());
  }

  std::uint64_t checked_product(std::uint64_t a, std::uint64_t b, std::size_t offset) const {
    if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b) fail(offset, "array size overflows");
    return a * b;
  }

  // ---------------------------------------------------------------- XML structure

  void scan_structure() {
    io::XmlScanner xml(doc_, 0, path_, kFormatName);
    std::vector<std::string_view> open;
    while (std::optional<io::XmlTag> tag = xml.next_tag()) {
      if (tag->closing) {
        if (open.empty() || open.back() != tag->name)
          fail(tag->begin, "unexpected </" + std::string(tag->name) + ">" +
                               (open.empty() ? std::string() : ", expected </" + std::string(open.back()) + ">"));
        open.pop_back();
        continue;
      }
      open_element(*tag, open.empty() ? std::string_view() : open.back());
      // Raw appended bytes follow; they are addressed by offset, never scanned as markup.
      if (tag->name == "AppendedData") break;
      if (!tag->self_closing) open.push_back(tag->name);
    }
    if (!layout_.has_appended && !open.empty())
      fail(doc_.size(), "file ends inside <" + std::string(open.back()) + ">");
    if (!layout_.seen_root) fail(0, "not a VTK XML file: no <VTKFile> element");
    if (!layout_.seen_grid) fail(0, "no <UnstructuredGrid> element");
  }

  void open_element(const io::XmlTag& tag, std::string_view parent) {
    const std::string_view name = tag.name;
    if (parent.empty()) {
      if (name != "VTKFile")
        fail(tag.begin, "expected <VTKFile> as the root element, found <" + std::string(name) + ">");
      read_file_attributes(tag);
    } else if (name == "UnstructuredGrid") {
      require_parent(tag, parent, "VTKFile");
      layout_.seen_grid = true;
    } else if (name == "Piece") {
      require_parent(tag, parent, "UnstructuredGrid");
      open_piece(tag);
    } else if (name == "PointData" || name == "CellData" || name == "Points" || name == "Cells") {
      require_parent(tag, parent, "Piece");
      if (name == "Cells") layout_.pieces.back().cells_offset = tag.begin;
    } else if (name == "DataArray" || name == "Array") {
      add_array(describe_array(tag), parent, tag);
    } else if (name == "AppendedData") {
      require_parent(tag, parent, "VTKFile");
      locate_appended_data(tag);
    }
    // Anything else (InformationKey, Value, ...) is metadata this reader has no use for.
  }

  void require_parent(const io::XmlTag& tag, std::string_view parent, std::string_view expected) const {
    if (parent != expected)
      fail(tag.begin, "<" + std::string(tag.name) + "> must be inside <" + std::string(expected) + ">, found it in <" +
                          std::string(parent) + ">");
  }

  std::optional<std::int64_t> count_attribute(const io::XmlTag& tag, std::string_view name) const {
    const std::string_view* raw = tag.attribute(name);
    if (raw == nullptr) return std::nullopt;
    const std::string_view text = trim(*raw);
    std::int64_t value = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size() || value < 0)
      fail(tag.begin, std::string(name) + "=\"" + std::string(*raw) + "\" of <" + std::string(tag.name) +
                          "> is not a non-negative integer");
    return value;
  }

  void read_file_attributes(const io::XmlTag& tag) {
    layout_.seen_root = true;
    const std::string_view* type = tag.attribute("type");
    if (type == nullptr || *type != "UnstructuredGrid")
      fail(tag.begin, "VTKFile type is '" + std::string(type ? *type : "") + "'; .vtu files hold an UnstructuredGrid");
    if (const std::string_view* order = tag.attribute("byte_order")) {
      if (*order == "BigEndian") layout_.little_endian = false;
      else if (*order != "LittleEndian") fail(tag.begin, "unknown byte_order '" + std::string(*order) + "'");
    }
    if (const std::string_view* header = tag.attribute("header_type")) {
      if (*header == "UInt64") layout_.header_bytes = 8;
      else if (*header != "UInt32") fail(tag.begin, "unknown header_type '" + std::string(*header) + "'");
    }
    if (const std::string_view* compressor = tag.attribute("compressor")) layout_.compressor = std::string(*compressor);
  }

  void open_piece(const io::XmlTag& tag) {
    PieceInfo& piece = layout_.pieces.emplace_back();
    piece.tag_offset = tag.begin;
    piece.num_points = count_attribute(tag, "NumberOfPoints").value_or(0);
    piece.num_cells = count_attribute(tag, "NumberOfCells").value_or(0);
  }

  ArrayInfo describe_array(const io::XmlTag& tag) const {
    ArrayInfo info;
    info.tag_offset = tag.begin;
    const std::string_view* type = tag.attribute("type");
    if (type == nullptr) fail(tag.begin, "<" + std::string(tag.name) + "> without a type attribute");
    if (*type != "String") {
      info.dtype = detail::dtype_from_vtk_name(*type);
      if (!info.dtype) fail(tag.begin, "unsupported data type '" + std::string(*type) + "'");
    }
    if (const std::string_view* name = tag.attribute("Name")) info.name = io::decode_xml_entities(*name);
    info.components = count_attribute(tag, "NumberOfComponents").value_or(1);
    if (info.components < 1) fail(tag.begin, label(info) + " has NumberOfComponents=0");
    info.tuples = count_attribute(tag, "NumberOfTuples");
    const std::string_view* format = tag.attribute("format");
    const std::string_view format_name = format ? *format : std::string_view("ascii");
    if (format_name == "ascii") {
      info.encoding = Encoding::ascii;
    } else if (format_name == "binary") {
      info.encoding = Encoding::inline_base64;
    } else if (format_name == "appended") {
      info.encoding = Encoding::appended;
      const std::optional<std::int64_t> offset = count_attribute(tag, "offset");
      if (!offset) fail(tag.begin, label(info) + " is appended but has no offset attribute");
      info.appended_offset = static_cast<std::uint64_t>(*offset);
    } else {
      fail(tag.begin, label(info) + " has unknown format '" + std::string(format_name) + "'");
    }
    info.content_begin = info.content_end = tag.end;
    if (!tag.self_closing) info.content_end = std::min(doc_.find('<', tag.end), doc_.size());
    return info;
  }

  void add_array(ArrayInfo info, std::string_view parent, const io::XmlTag& tag) {
    if (parent == "FieldData") {
      layout_.field_data.push_back(std::move(info));
      return;
    }
    // VTK has no text point or cell data that a mesh could hold; such arrays are skipped.
    if (info.is_string()) return;
    if (parent == "PointData") {
      layout_.pieces.back().point_data.push_back(std::move(info));
    } else if (parent == "CellData") {
      layout_.pieces.back().cell_data.push_back(std::move(info));
    } else if (parent == "Cells") {
      layout_.pieces.back().cell_arrays.push_back(std::move(info));
    } else if (parent == "Points") {
      PieceInfo& piece = layout_.pieces.back();
      if (piece.points) fail(tag.begin, "<Points> holds more than one DataArray");
      piece.points = std::move(info);
    }
  }

  void locate_appended_data(const io::XmlTag& tag) {
    const std::string_view* encoding = tag.attribute("encoding");
    const std::string_view encoding_name = encoding ? *encoding : std::string_view("raw");
    if (encoding_name == "base64") layout_.appended_base64 = true;
    else if (encoding_name != "raw") fail(tag.begin, "unknown AppendedData encoding '" + std::string(encoding_name) + "'");
    std::size_t position = tag.end;
    while (position < doc_.size() && io::is_space(doc_[position])) ++position;
    if (position >= doc_.size() || doc_[position] != '_') fail(position, "<AppendedData> must start with '_'");
    layout_.has_appended = true;
    layout_.appended_begin = position + 1;
    // The last closing tag ends the data; raw bytes may contain any byte sequence before it.
    const std::size_t close = doc_.rfind("</AppendedData>");
    layout_.appended_end = close != std::string_view::npos && close >= layout_.appended_begin ? close : doc_.size();
  }

  // ---------------------------------------------------------------- binary payloads

  bool compressed() const noexcept { return !layout_.compressor.empty(); }

  std::uint64_t read_word(const std::uint8_t* bytes) const noexcept {
    if (layout_.header_bytes == 4) {
      std::uint32_t value;
      io::copy_from_file_order(&value, bytes, 4, 1, layout_.little_endian);
      return value;
    }
    std::uint64_t value;
    io::copy_from_file_order(&value, bytes, 8, 1, layout_.little_endian);
    return value;
  }

  [[noreturn]] void fail_past_end(const ArrayInfo& info, std::size_t offset) const {
    fail(offset, label(info) + " extends past the end of its data (file truncated?)");
  }

  void check_compressor(const ArrayInfo& info) const {
    if (!compressed()) return;
    if (layout_.compressor != detail::kZlibCompressor)
      fail(info.tag_offset, "unsupported compressor '" + layout_.compressor + "' (only " +
                                std::string(detail::kZlibCompressor) + " is)");
    if (!io::zlib_available())
      fail(info.tag_offset, "the data is zlib-compressed but this meshio++ build has no zlib support");
  }

  Payload open_payload(const ArrayInfo& info) const {
    check_compressor(info);
    if (info.encoding == Encoding::inline_base64) {
      const std::string_view content = trim(doc_.substr(info.content_begin, info.content_end - info.content_begin));
      return open_base64(info, content, false);
    }
    if (!layout_.has_appended) fail(info.tag_offset, label(info) + " is appended but the file has no <AppendedData>");
    const std::uint64_t available = layout_.appended_end - layout_.appended_begin;
    if (info.appended_offset >= available)
      fail(info.tag_offset, label(info) + " has offset " + std::to_string(info.appended_offset) +
                                " beyond the appended data (" + std::to_string(available) + " bytes)");
    const std::size_t start = layout_.appended_begin + static_cast<std::size_t>(info.appended_offset);
    const std::string_view region = doc_.substr(start, layout_.appended_end - start);
    return layout_.appended_base64 ? open_base64(info, region, true) : open_raw(info, region);
  }

  Payload open_raw(const ArrayInfo& info, std::string_view region) const {
    Payload payload;
    payload.header_offset = offset_of(region);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(region.data());
    const std::size_t word = layout_.header_bytes;
    if (!compressed()) {
      if (region.size() < word) fail_past_end(info, payload.header_offset);
      payload.size = read_word(bytes);
      if (payload.size > region.size() - word) fail_past_end(info, payload.header_offset);
      payload.data = region.substr(word, static_cast<std::size_t>(payload.size));
      return payload;
    }
    if (region.size() < 3 * word) fail_past_end(info, payload.header_offset);
    const std::uint64_t blocks = read_word(bytes);
    if (blocks > (region.size() - 3 * word) / word) fail_past_end(info, payload.header_offset);
    const std::size_t header_size = static_cast<std::size_t>(3 + blocks) * word;
    read_block_table(info, payload, bytes, blocks);
    if (payload.compressed_total > region.size() - header_size) fail_past_end(info, payload.header_offset);
    payload.data = region.substr(header_size, static_cast<std::size_t>(payload.compressed_total));
    return payload;
  }

  // Parses [nblocks, blocksize, lastblocksize, compressed sizes...] and derives the size.
  void read_block_table(const ArrayInfo& info, Payload& payload, const std::uint8_t* header,
                        std::uint64_t blocks) const {
    const std::size_t word = layout_.header_bytes;
    const std::size_t at = payload.header_offset;
    payload.compressed = true;
    payload.block_size = read_word(header + word);
    payload.last_block_size = read_word(header + 2 * word);
    if (blocks > 0 && payload.block_size == 0) fail(at, label(info) + ": compression block size is 0");
    if (payload.last_block_size > payload.block_size)
      fail(at, label(info) + ": last compression block is larger than the block size");
    payload.compressed_sizes.resize(static_cast<std::size_t>(blocks));
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const std::uint64_t size = read_word(header + (3 + b) * word);
      if (size > std::numeric_limits<std::uint64_t>::max() - payload.compressed_total)
        fail(at, label(info) + ": compressed sizes overflow");
      payload.compressed_sizes[b] = size;
      payload.compressed_total += size;
    }
    if (blocks > 0) {
      const std::uint64_t last = payload.last_block_size != 0 ? payload.last_block_size : payload.block_size;
      payload.size = checked_product(blocks - 1, payload.block_size, at);
      if (payload.size > std::numeric_limits<std::uint64_t>::max() - last) fail(at, "array size overflows");
      payload.size += last;
    }
    if (payload.size / kMaxZlibRatio > payload.compressed_total + 64 * blocks)
      fail(at, label(info) + ": header claims " + std::to_string(payload.size) + " bytes from " +
                   std::to_string(payload.compressed_total) + " compressed bytes, more than zlib can produce");
  }

  // Decodes the base64 quanta covering a `header_size`-byte header. VTK encodes the
  // header of compressed data as its own padded stream but uncompressed data as one
  // stream with its header, so the last quantum may also carry the first data bytes.
  HeaderChunk decode_header_chunk(const ArrayInfo& info, std::string_view text, std::size_t header_size) const {
    const std::size_t needed = (header_size + 2) / 3 * 4;
    std::string symbols;
    symbols.reserve(needed);
    std::size_t position = 0;
    for (; position < text.size() && symbols.size() < needed; ++position)
      if (!io::is_space(text[position])) symbols.push_back(text[position]);
    if (symbols.size() < needed) fail(offset_of(text) + position, label(info) + ": base64 data ends inside its header");
    std::vector<std::uint8_t> decoded(io::base64_decoded_capacity(needed));
    std::size_t bad = 0;
    const std::optional<std::size_t> decoded_size = io::base64_decode(symbols, decoded.data(), &bad);
    if (!decoded_size) fail(offset_of(text), label(info) + ": invalid base64 in the size header");
    if (*decoded_size < header_size) fail(offset_of(text), label(info) + ": base64 size header is too short");
    HeaderChunk chunk;
    chunk.header.assign(decoded.begin(), decoded.begin() + static_cast<std::ptrdiff_t>(header_size));
    chunk.lead_size = *decoded_size - header_size;
    std::copy_n(decoded.begin() + static_cast<std::ptrdiff_t>(header_size), chunk.lead_size, chunk.lead.begin());
    chunk.consumed = position;
    return chunk;
  }

  Payload open_base64(const ArrayInfo& info, std::string_view text, bool appended) const {
    Payload payload;
    payload.base64 = true;
    payload.header_offset = offset_of(text);
    const std::size_t word = layout_.header_bytes;
    HeaderChunk chunk;
    std::uint64_t data_bytes = 0;  // bytes that follow the header in the stream
    if (!compressed()) {
      chunk = decode_header_chunk(info, text, word);
      payload.size = read_word(chunk.header.data());
      data_bytes = payload.size;
    } else {
      const HeaderChunk first = decode_header_chunk(info, text, 3 * word);
      const std::uint64_t blocks = read_word(first.header.data());
      // Every header word takes more than one base64 character.
      if (blocks > text.size() / word) fail(payload.header_offset, label(info) + ": block count exceeds the data");
      chunk = decode_header_chunk(info, text, static_cast<std::size_t>(3 + blocks) * word);
      read_block_table(info, payload, chunk.header.data(), blocks);
      data_bytes = payload.compressed_total;
    }
    if (chunk.lead_size > data_bytes) fail(payload.header_offset, label(info) + ": base64 data is longer than its header says");
    payload.lead = chunk.lead;
    payload.lead_size = chunk.lead_size;
    payload.data = text.substr(chunk.consumed);
    const std::uint64_t remaining = data_bytes - chunk.lead_size;
    if (remaining / 3 * 4 > payload.data.size())
      fail(payload.header_offset, label(info) + ": base64 data is shorter than its header says (" +
                                      std::to_string(data_bytes) + " bytes)");
    // Appended arrays sit back to back; the header says where this one stops.
    if (appended) payload.data = payload.data.substr(0, io::base64_encoded_size(static_cast<std::size_t>(remaining)));
    return payload;
  }

  // Decodes `text` into exactly `expected` bytes, checking the count before writing.
  void decode_base64_exact(const ArrayInfo& info, std::string_view text, std::uint8_t* out,
                           std::uint64_t expected) const {
    if (decode_unbroken_base64(text, out, expected)) return;
    std::array<std::uint64_t, 4> classes{};
    for (char c : text) ++classes[kBase64Classes[static_cast<unsigned char>(c)]];
    if (classes[kInvalid] != 0) {
      const auto bad = std::find_if(text.begin(), text.end(), [](char c) {
        return kBase64Classes[static_cast<unsigned char>(c)] == kInvalid;
      });
      fail(offset_of(text) + static_cast<std::size_t>(bad - text.begin()),
           label(info) + ": invalid base64 character '" + std::string(1, *bad) + "'");
    }
    const std::uint64_t symbols = classes[kSymbol] + classes[kPadding];
    if (symbols % 4 != 0 || symbols / 4 * 3 != expected + classes[kPadding])
      fail(offset_of(text), label(info) + ": base64 data does not decode to the " + std::to_string(expected) +
                                " bytes its header announces");
    std::size_t bad = 0;
    if (!io::base64_decode(text, out, &bad)) fail(offset_of(text) + bad, label(info) + ": invalid base64 data");
  }

  // The layout every VTK writer produces: one stream of exactly the right length, no
  // whitespace. All but its last quantum decode straight into `out` (in parallel when
  // large) and cannot overrun it: base64_decode writes three bytes per complete quantum,
  // and those quanta hold fewer than `expected` bytes. False: take the careful path.
  bool decode_unbroken_base64(std::string_view text, std::uint8_t* out, std::uint64_t expected) const {
    if (expected == 0 || text.size() != io::base64_encoded_size(static_cast<std::size_t>(expected))) return false;
    const std::size_t body_quanta = text.size() / 4 - 1;
    std::atomic<bool> body_ok{true};
    detail::parallel_ranges(body_quanta, kBase64QuantaPerThread, [&](std::size_t first, std::size_t last) {
      const std::optional<std::size_t> written =
          io::base64_decode(text.substr(4 * first, 4 * (last - first)), out + 3 * first);
      if (!written || *written != 3 * (last - first)) body_ok = false;
    });
    if (!body_ok) return false;
    std::uint8_t tail[6];
    const std::optional<std::size_t> written = io::base64_decode(text.substr(4 * body_quanta), tail);
    if (!written || 3 * body_quanta + *written != expected) return false;
    std::copy_n(tail, *written, out + 3 * body_quanta);
    return true;
  }

  // Blocks inflate independently, so large arrays use every core. `block_bytes(b, start,
  // buffer)` yields block b's deflate bytes, which start at `start` in the stream.
  template <class BlockBytes>
  void inflate_blocks(const ArrayInfo& info, const Payload& payload, std::uint8_t* out, BlockBytes&& block_bytes) const {
    const std::vector<std::uint64_t>& sizes = payload.compressed_sizes;
    std::vector<std::uint64_t> starts(sizes.size() + 1, 0);
    for (std::size_t b = 0; b < sizes.size(); ++b) starts[b + 1] = starts[b] + sizes[b];
    detail::parallel_ranges(sizes.size(), kZlibBlocksPerThread, [&](std::size_t first, std::size_t last) {
      std::vector<std::uint8_t> buffer;  // per thread: one block's bytes, when they need decoding
      for (std::size_t b = first; b < last; ++b) {
        const bool partial = b + 1 == sizes.size() && payload.last_block_size != 0;
        const std::uint64_t size = partial ? payload.last_block_size : payload.block_size;
        const std::uint8_t* bytes = block_bytes(b, starts[b], buffer);
        if (bytes == nullptr || !io::zlib_decompress(bytes, sizes[b], out + b * payload.block_size, size)) {
          const std::size_t at = offset_of(payload.data) + (payload.base64 ? 0 : static_cast<std::size_t>(starts[b]));
          fail(at, label(info) + ": zlib block " + std::to_string(b) + " is corrupt or does not inflate to " +
                       std::to_string(size) + " bytes");
        }
      }
    });
  }

  // Bytes [start, start + size) of a deflate stream held as `lead` then the unbroken base64
  // `text`, decoded into `buffer`; nullptr when the text there is not valid base64.
  static const std::uint8_t* base64_block(const Payload& payload, std::uint64_t start, std::uint64_t size,
                                          std::vector<std::uint8_t>& buffer) {
    buffer.resize(static_cast<std::size_t>(size));
    std::uint64_t filled = 0;
    for (; filled < size && start + filled < payload.lead_size; ++filled)
      buffer[static_cast<std::size_t>(filled)] = payload.lead[static_cast<std::size_t>(start + filled)];
    if (filled == size) return buffer.data();
    const std::uint64_t first = start + filled - payload.lead_size;  // byte offset in the text's stream
    const std::uint64_t end = start + size - payload.lead_size;
    const std::uint64_t first_quantum = first / 3, end_quantum = (end + 2) / 3;
    std::uint8_t decoded[3 * 4096];
    for (std::uint64_t q = first_quantum; q < end_quantum; q += 4096) {
      const std::uint64_t quanta = std::min<std::uint64_t>(4096, end_quantum - q);
      const std::optional<std::size_t> written =
          io::base64_decode(payload.data.substr(static_cast<std::size_t>(4 * q), static_cast<std::size_t>(4 * quanta)), decoded);
      if (!written) return nullptr;
      const std::uint64_t decoded_first = 3 * q;
      const std::uint64_t from = std::max(first, decoded_first), to = std::min(end, decoded_first + *written);
      if (to < from) return nullptr;
      std::memcpy(buffer.data() + filled, decoded + (from - decoded_first), static_cast<std::size_t>(to - from));
      filled += to - from;
    }
    return filled == size ? buffer.data() : nullptr;
  }

  void decode_payload(const ArrayInfo& info, const Payload& payload, void* out) const {
    auto* target = static_cast<std::uint8_t*>(out);
    if (!payload.compressed) {
      if (!payload.base64) {
        io::copy_in_parallel(target, payload.data.data(), static_cast<std::size_t>(payload.size));
        return;
      }
      std::copy_n(payload.lead.begin(), payload.lead_size, target);
      decode_base64_exact(info, payload.data, target + payload.lead_size, payload.size - payload.lead_size);
      return;
    }
    const auto* stream = reinterpret_cast<const std::uint8_t*>(payload.data.data());
    const auto in_stream = [&stream](std::size_t, std::uint64_t start, std::vector<std::uint8_t>&) {
      return stream + start;
    };
    if (!payload.base64) return inflate_blocks(info, payload, target, in_stream);
    // VTK writes the deflate blocks as one unbroken base64 stream: then each block decodes by
    // itself as it is inflated, and the whole compressed stream never sits in memory.
    if (payload.data.size() == io::base64_encoded_size(static_cast<std::size_t>(payload.compressed_total - payload.lead_size))) {
      const auto decoded_block = [&](std::size_t b, std::uint64_t start, std::vector<std::uint8_t>& buffer) {
        const std::uint8_t* bytes = base64_block(payload, start, payload.compressed_sizes[b], buffer);
        if (bytes == nullptr) {  // bad text: the careful decoder names the character and its offset
          std::vector<std::uint8_t> whole(static_cast<std::size_t>(payload.compressed_total - payload.lead_size));
          decode_base64_exact(info, payload.data, whole.data(), whole.size());
        }
        return bytes;
      };
      return inflate_blocks(info, payload, target, decoded_block);
    }
    std::vector<std::uint8_t> compressed_bytes(static_cast<std::size_t>(payload.compressed_total));  // scratch
    std::copy_n(payload.lead.begin(), payload.lead_size, compressed_bytes.begin());
    decode_base64_exact(info, payload.data, compressed_bytes.data() + payload.lead_size,
                        payload.compressed_total - payload.lead_size);
    stream = compressed_bytes.data();
    inflate_blocks(info, payload, target, in_stream);
  }

  // ---------------------------------------------------------------- arrays

  // Checks that `info` holds exactly `count` values, before anything is allocated for it.
  PreparedArray prepare(const ArrayInfo& info, std::uint64_t count) const {
    PreparedArray prepared{&info, count, std::nullopt};
    const std::size_t item = info.is_string() ? 1 : dtype_size(*info.dtype);
    const std::uint64_t bytes = checked_product(count, item, info.tag_offset);
    if (info.encoding == Encoding::ascii) {
      // Every value takes at least one character and one separator.
      const std::uint64_t length = info.content_end - info.content_begin;
      if (count > (length + 1) / 2)
        fail(info.content_begin, label(info) + " holds fewer than the " + std::to_string(count) + " values expected");
      return prepared;
    }
    prepared.payload = open_payload(info);
    if (prepared.payload->size != bytes)
      fail(prepared.payload->header_offset,
           label(info) + " holds " + std::to_string(prepared.payload->size) + " bytes, expected " +
               std::to_string(bytes) + " (" + std::to_string(count) + " values of " +
               std::string(dtype_name(*info.dtype)) + ")");
    return prepared;
  }

  void decode(const PreparedArray& prepared, void* out) const {
    const ArrayInfo& info = *prepared.info;
    if (info.encoding == Encoding::ascii) {
      parse_ascii(info, out, prepared.count);
      return;
    }
    decode_payload(info, *prepared.payload, out);
    if (layout_.little_endian != io::kHostIsLittleEndian)
      io::swap_bytes_in_place(out, dtype_size(*info.dtype), static_cast<std::size_t>(prepared.count));
  }

  // Decodes into `out`, which holds values of `dtype` (a wider type when pieces disagree).
  void decode_as(const PreparedArray& prepared, DType dtype, void* out) const {
    if (*prepared.info->dtype == dtype) {
      decode(prepared, out);
      return;
    }
    NDArray scratch = NDArray::allocate_scratch(*prepared.info->dtype, {static_cast<std::int64_t>(prepared.count)});
    decode(prepared, scratch.data());
    convert_values(scratch, dtype, out);
  }

  void parse_ascii(const ArrayInfo& info, void* out, std::uint64_t count) const {
    const std::size_t length = info.content_end - info.content_begin;
    const std::size_t pieces = std::min<std::size_t>(thread_count(), length / kTextPieceBytes);
    if (length >= kParallelTextBytes && pieces > 1 && parse_ascii_in_pieces(info, out, count, pieces)) return;
    parse_ascii_range(info, info.content_begin, info.content_end, out, count);
  }

  void parse_ascii_range(const ArrayInfo& info, std::size_t begin, std::size_t end, void* out,
                         std::uint64_t count) const {
    io::TextScanner scanner(doc_, begin, end, path_, kFormatName);
    visit_dtype(*info.dtype, [&](auto tag) {
      using Value = decltype(tag);
      scanner.next_numbers(static_cast<Value*>(out), static_cast<std::size_t>(count));
    });
    scanner.skip_whitespace();
    if (!scanner.at_end()) scanner.fail(label(info) + " holds more than the " + std::to_string(count) + " values expected");
  }

  // Splits the section at whitespace and parses the pieces on separate threads; every
  // number is still one from_chars call on the same characters, so the result and the
  // first error are those of a sequential parse. False when the value count is off: the
  // sequential parse then says precisely where.
  bool parse_ascii_in_pieces(const ArrayInfo& info, void* out, std::uint64_t count, std::size_t pieces) const {
    const std::size_t length = info.content_end - info.content_begin;
    std::vector<std::size_t> bounds(pieces + 1, info.content_begin);
    bounds[pieces] = info.content_end;
    for (std::size_t p = 1; p < pieces; ++p) {
      std::size_t at = std::max(bounds[p - 1], info.content_begin + length / pieces * p);
      while (at < info.content_end && !io::is_space(doc_[at])) ++at;
      bounds[p] = at;
    }
    std::vector<std::uint64_t> firsts(pieces + 1, 0);  // index of each piece's first value
    detail::parallel_ranges(pieces, 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p) firsts[p + 1] = count_tokens(doc_.substr(bounds[p], bounds[p + 1] - bounds[p]));
    });
    for (std::size_t p = 0; p < pieces; ++p) firsts[p + 1] += firsts[p];
    if (firsts[pieces] != count) return false;
    const std::size_t item = dtype_size(*info.dtype);
    detail::parallel_ranges(pieces, 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p)
        parse_ascii_range(info, bounds[p], bounds[p + 1], static_cast<std::uint8_t*>(out) + firsts[p] * item,
                          firsts[p + 1] - firsts[p]);
    });
    return true;
  }

  // How many values an array holds when no attribute says so.
  std::uint64_t stored_count(const ArrayInfo& info) const {
    if (info.encoding == Encoding::ascii) return count_tokens(doc_.substr(info.content_begin, info.content_end - info.content_begin));
    const Payload payload = open_payload(info);
    const std::size_t item = info.is_string() ? 1 : dtype_size(*info.dtype);
    if (payload.size % item != 0)
      fail(payload.header_offset, label(info) + " holds " + std::to_string(payload.size) +
                                      " bytes, not a whole number of " + std::string(dtype_name(*info.dtype)) + " values");
    return payload.size / item;
  }

  Shape array_shape(const ArrayInfo& info, std::int64_t rows) const {
    if (info.components > 1) return {rows, info.components};
    return {rows};
  }

  NDArray read_array(const ArrayInfo& info, Shape shape, Lifetime lifetime) const {
    std::uint64_t count = 1;
    for (std::int64_t extent : shape) count = checked_product(count, static_cast<std::uint64_t>(extent), info.tag_offset);
    const PreparedArray prepared = prepare(info, count);
    NDArray array = allocate(lifetime, *info.dtype, std::move(shape));
    decode(prepared, array.data());
    return array;
  }

  NDArray read_integer_array(const ArrayInfo& info, std::int64_t count, Lifetime lifetime) const {
    if (dtype_is_float(*info.dtype)) fail(info.tag_offset, label(info) + " must hold integers");
    if (info.components != 1) fail(info.tag_offset, label(info) + " must have one component");
    return read_array(info, {count}, lifetime);
  }

  // Index arrays the cell converter takes as int64 spans (types, offsets, face tables).
  std::vector<std::int64_t> read_index_vector(const ArrayInfo& info, std::int64_t count) const {
    const NDArray raw = read_integer_array(info, count, Lifetime::scratch);
    std::vector<std::int64_t> values(static_cast<std::size_t>(count));
    visit_dtype(raw.dtype(), [&](auto tag) {
      using Value = decltype(tag);
      const Value* source = static_cast<const Value*>(raw.data());
      for (std::size_t i = 0; i < values.size(); ++i) {
        if constexpr (std::is_same_v<Value, std::uint64_t>) {
          if (source[i] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            fail(info.tag_offset, label(info) + " holds a value beyond int64");
        }
        values[i] = static_cast<std::int64_t>(source[i]);
      }
    });
    return values;
  }

  // One byte per cell: VTK's ids all fit, and a mesh's cell types are a large scratch array.
  // Converted on all cores; a bad id is reported as a sequential pass would (the first).
  NDArray read_cell_types(const ArrayInfo& info, std::int64_t count) const {
    const NDArray raw = read_integer_array(info, count, Lifetime::scratch);
    NDArray types = NDArray::allocate_scratch(DType::uint8, {count});
    std::uint8_t* out = types.data_as<std::uint8_t>();
    visit_dtype(raw.dtype(), [&](auto tag) {
      using Value = decltype(tag);
      if constexpr (std::is_integral_v<Value>) {  // read_integer_array gives integers only
        const Value* source = static_cast<const Value*>(raw.data());
        io::parallel_ranges(static_cast<std::size_t>(count), std::size_t{1} << 20, [&](std::size_t first, std::size_t last) {
          for (std::size_t i = first; i < last; ++i) {
            if (!std::in_range<std::uint8_t>(source[i]))
              fail(info.tag_offset, "unknown VTK cell type " + std::to_string(source[i]) + " (cell " + std::to_string(i) + ")");
            out[i] = static_cast<std::uint8_t>(source[i]);
          }
        });
      }
    });
    return types;
  }

  // VTU offsets are the n end positions; the cell converter wants n+1 starts (int64, scratch),
  // written behind the leading 0 on all cores, with the first error a sequential pass finds.
  NDArray read_starts(const ArrayInfo& info, std::int64_t count) const {
    const NDArray raw = read_integer_array(info, count, Lifetime::scratch);
    NDArray starts_array = NDArray::allocate_scratch(DType::int64, {count + 1});
    std::int64_t* starts = starts_array.data_as<std::int64_t>();
    starts[0] = 0;
    visit_dtype(raw.dtype(), [&](auto tag) {
      using Value = decltype(tag);
      const Value* ends = static_cast<const Value*>(raw.data());
      io::parallel_ranges(static_cast<std::size_t>(count), std::size_t{1} << 20, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
          if constexpr (std::is_same_v<Value, std::uint64_t>) {
            if (ends[i] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
              fail(info.tag_offset, label(info) + " holds a value beyond int64");
          }
          const auto end = static_cast<std::int64_t>(ends[i]);
          const auto start = i == 0 ? std::int64_t{0} : static_cast<std::int64_t>(ends[i - 1]);
          if (end < start)
            fail(info.tag_offset, label(info) + " decreases at entry " + std::to_string(i) + " (" + std::to_string(end) +
                                      " after " + std::to_string(start) + ")");
          starts[i + 1] = end;
        }
      });
    });
    return starts_array;
  }

  // ---------------------------------------------------------------- points and point data

  const PieceInfo* pieces_reference() const noexcept {
    return layout_.pieces.empty() ? nullptr : &layout_.pieces.front();
  }

  // Reads a logical array that each piece holds some rows of into one allocation.
  NDArray gather(const std::vector<PieceSlice>& slices, DType dtype, std::int64_t components, bool keep_component_axis) const {
    std::vector<PreparedArray> prepared;
    std::int64_t rows = 0;
    for (const PieceSlice& slice : slices) {
      prepared.push_back(prepare(*slice.info, checked_product(slice.rows, components, slice.info->tag_offset)));
      rows += slice.rows;
    }
    const Shape shape = components > 1 || keep_component_axis ? Shape{rows, components} : Shape{rows};
    NDArray result = NDArray::allocate(dtype, shape);
    auto* out = static_cast<std::uint8_t*>(result.data());
    for (const PreparedArray& part : prepared) {
      decode_as(part, dtype, out);
      out += part.count * dtype_size(dtype);
    }
    return result;
  }

  std::int64_t total_points() const {
    std::int64_t total = 0;
    for (const PieceInfo& piece : layout_.pieces) {
      if (piece.num_points > std::numeric_limits<std::int64_t>::max() - total)
        fail(piece.tag_offset, "NumberOfPoints overflows");
      total += piece.num_points;
    }
    return total;
  }

  void read_points(Mesh& mesh) const {
    total_points();  // overflow check before any arithmetic on the sums
    std::vector<PieceSlice> slices;
    bool all_float32 = true;
    for (const PieceInfo& piece : layout_.pieces) {
      if (!piece.points) {
        if (piece.num_points > 0) fail(piece.tag_offset, "piece has NumberOfPoints=" + std::to_string(piece.num_points) + " but no <Points>");
        continue;
      }
      if (piece.points->components != 3)
        fail(piece.points->tag_offset, "Points must have 3 components, found " + std::to_string(piece.points->components));
      all_float32 = all_float32 && *piece.points->dtype == DType::float32;
      slices.push_back({&*piece.points, piece.num_points});
    }
    // Points stay in their file dtype; integer coordinates (legal in VTK) become float64.
    const DType dtype = !slices.empty() && all_float32 ? DType::float32 : DType::float64;
    mesh.points = gather(slices, dtype, 3, true);
  }

  void read_point_data(Mesh& mesh) const {
    const PieceInfo* reference = pieces_reference();
    if (reference == nullptr) return;
    for (const ArrayInfo& wanted : reference->point_data) {
      std::vector<PieceSlice> slices;
      DType dtype = *wanted.dtype;
      for (const PieceInfo& piece : layout_.pieces) {
        const ArrayInfo* info = find_array(piece.point_data, wanted.name);
        if (info == nullptr) {
          if (piece.num_points == 0) continue;
          fail(piece.tag_offset, "piece lacks PointData array '" + wanted.name + "' that the first piece has");
        }
        if (info->components != wanted.components)
          fail(info->tag_offset, label(*info) + " has " + std::to_string(info->components) +
                                     " components in this piece, " + std::to_string(wanted.components) + " in the first");
        dtype = promote(dtype, *info->dtype);
        slices.push_back({info, piece.num_points});
      }
      mesh.point_data.set(wanted.name, gather(slices, dtype, wanted.components, false));
    }
  }

  // ---------------------------------------------------------------- cells and cell data

  const ArrayInfo& require_cell_array(const PieceInfo& piece, std::string_view name) const {
    const ArrayInfo* info = piece.cell_array(name);
    if (info == nullptr)
      fail(piece.cells_offset ? piece.cells_offset : piece.tag_offset,
           "piece has " + std::to_string(piece.num_cells) + " cells but no '" + std::string(name) + "' array");
    return *info;
  }

  FaceStream read_legacy_faces(const PieceInfo& piece, std::span<const std::uint8_t> types) const {
    const ArrayInfo& offsets_info = require_cell_array(piece, "faceoffsets");
    const std::vector<std::int64_t> ends = read_index_vector(offsets_info, piece.num_cells);
    FaceStream stream;
    stream.starts.assign(types.size() + 1, 0);
    std::int64_t end = 0;
    // Non-polyhedron cells carry -1; a polyhedron's faces run from the previous one's end.
    for (std::size_t c = 0; c < types.size(); ++c) {
      if (types[c] == kVtkPolyhedron) {
        if (ends[c] < end) fail(offsets_info.tag_offset, label(offsets_info) + " decreases at cell " + std::to_string(c));
        end = ends[c];
      }
      stream.starts[c + 1] = end;
    }
    stream.faces = read_integer_array(require_cell_array(piece, "faces"), end, Lifetime::scratch);
    return stream;
  }

  // VTK 9.4+ layout: polyhedron_offsets/polyhedron_to_faces index a face table
  // (face_offsets/face_connectivity); rebuilt here as the legacy per-cell face stream.
  FaceStream read_face_table(const PieceInfo& piece, std::span<const std::uint8_t> types) const {
    const ArrayInfo& cell_offsets_info = require_cell_array(piece, "polyhedron_offsets");
    const NDArray cell_starts_array = read_starts(cell_offsets_info, piece.num_cells);
    const std::span<const std::int64_t> cell_starts = cell_starts_array.values<std::int64_t>();
    const ArrayInfo& to_faces_info = require_cell_array(piece, "polyhedron_to_faces");
    const std::vector<std::int64_t> to_faces = read_index_vector(to_faces_info, cell_starts.back());
    const ArrayInfo& face_offsets_info = require_cell_array(piece, "face_offsets");
    const auto face_count = static_cast<std::int64_t>(stored_count(face_offsets_info));
    const NDArray face_starts_array = read_starts(face_offsets_info, face_count);
    const std::span<const std::int64_t> face_starts = face_starts_array.values<std::int64_t>();
    const std::vector<std::int64_t> nodes =
        read_index_vector(require_cell_array(piece, "face_connectivity"), face_starts.back());

    // A face belongs to at most two cells in any real mesh; a table that references faces
    // far more often than that would only inflate memory.
    const auto expansion_limit = 4 * static_cast<std::int64_t>(types.size() + to_faces.size() + nodes.size());
    std::int64_t total = 0;
    for (std::size_t c = 0; c < types.size(); ++c) {
      if (types[c] != kVtkPolyhedron) continue;
      total += 1;
      for (std::int64_t k = cell_starts[c]; k < cell_starts[c + 1]; ++k) {
        const std::int64_t face = to_faces[static_cast<std::size_t>(k)];
        if (face < 0 || face >= face_count)
          fail(to_faces_info.tag_offset, label(to_faces_info) + " names face " + std::to_string(face) + " of " +
                                             std::to_string(face_count));
        total += 1 + face_starts[face + 1] - face_starts[face];
        if (total > expansion_limit)
          fail(to_faces_info.tag_offset, "polyhedron face table references its faces implausibly often");
      }
    }
    FaceStream stream;
    stream.faces = NDArray::allocate_scratch(DType::int64, {total});
    std::int64_t* out = stream.faces.data_as<std::int64_t>();
    stream.starts.assign(types.size() + 1, 0);
    std::int64_t written = 0;
    for (std::size_t c = 0; c < types.size(); ++c) {
      if (types[c] == kVtkPolyhedron) {
        out[written++] = cell_starts[c + 1] - cell_starts[c];
        for (std::int64_t k = cell_starts[c]; k < cell_starts[c + 1]; ++k) {
          const std::int64_t face = to_faces[static_cast<std::size_t>(k)];
          out[written++] = face_starts[face + 1] - face_starts[face];
          for (std::int64_t i = face_starts[face]; i < face_starts[face + 1]; ++i) out[written++] = nodes[i];
        }
      }
      stream.starts[c + 1] = written;
    }
    return stream;
  }

  static bool forms_one_rectangular_run(std::span<const std::uint8_t> types, std::span<const std::int64_t> starts) {
    if (types.empty() || types.front() == kVtkPolygon || types.front() == kVtkPolyhedron) return false;
    const std::int64_t nodes = starts[1] - starts[0];
    const std::uint8_t type = types.front();
    return !io::any_in_parallel(types.size(), [&types, &starts, type, nodes](std::size_t c) {
      return (types[c] != type) | (starts[c + 1] - starts[c] != nodes);
    });
  }

  io::VtkCells read_piece_cells(const PieceInfo& piece) const {
    if (piece.num_cells == 0) return {};
    const NDArray types_array = read_cell_types(require_cell_array(piece, "types"), piece.num_cells);
    const NDArray starts_array = read_starts(require_cell_array(piece, "offsets"), piece.num_cells);
    const std::span<const std::uint8_t> types = types_array.values<std::uint8_t>();
    const std::span<const std::int64_t> starts = starts_array.values<std::int64_t>();
    io::VtkCellStream stream;
    stream.types = types;
    stream.offsets = starts;
    // int64 connectivity of a single rectangular run becomes the block's array as it is;
    // anything else is parsing scratch, converted/split into blocks allocated once each.
    const ArrayInfo& connectivity = require_cell_array(piece, "connectivity");
    const bool kept_as_is = *connectivity.dtype == DType::int64 && forms_one_rectangular_run(types, starts);
    stream.connectivity = read_integer_array(connectivity, starts.back(), kept_as_is ? Lifetime::result : Lifetime::scratch);
    stream.connectivity_is_shareable = kept_as_is;
    stream.num_points = piece.num_points;
    FaceStream faces;
    if (std::memchr(types.data(), kVtkPolyhedron, types.size()) != nullptr) {
      faces = piece.cell_array("polyhedron_offsets") ? read_face_table(piece, types) : read_legacy_faces(piece, types);
      stream.faces = faces.faces;
      stream.face_offsets = faces.starts;
    }
    try {
      return io::cells_from_vtk(stream);
    } catch (const io::CellStreamError& error) {
      fail(piece.cells_offset ? piece.cells_offset : piece.tag_offset, error.what());
    }
  }

  static void shift_point_indices(std::vector<CellBlock>& blocks, std::int64_t shift) {
    if (shift == 0) return;
    for (CellBlock& block : blocks)
      for (std::int64_t& index : block.connectivity.values<std::int64_t>()) index += shift;
  }

  void append_cell_data(Mesh& mesh, const PieceInfo& piece, const std::vector<io::CellRun>& runs,
                        const PieceInfo& reference) const {
    for (const ArrayInfo& wanted : reference.cell_data) {
      const ArrayInfo* info = find_array(piece.cell_data, wanted.name);
      if (info == nullptr) fail(piece.tag_offset, "piece lacks CellData array '" + wanted.name + "' that other pieces have");
      if (info->components != wanted.components)
        fail(info->tag_offset, label(*info) + " has " + std::to_string(info->components) +
                                   " components in this piece, " + std::to_string(wanted.components) + " in another");
      // One run shares the array; several get copies of their slices.
      const Lifetime lifetime = runs.size() == 1 ? Lifetime::result : Lifetime::scratch;
      const NDArray values = read_array(*info, array_shape(*info, piece.num_cells), lifetime);
      std::vector<NDArray>* arrays = mesh.cell_data.find(wanted.name);
      if (arrays == nullptr) arrays = &mesh.cell_data.set(wanted.name, {});
      for (NDArray& part : io::split_cell_data(values, runs)) arrays->push_back(std::move(part));
    }
  }

  void read_cells(Mesh& mesh) const {
    const PieceInfo* reference = nullptr;
    for (const PieceInfo& piece : layout_.pieces)
      if (reference == nullptr && piece.num_cells > 0) reference = &piece;
    std::int64_t first_point = 0;
    for (const PieceInfo& piece : layout_.pieces) {
      io::VtkCells cells = read_piece_cells(piece);
      if (piece.num_cells > 0) append_cell_data(mesh, piece, cells.runs, *reference);
      shift_point_indices(cells.blocks, first_point);
      for (CellBlock& block : cells.blocks) mesh.cells.push_back(std::move(block));
      first_point += piece.num_points;
    }
  }

  // ---------------------------------------------------------------- field data

  std::vector<std::uint8_t> string_bytes(const ArrayInfo& info) const {
    std::vector<std::uint8_t> bytes;
    if (info.encoding != Encoding::ascii) {
      const Payload payload = open_payload(info);
      bytes.resize(static_cast<std::size_t>(payload.size));
      decode_payload(info, payload, bytes.data());
      return bytes;
    }
    // VTK writes each character as its (possibly signed) code and ends each string with 0.
    io::TextScanner scanner(doc_, info.content_begin, info.content_end, path_, kFormatName);
    for (scanner.skip_whitespace(); !scanner.at_end(); scanner.skip_whitespace()) {
      const int code = scanner.next_number<int>();
      if (code < -128 || code > 255) scanner.fail("character code " + std::to_string(code) + " outside a byte");
      bytes.push_back(static_cast<std::uint8_t>(code));
    }
    return bytes;
  }

  std::vector<std::string> read_strings(const ArrayInfo& info) const {
    const std::vector<std::uint8_t> bytes = string_bytes(info);
    std::vector<std::string> strings;
    std::size_t start = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] != 0) continue;
      strings.emplace_back(reinterpret_cast<const char*>(bytes.data()) + start, i - start);
      start = i + 1;
    }
    if (start < bytes.size()) strings.emplace_back(reinterpret_cast<const char*>(bytes.data()) + start, bytes.size() - start);
    if (info.tuples) {
      const std::uint64_t expected = checked_product(*info.tuples, info.components, info.tag_offset);
      if (strings.size() != expected)
        fail(info.tag_offset, "String array '" + info.name + "' holds " + std::to_string(strings.size()) +
                                  " strings, expected " + std::to_string(expected));
    }
    return strings;
  }

  void read_field_data(Mesh& mesh) const {
    for (const ArrayInfo& info : layout_.field_data) {
      if (info.is_string()) {
        mesh.string_field_data.set(info.name, read_strings(info));
        continue;
      }
      std::int64_t tuples = 0;
      if (info.tuples) {
        tuples = *info.tuples;
      } else {
        const std::uint64_t count = stored_count(info);
        if (count % static_cast<std::uint64_t>(info.components) != 0)
          fail(info.tag_offset, label(info) + " holds " + std::to_string(count) + " values, not a multiple of " +
                                    std::to_string(info.components) + " components");
        tuples = static_cast<std::int64_t>(count / static_cast<std::uint64_t>(info.components));
      }
      mesh.field_data.set(info.name, read_array(info, array_shape(info, tuples), Lifetime::result));
    }
  }

  const std::string& path_;
  std::string_view doc_;
  FileLayout layout_;
};

}  // namespace

Mesh read(const std::string& path) {
  const io::MappedFile file(path, kFormatName);
  return Reader(path, file.bytes()).read();
}

}  // namespace meshioplusplus::vtu
